"""The interpolation's collocation matrix kept across solves on one grid
(hodyn_cli/algorithms/limits/bsplines.py, _collocation): the played law's spline is solved
on the arc grid again and again, each time for new values."""

import numpy as np

from hodyn_cli.algorithms.backends.numpy import reach
from hodyn_cli.algorithms.limits import bsplines


def test_a_second_solve_on_the_same_grid_reuses_its_matrix_to_the_bit(monkeypatch):
    """Solved again on the same points and end conditions' orders (new values, new end
    values), the spline is the one made afresh, to the bit, without the basis being made
    again (the solve overwrites its band: the kept one is copied); other points, or other
    orders at an end, make their own."""
    rng = np.random.default_rng(3)
    x = np.cumsum(rng.uniform(0.5, 1.5, 400))
    ys = [np.sin(x / 7) + rng.normal(0, 1e-3, len(x)) for _ in range(3)]
    ends = ([(1, 0.3), (2, -0.1)], [(1, -0.2), (2, 0.05)])
    made = []
    basis = reach.basis

    def counted(t, k, at):
        made.append(len(at))
        return basis(t, k, at)

    def collocations() -> list[int]:
        # (the basis at every point: a collocation matrix; the numpy backend also evaluates
        # it at single points for the end conditions, which no kept matrix replaces)
        return [n for n in made if n == len(x)]

    def afresh(y, e):
        bsplines._COLLOCATED.clear()
        return bsplines.interpolating(x, y, 5, e)

    expected = [afresh(y, ends).c for y in ys] + [afresh(ys[0], None).c]
    bsplines._COLLOCATED.clear()
    monkeypatch.setattr(reach, "basis", counted)
    for y, c in zip(ys, expected, strict=False):
        assert np.array_equal(bsplines.interpolating(x, y, 5, ends).c, c)
    assert collocations() == [len(x)]  # (once for the three solves)
    other = (ends[0][:1] + [(3, 0.0)], ends[1])  # (another order at the start: its own)
    bsplines.interpolating(x, ys[0], 5, other)
    assert np.array_equal(bsplines.interpolating(x, ys[0], 5, None).c, expected[3])
    assert collocations() == [len(x)] * 3
    assert len(bsplines._COLLOCATED) <= bsplines.COLLOCATIONS


def test_a_long_grid_solved_in_blocks_again_reuses_every_block_s_matrix(monkeypatch):
    """A grid solved a block at a time (in_blocks: 9 blocks here, more than the 4 matrices
    kept before long7, which then made each again at every solve) and solved again on the
    same grid makes no basis again, each block's kept (on disk from LARGE bytes on, here
    all), and gives the spline made afresh to the bit."""
    from hodyn_cli.algorithms.limits import reachability
    from hodyn_cli.algorithms.limits.stored import Stored

    monkeypatch.setattr(bsplines, "SOLVE_BLOCK", 256)
    monkeypatch.setattr(bsplines, "OVERLAP", 32)
    monkeypatch.setattr(bsplines, "LARGE", 0)
    rng = np.random.default_rng(5)
    sigma = np.cumsum(rng.uniform(0.5, 1.5, 2300))
    ys = [1.5 + np.sin(sigma / (9 + j)) for j in range(3)]

    def afresh(y):
        bsplines._COLLOCATED.clear()
        return reachability.law_spline(sigma, y).c

    expected = [afresh(y) for y in ys]
    bsplines._COLLOCATED.clear()
    made = []
    basis = reach.basis

    def counted(t, k, at):
        made.append(len(at))
        return basis(t, k, at)

    monkeypatch.setattr(reach, "basis", counted)
    for y, c in zip(ys, expected, strict=True):
        assert np.array_equal(reachability.law_spline(sigma, y).c, c)
    blocks = [n for n in made if n > 1]
    assert len(blocks) == 9 == len(bsplines._COLLOCATED)  # (each block once, 3 solves)
    assert all(isinstance(v, Stored) and v.on_disk for v in bsplines._COLLOCATED.values())
    bsplines._COLLOCATED.clear()
