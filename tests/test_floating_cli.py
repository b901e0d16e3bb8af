"""`--base-wrench`, `--floating-base`, `--base-motion`, `kinematics --com`: files in, files out."""

import csv
from dataclasses import replace

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF, floating_motion, hodyn_here, legged_urdf
from hodyn_cli import api
from hodyn_cli.algorithms.dynamics.floating import inverse_dynamics, matrices
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.algorithms.motion.momentum import centroidal
from hodyn_cli.cli.app import app
from hodyn_cli.io import open_sink, read_trajectory, write_trajectory
from hodyn_cli.io.results import motion_columns
from hodyn_cli.modeling.urdf import load_model

T = np.linspace(0, 1, 21)


@pytest.fixture(scope="module")
def solo(tmp_path_factory):
    """(dir, urdf, model, trajectory with base, joints.csv, base.csv (kinematics output of the
    root), all.csv (joints and base_ columns))."""
    d = tmp_path_factory.mktemp("solo")
    text = legged_urdf("solo", seed=1)
    (d / "solo.urdf").write_text(text)
    model = load_model(d / "solo.urdf")
    traj, _, ext, ext_traj = floating_motion(text, model, T, 4, seed=2)
    write_trajectory(str(d / "joints.csv"), replace(traj, base=None))  # the joints alone
    data = dict(api.forward_kinematics(ext, model.root_link, ext_traj, order=3))
    columns = {"t": ["t"]} | motion_columns(data)
    with open_sink(str(d / "base.csv"), columns, {}) as sink:
        sink.write({"t": T} | data)
    joints, base = _rows(d / "joints.csv"), _rows(d / "base.csv")
    _write(d / "all.csv", [a + (["base_" + c for c in b[1:]] if i == 0 else b[1:])
                           for i, (a, b) in enumerate(zip(joints, base, strict=True))])
    return d, d / "solo.urdf", model, traj


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def _write(path, rows):
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)


def _table(path):
    rows = _rows(path)
    return {name: np.array([float(r[i]) for r in rows[1:]]) for i, name in enumerate(rows[0])}


def _run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_compute_floating_base_from_either_file(solo):
    d, urdf, model, traj = solo
    one = _run("compute", urdf, d / "all.csv", "--floating-base", "--base-wrench", "--order", "1",
               "-o", d / "one.csv")
    two = _run("compute", urdf, d / "joints.csv", "--floating-base", "--base-motion", d / "base.csv",
               "--base-wrench", "--order", "1", "-o", d / "two.csv")
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert (d / "one.csv").read_text() == (d / "two.csv").read_text()
    tau, W = inverse_dynamics(model, traj, order=1)
    got = _table(d / "one.csv")
    assert np.allclose(got["taud_limb2_1_joint"], tau[:, 1, model.joint_index("limb2_1_joint")],
                       rtol=1e-12, atol=1e-12)
    for c, name in enumerate(("mx", "my", "mz", "fx", "fy", "fz")):
        assert np.allclose(got[f"Wd_base_link_{name}"], W[:, 1, c], rtol=1e-12, atol=1e-12)



def test_a_base_motion_file_may_have_columns_of_its_own_named_base_(solo):
    """A --base-motion file's pose without the prefix (as hodyn kinematics writes it) is
    read as such even where another column of the file starts with ``base_`` (a motion
    capture export's ``base_frame``): the prefix is the pose's, not any column's."""
    d, urdf, _, _ = solo
    _write(d / "extra.csv", [r + (["base_frame"] if i == 0 else ["3"])
                             for i, r in enumerate(_rows(d / "base.csv"))])
    runs = [_run("compute", urdf, d / "joints.csv", "--floating-base", "--base-motion",
                 d / base, "--order", "1", "-o", d / f"from_{base}") for base in
            ("base.csv", "extra.csv")]
    assert all(r.exit_code == 0 for r in runs), [r.output for r in runs]
    assert (d / "from_base.csv").read_text() == (d / "from_extra.csv").read_text()

def test_base_wrench_of_a_fixed_base_in_hdf5(tmp_path):
    out = tmp_path / "tau.h5"
    result = _run("compute", URDF / "gripper_arm.urdf", URDF.parent / "sample_trajectories" /
                  "gripper_arm_cosine.csv", "--base-wrench", "-o", out)
    assert result.exit_code == 0, result.output
    model = load_model(URDF / "gripper_arm.urdf")
    traj = read_trajectory(str(URDF.parent / "sample_trajectories" / "gripper_arm_cosine.csv"), model)
    W = inverse_dynamics(model, traj, order=2)[1]
    with h5py.File(out) as f:
        assert np.allclose(f["wrench/base_link/Wdd"][:], W[:, 2], rtol=1e-12, atol=1e-12)
        assert not f.attrs["floating_base"]


def test_kinematics_com_and_floating_link(solo):
    d, urdf, model, traj = solo
    result = _run("kinematics", urdf, d / "all.csv", "--com", "--link", "limb3_end", "--order", "2",
                  "--floating-base", "-o", d / "kin.csv")
    assert result.exit_code == 0, result.output
    got = _table(d / "kin.csv")
    c = centroidal(model, traj, order=2)
    assert np.allclose(got["mass"], c.mass) and np.allclose(got["comddd_z"], c.com[:, 3, 2])
    assert np.allclose(got["hdd_ay"], c.h[:, 2, 1], rtol=1e-12, atol=1e-12)
    lk = link_kinematics(model, traj, "limb3_end", order=2)
    assert np.allclose(got["p_x"], lk.p[:, 0]) and np.allclose(got["Vsdd_vz"], lk.Vs[:, 2, 5])


def test_matrices_floating_base(solo):
    d, urdf, model, traj = solo
    out = d / "eom.h5"
    result = _run("matrices", urdf, d / "all.csv", "--floating-base", "--order", "1", "-o", out)
    assert result.exit_code == 0, result.output
    E = matrices(model, traj, order=1)
    with h5py.File(out) as f:
        assert f["M_d"].shape == (T.size, 6 + model.n, 6 + model.n)
        assert np.allclose(f["g_d"][:], E.g[:, 1], rtol=1e-12, atol=1e-12)
        assert "body twist" in f.attrs["coordinates"]


def _edited(d, name, change):
    rows = _rows(d / "all.csv")
    change(rows)
    _write(d / name, rows)
    return d / name


@pytest.mark.parametrize("case, message", [
    ("missing", "missing column(s) base_Vbdd_vz: the floating root's twist to base_Vbdd"),
    # the trajectory names the columns it needs (not the --base-motion file's p_x, ...)
    ("no base", "joints.csv: missing column(s) base_p_x, base_p_y, base_p_z, base_R_11, "
                "base_R_12, base_R_13 and 6 more: the pose of the floating root"),
    ("no base (HDF5)", "joints.h5: missing dataset(s) base_p, base_R: the pose"),
    ("no pose", "b.csv: missing column(s) p_x, p_y, p_z, R_11, R_12, R_13 and 6 more: the pose "
                "of the floating root (as hodyn kinematics writes it, or prefixed base_)"),
    ("bent", "base_R at sample 3 is not a rotation"),
    ("bent, no prefix", "b.csv: R at sample 3 is not a rotation"),
    ("t", "t differs from the trajectory's at sample 2"),
    ("short", "has 20 samples, fewer than the trajectory"),
    ("alone", "--base-motion goes with --floating-base"),
])
@pytest.mark.parametrize("command", ["compute", "regressor", "validate"])
def test_bad_base_input_is_one_line_and_writes_nothing(solo, case, message, command):
    d, urdf, model, _ = solo
    args = ["compute", urdf, d / "all.csv", "--floating-base", "--order", "1"]
    if case == "missing":
        col = _rows(d / "all.csv")[0].index("base_Vbdd_vz")
        args[2] = _edited(d, "missing.csv", lambda rows: [r.pop(col) for r in rows])
    elif case == "bent":
        args[2] = _edited(d, "bent.csv", lambda rows: rows[4].__setitem__(
            rows[0].index("base_R_12"), "0.5"))
    elif case.startswith("no base"):
        args[2] = d / "joints.csv"
        if "HDF5" in case:
            args[2] = d / "joints.h5"
            write_trajectory(str(args[2]), read_trajectory(str(d / "joints.csv"), model, need=5))
    elif case in ("t", "short", "no pose", "bent, no prefix"):
        rows = _rows(d / "base.csv")
        if case == "t":
            rows[3][0] = "0.11"
        elif case == "no pose":
            rows = [r[:1] + r[13:] for r in rows]   # t, then the twists: no p_x .. R_33
        elif case == "bent, no prefix":
            rows[4][rows[0].index("R_12")] = "0.5"
        _write(d / "b.csv", rows[:-1] if case == "short" else rows)
        args = ["compute", urdf, d / "joints.csv", "--floating-base", "--base-motion", d / "b.csv"]
    else:
        args = ["compute", urdf, d / "joints.csv", "--base-motion", d / "base.csv"]
    args[0] = command
    out = d / f"out_{case}_{command}.{'h5' if command == 'regressor' else 'csv'}"
    if command == "validate":  # no --order: taud and taudd where the columns allow
        args = [a for a in args if a not in ("--order", "1")]
        out = d / f"report_{case}.json"
    result = _run(*args, "--report" if command == "validate" else "-o", out)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("hodyn: error:")]
    assert len(errors) == 1 and message in errors[0], result.stderr
    assert not out.exists()


def test_regressor_floating_base_reproduces_compute(solo):
    """Y pi from the file equals compute's base wrench and torques, every order; the base
    motion from either file gives the same Y."""
    d, urdf, model, _ = solo
    one = _run("regressor", urdf, d / "all.csv", "--floating-base", "--order", "1", "--base",
               "-o", d / "Y.h5")
    two = _run("regressor", urdf, d / "joints.csv", "--floating-base", "--base-motion",
               d / "base.csv", "--order", "1", "-o", d / "Y2.h5")
    tau = _run("compute", urdf, d / "all.csv", "--floating-base", "--base-wrench", "--order", "1",
               "-o", d / "tau.csv")
    assert one.exit_code == two.exit_code == tau.exit_code == 0, one.output + two.output
    got = _table(d / "tau.csv")
    with h5py.File(d / "Y.h5") as f, h5py.File(d / "Y2.h5") as g:
        rows, pi = list(f.attrs["row_names"]), f.attrs["parameters"]
        assert rows[:6] == [f"W_base_link_{c}" for c in ("mx", "my", "mz", "fx", "fy", "fz")]
        assert list(f.attrs["parameter_names"][:2]) == ["m_base_link", "mcx_base_link"]
        assert f.attrs["floating_base"]
        for Y, pre in (("Y", ""), ("Y_d", "d")):
            assert np.array_equal(f[Y][:], g[Y][:])
            ours = f[Y][:] @ pi
            ref = np.stack([got[f"W{pre}{r[1:]}" if r.startswith("W_") else f"tau{pre}_{r}"]
                            for r in rows], axis=1)
            assert np.abs(ours - ref).max() <= 1e-10 * np.abs(ref).max(), Y
            base = f[Y.replace("Y", "Y_base")][:] @ (f.attrs["base_map"] @ pi)
            assert np.abs(base - ref).max() <= 1e-9 * np.abs(ref).max(), Y


def test_validate_floating_base_passes_and_compute_validate_records_it(solo):
    d, urdf, _, _ = solo
    one = _run("validate", urdf, d / "all.csv", "--floating-base", "--samples", "8",
               "--report", d / "v.json")
    two = _run("validate", urdf, d / "joints.csv", "--floating-base", "--base-motion",
               d / "base.csv", "--samples", "8", "--method", "spatial")
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    import json
    checks = json.loads((d / "v.json").read_text())["checks"]
    names = {c["name"] for c in checks}
    assert {"base_Vbdd vs time differences of base_Vbd", "base_Rd vs time differences of base_R",
            "base_pd vs time differences of base_p", "taudd vs d/dt taud"} <= names
    result = _run("compute", urdf, d / "all.csv", "--floating-base", "--base-wrench", "--validate",
                  "-o", d / "checked.h5")
    assert result.exit_code == 0, result.output
    with h5py.File(d / "checked.h5") as f:
        assert f.attrs["validation_passed"]
    refused = _run("validate", urdf, d / "all.csv", "--floating-base", "--simulate")
    assert refused.exit_code == 2 and "--simulate" in refused.stderr


@pytest.mark.parametrize("command, extra, message", [
    ("regressor", ["--slotine-li"], "with --slotine-li yet"),
    ("regressor", ["--drives", URDF / "iiwa14_motors.toml", "--friction"],
     "--floating-base does not go with --drives yet"),
])
def test_what_takes_no_floating_base_yet_says_so_in_one_line(solo, command, extra, message):
    d, urdf, _, _ = solo
    out = d / f"refused_{command}.h5"
    result = _run(command, urdf, d / "all.csv", "--floating-base", *extra, "-o", out)
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("hodyn: error:")]
    assert len(errors) == 1 and message in errors[0] and "floating-base" in errors[0], errors
    assert not out.exists()


def test_elastic_has_no_floating_base_option(solo):
    """Its rotors' recursion runs on a fixed base: the option is not offered (not in its
    help), and giving it is the command line's one-line usage error."""
    d, urdf, _, _ = solo
    out = d / "refused_elastic.h5"
    result = hodyn_here("elastic", urdf, d / "all.csv", "--drives", URDF / "iiwa14_drives.toml",
                        "--floating-base", "-o", out)
    assert result.returncode == 2
    # click 8.1 (and typer's own copy of it): "No such option: --x"; click >= 8.2 quotes it
    assert result.stderr.strip() in ("hodyn: error: No such option: --floating-base",
                                     "hodyn: error: No such option '--floating-base'.")
    assert not out.exists() and "--floating-base" not in _run("elastic", "--help").output


def test_info_says_which_robots_look_floating(tmp_path, solo):
    """The bundled quadruped and a Talos-like humanoid get the notice, an arm does not; a
    command given --floating-base does not suggest it."""
    talos = tmp_path / "talos.urdf"
    talos.write_text(legged_urdf("talos", seed=1))
    for path, floating in ((URDF / "quadruped.urdf", True), (talos, True),
                           (URDF / "iiwa14.urdf", False), (URDF / "gripper_arm.urdf", False)):
        result = _run("info", path)
        assert result.exit_code == 0, result.output
        assert ("looks like a mobile base" in result.stderr) == floating, path
    d, urdf, _, _ = solo
    result = _run("compute", urdf, d / "all.csv", "--floating-base", "--order", "0", "-o",
                  d / "quiet.csv")
    assert result.exit_code == 0 and "looks like a mobile base" not in result.stderr


def test_sensitivities_floating_base_hold_the_root(solo):
    d, urdf, model, traj = solo
    out = d / "S.h5"
    result = _run("sensitivities", urdf, d / "joints.csv", "--floating-base", "--base-motion",
                  d / "base.csv", "--order", "1", "-o", out)
    assert result.exit_code == 0, result.output
    ref = api.torque_sensitivities(model, traj, order=1)
    with h5py.File(out) as f:
        assert f.attrs["floating_base"] and "root's motion held" in f.attrs["about"]
        assert np.allclose(f["dtaud_dqd"][:], ref.dtaud_dqd, rtol=1e-12, atol=1e-12)
