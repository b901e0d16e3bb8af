"""Every label right: for every command and both formats, the names an HDF5 file gives its
joint axes (root attribute ``joint_names``) are the names in the CSV header of the same result,
in order; on a tree with a mimic joint (the gripper's right finger follows the left) and on
the iiwa."""

import csv
import re

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import MIMIC_CASES, SAMPLES, URDF, mimic_urdf
from hodyn_cli.cli.app import app

runner = CliRunner()


def hodyn(*args):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, (args, result.stderr)
    return result


def header_joints(path, prefix):
    """Joint names of the CSV columns ``<prefix>_<joint>``, in order."""
    with open(path) as f:
        header = next(csv.reader(f))
    return [m[1] for c in header if (m := re.fullmatch(rf"{prefix}_(.+)", c))]


def attr_joints(path):
    with h5py.File(path) as f:
        return [n.decode() if isinstance(n, bytes) else str(n) for n in f.attrs["joint_names"]]


@pytest.fixture(params=["gripper with mimic fingers", "iiwa14"])
def robot(request, tmp_path):
    if request.param == "iiwa14":
        return URDF / "iiwa14.urdf"
    return mimic_urdf(tmp_path, *MIMIC_CASES["gripper fingers"])


def test_generate_compute_and_the_matrices_agree_on_names(tmp_path, robot):
    traj = {fmt: tmp_path / f"q.{fmt}" for fmt in ("csv", "h5")}
    for path in traj.values():
        hodyn("generate", robot, "--kind", "cosine", "--duration", "0.2", "-o", path)
    names = header_joints(traj["csv"], "q")
    assert names == attr_joints(traj["h5"])
    assert "finger_right_joint" not in names  # the mimic joint has no column of its own
    hodyn("validate", robot, traj["h5"], "--samples", "5")  # and the file is valid
    for fmt in ("csv", "h5"):
        hodyn("compute", robot, traj[fmt], "-o", tmp_path / f"tau.{fmt}")
    assert header_joints(tmp_path / "tau.csv", "tau") == names
    assert attr_joints(tmp_path / "tau.h5") == names
    for command in ("matrices", "regressor", "sensitivities"):
        out = tmp_path / f"{command}.h5"
        hodyn(command, robot, traj["h5"], "-o", out, "--order", "0")
        assert attr_joints(out) == names, command
        with h5py.File(out) as f:  # rows of every per-joint dataset: one per name
            first = {"matrices": "M", "regressor": "Y", "sensitivities": "dtau_dq"}[command]
            assert f[first].shape[1] == len(names)
    hodyn("compute", robot, traj["h5"], "-o", tmp_path / "w.h5", "--joint-wrenches")
    with h5py.File(tmp_path / "w.h5") as f:
        assert attr_joints(tmp_path / "w.h5") == names and f["tau"].shape[1] == len(names)


def test_elastic_and_ik_label_their_joints(tmp_path):
    iiwa, drives = URDF / "iiwa14.urdf", URDF / "iiwa14_drives.toml"
    high = SAMPLES / "iiwa14_cosine_high.h5"
    for fmt in ("csv", "h5"):
        hodyn("elastic", iiwa, high, "--drives", drives, "-o", tmp_path / f"m.{fmt}")
    assert header_joints(tmp_path / "m.csv", "theta") == attr_joints(tmp_path / "m.h5")
    hodyn("kinematics", iiwa, SAMPLES / "iiwa14_cosine.h5", "--link", "iiwa_link_ee",
          "-o", tmp_path / "ee.h5")
    for fmt in ("csv", "h5"):
        hodyn("ik", iiwa, tmp_path / "ee.h5", "--link", "iiwa_link_ee", "--on-singular", "warn", "--q0",
              ",".join(["0.3"] * 7), "-o", tmp_path / f"j.{fmt}")
    names = header_joints(tmp_path / "j.csv", "q")
    assert names == attr_joints(tmp_path / "j.h5") and len(names) == 7
    with h5py.File(tmp_path / "j.h5") as f:
        assert np.isfinite(f["q"][()]).all()
