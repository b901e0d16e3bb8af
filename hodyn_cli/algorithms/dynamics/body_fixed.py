"""Body-fixed recursive O(n) inverse dynamics of any order K (method ``body-fixed``): the
trajectory-level entries, chunk by chunk through the backend that runs. The passes and their
equations (Mueller's (40)-(42) with the Leibniz rule (25)) are the numpy backend's,
:mod:`hodyn_cli.algorithms.backends.numpy.body_fixed`.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.dynamics.common import GRAVITY, base_motion, check_inputs, solve_in_chunks
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

__all__ = ["inverse_dynamics", "inverse_dynamics_probes", "joint_wrenches"]


def inverse_dynamics(model: Model, trajectory: Trajectory, *, order: int = 2,
                     gravity=GRAVITY, data: backends.Data | None = None) -> np.ndarray:
    """tau and its first ``order`` time derivatives, (N, order+1, nv): :func:`chunk` by the
    backend that runs, chunk by chunk (a model with helical, spherical, planar or free joints
    by numpy's or the compiled kernels: the GPU kernels run revolute and prismatic joints and
    hand the others to their host backend)."""
    backend, data = backends.prepare(model, data)
    size = backend.rows(CHUNK) if data.kernel_joints else CHUNK

    def per_chunk(qs: np.ndarray, base: np.ndarray, wrenches: dict[int, np.ndarray]
                  ) -> np.ndarray:
        return cast(np.ndarray, backend.inverse_dynamics(model, data, qs, base, wrenches,
                                                         order=order))

    return solve_in_chunks(model, trajectory, order, gravity, per_chunk, size=size,
                           joint_models=True)


def inverse_dynamics_probes(model: Model, names: tuple[str, ...], probes: np.ndarray, *,
                            order: int = 2, gravity=GRAVITY,
                            data: backends.Data | None = None) -> np.ndarray:
    """tau and its first ``order`` derivatives (P, N, order+1, nv) of the P motions
    ``probes`` (P, N, D, nv; joints ``names``, no external wrenches) through the same
    positions (the path's probes, :func:`~hodyn_cli.algorithms.limits.programme.path_limits`:
    one path, P time laws): :func:`inverse_dynamics` of each, the same numbers, the
    positions' share (the joint adjoints) made once where the backend can (the compiled
    kernels); where their rows 0 differ, each alone."""
    backend, data = backends.prepare(model, data)
    size = backend.rows(CHUNK) if data.kernel_joints else CHUNK
    for qs in probes:
        check_inputs(model, Trajectory(names, qs[:1]), order, joint_models=True)
    if len(probes) < 2 or not all(np.array_equal(qs[:, 0], probes[0, :, 0])
                                  for qs in probes[1:]):
        return np.stack([inverse_dynamics(model, Trajectory(names, qs), order=order,
                                          gravity=gravity, data=data) for qs in probes])
    base = base_motion(gravity, order + 1)
    if probes.shape[1] <= size:  # one chunk: no copy into a second array
        return backend.inverse_dynamics_probes(model, data, probes, base, order=order)
    out = np.empty(probes.shape[:2] + (order + 1, model.nv))
    for s in range(0, probes.shape[1], size):  # (inverse_dynamics' chunks)
        out[:, s : s + size] = backend.inverse_dynamics_probes(model, data,
                                                               probes[:, s : s + size], base,
                                                               order=order)
    return out


def joint_wrenches(model: Model, trajectory: Trajectory, *, order: int = 2,
                   gravity=GRAVITY, data: backends.Data | None = None) -> np.ndarray:
    """Wrench each body's parent exerts on it through its joint, in the body frame, and
    its first ``order`` derivatives: (N, order+1, n, 6), chunk by chunk by the backend that
    runs (its ``joint_wrenches``)."""
    backend, data = backends.prepare(model, data)

    def per_chunk(qs: np.ndarray, base: np.ndarray, wrenches: dict[int, np.ndarray]
                  ) -> np.ndarray:
        return backend.joint_wrenches(model, data, qs, base, wrenches, order=order)

    return solve_in_chunks(model, trajectory, order, gravity, per_chunk, (model.n, 6),
                           joint_models=True)
