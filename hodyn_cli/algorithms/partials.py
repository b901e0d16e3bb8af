"""``d tau / d q`` and ``d tau / d qd`` of the inverse dynamics at each sample, O(n^2) per
sample: what the forward dynamics' partial derivatives need.

In the spatial (root) frame a joint screw ``S_j = Ad_{C_j} X_j`` belongs to one joint, not to
a body, and moving joint k by ``dq_k`` moves every body beyond it rigidly by ``exp(S_k dq_k)``:
the subtree's quantities change by the adjoint action of ``S_k`` plus the terms the velocity
of that motion brings. With (all in the root frame; ``p`` = parent, the root at rest)::

    V_i = V_p + S_i qd_i,   c_i = S_i' = [V_p, S_i],   A_i = A_p + S_i qdd_i + c_i qd_i,
    A_root = (0; -g)                         (gravity as the root's acceleration)
    I_i = Ad_{C_i}^-T M_i Ad_{C_i}^-1,   h_i = I_i V_i,   B_i = ad_{V_i}^T I_i
    f_i = I_i A_i - ad_{V_i}^T h_i + Ad_{C_i}^-T W_i                 (Newton-Euler, eq. (2))
    tau_j = S_j . F_j,   F, H, I^c, B: f_i, h_i, I_i, B_i summed over the subtree of j

and for body i beyond joint k (``dS_j/dq_k = [S_k, S_j]`` for j beyond k, eq. (31))::

    dI_i/dq_k = -ad_{S_k}^T I_i - I_i ad_{S_k},   dV_i/dq_k = [S_k, V_i - V_p(k)]
    dA_i/dq_k = [S_k, A_i - A_p(k)] + [c_k, V_i - V_p(k)],   dV_i/dqd_k = S_k
    dA_i/dqd_k = c_k + [S_k, V_i - V_p(k)]

the product rule, summed over a subtree T beyond k, closes in the subtree's sums::

    dF_T/dq_k = -ad_{S_k}^T F_T - ad_{c_k}^T H_T - I^c_T a_k - (B_T + B_T^T) c_k,
                a_k = [S_k, A_p(k)] + [c_k, V_p(k)]
    dF_T/dqd_k = 2 I^c_T c_k - (B_T + B_T^T) S_k - ad_{S_k}^T H_T

so that with ``P_j = ad_{S_j}^T H_j - (B_j + B_j^T) S_j`` and ``Q_j = I^c_j S_j``::

    d tau_j / d q_k  = c_k . P_j - a_k . Q_j         (k before j: T = subtree of j)
                     = S_j . dF_{T(k)}/dq_k          (j = k or before k: T = subtree of k)
    d tau_j / d qd_k = 2 c_k . Q_j + S_k . P_j       (k before j)
                     = S_j . dF_{T(k)}/dqd_k         (j = k or before k)

(``S_j . ad_{S_k}^T F = -[S_k, S_j] . F`` cancels the change of ``S_j`` itself.) Every pair
(j, k) is two dot products of per-joint 6-vectors: four batched matrix products per chunk.
Tested against Pinocchio's ``computeRNEADerivatives``, the complex-step sensitivities and
the contraction of the matrices' state derivatives (:mod:`matrix_derivatives`).
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.methods import GRAVITY
from hodyn_cli.algorithms.methods.common import CHUNK, body_wrenches, gravity_vector
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import TrajectoryError

__all__ = ["torque_partials"]


def torque_partials(model: Model, trajectory: Trajectory, *, gravity=GRAVITY
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``d tau / d q`` and ``d tau / d qd`` (N, n, n), ``[s, j, k] = d tau_j / d x_k``, of
    ``tau = M qdd + C qd + g + Q_ext`` at every sample (external wrenches held fixed in their
    links' frames); needs q, qd, qdd."""
    if tuple(trajectory.joint_names) != tuple(model.joint_names):
        raise TrajectoryError("trajectory joints do not match the model's joints")
    if trajectory.orders < 3:
        raise TrajectoryError("torque derivatives need q, qd and qdd")
    N, n = trajectory.n_samples, model.n
    dq, dqd = np.empty((N, n, n)), np.empty((N, n, n))
    W = body_wrenches(model, trajectory, 0)
    A_root = np.concatenate([np.zeros(3), -gravity_vector(gravity)])
    before = (model.ancestry & ~np.eye(n, dtype=bool)).T     # [j, k]: k strictly before j
    for s in range(0, N, CHUNK):
        sl = slice(s, s + CHUNK)
        dq[sl], dqd[sl] = _chunk(model, trajectory.derivatives[sl], A_root, before,
                                 {b: w[sl, 0] for b, w in W.items()})
    return dq, dqd


def _chunk(model: Model, qs: np.ndarray, A_root: np.ndarray, before: np.ndarray,
           wrenches: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    N, n = qs.shape[0], model.n
    # body-major (n, N, ...): each body's rows contiguous
    S, c, a, V, A, F, H = (np.empty((n, N, 6)) for _ in range(7))
    Ic, B = np.empty((n, N, 6, 6)), np.empty((n, N, 6, 6))
    R, p = np.empty((n, N, 3, 3)), np.empty((n, N, 3))
    for i, parent in enumerate(model.parent):                             # outward
        Re, pe = lie.screw_exp(model.X[i], qs[:, 0, i])
        RB, pB = model.B[i, :3, :3], model.B[i, :3, 3]
        if parent < 0:
            R[i], p[i] = RB @ Re, pB + pe @ RB.T
            Vp, Ap = np.zeros((N, 6)), np.broadcast_to(A_root, (N, 6))
        else:
            R[i] = R[parent] @ (RB @ Re)
            p[i] = p[parent] + _apply(R[parent], pB + pe @ RB.T)
            Vp, Ap = V[parent], A[parent]
        w_axis = R[i] @ model.X[i, :3]                                       # S_i = Ad_{C_i} X_i
        S[i] = np.concatenate([w_axis, lie.cross(p[i], w_axis) + R[i] @ model.X[i, 3:]], -1)
        c[i] = lie.bracket(Vp, S[i])
        V[i] = Vp + S[i] * qs[:, 1, i, None]
        A[i] = Ap + S[i] * qs[:, 2, i, None] + c[i] * qs[:, 1, i, None]
        a[i] = lie.bracket(S[i], Ap) + lie.bracket(c[i], Vp)
        AdT = np.swapaxes(lie.Ad_inv(R[i], p[i]), 1, 2)
        Ic[i] = AdT @ (model.M[i] @ np.swapaxes(AdT, 1, 2))                   # I_i
        H[i] = _apply(Ic[i], V[i])                                           # h_i
        F[i] = _apply(Ic[i], A[i]) - lie.coad(V[i], H[i])                    # f_i
        if i in wrenches:
            F[i] += _apply(AdT, wrenches[i])
        B[i] = np.swapaxes(lie.ad(V[i]), 1, 2) @ Ic[i]                       # B_i
    for i in reversed(range(n)):                                          # subtree sums
        parent = model.parent[i]
        if parent >= 0:
            for x in (F, H, Ic, B):
                x[parent] += x[i]
    IS, Ia, Ic_c = np.moveaxis(Ic @ np.stack([S, a, c], axis=-1), -1, 0)    # I^c_j S_j, ...
    BS, Bc = np.moveaxis((B + np.swapaxes(B, 2, 3)) @ np.stack([S, c], axis=-1), -1, 0)
    SH = lie.coad(S, H)
    Q, P = IS, SH - BS
    u = -lie.coad(S, F) - lie.coad(c, H) - Ia - Bc                           # dF_T(k)/dq_k
    w = 2 * Ic_c - BS - SH                                                  # dF_T(k)/dqd_k
    rows = [np.moveaxis(x, 0, 1) for x in (np.concatenate([P, -Q], 2), np.concatenate([2 * Q, P], 2), S)]
    cols = [np.moveaxis(x, 0, 2) for x in (np.concatenate([c, a], 2), np.concatenate([c, S], 2), u, w)]
    after = model.ancestry                                                # [j, k]: j = k or before
    dq = np.where(before, rows[0] @ cols[0], np.where(after, rows[2] @ cols[2], 0.0))
    dqd = np.where(before, rows[1] @ cols[1], np.where(after, rows[2] @ cols[3], 0.0))
    return dq, dqd


def _apply(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return (A @ x[..., None])[..., 0]
