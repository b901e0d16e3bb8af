"""hodyn generate: exact derivatives of every kind, limits, and validate on the results."""

import json

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import STENCIL, URDF
from hodyn_cli.algorithms.planning.generate import KINDS, check_limits, generate, rest_to_rest
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.urdf import load_model

runner = CliRunner()


@pytest.mark.parametrize("kind", KINDS)
def test_every_derivative_against_differences_of_the_one_below(robot, kind):
    name, _, model = robot
    D = 8
    traj = generate(model, kind, derivatives=D, seed=2, rate=200.0)
    h = 1 / 200.0
    N = traj.n_samples
    keep = np.ones(N - 8, dtype=bool)
    if kind == "point-to-point":  # derivatives above k = D jump at waypoints: skip stencils
        rest = np.flatnonzero(np.all(traj.derivatives[:, 1:] == 0, axis=(1, 2)))  # waypoints
        for w in rest:
            keep[max(0, w - 8) : w + 1] = False
    for d in range(1, D + 1):
        f = traj.derivatives[:, d - 1]
        fd = sum(STENCIL[i] * f[i : N - 8 + i] for i in range(9)) / h
        exact = traj.derivatives[4 : N - 4, d]
        scale = np.abs(exact).max() + 1e-300
        assert np.abs(fd - exact)[keep].max() <= 1e-6 * scale, (name, kind, d)


def test_defaults_stay_inside_the_limits_for_many_seeds(robot):
    _, _, model = robot
    for kind in KINDS:
        for seed in range(4):
            traj = generate(model, kind, seed=seed)
            check_limits(model, traj)  # raises on a violation
            assert traj.n_samples > 100 and np.ptp(traj.q, axis=0).max() > 0.01


def test_filtered_step_is_the_step_response_of_the_filter():
    """generate's filtered step against the filter itself: a chain of m first-order lags
    x' = A x + b u driven by a unit step from rest, x(t) = A^-1 (expm(A t) - I) b, whose
    output's derivatives are C A^j x for j < m (independent of the closed-form Erlang terms)."""
    from scipy.linalg import expm

    model = load_model(URDF / "iiwa14.urdf")
    m, step, D = 16, 0.5, 10
    traj = generate(model, "filtered-step", step=step, filter_order=m, derivatives=D)
    omega = 2 * m / traj.t[-1]
    A = omega * (np.eye(m, k=-1) - np.eye(m))
    b = np.zeros(m)
    b[0] = omega
    ts = traj.t[::25]
    x = np.array([np.linalg.solve(A, (expm(A * t) - np.eye(m)) @ b) for t in ts])  # (N, m)
    for j in range(D + 1):
        y = x @ np.linalg.matrix_power(A, j).T[:, -1] * step
        got = traj.derivatives[::25, j] - (traj.q[0] if j == 0 else 0)
        assert np.allclose(got, y[:, None], rtol=0, atol=1e-9 * max(1, np.abs(y).max())), j


def test_rest_to_rest_polynomials():
    for k in (1, 2, 3, 6):
        p = np.polynomial.Polynomial(rest_to_rest(k))
        assert p.degree() == 2 * k + 1
        assert abs(p(0.0)) < 1e-12 and abs(p(1.0) - 1) < 1e-12
        for d in range(1, k + 1):
            assert abs(p.deriv(d)(0.0)) < 1e-9 and abs(p.deriv(d)(1.0)) < 1e-9


def test_fourier_is_periodic_and_takes_coefficients(tmp_path):
    model = load_model(URDF / "iiwa14.urdf")
    traj = generate(model, "fourier", base_frequency=0.2, duration=5.0, derivatives=3)
    assert np.allclose(traj.derivatives[0], traj.derivatives[-1], atol=1e-9)  # one period
    coef = tmp_path / "c.json"
    coef.write_text(json.dumps({"iiwa_joint_2": {"a": [0.1, 0.0], "b": [0.0, 0.05]}}))
    out = tmp_path / "f.csv"
    result = runner.invoke(app, ["generate", str(URDF / "iiwa14.urdf"), "--kind", "fourier",
                                 "--harmonics", "2", "--coefficients", str(coef), "-o", str(out)])
    assert result.exit_code == 0, result.output
    back = read_trajectory(str(out), model, need=5)
    wf = 2 * np.pi * 0.1
    t = back.t
    q2 = 0.1 / wf * np.sin(wf * t) - 0.05 / (2 * wf) * np.cos(2 * wf * t)
    assert np.allclose(back.q[:, 1], q2, atol=1e-12) and np.allclose(back.q[:, 0], 0.0)
    coef.write_text(json.dumps({"iiwa_joint_2": {"a": [0.1]}}))
    result = runner.invoke(app, ["generate", str(URDF / "iiwa14.urdf"), "--kind", "fourier",
                                 "--harmonics", "2", "--coefficients", str(coef), "-o", str(out)])
    assert result.exit_code == 2 and "'a' needs 2 numbers" in result.stderr


def test_limit_violations_are_named_unless_allowed(tmp_path):
    out = tmp_path / "step.csv"
    args = ["generate", str(URDF / "iiwa14.urdf"), "--kind", "filtered-step", "--step", "5",
            "-o", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and not out.exists()
    err = result.stderr.strip()
    # the step starts at -2.5 rad: below joint 2's lower limit (-2.094) at t = 0
    assert err == (f"hodyn: error: {URDF / 'iiwa14.urdf'}: joint 'iiwa_joint_2' at t = 0 s: "
                   "q = -2.5 is beyond its lower limit -2.094 (--allow-limit-violation to write "
                   "it anyway)")
    result = runner.invoke(app, [*args, "--allow-limit-violation"])
    assert result.exit_code == 0 and out.exists()
    model = load_model(URDF / "iiwa14.urdf")
    too_fast = Trajectory(model.joint_names, np.array([[[0.0] * 7, [0.0, 2.0] + [0.0] * 5]]),
                          np.array([0.5]))
    with pytest.raises(HodynError, match="joint 'iiwa_joint_2' at t = 0.5 s: [|]qd[|] = 2 "
                                         "exceeds its velocity limit 1.5"):
        check_limits(model, too_fast)


@pytest.mark.parametrize("kind", KINDS)
def test_validate_passes_on_every_generated_file(tmp_path, kind):
    for robot in ("iiwa14", "gripper_arm"):
        out = tmp_path / f"{robot}_{kind}.h5"
        result = runner.invoke(app, ["generate", str(URDF / f"{robot}.urdf"), "--kind", kind,
                                     "--seed", "1", "-o", str(out)])
        assert result.exit_code == 0, result.output
        result = runner.invoke(app, ["validate", str(URDF / f"{robot}.urdf"), str(out),
                                     "--samples", "40"])
        assert result.exit_code == 0, result.output


def test_outputs_waypoints_and_compact(tmp_path):
    model = load_model(URDF / "planar_2r.urdf")
    wp = tmp_path / "wp.csv"
    wp.write_text("joint2,joint1\n0,0\n0.5,-0.3\n-0.2,0.4\n")
    out = tmp_path / "p.h5"
    result = runner.invoke(app, ["generate", str(URDF / "planar_2r.urdf"), "--kind",
                                 "point-to-point", "--waypoints", str(wp), "--segment-duration",
                                 "1.5,2", "--derivatives", "6", "--compact", "-o", str(out)])
    assert result.exit_code == 0, result.output
    with h5py.File(out) as f:
        assert f["q_derivatives"].shape == (351, 7, 2) and f.attrs["kind"] == "point-to-point"
    traj = read_trajectory(str(out), model, need=7)
    assert np.allclose(traj.q[[0, 150, 350]], [[0, 0], [-0.3, 0.5], [0.4, -0.2]], atol=1e-12)
    assert np.allclose(traj.derivatives[[0, 150, 350], 1:], 0.0, atol=1e-9)
    result = runner.invoke(app, ["generate", str(URDF / "planar_2r.urdf"), "--kind", "cosine",
                                 "--duration", "0.05"])
    assert result.exit_code == 0 and result.stdout.startswith("t,q_joint1,q_joint2,qd_joint1")
    assert len(result.stdout.splitlines()) == 7
    result = runner.invoke(app, ["generate", str(URDF / "planar_2r.urdf"), "--kind", "wave"])
    assert result.exit_code == 2 and "unknown kind 'wave'" in result.stderr


@pytest.mark.parametrize("rows, words", [
    ("0,0\n0.5,nan\n", ["column 'joint1', waypoint 2: value nan is not finite"]),
    ("0,0\n0.5,inf\n", ["column 'joint1', waypoint 2: value inf is not finite"]),
    ("0,0\n", ["need at least 2 waypoints (rows), got 1"])])
def test_bad_waypoints_are_one_line_naming_the_file(tmp_path, rows, words):
    """A NaN waypoint was an internal error (exit 3: the segment durations came out NaN);
    one waypoint named no file."""
    wp = tmp_path / "wp.csv"
    wp.write_text("joint2,joint1\n" + rows)
    out = tmp_path / "p.csv"
    out.write_text("kept")
    result = runner.invoke(app, ["generate", str(URDF / "planar_2r.urdf"), "--kind",
                                 "point-to-point", "--waypoints", str(wp), "-o", str(out)])
    assert result.exit_code == 2, result.output
    line, = result.stderr.strip().splitlines()
    assert line.startswith(f"hodyn: error: {wp}: ") and all(w in line for w in words), line
    assert out.read_text() == "kept"


@pytest.mark.parametrize("kind", KINDS)
def test_pieces_are_the_whole_motion(robot, kind):
    """hodyn generate writes the motion piece by piece: the pieces are the whole, bit for bit."""
    from hodyn_cli.algorithms.planning.generate import chunks

    _, _, model = robot
    whole = generate(model, kind, seed=3, rate=50.0)
    pieces = list(chunks(model, kind, 37, seed=3, rate=50.0))
    assert len(pieces) == -(-whole.n_samples // 37)
    assert np.array_equal(np.concatenate([p.derivatives for p in pieces]), whole.derivatives)
    assert np.array_equal(np.concatenate([p.t for p in pieces]), whole.t)


def chain_urdf(path, joints) -> str:
    """A serial chain of 0.3 m links, one per joint: (name, type, ``<limit>`` attributes or
    None, ``<mimic>`` attributes or None); written to ``path``, which is returned as str."""
    links = ['<link name="base"/>']
    parent = "base"
    for i, (name, kind, limit, mimic) in enumerate(joints):
        links.append(f'''<link name="l{i}"><inertial><origin xyz="0.15 0 0"/><mass value="1"/>
  <inertia ixx="0.01" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="l{i}"/>
  <origin xyz="0.3 0 0"/><axis xyz="0 {'1 0' if i % 2 else '0 1'}"/>
  {f"<limit {limit}/>" if limit else ""}{f"<mimic {mimic}/>" if mimic else ""}</joint>''')
        parent = f"l{i}"
    path.write_text(f'<robot name="chain">{"".join(links)}</robot>')
    return str(path)


@pytest.mark.parametrize("kind", KINDS)
def test_placeholder_limits_are_taken_as_absent(tmp_path, kind):
    """Issue 28.5 (iris.urdf: rotors limited to +-1e16 with velocity 0 gave q ~ 1.9e15 rad):
    limits no joint can have are absent, with one notice naming the joints, and the motion
    keeps its default amplitude (1 rad half range, as for a joint without limits)."""
    urdf = chain_urdf(tmp_path / "rotor.urdf", [
        ("arm", "revolute", 'lower="-1" upper="1" velocity="2" effort="10"', None),
        ("rotor", "revolute", 'lower="-1e+16" upper="1e+16" velocity="0" effort="0"', None),
        ("slide", "prismatic", 'lower="-1e9" upper="1e9" velocity="1" effort="10"', None)])
    model = load_model(urdf)
    assert np.isinf(model.limits[1:]).all() and np.isinf(model.velocity_limits[1])
    out = tmp_path / "m.h5"
    result = runner.invoke(app, ["generate", urdf, "--kind", kind, "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    notices = [line for line in result.stderr.splitlines() if "cannot be physical" in line]
    assert notices == ["hodyn: notice: limits that cannot be physical are taken as absent: "
                       "position range wider than 4 turns of 'rotor'; position range wider "
                       "than 1 km of 'slide'; velocity 0 of 'rotor'"]
    q = read_trajectory(str(out), model, need=1).q
    assert np.abs(q[:, 0]).max() <= 1 and 0.05 < np.abs(q[:, 1]).max() <= 1.0
    assert 0.005 < np.abs(q[:, 2]).max() <= 0.1   # a prismatic joint's default: 0.1 m


MIMIC_CHAIN = [  # the follower's -2 q_leader + 0.2 in [-0.6, 0.6] leaves the leader [-0.2, 0.4]
    ("leader", "revolute", 'lower="-1" upper="1" velocity="2" effort="10"', None),
    ("follower", "revolute", 'lower="-0.6" upper="0.6" velocity="0.5" effort="10"',
     'joint="leader" multiplier="-2" offset="0.2"'),
    ("other", "revolute", 'lower="-1" upper="1" velocity="2" effort="10"', None)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_leader_keeps_its_mimic_followers_inside_their_limits(tmp_path, kind, seed):
    """Issue 28.6 (pr2: 'r_gripper_r_parallel_root_joint ... beyond its lower limit 0'): the
    leader moves within its range intersected with its follower's mapped back through the
    mimic map, positions and velocities, and uses that range as a joint uses its own."""
    urdf = chain_urdf(tmp_path / "mimic.urdf", MIMIC_CHAIN)
    model = load_model(urdf)
    out = tmp_path / "m.h5"
    result = runner.invoke(app, ["generate", urdf, "--kind", kind, "--seed", str(seed),
                                 "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    traj = read_trajectory(str(out), model, need=2)
    leader = traj.q[:, 0]
    assert -0.2 - 1e-12 <= leader.min() and leader.max() <= 0.4 + 1e-12
    assert np.abs(traj.qd[:, 0]).max() <= 0.25 * (1 + 1e-9)
    assert np.ptp(leader) > 0.1   # it moves: the range is used, not abandoned
    follower = -2 * leader + 0.2
    assert np.abs(follower).max() <= 0.6 + 1e-12


def test_mimic_limits_that_leave_the_leader_no_room_are_named(tmp_path):
    """A follower whose limits no position of its leader meets: one line naming the file,
    both joints and the limits; a motion (waypoints) that takes a follower out of its
    limits: one line naming the file, the follower, the time and the limit."""
    chain = [MIMIC_CHAIN[0], ("follower", "revolute", 'lower="3" upper="4" velocity="1"',
                              'joint="leader" multiplier="1" offset="0"')]
    urdf = chain_urdf(tmp_path / "bad.urdf", chain)
    result = runner.invoke(app, ["generate", urdf, "--kind", "cosine", "-o",
                                 str(tmp_path / "m.csv")])
    assert result.exit_code == 2 and not (tmp_path / "m.csv").exists()
    assert result.stderr.strip() == (
        f"hodyn: error: {urdf}: joint 'follower' (q = 1.0 q_leader + 0.0) within its limits "
        "[3.0, 4.0] leaves its leader 'leader' no position within [-1.0, 1.0] and the other "
        "followers' limits")
    urdf = chain_urdf(tmp_path / "mimic.urdf", MIMIC_CHAIN)
    wp = tmp_path / "wp.csv"
    wp.write_text("leader,other\n0,0\n0.45,0\n")
    result = runner.invoke(app, ["generate", urdf, "--kind", "point-to-point", "--waypoints",
                                 str(wp), "-o", str(tmp_path / "m.csv")])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"hodyn: error: {urdf}: joint 'follower' at t = ")
    assert "beyond its lower limit -0.6" in result.stderr


def example_robot(relative: str):
    """A URDF of the example-robot-data package, or a skip when it is not installed."""
    import importlib.metadata
    from pathlib import Path

    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    return Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")) / relative


@pytest.mark.parametrize("kind", ["cosine", "fourier"])
def test_pr2_and_iris_get_their_motions(tmp_path, kind):
    """The robots of the issue: pr2 (mimic fingers whose followers' limits leave their
    leaders a single position) and iris (placeholder limits) generate and validate."""
    for relative in ("pr2_description/urdf/pr2.urdf", "iris_description/robots/iris.urdf"):
        urdf = example_robot(relative)
        out = tmp_path / "m.h5"
        result = runner.invoke(app, ["generate", str(urdf), "--kind", kind, "--duration", "2",
                                     "-o", str(out)])
        assert result.exit_code == 0, result.stderr
        result = runner.invoke(app, ["validate", str(urdf), str(out), "--samples", "10",
                                     "--method", "body-fixed"])
        assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("duration, message", [
    ("0", "--duration must be positive, got 0.0"),
    ("-2", "--duration must be positive, got -2.0"),
    ("0.001", "--duration 0.001 s is shorter than one sample interval at --rate 100.0 Hz "
              "(0.01 s)")])
def test_durations_too_short_are_refused_with_the_value_given(tmp_path, duration, message):
    """Issue 28.7: --duration 0 wrote the default 10 s; 0.001 was refused as 'got ... 0.0'."""
    out = tmp_path / "m.csv"
    result = runner.invoke(app, ["generate", str(URDF / "planar_2r.urdf"), "--kind", "cosine",
                                 "--duration", duration, "-o", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr.strip() == f"hodyn: error: {message}"
