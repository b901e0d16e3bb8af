"""A grid of points (ascending) kept on disk, read as :class:`~hodyn_cli.algorithms.limits.
spaced.Spaced` is (:class:`~hodyn_cli.algorithms.limits.lazy_grid.LazyGrid`) and by
:meth:`StoredGrid.searchsorted`, each the same numbers as on the whole array.

Why: reachability's grid is 3 points an input sample, held from the passes to the output's
last sample. Uniform in arc length it is made where it is read (:class:`Spaced`); denser
where the path turns sharply (:func:`~hodyn_cli.algorithms.limits.reachability._grids`) its
points are its own, and held in memory they were 24 MB at 10^6 samples, with ~3 times as
much at once while they were made: the iiwa's 10^6-sample cosine (its grid 0.2 % denser
where it turns) peaked at 222-260 MB against 176 at 10^5 (issue 37 item 4: memory bounded
by a chunk, not by the file). Here the points are in a :class:`~hodyn_cli.algorithms.limits.
stored.Stored`, and every :data:`~hodyn_cli.algorithms.limits.stored.TAKEN`-th of them in
memory, which finds the block a search reads.
"""
from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.limits.lazy_grid import LazyGrid
from hodyn_cli.algorithms.limits.stored import TAKEN, Stored

__all__ = ["StoredGrid"]


class StoredGrid(LazyGrid):
    """The points of ``stored`` (n,), ascending, read as any
    :class:`~hodyn_cli.algorithms.limits.lazy_grid.LazyGrid` is, and by :meth:`searchsorted`;
    :attr:`longest` its longest step.

    >>> s = Stored(5)
    >>> s.write(0, np.array([0.0, 0.1, 0.3, 0.6, 1.0]))
    >>> g = StoredGrid(s)
    >>> g[1:3].tolist(), float(g[-1]), len(g), g[np.array([4, 0])].tolist()
    ([0.1, 0.3], 1.0, 5, [1.0, 0.0])
    >>> g.searchsorted(np.array([0.3, 0.35, 2.0])).tolist(), round(g.longest, 12)
    ([2, 3, 5], 0.4)
    """

    def __init__(self, stored: Stored) -> None:
        assert len(stored) >= 2 and stored.shape == (len(stored),)
        self.stored, self.n, self.shape = stored, len(stored), (len(stored),)
        marks, longest = [], 0.0
        for a in range(0, self.n, TAKEN):  # (a block and the next's first point)
            block = stored[a : a + TAKEN + 1]
            marks.append(block[0])
            longest = max(longest, float(np.diff(block).max())) if len(block) > 1 else longest
        #: every TAKEN-th point: the block a point lies in, found in memory
        self.marks = np.array(marks)
        self.longest = longest

    def _at(self, i: np.ndarray) -> np.ndarray:
        distinct, back = np.unique(i.ravel(), return_inverse=True)
        return self.stored.take(distinct)[back].reshape(i.shape)

    def _slice(self, a: int, b: int, step: int) -> np.ndarray:
        return self.stored[a:b] if step == 1 else super()._slice(a, b, step)

    def searchsorted(self, v: np.ndarray | float, side: str = "left") -> np.ndarray:
        """``np.searchsorted`` of the whole array: the block of each v found among
        :attr:`marks` (the points before it: all below v, those after it: none), then
        counted in that block, each block read once for all the v in it (the v grouped by
        block: a sort, not a pass over them a block)."""
        v = np.asarray(v, dtype=float)
        flat = v.ravel()
        if not flat.size:  # (no value: no block)
            return np.empty(v.shape, dtype=np.intp)
        block = np.maximum(np.searchsorted(self.marks, flat, side=side) - 1, 0)  # type: ignore[call-overload]
        order = np.argsort(block, kind="stable")
        blocks, starts = np.unique(block[order], return_index=True)
        out = np.empty(flat.shape, dtype=np.intp)
        for k, lo, hi in zip(blocks, starts, [*starts[1:], len(order)], strict=True):
            here, a = order[lo:hi], int(k) * TAKEN
            out[here] = a + np.searchsorted(self.stored[a : a + TAKEN + 1], flat[here],
                                            side=side)  # type: ignore[call-overload]
        return out.reshape(v.shape) if v.ndim else out[0]
