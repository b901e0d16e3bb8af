"""``retime`` on inputs nobody tuned it for (found by trying public robots' odd motions as a
stranger would): each case once broke and is kept here by the real CLI, in process (the
suite makes a RuntimeWarning of hodyn's an error)."""

from __future__ import annotations

import pytest
from test_free_body import example_robot
from typer.testing import CliRunner

from hodyn_cli.cli.app import app

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
