"""``d tau / d q`` and ``d tau / d qd`` over a chunk in the spatial frame, O(n^2) per sample
(the equations are in :mod:`hodyn_cli.algorithms.dynamics.partials`): the numpy backend's
``partials`` and the compiled kernel's reference.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.backends.numpy import spatial
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model

__all__ = ["partials_numpy"]


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
