"""Mimic joints imposed: q_j = multiplier q_i + offset; results in the independent
coordinates, against Pinocchio on the model with the mimic joint written out by hand (an
independent joint moved along, its torque added to its leader's)."""

import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import MIMIC_CASES as CASES
from conftest import URDF, mimic_urdf, pin_configuration, pinocchio_model, random_cosine
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import ModelError
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.urdf import load_model, parse_model

pin = pytest.importorskip("pinocchio")
runner = CliRunner()

@pytest.mark.parametrize("case", CASES)
def test_against_pinocchio_with_the_mimic_joint_written_out(tmp_path, case, method):
    robot, dependent, leader, gain, offset = CASES[case]
    model = load_model(mimic_urdf(tmp_path, robot, dependent, leader, gain, offset))
    full = load_model(URDF / f"{robot}.urdf")  # the same robot, every joint independent
    assert dependent not in model.coordinate_names and model.n == full.n
    coords = [full.joint_index(j) for j in model.coordinate_names]
    d, li = full.joint_index(dependent), full.joint_index(leader)
    traj = random_cosine(full, np.linspace(0, 2, 7), orders=5, seed=6)
    ind = traj.derivatives[:, :, coords]
    # the motion written out by hand: the dependent joint follows its leader
    q = traj.derivatives.copy()
    q[:, :, d] = gain * q[:, :, li]
    q[:, 0, d] += offset
    res = hodyn_cli.inverse_dynamics(model, *(ind[:, k] for k in range(4)), order=1,
                                     method=method)
    pin_, pm, data, order = pinocchio_model(URDF / f"{robot}.urdf", full)
    for s in range(traj.n_samples):
        qq = pin_configuration(pm, order, q[s, 0])
        v, a, jerk = q[s, 1, order], q[s, 2, order], q[s, 3, order]
        tau = np.empty(full.n)
        tau[order] = pin.rnea(pm, data, qq, v, a)
        pin.computeRNEADerivatives(pm, data, qq, v, a)
        Mp = np.triu(data.M) + np.triu(data.M, 1).T
        taud = np.empty(full.n)
        taud[order] = data.dtau_dq @ v + data.dtau_dv @ a + Mp @ jerk
        for value, ours in ((tau, res.tau[s]), (taud, res.taud[s])):
            ref = value[coords].copy()
            ref[model.coordinate_names.index(leader)] += gain * value[d]  # by virtual work
            assert np.abs(ours - ref).max() <= 1e-10 * np.abs(ref).max(), case
        M = np.empty((full.n, full.n))
        M[np.ix_(order, order)] = Mp
        G = np.zeros((full.n, len(coords)))
        G[coords, np.arange(len(coords))] = 1.0
        G[d, model.coordinate_names.index(leader)] = gain
        E = hodyn_cli.matrices(model, *(ind[s : s + 1, k] for k in range(3)))
        assert np.allclose(E.M[0], G.T @ M @ G, rtol=0, atol=1e-10 * np.abs(M).max())


def test_cli_needs_no_columns_for_the_mimic_joint(tmp_path):
    path = mimic_urdf(tmp_path, *CASES["gripper fingers"])
    model = load_model(path)
    traj = random_cosine(load_model(URDF / "gripper_arm.urdf"), np.linspace(0, 1, 11),
                         orders=4, seed=1)
    coords = [i for i, j in enumerate(load_model(URDF / "gripper_arm.urdf").joint_names)
              if j in model.coordinate_names]
    src = tmp_path / "five.csv"
    write_trajectory(str(src), Trajectory(model.coordinate_names, traj.derivatives[:, :, coords],
                                          traj.t))
    out = tmp_path / "tau.csv"
    result = runner.invoke(app, ["compute", str(path), str(src), "-o", str(out)])
    assert result.exit_code == 0, result.output
    header = out.read_text().splitlines()[0].split(",")
    assert "tau_finger_right_joint" not in header and "tau_finger_left_joint" in header
    assert "mimic" not in result.stderr  # no warning any more: the constraint is imposed
    info = runner.invoke(app, ["info", str(path)])
    assert "joint 'finger_right_joint' mimics 'finger_left_joint'" in info.stderr


def test_mimic_chains_are_refused(tmp_path):
    text = (URDF / "gripper_arm.urdf").read_text()
    text = text.replace('<joint name="finger_right_joint" type="prismatic">',
                        '<joint name="finger_right_joint" type="prismatic"><mimic '
                        'joint="finger_left_joint"/>')
    text = text.replace('<joint name="finger_left_joint" type="prismatic">',
                        '<joint name="finger_left_joint" type="prismatic"><mimic '
                        'joint="wrist_roll"/>')
    with pytest.raises(ModelError, match="chains of mimic joints are not supported"):
        parse_model(text.encode())


def test_a_mimic_of_a_missing_joint_is_refused_or_ignored_when_asked(tmp_path):
    """alex_psyonic_hands (example-robot-data) names leaders that the file renamed: refused,
    naming the option; with --ignore-broken-mimic the joint moves on its own, with a
    warning, and the robot is the one with that joint written out independent."""
    path = mimic_urdf(tmp_path, "gripper_arm", "finger_right_joint", "finger_left", 1.0, 0.0)
    with pytest.raises(ModelError, match="'finger_left'> names a joint that does not exist "
                                         r"\(a typo of 'finger_left_joint'\?\); "
                                         "--ignore-broken-mimic"):
        load_model(path)
    model = load_model(path, ignore_broken_mimic=True)
    full = load_model(URDF / "gripper_arm.urdf")
    assert model.coordinate_names == full.joint_names
    warnings = [d.message for d in model.diagnostics if d.level == "warning"]
    assert warnings == ["joint 'finger_right_joint': <mimic joint='finger_left'> names a joint "
                        "that does not exist (a typo of 'finger_left_joint'?): the mimic is "
                        "ignored, 'finger_right_joint' moves on its own (--ignore-broken-mimic)"]
    with pytest.raises(ModelError, match=r"--ignore-broken-mimic\)"):
        load_model(path, ignore_broken_mimic=True, strict=True)  # a warning, as any other
    traj = random_cosine(full, np.linspace(0, 1, 5), orders=5, seed=2)
    ours, ref = (hodyn_cli.inverse_dynamics(m, *(traj.derivatives[:, k] for k in range(5)))
                 for m in (model, full))
    assert np.array_equal(ours.taud, ref.taud)
    src, out = tmp_path / "q.csv", tmp_path / "tau.csv"
    write_trajectory(str(src), traj)
    result = runner.invoke(app, ["compute", str(path), str(src), "-o", str(out),
                                 "--ignore-broken-mimic"])
    assert result.exit_code == 0, result.output
    assert "tau_finger_right_joint" in out.read_text().splitlines()[0].split(",")
    assert "the mimic is ignored" in result.stderr
