"""The distinct values of an array, ascending: ``np.unique(a)`` to the bit where ``a`` holds no
NaN (its NaNs are each kept here) and no zero of both signs (``np.unique`` keeps one of them).

Why not ``np.unique``: NumPy 2's asks ``np.ma.is_masked`` of its argument, which imports
``numpy.ma`` on its first call, ~16-20 ms of every ``retime --optimal`` run that reaches it
(reachability's widths and corners' goals, the local rounds' points) and uses nothing else
of it.
"""
from __future__ import annotations

import numpy as np

__all__ = ["distinct"]


def distinct(a: np.ndarray) -> np.ndarray:
    """The values of ``a`` (flattened) sorted, each once (a 1-D array of ``a``'s dtype): sorted,
    then each kept where it differs from the one before it, as ``np.unique``'s sorting method.

    >>> distinct(np.array([3, 1, 2, 1, 3])).tolist()
    [1, 2, 3]
    """
    out = np.sort(a, axis=None)
    first = np.ones(len(out), dtype=bool)
    first[1:] = out[1:] != out[:-1]
    return out[first]
