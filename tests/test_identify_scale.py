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
