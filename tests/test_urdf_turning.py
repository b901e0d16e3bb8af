"""A joint that turns about its axis without a position range is continuous, whichever file
describes it (hodyn_cli.modeling.limits.turning_type): a URDF revolute joint that hodyn reads
as unlimited (no <limit>, no lower/upper, URDF's default 0 0, a placeholder wider than 4
turns) and an MJCF hinge without a range alike. No range places its angle (q and q + 2 pi
are one pose), so a file may wrap it at +-pi and validate, the estimation and the retiming
read it unwrapped. Before, the URDF importer kept such a joint revolute (validate failed a
wrapped log of it: "qd_... does not match the time differences of q_...") where the MJCF
importer made the same hinge continuous."""

import numpy as np
import pytest

import hodyn_cli
from conftest import URDF, hodyn_here
from hodyn_cli.algorithms.motion.turns import wrapped_columns
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.mjcf import load_mjcf
from hodyn_cli.modeling.urdf import parse_model

LINK = ('<link name="{name}"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>'
        '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>')

#: a URDF revolute joint's <limit> -> whether hodyn reads a position range in it
URDF_LIMITS = {
    "": False,  # (urdfdom refuses a revolute joint without <limit>; hodyn reads none)
    '<limit effort="5" velocity="2"/>': False,  # (urdfdom: lower = upper = 0)
    '<limit lower="0" upper="0" effort="5" velocity="2"/>': False,
    '<limit lower="-1e16" upper="1e16" effort="5" velocity="2"/>': False,  # (a placeholder)
    '<limit lower="-2" upper="2" effort="5" velocity="2"/>': True,
}

#: an MJCF hinge's attributes -> whether it has a position range
MJCF_RANGES = {'limited="false" range="-2 2"': False, "": False,
               'range="-2 2"': True, 'limited="true" range="-2 2"': True}


def urdf(limit: str) -> bytes:
    return (f'<robot name="r"><link name="base"/>{LINK.format(name="arm")}'
            '<joint name="turn" type="revolute"><parent link="base"/><child link="arm"/>'
            f'<axis xyz="0 0 1"/>{limit}</joint></robot>').encode()


def mjcf(attributes: str) -> str:
    return ('<mujoco><compiler angle="radian"/><worldbody><body name="arm">'
            f'<joint name="turn" type="hinge" axis="0 0 1" {attributes}/>'
            '<inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>'
            '</body></worldbody></mujoco>')


@pytest.mark.parametrize("limit", URDF_LIMITS)
def test_a_urdf_revolute_joint_without_a_range_is_continuous(limit):
    model = parse_model(urdf(limit))
    ranged = URDF_LIMITS[limit]
    assert model.joint_types == ("revolute" if ranged else "continuous",)
    assert np.isfinite(model.limits).all() == ranged
    assert wrapped_columns(model).tolist() == [not ranged]
    said = [d.message for d in model.diagnostics if "read as continuous" in d.message]
    assert said == ([] if ranged else [
        "revolute joint(s) without a position range, read as continuous (q and q + 2 pi one "
        "pose, which a file may wrap at +-pi): 'turn'"])


@pytest.mark.parametrize("attributes", MJCF_RANGES)
def test_an_mjcf_hinge_is_typed_as_the_urdf_joint_with_its_range(tmp_path, attributes):
    """The same joint in both files: the same type (``limited="false"`` a range left
    unused: none)."""
    path = tmp_path / "arm.xml"
    path.write_text(mjcf(attributes))
    model = load_mjcf(path)
    ranged = MJCF_RANGES[attributes]
    limit = '<limit lower="-2" upper="2" effort="5" velocity="2"/>' if ranged else ""
    assert model.joint_types == parse_model(urdf(limit)).joint_types == (
        "revolute" if ranged else "continuous",)
    assert wrapped_columns(model).tolist() == [not ranged]


def test_a_wrapped_log_of_a_revolute_joint_without_a_range_passes_validate(tmp_path):
    """The gripper arm with its shoulder's <limit lower upper> left out, turning 5 rad, its
    angle written wrapped as a log of a continuous joint may be: validate reads it
    unwrapped (it failed "qd_shoulder_yaw does not match the time differences of
    q_shoulder_yaw")."""
    robot = tmp_path / "free_shoulder.urdf"
    robot.write_text((URDF / "gripper_arm.urdf").read_text().replace(
        '<limit lower="-3" upper="3" effort="80" velocity="2"/>',
        '<limit effort="80" velocity="2"/>'))
    model = hodyn_cli.load_robot(robot)
    assert model.joint_types[0] == "continuous"
    waypoints = np.array([[0.0, 0.0, 0.05, 0.0, 0.01, 0.01], [5.0, 0.3, 0.1, 1.0, 0.02, 0.02]])
    path = generate(model, "point-to-point", waypoints=waypoints, segment_duration=[3.0],
                    rate=50.0)
    d = path.derivatives.copy()
    d[:, 0, 0] = np.angle(np.exp(1j * d[:, 0, 0]))
    assert np.abs(np.diff(d[:, 0, 0])).max() > 6  # (it does wrap)
    write_trajectory(str(tmp_path / "log.h5"), Trajectory(path.joint_names, d, path.t))
    r = hodyn_here("validate", robot, tmp_path / "log.h5", "--samples", "10")
    assert r.returncode == 0, r.stdout + r.stderr
