"""Commands that make trajectory files: ``generate`` (designed motions) and ``import`` (robot
logs)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Annotated

import typer

from hodyn_cli import __version__
from hodyn_cli.cli.app import app
from hodyn_cli.cli.options import Output, Robot, command
from hodyn_cli.errors import HodynError


def numbers(text: str | None, option: str, count: int | None = None, names=()):
    """Comma-separated numbers of an option: one float, or a list (``count``: exactly that
    many, one per name in ``names``)."""
    if text is None:
        return None
    from hodyn_cli.modeling.joint_files import in_range, out_of_range

    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise HodynError(f"{option}: expected numbers separated by commas, got '{text}'") from None
    for value in values:
        if not in_range(value):
            raise out_of_range(option, value, None)
    if count is not None:
        if len(values) != count:
            raise HodynError(f"{option} has {len(values)} values, the robot {count} joints "
                             f"({', '.join(names)})")
        return values
    return values[0] if len(values) == 1 else values


@command(app, "generate", short_help="Designed motions with exact derivatives.",
         shared=("gravity", "backend"))
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
    respect_limits: Annotated[Path | None, typer.Option(
        "--respect-limits", help="Limits file (TOML, as hodyn check): play the motion slower "
                                 "where torques, their rates, ... exceed a limit (and design "
                                 "it inside its position and velocity limits).",
        show_default=False)] = None,
    drives: Annotated[Path | None, typer.Option(
        help="With --respect-limits: elastic drives (TOML) whose motor speed and torque "
             "limits count too.", show_default=False)] = None,
    optimal: Annotated[bool, typer.Option(
        "--optimal", help="With --respect-limits: play the designed path with the fastest "
                          "time law within the limits (as retime --optimal), not uniformly "
                          "slower.")] = False,
    s=None,
) -> None:
    """Write a designed motion with exact derivatives, inside the URDF's limits."""
    from hodyn_cli.algorithms.planning import generate
    from hodyn_cli.cli import render
    from hodyn_cli.io import CHUNK_ROWS, file_format, open_sink, trajectory_datasets
    from hodyn_cli.modeling.drives import read_drives
    from hodyn_cli.modeling.limits import read_limits, with_limits

    model = s.model(robot)
    s.capable("generate", model, drives=drives is not None, optimal=optimal,
              respect_limits=respect_limits is not None,
              elastic=drives is not None and bool(read_drives(drives, model).elastic.any()))
    if compact and (output == "-" or file_format(output) != "hdf5"):
        raise HodynError("--compact is an HDF5 layout: give --output FILE.h5")
    options = dict(
        rate=rate, duration=duration, derivatives=derivatives, seed=seed,
        base_frequency=base_frequency, harmonics=harmonics,
        coefficients=_json_file(coefficients) if coefficients else None,
        filter_order=filter_order, step=numbers(step, "--step"),
        waypoints=_waypoints(waypoints, model) if waypoints else None,
        segment_duration=numbers(segment_duration, "--segment-duration"), vanishing=vanishing,
        source=str(robot if respect_limits is None else respect_limits))  # where limits are
    if optimal:
        limits = read_limits(respect_limits, model)
        model = with_limits(model, limits)
        plan, pieces = generate.optimal(model, kind, limits, gravity=s.g, drives=read_drives(
            drives, model) if drives else None, size=CHUNK_ROWS, **options)
    elif respect_limits is not None:
        limits = read_limits(respect_limits, model)
        model = with_limits(model, limits)
        slow, binding = generate.within_limits(
            model, kind, limits, gravity=s.g, drives=read_drives(drives, model) if drives
            else None, **options)
        options["slow"] = slow
        if binding is not None and not s.quiet:
            render.notice(f"played {slow:.6g} times slower to respect {respect_limits}: "
                          f"{binding.describe()} set it")
    if not optimal:
        pieces = generate.chunks(model, kind, CHUNK_ROWS, **options)
    first = next(pieces)
    columns = trajectory_datasets(first, compact)[1]
    attrs = {"hodyn_version": __version__, "joint_names": list(first.joint_names), "kind": kind,
             "seed": seed, "urdf": str(robot), "urdf_sha256": model.source_sha256}
    with open_sink(output, columns, attrs) as sink:  # piece by piece: memory bounded
        for piece in itertools.chain([first], pieces):
            if not allow_limit_violation:
                generate.check_limits(model, piece, options["source"])
            sink.write(trajectory_datasets(piece, compact)[0])
        if optimal:
            sink.attrs.update(plan.attributes)
    if optimal and not s.quiet:
        render.notice(f"{plan.duration:.6g} s along the designed path within {respect_limits} "
                      f"(the fastest uniform scaling: {plan.uniform_duration:.6g} s); on its "
                      "limits: " + "; ".join(plan.bound.describe()))


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


def _waypoints(path: Path, model):
    """Rows of joint positions from a CSV whose header names the (independent) joints."""
    import numpy as np

    from hodyn_cli.io.tables import CsvTable

    names = list(model.coordinate_names)
    table = CsvTable(str(path))
    try:
        missing = [j for j in names if j not in table.names]
        if missing:
            raise HodynError(f"no column for joint(s) {', '.join(missing)}", str(path))
        rows = list(table.blocks(names))
    finally:
        table.close()
    return np.concatenate(rows) if rows else np.zeros((0, len(names)))


@command(app, "import", short_help="Trajectories from ROS 1/2 bags and MCAP logs.")
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
    s=None,
) -> None:
    """Turn a robot log's JointState messages into a trajectory file (t, q, qd, effort)."""
    from hodyn_cli.cli import render
    from hodyn_cli.cli.session import xacro_mappings
    from hodyn_cli.io import open_sink
    from hodyn_cli.io.rosbag import JointStateStream
    from hodyn_cli.modeling.urdf import load_model

    # only the joints' names are used: impossible inertias do not matter here
    model = None if urdf is None else load_model(
        urdf, strict=s.strict, xacro_args=xacro_mappings(s.xacro_arg), repair_inertia=True)
    with JointStateStream(log, topic=topic, model=model) as joint_log:
        names = joint_log.joint_names
        keys = {"t": "t", "position": "q", "velocity": "qd", "effort": "effort"}
        columns = {"t": ["t"], **{keys[f]: [f"{keys[f]}_{j}" for j in names]
                                  for f in joint_log.fields}}
        attrs = {"hodyn_version": __version__, "joint_names": list(names), "source": str(log),
                 "topic": joint_log.topic,
                 "about_t": "seconds from the first sample; its header stamp is t0_ns"}
        with open_sink(output, columns, attrs) as sink:  # block by block: memory bounded
            for block in joint_log:
                sink.write({keys[k]: v for k, v in block.items()})
            sink.attrs["t0_ns"] = joint_log.t0_ns
    if not s.quiet:
        for note in joint_log.notes:
            render.notice(f"{log}: {note}")
