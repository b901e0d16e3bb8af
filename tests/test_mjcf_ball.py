"""MJCF ball joints (hodyn_cli.modeling.mjcf, docs/mjcf.md): mjcf/ball_chain.xml (a hinge, ball
joints anchored off their bodies' origins, a hinge and a ball in one body) is hodyn's spherical
joint models. tau equals MuJoCo's mj_inverse on random states (a ball joint's qpos the
quaternion of hodyn's rotation vector, qvel its angular velocity in the body frame), taud and
taudd the 8th-order time differences of MuJoCo's tau along analytic turning motions, and a
MuJoCo log imported (quaternions -> ``J_R_..`` columns) computes to mj_inverse's forces."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import ROOT
from hodyn_cli.cli.app import app
from hodyn_cli.modeling.mjcf_drives import mujoco_drives
from hodyn_cli.modeling.urdf import load_model

mjr = pytest.importorskip("mjcf_reference")  # skips where mujoco is not installed
from test_mjcf_import import read_csv, save, simulate  # noqa: E402  (after the skip)

CHAIN = ROOT / "mjcf" / "ball_chain.xml"
G = ",".join(repr(float(v)) for v in mjr.GRAVITY)


def run(*args) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_ball_joints_are_spherical_joint_models():
    """Each ball joint a spherical joint (three coordinates named J_wx..), the hinge and the
    ball of body 'fore' a chain of two (the first massless), the cone range left out with a
    notice; MuJoCo's compiled inertias equal hodyn's."""
    model = load_model(CHAIN)
    assert model.joint_types == ("continuous", "spherical", "continuous", "spherical",
                                 "spherical")
    assert model.link_names[2:4] == ("fore:twist", "fore") and model.mass[2] == 0
    assert model.nv == 1 + 3 + 1 + 3 + 3
    assert model.dof_names[1:4] == ("shoulder_wx", "shoulder_wy", "shoulder_wz")
    assert any("joint 'wrist' (ball): its range" in d.message for d in model.diagnostics)
    mjr.assert_inertias(CHAIN)


def test_tau_equals_mj_inverse():
    """Order 0 against mj_inverse (passive forces, constraints, armature off) to 1e-9 of the
    torque scale on random states, every ball joint turned far from qpos0."""
    assert mjr.torque_error(CHAIN, load_model(CHAIN), samples=4, seed=1) < 1e-9


def test_rates_are_mujocos_time_differences():
    """taud, taudd against 8th-order central differences (h = 1e-3) of mj_inverse along a
    motion whose ball joints turn as exp(th1(t) e1) exp(th2(t) e2), exact body angular
    velocities and their derivatives."""
    taud, taudd = mjr.rate_errors(CHAIN, load_model(CHAIN), seed=2)
    assert taud < 1e-8 and taudd < 1e-6, (taud, taudd)


def test_pinocchio_mjcf_reader_agrees():
    """Pinocchio's buildModelFromMJCF (ball joints: JointModelSpherical, the hinge and ball of
    one body a JointModelComposite) gives hodyn's tau."""
    pytest.importorskip("pinocchio")
    error = mjr.pinocchio_error(CHAIN, load_model(CHAIN))
    assert error is not None and error < 1e-12, error


def test_info_shows_each_ball_joint_and_its_masses():
    code, out = run("info", CHAIN, "--json")
    assert code == 0, out
    import json

    joints = {j["name"]: j for j in json.loads(out[out.index("{"):])["joints"]}
    assert joints["shoulder"]["type"] == "spherical"
    assert joints["elbow"]["coordinates"] == ["elbow_wx", "elbow_wy", "elbow_wz"]
    assert joints["wrist"]["limits"] == [None, None]
    assert abs(joints["elbow"]["mass"] - mjr.rigid_body_only(CHAIN).body_mass[3]) < 1e-12
    code, out = run("info", CHAIN)
    assert code == 0 and "body 'fore', 'twist' (hinge), 'elbow' (ball)" in out


def test_imported_log_computes_mujocos_forces(tmp_path):
    """MuJoCo's qpos (ball joints' quaternions, unnormalized at the first sample), qvel, qacc
    -> hodyn import -> a CSV with J_R_11..J_R_33, qd_J_wx.., qdd_J_wx.. -> compute --order 0
    equals mj_inverse at every logged state."""
    model = load_model(CHAIN)
    log = simulate(CHAIN, steps=15, seed=3)
    imported = tmp_path / "chain.csv"
    code, out = run("import", save(tmp_path / "log.npz", log), "--urdf", CHAIN, "-o", imported)
    assert code == 0 and "mimic" not in out, out
    cols = read_csv(imported)
    assert {"shoulder_R_11", "shoulder_R_33", "qd_elbow_wy", "qdd_wrist_wz", "q_yaw"} <= set(cols)
    # the first quaternion of 'shoulder' (qpos entries 1..4) is MuJoCo's rotation of it
    quat = log["qpos"][0, 1:5]
    R = np.array([[cols[f"shoulder_R_{r}{c}"][0] for c in "123"] for r in "123"])
    assert np.abs(R - mjr.quat_matrix(quat / np.linalg.norm(quat))).max() < 1e-12
    assert np.array_equal(cols["qd_elbow_wx"], log["qvel"][:, 5])
    code, out = run("compute", CHAIN, imported, "--order", "0", "--gravity", G,
                    "-o", tmp_path / "tau.csv")
    assert code == 0, out
    res = read_csv(tmp_path / "tau.csv")
    tau = np.stack([res[f"tau_{name}"] for name in model.dof_names], axis=1)
    assert np.abs(tau - log["ref"]).max() < 1e-9 * np.abs(log["ref"]).max()


def test_bad_ball_logs_and_outputs_are_one_line(tmp_path):
    """A zero quaternion of a ball joint names the joint and the sample; an HDF5 output (no
    datasets of joint poses yet) and a log of another layout are one line, exit 2, and leave
    no file."""
    log = simulate(CHAIN, steps=3, seed=4)
    log["qpos"][2, 6:10] = 0.0  # qpos: yaw, shoulder (4), twist, elbow (4), wrist (4)
    code, out = run("import", save(tmp_path / "zero.npz", log), "--urdf", CHAIN,
                    "-o", tmp_path / "z.csv")
    assert code == 2 and "qpos of ball joint 'elbow': a zero quaternion at sample 2" in out, out
    assert len(out.strip().splitlines()) == 1 and not (tmp_path / "z.csv").exists()
    log = simulate(CHAIN, steps=3, seed=4)
    code, out = run("import", save(tmp_path / "ok.npz", log), "--urdf", CHAIN,
                    "-o", tmp_path / "chain.h5")
    assert code == 2 and "written as CSV" in out and not (tmp_path / "chain.h5").exists()
    log["qpos"] = log["qpos"][:, :-1]
    code, out = run("import", save(tmp_path / "short.npz", log), "--urdf", CHAIN,
                    "-o", tmp_path / "s.csv")
    assert code == 2 and "qpos has 13 entries per sample, qvel 11" in out, out


def test_drives_export_leaves_ball_joints_out(tmp_path):
    """Armature and damping of a ball joint (three dofs in MuJoCo) are not a 1-DOF drive: a
    note names each ball joint; the hinges' (damping from the default class) are exported."""
    path = tmp_path / "chain.xml"
    path.write_text(CHAIN.read_text().replace('type="ball" pos="0.01 -0.02 0.03"',
                                              'type="ball" pos="0.01 -0.02 0.03" armature="0.1"'))
    drives = mujoco_drives(path, load_model(path))
    assert drives.drives == {"yaw": {"gear_ratio": 1.0, "viscous": 0.05},
                             "twist": {"gear_ratio": 1.0, "viscous": 0.05}}
    for ball in ("shoulder", "elbow", "wrist"):
        assert any(f"joint '{ball}' (ball): its armature and damping are not exported" in note
                   for note in drives.notes), ball


def test_a_joint_equality_on_a_ball_joint_is_refused(tmp_path):
    path = tmp_path / "coupled.xml"
    path.write_text(CHAIN.read_text().replace(
        "</worldbody>", '</worldbody><equality><joint name="e" joint1="twist" '
                        'joint2="elbow"/></equality>'))
    mjr.assert_refused(path, "joint 'elbow' is not a hinge or slide of the model")


def test_documented_log_starts_with_the_applied_force(tmp_path):
    """docs/mjcf.md's example: docs/examples/mujoco_log.py's log of ball_chain.xml starts at
    rest, so the first row of compute's torques is the force it applied, 0.5 sin(k) on degree
    of freedom k (damping, which hodyn leaves out, is zero at rest)."""
    import runpy

    runpy.run_path(str(ROOT / "docs" / "examples" / "mujoco_log.py"))["main"](
        str(CHAIN), str(tmp_path / "log.npz"))
    assert run("import", tmp_path / "log.npz", "--urdf", CHAIN, "-o", tmp_path / "log.csv")[0] == 0
    code, out = run("compute", CHAIN, tmp_path / "log.csv", "--order", "0", "-o",
                    tmp_path / "tau.csv")
    assert code == 0, out
    res = read_csv(tmp_path / "tau.csv")
    first = np.array([res[f"tau_{name}"][0] for name in load_model(CHAIN).dof_names])
    assert np.abs(first - 0.5 * np.sin(np.arange(11))).max() < 1e-9


def test_free_root_with_ball_joints(tmp_path):
    """The chain on a free root (its hinge 'yaw' a free joint): qpos (p, quat, then the
    joints' values and quaternions) imported, compute --floating-base --base-wrench equals
    mj_inverse's forces, the free joint's as W = -(moment; R^T force)."""
    path = tmp_path / "floating.xml"
    path.write_text(CHAIN.read_text().replace('<joint name="yaw" type="hinge" axis="0 0 1"/>',
                                              '<freejoint name="root"/>'))
    model = load_model(path)
    assert model.root_link == "base" and model.nv == 10
    log = simulate(path, steps=6, seed=5)
    code, out = run("import", save(tmp_path / "log.npz", log), "--urdf", path,
                    "-o", tmp_path / "log.csv")
    assert code == 0 and "the free joint of 'base'" in out, out
    code, out = run("compute", path, tmp_path / "log.csv", "--floating-base", "--base-wrench",
                    "--order", "0", "--gravity", G, "-o", tmp_path / "tau.csv")
    assert code == 0, out
    res = read_csv(tmp_path / "tau.csv")
    R = np.array([mjr.quat_matrix(q / np.linalg.norm(q)) for q in log["qpos"][:, 3:7]])
    W = np.stack([res[f"W_base_{a}"] for a in ("mx", "my", "mz", "fx", "fy", "fz")], axis=1)
    tau = np.stack([res[f"tau_{name}"] for name in model.dof_names], axis=1)
    ours = np.concatenate([-np.einsum("nij,nj->ni", R, W[:, 3:]), -W[:, :3], tau], axis=1)
    assert np.abs(ours - log["ref"]).max() < 1e-9 * np.abs(log["ref"]).max()
