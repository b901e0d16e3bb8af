"""A robot under a free root joint (:func:`hodyn_cli.core.model.with_free_root`: a floating
base) run by a backend's floating-base kernels: the carried robot's 1-DOF passes driven by the
root's twist jet in the free-falling frame, where the joint-model passes would compute the
free joint's pose and its adjoint per sample and body-table entry. The compiled backend runs
the matrices, the regressor and the sensitivities so, the GPU backend the torques and the
regressor (their multi-DOF passes run on the host).

The free joint's columns (row 0 its configuration ``(r; p)``, rows k >= 1 the body twist's
derivative k-1: docs/conventions.md) give the root's rotation ``R = exp(skew(r))`` and twist
jet; a chunk's gravity-only root jet (:func:`hodyn_cli.algorithms.dynamics.common.base_motion`)
gives g; a body wrench on the root (body 0) is the root's own, added to ``F_0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Model

__all__ = ["gravity_of", "carried", "root_jet", "carried_wrenches"]


def gravity_of(base: np.ndarray) -> np.ndarray | None:
    """g (3,) where the root's jet ``base`` is gravity's alone (one row, ``V_0 = 0``,
    ``V_0' = (0; -g)``, higher derivatives 0), else None.

    >>> base = np.zeros((1, 3, 6)); base[0, 1, 5] = 9.81
    >>> gravity_of(base).tolist(), gravity_of(np.ones((1, 3, 6)))
    ([-0.0, -0.0, -9.81], None)
    """
    if len(base) != 1 or base.shape[1] < 2 or base[0, 0].any() or base[0, 1, :3].any() \
            or base[0, 2:].any():
        return None
    return -base[0, 1, 3:]


def carried(backend: Any, model: Model, data: Any) -> tuple[Model, Any] | None:
    """The robot ``model``'s free root joint carries (:attr:`Model.carried`) and ``backend``'s
    Data for it, made once per ``data`` (the free model's); None: ``model`` is no robot under
    a free root joint, or the carried robot has joints of its own the floating-base kernels do
    not run (a multi-DOF joint besides the root's) or none."""
    return data.derived(_carried, model, backend)


def _carried(model: Model, backend: Any) -> tuple[Model, Any] | None:
    robot = model.carried
    if robot is None or robot.n == 0 or robot.multi_dof:
        return None
    return robot, backend.data(robot)


def root_jet(backend: Any, qs: np.ndarray, g: np.ndarray, K: int) -> np.ndarray:
    """The root's twist jet (N, K+1, 6) in the free-falling frame from the free joint's
    columns of ``qs`` (N, >= K+1, 6 + nv), by ``backend``'s ``root_jet``."""
    return backend.root_jet(lie.rotation_vector_exp(qs[:, 0, :3]), qs[:, 1:, :6], g, K)


def carried_wrenches(wrenches: dict[int, np.ndarray] | None
                     ) -> tuple[dict[int, np.ndarray], np.ndarray | None]:
    """The body wrenches of the free model as the carried robot's (bodies 1.. as 0..) and the
    root's own (body 0's, or None)."""
    wrenches = wrenches or {}
    return {b - 1: w for b, w in wrenches.items() if b}, wrenches.get(0)
