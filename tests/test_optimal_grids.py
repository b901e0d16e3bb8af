"""``retime --optimal``'s grids: ``--grid N`` is the windows solver's (the linear
programmes', whose cost grows with it), ``--arc-grid N`` reachability's (intervals in arc
length); one asked of a solver leaves the other's alone (a ``--grid 300`` meant for the
windows made reachability's law coarse: the bundled iiwa14_cosine.h5 with
urdf/iiwa14_limits.toml 9.0589 s against 9.0070 s at its default grid). Through the real
command line, on the iiwa's cosine path, 1 s at 20 Hz."""

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import SAMPLES, URDF
from hodyn_cli import api
from hodyn_cli.cli.app import app
from hodyn_cli.errors import HodynError

IIWA = URDF / "iiwa14.urdf"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def retimed(src, out, *options):
    res = run("retime", IIWA, src, "--optimal", *options, "-o", out)
    assert res.exit_code == 0, res.output
    with h5py.File(out) as f:
        return dict(f.attrs), f["t"][()]


def test_grid_is_the_windows_and_arc_grid_reachabilitys(iiwa_cosine, tmp_path):
    default, t = retimed(iiwa_cosine, tmp_path / "default.h5")
    assert default["solver"] == "reachability" and default["grid_points"] == 4001
    # --grid: the windows' grid; reachability's (auto's solver here) stays as it was
    windows_grid, t_grid = retimed(iiwa_cosine, tmp_path / "grid.h5", "--grid", 50)
    assert windows_grid["solver"] == "reachability" and windows_grid["grid_points"] == 4001
    assert windows_grid["duration"] == default["duration"] and np.array_equal(t_grid, t)
    # (and said: an option given is used or refused, never ignored unsaid)
    assert windows_grid["solver_note"] == "--grid 50 unused: the windows solver did not run"
    assert "solver_note" not in default
    arc, _ = retimed(iiwa_cosine, tmp_path / "arc.h5", "--arc-grid", 500)
    assert arc["solver"] == "reachability" and arc["grid_points"] == 501
    # (--grid with --solver windows: tests/test_optimal.py)


@pytest.mark.parametrize("options, message", [
    (["--optimal", "--solver", "reachability", "--grid", "50"],
     "--grid is the windows solver's grid: not with --solver reachability (its grid: "
     "--arc-grid)"),
    (["--optimal", "--solver", "windows", "--arc-grid", "50"],
     "--arc-grid is the reachability solver's grid: not with --solver windows (its grid: "
     "--grid)"),
    (["--to-limits", "--arc-grid", "50"], "--arc-grid goes with --optimal"),
    (["--optimal", "--drives", URDF / "iiwa14_motors.toml", "--arc-grid", "50"],
     "--arc-grid with --drives: reachability does not take the drives' motor limits; the "
     "windows solve it, on --grid")])
def test_a_grid_for_the_other_solver_is_refused_in_one_line(iiwa_cosine, tmp_path, options, message):
    out = tmp_path / "out.h5"
    res = run("retime", IIWA, iiwa_cosine, *options, "-o", out)
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hodyn: error: ") and \
        lines[0].endswith(message), lines
    assert not out.exists()


@pytest.mark.parametrize("options, message", [
    ({"arc_grid": -5}, "--arc-grid must be a whole number >= 8, got -5"),
    ({"arc_grid": 0}, "--arc-grid must be a whole number >= 8, got 0"),
    ({"arc_grid": 2.5}, "--arc-grid must be a whole number >= 8, got 2.5"),
    ({"grid": 7}, "--grid must be a whole number >= 8, got 7"),
    ({"grid": True}, "--grid must be a whole number >= 8, got True"),
    ({"rate": 0.0}, "--rate must be positive, got 0.0"),
    ({"rate": -20}, "--rate must be positive, got -20.0")])
def test_the_apis_grids_and_rate_are_checked_as_the_commands(options, message):
    """The API's ``grid``, ``arc_grid`` and ``rate`` are refused where the command refuses
    them (its ``min=8``), before any motion is read: an ``arc_grid`` of -5 or 2.5 made
    reachability's grid fail and auto fall to the windows unsaid, 0 (and ``rate`` 0) was
    taken for the default; a whole number of at least 8 (numpy's too) is taken."""
    robot = api.load_robot(str(IIWA))
    with pytest.raises(HodynError) as e:
        api.time_optimal(robot, **options)
    assert str(e.value) == message
    assert api.time_optimal(robot, grid=np.int64(8), arc_grid=8, rate=20.0).arc_grid == 8


def test_rate_0_is_refused_by_the_command(iiwa_cosine, tmp_path):
    """``--optimal --rate 0`` wrote the output at the input's rate, exit 0."""
    out = tmp_path / "out.h5"
    res = run("retime", IIWA, iiwa_cosine, "--optimal", "--rate", 0, "-o", out)
    assert res.exit_code == 2, res.output
    assert res.output.strip() == "hodyn: error: --rate must be positive, got 0.0"
    assert not out.exists()


def test_an_arc_grid_whose_path_leaves_a_limit_the_input_keeps_goes_to_the_windows(tmp_path):
    """``--arc-grid 8`` on the bundled gripper arm's cosine: reachability's path between its
    few grid points reaches shoulder_yaw = -3.13 rad, beyond its -3 limit, which the input
    keeps. That was the run's verdict, ``fail: no time scaling makes the motion feasible``
    (exit 1, a claim about the input; found on the 2R cosine, whose shape now follows the
    input through its turns: ``reachability.arcs``); now reachability does not apply: auto
    takes the windows (on a coarse ``--grid`` of their own: cheap), saying why, and
    ``--solver reachability`` refuses in one line (exit 2). (Since loop18 the played law has
    points at most reachability.OUTPUT_STEPS output steps apart: its path follows the shape
    between the 17 grid points, ~0.37 s apart, and keeps the limit; reachability gives way
    to the windows as validate fails its law at every smoothing.)"""
    robot, src = URDF / "gripper_arm.urdf", SAMPLES / "gripper_arm_cosine.h5"
    why = "reachability's law fails hodyn validate at every smoothing tried"
    out = tmp_path / "auto.h5"
    res = run("retime", robot, src, "--optimal", "--arc-grid", 8, "--grid", 100, "-o", out)
    assert res.exit_code == 0, res.output
    assert res.output.strip().endswith(f"; by the windows solver: {why}"), res.output
    with h5py.File(out) as f:
        assert f.attrs["solver"] == "windows" and list(f.attrs["solvers_run"]) == ["windows"]
    res = run("retime", robot, src, "--optimal", "--arc-grid", 8, "--solver", "reachability",
              "-o", tmp_path / "reach.h5")
    assert res.exit_code == 2 and res.output.strip() == (
        f"hodyn: error: {src}: --solver reachability: it does not apply ({why}): use --solver "
        "auto"), res.output
    assert not (tmp_path / "reach.h5").exists()


def test_absurd_grids_are_refused_in_one_line_by_a_bound_on_the_input(iiwa_cosine, tmp_path):
    """``--arc-grid 10^8`` (and 10^5 on this 21-sample path) ran minutes with no bound: an
    ``--arc-grid`` above 16 times the input's least default grid (4000 intervals, 3 a
    sample) is refused once the input is read through, naming it and its length, before
    reachability solves; above 6 x 10^6, and a ``--grid`` above the 131 072 points the
    windows' default takes, before any motion is read (the API alike). One line, exit 2,
    the output as it was."""
    out = tmp_path / "out.h5"
    out.write_bytes(b"kept")
    for options, message in (
            (["--arc-grid", 64001], f"{iiwa_cosine}: --arc-grid 64001 is more than 64000 "
                                    "intervals for 21 input samples (16 times the default's "
                                    "least: 4000, 3 a sample; 6000000 at most)"),
            (["--arc-grid", 10**8], "--arc-grid 100000000 is more than 6000000 intervals "),
            (["--grid", 131073], "--grid 131073 is more than 131072 points, the most the "
                                 "windows' default grid takes")):
        res = run("retime", IIWA, iiwa_cosine, "--optimal", *options, "-o", out)
        assert res.exit_code == 2, res.output
        lines = res.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"hodyn: error: {message}"), lines
        assert out.read_bytes() == b"kept"
    robot = api.load_robot(str(IIWA))
    with pytest.raises(HodynError, match="--grid 131073 is more than 131072 points"):
        api.time_optimal(robot, grid=131073)
    assert api.time_optimal(robot, grid=131072, arc_grid=6_000_000).arc_grid == 6_000_000
    t = np.linspace(0.0, 1.0, 21)
    q = np.zeros((21, 7)) + t[:, None]
    with pytest.raises(HodynError, match="64001 is more than 64000 intervals for 21 input"):
        api.retime_optimal(robot, q, np.ones((21, 7)), np.zeros((21, 7)), t=t,
                           arc_grid=64001)


def test_with_jerk_limits_the_default_arc_grid_follows_samples_up_to_1khz_only():
    """A 10 kHz input's 3 intervals a sample put reachability's grid beyond
    sequential.MOST, where the programmes that take the rounds' law back towards the optimum
    do not run: with limits of higher orders the samples count at 1 kHz at most (the UR5's
    10 kHz Fourier path with --jerk 100: its law slower than the uniform scaling on 300 003
    intervals, 6.0085 s on 30 000, the windows' 6.0158 s). A 1 kHz input's and a 200 Hz
    long one's grids, and every grid without such limits, stay as they were."""
    from hodyn_cli.algorithms.limits import sequential
    from hodyn_cli.algorithms.limits.optimal import grid_intervals

    fine = grid_intervals(100_001, 8.0, 10.0, higher=True)
    assert fine == 30_003 <= sequential.MOST < grid_intervals(100_001, 8.0, 10.0)
    for samples, seconds, span in ((10_001, 8.0, 10.0), (100_001, 400.0, 500.0),
                                   (1001, 42.0, 10.0)):
        assert grid_intervals(samples, seconds, span, higher=True) == grid_intervals(
            samples, seconds, span)


def test_a_fine_input_with_jerk_limits_gets_the_capped_grid(tmp_path, monkeypatch):
    """Through the command: the grid reachability is asked for on a 2 kHz input (14 001
    samples) with --jerk is 3 per sample of 1 kHz, not 42 003 (stopped there: the grid is
    what is tested)."""
    from hodyn_cli.algorithms.limits import reachability

    src = tmp_path / "fine.h5"
    res = run("generate", IIWA, "--kind", "cosine", "--rate", 2000, "--duration", 7, "-o", src)
    assert res.exit_code == 0, res.output
    asked = []

    def solve(model, chunks, limits, points, **kw):
        asked.append(points)
        raise reachability.Inapplicable("stopped")

    monkeypatch.setattr(reachability, "solve", solve)
    res = run("retime", IIWA, src, "--optimal", "--solver", "reachability", "--jerk", 500,
              "-o", tmp_path / "out.h5")
    assert res.exit_code == 2 and "stopped" in res.output
    assert asked == [21_003]
