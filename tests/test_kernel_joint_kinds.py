"""The compiled kernels dispatch on the joint kind (csrc/hodyn.h: revolute, prismatic,
helical), at every lane width the CPU runs: on random trees mixing the three kinds (tilted
axes, helical pitches up to 0.2 m/rad, odd sample counts that leave a partial lane group)
every kernel operation equals the numpy reference to 1e-12 relative, tau to order 4; tau to
order 1 equals Pinocchio's (JointModelHelicalUnaligned: rnea and the computeRNEADerivatives
rate); a helical joint of pitch 0 gives the revolute's numbers bit for bit. (The numpy
reference itself is held to Pinocchio in tests/test_joint_models.py.)"""

import numpy as np
import pytest
from test_joint_models import analytic_motion, assert_equal_pinocchio, pinocchio_model, random_model

from conftest import reference
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.actuation import elastic
from hodyn_cli.algorithms.backends import compiled
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.dynamics.common import base_motion
from hodyn_cli.core.model import Model
from hodyn_cli.modeling.contacts import Contact
from hodyn_cli.modeling.drives import read_drives

pytestmark = pytest.mark.kernel

KINDS = ("helical", "revolute", "prismatic", "helical", "helical", "revolute", "prismatic",
         "helical")
ORDERS = range(5)


def close(ours, ref, rtol=1e-12) -> bool:
    ours, ref = np.asarray(ours), np.asarray(ref)
    return ours.shape == ref.shape and \
        np.abs(ours - ref).max(initial=0.0) <= rtol * max(np.abs(ref).max(initial=0.0), 1e-300)


@pytest.fixture(scope="module")
def tree():
    """A mixed tree and an analytic motion of 11 samples (exact derivatives to order 8)."""
    model = random_model(1, KINDS)
    assert (model.X[np.array(KINDS) == "helical", 3:] != 0).all(), "pitches are not zero"
    return model, analytic_motion(model, np.linspace(0, 2, 11), 7, 1)


@pytest.fixture(scope="module")
def tau_reference(tree):
    model, traj = tree
    return {order: reference(body_fixed.inverse_dynamics, model, traj, order=order)
            for order in ORDERS}


def test_the_kernel_runs_helical_joints(tree, lanes):
    """The kernel, not numpy's fallback, computes them: its numbers differ from numpy's by
    rounding, not by nothing (the fallback is bit-identical)."""
    model, traj = tree
    assert compiled.ABI.joint_kinds == {"prismatic": 0, "revolute": 1, "helical": 2}
    ours = body_fixed.inverse_dynamics(model, traj, order=2)
    assert not np.array_equal(ours, reference(body_fixed.inverse_dynamics, model, traj, order=2))


def test_inverse_dynamics_equals_numpy_to_order_four(tree, tau_reference, lanes):
    model, traj = tree
    for order in ORDERS:
        assert close(body_fixed.inverse_dynamics(model, traj, order=order),
                     tau_reference[order]), (order, lanes)


def test_inverse_dynamics_equals_pinocchio_to_order_one(lanes):
    """tau = pin.rnea to 1e-12 and its rate = dtau_dq v + dtau_dv a + M jerk to 1e-10."""
    model = random_model(2, KINDS)
    pin, pm, _ = pinocchio_model(model)
    assert_equal_pinocchio(model, pin, pm, analytic_motion(model, np.linspace(0, 2, 5), 4, 2))


def _operations(backend, model, qs, drives, contacts):
    """Every kernel operation of a fixed-base model but inverse dynamics, as a flat list."""
    order = 2
    req = elastic.requirements(model, drives, 0)
    R = int(req.u_orders.max())
    gravity = base_motion((0.3, -0.2, -9.81), R + 1)
    W = {1: np.linspace(1, 2, 6 * (order + 1) * len(qs)).reshape(len(qs), order + 1, 6)}
    W0 = {b: w[:, 0] for b, w in W.items()}
    return [*vars(backend.eom_matrices(model, qs, order, gravity, W)).values(),
            backend.regressor(model, qs, gravity[:, : order + 2], order),
            backend.sensitivities(model, qs[:, : order + 3], gravity[:, : order + 2], W, order),
            *backend.partials(model, qs, gravity[:, :2], W0, mass=True),
            *backend.elastic(model, drives, req, qs, gravity, {}, 0),
            *backend.contact_frames(model, qs, contacts, order)]


def test_every_operation_equals_numpy(tree, lanes, tmp_path):
    """Closed-form matrices, regressor, sensitivities, torque partials and mass matrix, the
    elastic drives (rotor axes tilted against the joints') and the contact frames' jets."""
    model, traj = tree
    path = tmp_path / "drives.toml"
    path.write_text("".join(
        f"[joints.{name}]\nstiffness = {500.0 * (i + 1)}\ngear_ratio = {50.0 + i}\n"
        f"rotor_inertia = 1.0e-5\nrotor_axis = [0.8, 0.36, 0.48]\n\n"
        for i, name in enumerate(model.joint_names)))
    drives = read_drives(path, model)
    contacts = tuple(Contact(f"c{b}", model.link_names[b], "surface", np.eye(4), 0.5, None,
                             np.array([0.0, 0.0, 1.0]), 1.0) for b in (3, 7))
    qs = traj.derivatives
    ours = _operations(backends.current(), model, qs, drives, contacts)
    refs = _operations(backends.load("numpy"), model, qs, drives, contacts)
    assert len(ours) == len(refs) == 16
    for k, (a, b) in enumerate(zip(ours, refs, strict=True)):
        assert close(a, b), (k, lanes)


def test_a_helical_joint_of_pitch_zero_is_revolute_bit_for_bit(lanes, tmp_path):
    """The kernel's helical terms add h times something: with h = 0 its numbers are the
    revolute joint's, every operation, every order."""
    rev = random_model(3, ("revolute", "prismatic", "revolute", "revolute"))
    hel = Model("h", "root", rev.joint_names, ("helical", "prismatic", "revolute", "helical"),
                rev.link_names, rev.parent, rev.B, rev.X, rev.inertias, links=rev.links)
    traj = analytic_motion(rev, np.linspace(0, 1, 5), 7, 3)
    for order in ORDERS:
        a, b = (body_fixed.inverse_dynamics(m, traj, order=order) for m in (rev, hel))
        assert np.array_equal(a, b), order
    path = tmp_path / "drives.toml"
    path.write_text("".join(f"[joints.{name}]\nstiffness = 800.0\ngear_ratio = 60.0\n"
                            "rotor_inertia = 1.0e-5\n\n" for name in rev.joint_names))
    contacts = (Contact("c", rev.link_names[3], "surface", np.eye(4), 0.5, None,
                        np.array([0.0, 0.0, 1.0]), 1.0),)
    a, b = (_operations(backends.current(), m, traj.derivatives, read_drives(path, m),
                        contacts) for m in (rev, hel))
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        assert np.array_equal(x, y), k
