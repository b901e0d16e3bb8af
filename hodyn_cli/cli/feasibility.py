"""Commands of a motion and the robot's limits: ``check`` (is it feasible?) and ``retime``
(play it slower or faster, exactly: to the limits, or by a factor)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hodyn_cli.cli.errors import EXIT_FAILED
from hodyn_cli.cli.options import (
    CONTACTS,
    FLOATING,
    LOOPS,
    STREAMING,
    ElasticModel,
    Output,
    Robot,
    Traj,
    command,
)
from hodyn_cli.cli.root import app
from hodyn_cli.errors import HodynError

Limits = Annotated[Path | None, typer.Option(
    help="Limits file (TOML): per joint position, velocity, torque, jerk (override the "
         "URDF's), acceleration, torque_rate, torque_acceleration, motor_speed, motor_torque, "
         "current.",
    show_default=False)]
Drives = Annotated[Path | None, typer.Option(
    help="Drives file (TOML, docs/drives.md): motor speed, motor torque and current are "
         "checked too; with series-elastic drives the torques are the spring torques u.",
    show_default=False)]
Jerk = Annotated[str | None, typer.Option(
    help="Joint jerk limit (rad/s^3; m/s^3 prismatic): one value for every joint, or one per "
         "joint (comma-separated, model order); overrides the URDF's (1.2 <limit jerk>) and "
         "the limits file's; inf: no jerk limit for that joint.", show_default=False)]
Kind = Annotated[ElasticModel, typer.Option(
    "--model", help="With --drives: full (rotor gyroscopic coupling) or reflected.")]


def _job(s, model, limits: Path | None, drives: Path | None, kind: ElasticModel,
         command: str = "check", jerk: str | None = None, **on):
    """The limits (``jerk``: ``--jerk``'s over them) and the job that gives a chunk's laws,
    after the capability check of ``command`` with the features ``on``."""
    from hodyn_cli import api, capabilities
    from hodyn_cli.cli.options import numbers
    from hodyn_cli.pipeline.laws import LawsJob

    values = numbers(jerk, "--jerk", unlimited=True)
    if isinstance(values, list):
        values = numbers(jerk, "--jerk", model.n, model.joint_names, unlimited=True)
    lim = api.joint_limits(model, limits, jerk=values)
    d = api.read_drives(model, drives) if drives else None
    s.capable(command, model, drives=d is not None, elastic=d is not None and
              bool(d.elastic.any()), **on)
    if "loops" in capabilities.COMMANDS[command]:   # check: the actuated joints' torques
        model = s.closed(model)                      # (retime: not yet, the tree as given)
    return lim, LawsJob(model, order=api.torque_order(lim), drives=d, kind=kind.value, gravity=s.g,
                        contacts=s.read_contacts(model))


def _hint(job) -> str:
    if job.requirements is None or not job.drives.elastic.any():
        from hodyn_cli.pipeline.inputs import ESTIMATE_HINT

        return ESTIMATE_HINT
    return (f"the elastic model needs them (hodyn elastic --explain says why; hodyn generate "
            f"ROBOT --derivatives {job.requirements.q_order} writes such motions)")


@command(app, "check", short_help="Is a motion within the robot's limits (torque rates too)?",
         shared=STREAMING + FLOATING + CONTACTS + LOOPS)
def check(
    robot: Robot,
    traj: Traj,
    limits: Limits = None,
    jerk: Jerk = None,
    drives: Drives = None,
    model_kind: Kind = ElasticModel.full,
    report: Annotated[str | None, typer.Option(
        help="Write a report: .json (machine-readable), .md, or .html (with plots).",
        show_default=False)] = None,
    s=None,
) -> None:
    """Check a motion against the robot's limits, sample by sample: position, velocity,
    torque (URDF), torque rate and acceleration (--limits), motor speed, torque and current
    (--drives); with --contacts each contact's friction cone and sole (docs/contacts.md);
    with --loops the actuated joints' torques and their rates, every joint's position and
    velocity, the passive joints' found by the loops (docs/loops.md).

    Per joint and quantity: peak, limit, margin, worst sample, number of violations.
    Exit status 0: feasible; 1: a limit is violated; 2: bad usage or input.
    """
    from hodyn_cli.cli import render
    from hodyn_cli.pipeline import stream
    from hodyn_cli.pipeline.check_report import Meta
    from hodyn_cli.pipeline.check_report import render as render_report
    from hodyn_cli.pipeline.feasibility import check_file
    from hodyn_cli.pipeline.files import write_text
    from hodyn_cli.pipeline.report import report_format

    fmt = report_format(report) if report else None
    model = s.model(robot, traj)
    lim, job = _job(s, model, limits, drives, model_kind, jerk=jerk)
    with render.progress(None, "samples", s.quiet) as update:
        result = check_file(job, traj, lim, envelopes=fmt == "html", notify=s.notify,
                            jobs=s.jobs or stream.default_jobs(), progress=update,
                            wrench=s.wrench, estimate=s.estimate, cutoff=s.cutoff,
                            missing_hint=_hint(job), floating=s.floating_base,
                            base_motion=s.base_motion)
    if report and fmt is not None:
        meta = Meta(str(robot), model.source_sha256, traj,
                    "rigid" if drives is None else
                    f"{'elastic' if job.drives.elastic.any() else 'rigid drives'} "
                    f"{model_kind.value}",
                    None if limits is None else str(limits),
                    None if drives is None else str(drives))
        write_text(report, render_report(result, meta, fmt))
    render.feasibility(result)
    if not result.feasible:
        raise typer.Exit(EXIT_FAILED)


@command(app, "retime", short_help="Play a motion slower or faster, exactly: to the limits.",
         shared=STREAMING + FLOATING + CONTACTS)
def retime(
    robot: Robot,
    traj: Traj,
    output: Output = "-",
    to_limits: Annotated[bool, typer.Option(
        "--to-limits", help="The shortest uniform time scaling within the limits.")] = False,
    factor: Annotated[float | None, typer.Option(
        help="Play the motion this many times slower instead (< 1: faster).",
        show_default=False)] = None,
    limits: Limits = None,
    jerk: Jerk = None,
    drives: Drives = None,
    model_kind: Kind = ElasticModel.full,
    segments: Annotated[str | None, typer.Option(
        help="With --to-limits: times T1,T2,... that cut the motion into pieces scaled "
             "independently.", show_default=False)] = None,
    optimal: Annotated[bool, typer.Option(
        "--optimal", help="The fastest time law along the motion's path (not uniform): "
                          "within every limit, torque rates too (docs/feasibility.md).")
    ] = False,
    rate: Annotated[float | None, typer.Option(
        help="With --optimal (or --to-limits: the uniform scaling resampled): samples per "
             "second of the output, exactly 1/RATE s apart from the start, the last step "
             "shorter (default: the input's mean rate; where the uniform scaling plays the path "
             "over 10 times faster than the input or the law lasts under 15 of its steps "
             "(the uniform scaling, with limits of jerks or torque rates), the first 1, 2 or "
             "5 x 10^n Hz giving it as many steps as the input, 100 at least: the notice says "
             "so; --to-limits: the input's samples).",
        show_default=False)] = None,
    grid: Annotated[int | None, typer.Option(
        min=8, help="With --optimal: the windows solver's grid (the linear programmes'): "
                    "N to 2N of the input's samples and points of its path between them "
                    "(default: 1000 to 2000, more on a long input: as many as its speed "
                    "needs, at most 131072; solved 2000 at a time; more is refused). Their "
                    "cost grows linearly with it. Reachability's grid is --arc-grid's.",
        show_default=False)] = None,
    arc_grid: Annotated[int | None, typer.Option(
        min=8, help="With --optimal: the reachability solver's grid, intervals in arc "
                    "length (default: 4000, 3 per input sample on a long input, of a 1 kHz "
                    "input at most with jerk or torque-rate limits, 300 per "
                    "second of the uniform scaling on a coarse one, 600 on an input coarser "
                    "than 100 Hz; 1000 at least between corners). At most 16 times 4000 or "
                    "3 a sample, 6000000 in all.",
        show_default=False)] = None,
    solver: Annotated[str | None, typer.Option(
        help="With --optimal: auto (reachability along the path's arc length where every "
             "limit is affine in the time law: velocity, acceleration, torque; else the "
             "linear programmes), reachability, or windows (docs/feasibility.md).",
        show_default=False)] = None,
    compact: Annotated[bool, typer.Option(
        "--compact", help="HDF5: one dataset q_derivatives (N x D+1 x n).")] = False,
    s=None,
) -> None:
    """Write the motion played k times slower, t' = t0 + k (t - t0), every derivative scaled
    exactly (q^(j) / k^j; wrench rates too).

    --to-limits: the smallest k (k < 1 speeds a slow motion up) that keeps every limited
    quantity within its limit for that and any slower playing, from the exact scaling laws of
    the torques and their rates (with --contacts: the torques on them, each contact in its
    friction cone and on its sole). --optimal: the fastest time law along the same path
    (faster here, slower there), every limit held at every output sample. Exit status 1: no
    time scaling makes the motion feasible.
    """
    from hodyn_cli.cli import render
    from hodyn_cli.cli.options import number_list
    from hodyn_cli.errors import Infeasible
    from hodyn_cli.pipeline.feasibility import retime_file
    from hodyn_cli.pipeline.files import file_format

    for option, value in (("--grid", grid), ("--arc-grid", arc_grid)):
        if not optimal and value is not None:
            raise HodynError(f"{option} goes with --optimal")
    if not optimal and solver is not None:
        raise HodynError("--solver goes with --optimal")
    if not (optimal or to_limits) and rate is not None:
        raise HodynError("--rate goes with --optimal or --to-limits (--factor keeps the "
                         "input's samples)")
    if not optimal and to_limits == (factor is not None):
        raise HodynError("give one of --to-limits, --optimal and --factor K" + (
            " (--to-limits finds k, --factor takes it)" if to_limits else ""))
    if factor is not None and (limits is not None or jerk is not None or drives is not None):
        raise HodynError("--limits, --jerk and --drives go with --to-limits or --optimal "
                         "(--factor takes k as given)")
    if optimal and s.jobs is not None:
        raise HodynError("--jobs goes with the streaming runs: --optimal solves the whole "
                         "path at once, on one core")
    if factor is not None and not factor > 0:
        raise HodynError(f"--factor must be positive, got {factor}")
    if compact and (output == "-" or file_format(output) != "hdf5"):
        raise HodynError("--compact is an HDF5 layout: give --output FILE.h5")
    joins = tuple(number_list(segments, "--segments")) if segments else ()
    # --floating-base changes --to-limits's k (the torques), and what --factor writes only
    # where the file has a floating root's base_ columns (dropped without it); --optimal
    # and --to-limits --rate refuse it: the notice proposing it only where it changes the result
    roots = _root_columns(traj)
    model = s.model(robot, traj, floating_matters=not optimal and rate is None and (
        to_limits or (traj == "-" or Path(traj).exists() if roots is None else
                      "base_" in roots)))
    lim, job = _job(s, model, limits, drives, model_kind, "retime", jerk, optimal=optimal,
                    to_limits=to_limits, factor=factor is not None,
                    segments=segments is not None)
    attrs = s.provenance(robot, traj, model, gravity=s.g, limits=str(limits or ""),
                         drives=str(drives or ""))
    if to_limits and rate is not None and (segments or s.floating_base or s.wrench or (
            job.drives is not None and job.drives.elastic.any())):
        raise HodynError("--to-limits --rate resamples the path as --optimal plays it: not "
                         "with --segments, --floating-base, --wrench or series-elastic drives "
                         "(without --rate, --to-limits keeps the input's samples, every column "
                         "scaled exactly)")
    if roots and not s.floating_base:
        _say_dropped(traj, roots, optimal or rate is not None)
    if optimal or rate is not None:
        _retime_optimal(s, traj, output, attrs, lim, job, rate, grid, compact, uniform=to_limits,
                        solver=solver or "auto", arc_grid=arc_grid)
        return
    from hodyn_cli.pipeline import stream  # (its threads: not --optimal's)

    try:
        with render.progress(None, "samples", s.quiet) as update:
            retiming, best, jumps = retime_file(
                job, traj, output, attrs, lim, factor=factor, joins=joins, compact=compact,
                jobs=s.jobs or stream.default_jobs(), notify=s.notify, progress=update,
                wrench=s.wrench, estimate=s.estimate, cutoff=s.cutoff, strict=s.strict,
                missing_hint=_hint(job), floating=s.floating_base, base_motion=s.base_motion)
    except Infeasible as e:
        render.fail(str(e))
        raise typer.Exit(EXIT_FAILED) from None
    if not s.quiet:
        for i, k in enumerate(retiming.k):
            piece = (f"{retiming.bounds[i]:.6g} .. {retiming.bounds[i + 1]:.6g} s: "
                     if len(retiming.k) > 1 else "")
            binding = best[i]
            why = f"; binding: {binding.describe()}" if binding is not None else ""
            how = (f"played k = {k:.9g} times slower" if k >= 1 else
                   f"played {1 / k:.9g} times faster (k = {k:.9g})")
            render.notice(f"{traj}: {piece}{how}{why}")
    for text in jumps:
        render.warning(f"{traj}: {text}")


def _root_columns(traj: str) -> tuple[str, ...] | None:
    """The floating root's and contacts' column prefixes (``base_``, ``contact_``) the
    trajectory file has; None for stdin or a FIFO (their columns are not known before they
    are read, and can be read once: they may have them) and a missing file."""
    from hodyn_cli.pipeline.files import column_names

    if traj == "-" or not Path(traj).is_file():
        return None
    try:
        names = column_names(traj)
    except HodynError:  # (said as the file is read)
        return ()
    return tuple(kind for kind in ("base_", "contact_") if any(n.startswith(kind) for n in names))


def _say_dropped(traj: str, roots: tuple[str, ...], resampled: bool) -> None:
    """Warn that a file's floating root and contact columns (``roots``) are not in the output
    (without ``--floating-base``): the joints are played alone, the root welded to the world
    (``--optimal`` and ``--to-limits --rate``, ``resampled``, refuse ``--floating-base``: a
    go2 walk's columns were dropped without a word, issue 37)."""
    from hodyn_cli.cli import render

    how = ("--optimal and --to-limits --rate do not go with --floating-base yet; "
           "--to-limits --floating-base scales them with the joints" if resampled else
           "--floating-base scales them with the joints")
    render.warning(f"{traj}: its {' and '.join(roots)} columns are not written: the joints "
                   f"are retimed with the root welded to the world ({how})")


def _retime_optimal(s, traj: str, output: str, attrs: dict, lim, job, rate, grid,
                    compact: bool, uniform: bool = False, solver: str = "auto",
                    arc_grid: int | None = None) -> None:
    from hodyn_cli.cli import render
    from hodyn_cli.errors import Infeasible
    from hodyn_cli.pipeline.feasibility import retime_optimal_file

    try:
        with render.progress(None, "grid points", s.quiet) as update:
            optimal = retime_optimal_file(job, traj, output, attrs, lim, rate=rate,
                                          grid=grid, arc_grid=arc_grid, compact=compact,
                                          uniform=uniform, solver=solver,
                                          notify=s.notify, progress=update,
                                          wrench=s.wrench, estimate=s.estimate,
                                          cutoff=s.cutoff, strict=s.strict,
                                          missing_hint=_hint(job))
    except Infeasible as e:
        render.fail(str(e))
        raise typer.Exit(EXIT_FAILED) from None
    notes = "".join(f"; {note}" for note in (optimal.rate_note, optimal.smoothing_note,
                                             optimal.rest_note, optimal.slowing_note,
                                             optimal.solver_note) if note)
    if not s.quiet and uniform:
        assert optimal.path is not None and optimal.final is not None
        # (the final fit's binding where the output is on a limit; else the nearest, and
        # what set the slowing: the binding of a sampling it is not)
        binding = (f"binding: {optimal.final.describe()}" if optimal.bound.describe() else
                   optimal.bound.summary())
        render.notice(f"{traj}: played k = {optimal.duration / optimal.path.span:.9g} times "
                      f"slower, sampled at {rate:g} Hz; {binding}{notes}")
    elif not s.quiet:
        render.notice(f"{traj}: {optimal.duration:.6g} s along its path (the fastest uniform "
                      f"scaling: {optimal.uniform_duration:.6g} s); {optimal.bound.summary()}"
                      f"{notes}")
