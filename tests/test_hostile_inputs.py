"""A corpus of hostile inputs on every surface hodyn reads: drives, limits and contacts files,
xacro robots, ROS bags and MCAP logs, the compact HDF5 layout, a floating root's columns,
``--from-list`` and ``--output-dir``, wrench files, CSV oddities, option values.

Every case runs through the real command line (in process: ``hodyn_cli.cli.errors.run``, the
same code path as the ``hodyn`` executable, ~50x faster than a process each) and must end
the same way: exit 2; exactly one stderr line, ``hodyn: error: ...``, naming the file (or the
option) and the key, joint, contact, column or dataset that is wrong; nothing on stdout;
nothing written, no temporary file left, every existing file (outputs and inputs) untouched;
no RuntimeWarning on the way (they are errors here).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np
import pytest

from conftest import SAMPLES, URDF
from hodyn_cli.cli.app import only
from hodyn_cli.cli.errors import run
from hodyn_cli.core.trajectory import BaseMotion, Trajectory
from hodyn_cli.io import open_sink, trajectory_datasets
from hodyn_cli.io.results import base_datasets
from hodyn_cli.modeling import xacro_expand
from hodyn_cli.modeling.urdf import load_model

P2R, IIWA, QUAD = (str(URDF / f"{n}.urdf") for n in ("planar_2r", "iiwa14", "quadruped"))
IIWA_LIMITS = str(URDF / "iiwa14_limits.toml")  # torque accelerations among them
P2R_H5, P2R_CSV = str(SAMPLES / "planar_2r_cosine.h5"), str(SAMPLES / "planar_2r_cosine.csv")
P2R_HIGH = str(SAMPLES / "planar_2r_cosine_high.h5")
FEET = str(URDF.parent / "docs" / "examples" / "quadruped_feet.toml")
DEEP = 5000  # nesting beyond Python's recursion limit


# -- the files ---------------------------------------------------------------------------------


def toml(section: str, **keys) -> str:
    """``[section]`` with ``keys`` as TOML values written verbatim."""
    return f"[{section}]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items())


def drives(**keys) -> str:
    return toml("joints.joint2", gear_ratio=50, rotor_inertia=1e-5) + toml("joints.joint1", **keys)


def limits(**keys) -> str:
    return toml("joints.joint1", **keys)


def contacts(**keys) -> str:
    base = {"link": '"FL_foot"', "type": '"point"', "friction": 0.8}
    return toml("contacts.FL", **{**base, **keys})


def xacro(body: str) -> str:
    return ('<?xml version="1.0"?>\n<robot name="x" xmlns:xacro="http://www.ros.org/wiki/xacro">'
            f"\n{body}\n</robot>\n")


def exponential(levels: int) -> str:
    """A macro that calls the one below it twice, ``levels`` deep: 2**levels links."""
    macros = ['<xacro:macro name="m0"><link name="l"/></xacro:macro>']
    macros += [f'<xacro:macro name="m{k}"><xacro:m{k - 1}/><xacro:m{k - 1}/></xacro:macro>'
               for k in range(1, levels + 1)]
    return xacro("\n".join(macros) + f"\n<xacro:m{levels}/>")


def csv_text(path: str, edit=None) -> str:
    """The CSV file at ``path``, each row (a list of cells, the header's too) through
    ``edit(row_number, cells)``."""
    rows = [line.split(",") for line in Path(path).read_text().splitlines()]
    for k, cells in enumerate(rows):
        if edit is not None:
            edit(k, cells)
    return "\n".join(",".join(r) for r in rows) + "\n"


def cell(row: int, column: str, value: str, source: str = P2R_CSV):
    """An edit of ``csv_text``: the cell of ``column`` in data row ``row`` set to ``value``."""
    header = Path(source).read_text().split("\n", 1)[0].split(",")
    c = header.index(column)

    def edit(k, cells):
        if k == row:
            cells[c] = value

    return edit


def rename(column: str, to: str, source: str = P2R_CSV):
    header = Path(source).read_text().split("\n", 1)[0].split(",")
    c = header.index(column)

    def edit(k, cells):
        if k == 0:
            cells[c] = to

    return edit


def h5_copy(path: Path, source: str = P2R_H5, change=None) -> None:
    """A copy of an HDF5 trajectory, ``change(f)`` applied."""
    shutil.copy(source, path)
    with h5py.File(path, "a") as f:
        change(f)


def _replace(name: str, data):
    def change(f):
        del f[name]
        f[name] = data
    return change


def _attr(name: str, value):
    def change(f):
        f.attrs[name] = value
    return change


def floating(n: int = 21, **change) -> Trajectory:
    """The quadruped swaying on its feet (its legs still), the front left foot up in the
    middle; ``change``: BaseMotion fields replaced."""
    model = load_model(QUAD)
    t = np.linspace(0, 0.2, n)
    w = 2 * np.pi * 2.5
    Vb = np.zeros((n, 4, 6))
    for k in range(4):
        Vb[:, k, 3] = 0.01 * w ** (k + 1) * np.cos(w * t + k * np.pi / 2)
    p = np.stack([0.01 * np.sin(w * t), 0 * t, 0.3 + 0 * t], axis=1)
    q = np.zeros((n, 5, 12))
    q[:, 0] = np.tile([0.0, 0.8, -1.6], 4)
    up = np.ones(n)
    up[8:14] = 0
    R = np.broadcast_to(np.eye(3), (n, 3, 3)).copy()
    base = {"R": R, "p": p, "Vb": Vb} | change
    motion = object.__new__(BaseMotion)  # unchecked: the corpus writes bad ones on purpose
    for key, value in base.items():
        object.__setattr__(motion, key, value)
    return Trajectory(model.joint_names, q, t, series={"contact_FL": up}, base=motion)


def write_floating(path: Path, traj: Trajectory, drop: str | None = None, add=None) -> None:
    """The trajectory with its base columns (CSV or HDF5); ``drop``: a CSV column left out,
    ``add(f)``: a change to the HDF5 file."""
    data, columns = trajectory_datasets(traj)
    more, cols = base_datasets(traj)
    with open_sink(str(path), columns | cols, {"joint_names": list(traj.joint_names)}) as sink:
        sink.write(data | more)
    if drop is not None:
        c = path.read_text().split("\n", 1)[0].split(",").index(drop)
        path.write_text(csv_text(str(path), lambda k, cells: cells.pop(c)))
    if add is not None:
        with h5py.File(path, "a") as f:
            add(f)


def bag(path: Path, messages: list[tuple], *, ros1: bool = False, topics=("/joint_states",),
        msgtype: str = "sensor_msgs/msg/JointState") -> None:
    """A log written by the rosbags library: ``messages`` = (names, positions[, velocities])
    at 100 Hz, on every topic of ``topics`` (ROS 1 .bag, else a ROS 2 bag with MCAP storage)."""
    from rosbags.rosbag1 import Writer as Writer1
    from rosbags.rosbag2 import StoragePlugin
    from rosbags.rosbag2 import Writer as Writer2
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
    T = store.types
    JS, Header, Time = (T["sensor_msgs/msg/JointState"], T["std_msgs/msg/Header"],
                        T["builtin_interfaces/msg/Time"])
    serialize = store.serialize_ros1 if ros1 else store.serialize_cdr

    def message(s: int, names, position, velocity=()):
        ns = 1_700_000_000 * 10**9 + s * 10**7
        stamp = Time(sec=ns // 10**9, nanosec=ns % 10**9)
        header = Header(seq=s, stamp=stamp, frame_id="") if ros1 else \
            Header(stamp=stamp, frame_id="")
        if msgtype != JS.__msgtype__:
            return ns, T[msgtype](data="x")
        return ns, JS(header=header, name=list(names), position=np.array(position, float),
                      velocity=np.array(velocity, float), effort=np.array([], float))

    writer = Writer1(path) if ros1 else Writer2(path, version=9,
                                                storage_plugin=StoragePlugin.MCAP)
    with writer as w:
        conns = [w.add_connection(topic, msgtype, typestore=store) for topic in topics]
        for s, spec in enumerate(messages):
            ns, msg = message(s, *spec)
            for conn in conns:
                w.write(conn, ns, serialize(msg, msgtype))


def good_messages(n: int = 20) -> list[tuple]:
    return [(["joint1", "joint2"], [0.01 * s, 0.2], [1.0, 0.0]) for s in range(n)]


def with_message(k: int, message: tuple, n: int = 20) -> list[tuple]:
    out = good_messages(n)
    out[k] = message
    return out


def build(folder: Path) -> None:
    """Every file the cases read, in ``folder``."""
    w = folder
    text = {
        # drives files
        "deep_array.toml": "[joints.joint1]\ngear_ratio = " + "[" * DEEP + "]" * DEEP + "\n",
        "deep_table.toml": "[joints.joint1]\ngear_ratio = " + "{a = " * DEEP + "1" + "}" * DEEP,
        "huge_ratio.toml": drives(gear_ratio=1e308, rotor_inertia=1e-4),
        "huge_inertia.toml": drives(gear_ratio=100, rotor_inertia=1e300),
        "tiny_ratio.toml": drives(gear_ratio=1e-320, rotor_inertia=1e-4),
        "inf_inertia.toml": drives(gear_ratio=100, rotor_inertia="inf"),
        "nan_ratio.toml": drives(gear_ratio="nan", rotor_inertia=1e-4),
        "no_joint.toml": toml("joints.joint9", gear_ratio=100),
        "typo_key.toml": drives(gear_ratoi=100),
        "text_ratio.toml": drives(gear_ratio='"100"'),
        "zero_axis.toml": drives(gear_ratio=100, rotor_axis="[0, 0, 0]"),
        "short_axis.toml": drives(gear_ratio=100, rotor_axis="[1, 0]"),
        "huge_axis.toml": drives(gear_ratio=100, rotor_axis="[1e308, 1e308, 0]"),
        "side.toml": drives(gear_ratio=100, friction_side='"both"'),
        "efficiency.toml": drives(gear_ratio=100, gear_efficiency=1.5),
        "empty.toml": "",
        "tiny_kt.toml": drives(gear_ratio=100, torque_constant=1e-320),
        "huge_offset.toml": drives(gear_ratio=100, offset=-1e308),
        "coulomb.toml": drives(gear_ratio=100, coulomb=2.0),
        "joints_number.toml": "joints = 5\n",
        "twice.toml": "[joints.joint1]\ngear_ratio = 1\ngear_ratio = 2\n",
        "huge_stiffness.toml": drives(gear_ratio=100, rotor_inertia=1e-4, stiffness=1e308),
        # limits files
        "huge_torque.toml": limits(torque=1e308),
        "tiny_rate.toml": limits(torque_rate=1e-320),
        "reversed.toml": limits(position="[1.0, -1.0]"),
        "wide.toml": limits(position="[-1e308, 1e308]"),
        "negative.toml": limits(velocity=-1),
        "rates.toml": limits(torque_rates=100),
        "deep_limits.toml": "[joints.joint1]\ntorque = " + "[" * DEEP + "]" * DEEP + "\n",
        "current.toml": limits(current="true"),
        "nan_speed.toml": limits(motor_speed="nan"),
        "locked.toml": toml("joints.joint2", torque=10),
        "huge_acceleration.toml": limits(torque_acceleration=1e31),
        # contacts files
        "no_link.toml": toml("contacts.FL", type='"point"', friction=0.8),
        "bad_link.toml": contacts(link='"FL_toe"'),
        "huge_mu.toml": contacts(friction=1e308),
        "flat_sole.toml": toml("contacts.LF", link='"FL_foot"', type='"surface"', friction=0.8,
                               sole="[0.0, 0.1]"),
        "line.toml": contacts(type='"line"'),
        "spaced.toml": toml('contacts."left foot"', link='"FL_foot"', type='"point"',
                            friction=0.8),
        "zero_normal.toml": contacts(normal="[0, 0, 0]"),
        "tiny_weight.toml": contacts(weight=1e-320),
        "far.toml": contacts(position="[1e308, 0, 0]"),
        "deep_contacts.toml": "[contacts.FL]\nfriction = " + "[" * DEEP + "]" * DEEP + "\n",
        "rpy_point.toml": contacts(rpy="[0, 0, 0]"),
        # xacro robots
        "exponential.xacro": exponential(40),
        "large.xacro": exponential(6),
        "memory.xacro": xacro('<link name="${\'x\' * 10**12}"/>'),
        "forever.xacro": xacro('<link name="${9**9**9**9}"/>'),
        "undefined.xacro": xacro('<link name="${undefined_property}"/>'),
        "warned.xacro": xacro('<xacro:property name="len" value="1"/>'
                              '<link name="${undefined_property}"/>'),
        "include.xacro": xacro('<xacro:include filename="no_such_part.xacro"/>'),
        "find.xacro": xacro('<xacro:include filename="$(find no_such_pkg)/x.xacro"/>'),
        "arg.xacro": xacro('<link name="$(arg no_such_arg)"/>'),
        "env.xacro": xacro('<link name="$(env HODYN_NO_SUCH_VARIABLE)"/>'),
        "broken.xacro": xacro('<link name="a">'),
        "recursive.xacro": xacro('<xacro:macro name="r"><xacro:r/></xacro:macro><xacro:r/>'),
        "twice.xacro": xacro('<link name="a"/><link name="a"/>'),
        # CSV oddities
        "dup_header.csv": csv_text(P2R_CSV, rename("qd_joint1", "q_joint1")),
        "empty_name.csv": csv_text(P2R_CSV, rename("qd_joint1", "")),
        "fields.csv": csv_text(P2R_CSV, lambda k, c: c.append("1") if k == 4 else None),
        "word.csv": csv_text(P2R_CSV, cell(3, "qdd_joint2", "abc")),
        "nan.csv": csv_text(P2R_CSV, cell(3, "qd_joint2", "nan")),
        "inf.csv": csv_text(P2R_CSV, cell(3, "qd_joint2", "-inf")),
        "huge.csv": csv_text(P2R_CSV, cell(3, "qd_joint2", "1e300")),
        # two values of 1e308 in a row: their sum overflows (a RuntimeWarning was printed)
        "huge_pair.csv": csv_text(P2R_CSV, lambda k, c: (cell(3, "q_joint1", "1e308")(k, c),
                                                         cell(3, "qd_joint2", "1e308")(k, c))),
        "speed.toml": limits(velocity=2, torque=50),
        "backwards.csv": csv_text(P2R_CSV, cell(3, "t", "0")),
        "header_only.csv": Path(P2R_CSV).read_text().split("\n", 1)[0] + "\n",
        "unknown_joint.csv": csv_text(P2R_CSV, rename("qd_joint1", "q_joint9")),
        "empty.csv": "",
        "quoted.csv": csv_text(P2R_CSV, cell(3, "q_joint1", '"1\n2"')),
        # a 10 MB header name and a 10 MB value: over Python's CSV field limit (was exit 3)
        "long_name.csv": csv_text(P2R_CSV, rename("qd_joint1", "q" * 10_000_000)),
        "long_field.csv": csv_text(P2R_CSV, cell(3, "qd_joint2", "1" * 10_000_000)),
        # a 100 kB column name under the field limit: named, shortened (it made a 200 kB line)
        "long_joint.csv": csv_text(P2R_CSV, rename("qd_joint1", "q_joint" + "z" * 100_000)),
        # wrench files
        "wrench_link.csv": "t,W_nolink_mx,W_nolink_my,W_nolink_mz,W_nolink_fx,W_nolink_fy,"
                           "W_nolink_fz\n0,0,0,0,0,0,0\n",
        "wrench_part.csv": "W_link2_mx,W_link2_my,W_link2_mz,W_link2_fx,W_link2_fy\n0,0,0,0,0\n",
        "wrench_extra.csv": "q_joint1,W_link2_mx,W_link2_my,W_link2_mz,W_link2_fx,W_link2_fy,"
                            "W_link2_fz\n0,0,0,0,0,0,0\n",
        # lists of inputs
        "missing.list": "no_such_motion.h5\n",
        "dir.list": f"{w / 'batch'}\n",
        "empty.list": "\n\n",
        "stdin.list": "-\n",
    }
    for name, content in text.items():
        (w / name).write_text(content)
    (w / "utf.toml").write_bytes(b"[joints.joint1]\ngear_ratio = \xff\xfe\n")
    (w / "latin.csv").write_bytes(Path(P2R_CSV).read_bytes().replace(b"\n0.01,", b"\n0.01\xe9,", 1))
    (w / "nul.csv").write_bytes(b"t,q_joint1\x00\x00\n\x00\x00\x01\n")
    (w / "latin.list").write_bytes(b"caf\xe9.h5\n")
    (w / "not.h5").write_text("t,q\n0,1\n")
    (w / "garbage.bag").write_bytes(b"#ROSBAG V2.0\n" + bytes(range(256)) * 8)
    (w / "garbage.mcap").write_bytes(b"\x89MCAP0\r\n" + bytes(200))
    (w / "empty_log").mkdir()

    # wrench files that do not fit the trajectory
    n = len(Path(P2R_CSV).read_text().splitlines()) - 1
    t = np.arange(n) * 0.01
    head = "t," + ",".join(f"W_link2_{c}" for c in ("mx", "my", "mz", "fx", "fy", "fz"))
    (w / "wrench_short.csv").write_text(head + "\n" + "".join(
        f"{x:.2f},0,0,0,0,0,1\n" for x in t[:-3]))
    (w / "wrench_late.csv").write_text(head + "\n" + "".join(
        f"{x + 0.5:.2f},0,0,0,0,0,1\n" for x in t))
    (w / "wrench_nan.csv").write_text(head + "\n" + "".join(
        f"{x:.2f},0,0,0,0,0,{'nan' if k == 7 else 1}\n" for k, x in enumerate(t)))

    # HDF5 trajectories
    q = h5py.File(P2R_HIGH, "r")["q_derivatives"][:]
    h5_copy(w / "repeat_compact.h5", P2R_HIGH, lambda f: (
        _replace("q_derivatives", np.concatenate([q, q[:, :, :1]], axis=2))(f),
        _attr("joint_names", ["joint1", "joint2", "joint1"])(f)))
    h5_copy(w / "repeat_plain.h5", P2R_H5, lambda f: [
        _replace(k, np.concatenate([f[k][:], f[k][:, :1]], axis=1))(f)
        for k in ("q", "qd", "qdd", "qddd", "qdddd", "qddddd", "qdddddd")] + [
        _attr("joint_names", ["joint2", "joint1", "joint2"])(f)])
    h5_copy(w / "flat_compact.h5", P2R_HIGH, _replace("q_derivatives", q[:, 0]))
    h5_copy(w / "joints_compact.h5", P2R_HIGH, _replace("q_derivatives", q[:, :, :1]))
    h5_copy(w / "text_compact.h5", P2R_HIGH, _replace(
        "q_derivatives", np.full(q.shape, "x", dtype="S1")))
    h5_copy(w / "both_layouts.h5", P2R_HIGH, lambda f: f.create_dataset("q", data=q[:, 0]))
    h5_copy(w / "no_names.h5", P2R_HIGH, lambda f: f.attrs.__delitem__("joint_names"))
    h5_copy(w / "short_t.h5", P2R_HIGH, lambda f: _replace("t", f["t"][:-5])(f))
    h5_copy(w / "no_samples.h5", P2R_H5, lambda f: [_replace(k, f[k][:0])(f) for k in list(f)])
    bad = q.copy()
    bad[17, 3, 1] = np.nan
    h5_copy(w / "nan_compact.h5", P2R_HIGH, _replace("q_derivatives", bad))
    h5_copy(w / "few_orders.h5", P2R_HIGH, _replace("q_derivatives", q[:, :3]))
    h5_copy(w / "table_t.h5", P2R_HIGH, lambda f: _replace("t", f["t"][:][:, None])(f))
    h5_copy(w / "wrench_dataset.h5", P2R_H5, lambda f: f.create_dataset(
        "wrench/link2/F", data=np.zeros((len(f["t"]), 6))))

    # a floating root's motion
    walk = floating()
    write_floating(w / "walk.csv", walk)
    zero = floating(R=np.zeros((21, 3, 3)))
    write_floating(w / "zero_R.csv", zero)
    write_floating(w / "zero_R.h5", zero)
    write_floating(w / "double_R.csv", floating(R=2 * walk.base.R))
    write_floating(w / "mirror_R.h5", floating(R=walk.base.R * np.array([1, 1, -1])[:, None]))
    write_floating(w / "no_pz.csv", walk, drop="base_p_z")
    write_floating(w / "no_wz.csv", walk, drop="base_Vbd_wz")
    p = walk.base.p.copy()
    p[5, 2] = np.nan
    write_floating(w / "nan_p.csv", floating(p=p))
    write_floating(w / "flat_R.h5", walk, add=_replace("base_R", walk.base.R.reshape(-1, 9)))
    flags = {"contact_FL": np.where(np.arange(21) == 4, 0.5, 1.0)}
    write_floating(w / "half_flag.csv", Trajectory(walk.joint_names, walk.derivatives, walk.t,
                                                   series=flags, base=walk.base))
    write_floating(w / "stranger.csv", Trajectory(walk.joint_names, walk.derivatives, walk.t,
                                                  series={"contact_XX": np.ones(21)},
                                                  base=walk.base))
    joints = Trajectory(walk.joint_names, walk.derivatives, walk.t)
    write_floating(w / "joints.csv", joints)
    short = floating(16)
    write_floating(w / "base_short.csv", Trajectory(walk.joint_names, short.derivatives,
                                                    short.t, base=short.base))
    late = floating()
    write_floating(w / "base_late.csv", Trajectory(walk.joint_names, late.derivatives,
                                                   late.t + 1.0, base=late.base))

    # a motion that never moves
    with h5py.File(w / "still.h5", "w") as f:
        f["t"] = np.arange(50) * 0.01
        for k, key in enumerate(("q", "qd", "qdd", "qddd", "qdddd")):
            f[key] = np.full((50, 2), 0.3 if k == 0 else 0.0)
        f.attrs["joint_names"] = ["joint1", "joint2"]

    with h5py.File(w / "still_iiwa.h5", "w") as f:
        f["t"] = np.arange(50) * 0.01
        for k, key in enumerate(("q", "qd", "qdd", "qddd", "qdddd")):
            f[key] = np.full((50, 7), 0.4 if k == 0 else 0.0)
        f.attrs["joint_names"] = [f"iiwa_joint_{j}" for j in range(1, 8)]

    # logs
    nan = ["joint1", "joint2"], [np.nan, 0.2], [1.0, 0.0]
    bag(w / "nan_position", with_message(5, nan))
    bag(w / "inf_velocity", with_message(6, (["joint1", "joint2"], [0.1, 0.2], [0, np.inf])))
    bag(w / "repeated", with_message(3, (["joint1", "joint1", "joint2"], [0.1, 0.5, 0.2],
                                         [0.0, 0.0, 0.0])))
    bag(w / "repeated_first.bag", with_message(0, (["joint1", "joint1", "joint2"],
                                                   [0.1, 0.5, 0.2])), ros1=True)
    bag(w / "silent", [])
    bag(w / "strings", [((), ())] * 3, msgtype="std_msgs/msg/String")
    bag(w / "lengths.bag", with_message(4, (["joint1", "joint2"], [0.1], [0.0, 0.0])), ros1=True)
    bag(w / "no_position", with_message(0, (["joint1", "joint2"], [])))
    bag(w / "topics", good_messages(), topics=("/left/joint_states", "/right/joint_states"))
    whole = (w / "good.bag")
    bag(whole, good_messages(200), ros1=True)
    (w / "truncated.bag").write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    (w / "batch").mkdir()
    for name in ("a.csv", "b.csv"):
        shutil.copy(P2R_CSV, w / "batch" / name)
    shutil.copy(P2R_H5, w / "batch" / "a.h5")
    (w / "into_inputs.list").write_text(f"{w / 'batch' / 'a.csv'}\n")


@pytest.fixture(scope="module")
def workshop(tmp_path_factory) -> Path:
    pytest.importorskip("rosbags")
    folder = tmp_path_factory.mktemp("hostile")
    build(folder)
    return folder


# -- the cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """``args`` of a hodyn command ({W}: the folder of the files above, {O}: a folder for
    outputs holding out.csv and out.h5 from an earlier run); the error line must contain
    every one of ``says``; ``bounds``: the xacro bounds set lower for the case (the time
    bound at 1 s, not 20: the case ends sooner)."""

    name: str
    args: str
    says: tuple[str, ...]
    bounds: tuple[tuple[str, float], ...] = ()


def case(name: str, args: str, *says: str, **bounds: float):
    return pytest.param(Case(name, args, says, tuple(bounds.items())), id=name)


OUT = "-o {O}/out.csv"
DRIVES = f"compute {P2R} {P2R_H5} --order 1 {OUT} --drives {{W}}/"
LIMITS = f"check {P2R} {P2R_H5} --limits {{W}}/"
RETIME = f"retime {P2R} {P2R_H5} -o {{O}}/out.h5 --to-limits --limits {{W}}/"
CONTACTS = f"compute {QUAD} {{W}}/walk.csv --floating-base --order 1 {OUT} --contacts {{W}}/"
FLOAT = f"compute {QUAD} {{W}}/@ --floating-base --order 1 {OUT}"
TRAJ = f"compute {P2R} {{W}}/@ --order 1 {OUT}"
IMPORT = f"import {{W}}/@ {OUT}"
MANY = f"compute {P2R} --output-dir {{O}}/many --quiet"
WRENCH = f"compute {P2R} {P2R_CSV} --order 0 {OUT} --wrench {{W}}/"

CASES = [
    # drives files
    case("drives nested arrays", DRIVES + "deep_array.toml", "deep_array.toml", "nested"),
    case("drives nested tables", DRIVES + "deep_table.toml", "deep_table.toml", "nested"),
    case("drives huge gear ratio", DRIVES + "huge_ratio.toml", "huge_ratio.toml", "joint1",
         "gear_ratio"),
    case("drives huge rotor inertia", DRIVES + "huge_inertia.toml", "huge_inertia.toml",
         "joint1", "rotor_inertia"),
    case("drives subnormal gear ratio", DRIVES + "tiny_ratio.toml", "tiny_ratio.toml", "joint1",
         "gear_ratio"),
    case("drives infinite inertia", DRIVES + "inf_inertia.toml", "inf_inertia.toml", "joint1",
         "rotor_inertia"),
    case("drives nan", DRIVES + "nan_ratio.toml", "nan_ratio.toml", "joint1", "gear_ratio"),
    case("drives unknown joint", DRIVES + "no_joint.toml", "no_joint.toml", "joint9"),
    case("drives unknown key", DRIVES + "typo_key.toml", "typo_key.toml", "joint1", "gear_ratoi"),
    case("drives text value", DRIVES + "text_ratio.toml", "text_ratio.toml", "gear_ratio"),
    case("drives zero rotor axis", DRIVES + "zero_axis.toml", "zero_axis.toml", "rotor_axis"),
    case("drives short rotor axis", DRIVES + "short_axis.toml", "short_axis.toml", "rotor_axis"),
    case("drives huge rotor axis", DRIVES + "huge_axis.toml", "huge_axis.toml", "rotor_axis"),
    case("drives friction side", DRIVES + "side.toml", "side.toml", "friction_side"),
    case("drives efficiency", DRIVES + "efficiency.toml", "efficiency.toml", "gear_efficiency"),
    case("drives empty file", DRIVES + "empty.toml", "empty.toml", "[joints.<name>]"),
    case("drives not UTF-8", DRIVES + "utf.toml", "utf.toml", "UTF-8"),
    case("drives subnormal torque constant", DRIVES + "tiny_kt.toml", "tiny_kt.toml",
         "torque_constant"),
    case("drives huge offset", DRIVES + "huge_offset.toml", "huge_offset.toml", "offset"),
    case("drives coulomb alone", DRIVES + "coulomb.toml", "coulomb.toml", "coulomb_velocity"),
    case("drives joints a number", DRIVES + "joints_number.toml", "joints_number.toml", "joints"),
    case("drives key twice", DRIVES + "twice.toml", "twice.toml", "gear_ratio"),
    case("elastic huge stiffness", f"elastic {P2R} {P2R_HIGH} {OUT} --drives {{W}}/"
         "huge_stiffness.toml", "huge_stiffness.toml", "stiffness"),
    # limits files
    case("limits huge torque", LIMITS + "huge_torque.toml", "huge_torque.toml", "torque"),
    case("limits subnormal rate", RETIME + "tiny_rate.toml", "tiny_rate.toml", "torque_rate"),
    case("limits reversed position", LIMITS + "reversed.toml", "reversed.toml", "position"),
    case("limits huge position", LIMITS + "wide.toml", "wide.toml", "position"),
    case("limits negative velocity", LIMITS + "negative.toml", "negative.toml", "velocity"),
    case("limits typo", LIMITS + "rates.toml", "rates.toml", "torque_rates"),
    case("limits nested arrays", LIMITS + "deep_limits.toml", "deep_limits.toml", "nested"),
    case("limits boolean", LIMITS + "current.toml", "current.toml", "current"),
    case("limits nan", LIMITS + "nan_speed.toml", "nan_speed.toml", "motor_speed"),
    case("limits locked joint", LIMITS + "locked.toml --lock joint2=0.1", "locked.toml",
         "joint2"),
    case("limits huge acceleration", RETIME + "huge_acceleration.toml", "huge_acceleration.toml",
         "torque_acceleration"),
    case("retime infinite factor", f"retime {P2R} {P2R_H5} -o {{O}}/out.h5 --factor inf",
         "--factor"),
    case("retime huge factor", f"retime {P2R} {P2R_H5} -o {{O}}/out.h5 --factor 1e308",
         "--factor"),
    case("retime subnormal factor", f"retime {P2R} {P2R_H5} -o {{O}}/out.h5 --factor 1e-308",
         "--factor"),
    case("gravity not a number", f"compute {P2R} {P2R_H5} {OUT} --gravity nan,0,0",
         "--gravity", "nan"),
    case("gravity huge", f"compute {P2R} {P2R_H5} {OUT} --gravity 0,0,1e308", "--gravity",
         "1e308"),
    case("generate infinite rate", f"generate {P2R} --kind cosine {OUT} --rate inf", "--rate"),
    case("generate huge duration", f"generate {P2R} --kind cosine {OUT} --duration 1e308",
         "--duration"),
    case("generate infinite step", f"generate {P2R} --kind filtered-step {OUT} --step inf",
         "--step"),
    case("generate infinite frequency", f"generate {P2R} --kind fourier {OUT} "
         "--base-frequency inf", "--base-frequency"),
    case("generate derivatives overflow", f"generate {P2R} --kind fourier {OUT} "
         "--base-frequency 1e20 --derivatives 16 --allow-limit-violation",
         "qdddddddddddddddd_joint1", "overflows"),
    case("validate tolerance not a number", f"validate {P2R} {P2R_H5} --rtol nan "
         "--report {O}/report.json", "--rtol", "nan"),
    case("output a folder", f"compute {P2R} {P2R_H5} -o {{O}}", "is a directory"),
    case("retime a still motion", f"retime {P2R} {{W}}/still.h5 -o {{O}}/out.h5 --to-limits",
         "still.h5", "never moves"),
    # (a torque acceleration limit: rounding in the still motion's laws played it 5e8 times
    # faster, exit 0)
    case("retime a still motion, torque acceleration", f"retime {IIWA} {{W}}/still_iiwa.h5 -o "
         f"{{O}}/out.h5 --to-limits --limits {IIWA_LIMITS}", "still_iiwa.h5", "never moves"),
    # contacts files
    case("contacts no link", CONTACTS + "no_link.toml", "no_link.toml", "FL", "link"),
    case("contacts unknown link", CONTACTS + "bad_link.toml", "bad_link.toml", "FL_toe"),
    case("contacts huge friction", CONTACTS + "huge_mu.toml", "huge_mu.toml", "friction"),
    case("contacts flat sole", CONTACTS + "flat_sole.toml", "flat_sole.toml", "LF", "sole"),
    case("contacts type", CONTACTS + "line.toml", "line.toml", "type"),
    case("contacts name with a space", CONTACTS + "spaced.toml", "spaced.toml", "left foot"),
    case("contacts zero normal", CONTACTS + "zero_normal.toml", "zero_normal.toml", "normal"),
    case("contacts subnormal weight", CONTACTS + "tiny_weight.toml", "tiny_weight.toml",
         "weight"),
    case("contacts huge position", CONTACTS + "far.toml", "far.toml", "position"),
    case("contacts nested arrays", CONTACTS + "deep_contacts.toml", "deep_contacts.toml",
         "nested"),
    case("contacts rpy on a point", CONTACTS + "rpy_point.toml", "rpy_point.toml", "rpy"),
    case("contacts unknown flag column", f"compute {QUAD} {{W}}/stranger.csv --floating-base "
         f"{OUT} --order 1 --contacts {FEET}", "stranger.csv", "contact_XX"),
    case("contacts flag neither 1 nor 0", f"compute {QUAD} {{W}}/half_flag.csv --floating-base "
         f"{OUT} --order 1 --contacts {FEET}", "half_flag.csv", "contact_FL"),
    # xacro robots
    case("xacro exponential", f"compute {{W}}/exponential.xacro {P2R_H5} {OUT}",
         "exponential.xacro", "stopped after 1 s", SECONDS=1.0),
    case("xacro endless expression", f"compute {{W}}/forever.xacro {P2R_H5} {OUT}",
         "forever.xacro", "stopped after 1 s", SECONDS=1.0),
    case("xacro too large", f"compute {{W}}/large.xacro {P2R_H5} {OUT}", "large.xacro",
         "more than the bound of 1,000", LARGEST=1000),
    case("xacro out of memory", f"compute {{W}}/memory.xacro {P2R_H5} {OUT}", "memory.xacro",
         "out of memory"),
    case("xacro undefined property", f"compute {{W}}/undefined.xacro {P2R_H5} {OUT}",
         "undefined.xacro", "undefined_property"),
    case("xacro warning then error", f"compute {{W}}/warned.xacro {P2R_H5} {OUT}",
         "warned.xacro", "undefined_property"),
    case("xacro missing include", f"compute {{W}}/include.xacro {P2R_H5} {OUT}",
         "include.xacro", "no_such_part.xacro"),
    case("xacro find", f"compute {{W}}/find.xacro {P2R_H5} {OUT}", "find.xacro",
         "no_such_pkg"),
    case("xacro missing arg", f"compute {{W}}/arg.xacro {P2R_H5} {OUT}", "arg.xacro",
         "no_such_arg"),
    case("xacro unset variable", f"compute {{W}}/env.xacro {P2R_H5} {OUT}", "env.xacro",
         "HODYN_NO_SUCH_VARIABLE"),
    case("xacro not well-formed", f"compute {{W}}/broken.xacro {P2R_H5} {OUT}", "broken.xacro",
         "xacro"),
    case("xacro endless recursion", f"compute {{W}}/recursive.xacro {P2R_H5} {OUT}",
         "recursive.xacro", "recursion"),
    case("xacro link twice", f"compute {{W}}/twice.xacro {P2R_H5} {OUT}", "twice.xacro",
         "link 'a'"),
    case("xacro argument without :=", f"compute {{W}}/twice.xacro {P2R_H5} {OUT} "
         "--xacro-arg prefix", "--xacro-arg", "prefix"),
    # ROS bags and MCAP
    case("log nan position", IMPORT.replace("@", "nan_position") + f" --urdf {P2R}", "nan_position",
         "joint1", "position"),
    case("log infinite velocity", IMPORT.replace("@", "inf_velocity"), "inf_velocity", "joint2",
         "velocit"),
    case("log joint twice", IMPORT.replace("@", "repeated") + f" --urdf {P2R}", "repeated", "joint1",
         "twice"),
    case("log joint twice in the first message", IMPORT.replace("@", "repeated_first.bag"),
         "repeated_first.bag", "joint1", "twice"),
    case("log without messages", IMPORT.replace("@", "silent"), "silent", "no messages"),
    case("log without JointState", IMPORT.replace("@", "strings"), "strings", "JointState"),
    case("log not a bag", IMPORT.replace("@", "garbage.bag"), "garbage.bag", "bag"),
    case("log not MCAP", IMPORT.replace("@", "garbage.mcap"), "garbage.mcap", "MCAP"),
    case("log truncated", IMPORT.replace("@", "truncated.bag"), "truncated.bag", "bag"),
    case("log names and positions", IMPORT.replace("@", "lengths.bag"), "lengths.bag", "position"),
    case("log without positions", IMPORT.replace("@", "no_position"), "no_position", "position"),
    case("log model joint missing", IMPORT.replace("@", "silent") + f" --urdf {IIWA}", "silent"),
    case("log several topics", IMPORT.replace("@", "topics"), "topics", "--topic"),
    case("log unknown topic", IMPORT.replace("@", "topics") + " --topic /joint_state", "topics",
         "/joint_state"),
    case("log empty folder", IMPORT.replace("@", "empty_log"), "empty_log", "bag"),
    # HDF5 trajectories, the compact layout
    case("compact joint named twice", TRAJ.replace("@", "repeat_compact.h5"), "repeat_compact.h5",
         "joint1", "twice"),
    case("plain joint named twice", TRAJ.replace("@", "repeat_plain.h5"), "repeat_plain.h5",
         "joint2", "twice"),
    case("compact 2-D", TRAJ.replace("@", "flat_compact.h5"), "flat_compact.h5", "q_derivatives"),
    case("compact joints", TRAJ.replace("@", "joints_compact.h5"), "joints_compact.h5",
         "q_derivatives"),
    case("compact text", TRAJ.replace("@", "text_compact.h5"), "text_compact.h5", "q_derivatives"),
    case("compact and plain", TRAJ.replace("@", "both_layouts.h5"), "both_layouts.h5",
         "q_derivatives"),
    case("compact without names", TRAJ.replace("@", "no_names.h5"), "no_names.h5", "joint_names"),
    case("datasets of 0 rows", TRAJ.replace("@", "no_samples.h5"), "no_samples.h5", "0 rows"),
    case("compact lengths", TRAJ.replace("@", "short_t.h5"), "short_t.h5", "length"),
    case("compact nan", TRAJ.replace("@", "nan_compact.h5"), "nan_compact.h5", "qddd_joint2",
         "sample 17"),
    case("compact too few orders", TRAJ.replace("@", "few_orders.h5"), "few_orders.h5", "qddd"),
    case("compact t a table", TRAJ.replace("@", "table_t.h5"), "table_t.h5", "'t'"),
    case("hdf5 that is text", TRAJ.replace("@", "not.h5"), "not.h5", "HDF5"),
    # a floating root's columns
    case("base R all zeros", FLOAT.replace("@", "zero_R.csv"), "zero_R.csv", "base_R"),
    case("base R all zeros (HDF5)", FLOAT.replace("@", "zero_R.h5"), "zero_R.h5", "base_R"),
    case("base R scaled", FLOAT.replace("@", "double_R.csv"), "double_R.csv", "base_R"),
    case("base R a reflection", FLOAT.replace("@", "mirror_R.h5"), "mirror_R.h5", "base_R"),
    case("base p_z missing", FLOAT.replace("@", "no_pz.csv"), "no_pz.csv", "base_p_z"),
    case("base twist derivative missing", FLOAT.replace("@", "no_wz.csv"), "no_wz.csv",
         "base_Vbd_wz"),
    case("base nan", FLOAT.replace("@", "nan_p.csv"), "nan_p.csv", "base_p_z", "sample 5"),
    case("base R flat (HDF5)", FLOAT.replace("@", "flat_R.h5"), "flat_R.h5", "base_R"),
    case("base motion shorter", FLOAT.replace("@", "joints.csv") + " --base-motion {W}/base_short.csv",
         "base_short.csv", "samples"),
    case("base motion later", FLOAT.replace("@", "joints.csv") + " --base-motion {W}/base_late.csv",
         "base_late.csv", "t differs"),
    # many files
    case("list names a missing file", MANY + " --from-list {W}/missing.list",
         "no_such_motion.h5"),
    case("list output is an input", f"compute {P2R} --from-list {{W}}/into_inputs.list "
         "--output-dir {W}/batch --quiet", "a.csv", "input"),
    case("list empty", MANY + " --from-list {W}/empty.list", "empty.list"),
    case("list names a folder", MANY + " --from-list {W}/dir.list", "batch", "directory"),
    case("list not UTF-8", MANY + " --from-list {W}/latin.list", "latin.list", "UTF-8"),
    case("list names stdin", MANY + " --from-list {W}/stdin.list", "'-'"),
    case("list missing", MANY + " --from-list {W}/no_such.list", "no_such.list"),
    case("output dir is the inputs' folder", f"compute {P2R} {{W}}/batch/a.csv {{W}}/batch/b.csv "
         "--output-dir {W}/batch", "a.csv", "input"),
    case("output dir is a file", f"compute {P2R} {{W}}/batch/a.csv --output-dir {{O}}/out.csv",
         "out.csv", "directory"),
    case("outputs collide", f"compute {P2R} {{W}}/batch/a.csv {{W}}/batch/a.h5 --output-dir "
         "{O}/many --format csv", "a.h5", "a.csv"),
    # wrench files
    case("wrench unknown link", WRENCH + "wrench_link.csv", "wrench_link.csv", "nolink"),
    case("wrench incomplete", WRENCH + "wrench_part.csv", "wrench_part.csv", "W_link2_fz"),
    case("wrench sample count", WRENCH + "wrench_short.csv", "wrench_short.csv", "samples"),
    case("wrench times", WRENCH + "wrench_late.csv", "wrench_late.csv", "t differs"),
    case("wrench nan", WRENCH + "wrench_nan.csv", "wrench_nan.csv", "W_link2_fz", "sample 7"),
    case("wrench foreign column", WRENCH + "wrench_extra.csv", "wrench_extra.csv", "q_joint1"),
    case("wrench dataset", f"compute {P2R} {{W}}/wrench_dataset.h5 --order 0 {OUT}",
         "wrench_dataset.h5", "wrench/link2/F"),
    # CSV oddities
    case("csv column twice", TRAJ.replace("@", "dup_header.csv"), "dup_header.csv", "q_joint1"),
    case("csv empty column name", TRAJ.replace("@", "empty_name.csv"), "empty_name.csv", "empty"),
    case("csv extra field", TRAJ.replace("@", "fields.csv"), "fields.csv", "line 5"),
    case("csv word", TRAJ.replace("@", "word.csv"), "word.csv", "qdd_joint2", "line 4"),
    case("csv nan", TRAJ.replace("@", "nan.csv"), "nan.csv", "qd_joint2", "line 4"),
    case("csv infinity", TRAJ.replace("@", "inf.csv"), "inf.csv", "qd_joint2", "line 4"),
    case("csv huge velocity", TRAJ.replace("@", "huge.csv"), "huge.csv", "t = 0.02 s",
         "qd_joint2 = 1e+300"),
    case("csv huge velocity, spatial method", TRAJ.replace("@", "huge.csv") + " --method "
         "spatial", "huge.csv", "t = 0.02 s", "qd_joint2 = 1e+300"),
    case("matrices huge velocity", f"matrices {P2R} {{W}}/huge.csv -o {{O}}/out.h5",
         "huge.csv", "t = 0.02 s", "qd_joint2 = 1e+300"),
    case("validate huge velocity", f"validate {P2R} {{W}}/huge.csv --method all "
         "--report {O}/report.json", "huge.csv", "qd_joint2 = 1e+300"),
    case("check huge velocity", f"check {P2R} {{W}}/huge.csv", "huge.csv", "t = 0.02 s",
         "qd_joint2 = 1e+300"),
    case("retime huge velocity", f"retime {P2R} {{W}}/huge.csv --to-limits {OUT}", "huge.csv",
         "t = 0.02 s", "qd_joint2 = 1e+300"),
    case("csv time backwards", TRAJ.replace("@", "backwards.csv"), "backwards.csv", "'t'", "line 4"),
    case("csv header only", TRAJ.replace("@", "header_only.csv"), "header_only.csv", "no data"),
    case("csv not UTF-8", TRAJ.replace("@", "latin.csv"), "latin.csv", "UTF-8"),
    case("csv unknown joint", TRAJ.replace("@", "unknown_joint.csv"), "unknown_joint.csv", "joint9"),
    case("csv empty", TRAJ.replace("@", "empty.csv"), "empty.csv", "empty"),
    case("csv NUL bytes", TRAJ.replace("@", "nul.csv"), "nul.csv", "q_joint1"),
    case("csv quoted newline", TRAJ.replace("@", "quoted.csv"), "quoted.csv", "line 4"),
    case("csv 1e308 twice", TRAJ.replace("@", "huge_pair.csv"), "huge_pair.csv", "overflows",
         "= 1e+308"),
    case("check 1e308 twice", f"check {P2R} {{W}}/huge_pair.csv --limits {{W}}/speed.toml",
         "huge_pair.csv", "overflows", "t = "),
    case("optimal 1e308 twice", f"retime {P2R} {{W}}/huge_pair.csv --optimal --limits "
         "{W}/speed.toml -o {O}/out.h5", "huge_pair.csv", "overflows", "t = "),
    case("csv 10 MB header name", TRAJ.replace("@", "long_name.csv"), "long_name.csv", "line 1",
         "header", "131072 characters"),
    case("csv 10 MB field", TRAJ.replace("@", "long_field.csv"), "long_field.csv", "line 4",
         "131072 characters"),
    case("csv 100 kB joint name", TRAJ.replace("@", "long_joint.csv"), "long_joint.csv",
         "(100007 characters)': the model has no joint"),
]


#: SHA-256 of the files last changed over a second before they were hashed, by (path,
#: inode, size, modification and change times)
_DIGESTS: dict[tuple, str] = {}


def snapshot(*folders: Path) -> dict[str, str]:
    """Every file under ``folders`` -> its SHA-256 (temporary files included, by name).
    A file whose inode, size and times are those of one hashed when it had not changed for a
    second is that file unchanged: any write since set its change time (st_ctime, which no
    program can set back) to a later one. So the workshop (24 MB: two files of 10 MB) is
    hashed once, not twice a case (34 ms a time). Walked with os.walk, unsorted (a dict
    compares without order): Path.rglob and the sort of its paths were ~1 s of the file's
    CPU over its 310 snapshots. As Path.rglob, links to folders are not followed, and what
    is not a regular file (a folder, a FIFO, a broken link) is not a file."""
    settled = time.time_ns() - 10**9
    out = {}
    for folder in folders:
        for parent, _, names in os.walk(folder):
            for name in names:
                path = os.path.join(parent, name)
                try:
                    st = os.stat(path)  # (the link's target, as Path.is_file reads it)
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                key = (path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
                digest = _DIGESTS.get(key)
                if digest is None:
                    with open(path, "rb") as f:
                        digest = hashlib.sha256(f.read()).hexdigest()
                if st.st_ctime_ns < settled:
                    _DIGESTS[key] = digest
                out[path] = digest
    return out


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("c", CASES)
def test_hostile_input(c: Case, workshop: Path, tmp_path: Path, capsys, monkeypatch):
    for name, value in c.bounds:
        monkeypatch.setattr(xacro_expand, name, value)
    out = tmp_path / "out"
    out.mkdir()
    (out / "out.csv").write_text("an earlier output\n")
    shutil.copy(P2R_H5, out / "out.h5")
    args = c.args.replace("{W}", str(workshop)).replace("{O}", str(out)).split()
    before = snapshot(workshop, out)
    code = run(only(args[:1]), args)
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert code == 2, captured.err
    assert len(lines) == 1 and lines[0].startswith("hodyn: error: "), captured.err
    assert all(word in lines[0] for word in c.says), lines[0]
    assert len(lines[0]) < 1000  # names from the files are shown shortened
    assert captured.out == ""
    assert snapshot(workshop, out) == before  # nothing written, nothing left, nothing changed


def test_the_corpus_is_large():
    assert len(CASES) >= 60
