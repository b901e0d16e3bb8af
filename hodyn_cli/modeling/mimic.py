"""Mimic joints: ``q_j = multiplier q_leader + offset`` (URDF ``<mimic>``), imposed.

Trajectories and results are in the independent coordinates (``model.coordinate_names``):
``q_full = G q + o`` with the constant (n x m) matrix G, so every derivative is ``G q^(k)``
and, by virtual work, the generalized forces are ``G^T tau_full`` (the dependent joint's
torque is carried by its leader: ``tau_leader += multiplier tau_dependent``); matrices become
``G^T M G`` and so on. The recursions themselves run on all joints.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> coupling(model)[0].tolist()       # no mimic joints: the identity
[[1.0, 0.0], [0.0, 1.0]]
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

__all__ = ["coupling", "expand", "project", "project_matrices", "active"]


def active(model: Model) -> bool:
    """True when the model has mimic joints."""
    return bool((model.mimic[:, 0] >= 0).any())


def coupling(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """``(G (n, m), o (n,))`` with ``q_full = G q + o``."""
    coords = model.coordinates
    G = np.zeros((model.n, len(coords)))
    o = np.zeros(model.n)
    column = {j: c for c, j in enumerate(coords)}
    for i in range(model.n):
        leader, gain, offset = model.mimic[i]
        if leader < 0:
            G[i, column[i]] = 1.0
        else:
            G[i, column[int(leader)]] = gain
            o[i] = offset
    return G, o


def expand(model: Model, trajectory: Trajectory) -> Trajectory:
    """A trajectory in the independent coordinates as one over all joints."""
    if trajectory.joint_names == model.joint_names:
        return trajectory
    G, o = coupling(model)
    d = trajectory.derivatives @ G.T
    d[:, 0] += o
    return Trajectory(model.joint_names, d, trajectory.t, trajectory.wrenches, trajectory.series,
                      trajectory.base)


def project(model: Model, values: np.ndarray, axis: int = -1) -> np.ndarray:
    """Generalized forces over all joints (``axis`` of length n) -> independent ones, G^T f."""
    if not active(model):
        return values
    G, _ = coupling(model)
    return np.moveaxis(np.moveaxis(values, axis, -1) @ G, -1, axis)


def project_matrices(model: Model, A: np.ndarray) -> np.ndarray:
    """(..., n, n) -> (..., m, m): ``G^T A G``."""
    if not active(model):
        return A
    G, _ = coupling(model)
    return G.T @ A @ G
