"""The full elastic-joint model over a chunk (the elastic-joint paper; equations in
:mod:`hodyn_cli.algorithms.actuation.elastic`): u, theta and the motor torques, the rotor
axes' rates and the couplings they bring; the numpy backend's ``elastic``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from hodyn_cli.algorithms.backends.numpy import body_fixed
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.modeling.drives import Drives

__all__ = ["Requirements", "solve_full", "motor_torque", "rotation_rates", "world_rotations", "axis_rates",
           "coupling_coefficients"]


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


def solve_full(model: Model, drives: Drives, req: Requirements, qs: np.ndarray,
               base: np.ndarray, wrenches: dict, order: int, extra: np.ndarray | None = None,
               *, data: ModelData | None = None):
    """u (N, R+1, n), theta (N, R+3, n) and tau_m (N, order+1, n; order <= R) of one chunk of
    the full model, R = ``max(req.u_orders)``: rigid passes (plus the joint torques ``extra``
    (N, R+1, n): joint-side friction), then the drives from the tips to the root. The numpy
    reference of the compiled kernel (``csrc/elastic.c``); theta above ``u_orders`` of an
    elastic drive is 0 (never used), a rigid drive's theta = r q goes to R+2."""
    R = int(req.u_orders.max())
    kin = body_fixed.forward_pass(model, qs, R + 1, base, data=data)
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


def motor_torque(drives: Drives, u: np.ndarray, theta: np.ndarray, order: int, omegad
                  ) -> np.ndarray:
    """tau_m^(k) = u^(k) / (r eta) + I (theta^(k+2) + n . omega_p^(k+1)), k <= order
    (eq. (32)); u for joints without a drive."""
    r = np.where(drives.driven, drives.gear_ratio * drives.gear_efficiency, 1.0)
    motor = u[:, : order + 1] / r + drives.inertia * (theta[:, 2 : order + 3] + omegad)
    return np.where(drives.driven, motor, u[:, : order + 1])
