"""``hodyn generate`` on robots with ball, planar and free joints (issue 36, item 2): the
designed motions are exact on the joints' groups.

- every kind's rows are the body twist's derivatives of the written pose: ``skew(omega) =
  R^T R'`` and ``v = R^T p'`` by 8th-order central differences of R(t), p(t) on the samples,
  each higher row the difference of the row below, to order 4 (the chart's jets carried by
  Leibniz, :mod:`hodyn_cli.core.joint_jets`); the quaternion chart the same;
- the CSV that ``generate`` writes, through ``compute``, gives Pinocchio's ``rnea`` of the
  poses and rates in the file (read by Pinocchio's own URDF reader);
- what is not built is one line, exit 2, no output."""

from __future__ import annotations

import numpy as np
import pytest
from test_joint_models import MIXED, URDF_JOINTS, G, random_model

from conftest import STENCIL
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core import joint_jets, lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

RATE = 1000.0


def _poses(model: Model, traj: Trajectory, i: int) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) (N, 3, 3), (N, 3) of multi-DOF joint i from the trajectory's row 0."""
    from hodyn_cli.core.model import joint_pose

    o = model.dof_offsets
    return joint_pose(model.joint_types[i], model.X[i], traj.derivatives[:, 0, o[i]:o[i + 1]])


def assert_group_rates(model: Model, traj: Trajectory, centres: np.ndarray, label: str,
                       h: float = 1 / RATE) -> None:
    """Rows 1.. of every multi-DOF joint are the body twist of its pose and its derivatives
    (8th-order differences over the samples around ``centres``, spaced h)."""
    window = centres[:, None] + np.arange(-4, 5)
    o = model.dof_offsets
    for i, nv in enumerate(model.dofs):
        if nv == 1:
            continue
        R, p = _poses(model, traj, i)
        Rdot = np.einsum("s,nsij->nij", STENCIL, R[window]) / h
        pdot = np.einsum("s,nsi->ni", STENCIL, p[window]) / h
        W = np.swapaxes(R[centres], 1, 2) @ Rdot
        assert np.abs(W + np.swapaxes(W, 1, 2)).max() < 1e-9  # R^T R' is skew
        V = np.concatenate([np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=1),
                            np.einsum("nji,nj->ni", R[centres], pdot)], axis=1)
        rows = traj.derivatives[:, :, o[i]:o[i + 1]]
        first = V @ model.subspaces[i]
        scale = np.abs(rows[centres, 1]).max()
        assert scale > 1e-3, f"{label}: joint {i} does not move"
        assert np.abs(rows[centres, 1] - first).max() <= 1e-9 * scale, (label, i)
        for k in range(2, traj.orders):
            numeric = np.einsum("s,nsv->nv", STENCIL, rows[window, k - 1]) / h
            scale = np.abs(rows[centres, k]).max()
            assert scale > 1e-6, f"{label}: order {k} of joint {i} not excited"
            assert np.abs(rows[centres, k] - numeric).max() <= 1e-7 * scale, (label, i, k)


@pytest.mark.parametrize("kind", ["cosine", "fourier", "filtered-step", "point-to-point"])
def test_every_kind_is_exact_on_the_groups(kind):
    model = random_model(21, MIXED)
    options = dict(rate=RATE, derivatives=5, duration=1.0)
    if kind == "point-to-point":  # segments of 0.5 s: centres inside them
        options = dict(rate=RATE, derivatives=5, segment_duration=0.5, vanishing=5,
                       waypoints=np.random.default_rng(2).uniform(-1, 1, (3, model.nv)))
    if kind == "fourier":
        options["base_frequency"] = 1.0
    traj = generate(model, kind, **options)
    assert traj.joint_names == model.dof_names and traj.orders == 6
    centres = np.array([60, 170, 320, 440, 610, 760, 900])
    assert_group_rates(model, traj, centres, kind)
    if kind == "point-to-point":  # at rest at the waypoints: omega, v and 4 rates vanish
        assert np.abs(traj.derivatives[[0, 500, 1000], 1:]).max() < 1e-12
    poses = generate(model, kind, **{**options, "derivatives": 0})  # the same poses alone
    assert np.array_equal(poses.derivatives[:, 0], traj.derivatives[:, 0])


def test_the_quaternion_chart_is_exact_on_the_group():
    """A quaternion curve of any norm (what an interpolant of samples is) has the body
    angular velocity ``2 vec(conj(q) q') / |q|^2`` and its derivatives: the chart's rows
    against differences of its rotation; a planar joint's (x, y, theta) and a free joint's
    position alike."""
    t = 0.3 + np.arange(-4, 5)[None, :] / RATE + np.array([[0.0], [0.4], [0.9]])
    t = t.ravel()
    w = np.array([1.1, 2.3, 0.7, 1.9])
    jet = np.stack([np.sin(w * t[:, None] + np.arange(4) + k * np.pi / 2) * w ** k
                    for k in range(5)], axis=1) + np.array([2.0, 0, 0, 0]) * (np.arange(5) == 0
                                                                             )[:, None]
    jet *= 1.0  # (N, 5, 4): never zero (w component >= 1)
    model = random_model(3, ("spherical",))
    rows = joint_jets.joint_rows(model, 0, jet, quaternion=True)
    q = jet[:, 0] / np.linalg.norm(jet[:, 0], axis=1, keepdims=True)
    R = np.moveaxis(lie.quaternion_matrix(q.T), -1, 0)
    assert np.abs(lie.rotation_vector_exp(rows[:, 0]) - R).max() < 1e-12
    traj = Trajectory(model.dof_names, rows, t)
    assert_group_rates(model, traj, np.array([4, 13, 22]), "quaternion")


def test_generate_then_compute_is_pinocchios_rnea_of_the_file(tmp_path):
    """``hodyn generate`` of a URDF with floating and planar joints, its CSV through
    ``hodyn compute``: tau = pin.rnea of the poses and rates the file holds (Pinocchio's
    URDF reader; q from the file's R, p, x, y, theta columns)."""
    pin = pytest.importorskip("pinocchio")
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    robot = tmp_path / "joints.urdf"
    robot.write_text(URDF_JOINTS)
    motion, tau = tmp_path / "motion.csv", tmp_path / "tau.csv"
    run = CliRunner().invoke
    result = run(app, ["generate", str(robot), "--kind", "fourier", "--rate", "20",
                       "--duration", "1", "--derivatives", "2", "-o", str(motion), "--quiet"])
    assert result.exit_code == 0, result.output
    result = run(app, ["compute", str(robot), str(motion), "--order", "0", "-o", str(tau),
                       "--gravity", ",".join(map(str, G)), "--quiet"])
    assert result.exit_code == 0, result.output
    names = motion.read_text().splitlines()[0].split(",")
    table = np.loadtxt(motion, delimiter=",", skiprows=1)
    col = {name: table[:, names.index(name)] for name in names}
    pm = pin.buildModelFromUrdf(str(robot))
    pm.gravity = pin.Motion(np.array([*G, 0, 0, 0]))
    data = pm.createData()
    out = np.loadtxt(tau, delimiter=",", skiprows=1)
    tau_names = tau.read_text().splitlines()[0].split(",")
    # pin's velocity order: shoulder, hover (v; omega), slide (vx, vy, wz), wrist
    dofs = ["shoulder", "hover_vx", "hover_vy", "hover_vz", "hover_wx", "hover_wy", "hover_wz",
            "slide_vx", "slide_vy", "slide_wz", "wrist"]
    for s in range(len(table)):
        R = np.array([col[f"hover_R_{a}{b}"][s] for a in "123" for b in "123"]).reshape(3, 3)
        q = np.concatenate([[col["q_shoulder"][s]], [col[f"hover_p_{a}"][s] for a in "xyz"],
                            pin.Quaternion(R).coeffs(),
                            [col["slide_x"][s], col["slide_y"][s], np.cos(col["slide_theta"][s]),
                             np.sin(col["slide_theta"][s])],
                            [np.cos(col["q_wrist"][s]), np.sin(col["q_wrist"][s])]])
        v = np.array([col[f"qd_{d}"][s] for d in dofs])
        a = np.array([col[f"qdd_{d}"][s] for d in dofs])
        ref = pin.rnea(pm, data, q, v, a)
        got = np.array([out[s, tau_names.index(f"tau_{d}")] for d in dofs])
        assert np.abs(got - ref).max() <= 1e-9 * np.abs(ref).max(), s


def test_what_is_not_built_is_one_line(tmp_path):
    """HDF5 output (no datasets of joint poses) and --respect-limits --optimal with such a
    robot: one line, exit 2, nothing written; a 1-DOF joint's limit still holds; a --step per
    coordinate that does not count them is one line."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    robot = tmp_path / "joints.urdf"
    robot.write_text(URDF_JOINTS)
    limits = tmp_path / "limits.toml"
    limits.write_text("[joints.shoulder]\ntorque = 50.0\n")
    for extra in (["-o", str(tmp_path / "m.h5")],
                  ["-o", str(tmp_path / "m.csv"), "--respect-limits", str(limits), "--optimal"]):
        result = CliRunner().invoke(app, ["generate", str(robot), "--kind", "cosine", *extra])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert not any(tmp_path.glob("m.*"))
    waypoints = tmp_path / "w.csv"
    names = ("shoulder", "hover_wx", "hover_wy", "hover_wz", "hover_vx", "hover_vy", "hover_vz",
             "slide_vx", "slide_vy", "slide_wz", "wrist")
    waypoints.write_text(",".join(names) + "\n" + ",".join(["0"] * 11) + "\n"
                         + ",".join(["2.5"] + ["0.3"] * 10) + "\n")
    result = CliRunner().invoke(app, ["generate", str(robot), "--kind", "point-to-point",
                                      "--waypoints", str(waypoints), "-o",
                                      str(tmp_path / "m.csv")])
    assert result.exit_code == 2 and "joint 'shoulder'" in result.stderr, result.output
    result = CliRunner().invoke(app, ["generate", str(robot), "--kind", "filtered-step",
                                      "--step", "0.1,0.2", "-o", str(tmp_path / "m.csv")])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert "--step has 2 values" in result.stderr and "hover_wx" in result.stderr


# -- derivatives estimated on the groups --------------------------------------------------

def _estimated(model: Model, rate: float, duration: float, f: float):
    from hodyn_cli.api import estimating_reader
    from hodyn_cli.io.reader import MemoryReader

    exact = generate(model, "fourier", rate=rate, duration=duration, derivatives=4,
                     base_frequency=f)
    only = Trajectory(exact.joint_names, exact.derivatives[:, :1], exact.t)
    with estimating_reader(model, MemoryReader(only, chunk=4096), 5) as reader:
        assert reader.estimated == ("qd", "qdd", "qddd", "qdddd")
        est = np.concatenate([c.derivatives for c in reader])
    n = len(est)
    inner = slice(n // 5, -n // 5)  # (away from the spline's ends)
    return [np.abs(est[inner, k] - exact.derivatives[inner, k]).max()
            / np.abs(exact.derivatives[inner, k]).max() for k in range(4)]


@pytest.mark.parametrize("rate, duration, f, tolerance", [
    (20.0, 10.0, 0.1, (1e-15, 1e-6, 1e-4, 1e-3)),
    (1000.0, 2.0, 0.5, (1e-15, 1e-11, 1e-8, 1e-7)),
    pytest.param(10000.0, 2.0, 0.5, (1e-15, 1e-10, 1e-7, 1e-4), marks=pytest.mark.slow)])
def test_poses_alone_give_the_velocity_coordinates_on_the_groups(rate, duration, f, tolerance):
    """A generated motion's poses alone (rotation vectors of ball and free joints, planar
    x, y, theta), chunk by chunk: the estimated nu, nu', nu'' (quaternion charts, signs
    continuous across chunks) are the exact ones to the spline's accuracy at 20 Hz .. 10 kHz
    (relative errors: 20 Hz 5e-8, 6e-6, 5e-5; 1 kHz 2e-13, 6e-10, 6e-9)."""
    errors = _estimated(random_model(21, MIXED), rate, duration, f)
    assert all(e <= tol for e, tol in zip(errors, tolerance, strict=True)), errors


@pytest.fixture(scope="module")
def pose_only(tmp_path_factory):
    """A URDF with floating and planar joints, a generated motion of it (200 Hz, 5 s) and
    the same file without its rate columns (made once: the tests only read them)."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    tmp_path = tmp_path_factory.mktemp("pose_only")
    robot = tmp_path / "joints.urdf"
    robot.write_text(URDF_JOINTS)
    full, poses = tmp_path / "full.csv", tmp_path / "poses.csv"
    result = CliRunner().invoke(app, ["generate", str(robot), "--kind", "fourier", "--rate",
                                      "200", "--duration", "5", "--base-frequency", "0.4",
                                      "-o", str(full)])
    assert result.exit_code == 0, result.output
    lines = [row.split(",") for row in full.read_text().splitlines()]
    keep = [i for i, name in enumerate(lines[0]) if not name.startswith("qd")]
    poses.write_text("".join(",".join(row[i] for i in keep) + "\n" for row in lines))
    return robot, full, poses


@pytest.mark.parametrize("command, options, key", [
    ("matrices", ["--order", "1"], "M_d"), ("regressor", ["--order", "1"], "Y_d"),
    ("kinematics", ["--order", "1", "--link", "d", "--jacobian"], "Js_d"),
    ("sensitivities", ["--order", "0"], "dtau_dqd")])
def test_the_per_dof_commands_estimate_a_pose_only_file(tmp_path, pose_only, command, options,
                                                        key):
    """matrices, regressor, kinematics and sensitivities with ``--estimate-derivatives`` of
    the poses alone give the whole file's numbers (to 1e-6 of their size, inside)."""
    h5py = pytest.importorskip("h5py")
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    robot, full, poses = pose_only
    got = []
    for source, extra in ((full, []), (poses, ["--estimate-derivatives"])):
        out = tmp_path / f"{source.stem}.h5"
        result = CliRunner().invoke(app, [command, str(robot), str(source), "-o", str(out),
                                          "--quiet", *options, *extra])
        assert result.exit_code == 0, result.output
        with h5py.File(out) as f:
            got.append(f[key][200:-200])
    assert np.abs(got[1] - got[0]).max() <= 1e-6 * np.abs(got[0]).max()


def test_compute_estimates_a_pose_only_file_on_the_groups(tmp_path, pose_only):
    """``hodyn compute --estimate-derivatives`` of a generated file without its rate columns
    gives the torques of the whole file (to 1e-6 of their size, away from the ends); with its
    velocities given (nu interpolated as a vector, no chart) alike."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    robot, full, poses = pose_only
    lines = [row.split(",") for row in full.read_text().splitlines()]
    keep = [i for i, name in enumerate(lines[0]) if not name.startswith("qdd")]
    velocities = tmp_path / "velocities.csv"
    velocities.write_text("".join(",".join(row[i] for i in keep) + "\n" for row in lines))
    run = CliRunner().invoke
    taus = []
    for source, extra in ((full, []), (poses, ["--estimate-derivatives"]),
                          (velocities, ["--estimate-derivatives"])):
        out = tmp_path / f"tau_{source.stem}.csv"
        result = run(app, ["compute", str(robot), str(source), "--order", "1", "-o", str(out),
                           "--quiet", *extra])
        assert result.exit_code == 0, result.output
        taus.append(np.loadtxt(out, delimiter=",", skiprows=1)[200:-200, 1:])
    assert np.abs(taus[1] - taus[0]).max() <= 1e-6 * np.abs(taus[0]).max()
    assert np.abs(taus[2] - taus[0]).max() <= 1e-6 * np.abs(taus[0]).max()


# -- retime ---------------------------------------------------------------------------------

def test_retime_by_a_factor_plays_the_group_motion_slower(tmp_path):
    """``hodyn retime --factor 2`` of a generated file (the rows scaled by the chain rule,
    ``nu^(k)(t / 2) / 2^(k+1)``) is the same design generated two times slower (scaled in
    its chart, then carried onto the groups) at every sample, and its rows are still the
    body twist of its poses (8th-order differences on the group); --to-limits and HDF5 are
    one line, exit 2."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app
    from hodyn_cli.io.reader import read_trajectory
    from hodyn_cli.modeling.urdf import parse_model

    robot = tmp_path / "joints.urdf"
    robot.write_text(URDF_JOINTS)
    model = parse_model(URDF_JOINTS.encode())
    motion, played = tmp_path / "motion.csv", tmp_path / "played.csv"
    run = CliRunner().invoke
    result = run(app, ["generate", str(robot), "--kind", "cosine", "--rate", str(RATE),
                       "--duration", "1", "-o", str(motion)])
    assert result.exit_code == 0, result.output
    result = run(app, ["retime", str(robot), str(motion), "--factor", "2", "-o", str(played),
                       "--quiet"])
    assert result.exit_code == 0, result.output
    got = read_trajectory(str(played), model, need=5)
    slower = generate(model, "cosine", rate=RATE, duration=1.0, slow=2.0)
    assert np.allclose(got.t, slower.t[::2])
    assert np.abs(got.derivatives - slower.derivatives[::2]).max() <= 1e-12
    assert_group_rates(model, got, np.array([100, 400, 900]), "retimed", 2 / RATE)
    for extra in (["--to-limits", "-o", str(tmp_path / "r.csv")],
                  ["--factor", "2", "-o", str(tmp_path / "r.h5")]):
        result = run(app, ["retime", str(robot), str(motion), *extra])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert not any(tmp_path.glob("r.*"))


def test_excitation_designs_multi_dof_joints_in_their_charts(tmp_path):
    """``--kind excitation`` on a mobile base (a planar joint) under a 2R arm: its Fourier
    series over the charts, optimized from the random series ``--kind fourier`` writes with
    the same seed, is better conditioned than it (the base regressor of the written file,
    read back), 3.8 against 7.1."""
    from test_identify import condition_of
    from typer.testing import CliRunner

    from conftest import URDF
    from hodyn_cli import api
    from hodyn_cli.cli.app import app

    robot = URDF / "mobile_2r.urdf"
    cond = {}
    for kind in ("excitation", "fourier"):
        out = tmp_path / f"{kind}.csv"
        result = CliRunner().invoke(app, ["generate", str(robot), "--kind", kind,
                                          "--harmonics", "2", "--rate", "20", "-o", str(out),
                                          "-q"])
        assert result.exit_code == 0, result.output
        cond[kind] = condition_of(api.load_robot(robot), out)
    assert cond["excitation"] < 0.75 * cond["fourier"], cond


def test_the_api_derivative_stream_estimates_poses_on_the_groups():
    """``api.derivative_stream`` (the library's streaming estimate) of a pose-only motion of
    a robot with multi-DOF joints gives nu and its rates on the groups, as
    ``estimating_reader`` does (it interpolated the rotation vectors as vectors: nu 34 % off,
    silently); with the velocities given, nu interpolated as a vector as before."""
    from hodyn_cli import api

    model = random_model(21, MIXED)
    exact = generate(model, "fourier", rate=200.0, duration=5.0, derivatives=3,
                     base_frequency=0.5)
    n = exact.n_samples
    inner = slice(n // 5, -n // 5)
    for given in (1, 2):
        chunks = [Trajectory(exact.joint_names, exact.derivatives[s:s + 300, :given],
                             exact.t[s:s + 300]) for s in range(0, n, 300)]
        stream = api.derivative_stream(model, chunks, 4).start()
        est = np.concatenate([c.derivatives for c in stream])
        assert stream.names == ["qd", "qdd", "qddd"][given - 1:]
        assert est.shape == exact.derivatives.shape
        assert np.abs(est[:, :given] - exact.derivatives[:, :given]).max() < 1e-12
        for k in range(1, 3):
            err = np.abs(est[inner, k] - exact.derivatives[inner, k]).max()
            assert err <= 1e-5 * np.abs(exact.derivatives[inner, k]).max(), (given, k, err)


def test_retime_by_a_factor_keeps_the_wrenches(tmp_path):
    """``hodyn retime --factor 2 --wrench`` on a robot with ball joints writes the wrenches
    played slower as it does for 1-DOF robots (``W^(k) / 2^k``, the same samples); the
    poses' columns dropped them (no W column in the file, silently)."""
    from typer.testing import CliRunner

    from conftest import ROOT
    from hodyn_cli.cli.app import app

    chain = ROOT / "mjcf" / "ball_chain.xml"
    motion, wrench, played = tmp_path / "m.csv", tmp_path / "w.csv", tmp_path / "p.csv"
    run = CliRunner().invoke
    result = run(app, ["generate", str(chain), "--kind", "cosine", "--rate", "50",
                       "--duration", "1", "--derivatives", "2", "-o", str(motion), "-q"])
    assert result.exit_code == 0, result.output
    t = np.loadtxt(motion, delimiter=",", skiprows=1)[:, 0]
    names = [f"W{'d' * k}_hand_{c}" for k in range(2) for c in ("mx", "my", "mz", "fx", "fy",
                                                                  "fz")]
    W = np.random.default_rng(0).normal(size=(len(t), len(names)))
    np.savetxt(wrench, np.column_stack([t, W]), delimiter=",", header=",".join(["t", *names]),
               comments="")
    result = run(app, ["retime", str(chain), str(motion), "--factor", "2", "--wrench",
                       str(wrench), "-o", str(played), "-q"])
    assert result.exit_code == 0, result.output
    header = played.read_text().splitlines()[0].split(",")
    table = np.loadtxt(played, delimiter=",", skiprows=1)
    assert all(name in header for name in names), header
    got = table[:, [header.index(name) for name in names]]
    assert np.allclose(got[:, :6], W[:, :6], rtol=1e-15, atol=0)
    assert np.allclose(got[:, 6:], W[:, 6:] / 2, rtol=1e-15, atol=0)


def test_coefficients_naming_a_multi_dof_joint_name_its_chart_coordinates(tmp_path):
    """``--coefficients`` keyed by a ball joint's name (its chart has three coordinates): one
    line naming the coordinates to key them by; it said the model has no such joint."""
    from typer.testing import CliRunner

    from conftest import ROOT
    from hodyn_cli.cli.app import app

    coefficients = tmp_path / "c.json"
    coefficients.write_text('{"shoulder": {"a": [0.1, 0, 0, 0, 0], "b": [0, 0, 0, 0, 0]}}')
    out = tmp_path / "m.csv"
    result = CliRunner().invoke(app, ["generate", str(ROOT / "mjcf" / "ball_chain.xml"),
                                      "--kind", "fourier", "--coefficients", str(coefficients),
                                      "-o", str(out), "-q"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert "no joint 'shoulder'" not in result.stderr and "shoulder_wx" in result.stderr
    assert not out.exists()
