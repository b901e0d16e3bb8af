"""The methods are independent derivations; they must agree to rounding error."""

import numpy as np
import pytest

from conftest import METHODS, random_cosine, wrench_motion
from hodyn_cli.algorithms.dynamics.methods import MAX_ORDER, inverse_dynamics
from hodyn_cli.core.trajectory import Trajectory, Wrenches

OTHERS = [m for m in METHODS if m != "body-fixed"]


@pytest.mark.parametrize("other", OTHERS)
@pytest.mark.parametrize("with_wrenches", [False, True])
def test_methods_agree_with_body_fixed(robot, other, with_wrenches):
    name, _, model = robot
    t = np.linspace(0.0, 4.0, 40)
    traj = random_cosine(model, t, orders=MAX_ORDER + 2, seed=11)
    if with_wrenches:  # on the last link and on a link in the middle of the tree
        links = {model.link_names[-1]: wrench_motion(t, MAX_ORDER),
                 model.link_names[model.n // 2]: 0.5 * wrench_motion(t + 1, MAX_ORDER)}
        traj = Trajectory(traj.joint_names, traj.derivatives, t, Wrenches(links))
    ref = inverse_dynamics(model, traj, method="body-fixed", order=MAX_ORDER)
    ours = inverse_dynamics(model, traj, method=other, order=MAX_ORDER)
    for k in range(MAX_ORDER + 1):
        scale = np.abs(ref[:, k]).max()
        err = np.abs(ours[:, k] - ref[:, k]).max()
        assert err <= 1e-10 * scale, f"{name} {other} order {k}: {err:.3g} (scale {scale:.3g})"


@pytest.mark.parametrize("other", OTHERS)
def test_agreement_check_can_fail(other):
    """A different gravity changes every order: the comparison above would notice."""
    from conftest import URDF
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF / "iiwa14.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 5), orders=4, seed=2)
    a = inverse_dynamics(model, traj, method="body-fixed", order=2)
    b = inverse_dynamics(model, traj, method=other, order=2, gravity=(0, 0, -9.8))
    assert all(np.abs(a[:, k] - b[:, k]).max() > 1e-10 * np.abs(a[:, k]).max() for k in range(3))
