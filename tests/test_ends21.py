"""Reachability's grid finer at a moving end where the rows force the law to brake or speed
up (issue 37, goal 1: the Borinot's flying arm along a 9-harmonic Fourier path starts at x
517.7 where its torque rows ask u <= -1918, which the smoothing's average of u broke: the
fit 1.62 times slower; reachability.END), cut before the grid is calmed, so that the turns'
points are calmed once, and the passes run once."""

from pathlib import Path

import numpy as np
import pytest
from test_base_parameters import public_robot
from test_borinot19 import _bump

import hodyn_cli
from hodyn_cli.algorithms.limits import rates, reachability
from hodyn_cli.algorithms.limits.spaced import Spaced
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory

#: the points a finer end adds
ADDED = (reachability.END_FINER - 1) * reachability.END


def test_forced_is_whether_the_rows_leave_no_u_of_zero_at_their_largest_x_and_ask_a_change_that_counts():
    """``alpha u + beta x <= gamma``: u + x <= 3 and -u <= 5 and x <= 4 (the top): at the
    largest x, 4, u <= -1 (no u = 0): forced where ``2 |u| step`` is FORCED of x at least
    (0.2 of 4 at a step of 0.1; 0.1 at 0.05, below FORCED's 0.2); with x <= 2, u <= 1 at
    its largest x: not forced at any step; no bound on x: not forced."""
    rows = reachability.Rows(np.array([[1.0, -1.0]]), np.array([[1.0, 0.0]]),
                             np.array([[3.0, 5.0]]), np.array([4.0]))
    assert reachability.FORCED == 0.05
    assert reachability.forced(rows, 0.1)
    assert not reachability.forced(rows, 0.05)
    assert not reachability.forced(reachability.Rows(rows.alpha, rows.beta, rows.gamma,
                                                     np.array([2.0])), 10.0)
    free = reachability.Rows(np.array([[1.0]]), np.array([[0.0]]), np.array([[1.0]]),
                             np.array([np.inf]))
    assert not reachability.forced(free, 10.0)


def test_a_turning_grids_finer_ends_leave_its_turns_calmed_once():
    """The bump's grid (denser where it turns, GRID_CALM's averages once) with both ends
    finer: END_FINER times finer steps at its ends, its steps changing by a few per cent an
    interval, and inside the points of the grid without finer ends, to rounding (ends20
    averaged the whole grid again: the turns' points moved by up to 25.7 mean steps)."""
    path = _bump(0.01)
    [plain] = reachability.arcs(path, 4000, turning=True)
    coarse: list = []
    [arc] = reachability.arcs(path, 4000, turning=True, finer=lambda arc: (True, True),
                              coarse=coarse)
    sigma, before = np.asarray(arc.sigma[:]), np.asarray(plain.sigma[:])
    assert len(sigma) == len(before) + 2 * ADDED
    assert coarse[0] is not arc.sigma and np.array_equal(np.asarray(coarse[0][:]), before)
    assert sigma[0] == 0.0 and sigma[-1] == before[-1]
    steps, coarse_steps = np.diff(sigma), np.diff(before)
    assert (steps > 0).all() and np.abs(np.diff(np.log(steps))).max() < 0.1
    for at in (0, -1):
        assert steps[at] == pytest.approx(coarse_steps[at] / reachability.END_FINER, rel=0.05)
    inside = slice(2 * ADDED, len(before) - 2 * ADDED)  # (beyond the calming's reach)
    shifted = sigma[ADDED:][: len(before)]
    assert np.abs(shifted[inside] - before[inside]).max() < 1e-12 * before[-1]


def test_a_uniform_grids_finer_end_is_calmed_there_alone():
    """A path that turns gently keeps its uniform grid; its first end finer: END_FINER times
    finer there, its steps changing smoothly, the uniform points elsewhere to rounding, and
    the last end's step the uniform one."""
    path = _bump(1e-4)
    [plain] = reachability.arcs(path, 4000, turning=True)
    assert isinstance(plain.sigma, Spaced)
    [arc] = reachability.arcs(path, 4000, turning=True, finer=lambda arc: (True, False))
    sigma, before = np.asarray(arc.sigma[:]), np.asarray(plain.sigma[:])
    assert len(sigma) == len(before) + ADDED
    steps = np.diff(sigma)
    uniform = before[1] - before[0]
    assert steps[0] == pytest.approx(uniform / reachability.END_FINER, rel=1e-9)
    assert steps[-1] == pytest.approx(uniform, rel=1e-9)
    assert np.abs(np.diff(np.log(steps))).max() < 0.1
    assert np.abs(sigma[2 * ADDED:] - before[ADDED:]).max() < 1e-12 * before[-1]


def _borinot():
    robot = public_robot("borinot_description/urdf/borinot_flying_arm_2.urdf")
    model = hodyn_cli.load_robot(robot)
    traj = generate(model, "fourier", rate=20.0, duration=20.0, harmonics=9,
                    base_frequency=0.25, seed=7, source=str(robot))
    return model, traj, rates.affine(hodyn_cli.joint_limits(model))


def test_the_borinots_forced_ends_get_the_finer_grid_and_the_passes_run_once(monkeypatch):
    """The Borinot (2.5 N m) along a 9-harmonic Fourier path at 20 Hz starts and ends moving,
    its rows forcing both ends (the start braking, the end speeding up): the passes run once,
    on a grid END_FINER times finer there than arcs' own (ends20: twice, on arcs' own grid
    first; before, once on arcs' own)."""
    model, traj, limits = _borinot()
    grids = []
    along = reachability.along
    monkeypatch.setattr(reachability, "along", lambda arc, *a, **k: (
        grids.append(len(arc.sigma)), along(arc, *a, **k))[1])
    [(arc, law)] = reachability.solve(model, traj, limits, 2000, turning=True)
    [before] = reachability.arcs(traj, 2000, turning=True)
    assert grids == [len(arc.sigma)] and len(arc.sigma) == len(before.sigma) + 2 * ADDED
    steps, coarse = np.diff(np.asarray(arc.sigma[:])), np.diff(np.asarray(before.sigma[:]))
    # (END_FINER times as many points there, averaged over as many intervals: finer still
    # where the turns' points crowd near the ends)
    assert steps[0] < coarse[0] / 3 and steps[-1] < coarse[-1] / 3


def test_where_the_passes_fail_on_the_finer_ends_the_grid_without_them_is_kept(monkeypatch):
    """The passes on the grid with finer ends finding no law (a finer grid sees more points),
    solve keeps the law on the grid without them (ends20 returned None)."""
    model, traj, limits = _borinot()
    [before] = reachability.arcs(traj, 2000, turning=True)
    along = reachability.along
    monkeypatch.setattr(reachability, "along", lambda arc, *a, **k: None if len(
        arc.sigma) > len(before.sigma) else along(arc, *a, **k))
    [(arc, law)] = reachability.solve(model, traj, limits, 2000, turning=True)
    assert np.array_equal(np.asarray(arc.sigma[:]), np.asarray(before.sigma[:]))
    assert law.duration > 0


def test_the_pandas_long_path_keeps_its_end_on_the_grid_of_its_neighbours():
    """The Panda's 500 s Fourier path at 200 Hz with its limits file (goal 4's 10^5-sample
    input; its last 2001 samples here, ~1.2 s of CPU) ends on its rows' knife edge: their
    least |u| changes x by 0.37 % of it over a grid interval, under FORCED, so its end is not
    cut finer, and the law is as long as without the rule. Cut finer and calmed (FORCED under
    0.37 %), it was 0.22 % longer: 6.8172 s against 6.80241 s (review44, ends20)."""
    root = Path(__file__).resolve().parents[1]
    model = hodyn_cli.load_robot(root / "urdf" / "panda.urdf")
    whole = generate(model, "fourier", rate=200.0, duration=500.0)
    tail = Trajectory(whole.joint_names, np.ascontiguousarray(whole.derivatives[-2001:]),
                      whole.t[-2001:])
    _, opt = hodyn_cli.retime_optimal(
        model, tail, limits=hodyn_cli.joint_limits(model, root / "urdf" / "panda_limits.toml"))
    assert opt.duration <= 6.802405712699198 * (1 + 1e-9)
