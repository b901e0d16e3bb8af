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
