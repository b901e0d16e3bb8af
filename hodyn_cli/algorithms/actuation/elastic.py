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
from math import comb

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.actuation import friction
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.dynamics.common import CHUNK, GRAVITY, chunks
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.drives import Drives

__all__ = ["MODELS", "Requirements", "ElasticResult", "requirements", "coupling_structure",
           "inverse_dynamics", "solve_full", "motor_torque", "rotation_rates", "world_rotations",
           "explain"]

MODELS = ("full", "reflected")

#: |coefficient| below this at every probe configuration is a structural zero. The
#: coefficients are dot products of unit vectors (times unit joint speeds): O(1) where they
#: are not identically zero, ~1e-16 where they are.
ZERO_TOL = 1e-9
PROBES = 8


@dataclass(frozen=True)
class Requirements:
    """What a computation needs: derivative orders and why.

    Attributes:
        u_orders: (n,) highest derivative of each joint's u the solve computes.
        q_order: highest derivative of q needed for every joint.
        accel: (n, n) bool, ``[i, c]``: thetadd of drive c enters u_i (``S_ic != 0``).
        speed: (n, n) bool, ``[i, c]``: thetad of drive c enters u_i (gyroscopic term).
        because: per joint, the joint i whose equation set its order (None: the output).
    """

    u_orders: np.ndarray
    q_order: int
    accel: np.ndarray
    speed: np.ndarray
    because: tuple[int | None, ...]


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


def rotation_rates(R: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``R^(k)``, k = 0..K, (N, K+1, 3, 3), of a rotation with ``R' = R skew(omega)``.

    ``omega`` (N, K, 3) holds the body-fixed angular velocity and its first K-1 derivatives.

    >>> w = np.array([[[0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]])   # spin about z at 2 rad/s
    >>> Rk = rotation_rates(np.eye(3)[None], w)
    >>> np.allclose(Rk[0, 2], -4 * np.diag([1.0, 1.0, 0.0]))   # R'' = -w^2 on the xy-plane
    True
    """
    N, K = omega.shape[0], omega.shape[1]
    W = lie.skew(omega)
    out = np.empty((N, K + 1, 3, 3))
    out[:, 0] = R
    for k in range(1, K + 1):
        out[:, k] = sum(comb(k - 1, a) * out[:, k - 1 - a] @ W[:, a] for a in range(k))
    return out


def world_rotations(model: Model, q: np.ndarray) -> list[np.ndarray]:
    """Orientation R_i (N, 3, 3) of every body in the root frame for joint values q (N, n)."""
    Rs: list[np.ndarray] = []
    for i, p in enumerate(model.parent):
        R_pi = model.B[i, :3, :3]
        if model.X[i, :3].any():
            R_pi = R_pi @ lie.rotation_exp(model.X[i, :3], q[:, i])
        else:
            R_pi = np.broadcast_to(R_pi, (q.shape[0], 3, 3))
        Rs.append(R_pi if p < 0 else Rs[p] @ R_pi)
    return Rs


def axis_rates(model: Model, drives: Drives, q: np.ndarray, omega: np.ndarray, K: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """``zeta^(k)`` (N, K+1, n, 3), joint axes, and ``nu^(k)`` (N, K+2, n, 3), rotor axes,
    in the root frame (zero for prismatic joints resp. joints without a drive).

    ``q`` (N, n) joint values; ``omega`` (N, n, >= K+1, 3) body-fixed angular velocities
    and derivatives.
    """
    N = q.shape[0]
    rates = [rotation_rates(R, omega[:, i, : K + 1])
             for i, R in enumerate(world_rotations(model, q))]
    zeta = np.zeros((N, K + 1, model.n, 3))
    nu = np.zeros((N, K + 2, model.n, 3))
    for i in range(model.n):
        zeta[:, :, i] = rates[i][:, : K + 1] @ model.X[i, :3]
        if drives.driven[i]:
            p = model.parent[i]
            if p < 0:
                nu[:, 0, i] = drives.rotor_axis[i]
            else:
                nu[:, :, i] = rates[p] @ drives.rotor_axis[i]
    return zeta, nu


def coupling_coefficients(zeta: np.ndarray, nu: np.ndarray, pairs: np.ndarray, K: int
                          ) -> tuple[np.ndarray, np.ndarray]:
    """``S^(a)`` and ``G^(a)``, a = 0..K, of the joint/drive pairs ``(i, c)`` (P, 2), each
    (N, K+1, P)."""
    Z = zeta[:, :, pairs[:, 0]]  # (N, K+1, P, 3)
    Nu = nu[:, : K + 2, pairs[:, 1]]  # (N, K+2, P, 3)
    S = np.zeros(Z.shape[:3])
    G = np.zeros(Z.shape[:3])
    for b in range(K + 1):
        dots = np.einsum("npd,nmpd->nmp", Z[:, b], Nu[:, : K + 2 - b])  # zeta^(b) . nu^(m)
        for a in range(b, K + 1):
            S[:, a] += comb(a, b) * dots[:, a - b]
            G[:, a] += comb(a, b) * dots[:, a - b + 1]
    return S, G


def coupling_structure(model: Model, drives: Drives, seed: int = 0
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``(accel, speed)``, (n, n) bool: which ``S_ic`` and ``G_ic`` are not identically zero.

    Probes the coefficients at random configurations and joint speeds (module docstring).
    """
    rng = np.random.default_rng(seed)
    qs = rng.normal(size=(PROBES, 3, model.n))
    qs[:, 0] = rng.uniform(-np.pi, np.pi, size=(PROBES, model.n))
    kin = body_fixed.forward_pass(model, qs, 1)
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
                     kind: str = "full", gravity=GRAVITY,
                     known: Requirements | None = None) -> ElasticResult:
    """u, theta (to order K+2) and tau_m (to order K = ``order``) of an elastic-joint robot.

    ``trajectory`` needs q up to ``requirements(...).q_order`` (and wrench derivatives to
    that order minus 2). ``known``: those requirements, when already found (they probe the
    model; a stream of chunks needs them once). See the module docstring for the model.
    """
    if order < 0:
        raise HodynError(f"order must be >= 0, got {order}")
    req = known if known is not None else requirements(model, drives, order, kind)
    have = trajectory.orders - 1
    if have < req.q_order:
        raise HodynError(f"elastic --model {kind} --order {order} needs q up to "
                         f"{derivative_name('q', req.q_order)}, the trajectory has up to "
                         f"{derivative_name('q', have)}")
    R = int(req.u_orders.max())
    if kind == "reflected":
        qs = trajectory.derivatives
        u = body_fixed.inverse_dynamics(model, trajectory, order=R, gravity=gravity)
        joint = friction.at_side(drives, qs[:, 1 : R + 2], motor=False)
        u = u if joint is None else u + joint
        theta, taum = _motor_side(drives, qs[:, : R + 1], u, order)
    else:
        N, n = trajectory.n_samples, model.n
        u, theta = np.empty((N, order + 3, n)), np.empty((N, order + 3, n))
        taum = np.empty((N, order + 1, n))
        backend = backends.current()
        for sl, qs, base, wrenches in chunks(model, trajectory, R, gravity, backend.rows(CHUNK)):
            extra = friction.at_side(drives, qs[:, 1 : R + 2], motor=False)
            uc, thc, taum[sl] = backend.elastic(model, drives, req, qs, base, wrenches, order,
                                                extra)
            u[sl], theta[sl] = uc[:, : order + 3], thc[:, : order + 3]
    motor = friction.at_side(drives, theta[:, 1 : order + 2], motor=True)
    return ElasticResult(u, theta, taum if motor is None else taum + motor, req)


def solve_full(model: Model, drives: Drives, req: Requirements, qs: np.ndarray,
               base: np.ndarray, wrenches: dict, order: int, extra: np.ndarray | None = None):
    """u (N, R+1, n), theta (N, R+3, n) and tau_m (N, order+1, n; order <= R) of one chunk of
    the full model, R = ``max(req.u_orders)``: rigid passes (plus the joint torques ``extra``
    (N, R+1, n): joint-side friction), then the drives from the tips to the root. The numpy
    reference of the compiled kernel (``csrc/elastic.c``); theta above ``u_orders`` of an
    elastic drive is 0 (never used), a rigid drive's theta = r q goes to R+2."""
    R = int(req.u_orders.max())
    kin = body_fixed.forward_pass(model, qs, R + 1, base)
    u = body_fixed.backward_pass(model, qs, kin, R, wrenches)[0]
    if extra is not None:
        u = u + extra
    omega = np.stack(kin.V, axis=1)[..., :3]
    pairs = np.argwhere(req.accel | req.speed)  # (i, c), sorted by i
    zeta, nu = axis_rates(model, drives, qs[:, 0], omega, R)
    S, G = coupling_coefficients(zeta, nu, pairs, R)
    # structural zeros exactly zero: the theta orders they would multiply are never computed
    S *= req.accel[tuple(pairs.T)]
    G *= req.speed[tuple(pairs.T)]
    N = qs.shape[0]
    theta = np.zeros((N, R + 3, model.n))  # orders above u_orders[c] stay 0 (never used)
    k, a = np.meshgrid(np.arange(R + 1), np.arange(R + 1), indexing="ij")
    weight = np.where(a <= k, np.vectorize(comb)(k, np.minimum(a, k)), 0.0)
    for c in reversed(range(model.n)):  # descendants first: u_c is complete here
        if drives.elastic[c]:  # theta_c = r_c (q_c + u_c / K_c), eq. (3)
            m = req.u_orders[c] + 1
            theta[:, :m, c] = drives.gear_ratio[c] * (qs[:, :m, c] + u[:, :m, c]
                                                      / drives.stiffness[c])
        else:  # a rigid drive: theta = r q (K = inf); no drive: q
            theta[:, :, c] = (drives.gear_ratio[c] if drives.driven[c] else 1.0) * qs[:, : R + 3, c]
        mine = np.flatnonzero(pairs[:, 1] == c)
        if mine.size:
            # d^k (S thetadd + G thetad) = sum_a C(k,a) (S^(a) theta^(k-a+2) + G^(a) theta^(k-a+1))
            th2 = weight * theta[:, np.clip(k - a + 2, 0, R + 2), c]  # (N, k, a)
            th1 = weight * theta[:, np.clip(k - a + 1, 0, R + 2), c]
            u[:, :, pairs[mine, 0]] += drives.rotor_inertia[c] * (
                th2 @ S[:, :, mine] + th1 @ G[:, :, mine])
    omegad = np.zeros((N, order + 1, model.n))  # n_c . omega_p^(k+1), body-fixed
    for c in np.flatnonzero(drives.driven).tolist():
        p = model.parent[c]
        if p >= 0:
            omegad[:, :, c] = omega[:, p, 1 : order + 2] @ drives.rotor_axis[c]
    return u, theta, motor_torque(drives, u, theta, order, omegad)


def rigid_passes(model: Model, qs: np.ndarray, R: int, base: np.ndarray, wrenches: dict
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Rigid torques (N, R+1, n) and body-fixed angular velocities (N, n, R+2, 3) of a chunk,
    by the backend that runs: the rigid part of the model, for what builds on it (the
    time-scaling laws of :mod:`hodyn_cli.algorithms.limits.scaling`)."""
    u, V = backends.current().inverse_dynamics(model, qs, base, wrenches, order=R, twists=True)
    return u, V[..., :3]


def _motor_side(drives: Drives, qs: np.ndarray, u: np.ndarray, order: int):
    """theta and tau_m of the reflected model from u (N, order+3, n) (theta = r q for a rigid
    drive: u / inf = 0)."""
    theta = np.where(drives.driven, drives.gear_ratio * (qs + u / np.where(
        drives.driven, drives.stiffness, 1.0)), qs)
    return theta, motor_torque(drives, u, theta, order, 0.0)


def motor_torque(drives: Drives, u: np.ndarray, theta: np.ndarray, order: int, omegad
                  ) -> np.ndarray:
    """tau_m^(k) = u^(k) / (r eta) + I (theta^(k+2) + n . omega_p^(k+1)), k <= order
    (eq. (32)); u for joints without a drive."""
    r = np.where(drives.driven, drives.gear_ratio * drives.gear_efficiency, 1.0)
    motor = u[:, : order + 1] / r + drives.inertia * (theta[:, 2 : order + 3] + omegad)
    return np.where(drives.driven, motor, u[:, : order + 1])


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
