"""The ramps' steps out of a rest under limits of higher orders (ramps.FLATS, rates.shape,
issue 37): each flat step is what its STEEPEST says (its slope and curvature, the rise a jerk
and a torque acceleration ask), continuous to r_0''' with r_0 at rest at both ends; the step
rates.shape takes rides the binding limit within a few tenths of the fastest ramp those
limits allow (derived: u stepped in at the jerk limit, r_0' = 1, or at a torque
acceleration's, r_0'' = +-4, or both, the S-curve of one order up)."""
import numpy as np
import pytest
from test_retime_rest_ramps import _iiwa_p2p_passes, _passes

import hodyn_cli
from hodyn_cli.algorithms.limits import ramps, rates
from hodyn_cli.algorithms.limits.ramps import FLATS, STEEPEST


@pytest.mark.parametrize("flat", FLATS)
def test_each_flat_step_is_at_rest_at_its_ends_and_as_steep_as_its_table_says(flat):
    """r_0 (in its pieces) from 0 to 1 with r_0', r_0'', r_0''' vanishing at both ends and
    continuous at its joins (r_0^(4) jumps there), its largest slope and curvature sampled
    those STEEPEST gives exactly (``1 / (1 - a)`` and ``K / (a (1 - a))``)."""
    pieces = ramps._flat_step(flat)
    ends = [lo for lo, _ in pieces[1:]] + [1.0]
    first, (lo, last) = pieces[0][1], pieces[-1]
    assert [float(first.deriv(k)(0.0)) for k in range(4)] == [0.0] * 4
    assert np.allclose([last.deriv(k)(1.0 - lo) for k in range(4)], [1, 0, 0, 0], atol=1e-9)
    for (a, left), (b, right) in zip(pieces, pieces[1:], strict=False):
        assert np.allclose([left.deriv(k)(b - a) for k in range(4)],
                           [right.deriv(k)(0.0) for k in range(4)], atol=1e-9)
    sampled = ramps._steepest(pieces)
    assert sampled == pytest.approx(STEEPEST[flat], rel=1e-9)
    assert all(hi > lo for (lo, _), hi in zip(pieces, ends, strict=True))


def _fastest(needs: dict[int, float]) -> float:
    """The shortest rise that steps u in within the limits whose rates._needs are ``needs``
    (derived, not a step of ours): r_0'' at +-C over a share a at each end, r_0' = 1 / (1 -
    a) between (a = 1/2: a triangle), C = 1 / (a (1 - a)): a rise of ``need_1 / (1 - a)``
    for the jerk, ``sqrt(need_2 / (a (1 - a)))`` for the torque acceleration, the least of
    their larger over a."""
    a = np.linspace(1e-4, 0.5, 50_001)
    jerk = needs.get(1, 0.0) / (1 - a)
    snap = np.sqrt(needs.get(2, 0.0) / (a * (1 - a)))
    return float(np.maximum(jerk, snap).min())


def test_a_jerk_bound_ramp_rides_the_jerk_within_20_percent_of_the_fastest():
    """The UR5's corner with --jerk 500 (tests/test_rates' _ur5_corners): jerk alone binds its
    ramps; rates.shape takes the flattest-topped step, 1/6, whose rise is 1.2 times the
    fastest one (u stepped in at the jerk limit itself); the 1/3 step kept before was 1.5
    times, the single step 2.19 times."""
    from test_rates import _ur5_corners

    model, traj, limits = _ur5_corners()
    pieces, at = _passes(model, traj, limits, 1500)
    needs = rates._needs(pieces, at)
    assert set(needs) == {1}
    flat = rates.shape(pieces, at)
    assert flat == min(FLATS)
    fastest = _fastest(needs)
    assert fastest == pytest.approx(needs[1], rel=1e-3)  # (a -> 0: r_0' = 1)
    assert rates.rise(pieces, at, 0.0, flat) <= 1.2 * needs[1] * (1 + 1e-12)


def test_a_torque_acceleration_bound_ramp_is_within_20_percent_of_the_fastest():
    """The iiwa's point-to-point motion with its limits file: torque accelerations limited
    at its rests, whose ramps its legs cut short: rates.shape takes the step flat over none
    of its rise, turned by the flatter curve (its curvature 5.63, the single step's, kept
    before, 7.51). Played, its ramps' needs are those of bench_optimal_rates' iiwa-p2p at
    its worst rest (u = 29-33 after rates.cornered's ceilings: order 1 0.032, order 2
    0.0016), where the torque acceleration binds: that step's rise is within 1.19 times the
    fastest S-curve's (the torque acceleration at its bound up, then down), the single
    step's 1.37 times."""
    pieces, at = _iiwa_p2p_passes()
    needs = rates._needs(pieces, at)
    assert set(needs) == {1, 2} and rates.cornered(pieces, at, 0.5)[1] > 1
    assert rates.shape(pieces, at) == 0.5
    played = {1: 0.0321, 2: 0.0016}
    fastest = _fastest(played)
    assert fastest == pytest.approx(2 * np.sqrt(played[2]), rel=1e-6)  # (a = 1/2)
    assert min(FLATS, key=lambda flat: rates._risen(played, 0.0, flat)) == 0.5
    assert rates._risen(played, 0.0, 0.5) <= 1.2 * fastest
    assert rates._risen(played, 0.0, 0.0) >= 1.3 * fastest


@pytest.mark.parametrize("rate", [20.0, pytest.param(10_000.0, marks=pytest.mark.slow)])
def test_the_ur5s_corners_with_a_jerk_limit_keep_it_and_pass_validate(rate):
    """The UR5's motion through a corner, from rest to rest (tests/test_rates' _ur5_corners'
    waypoints, legs of 0.5 s) with --jerk 500, by reachability, at 20 Hz (its ramps the 1/6
    flat step's: 1.4707 s, 1.5195 s with the 1/3 one; with 1/8 it failed validate at every
    smoothing) and 10 kHz (the single
    step's, optimal._rated's finer than 1 kHz): at rest in q' and q'' at both ends, within
    its limits at every sample, passing validate."""
    from test_rates import _ur5_corners

    model, traj, limits = _ur5_corners(rate)
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
    assert opt.used == "reachability"
    D = out.derivatives
    assert np.abs(D[[0, -1], 1:3]).max() <= 1e-9 * np.abs(D[:, 1:3]).max()
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    assert hodyn_cli.validate_motion(model, out, samples=30).passed
