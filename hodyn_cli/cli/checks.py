"""Commands that look at a robot and prove the numbers: ``validate``, ``info``."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from hodyn_cli.cli.errors import EXIT_FAILED
from hodyn_cli.cli.options import (
    CONTACTS,
    FLOATING,
    LOOPS,
    DriveModel,
    DrivesFile,
    ElasticModel,
    MethodChoice,
    RigidDrives,
    Robot,
    Traj,
    command,
)
from hodyn_cli.cli.root import app

#: ``--method``: one of the methods, or all of them
ValidateMethod = Enum("ValidateMethod",  # type: ignore[misc]  # built from MethodChoice
                      {"all": "all", **{m.name: m.value for m in MethodChoice}}, type=str)


@command(app, "validate", short_help="Prove the numbers: finite differences, methods, data.",
         shared=("gravity", "wrench", "estimate", "cutoff", "jobs", "lock", "lock_missing",
                 "backend") + FLOATING
                + CONTACTS + LOOPS)
def validate(
    robot: Robot,
    traj: Traj,
    method: Annotated[list[ValidateMethod] | None, typer.Option(
        help="The method(s) to check (repeatable; default: all).", show_default=False)] = None,
    report: Annotated[str | None, typer.Option(
        help="Write a report: .json (machine-readable), .md, or .html (with plots).")] = None,
    samples: Annotated[int, typer.Option(
        min=0, help="Check this many evenly spread samples (0: all).")] = 1000,
    rtol: Annotated[float, typer.Option(
        min=0, help="Tolerance of the finite-difference checks (relative).")] = 1e-8,
    cross_rtol: Annotated[float, typer.Option(
        min=0, help="Tolerance of the cross-method checks (relative).")] = 1e-10,
    data_rtol: Annotated[float, typer.Option(
        min=0, help="Tolerance of the input-consistency checks (relative).")] = 1e-3,
    simulate: Annotated[bool, typer.Option(
        "--simulate", help="Also integrate the forward dynamics for 0.2 s from the file's q, "
                           "qd every 0.2 s: driven by the computed torques along each such "
                           "sample's local Taylor motion, compared with that motion; with "
                           "--torques, driven by the given torques (interpolated between the "
                           "samples), compared with the file's q, qd samples.")] = False,
    sim_rtol: Annotated[float | None, typer.Option(
        min=0, help="Tolerance of the simulation checks (relative; default 1e-8).",
        show_default=False)] = None,
    torques: Annotated[str | None, typer.Option(
        metavar="TAU",
        help="Torques from elsewhere to judge, at TRAJ's samples: t, tau_<joint> (taud_, "
             "taudd_ optional) as hodyn compute writes them (HDF5: datasets t, tau, ..., "
             "attribute joint_names); compared with the computed ones (a torques check per "
             "joint and order) and, with --simulate, driving the simulation.",
        show_default=False)] = None,
    torque_rtol: Annotated[float | None, typer.Option(
        min=0, help="Tolerance of the --torques checks (relative to the largest computed "
                    "torque; default 1e-8).", show_default=False)] = None,
    path: Annotated[str | None, typer.Option(
        metavar="INPUT",
        help="Also check that TRAJ follows INPUT's path (a retiming's input: q, qd at least): "
             "each sample within 2e-4 of each joint's travel along INPUT from INPUT's "
             "interpolant, at the path point nearest to it.", show_default=False)] = None,
    drives: DrivesFile = None,
    model_kind: DriveModel = None,
    rigid_drives: RigidDrives = False,
    s=None,
) -> None:
    """Check tau, taud, taudd against finite differences and across methods; check the input.

    With --torques, also judge torques from elsewhere (a controller's log, another library)
    against the computed ones and, with --simulate, by the motion they drive. With --drives,
    also the drives' tau, taum and currents (finite differences, zero rotor inertia = rigid,
    the rotors built as bodies). With --floating-base, also the base wrench and the root's
    motion (docs/floating.md); with --contacts, the torques and contact wrenches on them and
    the contacts' own checks (docs/contacts.md).

    Exit status 0: every check passed; 1: a check failed; 2: bad usage or input.
    """
    from hodyn_cli.cli import render
    from hodyn_cli.cli.session import read_rigid_drives
    from hodyn_cli.pipeline.files import write_text
    from hodyn_cli.pipeline.report import render as render_report
    from hodyn_cli.pipeline.report import report_format
    from hodyn_cli.pipeline.validation import path_check, validate_file

    fmt = report_format(report) if report else None
    model = s.model(robot, traj)
    g = s.g  # after the model: an MJCF model brings its own default
    s.capable("validate", model, simulate=simulate, drives=drives is not None,
              torques=torques is not None, sim_rtol=sim_rtol is not None,
              torque_rtol=torque_rtol is not None, method=method is not None
              and any(m.value in ("spatial", "closed-form") for m in method))
    model = s.closed(model)
    contacts = s.read_contacts(model)
    d = read_rigid_drives(s, drives, model, model_kind, rigid_drives)
    result = validate_file(
        model, traj, notify=s.notify, wrench=s.wrench, estimate=s.estimate, cutoff=s.cutoff,
        strict=s.strict, floating=s.floating_base, base_motion=s.base_motion,
        contacts=contacts, jobs=s.jobs, gravity=g, samples=samples or None,
        methods=None if not method or ValidateMethod("all") in method
        else [m.value for m in method],
        tolerances=dict(fd=rtol, cross=cross_rtol, data=data_rtol, **{
            name: value for name, value in (("simulation", sim_rtol), ("torques", torque_rtol))
            if value is not None}),
        simulate=simulate, drives=d, drive_model=(model_kind or ElasticModel.full).value,
        torques=torques)
    if path is not None:
        result.checks.append(path_check(model, traj, path))
    if report is not None and fmt is not None:
        write_text(report, render_report(result, fmt))
    render.validation(result)
    if not result.passed:
        raise typer.Exit(EXIT_FAILED)


@command(app, "info", short_help="The parsed model (--parameters: dynamic parameters).")
def info(
    robot: Robot,
    json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    parameters: Annotated[bool, typer.Option(
        "--parameters", help="The 10 dynamic parameters of every moving body instead.")] = False,
    drives_toml: Annotated[str | None, typer.Option(
        "--drives-toml", help="MJCF: write its armature, damping and actuator gears as a drives "
                              "file (docs/mjcf.md).", show_default=False)] = None,
    limits_toml: Annotated[str | None, typer.Option(
        "--limits-toml", help="MJCF: write its actuators' force and control ranges as a limits "
                              "file.", show_default=False)] = None,
    s=None,
) -> None:
    """Show the parsed model: joints, screws, reference poses, masses, topology."""
    from hodyn_cli import api
    from hodyn_cli.cli import render
    from hodyn_cli.cli.session import xacro_mappings

    model = api.load_robot(robot, strict=s.strict, xacro_args=xacro_mappings(s.xacro_arg),
                           repair_inertia=s.repair_inertia,
                           ignore_broken_mimic=s.ignore_broken_mimic)
    if drives_toml or limits_toml:
        from hodyn_cli.pipeline.mjcf_export import write_mjcf_drives

        write_mjcf_drives(robot, model, drives=drives_toml, limits=limits_toml, notify=s.notify)
    if parameters:
        if json:
            print(render.parameters_json(model))
        else:
            render.diagnostics(model)
            render.console().print(render.parameters_table(model))
        return
    if json:
        render.diagnostics(model)  # data on stdout, the warnings still on stderr
        print(render.model_json(model))
        return
    render.diagnostics(model, show_info=True)
    render.console().print(render.model_table(model))
