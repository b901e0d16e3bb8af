"""Joint acceleration and jerk limits (URDF 1.2 ``<limit jerk>``, a limits file's
``acceleration`` and ``jerk``, ``--jerk``): planted violations found at their samples by
``check``, the uniform scaling onto a jerk limit (k^3) against the closed form, the optimal
time law within them, and the Panda's published limits."""

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import SAMPLES, URDF
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.limits import read_limits
from hodyn_cli.modeling.locking import lock
from hodyn_cli.modeling.urdf import load_model, parse_model

runner = CliRunner()
IIWA = URDF / "iiwa14.urdf"
IIWA_CSV = SAMPLES / "iiwa14_cosine.csv"
MODEL = load_model(IIWA)
JOINTS = MODEL.joint_names


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_urdf_jerk_in_the_model_and_what_overrides_it(tmp_path):
    """URDF 1.2's ``<limit jerk>`` is the joint's jerk limit (missing or 0: none); locking
    keeps the others'; a limits file's ``jerk`` overrides it, and ``--jerk`` both."""
    text = IIWA.read_text()
    text = text.replace('effort="320"', 'effort="320" jerk="40"', 1)
    text = text.replace('effort="176"', 'effort="176" jerk="0"', 1)
    model = parse_model(text.encode())
    assert model.jerk_limits[0] == 40 and np.isinf(model.jerk_limits[1:]).all()
    assert lock(model, {"iiwa_joint_2": 0.0}).jerk_limits[0] == 40
    limits = hodyn_cli.joint_limits(model, {"iiwa_joint_1": {"jerk": 25.0},
                                            "iiwa_joint_3": {"acceleration": 3.0}})
    assert limits.bands["jerk"][0].tolist() == [-25.0, 25.0]
    assert limits.bands["acceleration"][2].tolist() == [-3.0, 3.0]
    assert limits.origin["jerk"][:2] == ("file", "")
    urdf = tmp_path / "jerky.urdf"
    urdf.write_text(text)
    out = tmp_path / "r.json"
    result = run("check", urdf, IIWA_CSV, "--jerk", "1e6", "--report", out)
    rows = [r for r in json.loads(out.read_text())["rows"] if r["quantity"] == "jerk"]
    assert [(r["upper"], r["limit_from"]) for r in rows] == [(1e6, "option")] * 7, result.output


def _threshold(values: np.ndarray) -> tuple[float, int]:
    """A limit between the largest and second-largest |value|, and the sample of the largest."""
    a = np.sort(np.abs(values))
    assert a[-1] - a[-2] > 1e-6 * a[-1]
    return float((a[-1] + a[-2]) / 2), int(np.argmax(np.abs(values)))


def test_planted_acceleration_and_jerk_violations(tmp_path):
    """An acceleration limit (limits file) and a jerk limit (``--jerk``, one per joint) just
    below the file's own peaks: each is violated at exactly that sample, nothing else."""
    traj = read_trajectory(str(IIWA_CSV), MODEL, need=4)
    acc, a_at = _threshold(traj.qdd[:, 1])
    jerk, j_at = _threshold(traj.qddd[:, 4])
    limits = tmp_path / "l.toml"
    limits.write_text("".join(f"[joints.{j}]\nvelocity = inf\n" for j in JOINTS).replace(
        "iiwa_joint_2]\n", f"iiwa_joint_2]\nacceleration = {acc!r}\n"))
    jerks = ",".join(repr(jerk) if j == 4 else "inf" for j in range(7))   # inf: no limit
    out = tmp_path / "r.json"
    result = run("check", IIWA, IIWA_CSV, "--limits", limits, "--jerk", jerks, "--report", out)
    assert result.exit_code == 1, result.output
    rows = json.loads(out.read_text())["rows"]
    violated = {(r["quantity"], r["joint"]): r for r in rows if r["status"] == "violated"}
    assert set(violated) == {("acceleration", "iiwa_joint_2"), ("jerk", "iiwa_joint_5")}
    for key, sample, unit in ((("acceleration", "iiwa_joint_2"), a_at, "rad/s^2"),
                              (("jerk", "iiwa_joint_5"), j_at, "rad/s^3")):
        assert violated[key]["violations"] == 1 and violated[key]["worst_sample"] == sample
        assert violated[key]["unit"] == unit
    assert "hodyn: fail: jerk of iiwa_joint_5 beyond its limit at 1 sample" in result.output


def test_retime_to_a_jerk_limit_is_exact(tmp_path):
    """Onto a jerk limit J alone, played k times slower the jerk is qddd / k^3: k = (max
    |qddd| / J)^(1/3) exactly; the output passes check, 1e-6 faster it fails on the jerk."""
    traj = read_trajectory(str(IIWA_CSV), MODEL, need=4)
    J = 2.0
    k = float((np.abs(traj.qddd).max() / J) ** (1 / 3))
    limits = tmp_path / "l.toml"
    limits.write_text("".join(f"[joints.{j}]\nvelocity = inf\n" for j in JOINTS))
    out = tmp_path / "re.csv"
    result = run("retime", IIWA, IIWA_CSV, "--to-limits", "--limits", limits, "--jerk", J,
                 "-o", out)
    assert result.exit_code == 0, result.output
    got = float(re.search(r"played k = (\S+) times slower", result.output).group(1))
    assert got == pytest.approx(k, rel=1e-8)
    assert "binding: jerk of iiwa_joint_" in result.output
    assert run("check", IIWA, out, "--limits", limits, "--jerk", J).exit_code == 0
    assert run("check", IIWA, out, "--limits", limits, "--jerk", J * (1 - 1e-6)).exit_code == 1


def test_the_optimal_time_law_keeps_jerk_limits():
    """With a jerk limit (not linear in the time law: linearised in the programmes, held by
    the final fit), every output sample is within it and one on it, the output is faster
    than the uniform scaling, and its jerk follows from its accelerations (validate)."""
    model = MODEL
    full = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    traj = Trajectory(full.joint_names, full.derivatives[:301], full.t[:301])
    limits = {j: {"jerk": 8.0} for j in model.joint_names}
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=150)
    assert opt.duration < 0.97 * opt.uniform_duration
    assert np.abs(out.qddd).max() <= 8.0 * (1 + 1e-9)
    check = hodyn_cli.check_limits(model, out, limits=limits)
    assert check.feasible and max(r.usage for r in check.rows) > 1 - 1e-3
    assert any(line.startswith("jerk of ") for line in opt.bound.describe())
    assert hodyn_cli.validate_motion(model, out, samples=100).passed


@pytest.mark.parametrize("value, message", [
    ("1,2", "--jerk has 2 values, the robot 7 joints"),
    ("-1", "--jerk must be a positive number (or inf), got -1.0"),
    ("fast", "--jerk: expected numbers separated by commas, got 'fast'")])
def test_bad_jerk_options_are_one_line(tmp_path, value, message):
    out = tmp_path / "o.csv"
    for command in (("check", IIWA, IIWA_CSV), ("retime", IIWA, IIWA_CSV, "--to-limits",
                                                "-o", out)):
        result = run(*command, "--jerk", value)
        lines = [ln for ln in result.output.splitlines() if ln.startswith("hodyn: error:")]
        assert result.exit_code == 2 and len(lines) == 1 and message in lines[0], result.output
        assert not out.exists()


def test_panda_limits_file_holds_every_published_limit():
    """urdf/panda_limits.toml: position, velocity, acceleration, jerk, torque and torque
    rate for every joint of urdf/panda.urdf, from the file; positions, velocities and
    torques as the URDF's own."""
    model = load_model(URDF / "panda.urdf")
    limits = read_limits(URDF / "panda_limits.toml", model)
    for key in ("position", "velocity", "acceleration", "jerk", "torque", "torque_rate"):
        assert limits.origin[key] == ("file",) * 7, key
    assert np.allclose(limits.bands["position"], model.limits)
    assert np.allclose(limits.bands["velocity"][:, 1], model.velocity_limits)
    assert np.allclose(limits.bands["torque"][:, 1], model.effort_limits)
    assert (limits.bands["torque_rate"][:, 1] == 1000.0).all()


def test_factor_refuses_limits_it_would_not_use(tmp_path):
    """--factor K takes k as given: limits (a file, --jerk, drives) with it are refused in
    one line, not silently ignored; so is --jobs with --optimal; nothing is written."""
    out = tmp_path / "o.csv"
    for extra in (("--jerk", "3"), ("--limits", URDF / "iiwa14_limits.toml"),
                  ("--drives", URDF / "iiwa14_motors.toml")):
        result = run("retime", IIWA, IIWA_CSV, "--factor", "2", *extra, "-o", out)
        lines = [ln for ln in result.output.splitlines() if ln.startswith("hodyn: error:")]
        assert result.exit_code == 2 and lines == [
            "hodyn: error: --limits, --jerk and --drives go with --to-limits or --optimal "
            "(--factor takes k as given)"], result.output
        assert not out.exists()
    result = run("retime", IIWA, IIWA_CSV, "--optimal", "--limits", URDF / "iiwa14_limits.toml",
                 "--jobs", "2", "-o", out)
    assert result.exit_code == 2 and "hodyn: error: --jobs goes with the streaming runs: " \
        "--optimal solves the whole path at once, on one core" in result.output, result.output
    assert not out.exists()



def test_the_torque_order_limits_need_is_read_without_the_kernels(monkeypatch):
    """api.torque_order: the highest torque derivative limited (torque 0, rate 1, acceleration
    2), or what a limited joint acceleration (0) or jerk (1) needs if higher; -1 for none.
    Read from the limits alone: with limits/feasibility.py (and the numpy kernels it imports)
    unimportable, as a command that only asks it needs none of them."""
    import sys

    from hodyn_cli import api

    model = load_model(URDF / "planar_2r.urdf")
    monkeypatch.setitem(sys.modules, "hodyn_cli.algorithms.limits.feasibility", None)
    none = {j: {"torque": np.inf} for j in model.joint_names}
    assert api.torque_order(api.joint_limits(model, none)) == -1
    for key, order in (("torque", 0), ("acceleration", 0), ("jerk", 1), ("torque_rate", 1),
                       ("torque_acceleration", 2)):
        one = {**none, model.joint_names[-1]: {"torque": np.inf, key: 5.0}}
        assert api.torque_order(api.joint_limits(model, one)) == order, key
    both = {model.joint_names[0]: {"jerk": 5.0}, model.joint_names[1]: {"torque_rate": 5.0}}
    assert api.torque_order(api.joint_limits(model, both)) == 1
