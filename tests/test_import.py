"""hodyn import: JointState logs written by the real rosbags library (ROS 1, ROS 2 sqlite3,
ROS 2 MCAP, plain MCAP) read back into trajectories."""

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF
from hodyn_cli.cli.app import app
from hodyn_cli.errors import HodynError
from hodyn_cli.io import read_trajectory
from hodyn_cli.io.rosbag import read_joint_states
from hodyn_cli.modeling.urdf import load_model

rosbags = pytest.importorskip("rosbags")
from rosbags.rosbag1 import Writer as Writer1  # noqa: E402
from rosbags.rosbag2 import StoragePlugin  # noqa: E402
from rosbags.rosbag2 import Writer as Writer2  # noqa: E402
from rosbags.typesys import Stores, get_typestore  # noqa: E402

runner = CliRunner()
MODEL = load_model(URDF / "planar_2r.urdf")
T0 = 1_700_000_000 * 10**9 + 123_456_789  # ns


def samples(n=50):
    """Known motion: (stamps ns, positions, velocities, efforts) for joint1, joint2."""
    t = np.arange(n) * 0.01
    q = np.stack([0.3 * np.sin(t), -0.2 * np.cos(2 * t)], axis=1)
    qd = np.stack([0.3 * np.cos(t), 0.4 * np.sin(2 * t)], axis=1)
    effort = np.stack([1.0 + t, 2.0 - t], axis=1)
    return T0 + np.round(t * 1e9).astype(np.int64), q, qd, effort


def messages(ros1: bool, with_velocity: bool = True):
    """JointState messages in bag order: names shuffled on odd messages, an extra joint the
    model lacks, message 10 written after 11 (out of order), message 20 written twice."""
    store = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
    T = store.types
    JS, Header, Time = (T["sensor_msgs/msg/JointState"], T["std_msgs/msg/Header"],
                        T["builtin_interfaces/msg/Time"])
    stamps, q, qd, effort = samples()
    out = []
    for s, ns in enumerate(stamps):
        names, pos, vel, eff = ["joint1", "joint2", "finger"], list(q[s]) + [0.01], \
            list(qd[s]) + [0.0], list(effort[s]) + [0.5]
        if s % 2:
            perm = [2, 1, 0]
            names, pos, vel, eff = ([x[i] for i in perm] for x in (names, pos, vel, eff))
        stamp = Time(sec=int(ns // 10**9), nanosec=int(ns % 10**9))
        header = Header(seq=s, stamp=stamp, frame_id="") if ros1 else Header(stamp=stamp,
                                                                              frame_id="")
        msg = JS(header=header, name=names, position=np.array(pos),
                 velocity=np.array(vel if with_velocity else [], dtype=float),
                 effort=np.array(eff))
        out.append((int(ns), msg))
    out[10], out[11] = out[11], out[10]
    out.insert(21, out[20])
    return store, out


def write_log(kind: str, path, with_velocity: bool = True):
    store, msgs = messages(kind == "ros1", with_velocity)
    typ = "sensor_msgs/msg/JointState"
    if kind == "ros1":
        path = path / "log.bag"
        with Writer1(path) as w:
            conn = w.add_connection("/joint_states", typ, typestore=store)
            for k, (_, msg) in enumerate(msgs):  # record times increase; header stamps not
                w.write(conn, T0 + k * 10**7, store.serialize_ros1(msg, typ))
        return path
    plugin = StoragePlugin.SQLITE3 if kind == "ros2-sqlite3" else StoragePlugin.MCAP
    bag = path / "log_bag"
    with Writer2(bag, version=9, storage_plugin=plugin) as w:
        conn = w.add_connection("/joint_states", typ, typestore=store)
        other = w.add_connection("/other_states", typ, typestore=store)
        for k, (_, msg) in enumerate(msgs):  # record times increase; header stamps not
            w.write(conn, T0 + k * 10**7, store.serialize_cdr(msg, typ))
        w.write(other, msgs[0][0], store.serialize_cdr(msgs[0][1], typ))
    if kind == "mcap":  # a plain MCAP file, outside its bag directory
        (mcap,) = bag.glob("*.mcap")
        return mcap.rename(path / "plain.mcap")
    return bag


@pytest.mark.parametrize("kind", ["ros1", "ros2-sqlite3", "ros2-mcap", "mcap"])
def test_round_trip(tmp_path, kind):
    log_path = write_log(kind, tmp_path)
    topic = None if kind == "ros1" else "/joint_states"
    log = read_joint_states(log_path, topic=topic, model=MODEL)
    stamps, q, qd, effort = samples()
    assert log.joint_names == ("joint1", "joint2") and log.t0_ns == T0
    assert np.allclose(log.t, (stamps - T0) / 1e9, rtol=0, atol=1e-12)
    assert np.array_equal(log.position, q) and np.array_equal(log.velocity, qd)
    assert np.array_equal(log.effort, effort)
    assert log.notes == ["dropped joint(s) the model does not have: finger",
                         "1 message(s) out of time order: sorted by header stamp",
                         "1 message(s) with a repeated stamp: kept the last"]
    out = tmp_path / "traj.csv"
    args = ["import", str(log_path), "--urdf", str(URDF / "planar_2r.urdf"), "-o", str(out)]
    result = runner.invoke(app, args + ([] if topic is None else ["--topic", topic]))
    assert result.exit_code == 0, result.output
    assert "hodyn: notice:" in result.stderr and "sorted by header stamp" in result.stderr
    header = out.read_text().splitlines()[0].split(",")
    assert header == ["t", "q_joint1", "q_joint2", "qd_joint1", "qd_joint2", "effort_joint1",
                      "effort_joint2"]
    back = read_trajectory(str(out), MODEL, need=2)  # effort columns are not hodyn's: ignored
    assert np.array_equal(back.q, q) and np.array_equal(back.qd, qd)


def test_import_then_compute_with_estimated_derivatives(tmp_path):
    log_path = write_log("ros2-mcap", tmp_path)
    out = tmp_path / "traj.h5"
    assert runner.invoke(app, ["import", str(log_path), "--topic", "/joint_states", "--urdf",
                               str(URDF / "planar_2r.urdf"), "-o", str(out)]).exit_code == 0
    result = runner.invoke(app, ["compute", str(URDF / "planar_2r.urdf"), str(out),
                                 "--estimate-derivatives", "--order", "0", "-o",
                                 str(tmp_path / "tau.csv")])
    assert result.exit_code == 0, result.output
    assert "estimated qdd" in result.stderr and "effort" in result.stderr  # ignored, said once


def test_errors_name_the_problem(tmp_path):
    log_path = write_log("ros2-sqlite3", tmp_path)
    with pytest.raises(HodynError, match="several JointState topics .*choose one with --topic"):
        read_joint_states(log_path)
    with pytest.raises(HodynError, match="no JointState topic '/nope'"):
        read_joint_states(log_path, topic="/nope")
    iiwa = load_model(URDF / "iiwa14.urdf")
    with pytest.raises(HodynError, match="the log has no joint.s. iiwa_joint_1"):
        read_joint_states(log_path, topic="/joint_states", model=iiwa)
    out = tmp_path / "x.csv"
    result = runner.invoke(app, ["import", str(tmp_path / "missing.bag"), "-o", str(out)])
    assert result.exit_code == 2 and "no such file" in result.stderr and not out.exists()
    junk = tmp_path / "junk.bag"
    junk.write_bytes(b"not a bag")
    result = runner.invoke(app, ["import", str(junk), "-o", str(out)])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "cannot read as a ROS 1/2 bag" in result.stderr


def test_without_urdf_and_without_velocities(tmp_path):
    log_path = write_log("ros1", tmp_path, with_velocity=False)
    log = read_joint_states(log_path)
    assert log.joint_names == ("joint1", "joint2", "finger") and log.velocity is None
    assert log.position.shape == (50, 3) and np.allclose(log.position[:, 2], 0.01)


def test_small_windows_and_blocks_give_the_same_log(tmp_path, monkeypatch):
    """The log streams in blocks through a reorder window: a window of 4 messages and blocks
    of 7 samples give what the defaults give; a message later than the window is an error."""
    from hodyn_cli.io import rosbag

    log_path = write_log("ros1", tmp_path)
    whole = read_joint_states(log_path, model=MODEL)
    monkeypatch.setattr(rosbag, "REORDER", 4)
    with rosbag.JointStateStream(log_path, model=MODEL, rows=7) as log:
        blocks = list(log)
    assert max(len(b["t"]) for b in blocks) <= 8 and len(blocks) > 5
    assert np.array_equal(np.concatenate([b["position"] for b in blocks]), whole.position)
    assert np.array_equal(np.concatenate([b["t"] for b in blocks]), whole.t)
    assert log.notes == whole.notes and log.t0_ns == whole.t0_ns
    monkeypatch.setattr(rosbag, "REORDER", 0)  # message 10 after 11 is now too late
    with pytest.raises(HodynError, match="too far out of time order"):
        read_joint_states(log_path, model=MODEL)


def test_a_robot_with_multi_dof_joints_is_one_line(tmp_path):
    """A JointState carries one position per joint: a robot with a planar joint (its pose
    three numbers) is refused in one line naming the log and the joint, nothing written."""
    out = tmp_path / "traj.csv"
    result = runner.invoke(app, ["import", str(write_log("ros1", tmp_path)), "--urdf",
                                 str(URDF / "mobile_2r.urdf"), "-o", str(out)])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert "log.bag: joint 'drive' is planar" in result.stderr and not out.exists()
