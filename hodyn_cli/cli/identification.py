"""``identify``: a robot's dynamic parameters from logs of its motion and torques."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hodyn_cli.cli.options import DriveModel, DrivesFile, ElasticModel, Robot, command
from hodyn_cli.cli.root import app


@command(app, "identify", short_help="Physically consistent parameters from torque logs.",
         shared=("gravity", "estimate", "cutoff", "floating_base"))
def identify(
    robot: Robot,
    logs: Annotated[list[str], typer.Argument(
        help="Logs: trajectory files (CSV/HDF5: t, q_<joint>, qd_, qdd_ or "
             "--estimate-derivatives) with the measured torques tau_<joint> (HDF5: tau), "
             "effort_<joint> (hodyn import) or motor currents current_<joint> (with --drives); "
             "torque rates taud_<joint> and wrenches W_<link>_* measured with them count too.",
        show_default=False)],
    output: Annotated[str, typer.Option(
        "--output", "-o", help="The identified robot (URDF, or MJCF for an MJCF robot): the "
                              "input with new <inertial>s.",
        show_default=False)],
    drives: DrivesFile = None,
    friction: Annotated[bool, typer.Option(
        "--friction", help="With --drives: identify each drive's viscous, Coulomb and offset "
                           "friction too (the torques are then r eta taum).")] = False,
    armature: Annotated[bool, typer.Option(
        "--armature", help="With --drives: identify each drive's rotor inertia too.")] = False,
    model_kind: DriveModel = None,
    drives_output: Annotated[str | None, typer.Option(
        "--drives-output", help="With --friction/--armature: the identified drives file "
                                "(default: next to --output, <name>_drives.toml).",
        show_default=False)] = None,
    prior_weight: Annotated[float, typer.Option(
        "--prior-weight", min=0.0,
        help="How strongly the URDF's inertias hold what the data do not determine: the "
             "weight of each body's squared distance from them against one measurement.")
    ] = 1.0,
    holdout: Annotated[list[str] | None, typer.Option(
        "--holdout", help="A log to judge the identified robot on, not to fit (repeatable).",
        show_default=False)] = None,
    report: Annotated[str | None, typer.Option(
        help="Write a report: .json or .html (base parameters, standard errors, condition "
             "number, residuals, held-out error).", show_default=False)] = None,
    s=None,
) -> None:
    """Identify the robot's inertial parameters (and with --drives its friction and rotor
    inertias) from logs of measured torques: weighted least squares on the base parameters,
    then the physically consistent parameters nearest the data (every link's
    pseudo-inertia positive definite); writes the robot with them (docs/identification.md).
    """
    from hodyn_cli.cli import render
    from hodyn_cli.cli.session import read_rigid_drives
    from hodyn_cli.pipeline.identification import default_drives_output, identify_files

    model = s.model(robot)
    s.capable("identify", model, drives=drives is not None, friction=friction or armature,
              drives_output=drives_output is not None)
    if drives is not None:
        from hodyn_cli.pipeline.files import refuse_inputs

        refuse_inputs(drives_output or default_drives_output(output), [str(robot), str(drives),
                                                                       *logs, *(holdout or [])])
    d = read_rigid_drives(s, drives, model, model_kind, False)
    result = identify_files(
        model, str(robot), logs, output, floating=s.floating_base,
        robot_text=_robot_text(robot, s), drives=d,
        drives_file=None if drives is None else str(drives), drives_output=drives_output,
        friction=friction, armature=armature,
        drive_model=(model_kind or ElasticModel.full).value, gravity=s.g,
        prior_weight=prior_weight, holdout=holdout, estimate=s.estimate, cutoff=s.cutoff,
        report=report, notify=s.notify)
    if not s.quiet:
        render.notice(f"{result.samples} samples: {len(result.base_estimate)} base parameters, "
                      f"condition number {result.condition:.3g}; wrote {output}")


def _robot_text(robot: Path, s) -> bytes:
    """The robot's URDF text (a .xacro expanded with the session's arguments)."""
    from hodyn_cli.cli.session import xacro_mappings
    from hodyn_cli.pipeline.identification import robot_text

    return robot_text(robot, xacro_mappings(s.xacro_arg))
