"""A robot whose joints are called like a floating base's columns and its free root joint
(``base``): the root's pose columns (``base_p_..``, ``base_R_..``) are refused as a joint's
pose in one line naming the joint; a 1-DOF joint called ``base`` or ``base_vz`` keeps its
columns, the free root inside takes a name of its own (tests/test_free_root.py: the same
numbers), and every output's column names stay unique."""

from __future__ import annotations

import csv
from dataclasses import replace

import h5py
import numpy as np
import pytest
from test_joint_models import analytic_motion
from typer.testing import CliRunner

from hodyn_cli import api
from hodyn_cli.cli.app import app
from hodyn_cli.core import lie
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.io.base_motion import check_poses_apart
from hodyn_cli.modeling.urdf import load_model

INERTIAL = ('<inertial><mass value="{m}"/><origin xyz="0.1 0.05 0.2"/><inertia ixx="0.05" '
            'iyy="0.04" izz="0.03" ixy="0" ixz="0.002" iyz="0"/></inertial>')


def _urdf(first: str, kind: str, second: str = "elbow") -> str:
    """torso -(first: kind)- arm -(second: revolute)- hand."""
    links = "".join(f'<link name="{n}">{INERTIAL.format(m=m)}</link>'
                    for n, m in (("torso", 2), ("arm", 1), ("hand", 0.7)))
    axis = '<axis xyz="0 0 1"/>' if kind != "floating" else ""
    return (f'<robot name="r">{links}<joint name="{first}" type="{kind}"><parent link="torso"/>'
            f'<child link="arm"/><origin xyz="0.3 0 0" rpy="0 0.4 0"/>{axis}</joint>'
            f'<joint name="{second}" type="continuous"><parent link="arm"/><child link="hand"/>'
            '<origin xyz="0 0 0.2"/><axis xyz="1 0 0"/></joint></robot>')


BALL = """<mujoco model="ball"><worldbody><body name="torso">
  <inertial pos="0.1 0 0" mass="2" diaginertia="0.1 0.2 0.15"/>
  <body name="arm" pos="0.3 0 0"><joint name="{name}" type="ball"/>
    <inertial pos="0 0.1 0.2" mass="1" diaginertia="0.05 0.04 0.03"/></body>
</body></worldbody></mujoco>"""


def _base(t: np.ndarray):
    """The root turning about z at 0.3 rad/s (its body twist, no rate)."""
    Vb = np.zeros((t.size, 3, 6))
    Vb[:, 0, 2] = 0.3
    return api.base_motion(lie.rotation_exp(np.array([0.0, 0, 1]), 0.3 * t),
                           np.zeros((t.size, 3)), Vb=Vb)


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _header(path) -> list[str]:
    with open(path, newline="") as f:
        return next(csv.reader(f))


def test_a_free_or_ball_joint_called_base_is_refused_on_a_floating_base(tmp_path):
    """A mid-tree free joint ``base`` (URDF ``floating``): its pose columns are the floating
    root's, so a file holding them once read one motion as both (it computed, exit 0); now
    compute and forward (which reads the file's columns first) refuse it in one line naming
    the joint, as do read_trajectory and write_trajectory; a ball joint ``base`` clashes on
    ``base_R_..`` alone; a planar ``base`` (base_x, base_y, base_theta) or a ball ``hip``
    does not, nor does the fixed base."""
    robot = tmp_path / "free.urdf"
    robot.write_text(_urdf("base", "floating"))
    model = load_model(robot)
    t = np.linspace(0, 1, 6)
    motion = analytic_motion(model, t, 3, 3)
    write_trajectory(str(tmp_path / "joints.csv"), motion, model=model)
    assert {"base_p_x", "base_R_33"} <= set(_header(tmp_path / "joints.csv"))
    # the root's twists (and torques for forward) beside the joint's pose: as if base_p,
    # base_R were the root's
    rows = list(csv.reader(open(tmp_path / "joints.csv", newline="")))
    more = [f"base_{k}_{s}" for k in ("Vb", "Vbd") for s in ("wx", "wy", "wz", "vx", "vy", "vz")]
    more += [f"tau_{j}" for j in model.dof_names]
    with open(tmp_path / "both.csv", "w", newline="") as f:
        csv.writer(f).writerows([rows[0] + more] + [r + ["0"] * len(more) for r in rows[1:]])
    for command in ("compute", "forward"):
        out = _run(command, robot, tmp_path / "both.csv", "--floating-base", "--order", "0",
                   "-o", tmp_path / "tau.csv")
        assert out.exit_code == 2 and out.stderr.count("\n") == 1, out.output
        assert "joint 'base' (free)" in out.stderr and "base_p_x" in out.stderr, out.stderr
        # the robot's file names the joint: it is where the fix is (not the trajectory's)
        assert out.stderr.startswith(f"hodyn: error: {robot}: "), out.stderr
        assert "both.csv" not in out.stderr and not (tmp_path / "tau.csv").exists()
    assert _run("compute", robot, tmp_path / "joints.csv", "-o", tmp_path / "tau.csv",
                "-q").exit_code == 0  # fixed: the columns are the joint's alone
    with pytest.raises(TrajectoryError, match="joint 'base'"):
        read_trajectory(str(tmp_path / "both.csv"), model, floating=True)
    with pytest.raises(TrajectoryError, match="joint 'base'"):
        write_trajectory(str(tmp_path / "out.csv"), replace(motion, base=_base(t)), model=model)
    assert not (tmp_path / "out.csv").exists()
    for name, clash in (("base", "base_R_11"), ("hip", None)):
        (tmp_path / "ball.xml").write_text(BALL.format(name=name))
        ball = load_model(tmp_path / "ball.xml")
        assert ball.joint_types == ("spherical",)
        if clash is None:
            check_poses_apart(ball, "walk.csv")
            continue
        with pytest.raises(TrajectoryError, match="joint 'base' .spherical.") as e:
            check_poses_apart(ball, "walk.csv")
        assert clash in e.value.message and "base_p" not in e.value.message.split("are")[0]
    (tmp_path / "planar.urdf").write_text(_urdf("base", "planar"))
    check_poses_apart(load_model(tmp_path / "planar.urdf"), "walk.csv")


def test_one_dof_joints_called_base_keep_their_columns_on_a_floating_base(tmp_path):
    """Revolute joints ``base`` and ``base_vz`` (the free root's name and one of its
    coordinates'): compute --base-wrench, matrices and regressor run; their columns and row
    names are unique, the joints' own (``tau_base``) beside the root's (``W_torso_..``)."""
    robot = tmp_path / "rev.urdf"
    robot.write_text(_urdf("base", "revolute", "base_vz"))
    model = load_model(robot)
    t = np.linspace(0, 1, 6)
    write_trajectory(str(tmp_path / "walk.csv"), replace(analytic_motion(model, t, 3, 3),
                                                         base=_base(t)), model=model)
    out = _run("compute", robot, tmp_path / "walk.csv", "--floating-base", "--base-wrench",
               "--order", "0", "-o", tmp_path / "tau.csv", "-q")
    assert out.exit_code == 0, out.output
    header = _header(tmp_path / "tau.csv")
    assert header == ["t", "tau_base", "tau_base_vz",
                      *(f"W_torso_{c}" for c in ("mx", "my", "mz", "fx", "fy", "fz"))]
    out = _run("regressor", robot, tmp_path / "walk.csv", "--floating-base", "--order", "0",
               "-o", tmp_path / "Y.h5", "-q")
    assert out.exit_code == 0, out.output
    with h5py.File(tmp_path / "Y.h5") as f:
        rows = [str(r) for r in f.attrs["row_names"]]
    assert rows[6:] == ["base", "base_vz"] and len(set(rows)) == 8
