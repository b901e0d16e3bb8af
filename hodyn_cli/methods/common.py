"""What all methods share: defaults and the check that the inputs suffice."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hodyn_cli import lie
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.model import Model
from hodyn_cli.trajectory import Trajectory, derivative_name

GRAVITY = (0.0, 0.0, -9.81)

#: samples per batch: big enough to amortize numpy's per-call cost, small enough that
#: a batch's working set stays in cache
CHUNK = 2048


def required_orders(order: int) -> int:
    """Number of q derivative orders torque order ``order`` needs (order 2: q..qdddd)."""
    return order + 3


def check_inputs(model: Model, trajectory: Trajectory, order: int) -> None:
    """Raise a one-line error if the trajectory lacks what torque order ``order`` needs."""
    if tuple(trajectory.joint_names) != tuple(model.joint_names):
        raise TrajectoryError("trajectory joints do not match the model's joints")
    need = required_orders(order)
    if trajectory.orders < need:
        missing = ", ".join(derivative_name("q", k) for k in range(trajectory.orders, need))
        raise TrajectoryError(f"order {order} needs {missing} (not in the trajectory)")
    w = trajectory.wrenches
    if w is not None and w.W and w.orders < order + 1:
        missing = ", ".join(derivative_name("W", k) for k in range(w.orders, order + 1))
        raise TrajectoryError(f"order {order} needs wrench derivatives {missing}")


def body_wrenches(model: Model, trajectory: Trajectory, order: int) -> dict[int, np.ndarray]:
    """External wrenches moved to the frames of the bodies they act on.

    Returns body index -> (N, order+1, 6). A wrench on a link merged into a body by a
    fixed joint is transformed with the link's constant pose ``T`` in the body frame
    (``W_b = Ad_{T^-1}^T W_link``); wrenches on links fixed to the root do nothing.
    """
    out: dict[int, np.ndarray] = {}
    if trajectory.wrenches is None:
        return out
    for link, W in trajectory.wrenches.W.items():
        frame = model.links[link]
        if frame.body < 0:
            continue
        A = lie.Ad_inv(frame.T[:3, :3], frame.T[:3, 3])
        Wb = W[:, : order + 1] @ A
        out[frame.body] = out[frame.body] + Wb if frame.body in out else Wb
    return out


def gravity_vector(gravity) -> np.ndarray:
    g = np.asarray(gravity, dtype=float)
    if g.shape != (3,) or not np.all(np.isfinite(g)):
        raise TrajectoryError(f"gravity must be 3 finite numbers, got {gravity!r}")
    return g


def base_motion(gravity, K: int) -> np.ndarray:
    """Twist derivatives (1, K+1, 6) of a root that stands for gravity.

    A root translating with constant acceleration ``-g`` from rest is exactly
    equivalent to gravity ``g`` acting on every body (joint torques do not depend on
    the base's velocity), so: ``V_0 = 0``, ``V_0' = (0; -g)``, higher derivatives 0.
    At that instant body-fixed and spatial representations of the root coincide.
    """
    base = np.zeros((1, K + 1, 6))
    if K >= 1:
        base[0, 1, 3:] = -gravity_vector(gravity)
    return base


def solve_in_chunks(model: Model, trajectory: Trajectory, order: int, gravity,
                    per_chunk: Callable[..., np.ndarray], shape: tuple[int, ...] | None = None,
                    chunk: int = CHUNK) -> np.ndarray:
    """Run ``per_chunk(qs, base, wrenches) -> (N_chunk, order+1, *shape)`` over sample chunks
    (``shape`` defaults to ``(n,)``, joint torques).

    Checks the inputs, builds the gravity base motion (K = order + 1) and the body
    wrenches once, then hands each method a chunk of ``CHUNK`` samples.
    """
    check_inputs(model, trajectory, order)
    base = base_motion(gravity, order + 1)
    qs = trajectory.derivatives
    W = body_wrenches(model, trajectory, order)
    out = np.empty((qs.shape[0], order + 1) + (shape or (model.n,)))
    for s in range(0, qs.shape[0], chunk):
        sl = slice(s, s + chunk)
        out[sl] = per_chunk(qs[sl], base, {b: w[sl] for b, w in W.items()})
    return out
