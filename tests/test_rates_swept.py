"""What the played law of the rounds (:mod:`hodyn_cli.algorithms.limits.rates`) carries to an
output as fine as its grid (issue 37, goal 2: the output passes ``hodyn validate`` at every
rate from 20 Hz to 10 kHz): the Panda's point-to-point motion with its limits file failed it
at 5 kHz (its q^(4) against the differences of its q^(3), 1.2 times the tolerance) and, with
the flat-topped ramps, at 5 and 10 kHz (4.2 and 5.0 times), for two reasons:

- the rounds' averages of the law over half-widths that change along the path rippled its
  second difference wherever one crossed a whole number of grid intervals
  (:func:`~hodyn_cli.algorithms.limits.reachability.swept`'s ``cubic``);
- the ramps' pieces join between the played points, where q^(6) jumps, and the output is
  resampled between those by Hermite interpolation of q^(3) and q^(4)
  (:func:`~hodyn_cli.algorithms.limits.reachability._at_joins`).

(With both, the flat-topped ramps are still kept to outputs at 1 kHz or coarser: the docs'
Panda motion back to its start failed at 10 kHz, 1.13 times, where the warp makes the grid's
intervals long over a rise: optimal._rated.)
"""

from pathlib import Path

import numpy as np
import pytest
from scipy.interpolate import CubicHermiteSpline
from test_rates import reflected, swept_field

import hodyn_cli
from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.algorithms.limits.jets import compose
from hodyn_cli.algorithms.limits.programme import between
from hodyn_cli.algorithms.limits.ramps import FLAT
from hodyn_cli.algorithms.limits.stored import Stored
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory

URDF = Path(__file__).resolve().parents[1] / "urdf"


def test_cubic_swept_is_the_catmull_rom_interpolant_s_average_over_its_half_widths(monkeypatch):
    """reachability.swept(cubic=True): at each point the mean of x's Catmull-Rom interpolant
    (slopes the central differences) over ``half`` grid intervals either side, x reflected
    through its ends (even and odd), by that spline's exact integral; made in blocks of 7
    points, the same numbers to the bit."""
    x, half = swept_field()
    for odd in (False, True):
        grid, values = reflected(x, odd)
        spline = CubicHermiteSpline(grid, values, np.gradient(values))
        ours = reachability.swept(x, half, odd=odd, cubic=True)
        theirs = [spline.integrate(i - h, i + h) / (2 * h) for i, h in enumerate(half)]
        assert ours == pytest.approx(theirs, abs=1e-12 * np.abs(x).max())
        with monkeypatch.context() as m:
            m.setattr(reachability, "BLOCK", 7)
            assert np.array_equal(reachability.swept(x, half, odd=odd, cubic=True), ours)


def _ripple(x: np.ndarray) -> float:
    """The largest departure of x's fourth differences from their neighbours' mean, as a
    share of the largest (a smooth x's change slowly; a jump of its second difference
    stands out)."""
    d4 = np.diff(x, 4)[40:-40]
    return float(np.abs(d4[1:-1] - (d4[:-2] + d4[2:]) / 2).max() / np.abs(d4).max())


def test_the_rounds_smoothing_has_no_ripple_where_a_half_width_crosses_a_whole_number():
    """A law rising at its limit onto a plateau smoothed as the rounds smooth it
    (reachability.smoothed, half-widths across 13, 12 and 11 intervals, changing by up to
    0.08 an interval): with the Catmull-Rom interpolant's averages its fourth differences
    are smooth (0.7 % of their largest off their neighbours' mean); the linear
    interpolant's left a ripple 13 times that where a half-width crossed 12 (the played
    law's x^(3), and the output's q^(4), ~1 % off over a grid interval on the Panda)."""
    i = np.arange(300)
    law = reachability.Law(0.01 * i, np.minimum(5 + 0.05 * i, 12.0), np.zeros(299))
    half = 12.0 - 1.6 * np.tanh((i - 150) / 20.0)
    assert _ripple(reachability.smoothed(law, half=half, cubic=True)) < 0.015
    assert _ripple(reachability.smoothed(law, half=half)) > 0.05


def test_the_ramps_joins_are_played_points_and_the_output_between_them_is_the_law_s():
    """A 2R arm's point-to-point motion through a corner, played with the flat-topped ramps
    (20 ms) at the corner and its own rests: each ramp's joins (Ramp.joins, where q^(6)
    jumps) are played points at their times, and the output resampled between the played
    points (Hermite, programme.between) has the warped law's own q^(4) to 1e-5 of its largest
    from one rise to one and a half from each rest (1.2e-6), where the join at the rise's
    end used to lie inside an interval (2.7e-3; the Panda's flat ramps at 5 and 10 kHz failed
    validate so)."""
    model = hodyn_cli.load_robot(str(URDF / "planar_2r.urdf"))
    traj = generate(model, "point-to-point", waypoints=np.array([[0, 0], [1.0, 0.5],
                                                                  [0.2, -0.4]]),
                    derivatives=4, segment_duration=0.5, rate=100.0)
    found = reachability.solve(model, traj, hodyn_cli.joint_limits(model), 600)
    assert found is not None and len(found) == 2
    rise, names = 0.02, traj.joint_names
    motion = reachability.played(found, 5, names, 0.0, 0.01, rise, 0.0, FLAT)
    assert motion is not None
    played = list(motion)
    path = Trajectory(names, np.concatenate([c.derivatives for c in played]),
                      np.concatenate([c.t for c in played]))
    errors, taus = [], []
    for arc, warped, start in motion.laws:
        tau = warped.times(0, len(warped.sigma))
        ramp, stop = warped.warps
        assert ramp is not None and stop is not None
        end = float(tau[-1])
        for join in ramp.joins:
            for at in (join, end - join):
                assert np.abs(tau - at).min() <= 1e-12
        # (the law at 8 points an interval of the played ones: its exact q^(4) there)
        s = warped.sigma[:]
        fine = np.concatenate([(s[:-1, None] + np.diff(s)[:, None] * np.arange(8) / 8).ravel(),
                               s[-1:]])
        points = Stored(len(fine))
        points.write(0, fine)
        denser = reachability.Warped(points, reachability._times_along(warped.x, points),
                                     warped.x, warped.K, warped.warps, warped.end)
        at, rates = denser.along(denser.sigma[:], denser.t[:])
        exact = compose(arc.jet(fine, 5), rates[:, :4])[:, 4]
        errors.append(np.abs(between(path, start + at, 4) - exact))
        taus.append(np.minimum(at, end - at) / rise)  # (rises from the nearer rest)
    error, tau = np.concatenate(errors), np.concatenate(taus)
    scale = np.abs(np.concatenate([c.derivatives[:, 4] for c in played])).max(axis=0)
    inside = (tau >= 1.0) & (tau <= 1.5)
    assert (error[inside] / scale).max() < 1e-5
