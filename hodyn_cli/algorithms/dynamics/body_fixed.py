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
from hodyn_cli.algorithms.dynamics.common import GRAVITY, solve_in_chunks
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

__all__ = ["inverse_dynamics", "joint_wrenches"]


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
