"""B-splines without scipy: evaluation (Cox-de Boor's basis) and interpolation with
not-a-knot ends or given end derivatives (C. de Boor, *A Practical Guide to Splines*, rev. ed., Springer 2001,
ch. IX-XIII), as ``scipy.interpolate``'s ``BSpline`` and ``make_interp_spline`` do them.

Why not scipy's: importing ``scipy.interpolate`` imports ``scipy.optimize``, ``scipy.special``
and ``scipy.spatial`` with it, 0.4 s of a 1.3 s ``retime --optimal`` on a 1000-sample path,
which needs none of them (nor do the windows of linear programmes: their sparse rows are
:mod:`~hodyn_cli.algorithms.limits.banded`'s).

Derivatives are those of the spline of the coefficients' scaled differences
(:meth:`BSpline.derivative`: ``p (c_(i+1) - c_i) / (t_(i+p+1) - t_(i+1))``): summing the
basis functions' own derivatives leaves ``1e-16 c / h^nu`` of rounding, h the knots' spacing.
The interpolation's collocation matrix is totally positive, so its banded elimination
needs no pivoting (de Boor, ch. XIII); with end derivatives its rows are ordered so that
every diagonal holds a basis function that does not vanish there (scipy pivots: the same
coefficients to 1e-15, tests/test_reach_kernel.py). The backend's ``banded_solve``
(compiled: a Python loop over 10^5 rows would take a second).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy import reach
from hodyn_cli.algorithms.limits.stored import Stored, Unstorable

__all__ = ["BSpline", "Rows", "windowed", "interpolating", "in_blocks", "blocks_of",
           "coefficients_of"]

#: interpolation points whose basis functions are evaluated at once
BLOCK = 1 << 15
#: :func:`in_blocks` solves this many points at a time, each block with OVERLAP points more
#: on either side whose coefficients are its neighbours': a coefficient's dependence on a
#: block's end conditions decays as ~0.43^j (quintic) or ~0.54^j (degree 7) over j knots
#: (the Euler-Frobenius roots; de Boor, ch. XII): beyond rounding after OVERLAP
SOLVE_BLOCK = 1 << 15
OVERLAP = 128


@dataclass(frozen=True, eq=False, repr=False)
class BSpline:
    """``sum_j c_j B_(j,k)(x)`` on the knots ``t`` (len(c) + k + 1 of them, non-decreasing);
    ``c`` (n, ...) may carry trailing axes (a curve). ``extrapolate``: outside ``t_k ..
    t_n`` the end pieces' polynomials, else NaN."""

    t: np.ndarray
    c: np.ndarray
    k: int
    extrapolate: bool = True

    def __call__(self, x: ArrayLike, nu: int = 0) -> np.ndarray:
        """The spline's nu-th derivative at x (x's shape, then c's trailing axes)."""
        if nu:
            return self.derivative(nu)(x)
        x = np.asarray(x, dtype=float)
        c = self.c.reshape(len(self.c), -1)
        out = backends.current().bspline(self.t, self.k, c, x.ravel(), self.extrapolate)
        return out.reshape(x.shape + self.c.shape[1:])

    def jet(self, x: np.ndarray, count: int) -> np.ndarray:
        """(E, count, ...) the spline and its first ``count - 1`` derivatives at x (E,):
        each ``self(x, nu)`` to the bit (its :meth:`derivative`'s coefficients, made one
        from the next as :meth:`derivative` makes them), evaluated together, the interval
        of each point found and its basis functions made once for all of them (the
        kernel's: a derivative's basis functions are the spline's Cox-de Boor triangle a few
        steps short; at a time, the rounds' four evaluations of the law at every grid point
        were four searches and triangles)."""
        x = np.asarray(x, dtype=float)
        if count < 1 or count > self.k + 1:
            return np.stack([self(x, nu) for nu in range(count)], axis=1)
        t, k = self.t, self.k
        n, r = len(self.c), int(np.prod(self.c.shape[1:], dtype=np.int64))
        c = np.empty((count, n, r))
        c[0] = self.c.reshape(n, r)
        for nu in range(1, count):  # (rows past a derivative's own: never read, set)
            c[nu, n - nu :] = 0.0
        for nu in range(1, count):  # (derivative's steps, in place: no copy of each held)
            m = n - nu + 1
            span = (t[k + 1 : m + k] - t[1:m])[:, None]
            d = c[nu, : m - 1]
            np.subtract(c[nu - 1, 1:m], c[nu - 1, : m - 1], out=d)
            d *= k
            with np.errstate(invalid="ignore", divide="ignore"):
                d /= span
            d[~(span > 0)[:, 0]] = 0.0
            t, k = t[1:-1], k - 1
        out = backends.current().bspline_jet(self.t, self.k, c, x.ravel(), self.extrapolate)
        return out.reshape((len(x), count) + self.c.shape[1:])

    def window(self, lo: float, hi: float) -> BSpline:
        """The same spline for ``lo <= x <= hi`` (the same pieces: their knots and
        coefficients, to the bit) from the coefficients of the pieces there alone: its
        :meth:`derivative` costs and holds a window's, not the whole spline's.

        >>> s = interpolating(np.arange(12.0), np.arange(12.0) ** 3, 5)
        >>> w, x = s.window(3.0, 5.5), np.array([3.0, 4.2, 5.5])
        >>> len(w.c), bool(np.array_equal(w(x, 2), s(x, 2)))
        (8, True)
        """
        return windowed(self.t, self.c, self.k, lo, hi, self.extrapolate)

    def derivative(self, nu: int = 1) -> BSpline:
        """The nu-th derivative, a spline of degree k - nu on the inner knots."""
        t, c, k = self.t, self.c, self.k
        for _ in range(nu):
            span = (t[k + 1 : len(c) + k] - t[1 : len(c)])
            span = span.reshape((-1,) + (1,) * (c.ndim - 1))
            with np.errstate(invalid="ignore", divide="ignore"):
                c = np.where(span > 0, k * np.diff(c, axis=0) / span, 0.0)
            t, k = t[1:-1], k - 1
        return BSpline(t, c, k, self.extrapolate)


class Rows(Protocol):
    """Coefficients read by rows: an array, or one kept elsewhere
    (:class:`~hodyn_cli.algorithms.limits.stored.Stored`)."""

    def __getitem__(self, rows: slice, /) -> np.ndarray: ...


class Sized(Rows, Protocol):
    """Rows read by slices, and how many there are (what :func:`blocks_of` fits)."""

    def __len__(self) -> int: ...


def windowed(t: np.ndarray, c: Rows, k: int, lo: float, hi: float, extrapolate: bool = True
             ) -> BSpline:
    """The spline of knots t, coefficients c and degree k for ``lo <= x <= hi``
    (:meth:`BSpline.window`), its coefficients read there alone."""
    a, b = reach.interval(t, k, np.array([lo, hi]))
    return BSpline(t[a - k : b + k + 2], c[a - k : b + 1], k, extrapolate)


def interpolating(x: np.ndarray, y: np.ndarray, k: int,
                  ends: tuple[list[tuple[int, float]], list[tuple[int, float]]] | None = None
                  ) -> BSpline:
    """The spline of odd degree k through (x_i, y_i) (x increasing, y (m, ...)), its knots
    the not-a-knot ones (the ends k + 1 times, the inner x but the (k - 1) / 2 nearest each
    end: scipy's ``make_interp_spline(x, y, k)``), or with ``ends``: (at x_0, at x_m-1) the
    derivatives ``(nu, value)`` it takes there, k - 1 in all, every inner x a knot (scipy's
    ``bc_type=ends``)."""
    assert k % 2 == 1 and len(x) > k
    n = len(x)
    left: list[tuple[int, float]] = []
    right: list[tuple[int, float]] = []
    if ends is None:
        m = (k - 1) // 2
        inner = x[m + 1 : n - m - 1]
    else:
        inner, (left, right) = x[1:-1], ends
        assert len(left) + len(right) == k - 1
    t = np.concatenate([np.full(k + 1, x[0]), inner, np.full(k + 1, x[-1])])
    size = len(t) - k - 1
    rhs = np.zeros((size,) + np.shape(y)[1:])
    left, right = sorted(left), sorted(right, reverse=True)
    band, rows = _collocation(x, t, k, tuple(nu for nu, _ in left),
                              tuple(nu for nu, _ in right))
    rhs[rows] = y
    for j, (_, value) in enumerate(left):  # (the conditions' rows: _collocation's)
        rhs[1 + j] = value
    for j, (_, value) in enumerate(right):
        rhs[len(left) + n - 1 + j] = value
    flat = rhs.reshape(size, -1)
    backends.current().banded_solve(band, k, flat)  # rhs: the coefficients
    return BSpline(t, flat.reshape(rhs.shape), k)


#: :func:`_collocation`'s last matrices (its arguments' digest -> band), at most
#: COLLOCATIONS of them: the played law's spline is solved on one grid over and over
#: (``reachability.law_spline``: 35 times a ``retime --optimal`` of the UR10's Fourier path
#: with --jerk 200, the same basis at the same points each time, ~60 % of each solve), a
#: long one a block of SOLVE_BLOCK points at a time (:func:`in_blocks`: 10 blocks on the
#: 3 x 10^5 points of a 10^5-sample path, 17 times in its rounds; with 4 kept, each block's
#: was made afresh every time, 192 times, 4.8 of 129 s of its profile: benchmarks/README.md,
#: long7). A band of LARGE bytes or more (a block's: 2.9 MB) is kept on disk
#: (:class:`~hodyn_cli.algorithms.limits.stored.Stored`, read back as a copy: the memory a
#: band's while it is solved, not the whole grid's), smaller ones in memory
COLLOCATIONS = 64
LARGE = 1 << 20
_COLLOCATED: dict[bytes, np.ndarray | Stored] = {}


def _collocation(x: np.ndarray, t: np.ndarray, k: int, left: tuple[int, ...],
                 right: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(band, rows): :func:`interpolating`'s banded matrix through the points x on the knots
    t (a copy: the solve overwrites it) and the row of each point; ``left``, ``right``: the
    orders of the end conditions at x_0 (rising) and x_m-1 (falling). Banded rows: row r
    holds A[r, r - k .. r + k] at columns 0 .. 2k. In order: x_0, the conditions there by
    rising nu, the inner points, those at x_m-1 by falling nu, x_m-1: each row's last
    (first) basis function that does not vanish on its diagonal, so that the elimination
    needs no pivoting."""
    # (a digest, not the bytes: a block's points and knots are 0.5 MB)
    key = hashlib.blake2b(b"".join([np.array([k, len(left), len(right), *left, *right]
                                             ).tobytes(), x.tobytes(), t.tobytes()]),
                          digest_size=32).digest()
    n, size = len(x), len(t) - k - 1
    rows = np.concatenate([[0], len(left) + np.arange(1, n - 1), [size - 1]])
    found = _COLLOCATED.get(key)  # (threads share it: get and pop, no check then read)
    if found is not None:
        return (found[:] if isinstance(found, Stored) else found.copy()), rows
    band = np.zeros((size, 2 * k + 1))
    for a in range(0, n, BLOCK):  # (memory: a block's basis functions and their columns)
        i, B = reach.basis(t, k, x[a : a + BLOCK])
        block = rows[a : a + BLOCK]
        band[block[:, None], (i - k - block)[:, None] + k + np.arange(k + 1)] = B
    conditions = [(1 + j, x[0], nu, np.arange(k + 1)) for j, nu in enumerate(left)] + [
        (len(left) + n - 1 + j, x[-1], nu, size - k - 1 + np.arange(k + 1))
        for j, nu in enumerate(right)]
    for r, at, nu, cols in conditions:
        # (the k + 1 basis functions on the end's interval, from their own knots alone: a
        # unit matrix over every coefficient was 14 MB and its derivatives' differences as
        # much again on a 300 000-point law)
        local = BSpline(t[cols[0] : cols[-1] + k + 2], np.eye(len(cols)), k)
        band[r, cols - r + k] = local(np.array([at]), nu)[0]
    try:  # (where no file can be made, not kept: the spline as before, made afresh)
        kept = band.copy() if band.nbytes < LARGE else Stored.of(band, disk=True)
    except Unstorable:
        return band, rows
    if len(_COLLOCATED) >= COLLOCATIONS:
        _COLLOCATED.pop(next(iter(_COLLOCATED), b""), None)
    _COLLOCATED[key] = kept
    return band, rows


def in_blocks(x: Sized, y: np.ndarray, k: int,
              ends: tuple[list[tuple[int, float]], list[tuple[int, float]]] | None = None,
              inner: Callable[[int, int], tuple[list[tuple[int, float]],
                                                list[tuple[int, float]]]] | None = None
              ) -> BSpline:
    """:func:`interpolating`'s spline (its knots, ``ends`` at the ends) solved
    :data:`SOLVE_BLOCK` points at a time (:func:`blocks_of`; memory: a block's banded
    system, not the whole one's). The same as the whole system's solution to rounding
    (equal to the bit where measured)."""
    knots, pieces = blocks_of(x, y, k, ends, inner)
    return BSpline(knots, np.concatenate(list(pieces)), k)


def blocks_of(x: Sized, y: Sized, k: int,
              ends: tuple[list[tuple[int, float]], list[tuple[int, float]]] | None = None,
              inner: Callable[[int, int], tuple[list[tuple[int, float]],
                                                list[tuple[int, float]]]] | None = None
              ) -> tuple[np.ndarray, Iterator[np.ndarray]]:
    """(knots, coefficients a block at a time, in order) of :func:`interpolating`'s spline
    through x and y (arrays, or rows kept elsewhere and read a block at a time: memory a
    block's), each block of :data:`SOLVE_BLOCK` points widened by :data:`OVERLAP` either
    side: the conditions at a block's inner ends ``inner(lo, hi)`` (points lo .. hi-1), or
    not-a-knot where ``ends`` is None; each coefficient from the block it lies in the middle
    of (coefficient j's basis function is the block's j - lo: their knots are the same away
    from the block's ends); ``len(x) + k - 1`` coefficients with ``ends``, ``len(x)``
    without."""
    n = len(x)
    first, last = float(x[0:1][0]), float(x[n - 1 : n][0])
    m = 0 if ends is not None else (k - 1) // 2
    knots = np.concatenate([np.full(k + 1, first), x[m + 1 : n - m - 1], np.full(k + 1, last)])
    return knots, coefficients_of(x, y, k, ends, inner)


def coefficients_of(x: Sized, y: Sized, k: int,
                    ends: tuple[list[tuple[int, float]], list[tuple[int, float]]] | None = None,
                    inner: Callable[[int, int], tuple[list[tuple[int, float]],
                                                      list[tuple[int, float]]]] | None = None
                    ) -> Iterator[np.ndarray]:
    """:func:`blocks_of`'s coefficients alone, a block at a time (its knots, as long as x,
    not made: where the caller has them otherwise)."""
    n = len(x)
    if n <= SOLVE_BLOCK + 2 * OVERLAP:
        return iter([interpolating(x[0:n], y[0:n], k, ends).c])
    assert ends is None or inner is not None
    return _blocks(x, y, k, ends, inner)


def _blocks(x: Sized, y: Sized, k: int,
            ends: tuple[list[tuple[int, float]], list[tuple[int, float]]] | None,
            inner: Callable[[int, int], tuple[list[tuple[int, float]],
                                              list[tuple[int, float]]]] | None
            ) -> Iterator[np.ndarray]:
    n = len(x)
    extra = 0 if ends is None else k - 1  # (coefficients beyond one a point)
    owned = 0
    for a in range(0, n, SOLVE_BLOCK):
        lo, hi = max(0, a - OVERLAP), min(n, a + SOLVE_BLOCK + OVERLAP)
        if n - hi < OVERLAP:  # (the last block reaches the end)
            hi = n
        cut = None if ends is None or inner is None else inner(lo, hi)
        local = interpolating(x[lo:hi], y[lo:hi], k, None if ends is None or cut is None else (
            ends[0] if lo == 0 else cut[0], ends[1] if hi == n else cut[1]))
        stop = n + extra if hi == n else a + SOLVE_BLOCK + extra // 2
        yield local.c[owned - lo : stop - lo]
        owned = stop
        if hi == n:
            break
