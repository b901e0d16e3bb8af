"""The regressor of a floating base: 6 + n rows (the base wrench, then the joints), the root
link's 10 parameters first.

The compiled kernel against its numpy reference (1e-12, every lane width, orders 0-4).
Independent references: the floating-base inverse dynamics by the spatial method (a second
derivation: Y^(k) pi = (W_base^(k); tau^(k)), every order, with mimic joints); Pinocchio's
``computeJointTorqueRegressor`` of the free-flyer model (order 0, entry by entry: its first 6
rows are the free flyer's generalized force, (linear; angular), minus ours); 8th-order finite
differences of the order-0 rows along an analytic motion (orders 1, 2); base parameters that
reproduce ``Y pi`` on a motion they were not found from.
"""

from dataclasses import replace

import numpy as np
import pytest

from conftest import (
    LINEAR_FIRST,
    STENCIL,
    STENCIL2,
    floating_motion,
    free_flyer_q,
    free_flyer_rate,
    legged_urdf,
    mimic_urdf,
    pinocchio_free_flyer,
    random_cosine,
    stencil_times,
)
from hodyn_cli import api
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy import regressor as numpy_regressor
from hodyn_cli.algorithms.backends.numpy.floating import root_jet_numpy
from hodyn_cli.algorithms.dynamics import regressor as R
from hodyn_cli.algorithms.dynamics.floating import BaseMotion, inverse_dynamics
from hodyn_cli.core import lie
from hodyn_cli.modeling.urdf import load_model


@pytest.fixture(scope="module", params=["solo", "talos"])
def legged(request, tmp_path_factory):
    """(URDF text, path, model) of a Solo-like or Talos-like tree."""
    text = legged_urdf(request.param, seed=3)
    path = tmp_path_factory.mktemp("legged") / f"{request.param}.urdf"
    path.write_text(text)
    return text, path, load_model(path)


def test_y_pi_is_the_base_wrench_and_torques_of_the_spatial_method(legged):
    text, _, model = legged
    traj, _, _, _ = floating_motion(text, model, np.linspace(0, 2, 6), 5, seed=4)
    Y = R.regressor(model, traj, order=3, gravity=(0.3, -0.2, -9.81))
    assert Y.shape == (6, 4, 6 + model.n, 10 * (model.n + 1))
    tau, W = inverse_dynamics(model, traj, method="spatial", order=3, gravity=(0.3, -0.2, -9.81))
    ours = Y @ R.parameters(model, root=True)
    for k in range(4):
        for got, ref, what in ((ours[:, k, :6], W[:, k], "W"), (ours[:, k, 6:], tau[:, k], "tau")):
            scale = np.abs(ref).max()
            assert np.abs(got - ref).max() <= 1e-10 * scale, f"{what} order {k}"


def test_order_0_matches_pinocchio_free_flyer_regressor(legged):
    _, path, model = legged
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    # pin joint 1 is the free flyer (the root's 10 columns first), joint k+2 moves body order[k]
    cols = np.concatenate([np.arange(10)] + [10 * (b + 1) + np.arange(10) for b in order])
    rows = np.concatenate([[0, 1, 2, 3, 4, 5], 6 + np.array(order)])
    pi_pin = np.concatenate([pm.inertias[j].toDynamicParameters() for j in range(1, pm.njoints)])
    assert np.allclose(R.parameters(model, root=True)[cols], pi_pin, rtol=0, atol=1e-12)
    N = 5
    rng = np.random.default_rng(7)
    Rs = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                   for a in rng.normal(size=(N, 3))])
    base = BaseMotion(Rs, rng.normal(size=(N, 3)), rng.normal(size=(N, 2, 6)))
    traj = replace(random_cosine(model, np.linspace(0, 3, N), orders=2, seed=8), base=base)
    Y = R.regressor(model, traj, order=0)[:, 0][:, rows][:, :, cols]
    for s in range(N):
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], traj.q[s])
        Yp = pin.computeJointTorqueRegressor(
            pm, data, q, free_flyer_rate(order, base.Vb[s, 0], traj.qd[s]),
            free_flyer_rate(order, base.Vb[s, 1], traj.qdd[s])).copy()
        Yp[:6] = -Yp[LINEAR_FIRST]  # Pinocchio's F_0 (force; moment) -> W_base (moment; force)
        assert np.abs(Y[s] - Yp).max() <= 1e-10 * np.abs(Yp).max(), s


def test_rates_are_finite_differences_of_the_order_0_rows(legged):
    text, _, model = legged
    h = 0.01
    t = stencil_times([0.4, 1.3], h)
    traj, _, _, _ = floating_motion(text, model, t, 4, seed=5)
    Y = R.regressor(model, traj, order=2).reshape(2, 9, 3, 6 + model.n, -1)
    for k, numeric in ((1, np.tensordot(STENCIL / h, Y[:, :, 0], axes=(0, 1))),
                       (2, np.tensordot(STENCIL2 / h**2, Y[:, :, 0], axes=(0, 1)))):
        scale = np.abs(Y[:, 4, k]).max()
        for part, sl in (("base rows", slice(0, 6)), ("joint rows", slice(6, None))):
            err = np.abs(Y[:, 4, k, sl] - numeric[:, sl]).max()
            assert err <= 1e-7 * scale, f"order {k} {part}: {err:.3g} vs {scale:.3g}"


def test_base_parameters_reproduce_the_floating_regressor(legged):
    text, _, model = legged
    basis = api.regressor_basis(model, floating_base=True)
    names, pi = api.regressor_parameters(model, floating_base=True)
    assert names[0] == f"m_{model.root_link}" and basis.base_map.shape[1] == pi.size
    traj, _, _, _ = floating_motion(text, model, np.linspace(0, 3, 30), 4, seed=11)
    r = api.dynamic_regressor(model, traj, order=2, base=basis)
    assert r.joint_names[:6] == R.base_wrench_rows(model)
    for k in ("Y", "Y_d", "Y_dd"):
        full, reduced = r[k] @ pi, r[k.replace("Y", "Y_base")] @ (basis.base_map @ pi)
        assert np.abs(full - reduced).max() <= 1e-9 * np.abs(full).max(), k
    # the reduced columns are independent on that motion
    stacked = r["Y_base"].reshape(-1, basis.independent.size)
    assert np.linalg.matrix_rank(stacked / np.abs(stacked).max(axis=0)) == basis.independent.size


def test_mimic_joints_project_the_joint_rows_only(tmp_path):
    """A <mimic> joint follows its leader: the API's rows are the base wrench and the
    independent joints, and Y pi equals the API's floating inverse dynamics."""
    path = mimic_urdf(tmp_path, "gripper_arm", "finger_right_joint", "finger_left_joint", 1.0, 0.0)
    model = load_model(path)
    coords = random_cosine(model, np.linspace(0, 2, 5), orders=4, seed=2)
    coords = type(coords)(model.coordinate_names, coords.derivatives[:, :, list(model.coordinates)],
                          coords.t)
    rng = np.random.default_rng(3)
    Rs = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                   for a in rng.normal(size=(5, 3))])
    traj = replace(coords, base=BaseMotion(Rs, rng.normal(size=(5, 3)), rng.normal(size=(5, 3, 6))))
    r = api.dynamic_regressor(model, traj, order=1)
    ref = api.inverse_dynamics(model, traj, order=1, method="spatial", base_wrench=True)
    pi = R.parameters(model, root=True)
    assert r.Y.shape[1] == 6 + len(model.coordinates)
    for k, (w, tau) in enumerate((("W", "tau"), ("Wd", "taud"))):
        expected = np.concatenate([ref[w], ref[tau]], axis=1)
        got = r[["Y", "Y_d"][k]] @ pi
        assert np.abs(got - expected).max() <= 1e-10 * np.abs(expected).max(), k


#: numpy's regressors by (tree, order): the same for every lane width, computed once a
#: worker (most of the test's CPU; each width computes its own)
_NUMPY: dict[tuple, np.ndarray] = {}


def test_kernel_matches_its_numpy_reference(legged, lanes, request):
    text, _, model = legged
    tree = request.node.callspec.params["legged"]
    traj, base, _, _ = floating_motion(text, model, np.linspace(0, 2, 7), 6, seed=9)  # 7: partial lanes
    for order in range(5):
        jet = root_jet_numpy(base.R, base.Vb, np.array([0.2, -0.1, -9.81]), order + 1)
        backend, data = backends.prepare(model)
        ours = backend.regressor(model, data, traj.derivatives, jet, order, root=True)
        if (tree, order) not in _NUMPY:
            _NUMPY[tree, order] = numpy_regressor.floating_regressor_numpy(
                model, traj.derivatives, jet, order)
        ref = _NUMPY[tree, order]
        assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max(), (lanes, order)
