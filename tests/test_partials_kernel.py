"""The compiled torque partials (d tau/d q, d tau/d qd) and the batched SPD solve against the
numpy code they stand for, at every lane width and odd sample counts. (The references are
held to Pinocchio and to the complex-step sensitivities in test_forward.py and
test_matrix_derivatives.py.)"""

import numpy as np
import pytest

from conftest import URDF, random_cosine, random_urdf, reference, wrench_motion
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy import body_fixed as numpy_body_fixed
from hodyn_cli.algorithms.backends.numpy.partials import partials_numpy
from hodyn_cli.algorithms.dynamics.common import base_motion, body_wrenches
from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
from hodyn_cli.algorithms.dynamics.partials import torque_partials
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.modeling.urdf import load_model

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module", params=["iiwa14", "gripper_arm", "random3"])
def model(request, tmp_path_factory):
    """A chain, a tree with a prismatic joint and a random tree (mixed joint types)."""
    if request.param.startswith("random"):
        path = tmp_path_factory.mktemp("tree") / "random3.urdf"
        path.write_text(random_urdf(3))
        return load_model(path)
    return load_model(URDF / f"{request.param}.urdf")


#: numpy's partials by (robot, samples, base, wrenches): the same for every lane width,
#: computed once a worker (most of the test's CPU; each width computes its own)
_NUMPY: dict[tuple, tuple] = {}


@pytest.mark.parametrize("n_samples", [1, 3, 5, 201])
def test_partials_kernel_matches_numpy_reference(model, lanes, n_samples, request):
    robot = request.node.callspec.params["model"]
    t = np.linspace(0, 3, n_samples)
    qs = random_cosine(model, t, orders=3, seed=7).derivatives
    rng = np.random.default_rng(n_samples)
    W = {model.n - 1: wrench_motion(t, 0)[:, 0], 0: wrench_motion(t + 1, 0)[:, 0]}
    for moving, base in enumerate((base_motion((0.3, -0.2, -9.81), 1),
                                   rng.normal(size=(n_samples, 2, 6)))):
        for wrenches in ({}, W):
            backend, data = backends.prepare(model)
            ours = backend.partials(model, data, qs, base, wrenches)
            key = (robot, n_samples, moving, bool(wrenches))
            if key not in _NUMPY:
                _NUMPY[key] = partials_numpy(model, qs, base, wrenches)
            ref = _NUMPY[key]
            for a, b in zip(ours, ref, strict=True):
                assert a.shape == b.shape == (n_samples, model.n, model.n)
                assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), lanes


def test_torque_partials_take_the_wrenches_of_the_trajectory(model, lanes):
    """The dispatcher: the wrench on a link (in the link's frame) reaches the kernel as the
    numpy chunks get it."""
    t = np.linspace(0, 3, 7)
    traj = random_cosine(model, t, orders=3, seed=8)
    link = model.link_names[-1]
    tr = Trajectory(traj.joint_names, traj.derivatives, t, Wrenches({link: wrench_motion(t, 0)}))
    ours = torque_partials(model, tr, gravity=(0, 0.5, -9.81))
    W = {b: w[:, 0] for b, w in body_wrenches(model, tr, 0).items()}
    assert W
    ref = partials_numpy(model, tr.derivatives, base_motion((0, 0.5, -9.81), 1), W)
    for a, b in zip(ours, ref, strict=True):
        assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), lanes


@pytest.mark.parametrize("n_samples", [1, 6, 33])
def test_spd_solve_matches_numpy(lanes, n_samples):
    rng = np.random.default_rng(n_samples)
    n, k = 7, 15
    A = rng.normal(size=(n_samples, n, n))
    M = A @ np.swapaxes(A, 1, 2) + 0.1 * np.eye(n)
    B = rng.normal(size=(n_samples, n, k))
    X = backends.current().spd_solve(M, B)
    ref = np.linalg.solve(M, B)
    assert np.abs(X - ref).max() <= 1e-11 * np.abs(ref).max(), lanes


def test_spd_solve_of_a_matrix_that_is_not_positive_definite_is_numpys(lanes):
    """Cholesky refuses it (HK_SINGULAR): the backend solves as numpy does (LU)."""
    M = np.stack([np.eye(3), np.diag([1.0, -1.0, 1.0]), np.eye(3)])
    B = np.arange(18.0).reshape(3, 3, 2)
    assert np.array_equal(backends.current().spd_solve(M, B), np.linalg.solve(M, B))


def test_forward_dynamics_partials_equal_the_numpy_path(lanes):
    """forward --derivatives on the kernels (partials, Cholesky) and on numpy (LU) agree."""
    model = load_model(URDF / "iiwa14.urdf")
    t = np.linspace(0, 2, 9)
    traj = random_cosine(model, t, orders=2, seed=9)
    tau = np.random.default_rng(1).normal(size=(len(t), 2, model.n))
    ours = forward_dynamics(model, traj, tau, derivatives=True)
    ref = reference(forward_dynamics, model, traj, tau, derivatives=True)
    assert np.abs(ours.qs - ref.qs).max() <= 1e-10 * np.abs(ref.qs).max()
    for key, value in ref.partials.items():
        assert np.abs(ours.partials[key] - value).max() <= 1e-10 * np.abs(value).max(), key


@pytest.mark.parametrize("n_samples", [1, 5, 201])
def test_mass_matrix_and_torques_of_the_partials_kernel(model, lanes, n_samples):
    """Its composite-inertia sums give the closed-form M and the body-fixed torques."""
    from hodyn_cli.algorithms.backends.numpy.closed_form import eom_matrices_numpy

    t = np.linspace(0, 3, n_samples)
    qs = random_cosine(model, t, orders=3, seed=11).derivatives
    base = base_motion((0.3, -0.2, -9.81), 1)
    W = {model.n - 1: wrench_motion(t, 0)}
    backend, data = backends.prepare(model)
    M, tau = backend.partials(model, data, qs, base, {b: w[:, 0] for b, w in W.items()},
                              partials=False, mass=True)
    M_ref = eom_matrices_numpy(model, qs, 0, base, W).M[:, 0]
    tau_ref = numpy_body_fixed.backward_pass(model, qs, numpy_body_fixed.forward_pass(model, qs, 1, base),
                                       0, W)[0][:, 0]
    assert np.abs(M - M_ref).max() <= 1e-12 * np.abs(M_ref).max(), lanes
    assert np.abs(tau - tau_ref).max() <= 1e-12 * np.abs(tau_ref).max(), lanes
    both = backend.partials(model, data, qs, base, {}, mass=True)
    assert len(both) == 4 and all(np.array_equal(a, b) for a, b in zip(
        both[:2], backend.partials(model, data, qs, base, {}), strict=True))
