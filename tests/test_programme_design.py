"""The windows' design matrices and column bounds without ``scipy.interpolate``,
``scipy.optimize`` and ``scipy.sparse`` (programme._basis_matrix, programme._Box,
banded.Rows): the same arrays as scipy's, and none of these modules imported by a
programme."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import programme


def _knots(s: np.ndarray, degree: int) -> np.ndarray:
    """A window's knots as :class:`programme.TimeLaw` makes them: a break every KNOTS-th
    grid point and the last, clamped."""
    return programme.TimeLaw(np.append(s[:-1:programme.KNOTS], s[-1]),
                             np.ones(len(s[:-1:programme.KNOTS]) + degree), degree).knots


@pytest.mark.parametrize("degree", [5, 6, 8])
def test_the_basis_matrix_is_scipys_design_matrix_to_the_bit(degree):
    """Every stored entry, column and row start equal to scipy's (as the programmes read
    them: the laws the same bits), on an even grid, an uneven one (a grid filled between a
    point-to-point path's samples: points on the knots and between them) and a window that
    starts inside the path; and the derivatives' matrices built on it."""
    from scipy.interpolate import BSpline

    rng = np.random.default_rng(7)
    grids = [np.linspace(0.0, 2.5, 1001), np.cumsum(rng.uniform(0.1, 1.0, 317)) * 1e-3,
             np.linspace(-3.0, 40.0, 2000)[500:]]
    for s in grids:
        knots = _knots(s, degree)
        ours, theirs = programme._basis_matrix(knots, degree, s), BSpline.design_matrix(
            s, knots, degree)
        assert ours.shape == theirs.shape
        indptr, indices, data = ours.sorted()
        for a, b in ((data, theirs.data), (indices, theirs.indices), (indptr, theirs.indptr)):
            assert np.array_equal(a, b)
        c = rng.uniform(0.5, 2.0, ours.shape[1])
        for nu in (1, 3):  # (x' and x''' at the grid points: the spline's own derivatives)
            D = programme._design(knots, degree, s, nu)
            assert np.allclose(D @ c, BSpline(knots, c, degree)(s, nu), rtol=1e-9,
                               atol=1e-9 * np.abs(D @ c).max())


def test_a_programme_imports_no_scipy_interpolate_optimize_or_sparse():
    """A window's design matrices and a smooth programme's solve in a fresh process: scipy's
    interpolate and optimize not imported (~0.44 s of CPU of each run of the windows: the
    old code imported both, and this fails there), nor scipy.sparse (0.17-0.26 s: it
    imports numpy.testing and numpy.f2py; windows17's base imported it, and this fails
    there)."""
    code = """
import sys
from collections import namedtuple
import numpy as np
from hodyn_cli.algorithms.limits import programme
s = np.linspace(0.0, 1.0, 41)
law = programme.TimeLaw(np.append(s[:-1:4], s[-1]), np.ones(len(s[:-1:4]) + 5), 5)
D = programme._design(law.knots, 5, s, 1)
n = D.shape[1]
Box = namedtuple("Box", "lb ub")  # (the columns' bounds as the programmes read them)
x, _ = programme._smooth_programme(-np.ones(n), Box(np.full(n, 0.5), np.full(n, 2.0)),
                                   D, np.full(len(s), -1.0), np.full(len(s), 1.0),
                                   np.ones(n), 0.1)
assert x is not None and np.all(x <= 2.0 + 1e-9)
print(sorted(m for m in ("scipy.interpolate", "scipy.optimize", "scipy.sparse")
             if m in sys.modules))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
