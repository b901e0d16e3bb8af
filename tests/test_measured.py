"""Measured, noisy data: --cutoff low-pass before estimating derivatives, the reported error,
the hint of validate, and the documented log example."""

import runpy

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import ROOT, URDF
from hodyn_cli.algorithms.motion.estimate import DerivativeStream, estimate_derivatives
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.errors import HodynError
from hodyn_cli.io import write_trajectory

runner = CliRunner()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cutoff", [3.0, 10.0])
def test_estimated_derivatives_are_within_the_reported_error(seed, cutoff):
    t = np.arange(0, 10, 1 / 500)
    exact = cosine(("a", "b"), t, amplitude=[1.0, 0.5], omega=[np.pi, 1.6 * np.pi],
                   phase=[0.3, 1.0], orders=4)
    rng = np.random.default_rng(seed)
    noisy = exact.derivatives[:, :1] + rng.normal(scale=1e-3, size=(len(t), 1, 2))
    stream = DerivativeStream([Trajectory(("a", "b"), noisy, t)], 5, cutoff=cutoff)
    est = np.concatenate([c.derivatives for c in stream])
    assert stream.names == ["qd", "qdd", "qddd", "qdddd"]
    expected = stream.expected_error["q"]
    ends = round(stream.end_seconds * 500)
    assert ends == 40 + round(6 * 500 / cutoff)  # the spline's 8 p samples, 6 / fc
    inner = slice(ends, -ends)
    for k in (1, 2, 3, 4):
        err = est[inner, k] - exact.derivatives[inner, k]
        ratio = np.sqrt((err**2).mean(axis=0)) / expected[k - 1]
        assert np.all((ratio > 0.5) & (ratio < 1.5)), (k, ratio)
    plain, _ = estimate_derivatives(Trajectory(("a", "b"), noisy, t), 3)  # no filter
    assert np.abs(plain.qdd - exact.qdd)[inner].max() > 50 * expected[1].max()


def test_cutoff_errors():
    t = np.concatenate([np.arange(0, 1, 0.01), np.arange(1.02, 2, 0.02)])
    tr = Trajectory(("a",), np.sin(t)[:, None, None], t)
    with pytest.raises(HodynError, match="uniformly sampled t"):
        estimate_derivatives(tr, 3, cutoff=5.0)
    t = np.arange(0, 2, 0.01)
    tr = Trajectory(("a",), np.sin(t)[:, None, None], t)
    with pytest.raises(HodynError, match="between 0 and half the sampling rate .50 Hz."):
        estimate_derivatives(tr, 3, cutoff=80.0)


def test_cli_reports_the_expected_error_and_validate_names_the_fix(tmp_path):
    model_urdf = URDF / "planar_2r.urdf"
    t = np.arange(0, 5, 1 / 200)
    exact = cosine(("joint1", "joint2"), t, amplitude=[0.8, 0.5], omega=[2.0, 3.0], orders=4)
    rng = np.random.default_rng(3)
    q = exact.derivatives[:, :1] + rng.normal(scale=1e-4, size=(len(t), 1, 2))
    src = tmp_path / "q.csv"
    write_trajectory(str(src), Trajectory(exact.joint_names, q, t))
    result = runner.invoke(app, ["compute", str(model_urdf), str(src), "--estimate-derivatives",
                                 "--cutoff", "5", "-o", str(tmp_path / "tau.csv")])
    assert result.exit_code == 0, result.output
    assert "low-passed at 5 Hz" in result.stderr and "expected RMS error" in result.stderr
    assert "qdd " in result.stderr
    result = runner.invoke(app, ["compute", str(model_urdf), str(src), "--cutoff", "5"])
    assert result.exit_code == 2 and "--cutoff goes with --estimate-derivatives" in result.stderr
    # a file whose qd does not follow from its q: validate fails and names the options
    bad = exact.derivatives.copy()
    bad[:, 1] *= 1.3
    write_trajectory(str(tmp_path / "bad.csv"), Trajectory(exact.joint_names, bad, t))
    result = runner.invoke(app, ["validate", str(model_urdf), str(tmp_path / "bad.csv")])
    assert result.exit_code == 1
    assert "--estimate-derivatives" in result.stderr and "--cutoff HZ" in result.stderr


@pytest.mark.slow
def test_documented_log_example(tmp_path):
    """docs/examples/measured_log.py as it is: a bag written by rosbags, hodyn import,
    hodyn compute --estimate-derivatives --cutoff, the figure."""
    pytest.importorskip("rosbags")
    example = runpy.run_path(str(ROOT / "docs" / "examples" / "measured_log.py"))
    figure = tmp_path / "figure.png"
    rms = example["main"](tmp_path, figure)
    assert 0.45 < rms < 0.7  # the torque sensors' 0.5 N m noise, nothing more
    assert figure.read_bytes().startswith(b"\x89PNG")
