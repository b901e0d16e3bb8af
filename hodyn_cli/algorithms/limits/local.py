"""The final fit's slowing made local (``hodyn retime --optimal``, reachability's law): where
the played motion, recomputed at the output's samples, is beyond a limit at a few places
(a torque acceleration peak between the law's grid points), the law ``x(sigma)`` is lowered
by a factor field ``g <= 1`` around those places alone, instead of the whole motion being
played slower by the worst one's factor
(:meth:`~hodyn_cli.algorithms.limits.optimal.Optimal._local`).

The law is played at its own speed and sampled :data:`PHASES` times as often as the
output (a peak narrower than the output's step is beyond at one of its samplings and not at
another: the iiwa's 500 s Fourier path had one at t = 296.97 s of its first sampling and
none at the next): each sample's need, the largest speed-up ``y`` at which every limit
holds there (:func:`candidates`, :func:`speedups`), lowers x by ``y^2`` on the grid points
around it. The field
(:func:`fields`): those factors' least over ``PASSES w`` points either side, averaged by
PASSES moving averages over ``w``
(:func:`~hodyn_cli.algorithms.limits.reachability.beneath`): at most the need at every point,
smooth (C^(PASSES-2)), and 1 farther than ``2 PASSES w`` points from any sample that needs
it, ``w`` the grid points in ``seconds / PASSES`` of the played law (a field much wider than
the places, over many of them, cost more than it gained: :data:`~.optimal.SPREAD`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from hodyn_cli.algorithms.limits import bounded
from hodyn_cli.algorithms.limits.distinct import distinct
from hodyn_cli.algorithms.limits.reachability import (
    BLOCK,
    JOINS,
    NEAR,
    PASSES,
    Column,
    Grid,
    Played,
    Warped,
    field,
    first_from,
)
from hodyn_cli.algorithms.limits.scaling import TOLERANCE, Law
from hodyn_cli.algorithms.limits.stored import Stored

#: the bisections of a sample's speed-up (to 2^-30 of its range)
BISECTIONS = 30
#: a sample's need is looked for down to this speed-up (a peak between the output's samples
#: needs more than the slowing its samples set: the iiwa's 500 s Fourier path's torque
#: accelerations wiggle by ~10 % of their limit from grid point to grid point)
SLOWEST = 0.5
#: the law is sampled this many times as often as the output to find where it is beyond (on
#: the iiwa's 500 s Fourier path at 200 Hz, 4: 14 places found, the next sampling beyond at
#: another, the attempt not kept; 8: 23 places, 345.10 s; 16: 45, 343.26 s in one attempt,
#: before :data:`FINER`; since each place's top is looked for between the samplings, 8 as
#: 16 did: the same durations to the bit at 3 x 10^4 samples, 5e-5 shorter at 10^5, and
#: _beyond's CPU 10.2 -> 6.5 s there, benchmarks/README.md, long12)
PHASES = 8
#: the samplings' samples along a chunk of the path are played together, every sampling's
#: in a range of the chunk, about twice this many to a range (their interpolants' and
#: dynamics' memory: optimal._ranges)
ROWS = 4096


#: each sample beyond a limit is looked at again this many times as densely within the
#: samplings' spacing either side (:func:`finer`): its peak's top lies there, and a field
#: that lowers the law by what the samplings saw of it left it beyond where a later
#: sampling hit nearer the top (benchmarks/README.md, long11; 16 with 8 samplings: the
#: finer points as dense as 8 with 16 made them, long12)
FINER = 16


def tops(s: np.ndarray, use: np.ndarray) -> np.ndarray:
    """The samples (path parameters ``s``, their :func:`uses` ``use``; several samplings'
    together, in any order) whose peak may reach beyond a limit: those beyond, and each
    local top of the use along s that lies less above 1 than it rises above the lower of
    the samples either side (a peak narrower than the samplings' spacing tops out between
    them: the iiwa's 150 s Fourier path had a torque acceleration at 0.949 of its limit
    rise to 0.992 and 0.980 at two samples and to 1.022 between them, at 53.138 s). The
    first and last sample are judged by their one neighbour (as if mirrored: the range's
    ends, or the path's, where a use still rising may top out just beyond the sample,
    between it and the next range's first; judged by interior samples alone, such a peak
    was never looked at). Not a sample beyond whose neighbours are beyond too and whose use
    bends by at most :data:`FLAT` of its excess (``|a - 2u + c| <= FLAT (u - 1)``): on such a
    plateau a peak between the samples tops out within ``FLAT / 2`` of the sample's excess
    above it (a parabola through the three), which the sample's own speed-up and the
    final fit take up."""
    order = np.argsort(s, kind="stable")
    return s[order][_judged(use[order])]


def _judged(u: np.ndarray) -> np.ndarray:
    """:func:`tops`' judgement of each of the uses ``u`` (in the order of their s), the
    first and last by their one neighbour."""
    out = u > 1 + TOLERANCE / 10
    if len(u) >= 2:
        a = np.concatenate([u[1:2], u[:-1]])  # (each sample's neighbours, the ends' one
        c = np.concatenate([u[1:], u[-2:-1]])  # neighbour on both sides)
        flat = out & (a > 1 + TOLERANCE / 10) & (c > 1 + TOLERANCE / 10) & (
            np.abs(a - 2 * u + c) <= FLAT * (u - 1))
        top = (u >= a) & (u >= c)
        out |= top & (2 * u - np.minimum(a, c) > 1 + TOLERANCE / 10)
        out &= ~flat
    return out


class Tops:
    """:func:`tops` of a sequence of samples fed range by range (:meth:`add`: each range's
    samples along s after the one before's, several samplings' together in any order),
    each judged by its neighbours in the whole sequence, as :func:`tops` of them all at
    once: a range's last sample once the next range's first is known, the sequence's last
    by its one neighbour at :meth:`end`. Why: the ranges are those of the played motion's
    chunks (:data:`~hodyn_cli.algorithms.limits.reachability.PLAYED` points each), and a
    range's ends judged by their one neighbour made the tops, the local slowing and so the
    output depend on where the chunks end (the Borinot's flying arm along its Fourier path
    at 20 Hz: 1.2e-8 of its duration shorter in blocks of 2048)."""

    def __init__(self) -> None:
        # (the last two samples fed: the one before the last, judged, the last's neighbour;
        # the last, not yet judged)
        self._s, self._u = np.zeros(0), np.zeros(0)

    @property
    def waiting(self) -> float | None:
        """The s of the sample not yet judged (every later top at or beyond it); None
        where none is fed yet."""
        return float(self._s[-1]) if len(self._s) else None

    def add(self, s: np.ndarray, use: np.ndarray) -> np.ndarray:
        """The tops among the samples judged now (sorted): all fed but the last."""
        order = np.argsort(s, kind="stable")
        s = np.concatenate([self._s, s[order]])
        u = np.concatenate([self._u, use[order]])
        first = max(len(self._s) - 1, 0)  # (the first not judged: the sequence's first, as
        self._s, self._u = s[-2:], u[-2:]  # an end, where none came before it)
        if len(u) < 2:
            return np.zeros(0)
        return s[first:-1][_judged(u)[first:-1]]

    def end(self) -> np.ndarray:
        """The last sample where it is a top (judged by its one neighbour)."""
        s, u = self._s, self._u
        self._s, self._u = np.zeros(0), np.zeros(0)
        return s[-1:][_judged(u)[-1:]]


#: a sample beyond a limit on a plateau of samples beyond (:func:`tops`): its use's second
#: difference at most this share of its excess. The Z1's mid curve given at 10 kHz sits on a
#: velocity limit 88 % of its time; the local slowing's second round found 115 421 of its
#: samplings' 275 269 samples beyond by 6e-8 .. 2e-5 on such plateaus and played 16 times as
#: many about each (:func:`finer`): 13.7 s of its 14 s of CPU, now 4.1 s, the same output
#: to the bit; so P500, F500 and 19 of the 21 bench inputs; the Panda's and the iiwa's
#: point-to-point paths 1.8e-7 and 1.7e-4 shorter (benchmarks/README.md, plateau23)
FLAT = 0.1


def finer(s: np.ndarray, spacing: float, lo: float, hi: float) -> np.ndarray:
    """The points :data:`FINER` times as dense as ``spacing`` within ``spacing`` either side
    of each of the points ``s`` (not those themselves), within ``lo .. hi``, sorted, each
    once."""
    steps = np.arange(-FINER + 1, FINER) / FINER
    out = (s[:, None] + spacing * steps[steps != 0]).ravel()
    return distinct(out[(out >= lo) & (out <= hi)])


#: a limited series' law on its limited joints, with its bands' centres and half-widths
Taken = tuple[Law, np.ndarray, np.ndarray]


def _taken(laws: dict[str, Law], limited: list, rows: np.ndarray | slice) -> list[Taken]:
    """Each limited series' law at the samples ``rows`` and on its limited joints, with its
    bands' centres and half-widths (taken once: the bisection evaluates them 30 times)."""
    return [(laws[series].take(rows, cols), (lower + upper) / 2, (upper - lower) / 2)
            for _, series, cols, lower, upper in limited]


def _uses_of(taken: Taken, y: np.ndarray) -> np.ndarray:
    """(joints, samples) each joint's use of its limit (of its band's half-width) at each
    sample of the ``taken`` law played ``y`` (per sample) times faster: a joint a row, as
    :func:`_worst` and :func:`_fit` take them in (numpy's max along the few joints of each
    sample took ~7 times as long: 0.63 of the 1.24 s the bisections took on the Panda's
    10^4-sample Fourier path)."""
    law, centre, half = taken
    return (np.abs(law.at(y) - centre) / half).T


def _worst(taken: list[Taken], y: np.ndarray) -> np.ndarray:
    """The largest use of a limit (of its band's half-width) of each sample of the ``taken``
    laws played ``y`` (per sample) times faster."""
    use = np.zeros(len(y))
    for one in taken:
        for column in _uses_of(one, y):
            np.maximum(use, column, out=use)
    return use


def _fit(taken: list[Taken], y: np.ndarray) -> np.ndarray:
    """Whether each sample of the ``taken`` laws played ``y`` (per sample) times faster is
    within every limit: its :func:`_worst` use at most ``1 + TOLERANCE / 10``, to the bit
    (the same quotients, each compared), each law made only at the samples within the
    laws before it (a bisection's step finds about half of them beyond one: the laws after
    it were made there for nothing)."""
    rows = np.arange(len(y))
    for law, centre, half in taken:
        here = law if len(rows) == len(y) else law.take(rows, slice(None))
        within = np.ones(len(rows), dtype=bool)
        for column in _uses_of((here, centre, half), y[rows]):
            within &= column <= 1 + TOLERANCE / 10  # (NaN: beyond, as its max is)
        rows = rows[within]
    out = np.zeros(len(y), dtype=bool)
    out[rows] = True
    return out


def uses(laws: dict[str, Law], limited: list) -> np.ndarray:
    """The largest use of a limit of each sample of ``laws`` (at their own speed)."""
    n = len(next(iter(laws.values())).coefficients)
    return _worst(_taken(laws, limited, slice(None)), np.ones(n))


def candidates(laws: dict[str, Law], limited: list, use: np.ndarray | None = None
               ) -> tuple[np.ndarray, list[Taken]]:
    """(rows, taken): the samples beyond a limit (beyond ``TOLERANCE / 10``, as
    :class:`~hodyn_cli.algorithms.limits.optimal.Fit` counts them) that fit when played
    :data:`SLOWEST` times as fast (those that do not, as a position beyond its limit: no
    slowing helps), and their limited laws (:func:`speedups` bisects them). ``use``:
    :func:`uses` of the laws, where made before."""
    use = uses(laws, limited) if use is None else use
    rows = np.arange(len(use))
    rows = rows[use > 1 + TOLERANCE / 10]
    taken = _taken(laws, limited, rows)
    fit = _fit(taken, np.full(len(rows), SLOWEST))
    return rows[fit], [(law.take(fit, slice(None)), c, h) for law, c, h in taken]


def joined(parts: list[list[Taken]]) -> list[Taken]:
    """Several :func:`candidates`' laws (of the same limited series) as one: their samples
    one after the other (the bisection is per sample: the same steps, one call)."""
    out = []
    for group in zip(*parts, strict=True):
        law, centre, half = group[0]
        f = [g[0].friction for g in group]
        out.append((Law(law.power, np.concatenate([g[0].coefficients for g in group]),
                        law.joint_names, None if f[0] is None else np.concatenate(f)),
                    centre, half))
    return out


def speedups(taken: list[Taken]) -> np.ndarray:
    """Per sample of the ``taken`` laws (:func:`candidates`'), the largest speed-up
    ``SLOWEST <= y < 1`` at which it fits (bisected, :data:`BISECTIONS` steps; the laws made
    at the pairs that may reach their limits alone, :mod:`~.bounded`)."""
    size = len(taken[0][0].coefficients) if taken else 0
    lo, hi = np.full(size, SLOWEST), np.ones(size)
    pairs = bounded.near(taken)
    for _ in range(BISECTIONS if size else 0):
        mid = (lo + hi) / 2
        fits = bounded.fit(pairs, mid)
        lo, hi = np.where(fits, mid, lo), np.where(fits, hi, mid)
    return lo


def grid_times(motion: Played) -> list[Stored]:
    """Per arc of the played motion, the times of its grid points (its law's sigma), as its
    chunks carry them (warped at the corners), on disk: made a block of the grid at a time,
    each point's time that of the first played point at or beyond it (the played points are
    the grid and :data:`~reachability.NEAR` more at a corner: a block's are among as many
    and 2 NEAR + 2 more from the first at or beyond its first)."""
    out = []
    for arc, warped, start in motion.laws:
        M = len(arc.sigma)
        T, at = Stored(M), 0
        for a in range(0, M, BLOCK):
            sigma = arc.sigma[a : a + BLOCK]
            at = first_from(warped.sigma, float(sigma[0]), at)
            i = at + np.searchsorted(
                warped.sigma[at : at + len(sigma) + 2 * (NEAR + JOINS) + 2], sigma)
            T.write(a, start + warped.times(int(i[0]), int(i[-1]) + 1)[i - i[0]])
        out.append(T)
    return out


def lowered_at_grid(warped: Warped, sigma: Grid, g: Column) -> Stored:
    """The played law's x at the grid points ``sigma`` (its spline's own points: the x it
    was made through, to rounding) times the field g, on disk, :data:`~reachability.BLOCK`
    points at a time."""
    out = Stored(len(sigma))
    for a in range(0, len(sigma), BLOCK):
        b = min(a + BLOCK, len(sigma))
        at = sigma[a:b]
        out.write(a, warped.x.window(float(at[0]), float(at[-1]))(at) * g[a:b])
    return out


def _searched(T: Column, v: np.ndarray) -> np.ndarray:
    """``np.searchsorted(T, v)`` (T sorted, on disk or not), T read a block at a time."""
    count = np.zeros(len(v), dtype=int)
    for a in range(0, len(T), BLOCK):
        count += np.searchsorted(T[a : a + BLOCK], v)
    return count


def _width(n: int, first: float, last: float, seconds: float) -> int:
    """The field's moving averages' width in grid points: ``seconds / PASSES`` at the arc's
    mean pace (``n`` grid points from ``first`` to ``last`` seconds)."""
    per_second = (n - 1) / max(last - first, 1e-300)
    return min(max(1, int(round(seconds * per_second / PASSES))), n - 2)


def _spots(T: Column, s: np.ndarray) -> np.ndarray:
    """The grid points (of the arc whose grid point times are ``T``) just beyond each time
    ``s`` on the arc: the field lowers x there and at the point before."""
    n = len(T)
    first, last = float(T[0:1][0]), float(T[n - 1 : n][0])
    return np.clip(_searched(T, s[(s >= first) & (s <= last)]), 1, n - 1)


def reached(times: list[Column], s: np.ndarray, seconds: float,
            before: list[list[tuple[int, int]]] | None = None) -> list[list[tuple[int, int]]]:
    """Per arc (grid point ``times``), the ranges ``(a, b)`` of grid points that the field
    of the times ``s`` (:func:`fields` over ``seconds``) can change: ``2 PASSES`` widths
    either side of each point it lowers, as its averages reach, and two more each side (the
    played law between the last point lowered and the next); with those of ``before`` (an
    earlier field's, on the same grid), merged where they meet. (Beyond them the played
    law's quintic spline through the lowered x still moves, ~0.43 times less a grid
    interval out, :mod:`~hodyn_cli.algorithms.limits.bsplines`: a sample there that a
    later round does not look at is kept within its limits by the fit after it.)"""
    out = []
    for k, T in enumerate(times):
        n = len(T)
        i = distinct(_spots(T, s))
        r = 2 * PASSES * _width(n, float(T[0:1][0]), float(T[n - 1 : n][0]), seconds) + 2
        ranges = sorted([(int(a), int(b)) for a, b in zip(np.maximum(i - 1 - r, 0),
                                                           np.minimum(i + r + 1, n),
                                                           strict=True)]
                        + ([] if before is None else before[k]))
        merged: list[tuple[int, int]] = []
        for a, b in ranges:
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        out.append(merged)
    return out


def inside(times: list[Column], ranges: list[list[tuple[int, int]]]
           ) -> Callable[[np.ndarray], np.ndarray]:
    """Whether each time (of the motion whose grid point ``times`` these are, per arc) lies
    within one of the grid ``ranges`` (:func:`reached`)."""
    # (each arc's ranges sorted and apart, the arcs one after the other in time: the spans
    # are sorted by their starts)
    spans = np.array([(float(T[a : a + 1][0]), float(T[b - 1 : b][0]))
                      for T, arc in zip(times, ranges, strict=True) for a, b in arc]
                     ).reshape(-1, 2)

    def within(s: np.ndarray) -> np.ndarray:
        if not len(spans):
            return np.zeros(len(s), dtype=bool)
        k = np.searchsorted(spans[:, 0], s, side="right") - 1
        return (k >= 0) & (s <= spans[np.maximum(k, 0), 1])

    return within


def fields(times: list[Column], s: np.ndarray, y: np.ndarray, seconds: float
           ) -> list[Stored] | None:
    """Per arc (grid point ``times``, in memory or on disk), the factor field on x (on disk)
    that lowers it by ``y^2`` or more on the grid points either side of each time ``s`` (of
    the played motion), and not at all ``2 seconds`` from all of them (module doc); None:
    none lowers. Made a block at a time."""
    out, lowered = [], False
    for T in times:
        n = len(T)
        first, last = float(T[0:1][0]), float(T[n - 1 : n][0])
        i, g = _spots(T, s), y[(s >= first) & (s <= last)] ** 2

        def need(i: np.ndarray = i, g: np.ndarray = g, n: int = n
                 ) -> Iterator[tuple[int, np.ndarray]]:
            for a in range(0, n, BLOCK):
                block = np.ones(min(BLOCK, n - a))
                for k in (i, i - 1):
                    here = (k >= a) & (k < a + len(block))
                    np.minimum.at(block, k[here] - a, g[here])
                yield a, block

        if np.any(g < 1.0):
            lowered = True
            out.append(field(n, need(), _width(n, first, last, seconds)))
        else:
            ones = Stored(n)
            for a, block in need():
                ones.write(a, block)
            out.append(ones)
    return out if lowered else None
