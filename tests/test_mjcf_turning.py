"""The MJCF importer's placeholder ranges: a limited hinge whose range is wider than 4 turns
(+-1e16, a rotor's) or a slide wider than 1 km is read as having no range, as the URDF
importer reads such a joint (hodyn_cli.modeling.limits.placeholder_range): the hinge
continuous, named in one notice. Before, the hinge stayed revolute with +-1e16 limits (a
file that wraps its angle then failed validate). A hinge with a range but
``limited="false"`` (MuJoCo: no limit) is continuous too; a physical range stays."""

import numpy as np
import pytest

from hodyn_cli.algorithms.motion.turns import wrapped_columns
from hodyn_cli.modeling.mjcf import load_mjcf
from hodyn_cli.modeling.urdf import parse_model

PLACEHOLDERS = "limits that cannot be physical are taken as absent"


def _chain(joints: str, angle: str = "radian") -> str:
    """An MJCF chain of one body per ``<joint .../>`` in ``joints`` (one per line)."""
    bodies = "".join(f'<body name="b{k}" pos="0.1 0 0">{j}<geom type="sphere" size="0.02" '
                     f'pos="0.01 0.01 0"/>' for k, j in enumerate(joints.split("\n")))
    return (f'<mujoco model="m"><compiler angle="{angle}"/><worldbody>{bodies}'
            + "</body>" * joints.count("\n") + "</body></worldbody></mujoco>")


def _kinds(xml: str):
    model = load_mjcf("m.xml", xml.encode())
    notes = [d.message for d in model.diagnostics if PLACEHOLDERS in d.message]
    return model, dict(zip(model.joint_names, model.joint_types, strict=True)), notes


def test_placeholder_ranges_are_no_range():
    model, kinds, notes = _kinds(_chain(
        '<joint name="spin" axis="1 0 0" range="-1e16 1e16"/>\n'
        '<joint name="rail" type="slide" axis="0 0 1" range="-5000 5000"/>\n'
        '<joint name="arm" axis="0 1 0" range="-6.2 6.2"/>\n'
        '<joint name="loose" axis="0 0 1" range="-1 1" limited="false"/>'))
    assert kinds == {"spin": "continuous", "rail": "prismatic", "arm": "revolute",
                     "loose": "continuous"}
    assert np.isinf(model.limits[[0, 1, 3]]).all()
    assert model.limits[2].tolist() == [-6.2, 6.2]
    assert notes == [f"{PLACEHOLDERS}: position range wider than 4 turns of 'spin'; position "
                     "range wider than 1 km of 'rail'"]
    assert wrapped_columns(model).tolist() == [True, False, False, True]


@pytest.mark.parametrize("degrees, kind", [("1e16", "continuous"), ("720", "revolute"),
                                           ("721", "continuous")])
def test_in_degrees_the_rule_is_on_radians(degrees, kind):
    """MuJoCo's default angle unit, degrees: a range of 4 turns is -720 720."""
    _, kinds, notes = _kinds(_chain(f'<joint name="spin" axis="1 0 0" range="-{degrees} '
                                    f'{degrees}"/>', angle="degree"))
    assert kinds == {"spin": kind} and bool(notes) == (kind == "continuous")


def test_the_same_rule_as_the_urdf_importer():
    """The iris's rotor, a URDF revolute joint with +-1e16, and the MJCF hinge alike."""
    urdf = parse_model(b'<robot name="r"><link name="a"/><link name="b"><inertial><mass '
                       b'value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" '
                       b'iyz="0"/></inertial></link><joint name="spin" type="revolute"><parent '
                       b'link="a"/><child link="b"/><axis xyz="1 0 0"/><limit lower="-1e+16" '
                       b'upper="1e+16" effort="1" velocity="1"/></joint></robot>')
    mjcf, kinds, _ = _kinds(_chain('<joint name="spin" axis="1 0 0" range="-1e16 1e16"/>'))
    assert urdf.joint_types == mjcf.joint_types == ("continuous",)
    assert urdf.limits.tolist() == mjcf.limits.tolist() == [[-np.inf, np.inf]]
