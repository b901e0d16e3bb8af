"""External wrenches (SPEC.md): +J^T W, against Pinocchio's fext and finite differences."""

import numpy as np
import pytest

from conftest import SAMPLES, URDF, pinocchio_reference, random_cosine, wrench_motion
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.urdf import load_model

CASES = [("iiwa14", "iiwa_link_ee"), ("iiwa14", "iiwa_link_4"), ("gripper_arm", "tool0"),
         ("gripper_arm", "finger_left")]


@pytest.mark.parametrize("robot, link", CASES)
def test_wrench_matches_pinocchio_fext(robot, link, method):
    path = URDF / f"{robot}.urdf"
    model = load_model(path)
    t = np.linspace(0, 2, 7)
    traj = random_cosine(model, t, orders=5, seed=3)
    W = wrench_motion(t, 2)
    traj = Trajectory(traj.joint_names, traj.derivatives, t, Wrenches({link: W}))
    ours = inverse_dynamics(model, traj, method=method, order=2)
    frame = model.links[link]
    body_joint = model.joint_names[frame.body]
    Wb = W[:, 0] @ lie.Ad_inv(frame.T[:3, :3], frame.T[:3, 3])  # in the body (joint) frame

    def fext(pin, pm, data, q, s):
        forces = [pin.Force.Zero() for _ in range(pm.njoints)]
        # Pinocchio's fext acts ON the body, (force; moment) ordering: the opposite of W
        forces[pm.getJointId(body_joint)] = pin.Force(-Wb[s, 3:], -Wb[s, :3])
        return forces

    tau, _ = pinocchio_reference(path, model, traj, fext)
    assert np.abs(ours[:, 0] - tau).max() <= 1e-10 * np.abs(tau).max()
    no_wrench = inverse_dynamics(model, Trajectory(traj.joint_names, traj.derivatives), order=0)
    assert np.abs(ours[:, 0] - no_wrench[:, 0]).max() > 1e-3  # the wrench did something


@pytest.mark.parametrize("robot, link", CASES)
def test_wrench_derivatives_match_finite_differences(robot, link, method):
    model = load_model(URDF / f"{robot}.urdf")
    H, stencil = 0.01, np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0, 4 / 5, -1 / 5, 4 / 105,
                                 -1 / 280])
    t = 1.3 + np.arange(-4, 5) * H
    traj = random_cosine(model, t, orders=4, seed=5)
    traj = Trajectory(traj.joint_names, traj.derivatives, t, Wrenches({link: wrench_motion(t, 2)}))
    res = inverse_dynamics(model, traj, method=method, order=2)
    for k in (1, 2):
        numeric = stencil @ res[:, k - 1] / H
        assert np.abs(res[4, k] - numeric).max() <= 1e-8 * np.abs(res[4, k]).max()


def test_wrench_columns_round_trip_and_cli(tmp_path):
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    model = load_model(URDF / "iiwa14.urdf")
    base = read_trajectory(str(SAMPLES / "iiwa14_cosine.csv"), model, need=5)
    W = Wrenches({"iiwa_link_ee": wrench_motion(base.t, 2)})
    for ext in ("csv", "h5"):
        path = tmp_path / f"w.{ext}"
        write_trajectory(str(path), Trajectory(base.joint_names, base.derivatives, base.t, W))
        back = read_trajectory(str(path), model, need=5)
        assert np.array_equal(back.wrenches.W["iiwa_link_ee"], W.W["iiwa_link_ee"])
        out = tmp_path / f"tau_{ext}.csv"
        result = CliRunner().invoke(app, ["compute", str(URDF / "iiwa14.urdf"), str(path), "-o",
                                          str(out)])
        assert result.exit_code == 0, result.output
    assert (tmp_path / "tau_csv.csv").read_text() == (tmp_path / "tau_h5.csv").read_text()
    missing = tmp_path / "partial.csv"
    text = (tmp_path / "w.csv").read_text().splitlines()
    header = text[0].split(",")
    keep = [i for i, h in enumerate(header) if h != "Wdd_iiwa_link_ee_fz"]
    missing.write_text("\n".join(",".join(r.split(",")[i] for i in keep) for r in text) + "\n")
    result = CliRunner().invoke(app, ["compute", str(URDF / "iiwa14.urdf"), str(missing)])
    assert result.exit_code == 2 and "Wdd_iiwa_link_ee_fz" in result.stderr


def test_readme_payload_example_equals_adding_the_mass():
    """W = (0; R^T (0, 0, m g)) at the flange is the same as a point mass m at the flange."""
    from hodyn_cli.modeling.urdf import parse_model

    text = (URDF / "iiwa14.urdf").read_text()
    model = load_model(URDF / "iiwa14.urdf")
    heavy = parse_model(text.replace('<link name="iiwa_link_ee"/>', (
        '<link name="iiwa_link_ee"><inertial><mass value="2"/><inertia ixx="0" ixy="0" ixz="0" '
        'iyy="0" iyz="0" izz="0"/></inertial></link>')).encode())
    q = np.array([0.3, 0.8, -0.4, -1.0, 0.5, 0.7, 0.2])
    T = np.eye(4)
    for i in range(model.n):  # serial chain: flange pose by the body-fixed POE
        R, p = lie.screw_exp(model.X[i], q[i : i + 1])
        T = T @ model.B[i] @ lie.homogeneous(R[0], p[0])
    T = T @ model.links["iiwa_link_ee"].T
    W = np.zeros((1, 1, 6))
    W[0, 0, 3:] = T[:3, :3].T @ np.array([0, 0, 2 * 9.81])
    derivs = np.zeros((1, 3, 7))
    derivs[0, 0] = q
    held = inverse_dynamics(model, Trajectory(model.joint_names, derivs, None,
                                              Wrenches({"iiwa_link_ee": W})), order=0)
    loaded = inverse_dynamics(heavy, Trajectory(model.joint_names, derivs), order=0)
    assert np.abs(held - loaded).max() < 1e-12 * np.abs(loaded).max()
    assert np.abs(held - inverse_dynamics(model, Trajectory(model.joint_names, derivs),
                                          order=0)).max() > 1.0
