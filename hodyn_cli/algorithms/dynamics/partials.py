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
from hodyn_cli.algorithms.dynamics.common import GRAVITY, base_motion, body_wrenches
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import TrajectoryError

__all__ = ["torque_partials"]


def torque_partials(model: Model, trajectory: Trajectory, *, gravity=GRAVITY,
                    data: backends.Data | None = None) -> tuple[np.ndarray, np.ndarray]:
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
    backend, data = backends.prepare(model, data)
    dq, dqd = backend.partials(model, data, trajectory.derivatives, base, W)
    return dq, dqd
