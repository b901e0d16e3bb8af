"""Reachability's smoothing and corners' ramps on fast motions (issue 37): their lengths
follow the motion's own time scale where its legs are shorter than the arms' they were
measured on (reachability.LEG), so that a motion played k times faster (limits of velocity k
and of torque k^2 times as large, the output k times as fine) is the same motion k times
shorter; and ``retime --optimal``'s notice says what they cost and, on a coarse output,
that a finer ``--rate`` shortens them. The planar 2R's point-to-point path through four
waypoints (two corners), without gravity (it does not scale with the motion's speed)."""

import re

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import URDF
from conftest import optimal_notice as notice
from hodyn_cli.algorithms.limits import optimal, reachability
from hodyn_cli.algorithms.limits.optimal import SPED
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.cli.app import app
from hodyn_cli.errors import HodynError
from hodyn_cli.io import write_trajectory

ROBOT = URDF / "planar_2r.urdf"
WAYPOINTS = np.array([[-0.6, 0.4], [0.5, -0.3], [-0.2, 0.6], [0.4, -0.5]])
NO_GRAVITY = (0.0, 0.0, 0.0)
#: reachability's grid (a piece's PIECE intervals at least: a coarser one is as cheap)
ARC_GRID = 400


def played(k: float, rate: float):
    """(model, output, optimal) of the path with limits of velocity 50 k rad/s and torque
    300 k^2 N m (legs of ~60 ms at k = 1: below LEG, so both copies scale their kernels)."""
    model = hodyn_cli.load_robot(ROBOT)
    path = generate(model, "point-to-point", waypoints=WAYPOINTS, segment_duration=[1.0],
                    rate=100.0)
    limits = {j: {"velocity": 50.0 * k, "torque": 300.0 * k * k} for j in model.joint_names}
    out, opt = hodyn_cli.retime_optimal(model, path, limits=limits, gravity=NO_GRAVITY,
                                        rate=rate, arc_grid=ARC_GRID)
    assert opt.used == "reachability"
    assert hodyn_cli.check_limits(model, out, limits=limits, gravity=NO_GRAVITY).feasible
    return model, out, opt


@pytest.fixture(scope="module")
def copies():
    """The path played within its limits at 1 kHz, and 100 times as fast at 100 kHz."""
    return played(1.0, 1e3), played(100.0, 1e5)


def test_a_motion_a_hundred_times_faster_is_the_same_motion_a_hundred_times_shorter(copies):
    """Time-scaling invariance: the fast copy's law (legs of 0.6 ms) is the slow one's (60
    ms) a hundred times shorter, to rounding, within 0.5 % of its passes' law before the
    smoothing, and validate passes both. (With the ramps' fixed rise of 0.5 ms, the fast
    copy was 7.7 % longer than the slow one scaled.)"""
    (model, slow_out, slow), (_, fast_out, fast) = copies
    assert fast.duration * 100 == pytest.approx(slow.duration, rel=1e-9)
    assert fast.smoothed is not None and fast.duration < 1.005 * fast.smoothed.law
    for out in (slow_out, fast_out):
        report = hodyn_cli.validate_motion(model, out, gravity=NO_GRAVITY, samples=200)
        assert report.passed, [c for c in report.checks if c.status == "fail"]


def test_a_fine_outputs_notice_names_its_steps_and_no_finer_rate(copies, monkeypatch):
    """On an output finer than the kernel's floor the note names the output's steps and
    ramps, the seconds and share over the law before them, and asks for no finer rate
    (optimal.FINER 1: the kernel of the motion's own time scale, 0.25 %). By default that of
    a time scale ten times shorter is kept, its rests warped (an output coarser than its
    floor) and the warps followed by the played points (reachability.NEAR; gaps17): 0.03 %,
    below NOTED, and the notice says none (0.25 % before, the own kernel kept)."""
    (_, _, default), _ = copies
    assert default.smoothing_note is None
    monkeypatch.setattr(optimal, "FINER", 1.0)
    _, _, slow = played(1.0, 1e3)
    note = slow.smoothing_note
    assert slow.smoothed is not None and note is not None
    cost = slow.duration - slow.smoothed.law
    assert note.startswith("its smoothing (1 ms either side: 1 output step) and its "
                           "corners' ramps (")
    assert (f"cost {cost:.3g} s, {100 * cost / slow.smoothed.law:.2f} % over reachability's "
            f"law before them ({slow.smoothed.law:.6g} s)") in note
    assert "--rate" not in note and note == note.rstrip(" ;:,(")


@pytest.mark.slow  # (~2 s of CPU: two retimes of which the first tries two kernels' sets)
def test_a_motion_within_an_output_step_is_played_by_its_own_kernel(monkeypatch):
    """At 500 Hz the fast copy (1.9 ms) is sampled at its rests alone (two samples). Its own
    kernels failed validate there and the arms' played it (2.10 ms, 11 % slower than its
    passes' law); with the rests at its ends warped (tests/test_rest_start.py) its own
    narrowest kernel passes: within 0.5 % of that law (0.25 %; 0.014 % with the narrowest of
    a time scale ten times shorter, optimal.FINER), shorter than the arms'
    kernels', within its limits and passing validate."""
    model, out, own = played(100.0, 500.0)
    monkeypatch.setattr(reachability, "scale_of", lambda pieces: 1.0)
    _, _, arms = played(100.0, 500.0)
    assert own.smoothed is not None and own.duration < 1.005 * own.smoothed.law
    assert own.duration < arms.duration
    assert hodyn_cli.validate_motion(model, out).passed


def test_a_coarse_outputs_notice_says_what_the_smoothing_cost_and_that_a_finer_rate_helps(
        tmp_path, monkeypatch):
    """At 20 Hz the kernel's steps are 200 Hz's: the notice says so, what the smoothing and
    the ramps cost over the law before them, and that a --rate above 200 Hz smooths over the
    output's own steps; the seconds are the output's duration less that law's. (One step,
    0.15 %: three before the rests at the motion's ends were warped, validate failing the
    narrower ones, with the words that it needed the law's turns at its rests to span more
    of a step: tests/test_rest_start.py.) That kernel is kept where the one of a time scale
    ten times shorter is not tried (optimal.FINER 1: the same); tried, as it is by default
    where the smoothing costs NOTED or more, it is kept: shorter, its cost below NOTED, and
    the notice says none."""
    model = hodyn_cli.load_robot(ROBOT)
    src, out = tmp_path / "p2p.h5", tmp_path / "fast.h5"
    write_trajectory(str(src), generate(model, "point-to-point", waypoints=WAYPOINTS[:3],
                                        segment_duration=[1.0], rate=20.0))
    # (--rate 20: the law lasts 8.8 of its steps, and by default its output would be raised
    # to 500 Hz, optimal.SHORT_STEPS; this notice is the 20 Hz output's)
    finer = notice(CliRunner().invoke(app, ["retime", str(ROBOT), str(src), "--optimal",
                                            "--rate", "20", "-o", str(tmp_path / "finer.h5")]),
                   src)
    monkeypatch.setattr(optimal, "FINER", 1.0)
    line = notice(CliRunner().invoke(app, ["retime", str(ROBOT), str(src), "--optimal",
                                           "--rate", "20", "-o", str(out)]), src)
    assert ("; its smoothing (5 ms either side: 1 step of 5 ms, as on an output at 200 Hz) "
            "and its corners' ramps (0.5 ms) and final fit cost ") in line
    duration = float(line.partition(f"{src}: ")[2].partition(" s along")[0])
    said = re.search(r"final fit cost (\S+) s, (\S+) % over reachability's law before them "
                     r"\((\S+) s\)", line)
    assert said is not None, line
    cost, share, law = map(float, said.groups())
    assert cost == pytest.approx(duration - law, rel=6e-3)  # (3 digits)
    assert share == pytest.approx(100 * cost / law, abs=0.01)
    assert line.endswith("; a --rate above 200 Hz smooths it over the output's own steps")
    with h5py.File(out) as f:  # (the output records the notice's words)
        assert "; " + f.attrs["smoothing_note"] in line
    shorter = float(finer.partition(f"{src}: ")[2].partition(" s along")[0])
    assert law < shorter < law * (1 + optimal.NOTED) < duration
    assert "its smoothing" not in finer


@pytest.mark.slow  # (~4 s of CPU: the 10 kHz output's 100 samples of three 3.3 ms legs)
@pytest.mark.parametrize("rate", [1e3, 1e4])
def test_the_finger_edus_point_to_point_path_is_within_half_a_percent_of_toppra(rate):
    """The TriFinger's finger_edu (1000 rad/s, 1000 N m: example-robot-data) through four
    waypoints (the sweep's ``finger:p2p``, benchmarks/stranger_optimal.py), given at 1 and
    10 kHz: toppra (0.6, 4000 intervals a leg) crosses its three straight legs in 9.9961
    ms; with the ramps' 0.5 ms rise and 1-2 output steps of smoothing it was 10.99 ms and
    10.83 ms (10 % and 8.4 % slower), with both scaled by its 3.3 ms legs within 0.5 %, the
    output within its limits and passing validate."""
    from test_base_parameters import public_robot
    from test_reachability import _kept_and_consistent

    model = hodyn_cli.load_robot(public_robot("finger_edu_description/robots/finger_edu.urdf"))
    low, high = model.limits[:, 0], model.limits[:, 1]
    turns = np.array([[-0.3, 0.2, -0.2], [0.25, -0.15, 0.3], [-0.1, 0.25, -0.25],
                      [0.2, -0.2, 0.15]])
    waypoints = (low + high) / 2 + np.minimum((high - low) / 2, np.pi) * turns
    path = generate(model, "point-to-point", waypoints=waypoints,
                    segment_duration=[1.0 if rate < 1e4 else 0.5], rate=rate)
    out, opt = hodyn_cli.retime_optimal(model, path)
    assert opt.used == "reachability"
    assert opt.duration < 1.005 * 9.9961e-3, opt.duration
    _kept_and_consistent(model, out, 200)


def test_a_law_shorter_than_an_output_step_has_its_rests_warped_for_the_step_it_spans():
    """At 200 Hz the fast copy's first leg alone (0.83 ms, a sixth of a step) is sampled at
    its two rests: its rests' warps give them the jerk that validate's judgement of q' over
    that one step of 0.83 ms needs (reachability.played), and reachability's law is played
    (0.03 % over its passes' law), within its limits and passing validate. (Sized for the
    output's 5 ms step, they gave it 3 % of that: validate failed every smoothing.)"""
    model = hodyn_cli.load_robot(ROBOT)
    path = generate(model, "point-to-point", waypoints=WAYPOINTS[:2], segment_duration=[1.0],
                    rate=100.0)
    limits = {j: {"velocity": 5e3, "torque": 3e6} for j in model.joint_names}
    out, opt = hodyn_cli.retime_optimal(model, path, limits=limits, gravity=NO_GRAVITY,
                                        rate=200.0, arc_grid=ARC_GRID)
    assert opt.used == "reachability" and out.n_samples == 2
    assert opt.smoothed is not None and opt.duration < 1.005 * opt.smoothed.law
    assert hodyn_cli.check_limits(model, out, limits=limits, gravity=NO_GRAVITY).feasible
    assert hodyn_cli.validate_motion(model, out, gravity=NO_GRAVITY).passed


def test_a_law_shorter_than_a_few_output_steps_asks_for_a_finer_rate(monkeypatch):
    """The same leg with its rests' warps giving a quarter of the jerk that validate needs
    there (reachability.MARGIN 0.5, not 2; at 1 a straight leg's error is on its tolerance)
    passes validate at no smoothing, its own or the arms': the reason says how few of the
    output's steps its law lasts and asks for a finer --rate."""
    monkeypatch.setattr(reachability, "MARGIN", 0.5)
    model = hodyn_cli.load_robot(ROBOT)
    path = generate(model, "point-to-point", waypoints=WAYPOINTS[:2], segment_duration=[1.0],
                    rate=100.0)
    limits = {j: {"velocity": 5e3, "torque": 3e6} for j in model.joint_names}
    with pytest.raises(HodynError, match=(
            r"reachability's law fails hodyn validate at every smoothing tried: its law lasts "
            r"0\.000834 s, 0\.17 of the output's steps at 200 Hz \(a finer --rate\)")):
        hodyn_cli.retime_optimal(model, path, limits=limits, gravity=NO_GRAVITY, rate=200.0,
                                 arc_grid=ARC_GRID, solver="reachability")


@pytest.mark.parametrize("uniform", [True, False], ids=["to-limits", "optimal"])
def test_an_output_coarser_than_the_motion_is_at_most_fit_faster_than_the_uniform_scaling(
        uniform, monkeypatch):
    """A motion of 0.83 ms at its limits resampled at 200 Hz: two samples, both at its rests,
    where nothing limits its speed (but rounding in q'). ``--to-limits --rate`` and
    ``--optimal``'s fallback to the uniform scaling (reachability's law failing validate:
    its rests' warps giving a quarter of the jerk it needs, reachability.MARGIN 0.5) play it
    at most FIT faster than the uniform scaling found on the input's samples, as every final
    fit (they gave 1.3e-13 s and 6.9e-14 s on the finger_edu's point-to-point path at 20 Hz,
    its torques "on their limits" at the second sample)."""
    monkeypatch.setattr(reachability, "MARGIN", 0.5)
    model = hodyn_cli.load_robot(ROBOT)
    path = generate(model, "point-to-point", waypoints=WAYPOINTS[:2], segment_duration=[1.0],
                    rate=100.0)
    limits = {j: {"velocity": 5e3, "torque": 3e6} for j in model.joint_names}
    fastest, _, _ = hodyn_cli.retime(model, path, limits=limits, gravity=NO_GRAVITY)
    opt = hodyn_cli.api.time_optimal(model, limits, gravity=NO_GRAVITY, rate=200.0,
                                     uniform=uniform, arc_grid=None if uniform else ARC_GRID)
    opt.fit(lambda: [path])
    out = np.concatenate([piece.t for piece in opt.retimed([path])])
    assert uniform or opt.used == "uniform"
    uniform_duration = fastest.t[-1] - fastest.t[0]
    assert SPED * uniform_duration * (1 - 1e-12) <= opt.duration <= uniform_duration
    assert out[-1] - out[0] == pytest.approx(opt.duration, rel=1e-12)


def _exact_at_rests(between):
    """``between`` whose derivatives of rounding's size (1e-9 of their column's largest or
    less) are 0: an interpolation exact at the rests, as a Hermite set-up equal to 1e-13 but
    not to the bit made it (the output's two samples at its rests then see no limit at all)."""
    def exact(path, s):
        q = np.array(between(path, s))
        d = q[:, 1:]
        d[np.abs(d) <= 1e-9 * np.abs(path.derivatives[:, 1:]).max(axis=0)] = 0.0
        return q
    return exact


@pytest.mark.parametrize("how", [["--to-limits"], ["--optimal", "--grid", "8"]],
                         ids=["to-limits", "optimal"])
def test_an_output_whose_samples_see_no_limit_is_the_uniform_scaling_at_most_fit_faster(
        how, tmp_path, monkeypatch):
    """The 0.83 ms motion above, its output's two samples at its rests interpolated exactly
    (derivatives 0, not rounding): nothing limits the speed there. ``--to-limits --rate`` and
    ``--optimal --rate`` (its fallback to the uniform scaling, reachability's law failing
    validate with its rests' warps' reachability.MARGIN 0.5; the windows' grid the
    coarsest, as cheap) play it at the plan's own bound, the uniform scaling on the input's
    samples, FIT faster, as every final fit and as without the perturbation: within its
    limits (``hodyn check``). (Both exited 2, "the motion never moves", raised by the final
    fit on the output's samples. Two samples at rests, q moving 1.1 rad between them, fail
    ``hodyn validate``'s qd against q's differences with or without it: the notice asks
    for a finer --rate.)"""
    from hodyn_cli.algorithms.limits import optimal

    monkeypatch.setattr(reachability, "MARGIN", 0.5)

    model = hodyn_cli.load_robot(ROBOT)
    path = generate(model, "point-to-point", waypoints=WAYPOINTS[:2], segment_duration=[1.0],
                    rate=100.0)
    limits = {j: {"velocity": 5e3, "torque": 3e6} for j in model.joint_names}
    fastest, _, _ = hodyn_cli.retime(model, path, limits=limits, gravity=NO_GRAVITY)
    uniform_duration = fastest.t[-1] - fastest.t[0]
    src, out, toml = tmp_path / "in.h5", tmp_path / "out.h5", tmp_path / "limits.toml"
    write_trajectory(str(src), path)
    toml.write_text("".join(f"[joints.{j}]\nvelocity = 5e3\ntorque = 3e6\n"
                            for j in model.joint_names))
    monkeypatch.setattr(optimal, "between", _exact_at_rests(optimal.between))
    gravity = ["--gravity", "0,0,0"]
    run = CliRunner().invoke(app, ["retime", str(ROBOT), str(src), *how, "--rate", "200",
                                   "--limits", str(toml), *gravity, "-o", str(out)])
    assert run.exit_code == 0, run.output
    with h5py.File(out) as f:
        t, qd = f["t"][:], f["qd"][:]
    assert len(t) == 2 and not qd.any()  # (at its rests, exactly)
    assert t[-1] - t[0] == pytest.approx(SPED * uniform_duration, rel=1e-12)
    check = CliRunner().invoke(app, ["check", str(ROBOT), str(out), "--limits", str(toml),
                                     *gravity])
    assert check.exit_code == 0, check.output
