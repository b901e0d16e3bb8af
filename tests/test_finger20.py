"""The TriFinger's finger_edu (1000 rad/s, 1000 N m) along stranger_sweep17's Lissajous curve
(issue 37, goal 1 on a law of ~9 ms): the same curve given at 20 Hz and at 100 Hz is the same
path to hodyn (its Hermite interpolant between the samples within 4e-9 rad of the curve), so
its law must not depend on the input's rate. Given at 20 Hz its arc length's table had 2
points an input interval, 25 ms each, which spread each sharp turn over them: the grid
(``reachability._grids``) did not follow the turns, 4001 points against 4351 at 100 Hz, and
the output was 0.00925135 s, 1.11 % over toppra's 0.00914964 s, against 0.00916217 s (0.14 %)
at 100 Hz (benchmarks/README.md, finger20)."""

import numpy as np
import pytest
from test_base_parameters import public_robot

import hodyn_cli
from hodyn_cli.algorithms.limits import programme, reachability
from hodyn_cli.core.trajectory import Trajectory

#: the bench's rest-to-rest time law p(u), u in [0, 1] (bench_optimal.REST_TO_REST)
REST_TO_REST = np.polynomial.Polynomial([0, 0, 0, 0, 0, 126, -420, 540, -315, 70])
#: the sweep's centre: its waypoints A and B's middle, as shares of each joint's half range
CENTRE = np.array([-0.025, 0.025, 0.05])


@pytest.fixture(scope="module")
def finger():
    return hodyn_cli.load_robot(public_robot("finger_edu_description/robots/finger_edu.urdf"))


def _curve(model, p: np.ndarray, order: int) -> np.ndarray:
    """stranger_sweep17.Lissajous: q(p) = m + c h + 0.3 h sin(pi f p + j) (m, h: each
    joint's middle and half range, c: :data:`CENTRE`, f = 1 + j % 3), its ``order``-th
    derivative in p."""
    low, high = model.limits[:, 0], model.limits[:, 1]
    half = np.minimum((high - low) / 2, np.pi)
    j = np.arange(model.n)
    w = np.pi * (1 + j % 3)
    wave = 0.3 * half * w**order * np.sin(w * p[:, None] + j + order * np.pi / 2)
    return wave + ((low + high) / 2 + CENTRE * half if order == 0 else 0)


def _lissajous(model, rate: float) -> Trajectory:
    """The curve from rest to rest in 1 s, p = REST_TO_REST(t), sampled at ``rate``: q and
    its first four derivatives, exact by the chain rule (Faa di Bruno)."""
    u = np.linspace(0.0, 1.0, round(rate) + 1)
    p, p1, p2, p3, p4 = (REST_TO_REST.deriv(r)(u) if r else REST_TO_REST(u) for r in range(5))
    p1, p2, p3, p4 = (x[:, None] for x in (p1, p2, p3, p4))
    d = [_curve(model, p, r) for r in range(5)]
    rows = [d[0], d[1] * p1, d[2] * p1**2 + d[1] * p2,
            d[3] * p1**3 + 3 * d[2] * p1 * p2 + d[1] * p3,
            d[4] * p1**4 + 6 * d[3] * p1**2 * p2 + d[2] * (3 * p2**2 + 4 * p1 * p3) + d[1] * p4]
    return Trajectory(model.joint_names, np.stack(rows, axis=1), u)


def test_the_path_between_a_20_hz_inputs_samples_is_the_curve(finger):
    """hodyn's path between the 21 samples (``programme.between``: the Hermite interpolant of
    q .. q'''') is the curve toppra is given, to 4e-9 rad (the point on the curve nearest each
    of 4001 points between them, by Newton's method from the parameter at that time): the
    sweep's peer on the curve compares like with like (toppra on splines through 20001 points
    of each was the same to 3e-6 of its duration, benchmarks/README.md, finger20)."""
    traj = _lissajous(finger, 20.0)
    t = np.linspace(0.0, 1.0, 4001)
    q = programme.between(traj, t, 0)
    p = REST_TO_REST(t)
    for _ in range(4):  # (Newton on |c(p) - q|^2)
        e, d1, d2 = _curve(finger, p, 0) - q, _curve(finger, p, 1), _curve(finger, p, 2)
        p = np.clip(p - (e * d1).sum(1) / ((d1 * d1).sum(1) + (e * d2).sum(1)), 0.0, 1.0)
    far = np.linalg.norm(_curve(finger, p, 0) - q, axis=1).max()
    assert far < 1e-8, far


def test_the_grid_follows_the_turns_of_a_20_hz_input_as_of_a_100_hz_one(finger):
    """reachability's grid along the curve given at 20 Hz has the points of the same curve
    given at 100 Hz, within 1 %, where the path turns sharply (4351 at 100 Hz; 4001, the
    uniform grid, where the table had 2 points an input interval: 1.11 % over toppra)."""
    grids = []
    for rate in (20.0, 100.0):
        path = _lissajous(finger, rate)
        arcs = reachability.arcs(path, 4000, turning=True)
        grids.append(sum(len(arc.sigma) for arc in arcs))
    assert grids[1] > 4001
    assert abs(grids[0] - grids[1]) <= 0.01 * grids[1], grids
