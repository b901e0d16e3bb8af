"""The per-DOF commands on ball, planar, helical and free joints anywhere in a tree (issue 36,
item 2), each proven on the trees of tests/test_joint_models.py:

- ``matrices``: the closed-form M, C, Cbar, g and their rates over the velocity coordinates
  (nv x nv, labelled per DOF) against the body-fixed recursion (``M nu' + C nu + g = tau`` and
  its rates to order 2), Pinocchio's crba, computeGeneralizedGravity, nonLinearEffects and
  computeCoriolisMatrix (``M' = C_pin + C_pin^T``), and a floating base against the same
  tree under a free root joint;
- ``regressor``: Y (a row per DOF) against Pinocchio's computeJointTorqueRegressor, ``Y pi``
  against the recursion's tau to order 2, the base parameters, and a floating base against
  the free root joint;
- ``kinematics``: poses, twists, Jacobians and the centre of mass against Pinocchio's;
- ``compute --method``: the three methods agree;
- ``forward``: qdd and its rates invert the recursion, qdd = pin.aba;
- ``sensitivities``: in the tangent space (``q + delta = J exp(S delta)``), Pinocchio's
  computeRNEADerivatives, and d taud/d q by central differences along that step."""

from __future__ import annotations

import numpy as np
import pytest
from test_joint_models import (
    MIXED,
    URDF_JOINTS,
    G,
    analytic_motion,
    floating_and_free,
    pin_configuration,
    pinocchio_model,
    random_model,
    with_free_root,
)

from hodyn_cli.algorithms.dynamics import body_fixed, closed_form, floating
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import BaseMotion, Trajectory


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


def test_matrices_give_the_recursions_tau_and_rates():
    """``tau^(k) = sum_j C(k, j) (M^(j) nu^(k-j+1) + C^(j) nu^(k-j)) + g^(k)`` equals the
    body-fixed recursion's tau, taud, taudd on a tree of every joint type, and ``M' = Cbar +
    Cbar^T`` (54)."""
    model = random_model(3, MIXED)
    traj = analytic_motion(model, np.linspace(0, 2, 3), 3, 3)
    E = closed_form.matrices(model, traj, order=2, gravity=G)
    assert E.M.shape == (3, 3, model.nv, model.nv)
    tau = body_fixed.inverse_dynamics(model, traj, order=2, gravity=G)
    ours = closed_form.generalized_forces(E, traj.derivatives[:, 1:])
    for k in range(3):
        assert _relative(ours[:, k], tau[:, k]) <= 1e-12, k
    assert _relative(E.Cbar[:, 0] + np.swapaxes(E.Cbar[:, 0], 1, 2), E.M[:, 1]) <= 1e-12


def test_matrices_equal_pinocchios():
    """M = pin.crba, g = computeGeneralizedGravity, C nu = nonLinearEffects - g, and M' =
    C_pin + C_pin^T (Pinocchio's computeCoriolisMatrix), to 1e-12, in Pinocchio's order of the
    velocity coordinates."""
    model = random_model(4, MIXED)
    traj = analytic_motion(model, np.linspace(0, 1, 2), 3, 4)
    E = closed_form.matrices(model, traj, order=1, gravity=G)
    pin, pm, perm = pinocchio_model(model)
    data = pm.createData()
    for s, qs in enumerate(traj.derivatives):
        q, v = pin_configuration(pin, model, qs[0]), qs[1, perm]
        M = pin.crba(pm, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        g = pin.computeGeneralizedGravity(pm, data, q)
        h = pin.nonLinearEffects(pm, data, q, v)
        Cp = pin.computeCoriolisMatrix(pm, data, q, v)
        ix = np.ix_(perm, perm)
        assert _relative(E.M[s, 0][ix], M) <= 1e-12
        assert _relative(E.g[s, 0][perm], g) <= 1e-12
        assert _relative((E.C[s, 0] @ qs[1])[perm], h - g) <= 1e-12
        assert _relative(E.M[s, 1][ix], Cp + Cp.T) <= 1e-12


def test_a_floating_base_is_the_free_root_joints():
    """Floating-base matrices (6 + nv) of a tree of ball, planar and free joints equal the
    fixed-base matrices of the same tree under a free root joint moving as the base, orders
    0..1."""
    robot, free, qs, base = floating_and_free(("spherical", "revolute", "planar", "free",
                                               "helical"), samples=3, orders=3)
    F = floating.matrices(robot, Trajectory(robot.dof_names, qs[..., 6:], base=base), order=1,
                          gravity=G)
    E = closed_form.matrices(free, Trajectory(free.dof_names, qs), order=1, gravity=G)
    for name in ("M", "C", "Cbar", "g"):
        assert _relative(getattr(F, name), getattr(E, name)) <= 1e-12, name


def test_the_commands_label_each_dof_and_refuse_what_is_not_built(tmp_path):
    """``hodyn matrices``, ``hodyn regressor --base``, ``hodyn kinematics --jacobian``,
    ``hodyn sensitivities`` and ``hodyn forward`` on a URDF with floating and planar joints
    write nv x nv matrices, nv regressor rows, nv Jacobian columns, nv x nv sensitivities and
    nv accelerations labelled per DOF (the library's numbers; forward gives the motion's own
    nu' and nu'' back from compute's torques); ``--state-derivatives``, ``--slotine-li``
    and forward's ``--derivatives`` on it are one line, exit 2, no output."""
    from hodyn_cli.algorithms.dynamics import regressor
    from hodyn_cli.algorithms.dynamics.sensitivities import sensitivities
    from hodyn_cli.algorithms.motion.jacobians import link_jacobian

    h5py = pytest.importorskip("h5py")
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app
    from hodyn_cli.io import write_trajectory
    from hodyn_cli.modeling.urdf import parse_model

    robot = tmp_path / "joints.urdf"
    robot.write_text(URDF_JOINTS)
    model = parse_model(URDF_JOINTS.encode())
    traj = analytic_motion(model, np.linspace(0, 1, 4), 3, 14)
    write_trajectory(str(tmp_path / "in.csv"), traj, model=model)
    out = tmp_path / "m.h5"
    result = CliRunner().invoke(app, ["matrices", str(robot), str(tmp_path / "in.csv"), "-o",
                                      str(out), "--order", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    E = closed_form.matrices(model, traj, order=1)
    with h5py.File(out) as f:
        assert tuple(f.attrs["joint_names"]) == model.dof_names
        assert f["M"].shape == (4, model.nv, model.nv)
        assert _relative(f["M_d"][()], E.M[:, 1]) <= 1e-12
        assert _relative(f["g"][()], E.g[:, 0]) <= 1e-12
    result = CliRunner().invoke(app, ["regressor", str(robot), str(tmp_path / "in.csv"), "-o",
                                      str(out), "--order", "1", "--base", "--quiet"])
    assert result.exit_code == 0, result.output
    Y = regressor.regressor(model, traj, order=1)
    with h5py.File(out) as f:
        assert tuple(f.attrs["joint_names"]) == model.dof_names
        assert _relative(f["Y_d"][()], Y[:, 1]) <= 1e-12
        assert f["Y_base"].shape[:2] == (4, model.nv)
    result = CliRunner().invoke(app, ["kinematics", str(robot), str(tmp_path / "in.csv"), "-o",
                                      str(out), "--order", "1", "--link", "d", "--jacobian",
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    J = link_jacobian(model, traj, "d", order=1)
    with h5py.File(out) as f:
        assert tuple(f.attrs["joint_names"]) == model.dof_names
        assert _relative(f["Js_d"][()], J.Js[:, 1]) <= 1e-12
    result = CliRunner().invoke(app, ["sensitivities", str(robot), str(tmp_path / "in.csv"),
                                      "-o", str(out), "--order", "0", "--quiet"])
    assert result.exit_code == 0, result.output
    with h5py.File(out) as f:
        assert tuple(f.attrs["joint_names"]) == model.dof_names
        assert _relative(f["dtau_dq"][()], sensitivities(model, traj, order=0)["dtau_dq"]) \
            <= 1e-12
    # forward: the motion's columns and the torques compute gives back nu' and nu''
    tau_csv = tmp_path / "tau.csv"
    result = CliRunner().invoke(app, ["compute", str(robot), str(tmp_path / "in.csv"), "-o",
                                      str(tau_csv), "--order", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    rows = zip((tmp_path / "in.csv").read_text().splitlines(),
               tau_csv.read_text().splitlines(), strict=True)
    (tmp_path / "with_tau.csv").write_text(
        "".join(f"{a},{b.split(',', 1)[1]}\n" for a, b in rows))
    result = CliRunner().invoke(app, ["forward", str(robot), str(tmp_path / "with_tau.csv"),
                                      "-o", str(tmp_path / "qdd.csv"), "--quiet"])
    assert result.exit_code == 0, result.output
    header = (tmp_path / "qdd.csv").read_text().splitlines()[0].split(",")
    table = np.loadtxt(tmp_path / "qdd.csv", delimiter=",", skiprows=1)
    for k, name in enumerate(("qdd", "qddd")):
        got = table[:, [header.index(f"{name}_{d}") for d in model.dof_names]]
        assert _relative(got, traj.derivatives[:, 2 + k]) <= 1e-10, name
    for command, option in (("matrices", "--state-derivatives"), ("regressor", "--slotine-li"),
                            ("forward", "--derivatives")):
        target = tmp_path / "refused.h5"
        link = ["--link", "d"] if command == "kinematics" else []
        result = CliRunner().invoke(app, [command, str(robot), str(tmp_path / "in.csv"), "-o",
                                          str(target), option, *link])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert option in result.stderr and not target.exists()


# -- the regressor ------------------------------------------------------------------------

def _pin_parameters(model: Model) -> np.ndarray:
    """(10 nb, 10 nb) block diagonal ``T``: Pinocchio's parameters of a body are ``T pi``
    (hodyn's in the body frame; a planar joint's body in pin's joint frame turned by F,
    :func:`test_joint_models.pin_frame`: ``m``, ``F^T h``, ``F^T I F``), so that hodyn's Y is
    ``Y_pin T``."""
    from test_joint_models import pin_frame

    from hodyn_cli.algorithms.backends.numpy.regressor import inertia_from_parameters

    T = np.zeros((10 * model.n, 10 * model.n))
    for i in range(model.n):
        F = pin_frame(model, i)
        for p, pi in enumerate(np.eye(10)):
            I = F.T @ inertia_from_parameters(pi)[:3, :3] @ F
            T[10 * i : 10 * i + 10, 10 * i + p] = [pi[0], *(F.T @ pi[1:4]), I[0, 0], I[0, 1],
                                                    I[1, 1], I[0, 2], I[1, 2], I[2, 2]]
    return T


def test_regressor_equals_pinocchios_and_gives_tau():
    """Y pi = the recursion's tau, taud, taudd (rows per DOF), and Y = Pinocchio's
    computeJointTorqueRegressor (its parameters mapped to hodyn's) to 1e-12; the base
    parameters reproduce tau through ``Y_base pi_base``."""
    from hodyn_cli import api
    from hodyn_cli.algorithms.dynamics import regressor

    model = random_model(4, MIXED)
    traj = analytic_motion(model, np.linspace(0, 1, 2), 3, 4)
    Y = regressor.regressor(model, traj, order=2, gravity=G)
    assert Y.shape == (2, 3, model.nv, 10 * model.n)
    tau = body_fixed.inverse_dynamics(model, traj, order=2, gravity=G)
    assert _relative(Y @ regressor.parameters(model), tau) <= 1e-12
    pin, pm, perm = pinocchio_model(model)
    data, T = pm.createData(), _pin_parameters(model)
    for s, qs in enumerate(traj.derivatives):
        q = pin_configuration(pin, model, qs[0])
        Yp = pin.computeJointTorqueRegressor(pm, data, q, qs[1, perm], qs[2, perm])
        assert _relative(Y[s, 0][perm], Yp @ T) <= 1e-12
    r = api.dynamic_regressor(model, traj, order=1, gravity=G, base=True)
    basis = regressor.base_parameters(model, gravity=G)
    assert r.joint_names == model.dof_names and r.Y_base.shape[-1] < 10 * model.n
    assert _relative(r.Y_base_d @ (basis.base_map @ regressor.parameters(model)), tau[:, 1]) \
        <= 1e-10


def test_floating_kinematics_is_the_free_root_joints():
    """A link's pose, twists, point rates and Jacobians (to order 2) over a floating base
    carrying ball, planar, free and helical joints are those of the same tree under a free
    root joint moving as the base (world frame; the root's 6 columns first)."""
    from dataclasses import replace

    from hodyn_cli.algorithms.motion.jacobians import link_jacobian
    from hodyn_cli.algorithms.motion.kinematics import link_kinematics
    from hodyn_cli.core.model import LinkFrame

    robot = random_model(8, ("spherical", "revolute", "planar", "free", "helical"))
    free = replace(with_free_root(robot), links={"l4": LinkFrame(5, np.eye(4))})
    qs = analytic_motion(free, np.linspace(0, 2, 3), 4, 8).derivatives
    base = BaseMotion(lie.rotation_vector_exp(qs[:, 0, :3]), qs[:, 0, 3:6], qs[:, 1:, :6])
    moving = Trajectory(robot.dof_names, qs[..., 6:], base=base)
    fixed = Trajectory(free.dof_names, qs)
    ours, ref = (link_kinematics(robot, moving, "l4", 2), link_kinematics(free, fixed, "l4", 2))
    for name in ("R", "p", "Vs", "Vb", "pd"):
        assert _relative(getattr(ours, name), getattr(ref, name)) <= 1e-12, name
    ours, ref = link_jacobian(robot, moving, "l4", 2), link_jacobian(free, fixed, "l4", 2)
    for name in ("Js", "Jb"):
        assert _relative(getattr(ours, name), getattr(ref, name)) <= 1e-12, name


def test_floating_regressor_is_the_free_root_joints():
    """A floating base's regressor over a tree of multi-DOF joints (rows: base wrench, then
    per DOF) is the fixed-base regressor of the tree under a free root joint, its first 6
    rows negated (``W_base = -F_0``)."""
    from hodyn_cli.algorithms.dynamics import regressor

    robot, free, qs, base = floating_and_free(("spherical", "revolute", "planar", "free",
                                               "helical"), samples=3, orders=3)
    Y = regressor.regressor(robot, Trajectory(robot.dof_names, qs[..., 6:], base=base),
                            order=1, gravity=G)
    ref = regressor.regressor(free, Trajectory(free.dof_names, qs), order=1, gravity=G)
    ref[:, :, :6] *= -1
    assert _relative(Y, ref) <= 1e-12


# -- kinematics and Jacobians -------------------------------------------------------------

def test_link_kinematics_and_jacobians_equal_pinocchios():
    """Every body's pose, spatial twist and its rate (pin.forwardKinematics, WORLD), and its
    spatial Jacobian and the Jacobian's rate (getJointJacobian, getJointJacobianTimeVariation,
    WORLD) to 1e-12 on a tree of every joint type; the centre of mass, its two rates and the
    centroidal momentum (centerOfMass, computeCentroidalMomentum); the body Jacobian maps nu to
    the body twist, and the Jacobian's second derivative is the 8th-order difference of its
    first."""
    from test_joint_models import pin_frame

    from conftest import STENCIL
    from hodyn_cli import api
    from hodyn_cli.algorithms.motion.jacobians import link_jacobian
    from hodyn_cli.algorithms.motion.kinematics import link_kinematics

    model = random_model(4, MIXED)
    traj = analytic_motion(model, np.linspace(0, 1, 2), 3, 4)
    pin, pm, perm = pinocchio_model(model)
    data, WORLD = pm.createData(), pin.ReferenceFrame.WORLD
    swap = [3, 4, 5, 0, 1, 2]   # pin's (linear; angular) rows
    for i in range(model.n):
        lk = link_kinematics(model, traj, f"l{i}", order=1)
        J = link_jacobian(model, traj, f"l{i}", order=1)
        assert J.columns == model.dof_names
        for s, qs in enumerate(traj.derivatives):
            q, v, a = pin_configuration(pin, model, qs[0]), qs[1, perm], qs[2, perm]
            pin.forwardKinematics(pm, data, q, v, a)
            pin.computeJointJacobians(pm, data, q)
            pin.computeJointJacobiansTimeVariation(pm, data, q, v)
            place = data.oMi[i + 1]
            assert _relative(lk.R[s], place.rotation @ pin_frame(model, i).T) <= 1e-12
            assert _relative(lk.p[s], place.translation) <= 1e-12
            assert _relative(lk.Vs[s, 0], pin.getVelocity(pm, data, i + 1, WORLD).vector[swap]) \
                <= 1e-12
            assert _relative(lk.Vs[s, 1],
                             pin.getAcceleration(pm, data, i + 1, WORLD).vector[swap]) <= 1e-12
            Jp = pin.getJointJacobian(pm, data, i + 1, WORLD)[swap]
            dJp = pin.getJointJacobianTimeVariation(pm, data, i + 1, WORLD)[swap]
            assert _relative(J.Js[s, 0][:, perm], Jp) <= 1e-12
            # (a root joint fixed in space has J' = 0: pin's rounding, against J's size)
            assert np.abs(J.Js[s, 1][:, perm] - dJp).max() <= 1e-12 * np.abs(Jp).max()
            assert _relative(J.Jb[s, 0] @ qs[1], lk.Vb[s, 0]) <= 1e-12
    com = api.centre_of_mass(model, traj, order=1)
    for s, qs in enumerate(traj.derivatives):
        q, v, a = pin_configuration(pin, model, qs[0]), qs[1, perm], qs[2, perm]
        pin.centerOfMass(pm, data, q, v, a)
        pin.computeCentroidalMomentum(pm, data, q, v)
        assert _relative(com.com[s], data.com[0]) <= 1e-12
        assert _relative(com.comd[s], data.vcom[0]) <= 1e-12
        assert _relative(com.comdd[s], data.acom[0]) <= 1e-12
        assert _relative(com.h[s], data.hg.vector[swap]) <= 1e-12
    h = 2e-3
    motion = analytic_motion(model, 0.4 + h * np.arange(-4, 5), 4, 4)
    J = link_jacobian(model, motion, f"l{model.n - 1}", order=2)
    for name in ("Js", "Jb"):
        A = getattr(J, name)
        assert _relative(STENCIL @ np.moveaxis(A[:, 1], 0, -2) / h, A[4, 2]) <= 1e-7, name


# -- the three methods --------------------------------------------------------------------

def test_the_three_methods_agree():
    """compute's body-fixed, spatial and closed-form methods give the same tau to order 3 and
    the same joint wrenches to order 2 (1e-12) on a tree of every joint type, fixed base and
    floating (the base wrench too)."""
    from hodyn_cli.algorithms.dynamics import methods

    model = random_model(5, MIXED)
    traj = analytic_motion(model, np.linspace(0, 2, 3), 5, 5)
    ref = methods.inverse_dynamics(model, traj, method="body-fixed", order=3, gravity=G)
    F = methods.joint_wrenches(model, traj, method="body-fixed", order=2, gravity=G)
    for method in ("spatial", "closed-form"):
        tau = methods.inverse_dynamics(model, traj, method=method, order=3, gravity=G)
        assert _relative(tau, ref) <= 1e-12, method
    assert _relative(methods.joint_wrenches(model, traj, method="spatial", order=2, gravity=G),
                     F) <= 1e-12
    robot = random_model(8, ("spherical", "revolute", "planar", "free", "helical"))
    free = with_free_root(robot)
    qs = analytic_motion(free, np.linspace(0, 2, 3), 4, 8).derivatives
    base = BaseMotion(lie.rotation_vector_exp(qs[:, 0, :3]), qs[:, 0, 3:6], qs[:, 1:, :6])
    moving = Trajectory(robot.dof_names, qs[..., 6:], base=base)
    tau, W = floating.inverse_dynamics(robot, moving, method="body-fixed", order=2, gravity=G)
    for method in ("spatial", "closed-form"):
        ours = floating.inverse_dynamics(robot, moving, method=method, order=2, gravity=G)
        assert _relative(ours[0], tau) <= 1e-12 and _relative(ours[1], W) <= 1e-12, method


# -- forward dynamics ---------------------------------------------------------------------

def test_forward_dynamics_inverts_the_recursion_and_is_pinocchios_aba():
    """qdd, qddd, qdddd of the recursion's tau, taud, taudd at q, nu are the motion's own
    (nu', nu'', nu''') on a tree of every joint type, and qdd = pin.aba."""
    from hodyn_cli.algorithms.dynamics.forward import forward_dynamics

    model = random_model(4, MIXED)
    traj = analytic_motion(model, np.linspace(0, 1, 2), 4, 4)
    tau = body_fixed.inverse_dynamics(model, traj, order=2, gravity=G)
    res = forward_dynamics(model, Trajectory(model.dof_names, traj.derivatives[:, :2]), tau,
                           gravity=G)
    assert _relative(res.qs, traj.derivatives[:, 2:5]) <= 1e-10
    pin, pm, perm = pinocchio_model(model)
    data = pm.createData()
    for s, qs in enumerate(traj.derivatives):
        q = pin_configuration(pin, model, qs[0])
        qdd = pin.aba(pm, data, q, qs[1, perm], tau[s, 0, perm])
        assert _relative(res.qs[s, 0, perm], qdd) <= 1e-11


def test_the_gpu_backend_hands_their_regressor_to_its_cpu_backend():
    """The GPU kernels run revolute and prismatic joints: a model with a ball joint's
    regressor (as its inverse dynamics) goes to the GPU backend's CPU backend."""
    from hodyn_cli.algorithms import backends
    from hodyn_cli.algorithms.backends.gpu import GpuBackend, GpuData

    calls = []

    class Recorder:
        def __getattr__(self, operation):
            return lambda *args, **kwargs: calls.append(operation) or operation

    gpu_backend = GpuBackend.__new__(GpuBackend)   # no JAX needed: nothing reaches a device
    gpu_backend.cpu = Recorder()
    model = random_model(11, ("revolute", "spherical"))
    data = GpuData(model, cpu=backends.load("numpy").data(model), device="cpu")
    assert gpu_backend.regressor(model, data, None, None, 0) == "regressor"
    assert gpu_backend.inverse_dynamics(model, data, None, None, {}, order=0) == \
        "inverse_dynamics"


# -- sensitivities ------------------------------------------------------------------------

def _stepped(model: Model, row: np.ndarray, v: int, h: float) -> np.ndarray:
    """Configuration coordinates (row 0 of qs) of ``q + h e_v`` in the tangent space: the
    joint of velocity coordinate v at ``J exp(S h e_v)`` (Pinocchio's integrate), a 1-DOF
    joint's coordinate plus h."""
    from hodyn_cli.core.model import joint_pose

    out = row.copy()
    i = int(np.searchsorted(model.dof_offsets, v, side="right") - 1)
    o, kind = int(model.dof_offsets[i]), model.joint_types[i]
    if model.dofs[i] == 1:
        out[v] += h
        return out
    R, p = joint_pose(kind, model.X[i], row[None, o : o + model.dofs[i]])
    twist = model.subspaces[i][:, v - o] * h
    dR = lie.rotation_vector_exp(twist[None, :3])[0]
    # exp of a twist (w; u): a pure rotation or translation here (one coordinate at a time)
    R, p = R[0] @ dR, p[0] + R[0] @ (twist[3:] if not twist[:3].any() else np.zeros(3))
    if kind == "planar":
        n, u = model.X[i, :3], model.X[i, 3:]
        theta = np.arctan2(np.cross(u, R @ u) @ n, u @ R @ u)
        out[o : o + 3] = [p @ u, p @ np.cross(n, u), theta]
    else:
        coordinates = lie.rotation_log(R[None])[0]
        out[o : o + model.dofs[i]] = coordinates if kind == "spherical" else [*coordinates, *p]
    return out


def test_sensitivities_equal_pinocchios_in_the_tangent_space():
    """Order 0: d tau/d q (tangent: ``q + delta = J exp(S delta)``), d tau/d nu and M are
    Pinocchio's computeRNEADerivatives (1e-10); order 1: d taud/d q is the central difference
    of taud along ``J exp(+-h S e_v)`` for every velocity coordinate v."""
    from hodyn_cli.algorithms.dynamics.sensitivities import sensitivities

    model = random_model(4, MIXED)
    traj = analytic_motion(model, np.linspace(0, 1, 2), 3, 4)
    S = sensitivities(model, traj, order=1, gravity=G)
    pin, pm, perm = pinocchio_model(model)
    data, ix = pm.createData(), np.ix_(perm, perm)
    for s, qs in enumerate(traj.derivatives):
        q = pin_configuration(pin, model, qs[0])
        dq, dv, M = pin.computeRNEADerivatives(pm, data, q, qs[1, perm], qs[2, perm])
        M = np.triu(M) + np.triu(M, 1).T
        for name, ref in (("dtau_dq", dq), ("dtau_dqd", dv), ("dtau_dqdd", M)):
            assert _relative(S[name][s][ix], ref) <= 1e-10, name
    h, qs = 1e-5, traj.derivatives[:1].copy()
    numeric = np.empty((model.nv, model.nv))
    for v in range(model.nv):
        taud = []
        for step in (h, -h):
            moved = qs.copy()
            moved[0, 0] = _stepped(model, qs[0, 0], v, step)
            taud.append(body_fixed.inverse_dynamics(model, Trajectory(model.dof_names, moved),
                                                    order=1, gravity=G)[0, 1])
        numeric[:, v] = (taud[0] - taud[1]) / (2 * h)
    assert _relative(S["dtaud_dq"][0], numeric) <= 1e-7


def test_floating_sensitivities_hold_the_root():
    """Over a floating base carrying multi-DOF joints (the root's motion held), d tau/d nu' is
    the joint block of the floating-base mass matrix, and d tau/d q, d tau/d nu are the free
    root joint's tree's own (its joint block: the free joint moving as the base)."""
    from hodyn_cli.algorithms.dynamics.sensitivities import sensitivities

    robot = random_model(8, ("spherical", "revolute", "planar", "free", "helical"))
    free = with_free_root(robot)
    qs = analytic_motion(free, np.linspace(0, 2, 3), 3, 8).derivatives
    base = BaseMotion(lie.rotation_vector_exp(qs[:, 0, :3]), qs[:, 0, 3:6], qs[:, 1:, :6])
    moving = Trajectory(robot.dof_names, qs[..., 6:], base=base)
    S = sensitivities(robot, moving, order=0, gravity=G)
    M = floating.matrices(robot, moving, order=0, gravity=G).M[:, 0, 6:, 6:]
    assert _relative(S["dtau_dqdd"], M) <= 1e-12
    ref = sensitivities(free, Trajectory(free.dof_names, qs), order=0, gravity=G)
    for name in ("dtau_dq", "dtau_dqd"):
        assert _relative(S[name], ref[name][:, 6:, 6:]) <= 1e-10, name


# -- check --------------------------------------------------------------------------------

def test_check_limits_the_one_dof_joints_and_refuses_a_multi_dof_joints_limit(tmp_path):
    """``check`` on a tree of every joint type (fixed and floating base): the torque, torque
    rate and velocity rows of its 1-DOF joints peak at the recursion's extremes; a limits
    file's limit on a multi-DOF joint is one line naming the file, the joint and the limit;
    a URDF ``<limit>`` on a floating or planar joint is left out with a notice."""
    from hodyn_cli import api
    from hodyn_cli.errors import HodynError
    from hodyn_cli.modeling.urdf import parse_model

    model = random_model(5, MIXED)
    traj = analytic_motion(model, np.linspace(0, 2, 7), 3, 5)
    limits = {"j1": {"torque": 1.0, "torque_rate": 1.0, "velocity": 0.1}}
    tau = body_fixed.inverse_dynamics(model, traj, order=1, gravity=G)
    free = with_free_root(model)
    qs = analytic_motion(free, np.linspace(0, 2, 7), 3, 5).derivatives
    base = BaseMotion(lie.rotation_vector_exp(qs[:, 0, :3]), qs[:, 0, 3:6], qs[:, 1:, :6])
    moving = Trajectory(model.dof_names, qs[..., 6:], base=base)
    floating_tau = floating.inverse_dynamics(model, moving, order=1, gravity=G)[0]
    v = model.dof_names.index("j1")
    for motion, torques in ((traj, tau), (moving, floating_tau)):
        rows = {r.quantity: r for r in api.check_limits(model, motion, limits=limits,
                                                        gravity=G).rows}
        assert set(rows) == {"torque", "torque_rate", "velocity"}
        for key, values in (("torque", torques[:, 0, v]), ("torque_rate", torques[:, 1, v]),
                            ("velocity", motion.derivatives[:, 1, v])):
            assert rows[key].value == pytest.approx(values[np.argmax(np.abs(values))],
                                                    rel=1e-12), key
    with pytest.raises(HodynError, match="l.toml: joint 'j0' \\(spherical\\): the limits "
                                         "file's torque limit has no meaning for its 3"):
        api.check_limits(model, traj, limits=_limits_file(tmp_path, "j0"))
    urdf = parse_model(URDF_JOINTS.replace(
        '<joint name="slide" type="planar"><parent link="b"/><child link="c"/>',
        '<joint name="slide" type="planar"><parent link="b"/><child link="c"/>'
        '<limit effort="5" velocity="2"/>').encode())
    assert np.isinf(urdf.effort_limits[2]) and np.isinf(urdf.velocity_limits[2])
    assert any("joint 'slide' (planar): its <limit> is left out" in d.message
               for d in urdf.diagnostics)


def _limits_file(tmp_path, joint: str) -> str:
    path = tmp_path / "l.toml"
    path.write_text(f"[joints.{joint}]\ntorque = 2.0\n")
    return str(path)
