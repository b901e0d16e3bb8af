"""The Python API: arrays or dicts in, named fields out, one-line errors."""

import numpy as np
import pytest

import hodyn_cli
from conftest import URDF, pinocchio_reference, random_cosine
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.errors import HodynError

ROBOT = hodyn_cli.load_robot(URDF / "gripper_arm.urdf")


def test_dicts_in_any_order_reach_the_right_joints_pinocchio():
    traj = random_cosine(ROBOT, np.linspace(0, 1, 6), orders=4, seed=2)
    names = list(reversed(ROBOT.joint_names))  # a dict in another order than the model's
    dicts = [{j: traj.derivatives[:, k, ROBOT.joint_index(j)] for j in names} for k in range(3)]
    res = hodyn_cli.inverse_dynamics(ROBOT, *dicts, order=0)
    tau, _ = pinocchio_reference(URDF / "gripper_arm.urdf", ROBOT, traj)
    assert np.abs(res.tau - tau).max() <= 1e-10 * np.abs(tau).max()


def test_load_robot_takes_the_command_lines_model_options():
    held = hodyn_cli.load_robot(URDF / "gripper_arm.urdf", lock={"finger_left_joint": 0.01})
    assert "finger_left_joint" not in held.joint_names and held.n == ROBOT.n - 1
    assert held.links["finger_left"].body == held.joint_index("wrist_roll")


def test_shapes_names_and_keywords():
    traj = random_cosine(ROBOT, np.linspace(0, 1, 4), orders=4, seed=1)
    q, qd, qdd, qddd, qdddd = (traj.derivatives[:, k] for k in range(5))
    full = hodyn_cli.inverse_dynamics(ROBOT, q, qd, qdd, qddd=qddd, qdddd=qdddd)
    assert list(full) == ["tau", "taud", "taudd"] and full.taudd.shape == (4, ROBOT.n)
    one = hodyn_cli.inverse_dynamics(ROBOT, q[2], qd[2], qdd[2], qddd[2], qdddd[2])
    assert one.tau.shape == (ROBOT.n,)
    assert np.allclose(one.taudd, full.taudd[2], rtol=0, atol=1e-12)
    assert full["taud"] is full.taud and "tau(4, 6)" in repr(full)


@pytest.mark.parametrize("call, message", [
    (lambda q: hodyn_cli.inverse_dynamics(ROBOT, q[:, :3], order=0), "expected shape (N, 6)"),
    (lambda q: hodyn_cli.inverse_dynamics(ROBOT, q, q[:2], q, order=0), "differ in length"),
    (lambda q: hodyn_cli.inverse_dynamics(ROBOT, q, q, qddd=q, order=0), "without qdd"),
    (lambda q: hodyn_cli.inverse_dynamics(ROBOT, q, q, qd=q, order=0), "'qd' given twice"),
    (lambda q: hodyn_cli.inverse_dynamics(ROBOT, q, q, q, order=0, speed=q), "unknown argument"),
    (lambda q: hodyn_cli.inverse_dynamics(ROBOT, {"nope": 1.0}, order=0), "no joint 'nope'"),
    (lambda q: hodyn_cli.inverse_dynamics(ROBOT, {"shoulder_yaw": 1.0}, order=0),
     "no values for joint(s) shoulder_pitch"),
    (lambda q: hodyn_cli.inverse_dynamics(ROBOT, q * np.nan, q, q, order=0), "must be finite"),
    (lambda q: hodyn_cli.inverse_dynamics(ROBOT, q, q, q, order=0,
                                          wrenches={"tool0": np.zeros((4, 1, 5))}),
     "expected shape (4, D, 6)"),
])
def test_wrong_inputs_are_one_line_errors(call, message):
    q = np.zeros((4, ROBOT.n))
    with pytest.raises(HodynError) as err:
        call(q)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_other_capabilities_take_the_same_inputs(tmp_path):
    traj = random_cosine(ROBOT, np.linspace(0, 2, 5), orders=8, seed=3)
    qs = [traj.derivatives[:, k] for k in range(9)]
    ee = hodyn_cli.forward_kinematics(ROBOT, "tool0", *qs[:3], order=1)
    assert ee.p.shape == (5, 3) and ee.Vsd.shape == (5, 6)
    E = hodyn_cli.matrices(ROBOT, *qs[:3])
    tau = hodyn_cli.inverse_dynamics(ROBOT, *qs[:3], order=0).tau
    assert np.allclose(np.einsum("nij,nj->ni", E.M, qs[2])
                       + np.einsum("nij,nj->ni", E.C, qs[1]) + E.g, tau, rtol=0, atol=1e-10)
    drives = URDF / "gripper_arm_drives.toml"
    by_file = hodyn_cli.elastic_dynamics(ROBOT, drives, *qs, order=0)
    table = {"shoulder_yaw": {"stiffness": 8000.0, "gear_ratio": 120.0, "rotor_inertia": 8e-5}}
    by_dict = hodyn_cli.elastic_dynamics(ROBOT, table, *qs, order=0)
    assert by_file.taum.shape == by_dict.taum.shape == (5, ROBOT.n)
    assert hodyn_cli.dynamic_regressor(ROBOT, *qs[:3]).Y.shape == (5, ROBOT.n, 10 * ROBOT.n)
    assert hodyn_cli.torque_sensitivities(ROBOT, *qs[:3]).dtau_dq.shape == (5, 6, 6)
    dense = generate(ROBOT, "cosine", duration=2.0)  # inside the limits, t resolves it
    report = hodyn_cli.validate_motion(ROBOT, *(dense.derivatives[:, k] for k in range(5)),
                                       t=dense.t)
    assert report.passed, [c.detail for c in report.failures]
