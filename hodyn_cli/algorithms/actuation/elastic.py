"""Inverse dynamics of elastic-joint robots: motor angles and motor torques of any order.

Höpler & Thümmel's model (ICRA 2002, eqs. (2)-(5), (29)-(33)), on trees, derived afresh.
Drive c (see :mod:`hodyn_cli.modeling.drives`) has a rotor of axial inertia ``I_c`` spinning with
angle ``theta_c`` about the unit axis ``n_c`` fixed in its carrier, body ``p = parent(c)``.
The rotor's mass and full inertia at rest belong to the carrier's URDF inertia; only its
spin is extra, so each link is a gyrostat with internal angular momentum
``h_c = I_c thetad_c n_c``. With ``nu_c = R_p n_c`` and ``zeta_i = R_i a_i`` (the rotor axis
and the axis of revolute joint i in the root frame; ``zeta_i = 0`` for a prismatic joint),
Lagrange's equations in (q, theta) give::

    u_i = tau_rigid,i(q, qd, qdd) + sum_c I_c (S_ic thetadd_c + G_ic thetad_c)       (2), (4)
          S_ic = zeta_i . nu_c                 (eq. (29): the inertial coupling S(q))
          G_ic = zeta_i . d/dt nu_c            (eq. (30): C_rotor = G thetad)
    u_c = K_c (theta_c / r_c - q_c)                                                   (3)
    tau_m,c = u_c / (r_c eta_c) + I_c (thetadd_c + n_c . omegad_p) + f_M,c          (5), (32)

where the sum runs over the rotors carried by link i or its descendants (i on the path
from the root to c's carrier), ``tau_rigid`` is the rigid-body inverse dynamics of the
links (rotor masses included, gravity and external wrenches as in ``hodyn compute``) and
``omegad_p`` is the carrier's body-fixed angular acceleration (``n_c . omegad_p`` is
eq. (33)'s ``C_carrier + S^T qdd``). The coupling term is ``zeta_i . dh_c/dt`` (the rate of
the rotor's absolute angular momentum, projected on joint i's axis), so the rotor wrench is
a pure moment and its point of application does not matter. ``eta_c`` is the gear's
efficiency; friction (:mod:`hodyn_cli.algorithms.actuation.friction`) on the joint side ``f_J,c(qd_c)``
adds to ``u_c`` (the spring carries it), on the motor side ``f_M,c(thetad_c)`` to ``tau_m,c``.
A **rigid drive** (no stiffness, ``K_c = inf``) has ``theta_c = r_c q_c``: it needs no solve.

**Solving** (Algorithm 1): ``u_i`` needs ``theta_c`` to order 2 (``S_ic != 0``) or 1
(only ``G_ic != 0``) above its own order, and ``theta_c = r_c (q_c + u_c / K_c)``, so the
joints are solved from the tips to the root and derivative orders grow towards the tips;
``tau_m^(K)`` needs ``u^(K+2)``. Every order is a Leibniz sum::

    d^k (S thetadd) = sum_a C(k,a) S^(a) theta^(k-a+2),   S^(a) = sum_b C(a,b) zeta^(b) . nu^(a-b)
    R^(k) = sum_a C(k-1,a) R^(k-1-a) skew(omega^(a))      (R' = R skew(omega), body-fixed omega)

**Structural zeros** (Algorithm 1, first step; eq. (31)): ``S_ic`` and ``G_ic`` are
trigonometric polynomials in q (and qd), so :func:`coupling_structure` evaluates them at
random configurations and treats a coefficient as identically zero when it vanishes at all
of them (a non-zero polynomial vanishes on a random point with probability 0). A rotor axis
perpendicular to joint i's axis in every configuration removes ``thetadd_c`` from ``u_i``; note
that the gyroscopic ``G_ic thetad_c`` usually stays (it does for the LBR's consecutive
orthogonal axes), so ``u_i`` then needs ``theta_c`` to one order more, not zero.

The ``reflected`` model (S = 0, no gyroscopic terms) is the usual SEA approximation:
``u = tau_rigid``, ``tau_m = I thetadd + u / r``.

A joint without a drive is rigid: its ``u`` is its joint torque (couplings included), its
``theta`` columns hold q and its derivatives, its ``taum`` equals ``u``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.actuation import friction
from hodyn_cli.algorithms.backends.numpy.body_fixed import forward_pass
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.backends.numpy.elastic import (
    Requirements,
    axis_rates,
    coupling_coefficients,
    motor_torque,
)
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.dynamics.common import GRAVITY, chunks
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.drives import Drives

__all__ = ["MODELS", "ElasticResult", "requirements", "coupling_structure", "inverse_dynamics", "explain"]

MODELS = ("full", "reflected")

#: |coefficient| below this at every probe configuration is a structural zero. The
#: coefficients are dot products of unit vectors (times unit joint speeds): O(1) where they
#: are not identically zero, ~1e-16 where they are.
ZERO_TOL = 1e-9
PROBES = 8


@dataclass(frozen=True, eq=False)
class ElasticResult:
    """Per sample (axis 0), derivative order (axis 1), joint (axis 2).

    Attributes:
        u: (N, K+3, n) spring (link-side joint) torques u, ud, ..., to order K+2.
        theta: (N, K+3, n) motor (rotor) angles relative to the carrier, to order K+2.
        taum: (N, K+1, n) motor torques, to order K.
        requirements: the orders the solve needed.
    """

    u: np.ndarray
    theta: np.ndarray
    taum: np.ndarray
    requirements: Requirements


def coupled_pairs(model: Model, drives: Drives) -> np.ndarray:
    """(n, n) bool, ``[i, c]``: drive c has a rotor with inertia on a carrier in joint i's subtree."""
    anc = model.ancestry
    has_rotor = drives.driven & (drives.inertia > 0) & (model.parent >= 0)
    pairs = np.zeros((model.n, model.n), dtype=bool)
    for c in np.flatnonzero(has_rotor):
        pairs[:, c] = anc[:, model.parent[c]]
    return pairs


def coupling_structure(model: Model, drives: Drives, seed: int = 0
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``(accel, speed)``, (n, n) bool: which ``S_ic`` and ``G_ic`` are not identically zero.

    Probes the coefficients at random configurations and joint speeds (module docstring).
    """
    rng = np.random.default_rng(seed)
    qs = rng.normal(size=(PROBES, 3, model.n))
    qs[:, 0] = rng.uniform(-np.pi, np.pi, size=(PROBES, model.n))
    kin = forward_pass(model, qs, 1)
    zeta, nu = axis_rates(model, drives, qs[:, 0], np.stack(kin.V, axis=1)[..., :3], 0)
    pairs = np.argwhere(coupled_pairs(model, drives))
    S, G = coupling_coefficients(zeta, nu, pairs, 0)
    accel = np.zeros((model.n, model.n), dtype=bool)
    speed = np.zeros((model.n, model.n), dtype=bool)
    accel[tuple(pairs.T)] = np.abs(S[:, 0]).max(axis=0) > ZERO_TOL
    speed[tuple(pairs.T)] = np.abs(G[:, 0]).max(axis=0) > ZERO_TOL
    return accel, speed


def requirements(model: Model, drives: Drives, order: int, kind: str = "full") -> Requirements:
    """Derivative orders of u per joint and of q overall for ``tau_m`` up to ``order``.

    Outputs carry u and theta to order K+2 and tau_m to K. Going from the root to the tips,
    a coupled elastic drive c needs u_c two orders (``S_ic != 0``) or one order (gyroscopic
    term only) above u_i (a rigid drive's theta = r q needs none); u of order m needs q to m+2.
    """
    if kind not in MODELS:
        raise HodynError(f"unknown elastic model '{kind}' (choose from {', '.join(MODELS)})")
    n = model.n
    need = np.full(n, order + 2)
    because: list[int | None] = [None] * n
    if kind == "full":
        accel, speed = coupling_structure(model, drives)
    else:
        accel = speed = np.zeros((n, n), dtype=bool)
    for c in np.flatnonzero(drives.elastic):  # ancestors come first in the model's order
        for i in np.flatnonzero(accel[:, c] | speed[:, c]):
            candidate = need[i] + (2 if accel[i, c] else 1)
            if candidate > need[c]:
                need[c], because[c] = candidate, int(i)
    return Requirements(need, int(need.max()) + 2, accel, speed, tuple(because))


def inverse_dynamics(model: Model, trajectory: Trajectory, drives: Drives, *, order: int = 0,
                     kind: str = "full", gravity=GRAVITY, data: backends.Data | None = None
                     ) -> ElasticResult:
    """u, theta (to order K+2) and tau_m (to order K = ``order``) of an elastic-joint robot.

    ``trajectory`` needs q up to ``requirements(...).q_order`` (and wrench derivatives to
    that order minus 2); ``data``: the backend's Data for the model, made once per request,
    which keeps those requirements (they probe the model: a stream of chunks finds them
    once). See the module docstring for the model.
    """
    if order < 0:
        raise HodynError(f"order must be >= 0, got {order}")
    backend, data = backends.prepare(model, data)
    req = data.derived(requirements, model, drives, order, kind)
    have = trajectory.orders - 1
    if have < req.q_order:
        raise HodynError(f"elastic --model {kind} --order {order} needs q up to "
                         f"{derivative_name('q', req.q_order)}, the trajectory has up to "
                         f"{derivative_name('q', have)}")
    R = int(req.u_orders.max())
    if kind == "reflected":
        qs = trajectory.derivatives
        u = body_fixed.inverse_dynamics(model, trajectory, order=R, gravity=gravity, data=data)
        joint = friction.at_side(drives, qs[:, 1 : R + 2], motor=False)
        u = u if joint is None else u + joint
        theta, taum = _motor_side(drives, qs[:, : R + 1], u, order)
    else:
        N, n = trajectory.n_samples, model.n
        u, theta = np.empty((N, order + 3, n)), np.empty((N, order + 3, n))
        taum = np.empty((N, order + 1, n))
        for sl, qs, base, wrenches in chunks(model, trajectory, R, gravity, backend.rows(CHUNK)):
            extra = friction.at_side(drives, qs[:, 1 : R + 2], motor=False)
            uc, thc, taum[sl] = backend.elastic(model, data, drives, req, qs, base, wrenches,
                                                order, extra)
            u[sl], theta[sl] = uc[:, : order + 3], thc[:, : order + 3]
    motor = friction.at_side(drives, theta[:, 1 : order + 2], motor=True)
    return ElasticResult(u, theta, taum if motor is None else taum + motor, req)


def rigid_passes(model: Model, qs: np.ndarray, R: int, base: np.ndarray, wrenches: dict,
                 data: backends.Data | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rigid torques (N, R+1, n) and body-fixed angular velocities (N, n, R+2, 3) of a chunk,
    by the backend that runs: the rigid part of the model, for what builds on it (the
    time-scaling laws of :mod:`hodyn_cli.algorithms.limits.scaling`)."""
    backend, data = backends.prepare(model, data)
    u, V = backend.inverse_dynamics(model, data, qs, base, wrenches, order=R, twists=True)
    return u, V[..., :3]


def _motor_side(drives: Drives, qs: np.ndarray, u: np.ndarray, order: int):
    """theta and tau_m of the reflected model from u (N, order+3, n) (theta = r q for a rigid
    drive: u / inf = 0)."""
    theta = np.where(drives.driven, drives.gear_ratio * (qs + u / np.where(
        drives.driven, drives.stiffness, 1.0)), qs)
    return theta, motor_torque(drives, u, theta, order, 0.0)


def explain(model: Model, drives: Drives, req: Requirements) -> list[dict]:
    """Per joint: its drive (elastic, rigid or none), the order of u the solve needs, and why
    (for ``--explain``)."""
    rows = []
    for j in range(model.n):
        i = req.because[j]
        if i is None:
            reason = "the output (u, theta to order K+2)"
        else:
            what = "thetadd" if req.accel[i, j] else "thetad (gyroscopic term only)"
            reason = (f"u_{model.joint_names[i]} (order {req.u_orders[i]}) contains {what} of "
                      "this drive")
        coupled = [model.joint_names[c] for c in range(model.n) if req.accel[j, c]]
        gyro = [model.joint_names[c] for c in range(model.n) if req.speed[j, c]
                and not req.accel[j, c]]
        rows.append({
            "joint": model.joint_names[j],
            "drive": ("elastic" if drives.elastic[j] else "rigid" if drives.rigid[j]
                      else "none"),
            "u_order": int(req.u_orders[j]),
            "q_order": int(req.u_orders[j]) + 2,
            "because": reason,
            "thetadd_in_u": coupled,
            "thetad_only_in_u": gyro,
        })
    return rows
