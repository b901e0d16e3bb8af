"""A second file read in lockstep with a trajectory: a ``--base-motion`` file, the base
columns of the trajectory itself, ``validate --torques``' torques.

Its rows are taken chunk by chunk as the trajectory's arrive (:meth:`Lockstep.take`) and
checked as they stream: finite values, the trajectory's number of samples, and where both
have ``t``, the same times (:func:`~hodyn_cli.io.checks.check_same_times`).
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io.checks import check_same_times, check_values
from hodyn_cli.io.tables import Rows, row_count
from hodyn_cli.io.tasks import at_line

__all__ = ["Lockstep"]


class Lockstep:
    """The ``columns`` of an open ``table`` (``t`` first, if it has one) in step with a
    trajectory's chunks; closes the table when done with."""

    def __init__(self, path: str, table, columns: list[str]):
        self.path, self.table, self.columns, self.start = path, table, columns, 0
        self.rows = Rows(table.blocks(columns))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.table.close()

    def take(self, n: int, t: np.ndarray | None) -> np.ndarray:
        """The next ``n`` rows, checked (the trajectory's chunk at times ``t``), without
        their ``t`` column."""
        block, start = self.rows.take(n), self.start
        if row_count(block) != n:
            raise TrajectoryError(f"has {start + row_count(block)} samples, fewer than the "
                                  "trajectory", self.path)
        assert block is not None  # n rows of a chunk: n > 0
        line = getattr(self.table, "line_of", lambda s: None)
        check_values(block, self.columns, self.path, start, lambda s: at_line(s, line(s)))
        c = int(self.columns[0] == "t")
        if c and t is not None:
            check_same_times(block[:, 0], t, start, self.path)
        self.start += n
        return block[:, c:]

    def finish(self) -> None:
        """Raise if the file has samples beyond the trajectory's."""
        if left := self.rows.remaining():
            raise TrajectoryError(f"has {self.start + left} samples, the trajectory {self.start}",
                                  self.path)
