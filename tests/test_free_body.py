"""A robot with no joint: a single rigid body, which moves only as a free body (--floating-base).

References: Pinocchio with only a free-flyer root joint (``rnea``, ``crba``,
``nonLinearEffects``, ``computeGeneralizedGravity``, ``computeJointTorqueRegressor``) to
1e-10; 8th-order finite differences of every order along analytic motions; the same body
carried by a driven chain of 6 massless joints in a fixed-base model, and the same body with a
massless link on a revolute joint (every order); every backend against numpy's; the files
it reads and writes; the command line on urdf/free_body.urdf (two links welded, the centre of
mass off the root frame's origin, axes not principal) and on example-robot-data's
quadrotor_base.urdf (where installed), and what is refused, one line each.
"""

import dataclasses
import importlib.metadata
import json
from pathlib import Path

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import (
    LINEAR_FIRST,
    URDF,
    assert_rates,
    floating_motion,
    free_flyer_q,
    hodyn_here,
    pinocchio_free_flyer,
    reference,
    stencil_times,
)
from hodyn_cli import api
from hodyn_cli.algorithms.dynamics import regressor
from hodyn_cli.algorithms.dynamics.floating import inverse_dynamics, matrices
from hodyn_cli.algorithms.dynamics.methods import joint_wrenches
from hodyn_cli.cli.app import app
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import BaseMotion, Trajectory
from hodyn_cli.errors import HodynError, ModelError, TrajectoryError
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.urdf import load_model, parse_model

H = 0.01
FREE = URDF / "free_body.urdf"


def example_robot(name: str) -> Path | None:
    """A URDF of example-robot-data (``hector_description/robots/quadrotor_base.urdf``), or
    None where the package is not installed."""
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")) / name
    return path if path.exists() else None


QUADROTOR = example_robot("hector_description/robots/quadrotor_base.urdf")
IRIS = example_robot("iris_description/robots/iris_simple.urdf")
needs_erd = pytest.mark.skipif(QUADROTOR is None, reason="example-robot-data is not installed")


@pytest.fixture(scope="module", params=["free_body", "quadrotor_base"])
def body(request):
    """(name, URDF text, path, model) of the bundled two-link body and the quadrotor."""
    path = FREE if request.param == "free_body" else QUADROTOR
    if path is None:
        pytest.skip("example-robot-data is not installed")
    return request.param, path.read_text(), path, load_model(path)


def random_base(N: int, orders: int, seed: int) -> BaseMotion:
    rng = np.random.default_rng(seed)
    R = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                  for a in rng.normal(size=(N, 3))])
    return BaseMotion(R, rng.normal(size=(N, 3)), rng.normal(size=(N, orders, 6)))


def flight(model, base: BaseMotion, t=None, wrenches=None) -> Trajectory:
    """The trajectory of a robot without joints: no joint values, the root's motion."""
    N = base.n_samples
    return Trajectory((), np.zeros((N, 1, 0)), t, wrenches, base=base)


def test_a_urdf_without_moving_joints_is_one_rigid_body():
    model = load_model(FREE)
    assert model.n == 0 and model.joint_names == () and model.root_link == "hull"
    assert model.B.shape == (0, 4, 4) and model.inertias.shape == (0, 6, 6)
    assert {link: f.body for link, f in model.links.items()} == {"hull": -1, "battery": -1}
    assert model.root_inertia[3, 3] == pytest.approx(2.5)
    notice = [d.message for d in model.diagnostics if d.level == "notice"]
    assert notice == ["the robot has no moving joint: root link 'hull' and the links welded to "
                      "it are a single rigid body of 2.5 kg, which moves only as a free body "
                      "(--floating-base)"]
    dataclasses.replace(model)  # its invariants hold on a copy
    with pytest.raises(ModelError, match="B must be an array of shape"):
        dataclasses.replace(model, B=np.zeros((1, 4, 4)))
    for path, mass in ((QUADROTOR, 1.477), (IRIS, 1.535)):
        if path is not None:  # example-robot-data's: one link; six links welded together
            other = load_model(path)
            assert other.n == 0 and other.root_inertia[3, 3] == pytest.approx(mass)


def test_the_base_wrench_is_pinocchios_free_flyer_rnea(body, method):
    """Order 0 at random poses and twists: ``W = -rnea`` of the model whose only joint is the
    free flyer, in hodyn's (moment; force) order; no joint torques."""
    _, _, path, model = body
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    assert pm.njoints == 2 and pm.nv == 6
    base = random_base(8, 2, seed=3)
    tau, W = inverse_dynamics(model, flight(model, base), method=method, order=0)
    ref = np.empty((8, 6))
    for s in range(8):
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], np.zeros(0))
        ref[s, LINEAR_FIRST] = -pin.rnea(pm, data, q, base.Vb[s, 0][LINEAR_FIRST],
                                         base.Vb[s, 1][LINEAR_FIRST])
    assert tau.shape == (8, 1, 0)
    assert np.abs(W[:, 0] - ref).max() <= 1e-10 * np.abs(ref).max()


def test_matrices_and_regressor_are_pinocchios(body):
    """The 6 x 6 M = crba, g = computeGeneralizedGravity, C nu + g = nonLinearEffects, and the
    6 x 10 regressor = -computeJointTorqueRegressor entry by entry (Pinocchio's order of the
    parameters is hodyn's), in hodyn's (angular; linear) order."""
    _, _, path, model = body
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    base = random_base(5, 2, seed=4)
    traj = flight(model, base)
    E = matrices(model, traj, order=0)
    Y = regressor.regressor(model, traj, order=0)[:, 0]
    assert E.M.shape == (5, 1, 6, 6) and Y.shape == (5, 6, 10)
    ix = np.ix_(LINEAR_FIRST, LINEAR_FIRST)
    for s in range(5):
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], np.zeros(0))
        v, a = base.Vb[s, 0][LINEAR_FIRST], base.Vb[s, 1][LINEAR_FIRST]
        M = pin.crba(pm, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        nle = pin.nonLinearEffects(pm, data, q, v)
        g = pin.computeGeneralizedGravity(pm, data, q)
        Yp = pin.computeJointTorqueRegressor(pm, data, q, v, a)[LINEAR_FIRST]
        nu = base.Vb[s, 0]
        for ours, ref, what in ((E.M[s, 0], M[ix], "M"), (E.g[s, 0], g[LINEAR_FIRST], "g"),
                                (E.C[s, 0] @ nu + E.g[s, 0], nle[LINEAR_FIRST], "C nu + g"),
                                (Y[s], -Yp, "Y")):
            assert np.abs(ours - ref).max() <= 1e-10 * np.abs(ref).max(), (what, s)


def test_rates_are_finite_differences_and_the_regressor_times_the_parameters(body, method):
    """Orders 1-3 of the base wrench against the 8th-order stencil of the order below, along
    an analytic motion; ``Y^(k) pi = W^(k)`` at every order."""
    name, text, _, model = body
    t = stencil_times([0.4, 1.3], H)
    traj, _, _, _ = floating_motion(text, model, t, 5, seed=6)
    _, W = inverse_dynamics(model, traj, method=method, order=3)
    assert_rates(W, H, 1e-8, f"{name} {method} W")
    Y = regressor.regressor(model, traj, order=3)
    pi = regressor.parameters(model, root=True)
    assert np.abs(Y @ pi - W).max() <= 1e-12 * np.abs(W).max()


def test_every_order_equals_the_body_on_a_driven_chain(body, method):
    """The body as the last link of a chain of 6 massless joints in a fixed-base model: the
    wrench the chain's last joint applies to it is minus the base wrench, orders 0-3."""
    name, text, _, model = body
    traj, _, ext, ext_traj = floating_motion(text, model, np.linspace(0, 2, 7), 5, seed=8)
    _, W = inverse_dynamics(model, traj, method=method, order=3)
    ref = -joint_wrenches(ext, ext_traj, order=3)[:, :, ext.link_names.index(model.root_link)]
    for k in range(4):
        scale = np.abs(ref[:, k]).max()
        assert np.abs(W[:, k] - ref[:, k]).max() <= 1e-10 * scale, f"{name} {method} {k}"


def test_a_massless_link_on_a_joint_changes_nothing(method):
    """urdf/free_body.urdf with a propeller of no mass on a revolute joint, turning: the same
    base wrench at every order as the body alone, and no torque on the joint."""
    text = FREE.read_text().replace("</robot>", """
  <joint name="spin" type="continuous"><parent link="battery"/><child link="prop"/>
    <origin xyz="0.05 0.1 0.2" rpy="0.4 0.1 -0.3"/><axis xyz="0 0.6 0.8"/></joint>
  <link name="prop"/>
</robot>""")
    model, spun = load_model(FREE), parse_model(text.encode())
    assert spun.n == 1 and spun.joint_names == ("spin",)
    t = np.linspace(0, 2, 9)
    traj, base, _, _ = floating_motion(text, spun, t, 5, seed=9)
    tau, W = inverse_dynamics(spun, traj, method=method, order=3)
    _, alone = inverse_dynamics(model, flight(model, base, t), method=method, order=3)
    assert np.abs(traj.qd).max() > 0.1   # the propeller turns
    assert np.abs(W - alone).max() <= 1e-12 * np.abs(alone).max()
    assert np.abs(tau).max() <= 1e-12 * np.abs(alone).max()


def test_every_backend_computes_numpys_numbers(backend):
    """The compiled kernel hands a model without joints to numpy (the GPU backend to the
    CPU's); the root's jet is the kernel's: the same numbers to rounding."""
    model = load_model(FREE)
    traj = flight(model, random_base(37, 5, seed=10))
    for fn in (lambda: inverse_dynamics(model, traj, order=3)[1],
               lambda: matrices(model, traj, order=2).C,
               lambda: regressor.regressor(model, traj, order=2)):
        ours, ref = fn(), reference(fn)
        assert ours.shape == ref.shape
        assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max()


def test_the_api_takes_a_flight_and_refuses_a_body_held_fixed():
    model = load_model(FREE)
    base = random_base(4, 4, seed=11)
    result = api.inverse_dynamics(model, flight(model, base), order=2, base_wrench=True)
    assert result.tau.shape == (4, 0) and result.Wdd.shape == (4, 6)
    assert result.joint_names == ()
    com = api.centre_of_mass(model, flight(model, base), order=1)
    c = model.root_inertia[[2, 0, 1], [4, 5, 3]] / 2.5
    assert np.allclose(com.com, base.p + base.R @ c) and np.allclose(com.mass, 2.5)
    with pytest.raises(HodynError, match="^a robot with no joint goes with a floating base"):
        api.inverse_dynamics(model, np.zeros((4, 0)), np.zeros((4, 0)), np.zeros((4, 0)))


@pytest.mark.parametrize("ext", ["csv", "h5"])
def test_a_flight_round_trips_through_the_trajectory_files(tmp_path, ext):
    """write_trajectory writes the root's motion (base_p, base_R, base_Vb, ...), of a robot
    without joints and of one with joints; read_trajectory(floating=True) reads it back."""
    model = load_model(FREE)
    base = random_base(7, 4, seed=12)
    traj = Trajectory((), np.zeros((7, 5, 0)), np.arange(7) * 0.1, base=base)
    write_trajectory(str(tmp_path / f"free.{ext}"), traj)
    back = read_trajectory(str(tmp_path / f"free.{ext}"), model, need=5, floating=True)
    assert back.derivatives.shape == (7, 5, 0) and np.array_equal(back.t, traj.t)
    for a in ("R", "p", "Vb"):
        assert np.array_equal(getattr(back.base, a), getattr(base, a)), a
    assert read_trajectory(str(tmp_path / f"free.{ext}"), model).base is None
    quad = load_model(URDF / "quadruped.urdf")
    q = np.random.default_rng(13).normal(size=(7, 3, quad.n))
    write_trajectory(str(tmp_path / f"quad.{ext}"), Trajectory(quad.joint_names, q, traj.t,
                                                               base=base))
    back = read_trajectory(str(tmp_path / f"quad.{ext}"), quad, need=3, floating=True)
    assert np.array_equal(back.derivatives, q) and np.array_equal(back.base.Vb, base.Vb)


def test_a_file_of_spatial_twists_is_not_read_as_body_ones(tmp_path):
    model = load_model(FREE)
    path = tmp_path / "vs.csv"
    head = ["t"] + [f"base_p_{c}" for c in "xyz"] + [f"base_R_{i}{j}" for i in "123"
                                                    for j in "123"]
    head += [f"base_Vs_{c}" for c in ("wx", "wy", "wz", "vx", "vy", "vz")]
    path.write_text(",".join(head) + "\n" + ",".join(["0", "0", "0", "0", "1", "0", "0", "0",
                                                       "1", "0", "0", "0", "1"] + ["0"] * 6)
                    + "\n")
    with pytest.raises(TrajectoryError, match="spatial twists"):
        read_trajectory(str(path), model, floating=True)


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def tumble(tmp_path_factory):
    """urdf/free_body.urdf's analytic flight (twist to its 5th derivative) in a CSV file."""
    d = tmp_path_factory.mktemp("free")
    model = load_model(FREE)
    t = np.linspace(0, 1, 21)
    _, base, _, _ = floating_motion(FREE.read_text(), model, t, 6, seed=14)
    write_trajectory(str(d / "tumble.csv"), flight(model, base, t))
    return d, model, base, t


def test_info_shows_the_body(tumble):
    result = run("info", FREE)
    assert result.exit_code == 0 and "a single rigid body" in result.stdout
    assert "2.5" in result.stdout and "--floating-base" in result.stdout
    assert "single rigid body of 2.5 kg" in result.stderr
    data = json.loads(run("info", FREE, "--json").stdout)
    assert data["joints"] == [] and data["root"]["mass"] == pytest.approx(2.5)
    assert np.allclose(data["root"]["inertia"], load_model(FREE).root_inertia)
    _, pm, _, _ = pinocchio_free_flyer(FREE, load_model(FREE))
    body = pm.inertias[1]
    about = np.array(data["root"]["inertia_about_com"])
    assert np.array_equal(about, about.T)
    assert np.allclose(about, body.inertia, rtol=0, atol=1e-14)
    assert np.allclose(data["root"]["com"], body.lever, rtol=0, atol=1e-14)
    params = json.loads(run("info", FREE, "--parameters", "--json").stdout)
    assert params["bodies"] == ["hull"] and params["values"][0] == pytest.approx(2.5)


def test_the_commands_on_a_flight(tumble):
    """compute, kinematics, matrices, regressor, validate: the files hold the body's numbers
    (tau with no column), validate passes; the notice that suggests --floating-base is not
    shown to a command given it."""
    d, model, base, t = tumble
    traj = flight(model, base, t)
    result = run("compute", FREE, d / "tumble.csv", "--floating-base", "--base-wrench", "-o",
                 d / "W.csv")
    assert result.exit_code == 0 and "--floating-base" not in result.stderr, result.output
    header = (d / "W.csv").read_text().splitlines()[0].split(",")
    assert header[:2] == ["t", "W_hull_mx"] and len(header) == 1 + 18
    table = np.loadtxt(d / "W.csv", delimiter=",", skiprows=1)
    _, W = inverse_dynamics(model, traj, order=2)
    assert np.allclose(table[:, 1:].reshape(-1, 3, 6), W, rtol=1e-12, atol=1e-12)
    # without --base-wrench (and without contacts) it is implied: a file of times alone was
    # written, silently
    implied = run("compute", FREE, d / "tumble.csv", "--floating-base", "-o", d / "W2.csv")
    assert implied.exit_code == 0 and "writing its base wrench" in implied.stderr
    assert (d / "W2.csv").read_text() == (d / "W.csv").read_text()
    assert run("kinematics", FREE, d / "tumble.csv", "--floating-base", "--com", "--link",
               "battery", "-o", d / "com.h5").exit_code == 0
    with h5py.File(d / "com.h5") as f:
        ref = api.forward_kinematics(model, "battery", traj, order=2)
        assert np.allclose(f["p"][:], ref.p) and np.allclose(f["mass"][:], 2.5)
    for command in ("matrices", "regressor"):
        result = run(command, FREE, d / "tumble.csv", "--floating-base", "-o",
                     d / f"{command}.h5")
        assert result.exit_code == 0, result.output
    with h5py.File(d / "matrices.h5") as f, h5py.File(d / "regressor.h5") as g:
        assert f["M"].shape == (21, 6, 6) and g["Y"].shape == (21, 6, 10)
        assert np.allclose(f["M"][:], matrices(model, traj, order=0).M[:, 0])
    result = run("validate", FREE, d / "tumble.csv", "--floating-base", "--samples", "5")
    assert result.exit_code == 0, result.output
    assert "taudd vs d/dt taud" in result.stderr   # the root's twist bounds the orders


def test_what_a_single_body_cannot_do_is_one_line(tumble):
    d, *_ = tumble
    for args, says in (
            (["compute", "-o", d / "x.csv"], "goes with --floating-base"),
            (["check", "--floating-base"], "goes with --contacts"),
            (["compute", "--floating-base", "--estimate-derivatives", "-o", d / "x.csv"],
             "does not go with --estimate-derivatives"),
            (["sensitivities", "--floating-base", "-o", d / "x.h5"], "is not supported"),
            (["retime", "--floating-base", "--to-limits", "-o", d / "x.csv"],
             "nothing limits the speed"),
            (["retime", "--floating-base", "--optimal", "-o", d / "x.csv"],
             "--optimal does not go with --floating-base yet")):
        result = run(args[0], FREE, d / "tumble.csv", *args[1:])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, (args, result.output)
        assert says in result.stderr, (args, result.stderr)
        assert not (d / "x.csv").exists() and not (d / "x.h5").exists()


@needs_erd
def test_the_quadrotor_on_the_command_line(tmp_path):
    """example-robot-data's quadrotor_base.urdf as `hodyn` runs it (:func:`conftest.hodyn_here`):
    info, the base wrench in CSV and HDF5 (tau with zero columns), the one-line refusal
    without --floating-base."""
    model = load_model(QUADROTOR)
    t = np.linspace(0, 1, 11)
    _, base, _, _ = floating_motion(QUADROTOR.read_text(), model, t, 4, seed=15)
    traj = flight(model, base, t)
    write_trajectory(str(tmp_path / "fly.csv"), traj)

    info = hodyn_here("info", QUADROTOR)
    assert info.returncode == 0 and "a single rigid body" in info.stdout and "1.477" in info.stdout
    _, W = inverse_dynamics(model, traj, order=2)
    for out in (tmp_path / "W.csv", tmp_path / "W.h5"):
        done = hodyn_here("compute", QUADROTOR, tmp_path / "fly.csv", "--floating-base",
                          "--base-wrench", "-o", out)
        assert done.returncode == 0 and done.stderr == "", done.stderr
    table = np.loadtxt(tmp_path / "W.csv", delimiter=",", skiprows=1)
    assert table.shape == (11, 1 + 18) and np.allclose(table[:, 1:].reshape(-1, 3, 6), W,
                                                       rtol=1e-12, atol=1e-12)
    with h5py.File(tmp_path / "W.h5") as f:
        assert f["tau"].shape == (11, 0) and f["taudd"].shape == (11, 0)
        assert list(f.attrs["joint_names"]) == []
        assert np.allclose(f["wrench/base_link/Wd"][:], W[:, 1], rtol=1e-12, atol=1e-12)
    refused = hodyn_here("compute", QUADROTOR, tmp_path / "fly.csv", "-o", tmp_path / "no.csv")
    assert refused.returncode == 2 and not (tmp_path / "no.csv").exists()
    assert refused.stderr == (f"hodyn: error: {QUADROTOR}: a robot with no joint goes with "
                              "--floating-base (a single rigid body has no joint torques: it "
                              "moves only as a free body)\n")
