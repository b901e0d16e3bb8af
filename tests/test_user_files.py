"""Real users' files and habits: spreadsheet CSVs, extra and mistyped columns, positions
outside the limits (degrees), the help listing."""

import os
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import SAMPLES, URDF
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.urdf import load_model

runner = CliRunner()
PLANAR = URDF / "planar_2r.urdf"
MODEL = load_model(PLANAR)


def rows(n=20):
    traj = cosine(MODEL.joint_names, np.linspace(0, 1, n), amplitude=[0.5, 0.3],
                  omega=[1.0, 2.0], orders=4)
    cols = ["t"] + [f"q{'d' * k}_{j}" for k in range(5) for j in MODEL.joint_names]
    data = np.hstack([traj.t[:, None], traj.derivatives.reshape(n, -1)])
    return traj, cols, data


@pytest.mark.parametrize("dialect", ["bom", "crlf", "semicolon-decimal-comma", "quoted-header",
                                     "blank-lines"])
def test_spreadsheet_csv_dialects(tmp_path, dialect):
    traj, cols, data = rows()
    sep, dec, nl, head = ",", ".", "\n", cols
    if dialect == "semicolon-decimal-comma":
        sep, dec = ";", ","
    if dialect == "crlf":
        nl = "\r\n"
    if dialect == "quoted-header":
        head = [f'"{c}"' for c in cols]
    lines = [sep.join(head)] + [sep.join(repr(float(v)).replace(".", dec) for v in r)
                                for r in data]
    if dialect == "blank-lines":
        lines.insert(5, "")
        lines.append("")
    text = nl.join(lines) + nl
    path = tmp_path / "sheet.csv"
    path.write_bytes((("\ufeff" if dialect == "bom" else "") + text).encode())
    back = read_trajectory(str(path), MODEL, need=5)
    assert np.array_equal(back.derivatives, traj.derivatives) and np.array_equal(back.t, traj.t)


def test_extra_columns_are_ignored_with_one_notice_and_typos_named(tmp_path):
    traj, cols, data = rows()
    extra = np.random.default_rng(0).normal(size=(len(data), 3))
    header = cols + ["sensor_0", "effort_joint1", "Qd_joint2"]
    path = tmp_path / "log.csv"
    path.write_text(",".join(header) + "\n" + "\n".join(",".join(map(repr, map(float, r)))
                                                         for r in np.hstack([data, extra])))
    result = runner.invoke(app, ["compute", str(PLANAR), str(path), "-o", str(tmp_path / "t.csv")])
    assert result.exit_code == 0, result.output
    err = result.stderr.splitlines()
    assert sum("ignoring 3 column(s) that are not hodyn's" in line for line in err) == 1
    assert any("column 'Qd_joint2' is ignored; a typo of 'qd_joint2'?" in line for line in err)
    quiet = runner.invoke(app, ["compute", str(PLANAR), str(path), "-q", "-o",
                                str(tmp_path / "t.csv")])
    assert "ignoring" not in quiet.stderr and "typo" in quiet.stderr  # mistakes still said
    path.write_text(path.read_text().replace("q_joint1", "q_jiont1", 1))
    result = runner.invoke(app, ["compute", str(PLANAR), str(path)])
    assert result.exit_code == 2
    assert "the model has no joint 'jiont1' (a typo of 'joint1'?)" in result.stderr


def test_positions_outside_the_limits_warn_and_degrees_are_named(tmp_path):
    model = load_model(URDF / "iiwa14.urdf")
    t = np.linspace(0, 1, 50)
    traj = cosine(model.joint_names, t, amplitude=40.0, omega=1.0, orders=4)  # degrees, say
    src = tmp_path / "deg.h5"
    write_trajectory(str(src), traj)
    out = tmp_path / "tau.h5"
    result = runner.invoke(app, ["compute", str(URDF / "iiwa14.urdf"), str(src), "-o", str(out)])
    assert result.exit_code == 0 and out.exists()
    warnings = [line for line in result.stderr.splitlines() if "outside its URDF limits" in line]
    assert len(warnings) == 7  # one per joint, not one per sample
    assert "q_iiwa_joint_1 = 40 at t = 0 s is outside its URDF limits [-2.967, 2.967]" in \
        warnings[0] and "the values look like degrees: hodyn reads radians" in warnings[0]
    out.unlink()
    result = runner.invoke(app, ["compute", str(URDF / "iiwa14.urdf"), str(src), "-o", str(out),
                                 "--strict"])
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr.strip().endswith("hodyn reads radians (--strict)")
    clean = runner.invoke(app, ["compute", str(URDF / "iiwa14.urdf"),
                                str(SAMPLES / "iiwa14_cosine.h5"), "-o", str(out)])
    assert clean.exit_code == 0 and clean.stderr == ""


def test_help_listing_is_not_cut_mid_sentence():
    result = subprocess.run([sys.executable, "-m", "hodyn_cli", "--help"], capture_output=True,
                            text=True, env={**os.environ, "COLUMNS": "80"})
    listing = result.stdout.split("Commands")[1]
    commands = [line for line in listing.splitlines() if line.startswith("  ")]
    assert len(commands) >= 10 and not any(line.rstrip().endswith("...") for line in commands)
    assert not any(line.rstrip().endswith("(e.g.") for line in commands)


def test_continuous_joints_wrapping_at_pi(tmp_path):
    """A wrist spinning steadily, its q written wrapped into (-pi, pi]: validate passes, and
    derivatives estimated from q are those of the motion, not of the jumps."""
    robot = URDF / "gripper_arm.urdf"
    model = load_model(robot)
    from hodyn_cli.algorithms.planning.generate import generate

    traj = generate(model, "cosine", duration=5.0)
    j = model.joint_index("wrist_roll")
    d = traj.derivatives.copy()
    d[:, 0, j] = 3.0 * traj.t  # 3 rad/s, through several turns
    d[:, 1, j], d[:, 2:, j] = 3.0, 0.0
    exact = d.copy()
    d[:, 0, j] = np.angle(np.exp(1j * d[:, 0, j]))  # wrapped
    src = tmp_path / "wrapped.h5"
    write_trajectory(str(src), traj.__class__(model.joint_names, d, traj.t))
    result = runner.invoke(app, ["validate", str(robot), str(src), "--samples", "50"])
    assert result.exit_code == 0, result.output
    only_q = tmp_path / "q.h5"
    write_trajectory(str(only_q), traj.__class__(model.joint_names, d[:, :1], traj.t))
    out = tmp_path / "tau.h5"
    result = runner.invoke(app, ["compute", str(robot), str(only_q), "--estimate-derivatives",
                                 "--order", "0", "-o", str(out)])
    assert result.exit_code == 0, result.output
    import h5py

    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics

    ref = inverse_dynamics(model, traj.__class__(model.joint_names, exact, traj.t), order=0)
    with h5py.File(out) as f:
        inner = slice(20, -20)  # the spline's ends
        assert np.abs(f["tau"][()][inner] - ref[inner, 0]).max() < 1e-3 * np.abs(ref).max()


def _options_of(command: str) -> set[str]:
    import re

    out = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"}).stdout
    return set(re.findall(r"--[a-z][a-z-]+", out))


def test_every_hint_names_an_option_of_that_command(tmp_path):
    """A positions-only file given to every command that reads trajectories: the error (or
    warning) suggests options, and each exists on that command; the same for the hint of a
    failed consistency check (it names compute's options)."""
    import re

    from hodyn_cli.algorithms.verification.validate import FIX_HINT

    model = load_model(URDF / "iiwa14.urdf")
    traj = cosine(model.joint_names, np.linspace(0, 2, 201), amplitude=0.3, omega=1.0, orders=0)
    src = tmp_path / "q.csv"
    write_trajectory(str(src), traj)
    robot = str(URDF / "iiwa14.urdf")
    drives = str(URDF / "iiwa14_drives.toml")
    runs = {"compute": [], "kinematics": ["--link", "iiwa_link_ee"], "validate": [],
            "matrices": ["-o", str(tmp_path / "m.h5")],
            "regressor": ["-o", str(tmp_path / "y.h5")],
            "sensitivities": ["-o", str(tmp_path / "s.h5")], "elastic": ["--drives", drives]}
    for command, extra in runs.items():
        result = runner.invoke(app, [command, robot, str(src), *extra])
        assert result.exit_code == 2, (command, result.output)
        # options of another command the hint names ("hodyn generate ... --derivatives N")
        own = re.sub(r"hodyn (?!" + command + r"\b)[a-z]+[^);]*", "", result.stderr)
        hinted = set(re.findall(r"--[a-z][a-z-]+", own))
        assert hinted, (command, result.stderr)
        assert hinted <= _options_of(command), (command, hinted - _options_of(command))
    for command in ("compute", "kinematics", "matrices"):
        assert set(re.findall(r"--[a-z][a-z-]+", FIX_HINT)) <= _options_of(command)


def test_hdf5_errors_name_datasets(tmp_path):
    import h5py

    src = tmp_path / "q.h5"
    with h5py.File(SAMPLES / "iiwa14_cosine.h5") as f, h5py.File(src, "w") as g:
        g.attrs["joint_names"] = f.attrs["joint_names"]
        for key in ("t", "q", "qd"):
            g[key] = f[key][()]
    result = runner.invoke(app, ["compute", str(URDF / "iiwa14.urdf"), str(src)])
    assert result.exit_code == 2
    assert "dataset(s) qdd, qddd, qdddd (need q up to qdddd" in result.stderr
    assert "--estimate-derivatives" in result.stderr


@pytest.mark.parametrize("command, message", [
    (["forward"], "missing columns: dataset(s) tau (N x n in joint_names order)"),
    (["ik", "--link", "iiwa_link_ee"], "missing dataset(s) p, R: the link pose"),
    (["compute", "--floating-base"], "missing dataset(s) base_p, base_R: the pose of the "
                                     "floating root"),
])
def test_hdf5_errors_name_the_datasets_a_command_needs(tmp_path, command, message):
    """A joint trajectory given where torques, a link's motion or a floating base's are
    needed: one line naming the file and the datasets it lacks (not the columns hodyn
    makes of them, tau_<joint>, p_x, ...); nothing written."""
    out = tmp_path / "out.csv"
    result = runner.invoke(app, [command[0], str(URDF / "iiwa14.urdf"),
                                 str(SAMPLES / "iiwa14_cosine.h5"), *command[1:], "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"hodyn: error: {SAMPLES / 'iiwa14_cosine.h5'}: {message}"), \
        result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not out.exists()


def test_info_json_keeps_warnings_on_stderr_and_overflow_never_reaches_an_output(tmp_path):
    import json

    path = tmp_path / "warn.urdf"  # principal moments 0.1 + 0.1 < 0.3: a URDF warning
    path.write_text('<robot name="w"><link name="base"/><joint name="j1" type="revolute">'
                    '<parent link="base"/><child link="l1"/><axis xyz="0 0 1"/></joint>'
                    '<link name="l1"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" '
                    'ixz="0" iyy="0.1" iyz="0" izz="0.3"/></inertial></link></robot>')
    result = runner.invoke(app, ["info", str(path), "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["name"] == "w"
    assert "hodyn: warning:" in result.stderr and "triangle inequality" in result.stderr
    d = np.zeros((5, 5, 2))
    d[:, 1] = 1e200  # finite inputs whose centrifugal terms (qd^2) overflow float64
    traj = Trajectory(MODEL.joint_names, d, np.arange(5.0))
    src = tmp_path / "huge.h5"
    write_trajectory(str(src), traj)
    out = tmp_path / "tau.h5"
    result = runner.invoke(app, ["compute", str(PLANAR), str(src), "-o", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert "huge.h5: result 'tau' overflows float64 at t = 0 s: the inputs there are too " \
        "large (the largest, qd_joint1 = 1e+200)" in result.stderr


@pytest.mark.parametrize("command, datasets, message", [
    ("compute", ("t", "q", "qd"), "missing columns: dataset(s) qdd, qddd, qdddd (need q up to "
                                  "qdddd"),
    ("forward", ("t", "q", "qd", "qdd"), "missing columns: dataset(s) tau (N x n in "
                                         "joint_names order)"),
])
def test_hdf5_errors_of_a_mimic_robot_name_what_its_file_lacks(tmp_path, command, datasets,
                                                                message):
    """A robot with a <mimic> joint reads an HDF5 file over its independent joints (the
    follower has no column, as hodyn writes it): a missing derivative or torque is named as
    such (with the --estimate-derivatives hint), not the follower's q, qd the file need not
    have."""
    import h5py

    from conftest import mimic_urdf

    robot = mimic_urdf(tmp_path, "gripper_arm", "finger_right_joint", "finger_left_joint",
                       -0.8, 0.03)
    coordinates = list(load_model(robot).coordinate_names)
    src = tmp_path / "coordinates.h5"
    with h5py.File(SAMPLES / "gripper_arm_cosine.h5") as f, h5py.File(src, "w") as g:
        every = list(f.attrs["joint_names"])
        columns = [every.index(j) for j in coordinates]
        g.attrs["joint_names"] = coordinates
        for key in datasets:
            g[key] = f[key][()] if key == "t" else f[key][()][:, columns]
    out = tmp_path / "out.csv"
    result = runner.invoke(app, [command, str(robot), str(src), "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert f"hodyn: error: {src}: {message}" in result.stderr, result.stderr
    assert ("--estimate-derivatives" in result.stderr) == (command == "compute")
    assert not out.exists()
