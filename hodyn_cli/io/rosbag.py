"""Joint trajectories from robot logs: ROS 1 bags, ROS 2 bags (sqlite3 and MCAP storage) and
plain MCAP files, read with the ``rosbags`` library (no ROS installation needed).

``sensor_msgs/JointState`` messages become samples: header stamps -> ``t`` (seconds from the
first sample; the absolute start is kept as ``t0_ns``), positions -> q, velocities -> qd (when
the first message has them), efforts -> ``effort`` (kept for comparing measured with computed
torques). Messages may list joints in any order. The log streams through in blocks (memory
bounded, whatever its length): stamps out of order are sorted within a window of
:data:`REORDER` messages (a message later than that is an error naming it) and duplicate
stamps keep the last message; both are counted in the notes.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError, install_hint

if TYPE_CHECKING:  # rosbags is optional (the ros extra): imported where a log is opened
    from rosbags.typesys.stores.latest import sensor_msgs__msg__JointState as JointState

__all__ = ["JointLog", "JointStateStream", "read_joint_states", "REORDER"]

JOINT_STATE = "sensor_msgs/msg/JointState"
#: messages held to put header stamps in order (logs record in arrival order)
REORDER = 4096
FIELDS = ("position", "velocity", "effort")


@dataclass(frozen=True, eq=False, repr=False)
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


class JointStateStream:
    """A JointState topic of a log as blocks of samples in stamp order (a context manager).

    Opening reads the first message: ``topic``, ``joint_names`` (the model's, or the first
    message's), ``fields`` (position, and velocity/effort where the first message has them).
    Iterating yields ``{"t": (b,), "position": (b, n), ...}`` blocks of up to ``rows``
    samples; ``t0_ns`` is set with the first block and ``notes`` are complete at the end.
    """

    def __init__(self, path: str | Path, *, topic: str | None = None, model: Model | None = None,
                 rows: int = 1 << 14):
        try:
            from rosbags.highlevel import AnyReader, AnyReaderError
        except ImportError:
            raise HodynError(f"reading robot logs needs rosbags: {install_hint('ros')}"
                             ) from None
        self.source, self.rows, self._errors = str(path), rows, (AnyReaderError, OSError,
                                                                 ValueError, KeyError)
        if not Path(path).exists():
            raise HodynError("no such file or directory", self.source)
        self.notes: list[str] = []
        self.t0_ns: int | None = None
        self._model_joints = model is not None
        try:
            self._reader = AnyReader([Path(path)])
            self._reader.open()
        except self._errors as e:
            raise HodynError(f"cannot read as a ROS 1/2 bag or MCAP file: {e}", self.source
                             ) from None
        try:
            self.topic, chosen = self._topic(topic)
            self._messages = self._read(chosen)
            first = next(self._messages, None)
            if first is None:
                raise HodynError(f"topic '{self.topic}' has no messages", self.source)
            self._first = first
            self.joint_names = self._joints(first[1], model)
            self.fields = ("position",) + tuple(f for k, f in enumerate(FIELDS[1:], 3)
                                                if len(first[k]))
            if not len(first[2]):
                raise HodynError("a JointState message has no positions", self.source)
        except BaseException:
            self.close()
            raise

    def _topic(self, topic: str | None) -> tuple[str, list]:
        states = [c for c in self._reader.connections if c.msgtype == JOINT_STATE]
        if topic is not None:
            chosen = [c for c in states if c.topic == topic]
            if not chosen:
                have = sorted({c.topic for c in states}) or ["none"]
                raise HodynError(f"no JointState topic '{topic}' (JointState topics: "
                                 f"{', '.join(have)})", self.source)
            return topic, chosen
        names = sorted({c.topic for c in states})
        if len(names) != 1:
            raise HodynError("no sensor_msgs/JointState topic in the log" if not names
                             else f"several JointState topics ({', '.join(names)}): "
                                  "choose one with --topic", self.source)
        return names[0], states

    def _read(self, chosen) -> Iterator[tuple]:
        """(stamp ns, names, position, velocity, effort) per message, in the log's order."""
        try:
            for connection, _, raw in self._reader.messages(connections=chosen):
                # a JointState (_topic keeps those), of a class the log's type store makes
                msg = cast("JointState", self._reader.deserialize(raw, connection.msgtype))
                stamp = int(msg.header.stamp.sec) * 1_000_000_000 + int(msg.header.stamp.nanosec)
                yield (stamp, list(msg.name), np.asarray(msg.position, float),
                       np.asarray(msg.velocity, float), np.asarray(msg.effort, float))
        except self._errors as e:
            raise HodynError(f"cannot read as a ROS 1/2 bag or MCAP file: {e}", self.source
                             ) from None

    def _joints(self, names: list[str], model: Model | None) -> tuple[str, ...]:
        if model is None:
            _twice(names, names, "the first message", self.source)
            return tuple(names)
        posed = [(j, kind) for j, kind, nv in zip(model.joint_names, model.joint_types,
                                                   model.dofs, strict=True) if nv > 1]
        if posed:  # (a JointState has one position per joint: no pose, no angular velocity)
            raise HodynError(f"joint '{posed[0][0]}' is {posed[0][1]}: sensor_msgs/JointState "
                             "gives one position per joint, not its pose (a MuJoCo log gives "
                             "them)", self.source)
        missing = [j for j in model.joint_names if j not in names]
        if missing:
            raise HodynError(f"the log has no joint(s) {', '.join(missing)} of the model "
                             f"(it has {', '.join(names)})", self.source)
        return model.joint_names

    def __enter__(self) -> JointStateStream:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._reader.close()

    def _row(self, message: tuple) -> np.ndarray:
        """(fields, n) of one message in ``joint_names`` order; one-line errors."""
        stamp, names, *values = message
        index = {name: k for k, name in enumerate(names)}
        when = (f"t = {(stamp - self.t0_ns) / 1e9:.6g} s" if self.t0_ns is not None
                else f"stamp {stamp} ns")
        if len(index) < len(names):
            _twice(names, self.joint_names, f"the message at {when}", self.source)
        row = np.empty((len(self.fields), len(self.joint_names)))
        for f, label in enumerate(self.fields):
            v = values[FIELDS.index(label)]
            if len(v) != len(names):
                raise HodynError(f"message at {when} has {len(names)} names but {len(v)} "
                                 f"{label}s", self.source)
            for j, name in enumerate(self.joint_names):
                if name not in index:
                    raise HodynError(f"joint '{name}' is missing from the message at {when}",
                                     self.source)
                row[f, j] = v[index[name]]
        motion = row[: 1 + ("velocity" in self.fields)]  # q and qd: effort is only kept
        if not np.isfinite(motion).all():
            f, j = np.argwhere(~np.isfinite(motion))[0]
            raise HodynError(f"joint '{self.joint_names[j]}': {self.fields[f]} {motion[f, j]} "
                             f"in the message at {when} (it becomes "
                             f"{'q' if f == 0 else 'qd'}: a number is needed)", self.source)
        self._unknown.update(n for n in names if n not in self.joint_names)
        return row

    def __iter__(self) -> Iterator[dict[str, np.ndarray]]:
        self._unknown: set[str] = set()
        heap: list = []  # (stamp, arrival, row): the reorder window
        arrival, back, repeated, last_stamp, emitted = 0, 0, 0, None, None
        block: list = []

        def emit(stamp: int, row: np.ndarray):
            nonlocal emitted, repeated
            if emitted is not None and stamp == emitted:  # a repeated stamp: keep the last
                block[-1] = (stamp, row)
                repeated += 1
                return
            if emitted is not None and stamp < emitted:
                raise HodynError(f"the message stamped {(stamp - self.t0_ns) / 1e9:.6g} s "
                                 f"arrives after {REORDER} later ones: too far out of time "
                                 "order to sort while streaming", self.source)
            if self.t0_ns is None:
                self.t0_ns = stamp
            emitted = stamp
            block.append((stamp, row))

        def flushed(final: bool):
            cut = len(block) if final else len(block) - 1  # the last may still repeat
            if cut <= 0:
                return None
            out, block[:] = block[:cut], block[cut:]
            assert self.t0_ns is not None  # set by the first emit
            stamps = np.array([s for s, _ in out], dtype=np.int64)
            rows = np.stack([r for _, r in out])
            return {"t": (stamps - self.t0_ns) / 1e9,
                    **{label: rows[:, f] for f, label in enumerate(self.fields)}}

        for message in _chain(self._first, self._messages):
            if last_stamp is not None and message[0] < last_stamp:
                back += 1
            last_stamp = message[0]
            heapq.heappush(heap, (message[0], arrival, self._row(message)))
            arrival += 1
            if len(heap) > REORDER:
                stamp, _, row = heapq.heappop(heap)
                emit(stamp, row)
                if len(block) > self.rows:
                    yield flushed(False)
        while heap:
            stamp, _, row = heapq.heappop(heap)
            emit(stamp, row)
        last = flushed(True)
        if last is not None:
            yield last
        if self._unknown:
            whose = "the model does not have" if self._model_joints else "not in the first message"
            self.notes.append(f"dropped joint(s) {whose}: {', '.join(sorted(self._unknown))}")
        if back:
            self.notes.append(f"{back} message(s) out of time order: sorted by header stamp")
        if repeated:
            self.notes.append(f"{repeated} message(s) with a repeated stamp: kept the last")


def _twice(names: list[str], taken, where: str, source: str) -> None:
    """An error if a joint of ``taken`` appears twice in a message's ``names`` (which of the
    two values is its?); others are dropped anyway."""
    seen: set[str] = set()
    for name in names:
        if name in seen and name in taken:
            raise HodynError(f"joint '{name}' appears twice in {where}", source)
        seen.add(name)


def _chain(first, rest):
    yield first
    yield from rest


def read_joint_states(path: str | Path, *, topic: str | None = None,
                      model: Model | None = None) -> JointLog:
    """Read a JointState topic from a ROS 1/2 bag or MCAP file, whole (see
    :class:`JointStateStream` for the same in blocks).

    With ``model`` the joints are the model's (names the log does not know are dropped with a
    note; a model joint the log lacks is an error); without, the first message's.
    """
    with JointStateStream(path, topic=topic, model=model) as log:
        blocks = list(log)
    data = {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]}
    assert log.t0_ns is not None  # set with the first block
    return JointLog(log.topic, log.joint_names, data["t"], log.t0_ns, data["position"],
                    data.get("velocity"), data.get("effort"), log.notes)
