"""The real command line: typer's CliRunner for every case, one real subprocess."""

import json
import platform
import re
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import ROOT, SAMPLES, URDF
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.cli.app import app
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.urdf import load_model

IIWA = str(URDF / "iiwa14.urdf")
IIWA_CSV = str(SAMPLES / "iiwa14_cosine.csv")
runner = CliRunner()


def run(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def expected(robot=IIWA, traj=IIWA_CSV, order=2):
    model = load_model(robot)
    return model, inverse_dynamics(model, read_trajectory(traj, model, need=order + 3),
                                   order=order)


def test_compute_to_csv(tmp_path):
    out = tmp_path / "tau.csv"
    result = run("compute", IIWA, IIWA_CSV, "--output", out)
    assert result.exit_code == 0, result.output
    model, ref = expected()
    header = out.read_text().splitlines()[0].split(",")
    assert header[:2] == ["t", "tau_iiwa_joint_1"] and header[-1] == "taudd_iiwa_joint_7"
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert np.array_equal(data[:, 1:], ref.reshape(len(ref), -1))  # full precision round trip


def test_compute_to_hdf5_with_provenance(tmp_path):
    out = tmp_path / "tau.h5"
    h5_in = str(SAMPLES / "iiwa14_cosine.h5")
    assert run("compute", IIWA, h5_in, "--order", 1, "-o", out).exit_code == 0
    model, ref = expected(traj=h5_in, order=1)
    with h5py.File(out) as f:
        assert np.array_equal(f["taud"][()], ref[:, 1]) and "taudd" not in f
        assert list(f.attrs["joint_names"]) == list(model.joint_names)
        assert f.attrs["method"] == "body-fixed" and f.attrs["order"] == 1
        assert f.attrs["urdf_sha256"] == model.source_sha256 and len(f["t"]) == len(ref)


def test_stdin_to_stdout():
    text = (SAMPLES / "planar_2r_cosine.csv").read_text()
    result = run("compute", URDF / "planar_2r.urdf", "-", "--order", 0, input=text)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "t,tau_joint1,tau_joint2" and len(lines) == 502


def test_gravity_option_changes_the_static_torque():
    text = "q_joint1,q_joint2,qd_joint1,qd_joint2,qdd_joint1,qdd_joint2\n0,0,0,0,0,0\n"
    up = run("compute", URDF / "planar_2r.urdf", "-", "--order", 0, input=text)
    off = run("compute", URDF / "planar_2r.urdf", "-", "--order", 0, "--gravity", "0,0,0",
              input=text)
    assert float(up.stdout.splitlines()[1].split(",")[0]) == pytest.approx(9.81 * 1.04)
    assert [float(v) for v in off.stdout.splitlines()[1].split(",")] == [0.0, 0.0]


def test_info_table_and_json():
    result = run("info", URDF / "gripper_arm.urdf")
    assert result.exit_code == 0 and "finger_left_joint" in result.stdout
    data = json.loads(run("info", IIWA, "--json").stdout)
    assert [j["name"] for j in data["joints"]] == [f"iiwa_joint_{i}" for i in range(1, 8)]
    assert data["joints"][0]["X"] == [0, 0, 1, 0, 0, 0]


def documented_keys(heading: str) -> list[set[str]]:
    """The keys in the first column of each table under ``heading`` in docs/conventions.md."""
    text = (ROOT / "docs" / "conventions.md").read_text().split(heading, 1)[1]
    text = text.split("\n#", 1)[0]
    tables = [t for t in text.split("\n\n") if t.startswith("| key |")]
    return [{k for row in t.splitlines()[2:] for k in re.findall(r"`(\w+)`", row.split("|")[1])}
            for t in tables]


def test_info_json_keys_are_the_documented_ones():
    """Every key of `info --json` is in docs/conventions.md's tables, and nothing else is."""
    top, joint = documented_keys("### `hodyn info ROBOT --json`")
    data = json.loads(run("info", URDF / "gripper_arm.urdf", "--json").stdout)
    assert set(data) == top and set(data["joints"][0]) == joint
    assert set(data["root"]) == {"mass", "com", "inertia_about_com", "inertia"}
    assert {f["body"] for f in data["links"].values()} >= {-1, 0}
    assert [j["parent"] for j in data["joints"]][0] == -1


BAD_TRAJ = {
    "missing column": ("q_iiwa_joint_1\n0\n", ["missing columns", "q_iiwa_joint_2"]),
    "not a number": (None, ["line 3", "'qd_iiwa_joint_2'", "'abc'"]),
    "nan": (None, ["'q_iiwa_joint_3'", "not finite"]),
    "unknown joint": (None, ["'q_elbow'", "no joint 'elbow'"]),
    "t decreasing": (None, ["'t'", "not increasing"]),
}


def bad_trajectory(kind: str) -> str:
    text, _ = BAD_TRAJ[kind]
    if text is not None:
        return text
    lines = (SAMPLES / "iiwa14_cosine.csv").read_text().splitlines()[:4]
    header = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:]]
    if kind == "not a number":
        rows[1][header.index("qd_iiwa_joint_2")] = "abc"
    elif kind == "nan":
        rows[2][header.index("q_iiwa_joint_3")] = "nan"
    elif kind == "unknown joint":
        header.append("q_elbow")
        rows = [r + ["0"] for r in rows]
    elif kind == "t decreasing":
        rows[2][0] = "-1"
    return "\n".join(",".join(r) for r in [header, *rows]) + "\n"


def assert_one_line_error(result, words):
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hodyn: error: "), result.stderr
    assert "Traceback" not in result.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.mark.parametrize("kind", list(BAD_TRAJ))
def test_bad_trajectory_exit_2_one_line_no_output(tmp_path, kind):
    src = tmp_path / "traj.csv"
    src.write_text(bad_trajectory(kind))
    out = tmp_path / "tau.h5"
    result = run("compute", IIWA, src, "-o", out)
    assert_one_line_error(result, [str(src), *BAD_TRAJ[kind][1]])
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["traj.csv"]


def test_bad_input_leaves_an_existing_output_untouched(tmp_path):
    out = tmp_path / "tau.csv"
    out.write_text("precious\n")
    src = tmp_path / "traj.csv"
    src.write_text(bad_trajectory("nan"))
    assert run("compute", IIWA, src, "-o", out).exit_code == 2
    assert out.read_text() == "precious\n"


@pytest.mark.parametrize("args, words", [
    (["compute", "missing.urdf", IIWA_CSV], ["missing.urdf", "cannot read"]),
    (["compute", IIWA, "missing.csv"], ["missing.csv", "cannot read"]),
    (["compute", IIWA, IIWA_CSV, "--gravity", "0,0"], ["--gravity"]),
    (["compute", IIWA, IIWA_CSV, "-o", "/nonexistent/dir/x.csv"], ["does not exist"]),
    (["compute", IIWA, IIWA_CSV, "-o", "x.txt"], ["unknown file type"]),
    (["compute", IIWA, IIWA_CSV, "--method", "closed-form", "--joint-wrenches", "-o", "x.h5"],
     ["closed-form", "joint wrenches"]),
])
def test_bad_usage_exit_2(args, words):
    assert_one_line_error(run(*args), words)


def test_missing_derivative_columns_are_named(tmp_path):
    lines = Path(IIWA_CSV).read_text().splitlines()
    header = lines[0].split(",")
    keep = [i for i, h in enumerate(header) if not h.startswith("qdddddd_")]
    short = tmp_path / "short.csv"
    short.write_text("\n".join(",".join(r.split(",")[i] for i in keep) for r in lines) + "\n")
    assert run("compute", IIWA, short, "--order", "3").exit_code == 0
    assert_one_line_error(run("compute", IIWA, short, "--order", "4"), ["qdddddd_iiwa_joint_1"])


def test_bad_urdf_names_the_link(tmp_path):
    bad = tmp_path / "bad.urdf"
    bad.write_text((URDF / "planar_2r.urdf").read_text().replace('value="1.2"', 'value="-1.2"'))
    result = run("compute", bad, SAMPLES / "planar_2r_cosine.csv")
    assert_one_line_error(result, [str(bad), "'link1'", "negative mass"])
    debug = run("compute", bad, SAMPLES / "planar_2r_cosine.csv", "--debug")
    # the traceback, then the same line and the same status: a script's test of the exit
    # status must not depend on --debug (it was 1, "a limit was violated" for check)
    assert debug.exit_code == 2, debug.output
    assert "Traceback (most recent call last)" in debug.output
    assert debug.output.rstrip().splitlines()[-1] == result.output.rstrip().splitlines()[-1]


def test_order_out_of_range_is_a_usage_error():
    assert run("compute", IIWA, IIWA_CSV, "--order", "9").exit_code == 2


def test_subprocess_pipeline(tmp_path):
    """The installed entry point in a real pipeline: CSV on stdin, CSV on stdout."""
    text = (SAMPLES / "gripper_arm_cosine.csv").read_text()
    proc = subprocess.run([sys.executable, "-m", "hodyn_cli", "compute",
                           str(URDF / "gripper_arm.urdf"), "-"], input=text,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    model, ref = expected(URDF / "gripper_arm.urdf", SAMPLES / "gripper_arm_cosine.csv")
    data = np.loadtxt(proc.stdout.splitlines(), delimiter=",", skiprows=1)
    assert np.array_equal(data[:, 1:], ref.reshape(len(ref), -1))
    bad = subprocess.run([sys.executable, "-m", "hodyn_cli", "compute", "nope.urdf", "-"],
                         input="", capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and bad.stdout == ""


@pytest.mark.skipif(sys.platform != "linux" or platform.libc_ver()[0] != "glibc",
                    reason="glibc's mallopt")
def test_the_cli_keeps_freed_memory_for_the_next_chunk():
    """A command's chunks allocate and free the same arrays over and over: once
    ``keep_freed_memory`` has run (as ``hodyn`` does on starting), freeing 64 MB of 16 MB
    arrays and allocating them again touches no new page (glibc's default returned them
    to the system each time: ~2000 page faults a round, 8 MB of them)."""
    import resource

    from hodyn_cli.cli.app import keep_freed_memory

    keep_freed_memory()
    faults = []
    for _ in range(4):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        arrays = [np.ones(2 << 20) for _ in range(4)]
        del arrays
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    assert max(faults[1:]) < 100, faults


@pytest.mark.parametrize("missing", ["ctypes", "dlopen"])
def test_keeping_freed_memory_never_stops_the_cli(monkeypatch, missing):
    """review13: ``keep_freed_memory`` runs at every start: where Python cannot dlopen its
    own process (a static build, musl's: ``CDLL(None)`` raises OSError, while the compiled
    kernel's import fails and numpy runs) it changes nothing and hodyn runs on (before,
    every command stopped at start with an internal error); without ctypes at all it
    changes nothing either (the compiled backend needs ctypes on its own)."""
    from hodyn_cli.cli.app import keep_freed_memory

    monkeypatch.setattr(sys, "platform", "linux")
    if missing == "ctypes":
        monkeypatch.setitem(sys.modules, "ctypes", None)  # (import ctypes: ImportError)
    else:
        import ctypes

        def refused(*args, **kwargs):
            raise OSError("Dynamic loading not supported")

        monkeypatch.setattr(ctypes, "CDLL", refused)
    keep_freed_memory()


@pytest.mark.parametrize("collecting", [True, False])
def test_the_start_runs_without_collections_and_the_command_with_them(monkeypatch,
                                                                      collecting):
    """``hodyn`` (cli.app.main) stops the garbage collector while it starts (the command's
    module and its options: their objects live as long as the process, and each was
    traversed by two collections, freed by none) and runs the command's body with it again,
    the start's objects frozen out of its collections (cli.app.started). A caller that had
    stopped the collector itself finds it stopped in the body too, nothing frozen."""
    import gc

    from hodyn_cli.cli import app as cli
    from hodyn_cli.cli import session

    seen: dict[str, tuple[bool, int]] = {}
    only, model = cli.only, session.Session.model

    def starting(first):
        seen["start"] = gc.isenabled(), gc.get_freeze_count()
        return only(first)

    def body(self, *args, **kwargs):
        seen["body"] = gc.isenabled(), gc.get_freeze_count()
        return model(self, *args, **kwargs)

    monkeypatch.setattr(cli, "only", starting)
    monkeypatch.setattr(session.Session, "model", body)
    monkeypatch.setattr(sys, "argv", ["hodyn", "check", IIWA, IIWA_CSV, "-q"])
    frozen = gc.get_freeze_count()
    if not collecting:
        gc.disable()
    try:
        with pytest.raises(SystemExit):
            cli.main()
        assert seen["start"] == (False, frozen)
        if collecting:
            assert seen["body"][0] and seen["body"][1] > frozen, seen
        else:
            assert seen["body"] == (False, frozen)
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_command_that_never_runs_leaves_the_collector_as_it_was(monkeypatch):
    """``hodyn`` stopped the garbage collector for its start: where no command's body runs
    (a usage error, ``--help``) main leaves it running again, nothing frozen (a caller that
    runs commands in its own process, the tests, kept collecting)."""
    import gc

    from hodyn_cli.cli import app as cli

    frozen = gc.get_freeze_count()
    for argv in (["hodyn", "check", IIWA, IIWA_CSV, "--no-such-option"], ["hodyn", "--help"]):
        monkeypatch.setattr(sys, "argv", argv)
        with pytest.raises(SystemExit):
            cli.main()
        assert gc.isenabled() and gc.get_freeze_count() == frozen, argv


def test_quiet_keeps_check_s_and_validate_s_reports():
    """``-q`` (options.py's help: no progress bar, no notices): check's and validate's reports,
    their headline and table, print as without it, and the exit status is the same."""
    for command, headline in (("check", "hodyn check: NOT FEASIBLE"),
                              ("validate", "hodyn validate iiwa14: PASSED")):
        loud, quiet = (run(command, IIWA, IIWA_CSV, *extra) for extra in ([], ["-q"]))
        assert loud.exit_code == quiet.exit_code, (loud.output, quiet.output)
        assert headline in quiet.output and "┃ status" in quiet.output, quiet.output
