"""Rigid drives in the rigid-body dynamics: link-side joint torques with the rotors' reactions,
motor torques and currents, with their time derivatives of any order (``hodyn compute
--drives``; docs/drives.md).

A rigid drive of joint c (a drive without ``stiffness``, :mod:`hodyn_cli.modeling.drives`) is
the drive of the elastic model (:mod:`hodyn_cli.algorithms.elastic`: Höpler & Thümmel, ICRA
2002) with a rigid gear, ``theta_c = r_c q_c``. The coupling is then explicit (no solve from
the tips to the root)::

    tau_i   = tau_rigid,i + sum_c I_c r_c (S_ic qdd_c + G_ic qd_c)                  (2), (4), (29), (30)
    tau_m,c = (tau_c + f_J,c) / (r_c eta_c) + I_c (r_c qdd_c + n_c . omegad_p) + f_M,c     (5), (32)
    i_c     = tau_m,c / k_t,c

(model ``full``): ``tau`` the link-side joint torque, ``S_ic = zeta_i . nu_c`` and
``G_ic = zeta_i . d/dt nu_c`` the elastic model's coupling coefficients (the sum over the
rotors carried by link i or its descendants), ``f_J,c`` the joint-side friction at ``qd_c``,
``f_M,c`` the motor-side friction at ``thetad_c = r_c qd_c`` (:mod:`hodyn_cli.algorithms.friction`),
``eta_c`` the gear efficiency, ``k_t,c`` the torque constant, ``omegad_p`` the carrier's
body-fixed angular acceleration. The ``reflected`` model keeps only the rotor's spin relative
to its carrier (S = G = 0, no ``n . omegad_p``): ``tau = tau_rigid`` and ``r eta tau_m = tau +
f_J + eta (I r^2 qdd + r f_M)``, for eta = 1 and no friction Pinocchio's ``armature = I r^2``.

The time derivatives: the coupling's by the Leibniz rule in the elastic model's compiled
kernel (with ``K = inf``; :func:`hodyn_cli.algorithms.elastic.solve_full` is its numpy
reference), the friction's by the tanh recursion. A joint without a drive has ``tau_m = tau``
and no current.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hodyn_cli.algorithms import elastic, friction
from hodyn_cli.algorithms.methods import _compiled, body_fixed
from hodyn_cli.algorithms.methods.common import CHUNK, GRAVITY, chunks
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.drives import Drives

__all__ = ["DriveResult", "requirements", "inverse_dynamics", "motor_friction"]


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
    (probed as in :func:`hodyn_cli.algorithms.elastic.coupling_structure`)."""
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
    out = np.zeros(qs.shape)
    joint = friction.at_side(drives, qs, motor=False)
    if joint is not None:
        out += joint / np.where(drives.driven, drives.gear_ratio * drives.gear_efficiency, 1.0)
    motor = friction.at_side(drives, np.where(drives.driven, drives.gear_ratio, 1.0) * qs,
                             motor=True)
    return out if motor is None else out + motor


def inverse_dynamics(model: Model, trajectory: Trajectory, drives: Drives, *, order: int = 2,
                     kind: str = "full", gravity=GRAVITY,
                     known: elastic.Requirements | None = None) -> DriveResult:
    """tau, tau_m and the currents to order ``order`` of a robot with rigid drives (``kind``:
    ``full`` or ``reflected``, module docstring). ``trajectory`` needs q to ``order + 2``;
    ``known``: :func:`requirements` when already found (they probe the model)."""
    if drives.elastic.any():
        name = model.joint_names[int(np.argmax(drives.elastic))]
        raise HodynError(f"joint '{name}' has a series-elastic drive ('stiffness'): hodyn elastic "
                         "computes it (--rigid-drives takes every drive as rigid)")
    req = known if known is not None else requirements(model, drives, order, kind)
    if kind == "reflected":
        tau = body_fixed.inverse_dynamics(model, trajectory, order=order, gravity=gravity)
        theta = np.where(drives.driven, drives.gear_ratio, 1.0) * trajectory.derivatives
        taum = elastic.motor_torque(drives, tau, theta, order, 0.0)
    else:
        N, n = trajectory.n_samples, model.n
        tau, taum = np.empty((N, order + 1, n)), np.empty((N, order + 1, n))
        compiled = _compiled.available() and order <= _compiled.MAX_ORDER
        solve = _compiled.elastic_chunk if compiled else elastic.solve_full
        size = max(N, 1) if compiled else CHUNK  # the kernel's memory is per lockstep group
        for sl, qs, base, wrenches in chunks(model, trajectory, order, gravity, size):
            u, _, taum[sl] = solve(model, drives, req, qs, base, wrenches, order)
            tau[sl] = u
    taum += motor_friction(drives, trajectory.derivatives[:, 1 : order + 2])
    return DriveResult(tau, taum, taum / np.where(drives.current, drives.torque_constant, np.nan))
