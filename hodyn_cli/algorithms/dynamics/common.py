"""What all methods share: defaults and the check that the inputs suffice."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from hodyn_cli.algorithms.backends.numpy.common import CHUNK, gravity_vector
from hodyn_cli.core import lie
from hodyn_cli.core.gravity import GRAVITY  # noqa: F401 - the methods' default gravity
from hodyn_cli.core.model import JOINT_MODELS, Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import HodynError, TrajectoryError


def required_orders(order: int) -> int:
    """Number of q derivative orders torque order ``order`` needs (order 2: q..qdddd)."""
    return order + 3


def check_joint_models(model: Model, joint_models: bool = False) -> None:
    """A one-line error naming the first helical, spherical, planar or free joint unless the
    caller runs them (``joint_models``: the three methods' inverse dynamics, the closed-form
    matrices, the regressor, the sensitivities, the forward dynamics)."""
    if joint_models:
        return
    for name, kind in zip(model.joint_names, model.joint_types, strict=True):
        if kind in JOINT_MODELS:
            raise HodynError(f"model '{model.name}': joint '{name}' is {kind}: only the "
                             "inverse dynamics, joint wrenches, matrices, regressor, "
                             "kinematics, sensitivities and forward dynamics run helical, "
                             "spherical, planar and free joints yet")


def check_inputs(model: Model, trajectory: Trajectory, order: int,
                 joint_models: bool = False) -> None:
    """Raise a one-line error if the trajectory lacks what torque order ``order`` needs, or
    the model has joints the caller does not run (:func:`check_joint_models`)."""
    check_joint_models(model, joint_models)
    if tuple(trajectory.joint_names) != model.dof_names:
        raise TrajectoryError("trajectory joints do not match the model's joints")
    need = required_orders(order)
    if trajectory.orders < need:
        missing = ", ".join(derivative_name("q", k) for k in range(trajectory.orders, need))
        raise TrajectoryError(f"order {order} needs {missing} (not in the trajectory)")
    w = trajectory.wrenches
    if w is not None and w.W and w.orders < order + 1:
        missing = ", ".join(derivative_name("W", k) for k in range(w.orders, order + 1))
        raise TrajectoryError(f"order {order} needs wrench derivatives {missing}")


def body_wrenches(model: Model, trajectory: Trajectory, order: int, root: bool = False
                  ) -> dict[int, np.ndarray]:
    """External wrenches moved to the frames of the bodies they act on.

    Returns body index -> (N, order+1, 6). A wrench on a link merged into a body by a
    fixed joint is transformed with the link's constant pose ``T`` in the body frame
    (``W_b = Ad_{T^-1}^T W_link``); wrenches on links fixed to the root do nothing to the
    joints: they are left out, or with ``root=True`` summed in the root frame under key -1.
    """
    out: dict[int, np.ndarray] = {}
    if trajectory.wrenches is None:
        return out
    for link, W in trajectory.wrenches.W.items():
        frame = model.links[link]
        if frame.body < 0 and not root:
            continue
        A = lie.Ad_inv(frame.T[:3, :3], frame.T[:3, 3])
        Wb = W[:, : order + 1] @ A
        out[frame.body] = out[frame.body] + Wb if frame.body in out else Wb
    return out


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


def chunks(model: Model, trajectory: Trajectory, order: int, gravity, size: int = CHUNK,
           joint_models: bool = False
           ) -> Iterator[tuple[slice, np.ndarray, np.ndarray, dict[int, np.ndarray]]]:
    """``(samples, qs, base, wrenches)`` for each chunk of ``size`` samples.

    Checks the inputs (:func:`check_inputs`), builds the gravity base motion (K = order + 1)
    and the body wrenches once; ``qs`` and the wrenches are the chunk's rows.
    """
    check_inputs(model, trajectory, order, joint_models)
    base = base_motion(gravity, order + 1)
    qs = trajectory.derivatives
    W = body_wrenches(model, trajectory, order)
    for s in range(0, qs.shape[0], max(size, 1)):
        sl = slice(s, s + size)
        yield sl, qs[sl], base, {b: w[sl] for b, w in W.items()}


def solve_in_chunks(model: Model, trajectory: Trajectory, order: int, gravity,
                    per_chunk: Callable[..., np.ndarray], shape: tuple[int, ...] | None = None,
                    size: int = CHUNK, joint_models: bool = False) -> np.ndarray:
    """Run ``per_chunk(qs, base, wrenches) -> (N_chunk, order+1, *shape)`` over :func:`chunks`
    of ``size`` samples (``shape`` defaults to ``(nv,)``, joint torques)."""
    if trajectory.n_samples <= size:  # one chunk: no copy into a second array
        for _, qs, base, wrenches in chunks(model, trajectory, order, gravity, size,
                                            joint_models):
            return per_chunk(qs, base, wrenches)
    out = np.empty((trajectory.n_samples, order + 1) + (shape or (model.nv,)))
    for sl, qs, base, wrenches in chunks(model, trajectory, order, gravity, size, joint_models):
        out[sl] = per_chunk(qs, base, wrenches)
    return out


