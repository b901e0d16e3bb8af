"""``hodyn`` commands. Each one parses its arguments, calls the library, renders."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from hodyn_cli import __version__, elastic, methods
from hodyn_cli.cli import render
from hodyn_cli.cli.errors import EXIT_FAILED, mapped_errors
from hodyn_cli.cli.inputs import (
    DEFAULT_GRAVITY,
    Debug,
    Estimate,
    Gravity,
    Method,
    Output,
    Robot,
    Strict,
    Trajectory_,
    Wrench,
    load_trajectory,
    parse_gravity,
    provenance,
)
from hodyn_cli.drives import read_drives
from hodyn_cli.errors import HodynError
from hodyn_cli.io import (
    MATRIX_NOTES,
    atomic_path,
    csv_text,
    elastic_datasets,
    file_format,
    format_csv,
    joint_wrench_datasets,
    matrix_datasets,
    write_datasets,
    write_result,
)
from hodyn_cli.kinematics import link_kinematics
from hodyn_cli.methods import MAX_ORDER, closed_form, inverse_dynamics, required_orders
from hodyn_cli.report import render as render_report
from hodyn_cli.report import report_format
from hodyn_cli.urdf import load_model
from hodyn_cli.validate import Tolerances
from hodyn_cli.validate import validate as run_validation

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Joint torques of a prescribed motion and their time derivatives.")


@app.command()
def compute(
    robot: Robot,
    traj: Trajectory_,
    method: Annotated[Method, typer.Option(help="Algorithm.")] = Method.body_fixed,
    order: Annotated[int, typer.Option(min=0, max=MAX_ORDER,
                                       help="Highest torque derivative (2: tau, taud, taudd).")] = 2,
    output: Output = "-",
    gravity: Gravity = DEFAULT_GRAVITY,
    wrench: Wrench = None,
    joint_wrenches: Annotated[bool, typer.Option(
        "--joint-wrenches", help="Also write joint reaction wrenches (HDF5 output only).")] = False,
    check: Annotated[bool, typer.Option(
        "--validate", help="Run the quick validation checks too (exit 1 if one fails; HDF5 "
                           "output records the summary).")] = False,
    estimate: Estimate = False,
    strict: Strict = False,
    debug: Debug = False,
) -> None:
    """Compute tau and its time derivatives along a trajectory."""
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        if joint_wrenches and (output == "-" or file_format(output) != "hdf5"):
            raise HodynError("--joint-wrenches needs an HDF5 --output (.h5 or .hdf5)")
        model = load_model(robot, strict=strict)
        render.diagnostics(model)
        trajectory = load_trajectory(traj, model, required_orders(order), wrench, estimate,
                                     order + 1)
        result = inverse_dynamics(model, trajectory, method=method.value, order=order, gravity=g)
        checked = None
        if check:
            checked = run_validation(model, trajectory, methods=[method.value], samples=20,
                                     gravity=g, source=traj)
            render.validation(checked, brief=True)
        if output == "-":
            sys.stdout.write(format_csv(result, model.joint_names, trajectory.t))
        else:
            attrs = provenance(robot, traj, model, method=method.value, order=order, gravity=g)
            extra = {}
            if joint_wrenches:
                F = methods.joint_wrenches(model, trajectory, method=method.value, order=order,
                                           gravity=g)
                extra = joint_wrench_datasets(F, model.link_names)
            if checked is not None:
                attrs |= {"validation_passed": checked.passed,
                          "validation_report": render_report(checked, "json")}
            write_result(output, result, model.joint_names, trajectory.t, attrs=attrs, extra=extra)
    if checked is not None and not checked.passed:
        raise typer.Exit(EXIT_FAILED)


class ElasticModel(str, Enum):
    full = "full"
    reflected = "reflected"


@app.command("elastic")
def elastic_command(
    robot: Robot,
    traj: Annotated[str | None, typer.Argument(
        help="Trajectory: .csv, .h5/.hdf5, or - for CSV on stdin (not needed with --explain).",
        show_default=False)] = None,
    drives: Annotated[Path, typer.Option(
        help="Drives file (TOML): stiffness, gear_ratio, rotor_inertia, rotor_axis per joint.",
        show_default=False)] = ...,
    model_kind: Annotated[ElasticModel, typer.Option(
        "--model", help="full: rotor gyroscopic coupling (Hoepler & Thuemmel); reflected: "
                        "the common approximation without it.")] = ElasticModel.full,
    order: Annotated[int, typer.Option(
        min=0, help="Highest motor-torque derivative (u, theta go to order+2).")] = 0,
    output: Output = "-",
    gravity: Gravity = DEFAULT_GRAVITY,
    wrench: Wrench = None,
    explain: Annotated[bool, typer.Option(
        "--explain", help="Print which derivative orders each joint needs and why; no "
                          "trajectory needed.")] = False,
    strict: Strict = False,
    debug: Debug = False,
) -> None:
    """Motor angles and motor torques of an elastic-joint robot (and their derivatives).

    Writes u (spring torque), theta (motor angle) to order --order+2 and taum (motor
    torque) to --order, per joint.
    """
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        model = load_model(robot, strict=strict)
        render.diagnostics(model)
        d = read_drives(drives, model)
        req = elastic.requirements(model, d, order, model_kind.value)
        if explain:
            render.stdout.print(render.elastic_explanation(
                model, elastic.explain(model, d, req), req, model_kind.value, order))
            return
        if traj is None:
            raise HodynError("missing trajectory (TRAJ), or give --explain")
        trajectory = load_trajectory(
            traj, model, req.q_order + 1, wrench, False, missing_hint=(
                f"--model {model_kind.value} --order {order} with these drives needs them for "
                "u, theta and taum (--explain says why; sample_trajectories/generate.py writes "
                "high-order motions)"))
        result = elastic.inverse_dynamics(model, trajectory, d, order=order,
                                          kind=model_kind.value, gravity=g)
        data, suffixes = elastic_datasets(result, model.joint_names)
        if output == "-":
            sys.stdout.write(csv_text(data, suffixes, trajectory.t))
            return
        attrs = provenance(robot, traj, model, elastic_model=model_kind.value, order=order, gravity=g,
                           drives=str(drives), q_order=req.q_order)
        write_datasets(output, data, suffixes, trajectory.t,
                       attrs={"joint_names": list(model.joint_names), **attrs})


@app.command()
def kinematics(
    robot: Robot,
    traj: Trajectory_,
    link: Annotated[str, typer.Option(help="URDF link whose motion to write (e.g. the flange).")],
    order: Annotated[int, typer.Option(min=0, help="Highest twist derivative (3: jounce).")] = 3,
    output: Output = "-",
    estimate: Estimate = False,
    strict: Strict = False,
    debug: Debug = False,
) -> None:
    """Pose, twists and point derivatives of one link (e.g. the flange), per sample.

    Writes the pose, the spatial and body-fixed twist with their derivatives, and the
    velocity, acceleration, jerk, ... of the link origin.
    """
    with mapped_errors(debug):
        model = load_model(robot, strict=strict)
        render.diagnostics(model)
        trajectory = load_trajectory(traj, model, order + 2, None, estimate)
        lk = link_kinematics(model, trajectory, link, order=order)
        data, suffixes = lk.datasets()
        if output == "-":
            sys.stdout.write(csv_text(data, suffixes, trajectory.t))
            return
        write_datasets(output, data, suffixes, trajectory.t, attrs=provenance(
            robot, traj, model, link=link, order=order,
            frames="p, R, Vs*, pd*: root frame; Vb*: link frame; twists (angular; linear)"))


@app.command()
def matrices(
    robot: Robot,
    traj: Trajectory_,
    output: Annotated[str, typer.Option("--output", "-o", help="Output HDF5 file (.h5/.hdf5).")],
    order: Annotated[int, typer.Option(min=0, max=MAX_ORDER,
                                       help="Highest derivative of the matrices.")] = 2,
    gravity: Gravity = DEFAULT_GRAVITY,
    wrench: Wrench = None,
    estimate: Estimate = False,
    strict: Strict = False,
    debug: Debug = False,
) -> None:
    """Write the EOM matrices and their time derivatives per sample (HDF5).

    M, C, Cbar, g (and Q_ext with wrenches), each with its first --order derivatives.
    """
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        if file_format(output) != "hdf5":
            raise HodynError("hodyn matrices writes HDF5: give --output FILE.h5")
        model = load_model(robot, strict=strict)
        render.diagnostics(model)
        trajectory = load_trajectory(traj, model, required_orders(order), wrench, estimate,
                                     order + 1)
        E = closed_form.matrices(model, trajectory, order=order, gravity=g)
        attrs = provenance(robot, traj, model, order=order, gravity=g)
        attrs |= {"joint_names": list(model.joint_names),
                  **{f"about_{name}": text for name, text in MATRIX_NOTES.items()}}
        write_datasets(output, *matrix_datasets(E, trajectory.wrenches is not None),
                       trajectory.t, attrs=attrs)


@app.command()
def validate(
    robot: Robot,
    traj: Trajectory_,
    method: Annotated[str, typer.Option(
        help="all, or one of body-fixed, spatial, closed-form (comma-separated list allowed).")] = "all",
    report: Annotated[str | None, typer.Option(
        help="Write a report: .json (machine-readable), .md, or .html (with plots).")] = None,
    samples: Annotated[int, typer.Option(
        min=0, help="Check this many evenly spread samples (0: all).")] = 1000,
    rtol: Annotated[float, typer.Option(
        min=0, help="Tolerance of the finite-difference checks (relative).")] = Tolerances.fd,
    cross_rtol: Annotated[float, typer.Option(
        min=0, help="Tolerance of the cross-method checks (relative).")] = Tolerances.cross,
    data_rtol: Annotated[float, typer.Option(
        min=0, help="Tolerance of the input-consistency checks (relative).")] = Tolerances.data,
    gravity: Gravity = DEFAULT_GRAVITY,
    wrench: Wrench = None,
    strict: Strict = False,
    debug: Debug = False,
) -> None:
    """Check tau, taud, taudd against finite differences and across methods; check the input.

    Exit status 0: every check passed; 1: a check failed; 2: bad usage or input.
    """
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        fmt = report_format(report) if report else None
        model = load_model(robot, strict=strict)
        render.diagnostics(model)
        trajectory = load_trajectory(traj, model, 4, wrench, False)
        chosen = None if method == "all" else [m.strip() for m in method.split(",")]
        result = run_validation(model, trajectory, methods=chosen, samples=samples or None,
                                tolerances=Tolerances(fd=rtol, cross=cross_rtol, data=data_rtol),
                                gravity=g, source=traj)
        if report:
            with atomic_path(report) as tmp:
                Path(tmp).write_text(render_report(result, fmt))
        render.validation(result)
    if not result.passed:
        raise typer.Exit(EXIT_FAILED)


@app.command()
def info(
    robot: Robot,
    json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    strict: Strict = False,
    debug: Debug = False,
) -> None:
    """Show the parsed model: joints, screws, reference poses, masses, topology."""
    with mapped_errors(debug):
        model = load_model(robot, strict=strict)
        if json:
            print(render.model_json(model))
            return
        render.diagnostics(model, show_info=True)
        render.stdout.print(render.model_table(model))


def version_callback(value: bool) -> None:
    if value:
        print(f"hodyn {__version__}")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[bool, typer.Option("--version", callback=version_callback,
                                          is_eager=True, help="Print the version.")] = False,
) -> None:
    """hodyn: higher-order inverse dynamics (tau, taud, taudd, ...) from URDF + trajectory."""


def main() -> None:
    app()
