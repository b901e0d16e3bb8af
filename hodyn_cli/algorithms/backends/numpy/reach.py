"""The sequential passes of reachability along a path and a banded solve, in numpy: the
reference of the compiled ``csrc/reach.c`` (the same operations in the same order). Each
step needs the one before: a Python loop over the grid (~10 us a step)."""
from __future__ import annotations

import numpy as np


def backward(p: np.ndarray, w_hi: np.ndarray, w_lo: np.ndarray, upper: np.ndarray,
             lower: np.ndarray, lo_s: np.ndarray, hi_s: np.ndarray, K: np.ndarray) -> None:
    """K (M, 2) from K[M-1] back: at each i the bounds ``p + w_hi hi + w_lo lo`` (M-1, m) on
    x from K[i+1] = (lo, hi) (a term of weight 0 left out: hi may be infinite), upper ones
    where ``upper``, lower ones where ``lower``, within (lo_s, hi_s); it stops where K[i+1]
    is empty."""
    for i in range(len(K) - 2, -1, -1):
        lo, hi = K[i + 1]
        if not lo <= hi:
            return
        bound = p[i] + np.where(w_hi[i] != 0, w_hi[i] * hi, 0.0) + np.where(
            w_lo[i] != 0, w_lo[i] * lo, 0.0)
        # (fmin, fmax: a NaN bound left out, as the kernel's comparisons leave it)
        top = np.fmin.reduce(bound[upper[i]], initial=np.inf)
        bottom = np.fmax.reduce(bound[lower[i]], initial=-np.inf)
        K[i] = lo_s[i] if lo_s[i] > bottom else bottom, top if top < hi_s[i] else hi_s[i]


def controllable(alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray, delta: np.ndarray,
                 tiny: float, lo_s: np.ndarray, hi_s: np.ndarray, K: np.ndarray) -> None:
    """K (M, 2) from K[M-1] back (:func:`backward`) from the rows ``alpha u + beta x <=
    gamma`` (M, m) themselves: the pairs with the rows of K_{i+1}, ``x + 2 d u <= hi``
    (alpha 2d > 0) with rows of alpha < -tiny and ``-x - 2 d u <= -lo`` with rows of alpha >
    tiny, bounds ``(p + w end) / e`` on x (``delta`` (M-1,): the grid's steps)."""
    d2 = 2 * delta[:, None]
    A, B, G = alpha[:-1], beta[:-1], gamma[:-1]
    with_hi = A < -tiny
    with_lo = A > tiny
    either = with_hi | with_lo
    # (made in place, the same numbers: a piece's arrays are (BLOCK, rows), 7 MB each for
    # the Panda's 28 rows; with a new array at each step, as before, ~20 % more CPU here)
    e = d2 * B
    e -= A
    np.copyto(e, 0.0, where=~either)
    p = d2 * G
    w_hi, w_lo = np.zeros_like(A), np.zeros_like(A)
    np.negative(A, out=w_hi, where=with_hi)  # times hi
    np.negative(A, out=w_lo, where=with_lo)  # times lo
    with np.errstate(divide="ignore", invalid="ignore"):
        p /= e
        w_hi /= e
        w_lo /= e
    upper, lower = e > 0, e < 0
    upper &= either
    lower &= either
    with np.errstate(invalid="ignore"):  # (a weight 0 times an infinite end: left out)
        backward(p, w_hi, w_lo, upper, lower, lo_s, hi_s, K)


def forward(alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray, up: np.ndarray,
            down: np.ndarray, delta: np.ndarray, K: np.ndarray, x: np.ndarray, u: np.ndarray
            ) -> None:
    """x (M,) from x[0], u (M-1,): the largest u within the rows ``alpha u + beta x <=
    gamma`` (alpha > 0 where ``up``, < 0 where ``down``) that keeps ``x + 2 delta u`` in
    K[i+1] (the least within them where none is), x[i+1] clipped to K[i+1] and >= 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(len(x) - 1):
            xi, d2 = x[i], 2 * delta[i]
            bound = (gamma[i] - beta[i] * xi) / alpha[i]
            most = min((K[i + 1, 1] - xi) / d2, np.fmin.reduce(bound[up[i]], initial=np.inf))
            least = max((K[i + 1, 0] - xi) / d2, np.fmax.reduce(bound[down[i]],
                                                                initial=-np.inf))
            u[i] = least if most < least else most
            x[i + 1] = min(max(xi + d2 * u[i], K[i + 1, 0], 0.0), K[i + 1, 1])


def bounds(alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray, up: np.ndarray,
           down: np.ndarray, lo: np.ndarray, hi: np.ndarray, pairs: int) -> None:
    """lo and hi (M,) at each point bounded, in place, by each pair of a row i (alpha > 0,
    ``up``) and a row j (alpha < 0, ``down``) of the rows ``alpha u + beta x <= gamma`` (M,
    m): x <= or >= (-alpha_j gamma_i + alpha_i gamma_j) / (-alpha_j beta_i + alpha_i beta_j)
    by that denominator's sign (u eliminated; 0 or NaN: no bound; a NaN bound makes the
    point's NaN). The pairs a block of ``pairs // m^2`` points at a time (a block in the
    cache), among the rows of either sign somewhere in the block alone (the others pair
    nowhere in it); each bound made in place and reduced where a pair bounds (a min or a max:
    in any order the same)."""
    step = max(1, pairs // max(1, alpha.shape[1]) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(0, len(hi), step):
            block = slice(a, a + step)
            i, j = (np.flatnonzero(side[block].any(axis=0)) for side in (up, down))
            if not (i.size and j.size):
                continue
            A, B, G = alpha[block], beta[block], gamma[block]
            ai, bi, gi = A[:, i, None], B[:, i, None], G[:, i, None]
            aj, bj, gj = -A[:, None, j], B[:, None, j], G[:, None, j]
            e = aj * bi
            e += ai * bj
            bound = aj * gi
            bound += ai * gj
            np.divide(bound, e, out=bound)
            pair = up[block][:, i, None] & down[block][:, None, j]
            upper, lower = e > 0, e < 0
            upper &= pair
            lower &= pair
            hi[block] = np.minimum(hi[block], np.minimum.reduce(
                bound, axis=(1, 2), where=upper, initial=np.inf))
            lo[block] = np.maximum(lo[block], np.maximum.reduce(
                bound, axis=(1, 2), where=lower, initial=-np.inf))


def banded_solve(band: np.ndarray, k: int, rhs: np.ndarray) -> None:
    """Solve in place: ``band`` (n, 2k+1), row i holding A[i, i-k .. i+k] (eliminated),
    ``rhs`` (n, r) becomes the solution; no pivoting (for totally positive A)."""
    n = len(band)
    below = np.arange(1, k + 1)
    cols = (k - below)[:, None] + np.arange(k + 1)
    for i in range(n - 1):
        rows = i + below[: n - 1 - i]
        factor = band[rows, k - below[: len(rows)]] / band[i, k]
        band[rows[:, None], cols[: len(rows)]] -= factor[:, None] * band[i, k:]
        rhs[rows] -= factor[:, None] * rhs[i]
    for i in range(n - 1, -1, -1):
        s = np.zeros(rhs.shape[1:])  # (summed in the kernel's order: not BLAS's dot)
        for j in range(1, min(k, n - 1 - i) + 1):
            s = s + band[i, k + j] * rhs[i + j]
        rhs[i] = (rhs[i] - s) / band[i, k]


def bspline(t: np.ndarray, k: int, c: np.ndarray, x: np.ndarray, extrapolate: bool
            ) -> np.ndarray:
    """(E, r) ``sum_j c_j B_(j,k)(x)`` (c (n, r)) on the knots t: the k + 1 basis functions
    that do not vanish at each x (:func:`basis`) times their coefficients; NaN outside ``t_k
    .. t_n`` where not ``extrapolate``."""
    i, B = basis(t, k, x)
    out = np.zeros((len(x), c.shape[1]))
    for j in range(k + 1):  # (summed in the kernel's order: not einsum's)
        out = out + B[:, j, None] * c[i - k + j]
    if not extrapolate:
        out[~((x >= t[k]) & (x <= t[len(c)]))] = np.nan
    return out


def bspline_jet(t: np.ndarray, k: int, c: np.ndarray, x: np.ndarray, extrapolate: bool
                ) -> np.ndarray:
    """(E, R, r) a spline and its first R - 1 derivatives at x: ``c`` (R, n, r), the nu-th
    derivative's spline's n - nu coefficients in ``c[nu]`` (degree k - nu on the knots
    ``t[nu:len(t) - nu]``), each evaluated by :func:`bspline`."""
    R, n = c.shape[:2]
    return np.stack([bspline(t[nu:len(t) - nu], k - nu, c[nu, : n - nu], x, extrapolate)
                     for nu in range(R)], axis=1)


def interval(t: np.ndarray, k: int, x: np.ndarray) -> np.ndarray:
    """i with ``t_i <= x < t_(i+1)``, within ``k .. n - 1`` (n = len(t) - k - 1: the right
    end and beyond in the last piece, the left beyond in the first)."""
    n = len(t) - k - 1
    return np.clip(np.searchsorted(t, x, side="right") - 1, k, n - 1)


def basis(t: np.ndarray, k: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(i, B): the interval of each x (:func:`interval`) and the k + 1 basis functions
    ``B_(i-k+j,k)(x)``, j = 0..k, that do not vanish there (Cox-de Boor)."""
    i = interval(t, k, x)
    B = np.zeros((len(x), k + 1))
    B[:, 0] = 1.0
    for r in range(1, k + 1):
        saved = np.zeros(len(x))
        for j in range(r):
            left = t[i + j + 1] - x
            right = x - t[i + j + 1 - r]
            term = B[:, j] / (left + right)
            B[:, j] = saved + left * term
            saved = right * term
        B[:, r] = saved
    return i, B
