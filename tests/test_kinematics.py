"""Higher-order forward kinematics (spatial Algorithm 1) and `hodyn kinematics`."""

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import SAMPLES, URDF, random_cosine
from hodyn_cli.algorithms.backends.numpy import body_fixed as numpy_body_fixed
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.cli.app import app
from hodyn_cli.core import lie

STENCIL = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0.0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])
H = 0.01
LINKS = {"planar_2r": ["link2", "tool0"], "iiwa14": ["iiwa_link_3", "iiwa_link_ee"],
         "gripper_arm": ["tool0", "finger_right", "wrist_housing"]}


def links_of(robot_name):
    return [(robot_name, link) for link in LINKS[robot_name]]


ALL = [case for r in LINKS for case in links_of(r)]


def pose_by_body_fixed_poe(model, q, link):
    """C = B_1 exp(X_1 q_1) ... along the path to the link, then the link's offset."""
    frame = model.links[link]
    path, i = [], frame.body
    while i >= 0:
        path.append(i)
        i = model.parent[i]
    T = np.broadcast_to(np.eye(4), (len(q), 4, 4))
    for i in reversed(path):
        R, p = lie.screw_exp(model.X[i], q[:, i])
        T = T @ model.B[i] @ lie.homogeneous(R, p)
    return T @ frame.T


@pytest.mark.parametrize("robot_name, link", ALL)
def test_derivatives_match_finite_differences(robot_name, link):
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF / f"{robot_name}.urdf")
    t0 = np.linspace(0.3, 3.0, 4)
    t = (t0[:, None] + np.arange(-4, 5) * H).ravel()
    lk = link_kinematics(model, random_cosine(model, t, orders=5, seed=4), link, order=3)

    def check(x, name):  # x: (N, K, m), derivative k+1 vs the stencil of derivative k
        x = x.reshape(len(t0), 9, *x.shape[1:])
        for k in range(1, x.shape[2]):
            numeric = np.einsum("s,nsm->nm", STENCIL, x[:, :, k - 1]) / H
            scale = np.abs(x[:, 4, k]).max()
            assert scale > 1e-3, f"{name} order {k} not excited"
            assert np.abs(x[:, 4, k] - numeric).max() <= 1e-8 * scale, f"{link} {name} order {k}"

    check(lk.Vs, "Vs")
    check(lk.Vb, "Vb")
    check(np.concatenate([lk.p[:, None], lk.pd], axis=1), "p")
    # the twists are the pose's velocity: R' = skew(omega_s) R and p' as in the docstring
    Rd = np.einsum("s,nsij->nij", STENCIL, lk.R.reshape(len(t0), 9, 3, 3)) / H
    Rc = lk.R.reshape(len(t0), 9, 3, 3)[:, 4]
    assert np.allclose(Rd, lie.skew(lk.Vs.reshape(len(t0), 9, 4, 6)[:, 4, 0, :3]) @ Rc, atol=1e-9)


@pytest.mark.parametrize("robot_name, link", ALL)
def test_pose_and_body_twist_match_body_fixed_recursion(robot_name, link):
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF / f"{robot_name}.urdf")
    traj = random_cosine(model, np.linspace(0, 2, 30), orders=5, seed=9)
    lk = link_kinematics(model, traj, link, order=3)
    T = pose_by_body_fixed_poe(model, traj.q, link)
    assert np.allclose(lk.R, T[:, :3, :3], atol=1e-12) and np.allclose(lk.p, T[:, :3, 3], atol=1e-12)
    frame = model.links[link]
    Vb_body = numpy_body_fixed.forward_pass(model, traj.derivatives, 3).V[frame.body]
    Vb_link = Vb_body @ lie.Ad_inv(frame.T[:3, :3], frame.T[:3, 3]).T
    assert np.abs(lk.Vb - Vb_link).max() <= 1e-12 * np.abs(Vb_link).max()


def test_link_on_the_root_is_at_rest():
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF / "planar_2r.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 3), orders=5)
    lk = link_kinematics(model, traj, model.root_link, order=3)
    assert not lk.Vs.any() and not lk.pd.any() and np.allclose(lk.R, np.eye(3))


def test_cli_kinematics_csv_and_hdf5(tmp_path):
    robot, traj = str(URDF / "iiwa14.urdf"), str(SAMPLES / "iiwa14_cosine.h5")
    runner = CliRunner()
    out_h5, out_csv = tmp_path / "ee.h5", tmp_path / "ee.csv"
    for out in (out_h5, out_csv):
        result = runner.invoke(app, ["kinematics", robot, traj, "--link", "iiwa_link_ee", "-o",
                                     str(out)])
        assert result.exit_code == 0, result.output
    with h5py.File(out_h5) as f:
        assert f["Vs"].shape == (501, 6) and f["Vsddd"].shape == (501, 6)
        assert f["R"].shape == (501, 3, 3) and f["pddd"].shape == (501, 3)
        assert f.attrs["link"] == "iiwa_link_ee"
        jerk = f["pddd"][:]
    header = out_csv.read_text().splitlines()[0].split(",")
    assert header[:5] == ["t", "p_x", "p_y", "p_z", "R_11"]
    assert {"Vb_wx", "Vbddd_vz", "pddd_x"} <= set(header)
    data = np.loadtxt(out_csv, delimiter=",", skiprows=1)
    assert np.array_equal(data[:, header.index("pddd_x")], jerk[:, 0])


def test_cli_kinematics_bad_link_and_missing_columns(tmp_path):
    robot = str(URDF / "iiwa14.urdf")
    runner = CliRunner()
    out = tmp_path / "k.csv"
    result = runner.invoke(app, ["kinematics", robot, str(SAMPLES / "iiwa14_cosine.csv"), "--link",
                                 "nope", "-o", str(out)])
    assert result.exit_code == 2 and "no link 'nope'" in result.stderr and not out.exists()
    short = tmp_path / "short.csv"
    lines = (SAMPLES / "iiwa14_cosine.csv").read_text().splitlines()
    header = lines[0].split(",")
    keep = [i for i, h in enumerate(header) if not h.startswith("qdddd")]
    short.write_text("\n".join(",".join(r.split(",")[i] for i in keep) for r in lines) + "\n")
    result = runner.invoke(app, ["kinematics", robot, str(short), "--link", "iiwa_link_ee"])
    assert result.exit_code == 2 and "qdddd_iiwa_joint_1" in result.stderr
    result = runner.invoke(app, ["kinematics", robot, str(short), "--link", "iiwa_link_ee",
                                 "--order", "2"])
    assert result.exit_code == 0 and "Vsdd_wx" in result.stdout and "Vsddd" not in result.stdout
