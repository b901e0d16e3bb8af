"""validate's "M positive definite" at any size: judged on M scaled by its diagonal
(``D^-1/2 M D^-1/2``), in units of each coordinate's own inertia, as forward dynamics judges
it. On M's own eigenvalues, which mix kg m^2 and kg, the gripper arm scaled to 0.1 um had a
smallest eigenvalue of -1.8e-16 (rounding against its elbow slide's 1.6 kg) and failed, its
wrist named as moving no inertia; its motion is the 1 m arm's, lengths times 1e-7."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import scaled_urdf
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.algorithms.verification.validate import validate
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.modeling.urdf import load_model

ROOT = Path(__file__).resolve().parents[1]


def _mass_check(urdf: Path, L: float = 1.0) -> dict:
    """The check on the 1 m arm's cosine, its prismatic joints' columns times ``L``."""
    one = load_model(ROOT / "urdf" / "gripper_arm.urdf")
    motion = generate(one, "cosine", duration=1.0, rate=50.0, derivatives=4)
    unit = np.array([L if k == "prismatic" else 1.0 for k in one.joint_types])
    motion = Trajectory(motion.joint_names, motion.derivatives * unit, motion.t)
    model = load_model(urdf)
    check, = [c for c in validate(model, motion, samples=5).to_dict()["checks"]
              if c["name"] == "M positive definite"]
    return check


@pytest.mark.parametrize("L", [1e-7, 1e3])
def test_the_mass_matrix_check_of_an_arm_with_prismatic_joints_holds_at_any_size(tmp_path, L):
    one = _mass_check(ROOT / "urdf" / "gripper_arm.urdf")
    scaled = _mass_check(scaled_urdf(ROOT / "urdf" / "gripper_arm.urdf", tmp_path, L), L)
    assert scaled["status"] == one["status"] == "pass", scaled["detail"]
    assert "no inertia" not in scaled["detail"]
    # (the scaled matrix is the same in each coordinate's own unit: the same eigenvalues)
    assert scaled["max_abs"] == pytest.approx(one["max_abs"], rel=1e-6)


def test_the_mass_matrix_check_says_its_eigenvalue_is_of_the_scaled_matrix():
    """Its value (max abs) is the smallest eigenvalue of ``D^-1/2 M D^-1/2``, without unit:
    the detail names that matrix before the number (it read "smallest eigenvalue 0.12, ...
    (of M scaled by its diagonal)", as if the eigenvalue were M's, in kg m^2)."""
    check = _mass_check(ROOT / "urdf" / "gripper_arm.urdf")
    assert check["detail"].startswith(
        f"smallest eigenvalue of M scaled by its diagonal (D^-1/2 M D^-1/2, D = diag(M): no "
        f"unit) {check['max_abs']:.4g}, its largest condition number "), check["detail"]
