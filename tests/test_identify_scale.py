"""Identification in any units: weighted least squares starts from each joint's RMS
measurement (``least_squares._spread``), so measuring one joint in other units (a prismatic
joint's N beside the revolute joints' N m: their ratio is the robot's size) changes neither
the estimate nor the other joints' noise. Before, the first solve was ordinary least
squares in the units given and its residuals set the weights of the two reweighted solves
that follow: here the estimate moved by 7e-10 relative; on the gripper arm's log scaled by
1e-3 a joint's noise estimate came out 3.8x its residual RMS (least_squares._spread)."""
from __future__ import annotations

import numpy as np
import pytest

from hodyn_cli.algorithms.identification.least_squares import Stack, weighted_least_squares


def _fit(unit: float):
    """Two joints of 400 samples, 4 base parameters; joint 1 measured in ``unit``."""
    rng = np.random.default_rng(3)
    A = rng.normal(size=(400, 2, 4))
    beta = np.array([1.0, -2.0, 0.5, 3.0])
    y = A @ beta + rng.normal(size=(400, 2)) * [0.3, 0.002]
    A[:, 1] *= unit
    y[:, 1] *= unit
    stack = Stack(2, 4)
    stack.add(A, y)
    return weighted_least_squares(stack)


def test_one_joint_in_other_units_gives_the_same_estimate():
    one = _fit(1.0)
    for unit in (1e-6, 1e6):
        other = _fit(unit)
        np.testing.assert_allclose(other.estimate, one.estimate, rtol=1e-12)
        np.testing.assert_allclose(other.noise, one.noise * [1.0, unit], rtol=1e-12)
        np.testing.assert_allclose(other.standard_errors, one.standard_errors, rtol=1e-10)


def test_the_prior_centre_of_a_body_at_any_size():
    """The prior centre of a slender body (a rod along x, its other moments 1e-4 of its
    length's) is the same body at 1 mm, 1 m and 1 km: ``J0 -> D J0 D``, ``D = diag(L, L, L,
    1)``. Before, the singularity test and its regularization compared J0's kg m^2 with its
    kg: at 1e-3 the lift swamped every gripper arm body's Sigma, its centre a blob of 1e-3
    its mass spread over a metre (identify stopped unconverged with masses 0.57x to 7x the
    1 m arm's at 1e-3 and 1e-2, 20x to 28x in mm; now all agree to 2e-4 from 1e-3 to 1e3)."""
    from hodyn_cli.algorithms.identification.consistent import _prior_centre

    m, c = 2.0, np.array([0.1, 0.02, 0.0])
    sigma = np.diag([0.002, 2e-7, 3e-7]) + m * np.outer(c, c)   # int r r^T dm about the origin
    J0 = np.block([[sigma, m * c[:, None]], [m * c[None, :], np.array([[m]])]])[None]
    one = _prior_centre(J0)
    for L in (1e-3, 1e3):
        D = np.diag([L, L, L, 1.0])
        np.testing.assert_allclose(_prior_centre(D @ J0 @ D), D @ one @ D, rtol=1e-12,
                                   atol=1e-15 * np.abs(D @ one @ D).max())


def _gripper(folder, L: float):
    """identify on the gripper arm with lengths times ``L`` (masses kept, gravity times L:
    the same robot in another length unit), from the 1 m arm's Fourier motion (its prismatic
    joints' columns times L) and the torques of the arm with each body's inertia scaled by
    0.8 .. 1.2, with 1 % noise: the Identification and the base parameters' columns."""
    from dataclasses import replace
    from pathlib import Path

    from conftest import scaled_urdf
    from hodyn_cli import api
    from hodyn_cli.algorithms.planning.generate import generate
    from hodyn_cli.core.trajectory import Trajectory

    urdf = Path(__file__).resolve().parents[1] / "urdf" / "gripper_arm.urdf"
    one = api.load_robot(str(urdf))
    motion = generate(one, "fourier", duration=10.0, rate=50.0, derivatives=2, seed=3)
    unit = np.array([L if k == "prismatic" else 1.0 for k in one.joint_types])
    motion = Trajectory(motion.joint_names, motion.derivatives * unit, motion.t)
    robot = api.load_robot(str(scaled_urdf(urdf, folder, L)))
    rng = np.random.default_rng(4)
    truth = replace(robot, inertias=robot.inertias * rng.uniform(0.8, 1.2, len(robot.inertias))[
        :, None, None])
    gravity = (0.0, 0.0, -9.81 * L)
    tau = api.inverse_dynamics(truth, motion, order=0, gravity=gravity).tau
    tau = tau + rng.normal(size=tau.shape) * 0.01 * np.abs(tau).max(axis=0)
    return api.identify(robot, [(motion, tau)], gravity=gravity)


@pytest.fixture(scope="module")
def gripper_1m(tmp_path_factory):
    return _gripper(tmp_path_factory.mktemp("one"), 1.0)


@pytest.mark.parametrize("L", [1e-3, 1e3])   # (a 1 mm arm; one exported in mm)
def test_the_gripper_arm_identified_in_other_units_is_the_same(tmp_path, gripper_1m, L):
    """The same base parameters (columns), condition number and identified parameters
    (times their units: m c times L, I times L^2) as the 1 m arm. Before, the base
    columns were chosen by QR on the columns scaled to a largest entry of 1 but floored
    against the largest column in SI units (regressor._independent_columns), so in mm the
    inertia columns, 1e6 below the mass columns, fell under the floor: other columns, the
    docs' log's condition number 80.6 against 48.7 at 1 m; and the consistent solver's
    unknowns (a log-Cholesky factor of each body's pseudo-inertia, its entries of the body's
    size) made it stop 1e-4 of the parameters from the 1 m solution at 1e-3."""
    one, other = gripper_1m, _gripper(tmp_path, L)
    assert np.array_equal(other.base.independent, one.base.independent)
    assert other.condition == pytest.approx(one.condition, rel=1e-9)
    assert other.converged and one.converged
    power = np.array([{"m": 0, "mcx": 1, "mcy": 1, "mcz": 1}.get(n.split("_")[0], 2)
                      for n in one.names])
    scaled = other.parameters / L ** power
    assert np.abs(scaled - one.parameters).max() < 1e-7 * np.abs(one.parameters).max()
