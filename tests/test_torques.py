"""Torques from elsewhere (``hodyn validate ROBOT TRAJ --torques TAU [--simulate]``): given
torques are compared with hodyn's (a ``torques`` check per joint and order) and, with
``--simulate``, drive the forward dynamics from the file's state, interpolated between the
samples, against the file's own q, qd. Exact torques pass at 20 Hz and 500 Hz with and
without their derivatives; torques off by 1e-5 fail the simulation at 500 Hz; a wrong sign
fails; a trajectory whose motion is off by 1e-5 in acceleration fails against torques of
the right one; a torques file that does not fit is one line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import MIMIC_CASES, URDF, hodyn_here, mimic_urdf, random_cosine, wrench_motion
from hodyn_cli.api.planning import design_motion
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.errors import HodynError
from hodyn_cli.io import split, write_trajectory
from hodyn_cli.modeling.urdf import load_model
from hodyn_cli.pipeline.report import SCHEMA_PATH

runner = CliRunner()
IIWA = URDF / "iiwa14.urdf"


def fourier(robot: str, rate: float, duration: float) -> tuple:
    """(model, motion q..qdddd, tau..taudd): an identification motion of ``robot``."""
    model = hodyn_cli.load_robot(URDF / f"{robot}.urdf")
    motion = next(design_motion(model, "fourier", rate=rate, duration=duration).chunks)
    qs = [motion.derivatives[:, k] for k in range(5)]
    tau = hodyn_cli.inverse_dynamics(model, *qs, order=2)
    return model, motion, [tau.tau, tau.taud, tau.taudd]


def judged(model, motion, given: list, **options):
    """The report of validate_motion with the given torques ``[tau, taud, ...]``."""
    named = dict(zip(("taud", "taudd"), given[1:], strict=False))
    return hodyn_cli.validate_motion(
        model, *(motion.derivatives[:, k] for k in range(5)), t=motion.t,
        methods=["body-fixed"], samples=20, simulate=True, tau=given[0], **named, **options)


def group(report, name: str) -> list:
    return [c for c in report.checks if c.group == name]


@pytest.fixture(scope="module")
def iiwa():
    """The iiwa's identification motion at 20 Hz (1 s: 5 windows) and 500 Hz (0.4 s)."""
    return {20: fourier("iiwa14", 20, 1.0), 500: fourier("iiwa14", 500, 0.4)}


#: the default run's (orders, rate): no derivatives (the cubic spline) at 500 Hz, where the
#: tolerance must stay below 1e-6 without them, and each Hermite (taud; taud and taudd) at
#: 20 Hz; the other three in the slow run
EXACT = [(1, 500), (2, 20), (3, 20)]


@pytest.mark.parametrize("orders, rate", [
    pytest.param(o, r, marks=[] if (o, r) in EXACT else [pytest.mark.slow])
    for o in (1, 2, 3) for r in (20, 500)])
def test_exact_torques_pass(iiwa, rate, orders):
    """Exact torques, with or without their derivatives (cubic spline, cubic or quintic
    Hermite between the samples): the torques checks hold to rounding, the simulation is
    within its tolerance, and the bound (Richardson for the interpolation, plus the
    integrator's) is an honest estimate of the error, not merely below the tolerance: the
    error is within twice it. At 500 Hz the tolerance stays below 1e-6 even without
    derivatives (torques off by 1e-5 err by ~1e-4: next test)."""
    model, motion, tau = iiwa[rate]
    report = judged(model, motion, tau[:orders])
    torques = group(report, "torques")
    assert len(torques) == orders * 7 and all(c.max_rel < 1e-14 for c in torques), torques
    sim = group(report, "simulation")
    assert [c.status for c in sim] == ["pass", "pass"], sim
    for c in sim:
        assert c.max_rel <= 2 * c.expected, c
        assert rate == 20 or c.tolerance < 1e-6, c
    assert report.passed


@pytest.mark.parametrize("orders", [1, 3])
def test_torques_off_by_1e_5_fail_the_simulation_at_500_hz(iiwa, orders):
    """Torques 1e-5 relative too large (what no finite difference of them can see) fail both
    simulation checks at 500 Hz by orders of magnitude, and the torques checks of the joints
    with large torques (each error is relative to the largest torque of any joint, so the
    wrist's, 1e-5 of a torque 1e-3 of that, passes at 1e-8)."""
    model, motion, tau = iiwa[500]
    report = judged(model, motion, [x * (1 + 1e-5) for x in tau[:orders]])
    sim = group(report, "simulation")
    assert [c.status for c in sim] == ["fail", "fail"]
    assert all(c.max_rel > 100 * c.tolerance for c in sim), sim
    failed = {c.name for c in group(report, "torques") if c.status == "fail"}
    assert {f"{name}_iiwa_joint_2: given vs computed"
            for name in ("tau", "taud", "taudd")[:orders]} <= failed


def test_a_wrong_sign_fails_and_is_named(iiwa):
    """One joint's torques negated: its torques checks fail and say so; the others pass;
    the simulation fails."""
    model, motion, tau = iiwa[20]
    flipped = [x * np.where(np.arange(7) == 3, -1.0, 1.0) for x in tau]
    report = judged(model, motion, flipped)
    failed = [c for c in group(report, "torques") if c.status == "fail"]
    assert [c.worst_joint for c in failed] == ["iiwa_joint_4"] * 3
    assert all("negated" in c.detail for c in failed)
    assert [c.status for c in group(report, "simulation")] == ["fail", "fail"]


def test_a_motion_off_by_1e_5_fails_against_the_right_torques(iiwa):
    """The motivating case. A file whose acceleration is off by 1e-5 relative (q, qd, qdd,
    ... of one consistent, slightly different motion) passes every check of hodyn's own
    torques; with torques of the intended motion it fails the torques and the simulation
    checks. A file whose qdd column alone is off (q, qd right) fails the torques checks and
    passes the simulation: its positions are the motion those torques drive."""
    model, motion, tau = iiwa[500]
    t, qs = motion.t, [motion.derivatives[:, k] for k in range(5)]
    eps = 1e-5
    drift = qs[0] - qs[0][0] - np.outer(t - t[0], qs[1][0])
    other = Trajectory(motion.joint_names, np.stack(
        [qs[0] + eps * drift, qs[1] + eps * (qs[1] - qs[1][0])]
        + [q * (1 + eps) for q in qs[2:]], axis=1), t)
    args = [other.derivatives[:, k] for k in range(5)]
    alone = hodyn_cli.validate_motion(model, *args, t=t, methods=["body-fixed"], samples=20,
                                      simulate=True)
    assert alone.passed
    report = judged(model, other, tau)
    assert [c.status for c in group(report, "simulation")] == ["fail", "fail"]
    assert any(c.status == "fail" for c in group(report, "torques"))
    column = Trajectory(motion.joint_names, motion.derivatives * np.r_[1, 1, 1 + eps, 1, 1][
        None, :, None], t)
    report = judged(model, column, tau)
    assert [c.status for c in group(report, "simulation")] == ["pass", "pass"]
    assert any(c.status == "fail" for c in group(report, "torques"))


def test_a_second_robot_and_an_external_wrench():
    """The gripper arm at 500 Hz under an external wrench on its tool (interpolated as the
    torques are): exact torques pass, torques that leave the wrench out fail."""
    model = load_model(URDF / "gripper_arm.urdf")
    t = np.linspace(0, 0.2, 101)
    motion = random_cosine(model, t, orders=4, seed=11)
    qs = [motion.derivatives[:, k] for k in range(5)]
    W = {"tool0": wrench_motion(t, 3)}
    tau = hodyn_cli.inverse_dynamics(model, *qs, wrenches=W, order=2)
    report = judged(model, motion, [tau.tau, tau.taud, tau.taudd], wrenches=W)
    assert all(c.status == "pass" for c in group(report, "torques") + group(report, "simulation"))
    bare = hodyn_cli.inverse_dynamics(model, *qs, order=2)
    report = judged(model, motion, [bare.tau, bare.taud, bare.taudd], wrenches=W)
    assert [c.status for c in group(report, "simulation")] == ["fail", "fail"]


@pytest.mark.parametrize("case", MIMIC_CASES)
def test_mimic_joints_take_the_coordinates_torques(tmp_path, case):
    robot, dependent, leader, gain, offset = MIMIC_CASES[case]
    model = load_model(mimic_urdf(tmp_path, robot, dependent, leader, gain, offset))
    t = np.linspace(0, 0.2, 101)
    full = random_cosine(load_model(URDF / f"{robot}.urdf"), t, orders=4, seed=47)
    motion = Trajectory(model.coordinate_names, full.derivatives[:, :, list(model.coordinates)],
                        t)
    tau = hodyn_cli.inverse_dynamics(model, *(motion.derivatives[:, k] for k in range(5)))
    report = judged(model, motion, [tau.tau, tau.taud, tau.taudd])
    checks = group(report, "torques") + group(report, "simulation")
    assert all(c.status == "pass" for c in checks), checks
    assert len(group(report, "torques")) == 3 * len(model.coordinate_names)


def test_the_simulation_needs_t_and_a_short_trajectory_is_one_window():
    model, motion, tau = fourier("planar_2r", 100, 0.05)
    report = judged(model, motion, tau)
    sim = group(report, "simulation")
    assert [c.status for c in sim] == ["pass", "pass"] and "(1 windows)" in sim[0].detail
    untimed = Trajectory(motion.joint_names, motion.derivatives)
    report = hodyn_cli.validate_motion(model, *(untimed.derivatives[:, k] for k in range(5)),
                                       methods=["body-fixed"], simulate=True, tau=tau[0])
    assert [c.status for c in group(report, "simulation")] == ["skip"]
    assert [c.status for c in group(report, "torques")] == ["pass", "pass"]


def test_windows_cross_chunks_and_take_irregular_times(monkeypatch):
    """The windows run across chunk boundaries (the samples they need held back) and take
    sample times that are not evenly spaced (each window then on its own ODE): every window
    gets its ``MARGIN`` samples on either side where the file has them (the rows the
    simulation is given: a cubic spline reads them where the torques come alone), whether
    the file comes in one chunk or in chunks of 10 (14 cuts, one inside the first window's
    right margin), and so the same checks and the same per-window errors; exact torques
    pass. (150 samples, 2 windows: ~0.8 s of CPU.) Fails where the rows before the next
    window are not held back (``drop = begin``: the last window starts at its first row,
    whole or chunked) or a window is cut before its margin arrived (chunks of 10: the first
    window's right margin cut short); the checks alone compared caught neither (review44)."""
    from hodyn_cli.algorithms.verification import simulation
    from hodyn_cli.algorithms.verification.simulate import MARGIN

    model = load_model(IIWA)
    t = np.cumsum(np.random.default_rng(0).uniform(0.5, 1.5, 150)) * 2e-3
    motion = cosine(model.joint_names, t, amplitude=0.6, omega=np.linspace(1, 3, 7), orders=5)
    tau = hodyn_cli.inverse_dynamics(model, *(motion.derivatives[:, k] for k in range(5)),
                                     order=2)
    carrying = replace(motion, series={"tau": tau.tau, "taud": tau.taud, "taudd": tau.taudd})
    windows: list = []  # (the window's first and last sample in the file, its sample times)
    simulate = simulation.simulate_sampled

    def recorded(model, batch, **options):
        for w in batch:
            at = int(np.searchsorted(t, w.t[w.first]))
            windows.append((at, at + w.last - w.first, w.t))
        return simulate(model, batch, **options)

    monkeypatch.setattr(simulation, "simulate_sampled", recorded)

    def simulation_of(chunks) -> tuple:
        windows.clear()
        report = hodyn_cli.validate_motion(model, chunks=chunks, methods=["body-fixed"],
                                           samples=10, simulate=True, torques=True)
        for first, last, times in windows:  # MARGIN samples each side, where the file has them
            assert np.array_equal(times, t[max(first - MARGIN, 0):last + MARGIN + 1])
        peaks = report.series["simulation"]
        return ([(c.status, c.max_rel, c.expected, c.worst_sample)
                 for c in group(report, "simulation")], [w[:2] for w in windows],
                peaks["q"].tobytes(), peaks["qd"].tobytes())

    whole = simulation_of([carrying])
    assert [c[0] for c in whole[0]] == ["pass", "pass"] and len(whole[1]) == 2
    assert simulation_of(split(carrying, 10)) == whole


def test_the_api_refuses_what_does_not_fit(iiwa):
    model, motion, tau = iiwa[20]
    with pytest.raises(HodynError, match="taudd' given without taud"):
        judged(model, motion, [tau[0]], taudd=tau[2])
    with pytest.raises(HodynError, match="need 21 samples"):
        judged(model, motion, [tau[0][:-1]])
    with pytest.raises(HodynError, match="drives do not go with measured torques"):
        judged(model, motion, tau, drives=URDF / "iiwa14_motors.toml")


# -- the command line ------------------------------------------------------------------------


def hodyn(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hodyn_cli", *map(str, args)],
                          capture_output=True, text=True)


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The iiwa's motion at 500 Hz (0.4 s) as HDF5 and CSV, its torques as hodyn compute
    writes them (CSV and HDF5), and torques off by 1e-5 relative."""
    d = tmp_path_factory.mktemp("torques")
    model = load_model(IIWA)
    motion = next(design_motion(model, "fourier", rate=500, duration=0.4).chunks)
    write_trajectory(str(d / "m.h5"), motion)
    write_trajectory(str(d / "m.csv"), motion)
    for out in ("tau.csv", "tau.h5"):
        assert run("compute", IIWA, d / "m.h5", "-o", d / out, "-q").exit_code == 0
    rows = (d / "tau.csv").read_text().splitlines()
    scaled = [rows[0]] + [",".join([r.split(",")[0]] + [repr(float(v) * (1 + 1e-5))
                                                       for v in r.split(",")[1:]])
                          for r in rows[1:]]
    (d / "off.csv").write_text("\n".join(scaled) + "\n")
    return d


def test_compute_then_validate_passes_and_torques_off_by_1e_5_fail(files):
    """The round trip the docs show (as `hodyn` runs, in this process: the next test runs a
    real one): hodyn compute's CSV is what --torques reads; exact: exit 0; off by 1e-5:
    exit 1, the simulation named."""
    d = files
    good = hodyn_here("validate", IIWA, d / "m.csv", "--torques", d / "tau.csv", "--simulate",
                      "--method", "body-fixed", "--samples", "20")
    assert good.returncode == 0, good.stderr
    assert "judging the given tau, taud, taudd" in good.stderr
    bad = hodyn_here("validate", IIWA, d / "m.csv", "--torques", d / "off.csv", "--simulate",
                     "--method", "body-fixed", "--samples", "20")
    assert bad.returncode == 1, bad.stderr
    fails = [line for line in bad.stderr.splitlines() if line.startswith("hodyn: fail:")]
    assert any("q reproduced by simulation" in line for line in fails)
    assert any("tau_iiwa_joint_1: given vs computed" in line for line in fails)


def test_an_unknown_joint_is_one_line(files):
    """A real process: exit 2, one line naming the file and the column, no traceback."""
    d = files
    text = (d / "tau.csv").read_text().replace("tau_iiwa_joint_3,", "tau_iiwa_joint_9,", 1)
    (d / "unknown.csv").write_text(text)
    result = hodyn("validate", IIWA, d / "m.csv", "--torques", d / "unknown.csv")
    assert result.returncode == 2
    assert result.stderr == (f"hodyn: error: {d / 'unknown.csv'}: column 'tau_iiwa_joint_9': "
                             "the model has no joint 'iiwa_joint_9' (a typo of "
                             "'iiwa_joint_7'?)\n")


def test_hdf5_torques_and_the_json_report(files, tmp_path):
    """HDF5 torques (datasets t, tau, taud, taudd, attribute joint_names) judge a CSV
    trajectory; the JSON report validates against its schema and carries the torques
    checks, their tolerance and the simulation's expected error."""
    jsonschema = pytest.importorskip("jsonschema")
    d = files
    report = tmp_path / "r.json"
    result = run("validate", IIWA, d / "m.csv", "--torques", d / "tau.h5", "--simulate",
                 "--method", "body-fixed", "--samples", "10", "--torque-rtol", "1e-9",
                 "--report", report)
    assert result.exit_code == 0, result.stderr
    data = json.loads(report.read_text())
    jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text()))
    assert data["tolerances"]["torques"] == 1e-9
    assert len([c for c in data["checks"] if c["group"] == "torques"]) == 21
    sim = [c for c in data["checks"] if c["group"] == "simulation"]
    assert all(c["expected"] < 1e-9 and "given torques" in c["detail"] for c in sim)


def bad_files(d) -> dict:
    """Torque files that do not fit the 500 Hz trajectory, and the error each gives."""
    rows = (d / "tau.csv").read_text().splitlines()
    head = rows[0].split(",")
    out = {}

    def write(name: str, lines: list[str]) -> None:
        (d / name).write_text("\n".join(lines) + "\n")

    write("short.csv", rows[:-1])
    out["short.csv"] = "has 200 samples, fewer than the trajectory"
    write("later.csv", [rows[0], rows[1]] + [
        ",".join([repr(float(r.split(",")[0]) + 1e-3)] + r.split(",")[1:]) for r in rows[2:]])
    out["later.csv"] = "t differs from the trajectory's at sample 1 (0.003 here, 0.002 there)"
    nan = rows[5].split(",")
    nan[3] = "nan"
    write("nan.csv", rows[:5] + [",".join(nan)] + rows[6:])
    out["nan.csv"] = f"column '{head[3]}', sample 4 (line 6): value nan is not finite"
    keep = [i for i, h in enumerate(head) if h != "taud_iiwa_joint_5"]
    write("partial.csv", [",".join(r.split(",")[i] for i in keep) for r in rows])
    out["partial.csv"] = ("missing columns taud_iiwa_joint_5 (each derivative of tau for every "
                          "joint, in order, or for none)")
    keep = [i for i, h in enumerate(head) if h != "tau_iiwa_joint_2"]
    write("missing.csv", [",".join(r.split(",")[i] for i in keep) for r in rows])
    out["missing.csv"] = ("missing columns tau_iiwa_joint_2 (the torque of every independent "
                          "joint: tau_<joint>, as hodyn compute writes)")
    with h5py.File(d / "tau.h5") as f, h5py.File(d / "names.h5", "w") as g:
        for key in f:
            g[key] = f[key][()]
        g.attrs["joint_names"] = [n.replace("iiwa_joint_7", "wrist") for n in
                                  f.attrs["joint_names"]]
    out["names.h5"] = "column 'tau_wrist': the model has no joint 'wrist'"
    return out


def test_a_torques_file_that_does_not_fit_is_one_line(files):
    """Fewer samples, other times, a NaN, a derivative missing for one joint, a joint
    without torque, a joint unknown to the model: exit 2, one line naming the file and
    what is wrong, nothing else."""
    d = files
    for name, message in bad_files(d).items():
        result = run("validate", IIWA, d / "m.h5", "--torques", d / name, "--quiet")
        assert result.exit_code == 2, (name, result.stderr)
        assert result.stderr == f"hodyn: error: {d / name}: {message}\n", result.stderr


def test_help_says_what_the_simulation_compares_with():
    result = run("validate", "--help")
    text = " ".join(result.stdout.split())
    assert "compare with q, qd" not in text
    for words in ("driven by the computed torques along each such sample's local Taylor motion",
                  "with --torques, driven by the given torques (interpolated between the "
                  "samples), compared with the file's q, qd samples"):
        assert words in text, text
