"""A MuJoCo log of ball joints' poses alone (qpos quaternions and time, as a user saves
``data.qpos``), imported by ``hodyn import`` and differentiated on the groups by
``--estimate-derivatives`` (:mod:`hodyn_cli.algorithms.motion.group_estimate`): the estimated
angular velocities and their rates are MuJoCo's own qvel and qacc, and the torques of the
motion MuJoCo integrated without any applied force vanish."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import ROOT
from hodyn_cli.modeling.urdf import load_model

mjr = pytest.importorskip("mjcf_reference")  # skips where mujoco is not installed
mujoco = mjr.mujoco
CHAIN = ROOT / "mjcf" / "ball_chain.xml"
STEP = 5e-4


def passive_log(seconds: float) -> dict[str, np.ndarray]:
    """qpos, qvel, qacc, time of ball_chain.xml moving under gravity alone from a turned,
    spinning state, integrated by MuJoCo's RK4 at 2 kHz (smooth: no applied force)."""
    m = mjr.rigid_body_only(CHAIN)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.timestep = STEP
    d = mujoco.MjData(m)
    rng = np.random.default_rng(4)
    d.qpos[:] = d.qpos + 0.3 * rng.normal(size=m.nq)
    mujoco.mj_normalizeQuat(m, d.qpos)
    d.qvel[:] = 0.2 * rng.normal(size=m.nv)
    log: dict[str, list] = {"qpos": [], "qvel": [], "qacc": [], "time": []}
    for _ in range(int(round(seconds / STEP)) + 1):
        mujoco.mj_forward(m, d)
        for key in log:
            log[key].append(np.array(getattr(d, key), copy=True))
        mujoco.mj_step(m, d)
    return {k: np.array(v) for k, v in log.items()}


def _estimated(model, log: dict[str, np.ndarray]) -> np.ndarray:
    """(N, 3, nv) the poses of MuJoCo's log (its quaternions, as ``hodyn import`` reads
    them) and their velocity coordinates and rate estimated on the groups, in chunks."""
    from hodyn_cli.api import estimating_reader
    from hodyn_cli.io.reader import MemoryReader
    from hodyn_cli.pipeline.mujoco_states import mujoco_trajectory

    poses = mujoco_trajectory(model, log["qpos"], t=log["time"])
    assert poses.orders == 1 and poses.joint_names == model.dof_names
    with estimating_reader(model, MemoryReader(poses, chunk=300), 3) as reader:
        return np.concatenate([c.derivatives for c in reader])


@pytest.fixture(scope="module")
def log() -> dict[str, np.ndarray]:
    return passive_log(0.5)


def test_estimated_rates_of_a_mujoco_log_are_mujocos(log):
    """The velocity coordinates and their rate estimated from the poses are MuJoCo's qvel and
    qacc (a ball joint's angular velocity in its body frame) to 2e-5 of their size (the
    log's RK4 steps are accurate to ~1e-5 at these speeds, up to 90 rad/s)."""
    model = load_model(CHAIN)
    est = _estimated(model, log)
    inner = slice(100, -100)
    for k, key in ((1, "qvel"), (2, "qacc")):
        scale = np.abs(log[key][inner]).max()
        assert np.abs(est[inner, k] - log[key][inner]).max() <= 2e-5 * scale, key


def test_import_then_compute_estimates_on_the_groups(tmp_path, log):
    """``hodyn import`` of the log's qpos and time alone, then ``hodyn compute
    --estimate-derivatives``: tau is MuJoCo's mj_inverse of the log's qpos with the estimated
    velocities and accelerations (the file's columns read as MuJoCo's), and the motion MuJoCo
    integrated under gravity alone needs no torque (to 1e-2 of the gravity torques: the
    integration's error, amplified by the inertias; 1e-3 measured)."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    model = load_model(CHAIN)
    np.savez(tmp_path / "log.npz", qpos=log["qpos"], time=log["time"])
    poses, tau = tmp_path / "poses.csv", tmp_path / "tau.csv"
    run = CliRunner().invoke
    result = run(app, ["import", str(tmp_path / "log.npz"), "--urdf", str(CHAIN), "-o",
                       str(poses), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "shoulder_R_11" in poses.read_text().splitlines()[0]
    gravity = ",".join(repr(float(v)) for v in mjr.GRAVITY)
    result = run(app, ["compute", str(CHAIN), str(poses), "--estimate-derivatives", "--order",
                       "0", "--gravity", gravity, "-o", str(tau), "--quiet"])
    assert result.exit_code == 0, result.output
    got = np.loadtxt(tau, delimiter=",", skiprows=1)[:, 1:]
    est = _estimated(model, log)
    m = mjr.rigid_body_only(CHAIN)
    samples = range(50, len(got) - 50, 100)
    ref = np.array([mjr.mj_inverse(m, log["qpos"][s], est[s, 1], est[s, 2]) for s in samples])
    gravity_torques = np.abs([mjr.mj_inverse(m, log["qpos"][s], 0 * est[s, 1], 0 * est[s, 2])
                              for s in samples]).max()
    assert np.abs(got[list(samples)] - ref).max() <= 1e-8 * gravity_torques
    assert np.abs(got[100:-100]).max() <= 1e-2 * gravity_torques
