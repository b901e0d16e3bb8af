"""Forward dynamics: qdd against Pinocchio's ``aba`` (with external forces), its partials against
``computeABADerivatives`` and finite differences (mimic joints), its time derivatives along a
motion Pinocchio simulated from arbitrary torques, the round trip with the inverse dynamics,
and ``hodyn forward``."""

import re

import h5py
import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pytest
from test_free_root import BACKENDS
from typer.testing import CliRunner

import hodyn_cli
from conftest import (
    MIMIC_CASES,
    SAMPLES,
    STENCIL,
    URDF,
    massless_flange_urdf,
    mimic_urdf,
    pin_configuration,
    pinocchio_model,
    random_cosine,
    wrench_motion,
)
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.cli.app import app
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import Trajectory, Wrenches, cosine
from hodyn_cli.errors import HodynError, ModelError
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.urdf import load_model

runner = CliRunner()
LINKS = {"planar_2r": "link2", "iiwa14": "iiwa_link_4", "gripper_arm": "tool0"}


def _state(model, N: int, seed: int, link: str | None = None):
    """Random q, qd (a Trajectory, with a wrench on ``link``) and torques (N, 1, n)."""
    rng = np.random.default_rng(seed)
    traj = random_cosine(model, np.linspace(0, 3, N), orders=2, seed=seed)
    d = traj.derivatives.copy()
    d[:, 1] = rng.normal(size=d[:, 1].shape)
    W = None if link is None else Wrenches({link: wrench_motion(traj.t, 0)})
    return Trajectory(model.joint_names, d, traj.t, W), rng.normal(size=(N, 1, model.n)) * 5


def _pin_forces(pin, pm, model, link, W):
    """Pinocchio's fext for the wrench W (6,) that ``link`` exerts: the opposite, on the body,
    in its joint frame, (force; moment)."""
    frame = model.links[link]
    Wb = W @ lie.Ad_inv(frame.T[:3, :3], frame.T[:3, 3])
    forces = [pin.Force.Zero() for _ in range(pm.njoints)]
    forces[pm.getJointId(model.joint_names[frame.body])] = pin.Force(-Wb[3:], -Wb[:3])
    return forces


def test_matches_pinocchio_aba_and_its_derivatives(robot):
    """qdd = aba (1e-10 relative) with an external wrench, and d qdd / d (q, qd, tau) =
    computeABADerivatives' ddq_dq, ddq_dv, Minv."""
    name, path, model = robot
    traj, tau = _state(model, 8, 3, LINKS[name])
    res = forward_dynamics(model, traj, tau, derivatives=True)
    pin, pm, data, order = pinocchio_model(path, model)
    ix = np.ix_(order, order)
    for s in range(traj.n_samples):
        q = pin_configuration(pm, order, traj.q[s])
        v, t = traj.qd[s, order], tau[s, 0, order]
        fext = _pin_forces(pin, pm, model, LINKS[name], traj.wrenches.W[LINKS[name]][s, 0])
        a = pin.aba(pm, data, q, v, t, fext)
        assert np.abs(res.qs[s, 0, order] - a).max() <= 1e-10 * np.abs(a).max(), name
        pin.computeABADerivatives(pm, data, q, v, t, fext)
        Minv = np.triu(data.Minv) + np.triu(data.Minv, 1).T
        for key, ref in (("dqdd_dq", data.ddq_dq), ("dqdd_dqd", data.ddq_dv), ("dqdd_dtau", Minv)):
            ours = res.partials[key][s][ix]
            assert np.abs(ours - ref).max() <= 1e-10 * np.abs(ref).max(), (name, key)


def test_round_trip_with_the_inverse_dynamics(robot):
    """tau..tau''' of a cosine motion (and a wrench) give back its qdd..q^(5). The error grows
    ~30x per order on the iiwa (cond M ~ 1e4): order k's residual carries the lower orders'
    errors times M^-1 (M' + dC/dqd), a property of the problem, not of the method."""
    name, _, model = robot
    t = np.linspace(0, 3, 40)
    traj = random_cosine(model, t, orders=6, seed=7)
    traj = Trajectory(traj.joint_names, traj.derivatives, t,
                      Wrenches({LINKS[name]: wrench_motion(t, 3)}))
    tau = inverse_dynamics(model, traj, order=3)
    state = Trajectory(model.joint_names, traj.derivatives[:, :2], t, traj.wrenches)
    qs = forward_dynamics(model, state, tau).qs
    for k, rtol in enumerate((1e-11, 1e-10, 1e-8, 1e-6)):
        exact = traj.derivatives[:, k + 2]
        assert np.abs(qs[:, k] - exact).max() <= rtol * np.abs(exact).max(), (name, k)


@pytest.mark.parametrize("name", ["iiwa14", "gripper_arm"])
def test_time_derivatives_along_a_simulated_motion(name):
    """Torques that are not those of any motion of ours (a cosine motion's plus extra sines)
    drive Pinocchio's aba (DOP853, 1e-13); along the motion they make, hodyn's qdd, qddd,
    qdddd from (q, qd, tau, taud, taudd) match the 8th-order differences of qd, qdd, qddd."""
    from scipy.integrate import solve_ivp

    path = URDF / f"{name}.urdf"
    model = load_model(path)
    pin, pm, data, order = pinocchio_model(path, model)
    n = model.n
    motion = dict(amplitude=0.4, omega=np.linspace(1.0, 2.0, n), offset=0.3, orders=4)
    M0 = hodyn_cli.matrices(model, cosine(model.joint_names, [0.0], **motion)).M[0]
    w = np.linspace(1.5, 3.0, n)

    def torque(t):  # tau, taud, taudd (len(t), 3, n): extra accelerations ~0.3 w^2 at the start
        extra = 0.3 * w ** (2 + np.arange(3)[:, None]) * np.sin(
            w * np.asarray(t)[:, None, None] + np.arange(3)[:, None] * np.pi / 2)
        return inverse_dynamics(model, cosine(model.joint_names, t, **motion), order=2) + extra @ M0

    def rhs(t, x):
        a = np.empty(n)
        a[order] = pin.aba(pm, data, pin_configuration(pm, order, x[:n]), x[n:][order],
                           torque([t])[0, 0, order])
        return np.concatenate([x[n:], a])

    H = 0.003  # the motion gets fast (qdddd ~ 400): 8th-order truncation (H omega)^8 ~ 1e-12
    times = 0.3 + np.arange(-4, 5) * H
    start = cosine(model.joint_names, [0.0], **motion)
    sol = solve_ivp(rhs, (0, times[-1]), np.concatenate([start.q[0], start.qd[0]]),
                    method="DOP853", rtol=1e-13, atol=1e-13, t_eval=times)
    assert sol.success
    state = Trajectory(model.joint_names, np.stack([sol.y[:n].T, sol.y[n:].T], axis=1))
    qs = forward_dynamics(model, state, torque(times)).qs
    away = np.abs(state.q - cosine(model.joint_names, times, **motion).q).max()
    assert away > 1e-3, "the extra torques moved the arm off the cosine motion"
    rates = [state.qd] + [qs[:, k] for k in range(2)]  # qdd: the simulation's own qd' too
    for k in range(3):
        numeric = STENCIL @ rates[k] / H
        assert np.abs(qs[4, k] - numeric).max() <= 1e-9 * np.abs(qs[4, k]).max(), (name, k)


@pytest.mark.parametrize("case", MIMIC_CASES)
def test_mimic_joints_and_partials_by_finite_differences(tmp_path, case):
    """With a mimic joint: the round trip in the independent coordinates, and the partials
    against the 8th-order differences of ``hodyn_cli.forward_dynamics`` itself."""
    robot, dependent, leader, gain, offset = MIMIC_CASES[case]
    model = load_model(mimic_urdf(tmp_path, robot, dependent, leader, gain, offset))
    m = len(model.coordinates)
    traj = random_cosine(load_model(URDF / f"{robot}.urdf"), np.linspace(0, 2, 4), orders=4,
                         seed=41)
    q, qd, qdd, qddd = (traj.derivatives[:, k, list(model.coordinates)] for k in range(4))
    tau = hodyn_cli.inverse_dynamics(model, q, qd, qdd, qddd, order=1)
    res = hodyn_cli.forward_dynamics(model, q, qd, tau=tau.tau, taud=tau.taud, partials=True)
    assert np.abs(res.qdd - qdd).max() <= 1e-11 * np.abs(qdd).max()
    assert np.abs(res.qddd - qddd).max() <= 1e-9 * np.abs(qddd).max()
    h = 1e-3
    for key, moved in (("dqdd_dq", "q"), ("dqdd_dqd", "qd"), ("dqdd_dtau", "tau")):
        columns = []
        for c in range(m):
            steps = []
            for k in range(-4, 5):
                x = {"q": q, "qd": qd, "tau": tau.tau} | {moved: {"q": q, "qd": qd, "tau": tau.tau}[
                    moved] + k * h * np.eye(m)[c]}
                steps.append(hodyn_cli.forward_dynamics(model, x["q"], x["qd"], tau=x["tau"]).qdd)
            columns.append(np.tensordot(STENCIL, np.stack(steps), axes=(0, 0)) / h)
        numeric = np.stack(columns, axis=-1)
        assert np.abs(res[key] - numeric).max() <= 1e-7 * np.abs(numeric).max(), (case, key)


def test_api_errors():
    robot = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    with pytest.raises(HodynError, match="no torques"):
        hodyn_cli.forward_dynamics(robot, [0, 0], [0, 0])
    with pytest.raises(HodynError, match="'taudd' given without taud"):
        hodyn_cli.forward_dynamics(robot, [0, 0], [0, 0], tau=[1, 1], taudd=[0, 0])
    with pytest.raises(HodynError, match=r"tau: expected shape \(N, 2\)"):
        hodyn_cli.forward_dynamics(robot, [0, 0], [0, 0], tau=[1, 1, 1])
    with pytest.raises(HodynError, match="unknown argument 'tauu'"):
        hodyn_cli.forward_dynamics(robot, [0, 0], [0, 0], tau=[1, 1], tauu=[0, 0])
    one = hodyn_cli.forward_dynamics(robot, [0, 0], [0, 0], tau=[10.2024, 2.3544])
    assert one.qdd.shape == (2,) and np.abs(one.qdd).max() < 1e-12  # holding its weight


def _merged(tmp_path, name: str, order: int) -> str:
    """The sample trajectory's t, q, qd and hodyn compute's tau.. as one CSV."""
    tau = tmp_path / "tau.csv"
    result = runner.invoke(app, ["compute", str(URDF / f"{name}.urdf"),
                                 str(SAMPLES / f"{name}_cosine.csv"), "-o", str(tau),
                                 "--order", str(order)])
    assert result.exit_code == 0, result.stderr
    traj, torques = pcsv.read_csv(SAMPLES / f"{name}_cosine.csv"), pcsv.read_csv(tau)
    columns = {c: traj.column(c) for c in traj.column_names if c.split("_")[0] in ("t", "q", "qd")}
    columns |= {c: torques.column(c) for c in torques.column_names if c != "t"}
    path = tmp_path / "in.csv"
    pcsv.write_csv(pa.table(columns), path)
    return str(path)


def test_cli_round_trip(tmp_path):
    """forward(compute(q)) = qdd, qddd, qdddd of the file, CSV in and out; the order follows
    the tau columns."""
    source = _merged(tmp_path, "gripper_arm", 2)
    out = tmp_path / "qdd.csv"
    result = runner.invoke(app, ["forward", str(URDF / "gripper_arm.urdf"), source, "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    model = load_model(URDF / "gripper_arm.urdf")
    got = pcsv.read_csv(out)
    assert got.column_names[0] == "t" and got.column_names[-1] == "qdddd_" + model.joint_names[-1]
    exact = read_trajectory(str(SAMPLES / "gripper_arm_cosine.h5"), model, need=5)
    for k, rtol in ((2, 1e-11), (3, 1e-10), (4, 1e-8)):
        name = "q" + "d" * k
        values = np.stack([got.column(f"{name}_{j}").to_numpy() for j in model.joint_names], 1)
        ref = exact.derivatives[:, k]
        assert np.abs(values - ref).max() <= rtol * np.abs(ref).max(), name


def test_cli_hdf5_partials_and_errors(tmp_path):
    source = _merged(tmp_path, "planar_2r", 0)
    robot = str(URDF / "planar_2r.urdf")
    out = tmp_path / "f.h5"
    result = runner.invoke(app, ["forward", robot, source, "-o", str(out), "--derivatives"])
    assert result.exit_code == 0, result.stderr
    with h5py.File(out) as f:
        assert {k: f[k].shape for k in f} == {"t": (501,), "qdd": (501, 2), "dqdd_dq": (501, 2, 2),
                                              "dqdd_dqd": (501, 2, 2), "dqdd_dtau": (501, 2, 2)}
        M = hodyn_cli.matrices(hodyn_cli.load_robot(robot), read_trajectory(
            str(SAMPLES / "planar_2r_cosine.h5"), load_model(robot), need=3)).M
        assert np.allclose(f["dqdd_dtau"][:] @ M, np.eye(2), rtol=0, atol=1e-12)
    # HDF5 input: datasets tau, taud next to q, qd
    h5 = tmp_path / "in.h5"
    exact = read_trajectory(str(SAMPLES / "planar_2r_cosine.h5"), load_model(robot), need=5)
    tau = inverse_dynamics(load_model(robot), exact, order=1)
    with h5py.File(h5, "w") as f:
        f.attrs["joint_names"] = list(exact.joint_names)
        f["t"], f["q"], f["qd"], f["tau"], f["taud"] = exact.t, exact.q, exact.qd, tau[:, 0], tau[:, 1]
    result = runner.invoke(app, ["forward", robot, str(h5), "-o", str(tmp_path / "g.h5")])
    assert result.exit_code == 0, result.stderr
    with h5py.File(tmp_path / "g.h5") as f:
        assert np.abs(f["qddd"][:] - exact.qddd).max() <= 1e-10 * np.abs(exact.qddd).max()
    for args, message in (
            ([source, "-o", str(tmp_path / "x.csv"), "--derivatives"], "HDF5"),
            ([source, "-o", str(tmp_path / "x.csv"), "--order", "1"], "taud_joint1"),
            ([str(SAMPLES / "planar_2r_cosine.csv"), "-o", str(tmp_path / "x.csv")], "tau_joint1")):
        result = runner.invoke(app, ["forward", robot, *args])
        assert result.exit_code == 2 and message in result.stderr, result.stderr
        assert not (tmp_path / "x.csv").exists()


def test_cli_stdin_gives_qdd(tmp_path):
    source = _merged(tmp_path, "planar_2r", 1)
    result = runner.invoke(app, ["forward", str(URDF / "planar_2r.urdf"), "-"],
                           input=open(source).read())
    assert result.exit_code == 0, result.stderr
    header = result.stdout.splitlines()[0]
    assert header == "t,qdd_joint1,qdd_joint2"  # stdin: order 0 unless --order


def test_cli_wrench_columns_limit_the_order(tmp_path):
    """W without Wd: qddd would need Wd, so the default order is 0; the wrench counts."""
    robot = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    exact = read_trajectory(str(SAMPLES / "planar_2r_cosine.h5"), robot, need=5)
    W = wrench_motion(exact.t, 1)
    traj = Trajectory(exact.joint_names, exact.derivatives, exact.t, Wrenches({"link2": W}))
    tau = inverse_dynamics(robot, traj, order=1)
    columns = {"t": exact.t} | {f"{name}_{j}": x[:, c] for name, x in (
        ("q", exact.q), ("qd", exact.qd), ("tau", tau[:, 0]), ("taud", tau[:, 1]))
        for c, j in enumerate(robot.joint_names)}
    columns |= {f"W_link2_{c}": W[:, 0, k] for k, c in enumerate(("mx", "my", "mz", "fx", "fy",
                                                                   "fz"))}
    path = tmp_path / "in.csv"
    pcsv.write_csv(pa.table(columns), path)
    result = runner.invoke(app, ["forward", str(URDF / "planar_2r.urdf"), str(path), "-o",
                                 str(tmp_path / "out.csv")])
    assert result.exit_code == 0, result.stderr
    got = pcsv.read_csv(tmp_path / "out.csv")
    assert got.column_names == ["t", "qdd_joint1", "qdd_joint2"]
    qdd = np.stack([got.column(f"qdd_{j}").to_numpy() for j in robot.joint_names], 1)
    assert np.abs(qdd - exact.qdd).max() <= 1e-11 * np.abs(exact.qdd).max()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_joint_that_moves_no_inertia_is_refused_in_one_line(tmp_path, backend):
    """A fixed-base arm whose massless flange turns on a joint of its own has a singular M
    at every state: ``forward`` refused it only with --floating-base and wrote
    numpy's LinAlgError (exit 3) or Cholesky's ~1e30 otherwise. Now the API raises, and the
    command line exits 2 with one line naming the robot's file and the joint, the existing
    output untouched, on both backends; with the flange given mass the same state solves,
    to the inverse dynamics' torques."""
    path = massless_flange_urdf(tmp_path)
    robot = hodyn_cli.load_robot(path)
    traj, tau = _state(robot, 5, seed=4)
    q, qd = traj.derivatives[:, 0], traj.derivatives[:, 1]
    with backends.use(backend), pytest.raises(ModelError, match=(
            r"^forward dynamics: the mass matrix is singular \(eigenvalues .*\): tool_joint "
            r"moves no inertia \(M_jj = 0\)$")):
        hodyn_cli.forward_dynamics(robot, q, qd, tau=tau[:, 0])
    names = robot.joint_names
    columns = {"t": traj.t} | {f"{x}_{j}": v[:, i] for x, v in (("q", q), ("qd", qd),
                                                                 ("tau", tau[:, 0]))
                               for i, j in enumerate(names)}
    source, out = tmp_path / "in.csv", tmp_path / "out.csv"
    pcsv.write_csv(pa.table(columns), source)
    out.write_text("kept\n")
    result = runner.invoke(app, ["forward", str(path), str(source), "-o", str(out),
                                 "--backend", backend])
    assert result.exit_code == 2, result.output
    assert re.fullmatch(f"hodyn: error: {re.escape(str(path))}: forward dynamics: the mass "
                        r"matrix is singular \(eigenvalues \S+ \.\. \S+\): tool_joint moves "
                        r"no inertia \(M_jj = 0\)\n", result.stderr), result.stderr
    assert out.read_text() == "kept\n"
    massive = tmp_path / "massive.urdf"
    massive.write_text(path.read_text().replace('<link name="tool0"/>', (
        '<link name="tool0"><inertial><mass value="0.1"/><inertia ixx="1e-3" ixy="0" ixz="0" '
        'iyy="1e-3" iyz="0" izz="1e-3"/></inertial></link>')))
    robot = hodyn_cli.load_robot(massive)
    with backends.use(backend):
        qdd = hodyn_cli.forward_dynamics(robot, q, qd, tau=tau[:, 0]).qdd
        back = inverse_dynamics(robot, Trajectory(names, np.stack([q, qd, qdd], 1)), order=0)
    assert np.abs(back[:, 0] - tau[:, 0]).max() <= 1e-10 * np.abs(tau).max()
