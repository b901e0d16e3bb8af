"""Shared fixtures: the bundled robots, analytic trajectories, a Pinocchio bridge."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

from hodyn_cli.trajectory import Trajectory, cosine
from hodyn_cli.urdf import load_model


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: takes more than ~5 s")


# the tests never touch the user's model cache (~/.cache/hodyn)
os.environ["HODYN_CACHE_DIR"] = tempfile.mkdtemp(prefix="hodyn-test-cache-")

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf"
SAMPLES = ROOT / "sample_trajectories"
ROBOTS = ["planar_2r", "iiwa14", "gripper_arm"]
METHODS = ["body-fixed", "spatial", "closed-form"]  # every method must pass every correctness test


@pytest.fixture(params=METHODS)
def method(request):
    """Name of each inverse-dynamics method."""
    return request.param


@pytest.fixture(params=ROBOTS)
def robot(request):
    """(name, urdf path, model) for every bundled robot."""
    path = URDF / f"{request.param}.urdf"
    return request.param, path, load_model(path)


def random_cosine(model, t, orders: int, seed: int = 0) -> Trajectory:
    """A smooth motion with exact derivatives up to ``orders`` (amplitudes ~ joint type)."""
    rng = np.random.default_rng(seed)
    n = model.n
    scale = np.array([0.05 if ty == "prismatic" else 1.0 for ty in model.joint_types])
    return cosine(model.joint_names, t, amplitude=scale * rng.uniform(0.3, 1.0, n),
                  omega=rng.uniform(0.5, 2.5, n), phase=rng.uniform(0, 2 * np.pi, n),
                  offset=scale * rng.uniform(-0.5, 0.5, n), orders=orders)


def pinocchio_model(path: Path, model):
    """(pin module, pin model, data, order): ``order[k]`` = hodyn index of pin's joint k+1."""
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromUrdf(str(path))
    order = [model.joint_index(pm.names[j]) for j in range(1, pm.njoints)]
    return pin, pm, pm.createData(), order


def pin_configuration(pm, order, q_row: np.ndarray) -> np.ndarray:
    """Pinocchio's q for hodyn joint values (continuous joints are (cos, sin) in pin)."""
    q = []
    for j, k in zip(range(1, pm.njoints), order, strict=True):
        q += [np.cos(q_row[k]), np.sin(q_row[k])] if pm.joints[j].nq == 2 else [q_row[k]]
    return np.array(q)


def pinocchio_reference(path: Path, model, traj: Trajectory, fext=None):
    """tau = pin.rnea and taud = dtau_dq qd + dtau_dv qdd + M qddd, in hodyn's joint order."""
    pin, pm, data, order = pinocchio_model(path, model)
    tau, taud = np.empty_like(traj.q), np.empty_like(traj.q)
    for s in range(traj.n_samples):
        q = pin_configuration(pm, order, traj.q[s])
        v, a, jerk = traj.qd[s, order], traj.qdd[s, order], traj.qddd[s, order]
        forces = None if fext is None else fext(pin, pm, data, q, s)
        tau[s, order] = (pin.rnea(pm, data, q, v, a) if forces is None
                         else pin.rnea(pm, data, q, v, a, forces))
        pin.computeRNEADerivatives(pm, data, q, v, a)
        M = np.triu(data.M) + np.triu(data.M, 1).T
        taud[s, order] = data.dtau_dq @ v + data.dtau_dv @ a + M @ jerk
    return tau, taud


def wrench_motion(t, orders):
    """A wrench with exact time derivatives: W_c(t) = w_c sin(nu_c t + phi_c)."""
    w = np.array([0.5, -1.0, 0.3, 4.0, -2.0, 7.0])
    nu = np.array([1.0, 1.5, 2.0, 0.7, 1.2, 0.9])
    phi = np.arange(6.0)
    k = np.arange(orders + 1)[:, None]
    return w * nu ** k * np.sin(nu * t[:, None, None] + phi + k * np.pi / 2)


def kernel_variants() -> list:
    """Every compiled kernel variant (lane width) this machine runs; none where the kernel
    is disabled or not built."""
    from hodyn_cli.methods import _compiled

    return _compiled.variants() if _compiled.available() else []


@pytest.fixture(params=kernel_variants() or [
    pytest.param(None, marks=pytest.mark.skip(reason="no compiled kernel"))])
def lanes(request):
    """Runs the test once per kernel variant; the value is its lane width."""
    from hodyn_cli.methods import _compiled

    with _compiled.use(request.param):
        yield _compiled.backend()["lanes"]
