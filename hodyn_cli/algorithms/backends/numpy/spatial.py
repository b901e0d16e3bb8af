"""The spatial method's forward pass (the spatial paper's Algorithm 1, eqs. (4)-(9); the
equations are in :mod:`hodyn_cli.algorithms.dynamics.spatial`, the method built on it) and
the spatial inertia (13): twists, joint screws and their derivatives in the root frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from hodyn_cli.algorithms.backends.numpy.common import joint_columns, leibniz_rates
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model, joint_pose

__all__ = ["SpatialKinematics", "forward_pass", "backward_pass", "chunk", "root_chunk",
           "spatial_inertia",
           "inertia_derivatives", "momentum_derivatives", "external_wrench",
           "body_frame_wrenches", "body_fixed_twists", "spatial_twists"]


@dataclass(frozen=True, eq=False, repr=False)
class SpatialKinematics:
    """Result of the spatial forward pass for N samples.

    Attributes:
        R, p: per body, (N, 3, 3) and (N, 3): pose ``C_i = (R, p)`` of the body frame.
        Y: per body, (N, K+1, 6) instantaneous joint screw and its first K derivatives; a
            multi-DOF joint's (N, K+1, 6, nv_i), its subspace's columns ``Ad_{C_i} S_i``.
        V: per body, (N, K+1, 6) spatial twist and its first K derivatives.
        N: the number of samples (also of a model without joints, whose lists are empty).
    """

    R: list[np.ndarray]
    p: list[np.ndarray]
    Y: list[np.ndarray]
    V: list[np.ndarray]
    N: int


def forward_pass(model: Model, qs: np.ndarray, K: int, base: np.ndarray | None = None
                 ) -> SpatialKinematics:
    """Poses, joint screws and spatial twists with their derivatives up to order K.

    Args:
        qs: (N, >= K+2, nv) joint values and derivatives (K+1 for the twists alone:
            ``V^(K)`` needs ``q^(K+1)``); a multi-DOF joint's configuration coordinates and
            velocity coordinates' rates, as the body-fixed recursion's.
        base: (N or 1, K+1, 6) derivatives of the root's spatial twist; None: at rest.
    """
    N = qs.shape[0]
    V0 = np.zeros((N, K + 1, 6)) if base is None else np.broadcast_to(base, (N, K + 1, 6))
    A, Y0 = model.A, model.spatial_screws
    ER: list[np.ndarray] = []
    Ep: list[np.ndarray] = []
    Vs: list[np.ndarray] = []
    Rs, ps, Ys = [], [], []
    for i, (par, (v, S)) in enumerate(zip(model.parent, joint_columns(model), strict=True)):
        Rp, pp, Vp = ((np.eye(3), np.zeros(3), V0) if par < 0 else (ER[par], Ep[par], Vs[par]))
        if S is not None:
            Ci_R, Ci_p, Y, V = _multi_dof(model, i, Rp, pp, Vp, qs[:, :, v], S, K)
            ER.append(Ci_R @ A[i, :3, :3].T)  # E_i = C_i A_i^-1, the children's (4)
            Ep.append(Ci_p - ER[i] @ A[i, :3, 3])
            Rs.append(Ci_R)
            ps.append(Ci_p)
            Ys.append(Y)
            Vs.append(V)
            continue
        Y = np.empty((N, K + 1, 6))
        Y[:, 0] = _moved(Rp, pp, Y0[i], N)                                     # Y_i = Ad_{E_p} Y_i^0
        for k in range(1, K + 1):                                                 # (9)
            Y[:, k] = sum(comb(k - 1, j) * lie.bracket(Vp[:, j], Y[:, k - 1 - j]) for j in range(k))
        V = Vp.copy()
        for k in range(K + 1):                                                    # (6)
            for j in range(k + 1):
                V[:, k] += (comb(k, j) * qs[:, k + 1 - j, v])[:, None] * Y[:, j]
        Re, pe = lie.screw_exp(Y0[i], qs[:, 0, v])                                # (4)
        Ei_R, Ei_p = Rp @ Re, (Rp @ pe[..., None])[..., 0] + pp
        ER.append(Ei_R)
        Ep.append(Ei_p)
        Rs.append(Ei_R @ A[i, :3, :3])                                            # (5)
        ps.append(Ei_R @ A[i, :3, 3] + Ei_p)
        Ys.append(Y)
        Vs.append(V)
    return SpatialKinematics(Rs, ps, Ys, Vs, N)


def _multi_dof(model: Model, i: int, Rp: np.ndarray, pp: np.ndarray, Vp: np.ndarray,
               qs: np.ndarray, S: np.ndarray, K: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pose ``C_i = E_p A_p B_i J_i`` ((N, 3, 3), (N, 3)), joint screws ``Y_i = Ad_{C_i} S_i``
    (N, K+1, 6, nv_i) and spatial twist (N, K+1, 6) with derivatives of a multi-DOF joint i
    whose parent moves by ``E_p = (Rp, pp)`` with twist jet Vp; ``qs`` (N, >= K+2, nv_i) its
    coordinates and velocity coordinates' rates. S_i is constant in the child frame, so
    ``d/dt Ad_{C_i} = ad_{V_i} Ad_{C_i}`` gives ``Y_i' = [V_i, Y_i]`` (the child's twist: for a
    1-DOF joint ``[V_i, Y_i] = [V_p, Y_i]``, (9)), and
    ``V_i^(k) = V_p^(k) + sum_j C(k, j) Y_i^(j) nu^(k-j)`` (6): a triangular recursion."""
    par = model.parent[i]
    if par < 0:
        Cp_R, Cp_p = np.broadcast_to(np.eye(3), Rp.shape), np.zeros(3)
    else:  # the parent's body frame C_p = E_p A_p
        Cp_R, Cp_p = Rp @ model.A[par, :3, :3], Rp @ model.A[par, :3, 3] + pp
    J_R, J_p = joint_pose(model.joint_types[i], model.X[i], qs[:, 0])
    B_R, B_p = model.B[i, :3, :3], model.B[i, :3, 3]
    R = Cp_R @ B_R @ J_R
    p = (Cp_R @ B_R @ J_p[..., None])[..., 0] + Cp_R @ B_p + Cp_p
    N = qs.shape[0]
    Y = np.empty((N, K + 1, 6, S.shape[1]))
    Y[:, 0] = lie.Ad(R, p) @ S
    V = np.empty((N, K + 1, 6))
    nu = qs[:, 1 : K + 2]
    for k in range(K + 1):
        if k:
            Y[:, k] = sum(comb(k - 1, j) * (lie.ad(V[:, j]) @ Y[:, k - 1 - j]) for j in range(k))
        V[:, k] = Vp[:, k] + sum(comb(k, j) * (Y[:, j] @ nu[:, k - j, :, None])[..., 0]
                                 for j in range(k + 1))
    return R, p, Y, V


def _moved(R: np.ndarray, p: np.ndarray, X: np.ndarray, N: int) -> np.ndarray:
    """``Ad_{(R, p)} X`` (N, 6) for one screw X (6,) and poses (R, p) ((N,)3,3 / (N,)3)."""
    w, v = R @ X[:3], R @ X[3:]
    return np.broadcast_to(np.concatenate([w, lie.cross(p, w) + v], axis=-1), (N, 6))


def spatial_inertia(M: np.ndarray, Ad_inv: np.ndarray) -> np.ndarray:
    """``M^s = Ad_C^-T M Ad_C^-1`` (N, 6, 6) from the body inertia M and ``Ad_C^-1``, eq. (13)."""
    return np.swapaxes(Ad_inv, 1, 2) @ M @ Ad_inv


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
    """Joint torques (N, order+1, nv) and spatial inter-body wrenches per body (N, order+1, 6).

    ``W_i`` is the wrench body i's parent exerts on it through joint i, in the root
    frame (moment about the root origin). ``wrenches``: body index -> (N, order+1, 6)
    wrench the body exerts on its environment, in its own frame.
    """
    r, N, o = order, kin.N, model.dof_offsets
    W = [np.zeros((N, r + 1, 6)) for _ in range(model.n)]
    tau = np.empty((N, r + 1, model.nv))
    for i in reversed(range(model.n)):
        V, Y = kin.V[i], kin.Y[i]
        Ad_inv = lie.Ad_inv(kin.R[i], kin.p[i])
        Md = inertia_derivatives(spatial_inertia(model.inertias[i], Ad_inv), V, r)       # (13), (14)
        W[i] += momentum_derivatives(Md, V, r)[:, 1:]                             # (16)-(19), (26)
        if wrenches and i in wrenches:
            W[i] += external_wrench(Ad_inv, V, wrenches[i])                       # (22)
        for k in range(r + 1):                                                    # (31)
            if Y.ndim == 4:  # a multi-DOF joint's nv_i columns Ad_{C_i} S_i
                tau[:, k, o[i] : o[i + 1]] = sum(
                    comb(k, j) * np.einsum("njd,nj->nd", Y[:, j], W[i][:, k - j])
                    for j in range(k + 1))
                continue
            tau[:, k, o[i]] = sum(comb(k, j) * np.einsum("nj,nj->n", Y[:, j], W[i][:, k - j])
                                  for j in range(k + 1))
        if model.parent[i] >= 0:
            W[model.parent[i]] += W[i]                                            # (30)
    return tau, W


def body_frame_wrenches(kin: SpatialKinematics, i: int, W: np.ndarray) -> np.ndarray:
    """``d^k/dt^k (Ad_{C_i}^T W)`` (N, r+1, 6): spatial wrench derivatives in body i's frame.

    With ``d/dt Ad_C^T = Ad_C^T ad_{V^s}^T`` and ``Ad_C^T ad_{V^s}^T = ad_{V^b}^T Ad_C^T``, the
    images ``f_m = Ad_C^T W^(m)`` obey ``f_m' = f_{m+1} + ad_{V^b}^T f_m``.
    """
    R, p = kin.R[i], kin.p[i]
    Vb = body_fixed_twists(R, p, kin.V[i][:, : W.shape[1]])
    return leibniz_rates(W @ lie.Ad(R, p),  # rows f_m^T = W^(m)T Ad
                         lambda j, z, t: lie.coad(Vb[:, j : j + 1], z))


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


def chunk(model: Model, qs: np.ndarray, base: np.ndarray, wrenches: dict[int, np.ndarray],
          order: int, *, joint_wrenches: bool = False
          ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """tau and derivatives (N, order+1, n) of one chunk by the spatial passes (Algorithm 1,
    eqs. (6)-(31)), the arguments as the body-fixed :func:`~.body_fixed.chunk`'s; with
    ``joint_wrenches`` also the joint wrenches (N, order+1, n, 6) in the body frames (as the
    body-fixed passes give them), returned as ``(tau, F)``."""
    kin = forward_pass(model, qs, order + 1, base)
    tau, W = backward_pass(model, kin, order, wrenches)
    if not joint_wrenches:
        return tau
    return tau, np.stack([body_frame_wrenches(kin, i, W[i]) for i in range(model.n)], axis=2)


def root_chunk(model: Model, qs: np.ndarray, jet: np.ndarray, wrenches: dict[int, np.ndarray],
               order: int, root_wrench: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """tau (N, order+1, n) and the root's wrench ``F_0`` (N, order+1, 6) of one chunk of a
    floating root whose body twist jet in the free-falling frame is ``jet`` ((1 or N),
    order+2, 6), by the spatial passes in the frame of the root at t0 (the root one more
    body, its children's wrenches (30) and its own external wrench ``root_wrench`` (N,
    order+1, 6) or None (22) on it), then ``f_m = Ad_{C_0}^T W^(m)``,
    ``f_m' = f_{m+1} + ad_{V_eff}^T f_m`` back to the root frame."""
    N, r = qs.shape[0], order
    jet = np.broadcast_to(jet, (N, r + 2, 6))
    Vs = spatial_twists(np.broadcast_to(np.eye(3), (N, 3, 3)), np.zeros((N, 3)), jet)
    kin = forward_pass(model, qs, r + 1, Vs)
    tau, Ws = backward_pass(model, kin, r, wrenches)
    Md = inertia_derivatives(np.broadcast_to(model.root_inertia, (N, 6, 6)), Vs, r)  # (14)
    W0s = momentum_derivatives(Md, Vs, r)[:, 1:]                                   # (16)-(19)
    for c in np.flatnonzero(model.parent < 0):                                     # (30)
        W0s += Ws[c]
    if root_wrench is not None:
        W0s += external_wrench(np.eye(6), Vs, root_wrench)                         # (22)
    return tau, leibniz_rates(W0s, lambda j, z, t: lie.coad(jet[:, j : j + 1], z))
