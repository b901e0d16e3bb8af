"""An evenly spaced grid made where it is read: ``np.linspace(start, stop, n)`` to the bit,
without its n numbers in memory.

Why: reachability's grid (:class:`~hodyn_cli.algorithms.limits.reachability.Arc`'s sigma,
uniform in arc length) is 3 points an input sample, and it spans the whole run (the passes,
the smoothing, the played law's knots): 24 MB at 10^6 samples, held from the passes to the
output's last sample (issue 37 item 4: memory bounded by a chunk, not by the file). Its
points are ``i * step + start`` (the last: ``stop``), numpy's own formula, so a block's
points are made exactly as the whole array has them. Whole-array uses (``np.diff``,
arithmetic: numpy's functions and operators) still work, on the array made whole
(``__array__``): those on a long path's hot paths read a slice at a time instead.
"""
from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.limits.lazy_grid import LazyGrid

__all__ = ["Spaced"]


class Spaced(LazyGrid):
    """``np.linspace(start, stop, n)`` (n >= 2) read by ``[i]``, ``[a:b]`` and integer arrays
    (new arrays, as :class:`~hodyn_cli.algorithms.limits.stored.Stored` reads), and
    :meth:`searchsorted`, each the same numbers as on the whole array.

    >>> g = Spaced(0.0, 1.0, 5)
    >>> g[1:3].tolist(), float(g[-1]), len(g), g.searchsorted(np.array([0.3, 0.5])).tolist()
    ([0.25, 0.5], 1.0, 5, [2, 2])
    """

    def __init__(self, start: float, stop: float, n: int) -> None:
        assert n >= 2
        self.start, self.stop, self.n = float(start), float(stop), int(n)
        # (numpy's: the difference, then divided by the intervals)
        self.step = (self.stop - self.start) / (self.n - 1)
        self.shape = (self.n,)

    def _at(self, i: np.ndarray) -> np.ndarray:
        """The points at the indices i (0 .. n-1)."""
        y = np.asarray(i, dtype=float)
        if self.step == 0:  # (numpy's formula there: a denormal difference not lost)
            y = y / (self.n - 1) * (self.stop - self.start)
        else:
            y = y * self.step
        y += self.start
        y[i == self.n - 1] = self.stop
        return y

    def searchsorted(self, v: np.ndarray | float, side: str = "left") -> np.ndarray:
        """``np.searchsorted`` of the whole array: the point near each v found by division,
        then counted among its neighbours (made as the whole array has them)."""
        v = np.asarray(v, dtype=float)
        if self.step == 0:
            return np.searchsorted(np.asarray(self), v, side=side)  # type: ignore[call-overload]
        with np.errstate(invalid="ignore", over="ignore"):
            guess = np.nan_to_num(np.floor((v - self.start) / self.step), nan=self.n,
                                  posinf=self.n, neginf=-1.0)
        # (the guess is within an index of the count: 2 either side suffice)
        lo = np.clip(guess, -2, self.n).astype(int) - 2
        index = lo[..., None] + np.arange(6)
        inside = (index >= 0) & (index < self.n)
        points = self._at(np.clip(index, 0, self.n - 1))
        below = points < v[..., None] if side == "left" else points <= v[..., None]
        # (the points before the window: all below v; those after it: none)
        out = np.maximum(lo, 0) + (below & inside).sum(axis=-1)
        out = np.where(np.isnan(v), self.n, out)
        return out if out.ndim else out[()]
