"""Forward dynamics at any size: the mass matrix's regularity is judged on its Jacobi-scaled
matrix (``forward._jacobi_regular``), in units of each coordinate's own inertia. Before, on
M's own eigenvalues, which mix kg m^2 (revolute joints) and kg (prismatic ones): the gripper
arm (both) scaled to 10 um had eigenvalues 3.4e-14 .. 1.6, below the 1e-12 ratio, and was
refused as singular; its motion is the 1 m arm's, lengths times 1e-5. So at 0.1 um and 1 km,
where the inert coordinates are judged in each coordinate's unit too."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import scaled_urdf
from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.modeling.urdf import load_model

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("L", [1e-5, 1e-7, 1e3])
def test_an_arm_with_prismatic_joints_moves_as_the_1_m_one_at_any_size(tmp_path, L):
    """(At 0.1 um the wrist's M_jj, 1.6e-17 kg m^2, was below 1e-15 times M's largest
    eigenvalue, the elbow slide's 1.6 kg: named as moving no inertia, refused; each
    coordinate is now judged against the inertia of its own unit's, ``forward.unit_scales``.)"""
    source = ROOT / "urdf" / "gripper_arm.urdf"
    one, tiny = load_model(source), load_model(scaled_urdf(source, tmp_path, L))
    unit = np.array([L if k == "prismatic" else 1.0 for k in one.joint_types])  # q: m or rad
    rng = np.random.default_rng(0)
    q = rng.uniform(-0.3, 0.3, (3, 2, one.n)) * [[0.1], [1.0]]
    tau = rng.normal(size=(3, 1, one.n))
    a = forward_dynamics(one, Trajectory(one.joint_names, q), tau).qs
    # torques N m times L^2, forces N times L; gravity times L: the same motion in angles
    b = forward_dynamics(tiny, Trajectory(one.joint_names, q * unit), tau * L**2 / unit,
                         gravity=(0.0, 0.0, -9.81 * L)).qs   # raised ModelError before
    np.testing.assert_allclose(b[:, 0], a[:, 0] * unit, rtol=1e-9, atol=0)
