"""The numpy passes' shared pieces: the chunk size, the gravity vector, the joint adjoint
``Ad_{C_{i,p}}`` of a body over a chunk (from the model's :class:`~.model_data.ModelData`).
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb

import numpy as np

from hodyn_cli.algorithms.backends.numpy.model_data import ModelData
from hodyn_cli.core import lie
from hodyn_cli.core.gravity import GRAVITY  # noqa: F401 - the methods' default gravity
from hodyn_cli.core.model import DOF_SUFFIXES, Model, joint_pose
from hodyn_cli.errors import TrajectoryError

__all__ = ["CHUNK", "gravity_vector", "relative_adjoint", "joint_columns", "leibniz_rates"]


#: samples per batch: big enough to amortize numpy's per-call cost, small enough that
#: a batch's working set stays in cache
CHUNK = 2048


def gravity_vector(gravity) -> np.ndarray:
    g = np.asarray(gravity, dtype=float)
    if g.shape != (3,) or not np.all(np.isfinite(g)):
        raise TrajectoryError(f"gravity must be 3 finite numbers, got {gravity!r}")
    return g


def relative_adjoint(model: Model, data: ModelData, i: int, q: np.ndarray) -> np.ndarray:
    """``Ad_{C_{i,p}} = exp(-q_i ad_{X_i}) Ad_{B_i^-1}`` (N, 6, 6) for joint values q (N,).

    The exponential in closed form (Rodrigues on the adjoint): ``ad_X^3 = -ad_X`` for a
    unit revolute screw, ``ad_X^2 = 0`` for a prismatic one, so
    ``exp(-q ad_X) = I - sin(q) ad_X + (1 - cos q) ad_X^2`` resp. ``I - q ad_X``. A helical
    screw's ``ad_X`` obeys neither: ``Ad_{exp(X q)^-1} Ad_{B_i^-1}`` from the pose
    (:func:`~hodyn_cli.core.lie.screw_exp`), as for a multi-DOF joint's pose ``J_i``
    (:func:`~hodyn_cli.core.model.joint_pose`) at its coordinates q (N, nv_i). A complex q of a
    multi-DOF joint (the sensitivities' complex step) is the pose ``J(Re q) exp(S_i i Im q)``
    to first order, ``(I - i ad_{S_i Im q}) Ad_{J^-1}``: its derivative is by the tangent
    perturbation ``q + delta = J exp(S_i delta)`` (Pinocchio's ``integrate``), exact to
    rounding (the dropped terms are O(Im q^2) = 1e-60).
    """
    A0, A1, A2 = (A[i] for A in data.adjoints)
    kind = model.joint_types[i]
    if kind in DOF_SUFFIXES:
        R, p = joint_pose(kind, model.X[i], q.real)
        D = lie.Ad_inv(R, p) @ A0
        if np.iscomplexobj(q):  # the complex step in the tangent space: J(Re q) exp(S i Im q)
            D = D - 1j * (lie.ad(q.imag @ model.subspaces[i].T) @ D)
        return D
    if kind == "helical":
        R, p = lie.screw_exp(model.X[i], q)
        return lie.Ad_inv(R, p) @ A0
    if model.X[i, :3].any():
        return A0 - np.sin(q)[:, None, None] * A1 + (1 - np.cos(q))[:, None, None] * A2
    return A0 - q[:, None, None] * A1


def joint_columns(model: Model) -> list[tuple[int | slice, np.ndarray | None]]:
    """Per body, its velocity coordinates' columns (in ``qs``, in a Jacobian) and its motion
    subspace: ``(column, None)`` for a 1-DOF joint (its screw ``X_i``), ``(columns, S_i)`` for
    a multi-DOF one (:attr:`~hodyn_cli.core.model.Model.subspaces`)."""
    if not model.multi_dof:
        return [(i, None) for i in range(model.n)]
    o = model.dof_offsets
    return [(int(o[i]), None) if nv == 1 else (slice(o[i], o[i + 1]), S)
            for i, (nv, S) in enumerate(zip(model.dofs, model.subspaces, strict=True))]


def leibniz_rates(y: np.ndarray, coupling: Callable[[int, np.ndarray, list], np.ndarray]
                  ) -> np.ndarray:
    """``d^k y_0`` (N, R, 6), k < R, for a sequence ``y_m = y[:, m]`` with ``y_m' = y_{m+1} + B y_m``.

    This is the derivative rule of every frame-transported quantity (``y_m = Ad y^(m)`` and
    ``d/dt Ad = B Ad``). With ``t[k][:, m] = d^k y_m`` the Leibniz rule gives the table
    ``t[k][m] = t[k-1][m+1] + sum_j C(k-1, j) B^(j) t[k-1-j][m]``. ``coupling(j, z, t)``
    applies ``B^(j)``, the j-th derivative of B, to z (N, rows, 6); ``t[j][:, :1]`` is
    ``d^j y_0``, for an operator built from the result itself (``B = -ad_{y_0}``).

    >>> y = np.zeros((1, 3, 6)); y[0, :, 0] = [1.0, 2.0, 3.0]   # y_m' = y_{m+1}: plain rates
    >>> leibniz_rates(y, lambda j, z, t: 0 * z)[0, :, 0]
    array([1., 2., 3.])
    """
    R = y.shape[1]
    t = [y]
    for k in range(1, R):
        col = t[k - 1][:, 1:].copy()
        for j in range(k):
            col += comb(k - 1, j) * coupling(j, t[k - 1 - j][:, : R - k], t)
        t.append(col)
    return np.stack([t[k][:, 0] for k in range(R)], axis=1)
