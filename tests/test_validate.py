"""`hodyn validate`: passes on good data, fails (exit 1, the right check named) on bad data."""

import json
import shutil
import subprocess

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import METHODS, ROBOTS, SAMPLES, URDF, massless_flange_urdf
from hodyn_cli.algorithms.dynamics.methods import METHODS as REGISTRY
from hodyn_cli.algorithms.dynamics.methods import Method
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.urdf import load_model
from hodyn_cli.pipeline.report import SCHEMA_PATH

IIWA = str(URDF / "iiwa14.urdf")
IIWA_H5 = str(SAMPLES / "iiwa14_cosine.h5")


def run(*args):
    return CliRunner().invoke(app, ["validate", *map(str, args)])


@pytest.mark.parametrize("robot", ROBOTS)
@pytest.mark.parametrize("method", METHODS + ["all"])
def test_passes_on_bundled_robots(robot, method):
    result = run(URDF / f"{robot}.urdf", SAMPLES / f"{robot}_cosine.csv", "--method", method,
                 "--samples", "40")
    assert result.exit_code == 0, result.stderr
    assert "PASSED" in result.stderr


def test_fails_when_a_method_is_perturbed(monkeypatch):
    """A 1e-6 relative error in spatial's taudd: its finite-difference and cross checks fail."""
    good = REGISTRY["spatial"]

    def perturbed(model, trajectory, *, order, gravity, data=None):
        out = good.inverse_dynamics(model, trajectory, order=order, gravity=gravity, data=data)
        if order >= 2:
            out[:, 2] *= 1 + 1e-6
        return out

    monkeypatch.setitem(REGISTRY, "spatial", Method(perturbed, None, good.max_order))
    result = run(IIWA, IIWA_H5, "--samples", "40")
    assert result.exit_code == 1, result.stderr
    failed = [line for line in result.stderr.splitlines() if "FAIL" in line]
    assert any("taudd vs d/dt taud [spatial]" in line for line in failed), result.stderr
    assert any("taudd: body-fixed vs spatial" in line for line in failed)
    assert not any("[body-fixed]" in line for line in failed)


def _rewrite(tmp_path, change) -> str:
    model = load_model(IIWA)
    traj = read_trajectory(IIWA_H5, model, need=5)
    path = tmp_path / "bad.h5"
    write_trajectory(str(path), Trajectory(traj.joint_names, change(traj.derivatives.copy()), traj.t))
    return str(path)


def test_fails_when_qddd_belongs_to_another_trajectory(tmp_path):
    def swap(d):
        d[:, 3] = d[::-1, 3]  # the jerk of the time-reversed motion
        return d

    report = tmp_path / "r.json"
    result = run(IIWA, _rewrite(tmp_path, swap), "--samples", "40", "--report", report)
    assert result.exit_code == 1
    assert "qddd vs time differences of qdd" in result.stderr
    data = json.loads(report.read_text())
    failed = [c for c in data["checks"] if c["status"] == "fail"]
    assert failed[0]["group"] == "data consistency"
    assert failed[0]["name"] == "qddd vs time differences of qdd"
    assert failed[0]["worst_joint"].startswith("iiwa_joint_")
    assert f"qddd_{failed[0]['worst_joint']}" in failed[0]["detail"]


def test_values_near_floats_largest_fail_their_checks(tmp_path):
    """qdddd of 1e308 (finite) at two samples: the consistency check named it; it was an
    OverflowError of the expected error's estimate (exit 3)."""
    def huge(d):
        d[5:7, 4, 4] = 1e308
        return d

    result = run(IIWA, _rewrite(tmp_path, huge), "--samples", "0")
    assert result.exit_code == 1, result.output
    assert "qdddd_iiwa_joint_5 does not match the time differences of qddd_iiwa_joint_5" \
        in result.stderr


@pytest.mark.parametrize("which", ["all columns", "positions only"])
def test_fails_on_degrees_instead_of_radians(tmp_path, which):
    def degrees(d):
        if which == "all columns":
            return np.degrees(d)
        d[:, 0] = np.degrees(d[:, 0])
        return d

    result = run(IIWA, _rewrite(tmp_path, degrees), "--samples", "40")
    assert result.exit_code == 1
    assert "q within URDF limits" in result.stderr and "degrees" in result.stderr
    if which == "positions only":
        assert "values look like degrees" in result.stderr


def test_json_report_validates_against_the_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_PATH.read_text())
    report = tmp_path / "report.json"
    result = run(URDF / "gripper_arm.urdf", SAMPLES / "gripper_arm_cosine.h5", "--samples", "30",
                 "--report", report)
    assert result.exit_code == 0
    data = json.loads(report.read_text())
    jsonschema.validate(data, schema)
    assert data["passed"] and data["n_checked"] == 30
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**data, "passed": "yes"}, schema)
    # the options take 0 (exact agreement), so the report's tolerances may be 0; not below
    jsonschema.validate({**data, "tolerances": {**data["tolerances"], "fd": 0.0}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**data, "tolerances": {**data["tolerances"], "fd": -1e-8}}, schema)


def test_markdown_report(tmp_path):
    report = tmp_path / "report.md"
    assert run(URDF / "planar_2r.urdf", SAMPLES / "planar_2r_cosine.csv", "--samples", "20",
               "--report", report).exit_code == 0
    text = report.read_text()
    assert text.startswith("# hodyn validation: planar_2r") and "| finite differences |" in text


def test_bad_usage_is_exit_2(tmp_path):
    result = run(IIWA, IIWA_H5, "--report", tmp_path / "r.txt")
    assert result.exit_code == 2 and "unknown report type" in result.stderr
    result = run(IIWA, IIWA_H5, "--method", "featherstone")
    assert result.exit_code == 2 and "featherstone" in result.stderr
    short = tmp_path / "short.csv"
    short.write_text("t,q_a\n0,1\n")
    result = run(URDF / "planar_2r.urdf", short)
    assert result.exit_code == 2 and not (tmp_path / "r.txt").exists()


def test_compute_validate_records_the_summary(tmp_path):
    out = tmp_path / "tau.h5"
    result = CliRunner().invoke(app, ["compute", IIWA, IIWA_H5, "-o", str(out), "--validate"])
    assert result.exit_code == 0, result.stderr
    assert "validation passed" in result.stderr
    with h5py.File(out) as f:
        assert bool(f.attrs["validation_passed"])
        summary = json.loads(f.attrs["validation_report"])
        assert summary["methods"] == ["body-fixed"] and summary["passed"]
    bad = _rewrite(tmp_path, lambda d: np.concatenate([np.degrees(d[:, :1]), d[:, 1:]], axis=1))
    out2 = tmp_path / "tau2.h5"
    result = CliRunner().invoke(app, ["compute", IIWA, bad, "-o", str(out2), "--validate"])
    assert result.exit_code == 1 and "validation FAILED" in result.stderr
    with h5py.File(out2) as f:
        assert not bool(f.attrs["validation_passed"])


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs it)")
def test_html_report_renders_in_headless_chromium(tmp_path):
    report = tmp_path / "report.html"
    assert run(IIWA, IIWA_H5, "--samples", "60", "--report", report).exit_code == 0
    shot = tmp_path / "shot.png"
    # (one browser for both: the page's DOM after its scripts ran, and its screenshot)
    dom = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                          "--window-size=1280,3000", f"--screenshot={shot}", "--dump-dom",
                          report.as_uri()], capture_output=True, text=True, timeout=120,
                         check=True).stdout
    body = dom[dom.index("<body"): dom.index(">", dom.index("<body"))]
    expected = int(body.split('data-plots="')[1].split('"')[0])
    assert expected == 2  # taud and taudd
    assert f'data-plots-rendered="{expected}"' in body  # every embedded PNG decoded
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (3000, 1280)
    plot_area = pixels[1500:3000]  # below the table: the figures
    assert plot_area.std() > 0.05, "the plot area is blank"
    # matplotlib's default first line colour (C0, #1f77b4) appears: a plot was drawn
    c0 = np.array([0x1F, 0x77, 0xB4]) / 255
    assert (np.abs(plot_area - c0).max(axis=-1) < 0.08).sum() > 200


def test_wrenches_pass_and_inconsistent_wrench_rates_fail(tmp_path):
    from conftest import wrench_motion
    from hodyn_cli.core.trajectory import Wrenches

    model = load_model(IIWA)
    traj = read_trajectory(IIWA_H5, model, need=5)
    W = wrench_motion(traj.t, 2)
    good = tmp_path / "good.h5"
    write_trajectory(str(good), Trajectory(traj.joint_names, traj.derivatives, traj.t,
                                           Wrenches({"iiwa_link_ee": W})))
    result = run(IIWA, good, "--samples", "40")
    assert result.exit_code == 0, result.stderr
    bad_W = W.copy()
    bad_W[:, 1, 4] *= 2  # Wd_fy twice too large
    bad = tmp_path / "bad.h5"
    write_trajectory(str(bad), Trajectory(traj.joint_names, traj.derivatives, traj.t,
                                          Wrenches({"iiwa_link_ee": bad_W})))
    result = run(IIWA, bad, "--samples", "40")
    assert result.exit_code == 1
    assert "Wd_iiwa_link_ee_fy does not match the time differences of W_iiwa_link_ee_fy" in result.stderr


def test_validate_estimates_like_compute_and_says_so(tmp_path):
    from hodyn_cli.algorithms.planning.generate import generate
    from hodyn_cli.modeling.urdf import load_model

    robot = URDF / "iiwa14.urdf"
    src = tmp_path / "q.csv"
    write_trajectory(str(src), generate(load_model(robot), "cosine", derivatives=0, rate=200))
    report = tmp_path / "r.json"
    result = CliRunner().invoke(app, ["validate", str(robot), str(src), "--estimate-derivatives",
                                      "--samples", "30", "--report", str(report)])
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    estimated = [c for c in data["checks"] if c["status"] == "estimated"]
    assert [c["name"].split()[0] for c in estimated] == ["qd", "qdd", "qddd"]
    assert data["summary"]["estimated"] == 3 and data["passed"]


def test_every_warning_printed_is_counted(tmp_path):
    """A column that looks like a typo is warned about once and counted in the summary."""
    src = tmp_path / "typo.csv"
    lines = (SAMPLES / "iiwa14_cosine.csv").read_text().splitlines()
    src.write_text("\n".join([lines[0] + ",Qd_iiwa_joint_1"] + [f"{x},0" for x in lines[1:]]))
    result = run(IIWA, str(src), "--samples", "20")
    assert result.exit_code == 0, result.stderr
    printed = [line for line in result.stderr.splitlines() if line.startswith("hodyn: warning")]
    assert len(printed) == 1 and "a typo of 'qd_iiwa_joint_1'" in printed[0]
    assert "1 warnings" in result.stderr


def test_chunks_give_the_report_of_the_whole_trajectory():
    """validate reads a file in one pass over its chunks (memory bounded): any chunking gives
    the same report, checked samples included, and the checked samples spread evenly."""
    from hodyn_cli.algorithms.verification.validate import validate
    from hodyn_cli.io import read_trajectory, split

    model = load_model(IIWA)
    traj = read_trajectory(str(IIWA_H5), model, need=5)
    whole = validate(model, traj, samples=40).to_dict()
    for rows in (37, 100, 501):
        assert validate(model, split(traj, rows), samples=40).to_dict() == whole, rows
    picked = np.array(validate(model, traj, samples=40).checked_samples)
    gaps = np.diff(picked)
    assert len(picked) == 40 and picked[0] == 0 and gaps.max() <= 2 * gaps.min()


def test_a_singular_mass_matrix_names_the_joint_that_moves_no_inertia(tmp_path):
    """example-robot-data's Romeo moves massless links by its LHand and RHand joints: M is
    singular there, and the failed check named neither (only its eigenvalue ~1e-17). Here the
    planar 2R's massless tool flange turns on a joint of its own."""
    robot = massless_flange_urdf(tmp_path)
    motion = tmp_path / "motion.csv"
    assert CliRunner().invoke(app, ["generate", str(robot), "--kind", "cosine", "--duration",
                                    "1", "--rate", "50", "-o", str(motion)]).exit_code == 0
    report = tmp_path / "r.json"
    result = run(robot, motion, "--samples", "5", "--report", report)
    assert result.exit_code == 1, result.output
    fail, = [line for line in result.stderr.splitlines() if "fail: M positive definite" in line]
    assert "tool_joint moves no inertia" in fail, fail
    check, = [c for c in json.loads(report.read_text())["checks"]
              if c["name"] == "M positive definite"]
    assert check["status"] == "fail" and check["worst_joint"] == "tool_joint"
