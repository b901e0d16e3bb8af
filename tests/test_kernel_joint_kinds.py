"""The compiled kernels dispatch on the joint kind (csrc/hodyn.h: revolute, prismatic,
helical; spherical, planar and free in the inverse dynamics), at every lane width the CPU
runs: on random trees mixing the 1-DOF kinds (tilted axes, helical pitches up to 0.2 m/rad,
odd sample counts that leave a partial lane group) every kernel operation equals the numpy
reference to 1e-12 relative, tau to order 4; on trees with every kind anywhere the inverse
dynamics (tau to order 4, the twists, the root's wrench) does; tau to order 1 equals
Pinocchio's (JointModelHelicalUnaligned, Spherical, Planar, FreeFlyer: rnea and the
computeRNEADerivatives rate); a helical joint of pitch 0 gives the revolute's numbers bit for
bit. (The numpy reference itself is held to Pinocchio in tests/test_joint_models.py.)"""

import numpy as np
import pytest
from test_joint_models import (
    MIXED,
    analytic_motion,
    assert_equal_pinocchio,
    pinocchio_model,
    random_model,
)

from conftest import reference
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.actuation import elastic
from hodyn_cli.algorithms.backends import compiled
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.dynamics.common import base_motion
from hodyn_cli.core.model import JOINT_TYPES, Model
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
    assert set(compiled.ABI.joint_kinds) == set(JOINT_TYPES) - {"continuous"}
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
    data = backend.data(model)
    return [*vars(backend.eom_matrices(model, data, qs, order, gravity, W)).values(),
            backend.regressor(model, data, qs, gravity[:, : order + 2], order),
            backend.sensitivities(model, data, qs[:, : order + 3], gravity[:, : order + 2], W,
                                  order),
            *backend.partials(model, data, qs, gravity[:, :2], W0, mass=True),
            *backend.elastic(model, data, drives, req, qs, gravity, {}, 0),
            *backend.contact_frames(model, data, qs, contacts, order)]


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


# -- multi-DOF joints: the inverse dynamics --------------------------------------------------

@pytest.fixture(scope="module")
def mixed():
    """A tree with every joint kind (multi-DOF joints at the root and deep in it), an analytic
    motion of 11 samples, a per-sample root jet and wrenches on a planar and a free body."""
    model = random_model(3, MIXED)
    qs = analytic_motion(model, np.linspace(0, 2, 11), 6, 3).derivatives
    rng = np.random.default_rng(3)
    base = rng.normal(size=(11, 6, 6))
    W = {3: rng.normal(size=(11, 5, 6)), 7: rng.normal(size=(11, 5, 6))}
    return model, qs, base, W


def _multi_dof_dynamics(backend, mixed, order, qs=None):
    model, motion, base, W = mixed
    return backend.inverse_dynamics(model, backend.data(model), motion if qs is None else qs,
                                    base[:, : order + 2],
                                    {b: w[:, : order + 1] for b, w in W.items()}, order=order,
                                    twists=True, root=True)


@pytest.fixture(scope="module")
def mixed_reference(mixed):
    return {order: _multi_dof_dynamics(backends.load("numpy"), mixed, order) for order in ORDERS}


def test_multi_dof_joints_equal_numpy_to_order_four(mixed, mixed_reference, lanes):
    """tau (one column per velocity coordinate), the body twists and the root's wrench."""
    for order in ORDERS:
        ours = _multi_dof_dynamics(backends.current(), mixed, order)
        assert not np.array_equal(ours[0], mixed_reference[order][0])  # the kernel's numbers
        for a, b in zip(ours, mixed_reference[order], strict=True):
            assert close(a, b), (order, lanes)


def test_multi_dof_joints_equal_pinocchio_to_order_one(lanes):
    model = random_model(4, MIXED)
    pin, pm, _ = pinocchio_model(model)
    assert_equal_pinocchio(model, pin, pm, analytic_motion(model, np.linspace(0, 2, 5), 4, 4))


def test_small_and_zero_rotations_of_ball_and_free_joints(mixed, lanes):
    """A rotation vector below 1e-4 takes Rodrigues' coefficients by their series (as
    lie.rotation_vector_exp), 0 included."""
    model, qs, _, _ = mixed
    small = qs.copy()
    for i, kind in enumerate(model.joint_types):
        if kind in ("spherical", "free"):
            o = int(model.dof_offsets[i])
            small[:, 0, o : o + 3] *= np.linspace(0, 1e-4, 11)[:, None] / np.abs(
                small[:, 0, o : o + 3]).max()
    ref = _multi_dof_dynamics(backends.load("numpy"), mixed, 2, small)
    for a, b in zip(_multi_dof_dynamics(backends.current(), mixed, 2, small), ref, strict=True):
        assert close(a, b), lanes


def test_only_the_inverse_dynamics_kernel_takes_multi_dof_joints(mixed, lanes):
    """The other entry points refuse a model with one (HK_MODEL: the Python side hands such
    a model's other operations to numpy)."""
    model, qs, base, _ = mixed
    lib, struct = backends.current().lib, backends.current().data(model).struct
    jets = np.ascontiguousarray(qs[:, :3])
    out = np.empty((11, 1, model.n, 10 * model.n))
    assert lib.hodyn_regressor(struct, 11, 3, jets.ctypes.data, 3 * model.nv, 0,
                               np.ascontiguousarray(base[:, :2]), 11, 0, out) == 3
