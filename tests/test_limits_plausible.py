"""The hint that positions outside a joint's URDF range "look like degrees"
(hodyn_cli.modeling.limits.beyond_limits): kept where the radians of the values would sit
inside the range, and not said of a joint whose angle turns on in radians: a mimic joint
following a continuous joint (its leader's turns take it out of any range), or a joint whose
range spans a turn, a turn beyond it. Before, both were told their values looked like
degrees."""

import numpy as np

from conftest import URDF
from hodyn_cli.modeling.limits import beyond_limits
from hodyn_cli.modeling.urdf import load_model, parse_model

HINT = "the values look like degrees"


def _one_joint(kind: str, lower: float, upper: float, mimic: bool = False) -> str:
    """A continuous wrist and a joint ``kind`` in [lower, upper], following the wrist where
    ``mimic``."""
    link = ('<link name="{0}"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" '
            'izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>')
    follow = '<mimic joint="wrist" multiplier="1"/>' if mimic else ""
    return ('<robot name="r"><link name="a"/>' + link.format("b") + link.format("c") +
            '<joint name="wrist" type="continuous"><parent link="a"/><child link="b"/>'
            '<axis xyz="1 0 0"/></joint>'
            f'<joint name="tool" type="{kind}"><parent link="b"/><child link="c"/>'
            f'<axis xyz="0 0 1"/><limit lower="{lower}" upper="{upper}" effort="1" '
            f'velocity="1"/>{follow}</joint></robot>')


def test_degrees_are_still_named_where_their_radians_fit_the_range():
    """The iiwa at 40 (degrees, 0.7 rad) and a +-2 pi joint at 90: the hint, as before."""
    iiwa = load_model(URDF / "iiwa14.urdf")
    assert HINT in beyond_limits(iiwa, np.full((2, 7), 40.0), None)["iiwa_joint_1"]
    wide = parse_model(_one_joint("revolute", -2 * np.pi, 2 * np.pi).encode())
    assert HINT in beyond_limits(wide, np.array([[0.0, 90.0]]), None)["tool"]


def test_a_follower_of_a_continuous_joint_is_not_told_degrees():
    """A revolute follower in [-2, 2] of a wrist turning to 9 rad: outside its range, said,
    but not as degrees (its radians, 0.16, fit the range: the old hint, which the same joint
    not following the wrist still gets)."""
    model = parse_model(_one_joint("revolute", -2.0, 2.0, mimic=True).encode())
    q = np.array([[0.0, 0.0], [9.0, 9.0]])
    text = beyond_limits(model, q, np.array([0.0, 1.0]))["tool"]
    assert "outside its URDF limits [-2, 2]" in text and HINT not in text
    alone = parse_model(_one_joint("revolute", -2.0, 2.0).encode())
    assert HINT in beyond_limits(alone, q, None)["tool"]


def test_a_turn_beyond_a_range_of_a_turn_is_radians():
    """A +-2 pi joint a turn beyond its range (8 rad: a wrist that turned once more) is
    outside, not degrees; a joint in [-2.9, 2.9] at 8 rad is still said to look like
    degrees."""
    wide = parse_model(_one_joint("revolute", -2 * np.pi, 2 * np.pi).encode())
    text = beyond_limits(wide, np.array([[0.0, 8.0]]), None)["tool"]
    assert "outside its URDF limits" in text and HINT not in text
    narrow = parse_model(_one_joint("revolute", -2.9, 2.9).encode())
    assert HINT in beyond_limits(narrow, np.array([[0.0, 8.0]]), None)["tool"]
