"""Angles a file wraps into (-pi, pi] (continuous joints) made continuous in time.

A log of a wheel or a wrist roll often stores its angle wrapped: q jumps by 2 pi where the
joint passes +-pi, while its rates say it moved on smoothly. Whatever differentiates q or
plays a path through it (validate's consistency, the estimation of derivatives, the
time-optimal retiming) needs the angle unwrapped first: whole turns added wherever q steps by
more than pi between neighbouring samples, counted across the chunks of a stream.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory


def wrapped_columns(robot: Model) -> np.ndarray:
    """(m,) the coordinates whose q may wrap at +-pi: continuous joints' (with multi-DOF
    joints, whose rates are given, over the velocity coordinates)."""
    if robot.multi_dof:
        return np.array([kind == "continuous" for kind, nv in zip(
            robot.joint_types, robot.dofs, strict=True) for _ in range(nv)])
    return np.array([robot.joint_types[i] == "continuous" for i in robot.coordinates])


class Turns:
    """The whole turns of the ``wrapped`` (m,) columns, chunk after chunk.

    The turns are integers, so the unwrapped angles are the same numbers for any chunking.

    >>> turns = Turns(np.array([True, False]))
    >>> first = turns(np.array([[3.0, 3.0], [-3.1, -3.1]]))
    >>> second = turns(np.array([[3.1, 3.1], [-3.0, -3.0]]))
    >>> np.round(first, 4).tolist(), np.round(second, 4).tolist()
    ([[3.0, 3.0], [3.1832, -3.1]], [[3.1, 3.1], [3.2832, -3.0]])
    """

    def __init__(self, wrapped: np.ndarray):
        self.wrapped = wrapped
        self.last: np.ndarray | None = None  # the previous chunk's last raw angles
        self.turns = np.zeros(int(np.count_nonzero(wrapped)))

    def __call__(self, q: np.ndarray) -> np.ndarray:
        """q (N, m) with the wrapped columns continued from the previous chunk's (a copy)."""
        angles = q[:, self.wrapped]
        if not len(angles):
            return q
        if self.last is None:
            self.last = angles[0]
        steps = np.diff(np.concatenate([self.last[None], angles]), axis=0)
        turns = self.turns - np.cumsum(np.round(steps / (2 * np.pi)), axis=0)
        self.last, self.turns = angles[-1], turns[-1]
        out = q.copy()
        out[:, self.wrapped] = angles + 2 * np.pi * turns
        return out


def unwrapping(chunks: Callable[[], Iterable[Trajectory]], wrapped: np.ndarray
               ) -> Callable[[], Iterator[Trajectory]]:
    """``chunks`` (a function that gives a motion's chunks afresh) with the ``wrapped``
    columns of q made continuous, counted afresh at each reading."""
    def unwrapped() -> Iterator[Trajectory]:
        turns = Turns(wrapped)
        for chunk in chunks():
            d = chunk.derivatives.copy()
            d[:, 0] = turns(d[:, 0])
            yield replace(chunk, derivatives=d)
    return unwrapped
