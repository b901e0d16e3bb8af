"""hodyn generate: exact derivatives of every kind, limits, and validate on the results."""

import json

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import STENCIL, URDF
from hodyn_cli.algorithms.planning.generate import KINDS, check_limits, generate, rest_to_rest
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.urdf import load_model

runner = CliRunner()


@pytest.mark.parametrize("kind", KINDS)
def test_every_derivative_against_differences_of_the_one_below(robot, kind):
    name, _, model = robot
    D = 8
    traj = generate(model, kind, derivatives=D, seed=2, rate=200.0)
    h = 1 / 200.0
    N = traj.n_samples
    keep = np.ones(N - 8, dtype=bool)
    if kind == "point-to-point":  # derivatives above k = D jump at waypoints: skip stencils
        rest = np.flatnonzero(np.all(traj.derivatives[:, 1:] == 0, axis=(1, 2)))  # waypoints
        for w in rest:
            keep[max(0, w - 8) : w + 1] = False
    for d in range(1, D + 1):
        f = traj.derivatives[:, d - 1]
        fd = sum(STENCIL[i] * f[i : N - 8 + i] for i in range(9)) / h
        exact = traj.derivatives[4 : N - 4, d]
        scale = np.abs(exact).max() + 1e-300
        assert np.abs(fd - exact)[keep].max() <= 1e-6 * scale, (name, kind, d)


def test_defaults_stay_inside_the_limits_for_many_seeds(robot):
    _, _, model = robot
    for kind in KINDS:
        for seed in range(4):
            traj = generate(model, kind, seed=seed)
            check_limits(model, traj)  # raises on a violation
            assert traj.n_samples > 100 and np.ptp(traj.q, axis=0).max() > 0.01


def test_filtered_step_is_the_step_response_of_the_filter():
    """generate's filtered step against the filter itself: a chain of m first-order lags
    x' = A x + b u driven by a unit step from rest, x(t) = A^-1 (expm(A t) - I) b, whose
    output's derivatives are C A^j x for j < m (independent of the closed-form Erlang terms)."""
    from scipy.linalg import expm

    model = load_model(URDF / "iiwa14.urdf")
    m, step, D = 16, 0.5, 10
    traj = generate(model, "filtered-step", step=step, filter_order=m, derivatives=D)
    omega = 2 * m / traj.t[-1]
    A = omega * (np.eye(m, k=-1) - np.eye(m))
    b = np.zeros(m)
    b[0] = omega
    ts = traj.t[::25]
    x = np.array([np.linalg.solve(A, (expm(A * t) - np.eye(m)) @ b) for t in ts])  # (N, m)
    for j in range(D + 1):
        y = x @ np.linalg.matrix_power(A, j).T[:, -1] * step
        got = traj.derivatives[::25, j] - (traj.q[0] if j == 0 else 0)
        assert np.allclose(got, y[:, None], rtol=0, atol=1e-9 * max(1, np.abs(y).max())), j


def test_rest_to_rest_polynomials():
    for k in (1, 2, 3, 6):
        p = np.polynomial.Polynomial(rest_to_rest(k))
        assert p.degree() == 2 * k + 1
        assert abs(p(0.0)) < 1e-12 and abs(p(1.0) - 1) < 1e-12
        for d in range(1, k + 1):
            assert abs(p.deriv(d)(0.0)) < 1e-9 and abs(p.deriv(d)(1.0)) < 1e-9


def test_fourier_is_periodic_and_takes_coefficients(tmp_path):
    model = load_model(URDF / "iiwa14.urdf")
    traj = generate(model, "fourier", base_frequency=0.2, duration=5.0, derivatives=3)
    assert np.allclose(traj.derivatives[0], traj.derivatives[-1], atol=1e-9)  # one period
    coef = tmp_path / "c.json"
    coef.write_text(json.dumps({"iiwa_joint_2": {"a": [0.1, 0.0], "b": [0.0, 0.05]}}))
    out = tmp_path / "f.csv"
    result = runner.invoke(app, ["generate", str(URDF / "iiwa14.urdf"), "--kind", "fourier",
                                 "--harmonics", "2", "--coefficients", str(coef), "-o", str(out)])
    assert result.exit_code == 0, result.output
    back = read_trajectory(str(out), model, need=5)
    wf = 2 * np.pi * 0.1
    t = back.t
    q2 = 0.1 / wf * np.sin(wf * t) - 0.05 / (2 * wf) * np.cos(2 * wf * t)
    assert np.allclose(back.q[:, 1], q2, atol=1e-12) and np.allclose(back.q[:, 0], 0.0)
    coef.write_text(json.dumps({"iiwa_joint_2": {"a": [0.1]}}))
    result = runner.invoke(app, ["generate", str(URDF / "iiwa14.urdf"), "--kind", "fourier",
                                 "--harmonics", "2", "--coefficients", str(coef), "-o", str(out)])
    assert result.exit_code == 2 and "'a' needs 2 numbers" in result.stderr


def test_limit_violations_are_named_unless_allowed(tmp_path):
    out = tmp_path / "step.csv"
    args = ["generate", str(URDF / "iiwa14.urdf"), "--kind", "filtered-step", "--step", "5",
            "-o", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and not out.exists()
    err = result.stderr.strip()
    # the step starts at -2.5 rad: below joint 2's lower limit (-2.094) at t = 0
    assert err == ("hodyn: error: joint 'iiwa_joint_2' at t = 0 s: q = -2.5 is beyond its lower "
                   "limit -2.094 (--allow-limit-violation to write it anyway)")
    result = runner.invoke(app, [*args, "--allow-limit-violation"])
    assert result.exit_code == 0 and out.exists()
    model = load_model(URDF / "iiwa14.urdf")
    too_fast = Trajectory(model.joint_names, np.array([[[0.0] * 7, [0.0, 2.0] + [0.0] * 5]]),
                          np.array([0.5]))
    with pytest.raises(HodynError, match="joint 'iiwa_joint_2' at t = 0.5 s: [|]qd[|] = 2 "
                                         "exceeds its velocity limit 1.5"):
        check_limits(model, too_fast)


@pytest.mark.parametrize("kind", KINDS)
def test_validate_passes_on_every_generated_file(tmp_path, kind):
    for robot in ("iiwa14", "gripper_arm"):
        out = tmp_path / f"{robot}_{kind}.h5"
        result = runner.invoke(app, ["generate", str(URDF / f"{robot}.urdf"), "--kind", kind,
                                     "--seed", "1", "-o", str(out)])
        assert result.exit_code == 0, result.output
        result = runner.invoke(app, ["validate", str(URDF / f"{robot}.urdf"), str(out),
                                     "--samples", "40"])
        assert result.exit_code == 0, result.output


def test_outputs_waypoints_and_compact(tmp_path):
    model = load_model(URDF / "planar_2r.urdf")
    wp = tmp_path / "wp.csv"
    wp.write_text("joint2,joint1\n0,0\n0.5,-0.3\n-0.2,0.4\n")
    out = tmp_path / "p.h5"
    result = runner.invoke(app, ["generate", str(URDF / "planar_2r.urdf"), "--kind",
                                 "point-to-point", "--waypoints", str(wp), "--segment-duration",
                                 "1.5,2", "--derivatives", "6", "--compact", "-o", str(out)])
    assert result.exit_code == 0, result.output
    with h5py.File(out) as f:
        assert f["q_derivatives"].shape == (351, 7, 2) and f.attrs["kind"] == "point-to-point"
    traj = read_trajectory(str(out), model, need=7)
    assert np.allclose(traj.q[[0, 150, 350]], [[0, 0], [-0.3, 0.5], [0.4, -0.2]], atol=1e-12)
    assert np.allclose(traj.derivatives[[0, 150, 350], 1:], 0.0, atol=1e-9)
    result = runner.invoke(app, ["generate", str(URDF / "planar_2r.urdf"), "--kind", "cosine",
                                 "--duration", "0.05"])
    assert result.exit_code == 0 and result.stdout.startswith("t,q_joint1,q_joint2,qd_joint1")
    assert len(result.stdout.splitlines()) == 7
    result = runner.invoke(app, ["generate", str(URDF / "planar_2r.urdf"), "--kind", "wave"])
    assert result.exit_code == 2 and "unknown kind 'wave'" in result.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_pieces_are_the_whole_motion(robot, kind):
    """hodyn generate writes the motion piece by piece: the pieces are the whole, bit for bit."""
    from hodyn_cli.algorithms.planning.generate import chunks

    _, _, model = robot
    whole = generate(model, kind, seed=3, rate=50.0)
    pieces = list(chunks(model, kind, 37, seed=3, rate=50.0))
    assert len(pieces) == -(-whole.n_samples // 37)
    assert np.array_equal(np.concatenate([p.derivatives for p in pieces]), whole.derivatives)
    assert np.array_equal(np.concatenate([p.t for p in pieces]), whole.t)
