"""Commands of a link's motion: ``kinematics`` (joints -> link) and ``ik`` (link -> joints)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from hodyn_cli.cli.options import FLOATING, Output, Robot, Traj, command
from hodyn_cli.cli.root import app
from hodyn_cli.errors import HodynError

#: hodyn_cli.algorithms.motion.ik.MAX_CONDITION and POSTURE_GAIN (not imported: the command line
#: starts without numpy; tests/test_ik_seams.py holds them equal)
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
    from hodyn_cli import api
    from hodyn_cli.pipeline.files import file_format
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
        attrs |= {"jacobian_columns": list(api.jacobian_columns(model, s.floating_base)),
                  "about_Js": f"spatial Jacobian: Vs = Js nu ({frame} frame, twist (angular; "
                              "linear velocity of the point at the origin)); nu: "
                              "jacobian_columns; Js_d, Js_dd, ...: its time derivatives",
                  "about_Jb": "body Jacobian: Vb = Jb nu (link frame); Jb_d, ...: its time "
                              "derivatives"}
    s.run_file(KinematicsJob(model, link, order, com, jacobian), traj, output, attrs)


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
    from hodyn_cli.cli.options import number_list
    from hodyn_cli.pipeline.jobs import IkJob
    from hodyn_cli.pipeline.trajectories import ik_file

    model = s.model(robot)
    s.capable("ik", model)
    start = None if q0 is None else number_list(q0, "--q0", count=model.n,
                                                names=model.joint_names)
    job = IkJob(model, link, task=task.value, q0=start, max_condition=max_condition,
                on_singular=on_singular.value, strict=s.strict, source=motion,
                on_branch_jump=on_branch_jump.value, posture_gain=posture_gain)
    attrs = s.provenance(robot, motion, model, link=link, task=task.value)
    with render.progress(None, "samples", s.quiet) as update:
        ik_file(job, motion, output, attrs, notify=s.notify, progress=update)
