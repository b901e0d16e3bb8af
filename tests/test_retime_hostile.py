"""``retime`` on inputs nobody tuned it for (found by trying public robots' odd motions as a
stranger would): each case once broke and is kept here by the real CLI, in process (the
suite makes a RuntimeWarning of hodyn's an error)."""

from __future__ import annotations

import numpy as np
import pytest
from test_free_body import example_robot
from typer.testing import CliRunner

from conftest import URDF
from hodyn_cli import load_robot
from hodyn_cli.cli.app import app
from hodyn_cli.io import read_trajectory

PANDA = example_robot("panda_description/urdf/panda.urdf")  # (with its finger joint)


@pytest.mark.skipif(PANDA is None, reason="example-robot-data is not installed")
def test_a_rest_inside_a_path_with_a_still_joint_and_jerk_limits(tmp_path):
    """The Panda out and back along joint 1 (a rest inside: a corner), its other joints and
    its finger still, 20 Hz, --jerk 200: at the corner the still joints' ramps are not steep
    (0), and their cap was bound/0 (a divide-by-zero warning on stderr, an error here)."""
    waypoints = tmp_path / "wp.csv"
    names = [f"panda_joint{i}" for i in range(1, 8)] + ["panda_finger_joint1"]
    still = "-0.5,0,-2.0,0,1.5,0.7,0.02"
    waypoints.write_text(f"{','.join(names)}\n0,{still}\n1.0,{still}\n0,{still}\n")
    path, out = tmp_path / "p2p.csv", tmp_path / "out.csv"
    made = CliRunner().invoke(app, ["generate", str(PANDA), "--kind", "point-to-point",
                                    "--waypoints", str(waypoints), "--segment-duration", "1.5",
                                    "--rate", "20", "-o", str(path)])
    assert made.exit_code == 0, made.output
    run = CliRunner().invoke(app, ["retime", str(PANDA), str(path), "--optimal", "--jerk",
                                   "200", "--solver", "reachability", "-q", "-o", str(out)])
    assert run.exit_code == 0, run.output
    assert out.exists()


def test_a_still_joint_at_10_khz_is_played_exactly_still(tmp_path):
    """The 2R arm out and back along joint 1 at 10 kHz, joint 2 still at 0.5: reachability's
    law (as at 1 kHz: 0.4585 s) passes validate. Its shape's spline rounded joint 2's 0.5 in
    the last digit from grid point to grid point, and the output's Hermite interpolation
    between them made noise of the still joint's derivatives (on the Panda's point-to-point
    paths q'''' ~3e-3, 25-56 times validate's tolerance, on joints that never move): every
    smoothing failed, and auto took the windows' 0.4951 s."""
    waypoints, path, out = tmp_path / "wp.csv", tmp_path / "p2p.csv", tmp_path / "out.csv"
    waypoints.write_text("joint1,joint2\n0,0.5\n1.0,0.5\n0,0.5\n")
    robot = str(URDF / "planar_2r.urdf")
    made = CliRunner().invoke(app, ["generate", robot, "--kind", "point-to-point", "--waypoints",
                                    str(waypoints), "--segment-duration", "0.1", "--rate",
                                    "10000", "--allow-limit-violation", "-o", str(path)])
    assert made.exit_code == 0, made.output
    run = CliRunner().invoke(app, ["retime", robot, str(path), "--optimal", "--solver",
                                   "reachability", "-o", str(out)])
    assert run.exit_code == 0, run.output
    played = read_trajectory(str(out), load_robot(robot))
    assert played.t is not None and played.t[-1] < 0.46
    assert np.all(played.derivatives[:, 0, 1] == 0.5)
    assert np.all(played.derivatives[:, 1:, 1] == 0.0)
