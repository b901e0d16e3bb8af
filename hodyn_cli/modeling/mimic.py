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
from hodyn_cli.errors import HodynError

__all__ = ["coupling", "expand", "project", "project_matrices", "project_tensor", "active",
           "leader_limits"]


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


def project_tensor(model: Model, A: np.ndarray) -> np.ndarray:
    """(..., n, n, n) -> (..., m, m, m): a matrix's derivative by the joints (last axis)
    over the independent coordinates, ``G^T (dA/dq_full G) G`` (chain rule on ``q_full = G q
    + o``, then the matrix's own projection)."""
    if not active(model):
        return A
    G, _ = coupling(model)
    return np.moveaxis(project_matrices(model, np.moveaxis(A @ G, -1, -3)), -3, -1)


def leader_limits(model: Model, source: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Position limits (n, 2) and velocity limits (n,) of the joints such that a motion of
    the independent ones inside them keeps every follower inside its own: a leader's limits
    intersected with each follower's mapped back through ``q_f = g q_l + o``, i.e.
    ``q_l`` within ``(lower_f - o) / g .. (upper_f - o) / g`` (the ends swapped for g < 0) and
    ``|qd_l| <= velocity_f / |g|``; a follower keeps its own. An empty range is an error
    (``source``: the robot's file, named in it).

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> from dataclasses import replace
    >>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> model = replace(model, limits=np.array([[-1.0, 2.0], [0.0, 1.0]]),
    ...                 velocity_limits=np.array([3.0, 1.0]),
    ...                 mimic=np.array([[-1, 1, 0], [0, -2.0, 0.5]]))   # q2 = 0.5 - 2 q1
    >>> position, velocity = leader_limits(model)
    >>> position.tolist(), velocity.tolist()
    ([[-0.25, 0.25], [0.0, 1.0]], [0.5, 1.0])
    """
    position = np.array(model.limits, dtype=float)
    velocity = np.array(model.velocity_limits, dtype=float)
    for f in np.flatnonzero(model.mimic[:, 0] >= 0):
        leader, gain, offset = int(model.mimic[f, 0]), *map(float, model.mimic[f, 1:])
        lo, hi = map(float, model.limits[f])
        if gain == 0:
            if not lo <= offset <= hi:
                raise HodynError(f"joint '{model.joint_names[f]}' mimics with multiplier 0 at "
                                 f"{offset!r}, outside its limits [{lo!r}, {hi!r}]", source)
            continue
        ends = sorted(((lo - offset) / gain, (hi - offset) / gain))
        position[leader] = max(position[leader, 0], ends[0]), min(position[leader, 1], ends[1])
        velocity[leader] = min(velocity[leader], model.velocity_limits[f] / abs(gain))
        if position[leader, 0] > position[leader, 1]:
            a, b = map(float, model.limits[leader])
            raise HodynError(
                f"joint '{model.joint_names[f]}' (q = {gain!r} q_{model.joint_names[leader]} + "
                f"{offset!r}) within its limits [{lo!r}, {hi!r}] leaves its leader "
                f"'{model.joint_names[leader]}' no position within [{a!r}, {b!r}] and the other "
                "followers' limits", source)
    return position, velocity
