"""A floating base is the robot under a free root joint: one code path.

``--floating-base`` (``floating.inverse_dynamics``, ``floating.matrices``) runs the robot under
its free root joint (``core.model.with_free_root``); these tests hold it to independent
references: Pinocchio's JointModelFreeFlyer root (``rnea``, ``computeRNEADerivatives``) on a
real robot (example-robot-data's Go2), and a URDF whose root hangs from the world by a
``floating`` joint written by hand, through the command line, against ``--floating-base`` on
the same robot and motion.
"""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_free_body import example_robot

from conftest import LINEAR_FIRST, URDF, free_flyer_q, kernel_variants, pinocchio_free_flyer, random_cosine
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics.floating import inverse_dynamics, matrices
from hodyn_cli.algorithms.dynamics.regressor import parameters, regressor
from hodyn_cli.core import lie
from hodyn_cli.core.model import with_free_root, without_free_root
from hodyn_cli.core.trajectory import BaseMotion
from hodyn_cli.modeling.urdf import load_model

GO2 = example_robot("go2_description/urdf/go2.urdf")
#: the compiled backend's tests need its kernel (none with HODYN_NO_KERNEL or no compiler)
NEEDS_KERNEL = pytest.mark.skipif(not kernel_variants(), reason="no compiled kernel here")
BACKENDS = ["numpy", pytest.param("compiled", marks=NEEDS_KERNEL)]


def _moving(model, N: int, seed: int):
    """Random joint cosines (q..qddd) and a random root pose and body twist jet (Vb..Vbdd)."""
    rng = np.random.default_rng(seed)
    R = lie.rotation_vector_exp(rng.normal(size=(N, 3)))
    base = BaseMotion(R, rng.normal(size=(N, 3)), rng.normal(size=(N, 3, 6)))
    return replace(random_cosine(model, np.linspace(0, 2, N), orders=4, seed=seed), base=base)


@pytest.mark.skipif(GO2 is None, reason="example-robot-data is not installed")
@pytest.mark.parametrize("backend", BACKENDS)
def test_go2_floating_is_pinocchio_free_flyer_rnea_and_its_rate(method, backend):
    """tau and the base wrench = Pinocchio's free-flyer ``rnea`` and their rates =
    ``dtau_dq v + dtau_dv a + M jerk`` of ``computeRNEADerivatives`` (tangent-space partials:
    v is the root's body twist) to 1e-12, every method, numpy and compiled (measured: 5e-15
    or less)."""
    model = load_model(GO2)
    traj = _moving(model, 4, seed=3)
    pin, pm, data, order = pinocchio_free_flyer(GO2, model)
    with backends.use(backend):
        tau, W = inverse_dynamics(model, traj, method=method, order=1)
    base = traj.base
    for s in range(traj.n_samples):
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], traj.q[s])
        v, a, jerk = (np.concatenate([base.Vb[s, k, LINEAR_FIRST],
                                      traj.derivatives[s, k + 1, order]]) for k in range(3))
        ref = pin.rnea(pm, data, q, v, a)
        dq, dv, M = pin.computeRNEADerivatives(pm, data, q, v, a)
        rate = dq @ v + dv @ a + (np.triu(M) + np.triu(M, 1).T) @ jerk
        for k, pin_k in ((0, ref), (1, rate)):
            ours = np.concatenate([-W[s, k, LINEAR_FIRST], tau[s, k, order]])
            assert np.abs(ours - pin_k).max() <= 1e-12 * np.abs(pin_k).max(), (s, k)


@NEEDS_KERNEL
def test_free_root_model_round_trip_its_matrices_and_regressor_on_both_backends():
    """``without_free_root(with_free_root(robot))`` is the robot's tree and root inertia; the
    floating base's matrices and regressor are the same on numpy (the joint-model passes)
    and on the compiled backend (its floating-base kernels run for the free root joint) to
    1e-12, and ``Y pi = (W_base; tau)``."""
    robot = load_model(URDF / "quadruped.urdf")
    back = without_free_root(with_free_root(robot))
    assert back.joint_names == robot.joint_names and (back.parent == robot.parent).all()
    assert np.array_equal(back.root_inertia, robot.root_inertia)
    assert np.array_equal(back.inertias, robot.inertias) and np.array_equal(back.B, robot.B)
    traj = _moving(robot, 5, seed=8)
    out = {}
    for backend in ("numpy", "compiled"):
        with backends.use(backend):
            out[backend] = matrices(robot, traj, order=1), regressor(robot, traj, order=1)
    for name in ("M", "C", "Cbar", "g"):
        ref = getattr(out["numpy"][0], name)
        assert np.abs(getattr(out["compiled"][0], name) - ref).max() <= 1e-12 * np.abs(ref).max()
    Y = out["numpy"][1]
    assert np.abs(out["compiled"][1] - Y).max() <= 1e-12 * np.abs(Y).max()
    tau, W = inverse_dynamics(robot, traj, order=1)
    ref = np.concatenate([W, tau], axis=2)
    assert np.abs(Y @ parameters(robot, root=True) - ref).max() <= 1e-12 * np.abs(ref).max()


def _read_csv(path: Path) -> dict[str, np.ndarray]:
    """A CSV file's columns by name."""
    names = path.read_text().splitlines()[0].split(",")
    values = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return dict(zip(names, values.T, strict=True))


def _floating_joint_urdf(text: str, root: str) -> str:
    """The URDF with a ``world`` link and a ``floating`` joint ``fly`` from it to ``root``."""
    extra = (f'<link name="world"/><joint name="fly" type="floating"><parent link="world"/>'
             f'<child link="{root}"/></joint>')
    return text.replace("</robot>", extra + "</robot>")


def test_a_urdf_floating_root_joint_and_floating_base_give_the_same_outputs(tmp_path):
    """``hodyn compute`` of the quadruped with ``--floating-base --base-wrench`` and of the same
    quadruped hung from the world by a URDF ``floating`` joint ``fly`` (its columns ``fly_p_*``,
    ``fly_R_*``, ``qd_fly_*``, ... the base's) write the same joint torques, and the free joint's
    torques are minus the base wrench, order 1, to 1e-12."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    text = (URDF / "quadruped.urdf").read_text()
    robot = load_model(URDF / "quadruped.urdf")
    hung = tmp_path / "hung.urdf"
    hung.write_text(_floating_joint_urdf(text, robot.root_link))
    traj = _moving(robot, 6, seed=5)
    base, cols = traj.base, {"t": traj.t}
    axes, rows = ("x", "y", "z"), [f"{a}{b}" for a in "123" for b in "123"]
    twist = ("wx", "wy", "wz", "vx", "vy", "vz")
    for k, name in enumerate(("q", "qd", "qdd", "qddd")):
        cols |= {f"{name}_{j}": traj.derivatives[:, k, i] for i, j in enumerate(robot.joint_names)}
    floating_cols, hung_cols = dict(cols), dict(cols)
    for i, a in enumerate(axes):
        floating_cols[f"base_p_{a}"] = hung_cols[f"fly_p_{a}"] = base.p[:, i]
    for i, rc in enumerate(rows):
        floating_cols[f"base_R_{rc}"] = hung_cols[f"fly_R_{rc}"] = base.R[:, i // 3, i % 3]
    for k in range(3):
        for e, w in enumerate(twist):
            floating_cols[f"base_Vb{'d' * k}_{w}"] = base.Vb[:, k, e]
            hung_cols[f"q{'d' * (k + 1)}_fly_{w}"] = base.Vb[:, k, e]
    runner = CliRunner()
    outputs = {}
    for name, urdf, columns, flags in (
            ("floating", URDF / "quadruped.urdf", floating_cols, ["--floating-base", "--base-wrench"]),
            ("hung", hung, hung_cols, [])):
        np.savetxt(tmp_path / f"{name}.csv", np.column_stack(list(columns.values())),
                   delimiter=",", header=",".join(columns), comments="", fmt="%.17g")
        out = tmp_path / f"{name}_tau.csv"
        result = runner.invoke(app, ["compute", str(urdf), str(tmp_path / f"{name}.csv"),
                                     "--order", "1", "-o", str(out), *flags])
        assert result.exit_code == 0, result.output
        outputs[name] = _read_csv(out)
    floating, hung_out = outputs["floating"], outputs["hung"]
    root = robot.root_link
    for k, tau in enumerate(("tau", "taud")):
        joints = [f"{tau}_{j}" for j in robot.joint_names]
        ref = np.column_stack([floating[c] for c in joints])
        ours = np.column_stack([hung_out[c] for c in joints])
        assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max(), tau
        W = np.column_stack([floating[f"W{'d' * k}_{root}_{c}"] for c in
                             ("mx", "my", "mz", "fx", "fy", "fz")])
        free = np.column_stack([hung_out[f"{tau}_fly_{w}"] for w in twist])
        assert np.abs(free + W).max() <= 1e-12 * np.abs(W).max(), tau


def test_the_gpu_backend_runs_the_carried_robot_on_the_device(monkeypatch):
    """On the GPU backend (JAX's CPU device) a floating base's torques, base wrench and
    regressor (the robot under its free root joint, whose carried robot the device's
    floating-base passes run) equal numpy's joint-model passes to 1e-12, wrench on the root
    included; the host's multi-DOF passes are not called."""
    pytest.importorskip("jax")
    from hodyn_cli.core.trajectory import Wrenches

    robot = load_model(URDF / "planar_2r.urdf")
    traj = _moving(robot, 9, seed=2)
    W = np.random.default_rng(1).normal(size=(9, 2, 6))
    traj = replace(traj, wrenches=Wrenches({robot.root_link: W, robot.link_names[-1]: -W}))
    out = {}
    for name, options in (("numpy", {}), ("gpu", {"device": "cpu"})):
        with backends.use(name, **options) as backend:
            if name == "gpu":
                for operation in ("inverse_dynamics", "regressor"):
                    monkeypatch.setattr(backend.cpu, operation, _not_multi_dof(
                        getattr(backend.cpu, operation)))
            out[name] = (*inverse_dynamics(robot, traj, order=1),
                         regressor(robot, replace(traj, wrenches=None), order=1))
    for ours, ref in zip(out["gpu"], out["numpy"], strict=True):
        assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max()


def _not_multi_dof(operation):
    """``operation`` of a backend, failing for a model with a multi-DOF joint."""
    def run(model, *args, **kwargs):
        assert not model.multi_dof, f"the host ran {model.joint_types}"
        return operation(model, *args, **kwargs)
    return run


@pytest.mark.parametrize("names", [("base", "base_wx"), ("base_vz", "_base")])
def test_a_robot_with_a_joint_named_like_the_free_root_keeps_its_own(names):
    """A robot whose joints are called ``base`` and ``base_wx`` (or the free joint's other
    names): the free root joint takes a name of its own (``_base``, ``__base``) and the floating
    base's tau, base wrench and matrices are those of the same robot with its joints named
    otherwise, bit for bit."""
    robot = load_model(URDF / "planar_2r.urdf")
    renamed = replace(robot, joint_names=names)
    free = with_free_root(renamed)
    assert free.joint_names[1:] == names and free.joint_names[0] not in names
    assert len(set(free.dof_names)) == len(free.dof_names)
    traj = _moving(robot, 5, seed=4)
    motion = replace(traj, joint_names=names)
    for method in ("body-fixed", "closed-form"):
        for got, want in zip(inverse_dynamics(renamed, motion, method=method, order=1),
                             inverse_dynamics(robot, traj, method=method, order=1),
                             strict=True):
            assert np.array_equal(got, want)
    assert np.array_equal(matrices(renamed, motion, order=1).M, matrices(robot, traj, order=1).M)


@NEEDS_KERNEL
def test_sensitivities_hold_the_free_root_joint_on_both_backends(monkeypatch):
    """A floating base's sensitivities are the robot under its free root joint's with that
    joint held (``held`` 6: only the joints' n x n blocks): numpy's complex step over the free
    model's joint columns and the compiled kernel's carried robot (no multi-DOF pass runs:
    the complex step is not called) agree to 1e-11, a wrench on a leaf included, and equal
    d tau/d qdd = the joint block of the 6 + n mass matrix."""
    from hodyn_cli.algorithms.backends.numpy import sensitivities as numpy_sensitivities
    from hodyn_cli.algorithms.dynamics import sensitivities as S
    from hodyn_cli.core.trajectory import Wrenches

    robot = load_model(URDF / "quadruped.urdf")
    traj = _moving(robot, 4, seed=6)
    W = np.random.default_rng(2).normal(size=(4, 2, 6))
    traj = replace(traj, wrenches=Wrenches({robot.link_names[-1]: W}))
    with backends.use("numpy"):
        ref = S.sensitivities(robot, traj, order=1)
    monkeypatch.setattr(numpy_sensitivities, "complex_step", None)
    with backends.use("compiled"):
        ours = S.sensitivities(robot, traj, order=1)
    for name, value in ref.items():
        assert value.shape == (4, robot.n, robot.n)
        assert np.abs(ours[name] - value).max() <= 1e-11 * np.abs(value).max(), name
    M = matrices(robot, traj, order=0).M[:, 0, 6:, 6:]
    assert np.abs(ref["dtau_dqdd"] - M).max() <= 1e-11 * np.abs(M).max()


@pytest.mark.skipif(GO2 is None, reason="example-robot-data is not installed")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("recursion", ["body-fixed", "spatial"])
def test_go2_floating_joint_wrenches_are_pinocchio_free_flyer_rnea_forces(recursion, backend):
    """A floating base's joint wrenches (``compute --floating-base --joint-wrenches``) = the
    joint forces ``data.f`` of Pinocchio's free-flyer ``rnea`` (each in its joint's frame, the
    URDF child link's) to 1e-12, by both recursions (closed form computes none)."""
    from hodyn_cli.algorithms.dynamics.floating import joint_wrenches

    model = load_model(GO2)
    traj = _moving(model, 3, seed=7)
    pin, pm, data, order = pinocchio_free_flyer(GO2, model)
    with backends.use(backend):
        F = joint_wrenches(model, traj, method=recursion, order=0)
    assert F.shape == (3, 1, model.n, 6)
    base = traj.base
    for s in range(traj.n_samples):
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], traj.q[s])
        v, a = (np.concatenate([base.Vb[s, k, LINEAR_FIRST], traj.derivatives[s, k + 1, order]])
                for k in range(2))
        pin.rnea(pm, data, q, v, a)
        ref = np.array([data.f[j + 2].vector[LINEAR_FIRST] for j in range(len(order))])
        ours = F[s, 0, order]
        assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max(), s


def test_compute_floating_base_joint_wrenches_on_the_command_line(tmp_path):
    """``compute --floating-base --joint-wrenches`` writes the library's joint wrenches of the
    floating base (``joint_wrench/<link>/F``, ``Fd``) to 1e-12 (once refused: the floating
    driver computed none)."""
    import h5py
    from typer.testing import CliRunner

    from hodyn_cli.algorithms.dynamics.floating import joint_wrenches
    from hodyn_cli.cli.app import app
    from hodyn_cli.io import write_trajectory

    robot = load_model(URDF / "planar_2r.urdf")
    traj = _moving(robot, 4, seed=9)
    write_trajectory(str(tmp_path / "floating.csv"), traj, model=robot)
    F = joint_wrenches(robot, traj, order=1)
    runner = CliRunner()
    result = runner.invoke(app, ["compute", str(URDF / "planar_2r.urdf"),
                                 str(tmp_path / "floating.csv"), "--floating-base",
                                 "--joint-wrenches", "--order", "1", "-o", str(tmp_path / "F.h5")])
    assert result.exit_code == 0, result.output
    with h5py.File(tmp_path / "F.h5") as f:
        for i, link in enumerate(robot.link_names):
            for k, name in enumerate(("F", "Fd")):
                ours = f[f"joint_wrench/{link}/{name}"][()]
                assert np.abs(ours - F[:, k, i]).max() <= 1e-12 * np.abs(F).max(), (link, k)


@pytest.mark.parametrize("method", ["body-fixed", "closed-form"])
def test_a_base_turned_by_exactly_pi_about_the_vertical_runs_without_warning(method):
    """A base yawed by exactly pi (the robot facing back: ``base_R = diag(-1, -1, 1)``, where
    ``log R``'s skew part vanishes) gives the torques and base wrench of the same motion
    unturned (gravity is vertical: the root sees the same), with no RuntimeWarning (an error
    under pytest: a division by ``sin(pi) = 0`` in ``rotation_log``)."""
    robot = load_model(URDF / "quadruped.urdf")
    traj = _moving(robot, 3, seed=4)
    out = []
    for R in (np.eye(3), np.diag([-1.0, -1.0, 1.0]), lie.rotation_vector_exp(np.array([0, 0, np.pi]))):
        base = BaseMotion(np.broadcast_to(R, (3, 3, 3)).copy(), traj.base.p, traj.base.Vb)
        out.append(inverse_dynamics(robot, replace(traj, base=base), method=method, order=1))
    for tau, W in out[1:]:
        assert np.abs(tau - out[0][0]).max() <= 1e-12 * np.abs(out[0][0]).max()
        assert np.abs(W - out[0][1]).max() <= 1e-12 * np.abs(out[0][1]).max()


@pytest.mark.parametrize("gap", [1e-1, 1e-2, 1.01e-3])
def test_a_base_rotation_accepted_near_pi_moves_the_torques_by_its_own_error_only(gap):
    """A base_R within 1e-6 of a rotation by ``pi - gap`` (accepted as one: ORTHONORMAL_TOL)
    gives the torques and base wrench of that rotation to ~1e-6 (before the free root joint:
    3.7e-7): the free joint's ``log R`` must not amplify the error by ``1 / sin(theta)`` (its
    axis from the skew part: 6e-4 at gap 1e-3, outside the near-pi branch)."""
    from hodyn_cli.core.trajectory import check_rotations

    robot = load_model(URDF / "quadruped.urdf")
    traj = _moving(robot, 3, seed=2)
    axis = np.array([1.0, 2.0, 3.0]) / np.sqrt(14)
    R = lie.rotation_vector_exp(axis * (np.pi - gap))
    off = R + 3e-7 * lie.skew(np.array([1.0, -1.0, 0.5]))
    check_rotations(off[None], "base_R")
    out = []
    for rotation in (R, off):
        base = BaseMotion(np.broadcast_to(rotation, (3, 3, 3)).copy(), traj.base.p, traj.base.Vb)
        out.append(inverse_dynamics(robot, replace(traj, base=base), order=1))
    for ours, ref in zip(out[1], out[0], strict=True):
        assert np.abs(ours - ref).max() <= 3e-6 * np.abs(ref).max()


def test_a_robot_hung_from_a_world_link_runs_the_compiled_kernels(tmp_path):
    """A URDF whose root hangs from a ``world`` link by a ``floating`` joint has that link on
    body -1: the robot its free joint carries keeps its own links (the root's on its root,
    the feet on their bodies) but not the world's, and the compiled backend's floating-base
    matrices, run on that carried robot, equal numpy's joint-model passes."""
    from hodyn_cli.algorithms.dynamics.closed_form import matrices as eom
    from hodyn_cli.core.trajectory import free_root_motion
    from hodyn_cli.modeling.urdf import parse_model

    robot = load_model(URDF / "quadruped.urdf")
    hung = parse_model(_floating_joint_urdf((URDF / "quadruped.urdf").read_text(),
                                            robot.root_link).encode())
    assert hung.links["world"].body == -1
    carried = hung.carried
    assert carried is not None and "world" not in carried.links
    assert {name: frame.body for name, frame in carried.links.items()} == \
        {name: frame.body for name, frame in robot.links.items()}
    traj = free_root_motion(replace(_moving(robot, 4, seed=3), joint_names=robot.joint_names),
                            hung.dof_names)
    with backends.use("numpy"):
        ref = eom(hung, traj, order=1).M
    with backends.use("compiled"):
        ours = eom(hung, traj, order=1).M
    assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max()
