"""A grid of points (ascending) read where it is used: the reads numpy's arrays have, each
the same numbers as on the whole array, from a subclass's :meth:`LazyGrid._at` (the points
at in-range indices).

Why: reachability's grid is 3 points an input sample and spans the whole run, so a long
path's must not be held in memory (issue 37 item 4: memory bounded by a chunk, not by the
file): uniform in arc length it is made where it is read
(:class:`~hodyn_cli.algorithms.limits.spaced.Spaced`), denser where the path turns it is
read from disk (:class:`~hodyn_cli.algorithms.limits.stored_grid.StoredGrid`). Whole-array
uses (numpy's functions and operators) still work, on the array made whole
(``__array__``): those on a long path's hot paths read a slice at a time instead.
"""
from __future__ import annotations

from typing import Any, overload

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

__all__ = ["LazyGrid"]


class LazyGrid(NDArrayOperatorsMixin):
    """n points read by ``[i]``, ``[a:b]`` (any step), integer index arrays (any order and
    shape), boolean masks and numpy's functions and operators (new arrays, as
    :class:`~hodyn_cli.algorithms.limits.stored.Stored` reads)."""

    n: int
    shape: tuple[int]
    ndim = 1
    dtype = np.dtype(float)

    def _at(self, i: np.ndarray) -> np.ndarray:
        """The points at the indices i (0 .. n-1, any order and shape)."""
        raise NotImplementedError

    def _slice(self, a: int, b: int, step: int) -> np.ndarray:
        """The points a, a + step, .. before b (in range)."""
        return self._at(np.arange(a, b, step))

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, key: int | np.integer) -> np.float64: ...
    @overload
    def __getitem__(self, key: slice | np.ndarray | list) -> np.ndarray: ...

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._slice(*key.indices(self.n))
        if isinstance(key, (int, np.integer)):
            i = int(key) + self.n if key < 0 else int(key)
            if not 0 <= i < self.n:
                raise IndexError(key)
            return self._at(np.array([i]))[0]
        index = np.asarray(key)
        if index.dtype == bool:
            return np.asarray(self)[index]
        if index.ndim == 0:  # (a 0-d integer array: a point, as numpy's)
            return self[int(index)]
        index = np.where(index < 0, index + self.n, index)
        if index.size and not (0 <= index.min() and index.max() < self.n):
            raise IndexError("index out of range of the grid")
        return self._at(index)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self._slice(0, self.n, 1)
        return out if dtype is None else out.astype(dtype)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy's functions and operators on the whole array."""
        inputs = tuple(np.asarray(v) if isinstance(v, LazyGrid) else v for v in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)
