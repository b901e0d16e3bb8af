"""A continuous joint turning by more than pi between samples (a rotor at 600 rad/s logged at
100 Hz: ~6 rad a sample): its turns are counted from the file's qd (and qdd), not from the
pi rule, which read each step over pi as a wrap (hodyn_cli.algorithms.motion.turns.Turns).
Before, validate failed such a log, wrapped or not ("qd vs time differences of q", relative
error ~1), ``retime --optimal`` refused it, and a mimic joint following the rotor was put at
another pose. A wrapped and an unwrapped log of the same motion now give the same results
per order, for any chunking."""

import h5py
import numpy as np
import pytest
from test_retime_wrapped import _spinning_base
from typer.testing import CliRunner

import hodyn_cli
from hodyn_cli.algorithms.motion.differences import Differences
from hodyn_cli.algorithms.motion.turns import Turns, wrapped_columns
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.urdf import parse_model
from hodyn_cli.pipeline.inputs import open_input

_INERTIA = '<inertia ixx="{0}" iyy="{0}" izz="{0}" ixy="0" ixz="0" iyz="0"/>'

#: an arm carrying a rotor (continuous, limited to 500 rad/s) and a disc that follows the
#: rotor at half its angle (a mimic joint: its pose needs the rotor's turns); both discs'
#: centres of mass off their axes, so the torques see their angles
ROTOR = (
    '<robot name="rotor"><link name="base"/>'
    f'<link name="arm"><inertial><origin xyz="0.2 0 0"/><mass value="1"/>{_INERTIA.format(0.01)}'
    '</inertial></link>'
    f'<link name="disc"><inertial><origin xyz="0 0.01 0.003"/><mass value="0.2"/>'
    f'{_INERTIA.format(0.001)}</inertial></link>'
    f'<link name="half"><inertial><origin xyz="0.01 0 0.02"/><mass value="0.1"/>'
    f'{_INERTIA.format(0.001)}</inertial></link>'
    '<joint name="arm" type="revolute"><parent link="base"/><child link="arm"/>'
    '<axis xyz="0 1 0"/><limit lower="-2" upper="2" velocity="3" effort="40"/></joint>'
    '<joint name="rotor" type="continuous"><parent link="arm"/><child link="disc"/>'
    '<origin xyz="0.4 0 0"/><axis xyz="1 0 0"/><limit velocity="500" effort="50"/></joint>'
    '<joint name="follower" type="continuous"><parent link="disc"/><child link="half"/>'
    '<origin xyz="0 0.05 0"/><axis xyz="0 0 1"/><limit velocity="1000" effort="50"/>'
    '<mimic joint="rotor" multiplier="0.5"/></joint></robot>')
SPIN = 1  # the rotor's column


def _motion(rate: float = 100.0, duration: float = 2.0) -> tuple[Trajectory, Trajectory]:
    """The arm swinging by 0.5 rad and the rotor spinning up from rest to 600 rad/s (q = a
    (t - sin(w t) / w) / 2, exact derivatives to q''''), and the same with the rotor's angle
    wrapped into (-pi, pi]."""
    t = np.arange(int(duration * rate) + 1) / rate
    w = np.pi / duration
    shape = np.stack([(t - np.sin(w * t) / w) / 2, (1 - np.cos(w * t)) / 2, w * np.sin(w * t) / 2,
                      w**2 * np.cos(w * t) / 2, -w**3 * np.sin(w * t) / 2], axis=1)
    d = shape[:, :, None] * np.array([0.5, 600.0])
    d[:, 0, 0] -= 0.2
    wrapped = d.copy()
    wrapped[:, 0, SPIN] = np.angle(np.exp(1j * d[:, 0, SPIN]))
    names = ("arm", "rotor")
    return Trajectory(names, d, t), Trajectory(names, wrapped, t)


@pytest.fixture(scope="module")
def motion():
    model = parse_model(ROTOR.encode())
    plain, wrapped = _motion()
    steps = np.abs(np.diff(plain.derivatives[:, 0, SPIN]))
    assert steps.max() > 5.9 and (steps > np.pi).sum() > 50  # (fast: no pi rule holds)
    return model, plain, wrapped


def _chunks(traj: Trajectory, cuts: list[int]) -> list[Trajectory]:
    edges = [0, *cuts, traj.n_samples]
    return [Trajectory(traj.joint_names, traj.derivatives[a:b], traj.t[a:b])
            for a, b in zip(edges[:-1], edges[1:], strict=True)]


CUTS = [[], [1], [97, 98], [50, 50, 51, 150]]  # (single samples, an empty chunk, anywhere)


@pytest.mark.parametrize("orders", [1, 2])
def test_the_turns_come_from_qd_and_qdd_for_any_chunking(motion, orders):
    """qd alone (the trapezoid rule) or with qdd (its end correction) brings back the plain
    angle from the wrapped one, cut anywhere; without them the pi rule reads the rotor's
    steps of ~6 rad as small steps backward, another angle."""
    _, plain, wrapped = motion
    wrap = np.array([False, True])
    for cuts in CUTS:
        turns = Turns(wrap)
        got = np.concatenate([turns(c.derivatives[:, 0], c.t, c.derivatives[:, 1:1 + orders])
                              for c in _chunks(wrapped, cuts)])
        np.testing.assert_allclose(got, plain.derivatives[:, 0], rtol=0, atol=1e-9)
    pi_rule = Turns(wrap)(wrapped.derivatives[:, 0])
    assert np.abs(pi_rule[:, SPIN] - plain.derivatives[:, 0, SPIN]).max() > 100


def test_a_fast_rotor_passes_validate_wrapped_or_not(motion):
    """validate (through the API, chunked anywhere) passes both logs with the same data
    checks; the rotor's consistency check is judged to ~1e-5 as the arm's is (was 1.05 and
    failed, wrapped or not); the retiming's check of its input (:class:`Differences`) the
    same errors."""
    model, plain, wrapped = motion
    reports = [hodyn_cli.validate_motion(model, chunks=_chunks(traj, [97, 98]), samples=10)
               for traj in (plain, wrapped)]
    assert all(r.passed for r in reports), [c.detail for r in reports for c in r.checks
                                            if c.status == "fail"]
    consistency = [{c.name: c.max_rel for c in r.checks if c.group == "data consistency"
                    and c.max_rel is not None}
                   for r in reports]
    assert consistency[0]["qd vs time differences of q"] < 1e-4
    assert consistency[1] == pytest.approx(consistency[0], rel=1e-6, abs=1e-12)
    errors = []
    for traj in (plain, wrapped):
        diffs = Differences(wrapped_columns(model))
        for start, chunk in zip([0, 97, 98], _chunks(traj, [97, 98]), strict=True):
            diffs.add(chunk.derivatives, chunk.t, start)
        errors.append(diffs.err)
    np.testing.assert_allclose(errors[1], errors[0], rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("rows", [1, 98, 1 << 14])
def test_the_follower_of_a_fast_rotor_is_read_at_its_pose(motion, tmp_path, rows):
    """Every command's input (chunks of any size): the wrapped rotor's angle continued as
    its rate says, so its half-speed follower sits where the plain log puts it (the pi rule
    put it half a turn off at each of its ~100 misread steps) and the torques are the same."""
    model, plain, wrapped = motion
    files = []
    for name, traj in (("plain", plain), ("wrapped", wrapped)):
        files.append(tmp_path / f"{name}.h5")
        write_trajectory(str(files[-1]), traj, model=model)
    read = []
    for path in files:
        with open_input(str(path), model, 5, chunk=rows) as source:
            read.append(np.concatenate([c.derivatives for c in source]))
    np.testing.assert_allclose(read[1], read[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(read[0], plain.derivatives, rtol=0, atol=1e-12)


def test_compute_and_to_limits_give_the_same_outputs_for_both_logs(motion, tmp_path):
    """``compute`` (the follower's pose in the torques) and ``retime --to-limits`` with and
    without ``--rate`` (the resampling plays the path through the rotor's angle): the
    wrapped log gives the plain one's outputs per order (q modulo the file's turns where
    the output carries the input's columns)."""
    model, plain, wrapped = motion
    outs: dict[str, list[dict]] = {}
    for name, traj in (("plain", plain), ("wrapped", wrapped)):
        src = tmp_path / f"{name}.h5"
        write_trajectory(str(src), traj, model=model)
        (tmp_path / "rotor.urdf").write_text(ROTOR)
        for task, args in (("tau", ["compute", "--order", "2"]),
                           ("k", ["retime", "--to-limits"]),
                           ("rate", ["retime", "--to-limits", "--rate", "100"])):
            out = tmp_path / f"{name}_{task}.h5"
            r = CliRunner().invoke(app, [args[0], str(tmp_path / "rotor.urdf"), str(src),
                                         *args[1:], "-o", str(out), "-q"])
            assert r.exit_code == 0, r.output
            with h5py.File(out) as f:
                outs.setdefault(task, []).append({k: f[k][()] for k in f.keys()})
    for task, (want, got) in outs.items():
        assert want.keys() == got.keys(), task
        for key, column in want.items():
            diff = got[key] - column
            if key == "q":  # (the input's columns, as it wrote them)
                diff = np.angle(np.exp(1j * diff))
            assert np.abs(diff).max() <= 1e-9 * max(np.abs(column).max(), 1.0), (task, key)
    assert np.abs(outs["k"][0]["qd"][:, SPIN]).max() <= 500 * (1 + 1e-9)  # (its limit holds)


def test_retime_optimal_plays_the_fast_rotor_as_it_turns(motion):
    """``retime --optimal`` (was refused: "qd_rotor does not follow from q_rotor"): the same
    law for both logs, every order, the rotor within its 500 rad/s, and the output passes
    validate."""
    model, plain, wrapped = motion
    out, opt = hodyn_cli.retime_optimal(model, plain)
    out_w, opt_w = hodyn_cli.retime_optimal(model, wrapped)
    assert opt_w.duration == pytest.approx(opt.duration, rel=1e-9)
    assert opt.duration > plain.t[-1] * 1.01  # (the rotor's speed limit binds)
    scale = np.abs(out.derivatives).max(axis=(0, 2))
    assert (np.abs(out_w.derivatives - out.derivatives).max(axis=(0, 2)) < 1e-7 * scale).all()
    assert np.abs(out.derivatives[:, 1, SPIN]).max() <= 500 * (1 + 1e-9)
    assert hodyn_cli.validate_motion(model, out_w, samples=10).passed


def test_a_planar_base_spinning_fast_is_judged_as_it_turns():
    """The mobile 2R's base spinning at ~500 rad/s at 100 Hz (5 rad a sample), its heading
    wrapped or not: its pose check's error is the trapezoid rule's, ~1e-7 (the pi rule
    made it 1.25, which the check's tolerance at that speed let pass)."""
    model, plain, wrapped = _spinning_base(500.0)
    for traj in (plain, wrapped):
        report = hodyn_cli.validate_motion(model, traj, samples=4)
        pose = next(c for c in report.checks if "(x, y, theta)" in c.name)
        assert report.passed and pose.max_rel < 1e-6, pose


def test_a_wheels_rates_in_degrees_are_still_named(motion):
    """The rotor at up to 20 rad/s (0.2 rad a sample), its qd, qdd, ... written in degrees:
    the rates would count turns of their own (11.5 rad a sample), so the degrees hint of
    validate's failing check reads the angle's steps as the pi rule counts them, as before."""
    model, plain, _ = motion
    d = plain.derivatives * np.array([1.0, 20.0 / 600.0])
    d[:, 1:, SPIN] = np.degrees(d[:, 1:, SPIN])
    report = hodyn_cli.validate_motion(model, Trajectory(plain.joint_names, d, plain.t),
                                       samples=4)
    failed = next(c for c in report.checks if c.name == "qd vs time differences of q")
    assert failed.status == "fail" and failed.worst_joint == "rotor"
    assert "derivatives look like degrees, values like radians" in failed.detail, failed.detail


def test_qdd_s_end_correction_counts_the_turns_the_trapezoid_misses():
    """A quartic angle, q = t^4 at 1 Hz: the trapezoid rule on qd alone misses each step by
    2 a + 1 rad (its error ``-dt^2 / 12 (qdd1 - qdd0)``), more than half a turn from the
    second step on, so qd alone counts wrong turns there; with qdd's end correction the
    steps are exact (Turns.moved: exact for a quartic q), wrapped q comes back to the bit's
    rounding, cut anywhere. A correction of the wrong sign would double the error."""
    t = np.arange(8.0)
    d = np.stack([t**4, 4 * t**3, 12 * t**2], axis=1)[:, :, None]  # (N, 3, 1): q, qd, qdd
    wrapped = np.angle(np.exp(1j * d[:, 0]))
    wrap = np.array([True])
    for cuts in CUTS[:3]:
        edges = [0, *cuts, len(t)]
        turns = Turns(wrap)
        got = np.concatenate([turns(wrapped[a:b], t[a:b], d[a:b, 1:])
                              for a, b in zip(edges[:-1], edges[1:], strict=True)])
        np.testing.assert_allclose(got, d[:, 0], rtol=0, atol=1e-9)
    qd_alone = Turns(wrap)(wrapped, t, d[:, 1:2])
    assert np.abs(qd_alone - d[:, 0]).max() > np.pi


def test_a_step_without_qdd_is_counted_from_qd_alone():
    """Where a log's qdd is NaN and its qd is not (a column filled by another source), the
    step's turns come from qd's trapezoid, not from the pi rule: the fast rotor at 600 rad/s
    and 100 Hz comes back with its qdd blanked on every other sample (each step then has one
    NaN end); before, those steps read ~6 rad as a small step backward."""
    plain, wrapped = _motion()
    rates = wrapped.derivatives[:, 1:3].copy()
    rates[::2, 1] = np.nan
    got = Turns(np.array([False, True]))(wrapped.derivatives[:, 0], wrapped.t, rates)
    np.testing.assert_allclose(got, plain.derivatives[:, 0], rtol=0, atol=1e-9)
