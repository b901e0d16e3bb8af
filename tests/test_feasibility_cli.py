"""``hodyn check``, ``hodyn retime`` and ``hodyn generate --respect-limits`` on the command line:
planted violations found at their samples, retimed motions that pass (and fail 1e-6 faster),
torques of the retimed file from ``hodyn compute``, the limits file's one-line errors."""

import base64
import json
import re

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import SAMPLES, URDF, wrench_motion
from hodyn_cli import api
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.limits import read_limits
from hodyn_cli.modeling.locking import lock
from hodyn_cli.modeling.urdf import load_model, parse_model
from hodyn_cli.pipeline.check_report import SCHEMA_PATH

runner = CliRunner()
IIWA = URDF / "iiwa14.urdf"
IIWA_CSV = SAMPLES / "iiwa14_cosine.csv"
IIWA_HIGH = SAMPLES / "iiwa14_cosine_high.h5"
DRIVES = URDF / "iiwa14_drives.toml"
MODEL = load_model(IIWA)
JOINTS = MODEL.joint_names


def run(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def toml(path, table: dict) -> str:
    lines = []
    for joint, entry in table.items():
        lines.append(f"[joints.{joint}]")
        lines += [f"{k} = {json.dumps(v) if not isinstance(v, float) or np.isfinite(v) else 'inf'}"
                  for k, v in entry.items()]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def csv_columns(path) -> dict[str, np.ndarray]:
    names = path.read_text().splitlines()[0].split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {n: data[:, i] for i, n in enumerate(names)}


def threshold(values: np.ndarray) -> tuple[float, int]:
    """A limit between the largest and second-largest |value|, and the sample of the largest."""
    a = np.sort(np.abs(values))
    assert a[-1] - a[-2] > 1e-6 * a[-1]
    return float((a[-1] + a[-2]) / 2), int(np.argmax(np.abs(values)))


def report(tmp_path, *args):
    out = tmp_path / "r.json"
    result = run("check", *args, "--report", out)
    return result, (json.loads(out.read_text()) if out.exists() else None)


def test_planted_violations_are_found_at_their_samples(tmp_path):
    """One limit per quantity just below its peak (from the file and `hodyn compute`): each is
    violated at exactly the peak's sample, nothing else; exit status 1."""
    out = tmp_path / "tau.csv"
    assert run("compute", IIWA, IIWA_CSV, "-o", out).exit_code == 0
    tau, traj = csv_columns(out), csv_columns(IIWA_CSV)
    table = {j: {"velocity": np.inf} for j in JOINTS}  # the URDF's: violated by this motion
    planted = {}
    for key, column in (("velocity", "qd_iiwa_joint_3"), ("torque", "tau_iiwa_joint_2"),
                        ("torque_rate", "taud_iiwa_joint_4"),
                        ("torque_acceleration", "taudd_iiwa_joint_1")):
        values = (traj if column.startswith("q") else tau)[column]
        limit, sample = threshold(values)
        joint = column.split("_", 1)[1]
        table[joint][key] = limit
        planted[(key, joint)] = (sample, values[sample])
    q = traj["q_iiwa_joint_6"]  # position: an upper limit below the highest sample
    upper = float((np.sort(q)[-1] + np.sort(q)[-2]) / 2)
    table["iiwa_joint_6"]["position"] = [-2.0, upper]
    planted[("position", "iiwa_joint_6")] = (int(np.argmax(q)), q.max())
    result, data = report(tmp_path, IIWA, IIWA_CSV, "--limits", toml(tmp_path / "l.toml", table))
    assert result.exit_code == 1, result.output
    assert not data["feasible"]
    violated = {(r["quantity"], r["joint"]): r for r in data["rows"] if r["status"] == "violated"}
    assert set(violated) == set(planted)
    for key, (sample, value) in planted.items():
        row = violated[key]
        assert row["violations"] == 1 and row["worst_sample"] == sample, key
        assert row["worst_time"] == traj["t"][sample]
        assert abs(row["value"] - value) <= 1e-10 * abs(value), key
    for key in planted:
        assert re.search(rf"hodyn: fail: {key[0].replace('_', ' ')} of {key[1]} beyond its "
                         r"limit at 1 sample", result.output)


def test_planted_violations_of_elastic_drives(tmp_path):
    """With --drives the torque is the spring torque u and the motor speed and torque are
    checked: planted limits against `hodyn elastic`'s own output."""
    out = tmp_path / "motor.csv"
    assert run("elastic", IIWA, IIWA_HIGH, "--drives", DRIVES, "-o", out).exit_code == 0
    ref = csv_columns(out)
    table = {j: {"velocity": np.inf} for j in JOINTS}
    planted = {}
    for key, column in (("torque", "u_iiwa_joint_2"), ("torque_rate", "ud_iiwa_joint_3"),
                        ("motor_speed", "thetad_iiwa_joint_5"),
                        ("motor_torque", "taum_iiwa_joint_4")):
        limit, sample = threshold(ref[column])
        joint = column.split("_", 1)[1]
        table[joint][key] = limit
        planted[(key, joint)] = (sample, ref[column][sample])
    result, data = report(tmp_path, IIWA, IIWA_HIGH, "--drives", DRIVES, "--limits",
                          toml(tmp_path / "l.toml", table))
    assert result.exit_code == 1, result.output
    assert data["dynamics"] == "elastic full"
    violated = {(r["quantity"], r["joint"]): r for r in data["rows"] if r["status"] == "violated"}
    assert set(violated) == set(planted)
    for key, (sample, value) in planted.items():
        assert violated[key]["worst_sample"] == sample and violated[key]["violations"] == 1
        assert abs(violated[key]["value"] - value) <= 1e-9 * abs(value), key


def test_reports_json_schema_markdown_html(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("matplotlib")
    limits = URDF / "iiwa14_limits.toml"
    result, data = report(tmp_path, IIWA, IIWA_CSV, "--limits", limits)
    assert result.exit_code == 1  # the sample motion is faster than the URDF's velocity limits
    jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text()))
    assert data["summary"] == {"ok": 32, "violated": 3, "unchecked": 14}
    unchecked = [r for r in data["rows"] if r["status"] == "unchecked"]
    assert {r["quantity"] for r in unchecked} == {"motor_speed", "motor_torque"}
    assert "no drive" in unchecked[0]["reason"]
    assert run("check", IIWA, IIWA_CSV, "--limits", limits, "--report",
               tmp_path / "r.md").exit_code == 1
    text = (tmp_path / "r.md").read_text()
    assert "**NOT FEASIBLE: 3 of 35 limits violated, 14 not checked**" in text
    assert "| velocity | iiwa_joint_7 | VIOLATED | -3.75 | -1.5 | -150 | t = 2.18 s | 369 |" in text


def test_html_report_plots_each_quantity(tmp_path):
    """One embedded PNG per checked quantity (joints as panels); self-contained."""
    pytest.importorskip("matplotlib")
    limits = toml(tmp_path / "l.toml", {"joint1": {"torque_rate": 10.0}})
    page = tmp_path / "r.html"
    result = run("check", URDF / "planar_2r.urdf", SAMPLES / "planar_2r_cosine.csv", "--limits",
                 limits, "--report", page)
    assert result.exit_code == 1
    html = page.read_text()
    assert 'data-plots="4"' in html and html.count("<tr class='violated'>") == 1
    pngs = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", html)
    assert len(pngs) == 4 and all(base64.b64decode(p)[:4] == b"\x89PNG" for p in pngs)
    assert "http" not in html.replace("https://", "")  # nothing fetched


def test_feasible_motion_exits_0(tmp_path):
    out = tmp_path / "slow.h5"
    assert run("retime", IIWA, IIWA_CSV, "--factor", 2.6, "-o", out).exit_code == 0
    result = run("check", IIWA, out)
    assert result.exit_code == 0, result.output
    assert "FEASIBLE: 0 of 21 limits violated" in result.output


def predicted(path, k, order=2, wrench=None):
    """The torques of the motion played k times slower, from the scaling laws of the input."""
    model = MODEL
    traj = read_trajectory(str(path), model, need=order + 3, wrench=wrench)
    laws = api.scaling_laws(model, traj, order=order)
    return {name: laws[name].at(1 / k) for name in ("tau", "taud", "taudd")[: order + 1]}


def test_retime_to_limits_exact(tmp_path):
    """The retimed file passes `check`, its torques from `hodyn compute` equal the scaling
    laws' prediction, every input column is there; played 1e-6 faster it fails on the
    binding quantity."""
    limits = toml(tmp_path / "l.toml", {j: {"velocity": np.inf, "torque_rate": 60.0,
                                            "torque_acceleration": 400.0} for j in JOINTS})
    out = tmp_path / "re.csv"
    result = run("retime", IIWA, IIWA_CSV, "--to-limits", "--limits", limits, "-o", out)
    assert result.exit_code == 0, result.output
    binding = re.search(r"binding: (torque \w+) of (\w+) at", result.output)
    new, old = csv_columns(out), csv_columns(IIWA_CSV)
    k = new["t"][-1] / old["t"][-1]
    assert binding and abs(k / float(re.search(r"played k = (\S+) times slower",
                                               result.output).group(1)) - 1) < 1e-8
    assert list(new) == list(old)
    assert np.allclose(new["t"], k * old["t"], rtol=1e-15, atol=0)
    for j, name in enumerate(("q", "qd", "qdd", "qddd", "qdddd")):
        col = f"{name}_iiwa_joint_3"
        assert np.allclose(new[col], old[col] / k**j, rtol=1e-15, atol=0)
    tau = tmp_path / "tau.csv"
    assert run("compute", IIWA, out, "-o", tau).exit_code == 0
    got, expect = csv_columns(tau), predicted(IIWA_CSV, k)
    for name, value in expect.items():
        cols = np.stack([got[f"{name}_{j}"] for j in JOINTS], axis=1)
        assert np.abs(cols - value).max() <= 1e-11 * np.abs(value).max(), name
    assert run("check", IIWA, out, "--limits", limits).exit_code == 0
    faster = tmp_path / "fast.csv"
    assert run("retime", IIWA, IIWA_CSV, "--factor", k * (1 - 1e-6), "-o", faster).exit_code == 0
    result = run("check", IIWA, faster, "--limits", limits)
    assert result.exit_code == 1
    fails = re.findall(r"hodyn: fail: (torque \w+) of (\w+) beyond its limit", result.output)
    assert fails == [binding.groups()]


def test_retime_wrenches_hdf5_and_stdin(tmp_path):
    """External wrenches ride along the path (scaled like gravity: W^(j) / k^j, written out);
    HDF5 output records k and the binding; a trajectory on stdin is retimed the same."""
    model = MODEL
    t = np.linspace(0, 5, 251)
    base = read_trajectory(str(IIWA_CSV), model, need=5)
    traj = Trajectory(base.joint_names, base.derivatives[::2], t,
                      Wrenches({"iiwa_link_ee": wrench_motion(t, 2)}))
    src = tmp_path / "w.csv"
    write_trajectory(str(src), traj)
    limits = toml(tmp_path / "l.toml", {j: {"velocity": np.inf, "torque_rate": 80.0}
                                        for j in JOINTS})
    out = tmp_path / "re.h5"
    assert run("retime", IIWA, src, "--to-limits", "--limits", limits, "-o", out).exit_code == 0
    with h5py.File(out) as f:
        k = float(f.attrs["time_scale"][0])
        assert "torque rate of" in f.attrs["binding"][0]
        assert np.allclose(f["wrench/iiwa_link_ee/Wd"][:], traj.wrenches.W["iiwa_link_ee"][:, 1] / k,
                           rtol=1e-15, atol=0)
    tau = tmp_path / "tau.h5"
    assert run("compute", IIWA, out, "--order", 1, "-o", tau).exit_code == 0
    expect = predicted(src, k, order=1)
    with h5py.File(tau) as f:
        for name in ("tau", "taud"):
            assert np.abs(f[name][:] - expect[name]).max() <= 1e-11 * np.abs(expect[name]).max()
    piped = tmp_path / "piped.csv"
    result = run("retime", IIWA, "-", "--to-limits", "--limits", limits, "-o", piped,
                 input=src.read_text())
    assert result.exit_code == 0, result.output
    assert np.allclose(csv_columns(piped)["t"][-1], k * 5.0, rtol=1e-15)


@pytest.mark.parametrize("mode", [("--factor", "2"), ("--optimal", "--limits",
                                                     str(URDF / "iiwa14_limits.toml"))])
def test_retime_drops_foreign_columns_and_names_them(tmp_path, mode):
    """docs/feasibility.md: a log's effort_<joint> and other columns that are not hodyn's
    are not scaled (hodyn cannot know how): they are dropped, and a notice names them."""
    lines = IIWA_CSV.read_text().splitlines()[:101]  # a second of it: a short optimal plan
    src = tmp_path / "log.csv"
    src.write_text("\n".join([lines[0] + ",effort_iiwa_joint_1,temperature"]
                             + [line + ",1.5,30" for line in lines[1:]]) + "\n")
    out = tmp_path / "re.csv"
    result = run("retime", IIWA, src, *mode, "-o", out)
    assert result.exit_code == 0, result.output
    assert "not hodyn's: effort_iiwa_joint_1, temperature" in result.stderr
    header = out.read_text().split("\n", 1)[0].split(",")
    assert "effort_iiwa_joint_1" not in header and "temperature" not in header
    assert "q_iiwa_joint_1" in header


def test_retime_segments(tmp_path):
    """Pieces between waypoints (rest to rest) scaled independently: each binds on its own
    limit, the derivatives stay continuous (zero at the joins), the result passes check. A
    join where the motion moves is named in a warning."""
    src = tmp_path / "p2p.csv"
    way = tmp_path / "way.csv"
    way.write_text(",".join(JOINTS) + "\n" + "\n".join(
        ",".join(str(v) for v in row) for row in ([0.0] * 7, [0.5] * 7, [0.6] * 7)) + "\n")
    assert run("generate", IIWA, "--kind", "point-to-point", "--waypoints", way,
               "--segment-duration", 2, "-o", src).exit_code == 0
    limits = toml(tmp_path / "l.toml", {j: {"torque_rate": 30.0} for j in JOINTS})
    out = tmp_path / "re.csv"
    result = run("retime", IIWA, src, "--to-limits", "--limits", limits, "--segments", 2,
                 "-o", out)
    assert result.exit_code == 0, result.output
    ks = [float(k) for k in re.findall(r"k = ([0-9.e+-]+)", result.output)]
    assert len(ks) == 2 and ks[0] > 1.5 * ks[1] and "jump" not in result.output
    data = csv_columns(out)
    assert np.isclose(data["t"][200], 2 * ks[0], rtol=1e-14)  # the join
    assert np.isclose(data["t"][-1], 2 * ks[0] + 2 * ks[1], rtol=1e-14)
    for piece in (slice(0, 201), slice(200, None)):  # each on its limit
        chunk = read_trajectory(str(out), MODEL, need=5)
        part = Trajectory(chunk.joint_names, chunk.derivatives[piece], chunk.t[piece])
        worst = max(r.usage for r in api.check_limits(MODEL, part, limits=limits).rows
                    if r.quantity == "torque_rate")
        assert abs(worst - 1) < 1e-9
    assert run("check", IIWA, out, "--limits", limits).exit_code == 0
    result = run("retime", IIWA, IIWA_CSV, "--to-limits", "--limits", limits, "--segments",
                 "2.5", "-o", tmp_path / "c.csv")
    assert result.exit_code == 0
    assert re.search(r"at t = 2.5 s \(k \S+ -> \S+\) the derivatives of order 1, 2, 3, 4, 5, 6 jump",
                     result.output)


def test_retime_infeasible_and_usage_errors(tmp_path):
    limits = toml(tmp_path / "l.toml", {"iiwa_joint_2": {"torque": 20.0}})
    out = tmp_path / "re.csv"
    result = run("retime", IIWA, IIWA_CSV, "--to-limits", "--limits", limits, "-o", out)
    assert result.exit_code == 1 and not out.exists()
    assert "hodyn: fail: no time scaling makes the motion feasible: the torque of iiwa_joint_2" \
        in result.output
    for args in ((), ("--to-limits", "--factor", 2), ("--factor", 0), ("--factor", 2,
                                                                       "--segments", 1)):
        result = run("retime", IIWA, IIWA_CSV, *args, "-o", out)
        assert result.exit_code == 2 and not out.exists(), args
    still = tmp_path / "still.csv"
    assert run("retime", IIWA, IIWA_CSV, "--factor", 1e9, "-o", still).exit_code == 0
    result = run("retime", IIWA, IIWA_CSV, "--to-limits", "--limits",
                 toml(tmp_path / "p.toml", {j: {"velocity": np.inf, "torque": np.inf}
                                            for j in JOINTS}), "-o", out)
    assert result.exit_code == 2 and "nothing limits the speed" in result.output


def test_generate_respect_limits(tmp_path):
    """A generated motion slowed just enough for torque-rate limits: it passes check with the
    binding rate on its limit to the sampling."""
    limits = toml(tmp_path / "l.toml", {"iiwa_joint_2": {"torque_rate": 20.0},
                                        "iiwa_joint_4": {"torque_acceleration": 30.0}})
    for kind in ("cosine", "point-to-point"):
        out = tmp_path / f"{kind}.csv"
        result = run("generate", IIWA, "--kind", kind, "--respect-limits", limits, "-o", out)
        assert result.exit_code == 0, result.output
        assert re.search(r"played \S+ times slower to respect", result.output)
        result, data = report(tmp_path, IIWA, out, "--limits", limits)
        assert result.exit_code == 0, result.output
        rows = [r for r in data["rows"] if r["quantity"].startswith("torque_")]
        assert min(r["margin_percent"] for r in rows) < 0.5
    plain = run("generate", IIWA, "--kind", "cosine", "-o", tmp_path / "plain.csv")
    assert plain.exit_code == 0
    assert run("check", IIWA, tmp_path / "plain.csv", "--limits", limits).exit_code == 1
    result = run("generate", IIWA, "--kind", "cosine", "--drives", DRIVES, "-o", tmp_path / "x.csv")
    assert result.exit_code == 2 and "--drives goes with --respect-limits" in result.output


BAD = [
    ("[joints.iiwa_joint_2]\ntorque_rate = -5.0\n", "joint 'iiwa_joint_2': 'torque_rate' must be "
                                                      "a positive number (or inf), got -5.0"),
    ("[joints.iiwa_joint_2]\ntorque_rat = 5.0\n", "joint 'iiwa_joint_2': unknown key "
                                                   "'torque_rat'"),
    ("[joints.iiwa_joint_9]\ntorque = 5.0\n", "joint 'iiwa_joint_9': the model has no such joint"),
    ("[joints.iiwa_joint_3]\nvelocity = \"fast\"\n", "joint 'iiwa_joint_3': 'velocity' must be "
                                                     "a positive number"),
    ("[joints.iiwa_joint_3]\nposition = [1.0, -1.0]\n", "joint 'iiwa_joint_3': 'position' must "
                                                        "be [lower, upper]"),
    ("[joints.iiwa_joint_3]\nposition = 1.0\n", "joint 'iiwa_joint_3': 'position' must be "
                                                "[lower, upper]"),
    ("[joints.iiwa_joint_3]\ncurrent = true\n", "joint 'iiwa_joint_3': 'current' must be a "
                                                "positive number"),
    ("[joints]\niiwa_joint_3 = 5\n", "joint 'iiwa_joint_3': expected a table of position"),
    ("[limits.iiwa_joint_3]\ntorque = 5.0\n", "unknown top-level key 'limits'"),
    ("# nothing\n", "no limits: expected [joints.<name>] sections"),
    ("[joints.iiwa_joint_3\n", "not valid TOML"),
]


@pytest.mark.parametrize("text, message", BAD, ids=[m[:30] for _, m in BAD])
def test_bad_limits_files(tmp_path, text, message):
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    out, csv = tmp_path / "r.json", tmp_path / "m.csv"
    for command in (("check", IIWA, IIWA_CSV, "--report", out, "--limits", bad),
                    ("retime", IIWA, IIWA_CSV, "--to-limits", "-o", csv, "--limits", bad),
                    ("generate", IIWA, "--kind", "cosine", "-o", csv, "--respect-limits", bad)):
        result = run(*command)
        assert result.exit_code == 2, (command, result.output)
        lines = [ln for ln in result.output.splitlines() if ln.startswith("hodyn: error:")]
        assert len(lines) == 1 and lines[0].startswith(f"hodyn: error: {bad}: {message}"), lines
        assert not out.exists() and not csv.exists()


def test_urdf_effort_in_the_model():
    """URDF efforts become the torque limits (a missing or zero effort: none); locking keeps
    the others'; the limits file overrides them."""
    assert MODEL.effort_limits.tolist() == [320, 320, 176, 176, 110, 40, 40]
    text = IIWA.read_text().replace('effort="176"', 'effort="0"', 1)
    model = parse_model(text.encode())
    assert np.isinf(model.effort_limits[2]) and model.effort_limits[3] == 176
    locked = lock(MODEL, {"iiwa_joint_3": 0.0})
    assert locked.effort_limits.tolist() == [320, 320, 176, 110, 40, 40]
    limits = read_limits(URDF / "iiwa14_limits.toml", MODEL)
    assert limits.bands["torque"][:, 1].tolist() == [320, 320, 176, 176, 110, 40, 40]
    assert limits.origin["torque_rate"] == ("file",) * 7 and limits.origin["current"] == ("",) * 7


def test_mimic_joints_and_files_without_t(tmp_path):
    """A mimic joint's position and velocity are checked (it moves as its leader makes it);
    torques are the independent joints'. Without t: samples instead of times; retime scales
    the derivatives (no t to write)."""
    from conftest import mimic_urdf

    urdf = mimic_urdf(tmp_path, "iiwa14", "iiwa_joint_7", "iiwa_joint_6", -2.0, 0.1)
    model = load_model(urdf)
    traj = read_trajectory(str(IIWA_CSV), model, need=5)
    src = tmp_path / "no_t.csv"
    write_trajectory(str(src), Trajectory(traj.joint_names, traj.derivatives[:200]))
    result, data = report(tmp_path, urdf, src)
    rows = {(r["quantity"], r["joint"]): r for r in data["rows"]}
    assert rows[("velocity", "iiwa_joint_7")]["status"] != "unchecked"
    assert rows[("torque", "iiwa_joint_7")]["status"] == "unchecked"
    assert "mimic" in rows[("torque", "iiwa_joint_7")]["reason"]
    qd6 = traj.qd[:200, 5]
    assert rows[("velocity", "iiwa_joint_7")]["value"] == pytest.approx(
        -2.0 * qd6[np.argmax(np.abs(qd6))], rel=1e-14)
    assert rows[("velocity", "iiwa_joint_7")]["worst_time"] is None
    assert rows[("velocity", "iiwa_joint_7")]["worst_sample"] == int(np.argmax(np.abs(qd6)))
    out = tmp_path / "slow.csv"
    assert run("retime", urdf, src, "--to-limits", "-o", out).exit_code == 0
    new = csv_columns(out)
    assert "t" not in new and run("check", urdf, out).exit_code == 0
    result = run("retime", urdf, src, "--to-limits", "--segments", 1, "-o", out)
    assert result.exit_code == 2 and "--segments needs a motion with times" in result.output
    result = run("check", urdf, src, "--drives", DRIVES)
    assert result.exit_code == 2 and "mimic" in result.output


def test_to_limits_at_a_rate(tmp_path):
    """--to-limits --rate R: the uniform scaling resampled, samples exactly k/R apart (the
    last step shorter); every limit holds there at that speed and at any slower one (the
    output played 3 times slower passes too), one within 1e-3 of its limit; k within 1e-4 of
    the scaling at the input's samples; validate passes it."""
    limits = URDF / "iiwa14_limits.toml"
    out, plain = tmp_path / "r.h5", tmp_path / "p.csv"
    result = run("retime", IIWA, IIWA_CSV, "--to-limits", "--limits", limits, "--rate", 37.3,
                 "-o", out)
    assert result.exit_code == 0, result.output
    k = float(re.search(r"played k = (\S+) times slower, sampled at 37.3 Hz; binding: "
                        r"velocity of iiwa_joint_7", result.output).group(1))
    ref = run("retime", IIWA, IIWA_CSV, "--to-limits", "--limits", limits, "-o", plain)
    assert k == pytest.approx(float(re.search(r"played k = (\S+) times", ref.output).group(1)),
                              rel=1e-4)
    motion = read_trajectory(str(out), MODEL, need=7)
    steps = np.diff(motion.t)
    assert np.abs(steps[:-1] - 1 / 37.3).max() < 1e-12 and 0 < steps[-1] <= 1 / 37.3
    check = api.check_limits(MODEL, motion, limits=limits)
    assert check.feasible and max(r.usage for r in check.rows if r.checked) > 1 - 1e-3
    slower = tmp_path / "s.h5"
    assert run("retime", IIWA, out, "--factor", 3, "-o", slower).exit_code == 0
    assert run("check", IIWA, slower, "--limits", limits).exit_code == 0
    assert api.validate_motion(MODEL, motion, samples=50).passed


@pytest.mark.parametrize("mode", [("--to-limits",), ("--optimal",)])
def test_retime_errors_name_the_file_once(tmp_path, mode):
    """A bad input to ``retime --optimal`` is named once, as ``--to-limits`` names it (it was
    named twice for an unreadable file or missing columns, not at all when nothing limits
    the speed)."""
    short = tmp_path / "short.csv"
    lines = IIWA_CSV.read_text().splitlines()
    short.write_text("\n".join(lines[:21]) + "\n")
    one_joint = tmp_path / "one_joint.csv"
    header = lines[0].split(",")
    keep = [i for i, name in enumerate(header) if not name.endswith("iiwa_joint_7")]
    one_joint.write_text("\n".join(",".join(line.split(",")[i] for i in keep)
                                   for line in lines[:21]) + "\n")
    free = toml(tmp_path / "free.toml", {j: {"velocity": np.inf, "torque": np.inf}
                                         for j in JOINTS})
    limits = str(URDF / "iiwa14_limits.toml")
    out = tmp_path / "re.csv"
    for source, lim, what in ((tmp_path / "absent.csv", limits, "no such file"),
                              (one_joint, limits, "missing columns q_iiwa_joint_7"),
                              (short, free, "nothing limits the speed")):
        result = run("retime", IIWA, source, *mode, "--limits", lim, "-o", out)
        assert result.exit_code == 2 and not out.exists(), result.output
        line, = result.output.strip().splitlines()
        assert line.startswith(f"hodyn: error: {source}: ") and what in line.lower(), line
        assert line.count(str(source)) == 1, line
