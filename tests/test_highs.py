"""The linear programme whose rows come in rounds (hodyn_cli/algorithms/limits/highs.py):
re-solved from its basis after rows are added, it has the optimum of the programme solved
from scratch (scipy's HiGHS, an independent build), in fewer iterations; the iteration limit
hands over to the interior point, whose own iterations bound it; infeasible is None; HiGHS
prints nothing."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from hodyn_cli.algorithms.limits.highs import LP, Stalled


def programme(seed: int = 3, n: int = 30, m: int = 300):
    """A bounded programme like the windows': many rows, few columns, a box."""
    rng = np.random.default_rng(seed)
    A = sparse.random(m, n, density=0.3, random_state=seed, format="csr")
    A.data = rng.normal(size=A.nnz)
    lb = np.where(rng.uniform(size=m) < 0.5, -np.inf, -1.0 - rng.uniform(size=m))
    return rng.normal(size=n), A, lb, 1.0 + rng.uniform(size=m), np.full(n, -4.0), np.full(n, 4.0)


def cold(c, A, lb, ub, lower, upper) -> np.ndarray:
    res = milp(c, bounds=Bounds(lower, upper), constraints=LinearConstraint(A, lb, ub))
    assert res.status == 0
    return res.x


def test_rows_added_and_re_solved_from_the_basis_give_the_cold_optimum(capfd):
    c, A, lb, ub, lower, upper = programme()
    lp = LP(c, lower, upper)
    lp.add(A[:100], lb[:100], ub[:100])
    first = lp.solve()
    assert first is not None and lp.method == "simplex"
    assert c @ first == pytest.approx(c @ cold(c, A[:100], lb[:100], ub[:100], lower, upper),
                                      rel=1e-9)
    lp.add(A[100:], lb[100:], ub[100:])
    warm = lp.solve()
    iterations = lp.iterations
    assert warm is not None and lp.rows == 300
    assert c @ warm == pytest.approx(c @ cold(c, A, lb, ub, lower, upper), rel=1e-9)
    assert (A @ warm <= ub + 1e-7).all() and (A @ warm >= lb - 1e-7).all()
    scratch = LP(c, lower, upper)
    scratch.add(A, lb, ub)
    scratch.solve()
    assert 0 < iterations < scratch.iterations  # (the point of keeping the basis)
    assert capfd.readouterr() == ("", "")  # (HiGHS 1.16's banner, its log: none)


def test_out_of_its_share_from_the_basis_a_solve_starts_again_from_scratch(monkeypatch):
    from hodyn_cli.algorithms.limits import highs

    c, A, lb, ub, lower, upper = programme(seed=5)
    lp = LP(c, lower, upper)
    lp.add(A[:100], lb[:100], ub[:100])
    assert lp.solve(iterations=10_000) is not None
    lp.add(A[100:], lb[100:], ub[100:])
    monkeypatch.setattr(highs, "FROM_BASIS", 0.0)
    x = lp.solve(iterations=10_000)
    assert lp.method == "simplex" and x is not None and lp.iterations > 0
    assert c @ x == pytest.approx(c @ cold(c, A, lb, ub, lower, upper), rel=1e-9)


def test_a_basis_handed_on_starts_a_programme_with_moved_rows():
    """The next programme (the same columns, its rows' values and bounds moved a little,
    more rows) from the last one's basis: the cold optimum, in fewer iterations."""
    c, A, lb, ub, lower, upper = programme()
    lp = LP(c, lower, upper)
    lp.add(A[:200], lb[:200], ub[:200])
    assert lp.solve() is not None
    basis = lp.basis()
    assert basis is not None and len(basis.col_status) == len(c) and len(basis.row_status) == 200
    moved = A.copy()
    moved.data *= 1 + 0.01 * np.random.default_rng(5).normal(size=moved.nnz)
    nxt = LP(c * 1.01, 0.9 * lower, 0.9 * upper)
    nxt.add(moved, lb, ub)
    nxt.start(basis)
    x = nxt.solve()
    scratch = LP(c * 1.01, 0.9 * lower, 0.9 * upper)
    scratch.add(moved, lb, ub)
    assert x is not None and scratch.solve() is not None
    assert c @ x == pytest.approx(c @ cold(c, moved, lb, ub, 0.9 * lower, 0.9 * upper),
                                  rel=1e-9)
    assert nxt.iterations < scratch.iterations


def test_out_of_simplex_iterations_the_interior_point_solves_it():
    c, A, lb, ub, lower, upper = programme(seed=4)
    lp = LP(c, lower, upper)
    lp.add(A, lb, ub)
    x = lp.solve(iterations=0, ipm=200)
    assert lp.method == "ipm" and x is not None and 0 < lp.iterations <= 200
    assert c @ x == pytest.approx(c @ cold(c, A, lb, ub, lower, upper), rel=1e-7)
    # (no crossover, which HiGHS cannot bound by iterations: no basis, the simplex goes on
    # from scratch)
    assert lp.basis() is None
    lp.add(A[:1] * 0.5, lb[:1], ub[:1])
    again = lp.solve(iterations=1000)
    assert lp.method == "simplex" and again is not None


def test_out_of_iterations_too_it_stalls_whatever_the_time(monkeypatch):
    """The interior point's budget is its iterations: the same programme stalls at 2 and is
    solved at 200 however long either takes; the wall clock's BACKSTOP is a last resort."""
    from hodyn_cli.algorithms.limits import highs

    c, A, lb, ub, lower, upper = programme(seed=6)
    lp = LP(c, lower, upper)
    lp.add(A, lb, ub)
    with pytest.raises(Stalled):
        lp.solve(iterations=0, ipm=2)
    assert lp.iterations == 2
    assert lp.solve(iterations=0, ipm=200) is not None
    monkeypatch.setattr(highs, "BACKSTOP", 1e-9)
    lp = LP(c, lower, upper)
    lp.add(A, lb, ub)
    with pytest.raises(Stalled):
        lp.solve(iterations=0, ipm=200)


def test_an_infeasible_programme_is_none_cold_and_after_added_rows():
    lp = LP(np.ones(2), np.zeros(2), np.ones(2))
    lp.add(sparse.csr_matrix([[1.0, 1.0]]), np.array([0.5]), np.array([np.inf]))
    x = lp.solve()
    assert x is not None and x.sum() == pytest.approx(0.5)
    lp.add(sparse.csr_matrix([[1.0, 0.0], [0.0, 1.0]]), np.full(2, -np.inf), np.full(2, 0.2))
    assert lp.solve() is None
    empty = LP(np.ones(1), np.zeros(1), np.ones(1))
    empty.add(sparse.csr_matrix([[1.0]]), np.array([2.0]), np.array([np.inf]))
    assert empty.solve(iterations=100) is None


def test_its_options_are_set_on_one_thread_silent_devex():
    """The options LP sets hold in HiGHS (which answers a misspelt option with a status, not
    an error: LP raises on it)."""
    lp = LP(np.ones(2), np.zeros(2), np.ones(2))
    got = {name: lp._highs.getOptionValue(name)[1] for name in (
        "output_flag", "threads", "solver", "simplex_dual_edge_weight_strategy",
        "run_crossover")}
    assert got == {"output_flag": False, "threads": 1, "solver": "simplex",
                   "simplex_dual_edge_weight_strategy": 1, "run_crossover": "off"}


def test_once_the_simplex_ran_out_from_scratch_the_interior_point_re_solves():
    """After the simplex ran out from scratch and the interior point answered (no basis),
    the programme with rows added goes to the interior point at once, with the same budget
    (the simplex from scratch would run out again); with a larger one, the simplex again."""
    c, A, lb, ub, lower, upper = programme(seed=4)
    lp = LP(c, lower, upper)
    lp.add(A[:200], lb[:200], ub[:200])
    assert lp.solve(iterations=1, ipm=200) is not None and lp.method == "ipm"
    lp.add(A[200:], lb[200:], ub[200:])
    x = lp.solve(iterations=1, ipm=200)
    assert lp.method == "ipm" and lp.iterations > 0  # (the interior point's alone)
    assert c @ x == pytest.approx(c @ cold(c, A, lb, ub, lower, upper), rel=1e-7)
    assert lp.solve(iterations=10_000) is not None and lp.method == "simplex"


def test_rows_highs_refuses_are_an_error_not_dropped():
    """Rows HiGHS refuses (a column twice in a row, a column beyond the programme's) raise
    rather than leave the programme without them: addRows's status was not read, the row
    was dropped, the solve answered without it and :attr:`LP.rows` counted it."""
    for indices in ([0, 0], [0, 5]):
        lp = LP(np.array([-1.0, 0.0]), np.full(2, -10.0), np.full(2, 10.0))
        with pytest.raises(RuntimeError, match="HiGHS refused"):
            lp.add_rows(np.array([0, 2]), np.array(indices), np.array([1.0, 1.0]),
                        np.array([-np.inf]), np.array([1.0]))
    lp = LP(np.array([-1.0, 0.0]), np.full(2, -10.0), np.full(2, 10.0))
    lp.add_rows(np.array([0, 2]), np.array([0, 1]), np.array([1.0, 1.0]),
                np.array([-np.inf]), np.array([-5.0]))
    assert lp.rows == 1 and np.allclose(lp.solve(), [5.0, -10.0])
    # (a scipy matrix with a column twice in a row: :meth:`LP.add` sums them, as scipy does)
    twice = sparse.csr_matrix((np.array([0.5, 0.5, 1.0]), np.array([0, 0, 1]),
                               np.array([0, 3])), shape=(1, 2))
    lp = LP(np.array([-1.0, 0.0]), np.full(2, -10.0), np.full(2, 10.0))
    lp.add(twice, np.array([-np.inf]), np.array([-5.0]))
    assert twice.nnz == 3 and np.allclose(lp.solve(), [5.0, -10.0])


def test_a_row_with_an_entry_beyond_1e15_is_kept():
    """HiGHS refuses a row with an entry of 1e15 or more (its large_matrix_value) and, with
    it, the whole batch: the windows' smooth programme of a path with q7 columns had rows of
    entries 4e14-4e15 (bounds +-1), and its 1044 rows were dropped silently until the status
    was read (then an internal error). The option is infinite: the row holds."""
    lp = LP(np.array([-1.0, 0.0]), np.full(2, -10.0), np.full(2, 10.0))
    lp.add_rows(np.array([0, 2]), np.array([0, 1]), np.array([4e15, 4e15]),
                np.array([-np.inf]), np.array([-5 * 4e15]))
    assert lp.rows == 1 and np.allclose(lp.solve(), [5.0, -10.0])


def test_a_basis_handed_on_is_not_changed_and_starts_a_second_programme_as_the_first():
    """LP.start extends a copy of the basis by the new programme's rows: the basis handed on
    keeps its own rows and starts a second programme, with fewer rows than the first, from
    it (appended to in place, it had the first's 60 extra rows, more than the second's 50:
    HiGHS refused it and the second started from scratch, 97 iterations against 34)."""
    c, A, lb, ub, lower, upper = programme()
    lp = LP(c, lower, upper)
    lp.add(A[:200], lb[:200], ub[:200])
    assert lp.solve() is not None
    basis = lp.basis()
    iterations = []
    for rows in (260, 250):
        nxt = LP(c * 1.01, 0.9 * lower, 0.9 * upper)
        nxt.add(A[:rows], lb[:rows], ub[:rows])
        nxt.start(basis)
        assert len(basis.row_status) == 200
        x = nxt.solve()
        assert x is not None
        iterations.append(nxt.iterations)
    assert c @ x == pytest.approx(c @ cold(c, A[:250], lb[:250], ub[:250], 0.9 * lower,
                                           0.9 * upper), rel=1e-9)
    scratch = LP(c * 1.01, 0.9 * lower, 0.9 * upper)
    scratch.add(A[:250], lb[:250], ub[:250])
    assert scratch.solve() is not None and iterations[1] < scratch.iterations


def test_rows_whose_slack_is_basic_dropped_leave_the_optimum_and_its_basis():
    """LP.slack reads each row's basic status and its distance from the nearer bound (A x
    against lb, ub); LP.drop deletes rows whose slack is basic: the solution is optimal for
    the rest at once (0 iterations, the same x), and rows added after them are re-solved
    from that basis to the cold optimum of the rows held."""
    c, A, lb, ub, lower, upper = programme()
    lp = LP(c, lower, upper)
    lp.add(A[:200], lb[:200], ub[:200])
    x = lp.solve()
    assert x is not None
    basic, slack = lp.slack()
    value = A[:200] @ x
    assert np.allclose(slack, np.minimum(ub[:200] - value, value - lb[:200]), atol=1e-9)
    assert basic.sum() > 100 and (slack[~basic] < 1e-7).all()  # (the active rows at a bound)
    gone = basic & (slack > 0.1)
    assert gone.sum() > 50
    lp.drop(gone)
    assert lp.rows == 200 - gone.sum()
    again = lp.solve()
    assert lp.iterations == 0 and np.allclose(again, x, rtol=0, atol=1e-12)
    kept = np.flatnonzero(~gone)
    assert np.allclose(lp.slack()[1], slack[kept], atol=1e-12)
    held = sparse.vstack([A[kept], A[200:]]).tocsr()
    lb_held, ub_held = np.concatenate([lb[kept], lb[200:]]), np.concatenate([ub[kept], ub[200:]])
    lp.add(A[200:], lb[200:], ub[200:])
    warm = lp.solve()
    assert warm is not None and lp.rows == held.shape[0]
    assert c @ warm == pytest.approx(c @ cold(c, held, lb_held, ub_held, lower, upper),
                                     rel=1e-9)
    assert lp.slack()[1].min() > -1e-7  # (every row held within its bounds)


def test_a_basis_without_rows_whose_slack_is_basic_starts_the_rest_at_its_optimum():
    """highs.without drops from a basis the rows where the mask is False, each one basic
    (highs.basic): the programme of the rows kept starts from it at the same optimum (no
    iteration), the basis handed in unchanged."""
    from hodyn_cli.algorithms.limits.highs import basic, without

    c, A, lb, ub, lower, upper = programme()
    lp = LP(c, lower, upper)
    lp.add(A, lb, ub)
    x = lp.solve()
    basis = lp.basis()
    assert x is not None and basis is not None
    slack = basic(basis)
    assert np.array_equal(slack, lp.slack()[0]) and 0 < (~slack).sum() < slack.sum()
    keep = ~slack | (np.arange(len(lb)) % 3 == 0)  # (the binding rows and a third of the rest)
    kept = LP(c, lower, upper)
    kept.add(A[keep], lb[keep], ub[keep])
    kept.start(without(basis, keep))
    assert len(basis.row_status) == len(lb)
    again = kept.solve()
    assert kept.iterations == 0 and np.allclose(again, x, rtol=0, atol=1e-12)
