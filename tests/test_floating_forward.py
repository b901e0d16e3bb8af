"""Forward dynamics of a floating base through the free root joint (``hodyn forward
--floating-base``, ``api.forward_dynamics`` of a Trajectory with a base): Pinocchio's free-flyer
``aba`` on public quadrupeds, the round trip with ``compute --floating-base``'s torques and base
wrench (API and command line, orders 0-2, both backends, mimic joints, a single free body),
free fall, and the one-line refusals (a missing base column, --derivatives)."""

from dataclasses import replace

import numpy as np
import pytest
from test_free_body import example_robot
from test_free_root import BACKENDS, _moving
from typer.testing import CliRunner

from conftest import LINEAR_FIRST, MIMIC_CASES, URDF, free_flyer_q, mimic_urdf, pinocchio_free_flyer
from hodyn_cli import api
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
from hodyn_cli.cli.app import app
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import BaseMotion, Trajectory, Wrenches
from hodyn_cli.errors import HodynError
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.urdf import load_model

runner = CliRunner()
QUADRUPEDS = {"solo12": example_robot("solo_description/robots/solo12.urdf"),
              "anymal_c": example_robot("anymal_c_simple_description/urdf/anymal.urdf"),
              "go2": example_robot("go2_description/urdf/go2.urdf")}
TWIST = ("wx", "wy", "wz", "vx", "vy", "vz")


def _state(model, N: int, seed: int) -> tuple[Trajectory, np.ndarray]:
    """Random joint positions and rates, root pose and body twist (a Trajectory of q, qd
    with its base, the root pushed and a leaf pulled) and random joint torques (N, 1, n)."""
    rng = np.random.default_rng(seed)
    base = BaseMotion(lie.rotation_vector_exp(rng.normal(size=(N, 3))), rng.normal(size=(N, 3)),
                      rng.normal(size=(N, 1, 6)))
    W = Wrenches({model.root_link: rng.normal(size=(N, 1, 6)) * 5,
                  model.link_names[-1]: rng.normal(size=(N, 1, 6))})
    traj = Trajectory(model.joint_names, rng.normal(size=(N, 2, model.n)), None, W, base=base)
    return traj, rng.normal(size=(N, 1, model.n)) * 5


def _pin_force(pin, pm, model, link: str, W: np.ndarray):
    """(joint id, Pinocchio's fext) of the wrench W (6,) that ``link`` exerts: the opposite,
    on its body, in its joint's frame (the free flyer's for the root link), (force; moment)."""
    frame = model.links[link]
    Wb = W @ lie.Ad_inv(frame.T[:3, :3], frame.T[:3, 3])
    joint = 1 if frame.body < 0 else pm.getJointId(model.joint_names[frame.body])
    return joint, pin.Force(-Wb[3:], -Wb[:3])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(QUADRUPEDS))
def test_floating_forward_is_pinocchio_free_flyer_aba(name, backend):
    """(base_Vbd; qdd) = Pinocchio's ``aba`` with a free-flyer root whose joint is unactuated
    (zero torque), at random states, root poses and twists, with wrenches on the root link
    and a leaf, to 1e-10 relative: numpy's joint-model passes and the compiled backend's
    floating-base closed form (M and the bias of the carried robot)."""
    path = QUADRUPEDS[name]
    if path is None:
        pytest.skip("example-robot-data is not installed")
    model = load_model(path)
    traj, tau = _state(model, 4, seed=11)
    with backends.use(backend):
        res = api.forward_dynamics(model, traj, tau=tau[:, 0])
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    base = traj.base
    for s in range(traj.n_samples):
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], traj.q[s])
        v = np.concatenate([base.Vb[s, 0, LINEAR_FIRST], traj.qd[s, order]])
        fext = [pin.Force.Zero() for _ in range(pm.njoints)]
        for link, W in traj.wrenches.W.items():
            joint, force = _pin_force(pin, pm, model, link, W[s, 0])
            fext[joint] += force
        a = pin.aba(pm, data, q, v, np.concatenate([np.zeros(6), tau[s, 0, order]]), fext)
        ours = np.concatenate([res.base_Vbd[s, LINEAR_FIRST], res.qdd[s, order]])
        assert np.abs(ours - a).max() <= 1e-10 * np.abs(a).max(), (name, s)


@pytest.mark.parametrize("backend", BACKENDS)
def test_round_trip_with_the_floating_inverse_dynamics(backend):
    """compute --floating-base's tau, taud, taudd with its base wrench W, Wd, Wdd on the root
    link (what the supports took, now the root's own external wrench) give back qdd, qddd,
    qdddd and base_Vbd, base_Vbdd, base_Vbddd of the motion; a leaf's wrench too."""
    robot = load_model(URDF / "quadruped.urdf")
    traj = _moving(robot, 6, seed=8)
    rng = np.random.default_rng(3)
    traj = replace(traj, base=replace(traj.base, Vb=np.concatenate(
        [traj.base.Vb, rng.normal(size=(6, 1, 6))], axis=1)),
                   wrenches=Wrenches({robot.link_names[-1]: rng.normal(size=(6, 3, 6))}))
    traj = replace(traj, derivatives=np.concatenate([traj.derivatives, rng.normal(
        size=(6, 1, robot.n))], axis=1))   # q..qdddd: taudd's
    with backends.use(backend):
        ref = api.inverse_dynamics(robot, traj, order=2, base_wrench=True)
        W = np.stack([ref.W, ref.Wd, ref.Wdd], axis=1)
        state = replace(traj, derivatives=traj.derivatives[:, :2], wrenches=Wrenches(
            traj.wrenches.W | {robot.root_link: W}))
        res = api.forward_dynamics(robot, state, tau=ref.tau, taud=ref.taud, taudd=ref.taudd)
    for k, rtol in enumerate((1e-11, 1e-10, 1e-9)):
        for ours, exact in ((res[f"q{'d' * (k + 2)}"], traj.derivatives[:, k + 2]),
                            (res[f"base_Vb{'d' * (k + 1)}"], traj.base.Vb[:, k + 1])):
            assert np.abs(ours - exact).max() <= rtol * np.abs(exact).max(), (backend, k)
    with pytest.raises(HodynError, match="for a fixed root only"):   # (the algorithm's own)
        forward_dynamics(robot, state, ref.tau[:, None], derivatives=True)


def test_round_trip_with_mimic_joints(tmp_path):
    """With a mimic joint (iiwa joint 3 = 0.2 - 0.5 joint 1) the floating base's forward
    dynamics solves over the root's twist and the independent joints (``G' = diag(I_6,
    G)``): compute's tau and base wrench give back qdd, qddd and the base's twist rates."""
    robot, dependent, leader, gain, offset = MIMIC_CASES["iiwa 3 follows 1"]
    model = load_model(mimic_urdf(tmp_path, robot, dependent, leader, gain, offset))
    full = _moving(load_model(URDF / f"{robot}.urdf"), 5, seed=4)
    traj = replace(full, joint_names=model.coordinate_names,
                   derivatives=full.derivatives[:, :, list(model.coordinates)])
    ref = api.inverse_dynamics(model, traj, order=1, base_wrench=True)
    state = replace(traj, derivatives=traj.derivatives[:, :2], wrenches=Wrenches(
        {model.root_link: np.stack([ref.W, ref.Wd], axis=1)}))
    res = api.forward_dynamics(model, state, tau=ref.tau, taud=ref.taud)
    for ours, exact in ((res.qdd, traj.qdd), (res.qddd, traj.qddd),
                        (res.base_Vbd, traj.base.Vb[:, 1]), (res.base_Vbdd, traj.base.Vb[:, 2])):
        assert np.abs(ours - exact).max() <= 1e-10 * np.abs(exact).max()


def test_a_robot_at_rest_with_no_torque_falls_freely():
    """At rest and unloaded, every body falls with gravity: no joint accelerates (qdd = 0)
    and the root's body-twist rate is gravity in the root frame, ``(0; R^T g)``, its next
    rate 0 (Newton's first law in the falling frame), at any root pose."""
    robot = load_model(URDF / "quadruped.urdf")
    traj, _ = _state(robot, 3, seed=5)
    rest = replace(traj, derivatives=traj.derivatives * [[1.0], [0.0]], wrenches=None,
                   base=replace(traj.base, Vb=np.zeros_like(traj.base.Vb)))
    res = api.forward_dynamics(robot, rest, tau=np.zeros((3, robot.n)),
                               taud=np.zeros((3, robot.n)), gravity=(0.3, -1.0, -9.81))
    g = np.einsum("sji,j->si", rest.base.R, [0.3, -1.0, -9.81])
    assert np.abs(res.qdd).max() <= 1e-12 and np.abs(res.base_Vbd[:, :3]).max() <= 1e-12
    assert np.abs(res.base_Vbd[:, 3:] - g).max() <= 1e-12
    assert np.abs(res.qddd).max() <= 1e-11 and np.abs(res.base_Vbdd).max() <= 1e-11


def _csv(path) -> dict[str, np.ndarray]:
    names = path.read_text().splitlines()[0].split(",")
    return dict(zip(names, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2).T, strict=True))


def test_cli_round_trip_of_compute_floating_base(tmp_path):
    """``compute --floating-base --base-wrench --order 1``'s columns (tau, taud and the base
    wrench W_<root>, Wd_<root>: the root's external wrench to forward) next to the motion's
    q, qd and base_ columns: ``forward --floating-base`` writes the motion's qdd, qddd and
    base_Vbd, base_Vbdd to 1e-9 (CSV); a missing base column and --derivatives are one
    line, nothing written."""
    robot_path = URDF / "quadruped.urdf"
    robot = load_model(robot_path)
    traj = _moving(robot, 7, seed=12)
    write_trajectory(str(tmp_path / "motion.csv"), traj, model=robot)
    result = runner.invoke(app, ["compute", str(robot_path), str(tmp_path / "motion.csv"),
                                 "--floating-base", "--base-wrench", "--order", "1", "-o",
                                 str(tmp_path / "tau.csv")])
    assert result.exit_code == 0, result.output
    motion, torques = _csv(tmp_path / "motion.csv"), _csv(tmp_path / "tau.csv")
    keep = {k: v for k, v in motion.items() if k.split("_")[0] in ("t", "q", "qd")
            or k.startswith(("base_p", "base_R", "base_Vb_"))}
    columns = keep | {k: v for k, v in torques.items() if k != "t"}
    np.savetxt(tmp_path / "in.csv", np.column_stack(list(columns.values())), delimiter=",",
               header=",".join(columns), comments="", fmt="%.17g")
    out = tmp_path / "out.csv"
    result = runner.invoke(app, ["forward", str(robot_path), str(tmp_path / "in.csv"),
                                 "--floating-base", "-o", str(out)])
    assert result.exit_code == 0, result.output
    got = _csv(out)
    assert list(got)[-1] == "base_Vbdd_vz"
    for k, name in ((2, "qdd"), (3, "qddd")):
        ours = np.column_stack([got[f"{name}_{j}"] for j in robot.joint_names])
        exact = traj.derivatives[:, k]
        assert np.abs(ours - exact).max() <= 1e-9 * np.abs(exact).max(), name
    for k, name in ((1, "base_Vbd"), (2, "base_Vbdd")):
        ours = np.column_stack([got[f"{name}_{c}"] for c in TWIST])
        exact = traj.base.Vb[:, k]
        assert np.abs(ours - exact).max() <= 1e-9 * np.abs(exact).max(), name
    del columns["base_Vb_vz"]
    np.savetxt(tmp_path / "bad.csv", np.column_stack(list(columns.values())), delimiter=",",
               header=",".join(columns), comments="", fmt="%.17g")
    for args, message in (([str(tmp_path / "bad.csv")], "base_Vb_vz"),
                          ([str(tmp_path / "in.csv"), "--derivatives"],
                           "--floating-base does not go with --derivatives yet")):
        result = runner.invoke(app, ["forward", str(robot_path), *args, "--floating-base",
                                     "-o", str(tmp_path / "x.h5")])
        assert result.exit_code == 2 and message in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1 and not (tmp_path / "x.h5").exists()


def test_a_single_free_body_round_trip():
    """A robot with no joint (a single rigid body: tau of N x 0) under its weight and the
    wrench compute --floating-base --base-wrench says its supports take: forward gives back
    its body twist's rates Vbd, Vbdd; without the wrench it falls, ``Vbd = (0; R^T g)`` for a
    body at rest."""
    body = load_model(URDF / "free_body.urdf")
    rng = np.random.default_rng(6)
    base = BaseMotion(lie.rotation_vector_exp(rng.normal(size=(3, 3))), rng.normal(size=(3, 3)),
                      rng.normal(size=(3, 3, 6)))
    flight = Trajectory((), np.zeros((3, 4, 0)), base=base)
    ref = api.inverse_dynamics(body, flight, order=1, base_wrench=True)
    state = replace(flight, derivatives=flight.derivatives[:, :2],
                    wrenches=Wrenches({body.root_link: np.stack([ref.W, ref.Wd], axis=1)}))
    res = api.forward_dynamics(body, state, tau=np.zeros((3, 0)), taud=np.zeros((3, 0)))
    for k in (1, 2):
        exact = base.Vb[:, k]
        assert np.abs(res[f"base_Vb{'d' * k}"] - exact).max() <= 1e-12 * np.abs(exact).max()
    rest = replace(state, wrenches=None, base=replace(base, Vb=np.zeros_like(base.Vb)))
    fall = api.forward_dynamics(body, rest, tau=np.zeros((3, 0))).base_Vbd
    g = np.einsum("sji,j->si", base.R, [0.0, 0.0, -9.81])
    assert np.abs(fall - np.concatenate([np.zeros((3, 3)), g], axis=1)).max() <= 1e-12


def test_series_orders_refuses_a_model_without_joints():
    """Counting per-joint series on a jointless model would loop forever (every order is
    vacuously complete): it is a ValueError instead."""
    from hodyn_cli.io.columns import series_orders

    with pytest.raises(ValueError, match="without joints"):
        series_orders(["tau_x"], "tau", load_model(URDF / "free_body.urdf"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_massless_root_on_one_joint_is_refused_not_solved(tmp_path, backend):
    """The iiwa's root link ``iiwa_link_0`` has no mass and carries one revolute joint: as a
    free body its turn about that axis and the joint's are one motion (the 13 x 13 mass matrix
    is singular), so no torque gives a unique qdd. The forward dynamics refuses it in one
    line naming the root link (exit 2, nothing written) on both backends, instead of Cholesky
    through a zero pivot (qdd ~1e31, compiled) or numpy's LinAlgError (exit 3)."""
    path = URDF / "iiwa14.urdf"
    robot = load_model(path)
    traj, tau = _state(robot, 3, seed=9)
    with backends.use(backend), pytest.raises(HodynError, match="'iiwa_link_0' has no mass"):
        api.forward_dynamics(robot, traj, tau=tau[:, 0])
    traj = replace(traj, wrenches=None, t=np.arange(3) * 0.1)
    write_trajectory(str(tmp_path / "motion.csv"), traj, model=robot)
    motion = _csv(tmp_path / "motion.csv")
    columns = motion | {f"tau_{j}": tau[:, 0, i] for i, j in enumerate(robot.joint_names)}
    np.savetxt(tmp_path / "in.csv", np.column_stack(list(columns.values())), delimiter=",",
               header=",".join(columns), comments="", fmt="%.17g")
    result = runner.invoke(app, ["forward", str(path), str(tmp_path / "in.csv"),
                                 "--floating-base", "--backend", backend, "-q", "-o",
                                 str(tmp_path / "out.csv")])
    assert result.exit_code == 2, result.output
    assert "'iiwa_link_0' has no mass" in result.stderr and result.stderr.count("\n") == 1
    assert not (tmp_path / "out.csv").exists()


def test_an_overflow_names_the_input_that_caused_it(tmp_path):
    """A sample whose root twist or torque is too large for float64 makes qdd overflow: the
    one line names that column (``base_Vb_wx``, ``tau_FL_KFE``), the largest input at that
    sample, not the largest joint value (the state q, qd was all it looked at)."""
    robot_path = URDF / "quadruped.urdf"
    robot = load_model(robot_path)
    traj, tau = _state(robot, 4, seed=3)
    traj = replace(traj, wrenches=None, t=np.arange(4) * 0.1)
    write_trajectory(str(tmp_path / "motion.csv"), traj, model=robot)
    columns = _csv(tmp_path / "motion.csv") | {f"tau_{j}": tau[:, 0, i].copy()
                                               for i, j in enumerate(robot.joint_names)}
    for column in ("base_Vb_wx", "tau_FL_KFE"):
        bad = {k: v.copy() for k, v in columns.items()}
        bad[column][2] = 1e308
        np.savetxt(tmp_path / "in.csv", np.column_stack(list(bad.values())), delimiter=",",
                   header=",".join(bad), comments="", fmt="%.17g")
        result = runner.invoke(app, ["forward", str(robot_path), str(tmp_path / "in.csv"),
                                     "--floating-base", "-q", "-o", str(tmp_path / "out.csv")])
        assert result.exit_code == 2 and "overflows float64 at t = 0.2 s" in result.stderr
        assert f"(the largest, {column} = 1e+308)" in result.stderr, result.stderr
        assert not (tmp_path / "out.csv").exists()
