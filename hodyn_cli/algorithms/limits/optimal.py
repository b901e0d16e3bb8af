"""Time-optimal retiming along the path (``hodyn retime --optimal``): the fastest time law s(t)
along the geometric path of a motion within every limit ``check`` knows, torque rates and
torque accelerations included.

The path, the limits along it as polynomials in the time law, and the programmes that
find the fastest law: :mod:`~hodyn_cli.algorithms.limits.programme`.

**The final check** (:meth:`Optimal.fit`). Between grid points the limits are not imposed, so
the played motion's dynamics are computed afresh at every output sample and the motion is
then scaled uniformly, exactly by its scaling laws, onto its limits (:class:`Fit`): every limit
holds at every output sample, and one is on its limit; where no scaling near 1 fits, it is
planned again for tighter limits, and it is never slower than the uniform scaling. The
scaling is then made the law's own and the motion, sampled ``1/rate`` apart again, fitted
again (:meth:`Optimal._resampled`): the output's samples are exactly ``1/rate`` apart. Its
derivatives are judged as ``hodyn validate`` judges them
(:meth:`~hodyn_cli.algorithms.motion.differences.Differences.share`): an output validate
would fail is not the result. Reachability's played law, where that scaling slows it, is
first lowered around the places beyond a limit alone (:meth:`Optimal._local`,
:mod:`~hodyn_cli.algorithms.limits.local`): one peak between grid points no longer slows a
long motion throughout. Where its played law is beyond a limit, the law planned again so
that its smoothing keeps the passes' own rows (:func:`~hodyn_cli.algorithms.limits.
reachability.within`: a zero-inertia point, a path that ends moving) is played and fitted
too, and the shorter of the two kept.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.limits import local, rates, reachability, sequential
from hodyn_cli.algorithms.limits.distinct import distinct
from hodyn_cli.algorithms.limits.feasibility import (
    JOINT_ORDERS,
    TORQUES,
    Binding,
    ScaleSearch,
    Unlimited,
    limited_series,
    series_laws,
)
from hodyn_cli.algorithms.limits.jets import compose
from hodyn_cli.algorithms.limits.programme import (
    CAP,
    CAP_LEAST,
    GRID,
    PACE,
    STEEP,
    WINDOW,
    KinkCeiling,
    PathGrid,
    Stretches,
    TimeLaw,
    between,
    eased,
    path_limits,
    rests_inside,
    slowness,
    solve_windows,
    stretches,
    time_scale,
)
from hodyn_cli.algorithms.limits.rests import STILL, Pauses
from hodyn_cli.algorithms.limits.scaling import TOLERANCE, Law, scaled
from hodyn_cli.algorithms.limits.stored import Stored
from hodyn_cli.algorithms.motion.differences import RTOL, Differences
from hodyn_cli.algorithms.motion.turns import unwrapping, wrapped_columns
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import HodynError, Infeasible, TrajectoryError
from hodyn_cli.modeling.drives import Drives
from hodyn_cli.modeling.limits import Limits

__all__ = ["GRID", "Plan", "Bound", "Fit", "Optimal"]

#: ``--solver``: ``auto`` (reachability along the arc length where it applies and its output
#: passes validate, else the windows of linear programmes), ``reachability`` (that or an
#: error), ``windows`` (the linear programmes in the input's time)
SOLVERS = ("auto", "reachability", "windows")
#: the fewest points a grid asked of a solver (``--grid``, ``--arc-grid``) may have, as the
#: command's ``min`` (an inner uniform law's grid of the path's ends alone is :data:`ENDS`)
GRID_LEAST = 8
#: where keeping limits of higher orders (jerk, torque rates) made reachability's law more than
#: this many times its passes' law (the rounds' law, or the sequential programmes' where they
#: ran: :func:`~hodyn_cli.algorithms.limits.rates.kept`), ``auto`` runs the windows too and
#: keeps the shorter (:meth:`Optimal._or_windows`), unless the programmes' law is a local
#: optimum of the windows' problem (:attr:`Optimal.local`); where no programme could run on
#: the one piece, its grid beyond :data:`~hodyn_cli.algorithms.limits.sequential.MOST`, the
#: windows alone, from the first kernel's rounds on (:func:`_unrefined`)
SLACK = 1.09
#: ``auto``'s :data:`SLACK` on a path with rests inside it where it turns (corners:
#: reachability's pieces), its limits of higher orders joint jerks alone, on an output coarser
#: than :data:`HIGHER_RATE` (:func:`_needed_slack`). Near each corner the windows' law is held
#: by their kink ceiling (the top derivative's jump at the output's rate,
#: ``programme.KinkCeiling``), which reachability's law, at rest there, does not meet: without
#: it the windows' law on the UR5's and the UR10's point-to-point paths (bench_optimal_rates'
#: ur5-p2p, ur10-p2p) was 2.022 s and 1.793 s, with it 2.430 s and 1.934 s, reachability's 2.041
#: s and 1.877 s. On 20 such paths at 20 and 100 Hz (bench_optimal_rates' and stranger_optimal's
#: with --jerk) the windows lost at every slack up to 1.48 (10 paths, by 1.3-80 %) and won at
#: every one from 1.61 (9, by 3.0-16 %), but the UR5's with --jerk 200 at 1.57 (+1.2 %); with
#: torque rates or accelerations they won and lost at slacks of 1.19-1.25 alike (the iiwa's -1.5
#: % and -3.9 %, the UR5's and TIAGo Pro's paths doubling back +12 %; since a ramp's rise reads
#: the played law's u, ``rates._leaving``, reachability's law on the iiwa's point-to-point path
#: is 1.05 % shorter than the windows' at a slack of 1.18, and at 1 kHz 1.9 % longer), and at 1
#: kHz won at 1.26 (ur5-p2p-1kHz -3.1 %): :data:`SLACK` stays there; and at a rest whose
#: acceleration steps, where the windows hold x = 0 (benchmarks/README.md, 2026-11-30, auto4).
#: Not a bound between losers and winners: the slack does not separate them across arms
#: (benchmarks/README.md, review38 and the lead, 2026-12-01). Above 1.5: the windows won on
#: bench_optimal_rates' ur10-p2p path with --jerk 105-130 (slacks 1.50-1.59) by 4.6-7.2 %, the
#: UR3's with --jerk 140-160 by 1.1-3.7 % (1.59, tried, kept reachability's law there), and lost
#: on the UR5's with --jerk 200 (1.568, by 1.2 %, 2.8 s of CPU) and the 2R's with --jerk 1200 at
#: 20 Hz (1.523, 75 %). Below it: the UR10's with --jerk 150 (1.450) is the one measured win
#: beyond 0.5 % (1.0 %) that auto misses; 1.4, tried, caught it but ran the windows on the Z1's
#: path (z1-p2p, 1.482, lost by 3.7 %: 0.6 -> 5.4 s of CPU)
CORNERED_SLACK = 1.5
#: the final uniform scaling is looked for among the speed-ups 1 +- FIT: first on SPEEDUPS,
#: then by bisection between two of them
FIT = 0.02
#: a played law longer than this many times the uniform scaling's is not sampled (its fit
#: speeds it up by FIT at most: never the shorter). The generic quadruped's leg along a
#: 5 s Fourier path at 100 Hz: the passes' law on the denser grid (_denser) stopped at a
#: hairpin's apex (x = 0 there), its smoothed law took 4.8e146 s, and sampling it raised an
#: OverflowError (an internal error, exit 3)
SLOWEST = 2.0
#: the most a uniform scaling resampled at the output's rate is sped up (as k: 1 / (1 +
#: FIT)), whatever its samples allow (:func:`_no_faster`)
SPED = 1 / (1 + FIT)
SPEEDUPS = np.linspace(1 + FIT, 1 - FIT, 201)
#: plans at most: where no uniform speed-up within FIT of 1 fits the played motion, the limits
#: the plan is made for are tightened by twice the excess (at least MARGIN) and it is planned
#: again
ATTEMPTS = 3
MARGIN = 1e-3
#: a margin of this much or more (limits at half their width or less) is not planned for: the
#: played motion is far beyond the limits between the grid points (a path whose positions and
#: derivatives disagree: estimated derivatives of raw positions), the uniform scaling is used
MARGINS = 0.5
#: a law whose played motion is within ``hodyn validate``'s tolerance of the consistency of its
#: derivatives on its samples, but not once resampled at the rate, is planned again (a calmer
#: cap, then half the pace, at most CALMER times) where it was beyond CALM of that tolerance
CALM = 0.8
CALMER = 2
#: the cap is lowered so at most LOWERINGS times (a law that stays a little beyond CALM
#: however low its cap would otherwise be planned again for each half a per cent of cap)
LOWERINGS = 3
#: a stretch whose cap is lowered alone restarts from its law played slower, the law eased
#: back to the others' own over this share of its length beside it (:meth:`Optimal._windows`)
EASED = 0.5
#: a law on the first path-speed cap whose output is within RAISE CALM of that tolerance is
#: planned once more with its cap where the inconsistency would be CALM if it grew as the
#: speed's RISE-th power (it grew as its 2.4th to 7th power, and slower below: the iiwa's 3 s
#: line at 0.29 of the tolerance at the cap of 8, 0.33 at 10.3, 1.001 at 11.9), the faster law
#: that validate passes kept: that line 8.5 % -> 6.9 % from toppra, the Panda's 5.1 % -> 4.2 %
RAISE = 0.5
RISE = 4.0
#: the grid's samples (at most twice as many) of the plan that reachability's played motion is
#: fitted on: its law is uniform, its grid only its ends
ENDS = 2
#: the final fit's slowing of reachability's played law is made local in at most SPOTS
#: attempts (:meth:`Optimal._local`): the law lowered around the samples beyond a limit at
#: its own speed, its factor field 1 farther than twice SPREAD kernel reaches from them; an
#: attempt that is not shorter (the field's own slopes beyond a limit) tried again WIDER
#: times as wide. The iiwa's 500 s Fourier path with its limits file (347.996 s, slowed 1.47
#: % throughout): 343.26 s, then 343.20 s at SPREAD 10; 346.26 s at 50, 354.7 s at 200 (the
#: wide fields over many places) in one attempt
SPOTS = 4
SPREAD = 10.0
WIDER = 4.0
#: the output's samples are fitted at most RESAMPLES times at the rate asked for; one that
#: fits within CLOSE of its limits (as a share of the speed-up) ends it
RESAMPLES = 4
CLOSE = 2e-4
#: the fit's slowing of the lowered law beyond which the law lowered by its deficit is played
#: and fitted too (``_smoothings``' third candidate), where the passes' law has one-point
#: dips: the legs' first fits were 1.37-1.58 times their lowered laws (Laikago's, HyQ's and
#: Go1's Fourier paths, dips on each). An observation, not a bound: the human arm's 10 kHz
#: Fourier path, its fit above 5 % and no dips, played it and lost every time, 8.2 -> 11.5 s
#: of CPU for the same duration (its 10^5-sample path 27.8 -> 32.5 s); with both conditions
#: neither runs it, the legs keep their gains (Laikago's 100 Hz 4.01214 -> 3.88788 s, Go1's
#: 4.2704 -> 3.83726 s)
SHIFTED = 0.05
#: an attempt that is not shorter is tried wider only where the fit slows the law by more
#: than WIDEN (K - 1 of the output: about the most a lowered law gains, as it plays no
#: faster than the law's own speed), each wider one another played law and fit. Of 49 paths
#: (bench_optimal_rates' 21, the Panda's two without its limits file, stranger_optimal's
#: fresh back, many, still and sing on 10 arms) two tried wider: the G1 arm's 8-waypoint path
#: at 100 Hz (K - 1 3.5e-4: three wider attempts, none kept, 0.9 s of its 3 s of CPU), Alex's
#: (9.3e-4: the wider one kept, 2.6e-4 shorter; then at 5.3e-4 one that validate failed)
WIDEN = 3 * CLOSE


# -- the retimed motion ------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class Plan:
    """A time law along a path: the motion played along it starts at ``t0`` and is sampled
    every ``step`` seconds from its start (:meth:`at`: the last step is shorter, or, where it
    would be shorter than :data:`SLIVER` of a step, the one before it that much longer);
    ``uniform``: the uniform scaling's binding (its k: ``retime --to-limits``); ``span``: the
    input's duration."""

    law: TimeLaw
    t0: float
    step: float
    uniform: Binding
    span: float
    grid: int

    @property
    def duration(self) -> float:
        return self.law.duration

    @property
    def samples(self) -> int:
        """The intervals between the output's samples (there are ``samples + 1``)."""
        return max(1, int(np.ceil(self.duration / self.step - SLIVER)))

    def at(self, i: np.ndarray) -> np.ndarray:
        """The times of the samples i (0 .. :attr:`samples`) from the start: ``i step``, the
        last one the end."""
        return np.where(i < self.samples, i * self.step, self.duration)

    def slower(self, k: float) -> Plan:
        """The plan played k times slower (the law's x / k^2), sampled as often."""
        return replace(self, law=replace(self.law, coefficients=self.law.coefficients / k**2))

    def played(self, chunks: Iterable[Trajectory]) -> Iterator[Trajectory]:
        """The motion along the law, chunk by chunk of the path (``chunks``: the input once
        more): at each output time s(t), q(s) and its s-derivatives by Hermite interpolation
        between the input samples around it, then the chain rule."""
        done = 0
        for path, last in _lookahead(reachability.overlapping(chunks)):
            s, t, done = self.along(path, last, done)
            if t.size:
                yield self._piece(path, s, t)

    def along(self, path: Trajectory, last: bool, done: int
              ) -> tuple[np.ndarray, np.ndarray, int]:
        """(s, t, end): the samples ``done`` .. ``end - 1`` played along ``path`` (a chunk
        of the path, :func:`~reachability.overlapping`'s; ``last``: the path's last, played
        to the law's end), their path parameters and times."""
        law, times = self.law, self.law.times
        assert path.t is not None
        if last:
            end = self.samples + 1
        else:
            # (clipped to the law's breaks: a first chunk of a played motion may end before
            # the law's first break, t(s) there nan -- Bolt's leg on a 16 ms point-to-point)
            last_s = np.clip(path.t[-1:], law.breaks[0], law.breaks[-1])
            end = int(np.ceil(law.time_at(last_s, times)[0] / self.step - 1e-9))
            end = min(max(end, done), self.samples + 1)
        t = self.at(np.arange(done, end))
        if not t.size:
            return t, t, end
        return np.clip(law.s_at(t, times), path.t[0], path.t[-1]), self.t0 + t, end

    def _piece(self, path: Trajectory, s: np.ndarray, t: np.ndarray) -> Trajectory:
        """The played motion at times t (path parameters s); ``series["s"]``: s (N, 1)."""
        return _moved(path, s, t, lambda K: self.law.rates(s, K))


def _lookahead(items: Iterator[Trajectory]) -> Iterator[tuple[Trajectory, bool]]:
    """Each item and whether it is the last."""
    item = next(items, None)
    while item is not None:
        after = next(items, None)
        yield item, after is None
        item = after


def _moved(path: Trajectory, s: np.ndarray, t: np.ndarray,
           rates: Callable[[int], np.ndarray]) -> Trajectory:
    """The motion at times t (path parameters s) along ``path``, ``rates(K)`` the time law's
    ``sdot .. s^(K)`` there; ``series["s"]``: s (N, 1). Interpolated and composed
    :data:`MOVED` samples at a time (every step is per sample: the same numbers)."""
    K = path.orders - 1
    law = rates(K) if K else None
    q = np.empty((len(s), *path.derivatives.shape[1:]))
    for a in range(0, len(s), MOVED):
        part = between(path, s[a : a + MOVED])
        q[a : a + MOVED] = part if law is None else compose(part, law[a : a + MOVED])
    return Trajectory(path.joint_names, q, t, series={"s": s[:, None]})


#: samples :func:`_moved` interpolates at a time: the Hermite interpolants' temporaries are
#: ~1.8 kB a sample (7 joints, q .. q^(4)), and the local slowing's finer samples about its
#: peaks (local.finer) came to 172,000 at once in one chunk of Talos's right arm's loop at 1
#: kHz (3001 samples): 305 MiB of them, its peak RSS 437 MB against 195 MB for the iiwa's
#: 10^5 samples
MOVED = 8192


def _ranges(path: Trajectory, taken: list[tuple[int, np.ndarray, np.ndarray]]
            ) -> Iterator[list[tuple[int, np.ndarray, np.ndarray]]]:
    """The samplings' samples along a chunk of the path (``taken``: (sampling, s, t), each
    s rising) a range of the chunk at a time, every sampling's samples in it together, about
    :data:`~hodyn_cli.algorithms.limits.local.ROWS` twice a range: :func:`between`
    interpolates points several to an interval from each interval's control points made
    once where they are :data:`~hodyn_cli.algorithms.limits.programme.SHARED` or more to one
    (16 samplings put ~3.7 in each interval of a long path's played motion, a sampling or
    two at a time ~0.3: each point its own; the same numbers to the bit, 30 % less of its
    time; the 8 since branch long12 ~1.85: each point its own again, SHARED 1.5 no faster,
    benchmarks/README.md), and the range bounds the memory of their interpolants and
    dynamics."""
    total = sum(len(s) for _, s, _ in taken)
    parts = max(1, total // (2 * local.ROWS))
    assert path.t is not None
    cuts = path.t[np.arange(1, parts) * (path.n_samples - 1) // parts]
    ends = [np.concatenate([[0], np.searchsorted(s, cuts), [len(s)]]) for _, s, _ in taken]
    for k in range(parts):
        group = [(phase, s[e[k]:e[k + 1]], t[e[k]:e[k + 1]])
                 for (phase, s, t), e in zip(taken, ends, strict=True) if e[k + 1] > e[k]]
        if group:
            yield group


class _Sampled:
    """The local slowing's first sampling (:meth:`Optimal._beyond`'s: the output's samples
    at the played law's own speed) as :meth:`Optimal.lazily`'s fit made their dynamics, fed
    piece by piece (:meth:`add`): each sample's use of its limits (:func:`local.uses`) and
    those beyond (:func:`local.candidates`: their indices and limited laws), read back in
    order by the samplings' ranges (:meth:`next`). Every step is per sample: the same
    numbers as the samplings made them (at 10^5 samples, an eighth of their samples, whose
    interpolation and dynamics were made twice, ~0.4 s of CPU)."""

    def __init__(self) -> None:
        self.limited: list | None = None  # (limited_series of the pieces' laws)
        self._parts: list[tuple[np.ndarray, np.ndarray, list[local.Taken]]] = []
        self._whole: tuple[np.ndarray, np.ndarray, list[local.Taken]] | None = None
        self._read = 0

    def add(self, laws: dict[str, Law], limited: list) -> None:
        self.limited = limited
        use = local.uses(laws, limited)
        self._parts.append((use, *local.candidates(laws, limited, use)))

    def next(self, count: int) -> tuple[np.ndarray, np.ndarray, list[local.Taken]]:
        """The next ``count`` samples' uses, candidates' rows (among them) and laws."""
        if self._whole is None:
            self._whole, self._parts = _joined_parts(self._parts), []
        use, rows, taken = self._whole
        a, b = self._read, self._read + count
        self._read = b
        inside = (rows >= a) & (rows < b)
        return (use[a:b], rows[inside] - a,
                [(law.take(inside, slice(None)), c, h) for law, c, h in taken])

    @property
    def done(self) -> bool:
        """Whether every sample fed was read back."""
        return self._whole is not None and self._read == len(self._whole[0])


def _joined_parts(parts: list[tuple[np.ndarray, np.ndarray, list[local.Taken]]]
                  ) -> tuple[np.ndarray, np.ndarray, list[local.Taken]]:
    """Consecutive parts' uses, candidates' rows and laws (:func:`local.candidates`) as one
    piece's: the same arrays (every step is per sample)."""
    if len(parts) == 1:
        return parts[0]
    starts = np.cumsum([0] + [len(use) for use, _, _ in parts[:-1]])
    return (np.concatenate([use for use, _, _ in parts]),
            np.concatenate([rows + a for (_, rows, _), a in zip(parts, starts, strict=True)]),
            local.joined([taken for _, _, taken in parts]))


def _no_faster(found: Binding | None, plan: Binding) -> Binding:
    """The final fit's binding on a uniform scaling's samples (the plan: the uniform
    scaling ``plan`` found on the samples it was planned from), held at a speed-up of 1 +
    FIT at most, as every final fit's: samples that miss where it binds, or all lie at
    rests, see no limit (the finger_edu's 10 ms point-to-point motion resampled at 20 Hz,
    two samples at its rests, whose rounding in q' bound it at 1.3e-13 s). ``found`` None:
    none at all (:meth:`Optimal._fitted`): the plan's own bound, sped up that much. (At
    most 1 instead cost up to 0.25 % on 20 of the 62 arms' rows of
    benchmarks/stranger_optimal.py, whose samples keep their limits a little faster than
    the played motion's denser ones do.)"""
    if found is None:
        return replace(plan, x=1 / SPED)
    return found if found.k >= SPED else replace(found, x=1 / SPED)


def _follows(differences: Differences, joints: tuple[str, ...], uniform: bool = False
             ) -> None:
    """Refuse a path whose derivatives do not follow from its positions (beyond
    :data:`APART` times ``hodyn validate``'s tolerance): it is played between its samples,
    where they would disagree (``uniform``: the uniform scaling resampled, ``retime
    --to-limits --rate``, the option the message names)."""
    played = "--to-limits --rate resamples" if uniform else "--optimal plays"
    for k, (rel, tol, _) in enumerate(differences.judged(RTOL), start=1):
        j = int(np.argmax(rel))
        if rel[j] > APART * tol:
            raise TrajectoryError(
                f"{derivative_name('q', k)}_{joints[j]} does not follow from "
                f"{derivative_name('q', k - 1)}_{joints[j]} (relative error {rel[j]:.3g} "
                f"against its time differences near t = {differences.when[k - 1, j]:.6g} s, "
                f"{rel[j] / tol:.3g} times what hodyn validate accepts): {played} the "
                "path between the samples, where they disagree (with --estimate-derivatives "
                "--cutoff the positions stay unfiltered); --to-limits alone scales at the "
                "samples")


#: how far (in ``hodyn validate``'s tolerances) a path's derivatives may be from following
#: from its positions before --optimal refuses it
APART = 10.0


#: a last step shorter than this share of a step is not taken: the one before is longer by it
#: (the time differences over a sliver of a step would be rounding)
SLIVER = 1e-3


#: a sample counts as on its limit within this fraction of the band's half-width
ON_LIMIT = 1e-2


class Bound:
    """Where a motion is on its limits (within :data:`ON_LIMIT`), fed chunk by chunk: per
    (quantity label, joint) the first :data:`SPANS` time intervals, how many there are, and
    their share of the duration (memory: that much per limit, however long the motion)."""

    def __init__(self, model: Model, limits: Limits):
        self.model, self.limits = model, limits
        self.first: dict[tuple[str, str], list[tuple[float, float]]] = {}
        self.last: dict[tuple[str, str], list[float]] = {}  # the latest interval, open or not
        self.count: dict[tuple[str, str], int] = {}
        self.total: dict[tuple[str, str], float] = {}
        self.t_first: float | None = None
        self.t_last = 0.0
        self._open: dict[tuple[str, str], bool] = {}
        #: the largest use of a limit (of its band's half-width): (use, quantity label,
        #: joint, time)
        self.peak: tuple[float, str, str, float] | None = None

    def add(self, laws: dict[str, Law], t: np.ndarray) -> None:
        self.t_first = float(t[0]) if self.t_first is None else self.t_first
        for quantity, series, cols, lower, upper in limited_series(self.model, self.limits,
                                                                     laws):
            law = laws[series]
            usage = np.abs(law.at(1.0)[:, cols] - (lower + upper) / 2) / ((upper - lower) / 2)
            if usage.size and (self.peak is None or usage.max() > self.peak[0]):
                i, c = np.unravel_index(np.argmax(usage), usage.shape)
                self.peak = (float(usage[i, c]), quantity.label, law.joint_names[cols[c]],
                             float(t[i]))
            for c, on in zip(cols, (usage >= 1 - ON_LIMIT).T, strict=True):
                key = (quantity.label, law.joint_names[c])
                before = np.concatenate([[self._open.get(key, False)], on[:-1]])
                starts = np.flatnonzero(on & ~before)
                ends = np.flatnonzero(on & ~np.append(on[1:], False))
                if on[0] and before[0]:  # a run that goes on from the previous chunk
                    self.last[key][1], ends = float(t[ends[0]]), ends[1:]
                for a, b in zip(starts, ends, strict=True):
                    self._finish(key)
                    self.last[key] = [float(t[a]), float(t[b])]
                self._open[key] = bool(on[-1])
        self.t_last = float(t[-1])

    def summary(self) -> str:
        """One line, never empty: ``"on its limits: "`` and :meth:`describe`'s, or which limit
        it comes nearest to, and how near."""
        lines = self.describe()
        if lines:
            return "on its limits: " + "; ".join(lines)
        nearest = self.nearest()
        if nearest is None:
            return "no limit depends on its speed"
        return f"on no limit within {100 * ON_LIMIT:.3g} % (nearest: {nearest})"

    def nearest(self) -> str | None:
        """``"<quantity> of <joint> at t = ... s, x % of its limit"``: the largest use of a
        limit (None: no limit depends on the speed)."""
        if self.peak is None:
            return None
        use, label, joint, t = self.peak
        return f"{label} of {joint} at t = {t:.6g} s, {100 * use:.4g} % of its limit"

    def _finish(self, key: tuple[str, str]) -> None:
        """The latest interval of ``key`` is over: counted, and kept if among the first."""
        span = self.last.pop(key, None)
        if span is not None:
            first = self.first.setdefault(key, [])
            if len(first) < SPANS:
                first.append((span[0], span[1]))
            self.count[key] = self.count.get(key, 0) + 1
            self.total[key] = self.total.get(key, 0.0) + span[1] - span[0]

    def describe(self, most: int = 4) -> list[str]:
        """``"<quantity> of <joint>: a-b s, ... (x % of the time)"`` per bound limit, those
        bound longest first (``most`` <= :data:`SPANS` intervals each); a limit met at single
        samples only says how many instants (its share of the time is nil, yet it binds)."""
        duration = max(self.t_last - (self.t_first or 0.0), 1e-300)
        bound = []
        for key in set(self.first) | set(self.last):
            spans = self.first.get(key, []) + [tuple(v) for v in [self.last.get(key)] if v]
            count = self.count.get(key, 0) + (key in self.last)
            share = self.total.get(key, 0.0) + sum(b - a for a, b in spans[len(
                self.first.get(key, [])):])
            bound.append((share, key, spans[:min(most, SPANS)], count))
        out = []
        for share, (label, joint), spans, count in sorted(bound, key=lambda e: (-e[0], e[1])):
            where = ", ".join(_span(a, b) for a, b in spans)
            more = f" and {count - len(spans)} more" if count > len(spans) else ""
            out.append(f"{label} of {joint}: {where}{more} ({_share(share, duration, count)})")
        return out


def _span(a: float, b: float) -> str:
    """``"a-b s"`` to 4 digits, more where those would not tell a from b (``"2-2 s"``); a single
    sample ``"a s"``."""
    if b <= a:
        return f"{a:.4g} s"
    digits = next((d for d in range(4, 17) if f"{a:.{d}g}" != f"{b:.{d}g}"), 17)
    return f"{a:.{digits}g}-{b:.{digits}g} s"


def _share(share: float, duration: float, count: int) -> str:
    """How long a limit binds, as a user reads it: ``"x % of the time"``, ``"< 0.01 % of the
    time"`` below that (never "0 %" for a limit that binds), or ``"2 instants"`` where every
    interval is a single sample (a share of 0)."""
    if share <= 0:
        return "an instant" if count == 1 else f"{count} instants"
    percent = 100 * share / duration
    return f"{percent:.3g} % of the time" if percent >= 0.01 else "< 0.01 % of the time"


#: intervals on its limit kept per limit (:class:`Bound`); the rest are counted
SPANS = 8


#: samples kept per bracket of :data:`SPEEDUPS` for the final bisection (those that leave
#: their band first within it): memory does not grow with the motion
KEEP = 64


class Fit:
    """The largest uniform speed-up x within ``1 +- FIT`` at which every sample of a motion fed
    chunk by chunk (:meth:`add`: its laws) is inside its band. Per chunk, the largest usage
    at each of :data:`SPEEDUPS` (of the samples whose majorant ``|a_0 - centre| + sum_i |a_i|
    X^i + |a| X + |c|``, X = 1 + FIT, reaches the band: the others are inside at every such
    x); and per bracket between two neighbouring speed-ups the :data:`KEEP` samples that
    leave their band first within it (by the usages at its ends; at the top speed-up: the
    fullest). :meth:`solve`: the largest speed-up that fits, then bisection to the boundary
    in the bracket above it on its kept samples (every sample inside there, one on its limit
    to rounding). Memory: the kept samples' few coefficients, ``KEEP`` per bracket."""

    def __init__(self) -> None:
        self.curve = np.full(len(SPEEDUPS), -np.inf)
        #: per bracket its kept samples' keys (G, KEEP: smaller leaves first; inf: an empty
        #: slot) and their fields (dense, f, centre, half, lower, upper, label, joint,
        #: sample, time), each (G, KEEP, ...); None: none kept yet
        self.keys = np.full((len(SPEEDUPS), KEEP), np.inf)
        self.rows: tuple | None = None

    def add(self, laws: dict[str, Law], limited: list, t: np.ndarray, start: int) -> None:
        top = SPEEDUPS[0]
        for quantity, series, cols, lower, upper in limited:
            law = laws[series].take(slice(None), cols)
            c = law.coefficients
            dense = np.zeros(c.shape[:2] + (law.power + 2 * c.shape[-1] - 1,))
            dense[..., law.power::2] = c
            f = law.friction if law.friction is not None else np.zeros(c.shape[:2] + (3,))
            centre, half = (lower + upper) / 2, (upper - lower) / 2
            reach = np.abs(dense[..., 0] - centre) + np.abs(f[..., 0]) * top + np.abs(f[..., 1])
            reach += (np.abs(dense[..., 1:]) * top ** np.arange(1, dense.shape[-1])).sum(axis=-1)
            rows, j = np.nonzero(reach >= half)
            if not rows.size:
                continue
            group = (dense[rows, j], f[rows, j], centre[j], half[j], lower[j], upper[j],
                     np.full(rows.size, quantity.label, dtype=object),
                     np.array(law.joint_names, dtype=object)[j], start + rows, t[rows])
            for a in range(0, rows.size, BLOCK):  # memory: a block's usages
                block = tuple(v[a : a + BLOCK] for v in group)
                usage = _usage(block, SPEEDUPS)
                self.curve = np.maximum(self.curve, usage.max(axis=0))
                keys = np.full(usage.shape, np.inf)
                keys[:, 0] = -usage[:, 0]  # the top speed-up: the fullest
                out = np.flatnonzero(usage[:, :-1].max(axis=1) > 1 + TOLERANCE / 10)
                if out.size:  # those beyond their band at some speed-up but the slowest
                    keys[out, 1:] = _firsts(usage[out])
                self._keep(block, np.where(np.isfinite(keys), keys, np.inf))

    def _keep(self, group: tuple, keys: np.ndarray) -> None:
        """Into every bracket's kept samples, the group's (keys (K, G): smaller leaves first,
        inf: does not leave), the KEEP smallest keys of each bracket: all brackets at once
        (per bracket in a Python loop, 200 of them a block, it was a quarter of a
        1000-sample path's reachability run)."""
        G = len(SPEEDUPS)
        if len(keys) > KEEP:  # (the group's KEEP smallest per bracket first: a bracket's few
            # rows gathered, not every sample's; 6.5 of 39 s of a 10^5-sample --optimal went
            # to gathering)
            new = np.argpartition(keys, KEEP, axis=0)[:KEEP].T  # (G, KEEP): rows of the group
        else:
            new = np.broadcast_to(np.arange(len(keys)), (G, len(keys)))
        fresh = keys[new, np.arange(G)[:, None]]
        if not np.isfinite(fresh).any():
            return
        if self.rows is None:
            self.rows = tuple(np.zeros((G, KEEP) + v.shape[1:], v.dtype) for v in group)
        joined = np.concatenate([self.keys, fresh], axis=1)
        best = np.argpartition(joined, KEEP - 1, axis=1)[:, :KEEP]
        self.keys = np.take_along_axis(joined, best, axis=1)
        g = np.arange(G)[:, None]
        self.rows = tuple(_joined_rows(old, v[new])[g, best]
                          for old, v in zip(self.rows, group, strict=True))

    def _kept(self, g: int) -> tuple | None:
        """Bracket g's kept samples' fields (None: none)."""
        full = np.isfinite(self.keys[g])
        if self.rows is None or not full.any():
            return None
        return tuple(v[g][full] for v in self.rows)

    @property
    def reached(self) -> bool:
        """Whether some sample's majorant reached its band at a speed-up within FIT (False:
        every sample fits at any of them, and nothing at these samples limits the speed)."""
        return self.rows is not None

    def _fits(self) -> np.ndarray:
        return self.curve <= 1 + TOLERANCE / 10

    def _worst(self, g: int, x: float) -> tuple[float, int]:
        """The largest usage at x of bracket g's kept samples, and which."""
        kept = self._kept(g)
        assert kept is not None
        usage = _usage(kept[:4], np.array([x]))[:, 0]
        return float(usage.max()), int(np.argmax(usage))

    def excess(self) -> float:
        """How far the worst sample is beyond its band at x = 1 (of the half-width)."""
        return max(float(self.curve[np.argmin(np.abs(SPEEDUPS - 1))]) - 1, 0.0)

    def solve(self) -> Binding | None:
        """The binding at the largest x that fits, or None (none does within 1 +- FIT)."""
        fits = self._fits()
        if not fits.any():
            return None
        g = int(np.argmax(fits))
        kept = self._kept(g)
        if kept is None:
            return None
        lo, hi = SPEEDUPS[g], SPEEDUPS[max(g - 1, 0)]
        for _ in range(60 if g else 0):  # lo fits, hi does not
            mid = (lo + hi) / 2
            if self._worst(g, mid)[0] <= 1 + TOLERANCE / 10:
                lo = mid
            else:
                hi = mid
        _, r = self._worst(g, lo)
        dense, f, centre, half, lower, upper, label, joints, samples, times = kept
        value = float(np.polyval(dense[r, ::-1], lo) + f[r, 0] * lo + f[r, 1] * np.tanh(
            f[r, 2] * lo))
        return Binding(float(lo), str(label[r]), str(joints[r]), int(samples[r]),
                       float(times[r]), value,
                       float(upper[r] if value >= centre[r] else lower[r]))


def _firsts(usage: np.ndarray) -> np.ndarray:
    """(K, G - 1) how soon each sample leaves its band in each bracket between neighbouring
    :data:`SPEEDUPS` (the speed-up where the straight line between its usages at the
    bracket's ends crosses 1; inf: inside at its faster end)."""
    lo, hi = usage[:, 1:], usage[:, :-1]  # SPEEDUPS decrease: hi is the faster end
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = SPEEDUPS[1:] + (1 - lo) / (hi - lo) * (SPEEDUPS[:-1] - SPEEDUPS[1:])
    cross = np.clip(np.nan_to_num(cross, nan=-np.inf), SPEEDUPS[1:] - 1, SPEEDUPS[:-1])
    return np.where(hi > 1 + TOLERANCE / 10, cross, np.inf)


def _joined_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a and b (G, rows, ...) joined along their rows, the shorter coefficient rows padded
    with zeros."""
    if a.ndim == 3 and a.shape[2] != b.shape[2]:
        width = max(a.shape[2], b.shape[2])
        a, b = (np.pad(v, ((0, 0), (0, 0), (0, width - v.shape[2]))) for v in (a, b))
    return np.concatenate([a, b], axis=1)


def _usage(group: tuple, x: np.ndarray) -> np.ndarray:
    """(K, G) ``|v(x) - centre| / half`` of K samples' laws (dense polynomials, friction
    terms, centres, half-widths) at G speed-ups."""
    dense, f, centre, half = group[:4]
    powers = x[None] ** np.arange(dense.shape[1])[:, None]
    v = dense @ powers + f[:, :1] * x + f[:, 1:2] * np.tanh(f[:, 2:3] * x)
    return np.abs(v - centre[:, None]) / half[:, None]


#: samples whose usages :class:`Fit` evaluates at once
BLOCK = 4096


#: the smoothing's steps on a coarse output with limits of higher orders (Hz): 100 Hz's, as
#: the rounds of :mod:`~hodyn_cli.algorithms.limits.rates` and :data:`SLACK` were measured
#: with, not :data:`~reachability.FLOOR`'s 200 (there the UR10's point-to-point path at 100
#: Hz with ``--jerk 100`` kept reachability's law 1.1 % longer: 3.6936 s against 3.6530 s)
RATED_FLOOR = 100.0
#: the kernels tried with limits of higher orders (steps of RATED_FLOOR's): the first that
#: validate passes (the rounds and :data:`SLACK` were measured on these, without
#: :data:`~reachability.STEPS`'s 3)
RATED_STEPS = (2, 4, 8)
#: where reachability's played law (its smoothing and corners' ramps) costs :data:`NOTED` of
#: its passes' law or more, the narrowest kernel of a time scale this many times shorter
#: than the motion's own (:func:`~reachability.scale_of`) is tried too, the shorter law that
#: validate passes kept: its reach on an output coarser than its floor and the ramps' rise
#: that many times shorter, the rests at the motion's
#: ends warped where the output is coarser than that floor (:func:`~reachability.played`'s
#: ``step``). Why: the scale is the shortest leg's duration, but a leg may reach its speed
#: far sooner than the arms' legs the floor and the ramps were measured on: the Allegro
#: hand's finger reaches its velocity limit 0.1 ms after each rest of its 67 ms legs, and
#: the kernel of its scale (3.37 ms either side at 100 Hz) and its ramps (0.337 ms) cost
#: ~0.9 ms at each rest: 3.0 % over toppra on its A-B-A-B path (1.0 % at 1 kHz, 0.6 % at
#: 10 kHz), 1.2 % on its filtered step; at a tenth (0.337 ms and 0.034 ms) 0.32 % at all
#: three rates and 0.02 %, validate passing (2, 4 and 30 times shorter: 1.4, 0.67 and 0.30 %
#: on the first; benchmarks/README.md, allegro7). Not where a wider kernel than the
#: narrowest TRIED was needed at the own scale (the finer ones fail there too) unless its
#: rests were not warped, nor on every path: each kernel tried is one more played law and
#: fit (not within's: :func:`~reachability.within`), which the cheaper smoothings do not pay
#: (the G1 arm's 8-waypoint path at 100 Hz: 3.2 -> 3.7 s of CPU, the first finer kernel that
#: validate passes tried alone; 4.4 s with the first two tried). The narrowest alone: where
#: validate failed it (8 of the 123 paths of stranger_optimal's and bench_optimal_rates'
#: measured: the G1's, the iCub's, the Hextilt's and Talos's leg's paths with rests at 100
#: Hz), it failed the next one too, each another played law and fit (0.25-0.35 s of their
#: ~1.5 s of CPU)
FINER = 10.0

#: reachability's default grid is at least as fine per second (of the uniform scaling) as an
#: input at this rate (Hz) has at :data:`~reachability.PER_SAMPLE` intervals a sample
GRID_RATE = 100.0
#: ... and this many times finer than that on an input coarser than :data:`GRID_RATE`
COARSE = 2
#: with limits of higher orders, the default grid follows an input's samples up to this rate
#: (Hz), no finer: on a finer one, PER_SAMPLE intervals a sample put the grid beyond
#: :data:`~hodyn_cli.algorithms.limits.sequential.MOST`, where the sequential programmes
#: that take the rounds' law back towards the optimum do not run, and the rounds' law alone
#: (its lowering rounds leave it at twice the passes' duration before its lift) was slower
#: than the uniform scaling on the UR5's and Solo12's 10 kHz Fourier paths with jerk limits
#: and 3.4 % longer than the windows' on the Panda's (benchmarks/README.md, 2026-11-30,
#: jerk10k)
HIGHER_RATE = 1000.0
#: with ``auto`` on an output finer than :data:`HIGHER_RATE`, the sequential programmes do
#: not raise a rounds' law longer than this many times the uniform scaling's duration (the
#: windows run then; on a coarser output they run at any: Laikago's leg along a closed loop
#: at 100 Hz with jerk limits, its rounds' law 4.47 times the uniform scaling's, was raised
#: to 0.862 s in 1.4 s of CPU where the windows' law was 1.281 s; HyQ's 1.371 s against
#: 1.499 s; the bench's 21 inputs the same bits; benchmarks/README.md, 2026-12-02, lead17):
#: the Solo12's 10 kHz Fourier
#: path with --jerk 500, its passes' law 0.118 s (jerk is all that slows it), the rounds'
#: 98.7 s, 17 times the uniform scaling's 5.72 s, took 24 programmes (49 s of CPU, each step
#: bound by their trust region) to 8.34 s, still slower than it (the windows' 5.07 s); on
#: the arms' Fourier paths where the programmes won, the rounds' law was 1.01-1.04 times it
#: (the UR5's 13 s and 30 s paths at 1 kHz with --jerk 100)
UNREACHED = 4.0


def refined(found: Pieces, reach: float) -> int | None:
    """A finer grid (intervals) for reachability's passes, which made the laws ``found`` on
    their arcs, where the smoothing's floor of :data:`~reachability.SMOOTH` intervals
    (:func:`~reachability.widths`) at the laws' mean pace, ``SMOOTH T / N`` for laws of T
    seconds on N intervals, is longer than the narrowest kernel's ``reach`` (s) and costs
    time: the laws smoothed and lowered with it (:func:`~reachability.lowered_duration`,
    before any fit) more than :data:`REFINE` longer than the passes'. As many times finer
    as the floor is longer (:data:`REFINED` at most; up to what the longest input
    reachability takes has), so that it is no longer than the reach; None where not. Why:
    the floor, not the reach, then sets the smoothing's width and the lowering's
    (:func:`~reachability.lowered`: its least over ``PASSES`` half-widths either side), and
    each place where the law touches a ceiling of its own pays in proportion to that
    width: human.urdf's right arm on a 20 s Fourier path at 100 Hz, a law of 11.1 s on 6003
    intervals (1.85 ms each, the floor 14.8 ms against a reach of 5 ms) with 30-odd touches
    of its velocity limits, lowered 1.25 % longer than its passes' law, was played 0.82 %
    over it and 1.07 % over toppra; on 12 000 and 24 000 intervals 0.18 % and 0.01 % over
    toppra. Not on every path: the passes and the smoothings' fits cost in proportion to
    the grid."""
    passes = sum(law.duration for _, law in found)
    intervals = sum(len(arc.sigma) - 1 for arc, _ in found)
    longer = reachability.SMOOTH * passes / (intervals * reach)
    most = reachability.PER_SAMPLE * reachability.MOST_SAMPLES
    if longer <= 1 or intervals >= most:
        return None
    if sum(reachability.lowered_duration(law, reach) for _, law in found) <= (
            1 + REFINE) * passes:
        return None
    return min(intervals * min(int(np.ceil(longer)), REFINED), most)


#: :func:`refined`'s finer grid where the smoothed and lowered laws are longer than the
#: passes' by more than this share of them: the goal is toppra's duration within 0.5 %, and
#: the passes' law on the default grid is itself up to ~0.25 % longer than toppra's (the
#: grid's interpolation: 0.18 % on the simple humanoid's arm, 0.25 % on human.urdf's), which
#: leaves the playing (the smoothing, and then the fit) the other half
REFINE = 2.5e-3
#: ... at most this many times finer (each time as much CPU again for the passes, the
#: smoothings and their fits)
REFINED = 4


def grid_intervals(samples: int, seconds: float, span: float, higher: bool = False) -> int:
    """Reachability's default grid (arc-length intervals) for an input of ``samples`` over
    ``span`` seconds, lasting ``seconds`` in the uniform scaling: :data:`~reachability.POINTS`
    at least, :data:`~reachability.PER_SAMPLE` per sample, and as many per second as a 100 Hz
    input (:data:`GRID_RATE`) has, :data:`COARSE` times that on a coarser input, up to what
    the longest input reachability takes has.
    The smoothing reaches :data:`~reachability.SMOOTH` grid intervals at least: on a 20 Hz
    input's 4000 intervals over the ~42 s of an iiwa Fourier path that was ~70 ms where a
    coarse output asks for 10 ms (:func:`~reachability.kernel`), 0.37-0.60 % slower than
    toppra on six arms (benchmarks/stranger_optimal.py), 0.05 % on a grid four times finer;
    at 300 a second (12 000 over 40 s) the ASR two-link arm's 20 Hz Fourier path was still
    0.49 % slower (0.27 % on 11 990 or 12 000 intervals: the loss jumps with where grid
    points fall, its smoothing's 8 intervals ~14 ms against the 5 ms kernel of an output
    at 20 Hz), 0.03 % at 600 a second (its CPU +0.3 s). An input at 100 Hz or finer keeps
    its grid: its samples set it on a long input, and a finer one would only slow it.
    ``higher``: the limits have some of a higher order (jerk, torque rates): the samples
    counted at :data:`HIGHER_RATE` at most.

    >>> grid_intervals(1001, 42.0, 10.0), grid_intervals(1001, 42.0, 50.0)
    (12600, 25200)
    >>> grid_intervals(1001, 8.0, 10.0), grid_intervals(100_001, 1e3, 1e3)
    (4000, 300003)
    >>> grid_intervals(100_001, 8.0, 10.0), grid_intervals(100_001, 8.0, 10.0, higher=True)
    (300003, 30003)
    """
    if higher:  # (a 1 kHz input's own count kept: its t rounded)
        samples = min(samples, 1 + int(HIGHER_RATE * span * (1 + 1e-6)))
    coarse = samples - 1 < GRID_RATE * span * (1 - 1e-6)  # (a 100 Hz input's t rounded)
    per_second = reachability.PER_SAMPLE * GRID_RATE * (COARSE if coarse else 1)
    most = reachability.PER_SAMPLE * reachability.MOST_SAMPLES
    return max(reachability.POINTS, reachability.PER_SAMPLE * samples,
               min(int(np.ceil(per_second * seconds)), most))


#: the default output rate is the input's mean rate unless the uniform scaling plays the path
#: more than this many times faster than the input (its duration under a FASTER-th of the
#: input's span): at the input's rate the output would then sample the path over FASTER
#: times more coarsely than the input does, and a law of a few output steps is neither on
#: its limits between them nor passes ``hodyn validate`` (its derivatives against the
#: differences of its samples) unless slowed: the TriFinger's finger_edu (1000 rad/s, 1000 N
#: m) on a 20 s Fourier path at 100 Hz, its law 23 output steps, was 35.5 % slower than
#: toppra (at 10 kHz 0.47 %); Solo 12's leg along a 1 s Lissajous curve at 100 Hz, its law
#: ~10 ms, 2.18 % (at 10 kHz 0.27 %); the finger's Lissajous curve through a middle rest at
#: 10 kHz, its law 92 steps smoothed one 0.1 ms step either side of each rest, 1.06 % (at 1
#: MHz 0.13 %). Not where the law is only somewhat faster than the input: bench_optimal_rates'
#: 21 inputs and the iiwa's and Panda's 500 s paths play their paths at most 6.8 times faster
#: (the xArm7's stop, its uniform scaling), and a finer output costs CPU in proportion to its
#: samples there for no gain (:func:`output_rate`)
FASTER = 10.0
#: ... or where it lasts fewer than this many of the input's steps (a few output steps at the
#: input's rate): sweep17's Lissajous curves given at 20 Hz (21 samples over 1 s; uniform
#: scalings of 6.7-11 steps, laws of 3-7) lost 0.06-3.2 % at 20 Hz to their smoothing at the
#: kernel's floor and their rests' warps (Borinot's 0.15413 s, at 1 kHz 0.14924 s; HyQ's leg
#: 0.19709 s, 0.19646 s), Go1's leg through a middle rest at 20 Hz (7.5 steps) 0.8 %; 6 of 7
#: such rows of the sweeps shorter at the raised rate, HyQ's loop at 20 Hz 5e-5 longer. Not
#: more: the iiwa's 1 s cosine at 20 Hz (16 steps, the tests' cheap input) is as long at 200
#: Hz (3e-9 longer), and the bench's 20 Hz arms have 81 (xArm7's and UR5's point-to-point).
#: Counted on the fastest law known, not the uniform scaling: the smoothing's floor about
#: each rest is a time (20 ms either side on an output coarser than 200 Hz), paid in
#: proportion to the law's length, and a law can be many times faster than the uniform
#: scaling: sweep17's Borinot zig at 20 Hz (five legs of 0.15 to 2 s, the uniform scaling
#: held by the shortest) has a uniform scaling of 43 steps but a law of 6.3, 1.86 % over
#: toppra at 20 Hz, 0.20 % at the raised 500 Hz (zig21). The cosine's law is 15.3 steps,
#: the bench's fewest 40 (UR5's point-to-point at 20 Hz): kept. With limits of higher orders
#: the uniform scaling's steps still (:meth:`Optimal._rate`): a finer output holds their
#: jerks or torque rates at more samples, and its law can come out longer: the 2R's
#: point-to-point through three waypoints at 20 Hz with jerks of 900 rad/s^3
#: (tests/test_optimal.py), its law 12.7 steps, was 2.6 % longer at 200 Hz (1.00007 s, the
#: windows', against reachability's 0.97449 s)
SHORT_STEPS = 15
#: ... and the raised rate gives the law at least this many output steps: Solo's ~10 ms law
#: above at 5 kHz (53 steps) was 1.05 % slower than toppra, at 10 kHz (107) 0.27 %; the
#: finger's along that Lissajous curve given at 100 Hz at 5 kHz (46 steps) 3.4 % slower than
#: at 100 kHz, at 10 kHz (92) 0.1 %
LEAST_STEPS = 100
#: :meth:`Optimal._rate_up`: the windows' law planned at the next rate up is kept where it
#: is this much shorter than at the rate before, up to this many rates up. The generic
#: quadruped's leg along its Fourier path (its uniform scaling 34 times faster than the
#: input, reachability refused; toppra 0.3652 s): given at 100 Hz, planned 0.4156 s at 5
#: kHz, 0.3899 at 10, 0.3839 at 20, 0.3838 at 50 (kept: 20 kHz), its output 0.416377 ->
#: 0.387511 s (+6.1 %); given at 20 Hz, 0.5036 s at 1 kHz, 0.4490 at 2, 0.4163 at 5, 0.3918
#: at 10 (kept), its output 0.504160 -> 0.394628 s (+8.1 %); 1.8 -> 4.6 s and 2.2 -> 3.8 s
#: of CPU
RATE_GAIN = 0.01
RATE_UPS = 3
#: a raised rate is rounded up to one of these times a power of ten (its step 1, 2 or 5
#: times a power of ten seconds, as controllers' are)
ROUND_RATES = (1.0, 2.0, 5.0, 10.0)


def output_rate(samples: int, span: float, seconds: float, law: float,
                counted: float | None = None) -> float:
    """The output's default rate (Hz; ``--rate`` not given) for an input of ``samples`` over
    ``span`` seconds whose uniform scaling lasts ``seconds`` and its fastest law known
    ``law`` (reachability's passes', before their smoothing; the uniform scaling's before
    the windows' solve): the input's mean rate, or, where the uniform scaling is more than
    :data:`FASTER` times shorter than the input or ``counted`` (default: the law) lasts fewer
    than :data:`SHORT_STEPS` of its steps, the first rate of :data:`ROUND_RATES` times
    a power of ten at which the law has as many output steps as the input has steps and at
    least :data:`LEAST_STEPS`: the output samples the path at least as finely as the input
    does, and the law finely enough to follow its turns.

    >>> output_rate(1001, 5.0, 4.0, 3.3), output_rate(2001, 20.0, 0.311752, 0.225574)
    (200.0, 10000.0)
    >>> output_rate(101, 1.0, 0.0246503, 0.0106387), output_rate(41, 2.0, 0.0231508, 0.0091609)
    (10000.0, 20000.0)
    >>> output_rate(84, 4.15, 2.1448, 0.313321)  # (uniform 43 of the input's steps, law 6.3)
    500.0
    >>> output_rate(16, 1.5, 1.5, 1.4999999999999994)  # (15 steps, rounded: its rate kept)
    10.0
    """
    mean = (samples - 1) / span
    counted = law if counted is None else counted
    # (a law of SHORT_STEPS steps whose product rounds below, 14.999999999999994: kept)
    if seconds * FASTER >= span and counted * mean >= SHORT_STEPS * (1 - 1e-9):
        return mean
    least = max(samples - 1, LEAST_STEPS) / law
    decade = 10.0 ** np.floor(np.log10(least))
    return next(float(m * decade) for m in ROUND_RATES if m * decade >= least * (1 - 1e-9))


class Optimal:
    """The time-optimal retiming of a motion's path within ``limits`` (torque order
    ``order``; rigid, or with rigid ``drives``), in three passes over the motion (each an
    iterable of chunks over the independent joints, with times): :meth:`plan` (the uniform
    scaling, the grid, the time law), :meth:`fit` (the played motion's own dynamics at every
    output sample, and the exact uniform scaling onto its limits), :meth:`retimed` (the
    motion, chunk by chunk, and where it is on its limits: :attr:`bound`). ``uniform``: no
    programme, the law the uniform scaling's (``retime --to-limits --rate``: the motion
    resampled at the rate, played as slowly as every sample needs at that and any slower
    playing). ``grid``: the windows' grid (their points, default: as many as the path's
    speed needs); ``arc_grid``: reachability's (intervals in arc length, default: as many as
    the input's samples need); each solver's own, so that one asked of the windows leaves
    reachability's alone. ``progress(done, points)``: the grid points of each plan's
    programmes solved so far. ``admit(chunk)``: raises for what a chunk carries that the caller refuses (the
    API: the capability table's wrenches and floating base), before it is planned; rigid
    ``drives`` only (the API refuses elastic ones)."""

    def __init__(self, model: Model, limits: Limits, order: int, *, rate: float | None = None,
                 grid: int | None = None, gravity=GRAVITY, drives: Drives | None = None,
                 kind: str = "full", uniform: bool = False,
                 progress: Callable[[int, int], None] | None = None,
                 admit: Callable[[Trajectory], None] | None = None, solver: str = "auto",
                 arc_grid: int | None = None):
        if solver not in SOLVERS:
            raise HodynError(f"--solver must be one of {', '.join(SOLVERS)}, got {solver!r}")
        if rate is not None and not rate > 0:  # (0 was taken for none: the input's rate)
            raise HodynError(f"--rate must be positive, got {float(rate)!r}")
        self.admit, self.solver = admit, solver
        #: the motion the output plays (None: the input; the reachability law's motion)
        self.source: Iterable[Trajectory] | None = None
        #: whether the played motion passed hodyn validate's check (uniform scaling)
        self.consistent = False
        self.model, self.limits, self.order, self.rate, self.grid = model, limits, order, rate, grid
        #: the output's rate where ``rate`` is None, chosen at the first survey (:meth:`_rate`)
        self.chosen: float | None = None
        #: where that is not the input's mean rate (:func:`output_rate`): (that mean rate,
        #: the uniform scaling's k, the duration whose steps were counted and what lasts it);
        #: None: it is, ``rate`` was given, or the output is the input's own samples played
        #: slower (:meth:`_at_input_samples`: the last result, no plan after it)
        self.raised: tuple[float, float, float, str] | None = None
        #: (the input's samples, its span, the uniform scaling's seconds) where :attr:`chosen`
        #: was raised before any law was known (the windows' first plan): :meth:`_rate_up`
        self.unlawed: tuple[int, float, float] | None = None
        #: (the rate before, the windows' planned law there and at :attr:`chosen`) where
        #: :meth:`_rate_up` raised the rate; None where it did not
        self.rated_up: tuple[float, float, float] | None = None
        #: the input's start and end speeds |q'| as shares of its fastest (reachability's
        #: arc-length table; None before it is made): :attr:`rest_note`
        self.end_speeds: tuple[float, float] | None = None
        self.arc_grid = arc_grid
        self.uniform, self.progress = uniform, progress
        #: the solver that made the result: ``"reachability"``, ``"windows"``, or
        #: ``"uniform"`` (the windows' programmes gave no law: the uniform scaling)
        self.used = "windows"
        #: why the windows made it, in a user's words (None: reachability did)
        self.why_windows: str | None = None
        #: the solvers run, in turn: ``auto`` runs the windows after reachability where its
        #: :attr:`slack` is beyond :data:`SLACK` (:meth:`_or_windows`), and keeps the law
        #: :attr:`used` names (reachability's where the windows' is not shorter, or they
        #: fail: :attr:`windows_failed`)
        self.ran: tuple[str, ...] = ()
        #: why the windows' solve after reachability's gave no law, in a user's words, where
        #: it failed (reachability's law is kept; None: it did not fail)
        self.windows_failed: str | None = None
        #: the sample farthest beyond its limit in the samplings that set the final scaling
        #: (its binding: played ``k`` times slower it fits) and that sampling's slowing of the
        #: law (None: none was beyond; :meth:`_resampled`)
        self.slowed: tuple[Binding, float] | None = None
        #: the least inconsistency, as :meth:`_fitted`'s, of the samplings within their
        #: limits of :meth:`_resampled`'s last call (0: none was; :meth:`_windows` plans again
        #: on it where it failed)
        self.resampled_lag = 0.0
        #: the fit that :meth:`lazily` left to :meth:`settled` (None: none left)
        self.pending: Callable[[], Optimal] | None = None
        #: the local slowing's first sampling as :meth:`lazily`'s fit made its dynamics,
        #: for :meth:`_beyond` (None: none made)
        self.sampled: _Sampled | None = None
        self.dynamics = dict(order=order, gravity=gravity, drives=drives, kind=kind)
        self.path: Plan | None = None
        self.final: Binding | None = None
        self.bound = Bound(model, limits)
        self.orders = 0
        self.scale = 1.0
        #: the last plan's largest path speed, in times the uniform scaling's (each stretch's own
        #: where the stretches between rests have caps of their own: :meth:`_stretched`)
        self.peak = 1.0
        #: the path parameter of each rest inside the last plan's grid where its stretches
        #: end and start (:meth:`_stretched`; none: one stretch), and each stretch's largest
        #: path speed in times its own uniform speed (:attr:`peak`: the largest of them)
        self.rests = np.zeros(0)
        self.peaks = np.ones(1)
        #: each :meth:`_fitted`'s inconsistency of the played motion and the path parameter
        #: where it is largest (nan: none judged), since :meth:`_windows`' last plan
        self.lagged: list[tuple[float, float]] = []
        #: reachability's played law's duration over its passes' where limits of higher
        #: orders made it slower (1: none; :meth:`_rated`)
        self.slack = 1.0
        #: that played law's duration, seconds (the rounds' or the programmes'; 0: none)
        self.rated = 0.0
        #: the slack beyond which ``auto`` runs the windows after reachability
        #: (:func:`_needed_slack`: :data:`SLACK` or :data:`CORNERED_SLACK`)
        self.needed = SLACK
        #: whether that law is the sequential programmes' on the path's one piece and a
        #: local optimum of the windows' own problem (:class:`~hodyn_cli.algorithms.limits.
        #: rates.Rated`): ``auto`` then runs no windows after it, whatever its slack, unless
        #: a rest's acceleration steps (:meth:`fit`)
        self.local = False
        #: reachability's law before its smoothing and how it was smoothed (None: not
        #: reachability's, or with limits of higher orders: :attr:`slack` says theirs)
        self.smoothed: Smoothed | None = None
        #: whether the input's first and last sample is a rest whose acceleration steps where
        #: limits of higher orders need it at 0 (``ScaleSearch.stepping``, as ``hodyn check``
        #: tells it): the uniform scaling keeps the step there, unbounded jerk and torque
        #: rates, so it bounds no law (the windows' holds x at 0 there: :meth:`plan`)
        self.stepping = (False, False)
        self._steps: tuple[list[str], list[str]] = ([], [])  # (the texts of each: :attr:`kept`)
        #: the input's spans held still, (first, last) times (:class:`~rests.Pauses`): time
        #: the path has none of (:attr:`paused`)
        self.pauses: list[tuple[float, float]] = []
        #: the duration the windows' law must beat (``auto``: reachability's, while
        #: :meth:`_or_windows` runs them; None: none): a plan more than :data:`FIT` longer is
        #: not followed by the replans more constrained than it (:meth:`_hopeless`)
        self.beat: float | None = None
        #: whether reachability's first fit of its played law may be left to the local
        #: slowing (:meth:`lazily`; False once the fit so left failed or raised after all:
        #: :meth:`_reachability` runs again as before)
        self._lazy = True
        #: the smoothings (kernel steps, time scale) whose fit, left lazy and made after all,
        #: raised a TrajectoryError or failed validate: where the fit is not lazy,
        #: :meth:`_reachability`'s ``attempt`` finds them failed at once, so its run again
        #: goes on from the next one, the failed one's rounds not made again (review37)
        self._failed: set[tuple[int, float]] = set()
        #: whether reachability's lowered law's fit was slowed by more than CLOSE, so that
        #: the law kept within the passes' rows was tried (:meth:`_smoothings`): then its
        #: grid may be made denser where the smoothing leaves the rows (:meth:`_denser`)
        self._left_rows = False
        #: the input's uniform scaling as :meth:`_arcs`' first survey found it in this
        #: :meth:`_reachability` run: the passes again (on ``finer``'s grid, the denser one)
        #: read it back, the input's dynamics not computed again
        self._surveyed: Binding | None = None
        #: whether :meth:`settled`'s fit raised a TrajectoryError (its played law's own
        #: derivatives disagree: the smoothing fails, as ``attempt`` finds a fit that is not
        #: lazy)
        self.unfitted = False

    def _laws(self, chunk: Trajectory) -> dict[str, Law]:
        return series_laws(self.model, self.model.coupling.expand(chunk), **self.dynamics)

    def plan(self, chunks: Iterable[Trajectory], limits: Limits | None = None,
             pace: float = PACE, cap: float | np.ndarray = CAP, start: TimeLaw | None = None
             ) -> Plan:
        """The fastest time law along the path within the limits (or ``limits``) at the grid
        points (the law's ``pace``: :data:`~hodyn_cli.algorithms.limits.programme.PACE`'s;
        its path speed within ``cap`` times the uniform one, or each stretch between rests
        within its own, one ``cap`` a stretch (:attr:`rests`); from ``start``, a law planned
        on the same grid for the same limits, or the uniform one): the uniform scaling first
        (its k, and the grid's samples), then :func:`solve`; :attr:`peak`: the law's largest
        path speed, in times the uniform one (its stretch's, :meth:`_stretched`), and
        :attr:`peaks` each stretch's."""
        limits = self.limits if limits is None else limits
        collected = PathGrid(self.grid, kinks=not self.uniform)
        uniform = self._survey(chunks, limits, collected.add, lambda: collected.count)
        path, kinks = collected.grid()
        self.orders = path.orders
        span = float(path.t[-1] - path.t[0])
        rate = self._rate(collected.count, span, uniform)
        if not rate > 0:
            raise HodynError(f"--rate must be positive, got {rate}")
        x0 = uniform.x**2

        def limited(a: int, b: int) -> list:
            window = Trajectory(path.joint_names, path.derivatives[a:b], path.t[a:b])
            return path_limits(self.model, window, limits, **self.dynamics)

        degree = max(5, path.orders)
        v: np.ndarray | float = 1.0
        if self.uniform:
            law = TimeLaw(path.t[[0, -1]], np.full(degree + 1, x0), degree)
        else:
            assert collected.peak is not None
            ceiling = KinkCeiling.of(path, kinks, collected.peak, x0, rate)
            # (auto's windows after reachability: a law the final fit, speeding it up by FIT
            # at most, could not bring below reachability's is not worth its programmes,
            # :meth:`_hopeless`)
            beat = 0.0 if self.beat is None else self.beat / (1 - FIT)
            slow = slowness(path)
            caps = np.atleast_1d(np.asarray(cap, dtype=float))
            stretched = self._stretched(path, limits, slow, uniform, degree, caps / caps.max())
            law = solve_windows(path.t, limited, x0, degree, rate, time_scale(path), ceiling,
                                pace, self.progress, float(caps.max()), slow, start,
                                self.stepping, beat, stretched)
            v = 1.0 if stretched is None else stretched.coefficients
            self.rests = np.zeros(0) if stretched is None else path.t[stretched.joins]
        # (they bound the spline; each against its stretch's uniform speed, as the cap)
        speeds = np.sqrt(law.coefficients / v**2 / x0)
        self.peak = float(speeds.max())
        # (each stretch's own, its cap's lowering undone: in times its own uniform speed)
        at = np.searchsorted(self.rests, law.greville, side="right")
        self.peaks = np.zeros(len(self.rests) + 1)
        np.maximum.at(self.peaks, at, speeds)
        if not self.uniform and len(caps) == len(self.peaks):
            self.peaks *= caps / caps.max()
        self.path = Plan(law, float(path.t[0]), 1.0 / rate, uniform, span, path.n_samples)
        return self.path

    def _stretched(self, path: Trajectory, limits: Limits, slow: np.ndarray,
                   uniform: Binding, degree: int, lowered: np.ndarray | None = None
                   ) -> Stretches | None:
        """The grid ``path``'s stretches between its rests inside (``slow``: its
        :func:`slowness`; :func:`~hodyn_cli.algorithms.limits.programme.rests_inside`) and
        how many times the path's ``uniform`` speed each one's own uniform scaling is within
        ``limits`` at the grid points, v (``ScaleSearch``'s per segment; 1 where none
        binds: :func:`~hodyn_cli.algorithms.limits.programme.stretches`), for :func:`solve`'s
        caps (not its smoothness rows: programme's ``smooth_rows`` says why): each stretch as
        if it were a path from rest to rest, which
        :data:`~hodyn_cli.algorithms.limits.programme.CAP` was measured on. None: no rest
        inside (one stretch, v = 1), or a grid of more than one window."""
        joins = rests_inside(slow)
        # (a grid of more than one window: the whole path's cap. Each window's programmes start
        # from the law before, x0 on the slow stretch, and a stretch over several windows raced
        # in the first and last and crawled in the middle ones, which stopped after a few
        # programmes: the 2R's 2 s leg at 10 kHz 1.7120 -> 4.1265 s, the iiwa's zigzag at 1 kHz
        # 9.5896 -> 22.6235 s, review43; a start at each stretch's own x0 v^2 would lift this)
        if not joins.size or len(path.t) > WINDOW:
            return None
        search = ScaleSearch(self.model, limits, tuple(path.t[joins]))
        search.add(self._laws(path), path)
        # (a stretch no limit binds at the grid points, a hold at rest: the path's cap)
        v = np.array([1.0 if b is None else max(b.x / uniform.x, 1.0) for b in search.best])
        # (``lowered``: each stretch's cap over the largest, where :meth:`_windows` lowered
        # some stretches' caps and not the others': their v scaled so, the cap the largest)
        if lowered is not None and len(lowered) == len(v):
            v = v * lowered
        return stretches(path.t, slow, joins, v, degree)

    def _rate(self, samples: int, span: float, uniform: Binding, law: float | None = None
              ) -> float:
        """The output's rate: ``--rate``'s, else :func:`output_rate`'s for the input's
        ``samples`` over ``span`` seconds, its ``uniform`` scaling and the fastest ``law``
        known (seconds; None: the uniform scaling's), chosen once (the windows' plans again
        for tightened limits, and after reachability's, sample as the first did) and kept in
        :attr:`raised` where it is not the input's mean rate."""
        if self.rate is not None:
            return self.rate
        mean = (samples - 1) / span
        if self.chosen is None:
            seconds = uniform.k * span
            # (the law's steps counted; the uniform scaling's before any law is known, and
            # with limits of higher orders: SHORT_STEPS)
            unknown = law is None
            law, uniformly = (seconds, True) if law is None else (law, rates.higher(self.limits))
            counted = seconds if uniformly else law
            self.chosen = output_rate(samples, span, seconds, law, counted)
            self.raised = ((mean, uniform.k, counted, "uniform scaling" if uniformly else "law")
                           if self.chosen != mean else None)
            self.unlawed = (samples, span, seconds) if (
                self.raised is not None and unknown and not rates.higher(self.limits)) else None
        # (the input's mean rate as each pass counts it: the same samples and span)
        return mean if self.raised is None else self.chosen

    def _survey(self, chunks: Iterable[Trajectory], limits: Limits,
                keep: Callable[[Trajectory], None], count: Callable[[], int]) -> Binding:
        """One pass over the input: each chunk admitted, kept (``keep``), its derivatives
        judged against its positions (:func:`_follows`) and the uniform scaling found (its
        binding; the errors: infeasible at any speed, nothing limits the speed)."""
        search, differences = ScaleSearch(self.model, limits), Differences()
        pauses = Pauses()
        joints: tuple[str, ...] = ()
        for chunk in chunks:
            if chunk.t is None:
                raise HodynError("--optimal needs a motion with times (a t column): they are "
                                 "the path parameter")
            if self.admit is not None:
                self.admit(chunk)
            search.add(self._laws(chunk), chunk)
            differences.add(chunk.derivatives, chunk.t, count())
            if chunk.orders > 1:
                pauses.add(chunk.derivatives[:, 1], chunk.t)
            keep(chunk)
            joints = chunk.joint_names
        _follows(differences, joints, self.uniform)
        self.pauses = pauses.end()
        self.stepping = search.stepping()
        self._steps = (search.rest_steps((True, False)), search.rest_steps((False, True)))
        search.retiming()
        uniform = search.best[0]
        assert uniform is not None
        return uniform

    def _reachability(self, chunks: Callable[[], Iterable[Trajectory]]) -> str | None:
        """The law by reachability along the path's arc length
        (:mod:`~hodyn_cli.algorithms.limits.reachability`) where it applies (no drives, the
        path cut only at rests, q .. q^(6) at most and q .. q^(5) through a corner), its
        motion smoothed (ramps into and out of its corners; for limits of a higher order,
        joint jerk, torque rates and accelerations, the passes keep the others and the
        smoothing is widened and the law lowered where they need it:
        :mod:`~hodyn_cli.algorithms.limits.rates`) and then scaled from rest onto the limits
        and resampled at the rate as ``--to-limits --rate`` does (every sample within its
        limits, one on it): the result where ``hodyn validate`` passes it (the faster of the
        first :data:`~hodyn_cli.algorithms.limits.reachability.TRIED` smoothings that it
        passes, or the first wider one; with limits of higher orders the first from 2 steps
        on that it passes). The reason, in a user's words, where it does not apply or its
        output fails validate (the first that does); None: the law is reachability's.
        The path's survey and passes are made once (:meth:`_arcs`): where a fit left lazy
        fails once made, the smoothings are tried again from them without it
        (:meth:`_smoothings`; made again, the survey and passes cost the Panda's 3 s Fourier
        path at 50 Hz with its limits file ~20 % more CPU, and the progress went back to 0)."""
        self._left_rows, self._surveyed = False, None  # (this run's: its smoothings', survey's)
        arcs = self._arcs(chunks)
        if isinstance(arcs, str):
            return arcs
        finer = None if self.arc_grid or arcs.higher else refined(
            arcs.found, reachability.kernel(reachability.STEPS[0], arcs.rate,
                                            scale=reachability.scale_of(arcs.found))[0])
        if finer is not None:  # (the passes again on it: the smoothings read those alone)
            again = self._arcs(chunks, finer)
            arcs = arcs if isinstance(again, str) else again
        reason = self._played(arcs)
        if reason is None and self._left_rows and not self.arc_grid:
            self._denser(chunks, arcs, finer)
        return reason

    def _played(self, arcs: _Arcs) -> str | None:
        """:meth:`_smoothings` of ``arcs``, tried again once where a fit left lazy failed."""
        try:
            return self._smoothings(arcs)
        except _Again:  # (once: no fit is left lazy from then on)
            return self._smoothings(arcs)

    def _denser(self, chunks: Callable[[], Iterable[Trajectory]], arcs: _Arcs,
                finer: int | None) -> None:
        """Where the law played (:meth:`_smoothings`, done: its lowered law's fit slowed by
        more than CLOSE) was smoothed beyond the passes' rows, the passes again on a grid
        denser there (:func:`~reachability.denser`, ``finer``'s intervals as before) and
        the smoothings on them; that law kept where it is shorter, else the one before (its
        rows were made already, by :func:`~reachability.within`: the check reads them back).
        The Borinot's flying arm along a 9-harmonic Fourier path at 100 and 20 Hz: 5.2770
        and 5.2706 s (+0.83 and +0.71 % over the optimum, ~5.2336 s), 5.2496 and 5.2471 s,
        for twice the CPU (~2.5 -> 5-6 s; docs/feasibility.md, rows22). Not where the law
        played is within :data:`DENSER_GAP` of the passes' law (``smoothed.law``): what the
        denser grid wins back is about that gap (the simple humanoid's arm's Fourier path,
        -0.007 %, paid 4.1 -> 7.6 s of CPU for nothing before rows22b)."""
        assert self.smoothed is not None
        if self.duration <= (1 + DENSER_GAP) * self.smoothed.law:
            return
        dense = [reachability.denser(arc, law, rows, self.smoothed.reach)
                 for (arc, law), rows in zip(arcs.found, arcs.rows, strict=True)]
        if all(spans is None for spans in dense):
            return
        before = self._state(_PLAYED)
        try:
            again = self._arcs(chunks, finer, dense)
            kept = not isinstance(again, str) and self._played(again) is None and (
                self.duration < before["duration"])
        except (TrajectoryError, Infeasible):  # (its fit not lazy, as after an _Again: the
            kept = False                       # law found before is not lost to the rerun)
        if not kept:
            self._restore(before)

    def _arcs(self, chunks: Callable[[], Iterable[Trajectory]], finer: int | None = None,
              dense: list[np.ndarray | None] | None = None) -> _Arcs | str:
        """The path surveyed (:meth:`_survey`, once a :meth:`_reachability` run: its uniform
        scaling) and reachability's passes along its arcs
        (:func:`~hodyn_cli.algorithms.limits.reachability.solve`), with what the smoothings
        read of them (:class:`_Arcs`); the reason, in a user's words, where
        reachability does not apply (:meth:`_reachability`). The grid: ``arc_grid``'s
        intervals where asked, uniform in arc length; else ``finer``'s (:func:`refined`) or
        :func:`grid_intervals`', denser where the path turns sharply (``turning``) and
        within each arc's ``dense`` spans (:meth:`_denser`)."""
        if self.dynamics["drives"] is not None:
            return "reachability does not take the drives' motor limits (--drives)"
        table, seen, orders = reachability.Lengths(), [0], [0]

        def keep(chunk: Trajectory) -> None:  # the path's arc length, up to MOST_SAMPLES
            seen[0], orders[0] = seen[0] + chunk.n_samples, chunk.orders
            if seen[0] <= reachability.MOST_SAMPLES and 2 <= chunk.orders <= reachability.ORDERS:
                table.add(chunk)

        if self._surveyed is None:
            self._surveyed = self._survey(chunks(), self.limits, keep, lambda: seen[0])
        else:  # (surveyed in this run: the arc-length table alone made again)
            for chunk in chunks():
                keep(chunk)
        uniform = self._surveyed
        if seen[0] > reachability.MOST_SAMPLES:
            return (f"{seen[0]:,} samples, more than the {reachability.MOST_SAMPLES:,} "
                    "reachability takes")
        if orders[0] > reachability.ORDERS:
            return (f"{derivative_name('q', orders[0] - 1)} columns, beyond the "
                    f"{derivative_name('q', reachability.ORDERS - 1)} reachability plays")
        if orders[0] < 2:
            return "no qd columns: reachability takes the path's tangent from them"
        path = table.table()
        names, (t0, t1), samples = path.names, path.span, path.samples
        self.end_speeds = (float(path.points[0][reachability.SPEED]) / path.fastest,
                           float(path.points[-1][reachability.SPEED]) / path.fastest)
        higher = rates.higher(self.limits)  # (the passes keep the others)
        # (each interval's u within its both ends' rows, toppra's interpolation, in the passes
        # and in within's passes again alike: with limits of higher orders, collocation, on
        # which rates' rounds were tuned)
        interpolate = not higher
        points = self.arc_grid or finer or grid_intervals(path.samples, uniform.k * (t1 - t0), t1 - t0,
                                                 higher)
        # (each arc's passes' rows, with limits of higher orders made once by the passes and
        # read back by the rounds' passes under their ceilings, which run on every such path;
        # without, made at reachability.within's first call, which most paths never make:
        # kept by the passes, they held 21-24 MiB more at the peak of the iiwa's 2 x
        # 10^4-sample cosine, 147-150 -> 170 MiB, for nothing: review31)
        arc_rows: list[reachability.ArcRows] = []
        try:
            found = reachability.solve(self.model, chunks, rates.affine(self.limits)
                                       if higher else self.limits, points, table=path,
                                       gravity=self.dynamics["gravity"], progress=self.progress,
                                       interpolate=interpolate,
                                       kept=arc_rows if higher else None,
                                       turning=self.arc_grid is None, dense=dense)
        except reachability.Inapplicable as e:
            return str(e)
        del path  # (the arc-length table: the arcs are made)
        if found is None:
            return "no path speed keeps within the limits on reachability's grid"
        if not higher:
            arc_rows = [reachability.ArcRows(len(arc.sigma), lambda a, b, arc=arc: (
                reachability.arc_rows(self.model, arc, names, a, b, self.limits,
                                      self.dynamics["gravity"]))) for arc, _ in found]
        if not all(a.rest[1] and b.rest[0] for (a, _), (b, _) in zip(found[:-1], found[1:],
                                                                       strict=True)):
            return "the path turns back between samples, not at a rest"
        grid = sum(len(arc.sigma) for arc, _ in found)
        span, path_orders = t1 - t0, orders[0]
        rate = self._rate(samples, span, uniform, sum(law.duration for _, law in found))

        fine = rate >= HIGHER_RATE * (1 - 1e-6)
        if self.solver == "auto" and higher and fine and _unrefined(found):
            # (where the programmes cannot run, the rounds' law alone is what reachability
            # has, from a kernel of the output's own steps: 2.4-3.0 times the passes' law and
            # slower than the uniform scaling on the UR5's 30 s and 100 s Fourier paths at 1
            # and 10 kHz with --jerk 100 (its passes and first rounds 25 s of CPU on 10^5
            # samples, the windows' 10 s); 1.026 times it but 2.0 % longer than the windows'
            # on the Panda's 10 s one at 10 kHz with --jerk 500: the slack does not tell)
            return (f"{_higher_named(self.limits)}: an output at {HIGHER_RATE:g} Hz or finer "
                    f"on {_unrefined(found):,} grid points, more than the "
                    f"{sequential.MOST:,} reachability's programmes take")
        return _Arcs(found, arc_rows, names, t0, span, path_orders, rate, grid, higher,
                     interpolate, uniform)

    def _smoothings(self, arcs: _Arcs) -> str | None:
        """Reachability's law along the passes' ``arcs`` played with each smoothing tried and
        fitted, the shortest that ``hodyn validate`` passes slowed locally (:meth:`_local`)
        and made the result (None), as :meth:`_reachability` says; the reason where none
        is. Raises :class:`_Again` where a fit left lazy (:meth:`lazily`) fails once made:
        tried again without it, a smoothing whose fit raised skipped (:attr:`_failed`). Reads
        ``arcs`` alone: the passes' laws and rows are not changed."""
        (found, arc_rows, names, t0, span, path_orders, rate, grid, higher, interpolate,
         uniform) = arcs
        floor = RATED_FLOOR if higher else reachability.FLOOR
        # (the ramps' rise of each played, and their step's flat share where limits of higher
        # orders ramp the motion's own rests too: rates.shape; None: not)
        rises: dict[tuple[int, float], tuple[float, float | None]] = {}

        def step(scale: float) -> float:
            """The output's step where its rests are warped (reachability's ``_start``: an
            output coarser than the kernel's floor at ``scale``, without limits of higher
            orders, which its jerk would meet); 0: not warped."""
            return 0.0 if higher or rate >= floor / scale else 1.0 / rate

        # (each arc's rows made once for every smoothing that reachability.within keeps within
        # them, and each of its laws made once: the law chosen is made again)
        kept: dict[float, Pieces] = {}
        # (the passes' laws with their one-point dips filled, made once where the third
        # candidate is played: each dip's rows alone)
        fills: list[Pieces] = []
        dipped: list[list[tuple[np.ndarray, np.ndarray]]] = []

        def dips() -> list[tuple[np.ndarray, np.ndarray]]:
            """Each of the passes' laws' one-point dips (:func:`reachability.dips`), found
            once: read by the third candidate's gate at each smoothing, and by its fill."""
            if not dipped:
                dipped.append([reachability.dips(law.x) for _, law in found])
            return dipped[0]

        def filled() -> Pieces:
            if not fills:
                fills.append([])
                for (arc, law), (at, near) in zip(found, dips(), strict=True):
                    if at.size:
                        bound = reachability.still_bound(reachability.still_rows(
                            self.model, arc, names, at, self.limits, self.dynamics["gravity"]))
                        law = reachability.filled(law, at, near, bound)
                    fills[0].append((arc, law))
            return fills[0]

        def play(steps: int, scale: float, within: bool = False, shifted: bool = False
                 ) -> reachability.Played | str | None:
            """The law played with the kernel of ``steps`` at ``scale`` (made afresh at each
            pass; ``within``: kept within the passes' rows, :func:`reachability.within`;
            ``shifted``: its dips filled and lowered by its deficit,
            :func:`reachability.smoothed_shifted`); a reason where it cannot be."""
            reach, rise = reachability.kernel(steps, rate, floor, scale)
            pieces, flat = found, None
            if higher:
                rated, rise, flat = self._rated(found, arc_rows, names, reach, rise, rate,
                                                uniform.k * span)
                if rated is None:
                    return (f"{_higher_named(self.limits)}: reachability's law does not keep "
                            f"them within {rates.ROUNDS} rounds of widening its smoothing")
                beyond = _unrefined(found)
                if self.solver == "auto" and self.slack > SLACK and beyond:
                    # (SLACK, not self.needed: the windows run where reachability gives way
                    # here, on a path with corners too; the rounds' law alone, no
                    # programme to take it back, was 2.6 times the passes' and slower than
                    # the uniform scaling once lifted on the UR5's 30 s Fourier path at 1
                    # and 10 kHz with --jerk 100, the windows' 25 % shorter: its fits and
                    # two more kernels' rounds cost 8-14 s of CPU for nothing)
                    return (f"{_higher_named(self.limits)}: keeping them made "
                            f"reachability's law {self.slack:.2f} times its passes' law on "
                            f"{beyond:,} grid points, more than the {sequential.MOST:,} its "
                            "programmes take")
                slower = self.rated / (uniform.k * span)
                if self.solver == "auto" and self.slack > SLACK and slower > 1 + FIT and (
                        not any(self.stepping)):
                    # (SLACK, not self.needed: the final fit speeds a law up by FIT at most,
                    # so it would be found slower than the uniform scaling, and the windows
                    # run, whatever the slack they need, after
                    # its fits and the next kernels' rounds; the Solo12's 10 kHz Fourier path
                    # with --jerk 500, 68 s of CPU)
                    return (f"{_higher_named(self.limits)}: keeping them made "
                            f"reachability's law {self.slack:.3g} times its passes' law, "
                            f"{slower:.3g} times the uniform scaling's")
                pieces = rated
            elif within:
                if reach not in kept:
                    kept[reach] = [(arc, reachability.within(arc, law, rows, reach, interpolate))
                                   for (arc, law), rows in zip(found, arc_rows, strict=True)]
                pieces = kept[reach]
            elif shifted:
                pieces = [(arc, replace(law, played=reachability.smoothed_shifted(law, reach)))
                          for arc, law in filled()]
            rises[steps, scale] = rise, flat
            made = reachability.played(pieces, path_orders, names, t0, reach, rise, step(scale),
                                       flat, 1.0 / rate)
            if made is not None and not made.duration <= SLOWEST * uniform.k * span:
                # (sampled at the output's rate, such a law would be more samples than memory
                # holds, and its fit cannot bring it below the uniform scaling's)
                return (f"reachability's law played takes {made.duration:.4g} s, over "
                        f"{SLOWEST:g} times the uniform scaling's {uniform.k * span:.4g} s")
            return made

        def fitted(motion: reachability.Played, lazy: bool = False) -> Optimal:
            """The played motion scaled from rest onto the limits and resampled at the rate
            (raises as :meth:`fit` does; ``lazy``: :meth:`lazily`)."""
            # (a uniform law needs the path's ends alone: a grid of a few samples, not one
            # that follows the played motion's 3 points a sample, concatenated chunk by chunk)
            inner = Optimal(self.model, self.limits, self.order, rate=rate, uniform=True,
                            grid=ENDS, gravity=self.dynamics["gravity"],
                            kind=self.dynamics["kind"])
            if lazy:
                return inner.lazily(motion, lambda: fitted(motion))
            inner.fit(lambda: motion, continuous=True)
            return inner

        def fitted_other(steps: int, scale: float, within: bool
                         ) -> tuple[Optimal, reachability.Played] | None:
            """The law kept within the passes' rows (``within``: :func:`reachability.within`;
            else its dips filled and lowered by its deficit,
            :func:`reachability.smoothed_shifted`) played with the kernel of ``steps`` at
            ``scale`` and fitted; None where it cannot be, or its played law's derivatives
            disagree, or its path leaves a limit."""
            made = play(steps, scale, within=within, shifted=not within)
            if not isinstance(made, reachability.Played):
                return None
            try:
                return fitted(made), made
            except (TrajectoryError, Infeasible):
                return None

        best: tuple[Optimal, tuple[int, float, bool, bool]] | None = None
        kept_best: tuple[Optimal, tuple[int, float, bool, bool]] | None = None  # (within's)
        shifted_best: tuple[Optimal, tuple[int, float, bool, bool]] | None = None
        motion: reachability.Played | None = None
        made: reachability.Played | str | None = None
        built: tuple[int, float, bool, bool] = (0, 1.0, False, False)
        # (with limits of higher orders the smoothing is widened where they need it anyway:
        # from 2 steps on, the first that validate passes; 1 step was slower on the iiwa's and
        # the Panda's Fourier paths with their limits files, 3.465 s against 3.395 s and
        # 3.3832 s against 3.3830 s, and took as long again)
        kernels, tried = (RATED_STEPS, 1) if higher else (reachability.STEPS,
                                                          reachability.TRIED)
        # (the kernels at the motion's own time scale, then, where validate passes none of
        # them, at the arms': a motion of a few output steps or fewer, 10 ms at 100 Hz, is
        # sampled at its rests alone by the shorter law, and nothing limits its speed there)
        own = reachability.scale_of(found)
        passes = sum(law.duration for _, law in found)  # (before the smoothing)

        def shorter(steps: int, scale: float) -> bool:
            """Whether the law with its dips filled and lowered by its deficit
            (:func:`reachability.smoothed_shifted`) is shorter than the lowered law before
            their ramps and fits at the kernel of ``steps`` at ``scale``: else it is not
            played (where it is longer, the deficit's field lowered slower points than
            the one raised, the factor field's their share: its fit was no shorter)."""
            reach = reachability.kernel(steps, rate, floor, scale)[0]
            return sum(reachability.law_duration(arc.sigma, reachability.smoothed_shifted(
                law, reach)) for arc, law in filled()) < sum(
                reachability.lowered_duration(law, reach) for _, law in found)

        def attempt(steps: int, scale: float, within: bool = True) -> str | bool:
            """The law played with the kernel of ``steps`` at ``scale`` and fitted, kept as
            ``best`` where validate passes it and it is the shortest yet (and, ``within``,
            the law kept within the passes' rows as ``kept_best`` where the fit slowed the
            lowered one; at every kernel, the law with its dips filled and lowered by its
            deficit as ``shifted_best`` where the fit slowed the lowered one by over SHIFTED):
            whether validate passed it, or the run's reason where reachability cannot go
            on."""
            nonlocal best, kept_best, shifted_best, motion, made, built
            motion = made = None  # (one played law at a time: the one before made again)
            if (steps, scale) in self._failed:  # (its lazy fit's, made after all)
                built = (0, 1.0, False, False)
                return False
            made, built = play(steps, scale), (steps, scale, False, False)
            if isinstance(made, str):
                return made
            if made is None:
                return (f"{derivative_name('q', path_orders - 1)} columns through a corner "
                        "(a rest where the path turns), beyond the "
                        f"{derivative_name('q', reachability.ORDERS - 2)} reachability "
                        "plays there")
            motion = made
            if not sum(w.duration for _, w, _ in made.laws) * rate <= (
                    reachability.PER_SAMPLE * reachability.MOST_SAMPLES):
                # (a played law with more output samples than hodyn plays, or nan: its warps
                # degenerate -- Solo12's leg's 10 ms Lissajous curve with --jerk 20000
                # played for 4.8e146 s, and its fit's samples were beyond any array, exit 3)
                return False
            try:
                # (lazy with limits of higher orders alone, where one kernel is tried and
                # no law within the passes' rows competes: a law beyond CLOSE at its own
                # speed is lowered locally, its fit made only where the local slowing's
                # lowered law is not kept)
                inner = fitted(motion, lazy=higher and self._lazy)
            except TrajectoryError:  # the played law's own derivatives disagree at this
                return False  # smoothing (not the input's): a wider one, or the windows
            except Infeasible as e:  # (the played path's, not the input's, which the
                # survey passed: between the points of a coarse grid it leaves the input's
                # path, at any smoothing; --arc-grid 8 on the 2R's cosine: joint2 at 3.37
                # rad, the input within 1.2, was the run's verdict, exit 1)
                return (f"its path played on its {grid} grid points leaves a limit that "
                        f"the input keeps ({e.message.partition(': ')[2]}): a finer "
                        "--arc-grid")
            assert inner.path is not None
            if within and not higher and inner.consistent and inner.duration > (
                    1 + CLOSE) * inner.path.span and kept_best is None:
                # (its played law beyond a limit, the final fit slowing it by more than
                # CLOSE: the law kept within the passes' rows is played and fitted too,
                # a candidate. Not at once: where the played law fits, as on most paths,
                # the rows made again and the needs found over a 10^5-sample path's grid
                # cost ~10 s of its 19 s of CPU for no gain. Not once one is kept, the
                # narrowest kernel's: on the 19 paths of 123 where a wider kernel's was
                # made too, stranger_optimal's rows, it was longer every time, by 1e-5 to
                # 8 %, the rows keeping the peaks a wider smoothing is there to smooth:
                # one played law and fit fewer, 0.2-0.4 s of the G1 arm's 8-waypoint path)
                motion = made = None
                built = (0, 1.0, False, False)  # (each made again if chosen)
                self._left_rows = True
                other = fitted_other(steps, scale, within=True)
                if other is not None and other[0].consistent and (
                        kept_best is None or other[0].duration < kept_best[0].duration):
                    kept_best = other[0], (steps, scale, True, False)
                # (memory: one smoothing's laws within the rows kept, the candidate's, not
                # one per smoothing tried: each holds its arcs' laws over the whole grid)
                kept_reach = None if kept_best is None else reachability.kernel(
                    kept_best[1][0], rate, floor, kept_best[1][1])[0]
                for gone in [r for r in kept if r != kept_reach]:
                    del kept[gone]
            if not higher and inner.consistent and inner.duration > (
                    1 + SHIFTED) * inner.path.span and any(at.size for at, _ in dips()) and (
                    shorter(steps, scale)):
                # (and the law with its dips filled and lowered by its deficit, not its
                # factor (reachability.smoothed_shifted): where a narrow, deep valley of the
                # limits leaves the lowered law beyond them, as on Laikago's and HyQ's legs'
                # Fourier paths, whose first fits were 1.37-1.58 times slower than their
                # lowered laws, 1.02-1.03 than these; a third candidate, not the lowered law
                # itself: where that fits, the deficit's field, which lowers a point by as
                # much wherever it reaches, was longer, 1e-5 to 2.6e-4 on the Kinova arm's
                # and the human arm's Fourier paths)
                motion = made = None
                built = (0, 1.0, False, False)
                other = fitted_other(steps, scale, within=False)
                # (at each smoothing tried where the lowered law's fit is beyond CLOSE, the
                # shortest kept: the fastest kernel was not the first's on HyQ's leg at 20
                # Hz, 4.7278 s against 4.7878)
                if other is not None and other[0].consistent and (
                        shifted_best is None or other[0].duration < shifted_best[0].duration):
                    shifted_best = other[0], (steps, scale, False, True)
            if inner.consistent and (best is None or inner.duration < best[0].duration):
                best = inner, (steps, scale, False, False)
            return inner.consistent

        for scale in dict.fromkeys((own, 1.0)):
            for i, steps in enumerate(kernels):
                if best is not None and i >= tried:
                    break
                reason = attempt(steps, scale)
                if isinstance(reason, str):
                    return reason
            if best is not None:
                break
        # (where the played law's smoothing and ramps cost NOTED of the law or more, the
        # kernels and ramps of a time scale FINER times shorter tried too, the shortest law
        # that validate passes kept: FINER's comment. Where they differ and may pass: on an
        # output finer than the own scale's floor, whose kernels were its steps, its rests
        # not warped, and coarser than the finer scale's, whose rests are; else where one of
        # the narrowest kernels at the own scale passed: the same kernels, or narrower, and
        # shorter ramps where the path has corners)
        finer = own / FINER
        narrowest = best is not None and best[1][:2] in [(steps, own) for steps in
                                                         kernels[:tried]]
        warped = floor / own <= rate < floor / finer
        if not higher and best is not None and finer < own and (
                _played_span(best[0]) > (1 + NOTED) * passes) and (
                warped or narrowest and (rate < floor / finer or len(found) > 1)):
            # (not within's too; the third candidate, its dips filled and lowered by its
            # deficit, where its gate holds: a narrow, deep valley of the limits that the
            # lowered law's DIP rule takes for the passes' glitch, filled to its
            # neighbours' level, is beyond the rows by ~5 times at any kernel (Solo12's and
            # Bolt's legs on sweep17's fourier9 at 100 Hz: x 4.5e5 -> 7.2e3 -> 5.0e5 over
            # 20 grid intervals, the rows allowing 7.5e3 at the bottom at rest), and it is
            # at this scale's kernel that such a fast law is played: without it there,
            # 0.8708 s and 1.0790 s, 51-52 % over toppra; with it 0.6185 s and 0.7670 s)
            attempt(kernels[0], finer, within=False)
        if best is None:
            short = (f": its law lasts {passes:.3g} s, {passes * rate:.2g} of the output's "
                     f"steps at {rate:g} Hz (a finer --rate)" if passes * rate < FEW else "")
            return f"reachability's law fails hodyn validate at every smoothing tried{short}"
        # (the lowered law's, then within's where it was tried: each slowed locally, the
        # shorter kept; not the shorter before that, as a law shorter before its local
        # slowing may end longer after it)
        candidates = [best] + [c for c in (kept_best, shifted_best) if c is not None]

        def replayed(chosen: tuple[int, float, bool, bool]
                     ) -> Callable[[reachability.Played, list[Stored]], reachability.Played]:
            def again(motion: reachability.Played, fields: list[Stored]
                      ) -> reachability.Played:
                """The motion with its played x (its spline at the grid points) times the
                fields, per arc."""
                pieces = [(arc, replace(law, played=local.lowered_at_grid(warped, arc.sigma,
                                                                          g)))
                          for (arc, law), (_, warped, _), g in zip(found, motion.laws, fields,
                                                                   strict=True)]
                rise, flat = rises[chosen[:2]]
                made = reachability.played(pieces, path_orders, names, t0, 0.0, rise,
                                           step(chosen[1]), flat, 1.0 / rate)
                assert made is not None  # (played so before)
                return made

            return again

        done: tuple[Optimal, reachability.Played, tuple[int, float, bool, bool], float
                    ] | None = None
        for i, (inner, chosen) in enumerate(candidates):
            if _beaten(i, [inner for inner, _ in candidates], None if done is None else done[0]):
                continue  # (not played again: its output stays as long, and is not kept)
            if chosen != built:
                # (made again, not kept while the next one was tried: a played law holds 4
                # numbers a grid point, on top of the next one's smoothing; the iiwa's cosine
                # at 3 x 10^5 samples, the first the faster: kept, peak RSS 273 MB and 48.5 s
                # of CPU, made again 249 MB and 52.0 s, the outputs the same bytes: review18)
                motion = made = None
                made, built = play(*chosen), chosen
                motion = made if isinstance(made, reachability.Played) else None
            assert motion is not None
            reach = reachability.kernel(chosen[0], rate, floor, chosen[1])[0]
            try:
                inner, motion = self._local(inner, motion, fitted, replayed(chosen), reach)
            except (TrajectoryError, Infeasible):
                if not self._lazy:
                    raise
                # (a lazy first fit made after all raised, which attempt would have seen:
                # the smoothings tried again so, from the same passes, this one failed where
                # its fit raised a TrajectoryError)
                if inner.unfitted:
                    self._failed.add(chosen[:2])
                self._lazy = False
                raise _Again from None
            if done is None or inner.duration < done[0].duration:
                done = inner, motion, chosen, reach
            motion = made = None
            built = (0, 1.0, False, False)
        assert done is not None
        inner, motion, chosen, reach = done
        if not inner.consistent and self._lazy:  # (a lazy first fit, its local slowing
            # not kept, that validate fails once made: where a fit that is not lazy would
            # have tried the next smoothing, the smoothings tried again so; once only: not
            # lazy the second time)
            self._failed.add(chosen[:2])
            self._lazy = False
            raise _Again
        if inner.duration > uniform.k * span and not any(self.stepping):
            # (at a rest that steps, the uniform scaling is beyond the limits of higher
            # orders, which reachability's ramps keep: it bounds no law)
            return "reachability's law is slower than the uniform scaling"
        assert inner.path is not None
        self.path = replace(inner.path, uniform=uniform, span=span, grid=grid)
        self.final, self.scale, self.orders = inner.final, inner.scale, inner.orders
        self.slowed = inner.slowed
        self.source, self.used, self.ran = motion, "reachability", ("reachability",)
        self.peak = float(np.sqrt(max(law.largest for _, law in found)))
        self.smoothed = None if higher else Smoothed(
            passes, reach, chosen[0], rises[chosen[:2]][0] if len(found) > 1 else 0.0,
            rate < floor / chosen[1], floor / chosen[1])
        return None

    def _local(self, inner: Optimal, motion: reachability.Played,
               fitted: Callable[[reachability.Played], Optimal],
               replayed: Callable[[reachability.Played, list[Stored]], reachability.Played],
               reach: float) -> tuple[Optimal, reachability.Played]:
        """Reachability's played ``motion`` and its fit ``inner`` (scaled from rest onto the
        limits, resampled), with the fit's slowing made local where it slows the law by more
        than :data:`CLOSE`: the law lowered around the samples that are beyond a limit at the
        law's own speed (:meth:`_beyond`), each by what it needs there, and 1 farther than
        twice :data:`SPREAD` kernel reaches (``reach`` seconds) from them all
        (:mod:`~hodyn_cli.algorithms.limits.local`), ``replayed`` and ``fitted`` again; kept
        where that is shorter and validate passes it, else tried :data:`WIDER` times as wide;
        :data:`SPOTS` attempts at most (a whole-law slowing set by one place cost the iiwa's
        500 s Fourier path with its limits file 1.47 %: a torque acceleration peak between
        grid points, which one sampling hits and the next misses). A later round samples the
        lowered law first where the fields kept so far reach (:func:`local.reached`): a
        field lowers its places to ~75-80 % of their need, and the places a later round
        found were those (benchmarks/README.md, long10). ``inner`` may be a fit left lazy
        (:meth:`lazily`): made (:meth:`settled`) only where no lowered law is kept."""
        spread, spots = SPREAD, None
        lowered: list[list[tuple[int, int]]] | None = None  # (the grid the fields kept reach)
        for _ in range(SPOTS):
            assert inner.path is not None
            K = inner.duration / inner.path.span  # (the output against the law's own speed)
            if _unslowed(inner):
                break
            times = local.grid_times(motion)
            if spots is None and lowered is not None:
                # (a law lowered before: first sampled where its fields reach alone, each
                # sampling's samples there, ~0.3 s of the 10^5-sample path's ~10.7 s,
                # benchmarks/README.md, long10; on the whole path where none is beyond there)
                spots = self._beyond(inner, motion, K, local.inside(times, lowered))
                spots = spots if spots[0].size else None
            spots = spots or self._beyond(inner, motion, K)
            fields = local.fields(times, *spots, spread * reach)
            if fields is None:  # (no sample beyond at the law's speed: nothing to lower)
                break
            trial = replayed(motion, fields)
            try:
                other: Optimal | None = fitted(trial)
            except (TrajectoryError, Infeasible):  # (the played law's, lowered: not kept)
                other = None
            if other is None or not other.consistent or other.duration >= inner.duration:
                # (its own field's slopes beyond a limit, or validate failing it: wider,
                # from the first fit made where it was left lazy: its K, which may need no
                # local slowing; not where what a wider one could gain is below WIDEN)
                spread *= WIDER
                inner = inner.settled()
                if inner.duration <= (1 + WIDEN) * _played_span(inner):
                    break
                continue
            lowered = local.reached(times, spots[0], spread * reach, lowered)
            inner.pending = None  # (a fit left lazy, never needed: its motion let go)
            inner, motion, spots = other, trial, None
        return inner.settled(), motion

    def _beyond(self, inner: Optimal, motion: reachability.Played, K: float,
                near: Callable[[np.ndarray], np.ndarray] | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """The times (of the played ``motion``) of the samples beyond a limit where it is
        played at its own speed (``K`` times as fast as ``inner``'s output) and sampled
        :data:`~hodyn_cli.algorithms.limits.local.PHASES` times as often, and the speed-up
        each fits at (:func:`~hodyn_cli.algorithms.limits.local.candidates`,
        :func:`~hodyn_cli.algorithms.limits.local.speedups`). The samplings'
        samples along a chunk of the path are played and their dynamics made together, a
        range of the chunk at a time (:func:`_ranges`), and the samples
        beyond of all bisected together (:data:`~reachability.BLOCK` or more at a time): every
        step is per sample, so the arrays are those of a sampling at a time to the bit.
        ``near``: only the samples at the times it holds (:func:`local.inside`), each as the
        whole path's sampling has it. A fit left lazy made the first sampling's dynamics
        (:attr:`sampled`): read back, not made again."""
        assert inner.path is not None
        # (a fit left lazy plays its plan at the law's own speed: Optimal.lazily)
        own = inner.path if inner.pending is not None else inner.path.slower(1 / K)
        (s0, s1), speed = own.law.breaks, float(np.sqrt(own.law.coefficients[0]))  # (uniform)
        times: list[np.ndarray] = []
        speeds: list[np.ndarray] = []
        phases: list[np.ndarray] = []
        pending: list[tuple[np.ndarray, list[local.Taken]]] = []  # (candidates' s, laws)

        def bisect() -> None:
            times.append(np.concatenate([s for s, _ in pending]))
            speeds.append(local.speedups(local.joined([taken for _, taken in pending])))
            pending.clear()

        # (the first sampling, the fit's own samples, as a lazy fit made it: its plan is
        # ``own``; not where ``near`` keeps a few: another sampling, by samples)
        first = inner.sampled if inner.pending is not None and near is None else None
        limited: list | None = None if first is None else first.limited

        def sampled(path: Trajectory, group: list[tuple[int, np.ndarray, np.ndarray]],
                    tops: list[np.ndarray]) -> None:  # (several samplings along one chunk:
            # one piece; the samples whose peak may reach beyond added to ``tops``)
            nonlocal limited
            s = np.concatenate([s for _, s, _ in group])
            parts = []  # (each part's uses, candidates' rows and laws: as one piece's)
            others = group
            if first is not None and group[0][0] == 0:  # (the first sampling's, read back)
                parts.append(first.next(len(group[0][1])))
                others = group[1:]
            if others:
                made = np.concatenate([s for _, s, _ in others])
                piece = _moved(path, made, np.concatenate([t for _, _, t in others]),
                               lambda K: np.concatenate([plans[phase].law.rates(s, K)
                                                         for phase, s, _ in others]))
                laws = self._laws(piece)
                if limited is None:  # (the same series and joints in every piece)
                    limited = limited_series(self.model, self.limits, laws)
                use = local.uses(laws, limited)
                parts.append((use, *local.candidates(laws, limited, use)))
            use, rows, taken = _joined_parts(parts)
            pending.append((s[rows], taken))
            phases.append(np.repeat([phase for phase, _, _ in group],
                                    [len(s) for _, s, _ in group])[rows])
            tops.append(judged.add(s, use))
            if sum(len(s) for s, _ in pending) >= reachability.BLOCK:
                bisect()

        # (the samples whose peak may reach beyond, judged by their neighbours along the
        # whole motion, and the finer samples about them, each played on the chunk whose
        # intervals hold it once every top that may make it is known: the samples of the
        # whole motion in one chunk, wherever its chunks end)
        judged, around = local.Tops(), [np.zeros(0)]
        recent: list[Trajectory] = []  # (the chunks whose finer samples may not be made yet)

        def peaks(beyond: np.ndarray, last: bool) -> None:
            """The samples :data:`local.FINER` times as dense as the samplings' within a
            sampling's spacing of each sample ``beyond`` (:class:`local.Tops`: whose peak
            may reach beyond a limit; sorted, after those of earlier calls), those beyond
            with their speed-ups (a sampling after the samplings: the field takes the least
            need at each grid point, whatever the order), played once no later top can
            make them (below the first sample not yet judged, less a spacing; all, ``last``:
            the motion's last chunk read), each on the chunk of ``recent`` whose intervals
            hold it (from the motion's start to its end or ``s1``: the whole motion's
            samples, in one chunk or many alike)."""
            assert recent[0].t is not None and recent[-1].t is not None
            around.append(local.finer(beyond, spacing, max(float(recent[0].t[0]), s0), s1))
            made = np.concatenate(around)
            # (every later top at or beyond the sample not yet judged, or the next chunk's
            # first where none is: its finer samples from a spacing before it on)
            waiting = judged.waiting
            frontier = np.inf if last else (
                float(recent[-1].t[-1]) if waiting is None else waiting) - spacing
            ready = distinct(made[made < frontier])
            around[:] = [made[made >= frontier]]
            for k, path in enumerate(recent):  # (each on the chunk whose intervals hold it:
                assert path.t is not None  # the last's its end too)
                n = int(np.searchsorted(ready, path.t[-1], side="right" if last and k == len(
                    recent) - 1 else "left"))
                played(path, ready[:n])
                ready = ready[n:]
            while len(recent) > 1 and recent[0].t is not None and recent[0].t[-1] <= frontier:
                del recent[0]  # (no sample left to play there)

        def played(path: Trajectory, s: np.ndarray) -> None:
            """The finer samples ``s`` (on this chunk) beyond with their speed-ups."""
            assert limited is not None or not s.size
            for a in range(0, s.size, 2 * local.ROWS):  # (a range at a time, as _ranges'
                # samplings: the Z1's 10 kHz path, 84 % of its samples beyond in a second
                # round, made 2.3 x 10^6 of them at once, 2.1 GB; every step per sample)
                part = s[a : a + 2 * local.ROWS]
                piece = _moved(path, part, own.t0 + (part - s0) / speed,
                               lambda K, part=part: plans[0].law.rates(part, K))
                rows, taken = local.candidates(self._laws(piece), limited)
                pending.append((part[rows], taken))
                phases.append(np.full(rows.size, len(plans)))
                if sum(len(p) for p, _ in pending) >= reachability.BLOCK:
                    bisect()

        # each sampling as the output's, from a later start; per chunk of the path, the
        # samplings' samples along it interpolated and their dynamics made together, a
        # range of the chunk at a time (_ranges: all at once, PHASES times as dense (16
        # then), the 500 s path's peak RSS was 575 MiB against 193; a sampling at a time, the
        # calls' own cost was most of a 1000-sample path's: pieces of 60-90 samples)
        # (a law shorter than a step: only the samplings that start before its end)
        spacing = own.step * speed / local.PHASES  # (the samplings' spacing in s)
        starts = s0 + np.arange(local.PHASES) * spacing
        plans = [replace(own, law=replace(own.law, breaks=np.array([start, s1])))
                 for start in starts[(starts < s1) | (starts == s0)]]
        done = [0] * len(plans)
        for path, last in _lookahead(reachability.overlapping(motion)):
            recent.append(path)
            taken: list[tuple[int, np.ndarray, np.ndarray]] = []
            for phase, plan in enumerate(plans):
                s, t, done[phase] = plan.along(path, last, done[phase])
                if near is not None:  # (those samples alone: the same times, fewer)
                    kept = near(s)
                    s, t = s[kept], t[kept]
                if t.size:
                    taken.append((phase, s, t))
            tops: list[np.ndarray] = []  # (this chunk's, looked at together: one piece)
            for group in _ranges(path, taken):
                sampled(path, group, tops)
            if last:
                tops.append(judged.end())
            peaks(np.concatenate([np.zeros(0), *tops]), last)
        if pending:
            bisect()
        if first is not None and not first.done:  # (not an assert: kept under python -O)
            raise RuntimeError("the lazy fit's samples are not the first sampling's")
        if not times:  # (``near`` held none of the samples: none beyond there)
            return np.zeros(0), np.zeros(0)
        # (in the order a sampling at a time gave them: the same arrays to the bit)
        order = np.argsort(np.concatenate(phases), kind="stable")
        return np.concatenate(times)[order], np.concatenate(speeds)[order]

    def _rated(self, found: list[tuple[reachability.Arc, reachability.Law]],
               arc_rows: list[reachability.ArcRows], names: tuple[str, ...], reach: float,
               rise: float, rate: float, uniform: float
               ) -> tuple[list[tuple[reachability.Arc, reachability.Law]] | None, float, float]:
        """The pieces with each law's played x keeping the limits of higher orders too
        (:func:`~hodyn_cli.algorithms.limits.rates.kept`, the smoothing reaching ``reach`` at
        least; the programmes run on one piece where its rounds' law is beyond :data:`SLACK`
        times the passes', or at any slack where the output ``rate`` is finer than
        :data:`HIGHER_RATE`; with ``auto``, not where the rounds' law is beyond
        :data:`UNREACHED` times the ``uniform`` scaling's duration), the ramps' rise that
        keeps them (at least ``rise``) and their step's flat share
        (:func:`~hodyn_cli.algorithms.limits.rates.shape`); None where a law's rounds do not
        get there. ``arc_rows``: each piece's passes' rows, as
        :func:`~hodyn_cli.algorithms.limits.reachability.solve` kept them."""
        # (an output finer than 1 kHz starts the rounds from a kernel of its own steps, a
        # grid interval or two on the capped grid, and they widen it a long way: the Panda's
        # 10 kHz Fourier path with --jerk 500 was 1.026 times the passes' law by them, its
        # law 2.0 % longer than the windows'; raised by the programmes 0.36 % shorter than
        # the windows', 3.4 s more CPU; benchmarks/README.md, 2026-11-30, long10k)
        fine = rate > HIGHER_RATE * (1 + 1e-6)
        refine = 1.0 if fine else SLACK
        unreached = UNREACHED * uniform if self.solver == "auto" and fine else np.inf
        def limits(arc: reachability.Arc, a: int, b: int) -> list:
            sigma = arc.sigma[a:b]
            return path_limits(self.model, Trajectory(names, arc.jet(sigma, self.order + 3),
                                                      sigma), self.limits, self.order,
                               gravity=self.dynamics["gravity"])

        # (each arc's passes' rows (``arc_rows``, one per piece of ``found``: the passes'
        # own, for the limits without those of higher orders, rates.affine's), read back)
        by_arc = {id(arc): made for (arc, _), made in zip(found, arc_rows, strict=True)}

        def rows(arc: reachability.Arc, a: int, b: int) -> reachability.Rows:
            return by_arc[id(arc)](a, b)

        pieces, rounds, local = [], [], []
        found = [(arc, law.held()) for arc, law in found]  # (the rounds take x whole)
        for arc, law in found:
            rated = rates.kept(arc, law, lambda a, b, arc=arc: limits(arc, a, b),
                               lambda a, b, arc=arc: rows(arc, a, b), reach,
                               # (no corner: a piece alone; its own rests ramped too,
                               # the xArm7's lines with a stop, --jerk 200 and 20, lifted
                               # kept their limits and passed validate)
                               lift=len(found) == 1, refine=refine,
                               unreached=unreached, cubic=fine,
                               bounds=by_arc[id(arc)].bounds)
            if rated is None:
                return None, rise, 0.0
            pieces.append((arc, rated.law))
            rounds.append(rated.duration)
            local.append(rated.local)
        self.local = local == [True]
        passes = sum(law.duration for _, law in found)
        # (the flat step only on outputs at HIGHER_RATE or coarser. Finer, its played q^(4)
        # is near validate's tolerance: with a played point at each of its joins,
        # reachability._at_joins (before, 4.2 and 5.0 times it on the Panda's point-to-point
        # motion with its limits file at 5 and 10 kHz), that motion passed at 1.5472 s
        # (1.594 s with the single step), but the docs' one back to its start still failed
        # at 10 kHz, 1.13 times, 0.8 rise into its last leg, where the warp makes a grid
        # interval ~2 ms long; played as densely there, that passed and the bench's
        # panda-p2p at 5 and 10 kHz failed, 1.47 times at its last samples: likely the flat
        # step's own q^(6) at a rest, r ~ 101 x^4 there against the single step's 35 x^4
        # over a rise 0.7 times as long; not measured apart)
        flat = rates.shape(pieces, limits) if not fine else 0.0
        found, pieces, rounds = _cornered(found, pieces, rounds, limits, rows, reach, flat,
                                          fine)
        # (the rounds' law before its lift, the slack SLACK was measured on, or the
        # sequential programmes' law where they ran, rates.kept: with their ends free and
        # up to 24 steps, within 0.07 % of the windows' or shorter where within SLACK on
        # the 14 Fourier inputs with jerk limits; with their ends frozen the iiwa's Fourier
        # path with --jerk 100 kept a law 1.14 % longer than the windows'); lifted, the
        # UR10's Fourier path with --jerk 200 came to 1.078, 6.5 % longer than the windows;
        # against the passes' law without the corners' ceilings, which cost time too: taken
        # against the law under them, the UR3's, UR10's and Talos's point-to-point paths with
        # --jerk 100 kept a law 7.7-11 % longer than the windows', the slack under 1.09);
        # with the ramps' delays, which the passes' law has none of (without them the iiwa's
        # point-to-point path with its limits file came to 1.078 at 1 kHz, and auto kept
        # reachability's law, 3.7 % longer than the windows' it did not run)
        rise = rates.rise(pieces, limits, rise, flat)
        delay = reachability.ramps_delay(pieces, rounds, rise, flat)
        self.slack, self.rated = (sum(rounds) + delay) / passes, sum(rounds)
        self.needed = SLACK if any(self.stepping) else _needed_slack(len(found), rate,
                                                                      self.limits)
        return pieces, rise, flat

    def fit(self, chunks: Callable[[], Iterable[Trajectory]], *, continuous: bool = False
            ) -> Binding:
        """Plan (with ``chunks()``: the motion afresh), then play it and fit it onto its limits
        at every output sample (:class:`Fit`: the largest uniform speed-up within :data:`FIT`
        of 1 at which every sample is inside). Where none is (a sample between grid points
        beyond a limit, and another that a slower playing pushes out: a static term of the
        other sign), plan again for limits tightened by twice the excess. Where that fails
        :data:`ATTEMPTS` times or would tighten them by :data:`MARGINS` or more, or the result
        is slower than the uniform scaling (a grid too coarse for the path), the uniform
        scaling itself (x constant), fitted likewise or, failing that, from rest as ``retime
        --to-limits`` scales. A law whose played motion ``hodyn validate`` passes, as fitted and
        once resampled (:meth:`_resampled`), is the result (on the first path-speed cap and
        within :data:`RAISE` of :data:`CALM`: planned once more with a higher cap, and the
        faster of the two that validate passes). Where its derivatives are less
        consistent with each other on its samples than that (or, failing the resampling,
        than :data:`CALM` of validate's tolerance: a law that turns faster than the samples
        follow, as near rest points), it is planned again:
        where the law's path speed :attr:`peak` is beyond
        :data:`~hodyn_cli.algorithms.limits.programme.CAP_LEAST` times the uniform one (near a
        rest: the ramp out of it too short for the output's sampling), with its cap where
        the inconsistency, taken to grow as the peak's
        :data:`~hodyn_cli.algorithms.limits.programme.STEEP`-th power, would be :data:`CALM`
        (at least ``CAP_LEAST``, at most :data:`LOWERINGS` times); then at half the pace,
        at most :data:`CALMER`
        times; beyond validate's tolerance after that, the uniform scaling is taken. The
        speed-up found is then made the law's own
        (:meth:`_resampled`): the output's samples are ``1/rate`` apart. A continuous joint's
        angle that the motion wraps at +-pi is made continuous first (:meth:`_unwrapped`;
        not where the caller says its angles are ``continuous``: reachability's played
        motion, made from the unwrapped one)."""
        if not continuous:
            chunks = self._unwrapped(chunks)
        if self.uniform:  # the uniform scaling, from rest, resampled
            plan = self.plan(chunks())
            _, found, _ = self._fitted(chunks())
            self.final = _no_faster(found, plan.uniform)
            self.consistent = self._resampled(chunks, from_rest=True)
            return self.final
        self.why_windows = ("as --solver windows asks" if self.solver == "windows" else
                            self._reachability(chunks))
        if self.why_windows is None:
            # (the slack measures the law against its passes', which leave the limits of
            # higher orders out: where the programmes' law is a local optimum of the
            # windows' problem the slack is the problem's own, not the law's distance from
            # its optimum; the windows ran there on 5 inputs, each time longer: the SO-101's
            # Fourier path with --jerk 50 by 0.16 %, the xArm7's stops with --jerk 200 and
            # 20 by 26 % and 6.5 %, Romeo's and the B1-Z1's Fourier paths with --jerk 100 by
            # 0.50 % and 0.24 %; on the xArm7's the law kept is _cornered's, which beats the
            # programmes' once fitted; where the rounds' law is beyond UNREACHED no programme
            # runs: the two-link arm's, which converged 5.4 % above the windows' with it
            # lifted; benchmarks/README.md, 2026-11-30, jerk1s2). Not from a rest whose
            # acceleration steps (:attr:`stepping`): there the windows hold x = 0 and ramp
            # between the output's samples, their limits kept at those, another problem
            # than the programmes' on the arc grid (the 2R's 20 Hz half cosine with --jerk
            # 50: the windows' 1.145 s, the programmes' converged law 1.356 s)
            if self.solver == "auto" and self.slack > self.needed and not (
                    self.local and not any(self.stepping)):
                self._or_windows(chunks)
            assert self.final is not None
            return self.final
        if self.solver == "reachability":
            raise HodynError(f"--solver reachability: it does not apply ({self.why_windows}): "
                             "use --solver auto")
        return self._windows(chunks)

    def _or_windows(self, chunks: Callable[[], Iterable[Trajectory]]) -> None:
        """The windows' law where it is shorter than reachability's, which keeping the limits
        of higher orders made :attr:`slack` times its passes' law: there the rounds are far
        from the optimum (torque rates below gravity's own rate along the path: the iiwa's
        Fourier path with 25 N m/s on every joint, 0.668 of the uniform duration against
        < 0.5 by the windows; 1.10-1.27 where the windows were 4.6-19 % shorter, 1.0006-1.076
        where reachability was as short or shorter, review17)."""
        kept, before = dict(self.__dict__), self.duration
        self.source, self.used, self.beat = None, "windows", before
        try:
            self._windows(chunks)
        except _Longer:  # (their law cannot be the shorter: reachability's stays)
            self.__dict__.update(kept)
            self.ran = ("reachability", "windows")
            return
        except (HodynError, ArithmeticError, np.linalg.LinAlgError) as e:
            # (an internal failure of the second solve: reachability's law, validated, stays)
            self.__dict__.update(kept)
            self.ran = ("reachability", "windows")
            self.windows_failed = (f"{_higher_named(self.limits)}: the windows solver, run "
                                   f"too as keeping them made reachability's law "
                                   f"{self.slack:.2f} times its passes' law, failed "
                                   f"({str(e) or type(e).__name__}): reachability's law kept")
            return
        # (a law of the windows' own, which validate passed; not their last resort, the
        # uniform scaling: never shorter than reachability's law, which is checked against
        # it, and without --rate possibly one validate fails: review19)
        self.beat = None
        if self.used != "windows" or self.duration >= before:
            self.__dict__.update(kept)
            self.ran = ("reachability", "windows")
            return
        self.why_windows = (f"{_higher_named(self.limits)}: the windows' law is shorter than "
                            f"reachability's, which keeping them made {self.slack:.2f} times "
                            "its passes' law")

    def _windows(self, chunks: Callable[[], Iterable[Trajectory]]) -> Binding:
        """The law by the windows of linear programmes in the input's time (see :meth:`fit`)."""
        self.source, self.ran = None, self.ran + ("windows",)
        margin, uniform, pace, attempts, lowered = 0.0, None, PACE, 0, 0
        cap: float | np.ndarray = CAP  # (or one a stretch, some lowered: below)
        passed = None  # a law at the first cap that validate passes, and was raised from
        start = None
        while attempts < ATTEMPTS:
            self.plan(chunks(), self._tightened(margin), pace, cap, start)
            self._rate_up(chunks)
            start = None
            assert self.path is not None
            law = self.path.law  # (as planned: _resampled plays it slower)
            planned = self.path.duration
            if passed is None and not (np.all(np.equal(cap, CAP)) and
                                       self.peak >= CAP * (1 - 1e-3)):
                # (no higher cap tried after it, whose law could be shorter: the plans after
                # it are no shorter, and a solve given up at ``beat`` is not fitted)
                self._hopeless(planned)
            uniform = uniform or self.path.uniform  # for the limits as given
            self.path = replace(self.path, uniform=uniform)
            self.lagged = []
            fit, found, lag = self._fitted(chunks())
            at = self.lagged[-1][1] if self.lagged else np.nan
            # (no sample near a limit at any speed-up within FIT: the plan's own bound, sped
            # up by FIT at most, as the uniform scaling's; the 2R's half cosine from a rest
            # that steps, --jerk 50 at 20 Hz, gave way to the uniform scaling, which keeps
            # the step, where its 200 Hz law passes check and validate at 20 Hz)
            self.final = fit.solve() if fit.reached else _no_faster(found, uniform)
            # (at a rest that steps (:attr:`stepping`) the uniform scaling is beyond the
            # limits of higher orders: it bounds no law)
            if self.final is not None and lag <= 1 and self._resampled(chunks) and (
                    any(self.stepping) or self.duration <= self.uniform_duration):
                # (validate passes it: planned again at CALM, a 10 s point-to-point path of
                # the iiwa with torque rates came to 10.47 s, its law at 0.93 10.19 s)
                if passed is None and np.all(np.equal(cap, CAP)) and (
                        self.peak >= CAP * (1 - 1e-3) and lag < RAISE * CALM):
                    passed = self._state()  # on its cap, consistent: a higher one may do
                    cap = CAP * (CALM / lag) ** (1 / RISE)
                    # (a higher cap speeds the law up CAP / cap times at most: were its law
                    # faster, played that much slower it would be within CAP, and shorter
                    # than this one. Exact for velocities; for torques (k^2 on all but
                    # gravity) and torque rates (k^3, k) an observation, not a proof, as
                    # _hopeless's: wrong, it keeps reachability's law, never a broken one)
                    self._hopeless(planned * CAP / cap)
                    # (from this law, as planned: it is within the higher cap; from the
                    # uniform one, a rate-limited design of the iiwa took 12.3 s of CPU)
                    start = replace(self.path.law,
                                    coefficients=self.path.law.coefficients * self.scale**2)
                    continue
                if passed is not None and passed["duration"] < self.duration:
                    self._restore(passed)
                assert self.final is not None
                return self.final
            if self.final is not None and lag <= 1:
                # (consistent as planned, not once resampled at the rate: the samplings'
                # least inconsistency judges it, which the output would have)
                if self.resampled_lag > lag:  # (where that sampling's is largest)
                    lag, at = self.resampled_lag, dict(self.lagged).get(self.resampled_lag,
                                                                       np.nan)
            if passed is not None:  # the raised cap's law is not consistent: the first one
                self._restore(passed)
                assert self.final is not None
                return self.final
            # (the stretch between rests where the inconsistency is: its cap alone is lowered,
            # the other stretches' kept. Every stretch's lowered together, the xArm7's curve
            # through a stop, inconsistent on its second leg at the cap of 8, came to 1.74530
            # s at the cap of 4, now 1.68103 s (its CPU: below, where the plan restarts); the
            # whole path's cap kept 1.71544 s but not the Baxter zigzag's gain with torque
            # accelerations, 4.594 -> 5.642 s: windows19.
            # Where that stretch is no faster than CAP_LEAST times its own uniform speed, its
            # cap is not what makes it inconsistent: every stretch's as before, from the
            # fastest's peak (that zigzag, inconsistent on a leg at 1.9 times its speed: its
            # law at half the pace on the cap of 8 was 0.26 % shorter as planned, 0.15 %
            # longer once fitted, 4.60127 s against 4.59445 s)
            given = np.asarray(cap, dtype=float)
            if given.size not in (1, len(self.peaks)):  # (caps of a plan of other stretches:
                given = given.min()  # their least for all, never numpy's broadcast error)
            caps = np.broadcast_to(given, self.peaks.shape).copy()
            k = (int(np.searchsorted(self.rests, at, side="right")) if np.isfinite(at)
                 else int(np.argmax(self.peaks)))
            which = [k] if self.peaks[k] > CAP_LEAST else slice(None)
            top = self.peaks[k] if self.peaks[k] > CAP_LEAST else float(self.peaks.max())
            if self.final is not None and lag > CALM and top > CAP_LEAST < caps[which].max() and (
                    lowered < LOWERINGS):
                # (below cap: the peak is within it)
                self._hopeless(planned)
                lower = max(top * (CALM / lag) ** (1 / STEEP), CAP_LEAST)
                caps[which] = np.minimum(caps[which], lower)
                cap = caps if len(caps) > 1 else float(caps[0])
                lowered += 1
                # (from this law, as planned, played peak / cap times slower: within the lower
                # cap, and within the limits and the smoothness rows, which a slower playing
                # keeps; from the uniform one the solve climbs again to x's hundreds of times
                # x0 on the slow legs of a path with rests inside: the 2R's two legs of
                # tests/test_windows19b.py, 120 of HiGHS's solves and 28584 simplex
                # iterations against 24 and 10920, to 1.28341 s against 1.25668 s)
                # (one stretch lowered: that stretch alone played slower, the others as
                # planned (programme.eased: x eased back to them over EASED of the stretch's
                # length beside it), each restarting from its own law. The whole law played
                # slower, the xArm7's corner planned again at 3.6-4.3 s of CPU (10
                # programmes), its kept leg climbing back to its cap; now 2.5-2.7 s (9),
                # 1.681028 s against 1.681034 s, the whole run 7.5-7.9 s against 8.5-9.0 s
                # loaded. Eased over 0.1 or 1.0 of it: 16 and 11 programmes, 1.68142 and
                # 1.68140 s: windows21)
                f = (lower / top) ** 2
                ends = np.concatenate([[-np.inf], self.rests, [np.inf]])
                a, b = max(float(ends[k]), law.breaks[0]), min(float(ends[k + 1]),
                                                                law.breaks[-1])
                start = (eased(law, a, b, f, EASED * (b - a)) if isinstance(which, list) and b > a
                         else replace(law, coefficients=law.coefficients * f))
                continue
            if self.final is not None and lag > CALM and pace > PACE / 2**CALMER:
                self._hopeless(planned)
                pace /= 2
                # (from this law played twice slower, x / 4: the smoothness rows bound x^(k)
                # by 2 x1 nu^k, nu at most ~ pace sqrt(x0 / x), which a quarter of x keeps at
                # half the pace, 2^-k 4^(k/2) = 1, as it keeps the limits and the cap)
                start = replace(law, coefficients=law.coefficients / 4)
                continue
            if self.final is not None:
                break
            margin = max(2 * fit.excess(), 2 * margin, MARGIN)
            if margin >= MARGINS:  # the path between grid points is not what they show
                break
            self._hopeless(planned)
            attempts += 1
        if self.beat is not None:  # (their last resort, the uniform scaling: never shorter)
            raise _Longer
        assert self.path is not None and uniform is not None
        self.used = "uniform"  # (the windows' law gave way to it: the notice says so)
        law = replace(self.path.law, coefficients=np.full_like(self.path.law.coefficients,
                                                               uniform.x**2))
        self.path = replace(self.path, law=law)
        fit, found, _ = self._fitted(chunks())
        self.final = _no_faster(fit.solve() or found, uniform)
        consistent = self._resampled(chunks)
        if self.rate is None and (self.duration > self.uniform_duration or not consistent):
            # (not consistent: the law as planned, its samples failing hodyn validate, an
            # iiwa point-to-point path with q^(6) at 20 Hz: qdddddd 0.118 from the differences)
            self._at_input_samples(chunks, keep=not consistent)
        return self.final

    def _rate_up(self, chunks: Callable[[], Iterable[Trajectory]]) -> None:
        """Where the output's rate was raised (:func:`output_rate`) on the uniform scaling
        alone, no law known (the windows' first plan, reachability not run or refused before
        its passes; not with limits of higher orders, whose rate counts the uniform
        scaling's steps on purpose): the law planned again at the next rate up
        (:data:`ROUND_RATES`) while that shortens it by more than :data:`RATE_GAIN`, at most
        :data:`RATE_UPS` times (and while its output would have at most as many samples
        as a played law may: ``PER_SAMPLE`` times reachability's ``MOST_SAMPLES``), and the
        last such plan kept. Why: the law's smoothness rows
        bound its turning by the output's step (:data:`~hodyn_cli.algorithms.limits.
        programme.SMOOTH`), so a law many times faster than the uniform scaling, planned at
        the rate the uniform scaling's steps chose, is held back by that rate (reachability's
        passes' law, where it runs, chooses the rate itself)."""
        if self.unlawed is None:
            return
        self.unlawed = None
        assert self.chosen is not None and self.path is not None
        names = ("path", "orders", "peak", "peaks", "rests", "chosen")
        kept = {name: getattr(self, name) for name in names}
        first = (self.chosen, self.path.duration)
        for _ in range(RATE_UPS):
            lower, law = self.chosen, self.path.duration
            decade = 10.0 ** np.floor(np.log10(lower) + 1e-9)
            self.chosen = next(float(m * decade) for m in (*ROUND_RATES[1:], 20.0)
                               if m * decade > lower * (1 + 1e-9))
            if law * self.chosen > reachability.PER_SAMPLE * reachability.MOST_SAMPLES:
                break  # (an output of more samples than a played law may have)
            if self.plan(chunks()).duration >= (1 - RATE_GAIN) * law:
                break
            kept = {name: getattr(self, name) for name in names}
            self.rated_up = (*first, self.path.duration)
        self.__dict__.update(kept)

    def _hopeless(self, planned: float) -> None:
        """Raise :class:`_Longer` where the windows' law must beat :attr:`beat` and the law
        just planned (``planned`` s, as planned) is more than :data:`FIT` longer: the next
        plan has a lower cap, half the pace or tighter limits, a smaller feasible set whose
        fastest law is no shorter, and the final fit speeds a law up by FIT at most. (That
        holds of the programmes' optima; the windows' plans are local iterations of them, so
        it is an observation, not a proof: it held on every input review24 ran with a spy,
        14 of them.) (auto's
        windows after reachability on the UR10's point-to-point path with --jerk 300: 1.907 s
        at the cap of 8, inconsistent, then 1.934 s at 5.7, reachability's 1.843 s kept).
        Judged on the first plan too where no higher cap follows it (:meth:`_windows`), which
        :func:`~hodyn_cli.algorithms.limits.programme.solve` gives up at ``beat / (1 - FIT)``
        once its recent pace cannot get there (``programme.STRIDE``): reachability's law kept,
        the law given up never fitted."""
        if self.beat is not None and planned * (1 - FIT) >= self.beat:
            raise _Longer

    def _at_input_samples(self, chunks: Callable[[], Iterable[Trajectory]],
                          keep: bool = False) -> None:
        """The uniform scaling sampled where the input is sampled, where that is faster than
        it resampled at the input's rate (the result then: never slower than the uniform
        scaling). Played k times slower (k: the uniform scaling's, ``retime --to-limits``'),
        the input's samples are k times its mean step apart: the output's step is that (not
        ``1 / rate``), so that on an evenly sampled input they are its samples played k times
        slower, within the limits exactly as the uniform scaling found them; resampled at
        ``1 / rate`` they fall between the input's samples, where the path can be beyond the
        limits at the samples' speed (an iiwa Fourier path at 20 Hz: 4.00019 s against
        3.99933 s). ``keep``: taken even where slower (the result before fails validate).
        The input's mean step, not the plan's, where the output's rate was raised
        (:attr:`raised`): k times the raised step fell between the input's samples (the
        iiwa's cosine law cut to its whole steps and played twice slower, 16 samples at 10 Hz,
        raised to 200 Hz: at 396 Hz, 0.757932 s, 1.06 % slower than its uniform scaling; now
        its samples 50 ms apart, 0.75 s, the uniform scaling's: tests/test_zig21_rate.py)."""
        assert self.path is not None
        before = self._state()
        uniform = self.path.uniform
        law = replace(self.path.law, coefficients=np.full_like(self.path.law.coefficients,
                                                               uniform.x**2))
        mean_step = self.path.step if self.raised is None else 1.0 / self.raised[0]
        self.path = replace(self.path, law=law, step=mean_step * uniform.k)
        fit, found, _ = self._fitted(chunks())
        self.final = _no_faster(fit.solve() or found, uniform)
        self.scale, self.slowed = 1.0, None
        if self.duration >= before["duration"] and not keep:  # (keep: the result before fails validate)
            self._restore(before)
        else:  # (the input's own samples played slower: no raised rate for the notice to explain)
            self.raised = None

    def _state(self, names: tuple[str, ...] = ()) -> dict:
        """The result as it stands: its ``duration`` and the attributes of :data:`_RESULT`
        and ``names`` (:data:`_PLAYED`: what the smoothings set), a set copied (``_failed``
        grows in place)."""
        return {"duration": self.duration} | {
            name: set(value) if isinstance(value := getattr(self, name), set) else value
            for name in _RESULT + names}

    def _restore(self, state: dict) -> None:
        for name, value in state.items():
            if name != "duration":  # (the result's, derived)
                setattr(self, name, value)

    def _resampled(self, chunks: Callable[[], Iterable[Trajectory]], from_rest: bool = False
                   ) -> bool:
        """The plan played at the fit's speed-up (its law's x times ``x_fit^2``), sampled
        every ``1/rate`` again and fitted again (the samples moved along the path), until
        it fits as it is, within :data:`CLOSE` of its limits, at most :data:`RESAMPLES`
        times: the output's samples are then exactly ``1/rate`` apart, every sample within
        its limits, and :attr:`final` is at speed-up 1 (:attr:`scale`: the law's slowing in
        all). ``from_rest``: the speed-up at which every sample fits at any slower playing
        too (``retime --to-limits``'s), not the largest near 1. False (the plan as it was, not
        slowed: :attr:`scale` 1): no sampling found that fits."""
        assert self.path is not None and self.final is not None
        start, best, k, scale = self.path, None, self.final.k, 1.0
        # (the sample farthest beyond its limit so far, and its sampling's slowing: where a
        # resampling lands a sample on a narrow peak between the law's grid points, it sets
        # a slowing that the next sampling, missing the peak, does not need: said, not hidden)
        beyond = (self.final, 1.0) if self.final.k > 1 else None
        least = SPED if self.uniform or self.used == "uniform" else 0.0  # (_no_faster's)
        overs = 0  # (resamplings beyond their limits so far)
        lags = np.inf
        for _ in range(RESAMPLES):
            scale = max(scale * k, least)
            self.path = start.slower(scale)
            fit, found, lag = self._fitted(chunks())
            if not from_rest:  # (not reached: no limit near these samples, not ScaleSearch's
                # speed-up from rest, far beyond the plan's bound between them)
                found = (fit.solve() or found) if fit.reached else None
            # (None: no limit at these samples, they fit as sampled; the speed-up is held by
            # ``least`` on a uniform scaling, by the fit before on a law of the programmes)
            found = replace(start.uniform, x=1.0) if found is None else found
            if found.k <= 1:  # (a sampling within its limits: an output, were it consistent)
                lags = min(lags, lag)
            if found.k <= 1 and lag <= 1:  # fits as sampled, and hodyn validate passes it
                if best is None or scale < best[0]:
                    best = (scale, self.path, found, beyond)
                if found.k >= 1 - CLOSE or scale == least:
                    break
            elif found.k > 1 and (beyond is None or found.k > beyond[0].k):
                beyond = (found, scale)
            # beyond: as far again inside, and at least CLOSE / 4 (a long motion's samples,
            # moved along the path, leave their limits by ~1e-5 afresh at every fit: 10^5
            # samples of the iiwa's cosine were beyond by 1.3e-5, 3.7e-6, 2.1e-5 in turn, and
            # the law 3.4 % faster than the uniform scaling was dropped for it); from rest
            # (reachability's played motion, the uniform scaling) the first time as far again
            # alone: one sample beyond by a hair, slowed by CLOSE / 4 at once, made the final
            # duration jump by 5e-5 with any change of the law (the SO-101's Fourier path
            # with --jerk 50: 1.2e-7 beyond, the law 1e-7 shorter, the output 5.0e-5 longer;
            # benchmarks/README.md, jerk1s). Not the windows' fits: where HiGHS gives them
            # no law, their start, the uniform law, gave way to the uniform scaling by that
            # slowing alone (tests/test_optimal_solver_reason.py)
            if found.k > 1:
                k = max(found.k**2, 1 + CLOSE / 4) if overs or not from_rest else found.k**2
                overs += 1
            else:
                k = found.k
        # (none within its limits: not an inconsistency, which a plan again would not mend)
        self.resampled_lag = lags if np.isfinite(lags) else 0.0
        if best is None:  # (and no slowing of an earlier plan's resampling left standing)
            self.path, self.scale, self.slowed = start, 1.0, None
            return False
        self.scale, self.path, found, self.slowed = best
        self.final = replace(found, x=1.0)
        return True

    def _fitted(self, chunks: Iterable[Trajectory], sampled: _Sampled | None = None
                ) -> tuple[Fit, Binding | None, float]:
        """The played motion's laws at every output sample, fed to a :class:`Fit` (left empty
        on a :attr:`uniform` law: fitted from rest, :meth:`fit` reads the binding alone;
        feeding it was ~40 % of reachability's inner fits' time); the
        binding of its uniform scaling from rest
        (:class:`~hodyn_cli.algorithms.limits.feasibility.ScaleSearch`; None where nothing
        limits the speed at these samples: all at rests, where only rounding in q' made a
        limit depend on it, or none of the limits moves with it: every sample fits at any
        speed-up, and the plan's own bound stands in, :func:`_no_faster`); and how
        consistent its derivatives are on its samples: the largest error of one against the
        time differences of the one below, as a share of ``hodyn validate``'s tolerance.
        ``sampled``: each piece's laws fed to it too (:meth:`lazily`)."""
        assert self.path is not None
        search, fit, count = ScaleSearch(self.model, self.limits), Fit(), 0
        differences = Differences()
        for piece in self.path.played(chunks):
            laws = self._laws(piece)
            search.add(laws, piece)
            if not self.uniform:
                fit.add(laws, limited_series(self.model, self.limits, laws), piece.t, count)
            differences.add(piece.derivatives, piece.t, count)
            if sampled is not None:
                sampled.add(laws, limited_series(self.model, self.limits, laws))
            count += piece.n_samples
        lag = differences.share(RTOL)
        self.lagged.append((lag, self._where(differences)))
        try:
            search.retiming()  # (Infeasible: beyond a limit at any speed, raised)
        except Unlimited:
            return fit, None, lag
        return fit, search.best[0], lag

    def _where(self, differences: Differences) -> float:
        """The path parameter where the played motion (:attr:`path`'s, ``differences``: its
        samples') is farthest beyond ``hodyn validate``'s tolerance share (the order and
        column of :meth:`Differences.share`'s largest, at the step where its error is
        largest; nan: no step judged)."""
        judged = [(rel / tol, k) for k, (rel, tol, _) in enumerate(differences.judged(RTOL))
                  if rel.size]
        if not judged or self.path is None or differences.err is None:
            return np.nan
        share, order = max(judged, key=lambda pair: float(pair[0].max()))
        t = differences.when[order, int(np.argmax(share))]
        law = self.path.law
        return float(law.s_at(np.array([t - self.path.t0]), law.times)[0])

    def lazily(self, motion: reachability.Played, fitted: Callable[[], Optimal]) -> Optimal:
        """Reachability's played ``motion`` fitted as ``fitted()`` fits it (:meth:`fit`: a
        survey of its points for the uniform scaling, then the output's samples fitted and
        resampled up to :data:`RESAMPLES` times), or, where its output's samples at its own
        speed (x = 1) are beyond a limit by more than :data:`CLOSE` of the speed-up, that
        one fit alone: ``fitted`` is left to :meth:`settled` (:attr:`pending`;
        :attr:`consistent` True until then), the duration the samples' speed-up's. There the
        local slowing lowers the law and keeps its own fit wherever that is shorter than
        this one (:meth:`_local`), so the survey and the resamplings are made only where it
        does not (at 10^5 samples: a survey of 3 x 10^5 points and 4 fits of 10^5 samples,
        benchmarks/README.md, long13). Its samples are the local slowing's first sampling:
        their dynamics kept for it (:attr:`sampled`)."""
        (_, first, start), (_, last, end) = motion.laws[0], motion.laws[-1]
        t0, t1 = start + float(first.times(0, 1)[0]), end + last.duration  # (its chunks' ends)
        degree = max(5, motion.orders)
        law = TimeLaw(np.array([t0, t1]), np.ones(degree + 1), degree)
        assert self.rate is not None
        # (no uniform scaling surveyed: a stand-in; a plan left lazy is never the output's)
        standin = Binding(1.0, "", "", 0, None, 0.0, 0.0)
        self.path = Plan(law, t0, 1.0 / self.rate, standin, t1 - t0, ENDS)
        sampled = _Sampled()
        try:
            _, found, _ = self._fitted(motion, sampled)
        except (TrajectoryError, Infeasible):  # (as the fit that is not lazy finds it)
            return fitted()
        if found is None or found.k <= 1 + CLOSE:
            return fitted()
        self.final, self.orders, self.pending, self.consistent = found, motion.orders, fitted, True
        self.sampled = sampled
        return self

    def settled(self) -> Optimal:
        """The fit :meth:`lazily` left, made now (:attr:`pending`; raises as :meth:`fit`
        does, a TrajectoryError noted in :attr:`unfitted`), or this one."""
        if self.pending is None:
            return self
        try:
            return self.pending()
        except TrajectoryError:
            self.unfitted = True
            raise

    def _tightened(self, margin: float) -> Limits:
        """The limits with every band but position's ``1 - margin`` as wide."""
        if not margin:
            return self.limits
        return replace(self.limits, bands={k: b if k == "position" else b * (1 - margin)
                                           for k, b in self.limits.bands.items()})

    def retimed(self, chunks: Iterable[Trajectory]) -> Iterator[Trajectory]:
        """The retimed motion, chunk by chunk: the plan's played motion scaled by the fit's k
        (exactly; 1 where the fit is the law's own, :meth:`_resampled`); :attr:`bound`:
        where it is on its limits."""
        p, final = self.path, self.final
        assert p is not None and final is not None, "plan and fit first"
        self.bound = Bound(self.model, self.limits)
        for piece in p.played(self.source or self._unwrapped(lambda: chunks)()):
            out = scaled(piece, final.x, p.t0 + final.k * (piece.t - p.t0))
            self.bound.add(self._laws(out), out.t)
            yield out

    def _unwrapped(self, chunks: Callable[[], Iterable[Trajectory]]
                   ) -> Callable[[], Iterable[Trajectory]]:
        """``chunks`` with the angles a log may wrap (continuous joints', :func:`~hodyn_cli.
        algorithms.motion.turns.wrapped_columns`) continuous in time: wrapped at +-pi they
        jump by 2 pi there, which the path would follow (validate unwraps them likewise)."""
        wrapped = wrapped_columns(self.model)
        return unwrapping(chunks, wrapped) if wrapped.any() else chunks

    @property
    def duration(self) -> float:
        assert self.path is not None and self.final is not None
        return self.path.duration * self.final.k

    @property
    def uniform_duration(self) -> float:
        """The duration of the fastest uniform scaling (``retime --to-limits``)."""
        assert self.path is not None
        return self.path.uniform.k * self.path.span

    @property
    def final_scale(self) -> float:
        """The law's slowing by the final fits (1: the law as planned)."""
        assert self.final is not None
        return self.scale * self.final.k

    @property
    def kept(self) -> list[str]:
        """Where the output keeps a step of acceleration of the input's at an end at rest
        (:attr:`stepping`), in a user's words: the uniform scaling's, which scales q'' by
        1/k^2 (``--to-limits --rate``, the windows' fallback), or a windows' law not held at 0
        there (no ramp from it kept the limits); reachability ramps the rests."""
        assert self.path is not None
        if self.used == "reachability":
            return []
        held = (False, False) if self.uniform or self.used == "uniform" else self.path.law.held
        return [text for steps, texts, h in zip(self.stepping, self._steps, held, strict=True)
                if steps and not h for text in texts]

    @property
    def paused(self) -> list[str]:
        """Where the input holds still for a while, in a user's words: a span without
        motion is no part of its path, so the time-optimal law does not keep it (reachability
        passes it at once, the windows at their path-speed cap); the uniform scaling does."""
        if self.uniform or self.used == "uniform":
            return []
        return [f"holds still from t = {a:.6g} s to {b:.6g} s ({b - a:.4g} s): a pause is no "
                "part of the path, and the time-optimal law does not keep it (retime the "
                "motions either side of it apart, or use --to-limits, to keep it)"
                for a, b in self.pauses]

    @property
    def solver_note(self) -> str | None:
        """Which solver made the result and why, in a user's words, where not reachability
        alone: the windows (their reason), the uniform scaling they fell back to, or
        reachability's law kept where the windows' solve after it failed (None:
        reachability's law, the windows not run or not shorter; where a ``--grid`` was
        given that the windows did not run to use: said)."""
        if self.windows_failed is not None:
            return self.windows_failed
        if self.why_windows is None:  # (a --grid asked for, unused: said, not ignored)
            return (None if self.grid is None or "windows" in self.ran else
                    f"--grid {self.grid} unused: the windows solver did not run")
        if self.used == "windows":
            return f"by the windows solver: {self.why_windows}"
        return ("by the uniform scaling, the windows solver finding no faster law (the "
                f"windows: {self.why_windows})")

    @property
    def smoothing_note(self) -> str | None:
        """What reachability's smoothing and corners' ramps cost, in a user's words, where it
        is :data:`NOTED` of its law before them or more (None: less, or not its law): the
        seconds and the share, the kernel's reach, and on a coarse output that a finer
        ``--rate`` narrows it (and where it is wider than one step there, that validate
        needs it: docs/feasibility.md)."""
        done = self.smoothed
        if done is None or self.used != "reachability":
            return None
        cost = self.duration - done.law
        if cost < NOTED * done.law:
            return None
        plural = "s" if done.steps > 1 else ""
        # (wider than one step: the narrowest failed validate, the rests' warp notwithstanding)
        wider = (": validate needs the law's turns at its rests to span more of a step of a "
                 "coarser one" if done.steps > reachability.STEPS[0] else "")
        how = (f"{done.steps} step{plural} of {1e3 / done.finer:.3g} ms, as on an output at "
               f"{done.finer:.4g} Hz{wider}" if done.coarse else
               f"{done.steps} output step{plural}")
        ramps = f" and its corners' ramps ({1e3 * done.rise:.3g} ms)" if done.rise else ""
        finer = (f"; a --rate above {done.finer:.4g} Hz smooths it over the output's own "
                 "steps" if done.coarse else "")
        return (f"its smoothing ({1e3 * done.reach:.3g} ms either side: {how}){ramps} and "
                f"final fit cost {cost:.3g} s, {100 * cost / done.law:.2f} % over "
                f"reachability's law before them ({done.law:.6g} s){finer}")

    @property
    def rest_note(self) -> str | None:
        """Where reachability's law plays the input's start or end as a rest while the input
        moves there, slower than :data:`~hodyn_cli.algorithms.limits.reachability.REST` of
        its fastest speed but not still (:data:`~hodyn_cli.algorithms.limits.rests.STILL`),
        in a user's words (None: not so). A nearly still end is taken for a stop (a logged
        motion's, its sensors' noise on it): the output starts or ends at rest, as a robot
        is left; the optimum with that end's speed free is faster (the xArm7's curve cut
        where its speed is 9e-4 of its fastest: 2.161357 s against toppra's 2.135490 with
        its start speed free, +1.21 %; cut at 1.1e-3, moving, 2.135780 s)."""
        if self.end_speeds is None or self.used != "reachability":
            return None
        near = [(which, share) for which, share in zip(("start", "end"), self.end_speeds,
                                                         strict=True)
                if STILL < share < reachability.REST]
        if not near:
            return None
        said = " and ".join(f"its {which} moves at {share:.2g}" for which, share in near)
        return (f"{said} of its fastest speed, below the {reachability.REST:g} taken as a "
                f"rest: played {'from' if near[0][0] == 'start' else 'to'} rest"
                f"{' and to rest' if len(near) == 2 else ''} (an end moving faster keeps "
                "its speed free)")

    @property
    def slowing_note(self) -> str | None:
        """Where the output is on no limit (within :data:`ON_LIMIT`) after a final scaling
        that slowed it: the sample beyond its limit at an earlier sampling that set that
        slowing (a peak between the output's samples, which its own samples miss), in a
        user's words (None: the output is on a limit, or no sample was beyond)."""
        if self.slowed is None or self.bound.describe():
            return None
        binding, at = self.slowed
        return (f"played {self.final_scale:.6g} times slower than its law: at a sampling "
                f"{at:.6g} times slower, {binding.describe()} was beyond it ({binding.k:.6g} "
                "times slower fits there)")

    @property
    def rate_note(self) -> str | None:
        """Where ``--rate`` was not given and the output is not at the input's mean rate
        (:func:`output_rate`), why, in a user's words (None: it is, or ``--rate`` was)."""
        if self.raised is None:
            return None
        mean, k, counted, what = self.raised
        why = (f"{what} lasts {counted * mean:.3g} of the input's steps, fewer than {SHORT_STEPS}"
               if k * FASTER >= 1 else
               f"uniform scaling plays the path {1 / k:.3g} times faster than the input, more "
               f"than {FASTER:g}: at the input's rate the output would sample it that many "
               "times more coarsely than the input does")
        up = "" if self.rated_up is None else (
            f"; {self.played_rate:g} Hz, not {self.rated_up[0]:g}: the windows' law planned "
            f"there {self.rated_up[2]:.4g} s, not {self.rated_up[1]:.4g} s")
        return (f"sampled at {self.played_rate:g} Hz, not at the input's {mean:.4g} Hz: its "
                f"{why} (a law of a few output steps is slowed to pass validate){up}; --rate "
                "chooses another")

    @property
    def played_rate(self) -> float:
        """The output's samples per second: its samples are ``1 / played_rate`` apart from
        its start, the last step shorter (to 12 digits: the step is the rate's inverse, and
        1 / (1 / 1e5) is 99999.99999999999)."""
        assert self.path is not None and self.final is not None
        return float(f"{1.0 / (self.path.step * self.final.k):.12g}")

    @property
    def attributes(self) -> dict:
        """What an output file records: durations, the grid, where the limits bind (or the
        nearest, where none does; and what set the final scaling then), what the smoothing
        cost, and which solvers ran and whose law the output plays."""
        assert self.path is not None and self.final is not None
        nearest = self.bound.nearest()
        notes = {"nearest_limit": nearest} if nearest and not self.bound.describe() else {}
        for key, note in (("rate_note", self.rate_note), ("smoothing_note", self.smoothing_note),
                          ("rest_note", self.rest_note),
                          ("final_scale_by", self.slowing_note),
                          ("solver_note", self.solver_note)):
            notes |= {key: note} if note else {}
        return {"duration": self.duration, "uniform_duration": self.uniform_duration,
                "rate": self.played_rate, "grid_points": self.path.grid,
                "final_scale": self.final_scale, "binding": self.bound.describe()} | notes | (
            {"time_scale": [self.duration / self.path.span]} if self.uniform else
            {"solver": self.used, "solvers_run": list(self.ran)})


Pieces = list[tuple[reachability.Arc, reachability.Law]]


#: where reachability's law lasts fewer output steps than this and no smoothing passes
#: validate, the reason says so and asks for a finer ``--rate`` (the finger_edu's 10 ms at
#: 20 Hz, a fifth of a step, was the uniform scaling, 85 % slower than toppra, until the
#: rests' warps were sized for the step their samples are apart: reachability.played)
FEW = 4
#: :attr:`Optimal.smoothing_note` says what the smoothing cost where it is this share of the
#: law before it or more (less: within the grid's own error against toppra, ~0.05 %)
NOTED = 1e-3


@dataclass(frozen=True, eq=False, repr=False)
class Smoothed:
    """Reachability's law as it was played: its passes' duration ``law`` (s, before the
    smoothing), the kernel's ``reach`` (s) of ``steps`` steps, the corners' ramps' ``rise``
    (s; 0: no corner), whether the output is ``coarse`` (its steps the floor's, as long as
    at ``finer`` Hz)."""

    law: float
    reach: float
    steps: int
    rise: float
    coarse: bool
    finer: float


class _Arcs(NamedTuple):
    """Reachability's passes along the path (:meth:`Optimal._arcs`), read by every smoothing
    tried (:meth:`Optimal._smoothings`): each arc's law and rows (``found``, ``rows``), the
    joints, the path's start and span (s, seconds), its orders, the output's rate, the grid
    intervals, whether limits of higher orders are kept (the rounds), whether the passes
    interpolate, and the input's uniform scaling."""

    found: Pieces
    rows: list[reachability.ArcRows]
    names: tuple[str, ...]
    t0: float
    span: float
    orders: int
    rate: float
    grid: int
    higher: bool
    interpolate: bool
    uniform: Binding


class _Again(Exception):  # noqa: N818 - not an error: the smoothings tried again
    """A fit left lazy failed once made (:meth:`Optimal._local`): the smoothings are tried
    again without it (:meth:`Optimal._reachability`)."""


def _unslowed(inner: Optimal) -> bool:
    """Whether a fit ``inner`` of reachability's played law (its output against the law's
    own speed, K) slows it by :data:`CLOSE` or less: :meth:`Optimal._local` leaves it as
    it is."""
    return inner.duration / _played_span(inner) <= 1 + CLOSE


def _beaten(i: int, fits: list[Optimal], done: Optimal | None) -> bool:
    """Whether the candidate ``fits[i]`` (:meth:`Optimal._smoothings`' laws, each slowed
    locally in turn, the first of the shortest kept) is one that the local slowing leaves
    as it is (:func:`_unslowed`, not left lazy: its output as long as now) and that another
    keeps out: ``done``, the one kept so far, or another left as it is, no longer and before
    it or shorter and after it: its law is then not played again (0.06-0.1 s of the G1
    arm's and Alex's 8-waypoint paths at 100 Hz, 3 s of CPU)."""
    mine = fits[i]
    if mine.pending is not None or not _unslowed(mine):
        return False
    if done is not None and done.duration <= mine.duration:
        return True
    return any(j != i and other.pending is None and _unslowed(other) and (
        other.duration < mine.duration or j < i and other.duration <= mine.duration)
        for j, other in enumerate(fits))


#: :meth:`Optimal._denser` runs where the law played is longer than its passes' law by more
#: than this share: the passes again on the denser grid win back about that gap, 0.04 % more
#: at most in sweep17's and sweep18's rows where they gained (the Borinot's 100 and 20 Hz
#: Fourier paths: 0.48 and 0.37 % over their passes' laws, 0.52 and 0.45 % won back; Solo's
#: and Bolt's legs' 100 Hz ones 0.089 and 0.072 %, 0.13 and 0.11 %; the simple humanoid's
#: arm's 100 Hz one -0.007 %, its rerun 4.1 -> 7.6 s of CPU for nothing). Within it, a rerun
#: would win back 0.14 % at most, for twice the CPU: with the passes' own grid's error (the
#: Borinot's passes' law 0.35 % over its optimum) within goal 1's 0.5 %. The rows it skips
#: that gained, by 0.02-0.13 %, stay within 0.5 % of toppra (-0.43 to +0.14 %; rows22b)
DENSER_GAP = 1e-3
#: a result (:meth:`Optimal._state`): the plan, its final fit, scale, peak and slowing, and
#: the plan's stretches (:attr:`~Optimal.rests`, :attr:`~Optimal.peaks`, which describe it)
_RESULT = ("path", "final", "scale", "peak", "slowed", "rests", "peaks")
#: and what :meth:`Optimal._smoothings` sets where its law is played, with what they learn
#: of failed fits: kept by :meth:`Optimal._denser` where the law on the denser grid is not
#: shorter
_PLAYED = ("orders", "source", "used", "ran", "smoothed", "_lazy", "_failed")


def _played_span(inner: Optimal) -> float:
    """The duration of the motion a fit ``inner`` scaled (before its scaling: the played
    law's)."""
    assert inner.path is not None
    return inner.path.span


def _cornered(found: Pieces, pieces: Pieces, rounds: list[float],
              limits: Callable[[reachability.Arc, int, int], list],
              rows: Callable[[reachability.Arc, int, int], reachability.Rows], reach: float,
              flat: float, cubic: bool) -> tuple[Pieces, Pieces, list[float]]:
    """(the passes' laws, the rounds' played laws, their durations before a lift) with the
    ramped rests whose ramps would be cut short
    (:func:`~hodyn_cli.algorithms.limits.rates.cornered`, the ramps' step ``flat``) left and
    reached slower: each such piece planned again by the passes under its ceiling and played
    by the rounds (``cubic``: :func:`~hodyn_cli.algorithms.limits.rates.kept`'s), where that
    is faster than the final fit's slowing for the steeper ramps would be (else, or where the
    rounds do not get there, as they are)."""
    ceilings, slowing = rates.cornered(pieces, limits, flat)
    out, played, times = list(found), list(pieces), list(rounds)
    for i, ceiling in enumerate(ceilings):
        if ceiling is None:
            continue
        arc = found[i][0]

        def capped(a: int, b: int, arc: reachability.Arc = arc,
                   ceiling: np.ndarray = ceiling) -> reachability.Rows:
            r = rows(arc, a, b)
            return replace(r, top=np.minimum(r.top, ceiling[a:b]))

        law = reachability.along(arc, capped)
        law = None if law is None else law.held()
        rated = None if law is None else rates.kept(
            arc, law, lambda a, b, arc=arc: limits(arc, a, b),
            lambda a, b, arc=arc: rows(arc, a, b), reach, ceiling, lift=False, cubic=cubic)
        if law is None or rated is None:
            return found, pieces, rounds
        out[i], played[i], times[i] = (arc, law), (arc, rated[0]), rated[1]

    def time(laws: Pieces) -> float:
        return sum(replace(law, x=law.played).duration for _, law in laws)

    return ((out, played, times) if time(played) <= slowing * time(pieces) else
            (found, pieces, rounds))


class _Longer(Exception):  # noqa: N818 - not an error: ends the windows' solve
    """The windows' law cannot be shorter than the one it must beat (:meth:`Optimal._hopeless`)."""


def _needed_slack(pieces: int, rate: float, limits: Limits) -> float:
    """The slack of reachability's law beyond which ``auto`` runs the windows after it, on a
    path of ``pieces`` (cut at its corners) played at ``rate`` (Hz) within ``limits``:
    :data:`CORNERED_SLACK` on a path with corners whose limits of higher orders are joint
    jerks alone (no torque rate or acceleration), on an output coarser than
    :data:`HIGHER_RATE`; else :data:`SLACK`."""
    dynamic = any(limits.limited(key).any() for key in TORQUES[1:])
    coarse = rate < HIGHER_RATE * (1 - 1e-6)
    return CORNERED_SLACK if pieces > 1 and coarse and not dynamic else SLACK


def _unrefined(found: list[tuple[reachability.Arc, reachability.Law]]) -> int:
    """The grid points of the one piece of ``found`` where it is beyond
    :data:`~hodyn_cli.algorithms.limits.sequential.MOST` (the rounds' law then stays as it is:
    no programme raises it); 0 elsewhere (several pieces have none either, by design:
    :func:`~hodyn_cli.algorithms.limits.rates.kept`'s ``lift``)."""
    if len(found) != 1 or len(found[0][0].sigma) <= sequential.MOST:
        return 0
    return len(found[0][0].sigma)


def _higher_named(limits: Limits) -> str:
    """The limits of a torque order above 0 (torque rates, torque accelerations, jerk: they
    hold the law's derivatives beyond (u, x) = (sigma_ddot, sigma_dot^2)) in a user's words:
    the first such key limited, and where its limits come from."""
    keys = TORQUES[1:] + tuple(key for key, order in JOINT_ORDERS.items() if order > 0)
    key = next(key for key in keys if limits.limited(key).any())
    origin = next((where for where in limits.origin.get(key, ()) if where), "")
    where = {"file": "the limits file's", "URDF": "the URDF's",  # (a Limits made in Python: "the")
             "option": "the command line's"}.get(origin, "the")
    return f"{where} {key.replace('_', '-')} limits"
