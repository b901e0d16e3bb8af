"""reachability.beneath and reachability.least: the smooth field at most a bound that
reachability's lowered law (its factor) and rates' lift (its step) are both made with, and
the sliding least it starts from, against a brute-force sliding minimum."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from hodyn_cli.algorithms.limits import reachability


def _bounds(n: int = 400, seed: int = 0) -> np.ndarray:
    """A bound of the lift's kind: mostly room (1 .. 3), with a few narrow deep dips, the
    deepest (0.2) at n / 2."""
    rng = np.random.default_rng(seed)
    v = 1 + 2 * rng.random(n)
    v[[n // 8, n // 4, 5 * n // 8, 7 * n // 8]] = rng.uniform(0.3, 0.9, 4)
    v[n // 2] = 0.2
    return v


@pytest.mark.parametrize("r", [1, 3, 16, 40])
def test_least_is_the_sliding_minimum_over_r_points_either_side(r):
    v = _bounds()
    padded = np.concatenate([np.full(r, np.inf), v, np.full(r, np.inf)])
    expected = sliding_window_view(padded, 2 * r + 1).min(axis=1)
    assert np.array_equal(reachability.least(v, r), expected)


@pytest.mark.parametrize("width", [1, 2, 5])
def test_beneath_is_a_smooth_field_at_most_its_bound(width):
    v = _bounds(seed=width)
    field = reachability.beneath(v, width)
    assert np.all(field <= v * (1 + 1e-12))  # (at most v at every point)
    low = len(v) // 2  # (v's least, farther than PASSES width from the ends)
    assert field[low] == pytest.approx(v[low], rel=1e-12)
    # smooth: its second differences far below v's (a dip's edge is a jump of ~1 in v)
    assert np.abs(np.diff(field, 2)).max() < 0.2 * np.abs(np.diff(v, 2)).max()
    flat = np.full(200, 1.7)
    assert reachability.beneath(flat, width) == pytest.approx(flat, rel=1e-12)
