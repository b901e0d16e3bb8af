"""Angles a file wraps into (-pi, pi] (continuous joints, a planar joint's heading) made
continuous in time.

A log of a wheel or a wrist roll often stores its angle wrapped: q jumps by 2 pi where the
joint passes +-pi, while its rates say it moved on smoothly. Whatever differentiates q or
plays a path through it (validate's consistency, the estimation of derivatives, the
time-optimal retiming) needs the angle unwrapped first: whole turns added between
neighbouring samples, counted across the chunks of a stream. Where the file gives q's rate,
the turns are those that bring q's step nearest to what the rate says it moved (a wheel at
600 rad/s logged at 100 Hz moves ~6 rad a sample: its steps over pi are motion, not wraps);
without it, wherever q steps by more than pi (such a joint then reads as turning backwards).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

#: the coordinates of each joint type that are angles a file may store wrapped into (-pi, pi]
#: (the others none): a continuous joint's q, a planar joint's heading theta (its x, y are
#: lengths). Not a revolute joint's (its limits place it: q and q + 2 pi are different states
#: of its range), nor a helical one's (a turn moves it along its axis: another pose), nor the
#: rotation vectors of ball and free joints and of a floating root (no column is an angle of
#: its own: validate judges their rotations, R, which no wrap changes)
WRAPPING = {"continuous": (True,), "planar": (False, False, True)}


def wrapped_columns(robot: Model, every: bool = False) -> np.ndarray:
    """(m,) which configuration coordinates of ``robot`` may wrap at +-pi (:data:`WRAPPING`),
    over a trajectory's columns (``robot.coordinate_names``: the independent joints', or with
    multi-DOF joints every velocity coordinate's, each configuration coordinate in the row of
    its velocity coordinate); ``every``: over every joint's coordinates (``robot.dof_names``:
    a motion with its mimic joints written out, as validate reads it). The one list of them:
    validate's consistency checks, the estimation's spline (and its charts), the retiming.

    >>> from hodyn_cli.modeling.urdf import parse_model
    >>> robot = parse_model(b'<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
    ...     b'<joint name="base" type="planar"><parent link="a"/><child link="b"/>'
    ...     b'<axis xyz="0 0 1"/></joint><joint name="roll" type="continuous">'
    ...     b'<parent link="b"/><child link="c"/><axis xyz="1 0 0"/></joint></robot>')
    >>> robot.coordinate_names, wrapped_columns(robot).tolist()
    (('base_vx', 'base_vy', 'base_wz', 'roll'), [False, False, True, True])
    """
    every_one = np.array([w for kind, nv in zip(robot.joint_types, robot.dofs, strict=True)
                          for w in WRAPPING.get(kind, (False,) * nv)], dtype=bool)
    # (without multi-DOF joints a joint's coordinate is its column: the mimic ones left out)
    return every_one if every or robot.multi_dof else every_one[list(robot.coordinates)]


class Turns:
    """The whole turns of the ``wrapped`` (m,) columns, chunk after chunk.

    A step's turns are the whole number nearest to ``(dq - moved) / 2 pi``: ``moved`` what
    q's rate says it moved over the step where a chunk comes with its times and rates
    (:meth:`moved`), else 0 (the pi rule: a step over pi is a wrap). The turns are integers,
    so the unwrapped angles are the same numbers for any chunking.

    >>> turns = Turns(np.array([True, False]))
    >>> first = turns(np.array([[3.0, 3.0], [-3.1, -3.1]]))
    >>> second = turns(np.array([[3.1, 3.1], [-3.0, -3.0]]))
    >>> np.round(first, 4).tolist(), np.round(second, 4).tolist()
    ([[3.0, 3.0], [3.1832, -3.1]], [[3.1, 3.1], [3.2832, -3.0]])

    A wheel at 5 rad/s sampled at 1 Hz (5 rad a sample, wrapped): its rate says the steps of
    -1.28 rad are 5 rad forward, not backward.

    >>> t = np.arange(4.0)
    >>> q = np.angle(np.exp(5j * t))[:, None]
    >>> qd = np.full((4, 1, 1), 5.0)
    >>> np.round(Turns(np.array([True]))(q, t, qd)[:, 0], 6).tolist()
    [0.0, 5.0, 10.0, 15.0]
    >>> np.round(Turns(np.array([True]))(q)[:, 0], 6).tolist()
    [0.0, -1.283185, -2.566371, -3.849556]
    """

    def __init__(self, wrapped: np.ndarray):
        self.wrapped = wrapped
        self.last: np.ndarray | None = None  # the previous chunk's last raw angles,
        self.last_t: np.ndarray | None = None      # its time and rates (qd, qdd) where given
        self.last_rates: np.ndarray | None = None
        self.turns = np.zeros(int(np.count_nonzero(wrapped)))

    def __call__(self, q: np.ndarray, t: np.ndarray | None = None,
                 rates: np.ndarray | None = None) -> np.ndarray:
        """q (N, m) with the wrapped columns continued from the previous chunk's (a copy);
        ``t`` (N,) and ``rates`` (N, R, m): the chunk's times and q's derivatives qd, qdd,
        ... where the file has them (R >= 1), which count the turns (:meth:`moved`)."""
        angles = q[:, self.wrapped]
        if not len(angles):
            return q
        given = None if t is None or rates is None or not rates.shape[1] else \
            (t, rates[:, :2, self.wrapped])
        if self.last is None:
            self.last = angles[0]
            self.last_t, self.last_rates = (None, None) if given is None else \
                (given[0][:1], given[1][:1])
        steps = np.diff(np.concatenate([self.last[None], angles]), axis=0)
        moved = self.moved(*given) if given is not None else 0.0
        turns = self.turns - np.cumsum(np.round((steps - moved) / (2 * np.pi)), axis=0)
        self.last, self.turns = angles[-1], turns[-1]
        self.last_t, self.last_rates = (None, None) if given is None else \
            (given[0][-1:], given[1][-1:])
        out = q.copy()
        out[:, self.wrapped] = angles + 2 * np.pi * turns
        return out

    def moved(self, t: np.ndarray, rates: np.ndarray) -> np.ndarray | float:
        """(N, k): what the rates say the angles moved over each step from the previous
        sample (the previous chunk's last), the trapezoid rule on qd with its end
        correction from qdd where given (``dt/2 (qd0 + qd1) + dt^2/12 (qdd0 - qdd1)``,
        exact for a quartic q); the trapezoid alone on a step whose qdd is not finite; 0
        (the pi rule) on a chunk after one without them, and on a step whose qd is not
        finite."""
        if self.last_t is None or self.last_rates is None or \
                self.last_rates.shape[1] != rates.shape[1]:
            return 0.0
        t = np.concatenate([self.last_t, t])
        x = np.concatenate([self.last_rates, rates])
        dt = np.diff(t)[:, None]
        out = dt / 2 * (x[:-1, 0] + x[1:, 0])
        if x.shape[1] > 1:  # (a log's qdd may be missing where its qd is not: NaN there)
            corrected = out + dt**2 / 12 * (x[:-1, 1] - x[1:, 1])
            out = np.where(np.isfinite(corrected), corrected, out)
        return np.where(np.isfinite(out), out, 0.0)


class Unwrapped:
    """A motion's chunks, given in order, with the ``wrapped`` (m,) columns of q made
    continuous (:class:`Turns`); a chunk without such columns as it is."""

    def __init__(self, wrapped: np.ndarray):
        self.turns = Turns(wrapped) if wrapped.any() else None
        #: whether some column wraps (else every chunk passes as it is)
        self.active = self.turns is not None

    def __call__(self, chunk: Trajectory) -> Trajectory:
        if self.turns is None:
            return chunk
        d = chunk.derivatives.copy()
        d[:, 0] = self.turns(d[:, 0], chunk.t, d[:, 1:])  # (its rates count the turns)
        return replace(chunk, derivatives=d)


def unwrapping(chunks: Callable[[], Iterable[Trajectory]], wrapped: np.ndarray
               ) -> Callable[[], Iterator[Trajectory]]:
    """``chunks`` (a function that gives a motion's chunks afresh) with the ``wrapped``
    columns of q made continuous, counted afresh at each reading."""
    def unwrapped() -> Iterator[Trajectory]:
        return map(Unwrapped(wrapped), chunks())
    return unwrapped


def leaders(robot: Model) -> np.ndarray:
    """(m,) over a trajectory's columns: the coordinates that may wrap
    (:func:`wrapped_columns`) and that a mimic joint follows. A follower sits at ``multiplier
    q_leader + offset``: a turn that the file's wrap takes from its leader moves it by
    ``multiplier`` turns, another pose unless that is a whole number (0.5: half a turn), so
    the leader's angle is continued through +-pi before the follower follows it
    (:func:`leaders_unwrapped`).

    >>> from hodyn_cli.modeling.urdf import parse_model
    >>> robot = parse_model(b'<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
    ...     b'<joint name="roll" type="continuous"><parent link="a"/><child link="b"/>'
    ...     b'<axis xyz="1 0 0"/></joint><joint name="half" type="continuous"><parent '
    ...     b'link="b"/><child link="c"/><axis xyz="1 0 0"/><mimic joint="roll" '
    ...     b'multiplier="0.5"/></joint></robot>')
    >>> robot.coordinate_names, leaders(robot).tolist()
    (('roll',), [True])
    """
    followed = robot.mimic[robot.mimic[:, 0] >= 0, 0].astype(int)
    # (a multi-DOF joint has no mimic joints; closed loops place their passive joints)
    if robot.multi_dof or robot.actuated is not None or not len(followed):
        return np.zeros(len(robot.coordinate_names), dtype=bool)
    return wrapped_columns(robot) & np.isin(robot.coordinates, followed)


def leaders_unwrapped(robot: Model) -> Unwrapped:
    """Chunk after chunk of a motion in time (a log, a file), the angles that mimic joints
    follow (:func:`leaders`) continued through +-pi, counted from the motion's first sample
    as it is written: the same numbers for any chunking. Whatever expands such a motion to
    every joint reads it through this first (every command's input, validate, identify); a
    robot without such a leader has its chunks as they are."""
    return Unwrapped(leaders(robot))
