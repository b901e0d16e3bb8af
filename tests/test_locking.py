"""Locked joints: the same dynamics as the full model with that joint standing still, and as a
URDF with the joint written as fixed."""

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF, random_cosine
from hodyn_cli.algorithms.dynamics import closed_form
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import ModelError
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.locking import lock
from hodyn_cli.modeling.urdf import load_model, parse_model

runner = CliRunner()


@pytest.mark.parametrize("robot, joint, value", [
    ("iiwa14", "iiwa_joint_3", 0.7), ("iiwa14", "iiwa_joint_1", -0.4),
    ("gripper_arm", "elbow_slide", 0.12), ("gripper_arm", "wrist_roll", 2.0),
])
def test_locked_equals_full_model_standing_still(robot, joint, value, method):
    full = load_model(URDF / f"{robot}.urdf")
    small = lock(full, {joint: value})
    j = full.joint_index(joint)
    keep = [k for k in range(full.n) if k != j]
    assert small.joint_names == tuple(full.joint_names[k] for k in keep)
    traj = random_cosine(small, np.linspace(0, 2, 9), orders=6, seed=5)
    d = np.zeros((traj.n_samples, 7, full.n))
    d[:, :, keep] = traj.derivatives
    d[:, 0, j] = value  # the locked joint stands still at its value
    ref = inverse_dynamics(full, Trajectory(full.joint_names, d), method=method, order=3)
    ours = inverse_dynamics(small, traj, method=method, order=3)
    assert np.abs(ours - ref[:, :, keep]).max() <= 1e-10 * np.abs(ref).max()
    E, Ef = (closed_form.matrices(small, traj, order=1),
             closed_form.matrices(full, Trajectory(full.joint_names, d), order=1))
    assert np.allclose(E.M, Ef.M[:, :, keep][:, :, :, keep], atol=1e-12)
    tip = full.link_names[-1]  # a link on (or below) the locked body keeps its name
    a = link_kinematics(small, traj, tip, order=2)
    b = link_kinematics(full, Trajectory(full.joint_names, d), tip, order=2)
    assert np.allclose(a.p, b.p, atol=1e-12) and np.allclose(a.Vs, b.Vs, atol=1e-12)


def test_locked_at_zero_equals_the_urdf_with_a_fixed_joint():
    text = (URDF / "iiwa14.urdf").read_text()
    fixed = text.replace('<joint name="iiwa_joint_4" type="revolute">',
                         '<joint name="iiwa_joint_4" type="fixed">')
    a = lock(load_model(URDF / "iiwa14.urdf"), {"iiwa_joint_4": 0.0})
    b = parse_model(fixed.encode())
    assert a.joint_names == b.joint_names
    for field in ("parent", "B", "X", "inertias"):
        assert np.allclose(getattr(a, field), getattr(b, field), atol=1e-12), field
    for name, frame in b.links.items():
        assert a.links[name].body == frame.body and np.allclose(a.links[name].T, frame.T)


def test_lock_errors():
    model = load_model(URDF / "iiwa14.urdf")
    with pytest.raises(ModelError, match="no joint 'nope'"):
        lock(model, {"nope": 0.0})
    with pytest.raises(ModelError, match="'iiwa_joint_2' cannot be held at 3 .its limits"):
        lock(model, {"iiwa_joint_2": 3.0})
    with pytest.raises(ModelError, match="every joint would be locked"):
        lock(model, {j: 0.0 for j in model.joint_names})


def test_cli_lock_and_lock_missing(tmp_path):
    full = load_model(URDF / "gripper_arm.urdf")
    arm = [j for j in full.joint_names if "finger" not in j]
    small = lock(full, {"finger_left_joint": 0.0, "finger_right_joint": 0.0})
    traj = random_cosine(small, np.linspace(0, 1, 11), orders=4, seed=2)
    src = tmp_path / "arm.csv"  # the fingers are not in the file
    write_trajectory(str(src), traj)
    out = tmp_path / "tau.csv"
    robot = str(URDF / "gripper_arm.urdf")
    result = runner.invoke(app, ["compute", robot, str(src), "-o", str(out)])
    assert result.exit_code == 2 and "q_finger_left_joint" in result.stderr
    result = runner.invoke(app, ["compute", robot, str(src), "--lock-missing", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "holding joint(s) without q columns: finger_left_joint=0" in result.stderr
    header = out.read_text().splitlines()[0]
    assert header.split(",")[1:1 + len(arm)] == [f"tau_{j}" for j in arm]
    ref = inverse_dynamics(small, traj, order=2)
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert np.array_equal(data[:, 1:1 + len(arm)], ref[:, 0])
    result = runner.invoke(app, ["compute", robot, str(src), "--lock", "finger_left_joint=0",
                                 "--lock", "finger_right_joint=0.0", "-o", str(out)])
    assert result.exit_code == 0 and np.array_equal(
        np.loadtxt(out, delimiter=",", skiprows=1)[:, 1:1 + len(arm)], ref[:, 0])
    result = runner.invoke(app, ["compute", robot, str(src), "--lock", "finger_left_joint"])
    assert result.exit_code == 2 and "expected JOINT=VALUE" in result.stderr


@pytest.mark.parametrize("suffix", [".csv", ".h5"])
def test_a_locked_joint_in_the_file_is_ignored_with_one_notice(tmp_path, suffix):
    """--lock holds a joint the file has columns for: its columns are ignored (one notice),
    the torques are those of the locked model, whatever the file says about that joint."""
    full = load_model(URDF / "gripper_arm.urdf")
    traj = random_cosine(full, np.linspace(0, 1, 11), orders=4, seed=3)
    src, out = tmp_path / f"all{suffix}", tmp_path / "tau.csv"
    write_trajectory(str(src), traj)
    robot = str(URDF / "gripper_arm.urdf")
    result = runner.invoke(app, ["compute", robot, str(src), "--lock", "finger_left_joint=0.01",
                                 "-o", str(out)])
    assert result.exit_code == 0, result.output
    notices = [line for line in result.stderr.splitlines() if "locked joints, ignored" in line]
    assert len(notices) == 1 and "q_finger_left_joint" in notices[0], result.stderr
    small = lock(full, {"finger_left_joint": 0.01})
    keep = [full.joint_index(j) for j in small.joint_names]
    ref = inverse_dynamics(small, Trajectory(small.joint_names, traj.derivatives[..., keep]),
                           order=2)
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert np.allclose(data[:, 1:1 + small.n], ref[:, 0], rtol=0, atol=1e-12)
    drives = tmp_path / "drives.toml"
    drives.write_text("[joints.finger_left_joint]\ngear_ratio = 10\n")
    result = runner.invoke(app, ["compute", robot, str(src), "--lock", "finger_left_joint=0",
                                 "--drives", str(drives), "-o", str(out)])
    assert result.exit_code == 2 and "joint 'finger_left_joint': it is locked" in result.stderr


def test_locking_one_joint_of_a_mimic_pair_holds_its_partner(tmp_path):
    """A held leader holds its follower (and a held follower its leader): the pair is locked
    together, each at the value the <mimic> relation gives; inconsistent values are one line."""
    import dataclasses

    from hodyn_cli.errors import ModelError
    from hodyn_cli.modeling.locking import lock

    base = load_model(URDF / "gripper_arm.urdf")
    follower = len(base.joint_names) - 1
    leader = follower - 1
    mimic = np.tile([-1.0, 1.0, 0.0], (base.n, 1))
    mimic[follower] = [leader, -1.0, 0.01]
    model = dataclasses.replace(base, mimic=mimic)
    names = model.joint_names
    for held in ({names[leader]: 0.01}, {names[follower]: 0.0}):
        locked = lock(model, held)
        assert names[leader] not in locked.joint_names and names[follower] not in locked.joint_names
        assert set(locked.locked) == {names[leader], names[follower]}
    both = lock(model, {names[leader]: 0.01, names[follower]: 0.0})
    assert both.n == model.n - 2
    with pytest.raises(ModelError, match=f"'{names[follower]}' cannot be held at 0.5 and 0"):
        lock(model, {names[leader]: 0.01, names[follower]: 0.5})


def test_lock_missing_keeps_a_mimic_leader_that_has_columns(tmp_path):
    """A <mimic> follower has no column by design: --lock-missing does not count it as
    missing (which would hold its leader too and drop the leader's motion from the file)."""
    from conftest import MIMIC_CASES, mimic_urdf

    robot = mimic_urdf(tmp_path, *MIMIC_CASES["gripper fingers"])
    model = load_model(robot)
    full = random_cosine(model, np.linspace(0, 1, 11), orders=4, seed=4)
    traj = Trajectory(model.coordinate_names, full.derivatives[..., list(model.coordinates)],
                      full.t)  # as `generate` writes it: no column for the follower
    src, out, ref = tmp_path / "all.csv", tmp_path / "tau.csv", tmp_path / "ref.csv"
    write_trajectory(str(src), traj)
    header = src.read_text().splitlines()[0]
    assert "q_finger_left_joint" in header and "q_finger_right_joint" not in header
    result = runner.invoke(app, ["compute", str(robot), str(src), "--lock-missing", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "holding joint" not in result.stderr
    assert runner.invoke(app, ["compute", str(robot), str(src), "-o", str(ref)]).exit_code == 0
    assert out.read_text() == ref.read_text()
