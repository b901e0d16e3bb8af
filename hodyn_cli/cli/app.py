"""``hodyn`` commands. Each one parses its arguments, calls the library, renders."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from hodyn_cli import __version__, methods
from hodyn_cli.cli import render
from hodyn_cli.cli.errors import EXIT_FAILED, mapped_errors
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.estimate import estimate_derivatives
from hodyn_cli.io import (
    MATRIX_NOTES,
    atomic_path,
    csv_text,
    file_format,
    format_csv,
    joint_wrench_datasets,
    matrix_datasets,
    read_trajectory,
    read_wrenches,
    write_datasets,
    write_result,
)
from hodyn_cli.kinematics import link_kinematics
from hodyn_cli.methods import GRAVITY, MAX_ORDER, closed_form, inverse_dynamics, required_orders
from hodyn_cli.report import render as render_report
from hodyn_cli.report import report_format
from hodyn_cli.trajectory import Trajectory
from hodyn_cli.urdf import load_model
from hodyn_cli.validate import Tolerances
from hodyn_cli.validate import validate as run_validation

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Joint torques of a prescribed motion and their time derivatives.")


class Method(str, Enum):
    body_fixed = "body-fixed"
    spatial = "spatial"
    closed_form = "closed-form"


Robot = Annotated[Path, typer.Argument(help="Robot description (URDF).", show_default=False)]
Debug = Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")]
Strict = Annotated[bool, typer.Option("--strict", help="Treat URDF warnings as errors.")]
Trajectory_ = Annotated[str, typer.Argument(
    help="Trajectory: .csv, .h5/.hdf5, or - for CSV on stdin.", show_default=False)]
Output = Annotated[str, typer.Option("--output", "-o",
                                     help="Output .csv, .h5/.hdf5, or - for CSV on stdout.")]


Gravity = Annotated[str, typer.Option(help="Gravity gx,gy,gz in the root link frame.")]
DEFAULT_GRAVITY = ",".join(str(g) for g in GRAVITY)
Wrench = Annotated[str | None, typer.Option(help="External wrenches file (CSV/HDF5).")]


Estimate = Annotated[bool, typer.Option(
    "--estimate-derivatives",
    help="Estimate missing derivative columns from the highest given one over t (spline; "
         "a warning says which).")]


def load_trajectory(path: str, model, need: int, wrench: str | None, estimate: bool,
                    wrench_need: int = 0) -> Trajectory:
    """Read the trajectory (and --wrench FILE); estimate missing derivatives if asked."""
    try:
        trajectory = read_trajectory(path, model, need=1 if estimate else need)
    except TrajectoryError as e:
        if estimate or not e.message.startswith("missing columns"):
            raise
        raise TrajectoryError(f"{e.message}; --estimate-derivatives estimates them from the "
                              "data", e.source) from None
    trajectory = with_wrenches(trajectory, wrench, model)
    if estimate:
        try:
            trajectory, names = estimate_derivatives(trajectory, need, wrench_need)
        except HodynError as e:  # name the file the data came from
            raise HodynError(e.message, e.source or path) from None
        if names:
            render.warning(f"estimated {', '.join(names)} from the sampled data over t "
                           "(interpolating spline, no smoothing)")
    return trajectory


def with_wrenches(trajectory: Trajectory, wrench: str | None, model) -> Trajectory:
    """The trajectory with the wrenches of ``--wrench FILE`` (if given)."""
    if wrench is None:
        return trajectory
    W = read_wrenches(wrench, model, trajectory.n_samples)
    return Trajectory(trajectory.joint_names, trajectory.derivatives, trajectory.t, W)


def parse_gravity(text: str) -> tuple[float, float, float]:
    """``"gx,gy,gz"`` -> floats."""
    try:
        g = tuple(float(v) for v in text.split(","))
    except ValueError:
        g = ()
    if len(g) != 3:
        raise HodynError(f"--gravity: expected gx,gy,gz (e.g. 0,0,-9.81), got '{text}'")
    return g


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
            extra = {}
            if joint_wrenches:
                F = methods.joint_wrenches(model, trajectory, method=method.value, order=order,
                                           gravity=g)
                extra = joint_wrench_datasets(F, model.link_names)
            attrs = {"hodyn_version": __version__, "method": method.value, "order": order,
                     "gravity": g, "urdf": str(robot), "urdf_sha256": model.source_sha256,
                     "trajectory": traj}
            if checked is not None:
                attrs["validation_passed"] = checked.passed
                attrs["validation_report"] = render_report(checked, "json")
            write_result(output, result, model.joint_names, trajectory.t, attrs=attrs, extra=extra)
    if checked is not None and not checked.passed:
        raise typer.Exit(EXIT_FAILED)


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
        write_datasets(output, data, suffixes, trajectory.t, attrs={
            "hodyn_version": __version__, "link": link, "order": order, "urdf": str(robot),
            "urdf_sha256": model.source_sha256, "trajectory": traj,
            "frames": "p, R, Vs*, pd*: root frame; Vb*: link frame; twists (angular; linear)",
        })


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
        write_datasets(output, *matrix_datasets(E, trajectory.wrenches is not None),
                       trajectory.t, attrs={
            "joint_names": list(model.joint_names), "hodyn_version": __version__,
            "order": order, "gravity": g, "urdf": str(robot),
            "urdf_sha256": model.source_sha256, "trajectory": traj,
            **{f"about_{name}": text for name, text in MATRIX_NOTES.items()}})


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
        trajectory = with_wrenches(read_trajectory(traj, model, need=4), wrench, model)
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
