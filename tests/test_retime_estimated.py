"""``hodyn retime --estimate-derivatives`` on a positions-only file: the retimed file carries
q..qdddd (``pipeline.feasibility.RETIMED_ORDERS``), the orders ``hodyn generate`` writes, so
that ``hodyn validate`` takes it (it needs qddd; the output had only the orders the limits
needed, q..qdd, and validate refused it) and its derivatives follow from its positions."""

import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import URDF
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.io import read_trajectory, write_trajectory

runner = CliRunner()


@pytest.mark.parametrize("rate, suffix, how", [
    (20.0, "csv", ["--to-limits"]), (20.0, "csv", ["--optimal", "--jerk", "40"]),
    (200.0, "h5", ["--factor", "1.5"]), (200.0, "h5", ["--optimal"])],
    ids=["20Hz-to-limits", "20Hz-optimal-jerk", "200Hz-factor", "200Hz-optimal"])
def test_a_positions_only_input_retimed_passes_validate(tmp_path, rate, suffix, how):
    t = np.arange(0.0, 3.0 + 0.5 / rate, 1 / rate)
    exact = cosine(("joint1", "joint2"), t, amplitude=[0.8, 0.5], omega=[2.0, 3.0], orders=4)
    src, out = tmp_path / f"q.{suffix}", tmp_path / f"out.{suffix}"
    write_trajectory(str(src), Trajectory(exact.joint_names, exact.derivatives[:, :1], t))
    urdf = str(URDF / "planar_2r.urdf")
    result = runner.invoke(app, ["retime", urdf, str(src), *how, "--estimate-derivatives",
                                 "-o", str(out)])
    assert result.exit_code == 0, result.output
    written = read_trajectory(str(out), hodyn_cli.load_robot(urdf))
    assert written.derivatives.shape[1] == 5  # q..qdddd
    result = runner.invoke(app, ["validate", urdf, str(out), "--samples", "0"])
    assert result.exit_code == 0, result.output
