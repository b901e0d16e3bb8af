"""A trajectory file's chunks as tasks: read and checked on any thread, settled in order.

Reading a chunk (the bytes, parsing CSV or copying HDF5 rows into columns, the checks of
its values) is most of what reading costs, and it needs nothing from the chunks before:
:meth:`ChunkTask.load` does it, on whichever thread runs it, several chunks at once. What
does need the chunks before (``t`` increasing across their boundary, and the order of the
errors: the first bad sample of the file is the one named) is :meth:`ChunkTask.settle`'s,
called for each chunk in order. The chunks are those of the reader's own iteration, row
for row, so results do not depend on how many threads read them.

- HDF5: a chunk is a range of rows, read where it lies in the file
  (:meth:`~hodyn_cli.io.tables.Hdf5Table.read`).
- CSV: the file's pieces (a regular file's byte ranges, or the blocks of lines a pipe
  delivered) are parsed on the executor, up to ``ahead`` at a time; their rows are cut here,
  in order, into chunks of the reader's size (views, no copy), their lines counted.
- Anything else (a wrench file of another kind or length read in lockstep) is read chunk by
  chunk where the tasks are taken: :class:`Loaded` tasks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io.checks import check_increasing
from hodyn_cli.io.tables import BadLine, CsvTable, Hdf5Table, Parsed, Piece, empty

if TYPE_CHECKING:  # (concurrent.futures imports logging: ~5 ms of every command's start)
    from concurrent.futures import Executor, Future

    from hodyn_cli.io.reader import TrajectoryReader

__all__ = ["ChunkTask", "Loaded", "chunk_tasks", "at_line"]


def at_line(sample: int, line: int | None) -> str:
    """Where a sample is: ``sample N``, and its line where the file is CSV.

    >>> at_line(7, 9), at_line(7, None)
    ('sample 7 (line 9)', 'sample 7')
    """
    return f"sample {sample}" + (f" (line {line})" if line is not None else "")


class _Order:
    """What the tasks of one file settle in turn: the time of the last sample settled."""

    def __init__(self) -> None:
        self.last_t: float | None = None


class ChunkTask:
    """Samples ``[start, start + rows)`` of a file: :meth:`load` reads them (thread-safe),
    :meth:`settle` checks them against the chunks before (in order, once loaded)."""

    def __init__(self, reader: TrajectoryReader, order: _Order, start: int, rows: int):
        self.reader, self.order, self.start, self.rows = reader, order, start, rows
        self._first_t: float | None = None  # t of the first sample: the boundary's check
        self._fault: TrajectoryError | None = None  # the first fault of the chunk's own

    def load(self) -> Trajectory:
        """The chunk, its values checked; a fault is raised, and raised again when settled,
        after the check across the boundary (its first sample: the earliest of all)."""
        block, wblock = self._blocks()
        if self.reader.has_t and len(block):
            self._first_t = block[0, 0]
        try:
            return self.reader._assemble(block, wblock, self.start, None, self.where)
        except TrajectoryError as e:
            self._fault = e
            raise

    def _blocks(self) -> tuple[np.ndarray, np.ndarray | None]:
        raise NotImplementedError

    def where(self, sample: int) -> str:
        return self.reader._where(sample)

    def settle(self, chunk: Trajectory | None) -> None:
        """Check the chunk (what :meth:`load` gave; None: its load failed) against the
        chunks settled before, then raise its own fault, if any."""
        if self._first_t is not None and self.order.last_t is not None:
            check_increasing(np.array([self._first_t]), self.order.last_t, self.start,
                             self.reader.path, self.where)
        if self._fault is not None:
            raise self._fault
        if chunk is not None and chunk.t is not None:
            self.order.last_t = chunk.t[-1]


class Loaded(ChunkTask):
    """A chunk read already (where the tasks are taken): nothing left to do."""

    def __init__(self, chunk: Trajectory, start: int):
        self.chunk, self.start, self.rows = chunk, start, chunk.n_samples

    def load(self) -> Trajectory:
        return self.chunk

    def settle(self, chunk: Trajectory | None) -> None:
        """Checked when it was read."""


class _Rows(ChunkTask):
    """A range of rows of HDF5 files (the trajectory's, and a wrench file's of the same
    length), read where they lie."""

    def _blocks(self):
        reader = self.reader
        block = reader.table.read(self.start, self.rows, reader.layout.columns)
        wblock = None if reader.wtable is None else \
            reader.wtable.read(self.start, self.rows, reader.wlayout.columns)
        return block, wblock


class _Lines(ChunkTask):
    """Rows of parsed CSV pieces: ``parts`` of (piece, its first line, first row, end row)."""

    def __init__(self, reader, order, start, parts: list[tuple[Parsed, int, int, int]]):
        super().__init__(reader, order, start, sum(hi - lo for _, _, lo, hi in parts))
        self.parts = parts

    def _blocks(self):
        values = [p.values[lo:hi] for p, _, lo, hi in self.parts]
        return values[0] if len(values) == 1 else np.concatenate(values), None

    def where(self, sample: int) -> str:
        offset = sample - self.start
        for parsed, first, lo, hi in self.parts:
            if offset < hi - lo:
                return at_line(sample, first + int(parsed.lines[lo + offset]))
            offset -= hi - lo
        return at_line(sample, None)


def chunk_tasks(reader: TrajectoryReader, executor: Executor, ahead: int
                ) -> Iterator[ChunkTask]:
    """The tasks of ``reader``'s chunks, in order (see the module's docstring)."""
    table, wtable, order = reader.table, reader.wtable, _Order()
    if isinstance(table, Hdf5Table) and (wtable is None or (
            isinstance(wtable, Hdf5Table) and wtable.n_rows == table.n_rows)):
        if not table.n_rows:
            raise empty(table, reader.path)
        for s in range(0, table.n_rows, reader.chunk):
            yield _Rows(reader, order, s, min(reader.chunk, table.n_rows - s))
        return
    if isinstance(table, CsvTable) and wtable is None:
        yield from _csv_tasks(reader, table, order, executor, ahead)
        return
    start = 0
    for chunk in reader:
        yield Loaded(chunk, start)
        start += chunk.n_samples


def _csv_tasks(reader: TrajectoryReader, table: CsvTable, order: _Order, executor: Executor,
               ahead: int) -> Iterator[ChunkTask]:
    """The parsed pieces cut into chunks of ``reader.chunk`` rows (a shorter one whenever a
    pipe's producer paused, as :func:`~hodyn_cli.io.tables.rechunk` does)."""
    parts: list[tuple[Parsed, int, int, int]] = []
    have = start = 0

    def cut(n: int) -> ChunkTask:
        nonlocal have, start
        taken, need = [], n
        while need:
            parsed, first, lo, hi = parts[0]
            take = min(need, hi - lo)
            taken.append((parsed, first, lo, lo + take))
            if lo + take == hi:
                parts.pop(0)
            else:
                parts[0] = (parsed, first, lo + take, hi)
            need -= take
        task = _Lines(reader, order, start, taken)
        have, start = have - n, start + n
        return task

    try:
        for parsed, first, paused in _parsed(table, reader.layout.columns, executor, ahead):
            if len(parsed.values):
                parts.append((parsed, first, 0, len(parsed.values)))
                have += len(parsed.values)
            while have >= reader.chunk:
                yield cut(reader.chunk)
            if have and paused:
                yield cut(have)
    except TrajectoryError:  # a line that does not parse: the rows before it go on first
        if have:  # (their own faults come first, as :func:`~.tables.rechunk` hands them on)
            yield cut(have)
        raise
    if have:
        yield cut(have)
    if not start:
        raise empty(table, reader.path)


def _parsed(table: CsvTable, wanted: list[str], executor: Executor, ahead: int
            ) -> Iterator[tuple[Parsed, int, bool]]:
    """``(parsed piece, its first line, whether a pipe paused after it)`` in order, parsed on
    ``executor`` at most ``ahead`` pieces ahead; a piece a pipe delivered before pausing is
    handed on at once (its rows must go out before more input comes)."""
    line = table._line + 1  # the pieces of a regular file start after the header
    pending: deque[tuple[Piece, Future]] = deque()

    def done() -> Iterator[tuple[Parsed, int, bool]]:
        """The next piece; one that does not parse: its rows before the bad line, then the
        error (as :meth:`~hodyn_cli.io.tables.CsvTable.blocks` does, read one by one)."""
        nonlocal line
        piece, future = pending.popleft()
        first = piece.first_line if piece.first_line is not None else line
        bad = None
        try:
            parsed = future.result()
        except BadLine as e:
            parsed, bad = e.before, e
        line = first + parsed.newlines
        table.tally(len(parsed.values), len(piece.raw) if piece.raw is not None
                    else piece.span[1] - piece.span[0])  # the progress bar's estimate
        yield parsed, first, piece.paused
        if bad is not None:
            raise bad.error(first, table.path)

    try:
        for piece in table.pieces():
            pending.append((piece, executor.submit(table.parse_piece, piece, wanted)))
            while pending and (len(pending) > ahead or piece.paused):
                yield from done()
        while pending:
            yield from done()
    finally:  # stopped early: the pieces not started are dropped
        for _, future in pending:
            future.cancel()
