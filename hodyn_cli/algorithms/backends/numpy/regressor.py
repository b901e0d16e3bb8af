"""The regressor ``Y^(k)`` over a chunk, fixed or floating root, by the Jacobian sums (13)
(Garofalo, Ott & Albu-Schaeffer; equations in :mod:`hodyn_cli.algorithms.dynamics.regressor`),
and the unit inertias ``E_p`` of the 10 parameters: the numpy backend's ``regressor``.
"""

from __future__ import annotations

from math import comb

import numpy as np

from hodyn_cli.algorithms.backends.numpy import body_fixed, closed_form
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData, model_data
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model

__all__ = ["inertia_from_parameters", "body_regressor", "regressor_numpy", "floating_regressor_numpy",
           "root_jacobians", "UNIT_INERTIAS"]


def inertia_from_parameters(pi) -> np.ndarray:
    """The 6x6 body inertia (angular; linear) of one body's 10 parameters."""
    m, hx, hy, hz, ixx, ixy, iyy, ixz, iyz, izz = np.asarray(pi, dtype=float)
    theta = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    S = lie.skew(np.array([hx, hy, hz]))
    return np.block([[theta, S], [-S, m * np.eye(3)]])


#: E_p (10, 6, 6): the body inertia of parameter p alone
UNIT_INERTIAS = np.stack([inertia_from_parameters(e) for e in np.eye(10)])


#: (6, 60), ``[j, 6 p + i] = E_p[i, j]``: ``V @ _UNIT_COLUMNS`` is every ``E_p V``, one gemm
_UNIT_COLUMNS = UNIT_INERTIAS.transpose(2, 0, 1).reshape(6, 60)


def body_regressor(V: np.ndarray, r: int) -> np.ndarray:
    """``A^(k)``, k = 0..r, (N, r+1, 10, 6) (row p: column p of A) of one body, eq. (13):
    ``M V' - ad*_V M V = A pi`` and its derivatives, from the twist jet V (N, >= r+2, 6)."""
    N = V.shape[0]
    y = (V[:, : r + 2] @ _UNIT_COLUMNS).reshape(N, r + 2, 10, 6)  # E_p V^(m)
    adV = lie.ad(V[:, : r + 1])  # ad_V^T y as the row vector y ad_V
    A = y[:, 1:].copy()
    for k in range(r + 1):
        for j in range(k + 1):
            A[:, k] -= comb(k, j) * (y[:, k - j] @ adV[:, j])
    return A


def _jacobian_sums(J: list[np.ndarray], V: list[np.ndarray], r: int) -> np.ndarray:
    """``Y^(k)[:, :, 10 b + p] = sum_j C(k, j) J_b^(j)T A_b^(k-j)[:, p]`` (module docstring),
    (N, r+1, rows, 10 nb), for body Jacobians J_b ((N or 1), r+1, 6, rows) and twist jets V_b
    (N, r+2, 6)."""
    N, rows = V[0].shape[0], J[0].shape[-1]
    Y = np.zeros((N, r + 1, rows, 10 * len(J)))
    for b, (Jb, Vb) in enumerate(zip(J, V, strict=True)):
        A = np.swapaxes(body_regressor(Vb, r), 2, 3)  # (N, r+1, 6, 10)
        JT = np.swapaxes(Jb, 2, 3)
        for k in range(r + 1):
            Y[:, k, :, 10 * b : 10 * b + 10] = sum(comb(k, j) * (JT[:, j] @ A[:, k - j])
                                                   for j in range(k + 1))
    return Y


def regressor_numpy(model: Model, qs: np.ndarray, base: np.ndarray, order: int, *,
                    data: ModelData | None = None) -> np.ndarray:
    """Y^(k) of one chunk (N, order+1, nv, 10 nb): the readable reference of the kernel.

    ``qs``: (N, >= order+3, nv); ``base``: the root's twist jet (1 or N, order+2, 6). The
    body Jacobians' derivatives come from the closed-form recursion (16), (18)."""
    data = model_data(model, data)
    V = body_fixed.forward_pass(model, qs, order + 1, base, data=data).V
    return _jacobian_sums(closed_form.jacobians(model, qs, order, data=data)[0], V, order)


def floating_regressor_numpy(model: Model, qs: np.ndarray, jet: np.ndarray, order: int, *,
                             data: ModelData | None = None) -> np.ndarray:
    """``(F_0; tau)``'s regressor of one chunk of a floating base, (N, order+1, 6+nv, 10 (n+1)):
    rows the root's generalized force ``F_0`` (moment; force) then the joints, columns the
    root's 10 parameters then the bodies', the readable reference of the kernel. ``jet``: the
    root's twist jet in the free-falling frame ((1 or N), order+2, 6),
    :mod:`hodyn_cli.algorithms.backends.free_root`. The joint rows are the fixed-base
    regressor's with that jet; the root rows the sum of the module docstring over the root's
    columns ``G_b`` of the body Jacobians (:func:`root_jacobians`) and the root itself
    (``G_0 = I``)."""
    r, N, n, data = order, qs.shape[0], model.n, model_data(model, data)
    jet = np.broadcast_to(jet, (N, r + 2, 6))
    V = body_fixed.forward_pass(model, qs, r + 1, jet, data=data).V
    Y = np.zeros((N, r + 1, 6 + model.nv, 10 * (n + 1)))
    if n:  # the joint rows (none: a single free body)
        Y[:, :, 6:, 10:] = _jacobian_sums(closed_form.jacobians(model, qs, r, data=data)[0], V, r)
    G0 = np.zeros((1, r + 1, 6, 6))
    G0[:, 0] = np.eye(6)
    Y[:, :, :6] = _jacobian_sums([G0, *root_jacobians(model, qs, r, data=data)], [jet, *V], r)
    return Y


def root_jacobians(model: Model, qs: np.ndarray, K: int, *, data: ModelData | None = None
                   ) -> list[np.ndarray]:
    """The root's 6 columns of every body Jacobian, ``G_i = D_{i,p} G_p`` (``G`` of a root
    child: ``D_{i,0}``), and their first K derivatives by Leibniz, (16), (18): per body
    (N, K+1, 6, 6)."""
    G: list[np.ndarray] = []
    data = model_data(model, data)
    for i, p in enumerate(model.parent):
        D = closed_form.adjoint_derivatives(model, data, qs, i, K)
        G.append(np.stack(D if p < 0 else [sum(comb(k, j) * (D[j] @ G[p][:, k - j])
                                                for j in range(k + 1)) for k in range(K + 1)],
                          axis=1))
    return G
