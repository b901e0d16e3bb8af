"""A linear programme whose rows come in rounds, solved by HiGHS (highspy) keeping its basis.

``min objective . c`` with ``lb <= A c <= ub`` and ``lower <= c <= upper``: the row-generation
loops of :mod:`~hodyn_cli.algorithms.limits.programme` and
:mod:`~hodyn_cli.algorithms.limits.sequential` impose the rows near their bounds, solve, add the
rows the solution breaks and solve again. Rows added to a solved programme (:meth:`LP.add`)
come in basic, so the last optimum stays dual feasible and HiGHS's dual simplex goes on from it
(no presolve): a re-solve takes the few iterations the new rows cost, not the programme's
from scratch (scipy's ``milp`` keeps no basis: the windows of a point-to-point path of the Z1
with ``--jerk 500`` took 89 solves, 28 of its 31 s of CPU).

Every budget counts iterations, not the wall clock, so a programme's answer does not depend on
the machine's load: the simplex's iterations, then the interior point's (the caller's:
``programme.IPM_ITERATIONS``), without crossover, which HiGHS cannot bound by iterations (on the
UR5's point-to-point path at 20 Hz with --jerk 1000 it ran for minutes after the interior
point's 28 iterations, 0.5 s; under load its time limit cut it at different points).
:data:`BACKSTOP` seconds of wall time remain a last resort against a solve without end.

HiGHS runs on one thread (the command line runs chunks on a process pool) and prints nothing.
Its dual simplex prices by Devex: a warm start then computes no steepest-edge weights for the
new basis (0.03 of a 0.05 s re-solve of 6 iterations), and the iterations are cheaper
(HiGHS's time 30-48 % lower on the windows' programmes; benchmarks/README.md, 2026-11-30).
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING, Any

import numpy as np

from hodyn_cli.algorithms.limits.banded import Rows

if TYPE_CHECKING:
    from scipy import sparse

__all__ = ["LP", "Stalled", "FROM_BASIS", "BACKSTOP", "basic", "without"]

#: the share of a solve's simplex iterations it has from the last basis, before it starts
#: again from scratch (presolve, then the whole budget): from the basis the dual simplex
#: works on every row and can take far more iterations than a solve from scratch (the
#: windows of the UR5's point-to-point path at 20 Hz with --jerk 1000: five re-solves out of
#: 8 iterations a column, which then went to the interior point, 17 s of CPU; HiGHS's CPU
#: with a quarter of them, then from scratch: 4.0 s, with all of them 12.4 s; the xArm7's
#: stop 3.6 s against 4.8 s, the Z1's point-to-point path 7.1 s against 8.1 s, the laws the
#: same to 2e-12; back to back, 2026-11-29)
FROM_BASIS = 0.25


#: seconds of wall time an interior-point solve may take at most: a last resort against a
#: solve without end, far beyond what the interior point's iterations take (a law that reaches it depends on
#: the machine's load; none of benchmarks/bench_optimal_rates.py's inputs comes near it)
BACKSTOP = 120.0
#: the largest primal infeasibility (HiGHS's, in the rows' own units: the windows' limit rows
#: are scaled to half-widths of 1, their smoothness rows to ``programme.ENTRY``, half-widths
#: of 1 or less; the sequential programmes' are in their limits' units and each step is
#: judged on the limits after) of an interior point's solution that HiGHS calls neither
#: optimal nor infeasible (``kUnknown``: highspy 1.10 on the UR5's programme above, 1.3e-6,
#: its objective 7e-10 from 1.16's optimal one; since its smoothness rows are scaled the
#: simplex solves all of that input's programmes, benchmarks/README.md 2026-11-30) that is
#: taken as its answer; its dual infeasibility is not asked (0.017 there: without crossover
#: it does not tell how far from the optimum the solution is)
IMPRECISE = 1e-5


class Stalled(Exception):  # noqa: N818 - not an error: ends the caller's iterations
    """The interior-point method did not finish within its iterations (:meth:`LP.solve`)."""


class LP:
    """``min objective . c`` within ``lower <= c <= upper``, no rows yet (:meth:`add`).
    :attr:`iterations`: the simplex and interior-point iterations of the last :meth:`solve`;
    :attr:`method`: the method that gave its answer (``"simplex"`` or ``"ipm"``)."""

    def __init__(self, objective: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> None:
        # (the pybind11 class itself: highspy.Highs, its Python subclass, sets a callback on
        # construction and HiGHS 1.16 then prints its banner to stdout before any option
        # can turn the output off)
        from highspy import HighsStatus
        from highspy._core import _Highs

        self._highs = _Highs()
        for name, value in (("output_flag", False), ("threads", 1), ("solver", "simplex"),
                            ("simplex_dual_edge_weight_strategy", 1),
                            ("run_crossover", "off"), ("large_matrix_value", np.inf)):
            # (HiGHS answers a misspelt option or a wrong type with a status, not an error;
            # large_matrix_value: its default 1e15 refuses a batch of rows with an entry that
            # large: the windows' smooth programme on a path with q7 columns had 4e15 before
            # its rows were scaled to programme.ENTRY; the sequential programmes' rows are in
            # their limits' own units, which nothing bounds: up to 9e5 on the xArm7's stop
            # with --jerk 20, 6e5 on the SO-101's Fourier path with --jerk 50)
            if self._highs.setOptionValue(name, value) != HighsStatus.kOk:
                raise RuntimeError(f"HiGHS refused its option {name} = {value!r}")
        n = len(objective)
        none = np.zeros(0, dtype=np.int32)
        self._highs.addCols(n, np.asarray(objective, float), np.asarray(lower, float),
                            np.asarray(upper, float), 0, none, none, np.zeros(0))
        self.rows, self.iterations, self.method = 0, 0, "simplex"
        # (the rows' bounds in their order, for :meth:`slack`: HiGHS's own copy is read
        # with the whole matrix)
        self._lb, self._ub = np.zeros(0), np.zeros(0)
        self._ran_out = -1  # (the simplex's iterations that ran out from scratch)

    def add(self, A: Rows | sparse.csr_matrix | sparse.csr_array, lb: np.ndarray,
            ub: np.ndarray) -> None:
        """The rows ``lb <= A c <= ub`` (infinite bounds: none) added to the programme: ``A``
        the windows' :class:`~hodyn_cli.algorithms.limits.banded.Rows` (no scipy imported)
        or a scipy.sparse matrix."""
        if isinstance(A, Rows):
            self.add_rows(*A.sorted(), lb, ub)
            return
        from scipy import sparse

        A = sparse.csr_matrix(A)
        if not A.has_canonical_format:  # (a column twice in a row: HiGHS refuses it)
            A = A.copy()
            A.sum_duplicates()
        self.add_rows(A.indptr, A.indices, A.data, lb, ub)

    def add_rows(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray,
                 lb: np.ndarray, ub: np.ndarray) -> None:
        """:meth:`add` of the rows given as CSR arrays (row i: ``data[indptr[i]:indptr[i +
        1]]`` at the columns ``indices[...]``): no scipy matrix made or imported."""
        from highspy import HighsStatus

        if len(indptr) <= 1:
            return
        status = self._highs.addRows(len(indptr) - 1, np.asarray(lb, float),
                                     np.asarray(ub, float), len(data),
                                     np.asarray(indptr, np.int32),
                                     np.asarray(indices, np.int32), np.asarray(data, float))
        # (HiGHS answers rows it refuses, a column twice in a row or beyond the programme's,
        # with a status and adds none of them: a programme solved without its rows; a
        # warning, entries below its small_matrix_value dropped, adds the rest)
        if status == HighsStatus.kError:
            raise RuntimeError(f"HiGHS refused {len(indptr) - 1} rows (a column twice in a "
                               "row or beyond the programme's)")
        self.rows += len(indptr) - 1
        self._lb = np.concatenate([self._lb, np.asarray(lb, float)])
        self._ub = np.concatenate([self._ub, np.asarray(ub, float)])

    def slack(self) -> tuple[np.ndarray, np.ndarray]:
        """The last solve's rows (in the order added): whether each row's own slack is basic
        in its basis (False throughout where it has none) and how far its value is from the
        nearer of its bounds."""
        basis = self._highs.getBasis()
        if not basis.valid:
            return np.zeros(self.rows, dtype=bool), np.zeros(self.rows)
        value = np.array(self._highs.getSolution().row_value)
        return basic(basis), np.minimum(self._ub - value, value - self._lb)

    def drop(self, gone: np.ndarray) -> None:
        """The rows where ``gone`` (a mask over the rows in the order added) deleted, each one
        whose slack is basic (:meth:`slack`): the basis, less them, stays a basis of the rest,
        and the last solution stays optimal for them (HiGHS keeps both)."""
        from highspy import HighsStatus

        index = np.flatnonzero(gone).astype(np.int32)
        if not len(index):
            return
        if self._highs.deleteRows(len(index), index) == HighsStatus.kError:
            raise RuntimeError(f"HiGHS refused to delete {len(index)} rows")
        keep = np.ones(self.rows, dtype=bool)
        keep[index] = False
        self._lb, self._ub = self._lb[keep], self._ub[keep]
        self.rows -= len(index)

    def bound(self, upper: np.ndarray) -> None:
        """Every row's upper bound set to ``upper`` (in the order added; lower bounds as
        they were): the basis stays, and the next solve goes on from it (a dual simplex
        from a basis that a few bounds moved off its optimum)."""
        from highspy import HighsStatus

        if not self.rows:
            return
        index = np.arange(self.rows, dtype=np.int32)
        upper = np.asarray(upper, float)
        # (the bulk call, one for every row: highspy's stubs list changeRowBounds alone, a
        # row a call)
        status = self._highs.changeRowsBounds(  # type: ignore[attr-defined]
            self.rows, index, self._lb, upper)
        if status == HighsStatus.kError:
            raise RuntimeError(f"HiGHS refused the bounds of {self.rows} rows")
        self._ub = upper.copy()

    def basis(self) -> Any:
        """The last solve's basis (HiGHS's, the rows in the order added; None where it has
        none), for :meth:`start`."""
        basis = self._highs.getBasis()
        return basis if basis.valid else None

    def start(self, basis: Any) -> None:
        """The next solve starts from ``basis`` (:meth:`basis`'s of a programme with the
        same columns, whose rows are this one's first; the rows after them basic, added to
        a copy: ``basis`` itself unchanged, for another programme): a programme whose rows
        and objective moved a little is re-solved from there rather than from scratch."""
        import highspy

        # (HiGHS's lists as they are: converting the statuses one by one cost ~40 ms a
        # programme of 18 000 rows; and read once: each read of ``row_status`` makes a new
        # list of them, ~2 ms at 15 000 rows)
        status = basis.row_status
        extra = self.rows - len(status)
        if extra:
            whole = highspy.HighsBasis()  # (it pickles not: copy.copy refuses it)
            whole.valid, whole.alien, whole.was_alien = basis.valid, basis.alien, basis.was_alien
            whole.col_status = basis.col_status
            whole.row_status = status + [highspy.HighsBasisStatus.kBasic] * extra
            basis = whole
        self._highs.setBasis(basis)

    def afresh(self) -> None:
        """The next solve starts from scratch (presolve, then the whole budget), its basis
        dropped: where the rows added since outnumber those it was found with, the dual
        simplex from it runs out of :data:`FROM_BASIS` and starts again from scratch anyway
        (every first programme of the sequential programmes on benchmarks/README.md's
        Fourier inputs with jerk limits: 20-50 ms of HiGHS's CPU each, jerk1s)."""
        self._highs.clearSolver()

    def solve(self, iterations: int | None = None, ipm: int | None = None
              ) -> np.ndarray | None:
        """The optimal c (None: the programme is infeasible, unbounded or HiGHS fails on it).
        The dual simplex (from the last basis where there is one; from scratch after
        presolve on a first solve) for at most ``iterations`` iterations (None: no limit),
        :data:`FROM_BASIS` of them from a basis, then from scratch; out of them, the
        interior-point method for at most ``ipm`` iterations (None: no limit) and
        :data:`BACKSTOP` seconds, else :class:`Stalled`: its solution, without crossover (no
        basis); a solve after the simplex ran out from scratch, with no more iterations,
        goes to the interior point at once (within a programme: the next one, a few rows and
        bounds away, tries the simplex again; carried on, 9 of the UR5's programmes that the
        simplex solved in 0.4 s went to the interior point: 3 s more of HiGHS's CPU). :attr:`iterations`:
        those of the last method run."""
        import highspy

        status = highspy.HighsModelStatus
        warm = self._highs.getBasis().valid
        model = status.kIterationLimit
        if iterations is None or iterations > self._ran_out:
            model = self._run("simplex", int(FROM_BASIS * iterations)
                              if iterations is not None and warm else iterations)
            self.method = "simplex"
            if model == status.kIterationLimit and warm:  # (FROM_BASIS)
                self._highs.clearSolver()
                model = self._run("simplex", iterations)
            if model == status.kIterationLimit and iterations is not None:
                # (the interior point leaves no basis, and from scratch the simplex ran out
                # again on the same programme with a few rows more: the windows of the UR5's
                # point-to-point path at 20 Hz with --jerk 1000, 1.3 s of CPU each time)
                self._ran_out = iterations
        if model == status.kIterationLimit:
            model = self._run("ipm", ipm)
            self.method = "ipm"
            if model in (status.kTimeLimit, status.kIterationLimit):
                raise Stalled
            info = self._highs.getInfo()
            if model == status.kUnknown and self._highs.getSolution().value_valid and (
                    info.max_primal_infeasibility <= IMPRECISE):
                model = status.kOptimal
        if model != status.kOptimal:
            return None
        return np.array(self._highs.getSolution().col_value)

    def _run(self, solver: str, iterations: int | None):
        """HiGHS's model status after one run of ``solver`` (``iterations``: the simplex's or
        the interior point's; None: no limit)."""
        h = self._highs
        most = np.iinfo(np.int32).max if iterations is None else int(iterations)
        h.setOptionValue("solver", solver)
        h.setOptionValue("simplex_iteration_limit", most)
        h.setOptionValue("ipm_iteration_limit", most)
        # (HiGHS's time limit counts from the object's creation: this run's is added to what
        # the runs before took; the simplex has its iterations alone)
        h.setOptionValue("time_limit", float(h.getRunTime() + BACKSTOP) if solver == "ipm"
                         else np.inf)
        h.run()
        info = h.getInfo()
        self.iterations = info.simplex_iteration_count + max(info.ipm_iteration_count, 0)
        return h.getModelStatus()


def basic(basis: Any) -> np.ndarray:
    """Whether each row's own slack is basic in ``basis`` (:meth:`LP.basis`'s, the rows in
    the order added): the rows that do not bind at its solution."""
    import highspy

    status = basis.row_status  # (a new list at each read: once)
    # (compared by map, in C: a comprehension's Python loop cost ~2.5 ms at 15 000 rows)
    return np.fromiter(map(highspy.HighsBasisStatus.kBasic.__eq__, status), dtype=bool,
                       count=len(status))


def without(basis: Any, keep: np.ndarray) -> Any:
    """``basis`` (:meth:`LP.basis`'s) of the programme less the rows where ``keep`` (a mask
    over its rows) is False, each one whose slack is basic (:func:`basic`): a row and a
    basic variable go together, so the rest is a basis of the rows kept, in their order,
    with the same solution (:meth:`LP.start` takes it; ``basis`` itself unchanged)."""
    import highspy

    kept = highspy.HighsBasis()  # (it pickles not: copy.copy refuses it)
    kept.valid, kept.alien, kept.was_alien = basis.valid, basis.alien, basis.was_alien
    kept.col_status = basis.col_status
    kept.row_status = list(compress(basis.row_status, keep.tolist()))
    return kept
