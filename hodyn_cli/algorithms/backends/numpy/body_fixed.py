"""Body-fixed recursive O(n) inverse dynamics of any order K over a chunk: the passes of method
``body-fixed`` (the numpy backend's ``inverse_dynamics``, the compiled kernel's reference).

Mueller's second-order algorithm in body-fixed representation (ICRA 2017; steps in the
appendix of the spatial paper, eqs. (40)-(42)), written for a general order with the
Leibniz rule (elastic-joint paper, eq. (25)), on trees, with gravity as base
acceleration. Per body i with parent p, ``C_{i,p} = (B_i exp(X_i q_i))^-1`` and the
joint twist ``P_i = X_i qd_i``:

forward pass, twists (body-fixed)::

    V_i = Ad_{C_{i,p}} V_p + X_i qd_i                                         (40)
    d/dt Ad_{C_{i,p}} = -ad_{P_i} Ad_{C_{i,p}}                                (Mueller (19))
    => a_{m,k} := d^k/dt^k (Ad_{C_{i,p}} V_p^(m)):
       a_{m,0} = Ad_{C_{i,p}} V_p^(m)
       a_{m,k} = a_{m+1,k-1} - sum_j C(k-1,j) q_i^(j+1) ad_{X_i} a_{m,k-1-j}
    V_i^(k) = a_{0,k} + X_i q_i^(k+1)

backward pass, wrenches (body-fixed)::

    F_i = M_i Vd_i - ad_{V_i}^T M_i V_i + sum_{c child} Ad_{C_{c,i}}^T F_c + W_i     (42)
    F_i^(k) = M_i V_i^(k+1) - sum_j C(k,j) ad_{V_i^(j)}^T M_i V_i^(k-j) + ...    ((25))
    d/dt (Ad_{C_{c,i}}^T F_c) = Ad_{C_{c,i}}^T (F_c' - ad_{P_c}^T F_c)
    => b_{k,m} := d^m/dt^m (d/dt - ad_{P_c}^T)^k F_c:
       b_{0,m} = F_c^(m)
       b_{k+1,m} = b_{k,m+1} - sum_j C(m,j) q_c^(j+1) ad_{X_c}^T b_{k,m-j}
       d^k/dt^k (Ad^T_{C_{c,i}} F_c) = Ad^T_{C_{c,i}} b_{k,0}
    tau_i^(k) = X_i^T F_i^(k)

All ad_{P^(j)} are multiples of the one constant matrix ad_{X_i}, which is what makes
the transport tables this short.

Multi-DOF joints (spherical, planar, free: :class:`~hodyn_cli.core.model.Model`): the joint
twist is ``P_i = S_i nu_i`` with ``S_i`` constant in the child frame, so (19) holds as it
stands, ``d/dt Ad_{C_{i,p}} = -ad_{P_i} Ad_{C_{i,p}}`` (``C_{i,p} = J_i^-1 B_i^-1`` and
``d/dt J^-1 = -P^ J^-1``), and the tables above run with ``ad_{P_i^(j)} = ad_{S_i nu_i^(j)}``
(per sample) in place of ``q_i^(j+1) ad_{X_i}``; ``V_i^(k) = a_{0,k} + S_i nu_i^(k)`` and
``tau_i^(k) = S_i^T F_i^(k)`` (nv_i numbers). ``qs`` then holds the velocity coordinates
(:attr:`~hodyn_cli.core.model.Model.dof_names`): row 0 a multi-DOF joint's configuration
coordinates (:func:`~hodyn_cli.core.model.joint_pose`), rows k >= 1 ``nu_i^(k-1)``.

Gravity: the root moves with V_0 = 0, Vd_0 = (0; -g),
higher derivatives 0 (a uniformly accelerated, non-rotating base; joint torques do not
depend on the base's velocity, so this exact base motion gives the true derivatives).
Wrenches W_i are those body i exerts on its environment (docs/conventions.md), adding +J_i^T W_i.

Arrays in the passes: one ``(N, K+1, 6)`` array per body (sample, derivative order,
screw); the work runs over chunks of samples, each chunk fully vectorized.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from hodyn_cli.algorithms.backends.numpy.common import joint_columns, relative_adjoint
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData, model_data
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model

__all__ = ["chunk", "joint_wrenches", "forward_pass", "backward_pass", "momentum_rates",
           "transport_to_parent", "Kinematics"]


@dataclass(frozen=True, eq=False, repr=False)
class Kinematics:
    """Result of the forward pass for one chunk of N samples.

    Attributes:
        Ad: per body, (N, 6, 6) ``Ad_{C_{i,p}}`` (parent-frame screws to body frame).
        V: per body, (N, K+1, 6) body-fixed twist and its first K time derivatives
            (with gravity included as base acceleration when one was given).
    """

    Ad: list[np.ndarray]
    V: list[np.ndarray]


def forward_pass(model: Model, qs: np.ndarray, K: int, base: np.ndarray | None = None, *,
                 data: ModelData | None = None) -> Kinematics:
    """Body-fixed twists and their derivatives up to order K.

    Args:
        qs: (N, >= K+2, n) joint values and derivatives.
        base: (N or 1, K+1, 6) derivatives of the root's twist; None: at rest.
    """
    N, data = qs.shape[0], model_data(model, data)
    V0 = np.zeros((N, K + 1, 6)) if base is None else np.broadcast_to(base, (N, K + 1, 6))
    Ads: list[np.ndarray] = []
    Vs: list[np.ndarray] = []
    joints = joint_columns(model)
    for i, p in enumerate(model.parent):
        v, S = joints[i]
        Adi = relative_adjoint(model, data, i, qs[:, 0, v])
        a = [(V0 if p < 0 else Vs[p]) @ np.swapaxes(Adi, 1, 2)]  # a[k][:, m] = a_{m,k}
        if S is None:
            V = _one_dof_twists(a, qs[:, 1 : K + 2, v], K, model.X[i])
        else:
            V = _multi_dof_twists(a, qs[:, 1 : K + 2, v] @ S.T, K)
        Ads.append(Adi)
        Vs.append(V)
    return Kinematics(Ads, Vs)


def _one_dof_twists(a: list[np.ndarray], qd: np.ndarray, K: int, X: np.ndarray) -> np.ndarray:
    """``V_i^(k)``, k <= K, (N, K+1, 6) of a 1-DOF joint of screw X with rates qd (N, K+1)
    (qd, qdd, ...), from the table's first column ``a[0]`` (module docstring)."""
    N_X = lie.ad(X)
    Na = [_times(a[0], N_X)]  # ad_{X_i} a_{m,k}, by whole columns (one gemm)
    for k in range(1, K + 1):
        rows = K + 1 - k
        col = a[k - 1][:, 1:].copy()
        for j in range(k):
            s = comb(k - 1, j) * qd[:, j]
            col -= s[:, None, None] * Na[k - 1 - j][:, :rows]
        a.append(col)
        Na.append(_times(col, N_X))
    V = np.stack([a[k][:, 0] for k in range(K + 1)], axis=1)
    V += qd[:, :, None] * X
    return V


def _multi_dof_twists(a: list[np.ndarray], P: np.ndarray, K: int) -> np.ndarray:
    """``V_i^(k)``, k <= K, (N, K+1, 6) of a multi-DOF joint whose twist jet is
    ``P^(j) = S_i nu_i^(j)`` (N, K+1, 6), from the table's first column ``a[0]``."""
    for k in range(1, K + 1):
        rows = K + 1 - k
        col = a[k - 1][:, 1:].copy()
        for j in range(k):
            col -= comb(k - 1, j) * lie.bracket(P[:, j : j + 1], a[k - 1 - j][:, :rows])
        a.append(col)
    return np.stack([a[k][:, 0] for k in range(K + 1)], axis=1) + P


def _times(x: np.ndarray, A: np.ndarray) -> np.ndarray:
    """``A x`` for a constant 6x6 A and every screw in x (..., 6), as one matrix product."""
    return (x.reshape(-1, 6) @ A.T).reshape(x.shape)


def backward_pass(model: Model, qs: np.ndarray, kin: Kinematics, order: int,
                  wrenches: dict[int, np.ndarray] | None = None) -> tuple[np.ndarray, list]:
    """Joint torques (N, order+1, n) and joint wrenches per body (N, order+1, 6).

    ``F_i`` is the wrench body i's parent exerts on it through joint i, in body i's frame.
    ``wrenches``: body index -> (N, order+1, 6) wrench the body exerts on its environment.
    """
    N, r = qs.shape[0], order
    dtype = np.result_type(qs, *kin.V[:1])  # complex for complex-step derivatives
    F = [np.zeros((N, r + 1, 6), dtype) for _ in range(model.n)]
    tau = np.empty((N, r + 1, model.nv), dtype)
    joints = joint_columns(model)
    for i in reversed(range(model.n)):
        Fi = F[i]
        Fi += momentum_rates(kin.V[i], model.inertias[i], r)
        if wrenches and i in wrenches:
            Fi += wrenches[i]
        v, S = joints[i]
        X = model.X[i] if S is None else S
        tau[:, :, v] = Fi @ X
        p = model.parent[i]
        if p >= 0:
            F[p] += transport_to_parent(Fi, qs[:, 1:, v], X, kin.Ad[i])
    return tau, F


def momentum_rates(V: np.ndarray, M: np.ndarray, r: int) -> np.ndarray:
    """``d^k/dt^k (M V' - ad_V^T M V)`` (N, r+1, 6), k <= r, eqs. (42), (25), for the body-fixed
    twist derivatives V (N, >= r+2, 6) of a body with inertia M (symmetric, so the rows of
    ``V @ M`` are the momentum derivatives ``M V^(k)``)."""
    h = V @ M
    F = h[:, 1 : r + 2].copy()
    for j in range(r + 1):  # Leibniz on ad_V^T M V, eq. (25)
        binom = np.array([comb(k, j) for k in range(j, r + 1)], dtype=float)
        F[:, j:] -= binom[:, None] * lie.coad(V[:, j : j + 1], h[:, : r + 1 - j])
    return F


def transport_to_parent(F: np.ndarray, qd: np.ndarray, X: np.ndarray, Ad: np.ndarray
                        ) -> np.ndarray:
    """d^k/dt^k (Ad^T F) for k = 0..r, from F's derivatives (N, r+1, 6).

    ``qd`` (N, >= r) holds qd, qdd, ... of the 1-DOF joint whose screw is X (6,); for a
    multi-DOF joint X is its motion subspace S (6, nv) and ``qd`` (N, >= r, nv) holds
    ``nu, nu', ...``: the joint twist's derivatives are ``P^(j) = S nu^(j)``.
    """
    N, r1 = F.shape[:2]
    b = F.copy()  # row k of the table, b[:, m] = b_{k,m}
    out = np.empty_like(F)
    out[:, 0] = b[:, 0]
    if X.ndim == 1:
        N_X = lie.ad(X)
        couple = lambda m, j, z: (comb(m, j) * qd[:, j])[:, None] * (z @ N_X)  # noqa: E731
    else:
        P = qd[:, : r1 - 1] @ X.T
        couple = lambda m, j, z: comb(m, j) * lie.coad(P[:, j], z)  # noqa: E731
    for k in range(1, r1):
        cols = r1 - k
        nb = b[:, 1 : cols + 1].copy()
        for m in range(cols):
            for j in range(m + 1):
                nb[:, m] -= couple(m, j, b[:, m - j])
        b = nb
        out[:, k] = b[:, 0]
    return out @ Ad


def chunk(model: Model, qs: np.ndarray, base: np.ndarray, wrenches: dict[int, np.ndarray],
          order: int, *, twists: bool = False, root: bool = False, data: ModelData | None = None):
    """tau and derivatives (N, order+1, n) of one chunk by the two passes (the numpy backend's
    inverse dynamics, the compiled kernel's reference): ``qs`` (N, >= order+3, n), ``base``
    the root's twist jet ((1 or N), >= order+2, 6), ``wrenches`` body -> (N, >= order+1, 6).

    ``twists``: also the body-fixed twists and derivatives (N, n, order+2, 6) of the forward
    pass; ``root``: also the root's Newton-Euler wrench ``F_0`` (N, order+1, 6), (42) on the
    root: its momentum rates (``model.root_inertia``) with the jet ``base`` plus its
    children's joint wrenches transported to it. Returns tau, or the tuple ``(tau, V)``,
    ``(tau, F_0)``, ``(tau, V, F_0)``.
    """
    base = np.broadcast_to(base[:, : order + 2], (qs.shape[0], order + 2, 6)) if root else base
    # overflow (huge inputs) ends as a non-finite result the caller reports, silently, as in
    # the kernel
    with np.errstate(over="ignore", invalid="ignore"):
        kin = forward_pass(model, qs, order + 1, base, data=data)
        tau, F = backward_pass(model, qs, kin, order, wrenches)
        extras = []
        if twists:
            extras.append(np.stack(kin.V, axis=1) if kin.V else
                          np.zeros((qs.shape[0], 0, order + 2, 6), np.result_type(qs, base)))
        if root:
            F0 = momentum_rates(base, model.root_inertia, order)
            joints = joint_columns(model)
            for c in np.flatnonzero(model.parent < 0):
                v, S = joints[c]
                F0 += transport_to_parent(F[c], qs[:, 1:, v], model.X[c] if S is None else S,
                                          kin.Ad[c])
            extras.append(F0)
    return (tau, *extras) if extras else tau


def joint_wrenches(model: Model, qs: np.ndarray, base: np.ndarray,
                   wrenches: dict[int, np.ndarray], order: int, *,
                   data: ModelData | None = None) -> np.ndarray:
    """The wrench each body's parent exerts on it through its joint, ``F_i`` of (42) in body
    i's frame, and its first ``order`` derivatives, (N, order+1, n, 6), of one chunk (the
    arguments as :func:`chunk`'s): the backward pass's wrenches, before they become tau."""
    kin = forward_pass(model, qs, order + 1, base, data=data)
    return np.stack(backward_pass(model, qs, kin, order, wrenches)[1], axis=2)
