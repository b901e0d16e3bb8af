"""MuJoCo as the reference of the MJCF reader (tests/test_mjcf.py, test_mjcf_corpus.py):
compiled masses and inertias, and ``mj_inverse``'s generalized forces with everything but
the rigid-body dynamics switched off (passive forces, constraints, armature)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hodyn_cli import api
from hodyn_cli.core.trajectory import BaseMotion, Trajectory
from hodyn_cli.modeling.mjcf import body_inertias

mujoco = pytest.importorskip("mujoco")
# MuJoCo's own warnings (settotalmass is deprecated, ...) would go to stderr and to a file
# MUJOCO_LOG.TXT in the working directory (the repository's); they say nothing to the tests
mujoco.set_mju_user_warning(lambda message: None)

#: the gravity both sides use: oblique, so that no axis hides a wrong frame
GRAVITY = np.array([0.3, -0.2, -9.81])


def quat_matrix(q: np.ndarray) -> np.ndarray:
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, q)
    return R.reshape(3, 3)


def inertia_errors(path: Path) -> dict[str, tuple[float, float, bool]]:
    """Per body: (the largest relative difference of mass and COM, that of the rotational
    inertia about the COM in the body frame (``R(body_iquat) diag(body_inertia) R^T``, free
    of the principal axes' order and sign), whether it came from a mesh) between hodyn and
    MuJoCo's compiled model."""
    m = mujoco.MjModel.from_xml_path(str(path))
    ours = body_inertias(path)
    out = {}
    for b in range(1, m.nbody):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) or f"body{b}"
        R = quat_matrix(m.body_iquat[b])
        theta = (R * m.body_inertia[b]) @ R.T
        mine = ours[name]
        mass = abs(mine.mass - m.body_mass[b]) / max(m.body_mass[b], 1e-300)
        if m.body_mass[b] > 0:  # the COM of a massless body means nothing
            mass = max(mass, np.abs(mine.pos - m.body_ipos[b]).max()
                       / max(np.abs(m.body_ipos[b]).max(), 1e-3))
        rotational = np.abs(mine.theta - theta).max() / np.abs(theta).max() if theta.any() \
            else float(np.abs(mine.theta).max())
        out[name] = (float(mass), float(rotational), "mesh" in mine.source)
    return out


def assert_inertias(path: Path) -> tuple[float, float]:
    """Masses, COMs and inertias to 1e-12 (bodies with a mesh too: their inertias are built on
    MuJoCo's mesh frames, which are not exact principal axes, as MuJoCo builds them); returns
    the largest errors (bodies without a mesh, bodies with one)."""
    errors = inertia_errors(path)
    plain = max([max(e[0], e[1]) for e in errors.values() if not e[2]] + [0.0])
    meshes = max([max(e[0], e[1]) for e in errors.values() if e[2]] + [0.0])
    assert plain < 1e-12 and meshes < 1e-12, errors
    return plain, meshes


def rigid_body_only(path: Path):
    """The compiled MuJoCo model with only rigid-body dynamics and :data:`GRAVITY` left."""
    m = mujoco.MjModel.from_xml_path(str(path))
    off = mujoco.mjtDisableBit
    m.opt.disableflags |= off.mjDSBL_CONSTRAINT | off.mjDSBL_SPRING | off.mjDSBL_DAMPER
    m.opt.disableflags &= ~int(off.mjDSBL_GRAVITY)
    m.dof_armature[:] = m.dof_damping[:] = m.dof_frictionloss[:] = m.jnt_stiffness[:] = 0
    m.body_gravcomp[:] = 0
    m.opt.density = m.opt.viscosity = 0
    m.opt.gravity[:] = GRAVITY
    return m


def mj_inverse(m, qpos: np.ndarray, qvel: np.ndarray, qacc: np.ndarray) -> np.ndarray:
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:], d.qacc[:] = qpos, qvel, qacc
    mujoco.mj_inverse(m, d)
    return d.qfrc_inverse.copy()


def quaternion(r: np.ndarray) -> np.ndarray:
    """MuJoCo's unit quaternion (w, x, y, z) of the rotation vector r (3,) (mju_axisAngle2Quat,
    independent of hodyn's rotations)."""
    quat = np.array([1.0, 0, 0, 0])
    angle = float(np.linalg.norm(r))
    if angle > 0:
        mujoco.mju_axisAngle2Quat(quat, r / angle, angle)
    return quat


def mujoco_qpos(model, coordinates: np.ndarray) -> np.ndarray:
    """MuJoCo's qpos of the joints from hodyn's configuration coordinates (nv,): a ball
    joint's rotation vector as its quaternion, other joints' values as they are."""
    o = model.dof_offsets
    return np.concatenate([quaternion(coordinates[o[i]:o[i + 1]]) if kind == "spherical"
                           else coordinates[o[i]:o[i + 1]]
                           for i, kind in enumerate(model.joint_types)]) if model.n else \
        np.zeros(0)


def random_state(model, rng):
    """A random state in MuJoCo's coordinates (qpos, qvel, qacc) and hodyn's trajectory of it
    (one sample; a ball joint's rotation vector as MuJoCo's quaternion; a free root's motion
    converted: MuJoCo's free joint has the linear velocity in the world frame and the angular
    one in the body frame, hodyn's base the body twist)."""
    q, qd, qdd = rng.normal(size=(3, model.nv))
    qpos = mujoco_qpos(model, q)
    names = model.dof_names  # every joint: mj_inverse reads mimic joints' qpos too
    if model.root_link == "world":
        return (qpos, qd, qdd), Trajectory(names, np.stack([q, qd, qdd])[None])
    quat = rng.normal(size=4)
    quat /= np.linalg.norm(quat)
    p, v, w, vd, wd = rng.normal(size=(5, 3))
    R = quat_matrix(quat)
    vb = R.T @ v
    Vb = np.concatenate([w, vb])
    Vbd = np.concatenate([wd, R.T @ vd - np.cross(w, vb)])  # d/dt (R^T v)
    base = BaseMotion(R[None], p[None], np.stack([Vb, Vbd])[None])
    mj = (np.concatenate([p, quat, qpos]), np.concatenate([v, w, qd]),
          np.concatenate([vd, wd, qdd]))
    return mj, Trajectory(names, np.stack([q, qd, qdd])[None], base=base)


def torque_error(path: Path, model, samples: int = 3, seed: int = 0) -> float:
    """max |hodyn - MuJoCo| / torque scale over random states: joint torques, and for a free
    root the base wrench against the free joint's forces (force in the world frame, moment in
    the body frame, applied to the body: W = -(moment; R^T force))."""
    m = rigid_body_only(path)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(samples):
        (qpos, qvel, qacc), traj = random_state(model, rng)
        ref = mj_inverse(m, qpos, qvel, qacc)
        if traj.base is None:
            ours = api.inverse_dynamics(model, traj, order=0, gravity=GRAVITY).tau[0]
        else:
            res = api.inverse_dynamics(model, traj, order=0, gravity=GRAVITY, base_wrench=True)
            R = traj.base.R[0]
            ours = np.concatenate([-R @ res.W[0, 3:], -res.W[0, :3], res.tau[0]])
        scale = np.abs(ref).max()
        worst = max(worst, float(np.abs(ours - ref).max() / scale))
    return worst


def pinocchio_error(path: Path, model, samples: int = 3, seed: int = 0) -> float | None:
    """max |hodyn - pin.rnea| / torque scale of Pinocchio's ``buildModelFromMJCF`` model
    (None where it does not read the model, or reads another number of coordinates; fixed
    bases only: its free root has other conventions). A ball joint is Pinocchio's
    JointModelSpherical: its configuration MuJoCo's quaternion as (x, y, z, w), its velocity
    the angular velocity in the child frame, as hodyn's and MuJoCo's."""
    try:
        import pinocchio as pin
    except ImportError:
        return None
    if model.root_link != "world":
        return None
    try:
        pm = pin.buildModelFromMJCF(str(path))
    except Exception:  # noqa: BLE001 - any refusal of Pinocchio's parser: not read
        return None
    if pm.nq != len(mujoco_qpos(model, np.zeros(model.nv))) or pm.nv != model.nv:
        return None
    pm.gravity.linear = GRAVITY
    data = pm.createData()
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(samples):
        q, qd, qdd = rng.normal(size=(3, model.nv))
        o = model.dof_offsets
        q_pin = np.concatenate([quaternion(q[o[i]:o[i + 1]])[[1, 2, 3, 0]]
                                if kind == "spherical" else q[o[i]:o[i + 1]]
                                for i, kind in enumerate(model.joint_types)])
        ref = pin.rnea(pm, data, q_pin, qd, qdd)
        traj = Trajectory(model.dof_names, np.stack([q, qd, qdd])[None])
        ours = api.inverse_dynamics(model, traj, order=0, gravity=GRAVITY).tau[0]
        worst = max(worst, float(np.abs(ours - ref).max() / np.abs(ref).max()))
    return worst


def rate_errors(path: Path, model, seed: int = 0) -> tuple[float, float]:
    """(taud, taudd) of hodyn along an analytic cosine motion (ball joints: turning as
    ``exp(th1 e1) exp(th2 e2)``, tests/test_joint_models.py) against the 8th-order central
    differences of MuJoCo's tau at the stencil's times, relative to each one's scale (fixed
    bases)."""
    from test_joint_models import analytic_motion

    from conftest import STENCIL, STENCIL2, random_cosine

    m = rigid_body_only(path)
    t0, h = np.array([0.4, 1.3]), 1e-3
    t = (t0[:, None] + np.arange(-4, 5) * h).ravel()
    traj = analytic_motion(model, t, K=3, seed=seed) if model.multi_dof else \
        random_cosine(model, t, orders=5, seed=seed)
    ours = api.inverse_dynamics(model, traj, order=2, gravity=GRAVITY)
    q = traj.derivatives
    ref = np.array([mj_inverse(m, mujoco_qpos(model, q[s, 0]), q[s, 1], q[s, 2])
                    for s in range(len(t))])
    ref = ref.reshape(len(t0), 9, -1)
    errors = []
    for field, stencil, power in (("taud", STENCIL, 1), ("taudd", STENCIL2, 2)):
        numeric = np.tensordot(stencil, ref, axes=(0, 1)) / h ** power
        got = getattr(ours, field)[4::9]
        errors.append(float(np.abs(got - numeric).max() / np.abs(got).max()))
    return errors[0], errors[1]


def assert_refused(path: Path, message: str) -> None:
    """Loading ``path`` is a ModelError naming the file and saying ``message``, and ``hodyn
    info`` on it exits 2 with that one line."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app
    from hodyn_cli.errors import ModelError
    from hodyn_cli.modeling.urdf import load_model

    with pytest.raises(ModelError) as err:
        load_model(path)
    assert message in str(err.value) and str(path) in str(err.value)
    result = CliRunner().invoke(app, ["info", str(path)])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and message in result.output
