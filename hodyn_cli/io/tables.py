"""Tables of float columns read block by block: CSV (files and stdin) and HDF5.

Memory is bounded by a block, never by the file. :class:`CsvTable` cuts the byte stream at
line ends into blocks of about ``block_bytes`` (from a pipe it takes whatever has arrived,
so a pipeline's first rows move on before its input ends) and parses each block with
pyarrow's C++ CSV reader; only when a block does not parse is it read again line by line,
to name the line that is wrong. :class:`Hdf5Table` reads hyperslabs of its datasets.
A block is one 2-D float array, (rows, columns) in the order the caller asked for.
:func:`rechunk` turns the blocks into chunks of an exact number of rows.
"""

from __future__ import annotations

import csv
import io
import os
import re
import select
import stat
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io.columns import MOTION_DATASET, motion_suffixes

#: HDF5 dataset holding q and all its derivatives, (N, D+1, n): [s, k, j] = d^k q_j / dt^k
COMPACT = "q_derivatives"
#: per-joint datasets (N x n, joint_names order): q and derivatives, the Slotine-Li references
#: qr_d, qr_dd, torques tau, taud, ... (the input of forward dynamics)
JOINT_DATASET = r"qd*|qr_d+|taud*"
BLOCK_BYTES = 1 << 22
BLOCK_ROWS = 1 << 16
#: how often (s) a read waiting on a pipe looks whether it was cancelled
POLL = 0.1

Block = np.ndarray  # (rows, wanted columns)


class CsvTable:
    """A CSV file (``-``: stdin) as columns of floats, read in blocks.

    ``names``: the header's column names. :meth:`blocks` yields ``{name: (rows,)}`` for the
    ``wanted`` columns (default: all).
    """

    def __init__(self, path: str, stdin=None, block_bytes: int = BLOCK_BYTES):
        self.path, self.block_bytes = path, block_bytes
        try:
            if path == "-":
                src = stdin if stdin is not None else sys.stdin
                self._stream = getattr(src, "buffer", None) or io.BytesIO(src.read().encode())
                self._owned = False
            else:
                self._stream = open(path, "rb")  # noqa: SIM115 - closed in close()
                self._owned = True
        except OSError as e:
            raise TrajectoryError(f"cannot read: {e.strerror or e}", path) from None
        #: a pipe or terminal is read by its descriptor, waiting in ``select`` (cancellable);
        #: a regular file (or an in-memory stream) through its buffered stream
        self._pipe = _waiting_fd(self._stream)
        self._left = b""  # bytes read past the header
        self._cancelled = threading.Event()
        self.n_rows: int | None = None
        self.paused = False  # the input (a pipe) had nothing more when the last block was cut
        self._line = 0  # lines consumed so far
        #: recent blocks as (first sample, the line of each of their rows), to name lines
        self._recent: deque[tuple[int, np.ndarray]] = deque(maxlen=64)
        self._samples = 0
        self.names = self._header()
        #: a regular file's data bytes (after the header) and those parsed so far: what
        #: :attr:`expected_rows` scales by
        self._data_bytes = _data_bytes(self._stream, self._pipe, len(self._left))
        self._parsed = 0

    def cancel(self) -> None:
        """End the blocks early, also from another thread while a read waits on a pipe: a
        stream stopped by an error must not wait for a producer that may never write."""
        self._cancelled.set()

    def _read(self, n: int) -> bytes:
        """Up to ``n`` bytes as they arrive; b"" at the end of the input or once cancelled."""
        if self._left:
            data, self._left = self._left[:n], self._left[n:]
            return data
        try:
            if self._pipe is None:
                return getattr(self._stream, "read1", self._stream.read)(n)
            while not select.select([self._pipe], [], [], POLL)[0]:
                if self._cancelled.is_set():
                    return b""
            return os.read(self._pipe, n)
        except OSError as e:
            raise TrajectoryError(f"cannot read: {e.strerror or e}", self.path) from None

    def _readline(self) -> bytes:
        line = b""
        while not line.endswith(b"\n"):
            data = self._read(1 << 16)
            if not data:
                break
            cut = data.find(b"\n") + 1 or len(data)
            line, self._left = line + data[:cut], data[cut:] + self._left
        return line

    def _header(self) -> list[str]:
        while True:
            raw = self._readline()
            self._line += 1
            if not raw:
                raise TrajectoryError("empty file (expected a header row)", self.path)
            text = self._decode(raw)
            if text.strip():
                break
        # spreadsheets in many locales write ';' between fields and ',' as the decimal mark
        self.delimiter = ";" if text.count(";") > text.count(",") else ","
        header = [h.strip() for h in next(csv.reader([text], delimiter=self.delimiter))]
        seen = set()
        for h in header:
            if not h:
                raise TrajectoryError("empty column name in the header", self.path)
            if h in seen:
                raise TrajectoryError(f"column '{h}' appears twice", self.path)
            seen.add(h)
        return header

    def _decode(self, raw: bytes) -> str:
        try:
            return raw.decode("utf-8-sig" if self._line == 1 else "utf-8")
        except UnicodeDecodeError:
            raise TrajectoryError(f"line {self._line} is not UTF-8 text", self.path) from None

    def _raw_blocks(self) -> Iterator[tuple[int, bytes]]:
        """``(first line number, bytes)`` of whole lines."""
        pending = b""
        while not self._cancelled.is_set():
            data = self._read(self.block_bytes)
            if not data:
                break
            pending += data
            waiting = self._more_waiting()
            if len(pending) < self.block_bytes and waiting:
                continue  # fewer, bigger blocks while input is there; a pipe that waits: go
            self.paused = not waiting
            cut = pending.rfind(b"\n") + 1
            if cut:
                block, pending = pending[:cut], pending[cut:]
                yield self._line + 1, block
                self._line += block.count(b"\n")
        if pending.strip() and not self._cancelled.is_set():
            yield self._line + 1, pending

    def _more_waiting(self) -> bool:
        """True unless the input is a pipe or terminal with nothing to read right now."""
        return self._pipe is None or bool(select.select([self._pipe], [], [], 0)[0])

    def blocks(self, wanted: list[str] | None = None) -> Iterator[Block]:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        wanted = list(self.names) if wanted is None else wanted
        # one thread per block: hodyn parses blocks on its own threads, which it joins on
        # every exit; pyarrow's thread pool, still parsing the rest of a block when a bad
        # line ended the run, aborted the process at exit (std::terminate, 4 % of runs)
        read_opts = pcsv.ReadOptions(column_names=self.names, use_threads=False)
        parse_opts = pcsv.ParseOptions(delimiter=self.delimiter)
        convert = pcsv.ConvertOptions(column_types={n: pa.float64() for n in wanted},
                                      include_columns=wanted)
        for first_line, raw in self._raw_blocks():
            if self.delimiter == ";":
                raw = raw.replace(b",", b".")  # decimal commas (',' cannot separate fields)
            try:
                table = pcsv.read_csv(io.BytesIO(raw), read_options=read_opts,
                                      parse_options=parse_opts, convert_options=convert)
                ok = not any(col.null_count for col in table.columns)
            except (pa.ArrowInvalid, pa.ArrowTypeError):
                ok = False
            if ok:
                out = np.empty((table.num_rows, len(wanted)))
                for c, n in enumerate(wanted):
                    out[:, c] = table.column(n).to_numpy()
            else:  # find the line (or a form pyarrow refused but Python reads, e.g. " 2")
                out = self._slow_block(raw, first_line, wanted)
            self._remember(raw, first_line, len(out))
            yield out

    @property
    def expected_rows(self) -> int | None:
        """An estimate of the data rows of a regular file while it is read: the rows parsed
        so far scaled by its size (exact once it is read through; rows have about the same
        length in a trajectory file); None from a pipe or before the first block."""
        if self._data_bytes is None or not self._parsed:
            return None
        return max(self._samples, round(self._samples * self._data_bytes / self._parsed))

    def _remember(self, raw: bytes, first_line: int, rows: int) -> None:
        """Note the line of each row of a block (blank lines hold no row)."""
        self._parsed += len(raw)
        if raw.count(b"\n") + (not raw.endswith(b"\n")) == rows:  # no blank line: a range
            lines = np.arange(first_line, first_line + rows)
        else:
            text = raw.split(b"\n")
            lines = first_line + np.flatnonzero([bool(t.strip()) for t in text])[:rows]
        self._recent.append((self._samples, lines))
        self._samples += rows

    def line_of(self, sample: int) -> int | None:
        """The line of the file a sample (0-based data row) came from, if it was read
        recently (None otherwise)."""
        for first, lines in self._recent:
            if first <= sample < first + len(lines):
                return int(lines[sample - first])
        return None

    def _slow_block(self, raw: bytes, first_line: int, wanted: list[str]) -> Block:
        """Parse a block line by line: the values, or an error naming the line."""
        index = [self.names.index(n) for n in wanted]
        rows = []
        for offset, data in enumerate(raw.split(b"\n")):
            if not data.strip():
                continue
            line = first_line + offset
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise TrajectoryError(f"line {line} is not UTF-8 text", self.path) from None
            fields = next(csv.reader([text.rstrip("\r")], delimiter=self.delimiter))
            if len(fields) != len(self.names):
                raise TrajectoryError(f"line {line} has {len(fields)} fields, the header "
                                      f"{len(self.names)}", self.path)
            values = []
            for c in index:
                try:
                    values.append(float(fields[c]))
                except ValueError:
                    raise TrajectoryError(f"line {line}, column '{self.names[c]}': "
                                          f"'{fields[c]}' is not a number", self.path) from None
            rows.append(values)
        return np.array(rows, dtype=float).reshape(-1, len(wanted))

    def close(self) -> None:
        if self._owned:
            self._stream.close()


class Hdf5Table:
    """An HDF5 trajectory file seen as CSV-like columns, read in hyperslabs.

    Datasets ``t`` (N,), ``q``, ``qd``, ... (N, n) with root attribute ``joint_names``, or the
    compact ``q_derivatives`` (N, D+1, n); ``wrench/<link>/W``, ``Wd``, ... (N, 6); a link's
    motion ``p`` (N, 3), ``R`` (N, 3, 3), ``Vs``, ``Vb``, ... (N, 6), ``pd``, ... (N, 3).
    """

    def __init__(self, path: str, block_rows: int = BLOCK_ROWS):
        import h5py

        self.path, self.block_rows = path, block_rows
        try:
            self._file = h5py.File(path, "r")
        except OSError as e:
            raise TrajectoryError(f"cannot open as HDF5: {e}", path) from None
        try:
            self._where = self._columns()
        except BaseException:
            self._file.close()
            raise
        self.names = list(self._where)
        self.attrs = dict(self._file.attrs)
        self.paused = False
        lengths = {self._file[key].shape[0] for key, _ in self._where.values()}
        if len(lengths) > 1:
            self._file.close()
            raise TrajectoryError(f"datasets differ in length ({sorted(lengths)})", path)
        self.n_rows = lengths.pop()

    def _columns(self) -> dict[str, tuple[str, tuple]]:
        """column name -> (dataset path, index within a row)."""
        import h5py

        f, path = self._file, self.path
        where: dict[str, tuple[str, tuple]] = {}
        self.ignored: list[str] = []
        names = f.attrs.get("joint_names")
        q_sets = [k for k in f.keys() if re.fullmatch(JOINT_DATASET, k) or k == COMPACT]
        if q_sets and names is None:
            raise TrajectoryError("root attribute 'joint_names' is missing", path)
        if names is not None:
            names = [n.decode() if isinstance(n, bytes) else str(n) for n in np.atleast_1d(names)]
            twice = next((n for k, n in enumerate(names) if n in names[:k]), None)
            if twice is not None:  # its columns would be two joints' data under one name
                raise TrajectoryError(f"root attribute 'joint_names' names joint '{twice}' "
                                      "twice", path)
        for key in f.keys():
            obj = f[key]
            if key == "t":
                self._check(obj, key, 1)
                where["t"] = ("t", ())
            elif re.fullmatch(JOINT_DATASET, key):  # qr_d, qr_dd: Slotine-Li; tau..: forward
                self._check(obj, key, 2)
                if obj.shape[1] != len(names):
                    raise TrajectoryError(f"dataset '{key}' has {obj.shape[1]} columns, "
                                          f"joint_names {len(names)}", path)
                for c, name in enumerate(names):
                    where[f"{key}_{name}"] = (key, (c,))
            elif key == COMPACT:
                self._check(obj, key, 3)
                if obj.shape[2] != len(names):
                    raise TrajectoryError(f"dataset '{key}' has {obj.shape[2]} joints, "
                                          f"joint_names {len(names)}", path)
                if any(re.fullmatch(r"qd*", k) for k in q_sets):
                    raise TrajectoryError(f"has both '{key}' and q, qd, ... datasets: keep one",
                                          path)
                for k in range(obj.shape[1]):
                    for c, name in enumerate(names):
                        where[f"q{'d' * k}_{name}"] = (key, (k, c))
            elif MOTION_DATASET.fullmatch(key):  # a link's motion (hodyn kinematics)
                suffixes, rotation = motion_suffixes(key), key.removeprefix("base_") == "R"
                self._check(obj, key, 3 if rotation else 2)
                shape = (3, 3) if rotation else (len(suffixes),)
                if obj.shape[1:] != shape:
                    raise TrajectoryError(f"dataset '{key}' must be N x {' x '.join(map(str, shape))}"
                                          f", is {' x '.join(map(str, obj.shape))}", path)
                for c, sfx in enumerate(suffixes):
                    where[f"{key}_{sfx}"] = (key, divmod(c, 3) if rotation else (c,))
            elif key.startswith("contact_"):  # a contact's flag per sample (1 or 0)
                self._check(obj, key, 1)
                where[key] = (key, ())
            elif key == "wrench" and isinstance(obj, h5py.Group):
                for link in obj.keys():
                    for wkey in obj[link].keys():
                        full = f"wrench/{link}/{wkey}"
                        if not re.fullmatch(r"Wd*", wkey):
                            raise TrajectoryError(f"unexpected dataset '{full}'", path)
                        self._check(obj[link][wkey], full, 2)
                        if obj[link][wkey].shape[1] != 6:
                            shape = obj[link][wkey].shape
                            raise TrajectoryError(f"dataset '{full}' must be N x 6, is {shape[0]}"
                                                  f" x {shape[1]}", path)
                        for c, comp in enumerate(("mx", "my", "mz", "fx", "fy", "fz")):
                            where[f"{wkey}_{link}_{comp}"] = (full, (c,))
            else:  # not hodyn's (efforts, sensor data): left alone
                self.ignored.append(key)
        if not where:
            raise TrajectoryError("no datasets", path)
        return where

    def _check(self, obj, key: str, ndim: int) -> None:
        import h5py

        if not isinstance(obj, h5py.Dataset):
            raise TrajectoryError(f"'{key}' is a group, expected a dataset", self.path)
        if obj.ndim != ndim:
            raise TrajectoryError(f"dataset '{key}' has {obj.ndim} dimensions, expected {ndim}",
                                  self.path)
        if obj.dtype.kind not in "fiu":
            raise TrajectoryError(f"dataset '{key}' is not numeric", self.path)

    def blocks(self, wanted: list[str] | None = None) -> Iterator[Block]:
        wanted = self.names if wanted is None else wanted
        # dataset -> (output columns, their positions in a row of the dataset), found once
        by_set: dict[str, tuple[list[int], list[int]]] = {}
        for c, n in enumerate(wanted):
            key, index = self._where[n]
            cols, pos = by_set.setdefault(key, ([], []))
            cols.append(c)
            shape = self._file[key].shape[1:]
            pos.append(int(np.ravel_multi_index(index, shape)) if shape else 0)
        # each dataset read into a buffer of its own, reused block after block (fresh arrays
        # cost a page fault per 4 kB), then copied into the block's columns
        size = max(1, min(self.block_rows, self.n_rows))
        sets = [(ds, cols, pos, np.empty((size, *ds.shape[1:]), ds.dtype))
                for ds, (cols, pos) in ((self._file[key], v) for key, v in by_set.items())]
        for s in range(0, self.n_rows, self.block_rows):
            rows = min(self.block_rows, self.n_rows - s)
            out = np.empty((rows, len(wanted)))
            for ds, cols, pos, buffer in sets:
                ds.read_direct(buffer, np.s_[s : s + rows], np.s_[:rows])
                flat = buffer[:rows].reshape(rows, -1)
                if pos == list(range(pos[0], pos[0] + len(pos))) and \
                        cols == list(range(cols[0], cols[0] + len(cols))):  # one slab
                    out[:, cols[0] : cols[0] + len(cols)] = flat[:, pos[0] : pos[0] + len(pos)]
                else:
                    out[:, cols] = flat[:, pos]
            yield out

    @property
    def expected_rows(self) -> int:
        """The number of rows (known up front; :attr:`CsvTable.expected_rows` estimates)."""
        return self.n_rows

    def cancel(self) -> None:
        """Nothing to do: reading a file never waits for a producer."""

    def close(self) -> None:
        self._file.close()


def _data_bytes(stream, pipe: int | None, unread: int) -> int | None:
    """The bytes of a regular file after its header (``unread``: read ahead of the header's
    end); None for a pipe or an in-memory stream."""
    if pipe is not None:
        return None
    try:
        return os.fstat(stream.fileno()).st_size - (stream.tell() - unread)
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None


def _waiting_fd(stream) -> int | None:
    """The descriptor of a pipe or terminal (reads may wait), None for a regular file or an
    in-memory stream."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, io.UnsupportedOperation):
        return None
    return None if stat.S_ISREG(os.fstat(fd).st_mode) else fd


def open_table(path: str, stdin=None, rows: int = BLOCK_ROWS) -> CsvTable | Hdf5Table:
    """The table of a trajectory or wrench file (by its extension; ``-`` is CSV on stdin);
    an HDF5 file is read in blocks of ``rows`` samples (a CSV file in blocks of about
    ``BLOCK_BYTES``, cut at line ends)."""
    from hodyn_cli.io.paths import file_format

    if file_format(path) == "hdf5":
        if not Path(path).is_file():
            raise TrajectoryError("cannot open as HDF5: no such file", path)
        return Hdf5Table(path, rows)
    return CsvTable(path, stdin)


def rechunk(blocks: Iterator[Block], rows: int, flush: Callable[[], bool] = lambda: False
            ) -> Iterator[Block]:
    """The same columns in chunks of ``rows`` rows (the last one shorter); a shorter chunk
    also whenever ``flush()`` says so after a block (a pipe waiting for its producer)."""
    pending: list[Block] = []
    have = 0
    for block in blocks:
        if not len(block):
            continue
        pending.append(block)
        have += len(block)
        while have >= rows:
            merged = _concat(pending)
            yield merged[:rows]
            have -= rows
            pending = [merged[rows:]] if have else []
        if have and flush():
            yield _concat(pending)
            pending, have = [], 0
    if have:
        yield _concat(pending)


class Rows:
    """Rows taken from a stream of blocks by exact counts (a second file in lockstep)."""

    def __init__(self, blocks: Iterator[Block]):
        self._blocks, self._pending = blocks, None

    def take(self, n: int) -> Block | None:
        """The next ``n`` rows (fewer at the end of the data; None when it is exhausted)."""
        parts, have = [], 0
        while have < n:
            block = self._pending if self._pending is not None else next(self._blocks, None)
            self._pending = None
            if block is None:
                break
            if have + len(block) > n:
                block, self._pending = block[: n - have], block[n - have :]
            parts.append(block)
            have += len(block)
        return _concat(parts) if parts else None

    def remaining(self) -> int:
        """Number of rows left (reads them)."""
        left = len(self._pending) if self._pending is not None else 0
        return left + sum(len(b) for b in self._blocks)


def row_count(block: Block | None) -> int:
    return 0 if block is None else len(block)


def _concat(blocks: list[Block]) -> Block:
    return blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
