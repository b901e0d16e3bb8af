"""``retime --optimal``'s final fit slows reachability's law locally (the factor field of
:mod:`hodyn_cli.algorithms.limits.local`) where its played motion is beyond a limit at a few
places, not the whole motion by the worst one's factor."""

from __future__ import annotations

import numpy as np
import pytest
from test_free_body import example_robot
from test_optimal import iiwa_path

import hodyn_cli
from hodyn_cli import api
from hodyn_cli.algorithms.limits import local, optimal, reachability
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory


def test_the_field_lowers_x_around_its_spots_alone():
    """At most ``y^2`` on the grid points either side of a sample that needs ``y``, 1 farther
    than twice ``seconds`` from every such sample, never above 1; None where none needs it."""
    T = np.linspace(0.0, 10.0, 2001)  # (grid points 5 ms apart)
    s, y = np.array([3.0012, 7.5]), np.array([0.99, 0.995])
    (field,) = local.fields([T], s, y, 0.1)
    field = field[:]  # (on disk)
    for at, need in zip(s, y, strict=True):
        i = np.searchsorted(T, at)
        assert field[i - 1] <= need**2 + 1e-12 and field[i] <= need**2 + 1e-12
    far = np.min(np.abs(T[:, None] - s[None]), axis=1) > 2 * 0.1 + 0.005
    assert np.all(field[far] == 1.0) and field.max() <= 1.0
    assert np.count_nonzero(field < 1.0) < 0.1 * len(T)
    assert local.fields([T], s, np.ones(2), 0.1) is None
    assert local.fields([T], np.array([11.0]), np.array([0.5]), 0.1) is None  # (not on it)


def test_the_ranges_reached_hold_every_point_the_field_lowers():
    """``local.reached``: the grid points a field can change (every point where it is below
    1) lie within its ranges, merged and sorted, with an earlier field's kept; ``inside``
    tells a time within them as a brute force over the ranges does."""
    T = np.cumsum(np.r_[0.0, np.random.default_rng(3).uniform(4e-3, 6e-3, 3000)])
    s, y = np.array([1.0, 1.03, 9.0, 14.9]), np.array([0.9, 0.97, 0.99, 0.95])
    (field,) = local.fields([T], s, y, 0.1)
    (ranges,) = local.reached([T], s, 0.1)
    covered = np.zeros(len(T), dtype=bool)
    for a, b in ranges:
        covered[a:b] = True
    # (the moving averages of ones are one to rounding: ~1e-16 below it far away)
    assert np.all(covered[field[:] < 1.0 - 1e-12]) and covered.mean() < 0.5
    assert all(b1 < a2 for (_, b1), (a2, _) in zip(ranges[:-1], ranges[1:], strict=False))
    assert len(ranges) == 3  # (the two places 30 ms apart: one range)
    (more,) = local.reached([T], np.array([5.0]), 0.1, [ranges])
    assert len(more) == 4 and set(ranges) <= set(more)
    within = local.inside([T], [more])
    t = np.random.default_rng(4).uniform(T[0] - 1, T[-1] + 1, 5000)
    brute = np.zeros(len(t), dtype=bool)
    for a, b in more:
        brute |= (t >= T[a]) & (t <= T[b - 1])
    assert np.array_equal(within(t), brute) and brute.any()
    assert not local.inside([T], [[]])(t).any()


def test_the_ranges_of_arcs_that_touch_are_told_apart_by_arc():
    """Two arcs, the second starting where the first ends (a rest: the played motion's arcs
    one after the other): ``reached`` keeps each arc's ranges on its own grid (an earlier
    field's too), and ``inside`` tells a time within any of them, across the arcs' common
    time and near each arc's ends, as a brute force over each arc's ranges does."""
    rng = np.random.default_rng(6)
    T1 = np.cumsum(np.r_[0.0, rng.uniform(4e-3, 6e-3, 800)])
    T2 = T1[-1] + np.cumsum(np.r_[0.0, rng.uniform(2e-3, 3e-3, 1200)])
    times = [T1, T2]
    s = np.array([0.01, T1[-1] - 0.01, T1[-1] + 0.005, T2[-1] - 0.5])  # (near both ends)
    first = local.reached(times, s[:2], 0.05)
    assert first[1] == [] and first[0][0][0] == 0 and first[0][-1][1] == len(T1)
    ranges = local.reached(times, s[2:], 0.05, first)
    assert ranges[0] == first[0] and ranges[1][0][0] == 0 and len(ranges[1]) == 2
    for T, arc in zip(times, ranges, strict=True):
        assert all(0 <= a < b <= len(T) for a, b in arc)
        assert all(b1 < a2 for (_, b1), (a2, _) in zip(arc[:-1], arc[1:], strict=False))
    t = np.r_[rng.uniform(T1[0] - 0.1, T2[-1] + 0.1, 4000), T1[-1], T1[0], T2[-1],
              T2[ranges[1][0][1] - 1], np.nextafter(T2[ranges[1][0][1] - 1], np.inf)]
    brute = np.zeros(len(t), dtype=bool)
    for T, arc in zip(times, ranges, strict=True):
        for a, b in arc:
            brute |= (t >= T[a]) & (t <= T[b - 1])
    assert np.array_equal(local.inside(times, ranges)(t), brute)
    assert brute.any() and not brute.all() and brute[-5] and not brute[-1]


def _bumped(monkeypatch, amplitude: float, width: float = 20.0) -> None:
    """reachability._lowered (the played law, where reachability plays it from its passes'
    law) raised by ``amplitude`` (a share) over ~``width`` grid intervals in the middle of the
    arc: one place where the played motion is beyond its limits, as a peak between grid
    points makes one; everywhere else the law played as it was. Its alternative where the
    played law is beyond, the law kept within the passes' rows (reachability.within), is
    played as that one (not shorter: not taken), so that the final fit's slowing is what
    is left to make local."""
    lowered = reachability._lowered

    def bumped(x, smooth, reach):
        out = np.asarray(lowered(x, smooth, reach)[:])
        i = np.arange(len(out))
        return out * (1 + amplitude * np.exp(-(((i - len(out) / 2) / width) ** 2)))

    monkeypatch.setattr(reachability, "_lowered", bumped)
    monkeypatch.setattr(reachability, "within", lambda arc, law, rows_at, reach, interpolate: law)


def test_one_excess_is_slowed_locally(monkeypatch):
    """The iiwa's 3 s cosine path (URDF limits) with its law 3 % too fast at one place:
    the whole-law slowing (SPOTS = 0, as before) costs ~1.4 % of the motion; the local
    slowing a small share of that, its output within every limit at every sample and
    passing validate, and its samples before the place played as the unbumped law plays
    them (the same speed to 1e-3), where the whole-law slowing's are not."""
    model, traj, _ = iiwa_path(3.0, 100.0, orders=5)
    # (one smoothing: the bump would change which of those tried is the faster)
    monkeypatch.setattr(reachability, "STEPS", (2,))
    plain, _ = hodyn_cli.retime_optimal(model, traj)
    _bumped(monkeypatch, 0.03)
    monkeypatch.setattr(optimal, "SPOTS", 0)
    whole, opt_whole = hodyn_cli.retime_optimal(model, traj)
    monkeypatch.setattr(optimal, "SPOTS", 3)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    assert opt.used == opt_whole.used == "reachability"
    T0, T1, T = plain.t[-1], whole.t[-1], out.t[-1]
    assert T1 > 1.01 * T0  # (the whole-law slowing, set by one place)
    assert T0 <= T < T0 + 0.1 * (T1 - T0)
    q = [out.derivatives[:, k] for k in range(out.orders)]
    assert hodyn_cli.check_limits(model, *q[:3], t=out.t).feasible
    assert hodyn_cli.validate_motion(model, *q, t=out.t).passed
    before = slice(0, round(0.3 * len(plain.t)))  # (the place: about the middle)

    def speed(m):
        return np.linalg.norm(m.derivatives[before, 1], axis=1)

    assert speed(out) == pytest.approx(speed(plain), rel=1e-3)
    assert np.max(np.abs(speed(whole) / speed(plain) - 1)) > 5e-3


def test_a_later_round_samples_where_the_fields_reach_the_same_places(monkeypatch):
    """A second round of the local slowing (forced: the first field lowers x by y, not y^2,
    so the lowered law is still beyond there and the final fit slows it by more than CLOSE)
    samples the lowered law only where the first field reaches (``_beyond``'s ``near``):
    the places and speed-ups the whole path's samplings find, to the bit, from a small share
    of the samples (a later round over the whole path cost ~10 s of CPU at 10^5 samples,
    benchmarks/README.md, long10); the output keeps its limits and passes validate."""
    model, traj, _ = iiwa_path(1.0, 100.0, orders=5)
    monkeypatch.setattr(reachability, "STEPS", (2,))
    _bumped(monkeypatch, 0.03)
    fields, calls = local.fields, []

    def halved(times, s, y, seconds):  # (a whole path's round's field: half the lowering)
        return fields(times, s, np.sqrt(y) if calls[-1][0] is None else y, seconds)

    beyond = optimal.Optimal._beyond

    def spied(self, inner, motion, K, near=None):
        found = beyond(self, inner, motion, K, near)
        whole = beyond(self, inner, motion, K) if near is not None else found
        calls.append((near, found, whole))
        if near is not None:  # (where it holds no sample: none beyond, not a crash)
            s, y = beyond(self, inner, motion, K, lambda s: np.zeros(len(s), bool))
            assert s.size == y.size == 0
        return found

    monkeypatch.setattr(local, "fields", halved)
    monkeypatch.setattr(optimal.Optimal, "_beyond", spied)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    assert opt.used == "reachability"
    later = [(found, whole) for near, found, whole in calls if near is not None]
    assert later, "no second round"
    for (s, y), (s_all, y_all) in later:
        assert s.size and np.array_equal(s, s_all) and np.array_equal(y, y_all)
    q = [out.derivatives[:, k] for k in range(out.orders)]
    assert hodyn_cli.check_limits(model, *q[:3], t=out.t).feasible
    assert hodyn_cli.validate_motion(model, *q, t=out.t).passed


def test_finer_points_lie_within_a_spacing_of_each_point():
    """``local.finer``: FINER - 1 points each side of each point, ``spacing / FINER`` apart,
    not the points themselves, within ``lo .. hi``, sorted and each once."""
    s = np.array([1.0, 1.5, 3.0])
    out = local.finer(s, 0.1, 0.0, 3.05)
    steps = np.arange(1, local.FINER) * 0.1 / local.FINER
    want = np.unique(np.concatenate([s[:, None] - steps, s[:, None] + steps]).ravel())
    assert np.array_equal(out, want[want <= 3.05])
    assert not np.isin(s, out).any() and np.all(np.diff(out) > 0)
    assert out.min() > 0.9 and out.max() <= 3.05
    assert local.finer(s, 0.1, 5.0, 6.0).size == 0


def test_tops_are_the_samples_beyond_and_the_peaks_that_may_top_beyond_between():
    """``local.tops``: every sample beyond; a local top that rises above the lower sample
    beside it by more than it lies below 1 (a spike between samples); not a flat stretch
    near 1, nor a broad hump below it; whatever the order of the samples."""
    s = np.arange(20.0)
    use = np.full(20, 0.9)
    use[3] = 1.01  # (beyond)
    use[8], use[9] = 0.99, 0.97  # (a spike from 0.9: 2 x 0.99 - 0.97 > 1)
    use[13:16] = [0.95, 0.96, 0.95]  # (a hump: 2 x 0.96 - 0.95 < 1)
    order = np.random.default_rng(1).permutation(20)
    assert np.array_equal(local.tops(s[order], use[order]), [3.0, 8.0])
    assert local.tops(s, np.full(20, 0.999)).size == 0
    assert local.tops(s[:2], np.array([1.1, 0.5])).tolist() == [0.0]


def test_a_peak_s_top_between_the_samplings_is_found(monkeypatch):
    """A spike of the played law (the iiwa's 1 s cosine with its law 10 % too fast over ~2
    grid intervals) narrower than the samplings' spacing: the least speed-up that
    ``_beyond`` finds is the peak's top's, as 256 samplings find it near the place (to
    1e-4), where the samplings alone (FINER 1: as before) were 0.4 % short of it with 16
    samplings, 0.46 % with local.PHASES' 8 (branch long12): the lowering they set left the
    peak beyond where a later sampling hit nearer its top (benchmarks/README.md, long11);
    the output keeps its limits and passes validate."""
    model, traj, _ = iiwa_path(1.0, 100.0, orders=5)
    monkeypatch.setattr(reachability, "STEPS", (2,))
    _bumped(monkeypatch, 0.1, width=2.0)
    beyond, found = optimal.Optimal._beyond, {}

    def spied(self, inner, motion, K, near=None):
        out = beyond(self, inner, motion, K, near)
        if not found:
            s, y = out
            place = s[np.argmin(y)]
            with monkeypatch.context() as m:
                m.setattr(local, "FINER", 1)
                found["alone"] = beyond(self, inner, motion, K)[1].min()
                m.setattr(local, "PHASES", 256)
                step = inner.path.step / K  # (the samplings' spacing: step / PHASES at most)
                found["dense"] = beyond(self, inner, motion, K,
                                        lambda s: np.abs(s - place) < step / 8)[1].min()
            found["y"] = y.min()
        return out

    monkeypatch.setattr(optimal.Optimal, "_beyond", spied)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    assert opt.used == "reachability" and found
    assert found["y"] == pytest.approx(found["dense"], abs=1e-4)
    assert found["alone"] > found["dense"] + 3e-3
    q = [out.derivatives[:, k] for k in range(out.orders)]
    assert hodyn_cli.check_limits(model, *q[:3], t=out.t).feasible
    assert hodyn_cli.validate_motion(model, *q, t=out.t).passed


@pytest.mark.slow
def test_the_rounds_do_not_change_with_the_rounding_of_the_limits(monkeypatch, tmp_path):
    """``hodyn retime --optimal`` of the iiwa's Fourier path of 75 s at 200 Hz (15 001
    samples, ``hodyn generate``) with its limits file, the probes' coefficients of every
    limit (``path_limits``) times ``1 + e``, signs alternating, e = 0 and +-1e-15: the local
    slowing runs as many rounds each (its samplings at one ``K`` a round: a field widened is
    not a round), two at most, and the durations agree to 1e-6 (before long11: one or two
    rounds, and 51.5257, 51.5204 and, every field failing, 51.5552 s: its fields lowered
    each place to what the samplings saw of its narrow peaks, benchmarks/README.md, long11;
    long11: one round each, 51.52092 s; since the probes' torques come from one inverse
    dynamics, long12: two each, K 1.0486 then 1.0182, 51.4277284 s within 7e-10); each
    output keeps its limits (``hodyn check``) and passes ``hodyn validate``."""
    from dataclasses import replace

    import h5py
    from test_optimal import IIWA
    from test_rates import IIWA_LIMITS
    from typer.testing import CliRunner

    from hodyn_cli.algorithms.limits import programme
    from hodyn_cli.cli.app import app

    runner, src = CliRunner(), tmp_path / "long.h5"
    made = runner.invoke(app, ["generate", str(IIWA), "--kind", "fourier", "--rate", "200",
                               "--duration", "75", "-o", str(src), "-q"])
    assert made.exit_code == 0, made.output
    path_limits, beyond = programme.path_limits, optimal.Optimal._beyond
    durations, counts = [], []
    for k, e in enumerate((0.0, 1e-15, -1e-15)):
        rounds: set[float] = set()

        def rounded(*args, e=e, **kwargs):
            return [replace(p, coefficients=p.coefficients * np.where(
                np.arange(p.coefficients.size).reshape(p.coefficients.shape) % 2, 1 - e,
                1 + e)) for p in path_limits(*args, **kwargs)]

        def counted(self, inner, motion, K, near=None, rounds=rounds):
            rounds.add(K)
            return beyond(self, inner, motion, K, near)

        for module in (reachability, optimal):
            monkeypatch.setattr(module, "path_limits", rounded)
        monkeypatch.setattr(optimal.Optimal, "_beyond", counted)
        out, limits = tmp_path / f"out{k}.h5", ["--limits", str(IIWA_LIMITS)]
        for args in (["retime", str(IIWA), str(src), "--optimal", *limits, "-o", str(out)],
                     ["check", str(IIWA), str(out), *limits], ["validate", str(IIWA), str(out)]):
            run = runner.invoke(app, args + ["-q"])
            assert run.exit_code == 0, (e, args[0], run.output)
        counts.append(len(rounds))
        assert counts[0] == len(rounds) <= 2, (e, rounds, counts)
        with h5py.File(out) as f:
            durations.append(float(f.attrs["duration"]))
    assert max(durations) / min(durations) - 1 < 1e-6, durations


def test_a_failed_resampling_leaves_no_earlier_slowing(monkeypatch):
    """Where no resampling fits (forced: RESAMPLES 0), the plan stays as it was and so does
    its scale: 1, not the slowing an earlier plan's resampling left (the windows' attempts
    and their uniform fallback share one Optimal: its final_scale and final_scale_by then
    told of a law the output does not play)."""
    model, traj, _ = iiwa_path(1.0, 20.0, orders=3)
    opt = api.time_optimal(model, uniform=True, rate=20.0)
    opt.fit(lambda: [traj])
    assert opt.final is not None and opt.path is not None
    path = opt.path
    opt.scale, opt.slowed = 1.3, (opt.final, 1.3)  # (an earlier plan's)
    monkeypatch.setattr(optimal, "RESAMPLES", 0)
    assert not opt._resampled(lambda: [traj])
    assert opt.path is path and opt.scale == 1.0 and opt.slowed is None
    assert opt.final_scale == opt.final.k


def _old_beyond(laws: dict, limited: list) -> tuple[np.ndarray, np.ndarray]:
    """The samples beyond and their speed-ups as ``local.beyond`` found them before its laws
    were taken once and the samplings' bisected together (branch beyondfast): the reference
    ``local.candidates`` then ``local.speedups`` must equal to the bit."""
    from hodyn_cli.algorithms.limits.scaling import TOLERANCE

    def worst(rows: np.ndarray, y: np.ndarray) -> np.ndarray:
        use = np.zeros(len(rows))
        for _, series, cols, lower, upper in limited:
            v = laws[series].take(rows, cols).at(y)
            use = np.maximum(use, (np.abs(v - (lower + upper) / 2) / ((upper - lower) / 2)
                                   ).max(axis=1, initial=0.0))
        return use

    n = len(next(iter(laws.values())).coefficients)
    rows = np.arange(n)
    rows = rows[worst(rows, np.ones(n)) > 1 + TOLERANCE / 10]
    rows = rows[worst(rows, np.full(len(rows), local.SLOWEST)) <= 1 + TOLERANCE / 10]
    lo, hi = np.full(len(rows), local.SLOWEST), np.ones(len(rows))
    for _ in range(local.BISECTIONS if rows.size else 0):
        mid = (lo + hi) / 2
        fits = worst(rows, mid) <= 1 + TOLERANCE / 10
        lo, hi = np.where(fits, mid, lo), np.where(fits, hi, mid)
    return rows, lo


def test_the_samples_beyond_and_their_speedups_are_the_old_ones_to_the_bit():
    """Random laws (a torque law with friction, a jerk law on two of three joints): the
    samples beyond and their bisected speed-ups equal the old formulation's exactly, one
    piece at a time and with two pieces' candidates bisected together (``_beyond``'s way);
    some samples are beyond, some fit at once, some not even at SLOWEST."""
    from hodyn_cli.algorithms.limits.scaling import Law

    rng = np.random.default_rng(7)
    names = ("a", "b", "c")

    def laws(n: int) -> dict:
        return {"tau": Law(2, rng.normal(0.0, 0.6, (n, 3, 3)), names,
                           np.abs(rng.normal(0.0, 0.1, (n, 3, 3)))),
                "qddd": Law(3, rng.normal(0.0, 0.5, (n, 3, 1)), names)}

    limited = [(None, "tau", np.arange(3), np.full(3, -1.2), np.full(3, 1.5)),
               (None, "qddd", np.array([0, 2]), np.full(2, -1.0), np.full(2, 1.0))]
    pieces = [laws(200), laws(150)]
    old = [_old_beyond(p, limited) for p in pieces]
    assert 0 < sum(len(r) for r, _ in old) < 300  # (some beyond and fitting at SLOWEST)
    assert any(np.any((y > local.SLOWEST) & (y < 0.99)) for _, y in old)
    for p, (rows, y) in zip(pieces, old, strict=True):
        new_rows, taken = local.candidates(p, limited)
        new_y = local.speedups(taken)
        assert np.array_equal(new_rows, rows) and np.array_equal(new_y, y)
    found = [local.candidates(p, limited) for p in pieces]
    together = local.speedups(local.joined([taken for _, taken in found]))
    assert np.array_equal(np.concatenate([r for r, _ in found]),
                          np.concatenate([r for r, _ in old]))
    assert np.array_equal(together, np.concatenate([y for _, y in old]))


def test_the_samplings_are_interpolated_a_range_at_a_time_together(monkeypatch):
    """``optimal._ranges`` (``_beyond``'s groups): every sampling's samples along a chunk of
    the path, each once and in order, a range of the chunk at a time with every sampling's
    samples in it together, about ``2 local.ROWS`` to a range; ``between`` over a group
    puts several points in each interval (it makes each interval's control points once)
    and gives each point the same bits as its sampling interpolated alone."""
    from hodyn_cli.algorithms.limits.programme import SHARED, between
    from hodyn_cli.core.trajectory import Trajectory

    rng = np.random.default_rng(2)
    t = np.cumsum(rng.uniform(0.8e-3, 1.2e-3, 1201))
    q = np.cumsum(rng.normal(size=(1201, 5, 3)) * 1e-3, axis=0)
    path = Trajectory(("a", "b", "c"), q, t)
    step = 3 * np.mean(np.diff(t))  # (each sampling about one point to three intervals)
    taken = [(p, s, 10.0 + s) for p in range(16)
             for s in [np.arange(t[0] + p * step / 16, t[-1], step)]]
    monkeypatch.setattr(local, "ROWS", 256)
    groups = list(optimal._ranges(path, taken))
    total = sum(len(s) for _, s, _ in taken)
    assert len(groups) == total // 512 > 1
    for phase, s, u in taken:
        parts = [(a, b) for g in groups for p, a, b in g if p == phase]
        assert np.array_equal(np.concatenate([a for a, _ in parts]), s)
        assert np.array_equal(np.concatenate([b for _, b in parts]), u)
    for k, group in enumerate(groups):
        s = np.concatenate([s for _, s, _ in group])
        assert len({p for p, _, _ in group}) == 16  # (every sampling in every range)
        i = np.searchsorted(t, s, side="right") - 1
        assert len(s) >= SHARED * len(np.unique(i))
        if k in (0, len(groups) - 1):  # (the first range and the last, to the path's end)
            alone = np.concatenate([between(path, a) for _, a, _ in group])
            assert np.array_equal(between(path, s), alone)


SOLO12 = example_robot("solo_description/robots/solo12.urdf")


@pytest.mark.skipif(SOLO12 is None, reason="example-robot-data is not installed")
def test_a_law_shorter_than_one_output_step():
    """The Solo12 (welded) on `hodyn generate`'s 0.2 s cosine at 50 Hz: its joints sweep
    ~3 rad in 0.2 s, and its limits (URDF: 1000 N m) let it play in ~3 ms, shorter than one
    20 ms output step. The local slowing's samplings start later by a share of a step each:
    those starting after the law's end are no samplings (they made a NaN duration, an
    internal error); the output is its two samples, within every limit."""
    model = hodyn_cli.load_robot(SOLO12)
    traj = generate(model, "cosine", duration=0.2, rate=50.0)
    # (the rate asked: by default such a law is sampled finer, optimal.output_rate)
    out, opt = hodyn_cli.retime_optimal(model, traj, rate=50.0)
    assert out.t is not None and len(out.t) == 2 and out.t[-1] < 0.02
    assert np.isfinite(opt.duration) and opt.used == "reachability"
    assert hodyn_cli.check_limits(model, *[out.derivatives[:, k] for k in range(3)],
                                  t=out.t).feasible


class _Warped:  # (a played law's times, as Optimal.lazily reads them)
    def __init__(self, t: np.ndarray) -> None:
        self.t = t

    def times(self, a: int, b: int) -> np.ndarray:
        return self.t[a:b]

    @property
    def duration(self) -> float:
        return float(self.t[-1] - self.t[0])


class _Played:  # (reachability.Played's face to Optimal.lazily: one arc, one chunk)
    def __init__(self, traj) -> None:
        self.traj, self.orders, self.laws = traj, traj.orders, [(None, _Warped(traj.t), 0.0)]

    def __iter__(self):
        yield self.traj


@pytest.mark.parametrize("slower, lazy", [(1.0, True), (2.0, False)])
def test_a_lazy_fit_is_made_only_when_settled(monkeypatch, slower, lazy):
    """reachability's first fit of its played law (:meth:`Optimal.lazily`): where the
    output's samples at the law's own speed are beyond a limit by more than CLOSE (the
    iiwa's 1 s cosine is ~1.4 times too fast for its URDF limits), those samples' speed-up
    alone, no survey of the law's points and no resampling, the fit itself left to
    :meth:`Optimal.settled`, which makes it; where they are within CLOSE (played twice as
    slowly), the fit made at once (benchmarks/README.md, long13)."""
    model, fast, _ = iiwa_path(1.0, 50.0, orders=4)
    assert fast.t is not None
    traj = Trajectory(fast.joint_names, fast.derivatives / slower ** np.arange(4)[:, None],
                      fast.t * slower)
    made: list[optimal.Optimal] = []

    def fitted() -> optimal.Optimal:
        inner = api.time_optimal(model, uniform=True, rate=50.0)
        inner.fit(lambda: [traj], continuous=True)
        made.append(inner)
        return inner

    calls = []
    for name in ("_survey", "_resampled", "_fitted"):
        before = getattr(optimal.Optimal, name)

        def counted(self, *args, name=name, was=before, **kwargs):
            calls.append(name)
            return was(self, *args, **kwargs)

        monkeypatch.setattr(optimal.Optimal, name, counted)
    opt = api.time_optimal(model, uniform=True, rate=50.0)
    got = opt.lazily(_Played(traj), fitted)  # type: ignore[arg-type]
    if not lazy:
        assert made == [got] and got is not opt and got.pending is None
        assert calls == ["_fitted", "_survey", "_fitted"] + ["_resampled"] + ["_fitted"] * (
            len(calls) - 4)
        return
    assert got is opt and made == [] and calls == ["_fitted"]
    assert opt.path is not None and opt.final is not None and opt.pending is fitted
    assert np.all(opt.path.law.coefficients == 1.0) and opt.path.span == traj.t[-1]
    assert opt.consistent and opt.final.k > 1 + optimal.CLOSE
    assert opt.duration == pytest.approx(opt.final.k * opt.path.span, rel=1e-12)
    settled = opt.settled()
    assert made == [settled] and settled.pending is None and settled.consistent
    assert "_survey" in calls and "_resampled" in calls
    assert settled.duration < opt.duration  # (the law's uniform scaling: resampled at it)


def test_the_lazy_fit_s_samples_are_the_local_slowing_s_first_sampling(monkeypatch):
    """A fit left lazy (:meth:`Optimal.lazily`: the iiwa's 1 s cosine at 50 Hz, ~1.4 times
    too fast) made the dynamics of the output's samples at the law's own speed, which are
    the local slowing's first sampling (:meth:`Optimal._beyond`'s): kept
    (:attr:`Optimal.sampled`), they are read back, not played and made again, and the
    samples beyond with their speed-ups are the same arrays to the bit as made afresh."""
    model, traj, _ = iiwa_path(1.0, 50.0, orders=4)
    opt = api.time_optimal(model, uniform=True, rate=50.0)
    assert opt.lazily(_Played(traj), lambda: pytest.fail("not lazy")) is opt
    assert opt.path is not None and opt.sampled is not None
    K = opt.duration / opt.path.span
    moved, played = optimal._moved, []

    def counted(path, s, *args):
        played.append(len(s))
        return moved(path, s, *args)

    monkeypatch.setattr(optimal, "_moved", counted)
    read = opt._beyond(opt, _Played(traj), K)  # type: ignore[arg-type]
    kept, opt.sampled = sum(played), None
    made = opt._beyond(opt, _Played(traj), K)  # type: ignore[arg-type]
    assert read[0].size and all(np.array_equal(a, b) for a, b in zip(read, made, strict=True))
    assert sum(played) - 2 * kept == opt.path.samples + 1  # (the first sampling's samples)


@pytest.mark.slow
def test_the_first_fit_s_resamplings_left_to_the_local_slowing(monkeypatch, tmp_path):
    """``hodyn retime --optimal`` of the iiwa's Fourier path of 25 s at 200 Hz (5001
    samples, ``hodyn generate``) with its limits file: reachability's played law at its own
    speed is beyond a limit by more than CLOSE at the output's samples, so the local
    slowing runs, and its lowered law is kept: the first fit itself (its survey of the
    law's points, its resamplings: :meth:`Optimal.lazily`) is never made, and the output is
    the same to the bit as where it is (at 10^5 samples: a survey of 3 x 10^5 points and 4
    fits of the output's samples, benchmarks/README.md, long13); it keeps its limits and
    passes validate."""
    import h5py
    from test_optimal import IIWA
    from test_rates import IIWA_LIMITS
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    runner, src = CliRunner(), tmp_path / "f25.h5"
    made = runner.invoke(app, ["generate", str(IIWA), "--kind", "fourier", "--rate", "200",
                               "--duration", "25", "-o", str(src), "-q"])
    assert made.exit_code == 0, made.output
    lazily, survey = optimal.Optimal.lazily, optimal.Optimal._survey
    outputs, counts = [], []
    for lazy in (True, False):
        calls: list[int] = []

        def eager(self, motion, fitted, allowed=lazy):
            return lazily(self, motion, fitted) if allowed else fitted()

        def counted(self, chunks, *args, calls=calls):
            calls.append(1)
            return survey(self, chunks, *args)

        monkeypatch.setattr(optimal.Optimal, "lazily", eager)
        monkeypatch.setattr(optimal.Optimal, "_survey", counted)
        out = tmp_path / f"out{lazy}.h5"
        run = runner.invoke(app, ["retime", str(IIWA), str(src), "--optimal", "--limits",
                                  str(IIWA_LIMITS), "-o", str(out), "-q"])
        assert run.exit_code == 0, run.output
        counts.append(len(calls))
        with h5py.File(out) as f:
            outputs.append((float(f.attrs["duration"]), np.asarray(f["qdddd"])))
    assert counts[0] == counts[1] - 1, counts  # (the first fit's survey, left)
    assert outputs[0][0] == outputs[1][0]
    assert np.array_equal(outputs[0][1], outputs[1][1])
    out = str(tmp_path / "outTrue.h5")
    for args in (["check", str(IIWA), out, "--limits", str(IIWA_LIMITS)],
                 ["validate", str(IIWA), out]):
        run = runner.invoke(app, args + ["-q"])
        assert run.exit_code == 0, (args[0], run.output)


@pytest.mark.slow
def test_a_lazy_fit_that_raises_once_made_runs_reachability_again(monkeypatch, tmp_path):
    """The Panda's 3 s Fourier path at 200 Hz (``hodyn generate``) retimed at 50 Hz with its
    limits file (bench_optimal_rates.py's panda-fourier-50Hz), its first full fit failing
    (as where the resampled output fails validate) and reachability's first fit left lazy
    (as where the own-speed samples are beyond CLOSE: this path's were, 1.0008, until
    rates._trimmed put the played law on its limits; no bench input's is now): the fit made
    late (:meth:`Optimal.settled`) raises, and reachability runs once more without the lazy
    fit, whose output is the same to the bit as where no fit is left lazy (there the first
    kernel's fit raises in ``attempt``). The run again does not make the failed kernel's
    rounds again (``Optimal._failed``): as many rounds (``_rated`` calls) as where no fit is
    left lazy; before, one more (2.3 s of CPU against 1.7-2.0 s, review37). Nor the input's survey
    and reachability's passes (``Optimal._arcs``): the smoothings alone are tried again
    (``Optimal._smoothings``), the survey and the passes made once either way (before, twice
    where the fit was left lazy, and the passes' progress went back to 0)."""
    import h5py
    from test_rates import PANDA, PANDA_LIMITS
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app
    from hodyn_cli.errors import TrajectoryError

    runner, src = CliRunner(), tmp_path / "f3.h5"
    made = runner.invoke(app, ["generate", str(PANDA), "--kind", "fourier", "--rate", "200",
                               "--duration", "3", "-o", str(src), "-q"])
    assert made.exit_code == 0, made.output
    lazily, settled = optimal.Optimal.lazily, optimal.Optimal.settled
    smoothings_, outputs = optimal.Optimal._smoothings, []
    rated_, rounds = optimal.Optimal._rated, []
    survey_, solve_ = optimal.Optimal._survey, optimal.reachability.solve
    for lazy in (True, False):
        runs: list[bool] = []
        raised: list[type] = []
        made_once: list[str] = []  # (the input's survey, reachability's passes)
        rounds.append(0)

        def surveyed(self, *args, made_once=made_once, **kwargs):
            if not self.uniform:  # (the input's, not a fit's of a played law)
                made_once.append("survey")
            return survey_(self, *args, **kwargs)

        def solved(*args, made_once=made_once, **kwargs):
            made_once.append("passes")
            return solve_(*args, **kwargs)

        def rated(self, *args, **kwargs):
            rounds[-1] += 1
            return rated_(self, *args, **kwargs)

        def eager(self, motion, fitted, allowed=lazy, calls=[]):  # noqa: B006 - per run
            def failing():  # (the first fit made fails, as validate failed it)
                calls.append(1)
                if len(calls) == 1:
                    raise TrajectoryError("the resampled output fails validate (the test's)")
                return fitted()

            if not allowed:
                return failing()
            with monkeypatch.context() as m:  # (left lazy: as if beyond 1 + CLOSE)
                m.setattr(optimal, "CLOSE", -1.0)
                return lazily(self, motion, failing)

        def made_late(self, raised=raised):
            try:
                return settled(self)
            except TrajectoryError as e:
                raised.append(type(e))
                raise

        def counted(self, arcs, runs=runs):
            runs.append(self._lazy)
            return smoothings_(self, arcs)

        monkeypatch.setattr(optimal.Optimal, "lazily", eager)
        monkeypatch.setattr(optimal.Optimal, "settled", made_late)
        monkeypatch.setattr(optimal.Optimal, "_smoothings", counted)
        monkeypatch.setattr(optimal.Optimal, "_rated", rated)
        monkeypatch.setattr(optimal.Optimal, "_survey", surveyed)
        monkeypatch.setattr(optimal.reachability, "solve", solved)
        out = tmp_path / f"out{lazy}.h5"
        run = runner.invoke(app, ["retime", str(PANDA), str(src), "--optimal", "--limits",
                                  str(PANDA_LIMITS), "--rate", "50", "-o", str(out), "-q"])
        assert run.exit_code == 0, run.output
        assert (runs, raised) == (([True, False], [TrajectoryError]) if lazy else
                                  ([True], [])), (runs, raised)
        assert made_once == ["survey", "passes"], made_once
        with h5py.File(out) as f:
            assert f.attrs["solver"] == "reachability"
            outputs.append((float(f.attrs["duration"]), np.asarray(f["qdddd"])))
    assert outputs[0][0] == outputs[1][0]
    assert np.array_equal(outputs[0][1], outputs[1][1])
    assert rounds[0] == rounds[1] >= 2, rounds  # (the failed kernel's and the next one's)
