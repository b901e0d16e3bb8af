"""Trajectory files made otherwise than by a job over a trajectory: the joint motion of a
link's motion (``hodyn ik``: its solver carries its state from chunk to chunk, so one thread),
designed motions (``hodyn generate``) and robot logs (``hodyn import``), each streamed piece
by piece into its output (memory bounded); what the user should hear about it comes as
:class:`~hodyn_cli.core.model.Diagnostic` notes (nothing here prints)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from hodyn_cli import api
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Diagnostic, Model
from hodyn_cli.errors import HodynError
from hodyn_cli.io import CHUNK_ROWS, open_sink
from hodyn_cli.io.mujoco_log import MujocoLog, is_mujoco_log
from hodyn_cli.io.paths import listing
from hodyn_cli.io.results import base_datasets, joint_datasets
from hodyn_cli.pipeline import stream
from hodyn_cli.pipeline.jobs import IkJob
from hodyn_cli.pipeline.protocols import Notify, tell

__all__ = ["ik_file", "generate_file", "import_file", "import_mujoco_file", "is_mujoco_log",
           "read_waypoints"]

def ik_file(job: IkJob, source: str, output: str, attrs: dict, *, notify: Notify = None,
            progress: Callable[[int, int | None], None] | None = None) -> int:
    """The joint motion that moves the job's link as the file ``source`` says (``hodyn
    kinematics``' columns) into ``output``: q to one order more than the twists (a pose task)
    or point derivatives (a position task) given; returns the number of samples. ``notify``
    hears the columns ignored when the file opens, and at the end
    :meth:`~hodyn_cli.pipeline.jobs.IkJob.end_notes`."""
    from hodyn_cli.io.motion import MotionReader

    with MotionReader(source, job.task) as reader:
        if reader.link is not None and reader.link != job.link:
            raise HodynError(f"the file describes link '{reader.link}', not '{job.link}'", source)
        if reader.ignored:
            tell(notify, [Diagnostic("notice", f"{source}: ignoring {len(reader.ignored)} "
                                                f"column(s) that are not a link's motion: "
                                                f"{listing(reader.ignored)}")])
        lay = reader.layout
        columns = job.columns(lay.K if job.task == "pose" else lay.P, reader.has_t)
        with open_sink(output, columns, attrs, rows=reader.n_samples) as sink:
            # stream.run is typed for joint trajectories; it only iterates and calls
            n = stream.run(reader, job, sink, jobs=1,  # type: ignore[arg-type]
                           progress=None if progress is None else
                           lambda done: progress(done, reader.expected_samples))
    tell(notify, job.end_notes())
    return n


def generate_file(model: Model, kind: str, output: str, attrs: dict, *, compact: bool = False,
                  limits: str | Path | None = None, drives: str | Path | None = None,
                  optimal: bool = False, gravity: Any = GRAVITY, check: bool = True,
                  notify: Notify = None, **options: Any) -> api.Design:
    """A designed motion (:func:`hodyn_cli.api.design_motion`: ``kind``, ``limits``,
    ``drives``, ``optimal``, ``options``) into ``output``, piece by piece (``compact``: HDF5's
    ``q_derivatives``), each checked against the position and velocity limits unless not
    ``check``; the time-optimal law's attributes go with it. ``notify`` hears how the motion
    was fitted to the limits."""
    design = api.design_motion(model, kind, limits=limits, drives=drives, optimal=optimal,
                               gravity=gravity, chunk=CHUNK_ROWS, **options)
    if design.binding is not None:
        tell(notify, [Diagnostic("notice", f"played {design.slow:.6g} times slower to respect "
                                            f"{limits}: {design.binding.describe()} set it")])
    first = next(design.chunks)
    attrs = {"joint_names": list(first.joint_names), "seed": design.options["seed"], **attrs}
    # (a model with multi-DOF joints: their poses' columns, CSV only)
    with open_sink(output, joint_datasets(output, first, model, compact)[1], attrs) as sink:
        for piece in itertools.chain([first], design.chunks):
            if check:
                design.check(piece)
            sink.write(joint_datasets(output, piece, model, compact)[0])
        if design.optimal is not None:
            sink.attrs.update(design.optimal.attributes)
    plan = design.optimal
    if plan is not None:
        tell(notify, [Diagnostic("notice", (
            f"{plan.duration:.6g} s along the designed path within {limits} (the fastest "
            f"uniform scaling: {plan.uniform_duration:.6g} s); {plan.bound.summary()}"))])
    return design


def read_waypoints(path: str | Path, model: Model) -> np.ndarray:
    """Rows of joint positions from a CSV whose header names the (independent) joints: at
    least two, finite (an error naming the file, and the column and row of a bad value)."""
    from hodyn_cli.io.checks import check_values
    from hodyn_cli.io.tables import CsvTable

    names = list(model.coordinate_names)
    table = CsvTable(str(path))
    try:
        missing = [j for j in names if j not in table.names]
        if missing:
            raise HodynError(f"no column for joint(s) {', '.join(missing)}", str(path))
        rows = list(table.blocks(names))
    finally:
        table.close()
    waypoints = np.concatenate(rows) if rows else np.zeros((0, len(names)))
    if len(waypoints) < 2:
        raise HodynError(f"need at least 2 waypoints (rows), got {len(waypoints)}", str(path))
    check_values(waypoints, names, str(path), 0, lambda row: f"waypoint {row + 1}")
    return waypoints


def import_file(log: str | Path, output: str, attrs: dict, *, topic: str | None = None,
                model: Model | None = None, notify: Notify = None) -> None:
    """A robot log's ``sensor_msgs/JointState`` messages (ROS 1/2 bags, MCAP) as a trajectory
    file: ``t, q, qd, effort`` (``model``: its joints only, in its order), block by block.
    ``notify`` hears what reading the log found."""
    from hodyn_cli.io.rosbag import JointStateStream

    with JointStateStream(log, topic=topic, model=model) as joint_log:
        names = joint_log.joint_names
        keys = {"t": "t", "position": "q", "velocity": "qd", "effort": "effort"}
        columns = {"t": ["t"], **{keys[f]: [f"{keys[f]}_{j}" for j in names]
                                  for f in joint_log.fields}}
        attrs = {**attrs, "joint_names": list(names), "source": str(log),
                 "topic": joint_log.topic,
                 "about_t": "seconds from the first sample; its header stamp is t0_ns"}
        with open_sink(output, columns, attrs) as sink:
            for block in joint_log:
                sink.write({keys[k]: v for k, v in block.items()})
            sink.attrs["t0_ns"] = joint_log.t0_ns
    tell(notify, [Diagnostic("notice", f"{log}: {note}") for note in joint_log.notes])


def import_mujoco_file(log: str | Path, output: str, attrs: dict, robot: str | Path,
                       model: Model, *, notify: Notify = None) -> int:
    """A MuJoCo state log (``qpos``, ``qvel``, ``qacc``, ``time``: :class:`~hodyn_cli.io.
    mujoco_log.MujocoLog`) of the MJCF model ``robot`` (``model``: its model) as a trajectory
    file, block by block: ``t`` (where the log has ``time``), q, qd, qdd of the joints and a
    free root's ``base_`` motion (:func:`~hodyn_cli.pipeline.mujoco_states.mujoco_trajectory`);
    returns the number of samples. ``notify`` hears the layout read."""
    from hodyn_cli.modeling.mjcf_root import is_mjcf
    from hodyn_cli.pipeline.mujoco_states import free_root, mujoco_trajectory

    source = str(log)
    if not is_mjcf(Path(robot).read_bytes()):
        raise HodynError(f"a MuJoCo log's qpos follows the joint layout of its MJCF model, and "
                         f"{robot} is not one: give the MJCF model (MuJoCo's mj_saveLastXML "
                         "writes it from a URDF it loaded)", source)
    with MujocoLog(log) as states:
        free = free_root(model, states.widths, source)
        attrs = {**attrs, "joint_names": list(model.coordinate_names), "source": source}
        pieces = (mujoco_trajectory(model, block["qpos"], block.get("qvel"), block.get("qacc"),
                                    block.get("time"), free=free, source=source, start=start)
                  for start, block in zip(itertools.count(0, CHUNK_ROWS),
                                          states.blocks(CHUNK_ROWS)))
        first = next(pieces, None)
        if first is None:
            raise HodynError("the log has no samples", source)
        columns = joint_datasets(output, first, model)[1] | base_datasets(first)[1]
        with open_sink(output, columns, attrs, rows=states.n_samples) as sink:
            for piece in itertools.chain([first], pieces):
                sink.write(joint_datasets(output, piece, model)[0] | base_datasets(piece)[0])
    mimics = [j for i, j in enumerate(model.joint_names) if i not in model.coordinates]
    tell(notify, [Diagnostic("notice", f"{source}: {states.n_samples} samples of "
                                       f"{', '.join(states.arrays)}"
                                       + (f", the free joint of '{model.root_link}' as the base "
                                          "motion (base_p, base_R, base_Vb...)" if free else "")
                                       + (f"; the entries of mimic joint(s) {', '.join(mimics)} "
                                          "dropped" if mimics else ""))])
    return states.n_samples
