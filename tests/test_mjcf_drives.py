"""MuJoCo's armature, damping and actuators as hodyn's drives and limits files (``hodyn info
MODEL.xml --drives-toml --limits-toml``, hodyn_cli.modeling.mjcf_drives): the values are
MuJoCo's compiled ones (defaults, classes, autolimits), and ``compute --drives --model
reflected`` gives the actuator forces of MuJoCo's mj_inverse with armature and damping on."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from hodyn_cli.cli.app import app

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

mjr = pytest.importorskip("mjcf_reference")  # skips where mujoco is not installed
mujoco = mjr.mujoco

DRIVEN = """<mujoco model="driven">
  <compiler angle="radian"/>
  <default>
    <joint armature="0.01" damping="0.2"/>
    <default class="big">
      <joint armature="0.05" frictionloss="0.3"/>
      <motor gear="80" forcerange="-2 2"/>
    </default>
  </default>
  <worldbody>
    <body name="l1">
      <joint name="j1" axis="0 0 1" class="big"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="l2" pos="0.3 0 0">
        <joint name="j2" axis="0 1 0" stiffness="3" actuatorfrcrange="-40 40"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
        <body name="l3" pos="0.25 0 0">
          <joint name="s3" type="slide" axis="1 0 0" damping="0" armature="0.2"/>
          <geom type="box" size="0.05 0.03 0.02" pos="0.05 0.01 0"/>
          <body name="l4" pos="0.1 0 0">
            <joint name="j4" axis="1 0 0" armature="0" damping="0"/>
            <geom type="sphere" size="0.03" pos="0 0.02 0"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="j1" coef="1"/></fixed></tendon>
  <actuator>
    <motor name="m1" joint="j1" class="big" ctrlrange="-1 1"/>
    <position name="p2" joint="j2" gear="30" kp="10" ctrlrange="-1 1.5"/>
    <motor name="m3" joint="s3" gear="-20" forcerange="-5 8"/>
    <motor name="mt" tendon="t"/>
  </actuator>
</mujoco>"""


def run(*args) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def exported(tmp_path):
    path = tmp_path / "driven.xml"
    path.write_text(DRIVEN)
    code, out = run("info", path, "--drives-toml", tmp_path / "d.toml", "--limits-toml",
                    tmp_path / "l.toml")
    assert code == 0, out
    drives = tomllib.loads((tmp_path / "d.toml").read_text())["joints"]
    limits = tomllib.loads((tmp_path / "l.toml").read_text())["joints"]
    return path, drives, limits, out


def test_exported_values_are_mujocos(tmp_path):
    path, drives, limits, out = exported(tmp_path)
    m = mujoco.MjModel.from_xml_path(str(path))
    joint = {n: mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, n) for n in drives}
    actuator = {"j1": "m1", "j2": "p2", "s3": "m3"}
    assert sorted(drives) == ["j1", "j2", "s3"]  # j4: nothing to export
    for name, table in drives.items():
        dof = m.jnt_dofadr[joint[name]]
        gear = m.actuator_gear[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR,
                                                 actuator[name]), 0]
        assert table["gear_ratio"] == gear
        assert table.get("rotor_inertia", 0) * gear ** 2 == pytest.approx(m.dof_armature[dof],
                                                                         rel=1e-15)
        assert table.get("viscous", 0) == m.dof_damping[dof]
    j2 = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, "j2")
    assert m.jnt_actfrclimited[j2] and limits["j2"] == {"torque": m.jnt_actfrcrange[j2, 1]}
    m1 = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_ACTUATOR, "m1")
    assert m.actuator_forcerange[m1, 1] == 2 and m.actuator_ctrlrange[m1, 1] == 1
    assert limits["j1"] == {"motor_torque": 1.0}  # a motor's force is its control
    assert limits["s3"] == {"motor_torque": 8.0}
    for note in ("actuator 'mt' (<motor>) drives tendon 't'", "'j1': frictionloss 0.3",
                 "'j2': stiffness 3", "'p2' (<position>): ctrlrange (position targets)",
                 "forcerange -5 8 is not symmetric"):
        assert note in out


def test_compute_with_the_exported_drives_is_mj_inverse(tmp_path):
    """taum = qfrc_inverse / gear with MuJoCo's armature and damping on (joints without a
    drive: taum = tau)."""
    path, drives, _, _ = exported(tmp_path)
    traj = tmp_path / "traj.csv"
    g = ",".join(repr(float(v)) for v in mjr.GRAVITY)
    assert run("generate", path, "--kind", "cosine", "--duration", "0.05", "-o", traj)[0] == 0
    code, out = run("compute", path, traj, "--drives", tmp_path / "d.toml", "--model",
                    "reflected", "--order", "0", "--gravity", g, "-o", tmp_path / "m.csv")
    assert code == 0, out
    lines = traj.read_text().splitlines()
    cols = lines[0].split(",")
    data = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    res_lines = (tmp_path / "m.csv").read_text().splitlines()
    res_cols = res_lines[0].split(",")
    res = np.array([[float(v) for v in line.split(",")] for line in res_lines[1:]])
    m = mujoco.MjModel.from_xml_path(str(path))
    rigid = mjr.rigid_body_only(path)
    rigid.dof_armature[:], rigid.dof_damping[:] = m.dof_armature, m.dof_damping
    rigid.opt.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_DAMPER)  # damping on
    names = ["j1", "j2", "s3", "j4"]
    state = [data[:, [cols.index(f"{p}_{j}") for j in names]] for p in ("q", "qd", "qdd")]
    ref = np.array([mjr.mj_inverse(rigid, *(s[k] for s in state)) for k in range(len(data))])
    gears = np.array([drives.get(j, {}).get("gear_ratio", 1.0) for j in names])
    ours = res[:, [res_cols.index(f"taum_{j}") if f"taum_{j}" in res_cols
                   else res_cols.index(f"tau_{j}") for j in names]]
    assert np.abs(ours * gears - ref).max() < 1e-9 * np.abs(ref).max()
    assert np.abs(m.dof_armature * state[2] + m.dof_damping * state[1]).max() \
        > 1e-3 * np.abs(ref).max()  # the drives matter here


def test_a_urdf_has_no_export(tmp_path):
    from conftest import ROOT

    code, out = run("info", ROOT / "urdf" / "planar_2r.urdf", "--drives-toml",
                    tmp_path / "d.toml")
    assert code == 2 and "export a MuJoCo model's (MJCF) parameters" in out
    assert not (tmp_path / "d.toml").exists()


def test_free_joint_armature_is_noted(tmp_path):
    """A free root's armature is a notice (drives are for hinges and slides); its hinge's
    drive is written."""
    path = tmp_path / "free.xml"
    path.write_text('<mujoco><worldbody><body name="b"><joint name="f" type="free" '
                    'armature="0.1"/><geom size="0.1"/><body name="c" pos="0.2 0 0"><joint '
                    'name="h" armature="0.02"/><geom size="0.05"/></body></body></worldbody>'
                    '</mujoco>')
    code, out = run("info", path, "--drives-toml", tmp_path / "d.toml")
    assert code == 0, out
    assert "joint 'f' (free): its armature and damping are not exported" in out
    assert tomllib.loads((tmp_path / "d.toml").read_text())["joints"] == {
        "h": {"gear_ratio": 1.0, "rotor_inertia": 0.02}}


def test_an_export_over_the_model_or_onto_the_other_export_is_refused(tmp_path):
    """--drives-toml/--limits-toml are outputs like -o: the model they would replace, or one
    file for both, is refused in one line before anything is written."""
    from conftest import ROOT

    model = tmp_path / "acrobot.xml"
    model.write_bytes((ROOT / "mjcf" / "acrobot.xml").read_bytes())
    before = model.read_bytes()
    for args, message in (
            (["--drives-toml", model], "the output is an input"),
            (["--limits-toml", model], "the output is an input"),
            (["--drives-toml", tmp_path / "x.toml", "--limits-toml", tmp_path / "x.toml"],
             "two outputs are one file")):
        result = CliRunner().invoke(app, ["info", str(model), *map(str, args)])
        lines = [ln for ln in result.output.splitlines() if ln.startswith("hodyn: error:")]
        assert result.exit_code == 2 and len(lines) == 1 and message in lines[0], result.output
    assert model.read_bytes() == before and not (tmp_path / "x.toml").exists()
