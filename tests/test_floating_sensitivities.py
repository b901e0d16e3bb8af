"""Sensitivities of the joint torques of a floating base, the root's motion held: the
compiled forward-mode kernel against the complex step (every lane width, orders 0-2), and
both against references that share neither: central differences of the floating inverse
dynamics (tau, taud by q, qd, qdd), and d tau/d qdd against the joint block of the 6 + n mass
matrix."""

import numpy as np
import pytest

from conftest import floating_motion, legged_urdf
from hodyn_cli.algorithms.backends.numpy.floating import root_jet_numpy
from hodyn_cli.algorithms.backends.numpy.sensitivities import complex_step
from hodyn_cli.algorithms.dynamics import sensitivities as S
from hodyn_cli.algorithms.dynamics.floating import inverse_dynamics, matrices
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.modeling.urdf import parse_model

G = (0.3, -0.2, -9.81)


@pytest.fixture(scope="module")
def solo():
    text = legged_urdf("solo", seed=4)
    model = parse_model(text.encode())
    traj, base, _, _ = floating_motion(text, model, np.linspace(0, 2, 5), 4, seed=2)
    return model, traj, base


def test_kernel_matches_the_complex_step(solo, lanes):
    model, traj, base = solo
    for order in range(3):
        ours = S.sensitivities(model, traj, order=order, gravity=G)
        qs = traj.derivatives[:, : order + 3]
        ref = complex_step(model, qs, root_jet_numpy(base.R, base.Vb, np.array(G), order + 1),
                             {}, order)
        for name, value in zip(S.dataset_names(order), ref, strict=True):
            assert np.abs(ours[name] - value).max() <= 1e-11 * np.abs(value).max(), (lanes, name)


def test_central_differences_of_the_floating_inverse_dynamics(solo):
    model, traj, _ = solo
    sens = S.sensitivities(model, traj, order=1, gravity=G)
    h = 1e-6
    for j in range(3):
        for m in range(model.n):
            moved = []
            for sign in (1, -1):
                d = traj.derivatives.copy()
                d[:, j, m] += sign * h
                moved.append(inverse_dynamics(model, Trajectory(model.joint_names, d, traj.t,
                                                                base=traj.base),
                                              order=1, gravity=G)[0])
            numeric = (moved[0] - moved[1]) / (2 * h)                 # (N, 2, n)
            for k in range(2):
                exact = sens[S.dataset_name(k, j)][:, :, m]
                scale = np.abs(sens[S.dataset_name(k, j)]).max()
                assert np.abs(exact - numeric[:, k]).max() <= 1e-6 * scale, (k, j, m)
    M = matrices(model, traj, order=0, gravity=G).M[:, 0, 6:, 6:]
    assert np.abs(sens["dtau_dqdd"] - M).max() <= 1e-12 * np.abs(M).max()


def test_a_short_base_motion_is_named(solo):
    model, traj, _ = solo
    with pytest.raises(TrajectoryError, match="order 3 needs base_Vbdddd"):
        S.sensitivities(model, Trajectory(model.joint_names, np.concatenate(
            [traj.derivatives, traj.derivatives[:, -1:]], axis=1), traj.t, base=traj.base),
            order=3)
