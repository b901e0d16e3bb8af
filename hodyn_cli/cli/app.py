"""``hodyn`` commands. Each one parses its arguments, calls the library, renders."""

from __future__ import annotations

import itertools
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from hodyn_cli import __version__, batch, elastic, generate, mimic, regressor, stream
from hodyn_cli import ik as ik_module
from hodyn_cli.cli import render
from hodyn_cli.cli.errors import EXIT_BAD_INPUT, EXIT_FAILED, mapped_errors
from hodyn_cli.cli.errors import run as run_app
from hodyn_cli.cli.inputs import (
    DEFAULT_GRAVITY,
    Cutoff,
    Debug,
    Estimate,
    Gravity,
    Jobs,
    Lock,
    LockMissing,
    Method,
    Output,
    Quiet,
    Robot,
    Strict,
    Trajectory_,
    Wrench,
    XacroArg,
    limit_warnings,
    locked_model,
    open_input,
    parse_gravity,
    provenance,
    xacro_mappings,
)
from hodyn_cli.drives import read_drives
from hodyn_cli.errors import HodynError
from hodyn_cli.io import (
    CHUNK_ROWS,
    MATRIX_NOTES,
    atomic_path,
    concatenate,
    file_format,
    open_sink,
    trajectory_datasets,
)
from hodyn_cli.io.motion import MotionReader
from hodyn_cli.io.paths import listing
from hodyn_cli.jobs import (
    ElasticJob,
    IkJob,
    KinematicsJob,
    MatricesJob,
    RegressorJob,
    SensitivityJob,
    TorqueJob,
)
from hodyn_cli.methods import MAX_ORDER
from hodyn_cli.report import render as render_report
from hodyn_cli.report import report_format
from hodyn_cli.urdf import load_model
from hodyn_cli.validate import Tolerances
from hodyn_cli.validate import validate as run_validation

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Joint torques of a prescribed motion and their time derivatives.")


class Format(str, Enum):
    csv = "csv"
    hdf5 = "hdf5"


@app.command(short_help="tau and its time derivatives along trajectories.")
def compute(
    robot: Robot,
    traj: Annotated[list[str] | None, typer.Argument(
        help="Trajectory file(s): .csv, .h5/.hdf5, or - for CSV on stdin. Several need "
             "--output-dir.", show_default=False)] = None,
    method: Annotated[Method, typer.Option(help="Algorithm.")] = Method.body_fixed,
    order: Annotated[int, typer.Option(min=0, max=MAX_ORDER,
                                       help="Highest torque derivative (2: tau, taud, taudd).")] = 2,
    output: Output = "-",
    output_dir: Annotated[str | None, typer.Option(
        "--output-dir", help="Write DIR/<input stem>.<csv|h5> for every input.")] = None,
    fmt: Annotated[Format | None, typer.Option(
        "--format", help="Output format with --output-dir (default: the input's).")] = None,
    from_list: Annotated[str | None, typer.Option(
        "--from-list", help="Also read input paths from this file, one per line (- : stdin).")
    ] = None,
    skip_existing: Annotated[bool, typer.Option(
        "--skip-existing", help="With --output-dir: leave inputs whose output exists.")] = False,
    scheduler: Annotated[str | None, typer.Option(
        help="Run the files on this Dask scheduler (address or scheduler file); needs "
             "hodyn[cluster] and a filesystem shared with the workers.")] = None,
    jobs: Jobs = None,
    gravity: Gravity = DEFAULT_GRAVITY,
    wrench: Wrench = None,
    joint_wrenches: Annotated[bool, typer.Option(
        "--joint-wrenches", help="Also write joint reaction wrenches (HDF5 output only).")] = False,
    check: Annotated[bool, typer.Option(
        "--validate", help=f"Run the quick validation checks on the first chunk ({CHUNK_ROWS} "
                           "samples) too (exit 1 if one fails; HDF5 output records the "
                           "summary).")] = False,
    estimate: Estimate = False,
    cutoff: Cutoff = None,
    quiet: Quiet = False,
    lock: Lock = None,
    lock_missing: LockMissing = False,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Compute tau and its time derivatives along a trajectory (or many)."""
    checked = None
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        sources = list(traj or []) + (_read_list(from_list) if from_list else [])
        if not sources:
            raise HodynError("no trajectory given (TRAJ, or --from-list)")
        many = output_dir is not None or len(sources) > 1 or from_list is not None
        if joint_wrenches and (many and fmt != Format.hdf5 or not many and (
                output == "-" or file_format(output) != "hdf5")):
            raise HodynError("--joint-wrenches needs HDF5 output (.h5 or .hdf5, or --format "
                             "hdf5)")
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        render.diagnostics(model)
        model = locked_model(model, lock, lock_missing, sources[0] if len(sources) == 1 else None)
        job = TorqueJob(model, method.value, order, g, joint_wrenches)
        attrs = provenance(robot, sources[0], model, method=method.value, order=order, gravity=g)
        if many:
            failed = _run_many(job, sources, output_dir, fmt, output, attrs, jobs, scheduler,
                               skip_existing, quiet, wrench=wrench, check=check,
                               estimate=estimate or cutoff is not None)
        else:
            with open_input(sources[0], model, job.need, wrench, estimate,
                            job.wrench_need, quiet=quiet, cutoff=cutoff, strict=strict) as reader:
                with open_sink(output, job.columns(reader.has_t), attrs) as sink:
                    chunks = iter(reader)
                    if check:
                        first = next(chunks)
                        checked = run_validation(model, mimic.expand(model, first),
                                                 methods=[method.value], samples=20,
                                                 gravity=g, source=sources[0])
                        render.validation(checked, brief=True)
                        sink.attrs |= {"validation_passed": checked.passed,
                                       "validation_report": render_report(checked, "json")}
                        chunks = itertools.chain([first], chunks)
                    _stream(chunks, job, sink, reader.n_samples, jobs, quiet)
            limit_warnings(reader, sources[0])
            failed = False
    if failed:
        raise typer.Exit(EXIT_BAD_INPUT)
    if checked is not None and not checked.passed:
        raise typer.Exit(EXIT_FAILED)


def _stream(chunks, job, sink, total: int | None, jobs: int | None, quiet: bool) -> int:
    """The read -> compute -> write loop with a progress bar."""
    with render.progress(total, "samples", quiet) as update:
        return stream.run(chunks, job, sink, jobs=jobs or stream.default_jobs(), progress=update)


def _run_file(job, traj: str, output: str, attrs: dict, *, jobs: int | None, quiet: bool,
              wrench: str | None = None, estimate: bool = False, cutoff: float | None = None,
              **input_options) -> None:
    """One trajectory through a job: open the input, the (atomic) output, stream."""
    with open_input(traj, job.model, job.need, wrench, estimate, job.wrench_need, quiet=quiet,
                    cutoff=cutoff, chunk=getattr(job, "chunk_rows", CHUNK_ROWS),
                    series=getattr(job, "series", ()), **input_options) as reader:
        with open_sink(output, job.columns(reader.has_t), attrs) as sink:
            _stream(reader, job, sink, reader.n_samples, jobs, quiet)
    limit_warnings(reader, traj)


def _hdf5_only(output: str, command: str) -> None:
    if output == "-" or file_format(output) != "hdf5":
        raise HodynError(f"hodyn {command} writes HDF5: give --output FILE.h5")


def _read_list(path: str) -> list[str]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise HodynError(f"cannot read the file list: {getattr(e, 'strerror', None) or e}",
                         path) from None
    return [line.strip() for line in text.splitlines() if line.strip()]


def _run_many(job, sources, output_dir, fmt, output, attrs, jobs, scheduler, skip_existing,
              quiet, *, wrench, check, estimate) -> bool:
    """Many files; one error line per bad file; True if any failed."""
    if output_dir is None:
        raise HodynError("several trajectories need --output-dir DIR (one output per input)")
    if output != "-":
        raise HodynError("--output names one file: with --output-dir, outputs are named after "
                         "the inputs")
    for flag, given in (("--wrench", wrench), ("--validate", check),
                        ("--estimate-derivatives", estimate)):
        if given:
            raise HodynError(f"{flag} works on one trajectory at a time, not with --output-dir")
    outputs = batch.plan_outputs(sources, output_dir, fmt.value if fmt else None)
    attrs = {k: v for k, v in attrs.items() if k != "trajectory"}
    counts = {"ok": 0, "skipped": 0, "failed": 0}
    with render.progress(len(sources), "files", quiet) as update:
        def done(outcome: batch.FileOutcome) -> None:
            counts[outcome.status] += 1
            if outcome.status == "failed":
                render.error(outcome.message)
            update(sum(counts.values()))

        if scheduler:
            batch.run_on_cluster(scheduler, job, sources, outputs, attrs=attrs,
                                 skip_existing=skip_existing, done=done)
        else:
            batch.run_local(job, sources, outputs, attrs=attrs, jobs=jobs or stream.default_jobs(),
                            skip_existing=skip_existing, done=done)
    if not quiet:
        render.notice(f"{len(sources)} files: {counts['ok']} written, "
                      f"{counts['skipped']} skipped, {counts['failed']} failed")
    return counts["failed"] > 0


class ElasticModel(str, Enum):
    full = "full"
    reflected = "reflected"


@app.command("elastic", short_help="Motor angles and torques of elastic-joint robots.")
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
    jobs: Jobs = None,
    quiet: Quiet = False,
    lock: Lock = None,
    lock_missing: LockMissing = False,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Motor angles and motor torques of an elastic-joint robot (and their derivatives).

    Writes u (spring torque), theta (motor angle) to order --order+2 and taum (motor
    torque) to --order, per joint.
    """
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        render.diagnostics(model)
        model = locked_model(model, lock, lock_missing, traj)
        d = read_drives(drives, model)
        job = ElasticJob(model, d, order, model_kind.value, g)
        req = job.requirements
        if explain:
            render.stdout.print(render.elastic_explanation(
                model, elastic.explain(model, d, req), req, model_kind.value, order))
            return
        if traj is None:
            raise HodynError("missing trajectory (TRAJ), or give --explain")
        hint = (f"--model {model_kind.value} --order {order} with these drives needs them for "
                "u, theta and taum (--explain says why; sample_trajectories/generate.py writes "
                "high-order motions)")
        attrs = provenance(robot, traj, model, elastic_model=model_kind.value, order=order,
                           gravity=g, drives=str(drives), q_order=req.q_order)
        _run_file(job, traj, output, attrs, jobs=jobs, quiet=quiet, strict=strict, wrench=wrench,
                  missing_hint=hint)


@app.command(short_help="Pose, twists and their derivatives of one link.")
def kinematics(
    robot: Robot,
    traj: Trajectory_,
    link: Annotated[str, typer.Option(help="URDF link whose motion to write (e.g. the flange).")],
    order: Annotated[int, typer.Option(min=0, help="Highest twist derivative (3: jounce).")] = 3,
    output: Output = "-",
    estimate: Estimate = False,
    cutoff: Cutoff = None,
    jobs: Jobs = None,
    quiet: Quiet = False,
    lock: Lock = None,
    lock_missing: LockMissing = False,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Pose, twists and point derivatives of one link (e.g. the flange), per sample.

    Writes the pose, the spatial and body-fixed twist with their derivatives, and the
    velocity, acceleration, jerk, ... of the link origin.
    """
    with mapped_errors(debug):
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        render.diagnostics(model)
        model = locked_model(model, lock, lock_missing, traj)
        job = KinematicsJob(model, link, order)
        attrs = provenance(robot, traj, model, link=link, order=order,
                           frames="p, R, Vs*, pd*: root frame; Vb*: link frame; twists "
                                  "(angular; linear)")
        _run_file(job, traj, output, attrs, jobs=jobs, quiet=quiet, strict=strict, estimate=estimate,
                  cutoff=cutoff)


class Task(str, Enum):
    pose = "pose"
    position = "position"


class OnSingular(str, Enum):
    error = "error"
    warn = "warn"


@app.command(short_help="Joint motion from a link's motion (inverse kinematics).")
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
    ] = ik_module.MAX_CONDITION,
    on_singular: Annotated[OnSingular, typer.Option(
        help="error: stop at a singular sample; warn: go on and say where.")] = OnSingular.error,
    quiet: Quiet = False,
    lock: Lock = None,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Joint trajectory q, qd, ... whose link LINK moves as MOTION prescribes.

    A motion with twist derivatives up to order D-1 (hodyn kinematics --order D-1) gives q
    up to its D-th derivative, ready for hodyn compute. Runs on one core: every sample
    starts from the one before.
    """
    with mapped_errors(debug):
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        render.diagnostics(model)
        model = locked_model(model, lock, False, None)
        start = None if q0 is None else _numbers(q0, "--q0")
        if start is not None:
            start = np.atleast_1d(start)
            if start.size != model.n:
                raise HodynError(f"--q0 has {start.size} values, the robot {model.n} joints "
                                 f"({', '.join(model.joint_names)})")
        job = IkJob(model, link, task=task.value, q0=start, max_condition=max_condition,
                    on_singular=on_singular.value, strict=strict, source=motion)
        with MotionReader(motion, task.value) as reader:
            if reader.link is not None and reader.link != link:
                raise HodynError(f"the file describes link '{reader.link}', not '{link}'", motion)
            if reader.ignored and not quiet:
                render.notice(f"{motion}: ignoring {len(reader.ignored)} column(s) that are not "
                              f"a link's motion: {listing(reader.ignored)}")
            lay = reader.layout
            attrs = provenance(robot, motion, model, link=link, task=task.value)
            with open_sink(output, job.columns(lay.K if task == Task.pose else lay.P,
                                               reader.has_t), attrs) as sink:
                _stream(reader, job, sink, reader.n_samples, 1, quiet)
        for text in job.beyond_limits.values():
            render.warning(f"{motion}: {text}")
        solver = job.solver
        if solver.singular:
            s, t, c = solver.singular[0]
            worst = max(solver.singular, key=lambda x: x[2])
            render.warning(f"{motion}: the Jacobian of '{link}' is near-singular at "
                           f"{len(solver.singular)} sample(s) (condition number > "
                           f"{max_condition:g}): first {_at(s, t)} ({c:.3g}), largest "
                           f"{worst[2]:.3g} {_at(worst[0], worst[1])}")
        if not quiet:
            c, t, s = solver.condition_max
            render.notice(f"{motion}: {solver.done} samples; largest Jacobian condition number "
                          f"{c:.3g} {_at(s, t)}")


def _at(sample: int, t: float | None) -> str:
    return f"at sample {sample}" if t is None else f"at t = {t:.6g} s"


@app.command(short_help="EOM matrices M, C, Cbar, g and derivatives (HDF5).")
def matrices(
    robot: Robot,
    traj: Trajectory_,
    output: Annotated[str, typer.Option("--output", "-o", help="Output HDF5 file (.h5/.hdf5).")],
    order: Annotated[int, typer.Option(min=0, max=MAX_ORDER,
                                       help="Highest derivative of the matrices.")] = 2,
    gravity: Gravity = DEFAULT_GRAVITY,
    wrench: Wrench = None,
    estimate: Estimate = False,
    cutoff: Cutoff = None,
    jobs: Jobs = None,
    quiet: Quiet = False,
    lock: Lock = None,
    lock_missing: LockMissing = False,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Write the EOM matrices and their time derivatives per sample (HDF5).

    M, C, Cbar, g (and Q_ext with wrenches), each with its first --order derivatives.
    """
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        _hdf5_only(output, "matrices")
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        render.diagnostics(model)
        model = locked_model(model, lock, lock_missing, traj)
        job = MatricesJob(model, order, g)
        attrs = provenance(robot, traj, model, order=order, gravity=g)
        attrs |= {"joint_names": list(model.joint_names),
                  **{f"about_{name}": text for name, text in MATRIX_NOTES.items()}}
        _run_file(job, traj, output, attrs, jobs=jobs, quiet=quiet, strict=strict, wrench=wrench,
                  estimate=estimate, cutoff=cutoff)


@app.command("generate", short_help="Designed motions with exact derivatives.")
def generate_command(
    robot: Robot,
    kind: Annotated[str, typer.Option(
        help="cosine, fourier (identification excitation), filtered-step, point-to-point.")],
    output: Output = "-",
    rate: Annotated[float, typer.Option(help="Samples per second.")] = 100.0,
    duration: Annotated[float | None, typer.Option(
        help="Seconds (default: 10, filtered-step 2.5, point-to-point: the segments).",
        show_default=False)] = None,
    derivatives: Annotated[int, typer.Option(
        min=0, help="Highest derivative of q to write (4: what compute --order 2 needs).")] = 4,
    seed: Annotated[int, typer.Option(help="Varies the default motion.")] = 0,
    base_frequency: Annotated[float, typer.Option(help="fourier: base frequency (Hz).")] = 0.1,
    harmonics: Annotated[int, typer.Option(min=1, help="fourier: number of harmonics.")] = 5,
    coefficients: Annotated[Path | None, typer.Option(
        help='fourier: JSON {"<joint>": {"a": [...], "b": [...]}} instead of random ones.',
        show_default=False)] = None,
    filter_order: Annotated[int, typer.Option(min=1, help="filtered-step: filter order m.")] = 16,
    step: Annotated[str | None, typer.Option(
        help="filtered-step: step size, one value or one per joint (comma-separated).",
        show_default=False)] = None,
    waypoints: Annotated[Path | None, typer.Option(
        help="point-to-point: CSV with a header of joint names and one row per waypoint.",
        show_default=False)] = None,
    segment_duration: Annotated[str | None, typer.Option(
        help="point-to-point: seconds per segment, one value or one per segment.",
        show_default=False)] = None,
    vanishing: Annotated[int | None, typer.Option(
        min=1, help="point-to-point: derivatives that vanish at waypoints (default: "
                    "--derivatives; degree 2k+1).", show_default=False)] = None,
    allow_limit_violation: Annotated[bool, typer.Option(
        "--allow-limit-violation", help="Write the motion even if it leaves a URDF limit.")
    ] = False,
    compact: Annotated[bool, typer.Option(
        "--compact", help="HDF5: one dataset q_derivatives (N x D+1 x n).")] = False,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Write a designed motion with exact derivatives, inside the URDF's limits."""
    with mapped_errors(debug):
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        render.diagnostics(model)
        if compact and (output == "-" or file_format(output) != "hdf5"):
            raise HodynError("--compact is an HDF5 layout: give --output FILE.h5")
        traj = generate.generate(
            model, kind, rate=rate, duration=duration, derivatives=derivatives, seed=seed,
            base_frequency=base_frequency, harmonics=harmonics,
            coefficients=_json_file(coefficients) if coefficients else None,
            filter_order=filter_order, step=_numbers(step, "--step"),
            waypoints=_waypoints(waypoints, model) if waypoints else None,
            segment_duration=_numbers(segment_duration, "--segment-duration"),
            vanishing=vanishing)
        if not allow_limit_violation:
            generate.check_limits(model, traj)
        data, columns = trajectory_datasets(traj, compact)
        attrs = {"hodyn_version": __version__, "joint_names": list(model.joint_names),
                 "kind": kind, "seed": seed, "urdf": str(robot),
                 "urdf_sha256": model.source_sha256}
        with open_sink(output, columns, attrs) as sink:
            sink.write(data)


def _numbers(text: str | None, option: str):
    if text is None:
        return None
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise HodynError(f"{option}: expected numbers separated by commas, got '{text}'") from None
    return values[0] if len(values) == 1 else values


def _json_file(path: Path) -> dict:
    import json

    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise HodynError(f"cannot read JSON: {getattr(e, 'strerror', None) or e}", str(path)
                         ) from None
    if not isinstance(data, dict):
        raise HodynError("expected a JSON object keyed by joint name", str(path))
    return data


def _waypoints(path: Path, model) -> np.ndarray:
    """Rows of joint positions from a CSV whose header names the joints (model order out)."""
    from hodyn_cli.io.tables import CsvTable

    table = CsvTable(str(path))
    try:
        missing = [j for j in model.joint_names if j not in table.names]
        if missing:
            raise HodynError(f"no column for joint(s) {', '.join(missing)}", str(path))
        rows = [b for b in table.blocks(list(model.joint_names))]
    finally:
        table.close()
    return np.concatenate(rows) if rows else np.zeros((0, model.n))


@app.command("import", short_help="Trajectories from ROS 1/2 bags and MCAP logs.")
def import_log(
    log: Annotated[Path, typer.Argument(
        help="ROS 1 bag (.bag), ROS 2 bag (directory, .db3 or .mcap), or plain MCAP file.",
        show_default=False)],
    output: Output = "-",
    topic: Annotated[str | None, typer.Option(
        help="The sensor_msgs/JointState topic (needed when there are several).",
        show_default=False)] = None,
    urdf: Annotated[Path | None, typer.Option(
        help="Map the log's joints to this robot's (others dropped, missing ones an error).",
        show_default=False)] = None,
    quiet: Quiet = False,
    debug: Debug = False,
) -> None:
    """Turn a robot log's JointState messages into a trajectory file (t, q, qd, effort)."""
    from hodyn_cli.logs import read_joint_states

    with mapped_errors(debug):
        model = load_model(urdf) if urdf is not None else None
        joint_log = read_joint_states(log, topic=topic, model=model)
        if not quiet:
            for note in joint_log.notes:
                render.notice(f"{log}: {note}")
        names = joint_log.joint_names
        data = {"t": joint_log.t, "q": joint_log.position}
        columns = {"t": ["t"], "q": [f"q_{j}" for j in names]}
        for key, value in (("qd", joint_log.velocity), ("effort", joint_log.effort)):
            if value is not None:
                data[key], columns[key] = value, [f"{key}_{j}" for j in names]
        attrs = {"hodyn_version": __version__, "joint_names": list(names),
                 "source": str(log), "topic": joint_log.topic, "t0_ns": joint_log.t0_ns,
                 "about_t": "seconds from the first message; its header stamp is t0_ns"}
        with open_sink(output, columns, attrs) as sink:
            sink.write(data)


@app.command("regressor", short_help="Regressor Y (tau = Y pi), base parameters (HDF5).")
def regressor_command(
    robot: Robot,
    traj: Trajectory_,
    output: Annotated[str, typer.Option("--output", "-o", help="Output HDF5 file (.h5/.hdf5).")],
    order: Annotated[int, typer.Option(min=0, max=MAX_ORDER,
                                       help="Highest derivative: Y, Y_d, ... (tau^(k) = Y^(k) pi)."
                                       )] = 2,
    base: Annotated[bool, typer.Option(
        "--base", help="Also the base-parameter columns Y_base.. and the map pi -> pi_base.")
    ] = False,
    slotine_li: Annotated[bool, typer.Option(
        "--slotine-li", help="Also Y_r(q, qd, qr_d, qr_dd) from columns qr_d_<joint>, "
                             "qr_dd_<joint>.")] = False,
    gravity: Gravity = DEFAULT_GRAVITY,
    estimate: Estimate = False,
    cutoff: Cutoff = None,
    jobs: Jobs = None,
    quiet: Quiet = False,
    lock: Lock = None,
    lock_missing: LockMissing = False,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Write the regressor Y (tau = Y pi) and its time derivatives per sample (HDF5).

    pi: 10 parameters per moving body (hodyn info --parameters).
    """
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        _hdf5_only(output, "regressor")
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        render.diagnostics(model)
        model = locked_model(model, lock, lock_missing, traj)
        basis = regressor.base_parameters(model, gravity=g) if base else None
        job = RegressorJob(model, order, g, basis, slotine_li)
        attrs = provenance(robot, traj, model, order=order, gravity=g)
        attrs |= {"parameter_names": regressor.parameter_names(model),
                  "parameters": regressor.parameters(model),
                  "about_Y": "tau^(k) = Y^(k) pi (+ J^T W: external wrenches are not in Y); "
                             "rows: joint_names, columns: parameter_names"}
        if basis is not None:
            attrs |= {"base_parameter_names": basis.names, "base_map": basis.base_map,
                      "about_Y_base": "Y pi = Y_base pi_base, pi_base = base_map @ pi"}
        _run_file(job, traj, output, attrs, jobs=jobs, quiet=quiet, strict=strict, estimate=estimate,
                  cutoff=cutoff)


@app.command("sensitivities", short_help="d tau^(k)/d q^(j), exact (HDF5).")
def sensitivities_command(
    robot: Robot,
    traj: Trajectory_,
    output: Annotated[str, typer.Option("--output", "-o", help="Output HDF5 file (.h5/.hdf5).")],
    order: Annotated[int, typer.Option(min=0, max=MAX_ORDER,
                                       help="Highest torque derivative k (inputs to k+2).")] = 2,
    gravity: Gravity = DEFAULT_GRAVITY,
    wrench: Wrench = None,
    estimate: Estimate = False,
    cutoff: Cutoff = None,
    jobs: Jobs = None,
    quiet: Quiet = False,
    lock: Lock = None,
    lock_missing: LockMissing = False,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Write d tau^(k) / d q^(j) per sample (HDF5): dtau_dq, ..., dtaudd_dqdddd.

    Entry [s, i, m] = d out_i / d in_m; exact (forward-mode derivatives).
    """
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        _hdf5_only(output, "sensitivities")
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        render.diagnostics(model)
        model = locked_model(model, lock, lock_missing, traj)
        job = SensitivityJob(model, order, g)
        attrs = provenance(robot, traj, model, order=order, gravity=g)
        attrs["about"] = "d<out>_d<in>[s, i, m] = d out_i / d in_m at sample s (joint_names order)"
        _run_file(job, traj, output, attrs, jobs=jobs, quiet=quiet, strict=strict, wrench=wrench,
                  estimate=estimate, cutoff=cutoff)


@app.command(short_help="Prove the numbers: finite differences, methods, data.")
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
    estimate: Estimate = False,
    cutoff: Cutoff = None,
    lock: Lock = None,
    lock_missing: LockMissing = False,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Check tau, taud, taudd against finite differences and across methods; check the input.

    Exit status 0: every check passed; 1: a check failed; 2: bad usage or input.
    """
    with mapped_errors(debug):
        g = parse_gravity(gravity)
        fmt = report_format(report) if report else None
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        render.diagnostics(model)
        model = locked_model(model, lock, lock_missing, traj)
        with open_input(traj, model, 4, wrench, estimate, 3, cutoff=cutoff) as reader:
            trajectory = mimic.expand(model, concatenate(list(reader), model))
            estimated = tuple(getattr(reader, "estimated", ()))
        chosen = None if method == "all" else [m.strip() for m in method.split(",")]
        result = run_validation(model, trajectory, methods=chosen, samples=samples or None,
                                tolerances=Tolerances(fd=rtol, cross=cross_rtol, data=data_rtol),
                                gravity=g, source=traj, estimated=estimated)
        if report:
            with atomic_path(report) as tmp:
                Path(tmp).write_text(render_report(result, fmt))
        render.validation(result)
    if not result.passed:
        raise typer.Exit(EXIT_FAILED)


@app.command(short_help="The parsed model (--parameters: dynamic parameters).")
def info(
    robot: Robot,
    json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    parameters: Annotated[bool, typer.Option(
        "--parameters", help="The 10 dynamic parameters of every moving body instead.")] = False,
    strict: Strict = False,
    xacro_arg: XacroArg = None,
    debug: Debug = False,
) -> None:
    """Show the parsed model: joints, screws, reference poses, masses, topology."""
    with mapped_errors(debug):
        model = load_model(robot, strict=strict, xacro_args=xacro_mappings(xacro_arg))
        if parameters:
            if json:
                print(render.parameters_json(model))
            else:
                render.diagnostics(model)
                render.stdout.print(render.parameters_table(model))
            return
        if json:
            render.diagnostics(model)  # data on stdout, the warnings still on stderr
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
    sys.exit(run_app(app))
