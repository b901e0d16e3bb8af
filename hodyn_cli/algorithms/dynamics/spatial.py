"""Spatial recursive O(n) kinematics of order K and inverse dynamics (method ``spatial``).

Mueller, "An O(n)-algorithm for the higher-order kinematics and inverse dynamics of
serial manipulators using spatial representation of twists" (the spatial paper). Its
formulas were lost in the text conversion; they are rebuilt here from the Lie group
identities the paper names, with its equation numbers. Everything is expressed in the
root (world) frame; body i has parent p, n bodies form a tree.

Kinematics (sec. II-III, Algorithm 1). Spatial POE (4)-(5)::

    C_i = E_i A_i,   E_i = E_p exp(Y_i^0 q_i),   Y_i^0 = Ad_{A_i} X_i        (4), (5)

The instantaneous joint screw ``Y_i = Ad_{E_p} Y_i^0`` moves with the parent, so
``d/dt Ad_{E_p} = ad_{V_p} Ad_{E_p}`` gives ``Y_i' = [V_p, Y_i]`` (9) and, by Leibniz::

    Y_i^(k) = sum_{j<k} C(k-1, j) [V_p^(j), Y_i^(k-1-j)]                              (9)

The spatial twist adds joint rates without any frame transformation (6)::

    V_i = V_p + Y_i qd_i
    V_i^(k) = V_p^(k) + sum_{j<=k} C(k, j) Y_i^(j) q_i^(k+1-j)                       (6), (9)

Dynamics (sec. V). The spatial mass matrix is the body inertia moved to the world
frame, and its rate follows from ``d/dt Ad_{C_i}^-1 = -Ad_{C_i}^-1 ad_{V_i}``::

    M_i^s = Ad_{C_i}^-T M_i Ad_{C_i}^-1                                               (13)
    M_i^s' = -ad_{V_i}^T M_i^s - M_i^s ad_{V_i}                                       (14)
    M^s(k) = -sum_{j<k} C(k-1, j) (ad_{V^(j)}^T M^s(k-1-j) + M^s(k-1-j) ad_{V^(j)})

The momentum balance ``d/dt (M^s V) = W`` with (14) and ``ad_V V = 0`` gives the
Newton-Euler equations in spatial form and, differentiated, their rates::

    Pi_i = M_i^s V_i                                                                  (12)
    Pi_i' = M_i^s V_i' - ad_{V_i}^T Pi_i                                              (16)
    Pi^(k+1) = sum_{j<=k} C(k, j) (M^s(j) V^(k+1-j) - ad_{V^(j)}^T Pi^(k-j))      (17)-(19)

Inter-body wrenches need no frame transformation either; the joint torque is the
wrench's power on the instantaneous joint screw::

    W_i = Pi_i' + sum_{c child} W_c + W_i^ext                                     (26)-(30)
    tau_i^(k) = sum_{j<=k} C(k, j) Y_i^(j)T W_i^(k-j)                                (31)

Gravity is the ground acceleration ``V_0' = (0; -g)`` (Algorithm 1), carried through
every derivative (see :func:`hodyn_cli.algorithms.dynamics.common.base_motion`). An external
wrench ``W^b`` that a link exerts on its environment (docs/conventions.md) enters in spatial form
``W^s = Ad_{C_i}^-T W^b`` with ``W^s' = Ad_{C_i}^-T W^b' - ad_{V_i}^T W^s`` (22).

Arrays: per body, ``(N, K+1, 6)`` (sample, derivative order, screw); poses ``(N, 3, 3)``
and ``(N, 3)``; spatial inertias ``(N, 6, 6)``.
"""

from __future__ import annotations

from math import comb

import numpy as np

from hodyn_cli.algorithms.backends.numpy.spatial import SpatialKinematics, forward_pass, spatial_inertia
from hodyn_cli.algorithms.dynamics.common import GRAVITY, leibniz_rates, solve_in_chunks
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

__all__ = ["backward_pass", "inverse_dynamics", "joint_wrenches", "body_fixed_twists", "spatial_twists"]


def inertia_derivatives(Ms: np.ndarray, V: np.ndarray, r: int) -> list[np.ndarray]:
    """``[M^s, M^s', ..., M^s(r)]`` from (14) and the Leibniz rule; V (N, >= r, 6)."""
    adV = [lie.ad(V[:, j]) for j in range(r)]
    Md = [Ms]
    for k in range(1, r + 1):
        G = sum(comb(k - 1, j) * (Md[k - 1 - j] @ adV[j]) for j in range(k))
        Md.append(-(G + np.swapaxes(G, 1, 2)))
    return Md


def momentum_derivatives(Md: list[np.ndarray], V: np.ndarray, r: int) -> np.ndarray:
    """``Pi, Pi', ..., Pi^(r+1)`` (N, r+2, 6) of ``Pi = M^s V``, eqs. (12), (16)-(19)."""
    Pi = np.empty(V.shape[:1] + (r + 2, 6))
    Pi[:, 0] = _apply(Md[0], V[:, 0])
    for k in range(r + 1):
        Pi[:, k + 1] = sum(comb(k, j) * (_apply(Md[j], V[:, k + 1 - j]) - lie.coad(V[:, j], Pi[:, k - j]))
                           for j in range(k + 1))
    return Pi


def _apply(M: np.ndarray, x: np.ndarray) -> np.ndarray:
    return (M @ x[..., None])[..., 0]


def external_wrench(Ad_inv: np.ndarray, V: np.ndarray, Wb: np.ndarray) -> np.ndarray:
    """Spatial form (N, r+1, 6) of the body-frame wrench derivatives Wb (N, r+1, 6), (22).

    ``w_m = Ad_{C_i}^-T Wb^(m)`` obeys ``d/dt w_m = w_{m+1} - ad_V^T w_m``.
    """
    return leibniz_rates(Wb @ Ad_inv,  # rows w_m^T = Wb^(m)T Ad^-1
                         lambda j, z, t: -lie.coad(V[:, j : j + 1], z))


def backward_pass(model: Model, kin: SpatialKinematics, order: int,
                  wrenches: dict[int, np.ndarray] | None = None) -> tuple[np.ndarray, list]:
    """Joint torques (N, order+1, n) and spatial inter-body wrenches per body (N, order+1, 6).

    ``W_i`` is the wrench body i's parent exerts on it through joint i, in the root
    frame (moment about the root origin). ``wrenches``: body index -> (N, order+1, 6)
    wrench the body exerts on its environment, in its own frame.
    """
    r = order
    N = kin.N
    W = [np.zeros((N, r + 1, 6)) for _ in range(model.n)]
    tau = np.empty((N, r + 1, model.n))
    for i in reversed(range(model.n)):
        V, Y = kin.V[i], kin.Y[i]
        Ad_inv = lie.Ad_inv(kin.R[i], kin.p[i])
        Md = inertia_derivatives(spatial_inertia(model.inertias[i], Ad_inv), V, r)       # (13), (14)
        W[i] += momentum_derivatives(Md, V, r)[:, 1:]                             # (16)-(19), (26)
        if wrenches and i in wrenches:
            W[i] += external_wrench(Ad_inv, V, wrenches[i])                       # (22)
        for k in range(r + 1):                                                    # (31)
            tau[:, k, i] = sum(comb(k, j) * np.einsum("nj,nj->n", Y[:, j], W[i][:, k - j])
                               for j in range(k + 1))
        if model.parent[i] >= 0:
            W[model.parent[i]] += W[i]                                            # (30)
    return tau, W


def body_fixed_twists(R: np.ndarray, p: np.ndarray, Vs: np.ndarray) -> np.ndarray:
    """``d^k/dt^k (Ad_C^-1 V^s)`` (N, K+1, 6) for ``C = (R, p)`` moving with twist ``V^s``.

    With ``d/dt Ad_C^-1 = -Ad_C^-1 ad_{V^s}`` and ``Ad_C^-1 [V^s, x] = [V^b, Ad_C^-1 x]``, the
    images ``u_m = Ad_C^-1 V^s(m)`` obey ``u_m' = u_{m+1} - [V^b, u_m]`` with ``V^b = u_0``.
    """
    return leibniz_rates(Vs @ np.swapaxes(lie.Ad_inv(R, p), 1, 2),
                         lambda j, z, t: -lie.bracket(t[j][:, :1], z))


def spatial_twists(R: np.ndarray, p: np.ndarray, Vb: np.ndarray) -> np.ndarray:
    """``d^k/dt^k V^s`` (N, K+1, 6) from the body-fixed twist derivatives Vb (N, K+1, 6) of
    a frame ``C = (R, p)``: the inverse of :func:`body_fixed_twists`.

    With ``d/dt Ad_C = ad_{V^s} Ad_C``, the images ``w_m = Ad_C V^b(m)`` obey
    ``w_m' = w_{m+1} + [V^s, w_m]`` with ``V^s = w_0``.
    """
    return leibniz_rates(Vb @ np.swapaxes(lie.Ad(R, p), 1, 2),
                         lambda j, z, t: lie.bracket(t[j][:, :1], z))


def body_frame_wrenches(kin: SpatialKinematics, i: int, W: np.ndarray) -> np.ndarray:
    """``d^k/dt^k (Ad_{C_i}^T W)`` (N, r+1, 6): spatial wrench derivatives in body i's frame.

    With ``d/dt Ad_C^T = Ad_C^T ad_{V^s}^T`` and ``Ad_C^T ad_{V^s}^T = ad_{V^b}^T Ad_C^T``, the
    images ``f_m = Ad_C^T W^(m)`` obey ``f_m' = f_{m+1} + ad_{V^b}^T f_m``.
    """
    R, p = kin.R[i], kin.p[i]
    Vb = body_fixed_twists(R, p, kin.V[i][:, : W.shape[1]])
    return leibniz_rates(W @ lie.Ad(R, p),  # rows f_m^T = W^(m)T Ad
                         lambda j, z, t: lie.coad(Vb[:, j : j + 1], z))


def joint_wrenches(model: Model, trajectory: Trajectory, *, order: int = 2,
                   gravity=GRAVITY) -> np.ndarray:
    """Wrench each body's parent exerts on it through its joint, in the body frame, and
    its first ``order`` derivatives: (N, order+1, n, 6)."""
    def per_chunk(qs, base, wrenches):
        kin = forward_pass(model, qs, order + 1, base)
        W = backward_pass(model, kin, order, wrenches)[1]
        return np.stack([body_frame_wrenches(kin, i, W[i]) for i in range(model.n)], axis=2)

    return solve_in_chunks(model, trajectory, order, gravity, per_chunk, (model.n, 6))


def inverse_dynamics(model: Model, trajectory: Trajectory, *, order: int = 2,
                     gravity=GRAVITY) -> np.ndarray:
    """tau and its first ``order`` time derivatives, (N, order+1, n)."""
    def per_chunk(qs, base, wrenches):
        return backward_pass(model, forward_pass(model, qs, order + 1, base), order, wrenches)[0]

    return solve_in_chunks(model, trajectory, order, gravity, per_chunk)
