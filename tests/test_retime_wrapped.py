"""A continuous joint's angle that a log wraps into (-pi, pi]: the retiming plays the path
through it as validate reads it, unwrapped (hodyn_cli.algorithms.motion.turns). Before,
``retime --optimal`` and ``--to-limits --rate`` refused such a file ("qd_wrist_roll does
not follow from q_wrist_roll") that validate passed. The gripper arm's wrist roll turns
through 6 rad on a point-to-point path."""

import numpy as np
import pytest

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.motion.differences import Differences
from hodyn_cli.algorithms.motion.turns import Turns
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory

ROBOT = URDF / "gripper_arm.urdf"
WRIST = 3  # wrist_roll, the arm's continuous joint


@pytest.fixture(scope="module")
def paths():
    """(model, the path, the same path with the wrist's angle wrapped)."""
    model = hodyn_cli.load_robot(ROBOT)
    waypoints = np.array([[0.0, 0.0, 0.05, 0.0, 0.01, 0.01], [0.5, 0.3, 0.1, 6.0, 0.02, 0.02]])
    path = generate(model, "point-to-point", waypoints=waypoints, segment_duration=[3.0],
                    rate=50.0)
    d = path.derivatives.copy()
    d[:, 0, WRIST] = np.angle(np.exp(1j * d[:, 0, WRIST]))
    assert np.abs(np.diff(d[:, 0, WRIST])).max() > 6  # (it does wrap)
    return model, path, Trajectory(path.joint_names, d, path.t)


def test_a_wrapped_continuous_joint_is_retimed_as_its_unwrapped_path(paths):
    model, path, wrapped = paths
    out, opt = hodyn_cli.retime_optimal(model, path)
    out_w, opt_w = hodyn_cli.retime_optimal(model, wrapped)
    assert opt_w.duration == pytest.approx(opt.duration, rel=1e-9)
    scale = np.abs(out.derivatives).max(axis=(0, 2))  # (per order: the rounding of the
    # unwrapped angle, 1e-16 of a turn, moves the law's fit by ~1e-9 of each order's peak)
    assert (np.abs(out_w.derivatives - out.derivatives).max(axis=(0, 2)) < 1e-7 * scale).all()
    assert out_w.derivatives[-1, 0, WRIST] == pytest.approx(6.0)  # (the angle goes on)
    assert hodyn_cli.validate_motion(model, out_w, samples=100).passed


def test_turns_are_the_same_for_any_chunking():
    rng = np.random.default_rng(3)
    angle = np.cumsum(rng.uniform(-3.0, 3.0, 400))  # steps below pi: it unwraps exactly
    q = np.stack([np.angle(np.exp(1j * angle)), angle], axis=1)
    whole = Turns(np.array([True, False]))(q)
    turns = Turns(np.array([True, False]))
    parts = np.concatenate([turns(part) for part in np.array_split(q, [1, 2, 57, 300])])
    assert np.array_equal(parts, whole)
    np.testing.assert_allclose(whole[:, 0], angle - 2 * np.pi * round((angle[0] - q[0, 0])
                                                                        / (2 * np.pi)),
                               atol=1e-12)


def test_differences_judge_a_wrapped_angle_unwrapped(paths):
    """The consistency check (validate's and the retiming's) on the wrapped file, chunked:
    the same errors as on the unwrapped one."""
    _, path, wrapped = paths
    plain, unwrapped = Differences(), Differences(np.eye(6, dtype=bool)[WRIST])
    for a, b in ((0, 40), (40, 41), (41, path.n_samples)):
        plain.add(path.derivatives[a:b], path.t[a:b], a)
        unwrapped.add(wrapped.derivatives[a:b], wrapped.t[a:b], a)
    assert plain.err is not None and unwrapped.err is not None
    np.testing.assert_allclose(unwrapped.err, plain.err, rtol=1e-6, atol=1e-12)
