"""Rigid drives (``hodyn compute --drives``), friction, gear efficiency and currents against
physics built a second way.

* ``reflected``: Pinocchio's ``rnea`` with ``model.armature = I r^2`` is ``r tau_m``.
* ``full``: the rotors as bodies of a Pinocchio model (tests/test_elastic.py's
  ``rotor_model``) with their spin constrained to ``theta = r q``; and the limit of the
  elastic model as its stiffness grows (u and tau_m approach tau and tau_m at rate 1/K).
* Friction: the tanh recursion against sympy's derivatives, the friction torque against its
  formula written out, every output derivative against 8th-order finite differences.
* Elastic drives with friction and rigid drives mixed in, against the rotors as bodies.
"""

from dataclasses import replace

import h5py
import numpy as np
import pytest
from test_elastic import CASES, pin_q, random_drives, rotor_model
from typer.testing import CliRunner

from conftest import SAMPLES, URDF, random_cosine, stencil_derivative, wrench_motion
from hodyn_cli import api
from hodyn_cli.algorithms.actuation import actuators, elastic, friction
from hodyn_cli.algorithms.backends.numpy import elastic as numpy_elastic
from hodyn_cli.algorithms.limits.scaling import Law, earliest
from hodyn_cli.cli.app import app
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import Trajectory, Wrenches, cosine, derivative_name
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.drives import drives_from_table, read_drives
from hodyn_cli.modeling.urdf import load_model

pin = pytest.importorskip("pinocchio")
runner = CliRunner()


def with_motors(model, drives, seed=0, *, velocity=0.5):
    """The drives with friction on alternating sides, gear efficiencies and torque constants
    (random, of realistic size); ``velocity``: the joint-side Coulomb velocity (the motor
    side's is r times it)."""
    rng = np.random.default_rng(seed)
    table = {}
    for j in np.flatnonzero(drives.driven):
        motor = bool(j % 2)
        scale = 1.0 / abs(drives.gear_ratio[j]) if motor else 1.0  # motor side: N m at the rotor
        entry = {"gear_ratio": float(drives.gear_ratio[j]),
                 "rotor_inertia": float(drives.rotor_inertia[j]),
                 "gear_efficiency": float(rng.uniform(0.7, 1.0)),
                 "torque_constant": float(rng.uniform(0.05, 0.5)),
                 "viscous": float(rng.uniform(0.5, 3.0) * scale),
                 "coulomb": float(rng.uniform(1.0, 5.0) * scale),
                 "coulomb_velocity": velocity * (abs(drives.gear_ratio[j]) if motor else 1.0),
                 "offset": float(rng.uniform(-0.5, 0.5) * scale),
                 "friction_side": "motor" if motor else "joint"}
        if np.isfinite(drives.stiffness[j]):
            entry["stiffness"] = float(drives.stiffness[j])
        table[model.joint_names[j]] = entry
    # the rotor axes as they were (given in the carriers' body frames)
    return replace(drives_from_table(model, table), rotor_axis=drives.rotor_axis)


def friction_by_formula(drives, v, motor):
    """viscous v + coulomb tanh(v / velocity) + offset, written out, for one side."""
    f = drives.friction
    on = drives.driven & (f.motor_side == motor)
    return np.where(on, f.viscous * v + f.coulomb * np.tanh(v / f.velocity) + f.offset, 0.0)


def rotor_torques(pm, data, order, drives, q, theta, fext=None):
    """pin.rnea of the rotors-as-bodies model at one sample: the link joints' torques and
    the rotor joints' (NaN for joints without a rotor), in hodyn's joint order. ``q``,
    ``theta``: (3, n) values, rates and accelerations."""
    nl, rotors = len(order), np.flatnonzero(drives.driven)
    qs = [np.concatenate([q[k, order], theta[k, rotors]]) for k in range(3)]
    args = (pm, data, pin_q(pm, qs[0]), qs[1], qs[2]) + (() if fext is None else (fext,))
    tau = pin.rnea(*args)
    link = np.empty(nl)
    link[order] = tau[:nl]
    motor = np.full(nl, np.nan)
    motor[rotors] = tau[nl:]
    return link, motor


# -- reflected: Pinocchio's armature ---------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_reflected_equals_pinocchio_with_armature(case):
    path, make_drives, gravity = CASES[case]
    model = load_model(path)
    drives = make_drives(model).made_rigid()
    traj = random_cosine(model, np.linspace(0, 3, 9), orders=2, seed=3)
    res = actuators.inverse_dynamics(model, traj, drives, order=0, kind="reflected",
                                     gravity=gravity)
    pm = pin.buildModelFromUrdf(str(path))
    order = [model.joint_index(pm.names[j]) for j in range(1, pm.njoints)]
    idx = [pm.joints[j].idx_v for j in range(1, pm.njoints)]
    pm.gravity = pin.Motion(np.array(gravity, dtype=float), np.zeros(3))
    r = np.where(drives.driven, drives.gear_ratio, 1.0)
    armature = np.zeros(pm.nv)
    armature[idx] = (drives.inertia * r**2)[order]
    pm.armature = armature
    data = pm.createData()
    for s in range(traj.n_samples):
        ref = np.empty(model.n)
        ref[order] = pin.rnea(pm, data, pin_q(pm, traj.q[s, order]), traj.qd[s, order],
                              traj.qdd[s, order])[idx]
        ours = r * res.taum[s, 0]
        assert np.allclose(ours, ref, rtol=0, atol=1e-10 * np.abs(ref).max()), (case, s)
    plain = api.inverse_dynamics(model, traj, order=0, gravity=gravity).tau
    assert np.array_equal(res.tau[:, 0], plain)  # the links' torque: no coupling
    assert np.abs(res.taum[:, 0] * r - plain).max() > 1e-6 * np.abs(plain).max()


# -- full: the rotors as bodies -----------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_full_equals_rotors_as_bodies_with_spin_r_q(case):
    path, make_drives, gravity = CASES[case]
    model = load_model(path)
    drives = make_drives(model).made_rigid()
    link = {"iiwa14": "iiwa_link_ee", "gripper_arm": "tool0", "planar_2r": None}[case]
    t = np.linspace(0, 3, 9)
    traj = random_cosine(model, t, orders=2, seed=6)
    if link is not None:  # an external wrench on a link merged by a fixed joint
        traj = Trajectory(traj.joint_names, traj.derivatives, t,
                          Wrenches({link: wrench_motion(t, 0)}))
    res = actuators.inverse_dynamics(model, traj, drives, order=0, gravity=gravity)
    pm, data, order = rotor_model(model, drives, path.read_text())
    pm.gravity = pin.Motion(np.array(gravity, dtype=float), np.zeros(3))
    r = np.where(drives.driven, drives.gear_ratio, 1.0)
    for s in range(len(t)):
        fext = None
        if link is not None:
            frame = model.links[link]
            Wb = traj.wrenches.W[link][s, 0] @ lie.Ad_inv(frame.T[:3, :3], frame.T[:3, 3])
            fext = [pin.Force.Zero() for _ in range(pm.njoints)]
            fext[pm.getJointId(model.joint_names[frame.body])] = pin.Force(-Wb[3:], -Wb[:3])
        q = traj.derivatives[s, :3]
        tau, rotor = rotor_torques(pm, data, order, drives, q, r * q, fext)
        assert np.allclose(res.tau[s, 0], tau, rtol=0, atol=1e-10 * np.abs(tau).max()), (case, s)
        d = drives.driven
        ours = res.taum[s, 0, d] - res.tau[s, 0, d] / r[d]
        assert np.allclose(ours, rotor[d], rtol=0, atol=1e-10 * np.abs(res.taum[:, 0]).max())
    coupled = actuators.requirements(model, drives, 0).accel.any()
    refl = actuators.inverse_dynamics(model, traj, drives, order=0, kind="reflected",
                                      gravity=gravity)
    if coupled:  # the gyroscopic model is not the armature model
        assert np.abs(refl.tau - res.tau).max() > 1e-6 * np.abs(res.tau).max()


def test_full_with_massless_rotors_is_the_rigid_torque():
    model = load_model(URDF / "iiwa14.urdf")
    drives = read_drives(URDF / "iiwa14_drives.toml", model)
    massless = drives_from_table(model, {j: {"gear_ratio": 100.0}
                                         for j in model.joint_names})
    traj = random_cosine(model, np.linspace(0, 2, 7), orders=6, seed=1)
    res = actuators.inverse_dynamics(model, traj, massless, order=4)
    tau = api.inverse_dynamics(model, traj, order=4, method="spatial")
    stacked = np.stack([tau[name] for name in tau], axis=1)
    assert np.allclose(res.tau, stacked, rtol=0, atol=1e-10 * np.abs(stacked).max())
    assert np.allclose(res.taum * 100.0, stacked, rtol=0, atol=1e-10 * np.abs(stacked).max())
    with pytest.raises(Exception, match="iiwa_joint_1' has a series-elastic drive"):
        actuators.inverse_dynamics(model, traj, drives, order=0)


def test_full_is_the_stiff_limit_of_the_elastic_model():
    """u -> tau and the elastic tau_m -> the rigid one with errors proportional to 1/K."""
    model = load_model(URDF / "iiwa14.urdf")
    base = read_drives(URDF / "iiwa14_drives.toml", model)
    rigid = base.made_rigid()
    req = elastic.requirements(model, base, 0)
    traj = random_cosine(model, np.linspace(0, 2, 7), orders=req.q_order, seed=2)
    res = actuators.inverse_dynamics(model, traj, rigid, order=0)
    errors = []
    for factor in (1e2, 1e3, 1e4):
        stiff = drives_from_table(model, {
            j: {"stiffness": float(base.stiffness[i] * factor),
                "gear_ratio": float(base.gear_ratio[i]),
                "rotor_inertia": float(base.rotor_inertia[i])}
            for i, j in enumerate(model.joint_names)})
        el = elastic.inverse_dynamics(model, traj, stiff, order=0)
        errors.append([np.abs(el.u[:, 0] - res.tau[:, 0]).max() / np.abs(res.tau).max(),
                       np.abs(el.taum[:, 0] - res.taum[:, 0]).max() / np.abs(res.taum).max()])
    errors = np.array(errors)
    assert errors[-1].max() < 1e-4, errors
    ratios = errors[:-1] / errors[1:]  # 10x the stiffness: 10x closer
    assert np.all((ratios > 9) & (ratios < 11)), ratios


# -- friction ------------------------------------------------------------------------------


def test_tanh_rates_equal_sympy():
    """d^k/dt^k tanh(x(t)), k <= 7, by sympy's chain rule on tanh(u(t)) for an unknown u, its
    u, u', ... then those of x(t) = 1.7 sin(1.3 t + 0.4) + 0.6 t^2 - 0.2 (differentiating
    tanh(x(t)) itself, sin written out, took sympy 1.6 s of CPU; this 0.7 s)."""
    sp = pytest.importorskip("sympy")
    t = sp.symbols("t")
    K = 7
    u, us = sp.Function("u")(t), sp.symbols(f"u0:{K + 1}")
    rates, y = [], sp.tanh(u)
    for _ in range(K + 1):
        rates.append(y)
        y = y.diff(t)
    # u's derivatives as plain symbols, the highest first (each holds u itself)
    rates = [r.subs({u.diff(t, k): us[k] for k in range(K, 0, -1)}).subs(u, us[0]) for r in rates]
    chain = sp.lambdify([us], rates)
    x = 1.7 * sp.sin(1.3 * t + 0.4) + 0.6 * t**2 - 0.2
    motion = sp.lambdify(t, [x.diff(t, k) for k in range(K + 1)])
    for t0 in (-1.1, 0.2, 2.3):  # saturated (|x| ~ 3), near 0, in between
        xs = np.array(motion(t0), dtype=float)
        ref = np.array(chain(xs), dtype=float)
        ours = friction.tanh_rates(xs[None])[0]
        assert np.allclose(ours, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max()), (t0, ours, ref)


def test_motor_torque_holds_the_friction_as_documented():
    """taum with friction minus without it = f_J / (r eta) + f_M(r qd), formulas written out."""
    model = load_model(URDF / "iiwa14.urdf")
    base = random_drives(model, 3).made_rigid()
    drives = with_motors(model, base, 4)
    plain = drives_from_table(model, {j: {"gear_ratio": float(drives.gear_ratio[i]),
                                          "rotor_inertia": float(drives.rotor_inertia[i]),
                                          "gear_efficiency": float(drives.gear_efficiency[i])}
                                      for i, j in enumerate(model.joint_names)})
    traj = random_cosine(model, np.linspace(0, 2, 11), orders=2, seed=5)
    a = actuators.inverse_dynamics(model, traj, drives, order=0)
    b = actuators.inverse_dynamics(model, traj, plain, order=0)
    r, eta, qd = drives.gear_ratio, drives.gear_efficiency, traj.qd
    expected = friction_by_formula(drives, qd, False) / (r * eta) + \
        friction_by_formula(drives, r * qd, True)
    assert np.allclose(a.taum[:, 0] - b.taum[:, 0], expected, rtol=1e-12, atol=1e-12)
    assert np.array_equal(a.tau, b.tau)  # friction is the motor's business
    assert np.allclose(a.current[:, 0], a.taum[:, 0] / drives.torque_constant, rtol=1e-15)
    assert drives.friction.motor_side.any() and (~drives.friction.motor_side).any()



@pytest.mark.parametrize("case", ["iiwa14", "gripper_arm"])
@pytest.mark.parametrize("kind", elastic.MODELS)
def test_every_derivative_by_finite_differences(case, kind):
    path, make_drives, gravity = CASES[case]
    model = load_model(path)
    drives = with_motors(model, make_drives(model).made_rigid(), 7)
    K, h = 3, 2e-3
    for t0 in (0.3, 1.7):
        traj = random_cosine(model, t0 + h * np.arange(-4, 5), orders=K + 2, seed=7)
        res = actuators.inverse_dynamics(model, traj, drives, order=K, kind=kind, gravity=gravity)
        for name in ("tau", "taum", "current"):
            value = getattr(res, name)[..., drives.current] if name == "current" else \
                getattr(res, name)
            for k in range(1, K + 1):
                fd = stencil_derivative(value[:, k - 1], h)
                scale = np.abs(value[:, k]).max()
                err = np.abs(fd - value[4, k]).max() / scale
                assert err < 1e-7, f"{case} {kind} {name} order {k}: {err:.2e}"


# -- the elastic model with friction, efficiency and rigid drives ---------------------------


def test_elastic_model_with_friction_and_rigid_drives_against_rotors_as_bodies():
    """Joint-side friction adds to u (the spring carries it), motor-side friction and the
    gear efficiency enter tau_m; two of the drives are rigid (theta = r q)."""
    model = load_model(URDF / "iiwa14.urdf")
    base = random_drives(model, 1, oblique=(2,))
    table = {j: {"gear_ratio": float(base.gear_ratio[i]),
                 "rotor_inertia": float(base.rotor_inertia[i])}
             | ({} if i in (1, 4) else {"stiffness": float(base.stiffness[i])})
             for i, j in enumerate(model.joint_names)}
    drives = with_motors(model, replace(drives_from_table(model, table),
                                        rotor_axis=base.rotor_axis), 9)
    assert drives.rigid.tolist() == [False, True, False, False, True, False, False]
    req = elastic.requirements(model, drives, 0)
    traj = random_cosine(model, np.linspace(0, 3, 7), orders=req.q_order, seed=4)
    gravity = (1.0, -2.0, -9.0)
    res = elastic.inverse_dynamics(model, traj, drives, order=0, gravity=gravity)
    pm, data, order = rotor_model(model, drives, (URDF / "iiwa14.urdf").read_text())
    pm.gravity = pin.Motion(np.array(gravity), np.zeros(3))
    r, eta = drives.gear_ratio, drives.gear_efficiency
    assert np.array_equal(res.theta[:, :, drives.rigid], (r * traj.derivatives[:, :3])[
        :, :, drives.rigid])
    for s in range(traj.n_samples):
        tau, rotor = rotor_torques(pm, data, order, drives, traj.derivatives[s, :3],
                                   res.theta[s])
        u = tau + friction_by_formula(drives, traj.qd[s], False)
        assert np.allclose(res.u[s, 0], u, rtol=0, atol=1e-10 * np.abs(u).max()), s
        motor = rotor + res.u[s, 0] / (r * eta) + friction_by_formula(drives, res.theta[s, 1],
                                                                       True)
        assert np.allclose(res.taum[s, 0], motor, rtol=0,
                           atol=1e-10 * np.abs(res.taum[:, 0]).max()), s


@pytest.mark.kernel
def test_rigid_drive_kernel_equals_numpy_reference(lanes):
    """The compiled coupling with K = inf and joint torques added, against solve_full, at
    every lane width, an odd sample count, wrenches and a root moving per sample."""
    from hodyn_cli.algorithms import backends

    model = load_model(URDF / "gripper_arm.urdf")
    drives = with_motors(model, read_drives(URDF / "gripper_arm_drives.toml", model), 2)
    t = np.linspace(0, 2, 9)
    for order in (0, 2):
        for d in (drives.made_rigid(), drives):
            req = (actuators.requirements(model, d, order) if d.rigid.all()
                   else elastic.requirements(model, d, order))
            R = int(req.u_orders.max())
            qs = random_cosine(model, t, orders=R + 2, seed=4).derivatives
            W = {model.n - 1: wrench_motion(t, R)}
            base = np.random.default_rng(5).normal(size=(len(t), R + 2, 6))
            extra = friction.at_side(d, qs[:, 1 : R + 2], motor=False)
            assert extra is not None and np.abs(extra).max() > 0
            backend, data = backends.prepare(model)
            ours = backend.elastic(model, data, d, req, qs, base, W, order, extra)
            ref = numpy_elastic.solve_full(model, d, req, qs, base, W, order, extra)
            for a, b, what in zip(ours, ref, ("u", "theta", "taum"), strict=True):
                assert a.shape == b.shape, what
                assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), (order, what, lanes)


# -- the command line ----------------------------------------------------------------------

IIWA = URDF / "iiwa14.urdf"
MOTORS = URDF / "iiwa14_motors.toml"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_compute_with_drives_writes_tau_taum_current(tmp_path):
    """Current columns for the joints whose drive has a torque constant, only."""
    text = MOTORS.read_text()
    drives_file = tmp_path / "drives.toml"
    drives_file.write_text(text.replace("torque_constant = 0.2\n", ""))  # not joints 3, 4
    out = tmp_path / "motor.csv"
    result = run("compute", IIWA, SAMPLES / "iiwa14_cosine.csv", "--drives", drives_file,
                 "--order", 1, "-o", out)
    assert result.exit_code == 0, result.output
    model = load_model(IIWA)
    drives = read_drives(drives_file, model)
    traj = read_trajectory(str(SAMPLES / "iiwa14_cosine.csv"), model, need=4)
    ref = api.drive_dynamics(model, drives, traj, order=1)
    header = out.read_text().splitlines()[0].split(",")
    with_current = [j for j, c in zip(model.joint_names, drives.current, strict=True) if c]
    assert len(with_current) == 5
    assert header == ["t"] + [f"{b}_{j}" for b in ("tau", "taud", "taum", "taumd")
                              for j in model.joint_names] + [
        f"{b}_{j}" for b in ("current", "currentd") for j in with_current]
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert np.array_equal(data[:, 22:29], ref.taumd)
    assert np.array_equal(data[:, -len(with_current):], ref.currentd[:, drives.current])
    # the rotors' terms are in the body-fixed recursion only: another method is refused
    spatial = run("compute", IIWA, SAMPLES / "iiwa14_cosine.csv", "--drives", drives_file,
                  "--method", "spatial", "-o", tmp_path / "spatial.csv")
    assert spatial.exit_code == 2 and "--drives does not go with --method spatial" in \
        spatial.output and not (tmp_path / "spatial.csv").exists()


def test_compute_with_drives_hdf5_and_reflected(tmp_path):
    out = tmp_path / "motor.h5"
    result = run("compute", IIWA, SAMPLES / "iiwa14_cosine.h5", "--drives", MOTORS,
                 "--model", "reflected", "-o", out)
    assert result.exit_code == 0, result.output
    model = load_model(IIWA)
    drives = read_drives(MOTORS, model)
    traj = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    ref = api.drive_dynamics(model, drives, traj, model="reflected")
    with h5py.File(out) as f:
        assert {"tau", "taum", "taumdd", "current", "currentdd"} <= set(f)
        assert np.array_equal(f["taumdd"][()], ref.taumdd)
        assert f["current"].shape == (traj.n_samples, int(drives.current.sum()))
        assert list(f.attrs["current_joint_names"]) == [
            j for j, c in zip(model.joint_names, drives.current, strict=True) if c]
        assert f.attrs["drive_model"] == "reflected"


def test_elastic_drives_need_rigid_drives_on_compute(tmp_path):
    out = tmp_path / "x.csv"
    drives = URDF / "iiwa14_drives.toml"
    result = run("compute", IIWA, SAMPLES / "iiwa14_cosine.csv", "--drives", drives, "-o", out)
    assert result.exit_code == 2 and not out.exists()
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"hodyn: error: {drives}: joint "
                                                         "'iiwa_joint_1': a series-elastic")
    assert "--rigid-drives" in err
    result = run("compute", IIWA, SAMPLES / "iiwa14_cosine.csv", "--drives", drives,
                 "--rigid-drives", "-o", out)
    assert result.exit_code == 0, result.output
    result = run("compute", IIWA, SAMPLES / "iiwa14_cosine.csv", "--model", "reflected")
    assert result.exit_code == 2 and "--model goes with --drives FILE" in result.stderr


def test_shipped_motor_file_is_an_lbr_with_friction_on_both_sides():
    model = load_model(IIWA)
    drives = read_drives(MOTORS, model)
    assert drives.rigid.all() and drives.friction.any.all() and drives.current.all()
    assert drives.friction.motor_side.any() and (~drives.friction.motor_side).any()
    assert (drives.gear_efficiency < 1).all()
    traj = cosine(model.joint_names, np.linspace(0, 1, 5), amplitude=np.full(7, 0.5),
                  omega=np.full(7, 1.0), orders=4)
    partial = drives_from_table(model, {"iiwa_joint_2": {"gear_ratio": 100.0,
                                                         "torque_constant": 0.3}})
    res = api.drive_dynamics(model, partial, traj)
    assert np.isfinite(res.current[:, 1]).all() and np.isnan(res.current[:, [0, 2]]).all()
    assert np.array_equal(res.taum[:, [0, 2]], res.tau[:, [0, 2]])  # no drive: taum = tau


# -- identification ------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["iiwa14", "gripper_arm"])
@pytest.mark.parametrize("kind", elastic.MODELS)
def test_regressor_with_drives_reproduces_the_motor_torque(case, kind):
    """[Y | rotor inertias | friction] [pi; I; phi] = r eta tau_m (tau without a drive), every
    order, from the true parameters; Y_base pi_base the same."""
    path, make_drives, gravity = CASES[case]
    model = load_model(path)
    drives = with_motors(model, make_drives(model).made_rigid(), 11)
    traj = random_cosine(model, np.linspace(0, 2, 13), orders=4, seed=12)
    options = {"drives": drives, "friction": True, "armature": True}
    names, values = api.regressor_parameters(model, **options)
    assert len(names) == len(values) == 10 * model.n + 4 * int(drives.driven.sum())
    basis = api.regressor_basis(model, gravity=gravity, drive_model=kind, **options)
    Y = api.dynamic_regressor(model, traj, order=2, gravity=gravity, drive_model=kind,
                              base=basis, **options)
    res = actuators.inverse_dynamics(model, traj, drives, order=2, kind=kind, gravity=gravity)
    reta = np.where(drives.driven, drives.gear_ratio * drives.gear_efficiency, 1.0)
    for k, name in enumerate(("Y", "Y_d", "Y_dd")):
        target = reta * res.taum[:, k]
        scale = np.abs(target).max()
        assert np.allclose(Y[name] @ values, target, rtol=0, atol=1e-11 * scale), (kind, name)
        base_name = name.replace("Y", "Y_base")
        assert np.allclose(Y[base_name] @ (basis.base_map @ values), target, rtol=0,
                           atol=1e-9 * scale), (kind, base_name)
    assert basis.base_map.shape[0] < len(values)  # the first rotors regroup with link inertias


@pytest.mark.slow  # 20 000 samples, a least-squares problem of 140 000 x 70: ~3-10 s here
def test_identification_recovers_friction():
    """docs/examples/identify_iiwa.py: base parameters, rotor inertias and friction from the
    motor torques of an exciting motion; every friction parameter within 1 %."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "identify_iiwa", URDF.parent / "docs" / "examples" / "identify_iiwa.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.identify_drives()
    assert result.friction_error.max() < 0.01, result.friction_error
    assert result.prediction_error < 0.01


# -- hodyn validate --drives ---------------------------------------------------------------


def _drive_report(kind="full"):
    model = load_model(IIWA)
    traj = random_cosine(model, np.linspace(0, 2, 101), orders=5, seed=21)
    return api.validate_motion(model, traj, drives=MOTORS, drive_model=kind, samples=12,
                               methods=["body-fixed", "spatial"])


@pytest.mark.parametrize("kind", elastic.MODELS)
def test_validate_checks_the_drive_columns(kind):
    report = _drive_report(kind)
    drive = [c for c in report.checks if c.group == "drives"]
    names = {c.name for c in drive}
    assert {"taumdd vs d/dt taumd", "currentd vs d/dt current",
            "taum: zero rotor inertia vs (tau + f_J) / (r eta) + f_M"} <= names
    if kind == "full":  # (the reflected model's tau is the rigid one by construction)
        assert {"taudd: zero rotor inertia vs rigid",
                "taumdd - taudd/r: vs the rotors' joints (spatial, no friction)"} <= names
    assert report.passed, [c for c in drive if c.status == "fail"]
    assert all(c.status == "pass" for c in drive if c.name != "rotors as bodies")


def test_validate_fails_on_a_wrong_friction_rate(monkeypatch):
    real = friction.tanh_rates

    def off(x):  # the second derivative off by 1e-6 relative
        y = real(x)
        y[:, 2:3] *= 1 + 1e-6
        return y

    monkeypatch.setattr(friction, "tanh_rates", off)
    failed = {c.name for c in _drive_report().failures}
    assert failed == {"taumdd vs d/dt taumd", "currentdd vs d/dt currentd"}, failed


@pytest.mark.parametrize("kind", ["full", "reflected"])
def test_validate_fails_on_motor_friction_without_the_gear_efficiency(monkeypatch, kind):
    real = actuators.motor_friction

    def lossless(drives, qs):  # joint-side friction not divided by eta
        return real(replace(drives, gear_efficiency=np.ones(drives.driven.size)), qs)

    monkeypatch.setattr(actuators, "motor_friction", lossless)
    failed = {c.name for c in _drive_report(kind).failures}
    assert "taum: zero rotor inertia vs (tau + f_J) / (r eta) + f_M" in failed, failed


def test_validate_fails_without_the_gyroscopic_terms(monkeypatch):
    real = elastic.coupling_structure
    monkeypatch.setattr(elastic, "coupling_structure",
                        lambda model, drives: (real(model, drives)[0], np.zeros((7, 7), bool)))
    failed = {c.name.split(":")[1].strip() for c in _drive_report().failures}
    assert failed == {"vs rotors as bodies (spatial)"}, failed


def test_validate_command_with_drives(tmp_path):
    report = tmp_path / "r.json"
    result = run("validate", IIWA, SAMPLES / "iiwa14_cosine.h5", "--drives", MOTORS,
                 "--samples", 10, "--method", "body-fixed", "--report", report)
    assert result.exit_code == 0, result.output
    import json

    checks = json.loads(report.read_text())["checks"]
    # FD, zero inertia (tau, taum), rotors as bodies
    assert sum(c["group"] == "drives" for c in checks) == 6 + 3 + 1 + 6


def test_regressor_command_with_drive_columns(tmp_path):
    out = tmp_path / "Y.h5"
    result = run("regressor", IIWA, SAMPLES / "iiwa14_cosine.h5", "-o", out, "--order", 0,
                 "--drives", MOTORS, "--friction", "--model", "reflected")
    assert result.exit_code == 0, result.output
    model = load_model(IIWA)
    names, values = api.regressor_parameters(model, drives=MOTORS, friction=True)
    traj = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=3)
    reflected = api.drive_dynamics(model, MOTORS, traj, order=0, model="reflected")
    drives = read_drives(MOTORS, model)
    with h5py.File(out) as f:
        assert list(f.attrs["parameter_names"]) == names and len(names) == 70 + 21
        assert f["Y"].shape == (traj.n_samples, 7, 91)
        assert "r eta taum" in f.attrs["about_Y"] and f.attrs["drive_model"] == "reflected"
        # without --armature the rotors are neglected: Y phi = r eta taum minus the rotor terms
        rotor = drives.gear_ratio**2 * drives.gear_efficiency * drives.rotor_inertia * traj.qdd
        target = drives.gear_ratio * drives.gear_efficiency * reflected.taum - rotor
        assert np.allclose(f["Y"][()] @ values, target, rtol=0, atol=1e-10 * np.abs(target).max())
    # a drive without coulomb_velocity has no Coulomb column to identify (not tanh(v / 1))
    unsmoothed = tmp_path / "viscous.toml"
    unsmoothed.write_text("[joints.iiwa_joint_2]\ngear_ratio = 160\nviscous = 3\n")
    for args, message in ((("--friction",), "--friction / --armature goes with --drives"),
                          (("--drives", MOTORS), "--drives goes with --friction / --armature"),
                          (("--drives", unsmoothed, "--friction"),
                           "viscous.toml: joint 'iiwa_joint_2': the friction columns need its "
                           "'coulomb_velocity'")):
        out.unlink(missing_ok=True)
        result = run("regressor", IIWA, SAMPLES / "iiwa14_cosine.h5", "-o", out, *args)
        assert result.exit_code == 2 and message in result.stderr, result.output
        assert not out.exists()


def test_compute_validate_and_many_files_with_drives(tmp_path):
    out = tmp_path / "m.h5"
    result = run("compute", IIWA, SAMPLES / "iiwa14_cosine.h5", "--drives", MOTORS,
                 "--validate", "-o", out)
    assert result.exit_code == 0, result.output
    with h5py.File(out) as f:
        assert f.attrs["validation_passed"] and '"drives"' in f.attrs["validation_report"]
    result = run("compute", IIWA, SAMPLES / "iiwa14_cosine.h5", SAMPLES / "iiwa14_cosine.csv",
                 "--drives", MOTORS, "--output-dir", tmp_path / "out", "--jobs", 1)
    assert result.exit_code == 0, result.output
    with h5py.File(tmp_path / "out" / "iiwa14_cosine.h5") as f, h5py.File(out) as g:
        assert np.array_equal(f["currentdd"][()], g["currentdd"][()])


# -- hodyn check and retime with rigid drives ----------------------------------------------


@pytest.mark.parametrize("kind", elastic.MODELS)
def test_drive_laws_equal_the_drive_model_of_the_scaled_motion(kind):
    """tau..taudd, thetad, taum and current (friction on both sides, efficiencies, a wrench,
    tilted gravity) as laws in x = 1/k against the drive model of the motion played k times
    slower, for k on both sides of 1."""
    from test_scaling import played

    model = load_model(IIWA)
    drives = with_motors(model, random_drives(model, 1, oblique=(2,)).made_rigid(), 31)
    t = np.linspace(0, 2, 41)
    base = random_cosine(model, t, orders=4, seed=32)
    traj = Trajectory(base.joint_names, base.derivatives, t,
                      Wrenches({"iiwa_link_ee": wrench_motion(t, 2)}))
    gravity = (1.0, -2.0, -9.0)
    laws = api.scaling_laws(model, traj, order=2, drives=drives, model=kind, gravity=gravity)
    assert laws["taum"].friction is not None and laws["current"].friction is not None
    for k in (0.3, 0.8, 1.6, 4.0):
        ref = actuators.inverse_dynamics(model, played(traj, k), drives, order=2, kind=kind,
                                         gravity=gravity)
        pairs = [(derivative_name("tau", j), ref.tau[:, j]) for j in range(3)]
        pairs += [("taum", ref.taum[:, 0]), ("current", ref.current[:, 0]),
                  ("thetad", drives.gear_ratio * traj.qd / k)]
        for name, value in pairs:
            got = laws[name].at(1 / k)
            assert np.abs(got - value).max() <= 1e-10 * np.abs(value).max(), (kind, k, name)


def test_elastic_laws_with_rigid_drives_and_efficiency():
    """The elastic laws with two rigid drives mixed in (theta = r q to every order) and gear
    efficiencies, against the elastic model of the scaled motion; friction of an elastic
    model is an error naming the joint."""
    from test_scaling import played

    model = load_model(IIWA)
    base = random_drives(model, 1, oblique=(2,))
    table = {j: {"gear_ratio": float(base.gear_ratio[i]),
                 "rotor_inertia": float(base.rotor_inertia[i]), "gear_efficiency": 0.8}
             | ({} if i in (1, 4) else {"stiffness": float(base.stiffness[i])})
             for i, j in enumerate(model.joint_names)}
    drives = replace(drives_from_table(model, table), rotor_axis=base.rotor_axis)
    req = elastic.requirements(model, drives, 0)
    traj = random_cosine(model, np.linspace(0, 2, 9), orders=req.q_order, seed=33)
    laws = api.scaling_laws(model, traj, drives=drives)
    for k in (0.5, 2.5):
        ref = elastic.inverse_dynamics(model, played(traj, k), drives, order=0)
        for name, value in (("u", ref.u[:, 0]), ("udd", ref.u[:, 2]),
                            ("thetad", ref.theta[:, 1]), ("taum", ref.taum[:, 0])):
            got = laws[name].at(1 / k)
            assert np.abs(got - value).max() <= 1e-9 * np.abs(value).max(), (k, name)
    table["iiwa_joint_3"] |= {"viscous": 1.0}
    with pytest.raises(Exception, match="joint 'iiwa_joint_3': friction with series-elastic"):
        api.scaling_laws(model, traj, drives=table)


def _friction_law(seed: int, N: int = 30):
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(N, 3, 2)) * [0.3, 1.0]
    f = np.stack([rng.normal(size=(N, 3)), rng.uniform(0, 1, (N, 3)) * rng.choice([-1, 1], (N, 3)),
                  rng.normal(scale=30, size=(N, 3))], axis=-1)  # a x + c tanh(b x)
    return Law(0, c, ("a", "b", "c"), f), -rng.uniform(1, 3, 3), rng.uniform(1, 3, 3)


def test_friction_crossing_against_a_dense_scan():
    """Random laws c0 + c1 x^2 + a x + c tanh(b x): the earliest crossing equals the first
    violation of a scan with step 1e-4 (to that step), the law written out here."""
    xs = np.linspace(0, 10, 100001)[1:, None, None]
    for trial in range(10):
        law, lower, upper = _friction_law(trial)
        x, _ = earliest(law, lower, upper)
        (c0, c1), (a, c, b) = np.moveaxis(law.coefficients, -1, 0), np.moveaxis(law.friction, -1, 0)
        scan = np.full(lower.shape, np.inf)  # per joint, the first x of the scan beyond a limit
        for block in np.array_split(xs, 50):  # (the scan at once: 0.5 GB and 6 s of CPU)
            v = c0 + c1 * block**2 + a * block + c * np.tanh(b * block)  # (X, N, 3)
            bad = ((v < lower) | (v > upper)).any(axis=1)  # (X, 3)
            first = np.isinf(scan) & bad.any(axis=0)
            scan[first] = block[bad.argmax(axis=0), 0, 0][first]
            if np.isfinite(scan).all():  # (a later block cannot cross first)
                break
        at_rest = ((c0 < lower) | (c0 > upper)).any(axis=0)
        expect = np.where(at_rest, 0.0, scan)
        finite = np.isfinite(expect)
        assert np.all(np.abs(x[finite] - expect[finite]) <= 1.1e-4), (trial, x, expect)
        assert np.all(x[~finite] > 9.9999), (trial, x, expect)


def test_friction_crossing_is_exact_and_binding():
    law, lower, upper = _friction_law(99, 200)
    x, row = earliest(law, lower, upper)
    for j in np.flatnonzero(np.isfinite(x) & (x > 0)):
        centre, half = (lower[j] + upper[j]) / 2, (upper[j] - lower[j]) / 2
        usage = np.abs(law.at(x[j])[:, j] - centre) / half
        assert abs(usage.max() - 1) < 1e-12 and usage.argmax() == row[j], j
        assert np.abs(law.at(x[j] * (1 + 1e-6))[row[j], j] - centre) / half > 1 + 1e-9


@pytest.mark.parametrize("key, joint", [("current", "iiwa_joint_1"),
                                        ("motor_torque", "iiwa_joint_4")])
def test_retime_to_a_motor_limit_and_check_the_result(key, joint):
    """Retimed to a current or motor-torque limit (friction in both): the result passes
    check, the same motion 1e-6 faster fails it on the binding joint and quantity."""
    model = load_model(IIWA)
    traj = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    peak = np.abs(api.drive_dynamics(model, MOTORS, traj, order=0)[
        "current" if key == "current" else "taum"][:, model.joint_index(joint)]).max()
    limits = {j: {"velocity": 100.0} for j in model.joint_names} | {joint: {key: 0.8 * peak}}
    retimed, retiming, bindings = api.retime(model, traj, limits=limits, drives=MOTORS)
    k = retiming.k[0]
    assert k > 1 and bindings[0].joint == joint
    assert bindings[0].quantity == key.replace("_", " ")
    assert api.check_limits(model, retimed, limits=limits, drives=MOTORS).feasible
    faster, _, _ = api.retime(model, traj, factor=k * (1 - 1e-6))
    check = api.check_limits(model, faster, limits=limits, drives=MOTORS)
    assert not check.feasible
    assert {(r.quantity, r.joint) for r in check.rows if r.violations} == {(key, joint)}


def test_check_command_with_rigid_drives(tmp_path):
    limits = tmp_path / "limits.toml"
    limits.write_text('[joints.iiwa_joint_1]\ncurrent = 0.3\nmotor_speed = 1000\n'
                      '[joints.iiwa_joint_2]\nmotor_torque = 5\n')
    report = tmp_path / "r.json"
    result = run("check", IIWA, SAMPLES / "iiwa14_cosine.h5", "--drives", MOTORS,
                 "--limits", limits, "--report", report)
    assert result.exit_code == 1, result.output
    import json

    rows = {(r["quantity"], r["joint"]): r for r in json.loads(report.read_text())["rows"]}
    assert rows[("current", "iiwa_joint_1")]["violations"] > 0
    assert rows[("motor_speed", "iiwa_joint_1")]["violations"] == 0
    assert rows[("motor_torque", "iiwa_joint_2")]["violations"] == 0
