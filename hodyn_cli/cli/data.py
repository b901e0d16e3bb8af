"""Commands that make trajectory files: ``generate`` (designed motions) and ``import`` (robot
logs)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hodyn_cli import __version__
from hodyn_cli.cli.options import Output, Robot, command, numbers
from hodyn_cli.cli.root import app
from hodyn_cli.errors import HodynError


@command(app, "generate", short_help="Designed motions with exact derivatives.",
         shared=("gravity", "backend"))
def generate_command(
    robot: Robot,
    kind: Annotated[str, typer.Option(
        help="cosine, fourier (random Fourier series), excitation (the Fourier series that "
             "excites the base parameters best: hodyn identify's), filtered-step, "
             "point-to-point.")],
    output: Output = "-",
    rate: Annotated[float | None, typer.Option(
        help="Samples per second (default: 100).", show_default=False)] = None,
    duration: Annotated[float | None, typer.Option(
        help="Seconds (default: 10, filtered-step 2.5, point-to-point: the segments).",
        show_default=False)] = None,
    derivatives: Annotated[int | None, typer.Option(
        min=0, help="Highest derivative of q to write (default: 4, what compute --order 2 "
                    "needs).", show_default=False)] = None,
    seed: Annotated[int | None, typer.Option(
        help="Varies the default motion (>= 0; default: 0).", show_default=False)] = None,
    base_frequency: Annotated[float | None, typer.Option(
        help="fourier, excitation: base frequency (Hz; default: 0.1).",
        show_default=False)] = None,
    harmonics: Annotated[int | None, typer.Option(
        min=1, help="fourier, excitation: number of harmonics (default: 5).",
        show_default=False)] = None,
    coefficients: Annotated[Path | None, typer.Option(
        metavar="FILE", help='fourier: a JSON file {"<joint>": {"a": [...], "b": [...]}} '
        'instead of random ones.',
        show_default=False)] = None,
    filter_order: Annotated[int | None, typer.Option(
        min=1, help="filtered-step: filter order m (default: 16).", show_default=False)] = None,
    step: Annotated[str | None, typer.Option(
        help="filtered-step: step size, one value or one per coordinate (comma-separated; a "
             "multi-DOF joint has one per DOF).",
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
        help="With --respect-limits: drives (TOML: elastic or rigid) whose motor speed and "
             "torque limits count too.", show_default=False)] = None,
    optimal: Annotated[bool, typer.Option(
        "--optimal", help="With --respect-limits: play the designed path with the fastest "
                          "time law within the limits (as retime --optimal), not uniformly "
                          "slower.")] = False,
    s=None,
) -> None:
    """Write a designed motion with exact derivatives, inside the URDF's limits."""
    from hodyn_cli import api
    from hodyn_cli.pipeline.files import file_format
    from hodyn_cli.pipeline.trajectories import generate_file, read_waypoints

    model = s.model(robot)
    s.capable("generate", model, drives=drives is not None, optimal=optimal,
              respect_limits=respect_limits is not None,
              elastic=drives is not None and bool(api.read_drives(model, drives).elastic.any()))
    if compact and (output == "-" or file_format(output) != "hdf5"):
        raise HodynError("--compact is an HDF5 layout: give --output FILE.h5")
    options = dict(  # (None: not given, the library's default: generate.DEFAULTS, one place)
        rate=rate, duration=duration, derivatives=derivatives, seed=seed,
        base_frequency=base_frequency, harmonics=harmonics,
        coefficients=_json_file(coefficients) if coefficients else None,
        filter_order=filter_order, step=numbers(step, "--step"),
        waypoints=read_waypoints(waypoints, model) if waypoints else None,
        segment_duration=numbers(segment_duration, "--segment-duration"), vanishing=vanishing,
        source=str(robot if respect_limits is None else respect_limits))  # where limits are
    attrs = {"hodyn_version": __version__, "kind": kind, "urdf": str(robot),
             "urdf_sha256": model.source_sha256}
    generate_file(model, kind, output, attrs, compact=compact, limits=respect_limits,
                  drives=drives, optimal=optimal, gravity=s.g, check=not allow_limit_violation,
                  notify=s.notify, **options)


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


@command(app, "import", short_help="Trajectories from ROS 1/2 bags, MCAP and MuJoCo logs.")
def import_log(
    log: Annotated[Path, typer.Argument(
        help="ROS 1 bag (.bag), ROS 2 bag (directory, .db3 or .mcap), plain MCAP file, or "
             "MuJoCo log (.npz, .h5: qpos, qvel, qacc, time; needs --urdf MODEL.xml).",
        show_default=False)],
    output: Output = "-",
    topic: Annotated[str | None, typer.Option(
        help="The sensor_msgs/JointState topic (needed when there are several).",
        show_default=False)] = None,
    urdf: Annotated[Path | None, typer.Option(
        help="Map the log's joints to this robot's (others dropped, missing ones an error); "
             "a MuJoCo log's layout is its MJCF model's.",
        show_default=False)] = None,
    s=None,
) -> None:
    """Turn a robot log's JointState messages into a trajectory file (t, q, qd, effort), or a
    MuJoCo log's qpos, qvel, qacc into t, q, qd, qdd and a free root's base_ motion."""
    from hodyn_cli import api
    from hodyn_cli.cli.session import xacro_mappings
    from hodyn_cli.pipeline.trajectories import import_file, import_mujoco_file, is_mujoco_log

    mujoco = is_mujoco_log(log)
    if mujoco and urdf is None:
        raise HodynError("a MuJoCo log's qpos is read by the model's joint layout: give "
                         "--urdf MODEL.xml", str(log))
    if mujoco and topic is not None:
        raise HodynError("--topic is for ROS bags and MCAP files, not MuJoCo logs", str(log))

    model = None if urdf is None else api.load_joints(
        urdf, strict=s.strict, xacro_args=xacro_mappings(s.xacro_arg),
        ignore_broken_mimic=s.ignore_broken_mimic)
    if mujoco:
        assert urdf is not None and model is not None  # refused above without --urdf
        import_mujoco_file(log, output, {"hodyn_version": __version__}, urdf, model,
                           notify=s.notify)
        return
    import_file(log, output, {"hodyn_version": __version__}, topic=topic, model=model,
                notify=s.notify)
