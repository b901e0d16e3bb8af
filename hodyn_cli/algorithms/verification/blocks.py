"""The checked samples of :func:`~hodyn_cli.algorithms.verification.validate.validate` as
blocks, and the report's plotted series of a long file kept to what its plot shows.

Every check is a part fed block by block (``add``; ``finish`` after the last), its numbers
folded across blocks (:class:`~hodyn_cli.algorithms.verification.checks.Peak`), so that the
blocks can come from the samples held in memory (``--samples N``) or from a file read once
more chunk by chunk (``--samples 0``: every sample checked, memory bounded by a chunk)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hodyn_cli.core.trajectory import Trajectory, check_results
from hodyn_cli.errors import TrajectoryError

__all__ = ["Block", "Plot", "PLOT_COLUMNS"]

#: x-bins of the report's plots (:data:`hodyn_cli.pipeline.report.COLUMNS`: the library
#: does not import the pipeline)
PLOT_COLUMNS = 1000


class Block:
    """A block of checked samples: their motion ``center`` (all coordinates), their sample
    numbers ``idx`` and times ``t``; each method's torques (``torques(method, center)``: (M,
    order+1, m)) made once for every check of the block that takes them."""

    def __init__(self, center: Trajectory, idx: np.ndarray,
                 torques: Callable[[str, Trajectory], np.ndarray], source: str = ""):
        self.center, self.idx, self.t = center, idx, center.t
        self._torques, self.source = torques, source
        self._results: dict[str, np.ndarray] = {}

    def results(self, method: str) -> np.ndarray:
        """``method``'s torques at the block's samples; an overflow is the input's fault (as
        for hodyn compute): an error."""
        if method not in self._results:
            r = self._torques(method, self.center)
            try:
                check_results({method: r}, self.center)
            except TrajectoryError as e:
                raise TrajectoryError(e.message, self.source or None) from None
            self._results[method] = r
        return self._results[method]


class Plot:
    """A plotted pair of series (M, m) given block by block against x (times or sample
    numbers): ``analytic`` (a line) and ``numeric`` (markers), and their difference (a line).
    ``span``: None, every row kept (the samples of ``--samples N``); else the first and
    last x of the whole file (``--samples 0``): per column, only the rows the report's plot
    draws a line through are kept (:func:`hodyn_cli.pipeline.report.decimate`: the smallest
    and largest value in each of :data:`PLOT_COLUMNS` x-bins, of each series and of the
    difference, and the first and last row), a few thousand whatever the file's length; a
    file of up to 8 per bin keeps every row."""

    def __init__(self, span: tuple[float, float] | None = None, x_key: str | None = None):
        self.span, self.x_key = span, x_key
        self.x: list[np.ndarray] = []
        self.a: list[np.ndarray] = []
        self.n: list[np.ndarray] = []
        self.held = 0
        self.kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None

    def add(self, x: np.ndarray | None, analytic: np.ndarray, numeric: np.ndarray) -> None:
        self.a.append(analytic)
        self.n.append(numeric)
        if x is not None:
            self.x.append(x)
        self.held += len(analytic)
        # (rows given before the columns' kept rows are cut down: a few times what is kept)
        if self.span is not None and self.held > 8 * PLOT_COLUMNS:
            self._cut()

    def series(self, names: tuple[str, str] = ("analytic", "numeric")) -> dict:
        """The report's entry: every row (``x_key``: their x too), or per column its kept
        rows (``columns``: (x, analytic, numeric) each)."""
        if self.span is None:
            out = {names[0]: np.concatenate(self.a), names[1]: np.concatenate(self.n)}
            return out if self.x_key is None else {self.x_key: np.concatenate(self.x), **out}
        if self.kept is None:   # never cut (a short file): every row, as held
            x, a, n = (np.concatenate(v) for v in (self.x, self.a, self.n))
            return {"columns": [(x, a[:, j], n[:, j]) for j in range(a.shape[1])]}
        self._cut()
        return {"columns": self.kept}

    def _cut(self) -> None:
        """Fold the rows held into each column's kept rows."""
        if not self.held:
            return
        x, a, n = (np.concatenate(v) for v in (self.x, self.a, self.n))
        self.x, self.a, self.n, self.held = [], [], [], 0
        kept = []
        for j in range(a.shape[1]):
            xj, aj, nj = x, a[:, j], n[:, j]
            if self.kept is not None:
                before = self.kept[j]
                xj, aj, nj = (np.concatenate([b, c]) for b, c in zip(before, (xj, aj, nj),
                                                                       strict=True))
            keep = self._extremes(xj, (aj, nj, np.abs(aj - nj)))
            kept.append((xj[keep], aj[keep], nj[keep]))
        self.kept = kept

    def _extremes(self, x: np.ndarray, ys: tuple[np.ndarray, ...]) -> np.ndarray:
        """Rows (increasing x) of each y's smallest (the first of equal ones) and largest (the
        last: :func:`~hodyn_cli.pipeline.report.decimate` sorts stably by value) in each
        x-bin of the file's span, and the first and last row."""
        assert self.span is not None
        x0, x1 = self.span
        span = float(x1 - x0)
        columns = PLOT_COLUMNS
        b = (np.minimum(((x - x0) * (columns / span)).astype(np.int64), columns - 1)
             if span > 0 else np.zeros(len(x), np.int64))
        starts = np.flatnonzero(np.concatenate([[True], b[1:] != b[:-1]]))
        counts = np.diff(np.append(starts, len(x)))
        rows = np.arange(len(x))
        keep = [np.array([0, len(x) - 1])]
        for y in ys:
            lo = np.repeat(np.minimum.reduceat(y, starts), counts)
            hi = np.repeat(np.maximum.reduceat(y, starts), counts)
            keep.append(np.minimum.reduceat(np.where(y == lo, rows, len(x)), starts))
            keep.append(np.maximum.reduceat(np.where(y == hi, rows, -1), starts))
        k = np.unique(np.concatenate(keep))
        return k[(k >= 0) & (k < len(x))]
