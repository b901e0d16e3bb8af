"""The spatial method's forward pass (the spatial paper's Algorithm 1, eqs. (4)-(9); the
equations are in :mod:`hodyn_cli.algorithms.dynamics.spatial`, the method built on it) and
the spatial inertia (13): twists, joint screws and their derivatives in the root frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Model

__all__ = ["SpatialKinematics", "forward_pass", "spatial_inertia"]


@dataclass(frozen=True)
class SpatialKinematics:
    """Result of the spatial forward pass for N samples.

    Attributes:
        R, p: per body, (N, 3, 3) and (N, 3): pose ``C_i = (R, p)`` of the body frame.
        Y: per body, (N, K+1, 6) instantaneous joint screw and its first K derivatives.
        V: per body, (N, K+1, 6) spatial twist and its first K derivatives.
        N: the number of samples (also of a model without joints, whose lists are empty).
    """

    R: list[np.ndarray]
    p: list[np.ndarray]
    Y: list[np.ndarray]
    V: list[np.ndarray]
    N: int


def forward_pass(model: Model, qs: np.ndarray, K: int, base: np.ndarray | None = None
                 ) -> SpatialKinematics:
    """Poses, joint screws and spatial twists with their derivatives up to order K.

    Args:
        qs: (N, >= K+2, n) joint values and derivatives (K+1 for the twists alone:
            ``V^(K)`` needs ``q^(K+1)``).
        base: (N or 1, K+1, 6) derivatives of the root's spatial twist; None: at rest.
    """
    N = qs.shape[0]
    V0 = np.zeros((N, K + 1, 6)) if base is None else np.broadcast_to(base, (N, K + 1, 6))
    A, Y0 = model.A, model.spatial_screws
    ER: list[np.ndarray] = []
    Ep: list[np.ndarray] = []
    Vs: list[np.ndarray] = []
    Rs, ps, Ys = [], [], []
    for i, par in enumerate(model.parent):
        Rp, pp, Vp = ((np.eye(3), np.zeros(3), V0) if par < 0 else (ER[par], Ep[par], Vs[par]))
        Y = np.empty((N, K + 1, 6))
        Y[:, 0] = _moved(Rp, pp, Y0[i], N)                                     # Y_i = Ad_{E_p} Y_i^0
        for k in range(1, K + 1):                                                 # (9)
            Y[:, k] = sum(comb(k - 1, j) * lie.bracket(Vp[:, j], Y[:, k - 1 - j]) for j in range(k))
        V = Vp.copy()
        for k in range(K + 1):                                                    # (6)
            for j in range(k + 1):
                V[:, k] += (comb(k, j) * qs[:, k + 1 - j, i])[:, None] * Y[:, j]
        Re, pe = lie.screw_exp(Y0[i], qs[:, 0, i])                                # (4)
        Ei_R, Ei_p = Rp @ Re, (Rp @ pe[..., None])[..., 0] + pp
        ER.append(Ei_R)
        Ep.append(Ei_p)
        Rs.append(Ei_R @ A[i, :3, :3])                                            # (5)
        ps.append(Ei_R @ A[i, :3, 3] + Ei_p)
        Ys.append(Y)
        Vs.append(V)
    return SpatialKinematics(Rs, ps, Ys, Vs, N)


def _moved(R: np.ndarray, p: np.ndarray, X: np.ndarray, N: int) -> np.ndarray:
    """``Ad_{(R, p)} X`` (N, 6) for one screw X (6,) and poses (R, p) ((N,)3,3 / (N,)3)."""
    w, v = R @ X[:3], R @ X[3:]
    return np.broadcast_to(np.concatenate([w, lie.cross(p, w) + v], axis=-1), (N, 6))


def spatial_inertia(M: np.ndarray, Ad_inv: np.ndarray) -> np.ndarray:
    """``M^s = Ad_C^-T M Ad_C^-1`` (N, 6, 6) from the body inertia M and ``Ad_C^-1``, eq. (13)."""
    return np.swapaxes(Ad_inv, 1, 2) @ M @ Ad_inv
