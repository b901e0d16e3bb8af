"""Identification in any units: weighted least squares starts from each joint's RMS
measurement (``least_squares._spread``), so measuring one joint in other units (a prismatic
joint's N beside the revolute joints' N m: their ratio is the robot's size) changes neither
the estimate nor the other joints' noise. Before, the first solve was ordinary least
squares in the units given and its residuals set the weights of the two reweighted solves
that follow: here the estimate moved by 7e-10 relative; on the gripper arm's log scaled by
1e-3 a joint's noise estimate came out 3.8x its residual RMS (least_squares._spread)."""
from __future__ import annotations

import numpy as np

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
