"""hodyn against an independent library: Pinocchio's RNEA and its analytic derivatives."""

import numpy as np
import pytest

from conftest import pinocchio_reference, random_cosine
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics

pytest.importorskip("pinocchio")


def test_tau_and_taud_match_pinocchio(robot, method):
    name, path, model = robot
    traj = random_cosine(model, np.linspace(0.0, 3.0, 25), orders=5, seed=1)
    ours = inverse_dynamics(model, traj, method=method, order=2)
    tau, taud = pinocchio_reference(path, model, traj)
    for k, ref in ((0, tau), (1, taud)):
        scale = np.abs(ref).max()
        err = np.abs(ours[:, k] - ref).max()
        assert err <= 1e-10 * scale, f"{name} {method} order {k}: {err:.3g} (scale {scale:.3g})"
