"""Regressor, base parameters, Slotine-Li regressor and sensitivities, against Pinocchio,
an independent method and finite differences."""

import dataclasses
import json
import runpy

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import ROOT, SAMPLES, URDF, pin_configuration, pinocchio_model, random_cosine
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy import regressor as numpy_regressor
from hodyn_cli.algorithms.dynamics import closed_form
from hodyn_cli.algorithms.dynamics import regressor as R
from hodyn_cli.algorithms.dynamics.common import base_motion
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.algorithms.dynamics.sensitivities import dataset_name, sensitivities
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.urdf import load_model

pin = pytest.importorskip("pinocchio")
runner = CliRunner()


def test_regressor_times_parameters_is_the_torque_of_an_independent_method(robot):
    name, _, model = robot
    traj = random_cosine(model, np.linspace(0, 3, 13), orders=7, seed=2)
    Y = R.regressor(model, traj, order=4)
    tau = inverse_dynamics(model, traj, method="spatial", order=4)
    pi = R.parameters(model)
    for k in range(5):
        assert np.abs(Y[:, k] @ pi - tau[:, k]).max() <= 1e-10 * np.abs(tau[:, k]).max(), (name, k)


def with_parameters(model, pi):
    """The model with the inertias of the parameter vector pi (any values: tau is linear)."""
    M = np.stack([numpy_regressor.inertia_from_parameters(pi[10 * b : 10 * b + 10]) for b in range(model.n)])
    return dataclasses.replace(model, inertias=M)


def test_every_regressor_column_is_the_torque_of_its_parameters(robot):
    """Y^(k) pi' for random parameter vectors pi' (not the model's): the spatial method's
    torques of a model with those inertias, orders 0..3."""
    name, _, model = robot
    traj = random_cosine(model, np.linspace(0, 3, 9), orders=6, seed=5)
    Y = R.regressor(model, traj, order=3, gravity=(0.4, -0.3, -9.81))
    for seed in range(2):
        pi = np.random.default_rng(seed).normal(size=10 * model.n)
        tau = inverse_dynamics(with_parameters(model, pi), traj, method="spatial", order=3,
                               gravity=(0.4, -0.3, -9.81))
        assert np.abs(Y @ pi - tau).max() <= 1e-10 * np.abs(tau).max(), name


#: numpy's regressors by (robot, order, base): the same for every lane width, computed once
#: a worker (most of the test's CPU; each width computes its own)
_NUMPY: dict[tuple, np.ndarray] = {}


@pytest.mark.kernel
@pytest.mark.parametrize("order", [0, 1, 2, 4])
def test_regressor_kernel_equals_numpy_reference(robot, lanes, order):
    """At every lane width, on an odd sample count, with a root moving per sample."""
    name, _, model = robot
    qs = random_cosine(model, np.linspace(0, 3, 11), orders=order + 3, seed=6).derivatives
    for moving, base in enumerate((base_motion((0.3, -0.2, -9.81), order + 1),
                                   np.random.default_rng(7).normal(size=(len(qs), order + 2, 6)))):
        backend, data = backends.prepare(model)
        ours = backend.regressor(model, data, qs, base, order)
        if (name, order, moving) not in _NUMPY:
            _NUMPY[name, order, moving] = numpy_regressor.regressor_numpy(model, qs, base, order)
        ref = _NUMPY[name, order, moving]
        assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max(), (name, lanes)


def test_regressor_and_parameters_equal_pinocchio(robot):
    name, path, model = robot
    pin_, pm, data, order = pinocchio_model(path, model)
    # pin joint k+1 moves hodyn body order[k]: its 10 columns
    cols = np.concatenate([10 * b + np.arange(10) for b in order])
    pi_pin = np.concatenate([pm.inertias[k + 1].toDynamicParameters() for k in range(len(order))])
    assert np.allclose(R.parameters(model)[cols], pi_pin, rtol=0, atol=1e-12)
    traj = random_cosine(model, np.linspace(0, 2, 6), orders=4, seed=4)
    Y = R.regressor(model, traj, order=0)[:, 0]
    for s in range(traj.n_samples):
        q = pin_configuration(pm, order, traj.q[s])
        Yp = pin.computeJointTorqueRegressor(pm, data, q, traj.qd[s, order], traj.qdd[s, order])
        assert np.abs(Y[s][order][:, cols] - Yp).max() <= 1e-10 * np.abs(Yp).max(), name


def test_base_parameters_reproduce_the_torque_with_full_column_rank(robot):
    name, _, model = robot
    base = R.base_parameters(model)
    traj = random_cosine(model, np.linspace(0, 4, 40), orders=5, seed=9)
    Y = R.regressor(model, traj, order=2)
    pi = R.parameters(model)
    pi_base = base.base_map @ pi
    Yb = Y[..., base.independent]
    assert np.abs(Yb @ pi_base - Y @ pi).max() <= 1e-9 * np.abs(Y @ pi).max(), name
    # at other random states (a cosine motion may leave one combination unexcited): the base
    # columns are independent (scaled: each is a real one), and as many as the rank of the
    # whole by the SVD of its unscaled columns (scaled, a column of rounding noise would
    # count; Pinocchio's rank: tests/test_base_parameters.py)
    rng = np.random.default_rng(99)
    qs = rng.normal(size=(300, 3, model.n))
    qs[:, 0] = rng.uniform(-np.pi, np.pi, size=(300, model.n))
    stacked = R.regressor(model, Trajectory(model.joint_names, qs), order=0)[:, 0]
    stacked = stacked.reshape(-1, Y.shape[-1])
    kept = stacked[:, base.independent]
    sv = np.linalg.svd(kept / np.abs(kept).max(axis=0), compute_uv=False)
    assert sv[-1] > 1e-8 * sv[0], name
    sv = np.linalg.svd(stacked, compute_uv=False)
    assert (sv > 1e-10 * sv[0]).sum() == len(pi_base), name
    assert len(base.names) == len(pi_base) and base.base_map.shape == (len(pi_base), len(pi))


def test_identification_recovers_the_base_parameters_from_noisy_torques():
    """The documented example (docs/examples/identify_iiwa.py), run as it is."""
    example = runpy.run_path(str(ROOT / "docs" / "examples" / "identify_iiwa.py"))
    base, estimate, truth, error, condition = example["identify"](harmonics=4)
    assert len(base.independent) == 43
    assert error < 0.005 and condition < 50, (error, condition)  # inside the 1 % noise
    _, _, _, poor, poor_condition = example["identify"](harmonics=1)
    assert poor > 3 * error and poor_condition > 5 * condition  # excitation matters
    assert np.abs(estimate - truth).max() > 0  # an estimate, not the truth copied


def test_slotine_li_regressor():
    model = load_model(URDF / "gripper_arm.urdf")
    path = URDF / "gripper_arm.urdf"
    traj = random_cosine(model, np.linspace(0, 2, 5), orders=4, seed=3)
    rng = np.random.default_rng(0)
    qr_d, qr_dd = rng.normal(size=traj.qd.shape), rng.normal(size=traj.qd.shape)
    Yr = R.slotine_li_regressor(model, traj, traj.qd, traj.qdd)
    assert np.allclose(Yr, R.regressor(model, traj, order=0)[:, 0], rtol=0, atol=1e-12)
    Yr = R.slotine_li_regressor(model, traj, qr_d, qr_dd)
    pi = R.parameters(model)
    pin_, pm, data, order = pinocchio_model(path, model)
    E = closed_form.matrices(model, traj, order=0)
    for s in range(traj.n_samples):
        q = pin_configuration(pm, order, traj.q[s])
        M = np.zeros((model.n, model.n))
        Mp = pin.crba(pm, data, q)
        M[np.ix_(order, order)] = np.triu(Mp) + np.triu(Mp, 1).T
        g = np.zeros(model.n)
        g[order] = pin.computeGeneralizedGravity(pm, data, q)
        Cbar = E.Cbar[s, 0]
        ref = M @ qr_dd[s] + Cbar @ qr_d[s] + g
        assert np.allclose(Yr[s] @ pi, ref, rtol=0, atol=1e-10 * np.abs(ref).max())
    # Cbar is the factorization adaptive control needs: M_d - 2 Cbar skew-symmetric, with
    # M_d from Pinocchio's crba differentiated along the motion
    h, t0 = 1e-4, 0.7
    tt = t0 + h * np.array([-2, -1, 1, 2])
    around = random_cosine(model, tt, orders=4, seed=3)
    Ms = []
    for s in range(4):
        Mp = pin.crba(pm, data, pin_configuration(pm, order, around.q[s]))
        full = np.zeros((model.n, model.n))
        full[np.ix_(order, order)] = np.triu(Mp) + np.triu(Mp, 1).T
        Ms.append(full)
    Md = (Ms[0] - 8 * Ms[1] + 8 * Ms[2] - Ms[3]) / (12 * h)
    at = random_cosine(model, np.array([t0]), orders=4, seed=3)
    N = Md - 2 * closed_form.matrices(model, at, order=0).Cbar[0, 0]
    assert np.abs(N + N.T).max() < 1e-7 * np.abs(Md).max()


def test_every_slotine_li_column_is_the_closed_form_of_its_parameters(robot):
    """Y_r pi' = M' qr_dd + Cbar' qr_d + g' for random parameters pi', with M', Cbar', g' the
    closed-form matrices of a model with those inertias."""
    name, _, model = robot
    traj = random_cosine(model, np.linspace(0, 2, 6), orders=4, seed=13)
    rng = np.random.default_rng(14)
    qr_d, qr_dd = rng.normal(size=traj.qd.shape), rng.normal(size=traj.qd.shape)
    Yr = R.slotine_li_regressor(model, traj, qr_d, qr_dd, gravity=(0.2, 0.1, -9.81))
    for seed in range(2):
        pi = np.random.default_rng(seed).normal(size=10 * model.n)
        E = closed_form.matrices(with_parameters(model, pi), traj, order=0,
                                 gravity=(0.2, 0.1, -9.81))
        ref = (np.einsum("nij,nj->ni", E.M[:, 0], qr_dd)
               + np.einsum("nij,nj->ni", E.Cbar[:, 0], qr_d) + E.g[:, 0])
        assert np.abs(Yr @ pi - ref).max() <= 1e-10 * np.abs(ref).max(), name


def test_sensitivities_of_order_0_equal_pinocchio(robot):
    name, path, model = robot
    pin_, pm, data, order = pinocchio_model(path, model)
    traj = random_cosine(model, np.linspace(0, 2, 5), orders=4, seed=8)
    S = sensitivities(model, traj, order=0)
    perm = np.ix_(order, order)
    for s in range(traj.n_samples):
        q = pin_configuration(pm, order, traj.q[s])
        pin.computeRNEADerivatives(pm, data, q, traj.qd[s, order], traj.qdd[s, order])
        M = np.triu(data.M) + np.triu(data.M, 1).T
        for key, ref in (("dtau_dq", data.dtau_dq), ("dtau_dqd", data.dtau_dv),
                         ("dtau_dqdd", M)):
            assert np.abs(S[key][s][perm] - ref).max() <= 1e-10 * np.abs(ref).max(), (name, key)


def test_every_sensitivity_by_finite_differences(robot):
    name, _, model = robot
    K = 2
    traj = random_cosine(model, np.linspace(0, 2, 4), orders=K + 2, seed=12)
    S = sensitivities(model, traj, order=K, gravity=(0.3, -1.0, -9.81))
    h = 1e-5
    for j in range(K + 3):
        for m in range(model.n):
            taus = []
            for step in (-2, -1, 1, 2):
                d = traj.derivatives.copy()
                d[:, j, m] += step * h
                taus.append(inverse_dynamics(model, Trajectory(traj.joint_names, d), order=K,
                                             gravity=(0.3, -1.0, -9.81)))
            fd = (taus[0] - 8 * taus[1] + 8 * taus[2] - taus[3]) / (12 * h)
            for k in range(K + 1):
                if j > k + 2:
                    continue
                exact = S[dataset_name(k, j)][:, :, m]
                scale = np.abs(S[dataset_name(k, j)]).max() + 1e-12
                assert np.abs(exact - fd[:, k]).max() <= 1e-7 * scale, (name, k, j, m)
    assert sorted(S) == sorted(dataset_name(k, j) for k in range(K + 1) for j in range(k + 3))


def test_regressor_and_sensitivities_commands(tmp_path):
    iiwa = URDF / "iiwa14.urdf"
    src = str(SAMPLES / "iiwa14_cosine.h5")
    out = tmp_path / "Y.h5"
    result = runner.invoke(app, ["regressor", str(iiwa), src, "-o", str(out), "--base",
                                 "--order", "1"])
    assert result.exit_code == 0, result.output
    model = load_model(iiwa)
    with h5py.File(out) as f:
        assert sorted(f) == ["Y", "Y_base", "Y_base_d", "Y_d", "t"]
        pi = f.attrs["parameters"]
        assert len(pi) == 70 and list(f.attrs["parameter_names"])[:2] == ["m_iiwa_link_1",
                                                                           "mcx_iiwa_link_1"]
        assert f["Y_base"].shape[2] == len(f.attrs["base_parameter_names"]) == \
            f.attrs["base_map"].shape[0]
        ref = inverse_dynamics(model, read_trajectory(src, model, need=4), order=1)
        assert np.abs(f["Y_d"][()] @ pi - ref[:, 1]).max() < 1e-10 * np.abs(ref[:, 1]).max()
    out = tmp_path / "S.h5"
    result = runner.invoke(app, ["sensitivities", str(iiwa), src, "-o", str(out), "--order", "1"])
    assert result.exit_code == 0, result.output
    with h5py.File(out) as f:
        assert sorted(f) == sorted(["t", "dtau_dq", "dtau_dqd", "dtau_dqdd", "dtaud_dq",
                                    "dtaud_dqd", "dtaud_dqdd", "dtaud_dqddd"])
        assert f["dtaud_dqddd"].shape == (501, 7, 7)
    result = runner.invoke(app, ["regressor", str(iiwa), src, "-o", str(tmp_path / "r.h5"),
                                 "--slotine-li"])
    assert result.exit_code == 2  # an HDF5 file's datasets, named as the file must have them
    assert "missing columns: dataset(s) qr_d, qr_dd (N x n in joint_names order)" in result.stderr
    result = runner.invoke(app, ["regressor", str(iiwa), src, "-o", str(tmp_path / "r.csv")])
    assert result.exit_code == 2 and "writes HDF5" in result.stderr
    result = runner.invoke(app, ["info", str(iiwa), "--parameters", "--json"])
    data = json.loads(result.stdout)
    assert data["values"] == R.parameters(model).tolist() and len(data["names"]) == 70


def test_slotine_li_from_reference_columns(tmp_path):
    model = load_model(URDF / "planar_2r.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 11), orders=4, seed=1)
    rng = np.random.default_rng(2)
    qr_d, qr_dd = rng.normal(size=traj.qd.shape), rng.normal(size=traj.qd.shape)
    cols = ["t"] + [f"q{'d' * k}_{j}" for k in range(5) for j in model.joint_names]
    cols += [f"{b}_{j}" for b in ("qr_d", "qr_dd") for j in model.joint_names]
    rows = np.hstack([traj.t[:, None], traj.derivatives.reshape(11, -1), qr_d, qr_dd])
    src = tmp_path / "ref.csv"
    src.write_text(",".join(cols) + "\n" + "\n".join(",".join(repr(float(v)) for v in r) for r in rows))
    out = tmp_path / "Yr.h5"
    result = runner.invoke(app, ["regressor", str(URDF / "planar_2r.urdf"), str(src), "-o",
                                 str(out), "--slotine-li", "--order", "0"])
    assert result.exit_code == 0, result.output
    expected = R.slotine_li_regressor(model, traj, qr_d, qr_dd)
    with h5py.File(out) as f:
        assert np.allclose(f["Y_r"][()], expected, rtol=0, atol=1e-13)
    h5 = tmp_path / "ref.h5"  # the same references as HDF5 datasets qr_d, qr_dd
    write_trajectory(str(h5), traj)
    with h5py.File(h5, "a") as f:
        f["qr_d"], f["qr_dd"] = qr_d, qr_dd
    result = runner.invoke(app, ["regressor", str(URDF / "planar_2r.urdf"), str(h5), "-o",
                                 str(out), "--slotine-li", "--order", "0"])
    assert result.exit_code == 0, result.output
    with h5py.File(out) as f:
        assert np.allclose(f["Y_r"][()], expected, rtol=0, atol=1e-13)
