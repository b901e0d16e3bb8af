"""A linear programme whose rows come in rounds, solved by HiGHS (highspy) keeping its basis.

``min objective . c`` with ``lb <= A c <= ub`` and ``lower <= c <= upper``: the row-generation
loops of :mod:`~hodyn_cli.algorithms.limits.programme` and
:mod:`~hodyn_cli.algorithms.limits.sequential` impose the rows near their bounds, solve, add the
rows the solution breaks and solve again. Rows added to a solved programme (:meth:`LP.add`)
come in basic, so the last optimum stays dual feasible and HiGHS's dual simplex goes on from it
(no presolve): a re-solve takes the few iterations the new rows cost, not the programme's
from scratch (scipy's ``milp`` keeps no basis: the windows of a point-to-point path of the Z1
with ``--jerk 500`` took 89 solves, 28 of its 31 s of CPU).

HiGHS runs on one thread (the command line runs chunks on a process pool) and prints nothing.
Its dual simplex prices by Devex: a warm start then computes no steepest-edge weights for the
new basis (0.03 of a 0.05 s re-solve of 6 iterations), and the iterations are cheaper
(HiGHS's time 30-48 % lower on the windows' programmes; benchmarks/README.md, 2026-11-30).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse

__all__ = ["LP", "Stalled", "FROM_BASIS"]

#: the share of a solve's simplex iterations it has from the last basis, before it starts
#: again from scratch (presolve, then the whole budget): from the basis the dual simplex
#: works on every row and can take far more iterations than a solve from scratch (the
#: windows of the UR5's point-to-point path at 20 Hz with --jerk 1000: five re-solves out of
#: 8 iterations a column, which then went to the interior point, 17 s of CPU; HiGHS's CPU
#: with a quarter of them, then from scratch: 4.0 s, with all of them 12.4 s; the xArm7's
#: stop 3.6 s against 4.8 s, the Z1's point-to-point path 7.1 s against 8.1 s, the laws the
#: same to 2e-12; back to back, 2026-11-29)
FROM_BASIS = 0.25


class Stalled(Exception):  # noqa: N818 - not an error: ends the caller's iterations
    """The interior-point method did not finish within its time (:meth:`LP.solve`)."""


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
                            ("simplex_dual_edge_weight_strategy", 1)):
            # (HiGHS answers a misspelt option or a wrong type with a status, not an error)
            if self._highs.setOptionValue(name, value) != HighsStatus.kOk:
                raise RuntimeError(f"HiGHS refused its option {name} = {value!r}")
        n = len(objective)
        none = np.zeros(0, dtype=np.int32)
        self._highs.addCols(n, np.asarray(objective, float), np.asarray(lower, float),
                            np.asarray(upper, float), 0, none, none, np.zeros(0))
        self.rows, self.iterations, self.method = 0, 0, "simplex"

    def add(self, A: sparse.csr_matrix | sparse.csr_array, lb: np.ndarray, ub: np.ndarray
            ) -> None:
        """The rows ``lb <= A c <= ub`` (infinite bounds: none) added to the programme."""
        from scipy import sparse

        A = sparse.csr_matrix(A)
        if A.shape[0] == 0:
            return
        self._highs.addRows(A.shape[0], np.asarray(lb, float), np.asarray(ub, float), A.nnz,
                            A.indptr.astype(np.int32), A.indices.astype(np.int32),
                            A.data.astype(float))
        self.rows += A.shape[0]

    def basis(self) -> Any:
        """The last solve's basis (HiGHS's, the rows in the order added; None where it has
        none), for :meth:`start`."""
        basis = self._highs.getBasis()
        return basis if basis.valid else None

    def start(self, basis: Any) -> None:
        """The next solve starts from ``basis`` (:meth:`basis`'s of a programme with the
        same columns, whose rows are this one's first; the rows after them basic, added to
        it in place): a programme whose rows and objective moved a little is re-solved from
        there rather than from scratch."""
        import highspy

        # (HiGHS's lists as they are: converting the statuses one by one cost ~40 ms a
        # programme of 18 000 rows)
        extra = self.rows - len(basis.row_status)
        if extra:
            basis.row_status = basis.row_status + [highspy.HighsBasisStatus.kBasic] * extra
        self._highs.setBasis(basis)

    def solve(self, iterations: int | None = None, seconds: float = np.inf) -> np.ndarray | None:
        """The optimal c (None: the programme is infeasible, unbounded or HiGHS fails on it).
        The dual simplex (from the last basis where there is one; from scratch after
        presolve on a first solve) for at most ``iterations`` iterations (None: no limit),
        :data:`FROM_BASIS` of them from a basis, then from scratch; out of them, the
        interior-point method (then crossover: a basis for the next solve) for at most
        ``seconds`` of wall time, else :class:`Stalled`. :attr:`iterations`: those of the
        last method run."""
        import highspy

        limit = highspy.HighsModelStatus.kIterationLimit
        warm = self._highs.getBasis().valid
        status = self._run("simplex", int(FROM_BASIS * iterations)
                           if iterations is not None and warm else iterations)
        self.method = "simplex"
        if status == limit and warm:  # (FROM_BASIS)
            self._highs.clearSolver()
            status = self._run("simplex", iterations)
        if status == limit:
            status = self._run("ipm", None, seconds)
            self.method = "ipm"
            if status in (highspy.HighsModelStatus.kTimeLimit,
                          highspy.HighsModelStatus.kIterationLimit):
                raise Stalled
        if status != highspy.HighsModelStatus.kOptimal:
            return None
        return np.array(self._highs.getSolution().col_value)

    def _run(self, solver: str, iterations: int | None, seconds: float = np.inf):
        """HiGHS's model status after one run of ``solver``."""
        h = self._highs
        h.setOptionValue("solver", solver)
        h.setOptionValue("simplex_iteration_limit",
                         np.iinfo(np.int32).max if iterations is None else int(iterations))
        # (HiGHS's time limit counts from the object's creation: this run's is added to what
        # the runs before took)
        h.setOptionValue("time_limit", float(h.getRunTime() + seconds) if np.isfinite(seconds)
                         else np.inf)
        h.run()
        info = h.getInfo()
        self.iterations = info.simplex_iteration_count + max(info.ipm_iteration_count, 0)
        return h.getModelStatus()
