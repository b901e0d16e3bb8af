"""The rounds' law (:func:`~hodyn_cli.algorithms.limits.rates.kept`) raised towards the
time-optimal one under the limits of higher orders by sequential linear programmes over the
whole arc grid.

**The rows.** Along the path's arc length sigma, with ``x = sigma_dot^2``, ``u = x' / 2``
and ``u' = x'' / 2``, a joint jerk and a torque rate are

    q'''  = sqrt(x) (q_s u' + 3 q_ss u + q_sss x)
    tau'  = sqrt(x) (a u' + (a_s + 2 b) u + b_s x + c_s)      (tau = a u + b x + c)

so each is ``sqrt(x) g(X)``, g affine in ``X = (x, x', x'', x''')`` at a grid point, and a
velocity ``sqrt(x)`` times a constant: a limit ``g(X) <= U / sqrt(x)`` (U > 0) whose right
side is convex in x. Its tangent at the current law's x_0,

    g(X) + U / (2 x_0^(3/2)) (x - x_0) <= U / sqrt(x_0),

lies below it, so the linear row keeps the limit wherever it holds (a lower bound L < 0
likewise: ``-L / sqrt(x)`` concave). Every other limit (torques and accelerations: affine
in X; a torque acceleration, quadratic; friction) is linearised at the current law.
Which form a limit has is read off the limit itself (:func:`_sqrt_linear`).

**Played slower too.** The final fit scales the played motion uniformly and keeps every
slower playing of it within the limits (``feasibility.ScaleSearch``): a limit of two grades
in the law's derivatives (a torque rate's ``sqrt(x) c_s``, gravity's own rate along the
path, and its inertial part of grade 3) that the law keeps at its own pace by running one
part against the other is left at a slower one, and the whole motion slowed for it (the
iiwa's 20 Hz cosine with 25 N m/s torque rates: 2.288 s on the grid, 2.673 s fitted,
1.17 times; 24 steps, 2.208 s and 3.659 s). So the lower grade's part is a limit of its
own too (:func:`_slowest`: with the whole one, it keeps every slower playing) and a step
is judged played at any slower pace (:func:`_slower`): 2.416 s on the grid and fitted,
the windows' 2.397 s.

**The unknowns.** The played law is the quintic spline through x at the grid points
(:func:`~hodyn_cli.algorithms.limits.reachability.law_spline`); a step adds to it a quintic
B-spline with a knot every :data:`KNOTS` grid points and as many again spread over the law's
time, closer where it is slow (:func:`_knots`: not where the output samples the played law
more finely than the smoothing holds, nor with a limit of its x'''; its coefficients the
LP's unknowns,
X's change at every grid point a banded linear map of them: a correction at the grid's own
resolution swings x'' between grid points, and its output failed ``hodyn validate`` on the
iiwa's 1 kHz Fourier path), none within :data:`FROZEN` knots of an end where a piece has a
rest (the ramps into and out of it: left free, validate failed the same path); where neither
end is a rest, free up to the ends, from the law projected on a finer spline first
(:func:`_smoothed`: the rounds' law's kinks one grid interval wide failed validate there;
frozen, the ends stayed the rounds', 1.91 against the windows' 2.45 at the start of the
iiwa's Fourier path with ``--jerk 100``, and the law 1.5 % longer than the windows').

**A step** maximises the duration's first-order decrease subject to every row and a trust
region (x changes by at most :data:`TRUST` of itself at each grid point), the rows brought
in by constraint generation (:func:`_programme`: the last step's active rows, from its
final basis, first (the first step's: those within :data:`NEAR` of their bound), then the
most violated one per limit, joint and quarter knot interval, until none is beyond its
bound by :data:`VIOLATED`, then, where the step's played law breaks a linearised limit
(its error quadratic in the step, a torque acceleration's), the bounds less that error
and the rows they break, up to :data:`CORRECTIONS` times (:func:`_errors`: the step kept
whole, no longer cut after the fact: the iiwa's 1 kHz Fourier path, 6 programmes -> 3,
each step before broke the torque acceleration by 16, 4.3, 1.0, 0.26 % and was halved, its
region with it), the rows slack at the last solution by more than :data:`SLACK`
dropped in its last generations (those that add few rows, :func:`_slack_dropped`); a
velocity's rows, which bound x's change alone, folded into the trust region's,
:class:`_Fold`; each solve within the windows'
budget: ``programme.SIMPLEX_ITERATIONS`` a column, then the interior point for
``programme.IPM_ITERATIONS``, past which the law so far is the answer); its
law is kept where it is within every limit at the grid points (to
:data:`~hodyn_cli.algorithms.limits.rates.TOLERANCE`) and shorter, else the step is halved
and, failing that twice, the trust region; a step kept in part narrows the region to that
part, one kept whole that the region held widens it (:data:`GROW`); at most :data:`STEPS`
steps, ending where a step kept whole gains less than :data:`CONVERGED`.
Measured against the windows
of :mod:`~hodyn_cli.algorithms.limits.programme` (the optimum of their LPs in the input's
time): the UR10's Fourier path with ``--jerk 200``, rounds 1.904 s, these steps 1.787 s,
windows 1.788 s (benchmarks/README.md).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import compress
from typing import Any, NamedTuple

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy import reach
from hodyn_cli.algorithms.limits import programme, reachability
from hodyn_cli.algorithms.limits.distinct import distinct
from hodyn_cli.algorithms.limits.highs import LP, Stalled
from hodyn_cli.algorithms.limits.programme import PathLimit

__all__ = ["KNOTS", "MOST", "STEPS", "Raised", "raised", "refined"]

#: the correction's knot spacing, in grid intervals (:func:`_knots`: as many knots again
#: spread over the law's time, at most one every FINEST grid points)
KNOTS = 32
FINEST = 8
#: the correction's B-spline coefficients left 0 at each end, where the piece has a rest
FROZEN = 3
#: linear programmes: a step each, at most; they end where a step kept whole shortens the
#: law by less than CONVERGED of itself (a fixed region, TRUST of x, before GROW: a law
#: far below the optimum takes several, the UR3's Fourier path with --jerk 100 six:
#: 7.415, 6.703, 6.275, 6.060, 5.987, 5.976, 5.9758 s; the SO-101's with --jerk 100,
#: every step bound by the region, 18: 5.099 s after 12, 4.826 s, the windows' 4.754 s;
#: more than 12 lost time on the iiwa's 20 Hz cosine with 25 N m/s torque rates until the
#: rows kept every slower playing: :func:`_slowest`)
STEPS = 24
CONVERGED = 1e-3
#: a step changes x by at most this share of itself at every grid point, at first
TRUST = 0.3
#: a step kept whole that the region held (raised x by BOUND of the region's upper side at
#: some grid point) widens that side GROW times, up to WIDEST; its lower side stays at most
#: TRUST (x lowered by all of itself would be a rest). A law far below the optimum climbs
#: in fewer steps: the SO-101's Fourier path with --jerk 50, 6.04 -> 2.3205 s in 7
#: programmes and 37 HiGHS runs against 15 and 83, 14 of them held by the region at
#: TRUST; on the 51 inputs of benchmarks/README.md (2026-11-30, trustgrow) no law longer
#: than the fixed region's but where the final fit moved (<= 1.4e-4)
GROW = 2.0
WIDEST = 2.4
BOUND = 0.99
#: the first programme (no basis carried) starts with the rows this close to their bound (a
#: share of it) at the current law
NEAR = 0.03
#: rounds of constraint generation at most in a programme
GENERATIONS = 16
#: a row beyond its bound by more than this share of it is added to the programme. A
#: programme starts from the last one's active rows alone and adds the rows its solutions
#: break: a law beyond the rows it does not hold by up to this much, which the final fit
#: then slows the whole motion for, so it is small (at 1e-4, with the rows within NEAR of
#: their bounds held from the start of every programme, HiGHS's CPU was 1.4-1.8 times this
#: one's on the UR10's and the iiwa's Fourier paths with --jerk; without those rows at 1e-4
#: the outputs were up to 5e-5 longer and the iiwa's 1 kHz one failed validate; at 1e-5,
#: 7e-6 longer on the iiwa's; benchmarks/README.md, jerk1s)
VIOLATED = 3e-6
#: a generation that adds fewer rows than TAIL of those the programme holds (its last few,
#: where the solution moves little) first drops the rows basic at the last solve and more
#: than SLACK of their scale from their bound (:func:`_slack_dropped`): a HiGHS run costs
#: ~1 us a row held before its first iteration and its iterations in proportion to them,
#: and a programme ends holding ~10-30 times the rows active at its optimum (the xArm7's
#: stop with --jerk 20: 7 090 for 249), the most of them broken by one of its first
#: solutions and slack since. The same runs and simplex iterations on the six inputs of
#: benchmarks/README.md (2026-12-01, short13), 29 % fewer rows summed over them; dropped at
#: every generation, rows dropped early were broken again by the next solutions (the
#: xArm7's stop: 18 runs -> 38-46), and dropped after two slack solves, more runs too
TAIL = 0.02
SLACK = 0.1
#: second-order corrections at most in a programme (:func:`_errors`): each where the rows'
#: solution breaks a linearised limit at its own played law. Their fixed point is reached
#: linearly (a factor ~5 a correction on the iiwa's torque acceleration): 3 left the first
#: step beyond it by 0.25 %, cut to half as before; 8 reach VIOLATED
CORRECTIONS = 8
#: grids of more points are left as the rounds played them (one programme over the whole
#: grid: its unknowns M / KNOTS)
MOST = 40_000
#: the starting law's projection where both ends are free (:func:`_smoothed`): a knot every
#: this many grid points
SMOOTHED = 4
#: x below this share of its largest value is taken as at rest: no rows of the sqrt(x) form
#: there (their coefficients grow as x^(-3/2)), the trust region holding x there
REST = 1e-6


def refined(sigma: np.ndarray, x: np.ndarray,
            limits: Callable[[int, int], list[PathLimit]], chunks: list[tuple[int, int]],
            tolerance: float, timed: bool = True) -> np.ndarray:
    """The played x at the grid points ``sigma`` (M,) raised from ``x`` (within every limit
    at them: ``limits(a, b)`` those at the points a .. b-1, for each of ``chunks``) by
    :data:`STEPS` linear programmes (module docstring); ``x`` itself where none shortens it
    or the grid has more than :data:`MOST` points. ``timed``: the correction's knots over
    the law's time too, unless a limit reads its x''' (:func:`_knots`)."""
    return raised(sigma, x, limits, chunks, tolerance, timed).x


class Raised(NamedTuple):
    """:func:`raised`'s answer: the played x, and whether it is a local optimum of the
    windows' own problem on the grid (``local``: the programmes ended where a step kept
    whole gained less than :data:`CONVERGED`, every limit of one grade in the law's
    derivatives, a joint jerk's, so that its rows were its first-order model at the law;
    with two grades, a torque rate's, they hold each grade's part apart, :func:`_slowest`,
    which suffices for every slower playing but is a smaller set than the limit's: the
    iiwa's 20 Hz cosine with 25 N m/s, converged 0.8 % above the windows')."""

    x: np.ndarray
    local: bool


def raised(sigma: np.ndarray, x: np.ndarray,
           limits: Callable[[int, int], list[PathLimit]], chunks: list[tuple[int, int]],
           tolerance: float, timed: bool = True) -> Raised:
    """:func:`refined`'s x, and whether it is a local optimum (:class:`Raised`)."""
    M = len(sigma)
    if M > MOST:  # (before the basis: its (M, 4, 6) values, ~0.3 GB on 1.2 x 10^6 points)
        return Raised(x, False)

    # (a limit of the law's x''' (s'''', torque accelerations): the correction's knots the
    # grid's alone, _knots)
    timed = timed and not any(4 in parts for a, b in chunks for limit in limits(a, b)
                              for parts in limit.monomials)
    D = _basis(sigma, x, timed)
    if D.n <= 2 * FROZEN:
        return Raised(x, False)
    # (each chunk's limits with their slowest parts, made once: every step's rows and
    # every trial's shares read them)
    parted = {(a, b): [(limit, _slowest(limit)) for limit in limits(a, b)] for a, b in chunks}

    def rowed(a: int, b: int) -> list[PathLimit]:  # (and their slowest parts: _slowest)
        found = parted[a, b]
        return [limit for limit, _ in found] + [part for _, part in found if part is not None]

    judged: list = [np.zeros((0, 4)), {}]  # (the last X read and its chunks' Derivatives)

    def derivatives(X: np.ndarray) -> dict[tuple[int, int], programme.Derivatives]:
        # (each chunk's, shared by its limits; those of the X a trial was judged at, and the
        # start's, are the next step's: its models read the same values again)
        if not np.array_equal(judged[0], X):
            judged[:] = X, {(a, b): programme.Derivatives(X[a:b]) for a, b in chunks}
        return judged[1]

    last: list = [np.zeros(0), np.zeros((0, 4))]  # (the last x played and its X)

    def played(v: np.ndarray) -> tuple[np.ndarray, dict[tuple[int, int], programme.Derivatives]]:
        # (X of the law played through v, and its chunks' Derivatives; the last v's kept: a
        # step's check plays the x its programme's last correction played, _errors)
        if not np.array_equal(last[0], v):
            last[:] = v, _jets(sigma, v)
        return last[1], derivatives(last[1])

    def usage(X: np.ndarray) -> tuple[float, float]:  # (the largest share at the law's own
        # pace and played as fast or slower: each limit's values once for both)
        pace = slower = 0.0
        at = derivatives(X)
        for a, b in chunks:
            for limit, part in parted[a, b]:
                share, played = _shares(limit, part, X[a:b], at[a, b])
                pace, slower = max(pace, share), max(slower, played)
        return pace, slower

    free = np.zeros(D.n, dtype=bool)
    free[FROZEN : len(free) - FROZEN] = True
    # (a step is kept where it is within every limit at its own pace to ``tolerance``, and
    # played slower to that or to the rounds' own share where that is larger: one limit's
    # slower share is no licence for another's at the law's pace, a velocity's say, which the
    # final fit would then slow the whole motion for)
    bound = max(1 + tolerance, usage(_jets(sigma, x))[1])

    def within(X: np.ndarray) -> bool:
        pace, slower = usage(X)
        return pace <= 1 + tolerance and slower <= bound

    start = _smoothed(sigma, x, within)
    if start is None:
        start = x
    else:  # (both ends free: the correction free up to them)
        free[:] = True
    # (a step is kept where it is shorter than the projection: the projection alone is not)
    best, best_duration = x, min(reachability.law_duration(sigma, v) for v in (x, start))
    trust, X = TRUST, _jets(sigma, start)
    converged = False
    forms: list[bool] | None = None  # (each limit's: _sqrt_linear)
    held: _Rows | None = None  # (the last programme's rows and basis)
    for _ in range(STEPS):
        limited = [(a, b, limit) for a, b in chunks for limit in rowed(a, b)]
        if forms is None:  # (a limit's form is its own, not the law's: judged once)
            probes = {(a, b): _Probe.of(X[a:b]) for a, b in chunks}
            forms = [_sqrt_linear(limit, X[a:b], probes[a, b]) for a, b, limit in limited]
            del probes  # (their derivatives: not held through the steps)
        # (X's derivatives read, not held here: a correction's replace them in the cache,
        # _errors, and held they were 5 MB more of the iiwa's 1 kHz path's peak)
        models = [_Model.of(limit, X[a:b], a, form, derivatives(X)[a, b])
                  for (a, b, limit), form in zip(limited, forms, strict=True)]
        try:
            delta, held = _programme(models, D, free, X[:, 0], sigma, trust, held, played)
        except Stalled:  # (a degenerate programme past its budget: the law so far, as the
            break  # windows' answer; without one a solve could run on without end)
        if delta is None:
            trust /= 2
            continue
        change = D.at(delta)[:, 0]
        for alpha in (1.0, 0.5, 0.25):
            trial = np.maximum(X[:, 0] + alpha * change, 0.0)
            trial_X = played(trial)[0]
            duration = reachability.law_duration(sigma, trial)
            if duration < best_duration and within(trial_X):
                break
        else:
            trust /= 2
            continue
        gain, x0 = best_duration - duration, X[:, 0]
        best, best_duration, X = trial, duration, trial_X
        if alpha < 1:  # (a step cut short is no sign of convergence: its whole was wrong)
            trust *= alpha
        elif gain < CONVERGED * duration:
            converged = True
            break
        if alpha == 1 and _bound(change, x0, trust):  # (kept whole where the region held it)
            trust = min(GROW * trust, WIDEST)
    one_grade = all(part is None for found in parted.values() for _, part in found)
    return Raised(best, converged and one_grade)


def _bound(change: np.ndarray, x0: np.ndarray, trust: float) -> bool:
    """Whether the step ``change`` of x from ``x0`` reached the trust region's upper side
    (``trust`` of x0, :data:`BOUND` of it) at some grid point."""
    return bool((change > BOUND * trust * x0).any())


def _smoothed(sigma: np.ndarray, x: np.ndarray, within: Callable[[np.ndarray], bool]
              ) -> np.ndarray | None:
    """x projected (least squares) on a quintic spline with a knot every :data:`SMOOTHED`
    grid points, where neither end of the piece is at rest (:data:`REST`) and the projection
    keeps x > 0 and every limit at the grid points (``within`` its jets);
    None elsewhere. The
    rounds' law has kinks a grid interval wide (the moving averages of the passes' law under
    its ceilings: x'''' of 4e6 against ~5e4 about them on the iiwa's Fourier path, x moved by
    ~1e-5 of itself), which the played law's spline turns into a q'''' that does not follow
    from q''' on the grid (relative error ~0.9); the frozen ends' own sharp features had hid
    them from the played law's check (its tolerance grows with the motion's largest ratio of
    orders): freed ends without this projection failed it."""
    M, k = len(sigma), reachability.LAW
    if M < 4 * SMOOTHED or min(x[0], x[-1]) <= REST * float(x.max()):
        return None
    inner = sigma[SMOOTHED : M - 1 : SMOOTHED]
    inner = inner[inner < sigma[-1] - SMOOTHED / 2 * reachability.end_steps(sigma)[1]]
    t = np.concatenate([np.full(k + 1, sigma[0]), inner, np.full(k + 1, sigma[-1])])
    out = _least_squares(_Basis.of(sigma, t, k, 1), x)
    if not (out > 0).all():
        return None
    return out if within(_jets(sigma, out)) else None


def _slowest(limit: PathLimit) -> PathLimit | None:
    """The part of ``limit`` of its lowest grade in the time law's derivatives (a torque
    rate's ``sqrt(x) c_s``, gravity's own rate along the path; a torque acceleration's terms
    in x and u), where it has two grades, the lower above 0, and no friction; None
    elsewhere. Played ``s`` times as fast, s <= 1, the limit's value is ``s^a (V0 + s^2
    V1)`` (V0 this part, a its grade, V0 + V1 the value): ``s^a`` times a point between V0
    and V0 + V1, so within a band about 0 wherever both are: this part's rows with the
    whole limit's keep every slower playing within it (:func:`_slower`)."""
    grades = np.array([sum(m) for m in limit.monomials])
    if limit.friction is not None or len(set(grades)) != 2 or grades.min() == 0:
        return None
    low = grades == grades.min()  # (its monomials alone: a copy of their coefficients only)
    return replace(limit, monomials=tuple(m for m, keep in zip(limit.monomials, low,
                                                               strict=True) if keep),
                   coefficients=limit.coefficients[..., low])


def _slower(limit: PathLimit, X: np.ndarray) -> float:
    """The largest share of its limit ``limit`` takes at the grid points where the law
    whose x .. x''' there are X (M, 4) is played ``s`` times as fast, any s in (0, 1]: the
    final fit's uniform scaling (``feasibility.ScaleSearch``) keeps every slower playing of
    the played motion within the limits, slowing the whole motion to the first s at which
    one leaves them (the iiwa's 1 s cosine at 20 Hz with torque rates of 25 N m/s: its
    torque rate at the law's free end on the limit at s = 1, the inertial part against
    gravity's rate, 1.10 times it at s ~ 0.8: the motion slowed 1.66 times). Exact for a
    limit of two grades with a band about 0 (:func:`_slowest`: the extremum of ``s^a (V0 +
    s^2 V1)`` at ``s^2 = -a V0 / ((a + 2) V1)``, its value ``2 / (a + 2) s^a V0``); the
    share at s = 1 elsewhere."""
    return _shares(limit, _slowest(limit), X)[1]


def _shares(limit: PathLimit, slowest: PathLimit | None, X: np.ndarray,
            at: programme.Derivatives | None = None) -> tuple[float, float]:
    """(:meth:`PathLimit.usage`, :func:`_slower`) of ``limit``, its :func:`_slowest` part
    ``slowest``, at X (M, 4): its values made once for both (a trial step's check read
    each limit's two or three times); ``at``: X's derivatives (None: made here)."""
    at = programme.Derivatives(X) if at is None else at
    V = limit.values(X, at)
    centre, half = (limit.lower + limit.upper) / 2, (limit.upper - limit.lower) / 2
    pace = float((np.abs(V - centre) / half).max())
    if slowest is None or not np.all(limit.lower == -limit.upper):
        return pace, pace
    a = min(sum(m) for m in limit.monomials)
    V0 = slowest.values(X, at)
    V1 = V - V0
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = np.clip(np.nan_to_num(-a * V0 / ((a + 2) * V1), nan=0.0, posinf=0.0), 0.0, 1.0)
    inner = 2 / (a + 2) * s2 ** (a / 2) * V0 * (s2 < 1)
    return pace, float((np.maximum(np.abs(V0 + V1), np.abs(inner)) / limit.upper).max())


def _jets(sigma: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(M, 4) x .. x''' of the played law (its spline) at the grid points."""
    played = reachability.law_spline(sigma, x)
    return played.jet(sigma, 4)


def _basis(sigma: np.ndarray, x: np.ndarray, timed: bool = True) -> _Basis:
    """The correction's basis (a quintic B-spline, its inner knots at the grid points of
    :func:`_knots` for the law x, ``timed`` or not): its value and first three derivatives
    at the grid points."""
    k = reachability.LAW
    inner = sigma[_knots(x, timed)]
    t = np.concatenate([np.full(k + 1, sigma[0]), inner, np.full(k + 1, sigma[-1])])
    return _Basis.of(sigma, t, k, 4)


def _knots(x: np.ndarray, timed: bool = True) -> np.ndarray:
    """The correction's inner knots for the law whose x at the (uniform) grid points is
    ``x`` (M,): grid points (rising, none at an end) one :data:`KNOTS` intervals apart in a
    measure that counts each grid interval ``1 / KNOTS`` and as much again, in all, spread
    over the law's time (``2 h / (sqrt x_i + sqrt x_(i+1))`` an interval), an interval at
    most ``1 / FINEST`` of it: a knot every ~KNOTS / 2 grid points where the law's pace is
    its mean, down to one every ~FINEST where it is slow. Where the path nearly stops and
    turns sharply the optimal law dips deep and narrow (the ASR two-link arm's Fourier path
    with ``--jerk 100``: the windows' law to 0.16 rad/s over ~20 grid intervals), which a
    knot every 32 could not follow (with the shape following the turn its law 16.9 % longer
    than the windows', 7.7 % with these knots); the SO-101's, Romeo's and the B1-Z1's laws
    came within the windows' too (benchmarks/README.md, 2026-11-30, shapeknots, shapeknots2).
    Intervals at rest (x below
    :data:`REST` of its largest) and within ``(FROZEN + 1) KNOTS`` grid points of an end
    at rest take none of the time's knots: the frozen ramps there keep the uniform span.
    Where that leaves none (a piece of at most ``2 (FROZEN + 1) KNOTS`` grid intervals from
    rest to rest: the xArm7's stop with ``--jerk 20 --arc-grid 200`` ended on a NaN
    measure, exit 3), or not ``timed``, the knots are the uniform ones, a knot every
    :data:`KNOTS` grid points.

    Not ``timed`` (:func:`~hodyn_cli.algorithms.limits.rates.kept`, :func:`refined`): where
    the played motion's smoothing spans fewer than :data:`FINEST` grid intervals at the
    law's mean pace (an output at 1 kHz, ``--rate 1000``: its samples closer than the grid
    points, the final fit sees the played law, the quintic spline through x there, between
    them, where a correction with knots 6-8 grid points apart swings x'''; the two-link arm's
    and the SO-101's Fourier paths with ``--jerk 100`` were 5.8726 s and 4.8857 s with the
    time's knots, 5.3129 s and 4.8271 s without, 5.4585 s and 4.8261 s before either); and
    where a limit reads the law's x''' (``s''''``: torque accelerations). The
    iiwa's 1 kHz Fourier path with its limits file (bench_optimal_rates.py) gained nothing
    by the time's knots (+1.8e-6 s: its pace within 13 % of its mean, they made a knot every
    ~16 grid points throughout), and its first smoothing's played motion failed validate
    with them (q'''' of its second joint 18.7 times the tolerance where it starts; with the
    time's knots kept KNOTS grid points from the ends, 3.6 times at t = 0.225 s; 0.31 with
    the uniform knots), so a second was played: 2-3 s more CPU."""
    M = len(x)
    r = np.sqrt(np.maximum(x, 0.0))
    moving = x > REST * float(x.max())
    with np.errstate(divide="ignore", invalid="ignore"):
        time = np.where(moving[:-1] & moving[1:], 1 / (r[:-1] + r[1:]), 0.0)  # (h uniform)
    near = (FROZEN + 1) * KNOTS
    if not moving[0]:
        time[:near] = 0.0
    if not moving[-1]:
        time[max(0, M - 1 - near):] = 0.0
    total = float(time.sum())
    if not timed or not total > 0:  # (the last within half a span of the end left out)
        return np.arange(KNOTS, M - 1 - KNOTS // 2, KNOTS)
    share = (M - 1) / KNOTS / total
    steps = 1 / KNOTS + np.minimum(time * share, 1 / FINEST)
    measure = np.concatenate([[0.0], np.cumsum(steps)])
    # (the grid point at or after each whole count, the last within half a count of the end
    # left out as the uniform knots left theirs: an interval too short at the end)
    index = np.searchsorted(measure, np.arange(1, np.floor(measure[-1] - 0.5) + 1))
    index = index[(index > 0) & (index < M - 1)]
    return distinct(index)  # (ascending: each grid point once)


@dataclass(frozen=True, eq=False, repr=False)
class _Basis:
    """A B-spline basis at the grid points, made once (a programme's rows, each step's,
    are these values times the limits' coefficients: no sparse matrix is built, sliced or
    converted per step, and no scipy imported, ``scipy.interpolate`` 0.3 s of CPU alone):
    at grid point p the k + 1 basis functions that do not vanish there are ``columns[p]``
    (consecutive), their nu-th derivatives ``values[p, nu]`` (M, orders, k + 1)."""

    columns: np.ndarray
    values: np.ndarray
    n: int

    @classmethod
    def of(cls, sigma: np.ndarray, t: np.ndarray, k: int, orders: int) -> _Basis:
        """The basis of degree k on the knots t at sigma, derivatives 0 .. orders - 1: the
        nu-th from the basis of degree k - nu on the knots less nu at each end (Cox-de
        Boor), carried back to the coefficients by nu steps of the derivative's map
        ``c'_m = k (c_(m+1) - c_m) / (t_(m+k+1) - t_(m+1))``."""
        n = len(t) - k - 1
        i = reach.interval(t, k, sigma)
        first = i - k
        values = np.zeros((len(sigma), orders, k + 1))
        for nu in range(orders):
            _, low = reach.basis(t[nu : len(t) - nu], k - nu, sigma)  # (M, k + 1 - nu)
            for level in range(nu, 0, -1):  # (back to degree k - level + 1's functions)
                knots, degree = t[level - 1 : len(t) - level + 1], k - level + 1
                g = first[:, None] + np.arange(low.shape[1])  # (their global index)
                step = degree / (knots[g + degree + 1] - knots[g + 1])
                up = np.zeros((len(sigma), low.shape[1] + 1))
                up[:, :-1] -= step * low
                up[:, 1:] += step * low
                low = up
            values[:, nu] = low
        return cls(first[:, None] + np.arange(k + 1), values, n)

    def at(self, c: np.ndarray) -> np.ndarray:
        """(M, orders) the spline of coefficients c (n,) and its derivatives at the grid."""
        return np.einsum("pdj,pj->pd", self.values, c[self.columns])


def _least_squares(basis: _Basis, y: np.ndarray) -> np.ndarray:
    """The least-squares spline of ``y`` on ``basis`` (one order) at the grid points: its
    normal equations, banded and positive definite (no pivoting), by the backend's
    banded solve."""
    B, cols = basis.values[:, 0], basis.columns
    k = B.shape[1] - 1
    band = np.zeros((basis.n, 2 * k + 1))
    for a in range(k + 1):
        for b in range(k + 1):
            band[:, k + b - a] += np.bincount(cols[:, a], B[:, a] * B[:, b], basis.n)
    rhs = np.bincount(cols.ravel(), (B * y[:, None]).ravel(), basis.n)[:, None].copy()
    backends.current().banded_solve(band, k, rhs)
    return basis.at(rhs[:, 0])[:, 0]


@dataclass(frozen=True, eq=False, repr=False)
class _Model:
    """One limit's rows at the grid points a .. a+len-1 about the current law (X0): per
    joint, ``lower <= base + grad . dX <= upper`` (``grad``: (P, m, 4)); a limit of the
    sqrt(x) form (:func:`_sqrt_linear`) as its tangent rows (module docstring), its base g0
    and grad g's, its bounds then ``bound / sqrt(x0)`` less g0 and the x coefficient
    ``bound / (2 x0^(3/2))`` added per side."""

    a: int
    base: np.ndarray
    grad: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    x0: np.ndarray | None  # (the sqrt(x) form's x_0; None: linearised)
    #: its rows bound x's change alone, from above on both sides: a velocity's (``sqrt(x)``
    #: times a constant, its bounds either side of 0), folded into the trust region (_Fold)
    x_only: bool = False
    #: the limit linearised (None: the sqrt(x) form's, whose tangent rows keep it): its
    #: values at a step's played law give the step's second-order error (_errors)
    limit: PathLimit | None = None

    @classmethod
    def of(cls, limit: PathLimit, X: np.ndarray, a: int, form: bool | None = None,
           at: programme.Derivatives | None = None) -> _Model:
        """The model at X; ``form``: whether the limit has the sqrt(x) form (None:
        :func:`_sqrt_linear` judges it); ``at``: X's derivatives (None: made here)."""
        V, G = limit.gradient(X, at)
        if _sqrt_linear(limit, X) if form is None else form:
            x0 = X[:, 0]
            r = np.sqrt(np.where(x0 > 0, x0, 1.0))[:, None]  # (rows at rest: dropped)
            x_only = (limit.monomials == ((1,),) and limit.friction is None
                      and bool(np.all(limit.lower < 0)) and bool(np.all(limit.upper > 0)))
            return cls(a, V / r, _over_root(V, G, r), limit.lower, limit.upper, x0, x_only)
        return cls(a, V, G, limit.lower, limit.upper, None, limit=limit)

    def sides(self, rest: float) -> list[_Side]:
        """Per side (upper, then lower), its :class:`_Side`: the bound on the rows' sum (P,
        m; the current law's side of it where it is beyond: the law itself feasible), the
        bound's scale (P, m), +1 for an upper bound or -1, and the rows' coefficients of dX
        (:meth:`_Side.at`), rows at rest dropped (their bound infinite)."""
        out = []
        if self.x0 is not None:  # (x0's powers and where it moves: once for both sides)
            x0 = np.maximum(self.x0, rest)[:, None]
            slope, root, moving = 2 * x0**1.5, np.sqrt(x0), self.x0[:, None] > rest
        for bound, sign in ((self.upper, 1.0), (self.lower, -1.0)):
            tangent = None
            if self.x0 is None:
                rhs = np.broadcast_to(bound, self.base.shape) - self.base
                scale = np.broadcast_to(np.abs(bound), self.base.shape)
            else:
                tangent = bound / slope
                rhs = bound / root - self.base
                scale = np.abs(bound) / root
                rhs = np.where(moving, rhs, sign * np.inf)
            rhs = sign * np.maximum(sign * rhs, 0.0)
            out.append(_Side(self.grad, tangent, rhs, scale, sign))
        return out

    def changes(self, dX: np.ndarray, rest: float) -> tuple[np.ndarray, np.ndarray]:
        """(upper, lower side's) :meth:`sides`' coefficients times ``dX`` (P, 4) at each
        (point, joint): the gradient's product once, the tangent's own x coefficient added
        per side (half the products of each side's on its own)."""
        g = np.einsum("pjd,pd->pj", self.grad, dX)
        if self.x0 is None:
            return g, g
        dx = dX[:, :1] / (2 * np.maximum(self.x0, rest)[:, None] ** 1.5)
        return g + self.upper * dx, g + self.lower * dx


class _Side(NamedTuple):
    """One side of a limit's rows at the grid points (:meth:`_Model.sides`): per (point,
    joint) ``sign (grad . dX) <= sign rhs`` (``scale``: the bound's size), a sqrt(x) form's
    tangent adding ``tangent`` to the x coefficient. The rows' coefficients are made at the
    rows a programme takes alone (:meth:`at`): every side's whole (P, m, 4) copy, two a
    tangent limit a programme, was read at a few hundred of its rows."""

    grad: np.ndarray
    tangent: np.ndarray | None
    rhs: np.ndarray
    scale: np.ndarray
    sign: float

    def at(self, p: np.ndarray, j: np.ndarray) -> np.ndarray:
        """(R, 4) the coefficients of dX of the rows at (points ``p``, joints ``j``)."""
        c = self.grad[p, j]
        if self.tangent is not None:
            c[:, 0] += self.tangent[p, j]
        return c

    def x_coefficient(self) -> np.ndarray:
        """(P, m) the rows' coefficient of x's change."""
        return self.grad[..., 0] if self.tangent is None else self.grad[..., 0] + self.tangent


@dataclass(frozen=True, eq=False, repr=False)
class _Fold:
    """The x-only limits' rows (:attr:`_Model.x_only`: a velocity's tangent rows, ``c dx <=
    room c``, c > 0) folded into the trust region's upper side, the same feasible set: at
    each grid point (M,) the tightest one's room for x's change (``room``), the change
    beyond which one of them is broken by :data:`VIOLATED` of its own scale (``top``: the
    check its row had, in its units), and the grid points where one is within :data:`NEAR`
    of its bound at the current law, the nearest per quarter knot interval (``near``: the
    first programme's region rows, as :func:`_near` takes a limit's). Held as rows, a
    velocity's were half of the ~4 000 rows the SO-101's Fourier path with ``--jerk 50``
    added at the first re-solve of its programmes 4 and 5, one per joint at points where
    the region's row bounds the same x (benchmarks/README.md, 2026-12-01, short8)."""

    room: np.ndarray
    top: np.ndarray
    near: np.ndarray

    @classmethod
    def of(cls, models: list[_Model], rest: float, M: int) -> _Fold:
        room, top, close = np.full(M, np.inf), np.full(M, np.inf), np.full(M, np.inf)
        for model in models:
            P = len(model.base)
            for side in model.sides(rest):
                bound, size, sign = side.rhs, side.scale, side.sign
                c0 = sign * side.x_coefficient()
                with np.errstate(divide="ignore", invalid="ignore"):
                    ok = np.isfinite(bound) & np.isfinite(size) & (size > 0) & (c0 > 0)
                    r = np.where(ok, sign * bound / c0, np.inf)
                    t = np.where(ok, (sign * bound + VIOLATED * size) / c0, np.inf)
                    n = np.where(ok, sign * bound / size, np.inf)
                span = slice(model.a, model.a + P)
                room[span] = np.minimum(room[span], _least(r))
                top[span] = np.minimum(top[span], _least(t))
                close[span] = np.minimum(close[span], _least(n))
        p = np.flatnonzero(close < NEAR)
        near = _worst(p, np.zeros(len(p), dtype=int), -close[p])[:, 0]
        return cls(room, top, near)


def _over_root(V: np.ndarray, G: np.ndarray, r: np.ndarray) -> np.ndarray:
    """(P, m, 4) the gradient in X of ``V / r``, r = sqrt(x) (P, 1), from V's (P, m) own
    ``G`` (P, m, 4): the quotient's rule, ``G / r`` less ``V / (2 r^3)`` in x."""
    out = G / r[..., None]
    out[..., 0] -= V / (2 * r**3)
    return out


def _sqrt_linear(limit: PathLimit, X: np.ndarray, probe: _Probe | None = None) -> bool:
    """Whether the limit's values are ``sqrt(x) g(X)`` with g affine in X (a velocity, joint
    jerk, torque rate without friction): g's first-order model at X predicts it at a point
    far from X. ``probe``: X's (:class:`_Probe`, shared by the limits read at the same X;
    None: made here)."""
    probe = _Probe.of(X) if probe is None else probe
    ok = probe.ok
    if not ok.any():
        return False
    limit = replace(limit, coefficients=limit.coefficients[ok],
                    friction=None if limit.friction is None else limit.friction[ok])
    X, far = probe.X, probe.far
    r = np.sqrt(X[:, :1])
    V, G = limit.gradient(X, probe.at)
    g0, grad = V / r, _over_root(V, G, r)
    predicted = g0 + np.einsum("gjd,gd->gj", grad, far - X)
    actual = limit.values(far, probe.at_far) / np.sqrt(far[:, :1])
    return bool(np.allclose(actual, predicted, rtol=1e-7,
                            atol=1e-9 * max(float(np.abs(actual).max()), 1e-300)))


class _Probe(NamedTuple):
    """Where :func:`_sqrt_linear` reads a chunk's limits: the grid points where x > 0
    (``ok``), X there and a point far from it (``far``), with their time-law derivatives
    (``at``, ``at_far``), made once for all of the chunk's limits (each limit had made its
    own: ~5 ms each of the iiwa's 1 kHz path's six limits and parts, the same numbers)."""

    ok: np.ndarray
    X: np.ndarray
    far: np.ndarray
    at: programme.Derivatives
    at_far: programme.Derivatives

    @classmethod
    def of(cls, X: np.ndarray) -> _Probe:
        ok = X[:, 0] > 0
        X = X[ok]
        far = 1.3 * X + 0.1 * np.abs(X).max(axis=0) if len(X) else X
        return cls(ok, X, far, programme.Derivatives(X), programme.Derivatives(far))


@dataclass(frozen=True, eq=False, repr=False)
class _Columns:
    """A programme's columns on the correction's basis: the ``free`` coefficients, each in
    units of ``scale`` (:func:`_programme`); ``values`` (M, 4, k + 1) the basis's scaled
    by them (0 on a frozen coefficient) and ``position`` (M, k + 1) each basis function's
    column (-1: frozen)."""

    values: np.ndarray
    position: np.ndarray

    @classmethod
    def of(cls, basis: _Basis, free: np.ndarray, scale: np.ndarray) -> _Columns:
        full = np.zeros(basis.n)
        full[free] = scale
        index = np.full(basis.n, -1)
        index[free] = np.arange(int(free.sum()))
        return cls(basis.values * full[basis.columns][:, None, :], index[basis.columns])

    def rows(self, points: np.ndarray, c: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR (indptr, indices, data) of the rows ``c[r] . dX`` at the grid ``points``
        (R,), c (R, 4) on the derivatives of x: the sum over nu of c's times the scaled
        basis's values there, an exact 0 left out (as a sparse product leaves it)."""
        data = sum(c[:, nu, None] * self.values[points, nu] for nu in range(4))
        position = self.position[points]
        keep = (position >= 0) & (data != 0)
        indptr = np.concatenate([[0], np.cumsum(keep.sum(axis=1))])
        return indptr, position[keep], data[keep]

    def at(self, delta: np.ndarray) -> np.ndarray:
        """(M, 4) the change of x .. x''' of the programme's solution ``delta``."""
        padded = np.append(delta, 0.0)  # (a frozen coefficient's position -1: this 0)
        return np.einsum("pdj,pj->pd", self.values, padded[self.position])


@dataclass(frozen=True, eq=False, repr=False)
class _Rows:
    """What a programme hands on to the next (the next step's, or its own again in a smaller
    trust region): its rows in the order it held them, each ``(side, point, joint)`` (side:
    the index of its limit's side in the programme's list; -1: the trust region's row at the
    grid point), and its final basis (HiGHS's; None: none)."""

    side: np.ndarray
    point: np.ndarray
    joint: np.ndarray
    basis: Any


def _programme(models: list[_Model], D: _Basis, free: np.ndarray, x0: np.ndarray,
               sigma: np.ndarray, trust: float, previous: _Rows | None = None,
               played: Callable[[np.ndarray], tuple[np.ndarray, dict]] | None = None
               ) -> tuple[np.ndarray | None, _Rows]:
    """One step's linear programme (module docstring): the correction's coefficients
    (``free`` ones; 0 elsewhere), None where HiGHS finds none; and its rows and basis, for
    the next. ``previous``: the last programme's (same models and columns): its active
    rows are this one's first, in its order, and HiGHS starts from its basis (the rows it
    had to add are those this one would add again, each a re-solve; from scratch, the first
    solve of each step took 340-700 simplex iterations); the rows its solutions break come
    in after them (rows merely near their bounds at the start, ~3 times as many, each cost
    HiGHS ~1 us at every re-solve). ``played``: the X (M, 4) of the law played through an
    x and each chunk's :class:`~hodyn_cli.algorithms.limits.programme.Derivatives` at it,
    by (a, b) (raised's: a step's check reads the law and values its corrections made,
    :func:`_errors`; None: made here)."""
    M, n = len(x0), D.n
    rest = REST * float(x0.max())
    cols = np.flatnonzero(free)
    # (each unknown in units of the largest x its basis function reaches: a better scaled
    # programme)
    reach_ = np.zeros(n)
    np.maximum.at(reach_, D.columns, np.abs(D.values[:, 0]) * x0[:, None])
    scale = np.maximum(reach_[cols], rest)
    basis = _Columns.of(D, free, scale)
    r = np.sqrt(np.maximum(x0, rest))
    h = np.diff(sigma)
    weight = np.zeros(M)  # d duration / d x_i (its sum of 2 h / (r_i + r_{i+1}))
    pair = -2 * h / (r[:-1] + r[1:]) ** 2
    weight[:-1] += pair / (2 * r[:-1])
    weight[1:] += pair / (2 * r[1:])
    into = basis.position.ravel()
    objective = np.bincount(into[into >= 0], (weight[:, None] * basis.values[:, 0]).ravel()[
        into >= 0], len(cols))
    # (the limits whose rows bound x's change alone, a velocity's: folded into the trust
    # region's upper side, the tightest at each grid point, no row of their own)
    folded = _Fold.of([m for m in models if m.x_only], rest, M)
    models = [m for m in models if not m.x_only]
    # each limit's sides: (model, its side)
    sides = [(model, side) for model in models for side in model.sides(rest)]
    # (a row is broken where ``sign (change - bound) > VIOLATED scale``: that threshold on its
    # change, once; none where the scale is 0 or no number, nor at rest, its bound infinite)
    with np.errstate(invalid="ignore"):  # (a scale that is no number: no row)
        beyond = _beyond(sides)
    # (the sides as the law's first-order model gives them: a second-order correction,
    # _errors, moves their bounds from these)
    plain, plain_beyond = sides, beyond
    corrections, uncorrected = 0, None
    held = [np.zeros(side.rhs.shape, dtype=bool) for _, side in sides]
    in_region = np.zeros(M, dtype=bool)
    span = np.minimum(trust * np.maximum(x0, 0.0), folded.room)  # (the region's upper
    # side, the folded limits' within it; its lower, below)
    ceiling = np.minimum(trust * np.maximum(x0, 0.0) * (1 + VIOLATED), folded.top)
    down = min(trust, TRUST) * np.maximum(x0, 0.0)
    box = np.full(len(cols), 3 * trust)  # (the region's rows come in as they are left)
    # one programme, its rows added round by round: HiGHS goes on from its last basis
    lp = LP(objective, -box, box)
    carried = previous if previous is not None and previous.basis is not None else None
    none = np.zeros(0, dtype=int)
    rows = _Rows(none, none, none, None) if carried is None else replace(carried, basis=None)
    _hold(rows, held, in_region)
    if carried is None:
        near = [_near(side.rhs, side.scale, side.sign) for _, side in sides]
        rows = _fresh(near, held, in_region, folded.near)
    _impose(lp, basis, sides, rows, span, down)
    if carried is not None:  # (its rows first, in its order: its basis is theirs)
        lp.start(carried.basis)
    delta = np.zeros(len(cols))
    for generation in range(GENERATIONS):
        x = lp.solve(programme.SIMPLEX_ITERATIONS * len(cols), programme.IPM_ITERATIONS)
        if x is None and uncorrected is not None:  # (bounds corrected past every step:
            # the last step found, and no basis handed on: the next programme starts from
            # the rows near their bounds)
            return _coefficients(uncorrected, cols, scale, n), rows
        if x is None:
            return None, _active(replace(rows, basis=lp.basis()))
        delta = x
        dX = basis.at(delta)
        changes = [c for model in models
                   for c in model.changes(dX[model.a : model.a + len(model.base)], rest)]
        broken = []
        for (_, side), change, top in zip(sides, changes, beyond, strict=True):
            bound, size, sign = side.rhs, side.scale, side.sign
            # (``sign (change - top) > 0`` as one comparison: no temporaries)
            p, j = _where(change > top if sign > 0 else change < top)
            broken.append(tuple(_worst(p, j, sign * (change[p, j] - bound[p, j])
                                       / size[p, j]).T))
        new = _fresh(broken, held, in_region, _left(dX[:, 0], span, down, ceiling, x0))
        if not len(new.side) and corrections < CORRECTIONS:
            # (the rows kept: the limits themselves, at the step's played law? Else the
            # bounds less the step's error, and the rows they break, as any broken row)
            # (x's change: the solution's dX, which its rows were just checked on; made
            # again from the coefficients, it was the same to rounding, one more product)
            errors = _errors(sigma, x0, dX[:, 0], changes, plain, plain_beyond, played)
            if errors is not None:
                corrections += 1
                uncorrected = delta
                sides = [(model, side._replace(rhs=side.rhs - e)) for (model, side), e
                         in zip(plain, errors, strict=True)]
                with np.errstate(invalid="ignore"):
                    beyond = _beyond(sides)
                lp.bound(_uppers(sides, rows, span))
                continue
        if not len(new.side) or generation == GENERATIONS - 1:
            break
        if carried is None and len(new.side) > lp.rows:  # (the first programme's basis,
            # found on the rows near their bounds alone, no start for more rows again: LP.afresh)
            lp.afresh()
        elif len(new.side) < TAIL * lp.rows:
            rows = _slack_dropped(lp, rows, sides, span, down, held, in_region)
        _impose(lp, basis, sides, new, span, down)
        rows = _joined(rows, new)
    return _coefficients(delta, cols, scale, n), _active(replace(rows, basis=lp.basis()))


def _coefficients(delta: np.ndarray, cols: np.ndarray, scale: np.ndarray, n: int
                  ) -> np.ndarray:
    """The correction's n coefficients of a programme's solution ``delta`` (its columns
    ``cols``, each in units of ``scale``; 0 elsewhere)."""
    out = np.zeros(n)
    out[cols] = delta * scale
    return out


def _beyond(sides: list) -> list[np.ndarray]:
    """Per side, where its rows' change is beyond its bound: ``sign (change - top) > 0``
    at ``top`` = the bound plus :data:`VIOLATED` of its scale (once; none where the scale
    is 0 or no number, nor at rest, its bound infinite)."""
    return [np.where(np.isfinite(side.scale) & (side.scale > 0),
                     side.rhs + side.sign * VIOLATED * side.scale, side.sign * np.inf)
            for _, side in sides]


def _errors(sigma: np.ndarray, x0: np.ndarray, change: np.ndarray, changes: list,
            sides: list, beyond: list,
            played: Callable[[np.ndarray], tuple[np.ndarray, dict]] | None = None
            ) -> list[np.ndarray] | None:
    """Per side of ``sides`` (their first-order model's), its rows' second-order error at
    the step that changes x by ``change`` (M,): a linearised limit's change at the step's
    played law (the quintic spline through ``x0 + change``, the very law raised judges the
    step on, its values read there again: ``played``, :func:`_programme`'s) less
    ``changes`` (its
    rows' change, the first-order prediction; a torque acceleration's error quadratic in
    the step: on the iiwa's 1 kHz Fourier path the first step broke it by 16 %), 0 at a
    sqrt(x) form's (its tangent rows keep it); None where no row's change with its error
    is ``beyond`` its bound: the step keeps the limits as its rows do. With ``e(dX) =
    V(X0 + dX) - V(X0) - G dX``, the next solve's rows are ``G dX' <= rhs - e(dX)``: where
    its step dX' is near dX, ``V(X0 + dX') <= bound``, the limit itself kept (the
    second-order correction of sequential quadratic programming against the Maratos
    effect: Nocedal and Wright, *Numerical Optimization*, 2nd ed., ch. 15); each
    correction from the first-order rows again (``sides``), its error at the new step:
    a fixed point the steps reach linearly (the iiwa's torque acceleration beyond its
    bound by 0.15, 2.5e-2, 5e-3, 1.1e-3, 2.4e-4 .. 2e-6 of it on the path of
    tests/test_sequential_correction.py)."""
    x = np.maximum(x0 + change, 0.0)
    X, at = (_jets(sigma, x), {}) if played is None else played(x)
    at = dict(at)  # (chunks the caller's cache lacks made here, not added to it)
    moved: dict[int, np.ndarray] = {}  # (each limit's change, once for its two sides)
    errors, broken = [], False
    for (model, side), row_change, top in zip(sides, changes, beyond, strict=True):
        if model.limit is None:
            errors.append(np.zeros(()))
            continue
        if id(model) not in moved:
            span = (model.a, model.a + len(model.base))
            if span not in at:
                at[span] = programme.Derivatives(X[span[0] : span[1]])
            moved[id(model)] = model.limit.values(X[span[0] : span[1]], at[span]) - model.base
        true = moved[id(model)]
        errors.append(true - row_change)
        broken = broken or bool(np.any(true > top if side.sign > 0 else true < top))
    return errors if broken else None


def _uppers(sides: list, rows: _Rows, span: np.ndarray) -> np.ndarray:
    """The upper bounds of ``rows`` (in their order): a limit's side's ``sign rhs`` at
    (point, joint), the trust region's (side -1) ``span`` at its grid point."""
    upper = np.zeros(len(rows.side))
    region = rows.side < 0
    upper[region] = span[rows.point[region]]
    for s, (_, side) in enumerate(sides):
        mine = rows.side == s
        upper[mine] = side.sign * side.rhs[rows.point[mine], rows.joint[mine]]
    return upper


def _slack_dropped(lp: LP, rows: _Rows, sides: list, span: np.ndarray, down: np.ndarray,
                   held: list[np.ndarray], in_region: np.ndarray) -> _Rows:
    """``rows`` (``lp``'s, in its order) less those dropped from ``lp`` (:meth:`LP.drop`):
    each one basic at its last solve and beyond :data:`SLACK` of its scale from its bound
    (a limit's side's its bound's, the trust region's its wider side there); no longer
    ``held`` or ``in_region``, so that a later solution that breaks one adds it again."""
    basic, slack = lp.slack()
    scale = np.zeros(len(rows.side))
    region = rows.side < 0
    scale[region] = np.maximum(span, down)[rows.point[region]]
    for s, (_, side) in enumerate(sides):
        mine = rows.side == s
        scale[mine] = side.scale[rows.point[mine], rows.joint[mine]]
    with np.errstate(invalid="ignore"):  # (an infinite bound's slack and scale: kept)
        gone = basic & (slack > SLACK * scale)
    if not gone.any():
        return rows
    in_region[rows.point[gone & region]] = False
    for s, mask in enumerate(held):
        mine = gone & (rows.side == s)
        mask[rows.point[mine], rows.joint[mine]] = False
    lp.drop(gone)
    keep = ~gone
    return _Rows(rows.side[keep], rows.point[keep], rows.joint[keep], None)


def _active(rows: _Rows) -> _Rows:
    """``rows`` less those basic in its basis (a basis still: each row dropped with its
    basic slack)."""
    if rows.basis is None:
        return rows
    import highspy

    basic = highspy.HighsBasisStatus.kBasic
    status = rows.basis.row_status  # (a new list at each read: once)
    # (the statuses compared by map and kept by compress, in C: the comprehensions' Python
    # loop over every row cost ~2.5 ms a programme of 15 000 rows)
    keep = np.fromiter(map(basic.__ne__, status), dtype=bool, count=len(status))
    rows.basis.row_status = list(compress(status, keep))
    return _Rows(rows.side[keep], rows.point[keep], rows.joint[keep], rows.basis)


def _hold(rows: _Rows, held: list[np.ndarray], in_region: np.ndarray) -> None:
    """``rows`` marked as held by the programme: a side's in ``held`` (per side, (P, m)),
    the trust region's in ``in_region`` (M,)."""
    in_region[rows.point[rows.side < 0]] = True
    for s, mask in enumerate(held):
        mine = rows.side == s
        mask[rows.point[mine], rows.joint[mine]] = True


def _fresh(found: list, held: list[np.ndarray], in_region: np.ndarray, region: np.ndarray
           ) -> _Rows:
    """The rows of ``found`` (per side, (points, joints)) and the trust region's at the grid
    points ``region`` that the programme does not hold yet (``held``, ``in_region``; marked
    held now)."""
    region = region[~in_region[region]]
    in_region[region] = True
    side, point, joint = [np.full(len(region), -1)], [region], [np.zeros(len(region), int)]
    for s, (p, j) in enumerate(found):
        keep = ~held[s][p, j]
        p, j = p[keep], j[keep]
        held[s][p, j] = True
        side.append(np.full(len(p), s))
        point.append(p)
        joint.append(j)
    return _Rows(np.concatenate(side), np.concatenate(point), np.concatenate(joint), None)


def _joined(first: _Rows, then: _Rows) -> _Rows:
    """``first``'s rows, then ``then``'s."""
    return _Rows(np.concatenate([first.side, then.side]),
                 np.concatenate([first.point, then.point]),
                 np.concatenate([first.joint, then.joint]), None)


def _impose(lp: LP, basis: _Columns, sides: list, rows: _Rows, span: np.ndarray,
            down: np.ndarray) -> None:
    """``rows`` added to ``lp`` in their order: a limit's side's at (point, joint) below
    its bound, the trust region's (side -1) at a grid point within ``-down .. span``
    there."""
    R = len(rows.side)
    c = np.zeros((R, 4))
    at, lower = rows.point.copy(), np.full(R, -np.inf)
    region = rows.side < 0
    c[region, 0] = 1.0
    lower[region] = -down[at[region]]
    for s, (model, side) in enumerate(sides):
        mine = np.flatnonzero(rows.side == s)
        if not len(mine):
            continue
        p, j = rows.point[mine], rows.joint[mine]
        c[mine] = side.sign * side.at(p, j)
        at[mine] = model.a + p
    lp.add_rows(*basis.rows(at, c), lower, _uppers(sides, rows, span))


def _near(bound: np.ndarray, size: np.ndarray, sign: float) -> tuple[np.ndarray, np.ndarray]:
    """The (points, joints) of a limit's side's rows (:meth:`_Model.sides`: ``bound`` the
    room its row leaves the change, ``size`` its scale) within :data:`NEAR` of their bound
    at the current law, the nearest per joint and quarter of a knot interval
    (:func:`_worst`): the first programme's rows before any solve. All of them (2 396 on
    the xArm7's stop with ``--jerk 20``, one side of its jerk at most points) cost HiGHS
    at every re-solve of that programme and held no more than the nearest of each group
    (a row's neighbours a grid interval away hold nearly the same correction)."""
    p, j = _where(sign * bound < NEAR * size)
    return tuple(_worst(p, j, -sign * bound[p, j] / size[p, j]).T)


def _left(dx: np.ndarray, span: np.ndarray, down: np.ndarray, ceiling: np.ndarray,
          x0: np.ndarray) -> np.ndarray:
    """The grid points where the change ``dx`` of x leaves the trust region (``-down ..
    span``: above ``ceiling``, the region's VIOLATED of it or a folded limit's own
    tolerance, :class:`_Fold`; below ``-down`` by VIOLATED of it), the farthest out (in
    units of the law's x there, ``x0``) per quarter of a knot interval (:func:`_worst`, as
    a limit's rows per joint): the region's rows come in as the limits' do. Every point
    left (a first solve goes to its box's corners: 3 949 of the xArm7's 4 001 grid points
    with ``--jerk 20``) held as many rows again as the limits' and cost HiGHS at every
    re-solve after; the programme still ends with none left beyond its tolerance."""
    left = np.flatnonzero((dx > ceiling) | (-dx > down * (1 + VIOLATED)))
    with np.errstate(divide="ignore", invalid="ignore"):  # (at rest x0 = 0: first)
        over = np.maximum(dx[left] - span[left], -dx[left] - down[left]) / x0[left]
    return _worst(left, np.zeros(len(left), dtype=int), over)[:, 0]


def _where(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero`` of a (P, m) mask, the same (points, joints) in the same order, from its
    flat indices: numpy's two-dimensional ``nonzero`` took ~10 times as long (0.2 ms on 4 001
    x 7, a side's broken rows at every generation: ~9 sides x 27 generations on the iiwa's 1
    kHz Fourier path)."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])


def _least(a: np.ndarray) -> np.ndarray:
    """(P,) the least of each row of ``a`` (P, m), m small: a column at a time (the same
    numbers as ``a.min(axis=1)``, NaN too; that reduction over rows of a few joints took ~6
    times as long, 0.5 ms on 4 001 x 7)."""
    out = a[:, 0].copy()
    for k in range(1, a.shape[1]):
        np.minimum(out, a[:, k], out=out)
    return out


def _pairs(p: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(R, 2) the (point, joint) pairs."""
    return np.stack([p, j], axis=1)


def _worst(p: np.ndarray, j: np.ndarray, over: np.ndarray) -> np.ndarray:
    """(R, 2) the (point, joint) of the most violated row per joint and quarter of a knot
    interval."""
    if not len(p):
        return np.zeros((0, 2), dtype=int)
    group = max(1, KNOTS // 4)  # (a quarter interval: fewer rounds, 11 against 17 on the UR10's path)
    key = j * (p.max() // group + 2) + p // group
    order = np.lexsort((-over, key))
    first = np.concatenate([[True], key[order][1:] != key[order][:-1]])
    keep = order[first]
    return _pairs(p[keep], j[keep])
