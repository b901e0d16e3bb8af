"""``check --loops`` (docs/loops.md): the actuated joints' torques and torque rates are those
of ``compute --loops``, every joint's position and velocity the closed motion's (the passive
ones found by the loops), against their limits; the passive joints have no torque rows (the
cuts' forces carry their torques)."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import ROOT, SAMPLES, URDF
from hodyn_cli import api
from hodyn_cli.cli.app import app
from hodyn_cli.io import read_trajectory

LOOPS, CSV = URDF / "fourbar_loops.toml", SAMPLES / "fourbar_crank.csv"


def test_check_limits_of_a_closed_robot():
    """Each checked row's worst value and its violations are the torques' (and the passive
    joint's velocity's) along the motion: limits at 80 % of the peaks are violated exactly
    where the values exceed them."""
    closed = api.close_loops(api.load_robot(URDF / "fourbar.urdf"), LOOPS)
    tr = read_trajectory(str(CSV), closed, need=4)
    tau = api.inverse_dynamics(closed, tr, order=1)
    rocker = closed.coupling.expand(tr).qd[:, 2]
    series = {("torque", "crank"): tau.tau[:, 0], ("torque_rate", "crank"): tau.taud[:, 0],
              ("velocity", "rocker"): rocker}
    limits = {"crank": {"torque": 0.8 * np.abs(tau.tau).max(),
                        "torque_rate": 0.8 * np.abs(tau.taud).max()},
              "rocker": {"velocity": 0.8 * np.abs(rocker).max()}}
    check = api.check_limits(closed, tr, limits=limits)
    rows = {(r.quantity, r.joint): r for r in check.rows}
    assert not check.feasible
    for key, values in series.items():
        worst = int(np.abs(values).argmax())
        bound = limits[key[1]][key[0]]
        assert rows[key].value == pytest.approx(values[worst], rel=1e-12)   # (the laws' grades
        assert rows[key].sample == worst                                   # summed: rounding)
        assert rows[key].violations == int((np.abs(values) > bound * (1 + 1e-9)).sum())
    assert ("torque", "rocker") not in rows and ("velocity", "crank") in rows


def test_check_loops_on_the_command_line(tmp_path):
    """Exit 1 naming the actuated joint's torque beyond a limits file's; exit 0 within the
    URDF's (and on mjcf/fourbar.xml, whose loop is an <equality connect>); --loops with
    --drives refused in one line."""
    runner = CliRunner()
    urdf = str(URDF / "fourbar.urdf")
    result = runner.invoke(app, ["check", urdf, str(CSV), "--loops", str(LOOPS)])
    assert result.exit_code == 0, result.output
    # an MJCF model's own loops (<equality connect>) close as --loops's do
    result = runner.invoke(app, ["check", str(ROOT / "mjcf" / "fourbar.xml"), str(CSV)])
    assert result.exit_code == 0, result.output
    limits = tmp_path / "l.toml"
    limits.write_text("[joints.crank]\ntorque = 0.5\n")
    result = runner.invoke(app, ["check", urdf, str(CSV), "--loops", str(LOOPS), "--limits",
                                 str(limits)])
    assert result.exit_code == 1 and "hodyn: fail: torque of crank beyond its limit" in \
        result.stderr
    drives = tmp_path / "d.toml"
    drives.write_text("[joints.crank]\ngear_ratio = 10.0\n")
    result = runner.invoke(app, ["check", urdf, str(CSV), "--loops", str(LOOPS), "--drives",
                                 str(drives)])
    assert result.exit_code == 2
    assert result.stderr == ("hodyn: error: --loops (or an MJCF <equality connect|weld>) does "
                             "not go with --drives yet\n")
