"""A motion's ends at rest against the limits of higher orders (``hodyn check``).

A robot held still before its motion starts, or after it ends, has q'' = 0 there. A motion
whose first sample is a rest (q' = 0 at every joint) with q'' != 0 at a joint leaves the held
robot with a step of acceleration: its jerk is unbounded there, and so are the torque rates
(tau = M(q) q'' + ...: the step of q'' steps the torques), whatever the samples' own jerk
and torque rates are (they are the motion's after the step). Franka's controller refuses
such a start as an acceleration discontinuity. The same holds at a last sample at rest.

:class:`RestEnds` follows a motion's first and last samples as its chunks pass (q' and q''
of the :func:`~hodyn_cli.algorithms.limits.scaling.joint_laws` at x = 1) and the largest
|q'|, |q''| of each joint, which say what counts as zero there (:data:`STILL`, :data:`STEP`:
shares of them, so that a sampled or rounded rest is one and an acceleration that rounds
to zero is none).

:class:`Pauses` finds where a motion holds still for a while (every joint's q' exactly zero
over more than one sample: a waypoint repeated, a hold at an end): time that no path has,
which a time-optimal law along the path does not keep. Exactly zero, not within
:data:`STILL`: a generated motion's speed near a waypoint or the start of a filtered step
(~t^15) is below that share for several samples without being held.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from hodyn_cli.algorithms.limits.scaling import Law

__all__ = ["STILL", "STEP", "End", "RestEnds", "Pauses"]

#: a sample is a rest where every joint's |q'| is at most this share of its largest over the
#: motion (a joint that never moves is still everywhere)
STILL = 1e-9
#: and its acceleration steps there at a joint whose |q''| is beyond this share of its largest
STEP = 1e-6


@dataclass(frozen=True, eq=False, repr=False)
class End:
    """A sample at an end of the motion: its index, time (None without ``t``), q' and q''
    (one per joint of the laws)."""

    sample: int
    time: float | None
    qd: np.ndarray
    qdd: np.ndarray


class RestEnds:
    """The first and last samples of a motion fed chunk by chunk (:meth:`add`) and what they
    say: :meth:`steps`, the joints whose acceleration steps at an end at rest.

    >>> ends = RestEnds()
    >>> t = np.linspace(0.0, 1.0, 5)
    >>> ends.add(np.c_[0 * t, np.sin(t)], np.c_[0 * t + 2.0, np.cos(t)], t, 0)
    >>> [(end.sample, j, float(qdd)) for end, j, qdd in ends.steps()]
    [(0, 0, 2.0), (0, 1, 1.0)]
    """

    def __init__(self) -> None:
        self.first: End | None = None
        self.last: End | None = None
        #: the coordinates of q' and q'' (:meth:`follow`'s laws')
        self.names: tuple[str, ...] = ()
        self._peak_qd: np.ndarray | None = None
        self._peak_qdd: np.ndarray | None = None

    def add(self, qd: np.ndarray, qdd: np.ndarray, t: np.ndarray | None, start: int) -> None:
        """The next chunk: q', q'' (N, m) of its samples, their times (or None), the index
        of its first sample in the motion."""
        if not len(qd):
            return
        peaks = np.abs(qd).max(axis=0), np.abs(qdd).max(axis=0)
        if self._peak_qd is None or self._peak_qdd is None:
            self._peak_qd, self._peak_qdd = peaks
            self.first = self._end(qd, qdd, t, start, 0)
        else:
            self._peak_qd = np.maximum(self._peak_qd, peaks[0])
            self._peak_qdd = np.maximum(self._peak_qdd, peaks[1])
        self.last = self._end(qd, qdd, t, start, len(qd) - 1)

    def follow(self, laws: dict[str, Law], t: np.ndarray | None, start: int) -> None:
        """:meth:`add` with the q' and q'' of a chunk's scaling laws (``qd``, ``qdd`` at x =
        1; nothing where the motion has no q''), their coordinates :attr:`names`."""
        if "qd" in laws and "qdd" in laws:
            self.add(laws["qd"].at(1.0), laws["qdd"].at(1.0), t, start)
            self.names = laws["qd"].joint_names

    @staticmethod
    def _end(qd: np.ndarray, qdd: np.ndarray, t: np.ndarray | None, start: int, s: int) -> End:
        return End(start + s, None if t is None else float(t[s]), qd[s].copy(), qdd[s].copy())

    def rests(self) -> list[End]:
        """The ends at rest (the first, the last: one where the motion is a single sample)."""
        if self.first is None or self.last is None or self._peak_qd is None:
            return []
        ends = [self.first] if self.first.sample == self.last.sample else [self.first, self.last]
        return [end for end in ends if np.all(np.abs(end.qd) <= STILL * self._peak_qd)]

    def steps(self) -> list[tuple[End, int, float]]:
        """``(end, joint, q'')`` for each joint whose acceleration steps at an end at rest."""
        if self._peak_qdd is None:
            return []
        threshold = STEP * self._peak_qdd
        return [(end, int(j), float(end.qdd[j])) for end in self.rests()
                for j in np.flatnonzero(np.abs(end.qdd) > threshold)]


class Pauses:
    """The spans of a motion fed chunk by chunk (:meth:`add`) over which every joint holds
    still (q' = 0 at every sample, two samples or more, a time between them): :attr:`spans`,
    (first, last) times.

    >>> pauses = Pauses()
    >>> t = np.linspace(0.0, 3.0, 31)
    >>> qd = np.c_[np.where((t > 0.95) & (t < 2.05), 0.0, np.sin(t)), 0 * t]
    >>> pauses.add(qd[:15], t[:15]); pauses.add(qd[15:], t[15:])
    >>> [(round(a, 6), round(b, 6)) for a, b in pauses.spans]
    [(1.0, 2.0)]
    """

    def __init__(self) -> None:
        self.spans: list[tuple[float, float]] = []
        self._open: tuple[float, float] | None = None  # (the still run reaching the chunk's end)

    def add(self, qd: np.ndarray, t: np.ndarray) -> None:
        """The next chunk: q' (N, m) of its samples and their times."""
        if not len(qd):
            return
        still = np.all(qd == 0, axis=1)
        # runs of still samples: their first and last indices (a run open from the chunk
        # before goes on where this one starts still)
        edges = np.diff(np.concatenate([[0], still.astype(np.int8), [0]]))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
        runs = [(float(t[a]), float(t[b])) for a, b in zip(starts, ends, strict=True)]
        if self._open is not None:
            if runs and starts[0] == 0:
                runs[0] = (self._open[0], runs[0][1])
            else:
                self._close(self._open)
        self._open = runs.pop() if runs and ends[-1] == len(qd) - 1 else None
        for run in runs:
            self._close(run)

    def end(self) -> list[tuple[float, float]]:
        """:attr:`spans`, the run that reaches the motion's last sample included."""
        if self._open is not None:
            self._close(self._open)
            self._open = None
        return self.spans

    def _close(self, run: tuple[float, float]) -> None:
        if run[1] > run[0]:
            self.spans.append(run)
