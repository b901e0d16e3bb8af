"""The API is the one entry of a request: the refusals the algorithms used to ask the table of
capabilities for (they no longer import it: tests/test_layers.py) come from the API functions
that call them, in the table's words, before anything is computed; a coupling kind is the
model's own, carried through ``dataclasses.replace``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from conftest import SAMPLES, URDF, mimic_urdf
from hodyn_cli import api, capabilities
from hodyn_cli.core.trajectory import BaseMotion, Wrenches
from hodyn_cli.io import read_trajectory


def words(command: str, features: set[str]) -> str:
    """The table's refusal of ``features`` on ``command``."""
    with pytest.raises(capabilities.Unsupported) as refused:
        capabilities.check(command, features)
    return str(refused.value)


@pytest.fixture(scope="module")
def iiwa():
    robot = api.load_robot(URDF / "iiwa14.urdf")
    motion = read_trajectory(str(SAMPLES / "iiwa14_cosine.csv"), robot, need=5)
    motion = replace(motion, derivatives=motion.derivatives[:40], t=motion.t[:40])
    N = motion.n_samples
    free = replace(motion, base=BaseMotion(np.broadcast_to(np.eye(3), (N, 3, 3)),
                                           np.zeros((N, 3)), np.zeros((N, 4, 6))))
    pushed = replace(motion, wrenches=Wrenches({"iiwa_link_ee": np.zeros((N, 3, 6))}))
    return robot, motion, free, pushed


def test_check_refuses_drives_on_a_floating_base(iiwa):
    robot, _, free, _ = iiwa
    expected = words("check", {"floating_base", "drives"})
    for call in (lambda: api.check_limits(robot, free, drives=URDF / "iiwa14_motors.toml"),
                 lambda: api.scaling_laws(robot, free, drives=URDF / "iiwa14_motors.toml")):
        with pytest.raises(capabilities.Unsupported) as refused:
            call()
        assert str(refused.value) == expected


def test_the_time_optimal_law_refuses_elastic_drives_wrenches_and_a_floating_base(iiwa):
    robot, motion, free, pushed = iiwa
    with pytest.raises(capabilities.Unsupported) as refused:
        api.time_optimal(robot, drives=URDF / "iiwa14_drives.toml")
    assert str(refused.value) == words("retime", {"optimal", "elastic"})
    with pytest.raises(capabilities.Unsupported) as refused:
        api.design_motion(robot, "fourier", optimal=True, drives=URDF / "iiwa14_drives.toml",
                          duration=1.0)
    assert str(refused.value) == words("retime", {"optimal", "elastic"})
    for chunk, feature in ((pushed, "wrench"), (free, "floating_base")):
        optimal = api.time_optimal(robot)
        with pytest.raises(capabilities.Unsupported) as refused:
            optimal.fit(lambda chunk=chunk: [motion, chunk])   # (a later chunk too)
        assert str(refused.value) == words("retime", {"optimal", feature})


def test_inverse_kinematics_refuses_mimic_joints_and_no_joint(tmp_path):
    mimic = api.load_robot(mimic_urdf(tmp_path, "planar_2r", "joint2", "joint1", 0.5, 0.0))
    body = api.load_robot(URDF / "free_body.urdf")
    assert body.n == 0
    for robot, feature in ((mimic, "mimic"), (body, "no_joints")):
        link = next(iter(robot.links))
        with pytest.raises(capabilities.Unsupported) as refused:
            api.ik_solver(robot, link)
        assert str(refused.value) == words("ik", {feature})
        with pytest.raises(capabilities.Unsupported) as refused:
            api.inverse_kinematics(robot, link, {"p": np.zeros((1, 3))})
        assert str(refused.value) == words("ik", {feature})


def test_validation_refuses_simulating_a_floating_base_after_the_other_refusals(iiwa):
    robot, _, free, _ = iiwa
    with pytest.raises(capabilities.Unsupported) as refused:
        api.validate_motion(robot, free, simulate=True)
    assert str(refused.value) == words("validate", {"floating_base", "simulate"})
    with pytest.raises(capabilities.Unsupported) as refused:  # the torques' refusal first
        api.validate_motion(robot, free, simulate=True, tau=np.zeros((40, 7)))
    assert str(refused.value) == words("validate", {"floating_base", "torques"})


def test_a_coupling_kind_is_the_models_and_replace_rebuilds_it(tmp_path):
    """A closed model's kind survives ``replace`` (a new model: its own coupling, the same
    numbers); a mimic model's is built from its table; closed loops without their kind are a
    model error."""
    from hodyn_cli.errors import ModelError

    closed = api.close_loops(api.load_robot(URDF / "fourbar.urdf"), URDF / "fourbar_loops.toml")
    again = replace(closed, name="again")
    assert again.coupling is not closed.coupling and again.coupling_kind is closed.coupling_kind
    assert type(again.coupling) is type(closed.coupling)
    q = closed.coupling.reference[None]
    assert np.array_equal(again.coupling.residual(q)[1], closed.coupling.residual(q)[1])
    mimic = api.load_robot(mimic_urdf(tmp_path, "planar_2r", "joint2", "joint1", 0.5, 0.25))
    assert mimic.coupling.active and mimic.coupling.G.tolist() == [[1.0], [0.5]]
    with pytest.raises(ModelError, match="coupling_kind"):
        replace(closed, coupling_kind=None)


def test_torque_rates_with_measured_wrenches_are_the_tables_refusal(iiwa):
    """(Once a refusal of its own in the API; the command line says it in its columns' words,
    tests/test_capabilities.py.)"""
    robot, _, _, pushed = iiwa
    assert api.external_wrench_torques(robot, pushed).shape == (40, 7)
    with pytest.raises(capabilities.Unsupported) as refused:
        api.external_wrench_torques(robot, pushed, rates=1)
    assert str(refused.value) == words("identify", {"torque_rates", "log_wrenches"})


def test_locking_a_closed_robot_is_a_model_error():
    """``lock_joints`` on a robot whose loops are closed: its loops' indices, its actuated
    joints and its coupling kind are the unlocked tree's, so it is one line naming the order
    (lock, then close), not a numpy error from rebuilding the coupling on the smaller tree
    (before the coupling lived on the model: a HodynError at its first use)."""
    from hodyn_cli.errors import ModelError

    closed = api.close_loops(api.load_robot(URDF / "fourbar.urdf"), URDF / "fourbar_loops.toml")
    for joint in closed.joint_names:
        with pytest.raises(ModelError, match="before closing"):
            api.lock_joints(closed, {joint: 0.0})


def test_a_closed_robot_pickles_with_its_coupling():
    """The model carries its coupling: a closed robot goes to another process (Dask, a
    process pool) whole, and computes the same numbers there."""
    import pickle

    closed = api.close_loops(api.load_robot(URDF / "fourbar.urdf"), URDF / "fourbar_loops.toml")
    motion = read_trajectory(str(SAMPLES / "fourbar_crank.csv"), closed, need=5)
    expected = api.inverse_dynamics(closed, motion, order=2)
    again = pickle.loads(pickle.dumps(closed))
    assert type(again.coupling) is type(closed.coupling) and again.coupling.model is again
    got = api.inverse_dynamics(again, motion, order=2)
    assert set(got) == set(expected)
    for key in expected:
        assert np.array_equal(np.asarray(got[key]), np.asarray(expected[key])), key
