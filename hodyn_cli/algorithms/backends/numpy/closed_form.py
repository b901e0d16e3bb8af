"""The closed-form EOM matrices and their time derivatives over a chunk (Mueller & Kumar's
(16)-(54), on trees; the equations are in :mod:`hodyn_cli.algorithms.dynamics.closed_form`):
the numpy backend's ``eom_matrices`` and the compiled kernel's reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from hodyn_cli.algorithms.backends.numpy.common import joint_columns, relative_adjoint
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData, model_data
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model

__all__ = ["EOMMatrices", "jacobians", "adjoint_derivatives", "eom_matrices_numpy", "body_gravity",
           "assemble", "gravity_accelerations"]


@dataclass(frozen=True, eq=False, repr=False)
class EOMMatrices:
    """EOM matrices and their first r time derivatives at N samples.

    Attributes:
        M: (N, r+1, n, n) mass matrix, M-dot, M-ddot, ...
        C: (N, r+1, n, n) Coriolis matrix of eq. (22) (``C qd`` = Coriolis/centrifugal).
        Cbar: (N, r+1, n, n) Coriolis matrix of eq. (54): ``Mdot = Cbar + Cbar^T``.
        g: (N, r+1, n) generalized gravity forces Q_grav and derivatives.
        Q_ext: (N, r+1, n) generalized forces of the external wrenches (zeros if none).
    """

    M: np.ndarray
    C: np.ndarray
    Cbar: np.ndarray
    g: np.ndarray
    Q_ext: np.ndarray


def jacobians(model: Model, qs: np.ndarray, K: int, base: int = 0, *, data: ModelData | None = None
              ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Body Jacobian rows ``J_i`` and their first K derivatives, per body (N, K+1, 6, base+nv),
    and the blocks ``D_{i,p} = Ad_{C_{i,p}}`` (N, 6, 6).

    ``qs``: (N, >= K+1, nv) joint values and derivatives (a multi-DOF joint's configuration
    coordinates and velocity coordinates' rates, as the body-fixed recursion's). ``base = 6``:
    a floating root whose body twist ``V_0`` is the first 6 generalized velocities (``J_0 = [I
    0]``, constant, so ``J_i^(k) = D_{i,0}^(k) J_0`` for its children); velocity coordinate v
    is then column ``6 + v``. A joint's own columns are its screw ``X_i`` (1-DOF) or its motion
    subspace ``S_i`` (multi-DOF), constant in the child frame.
    """
    N, data, o = qs.shape[0], model_data(model, data), model.dof_offsets
    J: list[np.ndarray] = []
    Ds: list[np.ndarray] = []
    for i, (S, p) in enumerate(zip(model.subspaces, model.parent, strict=True)):
        D = adjoint_derivatives(model, data, qs, i, K)
        Ji = np.zeros((N, K + 1, 6, base + model.nv))
        if p >= 0:
            for k in range(K + 1):                                                # (16)
                Ji[:, k] = sum(comb(k, j) * (D[j] @ J[p][:, k - j]) for j in range(k + 1))
        elif base:
            Ji[:, :, :, :base] = np.stack(D, axis=1)                              # (16), (18)
        Ji[:, 0, :, base + o[i] : base + o[i + 1]] = S
        J.append(Ji)
        Ds.append(D[0])
    return J, Ds


def adjoint_derivatives(model: Model, data: ModelData, qs: np.ndarray, i: int, K: int
                        ) -> list[np.ndarray]:
    """``D_{i,p} = Ad_{C_{i,p}}`` (17) and its first K derivatives (18), each (N, 6, 6):
    ``D' = -ad_{P_i} D`` with the joint twist ``P_i = X_i qd_i``, or ``S_i nu_i`` for a
    multi-DOF joint (its ``ad_{P_i^(j)}`` per sample: :mod:`.body_fixed`)."""
    v, S = joint_columns(model)[i]
    D = [relative_adjoint(model, data, i, qs[:, 0, v])]                                 # (17)
    if S is None:
        adX = lie.ad(model.X[i])
        ad_P = [qs[:, j + 1, v, None, None] * adX for j in range(K)]
    else:
        ad_P = [lie.ad(qs[:, j + 1, v] @ S.T) for j in range(K)]
    for k in range(1, K + 1):                                                     # (18)
        D.append(-sum(comb(k - 1, j) * (ad_P[j] @ D[k - 1 - j]) for j in range(k)))
    return D


def eom_matrices_numpy(model: Model, qs: np.ndarray, r: int, base: np.ndarray,
                       wrenches: dict[int, np.ndarray] | None = None, with_cbar: bool = True,
                       *, data: ModelData | None = None) -> EOMMatrices:
    """:func:`eom_matrices` in numpy: the readable reference of the compiled kernel."""
    J, D = jacobians(model, qs, r + 1, data=data)
    return assemble(J, model.inertias, body_gravity(model, D, base[:, 1]), qs[:, 1:], r, wrenches,
                    with_cbar)


def body_gravity(model: Model, D: list[np.ndarray], u_root: np.ndarray) -> list[np.ndarray]:
    """``u_i = Ad_{C_{i,p}} u_p`` (N, 6) per body from the root's ``u_root`` ((N or 1), 6),
    the gravity accelerations in body frames: ``U = A [Ad_{C_1}^-1; 0; ...] (0; -g)``, (26)."""
    u: list[np.ndarray] = []
    for i, p in enumerate(model.parent):
        u.append(_apply(D[i], u_root if p < 0 else u[p]))
    return u


def assemble(J: list[np.ndarray], inertias, u: list[np.ndarray], nu: np.ndarray, r: int,
             wrenches: dict[int, np.ndarray] | None = None, with_cbar: bool = True
             ) -> EOMMatrices:
    """The sums over bodies (20)-(27) and their Leibniz rates for m generalized velocities.

    Per body: Jacobian rows ``J[i]`` (N, r+2, 6, m) with derivatives, inertia ``inertias[i]``
    (6, 6), gravity acceleration ``u[i]`` ((N or 1), 6); ``nu`` (N, >= r+2, m): the generalized
    velocities and their derivatives (``qs[:, 1:]`` for a fixed base); ``wrenches``: body ->
    (N, r+1, 6).
    """
    N, m = nu.shape[0], nu.shape[2]
    M, C, Cbar = (np.zeros((N, r + 1, m, m)) for _ in range(3))
    g, Q = np.zeros((N, r + 1, m)), np.zeros((N, r + 1, m))
    for i, (Ji, Mi, ui) in enumerate(zip(J, inertias, u, strict=True)):
        JT = np.swapaxes(Ji, -1, -2)                                              # (N, r+2, m, 6)
        V = np.stack([sum(comb(k, j) * _apply(Ji[:, j], nu[:, k - j]) for j in range(k + 1))
                      for k in range(r + 1)], axis=1)                             # (8)
        MJ = Mi @ Ji                                                              # (N, r+2, 6, m)
        adV = [lie.ad(V[:, j]) for j in range(r + 1)]
        G = [MJ[:, k + 1] - sum(comb(k, j) * (np.swapaxes(adV[j], 1, 2) @ MJ[:, k - j])
                                for j in range(k + 1)) for k in range(r + 1)]     # (22)
        if with_cbar:                                                             # (54)
            H = [G[k] + sum(comb(k, j) * (Mi @ adV[j] @ Ji[:, k - j]) for j in range(k + 1))
                 for k in range(r + 1)]
        Mu = gravity_accelerations(np.broadcast_to(ui, (N, 6)), V, r) @ Mi  # rows (M_i u^(k))^T
        W = wrenches.get(i) if wrenches else None
        for k in range(r + 1):
            for j in range(k + 1):
                c, JTj = comb(k, j), JT[:, j]
                M[:, k] += c * (JTj @ MJ[:, k - j])                               # (29), (40)
                C[:, k] += c * (JTj @ G[k - j])                                   # (31), (45)
                if with_cbar:
                    Cbar[:, k] += c * (JTj @ H[k - j])                            # (54)
                g[:, k] += c * _apply(JTj, Mu[:, k - j])                          # (36), (52)
                if W is not None:
                    Q[:, k] += c * _apply(JTj, W[:, k - j])                       # (37), (53)
    return EOMMatrices(M, C, Cbar, g, Q)


def gravity_accelerations(u0: np.ndarray, V: np.ndarray, r: int) -> np.ndarray:
    """Derivatives (N, r+1, 6) of ``u_i = Ad_{C_i}^-1 (0; -g)`` from ``u_i' = -ad_{V_i} u_i``.

    ``u_i`` itself comes from :func:`body_gravity`; the rate follows from
    ``d/dt Ad_{C_i}^-1 = -ad_{V_i} Ad_{C_i}^-1`` (V (N, >= r, 6): body i's twist derivatives).
    """
    u = [u0]
    for k in range(1, r + 1):
        u.append(-sum(comb(k - 1, j) * lie.bracket(V[:, j], u[k - 1 - j])  # type: ignore[arg-type]
                      for j in range(k)))  # k >= 1 terms: an array, never sum()'s 0
    return np.stack(u, axis=1)


def _apply(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return (A @ x[..., None])[..., 0]
