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
holds there (:func:`beyond`), lowers x by ``y^2`` on the grid points around it. The field
(:func:`fields`): those factors' least over ``PASSES w`` points either side, averaged by
PASSES moving averages over ``w``
(:func:`~hodyn_cli.algorithms.limits.reachability.beneath`): at most the need at every point,
smooth (C^(PASSES-2)), and 1 farther than ``2 PASSES w`` points from any sample that needs
it, ``w`` the grid points in ``seconds / PASSES`` of the played law (a field much wider than
the places, over many of them, cost more than it gained: :data:`~.optimal.SPREAD`).
"""
from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.limits.reachability import BLOCK, PASSES, Played, Warped, beneath
from hodyn_cli.algorithms.limits.scaling import TOLERANCE, Law

#: the bisections of a sample's speed-up (to 2^-30 of its range)
BISECTIONS = 30
#: a sample's need is looked for down to this speed-up (a peak between the output's samples
#: needs more than the slowing its samples set: the iiwa's 500 s Fourier path's torque
#: accelerations wiggle by ~10 % of their limit from grid point to grid point)
SLOWEST = 0.5
#: the law is sampled this many times as often as the output to find where it is beyond (on
#: the iiwa's 500 s Fourier path at 200 Hz, 4: 14 places found, the next sampling beyond at
#: another, the attempt not kept; 8: 23 places, 345.10 s; 16: 45, 343.26 s in one attempt)
PHASES = 16


def _worst(laws: dict[str, Law], limited: list, rows: np.ndarray, y: np.ndarray
           ) -> np.ndarray:
    """The largest use of a limit (of its band's half-width) of each sample ``rows`` played
    ``y`` (per sample) times faster."""
    use = np.zeros(len(rows))
    for _, series, cols, lower, upper in limited:
        v = laws[series].take(rows, cols).at(y)
        use = np.maximum(use, (np.abs(v - (lower + upper) / 2) / ((upper - lower) / 2)).max(
            axis=1, initial=0.0))
    return use


def beyond(laws: dict[str, Law], limited: list) -> tuple[np.ndarray, np.ndarray]:
    """(rows, y): the samples beyond a limit (beyond ``TOLERANCE / 10``, as
    :class:`~hodyn_cli.algorithms.limits.optimal.Fit` counts them) as they are played that
    fit when played :data:`SLOWEST` times as fast, and for each the largest speed-up
    ``SLOWEST <= y < 1`` at which it does (bisected; those that do not fit then, as a
    position beyond its limit, no slowing helps)."""
    n = len(next(iter(laws.values())).coefficients)
    rows = np.arange(n)
    rows = rows[_worst(laws, limited, rows, np.ones(n)) > 1 + TOLERANCE / 10]
    rows = rows[_worst(laws, limited, rows, np.full(len(rows), SLOWEST)) <= 1 + TOLERANCE / 10]
    lo, hi = np.full(len(rows), SLOWEST), np.ones(len(rows))
    for _ in range(BISECTIONS if rows.size else 0):
        mid = (lo + hi) / 2
        fits = _worst(laws, limited, rows, mid) <= 1 + TOLERANCE / 10
        lo, hi = np.where(fits, mid, lo), np.where(fits, hi, mid)
    return rows, lo


def grid_times(motion: Played) -> list[np.ndarray]:
    """Per arc of the played motion, the times of its grid points (its law's sigma), as its
    chunks carry them (warped at the corners)."""
    out = []
    for arc, warped, start in motion.laws:
        n = len(warped.sigma)
        tau = np.concatenate([warped.at(a, min(a + BLOCK, n))[0] for a in range(0, n, BLOCK)])
        # (the played points are the grid and :data:`~reachability.NEAR` more at a corner)
        out.append(start + tau[np.searchsorted(warped.sigma[:], arc.sigma)])
    return out


def at_grid(warped: Warped, sigma: np.ndarray) -> np.ndarray:
    """The played law's x at the grid points ``sigma`` (its spline's own points: the x it
    was made through, to rounding), :data:`~reachability.BLOCK` points at a time."""
    out = np.empty(len(sigma))
    for a in range(0, len(sigma), BLOCK):
        b = min(a + BLOCK, len(sigma))
        out[a:b] = warped.x.window(float(sigma[a]), float(sigma[b - 1]))(sigma[a:b])
    return out


def fields(times: list[np.ndarray], s: np.ndarray, y: np.ndarray, seconds: float
           ) -> list[np.ndarray] | None:
    """Per arc (grid point ``times``), the factor field on x that lowers it by ``y^2``
    or more on the grid points either side of each time ``s`` (of the played motion), and
    not at all ``2 seconds`` from all of them (module doc); None: none lowers."""
    out, lowered = [], False
    for T in times:
        need = np.ones(len(T))
        inside = (s >= T[0]) & (s <= T[-1])
        i = np.clip(np.searchsorted(T, s[inside]), 1, len(T) - 1)
        g = y[inside] ** 2
        np.minimum.at(need, i, g)
        np.minimum.at(need, i - 1, g)
        if need.min() < 1.0:
            lowered = True
            per_second = (len(T) - 1) / max(T[-1] - T[0], 1e-300)
            width = min(max(1, int(round(seconds * per_second / PASSES))), len(T) - 2)
            # (the averages of ones are one to rounding: not above it)
            need = np.minimum(beneath(need, width), 1.0)
        out.append(need)
    return out if lowered else None
