"""Joint trajectories from robot logs: ROS 1 bags, ROS 2 bags (sqlite3 and MCAP storage) and
plain MCAP files, read with the ``rosbags`` library (no ROS installation needed).

``sensor_msgs/JointState`` messages become samples: header stamps -> ``t`` (seconds from the
first message; the absolute start is kept as ``t0_ns``), positions -> q, velocities -> qd
(when every message has them), efforts -> ``effort`` (kept for comparing measured with
computed torques). Messages may list joints in any order. Stamps out of order are sorted and
duplicate stamps keep the last message; both are counted in the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError

__all__ = ["JointLog", "read_joint_states"]

JOINT_STATE = "sensor_msgs/msg/JointState"


@dataclass(frozen=True, eq=False)
class JointLog:
    """Samples of a JointState topic, joints in ``joint_names`` order.

    Attributes:
        t: (N,) seconds from the first sample; ``t0_ns`` its absolute stamp (ns).
        position, velocity, effort: (N, n) each; velocity/effort None where absent.
        notes: what was done to the data (sorted, duplicates, dropped joints), one line each.
    """

    topic: str
    joint_names: tuple[str, ...]
    t: np.ndarray
    t0_ns: int
    position: np.ndarray
    velocity: np.ndarray | None
    effort: np.ndarray | None
    notes: list[str] = field(default_factory=list)


def read_joint_states(path: str | Path, *, topic: str | None = None,
                      model: Model | None = None) -> JointLog:
    """Read a JointState topic from a ROS 1/2 bag or MCAP file.

    With ``model`` the joints are the model's (names the log does not know are dropped with a
    note; a model joint the log lacks is an error); without, the log's own.
    """
    try:
        from rosbags.highlevel import AnyReader, AnyReaderError
    except ImportError:
        raise HodynError('reading robot logs needs rosbags: pip install "hodyn[ros]"') from None
    source = str(path)
    p = Path(path)
    if not p.exists():
        raise HodynError("no such file or directory", source)
    try:
        with AnyReader([p]) as reader:
            states = [c for c in reader.connections if c.msgtype == JOINT_STATE]
            if topic is not None:
                chosen = [c for c in states if c.topic == topic]
                if not chosen:
                    have = sorted({c.topic for c in states}) or ["none"]
                    raise HodynError(f"no JointState topic '{topic}' (JointState topics: "
                                     f"{', '.join(have)})", source)
            else:
                names = sorted({c.topic for c in states})
                if len(names) != 1:
                    raise HodynError("no sensor_msgs/JointState topic in the log" if not names
                                     else f"several JointState topics ({', '.join(names)}): "
                                          "choose one with --topic", source)
                chosen = states
            records = []
            for connection, _, raw in reader.messages(connections=chosen):
                msg = reader.deserialize(raw, connection.msgtype)
                stamp = int(msg.header.stamp.sec) * 1_000_000_000 + int(msg.header.stamp.nanosec)
                records.append((stamp, list(msg.name), np.asarray(msg.position, float),
                                np.asarray(msg.velocity, float), np.asarray(msg.effort, float)))
    except HodynError:
        raise
    except (AnyReaderError, OSError, ValueError, KeyError) as e:
        raise HodynError(f"cannot read as a ROS 1/2 bag or MCAP file: {e}", source) from None
    if not records:
        raise HodynError(f"topic '{chosen[0].topic}' has no messages", source)
    return _assemble(records, chosen[0].topic, model, source)


def _assemble(records, topic: str, model: Model | None, source: str) -> JointLog:
    notes: list[str] = []
    seen = sorted({n for r in records for n in r[1]})
    if model is None:
        joints = tuple(records[0][1]) + tuple(n for n in seen if n not in records[0][1])
    else:
        joints = model.joint_names
        missing = [j for j in joints if j not in seen]
        if missing:
            raise HodynError(f"the log has no joint(s) {', '.join(missing)} of the model "
                             f"(it has {', '.join(seen)})", source)
        unknown = [n for n in seen if n not in joints]
        if unknown:
            notes.append(f"dropped joint(s) the model does not have: {', '.join(unknown)}")
    stamps = np.array([r[0] for r in records], dtype=np.int64)
    order = np.argsort(stamps, kind="stable")
    back = int((np.diff(stamps) < 0).sum())
    if back:
        notes.append(f"{back} message(s) out of time order: sorted by header stamp")
    stamps, records = stamps[order], [records[i] for i in order]
    keep = np.append(stamps[1:] != stamps[:-1], True)  # the last of equal stamps
    if not keep.all():
        notes.append(f"{int((~keep).sum())} message(s) with a repeated stamp: kept the last")
    stamps, records = stamps[keep], [r for r, k in zip(records, keep, strict=True) if k]
    n = len(joints)
    arrays = {}
    for field_index, label in ((2, "position"), (3, "velocity"), (4, "effort")):
        out = np.full((len(records), n), np.nan)
        complete = True
        for s, r in enumerate(records):
            values = r[field_index]
            if len(values) == 0:
                complete = False
                break
            if len(values) != len(r[1]):
                raise HodynError(f"message at t = {(r[0] - stamps[0]) / 1e9:.6g} s has "
                                 f"{len(r[1])} names but {len(values)} {label}s", source)
            index = {name: k for k, name in enumerate(r[1])}
            for j, name in enumerate(joints):
                if name in index:
                    out[s, j] = values[index[name]]
        if not complete:
            if label == "position":
                raise HodynError("a JointState message has no positions", source)
            arrays[label] = None
            continue
        gaps = np.argwhere(np.isnan(out))
        if gaps.size:
            s, j = gaps[0]
            raise HodynError(f"joint '{joints[j]}' is missing from the message at t = "
                             f"{(stamps[s] - stamps[0]) / 1e9:.6g} s", source)
        arrays[label] = out
    t = (stamps - stamps[0]) / 1e9
    return JointLog(topic, tuple(joints), t, int(stamps[0]), arrays["position"],
                    arrays["velocity"], arrays["effort"], notes)
