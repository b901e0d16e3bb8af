"""Derivatives along a retimed path, exact: the path q(s) between its samples, the time law's
derivatives from the squared path speed x(s) = sdot^2, and the chain rule from both to the
time derivatives of q(s(t)).

A motion played along its own path with a new time law s(t) has, by the chain rule (Faà di
Bruno), ``q^(k)(t) = sum_m q^[m](s) B_(k,m)(sdot, sddot, ...)`` (``q^[m]``: the m-th
derivative by s). Here every such composition is done on truncated Taylor series: a function's
coefficients ``c_j = f^(j) / j!`` about the point, so that products are convolutions and
composing series is a sum of powers (the Bell polynomials without writing them out).

With ``x(s) = sdot^2`` and ``d/dt = sqrt(x) d/ds``: ``sdot = sqrt(x)``, ``sddot = x'/2``,
``s''' = sqrt(x) x''/2``, ``s'''' = (x x''' + x' x''/2)/2``, ...: :func:`time_rates`.

>>> import numpy as np
>>> x = np.array([[4.0, 2.0, 6.0, 0.0]])      # x, x', x'', x''' at one point
>>> time_rates(x).round(12).tolist()           # sdot, sddot, s''', s''''
[[2.0, 1.0, 6.0, 3.0]]
>>> q = np.array([[[1.0], [3.0], [0.0], [0.0], [0.0]]])   # q(s) = 1 + 3 s (a line)
>>> compose(q, time_rates(x))[0, :, 0].tolist()            # q(t), qd = 3 sdot, ...
[1.0, 6.0, 3.0, 18.0, 9.0]
"""

from __future__ import annotations

from math import comb, factorial

import numpy as np

__all__ = ["hermite", "hermite_at", "time_rates", "compose", "product", "square_root"]


def product(a: np.ndarray, b: np.ndarray, order: int) -> np.ndarray:
    """Taylor coefficients of a b to ``order`` (axis 1 of each; trailing axes broadcast)."""
    shape = np.broadcast_shapes(a[:, :1].shape, b[:, :1].shape)
    out = np.zeros(shape[:1] + (order + 1,) + shape[2:], dtype=np.result_type(a, b))
    for j in range(order + 1):
        for i in range(max(0, j - b.shape[1] + 1), min(j, a.shape[1] - 1) + 1):
            out[:, j] += a[:, i] * b[:, j - i]
    return out


def time_rates(x: np.ndarray) -> np.ndarray:
    """(E, K) ``sdot, sddot, ..., s^(K)`` from (E, K) ``x, x', ..., x^(K-1)`` (derivatives by s
    of ``x = sdot^2``, x > 0): ``s^(k+1) = (f d/ds)^k f`` with ``f = sqrt(x)``, on series in s."""
    E, K = x.shape
    F = square_root(x / np.array([factorial(j) for j in range(K)]))
    out = np.empty_like(F)
    g = F  # the series of s^(k) as a function of s
    for k in range(K):
        out[:, k] = g[:, 0]
        if k + 1 < K:  # s^(k+2) = f d/ds s^(k+1)
            dg = g[:, 1:] * np.arange(1, g.shape[1])
            g = product(F, dg, K - k - 2)
    return out


def square_root(X: np.ndarray) -> np.ndarray:
    """Taylor coefficients (E, K) of ``sqrt(f)`` from f's (E, K), ``f_0 > 0``: ``F_0^2 = X_0``,
    ``2 F_0 F_j + sum_(0<l<j) F_l F_(j-l) = X_j``.

    >>> square_root(np.array([[1.0, 2.0, 1.0]])).tolist()   # sqrt((1 + s)^2)
    [[1.0, 1.0, 0.0]]
    """
    F = np.zeros_like(X)
    F[:, 0] = np.sqrt(X[:, 0])
    for j in range(1, X.shape[1]):
        F[:, j] = (X[:, j] - (F[:, 1:j] * F[:, j - 1:0:-1]).sum(axis=1)) / (2 * F[:, 0])
    return F


def compose(path: np.ndarray, rates: np.ndarray, out: np.ndarray | None = None
            ) -> np.ndarray:
    """Time derivatives (E, K+1, ...) of q(s(t)) from its s-derivatives ``path`` (E, K+1, ...)
    (``q, q', ..., q^[K]``) and the time law's (E, K) ``sdot, ..., s^(K)``: the series of q
    about s composed with ``s(t + tau) - s(t)`` (Faà di Bruno). ``out``: a C-contiguous
    array of that shape to write them to (the path's probes side by side in one block,
    programme.path_limits), or None."""
    K = path.shape[1] - 1
    if len(rates) > 1 and rates.strides[0] == 0:  # (one law for every point, broadcast: the
        # path's probes, programme.path_limits: its matrix made once, the same numbers)
        rates = rates[:1]
    delta = np.zeros((len(rates), K + 1), dtype=np.result_type(rates, float))
    delta[:, 1:] = rates[:, :K] / np.array([factorial(k) for k in range(1, K + 1)])
    power = np.zeros_like(delta)
    power[:, 0] = 1.0
    # q^(k) = k! sum_m q^[m] / m! [tau^k] delta^m: a (K+1, K+1) matrix per point, applied to
    # its orders by one batched product (a sum of broadcast products over the joints took
    # 7 of 39 s of a 10^5-sample --optimal, most of it in page faults of its temporaries);
    # made a row m at a time, then turned (the same numbers: each written as a column of
    # the matrix, strided, was a third of this function's time)
    factorials = np.array([factorial(j) for j in range(K + 1)], float)
    chain = np.empty((len(rates), K + 1, K + 1), dtype=delta.dtype)  # [point, m, k]
    for m in range(K + 1):
        if m:
            power = _raised(power, delta, m)
        np.multiply(power, factorials / factorial(m), out=chain[:, m])
    chain = np.ascontiguousarray(chain.transpose(0, 2, 1))  # [point, k, m]
    # (the joints' axes flattened by their own size: -1 is ambiguous where there are no points)
    columns = int(np.prod(path.shape[2:], dtype=np.int64))
    into = None if out is None else out.reshape(len(path), K + 1, columns)  # (a view)
    return np.matmul(chain, path.reshape(len(path), K + 1, columns), out=into
                     ).reshape(path.shape)


def _raised(power: np.ndarray, delta: np.ndarray, m: int) -> np.ndarray:
    """``product(power, delta, K)`` (K + 1 the columns of both) where ``power`` is
    ``delta^(m-1)`` and ``delta``'s first coefficient is 0, so that ``power``'s first m - 1
    are: the same numbers to the bit (each sum of the same products in the same order from
    0, less the products of those zeros, each of which added a zero), half the products."""
    K = delta.shape[1] - 1
    out = np.zeros_like(power)
    for j in range(m, K + 1):
        for i in range(max(m - 1, j - K), j):
            out[:, j] += power[:, i] * delta[:, j - i]
    return out


def _taylor(left: np.ndarray, dt: np.ndarray, rows: np.ndarray | None = None,
            powers: np.ndarray | None = None) -> np.ndarray:
    """Derivatives (E, D, ...) at s0 + dt of the Taylor polynomial of ``left`` (E, D, ...);
    ``rows``: those orders only, (E, len(rows), ...); ``powers``: ``_powers(dt, D)`` where
    the caller has them (made once for several orders: the same numbers)."""
    D = left.shape[1]
    k = np.arange(D)
    r = k if rows is None else rows
    power = np.clip(k[None] - r[:, None], 0, None)  # [r, k]: k - r
    weight = np.where(k[None] >= r[:, None], 1.0 / np.array([factorial(p) for p in range(D)])[
        power], 0.0)
    if powers is None:
        powers = _powers(dt.reshape(-1), D)
    T = weight * powers[:, power]  # (E, r, k): dt^(k-r) / (k-r)!
    # (a batched product: einsum's "erk,ek...->er..." took a third of the Hermite path)
    flat = left.reshape(len(left), D, -1)
    return (T @ flat).reshape((len(left), len(r)) + left.shape[2:])


def _powers(x: np.ndarray, count: int) -> np.ndarray:
    """(E, count) ``x^0 .. x^(count-1)`` by running products (a power with an array of
    exponents is a pow call per element: most of the Hermite path's time), each power a
    row of its own, then turned (the products as ``np.cumprod``'s along the short axis, the
    same numbers, ~4 times cheaper)."""
    out = np.empty((count, len(x)))
    out[:1] = 1.0
    if count > 1:
        out[1] = x
    for j in range(2, count):
        np.multiply(out[j - 1], x, out=out[j])
    return np.ascontiguousarray(out.T)


def hermite_at(left: np.ndarray, right: np.ndarray, h: np.ndarray, nodes: np.ndarray,
               order: int) -> np.ndarray:
    """(E, G, m) the ``order``-th derivative (1 <= order < D) of :func:`hermite`'s polynomial
    between each pair ``left``, ``right`` (E, D, m) at ``s0 + nodes h`` (the same ``nodes``
    (G,) on every interval): its Bernstein control points made once an interval, not once a
    point (the arc length's quadrature takes q' at 10 points an interval: the Hermite path
    point by point was 0.4 of its time). The same polynomial as :func:`hermite`'s, to
    rounding."""
    D = left.shape[1]
    n, m = 2 * D - 1, 2 * D - 1 - order
    hk = h[:, None] ** np.arange(D)
    scale = np.array([factorial(n - k) / factorial(n) for k in range(D)])[None, :, None]
    bwd = (right - _taylor(left, h)) * hk[:, :, None] * scale
    b = np.zeros((len(left), n + 1, left.shape[2]))
    signs = np.array([[comb(j, k) * (-1) ** k for k in range(D)] for j in range(D - 1, -1, -1)],
                     float)  # (its rows from j = D - 1 down: b's order, as in hermite)
    b[:, n - D + 1:] = signs @ bwd
    for _ in range(order):
        b = b[:, 1:] - b[:, :-1]
    basis = np.array([comb(m, k) for k in range(m + 1)]) * _powers(nodes, m + 1) \
        * _powers(1 - nodes, m + 1)[:, ::-1]
    taylor = _powers(nodes, D - order) / np.array([factorial(j) for j in range(D - order)])
    rows = left[:, order:] * hk[:, : D - order, None]
    return taylor @ rows + factorial(n) / factorial(m) * (basis @ b) / hk[:, order, None, None]


def hermite(left: np.ndarray, right: np.ndarray, h: np.ndarray, u: np.ndarray,
            order: int | None = None, orders: tuple[int, ...] | None = None,
            at: np.ndarray | None = None) -> np.ndarray:
    """Derivatives (E, D, ...) at ``s0 + u h`` (0 <= u <= 1) of the polynomial of degree 2D - 1
    that has the derivatives ``left`` (E, D, ...) at s0 and ``right`` at s0 + h: the path
    between two samples, matching every derivative they give (so q(s) is C^(D-1)); ``order``:
    that derivative only, (E, ...), up to 2D - 1 (those from D on jump at the samples: they
    are the interpolant's own, not the path's); ``orders``: those (distinct), (E, len(orders),
    ...), each the same to the bit as asked for alone (its Taylor part is its own product:
    a product of all rows rounds differently), the Bernstein part's control points made once.

    It is the Taylor polynomial at s0 plus the part that vanishes to order D at s0 and takes
    up what the Taylor polynomial misses at s0 + h (so no digit of q is lost to the small
    differences that carry the high derivatives); that part in Bernstein form, which stays
    well conditioned for many derivatives: with ``n = 2D - 1`` its k-th derivative at 1 is
    ``n!/(n-k)! nabla^k b_n`` (backward differences of its control points; the first D are
    zero). ``at`` (E,): ``u``'s interval, a row of ``left``, ``right`` and ``h`` (each
    interval's control points made once for all its points: the local slowing's 16
    samplings put ~5 points in each grid interval), the same numbers to the bit as
    ``hermite(left[at], right[at], h[at], u)`` (every step is per row)."""
    D = left.shape[1]
    n = 2 * D - 1
    wanted = (order,) if order is not None else orders
    top = D if wanted is None else max(D, max(wanted) + 1)
    extra = (1,) * (left.ndim - 2)
    hk = h.reshape((-1, 1) + extra) ** np.arange(top).reshape((1, top) + extra)
    scale = np.array([factorial(n - k) / factorial(n) for k in range(D)]).reshape((1, D) + extra)
    bwd = right - _taylor(left, h)  # nabla^k b_n of the rest (in place: the same numbers)
    bwd *= hk[:, :D]
    bwd *= scale
    b = np.zeros((left.shape[0], n + 1) + left.shape[2:])
    # b_(n-j) = sum_k C(j, k) (-1)^k nabla^k b_n: one (D, D) matrix on the orders' axis, its
    # rows from j = D - 1 down (b's order: each row's products the same, no reversed copy)
    signs = np.array([[comb(j, k) * (-1) ** k for k in range(D)] for j in range(D - 1, -1, -1)],
                     float)
    b[:, n - D + 1:] = (signs @ bwd.reshape(len(b), D, -1)).reshape(bwd.shape)
    if at is not None:  # (from here per point: the control points gathered as each is used)
        # (np.take: the same rows as indexing by ``at``, in 1.25 ms against 2.58 for 2.9 x
        # 10^4 points of the Panda's (5, 7) rows, 3.8 against 4.3 ms for its control points)
        left, h, hk = (np.take(a, at, axis=0) for a in (left, h, hk))
    columns = list(range(D)) if wanted is None else list(wanted)  # (out's, in order)
    out = np.zeros((left.shape[0], len(columns)) + left.shape[2:])
    # the Taylor part has degree D - 1 (only the orders asked for, each alone; the powers
    # of u h made once for all of them)
    dt = u * h
    if wanted is None:
        out[:] = _taylor(left, dt, np.arange(D))
    else:
        powers = _powers(dt.reshape(-1), D)
        for j, r in enumerate(columns):
            if r < D:
                out[:, j] = _taylor(left, dt, np.arange(r, r + 1), powers)[:, 0]
    u = u.reshape(-1)
    # (the powers of u and 1 - u to n once: each order's basis takes their first m + 1, the
    # same running products to the bit)
    up, down = _powers(u, n + 1), _powers(1 - u, n + 1)
    last = top - 1 if wanted is None else max(wanted)
    zeros = n - D + 1  # (b's leading control points that are 0: their differences are too)
    for r in range(last + 1):
        if r in columns:
            j, m = columns.index(r), n - r
            basis = np.array([comb(m, k) for k in range(m + 1)]) * up[:, : m + 1] \
                * down[:, m::-1]
            taken = b if at is None else np.take(b, at, axis=0)
            mixed = (basis[:, None, :] @ taken.reshape(len(taken), m + 1, -1)).reshape(
                out[:, j].shape)
            out[:, j] += factorial(n) / factorial(m) * mixed / hk[:, r]
        if r < last:  # (the next order's differences; past the last asked, none; the
            # leading zeros' own differences are zeros: only the band from the last of them)
            nxt = np.zeros_like(b[:, 1:])
            lo = max(zeros - 1, 0)
            np.subtract(b[:, lo + 1:], b[:, lo:-1], out=nxt[:, lo:])
            b, zeros = nxt, lo
    return out if order is None else out[:, 0]
