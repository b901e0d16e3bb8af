"""The command line's options, each declared once, and the decorator that gives a command the
shared ones and runs the shared preamble around it.

A command names the shared options it takes (``@command(app, "compute", shared=(...))``); it
receives them as one :class:`~hodyn_cli.cli.session.Session` argument ``s`` (``s.model(...)``
loads the robot, ``s.run_file(...)`` streams a file), and its body runs inside the one place
where errors become exit statuses (:func:`hodyn_cli.cli.errors.mapped_errors`).

Nothing here imports numpy or the library: ``hodyn --help`` only needs typer.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import typing
from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["command", "Robot", "Traj", "Output", "HdfOutput", "MethodChoice", "Format",
           "ElasticModel", "DrivesFile", "DriveModel", "RigidDrives", "SHARED", "EVERY",
           "STREAMING", "FLOATING", "CONTACTS"]


class MethodChoice(str, Enum):
    body_fixed = "body-fixed"
    spatial = "spatial"
    closed_form = "closed-form"


class Format(str, Enum):
    csv = "csv"
    hdf5 = "hdf5"


class ElasticModel(str, Enum):
    full = "full"
    reflected = "reflected"


Robot = Annotated[Path, typer.Argument(help="Robot description (URDF, .xacro, or MJCF .xml).",
                                       show_default=False)]
Traj = Annotated[str, typer.Argument(
    help="Trajectory: .csv, .h5/.hdf5, or - for CSV on stdin.", show_default=False)]
Output = Annotated[str, typer.Option("--output", "-o",
                                     help="Output .csv, .h5/.hdf5, or - for CSV on stdout.")]
HdfOutput = Annotated[str, typer.Option("--output", "-o", help="Output HDF5 file (.h5/.hdf5).")]

#: the drives options of compute, regressor and validate (docs/drives.md)
DrivesFile = Annotated[Path | None, typer.Option(
    "--drives", help="Drives file (TOML, docs/drives.md): gear ratio, rotor inertia, "
                     "efficiency, torque constant, friction per joint.", show_default=False)]
DriveModel = Annotated[ElasticModel | None, typer.Option(
    "--model", help="With --drives: full (rotor gyroscopic coupling, Hoepler & Thuemmel; the "
                    "default) or reflected (the rotor inertia as armature I r^2 only).",
    show_default=False)]
RigidDrives = Annotated[bool, typer.Option(
    "--rigid-drives", help="With --drives: take series-elastic drives (stiffness) as rigid.")]

#: ``--gravity``'s default: hodyn_cli.api.GRAVITY (not imported: ``--help`` starts without
#: numpy; tests/test_cli_edges.py holds the two equal)
GRAVITY = "0.0,0.0,-9.81"

#: name -> (annotation, default) of every option several commands share
SHARED = {
    "gravity": (Annotated[str | None, typer.Option(
        help=f"Gravity gx,gy,gz in the root link frame [default: {GRAVITY}, or an MJCF model's "
             "<option gravity>].", show_default=False)], None),
    "wrench": (Annotated[str | None, typer.Option(
        help="External wrenches file (CSV/HDF5).", show_default=False)], None),
    "estimate": (Annotated[bool, typer.Option(
        "--estimate-derivatives",
        help="Estimate missing derivative columns from the highest given one over t (spline; "
             "a warning says which and how accurate).")], False),
    "cutoff": (Annotated[float | None, typer.Option(
        "--cutoff", help="With --estimate-derivatives: low-pass the data at this frequency (Hz) "
                         "first (zero-phase Butterworth), for measured, noisy data.",
        show_default=False)], None),
    "jobs": (Annotated[int | None, typer.Option(
        "--jobs", "-j", min=1, help="Threads (default: all cores; 1 = serial). Same numbers "
                                    "for any N.", show_default=False)], None),
    "quiet": (Annotated[bool, typer.Option("--quiet", "-q",
                                           help="No progress bar, no notices (a report, as check's "
                                                "and validate's tables, still prints).")],
                 False),
    "lock": (Annotated[list[str] | None, typer.Option(
        "--lock", metavar="JOINT=VALUE",
        help="Hold a joint fixed (repeatable); it needs no columns (its own are ignored).",
        show_default=False)],
        None),
    "lock_missing": (Annotated[bool, typer.Option(
        "--lock-missing", help="Hold every joint the file has no q column for (at 0, or the "
                               "middle of its range if 0 is outside); a mimic follower is "
                               "not missing: it follows its leader.")], False),
    "strict": (Annotated[bool, typer.Option(
        "--strict", help="URDF warnings, and positions outside the URDF limits, are errors.")],
        False),
    "repair_inertia": (Annotated[bool, typer.Option(
        "--repair-inertia", help="Replace link inertias no rigid body has (negative mass or "
                                 "principal moments, triangle inequality violated) by the "
                                 "nearest consistent ones, with a warning per link, instead of "
                                 "refusing.")], False),
    "ignore_broken_mimic": (Annotated[bool, typer.Option(
        "--ignore-broken-mimic", help="A URDF <mimic> that names no moving joint of the robot "
                                      "is ignored, with a warning (its joint moves on its own), "
                                      "instead of refusing the robot.")], False),
    "xacro_arg": (Annotated[list[str] | None, typer.Option(
        "--xacro-arg", metavar="NAME:=VALUE",
        help="Argument of a .xacro robot (repeatable).", show_default=False)], None),
    "debug": (Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")],
              False),
    "floating_base": (Annotated[bool, typer.Option(
        "--floating-base", help="The root link is a free body moving as the trajectory's base_ "
                                "columns say (or --base-motion); gravity in the world frame.")],
        False),
    "base_motion": (Annotated[str | None, typer.Option(
        "--base-motion", help="With --floating-base: the root's motion from this file (hodyn "
                              "kinematics output of the root link, the same t).",
        show_default=False)], None),
    "backend": (Annotated[str | None, typer.Option(
        "--backend", help="Who computes: compiled (the C kernels; the default where they are "
                          "built), numpy (the reference), or another installed backend.",
        show_default=False)], None),
    "contacts": (Annotated[Path | None, typer.Option(
        "--contacts", help="With --floating-base: the robot stands on these contacts (TOML, "
                           "docs/contacts.md), active where the trajectory's contact_<name> "
                           "columns say; their wrenches carry the base wrench.",
        show_default=False)], None),
    "loops": (Annotated[Path | None, typer.Option(
        "--loops", help="Close kinematic loops (TOML, docs/loops.md): the trajectory holds "
                        "the actuated joints; the passive ones follow, the constraint forces "
                        "come as Fl_<loop>_<component>.", show_default=False)], None),
}

#: the options of every command: how the robot is loaded (every command loads one, or may),
#: how much it says
EVERY = ("quiet", "strict", "repair_inertia", "ignore_broken_mimic", "xacro_arg", "debug")
#: those of a command that reads a trajectory and streams a result
STREAMING = ("gravity", "wrench", "estimate", "cutoff", "jobs", "lock", "lock_missing", "backend")
#: those of a command that also takes a floating root (docs/floating.md)
FLOATING = ("floating_base", "base_motion")
#: a floating root on its contacts (docs/contacts.md)
CONTACTS = ("contacts",)
#: closed kinematic loops (docs/loops.md)
LOOPS = ("loops",)


def _named(param: inspect.Parameter) -> inspect.Parameter:
    """The parameter with a metavar that says what it is (``--output FILE``-style names from
    the parameter's name, e.g. ``ROBOT``, ``ORDER``), not its Python type."""
    base, *extra = typing.get_args(param.annotation) or (None,)
    info = next((x for x in extra if isinstance(x, typer.models.ParameterInfo)), None)
    kind = next((t for t in (typing.get_args(base) or (base,)) if t is not type(None)), base)
    kind = typing.get_args(kind)[0] if typing.get_origin(kind) is list else kind
    if info is None or info.metavar or kind is bool or isinstance(kind, type) and \
            issubclass(kind, Enum):
        return param
    info = copy.copy(info)
    info.metavar = param.name.upper()
    return param.replace(annotation=Annotated[base, info])


#: parameters naming files a command writes; every other argument that names an existing
#: file is one it reads
OUTPUTS = ("output", "report", "drives_output", "drives_toml", "limits_toml")


def _files(value) -> list[str]:
    values = value if isinstance(value, list | tuple) else [value]
    return [str(v) for v in values if isinstance(v, str | Path)]


def refuse_overwriting(arguments: dict) -> None:
    """An error before anything runs if an output is one of the files the command reads
    (also through a symbolic or hard link), or two outputs are one file (the second would
    replace the first): nothing is lost."""
    from hodyn_cli.pipeline.files import refuse_inputs, refuse_shared_outputs

    inputs = [f for k, v in arguments.items() if k not in OUTPUTS for f in _files(v)]
    outputs = [str(arguments[key]) for key in OUTPUTS if arguments.get(key) is not None]
    for output in outputs:
        refuse_inputs(output, inputs)
    refuse_shared_outputs(outputs)


def refuse_out_of_range(arguments: dict) -> None:
    """An error before anything runs if a number option is not finite or its magnitude not
    0 or in 1e-30 .. 1e30 (:func:`hodyn_cli.api.check_number`: beyond, float64 overflows
    somewhere in what it scales)."""
    from hodyn_cli import api

    for key, value in arguments.items():
        if isinstance(value, float):
            api.check_number(f"--{key.replace('_', '-')}", value)


def command(app: typer.Typer, name: str, *, short_help: str, shared: tuple[str, ...] = ()):
    """Register ``fn(..., s)`` as command ``name`` with the options of :data:`EVERY` command
    and the ``shared`` ones added to its own.

    The options arrive as one :class:`~hodyn_cli.cli.session.Session` ``s``; the body runs
    with errors mapped to exit statuses.
    """
    shared = EVERY + tuple(n for n in shared if n not in EVERY)

    def register(fn):
        own = [p for p in inspect.signature(fn, eval_str=True).parameters.values()
               if p.name != "s"]
        added = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=SHARED[n][0],
                                   default=SHARED[n][1]) for n in shared]
        own, added = [_named(p) for p in own], [_named(p) for p in added]

        @functools.wraps(fn)
        def run(**kwargs):
            from hodyn_cli.cli.app import started
            from hodyn_cli.cli.errors import mapped_errors
            from hodyn_cli.cli.session import Session
            from hodyn_cli.pipeline.files import held

            with mapped_errors(kwargs.get("debug", False)):
                refuse_overwriting(kwargs)
                refuse_out_of_range(kwargs)
                session = Session(**{n: kwargs.pop(n) for n in shared}, command=name,
                                  options=shared)
                started()
                # the one trajectory file opened once: its columns looked up before the
                # robot loads (retime's root columns, --lock-missing), then each pass of it
                traj = kwargs.get("traj")
                with held(traj) if isinstance(traj, str) else contextlib.nullcontext():
                    return fn(**kwargs, s=session)

        del run.__wrapped__  # typer must see the signature below, not fn's
        run.__signature__ = inspect.Signature(own + added)
        run.__annotations__ = {p.name: p.annotation for p in own + added}
        return app.command(name, short_help=short_help)(run)

    return register


def numbers(text: str | None, option: str, count: int | None = None, names: Sequence[str] = (),
            unlimited: bool = False) -> float | list[float] | None:
    """Comma-separated numbers of an option: one float, or a list (``count``: exactly that
    many, one per name in ``names``: always a list); None where the option was not given;
    ``unlimited`` as :func:`number_list`'s.

    >>> numbers("0.5", "--step"), numbers("0.5,1", "--step"), numbers("2", "--q0", count=1)
    (0.5, [0.5, 1.0], [2.0])
    """
    if text is None:
        return None
    values = number_list(text, option, count, names, unlimited)
    return values[0] if count is None and len(values) == 1 else values


def number_list(text: str, option: str, count: int | None = None, names: Sequence[str] = (),
                unlimited: bool = False) -> list[float]:
    """Comma-separated numbers of an option, always a list (``count``: exactly that many,
    one per name in ``names``); ``unlimited``: a limit's option, where ``inf`` says "no
    limit" for a joint. (Here, not in :mod:`~hodyn_cli.cli.data`: ``check`` and ``retime``
    read ``--jerk`` with it, and importing that module registered ``generate`` and
    ``import`` on the way, ~2-3 ms of their start.)"""
    from hodyn_cli import api
    from hodyn_cli.errors import HodynError

    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise HodynError(f"{option}: expected numbers separated by commas, got '{text}'") from None
    for value in values:
        if not (unlimited and value == float("inf")):
            api.check_number(option, value)
    if count is not None and len(values) != count:
        raise HodynError(f"{option} has {len(values)} values, the robot {count} joints "
                         f"({', '.join(names)})")
    return values
