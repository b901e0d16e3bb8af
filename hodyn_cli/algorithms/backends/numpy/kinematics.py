"""A link frame's pose from the spatial forward pass, and a point's derivatives from the
spatial twist jet (``p' = v + omega x p``, Leibniz).
"""

from __future__ import annotations

from math import comb

import numpy as np

from hodyn_cli.core import lie

__all__ = ["frame_pose", "point_derivatives"]


def frame_pose(kin, frame) -> tuple[np.ndarray, np.ndarray]:
    """Pose (R, p) (N, 3, 3), (N, 3) of a link frame from the forward pass of its body."""
    Rb = kin.R[frame.body]
    return Rb @ frame.T[:3, :3], Rb @ frame.T[:3, 3] + kin.p[frame.body]


def point_derivatives(p: np.ndarray, Vs: np.ndarray) -> np.ndarray:
    """``p', ..., p^(K+1)`` (N, K+1, 3) of a point p (N, 3) on a body with twist V^s (N, K+1, 6)."""
    K1 = Vs.shape[1]
    w, v = Vs[..., :3], Vs[..., 3:]
    P = [p]
    for k in range(K1):
        P.append(v[:, k] + sum(comb(k, j) * lie.cross(w[:, j], P[k - j]) for j in range(k + 1)))
    return np.stack(P[1:], axis=1)
