"""A motion's derivative columns against the time differences of the ones below them: the
largest error of the trapezoid rule per order and column, and what error the sampling lets
one expect (``hodyn validate``'s data-consistency checks, and the time-optimal retiming's
check of the motion it plays, use it)."""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.motion.turns import Turns

__all__ = ["RTOL", "SPIKE", "frequency", "Differences"]

#: the tolerance of a column against the time differences of the one below, relative to its
#: largest value (``hodyn validate --data-rtol``'s default; :meth:`Differences.judged` also
#: allows 10 times the error the sampling lets one expect)
RTOL = 1e-3

#: the largest spike of the top order's difference quotients (two changes of opposite signs
#: in a row, the smaller one), relative to their largest, with which they still estimate the
#: next order (:meth:`Differences.judged`): a sample off makes it ~1, noise ~0.5 and more
SPIKE = 0.25


def frequency(mags: np.ndarray) -> float:
    """The data's fastest time scale from the largest magnitudes (D, m) of x, xd, xdd, ...:
    the largest ratio |x^(k+1)| / |x^(k)| (k >= 1), 1/s.

    >>> frequency(np.array([[1.0], [2.0], [8.0]]))   # |xdd| / |xd|
    4.0
    """
    mags = mags[1:]  # |xd|, |xdd|, ...
    ratios = mags[1:] / np.where(mags[:-1] > 0, mags[:-1], np.inf)
    return float(ratios.max()) if ratios.size else 0.0


class Differences:
    """x (N, D, m) chunk by chunk: derivative k against the trapezoid rule on derivative k-1
    between neighbouring samples (k = 1..D-1), the largest error per column and where, and
    the sums the unit hint needs; the last row of a chunk pairs with the next chunk's first.
    ``wrap``: columns whose x is an angle a file may wrap into (-pi, pi] (continuous joints):
    made continuous in time first, their turns counted from x' where the data has it
    (:class:`~hodyn_cli.algorithms.motion.turns.Turns`: a joint turning by more than pi a
    sample is judged as it moved)."""

    def __init__(self, wrap: np.ndarray | None = None):
        self.turns = Turns(wrap) if wrap is not None and wrap.any() else None
        self.last: tuple | None = None  # (x row, t) of the previous chunk's last sample
        self.mags: np.ndarray | None = None  # largest |x^(k)| per order and column
        #: (D-1, m) per order k = 1.. and column, the largest |x^(k-1)| difference quotient
        #: over a step: the x^(k) the column's own change over a step implies
        #: (:meth:`sizes`)
        self.moved: np.ndarray | None = None
        #: per column, the largest |x^(D-1)'| over a step from the top order's differences
        #: (the data has no x^(D): :meth:`judged`'s top two orders need it), the largest
        #: spike of those difference quotients (two changes of opposite signs in a row, the
        #: smaller of the two) and the last two (their neighbours in the next chunk)
        self.beyond: np.ndarray | None = None
        self.spike: np.ndarray | None = None
        self.last_rates: np.ndarray | None = None
        self.dt = 0.0
        self.first: float | None = None  # the first sample's time, and the duration so far
        self.span = 0.0
        self.err: np.ndarray | None = None  # (D-1, m) largest error (None: no step yet), where,
        self.at = np.zeros((0, 0), int)     # when (sized with err)
        self.when = np.zeros((0, 0))
        self.dots = np.zeros((0, 0, 2))  # (D-1, m, 2): sum numeric.analytic, analytic^2

    def add(self, x: np.ndarray, t: np.ndarray, start: int) -> None:
        # values near float64's largest (1e308) make differences and errors overflow to
        # inf: no warning, the error is inf and the column fails the check, named
        with np.errstate(over="ignore", invalid="ignore"):
            self._add(x, t, start)

    def _add(self, x: np.ndarray, t: np.ndarray, start: int) -> None:
        if self.turns is not None:
            x = x.copy()
            x[:, 0] = self.turns(x[:, 0], t, x[:, 1:])  # (x' counts the turns where given)
        # a value that is not a number (a library caller's: the readers refuse them) leaves
        # the sizes to the numbers and makes its step's error inf: the column fails, named
        mags = np.fmax.reduce(np.abs(x), axis=0)
        self.mags = mags if self.mags is None else np.fmax(self.mags, mags)
        if self.last is not None:
            x, t, start = np.concatenate([self.last[0], x]), np.concatenate([self.last[1], t]), \
                start - 1
        self.last = (x[-1:], t[-1:])
        if len(t):
            self.first = float(t[0]) if self.first is None else self.first
            self.span = float(t[-1]) - self.first
        if len(t) < 2:
            return
        dt = np.diff(t)[:, None]
        self.dt = max(self.dt, float(dt.max()))
        D, m = x.shape[1], x.shape[2]
        rates = np.diff(x[:, D - 1], axis=0) / dt
        beyond = np.abs(rates).max(axis=0)
        self.beyond = beyond if self.beyond is None else np.maximum(self.beyond, beyond)
        if self.last_rates is not None:
            rates = np.concatenate([self.last_rates, rates])
        change = np.diff(rates, axis=0)
        flips = np.where(change[:-1] * change[1:] < 0,
                         np.minimum(np.abs(change[:-1]), np.abs(change[1:])), 0.0)
        spike = flips.max(axis=0, initial=0.0)
        self.spike = spike if self.spike is None else np.maximum(self.spike, spike)
        self.last_rates = rates[-2:]
        if self.err is None:
            self.err, self.at = np.full((D - 1, m), -1.0), np.zeros((D - 1, m), int)
            self.when, self.dots = np.zeros((D - 1, m)), np.zeros((D - 1, m, 2))
            self.moved = np.zeros((D - 1, m))
        assert self.moved is not None
        for k in range(1, min(D, self.err.shape[0] + 1)):
            numeric = np.diff(x[:, k - 1], axis=0) / dt             # mean of x^(k) over each step
            self.moved[k - 1] = np.fmax(self.moved[k - 1], np.abs(numeric).max(axis=0))
            analytic = (x[:-1, k] + x[1:, k]) / 2
            err = np.abs(numeric - analytic)                         # (steps, m)
            err[np.isnan(err)] = np.inf
            s = err.argmax(axis=0)
            top = err[s, np.arange(m)]
            better = top > self.err[k - 1]
            self.err[k - 1] = np.where(better, top, self.err[k - 1])
            self.at[k - 1] = np.where(better, start + s, self.at[k - 1])
            self.when[k - 1] = np.where(better, t[s], self.when[k - 1])
            hint = numeric if k > 1 else self._hinted(x[:, 0], dt, numeric)
            self.dots[k - 1] += np.stack([(hint * analytic).sum(0), (analytic**2).sum(0)], -1)

    def _hinted(self, x: np.ndarray, dt: np.ndarray, numeric: np.ndarray) -> np.ndarray:
        """The difference quotients of x (N, m) that the unit hint reads (``dots``): a
        wrapping column's steps each within pi, as the pi rule counts them, not the turns
        x' counted. A rate in degrees counts turns of its own (0.2 rad a sample read as
        11.5), which bring the quotients within pi / dt of it and hide the factor the hint
        names."""
        if self.turns is None:
            return numeric
        wrap = self.turns.wrapped
        steps = np.diff(x[:, wrap], axis=0)
        out = numeric.copy()
        out[:, wrap] = (steps - 2 * np.pi * np.round(steps / (2 * np.pi))) / dt
        return out

    def sizes(self) -> tuple[np.ndarray, np.ndarray]:
        """Per order and column (D, m), the column's own size of x^(k), and per order (D, 1)
        the size below which x^(k) is rounding for this data (:meth:`floors`). A column
        that moves (its largest |x^(k)| above that floor) is sized by its largest |x^(k)|,
        as it always was; one whose x^(k) is rounding at every sample (q' ~ 1e-30 .. 1e-13
        where a retimed motion's law stops) by the larger of that and the largest x^(k) its
        own x^(k-1) implies over a step (their difference quotients): a motion shorter than
        a step, sampled at its two rests, has q' ~ 0 there and q moving by the whole motion.
        (Everywhere, the quotients would raise a moving column's size where the sampling
        does not resolve x^(k): a jerk-limited law's q'''' 1.6 times, and the UR10's
        inconsistent plan of tests/test_optimal_rates_auto.py passed.)"""
        assert self.mags is not None
        moved = self.mags.copy()
        if self.moved is not None:  # (an overflowed quotient, inf, leaves its error inf:
            quotients = np.where(np.isfinite(self.moved), self.moved, 0.0)  # judged, failed)
            moved[1:] = np.maximum(moved[1:], quotients)
        floors = self.floors(moved)
        return np.where(self.mags >= floors, self.mags, moved), floors

    def floors(self, sizes: np.ndarray) -> np.ndarray:
        """(D, 1): per order, the x^(k) below which a column's is rounding for this data,
        from the columns' ``sizes``: 1e-9 of the order's largest in any column, or of what
        an order below implies over the motion's duration T (``max_i |x^(i)| / T^(k-i)``:
        an x^(k) that moves x^(i) by less than 1e-9 of its largest over the whole motion),
        the larger. The second is where a whole order rests (a constant speed's higher
        orders, every order of a motion at rest): its largest in any column is rounding."""
        duration = max(self.span, 1e-300)
        implied = sizes.max(axis=1, keepdims=True, initial=0.0)  # (no columns: a free body)
        for k in range(1, len(implied)):
            implied[k] = np.maximum(implied[k], implied[k - 1] / duration)
        return 1e-9 * implied

    def scales(self) -> np.ndarray:
        """(D, m): per order and column, what the errors of x^(k) are relative to: the
        column's own size (:meth:`sizes`), at least its order's floor. A column that rests
        is judged against what the data makes rounding, not against its own rounding (the
        ratios of its error and of the sampling's expected error to that were ratios to
        noise, ~1e30)."""
        own, floors = self.sizes()
        return np.maximum(own, floors) + 1e-300

    def frequency(self) -> float:
        """The data's fastest time scale (:func:`frequency`) from the columns' own sizes
        (:meth:`sizes`) above their orders' floors: a ratio of rounding does not set it."""
        if self.mags is None or not self.mags.shape[1]:
            return 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            own, floors = self.sizes()
            return frequency(np.where(own > floors, own, 0.0))

    def share(self, rtol: float) -> float:
        """The largest error of an order against the time differences of the one below, as a
        share of its tolerance (:meth:`judged`): beyond 1, ``hodyn validate`` fails the
        motion (0: no step to judge)."""
        return max((float(rel.max()) / tol for rel, tol, _ in self.judged(rtol) if rel.size),
                   default=0.0)

    def judged(self, rtol: float, omega: float | None = None
               ) -> list[tuple[np.ndarray, float, float]]:
        """Per order k = 1 .. D-1: the largest error per column relative to the column's
        scale (:meth:`scales`: its largest |x^(k)|, or where that is rounding what its
        differences imply, at least what the data makes rounding), the tolerance, and the
        error the sampling lets one expect relative to the same scales (their largest over
        the columns): the trapezoid rule's ``dt^2 / 12 |x^(k+2)|`` (its error on a step of
        x^(k-1)'s integral, ``-dt^3 / 12 x^(k+2)(xi)``, divided by dt: e.g. Atkinson, *An
        Introduction to Numerical Analysis*, sec. 5.1), from the data where it has that
        order; the tolerance is the larger of ``rtol`` and 10 times that.

        The top two orders' x^(D), x^(D+1) are not in the data: ``|x^(D)|`` is the largest
        difference quotient of x^(D-1) over a step (x^(D) somewhere on it) and ``|x^(D+1)| =
        |x^(D)|^2 / |x^(D-1)|`` (the last ratio of orders once more), or with ``omega``
        (default: :meth:`frequency`, the largest ratio of orders in the data) ``|x^(k)|
        omega^2`` where that is larger. Those differences are trusted only where they have
        no spike (``SPIKE``): a column with a sample off, or noise, has differences ~1/dt
        times itself that go up and straight down again (their changes flip sign, each as
        large as the largest difference), which would set its own tolerance to ~0.8 of its
        largest at any rate and let it pass; there omega alone judges. A smooth x^(D-1)'s
        differences change smoothly, and where x^(D) jumps (the waypoints below: it is the
        first order that does not vanish there) they change once. The ratio of orders can
        jump above the data's: a
        rest-to-rest polynomial whose first D-1 derivatives vanish at its ends has its D-th,
        the first that does not, far larger (``hodyn generate --kind point-to-point
        --derivatives 6``: ``omega^2`` alone put the expected error of q^(6) ten times too
        low, and validate failed the file; tests/test_generate_validates.py)."""
        if self.err is None or self.mags is None or not self.err.shape[1]:
            return []  # (no columns: the joints of a single free body)
        assert self.beyond is not None and self.spike is not None   # (found with err)
        omega = np.float64(self.frequency() if omega is None else omega)  # (inf, not an
        out = []  # OverflowError, where the data's values are near float64's largest)
        D = self.err.shape[0] + 1
        with np.errstate(over="ignore", invalid="ignore"):
            scales = self.scales()
            beyond = np.where(self.spike <= SPIKE * self.beyond, self.beyond, 0.0)
            above = {D: beyond, D + 1: beyond**2 / scales[D - 1]}
            for k in range(1, D):
                scale = scales[k]
                higher = self.mags[k + 2] if k + 2 < D else \
                    np.maximum(above[k + 2], scale * omega**2)
                expected = float((self.dt ** 2 / 12 * higher / scale).max())
                if not np.isfinite(expected):  # no estimate: the plain tolerance judges
                    expected = 0.0
                out.append((self.err[k - 1] / scale, max(rtol, 10 * expected), expected))
        return out
