"""Closed-form EOM matrices and their time derivatives (method ``closed-form``).

Mueller & Kumar, "Closed-form time derivatives of the equations of motion of rigid body
systems" (the closed-form paper), sections 2-5, generalized to kinematic trees as in
Garofalo, Ott & Albu-Schaeffer. The EOM (1)::

    tau = M(q) qdd + C(q, qd) qd + Q_grav(q) + Q_ext

System matrices (body-fixed, n bodies; tree: block (i, j) exists iff j is an
ancestor of i or i itself)::

    D: D_{i,p(i)} = Ad_{C_{i,p}},  A = (I - D)^-1, i.e. A = I + D A          (16), (17)
    a = diag(qd_i ad_{X_i}),  b = diag(ad_{V_i}),  M = diag(M_i)             (13), (23), (21)
    J = A X,  V = J qd                                                        (8), (12)
    D' = -a D,  A' = A a - A a A,  J' = -A a J                                (18), (19)

Only the block rows of J are ever formed: ``J_i = X_i e_i^T + Ad_{C_{i,p}} J_p`` is (16)
read row by row, and its derivatives follow from (18) with the Leibniz rule::

    Ad^(k) = -sum_{j<k} C(k-1, j) q_i^(j+1) ad_{X_i} Ad^(k-1-j)                   (18)
    J_i^(k) = sum_{j<=k} C(k, j) Ad^(j) J_p^(k-j)                                 (16)

With ``J_i`` (6 x n, zero columns outside the ancestors of i) the generalized matrices
are sums over bodies, and every derivative is a Leibniz sum (the paper's (29)-(53)
rebuilt this way: its printed (33)-(35), (47)-(51), (53) are damaged)::

    M = sum_i J_i^T M_i J_i                                                    (20)
    C = sum_i J_i^T G_i,  G_i = M_i J_i' - ad_{V_i}^T M_i J_i                  (20), (22)
    Cbar = C + sum_i J_i^T M_i ad_{V_i} J_i  (Mdot - 2 Cbar skew-symmetric)      (54)
    Q_grav = sum_i J_i^T M_i u_i,  u_i = Ad_{C_i}^-1 (0; -g),  u_i' = -ad_{V_i} u_i   (25), (26)
    Q_ext = sum_i J_i^T W_i                                                    (27)
    M^(k) = sum_i sum_j C(k, j) J_i^(j)T M_i J_i^(k-j)                          (29), (40)
    G_i^(k) = M_i J_i^(k+1) - sum_j C(k, j) ad_{V_i^(j)}^T M_i J_i^(k-j)
    C^(k) = sum_i sum_j C(k, j) J_i^(j)T G_i^(k-j)                              (31), (45)
    tau^(k) = sum_j C(k, j) (M^(j) q^(k-j+2) + C^(j) q^(k-j+1)) + Q_grav^(k) + Q_ext^(k)
                                                                               (1), (28), (38)

``V_i^(k) = sum_j C(k, j) J_i^(j) q^(k-j+1)``. The wrench ``W_i`` is the one body i
exerts on its environment (docs/conventions.md), so Q_ext enters with a plus sign.

Arrays: ``J[i]`` is (N, K+1, 6, n) (sample, derivative order, screw, joint); matrices
(N, K+1, n, n); vectors (N, K+1, n).
"""

from __future__ import annotations

from math import comb

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.closed_form import EOMMatrices
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.dynamics.common import GRAVITY, chunks, solve_in_chunks
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import TrajectoryError

__all__ = ["eom_matrices", "generalized_forces", "matrices", "inverse_dynamics"]


def eom_matrices(model: Model, qs: np.ndarray, r: int, base: np.ndarray,
                 wrenches: dict[int, np.ndarray] | None = None, with_cbar: bool = True,
                 data: backends.Data | None = None) -> EOMMatrices:
    """M, C, Cbar, Q_grav, Q_ext and their first r derivatives for one chunk of samples.

    ``qs``: (N, >= r+2, n); ``base``: (1 or N, >= 2, 6) root motion standing for gravity,
    shared or per sample: the matrices take the root at rest with a constant acceleration, so
    only ``base[:, 1]`` (= (0; -g)) may be non-zero; ``wrenches``: body -> (N, r+1, 6).
    ``with_cbar=False`` skips Cbar (left at zero), which tau does not need. By the backend
    that runs (:func:`eom_matrices_numpy` is the reference), with its ``data`` for the model
    (:func:`~hodyn_cli.algorithms.backends.prepare`).
    """
    if np.any(base[:, 0]) or np.any(base[:, 2:]):
        raise TrajectoryError("closed-form matrices need a root at rest with constant "
                              "acceleration: only base[:, 1] may be non-zero")
    backend, data = backends.prepare(model, data)
    return backend.eom_matrices(model, data, qs, r, base, wrenches, with_cbar)


def generalized_forces(E: EOMMatrices, nu: np.ndarray) -> np.ndarray:
    """tau and derivatives (N, r+1, m) from the matrices, eqs. (1), (28), (38):
    ``tau^(k) = sum_j C(k, j) (M^(j) nu^(k-j+1) + C^(j) nu^(k-j)) + g^(k) + Q_ext^(k)`` for the
    generalized velocities ``nu`` and their derivatives (N, >= r+2, m) (``qs[:, 1:]``)."""
    r = E.M.shape[1] - 1
    # every product M^(j) nu^(m+1) and C^(j) nu^(m) at once: (N, r+1, m, r+1)
    Mq = E.M @ np.swapaxes(nu[:, None, 1 : r + 2], -1, -2)
    Cq = E.C @ np.swapaxes(nu[:, None, : r + 1], -1, -2)
    tau = E.g + E.Q_ext
    for k in range(r + 1):
        for j in range(k + 1):
            tau[:, k] += comb(k, j) * (Mq[:, j, :, k - j] + Cq[:, j, :, k - j])
    return tau


def inverse_dynamics(model: Model, trajectory: Trajectory, *, order: int = 2,
                     gravity=GRAVITY, data: backends.Data | None = None) -> np.ndarray:
    """tau and its first ``order`` time derivatives, (N, order+1, n)."""
    backend, data = backends.prepare(model, data)

    def per_chunk(qs, base, wrenches):
        E = eom_matrices(model, qs, order, base, wrenches, False, data)
        return generalized_forces(E, qs[:, 1:])

    return solve_in_chunks(model, trajectory, order, gravity, per_chunk,
                           size=backend.rows(CHUNK), joint_models=True)


def matrices(model: Model, trajectory: Trajectory, *, order: int = 2, gravity=GRAVITY,
             data: backends.Data | None = None) -> EOMMatrices:
    """The EOM matrices and their first ``order`` derivatives along a trajectory, over the
    velocity coordinates (nv x nv: a multi-DOF joint's ``nu_i`` as the body-fixed recursion's,
    its Jacobian columns ``S_i``)."""
    backend, data = backends.prepare(model, data)
    size = backend.rows(CHUNK)
    parts = [eom_matrices(model, qs, order, base, wrenches, data=data)
             for _, qs, base, wrenches in chunks(model, trajectory, order, gravity, max(size, 1),
                                                 joint_models=True)]
    if len(parts) == 1:
        return parts[0]
    return EOMMatrices(*(np.concatenate([getattr(e, f) for e in parts]) for f in
                         ("M", "C", "Cbar", "g", "Q_ext")))
