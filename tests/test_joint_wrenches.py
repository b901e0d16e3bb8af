"""Inter-body (joint reaction) wrenches: two methods, statics, finite differences, CLI."""

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import SAMPLES, URDF, random_cosine, wrench_motion
from hodyn_cli.algorithms.dynamics.methods import joint_wrenches
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, Wrenches

STENCIL = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0.0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])


def test_spatial_and_body_fixed_agree_and_project_to_tau(robot):
    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics

    name, _, model = robot
    t = np.linspace(0, 3, 30)
    traj = random_cosine(model, t, orders=6, seed=21)
    traj = Trajectory(traj.joint_names, traj.derivatives, t,
                      Wrenches({model.link_names[-1]: wrench_motion(t, 4)}))
    a = joint_wrenches(model, traj, method="body-fixed", order=4)
    b = joint_wrenches(model, traj, method="spatial", order=4)
    for k in range(5):
        assert np.abs(a[:, k] - b[:, k]).max() <= 1e-10 * np.abs(a[:, k]).max(), f"{name} {k}"
    tau = inverse_dynamics(model, traj, order=4)
    assert np.allclose(np.einsum("nkij,ij->nki", b, model.X), tau, rtol=0, atol=1e-12 * np.abs(tau).max())


@pytest.mark.parametrize("method", ["body-fixed", "spatial"])
def test_derivatives_match_finite_differences(robot, method):
    _, _, model = robot
    t = 0.7 + np.arange(-4, 5) * 0.01
    F = joint_wrenches(model, random_cosine(model, t, orders=5, seed=8), method=method, order=3)
    for k in range(1, 4):
        numeric = np.einsum("s,sij->ij", STENCIL, F[:, k - 1]) / 0.01
        assert np.abs(F[4, k] - numeric).max() <= 1e-8 * np.abs(F[4, k]).max()


def test_at_rest_the_first_joint_carries_the_whole_weight():
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF / "iiwa14.urdf")
    derivs = np.zeros((1, 4, model.n))
    derivs[0, 0] = [0.3, 0.8, -0.4, -1.0, 0.5, 0.7, 0.2]
    F = joint_wrenches(model, Trajectory(model.joint_names, derivs), order=1)
    R1 = model.B[0, :3, :3] @ np.array([[np.cos(0.3), -np.sin(0.3), 0], [np.sin(0.3), np.cos(0.3), 0],
                                        [0, 0, 1]])  # joint 1 turns about its z axis
    support = R1 @ F[0, 0, 0, 3:]  # in the root frame
    assert np.allclose(support, [0, 0, model.mass.sum() * 9.81], atol=1e-10)
    assert not F[0, 1].any()  # nothing moves: no rate


def test_cli_writes_joint_wrenches_to_hdf5_only(tmp_path):
    robot, traj = str(URDF / "gripper_arm.urdf"), str(SAMPLES / "gripper_arm_cosine.h5")
    out = tmp_path / "tau.h5"
    runner = CliRunner()
    result = runner.invoke(app, ["compute", robot, traj, "-o", str(out), "--joint-wrenches",
                                 "--method", "spatial"])
    assert result.exit_code == 0, result.output
    with h5py.File(out) as f:
        assert set(f["joint_wrench"]) == {"upper_column", "upper_arm", "forearm", "palm",
                                          "finger_left", "finger_right"}
        assert f["joint_wrench/forearm/Fdd"].shape == (501, 6)
    csv = tmp_path / "tau.csv"
    result = runner.invoke(app, ["compute", robot, traj, "-o", str(csv), "--joint-wrenches"])
    assert result.exit_code == 2 and "HDF5" in result.stderr and not csv.exists()
