"""`--contacts` and `kinematics --jacobian` on the command line: files in, files out, the
numbers the API gives, one-line errors that write nothing, the notices, exit statuses."""

import csv
from dataclasses import replace

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF
from hodyn_cli import api
from hodyn_cli.algorithms.verification import torque_checks
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import BaseMotion, Trajectory
from hodyn_cli.io import open_sink, trajectory_datasets
from hodyn_cli.io.results import base_datasets
from hodyn_cli.modeling.urdf import load_model

FEET = URDF.parent / "docs" / "examples" / "quadruped_feet.toml"


def motion(model, n=41):
    """The quadruped's trunk swaying over its feet while its legs hold still; the front left
    foot up from sample 15 to 24."""
    t = np.linspace(0, 0.4, n)
    w = 2 * np.pi * 2.5
    Vb = np.zeros((n, 4, 6))
    for k in range(4):
        Vb[:, k, 3] = 0.01 * w ** (k + 1) * np.cos(w * t + k * np.pi / 2)
        Vb[:, k, 5] = 0.003 * (2 * w) ** (k + 1) * np.cos(2 * w * t + k * np.pi / 2)
    p = np.stack([0.01 * np.sin(w * t), 0 * t, 0.3 + 0.003 * np.sin(2 * w * t)], axis=1)
    q = np.zeros((n, 5, 12))
    q[:, 0] = np.tile([0.0, 0.8, -1.6], 4)
    up = np.ones(n)
    up[15:25] = 0
    return Trajectory(model.joint_names, q, t, series={"contact_FL": up},
                      base=BaseMotion(np.broadcast_to(np.eye(3), (n, 3, 3)).copy(), p, Vb))


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    d = tmp_path_factory.mktemp("walk")
    model = load_model(URDF / "quadruped.urdf")
    traj = motion(model)
    data, columns = trajectory_datasets(traj)
    more, cols = base_datasets(traj)
    with open_sink(str(d / "walk.csv"), columns | cols, {}) as sink:
        sink.write(data | more)
    # on four feet throughout (with FL up, the diagonal HR would have to pull as it sways)
    cols.pop("contact_FL")
    more.pop("contact_FL")
    with open_sink(str(d / "down.csv"), columns | cols, {}) as sink:
        sink.write(data | more)
    return d, model, traj


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def table(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return {name: np.array([float(r[i]) for r in rows[1:]]) for i, name in enumerate(rows[0])}


def test_compute_writes_the_contact_wrenches_and_torques(walk):
    d, model, traj = walk
    out = d / "tau.csv"
    r = run("compute", URDF / "quadruped.urdf", d / "walk.csv", "--floating-base", "--contacts",
            FEET, "--base-wrench", "--order", "1", "-o", out)
    assert r.exit_code == 0, r.output
    assert "the contacts switch at t = 0.15 s (FL lifts), t = 0.25 s (FL lands)" in r.output
    ref = api.contact_dynamics(model, FEET, traj, order=1, base_wrench=True)
    got = table(out)
    for k, name in enumerate(("fx", "fy", "fz")):
        assert np.allclose(got[f"Fc_HR_{name}"], ref.Fc_HR[:, k], rtol=1e-13, atol=1e-12)
        assert np.allclose(got[f"Fcd_FL_{name}"], ref.Fcd_FL[:, k], rtol=1e-13, atol=1e-12)
    assert np.allclose(got["taud_HL_KFE"], ref.taud[:, model.joint_index("HL_KFE")], rtol=1e-13)
    assert not got["Fc_FL_fz"][15:25].any() and got["Fc_FL_fz"][:15].min() > 0
    assert np.abs(got["W_base_link_fz"]).max() < 1e-9        # three or four feet: all carried
    h5 = d / "tau.h5"
    r = run("compute", URDF / "quadruped.urdf", d / "walk.csv", "--floating-base", "--contacts",
            FEET, "-o", h5, "-q")
    assert r.exit_code == 0, r.output
    with h5py.File(h5) as f:
        assert np.allclose(f["contact/FR/Fcd"][:], ref.Fcd_FR, rtol=1e-13, atol=1e-12)
        assert list(f.attrs["contact_names"]) == ["FL", "FR", "HL", "HR"]


def test_flags_and_base_from_hdf5(walk, tmp_path):
    """The same numbers from an HDF5 trajectory (datasets base_p, base_R, base_Vb.., and
    contact_FL, N); check and retime take --floating-base without contacts too."""
    d, model, traj = walk
    data, columns = trajectory_datasets(traj)
    more, cols = base_datasets(traj)
    h5 = tmp_path / "walk.h5"
    with open_sink(str(h5), columns | cols, {"joint_names": list(model.joint_names)}) as sink:
        sink.write(data | more)
    for src, out in ((d / "walk.csv", tmp_path / "a.csv"), (h5, tmp_path / "b.csv")):
        r = run("compute", URDF / "quadruped.urdf", src, "--floating-base", "--contacts", FEET,
                "-o", out, "-q")
        assert r.exit_code == 0, r.output
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    r = run("check", URDF / "quadruped.urdf", d / "down.csv", "--floating-base", "-q")
    assert r.exit_code == 0 and "friction" not in r.output and "torque" in r.output, r.output
    out = tmp_path / "slow.csv"
    r = run("retime", URDF / "quadruped.urdf", d / "walk.csv", "--floating-base", "--contacts",
            FEET, "--factor", "2", "-o", out, "-q")
    assert r.exit_code == 0, r.output
    got = table(out)
    assert np.array_equal(got["contact_FL"], traj.series["contact_FL"])
    assert np.allclose(got["base_Vbdd_vz"], traj.base.Vb[:, 2, 5] / 8, rtol=1e-12, atol=1e-15)
    assert np.allclose(got["t"], 2 * traj.t)


def test_two_feet_leave_a_couple_on_the_base(walk, tmp_path):
    d, model, traj = walk
    two = tmp_path / "two.toml"
    two.write_text(FEET.read_text().split("[contacts.HL]")[0])
    r = run("compute", URDF / "quadruped.urdf", d / "walk.csv", "--floating-base", "--contacts",
            two, "-o", tmp_path / "o.csv")
    assert r.exit_code == 0, r.output
    assert "the active contacts cannot carry the whole base wrench at" in r.output
    assert "one or two point contacts take no moment about them" in r.output
    r = run("validate", URDF / "quadruped.urdf", d / "walk.csv", "--floating-base",
            "--contacts", two, "--samples", "10")
    assert r.exit_code == 0, r.output
    assert "warn: the couple one or two points leave on the base" in r.output


@pytest.mark.parametrize("case, message", [
    ("no floating base", "--contacts goes with --floating-base"),
    ("flag", "walk.csv: column 'contact_FL' at t = 0.01 s: 0.5 is not 1"),
    ("unknown contact", "column 'contact_FX': the contacts file has no contact 'FX'"),
    ("missing key", "feet.toml: contact 'FL': missing 'friction'"),
    ("unknown key", "feet.toml: contact 'FL': unknown key 'mu'"),
])
def test_bad_input_is_one_line_and_writes_nothing(walk, tmp_path, case, message):
    d, model, traj = walk
    feet, trajectory = FEET, d / "walk.csv"
    args = ["--floating-base"]
    if case == "no floating base":
        args = []
    elif case in ("flag", "unknown contact"):
        rows = (d / "walk.csv").read_text().splitlines()
        if case == "flag":
            header = rows[0].split(",")
            col = header.index("contact_FL")
            cells = rows[2].split(",")
            cells[col] = "0.5"
            rows[2] = ",".join(cells)
        else:
            rows[0] = rows[0].replace("contact_FL", "contact_FX")
        trajectory = tmp_path / "walk.csv"
        trajectory.write_text("\n".join(rows) + "\n")
    else:
        text = FEET.read_text()
        text = (text.replace("friction = 0.8\n", "", 1) if case == "missing key"
                else text.replace("friction = 0.8", "mu = 0.8", 1))
        feet = tmp_path / "feet.toml"
        feet.write_text(text)
    out = tmp_path / "out.csv"
    r = run("compute", URDF / "quadruped.urdf", trajectory, *args, "--contacts", feet, "-o", out)
    assert r.exit_code == 2
    assert message in r.output, r.output
    assert len([line for line in r.output.splitlines() if line.startswith("hodyn: error")]) == 1
    assert not out.exists()


def test_kinematics_jacobian_and_matrices(walk, tmp_path):
    d, model, traj = walk
    out = tmp_path / "k.h5"
    r = run("kinematics", URDF / "quadruped.urdf", d / "walk.csv", "--floating-base", "--link",
            "HL_foot", "--jacobian", "--order", "2", "-o", out, "-q")
    assert r.exit_code == 0, r.output
    ref = api.link_jacobian(model, "HL_foot", traj, order=2)
    with h5py.File(out) as f:
        assert np.array_equal(f["Js_dd"][:], ref.Js_dd) and np.array_equal(f["Jb"][:], ref.Jb)
        assert tuple(f.attrs["jacobian_columns"]) == ref.joint_names
    r = run("kinematics", URDF / "quadruped.urdf", d / "walk.csv", "--floating-base", "--link",
            "HL_foot", "--jacobian", "-o", tmp_path / "k.csv")
    assert r.exit_code == 2 and "--jacobian needs HDF5 output" in r.output
    out = tmp_path / "m.h5"
    r = run("matrices", URDF / "quadruped.urdf", d / "walk.csv", "--floating-base", "--contacts",
            FEET, "--order", "1", "-o", out, "-q")
    assert r.exit_code == 0, r.output
    ref = api.contact_matrices(model, FEET, traj, order=1)
    with h5py.File(out) as f:
        for name in ("Jc_d", "Fc", "Q_ext_d", "M"):
            assert np.allclose(f[name][:], ref[name], rtol=1e-13, atol=1e-12), name
        assert list(f.attrs["contact_rows"])[:3] == ["FL_fx", "FL_fy", "FL_fz"]


def test_check_fails_where_the_feet_must_pull(walk):
    d, model, traj = walk
    args = ["check", URDF / "quadruped.urdf", d / "down.csv", "--floating-base", "--contacts",
            FEET]
    report = d / "check.json"
    r = run(*args, "--report", report)
    assert r.exit_code == 0, r.output
    assert "friction cone" in r.output
    import json

    import jsonschema

    from hodyn_cli.pipeline.check_report import SCHEMA_PATH

    data = json.loads(report.read_text())
    jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text()))
    assert {row["joint"] for row in data["rows"] if row["quantity"] == "friction"} == \
        {"FL", "FR", "HL", "HR"}
    r = run(*args, "--gravity", "0,0,9.81")   # upside down: the feet must hold it to the floor
    assert r.exit_code == 1, r.output
    assert "fail: friction cone of FL beyond its limit" in r.output


def test_retime_keeps_the_base_and_the_flags(walk, tmp_path):
    d, model, traj = walk
    out = tmp_path / "fast.csv"
    r = run("retime", URDF / "quadruped.urdf", d / "down.csv", "--floating-base", "--contacts",
            FEET, "--to-limits", "-o", out)
    assert r.exit_code == 0, r.output
    assert "binding:" in r.output
    got = table(out)
    assert "contact_FL" not in got
    k = float(r.output.split("k = ")[1].split(")")[0]) if "faster" in r.output else \
        float(r.output.split("played k = ")[1].split(" times")[0])
    assert np.allclose(got["base_Vbd_vx"], traj.base.Vb[:, 1, 3] / k**2, rtol=1e-8)
    assert np.allclose(got["base_p_x"], traj.base.p[:, 0])
    r = run("check", URDF / "quadruped.urdf", out, "--floating-base", "--contacts", FEET, "-q")
    assert r.exit_code == 0, r.output     # on its binding limit, not beyond


def test_validate_on_contacts(walk, monkeypatch):
    """Passes (its legs hold still while the trunk sways: the feet move, which warns);
    contact-wrench rates off by 1e-6 fail the finite-difference check, naming the column."""
    d, model, traj = walk
    args = ["validate", URDF / "quadruped.urdf", d / "walk.csv", "--floating-base", "--contacts",
            FEET, "--samples", "10"]
    r = run(*args)
    assert r.exit_code == 0, r.output
    assert "nothing left on the base where they take any" in r.output
    assert "active contacts at rest" in r.output
    on_contacts = torque_checks.on_contacts

    def off(*a, **k):
        res = on_contacts(*a, **k)
        W = {n: F.copy() for n, F in res.wrenches.items()}
        if W["HR"].shape[1] > 1:
            W["HR"][:, 1] *= 1 + 1e-6
        return replace(res, wrenches=W)

    monkeypatch.setattr(torque_checks, "on_contacts", off)
    r = run(*args)
    assert r.exit_code == 1, r.output
    assert "fail: taud vs d/dt tau" in r.output and "Fc_HR_fz" in r.output
