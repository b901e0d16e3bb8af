"""The windows' kink rows (``programme.KinkCeiling.points``): a row only where some law
within the cap meets the ceiling, not at the interpolants' own tiny jumps of a smooth path."""

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import programme
from hodyn_cli.core.trajectory import Trajectory, cosine

NAMES = tuple(f"j{i}" for i in range(7))


def _grid(path: Trajectory, rate: float) -> tuple[programme.KinkCeiling, float, Trajectory]:
    """The path's ceiling on its grid (x0: 0.2, about the iiwa's uniform scaling with
    torque rates of 60 N m/s on the cosine), the cap's x and the grid."""
    grid = programme.PathGrid()
    grid.add(path)
    on, kinks = grid.grid()
    x0 = 0.2
    return programme.KinkCeiling.of(on, kinks, grid.peak, x0, rate), x0 * programme.CAP**2, on


def _cosine(samples: int = 1001) -> Trajectory:
    """The iiwa's cosine of the tests (7 joints, q .. q^(6)), exact at every sample at
    100 Hz."""
    t = np.arange(samples) / 100.0
    return cosine(NAMES, t, amplitude=np.array([0.8, 0.6, 0.7, 0.9, 1.0, 0.8, 1.2]),
                  omega=np.array([1.1, 1.7, 1.3, 2.0, 1.5, 2.3, 1.9]),
                  phase=np.linspace(0.2, 2.0, 7), offset=np.zeros(7), orders=6)


def test_a_smooth_paths_interpolation_jumps_mostly_get_no_rows():
    """The cosine is smooth: its interpolants' jumps at the samples (their error, O(h^7) of
    q^[7]) are nonzero at every grid point but the last, where each had a row; where their
    ceiling even at its lowest is at the cap or above (about 3 points in 4), none now, and
    at those points no law's ceiling is below the cap."""
    ceiling, cap, on = _grid(_cosine(), 100.0)
    assert (programme._either_side(ceiling.kinks) > 0).any(axis=1).sum() >= 1000
    rows = ceiling.points(cap)
    assert 0 < rows.size < 0.35 * on.n_samples
    others = np.setdiff1d(np.arange(on.n_samples), rows)
    rng = np.random.default_rng(5)
    for x in [*rng.uniform(1e-8 * ceiling.x0, cap, (10, on.n_samples))]:
        assert ceiling.at(x)[others].min() >= cap


def test_the_rows_left_out_are_where_no_law_meets_the_ceiling():
    """A path with a real kink (q''' of joint 0 jumps by 7 at s = 1/2, on the cosine): its
    two grid points keep their rows; at every other point the ceiling of any law within the
    cap (here random ones, and x at the cap everywhere) is at the cap or above, so the rows
    left out bounded nothing."""
    s = np.arange(1001) / 100.0
    r = np.maximum(s - 2.5, 0.0)
    base = _cosine().derivatives[:, :3].copy()
    base[:, :, 0] += 7.0 * np.stack([r**3 / 6, r**2 / 2, r], axis=1)  # (D = 3: q, q', q'')
    ceiling, cap, on = _grid(Trajectory(NAMES, base, s), 100.0)
    rows = ceiling.points(cap)
    kink = np.searchsorted(on.t, 2.5, side="right") - 1
    assert set(rows.tolist()) == {kink, kink + 1}
    others = np.setdiff1d(np.arange(on.n_samples), rows)
    rng = np.random.default_rng(3)
    x0 = ceiling.x0
    for x in [*rng.uniform(1e-8 * x0, cap, (10, on.n_samples)), np.full(on.n_samples, cap)]:
        assert ceiling.at(x)[others].min() >= cap
    # (and at the kink the ceiling binds: below the cap for the uniform law)
    assert ceiling.at(np.full(on.n_samples, x0))[rows].max() < cap


def test_the_law_is_the_one_with_a_row_at_every_kink(monkeypatch):
    """The rows left out bound nothing: the programmes' law (no limits but the cap and the
    ceiling, on the cosine with its real kink) is the one they gave with a row at every grid
    point next to a jump (as before), here to 1e-9."""
    from scipy import sparse

    s = np.arange(151) / 100.0
    r = np.maximum(s - 0.75, 0.0)
    base = _cosine(151).derivatives[:, :3].copy()
    base[:, :, 0] += 7.0 * np.stack([r**3 / 6, r**2 / 2, r], axis=1)
    ceiling, cap, on = _grid(Trajectory(NAMES, base, s), 100.0)
    monkeypatch.setattr(programme, "_programme", lambda limits, X, D: (
        sparse.csr_matrix((0, D[0].shape[1])), np.zeros(0), np.zeros(0)))
    law = programme.solve(on.t, [], ceiling.x0, 5, 100.0, ceiling=ceiling)
    every = np.flatnonzero((programme._either_side(ceiling.kinks) > 0).any(axis=1))
    assert every.size > 2 * ceiling.points(cap).size
    monkeypatch.setattr(programme.KinkCeiling, "points", lambda self, cap: every)
    before = programme.solve(on.t, [], ceiling.x0, 5, 100.0, ceiling=ceiling)
    assert law.duration == pytest.approx(before.duration, rel=1e-9)
    kink = np.searchsorted(on.t, 0.75, side="right") - 1
    assert law.spline(on.t[kink : kink + 2]).max() < 0.5 * cap  # (where the ceiling holds x)
    assert np.abs(law.coefficients - before.coefficients).max() <= 1e-9 * cap
