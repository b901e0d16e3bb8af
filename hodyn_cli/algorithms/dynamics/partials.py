"""``d tau / d q`` and ``d tau / d qd`` of the inverse dynamics at each sample, O(n^2) per
sample: what the forward dynamics' partial derivatives need.

In the spatial (root) frame a joint screw ``S_j = Ad_{C_j} X_j`` belongs to one joint, not to
a body, and moving joint k by ``dq_k`` moves every body beyond it rigidly by ``exp(S_k dq_k)``:
the subtree's quantities change by the adjoint action of ``S_k`` plus the terms the velocity
of that motion brings. With (all in the root frame; ``p`` = parent, the root at rest; S, c,
V, A from the spatial method's forward pass, :func:`~hodyn_cli.algorithms.dynamics.spatial.
forward_pass`, the inertias by its eq. (13))::

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
Tested against the complex-step sensitivities, the contraction of the matrices' state
derivatives (:mod:`matrix_derivatives`) and, through the forward dynamics, Pinocchio's
``computeABADerivatives``.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics import spatial
from hodyn_cli.algorithms.dynamics.common import GRAVITY, base_motion, body_wrenches
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import TrajectoryError

__all__ = ["torque_partials", "partials_numpy"]


def torque_partials(model: Model, trajectory: Trajectory, *, gravity=GRAVITY
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``d tau / d q`` and ``d tau / d qd`` (N, n, n), ``[s, j, k] = d tau_j / d x_k``, of
    ``tau = M qdd + C qd + g + Q_ext`` at every sample (external wrenches held fixed in their
    links' frames); needs q, qd, qdd. By the backend that runs (:func:`partials_numpy` is
    the reference)."""
    if tuple(trajectory.joint_names) != tuple(model.joint_names):
        raise TrajectoryError("trajectory joints do not match the model's joints")
    if trajectory.orders < 3:
        raise TrajectoryError("torque derivatives need q, qd and qdd")
    W = {b: w[:, 0] for b, w in body_wrenches(model, trajectory, 0).items()}
    base = base_motion(gravity, 1)                  # the root: V = 0, A = (0; -g)
    dq, dqd = backends.current().partials(model, trajectory.derivatives, base, W)
    return dq, dqd


def partials_numpy(model: Model, qs: np.ndarray, base: np.ndarray,
                   wrenches: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``d tau / d q``, ``d tau / d qd`` (N, n, n) of one chunk in numpy (the compiled kernel's
    reference): ``qs`` (N, >= 3, n), ``base`` the root's twist and its rate ((1 or N), >= 2, 6),
    ``wrenches`` body -> (N, 6)."""
    N, n = qs.shape[0], model.n
    kin = spatial.forward_pass(model, qs, 1, base[:, :2])  # poses; S_i, c_i; V_i, A_i (gravity in)
    S, c = (np.stack([Y[:, k] for Y in kin.Y]) for k in (0, 1))               # (n, N, 6)
    V, A = (np.stack([V[:, k] for V in kin.V]) for k in (0, 1))
    root = np.broadcast_to(base[:, :2], (N, 2, 6))
    Vp, Ap = (np.stack([root[:, k] if p < 0 else kin.V[p][:, k] for p in model.parent])
              for k in (0, 1))
    a = lie.bracket(S, Ap) + lie.bracket(c, Vp)
    Ic, F, B = np.empty((n, N, 6, 6)), np.empty((n, N, 6)), np.empty((n, N, 6, 6))
    for i in range(n):
        Adi = lie.Ad_inv(kin.R[i], kin.p[i])
        Ic[i] = spatial.spatial_inertia(model.inertias[i], Adi)                          # I_i
        B[i] = np.swapaxes(lie.ad(V[i]), 1, 2) @ Ic[i]                            # B_i
        if i in wrenches:
            F[i] = _apply(np.swapaxes(Adi, 1, 2), wrenches[i])
        else:
            F[i] = 0.0
    H = _apply(Ic, V)                                                             # h_i
    F += _apply(Ic, A) - lie.coad(V, H)                                           # f_i
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
    rows = [np.moveaxis(x, 0, 1) for x in (np.concatenate([P, -Q], 2), np.concatenate([2 * Q, P], 2),
                                            S)]
    cols = [np.moveaxis(x, 0, 2) for x in (np.concatenate([c, a], 2), np.concatenate([c, S], 2), u,
                                            w)]
    before = (model.ancestry & ~np.eye(n, dtype=bool)).T                 # [j, k]: k before j
    after = model.ancestry                                                # [j, k]: j = k or before
    dq = np.where(before, rows[0] @ cols[0], np.where(after, rows[2] @ cols[2], 0.0))
    dqd = np.where(before, rows[1] @ cols[1], np.where(after, rows[2] @ cols[3], 0.0))
    return dq, dqd


def _apply(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return (A @ x[..., None])[..., 0]
