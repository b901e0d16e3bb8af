"""Command-line inputs shared by the commands: option types, trajectory loading, provenance."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from hodyn_cli import __version__
from hodyn_cli.algorithms.estimate import DerivativeStream, EstimatingReader
from hodyn_cli.algorithms.methods import GRAVITY
from hodyn_cli.cli import render
from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.io import (
    CHUNK_ROWS,
    TrajectoryReader,
)
from hodyn_cli.io.paths import listing


class Method(str, Enum):
    body_fixed = "body-fixed"
    spatial = "spatial"
    closed_form = "closed-form"


Robot = Annotated[Path, typer.Argument(help="Robot description (URDF, or .xacro).",
                                        show_default=False)]
XacroArg = Annotated[list[str] | None, typer.Option(
    "--xacro-arg", help="Argument of a .xacro robot, name:=value (repeatable).",
    show_default=False)]


Lock = Annotated[list[str] | None, typer.Option(
    "--lock", help="Hold a joint fixed: JOINT=VALUE (repeatable); it needs no columns.",
    show_default=False)]
LockMissing = Annotated[bool, typer.Option(
    "--lock-missing", help="Hold every joint the file has no q column for (at 0, or the middle "
                           "of its range if 0 is outside).")]


def locked_model(model, lock: list[str] | None, lock_missing: bool, traj: str | None):
    """The model with ``--lock`` and ``--lock-missing`` joints fixed (see hodyn_cli.modeling.locking)."""
    from hodyn_cli.io.tables import open_table
    from hodyn_cli.modeling.locking import default_lock_value
    from hodyn_cli.modeling.locking import lock as lock_joints

    values = {}
    for item in lock or []:
        name, sep, value = item.partition("=")
        try:
            values[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise HodynError(f"--lock: expected JOINT=VALUE, got '{item}'")
    if lock_missing:
        if traj is None or traj == "-":
            raise HodynError("--lock-missing needs one trajectory file (it reads its columns)")
        table = open_table(traj)
        try:
            present = set(table.names)
        finally:
            table.close()
        for i, joint in enumerate(model.joint_names):
            if f"q_{joint}" not in present and joint not in values:
                values[joint] = default_lock_value(model, i)
        if values:
            render.notice(f"{traj}: holding joint(s) without q columns: " + ", ".join(
                f"{j}={v:g}" for j, v in values.items()))
    return lock_joints(model, values)


def xacro_mappings(items: list[str] | None) -> dict[str, str]:
    """``["name:=value", ...]`` -> ``{name: value}``."""
    out = {}
    for item in items or []:
        name, sep, value = item.partition(":=")
        if not sep or not name.strip():
            raise HodynError(f"--xacro-arg: expected name:=value, got '{item}'")
        out[name.strip()] = value
    return out
Debug = Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")]
Strict = Annotated[bool, typer.Option(
    "--strict", help="URDF warnings, and positions outside the URDF limits, are errors.")]
Trajectory_ = Annotated[str, typer.Argument(
    help="Trajectory: .csv, .h5/.hdf5, or - for CSV on stdin.", show_default=False)]
Output = Annotated[str, typer.Option("--output", "-o",
                                     help="Output .csv, .h5/.hdf5, or - for CSV on stdout.")]
Gravity = Annotated[str, typer.Option(help="Gravity gx,gy,gz in the root link frame.")]
DEFAULT_GRAVITY = ",".join(str(g) for g in GRAVITY)
Wrench = Annotated[str | None, typer.Option(help="External wrenches file (CSV/HDF5).")]

Jobs = Annotated[int | None, typer.Option(
    "--jobs", "-j", min=1, help="Threads (default: all cores; 1 = serial). Same numbers for any N.",
    show_default=False)]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]

Cutoff = Annotated[float | None, typer.Option(
    "--cutoff", help="With --estimate-derivatives: low-pass the data at this frequency (Hz) "
                     "first (zero-phase Butterworth), for measured, noisy data; the expected "
                     "error is reported.", show_default=False)]

Estimate = Annotated[bool, typer.Option(
    "--estimate-derivatives",
    help="Estimate missing derivative columns from the highest given one over t (spline; "
         "a warning says which, with their expected error).")]


ESTIMATE_HINT = "--estimate-derivatives estimates them from the data"


def open_input(path: str, model, need: int, wrench: str | None, estimate: bool,
               wrench_need: int = 0, missing_hint: str = ESTIMATE_HINT,
               series: tuple[str, ...] = (), chunk: int = CHUNK_ROWS, quiet: bool = False,
               cutoff: float | None = None, strict: bool = False
               ) -> TrajectoryReader | EstimatingReader:
    """The trajectory (and --wrench FILE) as a stream of chunks.

    With ``estimate`` missing derivatives are estimated as the chunks stream (windows with
    margins: memory stays bounded). ``missing_hint`` ends the error for missing derivative
    columns (what to do about them).
    """
    if cutoff is not None and not estimate:
        raise HodynError("--cutoff goes with --estimate-derivatives (it filters the data the "
                         "derivatives are estimated from)")
    try:
        reader = TrajectoryReader(path, model, 1 if estimate else need, wrench=wrench,
                                  series=series, chunk=chunk, strict_limits=strict)
    except TrajectoryError as e:
        if estimate or not e.message.startswith("missing columns"):
            raise
        raise TrajectoryError(f"{e.message}; {missing_hint}", e.source) from None
    if reader.ignored and not quiet:
        render.notice(f"{path}: ignoring {len(reader.ignored)} column(s) that are not hodyn's: "
                      f"{listing(reader.ignored)}")
    for column, meant in reader.typos.items():  # likely mistakes: said even with --quiet
        render.warning(f"{path}: column '{column}' is ignored; a typo of '{meant}'?")
    if not estimate:
        return reader
    wrapped = np.array([model.joint_types[i] == "continuous" for i in model.coordinates])
    return EstimatingReader(reader, need, wrench_need, cutoff, wrapped, rows=chunk,
                            done=estimate_report)


def estimate_report(stream: DerivativeStream) -> None:
    """The warning that derivatives were estimated, with their expected RMS error."""
    if not stream.names:
        return
    how = ("the sampled data over t (interpolating spline, no smoothing)" if stream.cutoff is None
           else f"the data low-passed at {stream.cutoff:g} Hz (zero-phase Butterworth) over t")
    expected = ", ".join(f"{name} {e:.2g}" for name, e in stream.largest_error().items())
    render.warning(f"estimated {', '.join(stream.names)} from {how}; expected RMS error away "
                   f"from the first and last {stream.end_seconds:.2g} s, largest joint: "
                   f"{expected}")


def limit_warnings(reader, path: str) -> None:
    """One warning per joint whose positions left its URDF limits (plausibility)."""
    for text in reader.beyond_limits.values():
        render.warning(f"{path}: {text}")


def parse_gravity(text: str) -> tuple[float, float, float]:
    """``"gx,gy,gz"`` -> floats."""
    try:
        g = tuple(float(v) for v in text.split(","))
    except ValueError:
        g = ()
    if len(g) != 3:
        raise HodynError(f"--gravity: expected gx,gy,gz (e.g. 0,0,-9.81), got '{text}'")
    return g


def provenance(robot: Path, traj: str, model: Model, **settings) -> dict:
    """HDF5 attributes that say where a result came from."""
    return {"hodyn_version": __version__, **settings, "urdf": str(robot),
            "urdf_sha256": model.source_sha256, "trajectory": traj,
            "joint_names": list(model.joint_names)}
