"""Derivatives of the EOM matrices by the state (Garofalo eqs. (24), (31), (32)) and by the
dynamic parameters (eq. (13)): against 8th-order finite differences of the closed-form
matrices, Pinocchio's RNEA derivatives, the complex-step sensitivities, the regressor, and
through ``hodyn matrices``; and the O(n^2) torque partials (``partials``) of the forward
dynamics' derivatives."""

import dataclasses

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import (
    MIMIC_CASES,
    SAMPLES,
    STENCIL,
    URDF,
    mimic_urdf,
    pin_configuration,
    pinocchio_model,
    random_cosine,
    wrench_motion,
)
from hodyn_cli.algorithms.backends.numpy import regressor as numpy_regressor
from hodyn_cli.algorithms.dynamics import matrix_derivatives as md
from hodyn_cli.algorithms.dynamics import regressor
from hodyn_cli.algorithms.dynamics.closed_form import matrices
from hodyn_cli.algorithms.dynamics.partials import torque_partials
from hodyn_cli.algorithms.dynamics.sensitivities import sensitivities
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.urdf import load_model

H = 1e-3  # finite-difference step in q and qd (rad; m for the prismatic joints)
LINKS = {"planar_2r": "link2", "iiwa14": "iiwa_link_ee", "gripper_arm": "tool0"}


def _stencil_rows(traj: Trajectory, order: int, h: float) -> Trajectory:
    """Every sample moved along every coordinate of derivative ``order`` to the 9 stencil
    points: (N * n * 9) samples, [s, coordinate, point]."""
    N, D, n = traj.derivatives.shape
    d = np.repeat(traj.derivatives[:, None, None], n, axis=1).repeat(9, axis=2)  # (N, n, 9, D, n)
    for c in range(n):
        d[:, c, :, order, c] += np.arange(-4, 5) * h
    W = None if traj.wrenches is None else Wrenches(
        {k: np.repeat(w[:, None, None], n, axis=1).repeat(9, axis=2).reshape(-1, *w.shape[1:])
         for k, w in traj.wrenches.W.items()})
    return Trajectory(traj.joint_names, d.reshape(-1, D, n), None, W)


def _numeric(values: np.ndarray, N: int, n: int, h: float) -> np.ndarray:
    """The stencil of ``values`` (N * n * 9, ...) per sample and coordinate, the coordinate
    last: (N, ..., n)."""
    x = values.reshape(N, n, 9, *values.shape[1:])
    return np.moveaxis(np.tensordot(STENCIL, x, axes=(0, 2)) / h, 1, -1)


def test_state_derivatives_match_finite_differences(robot):
    """Each tensor against the 8th-order central difference of the closed-form matrix along
    each coordinate (q for all, qd for C and Cbar), external wrench included."""
    name, _, model = robot
    t = np.linspace(0.2, 3.0, 3)
    traj = random_cosine(model, t, orders=3, seed=21)
    traj = Trajectory(traj.joint_names, traj.derivatives, t,
                      Wrenches({LINKS[name]: wrench_motion(t, 1)}))
    S = md.state_derivatives(model, traj)
    N, n = traj.n_samples, model.n
    for order, fields in ((0, {"M": "dM_dq", "C": "dC_dq", "Cbar": "dCbar_dq", "g": "dg_dq",
                               "Q_ext": "dQ_ext_dq"}),
                          (1, {"C": "dC_dqd", "Cbar": "dCbar_dqd"})):
        E = matrices(model, _stencil_rows(traj, order, H), order=0)
        for matrix, tensor in fields.items():
            numeric = _numeric(getattr(E, matrix)[:, 0], N, n, H)
            analytic = getattr(S, tensor)
            ref = np.abs(analytic).max()
            assert ref > 1e-6, f"{name} {tensor} not excited"
            err = np.abs(numeric - analytic).max()
            assert err <= 1e-8 * ref, f"{name} {tensor}: {err:.3g} vs {ref:.3g}"


def test_contractions_match_pinocchio_rnea_derivatives(robot):
    """``dtau/dq = dM/dq qdd + dC/dq qd + dg/dq`` and ``dtau/dqd = C + dC/dqd qd`` with random
    qd, qdd: Pinocchio's computeRNEADerivatives (also Cbar's: Cbar qd = C qd for every q)."""
    name, path, model = robot
    rng = np.random.default_rng(4)
    traj = random_cosine(model, np.linspace(0, 4, 6), orders=3, seed=23)
    d = traj.derivatives.copy()
    d[:, 1:3] = rng.normal(size=d[:, 1:3].shape)
    traj = Trajectory(model.joint_names, d)
    S = md.state_derivatives(model, traj)
    C = matrices(model, traj, order=0).C[:, 0]
    qd, qdd = traj.qd, traj.qdd
    pin, pm, data, order = pinocchio_model(path, model)
    ix = np.ix_(order, order)
    for tensor in ("C", "Cbar"):
        dq = (np.einsum("nabh,nb->nah", S.dM_dq, qdd) + S.dg_dq
              + np.einsum("nabh,nb->nah", getattr(S, f"d{tensor}_dq"), qd))
        dqd = C + np.einsum("nabh,nb->nah", S.dC_dqd, qd)
        for s in range(traj.n_samples):
            pin.computeRNEADerivatives(pm, data, pin_configuration(pm, order, traj.q[s]),
                                       qd[s, order], qdd[s, order])
            for ours, ref in ((dq[s][ix], data.dtau_dq), (dqd[s][ix], data.dtau_dv)):
                assert np.abs(ours - ref).max() <= 1e-11 * np.abs(ref).max(), (name, tensor)


def test_torque_partials_match_the_complex_step_and_the_tensors(robot):
    """d tau/dq, d tau/dqd in the spatial O(n^2) form (``partials``) against the complex-step
    sensitivities of the body-fixed recursion and the contraction of the body-fixed tensors
    (``dM_dq qdd + dC_dq qd + dg_dq + dQ_ext_dq``, ``C + dC_dqd qd``): three derivations,
    an external wrench included."""
    name, _, model = robot
    t = np.linspace(0.1, 2.0, 5)
    traj = random_cosine(model, t, orders=3, seed=29)
    traj = Trajectory(traj.joint_names, traj.derivatives, t,
                      Wrenches({LINKS[name]: wrench_motion(t, 1)}))
    dq, dqd = torque_partials(model, traj)
    ref = sensitivities(model, traj, order=0)
    S = md.state_derivatives(model, traj)
    C = matrices(model, traj, order=0).C[:, 0]
    tensors = {"dtau_dq": np.einsum("nabh,nb->nah", S.dM_dq, traj.qdd) + S.dg_dq + S.dQ_ext_dq
               + np.einsum("nabh,nb->nah", S.dC_dq, traj.qd),
               "dtau_dqd": C + np.einsum("nabh,nb->nah", S.dC_dqd, traj.qd)}
    for ours, key in ((dq, "dtau_dq"), (dqd, "dtau_dqd")):
        scale = np.abs(ref[key]).max()
        assert np.abs(ours - ref[key]).max() <= 1e-12 * scale, (name, key)
        assert np.abs(tensors[key] - ref[key]).max() <= 1e-12 * scale, (name, key)


def test_parameter_derivatives_are_exact(robot):
    """Linear in pi: sum_p dA/dpi_p pi_p = A (each matrix), the contraction with qdd, qd is the
    regressor (body-fixed unit models: another code path), Cbar's with qr_dd, qr_d the
    Slotine-Li regressor, and a perturbed model's matrices differ by exactly dA/dpi delta."""
    name, _, model = robot
    traj = random_cosine(model, np.linspace(0, 3, 5), orders=3, seed=31)
    P = md.parameter_derivatives(model, traj)
    pi = regressor.parameters(model)
    E = matrices(model, traj, order=0)
    for field, A in (("dM_dpi", E.M), ("dC_dpi", E.C), ("dCbar_dpi", E.Cbar), ("dg_dpi", E.g)):
        ours = getattr(P, field) @ pi
        assert np.abs(ours - A[:, 0]).max() <= 1e-12 * np.abs(A).max(), (name, field)
    Y = regressor.regressor(model, traj, order=0)[:, 0]
    YP = (np.einsum("nabp,nb->nap", P.dM_dpi, traj.qdd) + np.einsum("nabp,nb->nap", P.dC_dpi, traj.qd)
          + P.dg_dpi)
    assert np.abs(YP - Y).max() <= 1e-12 * np.abs(Y).max()
    rng = np.random.default_rng(2)
    qr_d, qr_dd = rng.normal(size=(2, traj.n_samples, model.n))
    Yr = regressor.slotine_li_regressor(model, traj, qr_d, qr_dd)
    YPr = (np.einsum("nabp,nb->nap", P.dM_dpi, qr_dd)
           + np.einsum("nabp,nb->nap", P.dCbar_dpi, qr_d) + P.dg_dpi)
    assert np.abs(YPr - Yr).max() <= 1e-12 * np.abs(Yr).max()
    delta = rng.normal(size=pi.size) * 0.1 * np.abs(pi).max()
    moved = dataclasses.replace(model, inertias=np.stack([numpy_regressor.inertia_from_parameters(p) for p in
                                                   (pi + delta).reshape(-1, 10)]))
    E2 = matrices(moved, traj, order=0)
    for field, A, B in (("dM_dpi", E.M, E2.M), ("dC_dpi", E.C, E2.C), ("dg_dpi", E.g, E2.g)):
        change = B[:, 0] - A[:, 0]
        assert np.abs(getattr(P, field) @ delta - change).max() <= 1e-11 * np.abs(change).max()


@pytest.mark.parametrize("case", MIMIC_CASES)
def test_mimic_joints_project_every_index(tmp_path, case):
    """With a mimic joint the tensors are derivatives in the independent coordinates: the
    stencil of ``hodyn_cli.matrices`` moved along each coordinate."""
    robot, dependent, leader, gain, offset = MIMIC_CASES[case]
    model = load_model(mimic_urdf(tmp_path, robot, dependent, leader, gain, offset))
    m = len(model.coordinates)
    traj = random_cosine(load_model(URDF / f"{robot}.urdf"), np.linspace(0, 2, 3), orders=3,
                         seed=37)
    q, qd, qdd = (traj.derivatives[:, k, list(model.coordinates)] for k in range(3))
    res = hodyn_cli.matrices(model, q, qd, qdd, state_derivatives=True,
                             parameter_derivatives=True)
    assert res.dM_dq.shape == (3, m, m, m) and res.dg_dq.shape == (3, m, m)
    for field in ("M", "C", "g"):
        numeric = np.stack([np.tensordot(STENCIL, np.stack([
            hodyn_cli.matrices(model, q + k * H * np.eye(m)[c], qd, qdd)[field]
            for k in range(-4, 5)]), axes=(0, 0)) / H for c in range(m)], axis=-1)
        ours = res[f"d{field}_dq"]
        assert np.abs(ours - numeric).max() <= 1e-8 * np.abs(ours).max(), (case, field)
    pi = regressor.parameters(model)
    assert np.abs(res.dM_dpi @ pi - res.M).max() <= 1e-12 * np.abs(res.M).max()
    assert np.abs(res.dg_dpi @ pi - res.g).max() <= 1e-12 * np.abs(res.g).max()


def test_cli_writes_the_derivatives(tmp_path):
    out = tmp_path / "eom.h5"
    result = CliRunner().invoke(app, [
        "matrices", str(URDF / "gripper_arm.urdf"), str(SAMPLES / "gripper_arm_cosine.h5"),
        "-o", str(out), "--order", "0", "--state-derivatives", "--parameter-derivatives"])
    assert result.exit_code == 0, result.stderr
    model = load_model(URDF / "gripper_arm.urdf")
    n, P = model.n, 10 * model.n
    with h5py.File(out) as f:
        shapes = {k: f[k].shape for k in f}
        assert shapes["dM_dq"] == shapes["dC_dqd"] == shapes["dCbar_dq"] == (501, n, n, n)
        assert shapes["dg_dq"] == (501, n, n) and shapes["dM_dpi"] == (501, n, n, P)
        assert shapes["dg_dpi"] == (501, n, P) and "dQ_ext_dq" not in f
        assert "d q_h" in f.attrs["about_dM_dq"] and len(f.attrs["parameter_names"]) == P
        rows = slice(100, 104)
        dM = f["dM_dq"][rows]
        traj = read_trajectory(str(SAMPLES / "gripper_arm_cosine.h5"), model, need=3)
        assert np.array_equal(dM, md.state_derivatives(
            model, Trajectory(traj.joint_names, traj.derivatives[rows])).dM_dq)
        assert np.allclose(f["dM_dpi"][rows] @ f.attrs["parameters"], f["M"][rows], rtol=0,
                           atol=1e-12 * np.abs(f["M"][rows]).max())


def test_cli_refuses_a_floating_base_with_derivatives(tmp_path):
    result = CliRunner().invoke(app, [
        "matrices", str(URDF / "iiwa14.urdf"), str(SAMPLES / "iiwa14_cosine.h5"), "-o",
        str(tmp_path / "x.h5"), "--floating-base", "--state-derivatives"])
    assert result.exit_code == 2 and "--state-derivatives" in result.stderr
    assert not (tmp_path / "x.h5").exists()
