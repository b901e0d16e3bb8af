"""``hodyn validate`` on ball, planar, helical and free joints anywhere in a tree, and on a
floating base as the root's free joint (issue 36): the torque checks' local Taylor motion
moves a multi-DOF joint on its group, the data checks hold its pose against its velocity
coordinates, and both fail where they should.

- exact motions (``generate`` on the groups) pass every check, the finite differences to
  1e-10 of the torques' size (the stencil's own error), through the command line on the
  bundled ``mjcf/ball_chain.xml`` and ``urdf/mobile_2r.urdf``, and on a random tree with
  every joint kind (free and planar joints deep in it), fixed and floating;
- a ball joint's omega column 1 % off, a planar joint's theta column shifted, fail the pose
  check naming the joint's column, exit 1;
- the Taylor polynomial of a rotation vector (the motion a 1-DOF joint gets) in place of the
  group's fails the finite differences: the check can tell;
- the data checks are named as README.md's "Check names" says (a planar joint's ``drive's
  (x, y, theta) rates vs time differences of its pose``);
- what validate does not run on them yet is one line, exit 2."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from test_joint_models import MIXED, random_model
from typer.testing import CliRunner

from hodyn_cli import load_robot
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.algorithms.verification import checks
from hodyn_cli.algorithms.verification.validate import validate
from hodyn_cli.cli.app import app
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import BaseMotion, taylor
from hodyn_cli.modeling.mjcf import load_mjcf

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def by_name(report: dict) -> dict:
    return {(c["name"], c["method"]): c for c in report["checks"]}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """1 s of a cosine motion (q to its 5th derivative) of each bundled multi-DOF robot."""
    d = tmp_path_factory.mktemp("multidof")
    for robot in ("mjcf/ball_chain.xml", "urdf/mobile_2r.urdf"):
        out = d / f"{Path(robot).stem}.csv"
        r = run("generate", ROOT / robot, "--kind", "cosine", "--duration", "1",
                "--derivatives", "5", "-o", out)
        assert r.exit_code == 0, r.output
    return d


def edited(path: Path, out: Path, column: str, change) -> Path:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    j = rows[0].index(column)
    for row in rows[1:]:
        row[j] = repr(change(float(row[j])))
    with open(out, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    return out


@pytest.mark.parametrize("robot, pose", [
    ("mjcf/ball_chain.xml", "shoulder_Rd vs time differences of shoulder_R"),
    ("urdf/mobile_2r.urdf", "drive's (x, y, theta) rates vs time differences of its pose")])
def test_an_exact_motion_passes_on_the_groups(files, robot, pose):
    stem = Path(robot).stem
    r = run("validate", ROOT / robot, files / f"{stem}.csv", "--samples", "12", "--report",
            files / f"{stem}.json")
    assert r.exit_code == 0, r.output
    report = json.loads((files / f"{stem}.json").read_text())
    found = by_name(report)
    for method in ("body-fixed", "spatial", "closed-form"):
        for name in ("taud vs d/dt tau", "taudd vs d/dt taud"):
            assert found[(name, method)]["max_rel"] <= 1e-10, (name, method)
    poses = [c for (name, _), c in found.items()
             if name == pose]
    assert poses and all(c["status"] == "pass" for c in poses), poses
    assert found[("qdd vs time differences of qd (multi-DOF joints)", None)]["status"] == "pass"


@pytest.mark.parametrize("robot, column, change, failed, series", [
    ("mjcf/ball_chain.xml", "qd_shoulder_wx", lambda x: 1.01 * x + 1e-3,
     "shoulder_Rd vs time differences of shoulder_R", "shoulder_R_"),
    ("urdf/mobile_2r.urdf", "drive_theta", lambda x: x + 0.05,
     "drive's (x, y, theta) rates vs time differences of its pose", "drive_"),
])
def test_a_corrupted_column_fails_its_pose_check(files, tmp_path, robot, column, change, failed,
                                                 series):
    """The failed check names a column of the file: a planar joint's ``drive_x``, ``drive_y``,
    ``drive_theta`` (not a ``drive_p_y`` or ``drive_R_12`` it does not have), in the report
    and in the line it prints."""
    stem = Path(robot).stem
    bad = edited(files / f"{stem}.csv", tmp_path / "bad.csv", column, change)
    r = run("validate", ROOT / robot, bad, "--samples", "12", "--report", tmp_path / "r.json")
    assert r.exit_code == 1, r.output
    check = by_name(json.loads((tmp_path / "r.json").read_text()))[(failed, None)]
    assert check["status"] == "fail", check
    header = bad.read_text().splitlines()[0].split(",")
    assert check["worst_joint"].startswith(series), check
    if robot.endswith(".urdf"):   # a planar joint's pose is the file's own columns
        assert check["worst_joint"] in header, (check, header)
        line, = [x for x in r.stderr.splitlines() if x.startswith(f"hodyn: fail: {failed}")]
        named = re.findall(r"(?:qd_)?drive_\w+", line)
        assert check["worst_joint"] in named and set(named) <= set(header), (named, header)


@pytest.mark.parametrize("floating", [False, True])
def test_every_joint_kind_anywhere_in_a_tree(floating):
    """A random tree of ball, free, planar, helical, revolute and prismatic joints (free and
    planar ones below others); with ``floating`` its root floats too (the free root joint
    above a tree that has free joints of its own)."""
    model = random_model(3, MIXED)
    traj = generate(model, "cosine", rate=200.0, duration=1.0, derivatives=5, seed=1)
    if floating:  # the root turning about z at 1.5 rad/s, at rest otherwise
        t, w = traj.t, 1.5
        Vb = np.zeros((len(t), 4, 6))
        Vb[:, 0, 2] = w
        base = BaseMotion(lie.rotation_exp(np.array([0, 0, 1.0]), w * t), np.zeros((len(t), 3)),
                          Vb)
        traj = replace(traj, base=base)
    report = validate(model, traj, samples=8)
    torque_checks = [c for c in report.checks if c.group in ("finite differences",
                                                             "cross-method")]
    assert len(torque_checks) == 3 * 2 + 3 * 3
    assert all(c.status == "pass" for c in torque_checks), [c for c in torque_checks
                                                            if c.status != "pass"]
    assert max(c.max_rel for c in torque_checks if c.group == "finite differences") <= 1e-9
    assert report.series["body-fixed"]["taud"]["analytic"].shape[1] == model.nv + 6 * floating
    data = {c.name: c for c in report.checks if c.group == "data consistency"}
    poses = [f"{j}'s (x, y, theta) rates vs time differences of its pose" if kind == "planar" else
             f"{j}_Rd vs time differences of {j}_R"
             for j, kind in zip(model.joint_names, model.joint_types, strict=True)
             if kind in ("spherical", "planar", "free")]
    assert "planar" in model.joint_types and all(data[p].status == "pass" for p in poses)
    assert data["base_Rd vs time differences of base_R" if floating else
                "qd vs time differences of q"].status == "pass"
    assert report.series["joint_names"][-1].startswith("W_") == floating
    assert report.passed, report.failures


def test_the_rotation_vector_polynomial_fails_the_finite_differences(files, monkeypatch):
    """The local motion of a 1-DOF joint for the ball joints (r's Taylor polynomial with
    r' = omega, wrong on the group): the finite differences of the torques fail."""
    model = load_mjcf(ROOT / "mjcf" / "ball_chain.xml")
    traj = generate(model, "cosine", rate=200.0, duration=1.0, derivatives=5, seed=2)
    assert validate(model, traj, samples=6, methods=["body-fixed"]).passed

    def naive(model, i, c, offsets):
        return taylor(c, offsets)[:, :, 0]

    monkeypatch.setattr(checks, "local_configuration", naive)
    report = validate(model, traj, samples=6, methods=["body-fixed"])
    assert ("finite differences", "taud vs d/dt tau") in {(c.group, c.name.split(" [")[0])
                                                          for c in report.failures}


@pytest.mark.parametrize("option", [["--simulate"], ["--loops", ROOT / "urdf" /
                                                     "fourbar_loops.toml"]])
def test_what_does_not_run_yet_is_one_line(files, tmp_path, option):
    out = tmp_path / "r.json"
    r = run("validate", ROOT / "mjcf" / "ball_chain.xml", files / "ball_chain.csv",
            *option, "--report", out)
    assert r.exit_code == 2, r.output
    errors = [line for line in r.output.splitlines() if line.startswith("hodyn: error")]
    assert errors == [r.output.strip().splitlines()[-1]], r.output   # (after a notice)
    assert "ball, planar or free joint does not go with" in errors[0], errors
    assert not out.exists()


@pytest.mark.parametrize("robot, pose", [("mjcf/ball_chain.xml", ["shoulder", "elbow", "wrist"]),
                                         ("urdf/mobile_2r.urdf", ["drive"])])
def test_estimated_rates_make_the_pose_checks_estimated(files, tmp_path, robot, pose):
    """--estimate-derivatives on a pose-only file: a multi-DOF joint's rates are estimated
    from its pose, so ``<joint>_Rd vs time differences of <joint>_R`` (a planar joint's
    ``<joint>'s (x, y, theta) rates vs time differences of its pose``) hold by construction:
    reported as estimated, not as passed (as q's own)."""
    stem = Path(robot).stem
    with open(files / f"{stem}.csv", newline="") as f:
        rows = list(csv.reader(f))
    keep = [j for j, c in enumerate(rows[0]) if not c.startswith("qd")]
    with open(tmp_path / "pose.csv", "w", newline="") as f:
        csv.writer(f).writerows([[row[j] for j in keep] for row in rows])
    r = run("validate", ROOT / robot, tmp_path / "pose.csv", "--estimate-derivatives",
            "--samples", "12", "--report", tmp_path / "r.json")
    assert r.exit_code == 0, r.output
    report = json.loads((tmp_path / "r.json").read_text())
    rates = tuple(f"{j}{x}" for j in pose for x in ("_Rd ", "_pd ", "'s "))
    poses = [c for c in report["checks"] if c["group"] == "data consistency"
             and c["name"].startswith(rates)]
    assert len(poses) == len(pose), poses   # a ball joint's R, a planar one's (x, y, theta)
    assert {c["status"] for c in poses} == {"estimated"}, poses


def test_every_data_check_is_named_as_documented():
    """The data consistency checks' names (the JSON report's keys) along a floating random
    tree of every joint kind with an external wrench are README.md's "Check names", read
    with ``<joint>`` for a joint and an order above the first as the first (``qddd vs time
    differences of qdd`` as ``qd vs time differences of q``); every kind of them is there."""
    from conftest import wrench_motion
    from hodyn_cli.core.trajectory import Wrenches

    text = (ROOT / "README.md").read_text()
    paragraph = text[text.index("**Check names**"):].split("\n\n")[0].replace("\n", " ")
    documented = set(re.findall(r"`([^`]+)`", paragraph))
    model = random_model(3, MIXED)
    traj = generate(model, "cosine", rate=200.0, duration=0.5, derivatives=5, seed=1)
    Vb = np.zeros((len(traj.t), 4, 6))
    Vb[:, 0, 2] = 1.5
    base = BaseMotion(lie.rotation_exp(np.array([0, 0, 1.0]), 1.5 * traj.t),
                      np.zeros((len(traj.t), 3)), Vb)
    traj = replace(traj, base=base,
                   wrenches=Wrenches({model.link_names[-1]: wrench_motion(traj.t, 2)}))
    report = validate(model, traj, samples=4)
    found = set()
    for check in report.checks:
        if check.group != "data consistency":
            continue
        name = check.name
        for joint in sorted(model.joint_names, key=len, reverse=True):
            name = name.replace(f"{joint}_", "<joint>_").replace(f"{joint}'s", "<joint>'s")
        while name not in documented and (m := re.match(
                r"^(\S+)d( vs time differences of )(\S+)d(.*)$", name)):
            name = "".join(m.groups())
        assert name in documented, (check.name, name)
        found.add(name)
    assert {"qd vs time differences of q", "qdd vs time differences of qd (multi-DOF joints)",
            "base_Vbd vs time differences of base_Vb", "<joint>_Rd vs time differences of "
            "<joint>_R", "<joint>_pd vs time differences of <joint>_p", "base_Rd vs time "
            "differences of base_R", "base_pd vs time differences of base_p",
            "<joint>'s (x, y, theta) rates vs time differences of its "
            "pose", "Wd vs time differences of W", "q within URDF limits"} <= found, found


def test_a_planar_joints_theta_wrapped_at_pi_is_judged_unwrapped():
    """The mobile 2R's base spinning (theta 3 .. 13.5 rad over 2 s at 100 Hz), its theta
    written wrapped into (-pi, pi] as a log would: the pose check reads it unwrapped
    (:class:`~hodyn_cli.algorithms.motion.turns.Turns`, validate's wrap of the planar
    joint's theta), the same relative error as the unwrapped file's; read as given, the
    2 pi jumps would fail it ~1e5 times over."""
    model = load_robot(ROOT / "urdf/mobile_2r.urdf")
    traj = generate(model, "cosine", derivatives=4, rate=100.0, duration=2.0)
    d, t = traj.derivatives.copy(), traj.t
    d[:, :, :2], d[:, 0, :2] = 0.0, [0.3, -0.2]  # (x, y held; theta turning at ~5 rad/s)
    d[:, :, 2] = np.stack([3.0 + 5.0 * t + 0.5 * np.sin(2 * t), 5.0 + np.cos(2 * t),
                           -2.0 * np.sin(2 * t), -4.0 * np.cos(2 * t), 8.0 * np.sin(2 * t)], 1)
    wrapped = d.copy()
    wrapped[:, 0, 2] = np.angle(np.exp(1j * d[:, 0, 2]))
    assert np.abs(np.diff(wrapped[:, 0, 2])).max() > 6
    name = "drive's (x, y, theta) rates vs time differences of its pose"
    got = []
    for x in (d, wrapped):
        report = validate(model, replace(traj, derivatives=x), samples=4)
        assert report.passed, [c.name for c in report.checks if c.status == "fail"]
        got.append(next(c.max_rel for c in report.checks if c.name == name))
    assert got[1] == pytest.approx(got[0], rel=1e-6) and got[0] < 1e-4
