"""A grid of points (ascending) kept on disk, read as :class:`~hodyn_cli.algorithms.limits.
spaced.Spaced` is: by ``[i]``, ``[a:b]``, index arrays and :meth:`StoredGrid.searchsorted`, each
the same numbers as on the whole array.

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

from typing import Any, overload

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from hodyn_cli.algorithms.limits.stored import TAKEN, Stored

__all__ = ["StoredGrid"]


class StoredGrid(NDArrayOperatorsMixin):
    """The points of ``stored`` (n,), ascending, read by ``[i]``, ``[a:b]`` (any step),
    integer and boolean index arrays, :meth:`searchsorted` and numpy's functions and
    operators (those on the array made whole: long paths' hot paths read a slice at a time),
    as :class:`~hodyn_cli.algorithms.limits.spaced.Spaced` is; :attr:`longest` its longest
    step.

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

    ndim = 1
    dtype = np.dtype(float)

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, key: int | np.integer) -> np.float64: ...
    @overload
    def __getitem__(self, key: slice | np.ndarray | list) -> np.ndarray: ...

    def __getitem__(self, key):
        if isinstance(key, slice):
            a, b, step = key.indices(self.n)
            if step == 1:
                return self.stored[a:b]
            return self._take(np.arange(a, b, step))
        if isinstance(key, (int, np.integer)):
            i = int(key) + self.n if key < 0 else int(key)
            if not 0 <= i < self.n:
                raise IndexError(key)
            return np.float64(self.stored[i])
        index = np.asarray(key)
        if index.dtype == bool:
            return np.asarray(self)[index]
        if index.ndim == 0:  # (a 0-d integer array: a point, as numpy's)
            return self[int(index)]
        index = np.where(index < 0, index + self.n, index)
        if index.size and not (0 <= index.min() and index.max() < self.n):
            raise IndexError("index out of range of the grid")
        return self._take(index)

    def _take(self, index: np.ndarray) -> np.ndarray:
        """The points at ``index`` (in range, any order and shape)."""
        flat = index.ravel()
        distinct, back = np.unique(flat, return_inverse=True)
        return self.stored.take(distinct)[back].reshape(index.shape)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self.stored[:]
        return out if dtype is None else out.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy's functions and operators on the whole array."""
        inputs = tuple(np.asarray(v) if isinstance(v, StoredGrid) else v for v in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def searchsorted(self, v: np.ndarray | float, side: str = "left") -> np.ndarray:
        """``np.searchsorted`` of the whole array: the block of each v found among
        :attr:`marks` (the points before it: all below v, those after it: none), then
        counted in that block (read once for all the v in it)."""
        v = np.asarray(v, dtype=float)
        flat = v.ravel()
        block = np.maximum(np.searchsorted(self.marks, flat, side=side) - 1, 0)  # type: ignore[call-overload]
        out = np.empty(flat.shape, dtype=np.intp)
        for k in np.unique(block):
            here = block == k
            a = int(k) * TAKEN
            out[here] = a + np.searchsorted(self.stored[a : a + TAKEN + 1], flat[here],
                                            side=side)  # type: ignore[call-overload]
        return out.reshape(v.shape) if v.ndim else out[0]
