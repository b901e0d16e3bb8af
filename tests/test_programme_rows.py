"""The rows of the windows' linear programmes (hodyn_cli/algorithms/limits/programme.py,
``_linear_programme``): a programme hands on to the next the rows that bind at its optimum
and starts with those and the rows near their bounds, from its basis less the others, to
the optimum of all its rows (scipy's HiGHS, an independent build); rows broken in a chain
take as many rounds as the chain is long, up to ROUNDS."""

from __future__ import annotations

import highspy
import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from hodyn_cli.algorithms.limits import highs, programme


def _programme(seed: int, m: int = 600, n: int = 40):
    """(objective, bounds, A, lb, ub): many rows ``A c <= ub`` about a box, few columns,
    none near its bound at c = 0 (each comes in a round)."""
    rng = np.random.default_rng(seed)
    A = sparse.csr_matrix(rng.normal(size=(m, n)))
    return (rng.normal(size=n), programme._Box(np.full(n, -5.0), np.full(n, 5.0)), A,
            np.full(m, -np.inf), 1.0 + rng.uniform(size=m))


def _optimum(objective, bounds, A, lb, ub) -> float:
    res = milp(objective, bounds=Bounds(bounds.lb, bounds.ub),
               constraints=LinearConstraint(A, lb, ub))
    assert res.status == 0
    return float(objective @ res.x)


def _first_rows(monkeypatch) -> list[int]:
    """The rows each LP from now on is given first (its programme's start)."""
    seen: list[int] = []
    add_rows = highs.LP.add_rows

    def spied(lp, indptr, *args):
        if not lp.rows:
            seen.append(len(indptr) - 1)
        return add_rows(lp, indptr, *args)

    monkeypatch.setattr(highs.LP, "add_rows", spied)
    return seen


def test_a_programme_hands_on_the_rows_that_bind_at_its_optimum_not_those_slack_since(
        monkeypatch):
    """The first programme adds, round by round, every row its solutions break: most are
    slack at its optimum. The next (its objective and box moved, as the trust region's next
    step moves them) starts with the rows that bind there and those near their bounds, not
    every row the first added (the old hand-on: 12 000 rows held on the iiwa's
    point-to-point path where 2 400-4 800 sufficed), and has the optimum of all its rows."""
    objective, bounds, A, lb, ub = _programme(11)
    first = _first_rows(monkeypatch)
    x, active = programme._linear_programme(objective, bounds, A, lb, ub, np.zeros(len(lb)))
    assert x is not None and objective @ x == pytest.approx(
        _optimum(objective, bounds, A, lb, ub), rel=1e-9)
    held = int(active.rows.sum())
    binding = sum(s != highspy.HighsBasisStatus.kBasic for s in active.basis.row_status)
    assert held > 3 * binding  # (most rows the rounds added are slack at the optimum)
    moved = objective + 0.05 * np.random.default_rng(2).normal(size=len(objective))
    box = programme._Box(np.maximum(bounds.lb, x - 1.0), np.minimum(bounds.ub, x + 1.0))
    now = A @ x
    near = int(((now - lb < programme.ROWS) | (ub - now < programme.ROWS)).sum())
    first.clear()
    y, after = programme._linear_programme(moved, box, A, lb, ub, now, active)
    assert first[0] <= binding + near < held
    assert y is not None and moved @ y == pytest.approx(_optimum(moved, box, A, lb, ub),
                                                        rel=1e-9)
    assert (A @ y <= ub + 1e-7).all()
    assert after.basis is not None and len(after.order) == int(after.rows.sum())


def test_rows_broken_in_a_chain_longer_than_eight_rounds_are_solved_not_given_up():
    """``c_0 <= 1`` and ``c_i - c_(i-1) <= 1/2``, maximising every c in a box to 100: each
    solution breaks the next row of the chain alone, 12 rounds after the first solve. At
    ROUNDS = 8 the programme was given up (no step: the trust region a quarter, one
    programme solved for nothing, as the first of the iiwa's point-to-point path with its
    limits file was); at 16 its optimum, ``c_i = 1 + i/2``."""
    n = 13
    A = sparse.csr_matrix(np.eye(n) - np.eye(n, k=-1))
    lb, ub = np.full(n, -np.inf), np.append(1.0, np.full(n - 1, 0.5))
    x, active = programme._linear_programme(
        -np.ones(n), programme._Box(np.zeros(n), np.full(n, 100.0)), A, lb, ub, np.zeros(n))
    assert x is not None and np.allclose(x, 1 + 0.5 * np.arange(n), rtol=0, atol=1e-9)
    assert list(active.order) == list(range(n))  # (a row a round, in the chain's order)
