"""Contacts on a robot with a ``<mimic>`` joint: the gripper arm on a floating base, its right
finger following the left one (``q_r = -0.8 q_l + 0.03``), held by a sole on the right finger
(beyond the mimic joint) and a point on the left one.

Independent builds: Pinocchio's free flyer on the robot without the mimic (every joint moved,
the right finger as the mimic says), with the mimic expanded by its matrix G written here from
the URDF line, ``tau_c = G^T tau``, ``Jc_c = Jc G'``, ``M_c = G'^T M G'`` (``G' = diag(I_6,
G)``); and hodyn on the robot without the mimic, moved the same way, projected the same way,
at every order. The command line gives the API's numbers, over the independent joints.
"""

from dataclasses import replace
from math import comb

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import (
    LINEAR_FIRST,
    URDF,
    free_flyer_q,
    free_flyer_rate,
    mimic_urdf,
    pinocchio_free_flyer,
    random_cosine,
)
from hodyn_cli import api
from hodyn_cli.cli.app import app
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import BaseMotion, Trajectory
from hodyn_cli.io import open_sink, trajectory_datasets
from hodyn_cli.io.results import base_datasets
from hodyn_cli.modeling.urdf import load_model

FOLLOWER, LEADER, GAIN, OFFSET = "finger_right_joint", "finger_left_joint", -0.8, 0.03
CONTACTS = """[contacts.grip]
link = "finger_right"
type = "surface"
sole = [0.02, 0.01]
friction = 0.8
position = [0.05, -0.005, 0.0]
rpy = [1.2, 0.1, 0.3]

[contacts.tip]
link = "finger_left"
type = "point"
friction = 0.5
position = [0.05, 0.01, 0.0]
"""
K = 2   # torque and matrix derivative orders checked


@pytest.fixture(scope="module")
def gripper(tmp_path_factory):
    """(directory, mimic model, plain model, contacts file, motion over the coordinates with a
    floating base, the same motion over every joint, G (n x m) from the mimic line)."""
    d = tmp_path_factory.mktemp("mimic_contacts")
    model = load_model(mimic_urdf(d, "gripper_arm", FOLLOWER, LEADER, GAIN, OFFSET))
    plain = load_model(URDF / "gripper_arm.urdf")
    (d / "contacts.toml").write_text(CONTACTS)
    G = np.zeros((plain.n, len(model.coordinate_names)))
    for c, name in enumerate(model.coordinate_names):
        G[plain.joint_index(name), c] = 1.0
    G[plain.joint_index(FOLLOWER), model.coordinate_names.index(LEADER)] = GAIN
    N = 4
    motion = random_cosine(plain, np.linspace(0, 2, N), orders=K + 3, seed=2)
    coords = motion.derivatives[:, :, [plain.joint_index(j) for j in model.coordinate_names]]
    rng = np.random.default_rng(3)
    R = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                  for a in rng.normal(size=(N, 3))])
    base = BaseMotion(R, rng.normal(size=(N, 3)), rng.normal(size=(N, K + 2, 6)))
    traj = Trajectory(model.coordinate_names, coords, motion.t, base=base)
    full = coords @ G.T
    full[:, 0, plain.joint_index(FOLLOWER)] += OFFSET
    return d, model, plain, d / "contacts.toml", traj, replace(traj, joint_names=plain.joint_names,
                                                               derivatives=full), G


def rooted(G):
    """``G' = diag(I_6, G)``."""
    out = np.zeros((6 + G.shape[0], 6 + G.shape[1]))
    out[:6, :6], out[6:, 6:] = np.eye(6), G
    return out


def pinocchio_with_contact_frames(plain, contacts):
    """Pinocchio's free-flyer model of the robot without the mimic, a frame per contact (its
    link's frame times the contact's T), and ``perm``: hodyn's columns at Pinocchio's."""
    pin, pm, _, order = pinocchio_free_flyer(URDF / "gripper_arm.urdf", plain)
    frames = []
    for c in contacts:
        link = pm.getFrameId(c.link)
        placement = pm.frames[link].placement * pin.SE3(c.T[:3, :3], c.T[:3, 3])
        frames.append(pm.addFrame(pin.Frame(f"contact_{c.name}", pm.frames[link].parentJoint,
                                            link, placement, pin.FrameType.OP_FRAME)))
    return pin, pm, pm.createData(), order, frames, LINEAR_FIRST + [6 + k for k in order]


def test_compute_on_contacts_matches_pinocchio_with_the_mimic_expanded(gripper):
    """Pinocchio's free-flyer ``rnea`` minus ``Jc^T Fc`` (a sole's LOCAL Jacobian, a point's
    LOCAL_WORLD_ALIGNED one) with hodyn's contact wrenches: nothing left on the base, and the
    joints' part projected by G^T is hodyn's torque of each independent joint."""
    _, model, plain, contacts, traj, full, G = gripper
    contacts = api.read_contacts(model, contacts)
    r = api.contact_dynamics(model, contacts, traj, order=0)
    assert r.tau.shape == (traj.n_samples, G.shape[1])
    pin, pm, data, order, frames, perm = pinocchio_with_contact_frames(plain, contacts)
    for s in range(traj.n_samples):
        q = free_flyer_q(pin, pm, order, traj.base.R[s], traj.base.p[s], full.q[s])
        v, a = (free_flyer_rate(order, traj.base.Vb[s, k], full.derivatives[s, k + 1])
                for k in (0, 1))
        rest = pin.rnea(pm, data, q, v, a)
        scale = np.abs(rest).max()
        pin.computeJointJacobians(pm, data, q)
        pin.updateFramePlacements(pm, data)
        for c, frame in zip(contacts, frames, strict=True):
            if c.kind == "surface":   # the sole's body twist; its wrench (force; moment)
                J = pin.getFrameJacobian(pm, data, frame, pin.ReferenceFrame.LOCAL)
                rest -= J.T @ r[f"Wc_{c.name}"][s][LINEAR_FIRST]
            else:                     # the point's velocity, world axes; its force
                J = pin.getFrameJacobian(pm, data, frame, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
                rest -= J[:3].T @ r[f"Fc_{c.name}"][s]
        joints = np.empty(plain.n)
        joints[order] = rest[6:]
        assert np.abs(rest[:6]).max() <= 1e-10 * scale, s
        assert np.abs(G.T @ joints - r.tau[s]).max() <= 1e-12 * scale, s


def test_every_order_is_the_robot_without_the_mimic_projected(gripper):
    """The robot without the mimic, moved as it says: the same contact wrenches and base
    wrench left over, and ``tau_c = G^T tau`` for tau, taud, taudd."""
    _, model, plain, contacts, traj, full, G = gripper
    ours = api.contact_dynamics(model, contacts, traj, order=K, base_wrench=True)
    ref = api.contact_dynamics(plain, contacts, full, order=K, base_wrench=True)
    assert set(ours) == set(ref) and np.array_equal(ours.active, ref.active)
    for name in set(ours) - {"active"}:
        expected = ref[name] @ G if name.startswith("tau") else ref[name]
        scale = max(np.abs(expected).max(), 1.0)
        assert np.abs(ours[name] - expected).max() <= 1e-12 * scale, name


def test_contact_matrices_are_over_the_independent_joints(gripper):
    """``Jc`` is Pinocchio's contact Jacobians times G' and M its ``G'^T crba G'``; every rate
    is the robot's without the mimic projected; over ``nu_c = (V_0; qd_c)`` the equations
    keep their form, ``M nu_c' + C nu_c + g + Q_ext = (-W; tau_c)``, with ``Q_ext = -Jc^T Fc``,
    at every order (Leibniz)."""
    _, model, plain, contacts, traj, full, G = gripper
    contacts = api.read_contacts(model, contacts)
    E = api.contact_matrices(model, contacts, traj, order=K)
    Gr = rooted(G)
    m = 6 + G.shape[1]
    assert E.joint_names[6:] == model.coordinate_names and E.M.shape[1:] == (m, m)
    assert E.Jc.shape[1:] == (9, m)
    ref = api.contact_matrices(plain, contacts, full, order=K)
    for name in E:
        A = ref[name]
        expected = (A if name.startswith("Fc") else A @ Gr if name.startswith(("Jc", "g", "Q"))
                    else Gr.T @ A @ Gr)
        assert np.abs(E[name] - expected).max() <= 1e-12 * np.abs(expected).max(), name

    pin, pm, data, order, frames, perm = pinocchio_with_contact_frames(plain, contacts)
    for s in range(traj.n_samples):
        q = free_flyer_q(pin, pm, order, traj.base.R[s], traj.base.p[s], full.q[s])
        pin.computeJointJacobians(pm, data, q)
        pin.updateFramePlacements(pm, data)
        rows = [pin.getFrameJacobian(pm, data, frames[0], pin.ReferenceFrame.LOCAL)[LINEAR_FIRST],
                pin.getFrameJacobian(pm, data, frames[1],
                                     pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)[:3]]
        J = np.empty((9, 6 + plain.n))
        J[:, perm] = np.concatenate(rows)
        M = np.empty((6 + plain.n, 6 + plain.n))
        crba = pin.crba(pm, data, q)
        M[np.ix_(perm, perm)] = np.triu(crba) + np.triu(crba, 1).T
        assert np.abs(E.Jc[s] - J @ Gr).max() <= 1e-12 * np.abs(J).max(), s
        assert np.abs(E.M[s] - Gr.T @ M @ Gr).max() <= 1e-12 * np.abs(M).max(), s

    r = api.contact_dynamics(model, contacts, traj, order=K, base_wrench=True)
    nu = np.concatenate([traj.base.Vb[:, : K + 2], traj.derivatives[:, 1 : K + 3]], axis=2)
    ddt = ("", "_d", "_dd")
    for k in range(K + 1):
        lhs = E[f"g{ddt[k]}"] + E[f"Q_ext{ddt[k]}"] + sum(
            comb(k, j) * np.einsum("nij,nj->ni", E[f"M{ddt[j]}"], nu[:, k - j + 1])
            + comb(k, j) * np.einsum("nij,nj->ni", E[f"C{ddt[j]}"], nu[:, k - j])
            for j in range(k + 1))
        rhs = np.concatenate([-r["W" + "d" * k], r["tau" + "d" * k]], axis=1)
        assert np.abs(lhs - rhs).max() <= 1e-10 * np.abs(rhs).max(), k
        JtF = sum(comb(k, j) * np.einsum("nij,ni->nj", E[f"Jc{ddt[j]}"], E[f"Fc{ddt[k - j]}"])
                  for j in range(k + 1))
        assert np.abs(E[f"Q_ext{ddt[k]}"] + JtF).max() <= 1e-12 * np.abs(JtF).max(), k


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_the_command_line_writes_the_independent_joints(gripper):
    """``compute --contacts`` and ``matrices --contacts`` on the mimic robot: a column (and
    a Jacobian column) per independent joint, the API's numbers."""
    d, model, _, contacts, traj, _, _ = gripper
    data, columns = trajectory_datasets(traj)
    more, cols = base_datasets(traj)
    with open_sink(str(d / "grip.csv"), columns | cols, {}) as sink:
        sink.write(data | more)
    robot = d / "gripper_arm_mimic.urdf"
    r = run("compute", robot, d / "grip.csv", "--floating-base", "--contacts", contacts,
            "--order", "1", "-o", d / "tau.csv", "-q")
    assert r.exit_code == 0, r.output
    got = np.genfromtxt(d / "tau.csv", delimiter=",", names=True)
    ref = api.contact_dynamics(model, contacts, traj, order=1)
    assert FOLLOWER not in " ".join(got.dtype.names)
    for name in ("tau", "taud"):
        for j, joint in enumerate(model.coordinate_names):
            assert np.allclose(got[f"{name}_{joint}"], ref[name][:, j], rtol=1e-12, atol=1e-12)
    assert np.allclose(got["Wc_grip_fz"], ref.Wc_grip[:, 5], rtol=1e-12, atol=1e-12)
    r = run("matrices", robot, d / "grip.csv", "--floating-base", "--contacts", contacts,
            "--order", "1", "-o", d / "eom.h5", "-q")
    assert r.exit_code == 0, r.output
    ref = api.contact_matrices(model, contacts, traj, order=1)
    with h5py.File(d / "eom.h5") as f:
        assert tuple(f.attrs["joint_names"]) == model.coordinate_names
        for name in ("Jc", "Jc_d", "M", "Q_ext_d", "Fc"):
            assert np.allclose(f[name][:], ref[name], rtol=1e-12, atol=1e-12), name
