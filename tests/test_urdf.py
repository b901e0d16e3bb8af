"""URDF -> model: structure of the bundled robots and every documented failure."""

import re

import numpy as np
import pytest

from conftest import URDF
from hodyn_cli.core import lie
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.urdf import TRIANGLE_RTOL, load_model, parse_model

LINK = ('<link name="{name}"><inertial><origin xyz="0 0 0.1" rpy="0 0 0"/><mass value="{m}"/>'
        '<inertia ixx="{i[0]}" ixy="0" ixz="0" iyy="{i[1]}" iyz="0" izz="{i[2]}"/></inertial></link>')


def robot_xml(joint_type="revolute", mass=1.0, inertia=(0.1, 0.1, 0.1), axis="0 0 1", extra=""):
    return f"""<robot name="r"><link name="base"/>
      <joint name="j1" type="{joint_type}"><parent link="base"/><child link="l1"/>
        <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="{axis}"/></joint>
      {LINK.format(name="l1", m=mass, i=inertia)}{extra}</robot>""".encode()


def test_planar_2r_is_the_papers_model():
    model = load_model(URDF / "planar_2r.urdf")
    assert np.allclose(model.X, [[0, 0, 1, 0, 0, 0]] * 2)
    assert np.allclose(model.B[1], lie.homogeneous(np.eye(3), np.array([0.4, 0, 0])))
    # the paper's M_1: point mass m1 at (L1, 0, 0)
    assert np.allclose(model.inertias[0], lie.body_inertia(1.2, np.array([0.4, 0, 0]), np.zeros((3, 3))))


def test_iiwa_frames_and_inertias_follow_the_paper():
    model = load_model(URDF / "iiwa14.urdf")
    assert model.n == 7 and not [d for d in model.diagnostics if d.level == "warning"]
    assert np.allclose(model.B[2, :3, 3], [0, 0.42, 0]) and np.allclose(model.B[4, :3, 3], [0, -0.4, 0])
    assert np.allclose(model.B[1, :3, :3], [[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    assert np.allclose(model.mass, [3.94781, 4.50275, 2.4552, 2.61155, 3.41, 3.38795, 0.35432])
    assert np.allclose(model.com[6], [-0.03466, -0.02324, 0.07138])
    # at q = 0 the arm stands upright: the flange is 0.42 + 0.40 + 0.126 above the base
    ee = model.links["iiwa_link_ee"]
    assert np.allclose((model.A[ee.body] @ ee.T)[:3, 3], [0, 0, 0.946])


def test_tree_topology_and_lumping():
    model = load_model(URDF / "gripper_arm.urdf")
    assert model.parent.tolist() == [-1, 0, 1, 2, 3, 3]  # depth-first, a branch at the palm
    assert model.joint_types[2] == "prismatic" and np.allclose(model.X[2, 3:], [0.8, 0, 0.6])
    # forearm (0.8 kg) + rigidly mounted wrist housing (0.4 kg) are one body
    assert model.mass[2] == pytest.approx(1.2)
    assert model.links["wrist_housing"].body == 2 and model.links["tool0"].body == 3
    M = model.inertias[2]
    assert np.allclose(M, M.T) and np.linalg.eigvalsh(M).min() > 0


def test_missing_inertial_is_zero_with_an_info():
    model = parse_model(robot_xml(extra='<link name="tip"/><joint name="f" type="fixed">'
                                        '<parent link="l1"/><child link="tip"/></joint>'))
    assert any(d.level == "info" and "'tip'" in d.message for d in model.diagnostics)


def test_point_mass_is_valid():
    # (continuous: a revolute joint without a range says it is read as one, an info line)
    model = parse_model(robot_xml("continuous", inertia=(0, 0, 0)))
    assert model.mass[0] == 1.0
    assert [d.message for d in model.diagnostics] == [
        "root link 'base' is welded to the world (fixed-base dynamics)"]


@pytest.mark.parametrize("xml, words", [
    (robot_xml(mass=-1.0), ["'l1'", "negative mass"]),
    (robot_xml(inertia=(0.1, -0.2, 0.1)), ["'l1'", "positive semi-definite"]),
    (robot_xml(joint_type="spherical"), ["'j1'", "spherical", "not supported"]),
    (robot_xml(axis="0 0 0"), ["'j1'", "axis is zero"]),
    (robot_xml(axis="0 0 x"), ["'j1'", "axis"]),
    (robot_xml(extra='<joint name="loop" type="revolute"><parent link="l1"/><child link="l1"/>'
                     '</joint>'), ["'loop'", "loop"]),
    (robot_xml(extra='<joint name="j2" type="revolute"><parent link="base"/><child link="l1"/>'
                     '</joint>'), ["'j2'", "loop"]),
    (robot_xml(extra='<joint name="j3" type="revolute"><parent link="l1"/><child link="nope"/>'
                     '</joint>'), ["'j3'", "'nope'"]),
    (robot_xml().replace(b'ixx="0.1"', b""), ["'l1'", "ixx"]),
    # swapped: every sample was "outside its URDF limits [1, -1]", a warning per joint
    (robot_xml().replace(b"</joint>", b'<limit lower="1" upper="-1" effort="1" velocity="1"/>'
                         b"</joint>"), ["'j1' <limit>", "lower 1 > upper -1"]),
    (b"<robot name='r'><link name='a'>", ["not well-formed"]),
    (b"<notarobot/>", ["<notarobot>"]),
])
def test_bad_urdf_gives_one_line_naming_the_culprit(xml, words):
    with pytest.raises(ModelError) as err:
        parse_model(xml, source="bad.urdf")
    message = str(err.value)
    assert "\n" not in message and message.startswith("bad.urdf: ")
    for w in words:
        assert w in message


def test_entity_expansion_is_refused():
    bomb = b"""<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY a "aaaaaaaaaa">
      <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><robot name="&b;"><link name="x"/></robot>"""
    with pytest.raises(ModelError, match="entity"):
        parse_model(bomb)


def test_external_entity_is_refused(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    xml = f"""<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY s SYSTEM "file://{secret}">]>
      <robot name="&s;"><link name="x"/></robot>""".encode()
    with pytest.raises(ModelError, match="entity"):
        parse_model(xml)


def test_triangle_inequality_warns_and_strict_refuses():
    bad = robot_xml(inertia=(0.1, 0.1, 0.3))  # 0.1 + 0.1 < 0.3: no rigid body
    model = parse_model(bad)
    assert [d for d in model.diagnostics if d.level == "warning" and "'l1'" in d.message]
    with pytest.raises(ModelError, match="triangle"):
        parse_model(bad, strict=True)
    # on the boundary, with rounding, as identified models are: no warning
    edge = robot_xml(inertia=(0.1, 0.2, 0.3 * (1 + TRIANGLE_RTOL / 2)))
    assert not [d for d in parse_model(edge, strict=True).diagnostics if d.level != "info"]


def test_axis_is_normalized_and_bad_mimics_are_errors():
    model = parse_model(robot_xml(axis="0 0 2"))
    assert np.allclose(model.X[0], [0, 0, 1, 0, 0, 0])
    assert any("normalized" in d.message for d in model.diagnostics)
    xml = robot_xml().replace(b"</joint>", b'<mimic joint="j0"/></joint>')
    with pytest.raises(ModelError, match="joint 'j1': <mimic joint='j0'> names a joint that "
                                         "does not exist; --ignore-broken-mimic loads"):
        parse_model(xml)
    xml = robot_xml().replace(b"</joint>", b'<mimic joint="j_1"/></joint>')  # (mistyped)
    with pytest.raises(ModelError, match=r"<mimic joint='j_1'> names a joint that does not exist "
                                         r"\(a typo of 'j1'\?\)"):
        parse_model(xml)
    xml = robot_xml().replace(b"</robot>", b'<link name="l2"/><joint name="weld" type="fixed">'
                              b'<parent link="l1"/><child link="l2"/></joint></robot>')
    xml = xml.replace(b"<axis", b'<mimic joint="weld"/><axis', 1)
    with pytest.raises(ModelError, match="<mimic joint='weld'> is a fixed joint, not a moving one"):
        parse_model(xml)


def test_position_limits_are_read():
    from conftest import URDF
    from hodyn_cli.modeling.urdf import load_model

    iiwa = load_model(URDF / "iiwa14.urdf")
    assert iiwa.limits[0].tolist() == [-2.967, 2.967] and iiwa.limits.shape == (7, 2)
    arm = load_model(URDF / "gripper_arm.urdf")
    wrist = arm.joint_index("wrist_roll")  # continuous: unlimited
    assert np.isinf(arm.limits[wrist]).all()
    assert arm.limits[arm.joint_index("elbow_slide")].tolist() == [0.0, 0.2]


@pytest.mark.slow
def test_chains_of_thousands_of_links_have_no_recursion_limit(tmp_path):
    """Iterative traversals everywhere: a 2000-link chain parses, computes (two methods that
    agree) and renders."""
    import json

    from typer.testing import CliRunner

    from conftest import random_cosine
    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
    from hodyn_cli.algorithms.motion.kinematics import link_kinematics
    from hodyn_cli.cli.app import app

    n = 2000
    parts = ['<robot name="long"><link name="l0"/>']
    for k in range(1, n + 1):
        parts.append(
            f'<joint name="j{k}" type="revolute"><parent link="l{k - 1}"/><child link="l{k}"/>'
            f'<origin xyz="0 0 0.01"/><axis xyz="{"0 0 1" if k % 2 else "0 1 0"}"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
            f'<link name="l{k}"><inertial><mass value="0.01"/><inertia ixx="1e-6" ixy="0" '
            'ixz="0" iyy="1e-6" iyz="0" izz="1e-6"/></inertial></link>')
    parts.append("</robot>")
    path = tmp_path / "long.urdf"
    path.write_text("".join(parts))
    model = load_model(path)
    assert model.n == n and model.parent[-1] == n - 2
    traj = random_cosine(model, np.linspace(0, 1, 3), orders=4, seed=1)
    a = inverse_dynamics(model, traj, method="body-fixed", order=2)
    b = inverse_dynamics(model, traj, method="spatial", order=2)
    assert np.abs(a - b).max() <= 1e-9 * np.abs(a).max()
    assert link_kinematics(model, traj, f"l{n}", order=1).p.shape == (3, 3)
    result = CliRunner().invoke(app, ["info", str(path), "--json"])
    assert result.exit_code == 0 and len(json.loads(result.stdout)["joints"]) == n


def test_floating_base_notice_and_checks_on_links_welded_to_the_root():
    leg = ('<joint name="{n}_hip" type="revolute"><parent link="trunk"/><child link="{n}_thigh"/>'
           '<axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
           '<link name="{n}_thigh"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" '
           'ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>')
    text = ('<robot name="dog"><link name="trunk"/>' + leg.format(n="fl") + leg.format(n="fr")
            + "</robot>")
    model = parse_model(text.encode())
    notices = [d.message for d in model.diagnostics if d.level == "notice"]
    assert len(notices) == 1 and "looks like a mobile base" in notices[0]
    parse_model(text.encode(), strict=True)  # a notice is not a warning: --strict accepts it
    arm = parse_model(robot_xml())
    assert not [d for d in arm.diagnostics if d.level == "notice"]
    bad_root = text.replace('<link name="trunk"/>', '<link name="trunk"><inertial><mass '
                            'value="-2"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" '
                            'izz="1"/></inertial></link>')
    with pytest.raises(ModelError, match="link 'trunk': negative mass"):
        parse_model(bad_root.encode())


@pytest.mark.parametrize("mass, inertia", [(1e300, 1.0), (1.0, 1e300)])
def test_inertias_near_overflow_are_errors_naming_the_link(mass, inertia):
    xml = robot_xml(mass=mass, inertia=(inertia, inertia, inertia))
    with pytest.raises(ModelError, match="link 'l1': mass .* beyond what hodyn can compute"):
        parse_model(xml)


XACRO = """<?xml version="1.0"?>
<robot name="planar_2r" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="l1" default="0.4"/>
  <xacro:property name="l1" value="$(arg l1)"/>
  <xacro:macro name="point_link" params="name mass x">
    <link name="${name}">
      <inertial><origin xyz="${x} 0 0"/><mass value="${mass}"/>
        <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
    </link>
  </xacro:macro>
  <link name="world"/>
  <link name="base"/>
  <joint name="world_to_base" type="fixed"><parent link="world"/><child link="base"/>
    <origin xyz="0 0 0" rpy="1.5707963267948966 0 0"/></joint>
  <joint name="joint1" type="revolute"><parent link="base"/><child link="link1"/>
    <axis xyz="0 0 1"/><limit lower="-3.14" upper="3.14" effort="100" velocity="10"/></joint>
  <xacro:point_link name="link1" mass="1.2" x="${l1}"/>
  <joint name="joint2" type="revolute"><parent link="link1"/><child link="link2"/>
    <origin xyz="${l1} 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3.14" upper="3.14" effort="100" velocity="10"/></joint>
  <xacro:point_link name="link2" mass="0.8" x="0.3"/>
</robot>
"""


def test_xacro_robots_are_expanded(tmp_path):
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    path = tmp_path / "arm.urdf.xacro"
    path.write_text(XACRO)
    model = load_model(path)
    plain = load_model(URDF / "planar_2r.urdf")
    for field in ("B", "X", "inertias", "parent"):
        assert np.allclose(getattr(model, field), getattr(plain, field)), field
    longer = load_model(path, xacro_args={"l1": "0.5"})
    assert np.allclose(longer.B[1, :3, 3], [0.5, 0, 0])
    runner = CliRunner()
    result = runner.invoke(app, ["info", str(path), "--xacro-arg", "l1:=0.5", "--json"])
    assert result.exit_code == 0 and '"name": "planar_2r"' in result.stdout
    result = runner.invoke(app, ["info", str(path), "--xacro-arg", "l1=0.5"])
    assert result.exit_code == 2 and "expected name:=value" in result.stderr
    broken = tmp_path / "broken.xacro"
    broken.write_text(XACRO.replace("${l1}", "${undefined_thing}"))
    result = runner.invoke(app, ["info", str(broken)])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "broken.xacro: xacro expansion failed:" in result.stderr
    with pytest.raises(ModelError, match="not a .xacro file"):
        load_model(URDF / "planar_2r.urdf", xacro_args={"a": "1"})


def test_xacro_warnings_are_the_models_and_includes_are_found(tmp_path, monkeypatch):
    """xacro's warnings come back from its child process as the model's, one line each
    (--strict: an error); an include next to the file is found from any directory."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    folder = tmp_path / "robot"
    folder.mkdir()
    (folder / "arm.xacro").write_text(XACRO.replace(
        "<xacro:arg", '<xacro:property name="len" value="2"/><xacro:include '
        'filename="parts.xacro"/><xacro:arg', 1))
    (folder / "parts.xacro").write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro"/>')
    monkeypatch.chdir(tmp_path)
    model = load_model(folder / "arm.xacro")
    assert [d.message for d in model.diagnostics if d.level == "warning"] == [
        "xacro: redefining global symbol: len (when processing file: "
        f"{folder / 'arm.xacro'})"]
    result = CliRunner().invoke(app, ["info", str(folder / "arm.xacro")])
    assert result.exit_code == 0
    assert result.stderr.count("hodyn: warning: xacro: redefining global symbol: len") == 1
    result = CliRunner().invoke(app, ["info", str(folder / "arm.xacro"), "--strict"])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "redefining global symbol: len" in result.stderr and "(--strict)" in result.stderr


def quaternion_origins(text: str) -> str:
    """The URDF with every ``rpy`` origin written as URDF 1.1's ``quat_xyzw`` (scipy's
    rotation, independent of hodyn's)."""
    from scipy.spatial.transform import Rotation

    def quat(match):
        x, y, z, w = Rotation.from_euler("xyz", [float(v) for v in match[1].split()]).as_quat()
        return f'quat_xyzw="{x:.17g} {y:.17g} {z:.17g} {w:.17g}"'

    return re.sub(r'rpy="([^"]*)"', quat, text)


def test_quaternion_origins_of_urdf_1_1_are_the_same_poses(tmp_path):
    """iiwa14 with its origins as quat_xyzw: the same screws, poses and inertias (1e-15), and
    Pinocchio's reader agrees where its urdfdom reads quat_xyzw."""
    text = (URDF / "iiwa14.urdf").read_text()
    written = quaternion_origins(text)
    assert written.count("quat_xyzw") == text.count("rpy=") > 10
    path = tmp_path / "iiwa14_quat.urdf"
    path.write_text(written)
    a, b = load_model(URDF / "iiwa14.urdf"), load_model(path)
    for name in ("B", "X", "inertias", "root_inertia"):
        assert np.allclose(getattr(a, name), getattr(b, name), rtol=0, atol=1e-15), name
    pin = pytest.importorskip("pinocchio")
    theirs = pin.buildModelFromUrdf(str(path))
    if np.allclose(theirs.jointPlacements[2].rotation, np.eye(3)):
        pytest.skip("this Pinocchio's urdfdom ignores quat_xyzw")
    ours = pin.buildModelFromUrdf(str(URDF / "iiwa14.urdf"))
    for p, q in zip(ours.jointPlacements, theirs.jointPlacements, strict=True):
        assert np.allclose(p.homogeneous, q.homogeneous, atol=1e-15)


@pytest.mark.parametrize("origin, words", [
    ('rpy="0 0 1" quat_xyzw="0 0 0 1"', ["'j1' <origin>", "both 'rpy' and 'quat_xyzw'"]),
    ('quat_xyzw="0 0 0 2"', ["'j1' <origin>", "norm 2", "not a unit quaternion"]),
    ('quat_xyzw="0 0 1"', ["'j1' <origin>", "'quat_xyzw' needs 4 finite numbers"]),
])
def test_bad_quaternion_origins_are_one_line(origin, words):
    xml = robot_xml().replace(b'<origin xyz="0 0 1" rpy="0 0 0"/>',
                              f'<origin xyz="0 0 1" {origin}/>'.encode())
    assert b"quat_xyzw" in xml
    with pytest.raises(ModelError) as err:
        parse_model(xml, source="bad.urdf")
    assert "\n" not in str(err.value) and all(w in str(err.value) for w in words)
