"""Reachability's grid denser where the path turns sharply (issue 37, goal 1: the Borinot's
flying arm along a 9-harmonic Fourier path, 36 turns 1.5 mrad long on a grid uniform in arc
length of 10 mrad: its output 27-30 % over the optimum, ~5.235 s), and what reads the grid's
steps: the played law's end slopes and the smoothing's widths."""

import numpy as np
import pytest
from test_base_parameters import public_robot

import hodyn_cli
from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.algorithms.limits.spaced import Spaced
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory


def _bump(height: float, width: float = 0.005) -> Trajectory:
    """``(s, height exp(-((s - 0.5) / width)^2))`` over s in [0, 1], 1001 samples: a line
    with a bump whose turning is within a few widths of the middle (q .. q''')."""
    s = np.linspace(0.0, 1.0, 1001)
    z = (s - 0.5) / width
    g = height * np.exp(-(z**2))
    bump = [g, -2 * z / width * g, (4 * z**2 - 2) / width**2 * g,
            (-8 * z**3 + 12 * z) / width**3 * g]
    line = [s, np.ones_like(s), np.zeros_like(s), np.zeros_like(s)]
    return Trajectory(("a", "b"), np.stack([np.stack(pair, axis=1) for pair in zip(
        line, bump, strict=True)], axis=1), s)


def test_the_grid_is_denser_where_the_path_turns_sharply_and_its_step_changes_smoothly():
    """A bump of 0.01 over 0.005 turns by ~0.2 rad between two points of the 4000 uniform in
    arc length (40 times GRID_TURNS' angle): the grid is ~30 times as dense there, its step
    changing by a few per cent from one interval to the next (GRID_CALM), its ends at the
    piece's exactly; before, uniform (a Spaced grid of 4001 points)."""
    [arc] = reachability.arcs(_bump(0.01), 4000, turning=True)
    sigma = arc.sigma
    assert isinstance(sigma, np.ndarray) and len(sigma) > 4001
    steps = np.diff(sigma)
    length = sigma[-1]
    middle = steps[np.argmin(np.abs(sigma[:-1] - length / 2))]
    assert steps[0] > 10 * middle and steps[-1] > 10 * middle
    assert steps[0] == pytest.approx(length / 4000, rel=0.2)  # (the uniform part's)
    assert np.all(steps > 0) and np.max(steps[1:] / steps[:-1]) < 1.1
    assert np.max(steps[:-1] / steps[1:]) < 1.1
    assert sigma[0] == 0.0 and sigma[-1] == float(arc.knots[-1])


def test_a_path_that_turns_gently_keeps_its_uniform_grid():
    """A bump of 1e-4 turns by ~2 mrad between two grid points at most (less than 4 times
    GRID_TURNS' angle): the grid uniform in arc length, as before (the bench's inputs turn by
    1.8 times that at most: the same bits)."""
    [arc] = reachability.arcs(_bump(1e-4), 4000, turning=True)
    assert isinstance(arc.sigma, Spaced) and len(arc.sigma) == 4001


def test_the_played_laws_end_slopes_read_each_ends_own_step():
    """x linear in sigma (u = 1) on a grid of steps 0.1 at its start and 0.01 at its end: the
    law's spline keeps x' = 2 at both ends; its far end read the first step before, 0.2."""
    sigma = np.concatenate([np.linspace(0.0, 1.0, 11), 1 + np.linspace(0.0, 1.0, 101)[1:]])
    spline = reachability.law_spline(sigma, 3 + 2 * sigma)
    assert spline.jet(sigma[[0, -1]], 2)[:, 1] == pytest.approx([2.0, 2.0], rel=1e-9)
    assert reachability.end_steps(sigma) == pytest.approx((0.1, 0.01))


def test_the_smoothings_widths_on_a_grid_denser_where_it_turns_read_its_longest_step():
    """x = 400 (20 m/s) on a grid 10 times denser over its first half: the kernel's half-widths
    those of its uniform part, ``reach sqrt(x) / (Delta PASSES)``, 2.5 intervals of 0.01 for 10
    ms; the first step's 0.001 made them 25."""
    sigma = np.concatenate([np.linspace(0.0, 0.5, 501), 0.5 + np.linspace(0.0, 0.5, 51)[1:]])
    law = reachability.Law(sigma, np.full(len(sigma), 400.0), np.zeros(len(sigma) - 1))
    half = reachability.widths(law, 0.01)
    assert half == pytest.approx(np.full(len(sigma), 0.01 * 20 / (0.01 * reachability.PASSES)))


@pytest.mark.slow
@pytest.mark.parametrize("rate, within", [(20.0, 5.25), (100.0, 5.2525)])
def test_the_borinots_fourier_path_is_near_the_optimum(rate, within):
    """The Borinot's flying arm (2.5 N m, 10^4 rad/s) along sweep17's fourier9 path at 20 and
    100 Hz: the optimum ~5.2336 s (the passes on 5 x 10^5 to 8 x 10^6 intervals,
    extrapolated: rows22), toppra's 4000 intervals 5.3335 s; at 20 Hz hodyn 6.99925 s
    before (+33.7 %), 5.33763 s with the grid denser at the turns (+1.96 %), 5.28371 s with
    the arc length's finer table, 5.27061 s with the grid finer at its forced ends
    (reachability.END; tests/test_ends21.py), 5.24711 s now (+0.26 %: the grid denser where
    the law smoothed leaves its rows, reachability.ROWS_KEPT; tests/test_rows22.py); at 100
    Hz 5.27696 s before that, 5.24961 s now (+0.31 %; 5.2525 is the optimum's +0.36 %)."""
    robot = public_robot("borinot_description/urdf/borinot_flying_arm_2.urdf")
    model = hodyn_cli.load_robot(robot)
    traj = generate(model, "fourier", rate=rate, duration=20.0, harmonics=9,
                    base_frequency=0.25, seed=7, source=str(robot))
    _, opt = hodyn_cli.retime_optimal(model, traj)
    assert opt.duration < within, opt.duration
