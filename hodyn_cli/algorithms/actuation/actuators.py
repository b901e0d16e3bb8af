"""Rigid drives in the rigid-body dynamics: link-side joint torques with the rotors' reactions,
motor torques and currents, with their time derivatives of any order (``hodyn compute
--drives``; docs/drives.md).

A rigid drive of joint c (a drive without ``stiffness``, :mod:`hodyn_cli.modeling.drives`) is
the drive of the elastic model (:mod:`hodyn_cli.algorithms.actuation.elastic`: Höpler & Thümmel, ICRA
2002) with a rigid gear, ``theta_c = r_c q_c``. The coupling is then explicit (no solve from
the tips to the root)::

    tau_i   = tau_rigid,i + sum_c I_c r_c (S_ic qdd_c + G_ic qd_c)                  (2), (4), (29), (30)
    tau_m,c = (tau_c + f_J,c) / (r_c eta_c) + I_c (r_c qdd_c + n_c . omegad_p) + f_M,c     (5), (32)
    i_c     = tau_m,c / k_t,c

(model ``full``): ``tau`` the link-side joint torque, ``S_ic = zeta_i . nu_c`` and
``G_ic = zeta_i . d/dt nu_c`` the elastic model's coupling coefficients (the sum over the
rotors carried by link i or its descendants), ``f_J,c`` the joint-side friction at ``qd_c``,
``f_M,c`` the motor-side friction at ``thetad_c = r_c qd_c`` (:mod:`hodyn_cli.algorithms.actuation.friction`),
``eta_c`` the gear efficiency, ``k_t,c`` the torque constant, ``omegad_p`` the carrier's
body-fixed angular acceleration. The ``reflected`` model keeps only the rotor's spin relative
to its carrier (S = G = 0, no ``n . omegad_p``): ``tau = tau_rigid`` and ``r eta tau_m = tau +
f_J + eta (I r^2 qdd + r f_M)``, for eta = 1 and no friction Pinocchio's ``armature = I r^2``.

The time derivatives: the coupling's by the Leibniz rule in the elastic model's compiled
kernel (with ``K = inf``; :func:`hodyn_cli.algorithms.backends.numpy.elastic.solve_full` is its numpy
reference), the friction's by the tanh recursion. A joint without a drive has ``tau_m = tau``
and no current.

**Identification** (:func:`regressor_columns`): the motor torque referred to the joint,
``tau_drive = r eta tau_m`` (``tau`` where a joint has no drive; ``r eta k_t i`` from measured
currents), is linear in the rotor inertias and the friction parameters too::

    tau_drive,i^(k) = Y^(k) pi + sum_c A_ic^(k) I_c + sum_j F_ij^(k) (viscous_j, coulomb_j, offset_j)
    A_ic^(k) = r_c sum_a C(k,a) (S_ic^(a) q_c^(k-a+2) + G_ic^(a) q_c^(k-a+1))     (i != c: coupling)
    A_cc^(k) = r_c eta_c (r_c q_c^(k+2) + n_c . omega_p^(k+1))                     (the rotor's own)
    F_jj^(k) = (v^(k), d^k tanh(v / coulomb_velocity), [k = 0]) (joint side, v = qd_j; motor side:
               times r_j eta_j, v = r_j qd_j)

(reflected: no coupling, no ``n . omega_p`` term).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import comb

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.actuation import elastic, friction
from hodyn_cli.algorithms.backends.numpy.body_fixed import forward_pass
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.dynamics.common import GRAVITY, chunks
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.drives import Drives

__all__ = ["DriveResult", "requirements", "inverse_dynamics", "motor_friction",
           "regressor_columns", "regressor_parameters"]


@dataclass(frozen=True, eq=False)
class DriveResult:
    """Per sample (axis 0), derivative order (axis 1), joint (axis 2), orders 0..K.

    Attributes:
        tau: (N, K+1, n) link-side joint torques (the rotors' reactions included).
        taum: (N, K+1, n) motor torques (``tau`` where a joint has no drive).
        current: (N, K+1, n) motor currents (NaN where a drive has no torque constant).
    """

    tau: np.ndarray
    taum: np.ndarray
    current: np.ndarray


def requirements(model: Model, drives: Drives, order: int, kind: str = "full"
                 ) -> elastic.Requirements:
    """The orders of the coupling solve for torque order ``order``: every joint's torque to
    ``order``, q to ``order + 2`` (as without drives); which rotors couple into which joint
    (probed as in :func:`hodyn_cli.algorithms.actuation.elastic.coupling_structure`)."""
    if kind not in elastic.MODELS:
        raise HodynError(f"unknown drive model '{kind}' (choose from {', '.join(elastic.MODELS)})")
    n = model.n
    if kind == "full":
        accel, speed = elastic.coupling_structure(model, drives)
    else:
        accel = speed = np.zeros((n, n), dtype=bool)
    return elastic.Requirements(np.full(n, order), order + 2, accel, speed, (None,) * n)


def motor_friction(drives: Drives, qs: np.ndarray) -> np.ndarray:
    """``f_J / (r eta) + f_M`` (N, K+1, n), the friction a rigid drive's motor overcomes, from
    q's derivatives 1..K+1 ``qs`` (N, K+1, n) (0 where there is none)."""
    r, reta = _ratios(drives)
    out = np.zeros(qs.shape)
    joint = friction.at_side(drives, qs, motor=False)           # at the joint's speed qd
    motor = friction.at_side(drives, r * qs, motor=True)        # at the motor's r qd
    if joint is not None:
        out += joint / reta
    if motor is not None:
        out += motor
    return out


def inverse_dynamics(model: Model, trajectory: Trajectory, drives: Drives, *, order: int = 2,
                     kind: str = "full", gravity=GRAVITY, data: backends.Data | None = None
                     ) -> DriveResult:
    """tau, tau_m and the currents to order ``order`` of a robot with rigid drives (``kind``:
    ``full`` or ``reflected``, module docstring). ``trajectory`` needs q to ``order + 2``;
    ``data``: the backend's Data for the model, made once per request, which keeps the
    :func:`requirements` (they probe the model)."""
    if drives.elastic.any():
        name = model.joint_names[int(np.argmax(drives.elastic))]
        raise HodynError(f"joint '{name}' has a series-elastic drive ('stiffness'): hodyn elastic "
                         "computes it (--rigid-drives takes every drive as rigid)")
    backend, data = backends.prepare(model, data)
    req = data.derived(requirements, model, drives, order, kind)
    if kind == "reflected":
        tau = body_fixed.inverse_dynamics(model, trajectory, order=order, gravity=gravity,
                                          data=data)
        theta = np.where(drives.driven, drives.gear_ratio, 1.0) * trajectory.derivatives
        taum = elastic.motor_torque(drives, tau, theta, order, 0.0)
    else:
        N, n = trajectory.n_samples, model.n
        tau, taum = np.empty((N, order + 1, n)), np.empty((N, order + 1, n))
        for sl, qs, base, wrenches in chunks(model, trajectory, order, gravity,
                                             backend.rows(CHUNK)):
            u, _, taum[sl] = backend.elastic(model, data, drives, req, qs, base, wrenches, order)
            tau[sl] = u
    taum += motor_friction(drives, trajectory.derivatives[:, 1 : order + 2])
    return DriveResult(tau, taum, taum / np.where(drives.current, drives.torque_constant, np.nan))


def _ratios(drives: Drives) -> tuple[np.ndarray, np.ndarray]:
    """(r, r eta) per joint, 1 where there is no drive."""
    return (np.where(drives.driven, drives.gear_ratio, 1.0),
            np.where(drives.driven, drives.gear_ratio * drives.gear_efficiency, 1.0))


def regressor_parameters(model: Model, drives: Drives, *, with_armature: bool,
                         with_friction: bool) -> tuple[list[str], np.ndarray]:
    """Names and the drives file's values of the parameters of :func:`regressor_columns`:
    ``rotor_inertia_<joint>`` per driven joint, then ``viscous_<joint>``, ``coulomb_<joint>``,
    ``offset_<joint>``."""
    driven = np.flatnonzero(drives.driven)
    names: list[str] = []
    values: list[np.ndarray] = []
    if with_armature:
        names += [f"rotor_inertia_{model.joint_names[c]}" for c in driven]
        values.append(drives.rotor_inertia[driven])
    if with_friction:
        names += [f"{p}_{model.joint_names[j]}" for j in driven for p in friction.PARAMETERS]
        values.append(friction.parameters(drives.friction)[driven].ravel())
    return names, np.concatenate(values) if values else np.zeros(0)


def regressor_columns(model: Model, trajectory: Trajectory, drives: Drives, *, order: int = 0,
                      kind: str = "full", with_armature: bool = True,
                      with_friction: bool = True) -> np.ndarray:
    """The columns (N, K+1, n, p) of the drive parameters of :func:`regressor_parameters` in
    ``tau_drive^(k) = r eta tau_m^(k)`` (module docstring); q to order ``order + 2``."""
    driven = np.flatnonzero(drives.driven)
    qs = trajectory.derivatives[:, : order + 3]
    N, n, K = qs.shape[0], model.n, order
    r, reta = _ratios(drives)
    parts = []
    if with_armature:
        A = np.zeros((N, K + 1, n, len(driven)))
        A[:, :, driven, np.arange(len(driven))] = (reta * r * qs[:, 2:])[:, :, driven]
        if kind == "full":
            A += _coupling_columns(model, drives, qs, order, driven)
        parts.append(A)
    if with_friction:
        F = np.zeros((N, K + 1, n, len(driven), 3))
        motor = drives.friction.motor_side
        v = np.where(motor, r, 1.0) * qs[:, 1 : K + 2]
        cols = friction.columns(drives.friction, v) * np.where(motor, reta, 1.0)[:, None]
        F[:, :, driven, np.arange(len(driven))] = cols[:, :, driven]
        parts.append(F.reshape(N, K + 1, n, -1))
    return np.concatenate(parts, axis=3) if parts else np.zeros((N, K + 1, n, 0))


def _coupling_columns(model: Model, drives: Drives, qs: np.ndarray, K: int, driven: np.ndarray
                      ) -> np.ndarray:
    """The full model's rotor terms of the armature columns: the coupling ``A_ic`` (i != c)
    and ``r_c eta_c n_c . omega_p^(k+1)`` in ``A_cc``."""
    unit = replace(drives, rotor_inertia=np.where(drives.driven, 1.0, np.nan))  # every rotor
    req = requirements(model, unit, K)
    pairs = np.argwhere(req.accel | req.speed)
    N, n = qs.shape[0], model.n
    A = np.zeros((N, K + 1, n, len(driven)))
    column = {c: m for m, c in enumerate(driven)}
    r, reta = _ratios(drives)
    for sl, q, _, _ in chunks(model, Trajectory(model.joint_names, qs), K, (0.0, 0.0, 0.0)):
        omega = np.stack(forward_pass(model, q, K + 1).V, axis=1)[..., :3]
        for c in driven:
            if model.parent[c] >= 0:
                A[sl, :, c, column[c]] += reta[c] * omega[:, model.parent[c], 1:] @ unit.rotor_axis[c]
        if not pairs.size:
            continue
        zeta, nu = elastic.axis_rates(model, unit, q[:, 0], omega, K)
        S, G = elastic.coupling_coefficients(zeta, nu, pairs, K)
        S *= req.accel[tuple(pairs.T)]  # structural zeros exactly zero
        G *= req.speed[tuple(pairs.T)]
        for e, (i, c) in enumerate(pairs):
            for k in range(K + 1):
                A[sl, k, i, column[c]] += r[c] * sum(
                    comb(k, a) * (S[:, a, e] * q[:, k - a + 2, c] + G[:, a, e] * q[:, k - a + 1, c])
                    for a in range(k + 1))
    return A
