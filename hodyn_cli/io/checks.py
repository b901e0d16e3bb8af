"""Checks of values as they stream in: finite numbers, increasing times (one-line errors)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hodyn_cli.errors import TrajectoryError

__all__ = ["check_values", "check_increasing", "check_same_times", "SampleError"]


class SampleError(TrajectoryError):
    """A fault of the values at one ``sample`` of a file: where a second file is read beside
    a trajectory, the fault of the first sample of either is the one named
    (:meth:`~hodyn_cli.io.reader.TrajectoryReader._assemble`)."""

    def __init__(self, message: str, source: str | None = None, sample: int | None = None):
        super().__init__(message, source)
        self.sample = sample


def check_values(block: np.ndarray, columns: list[str], path: str, start: int,
                 where: Callable[[int], str] = "sample {}".format) -> None:
    """Raise naming the column and sample of the first value of ``block`` (rows, columns)
    that is not finite (``start``: the sample number of its first row; ``where(sample)``
    says where a sample is, e.g. with its line in a CSV file)."""
    with np.errstate(over="ignore", invalid="ignore"):  # a sum of finite values overflows:
        if np.isfinite(block.sum()):  # the search below runs (fast path: finite only if
            return  # every value is)
    bad = ~np.isfinite(block)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise SampleError(f"column '{columns[col]}', {where(start + row)}: value "
                          f"{block[row, col]} is not finite", path, int(start + row))


def check_increasing(t: np.ndarray, last_t, start: int, path: str,
                     where: Callable[[int], str] = "sample {}".format) -> None:
    """Raise naming the first sample where ``t`` does not increase (``last_t``: the time
    before this block's first sample, or None)."""
    prev = np.concatenate([[last_t], t[:-1]]) if last_t is not None else t[:-1]
    cur = t if last_t is not None else t[1:]
    bad = np.flatnonzero(~(cur > prev))  # (cur - prev overflows between +-1e308)
    if bad.size:
        s = start + bad[0] + (0 if last_t is not None else 1)
        raise SampleError(f"column 't' is not increasing at {where(s)} "
                          f"({prev[bad[0]]} then {cur[bad[0]]})", path, int(s))


def check_same_times(here: np.ndarray, there: np.ndarray, start: int, path: str) -> None:
    """Raise naming the first sample where a second file's times ``here`` (a wrench or base
    motion file, torques) are not the trajectory's ``there`` (1e-9 relative, 1e-9 s near 0).

    >>> check_same_times(np.array([0.0, 0.002]), np.array([0.0, 0.003]), 10, "w.csv")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hodyn_cli.io.checks.SampleError: w.csv: t differs ... at sample 11 (0.002 here, 0.003 there)
    """
    off = np.flatnonzero(~(np.abs(here - there) <= 1e-9 * np.maximum(1.0, np.abs(there))))
    if off.size:
        s = off[0]
        raise SampleError(f"t differs from the trajectory's at sample {start + s} "
                          f"({float(here[s])!r} here, {float(there[s])!r} there)", path,
                          int(start + s))
