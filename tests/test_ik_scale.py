"""Inverse kinematics at any size: the singularity verdict of ``hodyn ik`` compares the
condition number of J_t with its translational rows in the arm's own length unit
(``ik.length_unit``), so the iiwa scaled to 1.3 mm, or exported in millimetres, follows a
motion as the 1.3 m one does. Before, the rows were in metres and the condition number grew
like the arm's size or its inverse: this motion's, 10.3 at 1 m, was 9.6e3 at 1e-3 and 1.0e3
at 1e3 (a Fourier motion's first sample at 1e-3: 8.4e4 > 1e4, refused as near-singular)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import scaled_urdf
from hodyn_cli.algorithms.motion.ik import InverseKinematics
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.core.motion import LinkMotion
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.modeling.urdf import load_model

ROOT = Path(__file__).resolve().parents[1]
EE = "iiwa_link_ee"


def _solved(path: Path, max_condition: float = 1e4) -> tuple:
    """(q, condition numbers, length unit) of ik along the iiwa's cosine's end-effector
    motion on the robot of ``path``."""
    model = load_model(path)
    t = np.arange(0.0, 0.06, 0.002)
    traj = cosine(model.joint_names, t, amplitude=0.3, omega=np.linspace(1.0, 2.0, 7),
                  phase=np.linspace(0.0, 3.0, 7), offset=[0.2, 0.6, 0.3, -1.2, 0.3, 1.0, 0.1],
                  orders=4)
    motion = LinkMotion.of(link_kinematics(model, traj, EE, order=2), t)
    ik = InverseKinematics(model, EE, q0=traj.q[0], max_condition=max_condition)
    return (*ik(motion), ik.unit)


def _solve(path: Path):
    return _solved(path)[:2]


@pytest.mark.parametrize("length", [1e-3, 1e3])   # a 1.3 mm arm; one exported in mm
def test_a_scaled_arm_has_the_same_condition_numbers_and_joint_motion(tmp_path, length):
    qs, cond = _solve(ROOT / "urdf" / "iiwa14.urdf")
    assert cond.max() < 1e3    # far from singular at 1 m
    # (1e3 and 1e2 times the 1 m ones before)
    sq, scond = _solve(scaled_urdf(ROOT / "urdf" / "iiwa14.urdf", tmp_path, length))
    np.testing.assert_allclose(scond, cond, rtol=1e-9)
    err = [float(np.abs(sq[:, k] - qs[:, k]).max() / np.abs(qs[:, k]).max()) for k in range(4)]
    assert max(err) < 1e-9, err
