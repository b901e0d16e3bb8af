"""Joint models beyond 1-DOF screws: helical, spherical (ball), planar and free joints
anywhere in a tree, in the numpy body-fixed recursion (docs/conventions.md, "Multi-DOF
joints"). Random trees are built twice, as hodyn Models and as Pinocchio models of the
matching joint models (JointModelSpherical, JointModelPlanar, JointModelHelicalUnaligned,
JointModelFreeFlyer); tau equals pin.rnea, its first derivative Pinocchio's
computeRNEADerivatives rate ``dtau_dq v + dtau_dv a + M jerk`` (tangent-space partials: v is
the joints' velocity in the child frame, as hodyn's nu) and its second derivative the
8th-order time difference of that rate; orders 3 and 4 the 8th-order differences of the order
below along analytic motions whose body angular velocities have exact derivatives
(``R(t) = exp(theta_1(t) e_1) exp(theta_2(t) e_2)``)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from conftest import STENCIL, floating_motion
from hodyn_cli.algorithms.dynamics import body_fixed, floating
from hodyn_cli.core import jets, lie
from hodyn_cli.core.model import DOF_SUFFIXES, LinkFrame, Model, joint_pose
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError, ModelError

G = (0.0, 0.0, -9.81)
KINDS = ("revolute", "prismatic", "helical", "spherical", "planar", "free")


# -- random trees -------------------------------------------------------------------------

def _unit(rng) -> np.ndarray:
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def random_model(seed: int, kinds: tuple[str, ...]) -> Model:
    """A tree of ``len(kinds)`` bodies with these joints (tilted axes and planes, offset
    inertias, random parents), numbered depth-first as hodyn's (and Pinocchio's derivatives,
    which take a subtree's joints as one block) are: each body's parent is on the path from
    the root to the body before it."""
    rng = np.random.default_rng(seed)
    n = len(kinds)
    parent = np.full(n, -1)
    for i in range(1, n):
        path = [i - 1]
        while path[-1] >= 0:
            path.append(int(parent[path[-1]]))
        parent[i] = path[int(rng.integers(0, len(path)))]
    B = np.empty((n, 4, 4))
    X = np.zeros((n, 6))
    M = np.empty((n, 6, 6))
    for i, kind in enumerate(kinds):
        B[i] = lie.homogeneous(lie.rotation_vector_exp(rng.normal(size=3)), rng.normal(size=3) * 0.3)
        a = _unit(rng)
        if kind == "revolute":
            X[i, :3] = a
        elif kind == "prismatic":
            X[i, 3:] = a
        elif kind == "helical":
            X[i] = np.concatenate([a, rng.uniform(-0.2, 0.2) * a])
        elif kind == "planar":
            u = _unit(rng)
            u -= (u @ a) * a
            X[i] = np.concatenate([a, u / np.linalg.norm(u)])
        L = rng.normal(size=(3, 3))
        M[i] = lie.body_inertia(rng.uniform(0.5, 2.0), rng.normal(size=3) * 0.2,
                                L @ L.T * 0.05 + 0.02 * np.eye(3))
    names = tuple(f"j{i}" for i in range(n))
    links = {f"l{i}": LinkFrame(i, np.eye(4)) for i in range(n)}
    return Model(f"tree{seed}", "root", names, kinds, tuple(links), parent, B, X, M,
                 links=links)


def pinocchio_model(model: Model):
    """The same tree in Pinocchio, and :func:`pin_order`."""
    pin = pytest.importorskip("pinocchio")
    pm = pin.Model()
    pm.gravity = pin.Motion(np.array([*G, 0, 0, 0]))
    frames: list[np.ndarray] = []
    for i, kind in enumerate(model.joint_types):
        X = model.X[i]
        if kind == "revolute":
            jm = pin.JointModelRevoluteUnaligned(X[:3])
        elif kind == "prismatic":
            jm = pin.JointModelPrismaticUnaligned(X[3:])
        elif kind == "helical":
            jm = pin.JointModelHelicalUnaligned(X[:3], float(X[:3] @ X[3:]))
        elif kind == "spherical":
            jm = pin.JointModelSpherical()
        elif kind == "free":
            jm = pin.JointModelFreeFlyer()
        else:
            jm = pin.JointModelPlanar()
        frame = pin_frame(model, i)
        frames.append(frame)
        back = frames[model.parent[i]].T if model.parent[i] >= 0 else np.eye(3)
        place = pin.SE3(back @ model.B[i, :3, :3] @ frame, back @ model.B[i, :3, 3])
        j = pm.addJoint(int(model.parent[i]) + 1, jm, place, model.joint_names[i])
        Mi = model.inertias[i]
        if kind == "planar":  # the body's inertia in the turned joint frame
            Mi = lie.transform_inertia(Mi, lie.homogeneous(frame.T, np.zeros(3)))
        m = Mi[3, 3]
        c = np.array([Mi[2, 4], Mi[0, 5], Mi[1, 3]]) / m
        Ic = Mi[:3, :3] + m * lie.skew(c) @ lie.skew(c)
        pm.appendBodyToJoint(j, pin.Inertia(m, c, Ic), pin.SE3.Identity())
    return pin, pm, pin_order(model)


def pin_frame(model: Model, i: int) -> np.ndarray:
    """Pinocchio's child frame of body i in hodyn's (a rotation): a planar joint's plane is
    pin's z-normal one with x first, so its joint frame turns onto (u, w, n); the identity for
    the other joints (the children's placements turn back)."""
    X = model.X[i]
    return np.column_stack([X[3:], np.cross(X[:3], X[3:]), X[:3]]) \
        if model.joint_types[i] == "planar" else np.eye(3)


def pin_order(model: Model) -> np.ndarray:
    """The permutation of hodyn's velocity coordinates into pin's (a free joint's
    nu = (omega; v) is pin's (v; omega))."""
    return np.array([int(model.dof_offsets[i]) + k for i, kind in enumerate(model.joint_types)
                     for k in ([3, 4, 5, 0, 1, 2] if kind == "free" else range(model.dofs[i]))])


def assert_equal_pinocchio(model: Model, pin, pm, traj: Trajectory) -> None:
    """tau = pin.rnea to 1e-12 and taud = dtau_dq v + dtau_dv a + M jerk to 1e-10 (relative)
    at every sample of traj."""
    tau = body_fixed.inverse_dynamics(model, traj, order=1, gravity=G)
    perm, data = pin_order(model), pm.createData()
    for s in range(traj.n_samples):
        qs = traj.derivatives[s]
        q = pin_configuration(pin, model, qs[0])
        v, a, jerk = qs[1, perm], qs[2, perm], qs[3, perm]
        ref = pin.rnea(pm, data, q, v, a)
        dq, dv, M = pin.computeRNEADerivatives(pm, data, q, v, a)
        M = np.triu(M) + np.triu(M, 1).T
        rate = dq @ v + dv @ a + M @ jerk
        assert np.abs(tau[s, 0, perm] - ref).max() <= 1e-12 * np.abs(ref).max()
        assert np.abs(tau[s, 1, perm] - rate).max() <= 1e-10 * np.abs(rate).max()


def pin_configuration(pin, model: Model, row: np.ndarray) -> np.ndarray:
    """Pinocchio's q of hodyn's configuration coordinates (row 0 of qs)."""
    q = []
    for i, kind in enumerate(model.joint_types):
        o = int(model.dof_offsets[i])
        c = row[o : o + model.dofs[i]]
        if kind == "spherical":
            q += list(pin.Quaternion(lie.rotation_vector_exp(c)).coeffs())
        elif kind == "free":
            q += list(c[3:]) + list(pin.Quaternion(lie.rotation_vector_exp(c[:3])).coeffs())
        elif kind == "planar":
            q += [c[0], c[1], np.cos(c[2]), np.sin(c[2])]
        elif kind == "continuous":
            q += [np.cos(c[0]), np.sin(c[0])]
        else:
            q += [c[0]]
    return np.array(q)


# -- analytic motions ---------------------------------------------------------------------

def _cosines(rng, t: np.ndarray, K: int, m: int, scale: float = 1.0) -> np.ndarray:
    """m cosines with exact derivatives: (N, K+1, m)."""
    a, w, ph = (rng.uniform(0.3, 1.0, m) * scale, rng.uniform(0.5, 2.0, m),
                rng.uniform(0, 2 * np.pi, m))
    k = np.arange(K + 1)[:, None]
    return a * w**k * np.cos(w * t[:, None, None] + ph + k * np.pi / 2)


def _turning(rng, t: np.ndarray, K: int):
    """``R(t) = exp(th1 e1) exp(th2 e2)`` (N, 3, 3) and its body angular velocity jet
    (N, K+1, 3): ``omega = exp(th2 e2)^T th1' e1 + th2' e2``, exactly (Leibniz)."""
    e1, e2 = _unit(rng), _unit(rng)
    th = _cosines(rng, t, K + 1, 2, 1.5)
    R2 = lie.rotation_exp(e2, th[:, 0, 1])
    w2 = th[:, 1:, 1, None] * e2                        # body rate of exp(th2 e2), fixed axis
    R2jet = jets.rotation(R2, w2, K, body=True)
    w1 = th[:, 1:, 0, None] * e1
    omega = jets.product(jets.transpose(R2jet), w1[..., None])[..., 0] + w2
    return lie.rotation_exp(e1, th[:, 0, 0]) @ R2, omega


def _body_velocity(R: np.ndarray, omega: np.ndarray, pdot: np.ndarray) -> np.ndarray:
    """The jet (N, K+1, 3) of ``R^T p'`` from R's body angular velocity jet and p' 's jet."""
    K = pdot.shape[1] - 1
    Rjet = jets.rotation(R, omega, K, body=True)
    return jets.product(jets.transpose(Rjet), pdot[..., None])[..., 0]


def analytic_motion(model: Model, t: np.ndarray, K: int, seed: int = 0) -> Trajectory:
    """qs (N, K+2, nv): row 0 every joint's configuration coordinates, rows k >= 1 the
    velocity coordinates' derivative k-1, exact, along smooth motions of every joint."""
    rng = np.random.default_rng(seed)
    N = len(t)
    qs = np.empty((N, K + 2, model.nv))
    for i, kind in enumerate(model.joint_types):
        v = slice(int(model.dof_offsets[i]), int(model.dof_offsets[i + 1]))
        if kind not in DOF_SUFFIXES:
            qs[:, :, v] = _cosines(rng, t, K + 1, 1, 0.1 if kind == "prismatic" else 1.0)
        elif kind == "spherical":
            R, omega = _turning(rng, t, K)
            qs[:, 0, v], qs[:, 1:, v] = lie.rotation_log(R), omega
        elif kind == "free":
            R, omega = _turning(rng, t, K)
            p = _cosines(rng, t, K + 1, 3, 0.3)
            qs[:, 0, v] = np.concatenate([lie.rotation_log(R), p[:, 0]], axis=1)
            qs[:, 1:, v] = np.concatenate([omega, _body_velocity(R, omega, p[:, 1:])], axis=2)
        else:  # planar: x, y, theta; nu = (R^T (x' u + y' w) in (u, w), theta')
            n, u = model.X[i, :3], model.X[i, 3:]
            xyt = _cosines(rng, t, K + 1, 3, 0.5)
            omega = xyt[:, 1:, 2, None] * n
            pdot = xyt[:, 1:, :1] * u + xyt[:, 1:, 1:2] * np.cross(n, u)
            vb = _body_velocity(lie.rotation_exp(n, xyt[:, 0, 2]), omega, pdot)
            qs[:, 0, v] = xyt[:, 0]
            qs[:, 1:, v] = np.stack([vb @ u, vb @ np.cross(n, u), xyt[:, 1:, 2]], axis=2)
    return Trajectory(model.dof_names, qs, t)


# -- tests --------------------------------------------------------------------------------

MIXED = ("spherical", "revolute", "free", "planar", "helical", "spherical", "prismatic",
         "free", "planar")


@pytest.mark.parametrize("seed", [3, 4])
def test_random_trees_equal_pinocchio_to_order_one(seed):
    """tau = pin.rnea to 1e-12 and taud = dtau_dq v + dtau_dv a + M jerk to 1e-10 (relative)
    on a tree with every joint type, multi-DOF joints at the root and deep in it."""
    model = random_model(seed, MIXED)
    assert model.nv == 1 + 1 + 1 + 3 + 3 + 3 + 6 + 6 + 3
    assert model.parent[1:].max() >= 2, "want multi-DOF joints below others"
    pin, pm, _ = pinocchio_model(model)
    assert_equal_pinocchio(model, pin, pm, analytic_motion(model, np.linspace(0, 2, 5), 4, seed))


URDF_JOINTS = """<robot name="joints">
  <link name="base"><inertial><mass value="2"/><origin xyz="0.1 0 0"/>
    <inertia ixx="0.1" iyy="0.2" izz="0.15" ixy="0.01" ixz="0" iyz="0"/></inertial></link>
  <link name="a"><inertial><mass value="1"/><origin xyz="0 0.1 0.2"/>
    <inertia ixx="0.05" iyy="0.04" izz="0.03" ixy="0" ixz="0.002" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="0.7"/><origin xyz="0.2 0 0"/>
    <inertia ixx="0.02" iyy="0.03" izz="0.025" ixy="0" ixz="0" iyz="0.001"/></inertial></link>
  <link name="c"><inertial><mass value="0.5"/><origin xyz="0 0 0.1"/>
    <inertia ixx="0.01" iyy="0.012" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="d"><inertial><mass value="0.3"/><origin xyz="0.05 0 0.1"/>
    <inertia ixx="0.01" iyy="0.012" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.3" rpy="0.2 0 0.1"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="3"/></joint>
  <joint name="hover" type="floating"><parent link="a"/><child link="b"/>
    <origin xyz="0.3 0 0" rpy="0 0.4 0"/></joint>
  <joint name="slide" type="planar"><parent link="b"/><child link="c"/>
    <origin xyz="0 0.2 0" rpy="0.3 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="wrist" type="continuous"><parent link="c"/><child link="d"/>
    <origin xyz="0 0 0.2"/><axis xyz="1 0 0"/></joint>
</robot>
"""


def test_urdf_floating_and_planar_joints_load_as_pinocchio_reads_them(tmp_path):
    """A URDF ``floating`` joint (mid-tree) is a free joint, a ``planar`` one a planar joint
    normal to its axis: the same numbers as Pinocchio's URDF reader's FreeFlyer and Planar."""
    from hodyn_cli.modeling.urdf import parse_model

    pin = pytest.importorskip("pinocchio")
    path = tmp_path / "joints.urdf"
    path.write_text(URDF_JOINTS)
    model = parse_model(URDF_JOINTS.encode())
    assert model.joint_types == ("revolute", "free", "planar", "continuous")
    assert model.dof_names[1:4] == ("hover_wx", "hover_wy", "hover_wz")
    assert model.dof_names[7:10] == ("slide_vx", "slide_vy", "slide_wz")
    pm = pin.buildModelFromUrdf(str(path))
    pm.gravity = pin.Motion(np.array([*G, 0, 0, 0]))
    assert_equal_pinocchio(model, pin, pm, analytic_motion(model, np.linspace(0, 1, 3), 4, 12))


def test_second_derivative_is_the_rate_of_pinocchios_first():
    """taudd against the 8th-order time difference of Pinocchio's taud along the motion."""
    model = random_model(5, MIXED)
    h = 2e-3
    t = 0.7 + h * np.arange(-4, 5)
    traj = analytic_motion(model, t, 4, 5)
    pin, pm, perm = pinocchio_model(model)
    data = pm.createData()
    rates = []
    for qs in traj.derivatives:
        q, v, a = pin_configuration(pin, model, qs[0]), qs[1, perm], qs[2, perm]
        dq, dv, M = pin.computeRNEADerivatives(pm, data, q, v, a)
        rates.append(dq @ v + dv @ a + (np.triu(M) + np.triu(M, 1).T) @ qs[3, perm])
    numeric = STENCIL @ np.array(rates) / h
    taudd = body_fixed.inverse_dynamics(model, traj, order=2, gravity=G)[4, 2, perm]
    assert np.abs(taudd - numeric).max() <= 1e-8 * np.abs(taudd).max()


@pytest.mark.parametrize("seed", [6])
def test_orders_three_and_four_are_rates_of_the_order_below(seed):
    model = random_model(seed, MIXED)
    h = 2e-3
    t = 1.3 + h * np.arange(-4, 5)
    tau = body_fixed.inverse_dynamics(model, analytic_motion(model, t, 6, seed), order=4,
                                      gravity=G)
    for k in (1, 2, 3, 4):
        numeric = STENCIL @ tau[:, k - 1] / h
        scale = np.abs(tau[4, k]).max()
        assert np.abs(tau[4, k] - numeric).max() <= 1e-7 * scale, f"order {k}"


def with_free_root(robot: Model) -> Model:
    """The robot with its root link moved by a free joint (a body carrying the root's
    inertia), welded to nothing."""
    return Model("free", "world", ("root", *robot.joint_names), ("free", *robot.joint_types),
                 (robot.root_link, *robot.link_names), np.array([-1, *(robot.parent + 1)]),
                 np.concatenate([np.eye(4)[None], robot.B]),
                 np.concatenate([np.zeros((1, 6)), robot.X]),
                 np.concatenate([robot.root_inertia[None], robot.inertias]))


@pytest.mark.parametrize("name", ["planar_2r", "quadruped"])
def test_free_root_is_the_floating_base(name):
    """A free joint at the root moving as a floating base's columns gives that base's
    numbers: the joints' tau and, as the free joint's tau, the wrench the supports exert on
    the root (``-W_base``); the base's motion from the robot's kinematics
    (:func:`conftest.floating_motion`)."""
    from conftest import URDF
    from hodyn_cli.modeling.urdf import parse_model

    text = (URDF / f"{name}.urdf").read_text()
    robot = parse_model(text.encode())
    traj, base, _, _ = floating_motion(text, robot, np.linspace(0, 1.5, 4), base_orders=4)
    tau, W = floating.inverse_dynamics(robot, traj, order=2)
    free = with_free_root(robot)
    qs = np.empty((traj.n_samples, 5, free.nv))
    qs[:, 0, :6] = np.concatenate([lie.rotation_log(base.R), base.p], axis=1)
    qs[:, 1:, :6] = base.Vb[:, :4]
    qs[:, :, 6:] = traj.derivatives[:, :5]
    out = body_fixed.inverse_dynamics(free, Trajectory(free.dof_names, qs), order=2)
    assert np.abs(out[..., 6:] - tau).max() <= 1e-11 * np.abs(tau).max()
    assert np.abs(out[..., :6] + W).max() <= 1e-11 * np.abs(W).max()


def floating_and_free(kinds: tuple[str, ...], samples: int, orders: int):
    """A random tree of ``kinds`` on a floating root with an inertia, the same tree under a
    free root joint (:func:`with_free_root`), that one's analytic motion q (``samples`` over
    2 s, ``orders`` derivatives) and the floating root's motion read off its first 6 DOFs."""
    from hodyn_cli.core.trajectory import BaseMotion

    robot = random_model(8, kinds)
    robot = Model(robot.name, "base", robot.joint_names, robot.joint_types, robot.link_names,
                  robot.parent, robot.B, robot.X, robot.inertias,
                  root_inertia=lie.body_inertia(3.0, np.array([0.1, -0.2, 0.05]),
                                                np.diag([0.2, 0.3, 0.25])))
    free = with_free_root(robot)
    qs = analytic_motion(free, np.linspace(0, 2, samples), orders, 8).derivatives
    base = BaseMotion(lie.rotation_vector_exp(qs[:, 0, :3]), qs[:, 0, 3:6], qs[:, 1:, :6])
    return robot, free, qs, base

def test_a_floating_base_carries_multi_dof_joints():
    """The floating driver (body-fixed) on a tree of ball, planar and free joints: the same
    numbers as the tree under a free root joint, orders 0..3."""
    robot, free, qs, base = floating_and_free(("spherical", "revolute", "planar", "free",
                                               "spherical"), samples=4, orders=4)
    tau, W = floating.inverse_dynamics(robot, Trajectory(robot.dof_names, qs[..., 6:],
                                                         base=base), order=3)
    out = body_fixed.inverse_dynamics(free, Trajectory(free.dof_names, qs), order=3)
    assert np.abs(out[..., 6:] - tau).max() <= 1e-11 * np.abs(tau).max()
    assert np.abs(out[..., :6] + W).max() <= 1e-11 * np.abs(W).max()


def test_helical_joint_pitch_zero_is_revolute():
    """A helical joint of pitch 0 gives a revolute joint's numbers (its adjoint from the
    pose, the revolute's by Rodrigues on ad_X)."""
    rev = random_model(9, ("revolute", "revolute", "prismatic"))
    hel = Model("h", "root", rev.joint_names, ("helical", "revolute", "prismatic"),
                rev.link_names, rev.parent, rev.B, rev.X, rev.inertias)
    traj = analytic_motion(rev, np.linspace(0, 1, 3), 4)
    a, b = (body_fixed.inverse_dynamics(m, traj, order=2) for m in (rev, hel))
    assert np.abs(a - b).max() <= 1e-12 * np.abs(a).max()


def test_joint_poses_and_subspaces():
    """A joint's body twist is S nu: the time derivative of its pose J along the motion,
    ``J^-1 J'``, by differences."""
    model = random_model(10, ("spherical", "planar", "free"))
    h = 1e-3
    traj = analytic_motion(model, 0.4 + h * np.arange(-4, 5), 1, 10)
    for i, (kind, S) in enumerate(zip(model.joint_types, model.subspaces, strict=True)):
        v = slice(int(model.dof_offsets[i]), int(model.dof_offsets[i + 1]))
        R, p = joint_pose(kind, model.X[i], traj.derivatives[:, 0, v])
        Rd, pd = np.tensordot(STENCIL, R, 1) / h, STENCIL @ p / h
        W = R[4].T @ Rd                                    # skew(omega), body frame
        twist = np.concatenate([[W[2, 1], W[0, 2], W[1, 0]], R[4].T @ pd])
        assert np.abs(twist - S @ traj.derivatives[4, 1, v]).max() <= 1e-9, kind


def test_refused_in_one_line_where_not_built():
    """An operation that does not run them yet (the Slotine-Li regressor), and a model that is
    not a screw of its type, say so in one line."""
    from hodyn_cli.algorithms.dynamics.regressor import slotine_li_regressor

    model = random_model(11, ("revolute", "spherical"))
    traj = analytic_motion(model, np.linspace(0, 1, 2), 4)
    with pytest.raises(HodynError, match="joint 'j1' is spherical: only the "):
        slotine_li_regressor(model, traj, np.zeros((2, 4)), np.zeros((2, 4)))
    X = model.X.copy()
    X[1, 0] = 1.0
    with pytest.raises(ModelError, match="a spherical joint's screw X must be 0"):
        Model("m", "root", model.joint_names, model.joint_types, model.link_names,
              model.parent, model.B, X, model.inertias)
    assert comb(4, 2) == 6  # the stencil tables' binomials, as the recursion's


def test_info_names_each_joints_coordinates():
    import json

    from typer.testing import CliRunner

    from conftest import URDF
    from hodyn_cli.cli.app import app

    result = CliRunner().invoke(app, ["info", str(URDF / "mobile_2r.urdf"), "--json"])
    joints = json.loads(result.stdout)["joints"]
    assert [(j["coordinates"], j["Y"] is None) for j in joints] == [
        (["drive_vx", "drive_vy", "drive_wz"], True), (["shoulder"], False),
        (["elbow"], False)]


def test_a_multi_dof_joint_is_not_locked():
    from hodyn_cli.modeling.locking import lock
    from hodyn_cli.modeling.urdf import parse_model

    with pytest.raises(ModelError, match="--lock: joint 'slide' is planar: only revolute"):
        lock(parse_model(URDF_JOINTS.encode()), {"slide": 0.0})


def test_every_backend_runs_them():
    """The compiled kernels run a model with multi-DOF and helical joints themselves
    (tests/test_kernel_joint_kinds.py), the GPU backend (on JAX's CPU device where JAX is
    installed) hands it to its host backend (the compiled kernels, else numpy): numpy's
    numbers to rounding."""
    from hodyn_cli.algorithms import backends

    model = random_model(13, ("helical", "spherical", "revolute", "free"))
    traj = analytic_motion(model, np.linspace(0, 1, 3), 3, 13)
    with backends.use("numpy"):
        ref = body_fixed.inverse_dynamics(model, traj, order=2)
    for name, options in (("compiled", {}), ("gpu", {"device": "cpu"})):
        try:
            with backends.use(name, **options):
                out = body_fixed.inverse_dynamics(model, traj, order=2)
        except backends.Unavailable:
            continue
        assert np.abs(out - ref).max() <= 1e-12 * np.abs(ref).max(), name


def test_compute_reads_poses_and_writes_a_column_per_dof(tmp_path):
    """``hodyn compute`` on a URDF with floating and planar joints: pose columns and
    ``qd_<dof>`` rates in, ``tau_<dof>`` out, the library's numbers (through the CSV's 17
    digits and the rotation's matrix); a rotation that is not one, a missing pose column and a
    ``q_`` column of a multi-DOF joint are one line, exit 2, no output."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app
    from hodyn_cli.io import read_trajectory, write_trajectory
    from hodyn_cli.modeling.urdf import parse_model

    robot = tmp_path / "joints.urdf"
    robot.write_text(URDF_JOINTS)
    model = parse_model(URDF_JOINTS.encode())
    traj = analytic_motion(model, np.linspace(0, 1, 6), 4, 14)
    write_trajectory(str(tmp_path / "in.csv"), traj, model=model)
    back = read_trajectory(str(tmp_path / "in.csv"), model, need=6)   # as written
    assert back.joint_names == model.dof_names
    assert np.abs(back.derivatives - traj.derivatives).max() <= 1e-14
    out = tmp_path / "tau.csv"
    result = CliRunner().invoke(app, ["compute", str(robot), str(tmp_path / "in.csv"), "-o",
                                      str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    header = out.read_text().splitlines()[0].split(",")
    assert header[:4] == ["t", "tau_shoulder", "tau_hover_wx", "tau_hover_wy"]
    table = np.loadtxt(out, delimiter=",", skiprows=1)
    ref = body_fixed.inverse_dynamics(model, traj, order=2)
    for k, base in enumerate(("tau", "taud", "taudd")):
        got = table[:, [header.index(f"{base}_{d}") for d in model.dof_names]]
        assert np.abs(got - ref[:, k]).max() <= 1e-12 * np.abs(ref[:, k]).max(), base
    text = (tmp_path / "in.csv").read_text().splitlines()
    names = text[0].split(",")
    bad = [row.split(",") for row in text[1:]]
    bad[2][names.index("hover_R_11")] = "1.5"
    cases = {
        "rotation": ("\n".join([text[0]] + [",".join(r) for r in bad]),
                     "hover_R at sample 2 is not a rotation"),
        "pose": ("\n".join(",".join(v for v, n in zip(row.split(","), names, strict=True)
                                    if n != "slide_theta") for row in text),
                 "missing columns slide_theta (the pose of each multi-DOF joint)"),
        "q_": ("\n".join([text[0] + ",q_hover_wx"] + [row + ",0" for row in text[1:]]),
               "column 'q_hover_wx': joint 'hover' has several degrees of freedom: its pose "
               "is hover_p_x"),
    }
    for name, (csv, message) in cases.items():
        (tmp_path / f"{name}.csv").write_text(csv + "\n")
        target = tmp_path / f"{name}_tau.csv"
        result = CliRunner().invoke(app, ["compute", str(robot), str(tmp_path / f"{name}.csv"),
                                          "-o", str(target)])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert message in result.stderr and not target.exists(), name


def test_write_trajectory_refuses_a_file_it_could_not_read_back(tmp_path):
    """write_trajectory without the model of a trajectory whose coordinates are named as a
    multi-DOF joint's (``hover_wx``, ...: their row 0 a rotation vector, which the reader
    refuses as ``q_hover_wx``) and of no samples (the reader refuses a file without data
    rows), CSV and HDF5: a one-line TrajectoryError naming the file, an existing file
    untouched. With the model it writes what read_trajectory reads back; 1-DOF joints whose
    names end like a ball's coordinates but not all of them need no model."""
    from hodyn_cli.errors import TrajectoryError
    from hodyn_cli.io import read_trajectory, write_trajectory
    from hodyn_cli.modeling.urdf import parse_model

    model = parse_model(URDF_JOINTS.encode())
    traj = analytic_motion(model, np.linspace(0, 1, 6), 1, 3)
    for name in ("out.csv", "out.h5"):
        path = tmp_path / name
        path.write_text("kept")
        empty = Trajectory(traj.joint_names, traj.derivatives[:0], traj.t[:0])
        for bad, words in ((traj, "multi-DOF joint 'hover'"), (empty, "no samples")):
            with pytest.raises(TrajectoryError, match=words) as e:
                write_trajectory(str(path), bad)
            assert e.value.source == str(path) and "\n" not in str(e.value)
            assert path.read_text() == "kept"
    write_trajectory(str(tmp_path / "out.csv"), traj, model=model)
    back = read_trajectory(str(tmp_path / "out.csv"), model, need=3)
    assert np.abs(back.derivatives - traj.derivatives).max() <= 1e-14
    two = Trajectory(("hip_wx", "hip_wy"), traj.derivatives[:, :, :2], traj.t)
    write_trajectory(str(tmp_path / "two.csv"), two)
    assert (tmp_path / "two.csv").read_text().startswith("t,q_hip_wx,q_hip_wy,qd_hip_wx")


def test_the_bundled_mobile_base_and_its_sample_motion():
    """urdf/mobile_2r.urdf (a URDF planar joint under a 2R arm) and its shipped trajectory:
    Pinocchio's numbers at a few samples, and the file's rates are rates (taud against the
    8th-order difference of tau over the file's own samples, 100 Hz)."""
    from conftest import SAMPLES, URDF
    from hodyn_cli.io import read_trajectory
    from hodyn_cli.modeling.urdf import load_model

    pin = pytest.importorskip("pinocchio")
    model = load_model(URDF / "mobile_2r.urdf")
    assert model.joint_types == ("planar", "revolute", "revolute")
    traj = read_trajectory(str(SAMPLES / "mobile_2r_cosine.csv"), model, need=5)
    some = Trajectory(traj.joint_names, traj.derivatives[100:109], traj.t[100:109])
    pm = pin.buildModelFromUrdf(str(URDF / "mobile_2r.urdf"))
    pm.gravity = pin.Motion(np.array([*G, 0, 0, 0]))
    assert_equal_pinocchio(model, pin, pm, Trajectory(some.joint_names, some.derivatives[::4]))
    tau = body_fixed.inverse_dynamics(model, some, order=1, gravity=G)
    numeric = STENCIL @ tau[:, 0] / (some.t[1] - some.t[0])
    assert np.abs(numeric - tau[4, 1]).max() <= 1e-7 * np.abs(tau[4, 1]).max()


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20, 32))
def test_sweep_of_random_trees(seed):
    """Twelve more random trees of 6-14 joints of random types: Pinocchio to order 1, orders
    2-4 by differences of the order below."""
    rng = np.random.default_rng(seed)
    kinds = tuple(rng.choice(KINDS, size=int(rng.integers(6, 15))))
    model = random_model(seed, kinds)
    pin, pm, _ = pinocchio_model(model)
    assert_equal_pinocchio(model, pin, pm, analytic_motion(model, np.linspace(0, 3, 4), 4, seed))
    h = 2e-3
    tau = body_fixed.inverse_dynamics(model, analytic_motion(
        model, 0.9 + h * np.arange(-4, 5), 6, seed), order=4, gravity=G)
    for k in range(1, 5):
        numeric = STENCIL @ tau[:, k - 1] / h
        assert np.abs(tau[4, k] - numeric).max() <= 1e-6 * np.abs(tau[4, k]).max(), k


def test_external_and_joint_wrenches_equal_pinocchios():
    """Constant wrenches that bodies exert on their environment (hodyn's sign: Pinocchio's
    ``fext`` is minus them): tau and taud equal rnea and computeRNEADerivatives with fext; the
    joint wrenches F_i (what the parent exerts through joint i, child frame) equal
    Pinocchio's ``data.f`` after rnea."""
    from hodyn_cli.core.trajectory import Wrenches

    model = random_model(15, MIXED)
    rng = np.random.default_rng(15)
    t = np.linspace(0, 1, 3)
    W = {f"l{i}": rng.normal(size=6) for i in (0, 2, 3, 5, 8)}
    base = analytic_motion(model, t, 4, 15)
    traj = Trajectory(base.joint_names, base.derivatives, t, Wrenches(
        {link: np.stack([np.broadcast_to(w, (3, 6)), np.zeros((3, 6))], axis=1)
         for link, w in W.items()}))
    tau = body_fixed.inverse_dynamics(model, traj, order=1, gravity=G)
    F = body_fixed.joint_wrenches(model, traj, order=0, gravity=G)
    pin, pm, perm = pinocchio_model(model)
    data = pm.createData()
    frames = [pin_frame(model, i) for i in range(model.n)]

    def linear_first(w, i):   # hodyn's (moment; force), body frame -> pin's Force
        return pin.Force(frames[i].T @ w[3:], frames[i].T @ w[:3])

    fext = [pin.Force.Zero()] + [linear_first(-W.get(f"l{i}", np.zeros(6)), i)
                                 for i in range(model.n)]
    for s in range(traj.n_samples):
        qs = traj.derivatives[s]
        q = pin_configuration(pin, model, qs[0])
        v, a, jerk = qs[1, perm], qs[2, perm], qs[3, perm]
        ref = pin.rnea(pm, data, q, v, a, fext)
        for i in range(model.n):
            f = linear_first(F[s, 0, i], i)
            assert np.abs(f.vector - data.f[i + 1].vector).max() <= 1e-12 * np.abs(F).max()
        dq, dv, M = pin.computeRNEADerivatives(pm, data, q, v, a, fext)
        rate = dq @ v + dv @ a + (np.triu(M) + np.triu(M, 1).T) @ jerk
        assert np.abs(tau[s, 0, perm] - ref).max() <= 1e-12 * np.abs(ref).max()
        assert np.abs(tau[s, 1, perm] - rate).max() <= 1e-10 * np.abs(rate).max()


def test_compute_with_a_floating_base_wrenches_and_joint_wrenches(tmp_path):
    """``compute`` on the mobile base's robot with ``--floating-base --base-wrench`` (its
    root floating as well: the base columns and the joints' poses in one CSV), with a wrench
    file, and ``--joint-wrenches``: the library's numbers."""
    import h5py
    from typer.testing import CliRunner

    from conftest import SAMPLES, URDF
    from hodyn_cli.cli.app import app
    from hodyn_cli.core.trajectory import BaseMotion, Wrenches
    from hodyn_cli.io import read_trajectory, write_trajectory
    from hodyn_cli.modeling.urdf import load_model

    robot = URDF / "mobile_2r.urdf"
    model = load_model(robot)
    traj = read_trajectory(str(SAMPLES / "mobile_2r_cosine.csv"), model, need=5)
    traj = Trajectory(traj.joint_names, traj.derivatives[:8, :5], traj.t[:8])
    free = with_free_root(model)
    floated = analytic_motion(free, traj.t, 3, 16).derivatives[..., :6]
    base = BaseMotion(lie.rotation_vector_exp(floated[:, 0, :3]), floated[:, 0, 3:],
                      floated[:, 1:])
    moving = Trajectory(traj.joint_names, traj.derivatives, traj.t, base=base)
    write_trajectory(str(tmp_path / "floating.csv"), moving, model=model)

    def compute(*args):
        result = CliRunner().invoke(app, ["compute", str(robot), *map(str, args), "--quiet"])
        assert result.exit_code == 0, result.output
        return result

    compute(tmp_path / "floating.csv", "--floating-base", "--base-wrench", "-o",
            tmp_path / "floating_tau.h5")
    tau, W = floating.inverse_dynamics(model, moving, order=2)
    with h5py.File(tmp_path / "floating_tau.h5") as f:
        assert list(f.attrs["joint_names"]) == list(model.dof_names)
        assert np.abs(f["taud"][()] - tau[:, 1]).max() <= 1e-12 * np.abs(tau[:, 1]).max()
        assert np.abs(f["wrench/world/Wd"][()] - W[:, 1]).max() <= 1e-12 * np.abs(W).max()
    w = np.array([0.5, -1.0, 0.3, 4.0, -2.0, 7.0])   # the forearm pushes, constant
    (tmp_path / "w.csv").write_text("W_forearm_mx,W_forearm_my,W_forearm_mz,W_forearm_fx,"
                                    "W_forearm_fy,W_forearm_fz,Wd_forearm_mx,Wd_forearm_my,"
                                    "Wd_forearm_mz,Wd_forearm_fx,Wd_forearm_fy,Wd_forearm_fz,"
                                    "Wdd_forearm_mx,Wdd_forearm_my,Wdd_forearm_mz,"
                                    "Wdd_forearm_fx,Wdd_forearm_fy,Wdd_forearm_fz\n"
                                    + (",".join(map(str, [*w, *[0.0] * 12])) + "\n") * 8)
    write_trajectory(str(tmp_path / "fixed.csv"), traj, model=model)
    compute(tmp_path / "fixed.csv", "--wrench", tmp_path / "w.csv", "--joint-wrenches", "-o",
            tmp_path / "pushed.h5")
    pushed = Trajectory(traj.joint_names, traj.derivatives, traj.t, Wrenches(
        {"forearm": np.broadcast_to(np.concatenate([w, np.zeros(12)]).reshape(3, 6),
                                    (8, 3, 6))}))
    tau = body_fixed.inverse_dynamics(model, pushed, order=2)
    F = body_fixed.joint_wrenches(model, pushed, order=2)
    with h5py.File(tmp_path / "pushed.h5") as f:
        assert np.abs(f["taudd"][()] - tau[:, 2]).max() <= 1e-12 * np.abs(tau[:, 2]).max()
        assert np.abs(f["joint_wrench/base_link/Fd"][()] - F[:, 1, 0]).max() \
            <= 1e-12 * np.abs(F).max()


def test_helical_joints_in_the_numpy_references_of_the_kernels():
    """The numpy references the compiled kernels are held to on helical joints
    (tests/test_kernel_joint_kinds.py) compute them right: the closed-form matrices give tau
    and its rate (``M qdd + C qd + g`` and its derivative), the regressor times the inertial
    parameters gives tau to order 2, and the complex-step sensitivities of order 0 are
    Pinocchio's computeRNEADerivatives (d tau/dq, d tau/dqd and the mass matrix)."""
    from hodyn_cli.algorithms import backends
    from hodyn_cli.algorithms.dynamics import regressor
    from hodyn_cli.algorithms.dynamics.common import base_motion

    model = random_model(6, ("helical", "revolute", "helical", "prismatic", "helical"))
    qs = analytic_motion(model, np.linspace(0, 2, 4), 4, 6).derivatives
    numpy, gravity = backends.load("numpy"), base_motion(G, 3)
    data = numpy.data(model)
    tau = numpy.inverse_dynamics(model, data, qs, gravity, {}, order=2)
    E = numpy.eom_matrices(model, data, qs, 1, gravity, None)

    def mv(A, x):
        return np.einsum("nij,nj->ni", A, x)

    rate = (mv(E.M[:, 1], qs[:, 2]) + mv(E.M[:, 0], qs[:, 3]) + mv(E.C[:, 1], qs[:, 1])
            + mv(E.C[:, 0], qs[:, 2]) + E.g[:, 1])
    for ours, ref in ((mv(E.M[:, 0], qs[:, 2]) + mv(E.C[:, 0], qs[:, 1]) + E.g[:, 0],
                       tau[:, 0]), (rate, tau[:, 1]),
                      (numpy.regressor(model, data, qs, gravity, 2) @ regressor.parameters(model),
                       tau)):
        assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max()
    S = numpy.sensitivities(model, data, qs[:, :3], gravity[:, :2], {}, 0)
    pin, pm, _ = pinocchio_model(model)
    data = pm.createData()
    for s in range(len(qs)):
        dq, dv, M = pin.computeRNEADerivatives(pm, data, *qs[s, :3])
        for ours, ref in zip(S[:, s], (dq, dv, np.triu(M) + np.triu(M, 1).T), strict=True):
            assert np.abs(ours - ref).max() <= 1e-11 * np.abs(ref).max()
