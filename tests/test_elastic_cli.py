"""``hodyn elastic`` on the command line, and the drives file's one-line errors."""

import subprocess
import sys

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import SAMPLES, URDF
from hodyn_cli.algorithms.actuation import elastic
from hodyn_cli.cli.app import app
from hodyn_cli.errors import HodynError
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.drives import read_drives
from hodyn_cli.modeling.urdf import load_model, parse_model

runner = CliRunner()
IIWA = URDF / "iiwa14.urdf"
IIWA_DRIVES = URDF / "iiwa14_drives.toml"
IIWA_HIGH = SAMPLES / "iiwa14_cosine_high.h5"


def run(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def reference(order=0, kind="full", traj=IIWA_HIGH):
    model = load_model(IIWA)
    drives = read_drives(IIWA_DRIVES, model)
    req = elastic.requirements(model, drives, order, kind)
    trajectory = read_trajectory(str(traj), model, need=req.q_order + 1)
    return model, elastic.inverse_dynamics(model, trajectory, drives, order=order, kind=kind)


def test_csv_output_columns_and_values(tmp_path):
    out = tmp_path / "motor.csv"
    result = run("elastic", IIWA, IIWA_HIGH, "--drives", IIWA_DRIVES, "--order", 1, "-o", out)
    assert result.exit_code == 0, result.output
    model, ref = reference(order=1)
    header = out.read_text().splitlines()[0].split(",")
    names = model.joint_names
    expected = ["t"] + [f"{base}_{j}" for base in ("u", "ud", "udd", "uddd", "theta", "thetad",
                                                   "thetadd", "thetaddd", "taum", "taumd")
                        for j in names]
    assert header == expected
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    n = len(names)
    assert np.array_equal(data[:, 1 : 1 + n], ref.u[:, 0])
    assert np.array_equal(data[:, -n:], ref.taum[:, 1])


def test_hdf5_output_and_provenance(tmp_path):
    out = tmp_path / "motor.h5"
    result = run("elastic", IIWA, IIWA_HIGH, "--drives", IIWA_DRIVES, "--model", "reflected",
                 "-o", out)
    assert result.exit_code == 0, result.output
    model, ref = reference(kind="reflected")
    with h5py.File(out) as f:
        assert sorted(f) == sorted(["t", "u", "ud", "udd", "theta", "thetad", "thetadd", "taum"])
        assert np.array_equal(f["thetadd"][()], ref.theta[:, 2])
        assert f.attrs["elastic_model"] == "reflected" and f.attrs["q_order"] == 4
        assert list(f.attrs["joint_names"]) == list(model.joint_names)


def test_stdin_to_stdout_with_csv_input(tmp_path):
    model, ref = reference(kind="reflected")
    traj = read_trajectory(str(IIWA_HIGH), model, need=5)
    cols = ["t"] + [f"q{'d' * k}_{j}" for k in range(5) for j in model.joint_names]
    rows = np.hstack([traj.t[:, None], traj.derivatives[:, :5].reshape(len(traj.t), -1)])
    text = ",".join(cols) + "\n" + "\n".join(",".join(f"{v:.17g}" for v in r) for r in rows)
    result = run("elastic", IIWA, "-", "--drives", IIWA_DRIVES, "--model", "reflected",
                 input=text)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("t,u_iiwa_joint_1") and len(lines) == len(rows) + 1
    last = np.array(lines[-1].split(","), dtype=float)
    assert np.array_equal(last[-7:], ref.taum[-1, 0])


def test_explain_names_the_orders_and_why():
    result = run("elastic", IIWA, "--drives", IIWA_DRIVES, "--explain")
    assert result.exit_code == 0, result.output
    assert "every joint needs q up to qdddddddddd (derivative 10" in result.stdout
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
            for line in result.stdout.splitlines() if line.startswith("│ iiwa_joint")}
    assert [rows[f"iiwa_joint_{k}"][1] for k in range(1, 8)] == ["2", "2", "4", "5", "6", "7", "8"]
    assert rows["iiwa_joint_7"][2].startswith("u_iiwa_joint_5 (order 6) contains thetadd")
    assert rows["iiwa_joint_4"][2].startswith("u_iiwa_joint_3 (order 4) contains thetad (gyro")
    assert rows["iiwa_joint_2"][4] == "iiwa_joint_3"  # thetad of drive 3 only, in u_2


def test_missing_derivative_names_column_and_reason(tmp_path):
    out = tmp_path / "x.csv"
    result = run("elastic", IIWA, SAMPLES / "iiwa14_cosine.csv", "--drives", IIWA_DRIVES,
                 "-o", out)
    assert result.exit_code == 2
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1
    assert "qddddddd_iiwa_joint_1" in err and "--explain" in err and "u, theta and taum" in err
    assert "--estimate-derivatives" not in err and not out.exists()


BAD_DRIVES = {
    "unknown joint": ('[joints.nope]\nstiffness = 1.0\nrotor_inertia = 1e-4\ngear_ratio = 10\n',
                      "joint 'nope': the model has no such joint"),
    "elastic without rotor": ('[joints.joint1]\nstiffness = 10\ngear_ratio = 10\n',
                              "joint 'joint1': missing 'rotor_inertia' (a drive with 'stiffness'"),
    "zero stiffness": ('[joints.joint1]\nstiffness = 0\ngear_ratio = 10\nrotor_inertia = 1e-4\n',
                       "joint 'joint1': 'stiffness' must be a positive number, got 0"),
    "negative inertia": ('[joints.joint2]\nstiffness = 10\ngear_ratio = 10\nrotor_inertia = -1\n',
                         "joint 'joint2': 'rotor_inertia' must be a positive number"),
    "zero inertia": ('[joints.joint2]\nstiffness = 10\ngear_ratio = 10\nrotor_inertia = 0.0\n',
                     "joint 'joint2': 'rotor_inertia' must be a positive number, got 0.0"),
    "zero gear ratio": ('[joints.joint1]\nstiffness = 10\ngear_ratio = 0\nrotor_inertia = 1e-4\n',
                        "joint 'joint1': 'gear_ratio' must be a non-zero number, got 0"),
    "no gear ratio": ('[joints.joint1]\nstiffness = 10\nrotor_inertia = 1e-4\n',
                      "joint 'joint1': missing 'gear_ratio'"),
    "text": ('[joints.joint1]\nstiffness = "stiff"\ngear_ratio = 10\nrotor_inertia = 1e-4\n',
             "joint 'joint1': 'stiffness' must be a positive number, got 'stiff'"),
    "bool": ('[joints.joint1]\nstiffness = true\ngear_ratio = 10\nrotor_inertia = 1e-4\n',
             "'stiffness' must be a positive number, got True"),
    "zero axis": ('[joints.joint1]\nstiffness = 1\ngear_ratio = 1\nrotor_inertia = 1e-4\n'
                  'rotor_axis = [0, 0, 0]\n', "joint 'joint1': 'rotor_axis' has zero length"),
    "short axis": ('[joints.joint1]\nstiffness = 1\ngear_ratio = 1\nrotor_inertia = 1e-4\n'
                   'rotor_axis = [0, 1]\n', "'rotor_axis' must be a list of 3 numbers"),
    "unknown key": ('[joints.joint1]\nstiffness = 1\ngear_ratio = 1\nrotor_inertia = 1e-4\n'
                    'damping = 3\n', "joint 'joint1': unknown key 'damping'"),
    "top-level key": ('stiffness = 3\n', "unknown top-level key 'stiffness'"),
    "empty": ('', "no drives"),
    "not toml": ('[joints.joint1\n', "not valid TOML"),
    # the keys of rigid drives, motors and friction (docs/drives.md)
    "zero rigid inertia": ('[joints.joint1]\ngear_ratio = 10\nrotor_inertia = 0\n',
                           "joint 'joint1': 'rotor_inertia' must be a positive number, got 0"),
    "efficiency above 1": ('[joints.joint1]\ngear_ratio = 10\ngear_efficiency = 1.5\n',
                           "joint 'joint1': 'gear_efficiency' must be a number in (0, 1], got 1.5"),
    "zero efficiency": ('[joints.joint2]\ngear_ratio = 10\ngear_efficiency = 0\n',
                        "joint 'joint2': 'gear_efficiency' must be a number in (0, 1], got 0"),
    "zero torque constant": ('[joints.joint1]\ngear_ratio = 10\ntorque_constant = 0.0\n',
                             "joint 'joint1': 'torque_constant' must be a positive number, got 0.0"),
    "negative viscous": ('[joints.joint1]\ngear_ratio = 10\nviscous = -0.1\n',
                         "joint 'joint1': 'viscous' must be a non-negative number, got -0.1"),
    "negative coulomb": ('[joints.joint1]\ngear_ratio = 10\ncoulomb = -2\ncoulomb_velocity = 1\n',
                         "joint 'joint1': 'coulomb' must be a non-negative number, got -2"),
    "coulomb without velocity": ('[joints.joint2]\ngear_ratio = 10\ncoulomb = 2.0\n',
                                 "joint 'joint2': 'coulomb' needs 'coulomb_velocity'"),
    "zero coulomb velocity": ('[joints.joint2]\ngear_ratio = 10\ncoulomb = 2.0\n'
                              'coulomb_velocity = 0\n',
                              "joint 'joint2': 'coulomb_velocity' must be a positive number, got 0"),
    "text offset": ('[joints.joint1]\ngear_ratio = 10\noffset = "a bit"\n',
                    "joint 'joint1': 'offset' must be a number, got 'a bit'"),
    "friction side": ('[joints.joint1]\ngear_ratio = 10\nviscous = 1\nfriction_side = "both"\n',
                      "joint 'joint1': 'friction_side' must be \"joint\" or \"motor\", got 'both'"),
    "misspelt friction key": ('[joints.joint1]\ngear_ratio = 10\nviscose = 1\n',
                              "joint 'joint1': unknown key 'viscose'"),
}


@pytest.mark.parametrize("case", BAD_DRIVES)
def test_bad_drives_file_is_one_line_exit_2_nothing_written(tmp_path, case):
    text, message = BAD_DRIVES[case]
    drives = tmp_path / "drives.toml"
    drives.write_text(text)
    out = tmp_path / "out.csv"
    out.write_text("keep me")
    result = run("elastic", URDF / "planar_2r.urdf", SAMPLES / "planar_2r_cosine_high.h5",
                 "--drives", drives, "-o", out)
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"hodyn: error: {drives}: "), err
    assert message in err
    assert out.read_text() == "keep me"


def test_gear_ratio_defaults_to_the_urdf_transmission(tmp_path):
    text = (URDF / "planar_2r.urdf").read_text().replace("</robot>", """
  <transmission name="t2"><type>transmission_interface/SimpleTransmission</type>
    <joint name="joint2"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="m2"><mechanicalReduction>75</mechanicalReduction></actuator>
  </transmission></robot>""")
    model = parse_model(text.encode())
    drives = tmp_path / "d.toml"
    drives.write_text("[joints.joint2]\nstiffness = 800.0\nrotor_inertia = 2e-5\n")
    assert read_drives(drives, model).gear_ratio[1] == 75.0
    drives.write_text("[joints.joint1]\nstiffness = 800.0\nrotor_inertia = 2e-5\n")
    with pytest.raises(HodynError, match="joint 'joint1': missing 'gear_ratio'"):
        read_drives(drives, model)


def test_rotor_axis_is_read_in_the_parent_links_frame():
    # wrist_roll's parent link (wrist_housing) is merged into the forearm body, pitched 0.3 rad
    model = load_model(URDF / "gripper_arm.urdf")
    drives = read_drives(URDF / "gripper_arm_drives.toml", model)
    j = model.joint_index("wrist_roll")
    T = model.links["wrist_housing"].T
    assert model.links["wrist_housing"].body == model.parent[j]
    n = np.array([0.8, 0.36, 0.48])
    assert np.allclose(drives.rotor_axis[j], T[:3, :3] @ n / np.linalg.norm(n))
    assert not np.allclose(drives.rotor_axis[j], n / np.linalg.norm(n))
    k = model.joint_index("elbow_slide")  # default: the joint axis, in the parent body's frame
    assert np.allclose(drives.rotor_axis[k], model.B[k, :3, :3] @ model.X[k, 3:])


def test_real_subprocess_pipeline(tmp_path):
    """The installed module as a real process: HDF5 in, CSV on stdout."""
    out = subprocess.run(
        [sys.executable, "-m", "hodyn_cli", "elastic", str(URDF / "planar_2r.urdf"),
         str(SAMPLES / "planar_2r_cosine_high.h5"), "--drives", str(URDF / "planar_2r_drives.toml"),
         "--order", "2"], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0].split(",")[-1] == "taumdd_joint2" and len(lines) == 502
