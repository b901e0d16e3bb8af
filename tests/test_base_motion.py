"""A root moving per sample: the root's twist jet (N, K+2, 6) instead of the shared gravity
jet (1, K+2, 6), in the compiled kernel and the numpy passes of both recursive methods."""

import numpy as np
import pytest

from conftest import random_cosine
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy import body_fixed as numpy_body_fixed
from hodyn_cli.algorithms.backends.numpy import closed_form as numpy_closed_form
from hodyn_cli.algorithms.backends.numpy import spatial as numpy_spatial
from hodyn_cli.algorithms.dynamics import closed_form
from hodyn_cli.algorithms.dynamics.common import base_motion
from hodyn_cli.errors import TrajectoryError


def random_base(N: int, K: int, seed: int) -> np.ndarray:
    """A root twist jet per sample: twist and K+1 derivatives, O(1) entries."""
    return np.random.default_rng(seed).normal(size=(N, K + 2, 6))


def numpy_tau(model, qs, base, order):
    kin = numpy_body_fixed.forward_pass(model, qs, order + 1, base)
    return numpy_body_fixed.backward_pass(model, qs, kin, order)[0]


@pytest.mark.parametrize("order", [0, 2, 4])
def test_body_fixed_with_a_moving_root_equals_the_spatial_method(robot, order):
    """Same root motion given to both recursions: the body-fixed jet to body-fixed, its
    spatial image (the root frame is the world frame at this instant) to spatial."""
    name, _, model = robot
    qs = random_cosine(model, np.linspace(0, 2, 7), orders=order + 3, seed=3).derivatives
    Vb = random_base(len(qs), order, seed=4)
    ours = numpy_tau(model, qs, Vb, order)
    N = len(qs)
    Vs = numpy_spatial.spatial_twists(np.broadcast_to(np.eye(3), (N, 3, 3)), np.zeros((N, 3)), Vb)
    ref = numpy_spatial.chunk(model, qs, Vs, {}, order)
    assert np.abs(ours - ref).max() <= 1e-10 * np.abs(ref).max(), name


def test_a_per_sample_gravity_is_each_sample_run_with_its_gravity(robot):
    name, _, model = robot
    order, N = 2, 5
    qs = random_cosine(model, np.linspace(0, 2, N), orders=order + 3, seed=5).derivatives
    g = np.random.default_rng(6).normal(size=(N, 3)) * 9.81
    base = np.concatenate([base_motion(gs, order + 1) for gs in g])
    ours = numpy_tau(model, qs, base, order)
    for s in range(N):
        ref = numpy_tau(model, qs[s : s + 1], base_motion(g[s], order + 1), order)
        assert np.abs(ours[s] - ref[0]).max() <= 1e-12 * np.abs(ref).max(), name
    E = numpy_closed_form.eom_matrices_numpy(model, qs, order, base)
    tau = closed_form.generalized_forces(E, qs[:, 1:])
    assert np.abs(tau - ours).max() <= 1e-10 * np.abs(ours).max(), name


@pytest.mark.kernel
@pytest.mark.parametrize("order", [0, 1, 3])
def test_kernel_with_a_per_sample_base_equals_numpy(robot, lanes, order):
    name, _, model = robot
    N = 11  # odd: the last lockstep group is partly filled
    qs = random_cosine(model, np.linspace(0, 2, N), orders=order + 3, seed=7).derivatives
    base = random_base(N, order, seed=8)
    backend, data = backends.prepare(model)
    tau, V = backend.inverse_dynamics(model, data, qs, base, {}, order=order, twists=True)
    kin = numpy_body_fixed.forward_pass(model, qs, order + 1, base)
    ref = numpy_body_fixed.backward_pass(model, qs, kin, order)[0]
    assert np.abs(tau - ref).max() <= 1e-12 * np.abs(ref).max(), name
    assert np.abs(V - np.stack(kin.V, axis=1)).max() <= 1e-12 * np.abs(V).max(), name
    accel = np.zeros((N, order + 2, 6))  # closed form: a root at rest, accelerating per sample
    accel[:, 1] = base[:, 1]
    ours = closed_form.eom_matrices(model, qs, order, accel)
    ref = numpy_closed_form.eom_matrices_numpy(model, qs, order, accel)
    for field in ("M", "C", "Cbar", "g"):
        a, b = getattr(ours, field), getattr(ref, field)
        assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), (name, field, lanes)


def test_closed_form_refuses_a_moving_root(robot):
    _, _, model = robot
    qs = random_cosine(model, np.linspace(0, 1, 3), orders=4, seed=1).derivatives
    with pytest.raises(TrajectoryError, match="at rest"):
        closed_form.eom_matrices(model, qs, 1, random_base(3, 1, seed=2))
