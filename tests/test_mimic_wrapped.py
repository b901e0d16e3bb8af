"""A mimic joint that follows a continuous joint whose angle the file wraps into (-pi, pi]:
the follower sits at ``multiplier q_leader + offset``, so a turn the wrap takes from its
leader moves it by ``multiplier`` turns, another pose unless that is a whole number. Every
command's input, validate and identify continue the leader's angle through +-pi first
(hodyn_cli.algorithms.motion.turns.leaders_unwrapped), counted across chunks. Before, the
follower jumped by pi where its leader wrapped (multiplier 0.5): validate failed it
("qd_tool_roll does not match the time differences of q_tool_roll", a column the file does
not have), compute's torques were another motion's, and ``--to-limits`` found another k."""

import h5py
import numpy as np
import pytest

import hodyn_cli
from conftest import URDF, hodyn_here
from hodyn_cli.algorithms.motion.turns import leaders
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import write_trajectory
from hodyn_cli.pipeline.inputs import open_input

WRIST = 3  # wrist_roll, the gripper arm's continuous joint, the follower's leader

#: a tool disc turning about z on the palm (its centre of mass off the axis: its pose moves
#: the wrist's torque), following the wrist roll
TOOL = ('<joint name="tool_roll" type="{kind}"><parent link="palm"/><child link="tool_disc"/>'
        '<origin xyz="0.08 0 0.01"/><axis xyz="0 0 1"/>'
        '<limit lower="{lower}" upper="{upper}" effort="5" velocity="6"/>'
        '<mimic joint="wrist_roll" multiplier="{gain}" offset="{offset}"/></joint>'
        '<link name="tool_disc"><inertial><origin xyz="0.03 0.01 0"/><mass value="0.2"/>'
        '<inertia ixx="1e-4" ixy="0" ixz="0" iyy="2e-4" iyz="0" izz="2e-4"/></inertial></link>')


def tool_urdf(tmp_path, gain=0.5, offset=0.2, kind="revolute", lower=-10.0, upper=10.0):
    """The gripper arm with the tool disc following its wrist roll."""
    path = tmp_path / f"tool_{gain}_{kind}_{upper}.urdf"
    path.write_text((URDF / "gripper_arm.urdf").read_text().replace(
        "</robot>", TOOL.format(kind=kind, lower=lower, upper=upper, gain=gain,
                                offset=offset) + "</robot>"))
    return path


def turning(model, tmp_path, suffix=".h5"):
    """A point-to-point motion turning the wrist from 0 to 9 rad in 3 s at 50 Hz, written
    as it is (``plain``) and with the wrist's angle wrapped (``wrapped``): their paths."""
    waypoints = np.array([[0.0, 0.0, 0.05, 0.0, 0.01, 0.01], [0.5, 0.3, 0.1, 9.0, 0.02, 0.02]])
    path = generate(model, "point-to-point", waypoints=waypoints, segment_duration=[3.0],
                    rate=50.0)
    d = path.derivatives.copy()
    d[:, 0, WRIST] = np.angle(np.exp(1j * d[:, 0, WRIST]))
    assert np.abs(np.diff(d[:, 0, WRIST])).max() > 6  # (it does wrap, twice)
    files = tmp_path / f"plain{suffix}", tmp_path / f"wrapped{suffix}"
    write_trajectory(str(files[0]), path, model=model)
    write_trajectory(str(files[1]), Trajectory(path.joint_names, d, path.t), model=model)
    return path, files


def test_the_leaders_are_the_wrapping_coordinates_that_mimic_joints_follow(tmp_path):
    follows_wrist = hodyn_cli.load_robot(tool_urdf(tmp_path))
    assert leaders(follows_wrist).tolist() == [False] * 3 + [True] + [False] * 2
    yaw = tmp_path / "follows_yaw.urdf"  # (a revolute leader: its limits place it)
    yaw.write_text(tool_urdf(tmp_path).read_text().replace('mimic joint="wrist_roll"',
                                                           'mimic joint="shoulder_yaw"'))
    follows_yaw = hodyn_cli.load_robot(yaw)
    assert not leaders(follows_yaw).any()
    assert not leaders(hodyn_cli.load_robot(URDF / "gripper_arm.urdf")).any()  # (no mimic)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """(the robot's file, the plain motion's, the wrapped one's, their folder)."""
    folder = tmp_path_factory.mktemp("tool")
    robot = tool_urdf(folder)
    _, (plain, wrapped) = turning(hodyn_cli.load_robot(robot), folder)
    return robot, plain, wrapped, folder


def test_a_wrapped_leader_is_read_as_its_unwrapped_angle_through_the_commands(files):
    """multiplier 0.5: validate passes the wrapped file (every sample: two readings, each
    counting afresh), compute gives the unwrapped file's torques (were 0.63 N m off), and
    ``--to-limits`` with the wrist's torque rate binding (which the disc's pose moves) the
    same k (was 8.06 for 11.16: the torques of a disc half a turn off)."""
    robot, plain, wrapped, folder = files
    limits = folder / "limits.toml"
    limits.write_text("[joints.wrist_roll]\ntorque_rate = 0.05\n")
    r = hodyn_here("validate", robot, wrapped, "--samples", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    outs = {}
    for name, path in (("plain", plain), ("wrapped", wrapped)):
        tau, scaled = folder / f"{name}_tau.h5", folder / f"{name}_k.h5"
        r = hodyn_here("compute", robot, path, "--order", "1", "-o", tau)
        assert r.returncode == 0, r.stderr
        r = hodyn_here("retime", robot, path, "--to-limits", "--limits", limits, "-o", scaled)
        assert r.returncode == 0 and "torque rate of wrist_roll" in r.stderr, r.stderr
        with h5py.File(tau) as f, h5py.File(scaled) as g:
            outs[name] = f["tau"][()], f["taud"][()], g.attrs["time_scale"]
    for got, want in zip(outs["wrapped"], outs["plain"], strict=True):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
    assert outs["plain"][2][0] == pytest.approx(11.1645, rel=1e-4)


def test_a_wrapped_leader_is_retimed_optimally_as_its_unwrapped_angle(files):
    """``--optimal`` with the wrist's torque binding at the ends (where the disc's pose
    moves it): the same law, every order (it unwrapped the file's angles already; now the
    input does first), the angle going on to 9 rad."""
    robot, plain, wrapped, folder = files
    torque = folder / "torque.toml"
    torque.write_text("[joints.wrist_roll]\ntorque = 0.12\n")
    outs = []
    for name, path in (("plain", plain), ("wrapped", wrapped)):
        fast = folder / f"{name}_opt.h5"
        r = hodyn_here("retime", robot, path, "--optimal", "--limits", torque, "-o", fast)
        assert r.returncode == 0 and "torque of wrist_roll" in r.stderr, r.stderr
        with h5py.File(fast) as h:
            outs.append([h[k][()] for k in ("t", "q", "qd", "qdd", "qddd", "qdddd")])
    for got, want in zip(*outs, strict=True):
        # (the unwrapped angle's rounding, 1e-16 of a turn, moves the law's fit by ~1e-9
        # of each order's peak, as tests/test_retime_wrapped.py measures)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-7 * np.abs(want).max())
    assert outs[1][1][-1, WRIST] == pytest.approx(9.0)  # (the angle goes on)


def test_the_turns_are_counted_across_chunks(tmp_path):
    """The input's chunks (every command's) cut anywhere, at the wrap too, and validate's
    own chunks (the API): the leader's angle is the unwrapped one, to rounding."""
    model = hodyn_cli.load_robot(tool_urdf(tmp_path))
    path, (_, wrapped) = turning(model, tmp_path, ".csv")
    at = int(np.argmax(np.abs(np.diff(np.angle(np.exp(1j * path.derivatives[:, 0, WRIST]))))
                       > np.pi)) + 1
    for rows in (1, at, 7, 1 << 14):
        with open_input(str(wrapped), model, 5, chunk=rows) as source:
            got = np.concatenate([c.derivatives for c in source])
        np.testing.assert_allclose(got, path.derivatives, rtol=0, atol=1e-9)
    d = path.derivatives.copy()
    d[:, 0, WRIST] = np.angle(np.exp(1j * d[:, 0, WRIST]))
    chunks = [Trajectory(path.joint_names, d[a:b], path.t[a:b])
              for a, b in ((0, at), (at, at + 1), (at + 1, len(d)))]
    assert hodyn_cli.validate_motion(model, chunks=chunks, samples=30).passed
    assert hodyn_cli.validate_motion(model, Trajectory(path.joint_names, d, path.t),
                                     samples=30).passed


def test_a_whole_multiplier_follows_the_unwrapped_angle_too(tmp_path):
    """multiplier 1: the wrapped leader would give the follower's pose (a whole turn is no
    turn), but not where it went: a revolute follower within [-4, 4] rad following a wrist
    that turns to 9 rad leaves its limits, which the wrapped file now says as the plain one
    does (before, its follower stayed within (-pi, pi] and nothing was said)."""
    robot = tool_urdf(tmp_path, gain=1.0, offset=0.0, lower=-20.0, upper=20.0)
    model = hodyn_cli.load_robot(robot)
    narrow = tool_urdf(tmp_path, gain=1.0, offset=0.0, lower=-4.0, upper=4.0)
    _, files = turning(model, tmp_path)
    for path in files:
        r = hodyn_here("compute", narrow, path, "-o", tmp_path / "tau.h5")
        assert r.returncode == 0, r.stderr
        assert "q_tool_roll" in r.stderr and "outside its URDF limits" in r.stderr, r.stderr
