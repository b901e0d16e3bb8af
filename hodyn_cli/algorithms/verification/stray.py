"""How far a retimed motion's samples lie from the path of the motion it retimes.

A retiming (``hodyn retime``) changes the time law along a path, never the path: each output
sample ``q`` should be a point ``q_in(s)`` of the input's own interpolant (the Hermite
interpolant of its samples' derivatives, :func:`~hodyn_cli.algorithms.limits.programme.between`,
the path every hodyn command plays between samples). :func:`strayed` measures, for every
output sample, its distance from that path, joint by joint, at the path point nearest to it:

1. **seed** -- both motions run along the path in the same direction, so the output's samples
   are matched a chunk at a time to the nearest of the path's points spaced evenly along
   it (:data:`DENSE` an input interval on average): all of them on a path of up to
   :data:`WHOLE`, else within a window of the input that follows the matching along (a k-d
   tree of the window: the cost is linear in both lengths, memory a window's);
2. **project** -- from the nearest seed, and where its foot is off the path from every seed
   that may be the nearest's (within the seeds' spacing of the nearest seed, however many: a
   path that comes back near the sample has one there too), Newton's method on
   ``f(s) = (q_in(s) - q) . q_in'(s) = 0`` (``f' = |q_in'|^2 + (q_in - q) . q_in''``), kept
   within the seed's neighbouring seeds: the foot of the perpendicular, exact to rounding
   where the seed alone would leave up to half the seeds' spacing.

A path that reverses (a cusp) or comes back through a point is matched to the nearest of its
visits (within the window), so the distance is never overstated. ``hodyn validate --path`` holds
it to :data:`~hodyn_cli.algorithms.limits.strays.STRAY` (the projection, the tolerance and the
retiming's own check of its shape: :mod:`~hodyn_cli.algorithms.limits.strays`).

>>> import numpy as np
>>> from hodyn_cli.core.trajectory import Trajectory
>>> t = np.linspace(0.0, 1.0, 11)
>>> path = Trajectory(("a", "b"), np.stack([np.stack([t, t**2], 1), np.stack([1 + 0 * t, 2 * t],
...     1), np.stack([0 * t, 2 + 0 * t], 1)], 1), t)
>>> s = np.linspace(0.0, 1.0, 7) ** 2
>>> on = np.stack([s, s**2], 1)
>>> bool(strayed(path, on).distance.max() < 1e-12)
True
>>> off = on + [0.0, 0.01]
>>> found = strayed(path, off)
>>> round(float(found.distance.max()), 4), int(found.joint[found.distance.argmax()])
(0.01, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli.algorithms.limits.programme import between
from hodyn_cli.algorithms.limits.strays import STRAY, projected, travel
from hodyn_cli.core.trajectory import Trajectory

if TYPE_CHECKING:
    from scipy.spatial import cKDTree

#: the input's points an interval the output's samples are first matched to (the seed)
DENSE = 4
#: the output's samples matched at once (a chunk)
CHUNK = 8192
#: a path of at most this many seeds is searched whole, every chunk against one tree (~60 MB
#: for 7 joints): the nearest seed of any lap. A longer one a window at a time that follows
#: the matching along, which a periodic path can lead a lap ahead (its laps' seeds within
#: rounding of each other, the nearest one of any lap): the generic quadruped's leg along
#: its 10 s Fourier path at 1 kHz (2.5 laps), windowed, had a chunk's last sample matched a
#: lap ahead and the next chunk's samples before the window, measured 0.78 rad off a path
#: they lay on to 4e-6
WHOLE = 1 << 20


@dataclass(frozen=True)
class Strayed:
    """Per output sample: ``distance`` (the largest joint's, in its unit), ``joint`` (which),
    ``share`` (that distance over the joint's travel: what :data:`STRAY` bounds) and ``s``
    (the input time of the path point nearest to it)."""

    distance: np.ndarray
    joint: np.ndarray
    share: np.ndarray
    s: np.ndarray

    def worst(self) -> int:
        """The sample with the largest ``share``."""
        return int(np.argmax(self.share)) if len(self.share) else 0


def strayed(path: Trajectory, q: np.ndarray) -> Strayed:
    """Each of the samples ``q`` (N, m) of a motion along ``path`` (its times: the path
    parameter s; positions and their derivatives, at least q') against ``path``'s own
    interpolant: the module's seed and projection, a chunk of :data:`CHUNK` samples at a
    time (:class:`Follower`)."""
    return Follower(path, len(q))(q)


class Follower:
    """The matching of a motion's samples to ``path`` (:func:`strayed`), chunk after chunk
    in their order (``samples``: how many in all, where known: the first window's size)."""

    def __init__(self, path: Trajectory, samples: int | None = None) -> None:
        assert path.t is not None
        t, d = path.t, path.derivatives
        self.path, self.span = path, travel(d[:, 0])
        # (seeds spaced evenly along the path, not in time: DELTA apart in joint space at
        # most, each interval's length its chord or its speed's, the larger)
        h = np.diff(t)
        length = np.maximum(np.linalg.norm(np.diff(d[:, 0], axis=0), axis=1), h * np.maximum(
            np.linalg.norm(d[:-1, 1], axis=1), np.linalg.norm(d[1:, 1], axis=1)))
        self.delta = max(float(length.sum()) / (DENSE * len(h)), 1e-300)
        count = np.maximum(np.ceil(length / self.delta), 1).astype(int)
        first = np.repeat(np.cumsum(count) - count, count)
        k = np.arange(count.sum()) - first
        at = np.repeat(np.arange(len(h)), count)
        self.fine = np.append(t[at] + h[at] * k / count[at], t[-1])  # (rising)
        per = len(self.fine) * CHUNK // max(samples or path.n_samples, 1)
        self.start, self.window = 0, (len(self.fine) if len(self.fine) <= WHOLE else
                                      max(64 * DENSE, 2 * per))
        self._tree: tuple[int, int, cKDTree] | None = None  # (start, stop, its k-d tree)

    def __call__(self, q: np.ndarray) -> Strayed:
        """The samples ``q`` (N, m), the next of the motion's (memory: :data:`CHUNK`'s)."""
        parts = [self._chunk(q[a : a + CHUNK]) for a in range(0, len(q), CHUNK)]
        return Strayed(*(np.concatenate([getattr(p, f) for p in parts]) if parts else
                         np.zeros(0, dtype=int if f == "joint" else float)
                         for f in ("distance", "joint", "share", "s")))

    def _chunk(self, q: np.ndarray) -> Strayed:
        path, fine = self.path, self.fine
        from scipy.spatial import cKDTree  # (scipy's spatial module: ~0.1 s to import)

        while True:  # (the window grows until the chunk's last match lies well inside it)
            stop = min(self.start + self.window, len(fine))
            if self._tree is None or self._tree[:2] != (self.start, stop):
                self._tree = (self.start, stop,
                              cKDTree(_positions(path, fine[self.start : stop])))
            tree = self._tree[2]
            seen, near = tree.query(q)
            near = near + self.start
            if stop == len(fine) or near[-1] < self.start + 7 * self.window // 8:
                break
            self.window *= 2
        s, share = self._feet(q, np.arange(len(q)), near)
        # (the nearest path point lies within DELTA / 2 along the path of a seed, so that
        # seed is within the nearest seed's distance + DELTA / 2: where the nearest seed's
        # foot is not on the path, each such one projected too and the nearest foot kept; a
        # path that comes back near the sample has a seed there too. Only there: a periodic
        # path's laps put many seeds within rounding of each other at every sample)
        again = np.flatnonzero(share.max(axis=1) > STRAY / 16)
        if len(again):
            s[again], share[again] = self._feet(q[again], *self._around(
                tree, q[again], seen[again]))
        joint = share.argmax(axis=1)
        worst = share[np.arange(len(q)), joint]
        # (the next window from an eighth of this one behind its last match: the matching
        # follows the motion along, a revisit ahead of it cannot take it away)
        if self.window < len(fine):
            self.start = max(int(near[-1]) - self.window // 8, 0)
        return Strayed(worst * self.span[joint], joint, worst, s)


    def _around(self, tree: cKDTree, q: np.ndarray, nearest: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """(sample, seed) pairs: the seeds of the window ``tree`` within each sample's
        ``nearest`` seed's distance + DELTA of ``q``, one of those at the same distance to
        rounding (a periodic path's laps: its point again, whose foot is the same). All of
        them, not the nearest few: the generic quadruped's leg along its Fourier path of
        five laps had ten seeds of the hairpin's other branch nearer than those of the
        branch the sample lay on (tests/test_stray22.py)."""
        balls = tree.query_ball_point(q, nearest + self.delta)
        row = np.repeat(np.arange(len(q)), [len(b) for b in balls])
        j = np.concatenate([np.asarray(b, dtype=int) for b in balls])
        # (the path's first and last seed last, so that a copy on another lap is the one
        # kept: their projection stops at the path's end, where the copy's goes on)
        ends = np.isin(j + self.start, (0, len(self.fine) - 1))
        order = np.argsort(ends, kind="stable")
        row, j = row[order], j[order]
        gap = np.round(np.linalg.norm(tree.data[j] - q[row], axis=1) / (1e-12 * self.delta))
        _, first = np.unique(np.stack([row, gap], 1), axis=0, return_index=True)
        return row[first], j[first] + self.start

    def _feet(self, q: np.ndarray, row: np.ndarray, j: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
        """(s, share (N, m)) of the nearest of the feet projected from the seeds ``j`` of
        each sample ``q[row]``."""
        fine, path = self.fine, self.path
        s = projected(path, q[row], fine[np.maximum(j - 1, 0)],
                       fine[np.minimum(j + 1, len(fine) - 1)], fine[j])
        distance = np.linalg.norm(between(path, s, 0) - q[row], axis=1)
        best = np.full(len(q), np.inf)
        np.minimum.at(best, row, distance)
        pick = np.flatnonzero(distance == best[row])
        pick = pick[np.unique(row[pick], return_index=True)[1]]  # (one a sample)
        s = s[pick]
        return s, np.abs(between(path, s, 0) - q) / self.span


def _positions(path: Trajectory, s: np.ndarray) -> np.ndarray:
    """(E, m) the path's positions at s, :data:`CHUNK` at a time (the Hermite interpolant's
    temporaries, ~20 numbers a point, order and joint, are a chunk's)."""
    return np.concatenate([between(path, s[a : a + CHUNK], 0) for a in range(0, len(s), CHUNK)]
                          ) if len(s) else np.zeros((0, path.derivatives.shape[2]))
