"""A continuous joint's angle that a log wraps into (-pi, pi]: the retiming plays the path
through it as validate reads it, unwrapped (hodyn_cli.algorithms.motion.turns). Before,
``retime --optimal`` and ``--to-limits --rate`` refused such a file ("qd_wrist_roll does
not follow from q_wrist_roll") that validate passed. The gripper arm's wrist roll turns
through 6 rad on a point-to-point path."""

from dataclasses import replace

import numpy as np
import pytest
from test_joint_models import URDF_JOINTS

import hodyn_cli
from conftest import URDF, hodyn_here, mimic_urdf
from hodyn_cli.algorithms.motion.differences import Differences
from hodyn_cli.algorithms.motion.group_estimate import Charts
from hodyn_cli.algorithms.motion.turns import Turns, unwrapping, wrapped_columns
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.algorithms.verification.validate import Scan
from hodyn_cli.api.estimation import derivative_stream
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.urdf import parse_model

ROBOT = URDF / "gripper_arm.urdf"
WRIST = 3  # wrist_roll, the arm's continuous joint


@pytest.fixture(scope="module")
def paths():
    """(model, the path, the same path with the wrist's angle wrapped)."""
    model = hodyn_cli.load_robot(ROBOT)
    waypoints = np.array([[0.0, 0.0, 0.05, 0.0, 0.01, 0.01], [0.5, 0.3, 0.1, 6.0, 0.02, 0.02]])
    path = generate(model, "point-to-point", waypoints=waypoints, segment_duration=[3.0],
                    rate=50.0)
    d = path.derivatives.copy()
    d[:, 0, WRIST] = np.angle(np.exp(1j * d[:, 0, WRIST]))
    assert np.abs(np.diff(d[:, 0, WRIST])).max() > 6  # (it does wrap)
    return model, path, Trajectory(path.joint_names, d, path.t)


def test_a_wrapped_continuous_joint_is_retimed_as_its_unwrapped_path(paths):
    model, path, wrapped = paths
    out, opt = hodyn_cli.retime_optimal(model, path)
    out_w, opt_w = hodyn_cli.retime_optimal(model, wrapped)
    assert opt_w.duration == pytest.approx(opt.duration, rel=1e-9)
    scale = np.abs(out.derivatives).max(axis=(0, 2))  # (per order: the rounding of the
    # unwrapped angle, 1e-16 of a turn, moves the law's fit by ~1e-9 of each order's peak)
    assert (np.abs(out_w.derivatives - out.derivatives).max(axis=(0, 2)) < 1e-7 * scale).all()
    assert out_w.derivatives[-1, 0, WRIST] == pytest.approx(6.0)  # (the angle goes on)
    assert hodyn_cli.validate_motion(model, out_w, samples=100).passed


def test_turns_are_the_same_for_any_chunking():
    rng = np.random.default_rng(3)
    angle = np.cumsum(rng.uniform(-3.0, 3.0, 400))  # steps below pi: it unwraps exactly
    q = np.stack([np.angle(np.exp(1j * angle)), angle], axis=1)
    whole = Turns(np.array([True, False]))(q)
    turns = Turns(np.array([True, False]))
    parts = np.concatenate([turns(part) for part in np.array_split(q, [1, 2, 57, 300])])
    assert np.array_equal(parts, whole)
    np.testing.assert_allclose(whole[:, 0], angle - 2 * np.pi * round((angle[0] - q[0, 0])
                                                                        / (2 * np.pi)),
                               atol=1e-12)


def test_turns_at_a_chunk_boundary_on_the_wrap_and_from_plus_or_minus_pi(paths):
    """A motion whose first sample is at +pi or -pi, wrapped, turning on through it: its
    angles as they were (no turn added at the start), cut into chunks exactly where it wraps
    (the wrap's step between one chunk's last sample and the next's first) or anywhere; and
    ``unwrapping`` counts afresh at each reading (a second reading the same chunks)."""
    model, path, wrapped = paths
    for angle in (np.linspace(np.pi, np.pi + 1.0, 11), np.linspace(-np.pi, -np.pi - 1.0, 11)):
        q = np.angle(np.exp(1j * angle))[:, None]
        assert q[0, 0] == pytest.approx(angle[0]) and np.abs(np.diff(q[:, 0])).max() > 6
        at = int(np.argmax(np.abs(np.diff(q[:, 0])) > np.pi)) + 1  # (the first sample past)
        for cuts in ([], [at], [1, at], [at, at + 1], [at, at]):  # (an empty chunk too)
            turns = Turns(np.array([True]))
            got = np.concatenate([turns(part) for part in np.split(q, cuts)])
            np.testing.assert_allclose(got[:, 0], angle, rtol=0, atol=1e-12)
    cut = int(np.argmax(np.abs(np.diff(wrapped.derivatives[:, 0, WRIST])) > np.pi)) + 1
    parts = [Trajectory(wrapped.joint_names, wrapped.derivatives[a:b], wrapped.t[a:b])
             for a, b in ((0, cut), (cut, wrapped.n_samples))]
    chunks = unwrapping(lambda: parts, wrapped_columns(model))
    for _ in range(2):
        again = np.concatenate([c.derivatives for c in chunks()])
        np.testing.assert_allclose(again, path.derivatives, rtol=0, atol=1e-12)


def test_differences_judge_a_wrapped_angle_unwrapped(paths):
    """The consistency check (validate's and the retiming's) on the wrapped file, chunked:
    the same errors as on the unwrapped one."""
    _, path, wrapped = paths
    plain, unwrapped = Differences(), Differences(np.eye(6, dtype=bool)[WRIST])
    for a, b in ((0, 40), (40, 41), (41, path.n_samples)):
        plain.add(path.derivatives[a:b], path.t[a:b], a)
        unwrapped.add(wrapped.derivatives[a:b], wrapped.t[a:b], a)
    assert plain.err is not None and unwrapped.err is not None
    np.testing.assert_allclose(unwrapped.err, plain.err, rtol=1e-6, atol=1e-12)


def test_the_uniform_scaling_resampled_reads_a_wrapped_angle_unwrapped(paths, tmp_path):
    """``retime --to-limits --rate`` (docs/feasibility.md says it unwraps too): the wrapped
    file gives the unwrapped one's output, its k and every column (the angle going on to
    6 rad), to rounding."""
    import h5py
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app
    from hodyn_cli.io import write_trajectory

    _, path, wrapped = paths
    outs = []
    for name, traj in (("plain", path), ("wrapped", wrapped)):
        write_trajectory(str(tmp_path / f"{name}.h5"), traj)
        out = tmp_path / f"{name}_out.h5"
        r = CliRunner().invoke(app, ["retime", str(ROBOT), str(tmp_path / f"{name}.h5"),
                                     "--to-limits", "--rate", "50", "-o", str(out)])
        assert r.exit_code == 0, r.output
        with h5py.File(out) as f:
            outs.append(({k: f[k][()] for k in f.keys()}, float(f.attrs["duration"])))
    (plain, duration), (got, again) = outs
    assert again == duration and got.keys() == plain.keys()
    for key, column in plain.items():
        np.testing.assert_allclose(got[key], column, rtol=0,
                                   atol=1e-9 * max(np.abs(column).max(), 1.0), err_msg=key)
    assert got["q"][-1, WRIST] == pytest.approx(6.0)


def test_one_list_says_which_columns_wrap_for_every_joint_type():
    """``wrapped_columns``: a continuous joint's q and a planar joint's heading theta, nothing
    else (a revolute or helical joint's q, a free joint's rotation vector and position, the
    planar joint's x and y), over the trajectory's columns; validate's consistency checks
    (the 1-DOF joints' q, the planar pose) and the estimation's charts read the same list.
    Before, the retiming's list left the planar theta out (with multi-DOF joints it marked
    continuous joints alone) where validate's and the charts' had it."""
    model = parse_model(URDF_JOINTS.encode())  # (revolute, free, planar, continuous)
    wrap = wrapped_columns(model)
    assert [n for n, w in zip(model.coordinate_names, wrap, strict=True) if w] == [
        "slide_wz", "wrist"]
    scan = Scan(model, 10)
    assert scan.q.turns is not None and scan.q.turns.wrapped.tolist() == [False, True]
    planar = next(p for p in scan.poses if p.kind == "planar")
    assert planar.p is not None and planar.p.turns is not None
    assert planar.p.turns.wrapped.tolist() == wrap[7:10].tolist() == [False, False, True]
    charts = Charts(model)  # (the free joint's chart: a quaternion and its position)
    assert [n for n, w in zip(charts.names, charts.wrapped, strict=True) if w] == [
        "slide_c2", "wrist"]


def test_with_mimic_joints_the_list_is_over_the_independent_joints(tmp_path):
    """A mimic finger: the trajectory's columns are the independent joints' (the wrist roll
    the 3rd); ``every``: the motion with the mimic joint written out, as validate reads it."""
    model = hodyn_cli.load_robot(mimic_urdf(tmp_path, "gripper_arm", "finger_right_joint",
                                            "finger_left_joint", 1.0, 0.0))
    assert wrapped_columns(model).tolist() == [False, False, False, True, False]
    assert wrapped_columns(model, every=True).tolist() == [False] * 3 + [True] + [False] * 2


def _spinning_base(speed: float = 5.0) -> tuple[Model, Trajectory, Trajectory]:
    """The mobile 2R's base spinning (x, y held; theta from 3 rad turning at ~``speed``
    rad/s) for 2 s at 100 Hz: (model, the motion, the same with theta wrapped into (-pi,
    pi]); tests/test_turns_fast.py's at 500 rad/s, 5 rad a sample."""
    model = hodyn_cli.load_robot(URDF / "mobile_2r.urdf")
    traj = generate(model, "cosine", derivatives=4, rate=100.0, duration=2.0)
    d, t = traj.derivatives.copy(), traj.t
    d[:, :, :2], d[:, 0, :2] = 0.0, [0.3, -0.2]
    d[:, :, 2] = np.stack([3.0 + speed * t + 0.5 * np.sin(2 * t), speed + np.cos(2 * t),
                           -2.0 * np.sin(2 * t), -4.0 * np.cos(2 * t), 8.0 * np.sin(2 * t)], 1)
    wrapped = d.copy()
    wrapped[:, 0, 2] = np.angle(np.exp(1j * d[:, 0, 2]))
    assert np.abs(wrapped[:, 0, 2]).max() <= np.pi < np.abs(d[:, 0, 2]).max()  # (it wraps)
    return model, replace(traj, derivatives=d), replace(traj, derivatives=wrapped)


def test_a_planar_joints_wrapped_heading_is_estimated_unwrapped():
    """``--estimate-derivatives`` on the mobile 2R's poses alone (its planar joint's groups,
    :mod:`~hodyn_cli.algorithms.motion.group_estimate`): theta written wrapped gives the
    rates of the unwrapped heading (the same to 1e-12; theta' its exact 5 + cos 2t to 1e-8),
    not a spike of 2 pi / h where it wraps."""
    model, whole, wrapped = _spinning_base()
    rates = []
    for traj in (whole, wrapped):
        stream = derivative_stream(model, [replace(traj, derivatives=traj.derivatives[:, :1])],
                                   3)
        stream.start()
        rates.append(np.concatenate([c.derivatives[:, 1] for c in stream]))
    assert np.abs(rates[1] - rates[0]).max() < 1e-12
    assert np.abs(rates[1][:, 2] - whole.derivatives[:, 1, 2]).max() < 1e-8


def test_a_planar_joints_wrapped_heading_through_retime(tmp_path):
    """The mobile 2R's base spinning, its heading theta written wrapped into (-pi, pi] (a
    CSV, as its pose is written): ``--optimal`` and ``--to-limits`` refuse the planar joint
    in one line whatever its heading (their limits' search reads 1-DOF joints only), and a
    time factor plays it as validate judges it, unwrapped: the output passes."""
    robot = URDF / "mobile_2r.urdf"
    model, _, wrapped = _spinning_base()
    path, out = tmp_path / "spin.csv", tmp_path / "out.csv"
    write_trajectory(str(path), wrapped, model=model)
    for option in ("--optimal", "--to-limits"):
        r = hodyn_here("retime", robot, path, option, "-o", out)
        assert r.returncode == 2 and not out.exists(), r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and "planar" in r.stderr, r.stderr
    r = hodyn_here("retime", robot, path, "--factor", "1.5", "-o", out)
    assert r.returncode == 0, r.stderr
    theta = np.genfromtxt(out, delimiter=",", names=True)["drive_theta"]
    assert np.abs(np.diff(theta)).max() > 6  # (as the input's, wrapped)
    r = hodyn_here("validate", robot, out, "--samples", "4")
    assert r.returncode == 0, r.stdout


def test_validate_path_reads_a_wrapped_input_unwrapped(paths, tmp_path):
    """``validate OUT --path IN`` on the wrapped file and its retiming (unwrapped, the angle
    going on to 6 rad): the angles continued in both as the retiming reads them, it passes
    (read raw, the output lay 6.28 rad off the input at the wrap)."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app
    from hodyn_cli.io import write_trajectory

    _, _, wrapped = paths
    src, out = tmp_path / "wrapped.h5", tmp_path / "out.h5"
    write_trajectory(str(src), wrapped)
    runner = CliRunner()
    r = runner.invoke(app, ["retime", str(ROBOT), str(src), "--to-limits", "--rate", "50",
                            "-o", str(out)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["validate", str(ROBOT), str(out), "--path", str(src), "--samples",
                            "20"])
    assert r.exit_code == 0 and "follows --path" in r.output, r.output
