"""Forward simulation driven by hodyn's torques (``hodyn validate --simulate``,
``hodyn_cli.simulate``): it reproduces the motion from the exact torques and catches torques
off by 1e-5 relative."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import MIMIC_CASES, ROBOTS, SAMPLES, URDF, mimic_urdf, random_cosine, wrench_motion
from hodyn_cli.algorithms.verification import torque_checks
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.urdf import load_model
from hodyn_cli.pipeline.report import SCHEMA_PATH

runner = CliRunner()


def run(*args):
    return runner.invoke(app, ["validate", *map(str, args)])


#: the robots of the default run: the simulation's code is one for every robot; the 2R (a
#: planar chain) and the gripper arm (a tree with prismatic fingers) cover its joint kinds.
#: The iiwa (a 7-joint chain, ~4x their CPU) is in the slow run; its simulation catching
#: torques off by 1e-5 stays in the default run (tests/test_torques.py's given torques)
SIMULATED = [pytest.param(robot, marks=[pytest.mark.slow] if robot == "iiwa14" else [])
             for robot in ROBOTS]


@pytest.mark.parametrize("robot", SIMULATED)
def test_validate_simulate_passes_and_catches_torques_off_by_1e_5(monkeypatch, robot):
    """Exact torques: q, qd reproduced (~1e-11 relative); torques scaled by 1 + 1e-5 (the
    finite-difference and cross-method checks cannot see a common factor): the simulation
    checks fail, and only they."""
    from hodyn_cli.algorithms import backends

    args = (URDF / f"{robot}.urdf", SAMPLES / f"{robot}_cosine.h5", "--simulate", "--samples",
            "10", "--method", "body-fixed")
    good = torque_checks.inverse_dynamics
    made, evaluated = [], []
    kind = type(backends.current())
    make = kind.data
    monkeypatch.setattr(kind, "data", lambda self, model: made.append(model) or make(self, model))
    monkeypatch.setattr(torque_checks, "inverse_dynamics",
                        lambda *a, **k: evaluated.append(a) or good(*a, **k))
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    passed = [line for line in result.stderr.splitlines() if "reproduced by simulation" in line]
    assert len(passed) == 2 and all("PASS" in line for line in passed)
    # a Data per run (the torque checks' few, the simulation's torques', each integration's
    # forward dynamics'), not one per right-hand side the integrator evaluates (hundreds)
    assert len(made) < 10 and len(evaluated) > 100, (len(made), len(evaluated))

    def scaled(*a, **k):
        return good(*a, **k) * (1 + 1e-5)

    monkeypatch.setattr(torque_checks, "inverse_dynamics", scaled)
    result = run(*args)
    assert result.exit_code == 1, result.stderr
    failed = [line for line in result.stderr.splitlines() if "│ FAIL" in line]
    assert len(failed) == 2 and all("reproduced by simulation" in line for line in failed)


def test_reports_carry_the_simulation(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    report = tmp_path / "r.json"
    assert run(URDF / "planar_2r.urdf", SAMPLES / "planar_2r_cosine.h5", "--simulate",
               "--samples", "10", "--report", report).exit_code == 0
    data = json.loads(report.read_text())
    jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text()))
    sim = [c for c in data["checks"] if c["group"] == "simulation"]
    assert [c["status"] for c in sim] == ["pass", "pass"] and data["tolerances"]["simulation"] == 1e-8
    html = tmp_path / "r.html"
    assert run(URDF / "planar_2r.urdf", SAMPLES / "planar_2r_cosine.h5", "--simulate",
               "--samples", "10", "--report", html).exit_code == 0
    assert 'data-plots="3"' in html.read_text()  # taud, taudd and the simulation


def test_simulation_needs_time(tmp_path):
    model = load_model(URDF / "planar_2r.urdf")
    traj = read_trajectory(str(SAMPLES / "planar_2r_cosine.h5"), model, need=5)
    path = tmp_path / "no_t.h5"
    write_trajectory(str(path), Trajectory(traj.joint_names, traj.derivatives[:50]))
    result = run(URDF / "planar_2r.urdf", path, "--simulate", "--samples", "10")
    assert result.exit_code == 0
    assert any("SKIP" in line and "simulation" in line for line in result.stderr.splitlines())


@pytest.mark.parametrize("robot, link", [("iiwa14", "iiwa_link_ee"), ("gripper_arm", "tool0")])
def test_api_simulate_reproduces_the_motion_with_a_wrench(robot, link):
    """From one state, 0.25 s of motion under tau, taud, taudd (and an external wrench) at
    200 Hz: q and qd to 1e-9 relative; without taudd (cubic Hermite) still to 1e-7."""
    model = hodyn_cli.load_robot(URDF / f"{robot}.urdf")
    t = np.linspace(0, 0.25, 51)
    traj = random_cosine(model, t, orders=4, seed=43)
    W = {link: wrench_motion(t, 2)}
    tau = hodyn_cli.inverse_dynamics(model, *(traj.derivatives[:, k] for k in range(5)),
                                     wrenches=W)
    sim = hodyn_cli.simulate(model, t, traj.q[0], traj.qd[0], tau=tau.tau, taud=tau.taud,
                             taudd=tau.taudd, wrenches=W)
    for name, rtol in (("q", 1e-9), ("qd", 1e-9)):
        ref = getattr(traj, name)
        assert np.abs(sim[name] - ref).max() <= rtol * np.abs(ref).max(), name
    cubic = hodyn_cli.simulate(model, t, traj.q[0], traj.qd[0], tau=tau.tau, taud=tau.taud,
                               wrenches=W)
    assert np.abs(cubic.q - traj.q).max() <= 1e-7 * np.abs(traj.q).max()
    bare = hodyn_cli.simulate(model, t, traj.q[0], traj.qd[0], tau=tau.tau, taud=tau.taud,
                              taudd=tau.taudd)
    assert np.abs(bare.q - traj.q).max() > 1e-6  # the wrench matters


@pytest.mark.parametrize("case", MIMIC_CASES)
def test_api_simulate_with_mimic_joints(tmp_path, case):
    robot, dependent, leader, gain, offset = MIMIC_CASES[case]
    model = load_model(mimic_urdf(tmp_path, robot, dependent, leader, gain, offset))
    t = np.linspace(0, 0.2, 41)
    full = random_cosine(load_model(URDF / f"{robot}.urdf"), t, orders=4, seed=47)
    qs = full.derivatives[:, :, list(model.coordinates)]
    tau = hodyn_cli.inverse_dynamics(model, *(qs[:, k] for k in range(5)))
    sim = hodyn_cli.simulate(model, t, qs[0, 0], qs[0, 1], tau=tau.tau, taud=tau.taud,
                             taudd=tau.taudd)
    assert np.abs(sim.q - qs[:, 0]).max() <= 1e-9 * np.abs(qs[:, 0]).max()
    report = hodyn_cli.validate_motion(model, *(qs[:, k] for k in range(5)), t=t,
                                       methods=["body-fixed"], samples=10, simulate=True)
    sim_checks = [c for c in report.checks if c.group == "simulation"]
    assert [c.status for c in sim_checks] == ["pass", "pass"], sim_checks


@pytest.mark.parametrize("rate", [5, 20])
def test_exact_torques_pass_at_coarse_rates(tmp_path, rate):
    """Issue 28.4: an identification motion of the iiwa at 20 Hz (and 5 Hz) failed the
    simulation (quintic Hermite torques between the samples erred by ~2e-7); driven along
    each sample's local Taylor motion it reproduces q, qd to the integrator's error at any
    rate, and every check reports that error's bound ("expected") below the tolerance."""
    path = tmp_path / f"i{rate}.h5"
    made = runner.invoke(app, ["generate", str(URDF / "iiwa14.urdf"), "--kind", "fourier",
                               "--duration", "2", "--rate", str(rate), "-o", str(path)])
    assert made.exit_code == 0, made.stderr
    report = tmp_path / "r.json"
    result = run(URDF / "iiwa14.urdf", path, "--simulate", "--method", "body-fixed",
                 "--report", report)
    assert result.exit_code == 0, result.stderr
    sim = [c for c in json.loads(report.read_text())["checks"] if c["group"] == "simulation"]
    assert [c["status"] for c in sim] == ["pass", "pass"]
    for c in sim:   # the bound holds the observed error, far below the tolerance
        assert c["max_rel"] <= c["expected"] <= c["tolerance"] / 100, c
        assert c["tolerance"] == 1e-8


@pytest.mark.parametrize("robot", SIMULATED)
def test_the_error_bound_holds_the_error_of_exact_torques(robot):
    """The integrator's bound (the same integration at 100x the tolerances against it) is at
    least the largest error of exact torques along a cosine's Taylor motions (q and qd, the
    maxima the checks compare), and a torque off by 1e-6 relative errs by far more."""
    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
    from hodyn_cli.algorithms.verification.simulate import simulate_local

    model = load_model(URDF / f"{robot}.urdf")
    start = random_cosine(model, np.linspace(0, 3, 7), orders=4, seed=5)

    def exact(motion):
        return inverse_dynamics(model, motion, method="body-fixed", order=0)[:, 0]

    offsets = np.linspace(0.025, 0.2, 8)
    x, ref, bound = simulate_local(model, start, exact, offsets)
    for k in range(2):
        assert np.abs(x[k] - ref[k]).max() <= bound[k].max()
    x, ref, bound = simulate_local(model, start, lambda m: exact(m) * (1 + 1e-6), offsets)
    assert np.abs(x - ref).max() > 1e3 * bound.max()


def test_simulation_carries_the_wrenches():
    """The local Taylor motion carries the external wrench (its W, Wd, Wdd at the sample)
    into both the torques and the forward dynamics: exact torques pass; leaving the wrench
    out of the torques fails."""
    model = load_model(URDF / "gripper_arm.urdf")
    t = np.linspace(0, 1, 11)
    traj = random_cosine(model, t, orders=4, seed=3)
    W = {"tool0": wrench_motion(t, 3)}
    args = dict(t=t, methods=["body-fixed"], samples=5, simulate=True, wrenches=W)
    report = hodyn_cli.validate_motion(model, *(traj.derivatives[:, k] for k in range(5)),
                                       **args)
    assert [c.status for c in report.checks if c.group == "simulation"] == ["pass", "pass"]
    good = torque_checks.inverse_dynamics

    def without_wrench(model, motion, **k):
        if motion.t is None:    # along the Taylor motions: the simulation's torques only
            motion = Trajectory(motion.joint_names, motion.derivatives)
        return good(model, motion, **k)

    torque_checks.inverse_dynamics = without_wrench
    try:
        report = hodyn_cli.validate_motion(model, *(traj.derivatives[:, k] for k in range(5)),
                                           **args)
    finally:
        torque_checks.inverse_dynamics = good
    assert [c.status for c in report.checks if c.group == "simulation"] == ["fail", "fail"]


def term_by_term(x, offsets):
    """core.trajectory.taylor as it was written first: order by order, each order's terms
    added one at a time from its own (the reference for its bits)."""
    from math import factorial

    D = x.shape[1]
    out = np.zeros((x.shape[0], len(offsets)) + x.shape[1:])
    for m in range(D):
        for j in range(m, D):
            c = (offsets ** (j - m) / float(factorial(j - m))).reshape((1, -1) + (1,) * (x.ndim - 2))
            out[:, :, m] += c * x[:, None, j]
    return out


@pytest.mark.parametrize("shape", [(6, 7, 3), (4, 25, 3, 3), (5, 1, 2), (3, 0, 2)])
def test_taylor_is_the_term_by_term_sum_to_the_bit_for_any_orders_kept(shape):
    """taylor sums all orders' terms together, one numpy operation per term: the same bits as
    the order-by-order loop (each order's terms added from k = 0 up), also for a few orders
    kept (``orders``), more than the samples hold, and none; infinities and NaNs alike."""
    from hodyn_cli.core.trajectory import taylor

    rng = np.random.default_rng(11)
    x = rng.normal(size=shape) * 10.0 ** rng.integers(-8, 8, size=shape)
    if x.size:
        x.flat[[0, -1]] = np.inf, np.nan
    offsets = np.array([-0.37, 0.0, 1e-3, 2.5])
    whole = term_by_term(x, offsets)
    D = shape[1]
    for orders in (None, 0, 1, 3, D, D + 2):
        kept = whole if orders is None else whole[:, :, :orders]
        got = taylor(x, offsets, orders=orders)
        assert got.shape == kept.shape and np.array_equal(got, kept, equal_nan=True), orders


def test_the_simulation_expands_only_the_orders_it_drives_with(monkeypatch):
    """The right-hand side of validate --simulate evaluates the Taylor motion's q, qd, qdd
    and the wrench W of a file's 7 orders (not all 7 at each of the integrator's steps), and
    a floating base's local pose its R and p of the 25 terms; the same simulation, to the
    bit, as with every order expanded and the needed ones sliced off."""
    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
    from hodyn_cli.algorithms.verification import checks, simulate
    from hodyn_cli.core import trajectory

    kept = []

    def counted(x, offsets, orders=None):
        out = trajectory.taylor(x, offsets, orders)
        kept.append((x.shape[1], out.shape[2]))
        return out

    def every(x, offsets, orders=None):
        return trajectory.taylor(x, offsets)[:, :, :orders]

    model = load_model(URDF / "planar_2r.urdf")
    t = np.linspace(0, 1, 2)
    start = random_cosine(model, t, orders=6, seed=3)
    start = Trajectory(start.joint_names, start.derivatives, None,
                       trajectory.Wrenches({"tool0": wrench_motion(t, 6)}))

    def exact(motion):
        return inverse_dynamics(model, motion, method="body-fixed", order=0)[:, 0]

    offsets = np.array([0.02, 0.04])
    monkeypatch.setattr(simulate, "taylor", every)
    whole = simulate.simulate_local(model, start, exact, offsets)
    monkeypatch.setattr(simulate, "taylor", counted)
    assert all(np.array_equal(a, b) for a, b in
               zip(simulate.simulate_local(model, start, exact, offsets), whole, strict=True))
    steps = [k for k in kept if k != (7, 2)]   # (the reference q, qd at the offsets)
    assert len(steps) > 20 and set(steps) == {(7, 3), (7, 1)}, set(kept)
    kept.clear()
    monkeypatch.setattr(checks, "taylor", counted)
    rng = np.random.default_rng(2)
    R = np.linalg.qr(rng.normal(size=(2, 3, 3)))[0]
    checks.local_pose(R, rng.normal(size=(2, 3)), rng.normal(size=(2, 3, 6)), offsets)
    assert kept == [(checks.ROTATION_TERMS, 1)] * 2
