"""Commands of a link's motion: ``kinematics`` (joints -> link) and ``ik`` (link -> joints)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from hodyn_cli.cli.app import app
from hodyn_cli.cli.options import FLOATING, Output, Robot, Traj, command
from hodyn_cli.errors import HodynError

#: hodyn_cli.algorithms.motion.ik.MAX_CONDITION and POSTURE_GAIN (not imported: the command line
#: starts without numpy)
MAX_CONDITION = 1e4
POSTURE_GAIN = 2.0


@command(app, "kinematics", short_help="Pose, twists and their derivatives of one link.",
         shared=("estimate", "cutoff", "jobs", "lock", "lock_missing", "backend") + FLOATING)
def kinematics(
    robot: Robot,
    traj: Traj,
    link: Annotated[str | None, typer.Option(
        help="URDF link whose motion to write (e.g. the flange).", show_default=False)] = None,
    order: Annotated[int, typer.Option(
        min=0, help="Highest twist derivative (3: jounce; needs q up to order+1 d's).")] = 3,
    com: Annotated[bool, typer.Option(
        "--com", help="Write the total mass, centre of mass (com, comd, ..., to order + 1) and "
                      "centroidal momentum (h, hd, ...: angular about the COM; linear).")] = False,
    jacobian: Annotated[bool, typer.Option(
        "--jacobian", help="With --link: also its Jacobians Js (spatial), Jb (body) and their "
                           "derivatives Js_d, ... to --order, N x 6 x n (HDF5 output).")] = False,
    output: Output = "-",
    s=None,
) -> None:
    """Pose, twists and point derivatives of one link (e.g. the flange), per sample.

    Writes the pose, the spatial and body-fixed twist with their derivatives, and the
    velocity, acceleration, jerk, ... of the link origin; with --jacobian the link's
    Jacobians and their time derivatives (docs/contacts.md).
    """
    from hodyn_cli.io import file_format
    from hodyn_cli.pipeline.jobs import KinematicsJob

    if link is None and not com:
        raise HodynError("give --link LINK, --com, or both")
    if jacobian and (output == "-" or file_format(output) != "hdf5"):
        raise HodynError("--jacobian needs HDF5 output (.h5 or .hdf5): N x 6 x n per sample")
    model = s.model(robot, traj)
    s.capable("kinematics", model, jacobian=jacobian, link=link is not None)
    frame = "world" if s.floating_base else "root"
    attrs = s.provenance(robot, traj, model, link=link or "", order=order, com=com,
                         floating_base=s.floating_base,
                         frames=f"p, R, Vs*, pd*, com*, h*: {frame} frame; Vb*: link frame; "
                                "twists (angular; linear); h (angular about the COM; linear)")
    if jacobian:
        from hodyn_cli.algorithms.motion.jacobians import ROOT_COLUMNS

        attrs |= {"jacobian_columns": list((ROOT_COLUMNS if s.floating_base else ())
                                           + model.coordinate_names),
                  "about_Js": f"spatial Jacobian: Vs = Js nu ({frame} frame, twist (angular; "
                              "linear velocity of the point at the origin)); nu: "
                              "jacobian_columns; Js_d, Js_dd, ...: its time derivatives",
                  "about_Jb": "body Jacobian: Vb = Jb nu (link frame); Jb_d, ...: its time "
                              "derivatives"}
    s.run_file(KinematicsJob(model, link, order, com, jacobian), traj, output, attrs,
               base_orders=order + 1)


class Task(str, Enum):
    pose = "pose"
    position = "position"


class OnSingular(str, Enum):
    error = "error"
    warn = "warn"


@command(app, "ik", short_help="Joint motion from a link's motion (inverse kinematics).",
         shared=("lock", "backend"))
def ik(
    robot: Robot,
    motion: Annotated[str, typer.Argument(
        help="The link's motion as hodyn kinematics writes it: .csv, .h5/.hdf5, or - for CSV "
             "on stdin.", show_default=False)],
    link: Annotated[str, typer.Option(help="URDF link that moves as the file says (e.g. tool0).")],
    task: Annotated[Task, typer.Option(
        help="pose: follow p and R (twists Vs or Vb); position: follow p only (pd, pdd, ...).")
    ] = Task.pose,
    q0: Annotated[str | None, typer.Option(
        help="Where the first sample's search starts, one value per joint (comma-separated; "
             "default: 0, or mid-range where 0 is outside); picks the branch.",
        show_default=False)] = None,
    output: Output = "-",
    max_condition: Annotated[float, typer.Option(
        min=1.0, help="Jacobian condition number above which a sample counts as singular.")
    ] = MAX_CONDITION,
    on_singular: Annotated[OnSingular, typer.Option(
        help="error: stop at a singular sample; warn: go on and say where.")] = OnSingular.error,
    on_branch_jump: Annotated[OnSingular, typer.Option(
        help="error: stop where the solution jumps to another branch (a position step its "
             "rates do not explain); warn: go on and say where.")] = OnSingular.error,
    posture_gain: Annotated[float, typer.Option(
        min=0.0, help="Redundant arms: 1/s, how fast the self-motion returns to the first "
                      "sample's pose (0: minimum-norm rates).")] = POSTURE_GAIN,
    s=None,
) -> None:
    """Joint trajectory q, qd, ... whose link LINK moves as MOTION prescribes.

    A motion with twist derivatives up to order D-1 (hodyn kinematics --order D-1) gives q
    up to its D-th derivative, ready for hodyn compute. Runs on one core: every sample
    starts from the one before.
    """
    from hodyn_cli.cli import render
    from hodyn_cli.cli.data import numbers
    from hodyn_cli.io import open_sink
    from hodyn_cli.io.motion import MotionReader
    from hodyn_cli.io.paths import listing
    from hodyn_cli.pipeline import stream
    from hodyn_cli.pipeline.jobs import IkJob

    model = s.model(robot)
    s.capable("ik", model)
    start = None if q0 is None else numbers(q0, "--q0", count=model.n,
                                            names=model.joint_names)
    job = IkJob(model, link, task=task.value, q0=start, max_condition=max_condition,
                on_singular=on_singular.value, strict=s.strict, source=motion,
                on_branch_jump=on_branch_jump.value, posture_gain=posture_gain)
    with MotionReader(motion, task.value) as reader:
        if reader.link is not None and reader.link != link:
            raise HodynError(f"the file describes link '{reader.link}', not '{link}'", motion)
        if reader.ignored and not s.quiet:
            render.notice(f"{motion}: ignoring {len(reader.ignored)} column(s) that are not "
                          f"a link's motion: {listing(reader.ignored)}")
        lay = reader.layout
        attrs = s.provenance(robot, motion, model, link=link, task=task.value)
        columns = job.columns(lay.K if task == Task.pose else lay.P, reader.has_t)
        with open_sink(output, columns, attrs, rows=reader.n_samples) as sink, \
                render.progress(reader.n_samples, "samples", s.quiet) as update:
            stream.run(reader, job, sink, jobs=1,
                       progress=lambda done: update(done, reader.expected_samples))
    for text in job.beyond_limits.values():
        render.warning(f"{motion}: {text}")
    solver = job.solver
    if solver.singular:
        first, worst = solver.singular[0], max(solver.singular, key=lambda x: x[2])
        render.warning(f"{motion}: the Jacobian of '{link}' is near-singular at "
                       f"{len(solver.singular)} sample(s) (condition number > "
                       f"{max_condition:g}): first {_at(first[0], first[1])} ({first[2]:.3g}), "
                       f"largest {worst[2]:.3g} {_at(worst[0], worst[1])}")
    if solver.jumps:
        first, worst = solver.jumps[0], max(solver.jumps, key=lambda x: abs(x[3]))
        render.warning(f"{motion}: the joint motion jumps to another branch at "
                       f"{len(solver.jumps)} sample(s) (position steps the rates do not "
                       f"explain): first {_at(first[0], first[1])} (q_{first[2]} off by "
                       f"{first[3]:.3g}), largest {_at(worst[0], worst[1])} (q_{worst[2]} off "
                       f"by {worst[3]:.3g})")
    if not s.quiet and solver.branches is not None and len(solver.branches) > 1:
        render.notice(f"{motion}: {_branches(solver)}")
    if not s.quiet:
        c, t, sample = solver.condition_max
        render.notice(f"{motion}: {solver.done} samples; largest Jacobian condition number "
                      f"{c:.3g} {_at(sample, t)}")


def _branches(solver) -> str:
    """The first pose's joint solutions: which one the motion starts on, and the next."""
    def joints(q) -> str:
        return ",".join(f"{v:.4g}" for v in q)

    found = solver.branches
    far = [solver.distance(q) for q in found[:2]]
    return (f"the first pose has {len(found)} joint solutions (branches); the motion starts "
            f"on the one nearest --q0 (largest joint difference, modulo turns, "
            f"{far[0]:.3g}): {joints(found[0])}; the next nearest ({far[1]:.3g}): "
            f"{joints(found[1])}; --q0 near another starts there")


def _at(sample: int, t: float | None) -> str:
    return f"at sample {sample}" if t is None else f"at t = {t:.6g} s"
