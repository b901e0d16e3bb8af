"""The time law along a motion's path and the linear programmes that make it fastest
within the limits at a grid of the path (:mod:`~hodyn_cli.algorithms.limits.optimal`
plays it, checks it and fits it onto the limits).

**The path.** The input's time is the path parameter s; its derivative columns are then
``q^[m] = d^m q / ds^m``, and between samples q(s) follows their two-point Hermite
interpolants (:func:`~hodyn_cli.algorithms.limits.jets.hermite`, :func:`between`). A time
law is ``x(s) = sdot^2 > 0``; played along it the motion has, by the chain rule, ``qd = q'
sqrt(x)``, ``qdd = q'' x + q' x'/2``, ... (:mod:`~hodyn_cli.algorithms.limits.jets`); x = 1
is the input itself.

**Every limited quantity along the path.** With the time law's derivatives ``sigma_k =
s^(k)`` (``sigma_1 = sqrt(x)``, ``sigma_2 = x'/2``, ``sigma_3 = sqrt(x) x''/2``, ``sigma_4 = (x
x''' + x' x''/2)/2``) a quantity of time order j (the power of its scaling law,
:mod:`~hodyn_cli.algorithms.limits.scaling`: tau^(j), taum, current: j; qd, motor speed: 1) is,
at each point of the path, a polynomial in the sigmas whose monomials have the grades of its
law, ``j + 2p`` (sigma_k has grade k): the static part (gravity, friction's offset) grade j,
the inertial and Coriolis part grade j + 2. So, with ``tau = M qdd + C qd + g``::

    tau  = c + b x + a x'/2                                    (a = M q', b = M q'' + C q', c = g)
    taud = sqrt(x) (c' + b' x + (b + a'/2) x' + a x''/2)
    taudd = x'/2 (...) + x (...)'                              (quadratic in x, x', x'', x''')

The coefficients are not derived by hand: at every grid point the dynamics are evaluated
(exactly, by hodyn's inverse dynamics and drive models, :func:`series_laws`) on the motions
that leave the point with the time-law derivatives of :data:`PROBES`, and the monomials'
coefficients are the (exact) solution of that linear system (:func:`path_limits`); friction
``a sigma_1 + c tanh(b sigma_1)`` comes from the law directly.

**The programme** (:func:`solve`). x is a B-spline of degree ``max(5, D)`` with a knot at
every :data:`KNOTS`-th grid point (x^(D-1) is continuous: every output derivative ``q^(D-1)``
exists and so does ``q^(D)``, which ``hodyn validate``'s check of the highest one sees), and
the time ``T = int ds / sqrt(x)`` is minimised by a sequence of linear
programmes (HiGHS) over its coefficients, the limits imposed at the grid points:

* torque, motor torque and current without friction (order 0): linear in x, x' as they
  stand;
* velocity (``qd = q' sqrt(x)``), torque rate, motor speed (order 1): ``|L(x, x', x'')| <= R /
  sqrt(x)`` with L linear (a velocity's L a constant); the convex ``R / sqrt(x)`` is replaced
  by its tangent at the current x, which lies below it, so every programme's solution is
  feasible (an inner approximation; a velocity's tangent rows bound x alone and fold into the
  trust region's upper side, :mod:`~hodyn_cli.algorithms.limits.sequential`);
* torque acceleration and friction: linearised at the current x; a step may leave them by
  each of :data:`SLACKS` in turn;
* the objective is T linearised at the current x (``-int (x - x_k) / (2 x_k^(3/2)) ds``)
  plus :data:`ROUGH` times the spline's roughness, in a trust region ``x_k / (1 + rho) <= x <=
  x_k (1 + rho)``, and each step is shortened until T decreases (T is convex: a descent
  method).

Each programme is HiGHS's simplex, or where that stalls its interior-point method
(:func:`_linear_programme`); a grid longer than :data:`WINDOW` is solved a window at a time
(:func:`solve_windows`).

It starts from the uniform scaling (``retime --to-limits``: x constant, feasible). The path
speed stays within :data:`CAP` times the uniform one (or a smaller cap: where the path is at
rest, ``q' = 0``, e.g. the waypoints of a point-to-point motion, no limit bounds it; on a path
with rests inside, each stretch between them within CAP times its own uniform scaling's,
:func:`stretches`), the time
law's derivatives within :data:`SMOOTH`'s bounds (smooth on the output's sampling), and x
next to the path's kinks within :func:`kink_ceiling`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, reduce
from itertools import combinations_with_replacement
from math import comb, factorial
from typing import Any, NamedTuple

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy import reach
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.limits.banded import KEY, Rows, band, stacked, third_differences
from hodyn_cli.algorithms.limits.bsplines import BSpline
from hodyn_cli.algorithms.limits.feasibility import Quantity, limited_series, probe_laws
from hodyn_cli.algorithms.limits.highs import LP, Stalled, basic, without
from hodyn_cli.algorithms.limits.jets import compose, hermite, product, time_rates
from hodyn_cli.algorithms.limits.rests import STILL
from hodyn_cli.algorithms.limits.scaling import Law
from hodyn_cli.algorithms.motion.differences import RTOL, frequency
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.drives import Drives
from hodyn_cli.modeling.limits import Limits

__all__ = ["GRID", "CAP", "PROBES", "PathGrid", "PathLimit", "between", "path_limits",
           "time_scale", "slowness", "rests_inside", "Stretches", "stretches", "kink_ceiling",
           "KinkCeiling", "TimeLaw", "solve", "solve_windows", "ramped", "time_derivatives"]

#: the grid keeps between GRID and 2 GRID samples of the input (every 2^i-th, and the last);
#: a short input's is filled between its samples up to FILL points per unit of its time scale
GRID = 1000
FILL = 100.0
#: a long input's grid (no ``--grid``) is thinned beyond 2 GRID only while it keeps DENSITY
#: points or more per unit of the path's time scale, and at most MOST points: the limits
#: bind between grid points farther apart and the final scaling takes back what the law gained
#: (the iiwa's cosine, time scale 2.4 per second, 10^4 samples at 100 Hz: every sample 3.58 %
#: shorter than the uniform scaling, every 2nd (21 points per unit) 3.50 %, every 4th 2.6 %,
#: every 8th 0.08 %)
DENSITY = 16.0
MOST = 1 << 17
#: the path speed sdot stays within CAP times the uniform scaling's (where the path is at
#: rest, q' = 0, no limit bounds it, and the fastest law is singular there; on a path with rests
#: inside, each stretch between them within CAP times its own uniform scaling's, the one that
#: stretch played alone from rest to rest would have (:func:`stretches`: the uniform scaling
#: of the whole path is its fastest stretch's, which held the 2 s leg of the stranger's Baxter
#: zigzag, legs of 0.15 to 2 s, below 0.63 of its own uniform speed, 12.8 times the path's:
#: the windows' law 5.23 s, now 3.70 s, reachability's 2.50 s); where the played
#: motion's derivatives are inconsistent on its samples and the law runs faster than
#: CAP_LEAST times the uniform speed, it is planned again with its cap where the
#: inconsistency (in shares of ``hodyn validate``'s tolerance), taken to grow as the peak
#: speed's STEEP-th power, would be CALM (at least CAP_LEAST:
#: :class:`~hodyn_cli.algorithms.limits.optimal.Optimal`; it grew as its 2.4th to 7th power on
#: the rest paths of benchmarks/bench_optimal.py. Halving the cap instead, the xArm7's curve
#: with a stop inside, 1.07 times the tolerance at the cap of 8, came to 1.98 s, now 1.69 s;
#: toppra takes 1.50 s).
#: Rest to rest along straight lines at 100 Hz (benchmarks/bench_optimal.py, part 4): the cap
#: at 3 was 23-30 % slower than toppra, at 8 5-14 %; at 16 the ramp out of the rest is too
#: short for the output's sampling (the UR5's q^(4) against the differences of its q^(3) at
#: the first step: 4.1 times ``hodyn validate``'s tolerance; the iiwa's and the Panda's 3.3
#: and 3.8), so a cap of 16 cost a plan more for the same law, and more programmes on a
#: rate-limited design (HiGHS 6.9 s against 5.3 s for a law 4 % shorter)
CAP = 8.0
CAP_LEAST = 4.0
STEEP = 2.5
#: the time law's derivatives ``|x^(k)| <= 2 x1 nu^k``, k = 2 .. its degree, x1 the uniform
#: scaling's x0, or x itself where the law is faster and the path slower than at its fastest by
#: as much (``x1 = max(x0, min(x, x0 v))``, v: :func:`slowness`): the output's derivatives carry
#: the law's through the path's q' (the top one ``q' s^(D)``, and validate judges it against its
#: largest value), so where q' is v times smaller than its peak, as near a rest, x's change may
#: be v times larger: the bound on x0 alone held the law near the rests of a point-to-point
#: motion of the iiwa at 60 x0 where 225 x0 is consistent; on x alone (where q' is not small) it
#: took a 500 Hz cosine's output from 0.41 to 0.69 of validate's tolerance for no gain. nu (per
#: unit of s) is the smaller of ``SMOOTH rate / sqrt(x0)`` (rate: the output's; x changes by
#: ~SMOOTH^k of itself through its k-th derivative within one output sample) and ``PACE scale
#: sqrt(x0 / x)`` (scale: the path's :func:`time_scale`; in time, d/dt = sqrt(x) d/ds, the law's
#: pace nu sqrt(x) is then within PACE times the path's own played at the uniform speed): the
#: played motion's derivatives grow order by order as the path's do, the highest one included
#: (whose consistency with the one below ``hodyn validate`` checks by the trapezoid rule: its
#: error is the order two above, which holds x^(degree)); imposed at the current x in each
#: programme. Where the played motion's own check finds it inconsistent all the same, the law is
#: planned again at half the pace (:class:`~hodyn_cli.algorithms.limits.optimal.Optimal`)
SMOOTH = 0.1
PACE = 12.0
#: relative overshoot at grid points of a linearised limit (torque acceleration, friction)
#: that a step may have, in turn (the final check removes what is left)
SLACKS = (1e-2, 1e-3, 1e-4)
#: a knot of the spline at every KNOTS-th grid point (the limits are imposed at every one: more
#: conditions than coefficients keep the spline from bulging between grid points)
KNOTS = 4
#: relative overshoot at grid points of an exact linear limit that a step may have (the
#: solver's feasibility tolerance, relative to the band)
FEASIBLE = 1e-5
#: weight (times the uniform scaling's x) of the spline's roughness in each programme's
#: objective, against T's (normalised to 1 per coefficient), each third difference's times
#: T's gradient at its coefficients (:func:`_roughness`)
ROUGH = 0.1
#: the largest entry of a smoothness row (:func:`solve`) handed to HiGHS: a row ``x^(k) /
#: (2 x1 nu^k)`` has entries ~ binomial(k, k/2) / (h nu)^k / (2 x1) inside the path (h the
#: knots' spacing, :data:`KNOTS` grid points; the k-th derivative of the B-splines, divided
#: differences over h) and up to ~1000 times that at its ends (the clamped knots' spans
#: h, 2h, ...): on the iiwa's cosine at 20 Hz with q^(7) columns (degree 8, h nu = 0.04:
#: knots 25 ms of path apart, the pace 1.6 per unit) 3.4e12 inside and 3.9e15 at the ends,
#: against bounds of 1, which HiGHS refused (its large_matrix_value, 1e15) and scales by
#: 2^20 at most (its allowed_matrix_scale_factor). Each such row and its bounds are
#: divided by a power of two (exactly: the same feasible set) to this at most. The laws of
#: benchmarks/bench_optimal_rates.py's 21 windows stay within 2e-7 but two: the UR5's at 20
#: Hz +2.4e-5 (the simplex now solves all of its programmes: 11.4 s of CPU -> 2.3 s, nine
#: went to the interior point), the UR5's with --jerk 20000 -4.1e-4 (41 HiGHS solves, not 66,
#: in 27 programmes; benchmarks/README.md, 2026-11-30). HiGHS's tolerance (1e-7) is then larger than such
#: rows' bounds: the q^(7) cosine's x^(7) and x^(8) rows (beyond its output's q^(7)) were
#: held to 4e-5 and 1.3 of theirs, now 0.6 and 59, its law the same to 1e-10. At 1 instead
#: (every bound ~1e-16) the UR5's point-to-point law moved by 1.6e-4 and took 1.7 times the CPU.
#: :data:`ROWS` and the 1e-9 of :func:`_linear_programme` are in the rows' units: a row
#: scaled to a half-width w of 1/8 or less is imposed from each programme's start (half of
#: the rows imposed on the UR5's at 20 Hz, 38 500 of 78 500), one of a larger w is added once
#: the solution is 1e-9 / w of its bound beyond it.
#: ROWS as a share of each row's half-width instead took more CPU (the UR5's at 20 Hz 2.3
#: -> 5.8 s, its law 2.4e-5 shorter; the xArm7's at 20 Hz 1.1 -> 1.6 s, the same to 2e-7;
#: the UR5's with --jerk 20000 3.9 -> 4.7 s, 4.1e-4 longer; review29, 2026-11-30)
ENTRY = 2.0**20
#: linear programmes at most
ITERATIONS = 60
#: a trust region narrower than this (x within ``1 +- TRUST`` of itself) in which no step
#: shortens T ends the iterations of a law within its slack: the linearised programmes have
#: nothing left to give (each rejected step is a programme solved; shrinking it on to 1e-4
#: took 9 programmes more per window of a long grid for gains below 1e-7 of T). A law beyond
#: its slack shrinks it to 1e-4, looking for a step back within it
TRUST = 0.05
#: relative decrease of T below which the iteration stops (1e-5 would end the Z1's
#: point-to-point path with --jerk 500 at 1.261028 s, 4 of its 28 steps sooner, but moves
#: every law a little, and the Talos arm's point-to-point path with --jerk 100 then failed
#: validate once resampled (1.13 of its tolerance against 0.24: a sampling's phase), 11 %
#: longer with reachability's law)
CONVERGED = 1e-7
#: the trust region's widest (x within ``1 +- WIDEST`` of itself)
WIDEST = 8.0
#: a law that must come below a duration to be of use (:func:`solve`'s ``beat``) is given up
#: once it is beyond it and its last STRIDE steps, each taken in the trust region at its
#: widest, shortened T by so little that the programmes left, each shortening it as much as
#: the best of them, could not bring it there (an extrapolation, not a bound: T is convex,
#: but the limits are not, and a later step may gain more). auto's windows after
#: reachability on the Laikago leg's 416-sample zigzag with torque rates (the stranger's
#: sweep): 60 programmes, 14 s of CPU, from 3.14 s to 1.368 s against reachability's 0.666 s,
#: its last 52 steps each below 0.7 % of T
STRIDE = 3
#: Gauss-Legendre nodes per grid interval for T = int ds / sqrt(x), and Newton steps for s(t)
NODES, WEIGHTS = np.polynomial.legendre.leggauss(12)
NEWTON = 5
#: the complex step of a limit's derivatives (:meth:`PathLimit.gradient`: exact to
#: rounding, no subtraction)
_COMPLEX_STEP = 1e-30
#: time-law derivatives (sigma_1 .. sigma_4) at which the dynamics are probed; the first has
#: sigma_1 = 1 (friction's terms are read there); together they determine every monomial of
#: grade 0 .. 4 (their matrix has full rank, tests/test_optimal.py); the rest are
#: ``np.random.default_rng(31).uniform(-1.5, 1.5, (15, 4))``, written out: numpy.random's
#: import was ~12 ms of every command's start (tests/test_retime_start.py holds them equal)
PROBES = np.array([
    [1.0, 0.0, 0.0, 0.0],
    [1.2095154327445812, -1.2969652129151008, 0.5181924423010926, -0.08236588206229012],
    [0.5322833308164405, -1.3810258346861561, -1.346367258449531, -0.9704095823013561],
    [1.4360089755311645, -0.5935247180011681, 0.27083406478795746, 1.451491452161799],
    [0.6152575223695189, -0.8698987033349102, -0.22682592603276897, -1.1887713754643965],
    [-0.6454287034827672, -0.5933191843762122, -1.44204266871554, 1.0274076683286029],
    [1.1907181965325506, 0.05280581315729149, 0.40621999742558135, 0.2859712515768231],
    [0.4836165985946166, 1.4832269939607459, 0.23307924551257075, -1.0743554671897408],
    [0.5784828880277657, 0.5714604763145741, 1.0625618222967161, 0.5396874649440919],
    [-0.5295968892906385, -1.3776563866782436, -0.1559906256882353, 0.3846604324544556],
    [0.7024484909983824, 0.5134686197258347, 0.293854011823536, 0.31410255131070164],
    [-0.8000426724560066, -0.32214022590337565, -0.24680447765590197, -1.3750347739542332],
    [1.3571535458028512, -1.2490960711917096, 1.4107603319501787, 0.8777486436551296],
    [-0.8331751787933714, -0.4115915357671913, -0.7563030672096402, 0.3567982548041815],
    [-1.4063751808720886, -0.2255256760417117, 0.7605472509275266, -0.13371174659298202],
    [0.3830573771880432, -0.2156808233418328, 0.38340074777454536, 1.0928375847299274],
])


# -- the path and its limits -------------------------------------------------------------

#: the path's derivative r between two samples h apart comes from the orders r - BELOW .. D-1
#: there, r - 1 .. D-1 where h < FINE (seconds of the path: rounding of q^[a], which a file's
#: positions carry to ~1e-13, becomes that over h^(r-a) in q^[r]; from two orders down, 1e-9
#: of q'' at h = 10 ms but 1e-5 at 0.1 ms (10 kHz), where the output's time differences of
#: qdd show it 1e4 times larger again; from one order down the finer sampling loses only
#: the interpolant's degree, which it does not need)
BELOW = 2
FINE = 2e-3


def between(path: Trajectory, s: np.ndarray, order: int | None = None) -> np.ndarray:
    """(E, D, m) ``q^[r](s)`` between the samples of ``path`` (its times: s): each order r as
    the derivative of the Hermite interpolant of the orders from r - :data:`BELOW` (r - 1 on
    a step finer than :data:`FINE`) to D-1 the samples give. (The interpolant of all of them
    has the same derivatives up to its error, but takes q^[r] from differences of the
    positions over h^r: 1e-14 of rounding in q becomes ~1e-2 in q^[4] at h = 10 ms.)
    ``order``: that order alone, (E, m)."""
    i = np.clip(np.searchsorted(path.t, s, side="right") - 1, 0, path.n_samples - 2)
    h = path.t[i + 1] - path.t[i]
    u = (s - path.t[i]) / h
    used = np.zeros(max(path.n_samples - 1, 0), dtype=bool)
    used[i] = True
    intervals = np.flatnonzero(used)
    if len(i) < SHARED * len(intervals):  # (a point or two an interval: each its own)
        return _interpolated(path.derivatives[i], path.derivatives[i + 1], h, u, order=order)
    at = (np.cumsum(used) - 1)[i]  # (each point's interval among those used)
    return _interpolated(path.derivatives[intervals], path.derivatives[intervals + 1],
                         path.t[intervals + 1] - path.t[intervals], u, order=order, at=at)


#: :func:`between` makes each interval's interpolant once for its points where they are at
#: least this many to an interval on average (the local slowing's 16 samplings: ~5; its 8
#: since branch long12: ~1.85 on a long path, each its own, 1.5 measured no faster; a fit's
#: output samples: one to ~3 intervals, each made for its point alone)
SHARED = 2


def _interpolated(left: np.ndarray, right: np.ndarray, h: np.ndarray, u: np.ndarray,
                  top: bool = False, order: int | None = None, at: np.ndarray | None = None
                  ) -> np.ndarray:
    """(E, D, m) ``q^[r]`` at ``s0 + u h`` between samples with the derivatives ``left`` and
    ``right`` (E, D, m), each from the orders :func:`_low` gives; ``top``: (E, 1, m) the
    derivative above the highest, ``q^[D]``, of the highest's interpolant (it jumps at the
    samples: the path is C^(D-1) there); ``order``: that order r alone, (E, m). ``at`` (E,):
    u's interval, a row of ``left``, ``right`` and ``h`` (:func:`~hodyn_cli.algorithms.
    limits.jets.hermite`'s; the same numbers as with those rows taken for each point)."""
    D = left.shape[1]
    fine = h < FINE
    here = fine if at is None else fine[at]  # (per point)
    out = np.empty((len(u), 1 if top or order is not None else D) + left.shape[2:])
    for group, points in ((fine, here), (~fine, ~here)):
        if points.any():
            rows = slice(None) if points.all() else points
            lows = _low(D, group is fine)
            pairs = [(D, lows[-1])] if top else [(order, lows[order])] if order is not None \
                else list(enumerate(lows))
            got = np.empty((len(u[rows]), len(pairs)) + left.shape[2:])
            # (``at``: the group's intervals, each point's place among them)
            ends = rows if at is None else (slice(None) if group.all() else group)
            place = None if at is None else (np.cumsum(group) - 1)[at[rows]]
            for a in dict.fromkeys(a for _, a in pairs):  # (each interpolant's orders at once)
                rs = [j for j, (_, b) in enumerate(pairs) if b == a]
                got[:, rs] = hermite(left[ends][:, a:], right[ends][:, a:], h[ends], u[rows],
                                     orders=tuple(pairs[j][0] - a for j in rs), at=place)
            out[rows] = got
    return out if order is None else out[:, 0]


def _low(D: int, fine: bool) -> list[int]:
    """The lowest order of the interpolant each order r = 0 .. D-1 comes from (``fine``: a
    step finer than :data:`FINE`)."""
    return [max(0, r - (1 if fine else BELOW)) for r in range(D)]


def _ends(rows: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(intervals, m) ``q^[D]`` at the start and at the end of each interval between the
    samples (rows (N, D, m)): the derivative of the top order's interpolant, which jumps at
    the samples (the path is C^(D-1) there)."""
    h = np.diff(t)
    start, end = (_interpolated(rows[:-1], rows[1:], h, np.full(len(h), u), top=True)[:, 0]
                  for u in (0.0, 1.0))
    return start, end


class PathGrid:
    """Every stride-th sample of a path fed in chunks (:meth:`add`), and its last; the stride
    doubles whenever more than ``2 target`` samples are kept: between ``target`` and ``2
    target`` samples however long the path. ``follow`` (``target`` None: :data:`GRID`): the
    stride doubles only while the grid keeps :data:`DENSITY` points per unit of the path's
    :func:`time_scale` so far, or beyond :data:`MOST` points: a long path keeps as many as
    its speed needs. Of every sample, the path's kink there: how far its ``q^[D]`` jumps
    (:func:`_ends`), the largest per joint in each interval the kept samples start
    (:meth:`grid`); and the largest ``|q^[D-1]|`` per joint (:attr:`peak`). ``kinks``: False,
    neither (the jumps are zeros, :attr:`peak` None: a uniform law has no use for them)."""

    def __init__(self, target: int | None = GRID, kinks: bool = True):
        self.follow, self.kinks = target is None, kinks
        self.target, self.stride, self.count = target or GRID, 1, 0
        self.mags: np.ndarray | None = None  # (D, m) the largest |q^[k]| so far
        self.index = np.zeros(0, dtype=np.int64)
        self.t = np.zeros(0)
        self.rows: np.ndarray | None = None
        self.jumps: np.ndarray | None = None
        self.peak: np.ndarray | None = None
        self.last: tuple[int, float, np.ndarray] | None = None
        self.end: np.ndarray | None = None  # q^[D] at the end of the last interval
        self.names: tuple[str, ...] = ()

    def add(self, chunk: Trajectory) -> None:
        idx = np.arange(self.count, self.count + chunk.n_samples)
        keep = idx % self.stride == 0
        rows = chunk.derivatives[keep]
        self.rows = rows if self.rows is None else np.concatenate([self.rows, rows])
        zeros = np.zeros((int(keep.sum()), chunk.derivatives.shape[2]))
        self.jumps = zeros if self.jumps is None else np.concatenate([self.jumps, zeros])
        self.index = np.concatenate([self.index, idx[keep]])
        self.t = np.concatenate([self.t, chunk.t[keep]])
        if self.kinks:  # (the Hermite interpolants' top derivatives at every sample)
            self._kinks(chunk)
        self.last = (int(idx[-1]), float(chunk.t[-1]), chunk.derivatives[-1])
        self.names = chunk.joint_names
        self.count += chunk.n_samples
        mags = np.abs(chunk.derivatives).max(axis=0)
        self.mags = mags if self.mags is None else np.maximum(self.mags, mags)
        while len(self.index) > 2 * self.target and self._thinned():
            self.stride *= 2
            keep = self.index % self.stride == 0
            pairs = np.maximum.reduceat(self.jumps, np.flatnonzero(keep))
            self.index, self.t, self.rows = self.index[keep], self.t[keep], self.rows[keep]
            self.jumps = pairs

    def _thinned(self) -> bool:
        """Whether the grid may keep every ``2 stride``-th sample (``follow``: beyond
        :data:`MOST` points, or :data:`DENSITY` per unit of the time scale then)."""
        if not self.follow or len(self.index) > MOST:
            return True
        assert self.mags is not None and self.last is not None
        step = (self.last[1] - self.t[0]) / max(self.count - 1, 1)  # the mean sample step
        return 2 * self.stride * step * DENSITY * frequency(self.mags) <= 1

    def _kinks(self, chunk: Trajectory) -> None:
        """The jumps of q^[D] at the chunk's samples (the first one's: with the previous
        chunk's last interval) into :attr:`jumps`, and :attr:`peak`."""
        assert self.jumps is not None
        top = np.abs(chunk.derivatives[:, -1]).max(axis=0)
        self.peak = top if self.peak is None else np.maximum(self.peak, top)
        rows, t, first = chunk.derivatives, chunk.t, self.count
        if self.last is not None:
            rows = np.concatenate([self.last[2][None], rows])
            t, first = np.concatenate([[self.last[1]], t]), first - 1
        if len(t) < 2:
            return
        # values near 1e308: inf or nan jumps, no warning (the path is refused for its
        # derivatives when it has been read: optimal._follows)
        with np.errstate(over="ignore", invalid="ignore"):
            start, end = _ends(rows, t)
            before = end[:-1] if self.end is None else np.concatenate([self.end[None], end[:-1]])
            at = np.arange(first + 1 - (self.end is not None), first + len(t) - 1)
            np.maximum.at(self.jumps, at // self.stride, np.abs(start[-len(before):] - before))
        self.end = end[-1]

    def path(self) -> Trajectory:
        """The grid's path: :meth:`grid`'s first."""
        return self.grid()[0]

    def grid(self) -> tuple[Trajectory, np.ndarray]:
        """The kept samples (times t: the path parameter s), the last one included; where every
        sample is kept and there is room, with points of the path halfway between them (by
        :func:`~hodyn_cli.algorithms.limits.jets.hermite`) until ``target`` or more, or
        until :data:`FILL` points per unit of the path's :func:`time_scale` (finer, the
        programmes' rows at neighbouring points are so alike that HiGHS stalls); and (points,
        m) the largest jump of q^[D] per joint in the interval from each point to the next
        (the last: 0)."""
        if self.last is None:
            raise HodynError("the motion has no samples")
        assert self.rows is not None and self.jumps is not None
        t, rows, jumps = self.t, self.rows, self.jumps
        if self.index[-1] != self.last[0]:
            t, rows = np.append(t, self.last[1]), np.concatenate([rows, self.last[2][None]])
            jumps = np.concatenate([jumps, np.zeros_like(jumps[:1])])
        finest = 1 / (FILL * frequency(np.abs(rows).max(axis=0)) + 1e-300)
        while self.stride == 1 and 1 < len(t) < self.target and np.diff(t).max() >= 2 * finest:
            h = np.diff(t)
            mid = hermite(rows[:-1], rows[1:], h, np.full(len(h), 0.5))
            t = np.insert(t, np.arange(1, len(t)), t[:-1] + h / 2)
            rows = np.insert(rows, np.arange(1, len(rows)), mid, axis=0)
            jumps = np.insert(jumps, np.arange(1, len(jumps)), 0.0, axis=0)  # kinks at samples
        return Trajectory(self.names, rows, t), jumps


def slowness(path: Trajectory) -> np.ndarray:
    """(M,) how many times slower the path moves at each sample than at its fastest: the
    inverse of the largest ``|q'_j(s)| / max |q'_j|`` of a joint (inf at a rest; joints that do
    not move left out).

    >>> s = np.linspace(0, 1, 3)
    >>> q = np.stack([s**2, 2 * s], axis=1)[..., None]          # q = s^2: at rest at s = 0
    >>> slowness(Trajectory(("j",), q, s)).tolist()
    [inf, 2.0, 1.0]
    """
    speed = np.abs(path.derivatives[:, 1])
    peak = speed.max(axis=0)
    share = (speed / np.where(peak > 0, peak, np.inf)).max(axis=1)
    with np.errstate(divide="ignore"):
        return 1 / share


def rests_inside(slow: np.ndarray) -> np.ndarray:
    """The grid points where the path's stretches between rests end and start: the first and
    the last of each run of points at rest (every joint's ``|q'|`` within
    :data:`~hodyn_cli.algorithms.limits.rests.STILL` of its largest: ``slow``, the
    :func:`slowness`, beyond its inverse), the runs at the grid's own ends left out (a path
    at rest only at its ends is one stretch: its v 1, the whole path's cap).

    >>> rests_inside(np.array([np.inf, 1.0, np.inf, 2.0, np.inf, np.inf, np.inf, 3.0, np.inf]))
    array([2, 4, 6])
    >>> rests_inside(np.array([np.inf, np.inf, 1.0, np.inf, 2.0, np.inf, np.inf]))
    array([3])
    """
    rest = slow >= 1 / STILL
    inner = np.r_[False, rest[:-1]] & np.r_[rest[1:], False]  # (rests on both sides)
    ends = np.logical_and.accumulate(rest) | np.logical_and.accumulate(rest[::-1])[::-1]
    return np.flatnonzero(rest & ~inner & ~ends)


class Stretches(NamedTuple):
    """How many times the path's uniform speed each stretch between rests may be played
    uniformly, v >= 1 (:func:`stretches`): at the grid points, and over each coefficient's
    B-spline (the least of the grid points it spans); ``joins``: the grid points where the
    stretches end and start (:func:`rests_inside`)."""

    grid: np.ndarray
    coefficients: np.ndarray
    joins: np.ndarray


def stretches(s: np.ndarray, slow: np.ndarray, joins: np.ndarray, speeds: np.ndarray,
              degree: int) -> Stretches:
    """The stretches' v at the grid points s (``speeds``: each stretch's, between the
    :func:`rests_inside` ``joins``; ``slow``: the grid's :func:`slowness`; a point at rest
    takes the faster stretch beside it, the least v of the points that move next to it) and
    on the coefficients of the law's B-spline of ``degree`` on that grid (knots at every
    :data:`KNOTS`-th point): the least v over the grid points each spans, so that x, within
    its coefficients' caps, is within the cap at every point (a B-spline is a convex
    combination of the coefficients whose splines span the point).

    >>> slow = np.array([np.inf, 1.0, 2.0, np.inf, 4.0, 5.0, np.inf])   # two legs
    >>> v = stretches(np.linspace(0, 6, 7), slow, np.array([3]), np.array([1.0, 4.0]), 1)
    >>> v.grid.tolist(), v.coefficients.tolist()
    ([1.0, 1.0, 1.0, 1.0, 4.0, 4.0, 4.0], [1.0, 1.0, 4.0])
    """
    v = speeds[np.searchsorted(s[joins], s, side="right")]
    rest, at = slow >= 1 / STILL, np.arange(len(s))
    # (the nearest points that move before and after each point: itself where it moves)
    before = np.maximum.accumulate(np.where(rest, -1, at))
    after = np.minimum.accumulate(np.where(rest, len(s), at)[::-1])[::-1]
    beside = np.fmin(np.where(before >= 0, v[np.maximum(before, 0)], np.nan),
                     np.where(after < len(s), v[np.minimum(after, len(s) - 1)], np.nan))
    v = np.where(rest, np.nan_to_num(beside, nan=1.0), v)
    breaks = np.searchsorted(s, np.append(s[:-1:KNOTS], s[-1]))
    spans = np.minimum(np.minimum.reduceat(v, breaks[:-1]), v[breaks[1:]])
    padded = np.concatenate([np.full(degree, np.inf), spans, np.full(degree, np.inf)])
    return Stretches(v, np.lib.stride_tricks.sliding_window_view(padded, degree + 1).min(
        axis=1), joins)


def time_scale(path: Trajectory) -> float:
    """The path's fastest time scale (per unit of s): the largest ratio ``max |q^[k+1]| / max
    |q^[k]|`` of a joint, k >= 1 (as ``hodyn validate`` estimates a motion's; 0: no motion).

    >>> s = np.linspace(0, 1, 5)
    >>> q = np.stack([np.sin(3 * s), 3 * np.cos(3 * s), -9 * np.sin(3 * s)], axis=1)[..., None]
    >>> round(time_scale(Trajectory(("j",), q, s)), 4)   # q = sin 3s: 3 sin 1.5 on these samples
    2.9925
    """
    return frequency(np.abs(path.derivatives).max(axis=0))


#: the share of ``hodyn validate``'s tolerance of a column against the time differences of
#: the one below (:data:`~hodyn_cli.algorithms.motion.differences.RTOL`) that the path's kinks
#: may take in the played motion's top derivative
KINK_SHARE = 0.5


def kink_ceiling(kinks: np.ndarray, top: np.ndarray, D: int, x0: float, rate: float
                 ) -> np.ndarray:
    """(M,) the largest x at each point of the grid next to a kink of the path (``kinks``
    (M, m): :meth:`PathGrid.grid`'s; ``top`` (m,): the played motion's largest ``|q^(D-1)|``
    per joint, against which ``hodyn validate`` judges the top derivative; ``D``: the path's
    orders): played along x, the motion's ``q^(D)`` jumps by ``Delta q^[D] x^(D/2)`` there
    (the time law's terms are continuous, :func:`solve`), which the trapezoid rule between
    samples ``1/rate`` apart misses by up to ``|jump| / (8 rate)``; that stays within
    KINK_SHARE RTOL of ``top`` for every joint. Never below x0 (the uniform scaling is as
    consistent as the input); inf: no kink.

    >>> kinks = np.array([[0.0], [2.0], [0.0], [0.0]])   # q'' jumps by 2 in the 2nd interval
    >>> kink_ceiling(kinks, np.array([0.1]), 2, 0.01, 100.0).round(4).tolist()
    [inf, 0.02, 0.02, inf]
    >>> kink_ceiling(kinks, np.array([0.1]), 2, 0.05, 100.0).round(4).tolist()
    [inf, 0.05, 0.05, inf]
    """
    near = _either_side(kinks)
    allowed = 8 * KINK_SHARE * RTOL * rate * top
    with np.errstate(divide="ignore", invalid="ignore"):
        x = (allowed / near) ** (2 / D)
    x = np.where(near > 0, x, np.inf).min(axis=1)
    return np.maximum(x, x0)


def _either_side(kinks: np.ndarray) -> np.ndarray:
    """(M, m) the larger jump of the intervals either side of each grid point."""
    return np.maximum(kinks, np.concatenate([kinks[:1] * 0, kinks[:-1]]))


@dataclass(frozen=True, eq=False, repr=False)
class KinkCeiling:
    """:func:`kink_ceiling` for the law being planned: ``hodyn validate`` judges the played
    motion's top derivative against its own largest ``|q^(D-1)|``, which a faster law
    raises, so the ceiling follows the law (:meth:`at`: at the current x of a programme).
    That largest value is taken as at least the uniform scaling's (``least`` (m,): ``x0^((D-1)
    / 2) max |q^[D-1]|``) and the leading term ``|q^[D-1](s)| x(s)^((D-1)/2)`` at the grid
    points (``top`` (M, m): ``|q^[D-1]|`` there): held to the uniform scaling's alone, the
    ceiling kept the iiwa's path through a corner at rest 19 % slower than a law 0.2 of
    validate's tolerance from failing."""

    kinks: np.ndarray
    top: np.ndarray
    least: np.ndarray
    D: int
    x0: float
    rate: float

    @classmethod
    def of(cls, path: Trajectory, kinks: np.ndarray, peak: np.ndarray, x0: float,
           rate: float) -> KinkCeiling:
        """The ceiling on the grid ``path`` with its ``kinks`` (:meth:`PathGrid.grid`),
        ``peak`` (m,): the path's largest ``|q^[D-1]|`` (:attr:`PathGrid.peak`)."""
        D = path.orders
        return cls(kinks, np.abs(path.derivatives[:, -1]), x0 ** ((D - 1) / 2) * peak, D, x0,
                   rate)

    def window(self, a: int, b: int) -> KinkCeiling:
        """The ceiling at the grid points a .. b-1 (the played motion's largest value: the
        window's own, a lower bound on the whole path's)."""
        return replace(self, kinks=self.kinks[a:b], top=self.top[a:b])

    def points(self, cap: float | np.ndarray) -> np.ndarray:
        """The grid points where :meth:`at` can be below ``cap`` (an x, or one at each grid
        point): next to a kink whose
        ceiling at its lowest, the played motion's largest ``|q^(D-1)|`` at ``least`` (any
        law's is at least that, and a larger one raises the ceiling), is. Elsewhere no law
        within the cap meets the ceiling: the interpolants' own jumps at every sample of a
        smooth path (rounding, 1e-9 of ``q^[D]``) are kinks too, and a row at each of them
        (998 of the 1001 grid points of the iiwa's cosine) bounded nothing."""
        return np.flatnonzero(kink_ceiling(self.kinks, self.least, self.D, self.x0, self.rate)
                              < cap)

    def at(self, x: np.ndarray) -> np.ndarray:
        """(M,) the ceiling for a law that is x at the grid points."""
        top = np.maximum(self.least, (self.top * x[:, None] ** ((self.D - 1) / 2)).max(axis=0))
        return kink_ceiling(self.kinks, top, self.D, self.x0, self.rate)


def _partitions(grade: int, largest: int = 4) -> list[tuple[int, ...]]:
    """The monomials ``prod sigma_k`` of a grade: its partitions into parts <= ``largest``."""
    if grade == 0:
        return [()]
    return [p for n in range(1, grade + 1)
            for p in combinations_with_replacement(range(1, largest + 1), n) if sum(p) == grade]


def time_derivatives(X: np.ndarray) -> np.ndarray:
    """(E, K) ``sdot .. s^(K)`` from (E, K) ``x, x', ..., x^(K-1)`` (K = 4 .. 6; complex steps
    pass through), by ``d/dt = sqrt(x) d/ds`` order by order: ``sdot = sqrt(x)``, ``sddot =
    x'/2``, ``s''' = sqrt(x) x''/2``, ``s'''' = (x x''' + x' x''/2)/2``, ``s^(5) = sqrt(x)
    (x''^2/4 + 3 x' x'''/4 + x x''''/2)``, ``s^(6) = x' x''^2/8 + 3 x'^2 x'''/8 + 5 x x''
    x'''/4 + 3 x x' x''''/2 + x^2 x^(5)/2``: finite at x = 0 (a rest), where
    :func:`~hodyn_cli.algorithms.limits.jets.time_rates`' series divide by sqrt(x)."""
    x, x1, x2, x3 = X.T[:4]
    r = np.sqrt(x)
    out = [r, x1 / 2, r * x2 / 2, (x * x3 + x1 * x2 / 2) / 2]
    if X.shape[1] > 4:
        x4 = X[:, 4]
        out.append(r * (x2**2 / 4 + 3 * x1 * x3 / 4 + x * x4 / 2))
    if X.shape[1] > 5:
        out.append(x1 * x2**2 / 8 + 3 * x1**2 * x3 / 8 + 5 * x * x2 * x3 / 4
                   + 3 * x * x1 * x4 / 2 + x**2 * X[:, 5] / 2)
    return np.stack(out, axis=1)


def _rest_rates(X: np.ndarray) -> np.ndarray:
    """(E, K) ``sdot .. s^(K)`` from (E, K) ``x, x', ..., x^(K-1)``, x >= 0: finite at a rest
    (x = 0), where :func:`~hodyn_cli.algorithms.limits.jets.time_rates` divides by sqrt(x).
    With ``f = sqrt(x)``, ``s^(k) = f P_k`` for odd k and ``P_k`` for even k, P_k a series
    in s without a root: ``P_1 = 1``, ``s^(k+1) = f d/ds (f P_k) = x' P_k / 2 + x P_k'``
    (k odd), ``f P_k'`` (k even); each a product of truncated series, no division.

    >>> X = np.array([[4.0, 2.0, 6.0, 0.0], [0.0, 2.0, 6.0, 1.0]])
    >>> _rest_rates(X).round(12).tolist()   # the first: time_rates' example; the second at rest
    [[2.0, 1.0, 6.0, 3.0], [0.0, 1.0, 0.0, 3.0]]
    """
    E, K = X.shape
    x = X / np.array([factorial(j) for j in range(K)])
    slope = x[:, 1:] * np.arange(1, K)  # x' about each point
    root = np.sqrt(X[:, 0])
    P = np.zeros((E, K))
    P[:, 0] = 1.0
    out = np.empty((E, K))
    for k in range(K):  # (out[:, k] is s^(k+1): odd orders where k is even)
        out[:, k] = root * P[:, 0] if k % 2 == 0 else P[:, 0]
        if k + 1 < K:
            dP = P[:, 1:] * np.arange(1, P.shape[1])
            P = (product(slope, P, K - k - 2) / 2 + product(x, dP, K - k - 2)
                 if k % 2 == 0 else dP)
    return out


def _monomials_of(law: Law) -> tuple[tuple[int, ...], ...]:
    """The monomials of the time law's derivatives a series' law has: those of grade
    ``power + 2 p`` for each of its coefficients' powers p of the speed-up."""
    return tuple(m for p in range(law.coefficients.shape[-1])
                 for m in _partitions(law.power + 2 * p))


def _monomials(sigma: np.ndarray, monomials, made: dict | None = None) -> np.ndarray:
    """(E, n) the monomials at each row of sigma (E, 4). ``made``: the products of sigma's
    columns made so far (:func:`_product`), shared between calls on the same sigma."""
    made = {} if made is None else made
    out = np.empty((len(sigma), len(monomials)), dtype=sigma.dtype)
    for i, parts in enumerate(monomials):
        out[:, i] = _product(sigma, parts, made)
    return out


def _product(sigma: np.ndarray, parts: tuple[int, ...], made: dict) -> np.ndarray:
    """(E,) the product of sigma's columns ``parts`` (1-based), from ones, factor by factor
    in their order (the same numbers whichever monomial asks: a monomial's product is its
    first parts' times its last), each product of the first parts made once (``made``):
    the limits of a chunk ask for the same ones (a torque rate's ``(1, 2)`` and its
    acceleration's ``(1, 2, 2)``...)."""
    if parts not in made:
        made[parts] = (np.ones(len(sigma), dtype=sigma.dtype) if not parts else
                       _product(sigma, parts[:-1], made) * sigma[:, parts[-1] - 1])
    return made[parts]


class Derivatives:
    """The time law's derivatives at ``X`` (M, 4: x .. x''' at the grid points), at its four
    complex steps, and the monomials of both that limits ask for, each made once for every
    limit read at the same X (:meth:`PathLimit.values`, :meth:`PathLimit.gradient`): a
    chunk's limits share them (the iiwa's 1 kHz Fourier path with its limits file: six
    limits and a part had each made their own at every step of the sequential
    programmes; the same numbers)."""

    def __init__(self, X: np.ndarray) -> None:
        self.X = X
        self.sigma = time_derivatives(X)
        self._steps: np.ndarray | None = None
        self._monomials: dict[tuple, np.ndarray] = {}
        self._jacobians: dict[tuple, np.ndarray] = {}
        # (the products of sigma's columns at X, by their parts: every limit's monomials made
        # from them, :func:`_product`)
        self._products: dict[tuple, np.ndarray] = {}
        # (each limit's values at X, read-only: a step's check reads them and the next
        # step's model, at the same X, again; PathLimit.values)
        self._values: dict[PathLimit, np.ndarray] = {}

    def stepped(self) -> list[np.ndarray]:
        """The derivatives at ``X + i h e_d``, d = 0 .. 3 (h: the complex step)."""
        return list(self._stepped_all())

    def _stepped_all(self) -> np.ndarray:
        """(4, M, K) :meth:`stepped`'s, made in one pass over the four steps stacked (each
        row's numbers its own: the same as a step at a time, a quarter of the calls)."""
        if self._steps is None:
            eye = 1j * _COMPLEX_STEP * np.eye(4)
            stacked = np.concatenate([self.X + eye[d] for d in range(4)])
            self._steps = time_derivatives(stacked).reshape(4, len(self.X), -1)
        return self._steps

    def monomials(self, monomials: tuple) -> np.ndarray:
        """(M, n) the ``monomials`` at X."""
        if monomials not in self._monomials:
            self._monomials[monomials] = _monomials(self.sigma, monomials, self._products)
        return self._monomials[monomials]

    def jacobian(self, monomials: tuple) -> np.ndarray:
        """(M, n, 4) the ``monomials``' gradient in X (their complex steps: exact), the four
        steps' monomials made in one pass (stacked) and laid out as one per step stacked
        on the last axis was (the products after it read the same memory order). Their
        products are not kept (4 M complex numbers each: a dozen of them on a grid of
        MOST points is ~30 MB)."""
        if monomials not in self._jacobians:
            steps = self._stepped_all()
            at = _monomials(steps.reshape(-1, steps.shape[-1]), monomials)
            J = (at.imag / _COMPLEX_STEP).reshape(4, len(self.X), -1)
            self._jacobians[monomials] = np.ascontiguousarray(np.moveaxis(J, 0, -1))
        return self._jacobians[monomials]


@dataclass(frozen=True, eq=False, repr=False)
class PathLimit:
    """One limited series along the path, its joints' values at the grid points as polynomials
    in the time law's derivatives: ``sum_i coefficients[g, j, i] monomials[i](sigma) + a sigma_1
    + c tanh(b sigma_1)`` (``friction`` (a, c, b), or None) within ``lower .. upper``."""

    quantity: Quantity
    series: str
    joints: tuple[str, ...]
    lower: np.ndarray
    upper: np.ndarray
    power: int
    monomials: tuple[tuple[int, ...], ...]
    coefficients: np.ndarray  # (M, m, monomials)
    friction: np.ndarray | None = None  # (M, m, 3)

    @property
    def kind(self) -> str:
        """``affine`` (exactly linear in x, x'), ``rate`` (sqrt(x) times linear: the inner
        tangent) or ``linear`` (linearised)."""
        if self.friction is None and self.power == 0:
            return "affine"
        if self.friction is None and self.power == 1 and np.all(self.lower == -self.upper):
            return "rate"
        return "linear"

    def values(self, X: np.ndarray, at: Derivatives | None = None) -> np.ndarray:
        """(M, m) the values at the grid points for ``x, x', x'', x'''`` there (M, 4);
        ``at``: X's :class:`Derivatives`, shared with other limits (None: made here), which
        keeps them (read-only) for the next reader at the same X."""
        if at is None:
            at = Derivatives(X)
        elif self in at._values:  # (made for this X already: the same numbers)
            return at._values[self]
        sigma = at.sigma
        v = np.einsum("gi,gji->gj", at.monomials(self.monomials), self.coefficients)
        if self.friction is not None:
            a, c, b = np.moveaxis(self.friction, -1, 0)
            r = sigma[:, :1]
            v = v + a * r + c * np.tanh(b * r)
        v.flags.writeable = False  # (shared by every reader of ``at``)
        at._values[self] = v
        return v

    def gradient(self, X: np.ndarray, at: Derivatives | None = None
                 ) -> tuple[np.ndarray, np.ndarray]:
        """``(V, G)``: V (M, m) the values at the grid points for ``x, x', x'', x'''`` there
        (M, 4), G (M, m, 4) their gradient in them: the monomials' (and friction's)
        complex steps (exact: no subtraction), then through the coefficients once, a real
        product (the whole limit stepped four times in complex numbers cost ~4 times as
        much: 0.2 of the 0.67 s of the sequential programmes on the iiwa's 1 kHz Fourier
        path, benchmarks/README.md, 2026-11-30, jerkspeed). ``at``: X's
        :class:`Derivatives`, shared with other limits (None: made here)."""
        at = Derivatives(X) if at is None else at
        G = self.coefficients @ at.jacobian(self.monomials)  # (M, m, 4)
        if self.friction is not None:
            a, c, b = np.moveaxis(self.friction, -1, 0)
            for d, s in enumerate(at.stepped()):
                r = s[:, :1]
                G[..., d] += (a * r + c * np.tanh(b * r)).imag / _COMPLEX_STEP
        return self.values(X, at), G

    def usage(self, X: np.ndarray) -> float:
        """The largest ``|value - centre| / half-width`` at the grid points."""
        centre, half = (self.lower + self.upper) / 2, (self.upper - self.lower) / 2
        return float((np.abs(self.values(X) - centre) / half).max())

    def linear(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(F, G)``: F (M, m) the values (divided by sqrt(x) for a ``rate``) and G (M, m, 4)
        their gradient in ``x, x', x'', x'''`` (complex steps: exact)."""
        def f(Y):
            v = self.values(Y)
            return v / np.sqrt(Y[:, :1]) if self.kind == "rate" else v

        step = 1e-30
        G = np.stack([f(X + 1j * step * np.eye(4)[d]).imag / step for d in range(4)], axis=-1)
        return f(X.astype(complex)).real, G


def path_limits(model: Model, grid: Trajectory, limits: Limits, order: int, *,
                gravity=GRAVITY, drives: Drives | None = None, kind: str = "full"
                ) -> list[PathLimit]:
    """Every speed-dependent limited series at the samples of ``grid`` (the path: its times
    are s, its derivatives by s) as polynomials in the time law's derivatives: the dynamics
    of the motions that leave each sample with the time-law derivatives of :data:`PROBES`
    (rigid to torque order ``order``, or with rigid ``drives``), fitted monomial by monomial."""
    full = model.coupling.expand(grid)
    # (rigid drives' laws read the torques whatever is limited: q to max(order, 0) + 2, as
    # feasibility.requirements says; a motor torque alone is limited at order -1)
    need = order if drives is None else max(order, 0)
    q = full.derivatives[:, : need + 3]
    # (the backend's Data once for every probe: made by each, the kernels' model struct was
    # 0.8 s of the ~7.5 s of path_limits on a 10^5-sample path, 1.5 ms a probe; none where
    # no dynamics run: the joints' own speeds)
    data = backends.prepare(model)[1] if order >= 0 or drives is not None else None

    def probed(sigmas: np.ndarray, path: np.ndarray) -> list[dict[str, Law]]:
        # (the probes side by side in one block: their inverse dynamics share the positions'
        # work, the joint adjoints, made once: feasibility.probe_laws)
        jets = np.empty((len(sigmas),) + path.shape)
        for sigma, jet in zip(sigmas, jets, strict=True):
            compose(path, np.broadcast_to(sigma[: need + 2], (len(path), need + 2)), out=jet)
        # (whole: the probes' laws are read at speed-up 1 alone, below: rigid torques from one
        # inverse dynamics instead of two, ~2.5 s of 10^5 samples' ~50 s; benchmarks/README.md,
        # branches long9, long11, long12)
        return probe_laws(model, full.joint_names, jets, order=order, gravity=gravity,
                          drives=drives, kind=kind, data=data)

    # (the series and their monomials from the first probe's laws at one point, their form
    # alone: then every probe's dynamics run together, the first's too)
    form = probed(PROBES[:1], q[:1])[0]
    limited = [(quantity, series, cols, lower, upper, _monomials_of(form[series]))
               for quantity, series, cols, lower, upper
               in limited_series(model, limits, form) if quantity.key != "position"]
    # (the dynamics are the probes' cost: as many as the most monomials a series has, the
    # first PROBES determining them, 3 of the 16 for torques: 10^5 samples' reachability
    # grid spent 14 of 39 s in them)
    needed = max((len(monomials) for *_, monomials in limited), default=1)
    probes = probed(PROBES[:needed], q)
    out = []
    for quantity, series, cols, lower, upper, monomials in limited:
        law: Law = probes[0][series]
        A = _monomials(PROBES[: len(probes)], monomials)
        V = np.stack([replace(p[series], friction=None).at(1.0)[:, cols] for p in probes])
        # (A is probes x monomials, V every point and joint: the pseudo-inverse once, not a
        # least-squares solve of each of the many right-hand sides)
        coef = np.linalg.pinv(A) @ V.reshape(len(probes), -1)
        out.append(PathLimit(quantity, series, tuple(law.joint_names[c] for c in cols), lower,
                             upper, law.power, monomials,
                             np.moveaxis(coef.reshape((len(monomials),) + V.shape[1:]), 0, -1),
                             None if law.friction is None else law.friction[:, cols]))
    return out


# -- the time law ------------------------------------------------------------------------


def _design(knots: np.ndarray, degree: int, s: np.ndarray, nu: int) -> Rows:
    """(len(s), coefficients) sparse: the nu-th derivative of the B-spline at s, linear in its
    coefficients (a derivative is the spline of degree - 1 on the inner knots whose
    coefficients are the scaled differences ``p (c_(i+1) - c_i) / (t_(i+p+1) - t_(i+1))``:
    the product with their bidiagonal, as scipy.sparse's was, :mod:`~hodyn_cli.algorithms.
    limits.banded`)."""
    if nu == 0:
        return _basis_matrix(knots, degree, s)
    n = len(knots) - degree - 1
    span = knots[degree + 1 : degree + n] - knots[1:n]
    return _design(knots[1:-1], degree - 1, s, nu - 1).differenced(-degree / span,
                                                                   degree / span)


def _basis_matrix(knots: np.ndarray, degree: int, s: np.ndarray) -> Rows:
    """(len(s), coefficients) the B-splines of ``degree`` on ``knots`` at s (within the knots'
    span), the k + 1 that do not vanish at each point stored, zeros included: de Boor and
    Cox's recurrence (de Boor, *A Practical Guide to Splines*, rev. ed., 2001, ch. X, (2))
    as Dierckx's ``fpbspl`` runs it, every point at once: ``B_(i,j) = (x - t_i) / (t_(i+j) -
    t_i) B_(i,j-1) + (t_(i+j+1) - x) / (t_(i+j+1) - t_(i+1)) B_(i+1,j-1)``, a coincident
    knot's term 0. ``scipy.interpolate.BSpline.design_matrix``'s arrays to the bit
    (tests/test_programme_design.py), without importing ``scipy.interpolate``, which imports
    ``scipy.optimize``: ~0.44 s of CPU of every run of the windows (0.35 s of it the
    imports), as long as their programmes took on a 1000-sample path. Not
    :func:`~hodyn_cli.algorithms.backends.numpy.reach.basis`, the same recurrence: that divides
    by ``(t_(i+j) - x) + (x - t_i)``, fpbspl by the knots' difference, a rounding apart, and
    the windows' laws are scipy's to the bit."""
    k, n = degree, len(knots) - degree - 1
    left = reach.interval(knots, k, s)
    h = np.zeros((len(s), k + 1))
    h[:, 0] = 1.0
    for j in range(1, k + 1):
        before = h[:, :j].copy()
        h[:, 0] = 0.0
        for i in range(j):
            b, a = knots[left + i + 1], knots[left + i + 1 - j]
            same = b == a
            f = before[:, i] / np.where(same, 1.0, b - a)
            h[:, i] = np.where(same, h[:, i], h[:, i] + f * (b - s))
            h[:, i + 1] = np.where(same, 0.0, f * (s - a))
    return band(left - k, h, n)


@dataclass(frozen=True, eq=False, repr=False)
class TimeLaw:
    """``x(s) = sdot^2``, a B-spline on the grid ``breaks``; ``times``: t at each break."""

    breaks: np.ndarray
    coefficients: np.ndarray
    degree: int

    @property
    def knots(self) -> np.ndarray:
        b, p = self.breaks, self.degree
        return np.concatenate([np.full(p, b[0]), b, np.full(p, b[-1])])

    @property
    def spline(self) -> BSpline:
        return BSpline(self.knots, self.coefficients, self.degree, extrapolate=False)

    @property
    def greville(self) -> np.ndarray:
        """(coefficients,) the coefficients' Greville abscissae, each the mean of the p knots
        after its first (where a spline's coefficients reproduce a line: x at s, the
        coefficient at its abscissa, to first order)."""
        p = self.degree
        return np.lib.stride_tricks.sliding_window_view(self.knots[1:], p)[
            :len(self.coefficients)].mean(axis=1)

    @property
    def held(self) -> tuple[bool, bool]:
        """Whether x is 0 at the first and at the last break: the law starts (ends) at rest
        (:func:`ramped`; its first or last coefficient, the spline's value there, is 0)."""
        return bool(self.coefficients[0] == 0), bool(self.coefficients[-1] == 0)

    def _elapsed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``int_a^b ds / sqrt(x)`` for a <= b inside one grid interval each (Gauss-Legendre).
        Where a or b is a break at which x is :attr:`held` at 0, x ~ (s - rest) and 1/sqrt(x)
        is singular there: with ``s = a + (b - a) w(u)``, ``w = 3 u^2 - 2 u^3`` (w' = 6 u (1 -
        u) vanishes at both ends) the integrand is smooth in u."""
        mid, half = (a + b) / 2, (b - a) / 2
        first, last = self.held
        if not (first or last):
            x = self.spline(mid[:, None] + half[:, None] * NODES)
            return half * (WEIGHTS / np.sqrt(x)).sum(axis=1)
        rest = (first & (a == self.breaks[0])) | (last & (b == self.breaks[-1]))
        out = np.zeros(len(a))
        inner = ~rest & (b > a)
        x = self.spline(mid[inner, None] + half[inner, None] * NODES)
        out[inner] = half[inner] * (WEIGHTS / np.sqrt(x)).sum(axis=1)
        rest &= b > a
        u = (NODES + 1) / 2
        span = (b - a)[rest, None]
        x = self.spline(a[rest, None] + span * (3 * u**2 - 2 * u**3))
        out[rest] = (span * 6 * u * (1 - u) / np.sqrt(x) * WEIGHTS / 2).sum(axis=1)
        return out

    @property
    def duration(self) -> float:
        """T = int ds / sqrt(x) over the whole path."""
        return float(self.times[-1])

    def across(self, a: float, b: float) -> float:
        """``int_a^b ds / sqrt(x)`` for a and b on breaks."""
        inside = self.breaks[(self.breaks >= a) & (self.breaks <= b)]
        return float(self._elapsed(inside[:-1], inside[1:]).sum())

    def inside(self, a: float, b: float) -> np.ndarray:
        """The coefficients whose B-splines lie within a .. b (the others are held)."""
        t, p = self.knots, self.degree
        j = np.arange(len(self.coefficients))
        return j[(t[j] >= a) & (t[j + p + 1] <= b)]

    @property
    def times(self) -> np.ndarray:
        b = self.breaks
        return np.concatenate([[0.0], np.cumsum(self._elapsed(b[:-1], b[1:]))])

    def time_at(self, s: np.ndarray, times: np.ndarray | None = None) -> np.ndarray:
        """t(s) (``times``: :attr:`times`, if already known)."""
        times = self.times if times is None else times
        i = np.clip(np.searchsorted(self.breaks, s, side="right") - 1, 0, len(self.breaks) - 2)
        out = times[i] + self._elapsed(self.breaks[i], s)
        if self.held[1]:  # (from the end at rest back: from the break before, x vanishes
            # just beyond s, where the integrand is singular)
            end = i == len(self.breaks) - 2
            out[end] = times[-1] - self._elapsed(s[end], np.full(end.sum(), self.breaks[-1]))
        return out

    def s_at(self, t: np.ndarray, times: np.ndarray | None = None) -> np.ndarray:
        """s(t): Newton's method on t(s) inside each sample's grid interval (dt/ds =
        1/sqrt(x)), safeguarded to the interval; where x is constant, linear."""
        times = self.times if times is None else times
        b = self.breaks
        i = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(b) - 2)
        lo, hi = b[i], b[i + 1]
        s = np.clip(lo + (t - times[i]) * np.sqrt(self.spline(lo)), lo, hi)
        if np.all(self.coefficients == self.coefficients[0]):  # x constant: s linear in t
            # (exact: the Newton steps' spline values were a tenth of a 10^5-sample
            # --optimal, whose final fits play the reachability law's motion uniformly)
            return s
        for _ in range(NEWTON):
            s = np.clip(s - (times[i] + self._elapsed(lo, s) - t) * np.sqrt(self.spline(s)),
                        lo, hi)
        first, last = self.held
        for held, end, side in ((first, 0, 1.0), (last, len(b) - 2, -1.0)):
            at = held & (i == end)
            if at.any():
                s[at] = self._from_rest(t[at], side, times)
        return s

    def _from_rest(self, t: np.ndarray, side: float, times: np.ndarray) -> np.ndarray:
        """s(t) in the first (``side`` 1) or last (-1) grid interval where x is held at 0 at
        the path's end r: Newton's method on ``v = sqrt(|s - r|)``, in which t is smooth
        (``x ~ x'(r) (s - r)``: ``|t - t(r)| ~ 2 v / sqrt(|x'(r)|)``, where Newton's steps in
        s from r would not move)."""
        b, spline = self.breaks, self.spline
        r, far, t_r = (b[0], b[1], times[0]) if side > 0 else (b[-1], b[-2], times[-1])
        slope = abs(float(spline.derivative(1)(np.array([r]))[0]))
        v = np.clip(np.sqrt(slope) * np.abs(t - t_r) / 2, 0.0, np.sqrt(abs(far - r)))
        moved = v > 0  # (t at the rest itself: s = r)
        for _ in range(2 * NEWTON):
            s = r + side * v[moved] ** 2
            ends = (r, s) if side > 0 else (s, r)
            elapsed = self._elapsed(np.broadcast_to(ends[0], s.shape).copy(),
                                    np.broadcast_to(ends[1], s.shape).copy())
            step = (elapsed - np.abs(t[moved] - t_r)) * np.sqrt(spline(s)) / (2 * v[moved])
            v[moved] = np.clip(v[moved] - step, 1e-300, np.sqrt(abs(far - r)))
        return r + side * v**2

    def rates(self, s: np.ndarray, K: int) -> np.ndarray:
        """(E, K) ``sdot .. s^(K)`` at s. (x's derivatives from the splines of its
        coefficients' differences: summing the basis functions' own derivatives instead
        leaves ``1e-16 x / h^k`` of rounding in the k-th, h the knots' spacing, which on a
        fine grid is beyond the played motion's top derivatives' consistency.)"""
        spline = self.spline
        X = spline.jet(s, K)
        return _rest_rates(X) if any(self.held) else time_rates(X)


def _excess(exact: list[PathLimit], linear: list[PathLimit], X: np.ndarray) -> float:
    """How far the ``linear``-ised limits are beyond their bands at the grid points where x
    and its first three derivatives are X (inf: x is not positive, or an ``exact`` one is
    beyond)."""
    if X[:, 0].min() <= 0 or any(lim.usage(X) > 1 + FEASIBLE for lim in exact):
        return np.inf
    return max([lim.usage(X) - 1 for lim in linear], default=0.0)


def _beside_rest(s: np.ndarray, at_rest: np.ndarray) -> np.ndarray:
    """(M,) a bound on :func:`solve`'s pace nu (per unit of s) at the grid points s: at both
    ends of the grid interval next to a rest where x is held at 0 (``at_rest``), SMOOTH over
    that interval's length, the bound an output sample that long would set (``SMOOTH rate /
    sqrt(x0)``: x changes by ~SMOOTH^k of itself through its k-th derivative within it);
    infinite elsewhere. There the pace bound ``PACE scale sqrt(x0 / x)`` bounds nothing (x ->
    0) and the limits are kept only at the interval's ends, while x rises from 0 as the
    played motion leaves the rest: on a fine output (its rate's bound loose) the windows'
    law bent within that interval, beyond the limits between its ends (the 2R arm's half
    cosine at 20 Hz to ``--rate 1000`` with ``--jerk 50``: 1.69 times the jerk limit at t =
    0.012 s, the windows gave way to the uniform scaling, auto kept reachability's 1.346 s;
    bounded so, the windows' 0.900 s, within the limits between the grid points, as at
    ``--rate 200``, 0.909 s; benchmarks/README.md, 2026-11-30, auto4).

    >>> _beside_rest(np.linspace(0, 1, 6), np.array([True] + [False] * 5)).tolist()
    [0.5, 0.5, inf, inf, inf, inf]
    """
    bound = np.full(len(s), np.inf)
    for end, inner in ((0, 1), (-1, -2)):
        if at_rest[end] and len(s) > 1:
            bound[[end, inner]] = SMOOTH / abs(s[inner] - s[end])
    return bound


def solve(s: np.ndarray, limits: list[PathLimit], x0: float, degree: int, rate: float,
          scale: float = 0.0, ceiling: KinkCeiling | None = None, pace: float = PACE,
          law: TimeLaw | None = None, cap: float = CAP, slow: np.ndarray | None = None,
          beat: float = 0.0, stretched: Stretches | None = None) -> TimeLaw:
    """The time law of least duration on the grid s within ``limits`` at the grid points,
    from the feasible constant ``x0`` (module docstring: linear programmes, inner tangents of
    the rate limits, a trust region, T decreasing). Linearised limits may overshoot by each
    of :data:`SLACKS` in turn: a step from beyond the next one back within it is taken even
    where T grows. The time law's derivatives stay within :data:`SMOOTH`'s bounds (``rate``:
    the output's samples per second; ``scale``: the path's :func:`time_scale`, 0: none;
    ``pace``: :data:`PACE`'s; ``slow``: the path's :func:`slowness` at the grid points, None:
    1), and x within ``ceiling`` at the grid points (:class:`KinkCeiling`, at the current x
    and never below it; None: none), and the path speed within ``cap`` times the uniform one
    (:data:`CAP`), or ``cap v`` times it (``stretched``: the stretches' v, :func:`stretches`,
    at the grid points s and at every coefficient of the law).

    ``law``: a feasible law on a longer grid of which s is a window (:func:`solve_windows`):
    only its coefficients whose B-splines lie within s change, T is the time across s; one
    that is 0, x held at 0 at a rest (:func:`ramped`), stays 0.

    ``beat``: the law is of use only shorter than this across s (0: any law): the law so
    far is returned once it cannot get there at its recent pace (:data:`STRIDE`)."""
    if law is None:
        law = TimeLaw(np.append(s[:-1:KNOTS], s[-1]), np.full(
            len(s[:-1:KNOTS]) + degree, x0), degree)
    free = law.inside(s[0], s[-1])
    free = free[law.coefficients[free] != 0]  # (x held at 0 at a rest: :func:`ramped`)
    D = [_design(law.knots, degree, s, nu) for nu in range(4)]
    weights = np.gradient(s) if len(s) > 1 else np.ones(1)  # trapezoid weights of int ds
    # (the caps as x, at the grid points and at the coefficients)
    floor, most = x0 * 1e-8, (x0 * cap**2 if stretched is None else
                              x0 * (cap * stretched.grid) ** 2)
    capped = most if stretched is None else x0 * (cap * stretched.coefficients) ** 2
    # the grid points where x is held at 0 (a rest: every limit is static or 0 there, and T's
    # integrand, whose integral is finite, is singular) have no rows and no weight in T's
    # tangent; the limits are imposed at every other grid point (Dl: their design matrices)
    at_rest = np.zeros(len(s), bool)
    at_rest[[0, -1]] = np.array(law.held) & (s[[0, -1]] == law.breaks[[0, -1]])
    Dl = D
    if at_rest.any():
        Dl = [Dn[~at_rest] for Dn in D]
        limits = [replace(lim, coefficients=lim.coefficients[~at_rest], friction=None
                          if lim.friction is None else lim.friction[~at_rest])
                  for lim in limits]
        weights = np.where(at_rest, 0.0, weights)
    exact = [lim for lim in limits if lim.kind != "linear"]
    linear = [lim for lim in limits if lim.kind == "linear"]

    def grid(c):
        return np.stack([Dn @ c for Dn in D], axis=1)

    def excess(c) -> float:
        return _excess(exact, linear, grid(c)[~at_rest])

    # |x^(k)| <= 2 x1 nu^k, k = 2 .. degree (x1 = max(x0, min(x, x0 v))): a time law smooth on
    # the output's sampling and on the path's time scale (the LP's solutions chatter in the
    # highest derivatives, which the limits leave free: the top one, x^(degree), is in the
    # output's q^(degree + 1))
    orders = range(2, degree + 1)
    bends = [_design(law.knots, degree, s, k) for k in orders]
    beside = _beside_rest(s, at_rest)

    def smooth_rows(x: np.ndarray) -> tuple[Rows, np.ndarray]:
        """The rows ``x^(k) / (2 x1 nu^k)`` (within -1 .. 1) at the current x, each scaled by
        a power of two to its largest entry :data:`ENTRY` at most, and their bounds (1
        scaled as its row)."""
        nu = np.minimum(SMOOTH * rate / np.sqrt(x0), beside)
        if scale > 0:  # nu sqrt(x): the law's pace in time, the path's at the uniform speed
            with np.errstate(divide="ignore"):  # (x = 0 at a rest: the pace bounds nothing)
                nu = np.minimum(nu, pace * scale * np.sqrt(x0 / x))
        # (x0 the whole path's, where each stretch between rests has its own cap too: x0 v^2
        # there, review43's remedy, took the Baxter zigzag's windows law 3.696 -> 3.607 s and
        # its torque accelerations' 4.594 -> 4.573 s, but its loop 2.7732 -> 2.8906 s, +4.2 %)
        x1 = x0 if slow is None else np.maximum(x0, np.minimum(x, x0 * slow))
        rows = stacked([Dk.scaled(1 / (2 * x1 * nu**k))
                        for k, Dk in zip(orders, bends, strict=True)])
        largest = abs(rows).max(axis=1)
        w = np.exp2(-np.maximum(np.ceil(np.log2(np.maximum(largest, 1e-300) / ENTRY)), 0.0))
        # (stored in increasing columns before they are scaled: so scipy's ``abs(rows)`` left
        # them, sorted in place, and the windows' laws are scipy's to the bit)
        return rows.canonicalised().scaled(w), w

    # (a row at every grid point where some law's ceiling is below the cap, whether the
    # current law's is or not: the programmes of a window then have the same rows, and each
    # starts from the last one's basis; with a row only where the ceiling held, 7 of the Z1's
    # 28 programmes on its point-to-point path with --jerk 500 started from scratch)
    kinked = np.zeros(0, int) if ceiling is None else ceiling.points(most)
    kink_cap = np.broadcast_to(most, s.shape)[kinked]  # (the cap as x at those points)

    def kink_rows(x: np.ndarray) -> tuple[Rows, np.ndarray]:
        """At the grid points next to a kink, the rows ``x / ceiling`` at the current x (which
        the last programme kept within its own) and their upper bounds: 1 where the ceiling is
        below the cap, none (infinite) where the cap holds x."""
        assert ceiling is not None
        top = np.maximum(ceiling.at(x), x)[kinked]
        held = top < kink_cap
        return D[0][kinked].scaled(1 / np.where(held, top, kink_cap)), np.where(held, 1.0, np.inf)

    T, rho, converged = law.across(s[0], s[-1]), 1.0, False
    active = None  # the last programme's rows and basis (:class:`_Active`)
    slacks = SLACKS if linear else SLACKS[-1:]
    for level, slack in enumerate(slacks):
        beyond = excess(law.coefficients) > slack
        if converged and not beyond:
            # the law that converged at the looser slack is within this one: it is this one's
            # optimum too (a tighter slack only shrinks the feasible set), and its programmes
            # would be re-solved only to be rejected, rho shrinking to its floor
            continue
        converged = False
        gains: list[float] = []  # (T's relative decrease at each step in a row at WIDEST)
        for iteration in range(ITERATIONS):
            c = law.coefficients
            X = grid(c)
            A, lb, ub = _programme(limits, X[~at_rest], Dl)
            rows, w = smooth_rows(X[:, 0])
            blocks = [A, rows]
            lb, ub = np.append(lb, -w), np.append(ub, w)
            if kinked.size:  # x <= ceiling: below 1 after scaling
                rows, top = kink_rows(X[:, 0])
                blocks.append(rows)
                lb, ub = np.append(lb, np.full(kinked.size, -np.inf)), np.append(ub, top)
            A = stacked(blocks)
            fixed = c.copy()
            fixed[free] = 0.0
            # the part of each row the coefficients outside s hold (none on a grid of one
            # window: exactly 0, a sum of zeros)
            held = A @ fixed if fixed.any() else np.zeros(A.shape[0])
            A, lb, ub = A.columns_of(free), lb - held, ub - held
            xs = np.where(at_rest, x0, X[:, 0])  # (its weight 0 at a rest)
            objective = -D[0].tdot(weights / (2 * xs**1.5))[free]
            now = c[free]
            bounds = _Box(np.maximum(floor, now / (1 + rho)), np.minimum(
                capped if stretched is None else capped[free], now * (1 + rho)))
            try:
                gradient = objective / np.abs(objective).max()
                x, active = _smooth_programme(gradient, bounds, A, lb, ub, now,
                                              _roughness(gradient, x0), active)
            except Stalled:  # a step is not found in budget: the law so far is the answer
                return law
            if x is not None and not beyond and objective @ (now - x) < CONVERGED * T:
                # T is convex, so above its tangent: the step shortens it by less than the
                # tangent's objective @ (now - x), and by less than CONVERGED of it (the
                # steps tried would be rejected, each one more programme)
                converged = True
                break
            for alpha in (1.0, 0.5, 0.25, 0.125) if x is not None else ():
                step = c.copy()
                step[free] = now + alpha * (x - now)
                trial = replace(law, coefficients=step)
                if excess(trial.coefficients) <= slack and (
                        beyond or (Tn := trial.across(s[0], s[-1])) < T):
                    break
            else:
                rho /= 4
                if rho < (1e-4 if beyond else TRUST):  # nothing left in reach
                    converged = not beyond
                    break
                continue
            Tn = trial.across(s[0], s[-1])
            # (a step from beyond the slack, which may lengthen T, or in a narrower trust
            # region tells nothing of the widest one's pace)
            gains = gains + [(T - Tn) / T] if rho == WIDEST and not beyond else []
            law, gain, T, beyond = trial, T - Tn, Tn, False
            rho = min(2 * rho, WIDEST) if alpha == 1 else rho
            if 0 <= gain < CONVERGED * T:
                converged = True
                break
            left = (len(slacks) - level) * ITERATIONS - iteration - 1
            if len(gains) >= STRIDE and T * (1 - max(gains[-STRIDE:])) ** left >= beat > 0:
                return law
    return law


#: the start law's ramp from a rest where x is held at 0 (:func:`ramped`) is RAMP / nu of the
#: path long (nu: :func:`solve`'s rate of x's derivatives at x0), so that x's derivatives are
#: within their rows' bounds, ``(n! / (2 (n - k)!))^(1/k) / nu`` for k = 2 .. 5, n = 6, at most
#: 3.9 / nu
RAMP = 4.0
#: and x lowered by half at most LOWER times until the ramp is within the limits
LOWER = 20


def ramped(law: TimeLaw, lengths: tuple[float | None, float | None]) -> TimeLaw:
    """``law`` held at x = 0 at the grid's first and/or last point and ramped to it over
    ``lengths`` of the path from each (None: that end not held; at most half the path): x
    times ``1 - (1 - u)^(p + 1)``, p the spline's degree, u the distance from the rest over
    the length, at the coefficients' Greville abscissae (where a spline's coefficients
    reproduce a line: x ~ (s - rest), so the played motion leaves the rest with ``s - rest ~
    t^2`` and ``q'' = q^[2] x + q' x'/2`` is 0 there, q' being 0: no step of acceleration
    whatever the path's q^[2]; T stays finite, ``int ds / sqrt(x)``).

    >>> law = ramped(TimeLaw(np.linspace(0, 1, 5), np.full(9, 2.0), 5), (0.5, None))
    >>> law.held, law.coefficients.round(3).tolist()
    ((True, False), [0.0, 0.937, 1.765, 1.992, 2.0, 2.0, 2.0, 2.0, 2.0])
    """
    p, b, greville = law.degree, law.breaks, law.greville
    rise = np.ones_like(greville)
    for length, distance in zip(lengths, (greville - b[0], b[-1] - greville), strict=True):
        if length is not None:
            u = np.minimum(distance / min(length, (b[-1] - b[0]) / 2), 1.0)
            rise *= 1 - (1 - u) ** (p + 1)
    held = np.array([length is not None for length in lengths])
    rise[[0, -1]] = np.where(held, 0.0, rise[[0, -1]])  # (exactly 0: the rests' values)
    return replace(law, coefficients=law.coefficients * rise)


def _smoothstep(u, p: int):
    """The smoothstep of order p, ``S(u) = sum_{j>p} C(2p+1, j) u^j (1-u)^(2p+1-j)`` (0 at 0, 1
    at 1, flat to its p-th derivative at both): of an array of u, or of numpy's Polynomial
    ``u`` (the polynomial itself, :func:`ease_floor` takes its derivatives)."""
    n = 2 * p + 1
    return sum(comb(n, j) * u**j * (1 - u) ** (n - j) for j in range(p + 1, n + 1))


@cache
def ease_floor(p: int) -> float:
    """The shortest ramp of :func:`eased`, in knot intervals, for a spline of degree p: the
    least m at which the smoothstep over m intervals changes x no more abruptly than a step
    between two neighbouring coefficients, through every derivative the spline has. Over m
    intervals h its k-th derivative is at most ``max |S^(k)| / (m h)^k`` of the change; a
    step's, the k-th difference of the coefficients over h^k, at most ``C(k - 1, (k - 1) //
    2) / h^k`` (the largest k-th difference of a unit step, the (k-1)-th of an impulse): m =
    ``max_k (max |S^(k)| / C(k - 1, (k - 1) // 2))^(1/k)``, k = 1 .. p. A shorter ramp is a
    step to the spline: no coefficient, or one, between the stretch's f and the law's own
    (4.44 intervals at degree 5, 6.70 at 8).

    >>> [round(ease_floor(p), 2) for p in (5, 6, 8)]
    [4.44, 5.24, 6.7]
    """
    S, u = _smoothstep(np.polynomial.Polynomial([0.0, 1.0]), p), np.linspace(0.0, 1.0, 4097)
    return max((float(np.abs(S.deriv(k)(u)).max()) / comb(k - 1, (k - 1) // 2)) ** (1 / k)
               for k in range(1, p + 1))


def eased(law: TimeLaw, a: float, b: float, f: float, length: float) -> TimeLaw:
    """``law`` with x times ``f`` (< 1) on the path's ``a`` .. ``b`` (a stretch between rests,
    :func:`rests_inside`) and as it is farther than ``length`` from it, between them times
    ``f + (1 - f) S(u)`` (u: the distance over ``length``; S the smoothstep of order p, the
    spline's degree, :func:`_smoothstep`, flat to its p-th derivative at 0 and 1), at the
    coefficients' Greville abscissae: the played motion is slower only
    near that stretch, and x's derivatives change as little as a ramp of that length allows,
    so that a law within the smoothness rows stays near them (a step of x there would break
    them). ``length`` is at least :func:`ease_floor` knot intervals (the longest of those at
    the stretch's ends): half a stretch of a sample or two is shorter than one, which left
    the ramp a step (the coefficients beside the stretch at f and the law's own). On the
    stretch and beyond the ramp the limits hold as they held the law (x and
    its derivatives scaled alike: all of them but gravity's torque fall with x); within the
    ramp x' gains ``(1 - f) S'(u) x / length``, whose torque (``q' x' / 2``) may take a limit
    beyond: :func:`solve` then steps back within first (its ``beyond`` steps). Measured
    (review45): the 2R's two legs at 0.889 of their limits there, the xArm7's corner at
    1 + 8e-9.

    >>> law = eased(TimeLaw(np.linspace(0, 8, 17), np.full(21, 4.0), 5), 6.0, 8.0, 0.25, 4.0)
    >>> law.coefficients[6:15].round(3).tolist()   # (Greville abscissae 2, 2.5, .., 6)
    [4.0, 3.997, 3.897, 3.417, 2.5, 1.583, 1.103, 1.003, 1.0]
    >>> law = eased(TimeLaw(np.linspace(0, 4, 5), np.full(9, 4.0), 5), 3.0, 4.0, 0.25, 1.0)
    >>> law.coefficients.round(3).tolist()   # (a ramp of one knot interval: at its floor)
    [3.671, 3.447, 2.822, 1.773, 1.062, 1.0, 1.0, 1.0, 1.0]
    """
    p, greville, breaks = law.degree, law.greville, law.breaks
    # (the knot intervals the ramps begin in: left of a, right of b)
    ends = np.clip([np.searchsorted(breaks, a, side="left") - 1,
                    np.searchsorted(breaks, b, side="right") - 1], 0, len(breaks) - 2)
    length = max(length, ease_floor(p) * float(np.diff(breaks)[ends].max()))
    u = np.clip(np.maximum(a - greville, greville - b) / length, 0.0, 1.0)
    return replace(law, coefficients=law.coefficients * (f + (1 - f) * _smoothstep(u, p)))


def _ramped_within(law: TimeLaw, rests: tuple[bool, bool], s: np.ndarray, limits,
                   length: float) -> TimeLaw:
    """:func:`ramped` at the ``rests`` held, each ramp ``length`` long, and x lowered by 1/2,
    1/4, ... (at most :data:`LOWER` times) until the limits hold at the grid points s the
    ramps span (``limits(a, b)``: :func:`solve_windows`'): :func:`solve` starts from a
    feasible law. Beyond the ramps the law is uniform and slower than x0, the uniform
    scaling's, which holds every limit at any slower playing. A rest no such ramp fits is not
    held (the law there as before: a step of acceleration)."""
    lengths: list[float | None] = []
    lowered = 1.0
    for end, held in enumerate(rests):
        if not held:
            lengths.append(None)
            continue
        trial = ramped(law, (length, None) if end == 0 else (None, length))
        # (the grid points the ramp spans, the rest's own left out: one at least)
        a, b = ((1, max(int(np.searchsorted(s, s[0] + length, side="right")), 2)) if end == 0
                else (min(int(np.searchsorted(s, s[-1] - length)), len(s) - 2), len(s) - 1))
        spline, window = trial.spline, limits(a, b)
        X = np.stack([spline(s[a:b])] + [spline.derivative(nu)(s[a:b]) for nu in (1, 2, 3)],
                     axis=1)
        exact = [lim for lim in window if lim.kind != "linear"]
        linear = [lim for lim in window if lim.kind == "linear"]
        # (x and its derivatives scale alike: the played motion's dynamic terms fall with x)
        fits = [2.0**-i for i in range(LOWER + 1) if _excess(exact, linear, X * 2.0**-i) <= 0]
        lengths.append(length if fits else None)
        lowered = min(lowered, max(fits, default=1.0))
    return ramped(replace(law, coefficients=law.coefficients * lowered),
                  (lengths[0], lengths[1]))


#: grid points per programme of :func:`solve_windows`, and how many of them the next one
#: takes again (HiGHS's time grows faster than the programme: 5001 points of the iiwa's
#: cosine took 13.7 s in windows of 2000 and 8.8 s in windows of 500, the law's duration the
#: same within 1e-5; but each window's law returns to the uniform x at its end, which where
#: torque rates bind is slow: a rate-limited point-to-point design of the iiwa on 1171 points
#: took 24.3 s in windows of 500 against 15.6 s in one)
WINDOW = 2000
OVERLAP = 500


def solve_windows(s: np.ndarray, limits, x0: float, degree: int, rate: float,
                  scale: float = 0.0, ceiling: KinkCeiling | None = None, pace: float = PACE,
                  progress: Callable[[int, int], None] | None = None, cap: float = CAP,
                  slow: np.ndarray | None = None, start: TimeLaw | None = None,
                  rests: tuple[bool, bool] = (False, False), beat: float = 0.0,
                  stretched: Stretches | None = None) -> TimeLaw:
    """:func:`solve` on a grid of any length, a window of :data:`WINDOW` grid points at a
    time (``limits(a, b)``: the limits at the grid points a .. b-1): each programme
    changes the coefficients within its window, those before it held as the windows before
    left them and those after it as they start: at x0, or as ``start`` has them (a law on
    the same grid within the same limits, a lower cap's). The law stays feasible throughout
    (the uniform x0 is), each window's programme sees :data:`OVERLAP` points of the one
    before again, and the cost is linear in the grid's length. ``progress(done, points)``:
    after each window, the grid points solved. ``rests``: whether x is held at 0 at the
    grid's first and last point (:func:`ramped`; ``start`` has it already). ``beat``:
    :func:`solve`'s, on a grid of one window (on a longer one, a window's T is not the law's
    duration, which the windows after it still change). ``stretched``: :func:`solve`'s, on the
    whole grid."""
    law = start or TimeLaw(np.append(s[:-1:KNOTS], s[-1]),
                           np.full(len(s[:-1:KNOTS]) + degree, x0), degree)
    if start is None and any(rests):
        nu = SMOOTH * rate / np.sqrt(x0)
        law = _ramped_within(law, rests, s, limits,
                             RAMP / (min(nu, pace * scale) if scale > 0 else nu))
    a = 0
    while True:
        b = min(a + WINDOW, len(s))
        if len(s) - b < OVERLAP:  # no short window at the end: this one takes the rest
            b = len(s)
        law = solve(s[a:b], limits(a, b), x0, degree, rate, scale,
                    None if ceiling is None else ceiling.window(a, b), pace, law, cap,
                    None if slow is None else slow[a:b], beat if b - a == len(s) else 0.0,
                    None if stretched is None else stretched._replace(
                        grid=stretched.grid[a:b]))
        if progress is not None:
            progress(b, len(s))
        if b == len(s):
            return law
        a = b - OVERLAP


#: HiGHS's dual simplex (:class:`~hodyn_cli.algorithms.limits.highs.LP`: presolve on a
#: programme's first solve, from the last basis on the solves after rows are added) gets
#: SIMPLEX_ITERATIONS iterations per column of a linear programme at each solve, then its
#: interior-point method IPM_ITERATIONS: the simplex can stall on a degenerate programme (rows
#: at close grid points nearly parallel: a 0.2 s fourier path of the iiwa took it over 20 s,
#: where the interior point took 1.9 s; a simplex 4 times faster elsewhere); where both run
#: out, the law found so far is the result (never slower than the uniform scaling). Iteration
#: counts, not the wall clock: the same programme then takes the same solver and the same
#: answer whatever the machine's load (at 1 s of wall time, on 2 cores shared by ~10
#: processes, the xArm7's stop with --jerk 200 had a third of its programmes go to the
#: interior point, 13.1 s of CPU against 8.9 s with the simplex alone, and a law that could
#: differ from run to run); those programmes took 1.3-4.5 iterations a column from scratch
#: (507 columns: 632-2285). The interior point runs without crossover (HiGHS has no iteration
#: limit for it: on the UR5's point-to-point path at 20 Hz with --jerk 1000 it ran on for
#: minutes after the interior point's 28 iterations, 0.5 s of CPU, where a time limit of 5 s
#: had cut it at a point that depended on the load); its IPX converges in 20-60 iterations
#: on these programmes. Only ``highs.BACKSTOP`` seconds of wall time, a last resort, remain
SIMPLEX_ITERATIONS = 8
IPM_ITERATIONS = 200


#: rows of the programme first imposed: those within this (of their band's half-width) of a
#: bound at the current x; the rows the solution violates are added until it violates none
#: (0.5 imposed 21 000 of the 32 000 rows of the xArm7's stop with --jerk 200 at once: 0.2
#: took its windows 5.9-6.4 s of CPU against 7.8-9.6 s, the law the same to 1e-6 s; 0.1 was
#: faster there, slower on the iiwa's Fourier path with its limits file, 2026-11-29)
ROWS = 0.2
#: rounds of rows added to a programme before it is given up (no step: the trust region
#: shrinks). At 8 the first programme of the iiwa's point-to-point path with its limits
#: file (benchmarks/bench_optimal_rates.py, iiwa-p2p) and of the UR5's with --jerk 200
#: ran out, each a programme solved for nothing and the trust region a quarter: at 16 the
#: iiwa's took 9 programmes, not 13, and its law 2.4e-4 shorter (windows16, 2026-12-02)
ROUNDS = 16


class _Box(NamedTuple):
    """A programme's columns' bounds ``lb <= c <= ub`` (as ``scipy.optimize.Bounds`` holds
    them: importing that module, for this alone, was ~0.2 s of CPU of every run of the
    windows)."""

    lb: np.ndarray
    ub: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class _Active:
    """What a programme of :func:`_linear_programme` hands on to the next: its rows (a mask),
    the order it held them in and its final basis (None: none)."""

    rows: np.ndarray
    order: np.ndarray
    basis: Any

    def kept(self, near: np.ndarray) -> _Active:
        """The rows the next programme starts with: those that bind at this one's optimum
        (their slacks nonbasic in its basis) or are ``near`` their bounds at the next one's
        start, in this one's order, and its basis less the others (:func:`~hodyn_cli.
        algorithms.limits.highs.without`); all of them where it has no basis. Handed on
        whole, the rows a programme's first solutions broke and that are slack since stayed
        in every programme after it: the iiwa's point-to-point path with its limits file
        held 12 000 rows from its fifth programme on, its HiGHS runs 0.1-0.7 s each; less
        them, 2 400-4 800 (one of 11 700), HiGHS's CPU 4.0 -> 2.4 s over its 12
        programmes, the UR5's point-to-point paths' 0.9 -> 0.5 s (--jerk 500 at 1 kHz),
        1.3 -> 1.0 s (--jerk 20), 1.8 -> 1.4 s (--jerk 200), the rows they break added back
        in rounds (windows16, 2026-12-02)."""
        if self.basis is None:
            return self
        keep = ~basic(self.basis) | near[self.order]
        rows = np.zeros_like(self.rows)
        rows[self.order[keep]] = True
        return _Active(rows, self.order[keep], without(self.basis, keep))


def _roughness(gradient: np.ndarray, x0: float) -> np.ndarray:
    """(n - 3,) the weight of each third difference of a programme's n coefficients in its
    objective (:func:`_smooth_programme`): :data:`ROUGH` / x0 times the largest ``|gradient|``
    (T's, normalised to 1 at its largest) of its four coefficients. T's gradient is
    ``int B_j / (2 x^(3/2)) ds`` (module docstring), so where the law runs k times as fast as
    at its slowest point it is k^3 times smaller there; one weight for all, the roughness
    outweighed the time gained wherever the law was fast and the programmes stopped far below
    every limit (Baxter's right arm, a zigzag through six rests, --solver windows: 7.76 s
    against reachability's 2.50 s, every limit below 0.9 of its width at 94 % of the grid
    points; weighed so, 5.23 s). At the uniform law the weights are ROUGH / x0 but next to
    the grid's ends, whose coefficients' B-splines span less of the path.

    >>> _roughness(np.array([1.0, 1.0, 1.0, 1.0, 1e-3, 1e-3, 1e-3, 1e-3]), 1.0).tolist()
    [0.1, 0.1, 0.1, 0.1, 0.0001]
    """
    if len(gradient) < 4:
        return np.zeros(0)
    g = np.abs(gradient)
    return ROUGH / x0 * np.lib.stride_tricks.sliding_window_view(g, 4).max(axis=1)


def _smooth_programme(objective, bounds, A, lb, ub, c, weight, previous: _Active | None = None
                      ) -> tuple[np.ndarray | None, _Active]:
    """:func:`_linear_programme` with ``sum_j weight_j |third difference of c|_j`` added to the
    objective (auxiliary ``e_j >= |(Delta^3 c)_j|``): the vertex solutions of a programme
    chatter where nothing else decides, this keeps the spline calm there. ``previous``, and
    what is returned: :func:`_linear_programme`'s. (``A``'s rows stored in increasing
    columns, as scipy's ``vstack(...).tocsr()`` left them: its products with c sum in that
    order.)"""
    n = len(c)
    j = np.arange(n - 3, dtype=np.int32)
    # (the rows Delta^3 c - e <= 0 and -Delta^3 c - e <= 0: columns j .. j+3 and e_j's)
    columns = np.concatenate([j[:, None] + np.arange(4), (n + j)[:, None]], axis=1)
    order = np.broadcast_to(np.arange(5, dtype=KEY), columns.shape)
    A = stacked([Rows(A.columns, A.values, A.order, 2 * n - 3)] + [
        Rows(columns, np.broadcast_to(np.array(w), columns.shape), order, 2 * n - 3)
        for w in ([-1.0, 3.0, -3.0, 1.0, -1.0], [1.0, -3.0, 3.0, -1.0, -1.0])]).canonicalised()
    lb = np.concatenate([lb, np.full(2 * (n - 3), -np.inf)])
    ub = np.concatenate([ub, np.zeros(2 * (n - 3))])
    z = np.concatenate([c, np.abs(third_differences(c))])
    bounds = _Box(np.concatenate([bounds.lb, np.zeros(n - 3)]),
                 np.concatenate([bounds.ub, np.full(n - 3, np.inf)]))
    x, active = _linear_programme(np.concatenate([objective, np.full(n - 3, weight)]), bounds,
                                  A, lb, ub, A @ z, previous)
    return (None if x is None else x[:n]), active


def _linear_programme(objective, bounds, A, lb, ub, now, previous: _Active | None = None
                      ) -> tuple[np.ndarray | None, _Active]:
    """``min objective . c`` with ``lb <= A c <= ub`` within ``bounds`` (HiGHS, the simplex
    for :data:`SIMPLEX_ITERATIONS` iterations a column at each solve, then the interior point
    for :data:`IPM_ITERATIONS`; :class:`~hodyn_cli.algorithms.limits.highs.Stalled` where that
    runs out), by row generation: most rows are far from their bounds (``now``: A c at the
    current c). The rows imposed from the start: those near their bounds and the
    ``previous`` programme's that bind at its optimum (whose solution is where this one's
    starts: the rows it had to add are those this one would add again, each a solve more;
    :meth:`_Active.kept`); and the rows imposed at the end. The rows a solution breaks are
    added to the same programme, which HiGHS re-solves from its basis (None: infeasible). A
    programme of the same shape as ``previous`` (the trust region's next: the same columns,
    the rows' values moved with c) starts from its final basis less the rows it drops, its
    rows first in its order."""
    near = (now - lb < ROWS) | (ub - now < ROWS)
    if previous is not None and previous.rows.shape != near.shape:
        previous = None
    if previous is not None:
        previous = previous.kept(near)
    rows = near if previous is None else near | previous.rows
    order = np.flatnonzero(rows) if previous is None else np.concatenate(
        [previous.order, np.flatnonzero(rows & ~previous.rows)])
    lp = LP(objective, bounds.lb, bounds.ub)
    lp.add(A[order], lb[order], ub[order])
    if previous is not None and previous.basis is not None:
        lp.start(previous.basis)
    for _ in range(ROUNDS):
        x = lp.solve(SIMPLEX_ITERATIONS * len(objective), IPM_ITERATIONS)
        if x is None:
            return None, _Active(rows, order, None)
        v = A @ x
        new = np.flatnonzero(~rows & ((v < lb - 1e-9) | (v > ub + 1e-9)))
        if not new.size:
            return x, _Active(rows, order, lp.basis())
        rows[new] = True
        order = np.append(order, new)
        lp.add(A[new], lb[new], ub[new])
    # (out of rounds, the last solve optimal on the rows it had: its basis, the rows it broke
    # basic, is where the next programme, within a smaller trust region, starts; from
    # scratch, the Z1's point-to-point path with --jerk 500 spent 0.9 s of its 5.8 s in
    # HiGHS on four such first solves)
    return None, _Active(rows, order, lp.basis())


def _programme(limits: list[PathLimit], X: np.ndarray, D: list
               ) -> tuple[Rows, np.ndarray, np.ndarray]:
    """The linear constraints ``lb <= A c <= ub`` on the spline coefficients, each row scaled
    by its limit's half-width; a limit's rows are its (grid point, joint) pairs, built for
    every joint at once (``D``: the design matrices of x .. x^(3) at the grid points)."""
    rows, lbs, ubs = [], [], []
    x = X[:, 0]
    repeated: dict[int, list] = {}  # joints -> the design matrices' rows, each once per joint
    for lim in limits:
        m = len(lim.joints)
        if m not in repeated:
            at = np.repeat(np.arange(len(x)), m)
            repeated[m] = [Dn[at] for Dn in D]
        Dm = repeated[m]
        F, G = lim.linear(X)
        const = (F - np.einsum("gjd,gd->gj", G, X)).ravel()
        # (summed in turn from the first, as Python's sum of scipy's matrices was)
        A = reduce(Rows.plus, [Dm[d].scaled(G[:, :, d].ravel()) for d in range(4)
                               if np.any(G[..., d])])
        lower, upper = np.tile(lim.lower, len(x)), np.tile(lim.upper, len(x))
        if lim.kind == "rate":  # |L| <= R (1.5 x_k^-1/2 - 0.5 x_k^-3/2 x): the tangent
            xr = np.repeat(x, m)
            slope = Dm[0].scaled(0.5 * upper * xr**-1.5)
            top, scale = 1.5 * upper * xr**-0.5, 1 / upper
            rows += [A.plus(slope).scaled(scale), A.plus(slope, -1.0).scaled(scale)]
            lbs += [np.full(len(xr), -np.inf), (-top - const) / upper]
            ubs += [(top - const) / upper, np.full(len(xr), np.inf)]
        else:
            half = (upper - lower) / 2
            rows.append(A.scaled(1 / half))
            lbs.append((lower - const) / half)
            ubs.append((upper - const) / half)
    return stacked(rows), np.concatenate(lbs), np.concatenate(ubs)
