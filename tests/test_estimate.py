"""Estimated derivatives (SPEC: only when asked, with a warning)."""

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import SAMPLES, URDF, wrench_motion
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.algorithms.motion.estimate import estimate_derivatives
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.urdf import load_model

IIWA = URDF / "iiwa14.urdf"


@pytest.mark.parametrize("given", [1, 2, 3])
def test_estimated_torques_are_close_in_the_interior(given):
    """100 Hz samples of the iiwa motion: taudd within 1e-4 of its scale away from the ends."""
    model = load_model(IIWA)
    exact = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    partial = Trajectory(exact.joint_names, exact.derivatives[:, :given], exact.t)
    est, names = estimate_derivatives(partial, 5)
    assert names == ["q", "qd", "qdd", "qddd", "qdddd"][given:]
    assert np.array_equal(est.derivatives[:, :given], exact.derivatives[:, :given])
    a, b = (inverse_dynamics(model, tr, order=2)[20:-20] for tr in (est, exact))
    for k in range(3):
        assert np.abs(a[:, k] - b[:, k]).max() <= 1e-4 * np.abs(b[:, k]).max(), k


def test_wrench_rates_are_estimated_too():
    model = load_model(IIWA)
    exact = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    W = wrench_motion(exact.t, 2)
    tr = Trajectory(exact.joint_names, exact.derivatives, exact.t,
                    Wrenches({"iiwa_link_ee": W[:, :1]}))
    est, names = estimate_derivatives(tr, 5, 3)
    assert names == ["Wd", "Wdd"]
    got = est.wrenches.W["iiwa_link_ee"]
    assert np.abs(got[20:-20] - W[20:-20]).max() <= 1e-6 * np.abs(W).max()


def test_nothing_missing_changes_nothing():
    model = load_model(IIWA)
    exact = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    assert estimate_derivatives(exact, 5) == (exact, [])


def test_cli_estimates_only_when_asked(tmp_path):
    model = load_model(IIWA)
    exact = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    q_only = tmp_path / "q.csv"
    write_trajectory(str(q_only), Trajectory(exact.joint_names, exact.derivatives[:, :1], exact.t))
    runner = CliRunner()
    out = tmp_path / "tau.csv"
    result = runner.invoke(app, ["compute", str(IIWA), str(q_only), "-o", str(out)])
    assert result.exit_code == 2 and "--estimate-derivatives" in result.stderr and not out.exists()
    result = runner.invoke(app, ["compute", str(IIWA), str(q_only), "-o", str(out),
                                 "--estimate-derivatives"])
    assert result.exit_code == 0
    assert "warning: estimated qd, qdd, qddd, qdddd" in result.stderr
    assert out.read_text().startswith("t,tau_iiwa_joint_1")
    no_t = tmp_path / "no_t.csv"
    write_trajectory(str(no_t), Trajectory(exact.joint_names, exact.derivatives[:, :1]))
    result = runner.invoke(app, ["kinematics", str(IIWA), str(no_t), "--link", "iiwa_link_ee",
                                 "--estimate-derivatives"])
    assert result.exit_code == 2 and "needs a t column" in result.stderr
    assert str(no_t) in result.stderr


def test_an_empty_chunk_in_the_stream_changes_nothing():
    """A stream of chunks with an empty one among them (a caller's, or a reader's last)
    estimates what the same chunks without it do; with a continuous joint to unwrap it
    raised IndexError."""
    from hodyn_cli import api
    from hodyn_cli.algorithms.planning.generate import generate

    model = load_model(URDF / "gripper_arm.urdf")
    motion = generate(model, "cosine", duration=3.0)
    cuts = [0, 100, 100, 200, motion.n_samples]  # the second chunk is empty

    def estimated(bounds):
        chunks = [Trajectory(motion.joint_names, motion.derivatives[a:b, :1], motion.t[a:b])
                  for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        stream = api.derivative_stream(model, chunks, 3).start()
        return np.concatenate([c.derivatives for c in stream])

    with_empty = estimated(cuts)
    assert with_empty.shape == (motion.n_samples, 3, model.n)
    np.testing.assert_array_equal(with_empty, estimated(sorted(set(cuts))))
