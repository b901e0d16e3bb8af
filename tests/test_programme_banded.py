"""The windows' sparse matrices in numpy (hodyn_cli/algorithms/limits/banded.py) against
scipy.sparse's, which the programmes were built with: every product with a vector the same
bits (scipy sums a row in the order it stores it, which each product and sum sets), on the
matrices a programme builds: B-spline design matrices and their derivatives, limit rows
summed from them, scaled, stacked and restricted to a window's columns."""

from __future__ import annotations

from functools import reduce

import numpy as np
import pytest
from scipy import sparse
from scipy.interpolate import BSpline

from hodyn_cli.algorithms.limits import banded, programme


def _knots(s: np.ndarray, degree: int) -> np.ndarray:
    return programme.TimeLaw(np.append(s[:-1:programme.KNOTS], s[-1]),
                             np.ones(len(s[:-1:programme.KNOTS]) + degree), degree).knots


def _scipys(knots: np.ndarray, degree: int, s: np.ndarray, nu: int) -> sparse.csr_matrix:
    """The design matrix as programme._design built it with scipy.sparse (before
    windows17)."""
    if nu == 0:
        return BSpline.design_matrix(s, knots, degree)
    n = len(knots) - degree - 1
    span = knots[degree + 1 : degree + n] - knots[1:n]
    diff = sparse.diags([-degree / span, degree / span], [0, 1], shape=(n - 1, n))
    return (_scipys(knots[1:-1], degree - 1, s, nu - 1) @ diff).tocsr()


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def _grids() -> list[np.ndarray]:
    """An even grid, an uneven one (points on the knots and between: stored zeros) and a
    window that starts inside the path."""
    rng = np.random.default_rng(7)
    return [np.linspace(0.0, 2.5, 401), np.cumsum(rng.uniform(0.1, 1.0, 317)) * 1e-3,
            np.linspace(-3.0, 40.0, 800)[200:]]


@pytest.mark.parametrize("degree", [5, 8])
def test_the_design_matrices_products_are_scipys_to_the_bit(degree):
    """``D @ c`` (x .. x^(degree) at the grid points) and ``D.T @ w`` (T's tangent) equal
    scipy's bit for bit for every derivative (its rows stored in mixed orders), and the
    canonical arrays handed to HiGHS are scipy's."""
    rng = np.random.default_rng(degree)
    for s in _grids():
        knots = _knots(s, degree)
        for nu in range(degree + 1):
            ours, theirs = programme._design(knots, degree, s, nu), _scipys(knots, degree, s,
                                                                           nu)
            assert ours.shape == theirs.shape
            c = rng.uniform(0.5, 2.0, ours.shape[1]) * rng.choice([-1.0, 1.0], ours.shape[1])
            w = rng.uniform(0.1, 3.0, len(s))
            assert _same(ours @ c, theirs @ c)
            assert _same(ours.tdot(w), theirs.T @ w)
            canonical = theirs.copy()
            canonical.sum_duplicates()
            indptr, indices, data = ours.sorted()
            for a, b in ((indptr, canonical.indptr), (indices, canonical.indices),
                         (data, canonical.data)):
                assert np.array_equal(a, b)


def test_a_programmes_rows_sum_as_scipys_did():
    """The limit rows of programme._programme (per-row gradients times the design matrices,
    summed; a rate limit's tangent: plus and minus its slope; scaled by the half-widths),
    stacked with the smoothness rows, restricted to a window's columns and taken at some
    rows: every product with a vector the same bits as scipy's (gradients with zeros: rows
    and entries dropped, so some rows are stored in a different order)."""
    rng = np.random.default_rng(3)
    degree, s = 6, np.cumsum(rng.uniform(0.2, 1.0, 300)) * 1e-2
    knots = _knots(s, degree)
    ours = [programme._design(knots, degree, s, nu) for nu in range(4)]
    theirs = [_scipys(knots, degree, s, nu) for nu in range(4)]
    at = np.repeat(np.arange(len(s)), 3)  # (three joints a grid point)
    G = rng.normal(size=(len(at), 4)) * (rng.uniform(size=(len(at), 4)) > 0.2)
    G[:, 3] = 0.0  # (a derivative no limit reads: left out of the sum)
    slope = rng.uniform(0.5, 2.0, len(at))
    half = rng.uniform(0.5, 2.0, len(at))
    a = reduce(banded.Rows.plus, [ours[d][at].scaled(G[:, d]) for d in range(4)
                                  if np.any(G[:, d])])
    b = sum(sparse.diags(G[:, d]) @ theirs[d][at] for d in range(4) if np.any(G[:, d]))
    up, down = ours[0][at].scaled(slope), sparse.diags(slope) @ theirs[0][at]
    bends = [ours[k].scaled(1 / (2 * s ** k)) for k in (2, 3)]
    mine = banded.stacked([a.plus(up).scaled(1 / half), a.plus(up, -1.0).scaled(1 / half),
                           a.scaled(1 / half)] + bends)
    scipys = sparse.vstack([sparse.diags(1 / half) @ (b + down),
                            sparse.diags(1 / half) @ (b - down), sparse.diags(1 / half) @ b]
                           + [sparse.diags(1 / (2 * s ** k)) @ theirs[k] for k in (2, 3)]
                           ).tocsr()
    c = rng.uniform(-2.0, 2.0, mine.shape[1])
    assert _same(mine @ c, scipys @ c)
    free = np.arange(5, mine.shape[1] - 4)
    rows = rng.permutation(mine.shape[0])[:500]
    window, theirs_window = mine.columns_of(free)[rows], scipys[:, free][rows]
    assert _same(window @ c[free], theirs_window @ c[free])
    canonical = theirs_window.copy()
    canonical.sum_duplicates()
    for x, y in zip(window.sorted(), (canonical.indptr, canonical.indices, canonical.data),
                    strict=True):
        assert np.array_equal(x, y)
    # (scipy's abs(...) sorts the matrix itself in place, as programme.solve's smooth rows
    # were before their scaling: canonicalised)
    assert _same(abs(mine).max(axis=1), abs(scipys).max(axis=1).toarray().ravel())
    assert abs(mine).max() == abs(scipys).max() and mine.nnz == scipys.nnz
    assert _same(mine.canonicalised() @ c, scipys @ c)


def test_third_differences_are_scipys_to_the_bit():
    c = np.random.default_rng(5).normal(size=50) * 1e3
    diff = sparse.diags([-1.0, 3.0, -3.0, 1.0], [0, 1, 2, 3], shape=(47, 50))
    assert _same(banded.third_differences(c), diff @ c)


def test_a_padded_row_reads_no_column_it_does_not_hold():
    """Rows stacked from blocks of 2 and 3 entries pad the narrower with empty slots (column
    0): a nan or inf at column 0 reaches only the rows that hold it, as scipy's; and a stack
    of blocks of no rows is (0, n), as scipy's vstack."""
    a = banded.band(np.array([2]), np.array([[1.0, 2.0]]), 5)
    b = banded.band(np.array([0]), np.array([[1.0, 1.0, 1.0]]), 5)
    x = np.array([np.nan, 0.0, 0.0, 1.0, 1.0])
    ours = banded.stacked([a, b]) @ x
    theirs = sparse.vstack([sparse.csr_array((r.values.ravel(), r.columns.ravel(), [0, r.values.size]),
                                             shape=(1, 5)) for r in (a, b)]).tocsr() @ x
    assert _same(ours, theirs) and ours[0] == 2.0 and np.isnan(ours[1])
    empty = banded.band(np.zeros(0, int), np.zeros((0, 3)), 5)
    assert banded.stacked([empty, empty]).shape == (0, 5)
    assert (banded.stacked([empty]) @ x).shape == (0,)
