"""rates._trimmed (issue 37, goal 4): the lifted law lowered onto its limits where a grid
point is still beyond one (the rounds and the lift stop within rates.TOLERANCE), so that the
final fit's local slowing need not sample the whole motion to find the places beyond."""
import numpy as np
from test_rates import PANDA, PANDA_LIMITS, _fourier

import hodyn_cli
from hodyn_cli.algorithms.limits import rates, reachability


def _usage(x: np.ndarray, spot: np.ndarray, grows: float) -> rates.Usage:
    """Two affine limits: a velocity at 0.3 sqrt(x) everywhere, and on ``spot`` one at
    1.001 x^grows (an acceleration's, grows 1, as the rounds leave it: 0.1 % beyond, within
    TOLERANCE)."""
    affine = np.where(spot, 1.001 * x**grows, 0.3 * np.sqrt(x))
    zeros = np.zeros(len(x))
    return rates.Usage(affine, zeros, zeros, np.ones(len(x)))


def test_a_lifted_law_beyond_a_limit_within_tolerance_is_lowered_onto_it():
    """rates._lifted on 600 grid points at x = 1, the passes' law at 4, w = 2: a limit that
    grows as x at 1.001 of itself on points 280-319 (within TOLERANCE: the lift leaves
    it, its room below 1 taken as 1) is within it afterwards at every point, x lowered
    there by 0.1 % or a little more, and lifted far from them as before (the lift alone
    left it at 1.001)."""
    M, planned, half = 600, np.full(600, 4.0), np.full(600, 2.0)
    spot = (np.arange(M) >= 280) & (np.arange(M) < 320)
    x = rates._lifted(np.ones(M), planned, half, lambda x: _usage(x, spot, 1.0))
    use = _usage(x, spot, 1.0)
    assert use.affine.max() <= 1 + 1e-12, use.affine.max()
    assert 0.998 < x[spot].min() and x[spot].max() <= 1 / 1.001 + 1e-12
    assert x[:150].min() > 3.9 and x[450:].min() > 3.9  # (far from the spot: lifted)


def test_a_trim_step_that_puts_a_limit_further_beyond_is_not_taken():
    """rates._trimmed where lowering x raises the limit (one at 1.001 / x on the spot: a
    field too narrow for it, its own slope braking into the place, acts so): the first step
    leaves it further beyond, so x is returned as it was, never further beyond than the
    lift left it."""
    M = 600
    spot = (np.arange(M) >= 280) & (np.arange(M) < 320)

    def usage(x):
        return _usage(x, spot, -1.0)

    x = np.ones(M)
    out = rates._trimmed(x, usage(x), 12, usage)
    assert np.array_equal(out, x)


def test_the_pandas_kept_law_is_within_every_limit_at_every_grid_point():
    """rates.kept on the Panda's Fourier path (2 s at 200 Hz) with its limits file (velocity,
    acceleration, jerk, torque, torque rate), as retime --optimal makes its limits: the
    played x within every limit at every grid point to 1e-5 (its usage recomputed from the
    played spline; without the trim 1.0018, its accelerations, which bind on most of the
    path), and within 0.1 % of the lifted law's duration."""
    from dataclasses import replace

    from hodyn_cli.algorithms.limits.programme import path_limits
    from hodyn_cli.core.trajectory import Trajectory

    model = hodyn_cli.load_robot(str(PANDA))
    limits = hodyn_cli.joint_limits(model, str(PANDA_LIMITS))
    traj = _fourier(model, seconds=2.0)
    [(arc, law)] = reachability.solve(model, traj, rates.affine(limits), 1200)

    def at(a: int, b: int) -> list:
        sigma = arc.sigma[a:b]
        return path_limits(model, Trajectory(traj.joint_names, arc.jet(sigma, 5), sigma),
                           limits, 1)

    def rows(a: int, b: int) -> reachability.Rows:
        return reachability.arc_rows(model, arc, traj.joint_names, a, b, rates.affine(limits))

    kept = rates.kept(arc, law, at, rows, reachability.kernel(2, 200.0)[0])
    assert kept is not None and kept.law.played is not None
    played = reachability.law_spline(arc.sigma, kept.law.played)
    X = np.stack([played(arc.sigma, nu) for nu in range(4)], axis=1)
    use = rates._usage(at(0, len(arc.sigma)), X)
    assert max(use.affine.max(), use.higher.max()) <= 1 + 1e-5, (use.affine.max(),
                                                                 use.higher.max())
    duration = replace(kept.law, x=kept.law.played).duration
    assert duration < 1.001 * kept.duration  # (the rounds' law's, lifted: shorter)
