"""Commands of the dynamics: ``compute``, ``matrices``, ``regressor``, ``sensitivities``,
``elastic``, ``forward``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from hodyn_cli.cli.errors import EXIT_BAD_INPUT, EXIT_FAILED
from hodyn_cli.cli.options import (
    CONTACTS,
    FLOATING,
    LOOPS,
    STREAMING,
    DriveModel,
    DrivesFile,
    ElasticModel,
    Format,
    HdfOutput,
    MethodChoice,
    Output,
    RigidDrives,
    Robot,
    Traj,
    command,
)
from hodyn_cli.cli.root import app
from hodyn_cli.errors import HodynError

#: highest torque derivative the methods compute (hodyn_cli.algorithms.dynamics.methods.MAX_ORDER)
MAX_ORDER = 4
#: samples of the first chunk that ``compute --validate`` checks
VALIDATE_SAMPLES = 20


def _hdf5_only(output: str, command_name: str) -> None:
    from hodyn_cli.pipeline.files import file_format

    if output == "-" or file_format(output) != "hdf5":
        raise HodynError(f"hodyn {command_name} writes HDF5: give --output FILE.h5")


@command(app, "compute", short_help="tau and its time derivatives along trajectories.",
         shared=STREAMING + FLOATING + CONTACTS + LOOPS)
def compute(
    robot: Robot,
    traj: Annotated[list[str] | None, typer.Argument(
        help="Trajectory file(s): .csv, .h5/.hdf5, or - for CSV on stdin. Several need "
             "--output-dir.", show_default=False)] = None,
    method: Annotated[MethodChoice, typer.Option(help="Algorithm.")] = MethodChoice.body_fixed,
    order: Annotated[int, typer.Option(
        min=0, max=MAX_ORDER, help="Highest torque derivative (2: tau, taud, taudd; needs q "
                                   "up to order+2 d's).")] = 2,
    output: Output = "-",
    output_dir: Annotated[str | None, typer.Option(
        "--output-dir", help="Write DIR/<input stem>.<csv|h5> for every input (DIR is created "
                             "if missing).")] = None,
    fmt: Annotated[Format | None, typer.Option(
        "--format", help="Output format with --output-dir (default: the input's).")] = None,
    from_list: Annotated[str | None, typer.Option(
        "--from-list", help="Also read input paths from this file, one per line (- : stdin).")
    ] = None,
    skip_existing: Annotated[bool, typer.Option(
        "--skip-existing", help="With --output-dir: leave inputs whose output exists.")] = False,
    scheduler: Annotated[str | None, typer.Option(
        help="Run the files on this Dask scheduler (address or scheduler file); needs "
             "the cluster extra and a filesystem shared with the workers.")] = None,
    joint_wrenches: Annotated[bool, typer.Option(
        "--joint-wrenches", help="Also write joint reaction wrenches (HDF5 output only).")] = False,
    base_wrench: Annotated[bool, typer.Option(
        "--base-wrench", help="Also write the wrench the root link exerts on its mount or "
                              "supports, W_<root>_.. with derivatives (root link frame).")] = False,
    check: Annotated[bool, typer.Option(
        "--validate", help=f"Also run the quick validation checks on {VALIDATE_SAMPLES} samples "
                           "of the first chunk (exit 1 if one fails; HDF5 output records the "
                           "summary).")] = False,
    drives: DrivesFile = None,
    model_kind: DriveModel = None,
    rigid_drives: RigidDrives = False,
    s=None,
) -> None:
    """Compute tau and its time derivatives along a trajectory (or many).

    With --drives, also the motor torques taum (and currents where a drive has a
    torque_constant), tau then including the rotors' reactions (docs/drives.md). With
    --contacts, the contact wrenches Fc_/Wc_ and the torques with them (docs/contacts.md).
    With --loops, the actuated joints' torques and the loops' constraint forces Fl_
    (docs/loops.md).
    """
    from hodyn_cli.cli import render
    from hodyn_cli.cli.session import read_rigid_drives
    from hodyn_cli.pipeline.contacts import ContactTally
    from hodyn_cli.pipeline.files import file_format
    from hodyn_cli.pipeline.jobs import TorqueJob

    sources = list(traj or []) + (_read_list(from_list) if from_list else [])
    if not sources:
        raise HodynError("no trajectory given (TRAJ, or --from-list)")
    many = output_dir is not None or len(sources) > 1 or from_list is not None
    if joint_wrenches and (many and fmt != Format.hdf5 or not many and (
            output == "-" or file_format(output) != "hdf5")):
        raise HodynError("--joint-wrenches needs HDF5 output (.h5 or .hdf5, or --format hdf5)")
    model = s.model(robot, sources[0] if len(sources) == 1 else None)
    g = s.g  # after the model: an MJCF model brings its own default
    s.capable("compute", model, many=many, joint_wrenches=joint_wrenches,
              base_wrench=base_wrench, method=method.value != "body-fixed", validate=check,
              drives=drives is not None)
    model = s.closed(model)
    contacts = s.read_contacts(model)
    if not model.n and not (base_wrench or contacts):
        # a single free body has no joint torques: its base wrench (the wrench it needs) is
        # what there is to write, rather than a file of times alone
        base_wrench = True
        if not s.quiet:
            from hodyn_cli.cli import render

            render.notice("a robot with no joint: writing its base wrench (--base-wrench)")
    d = read_rigid_drives(s, drives, model, model_kind, rigid_drives)
    kind = (model_kind or ElasticModel.full).value
    tally = ContactTally(contacts, sources[0]) if contacts else None
    job = TorqueJob(model, order=order, gravity=g, method=method.value,
                    joint_wrenches=joint_wrenches, base_wrench=base_wrench, drives=d,
                    drive_model=kind, contacts=contacts, tally=tally)
    attrs = s.provenance(robot, sources[0], model, method=method.value, order=order, gravity=g,
                         floating_base=s.floating_base)
    if contacts:
        attrs |= contact_attributes(s.contacts, contacts)
    if s.loops is not None:
        attrs["loops"] = str(s.loops)
    if d is not None:
        attrs |= {"drives": str(drives), "drive_model": kind, "rigid_drives": rigid_drives}
        if job.current_joints:  # the columns of the datasets current, currentd, ...
            attrs["current_joint_names"] = job.current_joints
    if many:
        if _run_many(s, job, sources, output_dir, fmt, output, attrs, scheduler, skip_existing,
                     check):
            raise typer.Exit(EXIT_BAD_INPUT)
        return
    checked = []

    def validate_first(chunk, sink) -> None:
        from hodyn_cli import api
        from hodyn_cli.pipeline.report import render as render_report

        report = api.validate_motion(model, chunk, methods=[method.value], gravity=g,
                                     samples=VALIDATE_SAMPLES, source=sources[0], drives=d,
                                     drive_model=kind)
        render.validation(report, brief=True)
        sink.attrs |= {"validation_passed": report.passed,
                       "validation_report": render_report(report, "json")}
        checked.append(report)

    s.run_file(job, sources[0], output, attrs, first=validate_first if check else None)
    for note in tally.notes() if tally is not None else ():
        s.notify(note)
    if checked and not checked[0].passed:
        raise typer.Exit(EXIT_FAILED)


def contact_attributes(path, contacts) -> dict:
    """HDF5 attributes of an output on contacts: the file, the contacts, what they hold."""
    return {"contacts": str(path), "contact_names": [c.name for c in contacts],
            "about_contacts": "contact/<name>/Fc (a point's force, world axes) or Wc (a "
                              "surface's wrench, moment; force, its contact frame, about its "
                              "origin) and their derivatives: ground reactions, what the "
                              "ground exerts on the robot; zero where the contact is not "
                              "active (docs/contacts.md)"}


def _kept(written: list[str], total: int, shown: int = 3) -> str:
    """What a stopped batch leaves: its finished outputs, named (the first ``shown``).

    >>> print(_kept(["out/a.csv"], 3))  # doctest: +ELLIPSIS
    1 of 3 outputs finished before it, kept: out/a.csv (the others not written; ...)
    >>> _kept([], 2)
    'no output written'
    """
    if not written:
        return "no output written"
    more = f" and {len(written) - shown} more" if len(written) > shown else ""
    return (f"{len(written)} of {total} outputs finished before it, kept: "
            f"{', '.join(written[:shown])}{more} (the others not written; --skip-existing "
            "resumes)")


def _read_list(path: str) -> list[str]:
    try:
        raw = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as e:
        raise HodynError(f"cannot read the file list: {e.strerror or e}", path) from None
    try:
        text = raw.decode()
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise HodynError(f"line {line} is not UTF-8 text", path) from None
    names = [line.strip() for line in text.splitlines() if line.strip()]
    if not names:
        raise HodynError("the file list names no trajectory", path)
    return names


def _run_many(s, job, sources, output_dir, fmt, output, attrs, scheduler, skip_existing,
              check) -> bool:
    """Many files; one error line per bad file; True if any failed. Stopped by a signal:
    the outputs finished before it are kept, and named in the one line; the files being
    written are discarded, as after an error, and the rest not started."""
    from hodyn_cli.cli import render
    from hodyn_cli.cli.errors import Terminated
    from hodyn_cli.pipeline import batch, stream

    if output_dir is None:
        raise HodynError("several trajectories need --output-dir DIR (one output per input)")
    if output != "-":
        raise HodynError("--output names one file: with --output-dir, outputs are named after "
                         "the inputs")
    outputs = batch.plan_outputs(sources, output_dir, fmt.value if fmt else None)
    attrs = {k: v for k, v in attrs.items() if k != "trajectory"}
    counts = {"ok": 0, "skipped": 0, "failed": 0}
    written: list[str] = []
    with render.progress(len(sources), "files", s.quiet) as update:
        def done(outcome: batch.FileOutcome) -> None:
            counts[outcome.status] += 1
            if outcome.status == "failed":
                render.error(outcome.message)
            if outcome.status == "ok":
                written.append(outcome.output)
            update(sum(counts.values()))

        try:
            if scheduler:
                batch.run_on_cluster(scheduler, job, sources, outputs, attrs=attrs,
                                     skip_existing=skip_existing, done=done)
            else:
                batch.run_local(job, sources, outputs, attrs=attrs,
                                jobs=s.jobs or stream.default_jobs(),
                                skip_existing=skip_existing, done=done)
        except Terminated as e:
            e.left = _kept(written, len(sources))
            raise
    if not s.quiet:
        render.notice(f"{len(sources)} files: {counts['ok']} written, "
                      f"{counts['skipped']} skipped, {counts['failed']} failed")
    return counts["failed"] > 0


@command(app, "matrices", short_help="EOM matrices M, C, Cbar, g and derivatives (HDF5).",
         shared=STREAMING + FLOATING + CONTACTS + LOOPS)
def matrices(
    robot: Robot,
    traj: Traj,
    output: HdfOutput,
    order: Annotated[int, typer.Option(
        min=0, max=MAX_ORDER, help="Highest derivative of the matrices (needs q up to "
                                   "order+2 d's).")] = 2,
    state_derivatives: Annotated[bool, typer.Option(
        "--state-derivatives", help="Also dM_dq, dC_dq, dC_dqd, dCbar_dq, dCbar_dqd (N x n x n "
                                    "x n, the coordinate last), dg_dq (and dQ_ext_dq).")] = False,
    parameter_derivatives: Annotated[bool, typer.Option(
        "--parameter-derivatives", help="Also dM_dpi, dC_dpi, dCbar_dpi, dg_dpi (the dynamic "
                                        "parameters last, regressor order).")] = False,
    s=None,
) -> None:
    """Write the EOM matrices and their time derivatives per sample (HDF5).

    M, C, Cbar, g (and Q_ext with wrenches), each with its first --order derivatives; with
    --state-derivatives / --parameter-derivatives their derivatives by q, qd / by pi. With
    --contacts, Q_ext holds the contact wrenches, and the contact Jacobian Jc and the stacked
    contact wrenches Fc come too (docs/contacts.md). With --loops, the reduced system's over
    the actuated joints (docs/loops.md).
    """
    from hodyn_cli import api
    from hodyn_cli.pipeline.jobs import MatricesJob

    _hdf5_only(output, "matrices")
    model = s.model(robot, traj)
    g = s.g  # after the model: an MJCF model brings its own default
    s.capable("matrices", model, state_derivatives=state_derivatives,
              parameter_derivatives=parameter_derivatives)
    model = s.closed(model)
    contacts = s.read_contacts(model)
    job = MatricesJob(model, order=order, gravity=g, state=state_derivatives,
                      parameters=parameter_derivatives, contacts=contacts,
                      floating_base=s.floating_base)
    attrs = s.provenance(robot, traj, model, order=order, gravity=g, floating_base=s.floating_base)
    attrs |= job.notes()
    if contacts:
        attrs |= {"contacts": str(s.contacts), "contact_rows": [
            f"{c.name}_{x}" for c in contacts for x in c.components],
            "about_Q_ext": "generalized forces of the external wrenches, the contact wrenches "
                           "included: Q_ext = Q_wrench - Jc^T Fc",
            "about_Jc": "contact Jacobian: rows contact_rows (a point's velocity in world "
                        "axes, a sole's body twist), columns the coordinates; Jc_d, ...: its "
                        "time derivatives",
            "about_Fc": "the contact wrenches (ground reactions) stacked as contact_rows; "
                        "Fc_d, ...: their time derivatives"}
    if parameter_derivatives:
        names, values = api.regressor_parameters(model)
        attrs |= {"parameter_names": names, "parameters": values}
    if s.floating_base:
        attrs["coordinates"] = ("the root's body twist wx, wy, wz, vx, vy, vz (root link frame), "
                                "then joint_names; the first 6 entries of M qdd + C qd + g + "
                                "Q_ext are minus the base wrench")
    s.run_file(job, traj, output, attrs)


@command(app, "regressor", short_help="Regressor Y (tau = Y pi), base parameters (HDF5).",
         shared=STREAMING + FLOATING + LOOPS)
def regressor_command(
    robot: Robot,
    traj: Traj,
    output: HdfOutput,
    order: Annotated[int, typer.Option(
        min=0, max=MAX_ORDER, help="Highest derivative: Y, Y_d, ... (tau^(k) = Y^(k) pi).")] = 2,
    base: Annotated[bool, typer.Option(
        "--base", help="Also the base-parameter columns Y_base.. and the map pi -> pi_base.")
    ] = False,
    slotine_li: Annotated[bool, typer.Option(
        "--slotine-li", help="Also Y_r(q, qd, qr_d, qr_dd) from columns qr_d_<joint>, "
                             "qr_dd_<joint>.")] = False,
    drives: DrivesFile = None,
    friction: Annotated[bool, typer.Option(
        "--friction", help="With --drives: also the columns of each drive's viscous, Coulomb "
                           "and offset friction; Y then models r eta taum.")] = False,
    armature: Annotated[bool, typer.Option(
        "--armature", help="With --drives: also the columns of each drive's rotor inertia "
                           "(--model full: with its gyroscopic coupling).")] = False,
    model_kind: DriveModel = None,
    rigid_drives: RigidDrives = False,
    s=None,
) -> None:
    """Write the regressor Y (tau = Y pi) and its time derivatives per sample (HDF5).

    pi: 10 parameters per moving body (hodyn info --parameters); with --friction and
    --armature also the drives' (docs/drives.md). With --floating-base: 6 + n rows, the
    base wrench W_<root>_.. then the joints, and the root link's parameters first
    (docs/floating.md). With --loops, the actuated joints' rows, Y_a = G^T Y (docs/loops.md).
    """
    from hodyn_cli import api
    from hodyn_cli.cli.session import read_rigid_drives
    from hodyn_cli.pipeline.jobs import RegressorJob

    _hdf5_only(output, "regressor")
    model = s.model(robot, traj)
    g = s.g  # after the model: an MJCF model brings its own default
    s.capable("regressor", model, slotine_li=slotine_li, drives=drives is not None,
              friction=friction or armature)
    model = s.closed(model)
    d = read_rigid_drives(s, drives, model, model_kind, rigid_drives)
    kind = (model_kind or ElasticModel.full).value
    options = {"drives": d, "friction": friction, "armature": armature}
    floating = s.floating_base
    names, values = api.regressor_parameters(model, floating_base=floating, **options)
    basis = api.regressor_basis(model, gravity=g, drive_model=kind, floating_base=floating,
                                **options) if base else None
    attrs = s.provenance(robot, traj, model, order=order, gravity=g, floating_base=floating)
    attrs |= {"parameter_names": names, "parameters": values,
              "about_Y": "tau^(k) = Y^(k) pi (+ J^T W: external wrenches are not in Y); "
                         "rows: joint_names, columns: parameter_names"}
    if floating:
        attrs |= {"row_names": list(api.regressor_rows(model, floating_base=True)),
                  "about_Y": "(W_base^(k); tau^(k)) = Y^(k) pi (+ J^T W: external wrenches are "
                             "not in Y); rows: row_names (the base wrench the root exerts on its "
                             "supports, root link frame, then the joints), columns: "
                             "parameter_names (the root link's first)"}
    if s.loops is not None:
        attrs |= {"loops": str(s.loops),
                  "about_Y": "tau_a^(k) = Y^(k) pi, the actuated joints' torques with the loops "
                             "closed (Y = G^T Y_tree and its derivatives by Leibniz; + J^T W: "
                             "external wrenches are not in Y); rows: joint_names (the actuated "
                             "joints), columns: parameter_names"}
    if d is not None:
        attrs |= {"drives": str(drives), "drive_model": kind,
                  "about_Y": "r eta taum^(k) = Y^(k) pi (the motor torque referred to the joint; "
                             "tau where a joint has no drive; + J^T W: external wrenches are not "
                             "in Y); rows: joint_names, columns: parameter_names"}
    if basis is not None:
        attrs |= {"base_parameter_names": basis.names, "base_map": basis.base_map,
                  "about_Y_base": "Y pi = Y_base pi_base, pi_base = base_map @ pi"}
    job = RegressorJob(model, order=order, gravity=g, base=basis, slotine_li=slotine_li,
                       drive_model=kind, floating_base=floating, **options)
    s.run_file(job, traj, output, attrs)


@command(app, "sensitivities", short_help="d tau^(k)/d q^(j), exact (HDF5).",
         shared=STREAMING + FLOATING)
def sensitivities_command(
    robot: Robot,
    traj: Traj,
    output: HdfOutput,
    order: Annotated[int, typer.Option(
        min=0, max=MAX_ORDER, help="Highest torque derivative k (inputs to k+2).")] = 2,
    s=None,
) -> None:
    """Write d tau^(k) / d q^(j) per sample (HDF5): dtau_dq, ..., dtaudd_dqdddd.

    Entry [s, i, m] = d out_i / d in_m; exact (no finite differences). With --floating-base:
    the root moving as given (held).
    """
    from hodyn_cli.pipeline.jobs import SensitivityJob

    _hdf5_only(output, "sensitivities")
    model = s.model(robot, traj)
    g = s.g  # after the model: an MJCF model brings its own default
    s.capable("sensitivities", model)
    attrs = s.provenance(robot, traj, model, order=order, gravity=g,
                         floating_base=s.floating_base)
    attrs["about"] = "d<out>_d<in>[s, i, m] = d out_i / d in_m at sample s (joint_names order)"
    if s.floating_base:
        attrs["about"] += "; the root's motion held (the base wrench's are not computed)"
    s.run_file(SensitivityJob(model, order=order, gravity=g), traj, output, attrs)


# no --floating-base: the rotors' recursion runs on a fixed base (docs/floating.md)
@command(app, "elastic", short_help="Motor angles and torques of elastic-joint robots.",
         shared=STREAMING)
def elastic_command(
    robot: Robot,
    traj: Annotated[str | None, typer.Argument(
        help="Trajectory: .csv, .h5/.hdf5, or - for CSV on stdin (not needed with --explain).",
        show_default=False)] = None,
    drives: Annotated[Path, typer.Option(
        help="Drives file (TOML, docs/drives.md): stiffness, gear_ratio, rotor_inertia, "
             "rotor_axis, friction per joint.",
        show_default=False)] = ...,  # type: ignore[assignment]  # typer: a required option
    model_kind: Annotated[ElasticModel, typer.Option(
        "--model", help="full: rotor gyroscopic coupling (Hoepler & Thuemmel); reflected: "
                        "the common approximation without it.")] = ElasticModel.full,
    order: Annotated[int, typer.Option(
        min=0, help="Highest motor-torque derivative (u, theta go to order+2).")] = 0,
    output: Output = "-",
    explain: Annotated[bool, typer.Option(
        "--explain", help="Print which derivative orders each joint needs and why; no "
                          "trajectory needed.")] = False,
    s=None,
) -> None:
    """Motor angles and motor torques of an elastic-joint robot (and their derivatives).

    Writes u (spring torque), theta (motor angle) to order --order+2 and taum (motor
    torque) to --order, per joint.
    """
    from hodyn_cli import api
    from hodyn_cli.cli import render
    from hodyn_cli.pipeline.jobs import ElasticJob

    model = s.model(robot, traj)
    g = s.g  # after the model: an MJCF model brings its own default
    d = api.read_drives(model, drives)
    s.capable("elastic", model, drives=True, elastic=bool(d.elastic.any()))
    job = ElasticJob(model, d, order=order, kind=model_kind.value, gravity=g)
    req = job.requirements
    if explain:
        render.console().print(render.elastic_explanation(
            model, api.explain_elastic(model, d, req), req, model_kind.value, order))
        return
    if traj is None:
        raise HodynError("missing trajectory (TRAJ), or give --explain")
    hint = (f"--model {model_kind.value} --order {order} with these drives needs them for u, "
            f"theta and taum (--explain says why; hodyn generate ROBOT --derivatives "
            f"{req.q_order} writes such motions)")
    attrs = s.provenance(robot, traj, model, elastic_model=model_kind.value, order=order,
                         gravity=g, drives=str(drives), q_order=req.q_order)
    s.run_file(job, traj, output, attrs, missing_hint=hint)


@command(app, "forward", short_help="Forward dynamics: qdd (and qddd, ...) from q, qd, tau.",
         shared=("gravity", "wrench", "jobs", "lock", "lock_missing", "backend") + FLOATING)
def forward_command(
    robot: Robot,
    traj: Annotated[str, typer.Argument(
        help="Trajectory with q, qd and the torques tau (taud, ... for qddd, ...): .csv, "
             ".h5/.hdf5, or - for CSV on stdin.", show_default=False)],
    output: Output = "-",
    order: Annotated[int | None, typer.Option(
        min=0, max=MAX_ORDER, help="Highest derivative of qdd (1: qdd, qddd; needs tau up to "
                                   "order d's). Default: as many as the tau columns give (0 on "
                                   "stdin).", show_default=False)] = None,
    derivatives: Annotated[bool, typer.Option(
        "--derivatives", help="Also dqdd_dq, dqdd_dqd, dqdd_dtau (= M^-1), n x n per sample "
                              "(HDF5 output only).")] = False,
    s=None,
) -> None:
    """Joint accelerations of given torques: qdd = M^-1 (tau - C qd - g - Q_ext).

    Reads q, qd and tau (columns tau_<joint>; HDF5: dataset tau) per sample, and taud, taudd,
    ... for the time derivatives qddd, qdddd, ...; external wrenches as for compute. With
    --floating-base the root is a free body (its pose and base_Vb columns, no torque on it)
    and base_Vbd, base_Vbdd, ... are written too.
    """
    from hodyn_cli.pipeline.files import file_format, torque_orders
    from hodyn_cli.pipeline.jobs import ForwardJob

    if derivatives and (output == "-" or file_format(output) != "hdf5"):
        raise HodynError("--derivatives needs HDF5 output (.h5 or .hdf5)")
    model = s.model(robot, traj)
    g = s.g  # after the model: an MJCF model brings its own default
    s.capable("forward", model, partials=derivatives)
    if order is None:
        order = 0 if traj == "-" else torque_orders(traj, model, s.wrench)
    attrs = s.provenance(robot, traj, model, order=order, gravity=g)
    if derivatives:
        attrs["about"] = ("d<out>_d<in>[s, i, j] = d out_i / d in_j at sample s (joint_names "
                          "order); dqdd_dtau = M^-1")
    hint = (f"hodyn forward --order {order} reads q, qd and the torques to derivative {order} "
            "(tau_<joint>, taud_<joint>, ...: hodyn compute writes them)")
    s.run_file(ForwardJob(model, order=order, gravity=g, partials=derivatives,
                          floating_base=s.floating_base), traj, output, attrs, missing_hint=hint)

