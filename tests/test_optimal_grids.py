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

from conftest import URDF
from hodyn_cli.cli.app import app

IIWA = URDF / "iiwa14.urdf"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def cosine(tmp_path_factory):
    path = tmp_path_factory.mktemp("paths") / "cosine.h5"
    res = run("generate", IIWA, "--kind", "cosine", "--duration", 1, "--rate", 20, "-o", path)
    assert res.exit_code == 0, res.output
    return path


def retimed(src, out, *options):
    res = run("retime", IIWA, src, "--optimal", *options, "-o", out)
    assert res.exit_code == 0, res.output
    with h5py.File(out) as f:
        return dict(f.attrs), f["t"][()]


def test_grid_is_the_windows_and_arc_grid_reachabilitys(cosine, tmp_path):
    default, t = retimed(cosine, tmp_path / "default.h5")
    assert default["solver"] == "reachability" and default["grid_points"] == 4001
    # --grid: the windows' grid; reachability's (auto's solver here) stays as it was
    windows_grid, t_grid = retimed(cosine, tmp_path / "grid.h5", "--grid", 50)
    assert windows_grid["solver"] == "reachability" and windows_grid["grid_points"] == 4001
    assert windows_grid["duration"] == default["duration"] and np.array_equal(t_grid, t)
    arc, _ = retimed(cosine, tmp_path / "arc.h5", "--arc-grid", 500)
    assert arc["solver"] == "reachability" and arc["grid_points"] == 501
    # (--grid with --solver windows: tests/test_optimal.py)


@pytest.mark.parametrize("options, message", [
    (["--optimal", "--solver", "reachability", "--grid", "50"],
     "--grid is the windows solver's grid: not with --solver reachability (its grid: "
     "--arc-grid)"),
    (["--optimal", "--solver", "windows", "--arc-grid", "50"],
     "--arc-grid is the reachability solver's grid: not with --solver windows (its grid: "
     "--grid)"),
    (["--to-limits", "--arc-grid", "50"], "--arc-grid goes with --optimal")])
def test_a_grid_for_the_other_solver_is_refused_in_one_line(cosine, tmp_path, options, message):
    out = tmp_path / "out.h5"
    res = run("retime", IIWA, cosine, *options, "-o", out)
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hodyn: error: ") and \
        lines[0].endswith(message), lines
    assert not out.exists()
