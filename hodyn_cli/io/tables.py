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

import io
import os
import re
import select
import stat
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io.columns import MOTION_DATASET, motion_suffixes
from hodyn_cli.io.offsets import RawRows

#: HDF5 dataset holding q and all its derivatives, (N, D+1, n): [s, k, j] = d^k q_j / dt^k
COMPACT = "q_derivatives"
#: per-joint datasets (N x n, joint_names order): q and derivatives, the Slotine-Li references
#: qr_d, qr_dd, torques tau, taud, ... (the input of forward dynamics), the measured efforts
#: of a log ``hodyn import`` wrote
JOINT_DATASET = r"qd*|qr_d+|taud*|effort"
#: motor currents and their rates (``hodyn compute --drives``): N x k, the columns of the root
#: attribute ``current_joint_names`` (only the joints whose drive has a torque constant)
CURRENT_DATASET = r"currentd*"
BLOCK_BYTES = 1 << 22
#: bytes of a regular CSV file each thread parses at once (at most ``block_bytes``): smaller
#: than a block, as several threads parse ahead at once and each piece holds its bytes, their
#: copy in pyarrow and its values until parsed (measured on 8 threads, 300 000 iiwa samples:
#: 4 MB pieces peaked at 330 MB of RSS, 1 MB pieces at 280 MB; as fast within the noise)
SPAN_BYTES = 1 << 20
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
                # a binary stream (stdin's copy, :mod:`hodyn_cli.io.spool`), a text stream's
                # buffer, or text in memory
                self._stream = src if isinstance(src, io.BufferedIOBase) else \
                    getattr(src, "buffer", None) or io.BytesIO(src.read().encode())
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
        try:
            header = [h.strip() for h in _fields(text, self.delimiter)]
        except ValueError as e:
            raise TrajectoryError(f"line {self._line} (the header): {e}", self.path) from None
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
        """``(first line number, bytes)`` of whole lines: from a pipe up to ``block_bytes``,
        from a file read in order (stdin redirected from one, stdin's copy:
        :mod:`hodyn_cli.io.spool`) up to a span, as a file's pieces are (4 MB blocks held ~30 MiB
        more: validate --samples 0 of the iiwa's 1e5 samples from stdin's copy peaked at 174
        MiB, at 148 MiB in 1 MB blocks, 141 MiB from the file)."""
        size = self.block_bytes if self._pipe is not None else min(self.block_bytes,
                                                                   SPAN_BYTES)
        pending = b""
        while not self._cancelled.is_set():
            data = self._read(size)
            if not data:
                break
            pending += data
            waiting = self._more_waiting()
            if len(pending) < size and waiting:
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
        wanted = list(self.names) if wanted is None else wanted
        for first_line, raw in self._raw_blocks():
            bad = None
            try:
                out = self.parse(raw, wanted)
            except BadLine as e:  # the rows before the line first: their own faults come first
                out, bad = e.before.values, e
            self._remember(raw, first_line, len(out))
            yield out
            if bad is not None:
                raise bad.error(first_line, self.path)

    def pieces(self) -> Iterator[Piece]:
        """What :meth:`parse_piece` turns into blocks, in order, read as little as possible
        here: a regular file's byte ranges of ``SPAN_BYTES`` (each parsed where it is
        read, on any thread), else (a pipe, a terminal, a stream in memory) the blocks of
        whole lines as they arrive. Thread-safe to parse; to take in order."""
        fd = self._stream.fileno() if self._owned and self._pipe is None else None
        if fd is None or not stat.S_ISREG(os.fstat(fd).st_mode):
            for first_line, raw in self._raw_blocks():
                yield Piece(raw=raw, paused=self.paused, first_line=first_line)
            return
        begin = self._stream.tell() - len(self._left)  # the first byte after the header
        end = os.fstat(fd).st_size
        step = min(self.block_bytes, SPAN_BYTES)
        for a in range(begin, end, step):
            if self._cancelled.is_set():
                return
            yield Piece(span=(a, min(a + step, end), a == begin), fd=fd)

    def parse_piece(self, piece: Piece, wanted: list[str]) -> Parsed:
        """The rows of ``piece`` (thread-safe): their values, the line of each relative to
        the piece's first line, and how many line ends the piece has. A line that does not
        parse raises :class:`BadLine` (its number within the piece)."""
        raw = piece.raw if piece.raw is not None else _lines_starting_in(piece.fd, *piece.span)
        values = self.parse(raw, wanted)
        return Parsed(values, _row_lines(raw, len(values)), raw.count(b"\n"))

    def parse(self, raw: bytes, wanted: list[str]) -> Block:
        """The ``wanted`` columns of a block of whole lines (thread-safe); a line that does not
        parse raises :class:`BadLine`."""
        import pyarrow as pa
        import pyarrow.csv as pcsv

        # one thread per block: hodyn parses blocks on its own threads, which it joins on
        # every exit; pyarrow's thread pool, still parsing the rest of a block when a bad
        # line ended the run, aborted the process at exit (std::terminate, 4 % of runs)
        read_opts = pcsv.ReadOptions(column_names=self.names, use_threads=False)
        parse_opts = pcsv.ParseOptions(delimiter=self.delimiter)
        convert = pcsv.ConvertOptions(column_types={n: pa.float64() for n in wanted},
                                      include_columns=wanted)
        if self.delimiter == ";":
            raw = raw.replace(b",", b".")  # decimal commas (',' cannot separate fields)
        try:
            table = pcsv.read_csv(pa.BufferReader(pa.py_buffer(raw)), read_options=read_opts,
                                  parse_options=parse_opts, convert_options=convert)
            ok = not any(col.null_count for col in table.columns)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            ok = False
        if not ok:  # find the line (or a form pyarrow refused but Python reads, e.g. " 2")
            return self._slow_block(raw, wanted)
        out = np.empty((table.num_rows, len(wanted)))
        for c, n in enumerate(wanted):
            out[:, c] = table.column(n).to_numpy()
        return out

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
        self._recent.append((self._samples, first_line + _row_lines(raw, rows)))
        self.tally(rows, len(raw))

    def tally(self, rows: int, size: int) -> None:
        """Count ``rows`` rows parsed from ``size`` bytes (what :attr:`expected_rows` scales
        by), here or where the pieces are settled in order."""
        self._parsed += size
        self._samples += rows

    def line_of(self, sample: int) -> int | None:
        """The line of the file a sample (0-based data row) came from, if it was read
        recently (None otherwise)."""
        for first, lines in self._recent:
            if first <= sample < first + len(lines):
                return int(lines[sample - first])
        return None

    def _slow_block(self, raw: bytes, wanted: list[str]) -> Block:
        """Parse a block line by line: the values, or :class:`BadLine` naming the first line
        that does not parse (with the rows before it)."""
        index = [self.names.index(n) for n in wanted]
        rows: list[list[float]] = []
        lines: list[int] = []
        for offset, data in enumerate(raw.split(b"\n")):
            if not data.strip():
                continue
            try:
                rows.append(self._slow_row(data, index))
            except ValueError as e:
                before = Parsed(np.array(rows, dtype=float).reshape(-1, len(wanted)),
                                np.array(lines, dtype=int), offset)
                raise BadLine(offset, str(e), before) from None
            lines.append(offset)
        return np.array(rows, dtype=float).reshape(-1, len(wanted))

    def _slow_row(self, data: bytes, index: list[int]) -> list[float]:
        """The ``index`` columns of one line; ValueError with what follows its number in
        the message (``line N``: :meth:`BadLine.error` adds it) where it does not parse."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(" is not UTF-8 text") from None
        try:
            fields = _fields(text.rstrip("\r"), self.delimiter)
        except ValueError as e:
            raise ValueError(f": {e}") from None
        if len(fields) != len(self.names):
            raise ValueError(f" has {len(fields)} fields, the header {len(self.names)}")
        values = []
        for c in index:
            try:
                values.append(float(fields[c]))
            except ValueError:
                raise ValueError(f", column '{self.names[c]}': '{fields[c]}' is not a "
                                 "number") from None
        return values

    def close(self) -> None:
        if self._owned:
            self._stream.close()


class Hdf5Table:
    """An HDF5 trajectory file seen as CSV-like columns, read in hyperslabs.

    Datasets ``t`` (N,), ``q``, ``qd``, ... (N, n) with root attribute ``joint_names``, or the
    compact ``q_derivatives`` (N, D+1, n); ``wrench/<link>/W``, ``Wd``, ... (N, 6); a link's
    motion ``p`` (N, 3), ``R`` (N, 3, 3), ``Vs``, ``Vb``, ... (N, 6), ``pd``, ... (N, 3); a
    log's measured ``effort`` (N, n: columns ``effort_<joint>``) and motor currents
    ``current``, ``currentd``, ... (N, k: columns ``current_<joint>``, the joints of the root
    attribute ``current_joint_names``).
    """

    def __init__(self, path: str, block_rows: int = BLOCK_ROWS):
        import h5py

        self.path, self.block_rows = path, block_rows
        #: open while :func:`held` holds it: :meth:`close` by each reader leaves it open
        self.held = False
        try:
            self._file = h5py.File(path, "r")
        except OSError as e:
            raise TrajectoryError(f"cannot open as HDF5: {e}", path) from None
        #: each dataset's h5py object, looked up once (by :meth:`_check`): a lookup costs
        #: ~0.1 ms in h5py, and a column's plan, the lengths and the raw rows had each looked
        #: up their datasets again (~60 lookups an open of a file with 6 joints and 5 orders)
        self._datasets: dict[str, Any] = {}
        try:
            self._where = self._columns()
        except BaseException:
            self._file.close()
            raise
        self.names = list(self._where)
        self.attrs = dict(self._file.attrs)
        self.paused = False
        # (each dataset once: a joint's columns share theirs)
        datasets = list(dict.fromkeys(key for key, _ in self._where.values()))
        lengths = {self._datasets[key].shape[0] for key in datasets}
        if len(lengths) > 1:
            self._file.close()
            raise TrajectoryError(f"datasets differ in length ({sorted(lengths)})", path)
        self.n_rows = lengths.pop()
        self._plans: dict = {}
        self._local = threading.local()
        #: datasets read at their offsets in the file, through a descriptor of its own
        self._raw = {key: raw for key in datasets
                     if (raw := RawRows.of(self._datasets[key])) is not None}
        self._fd = os.open(path, os.O_RDONLY) if self._raw else None

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
            elif re.fullmatch(CURRENT_DATASET, key):
                self._check(obj, key, 2)
                for c, name in enumerate(self._current_joints(obj.shape[1])):
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
            else:  # not hodyn's (sensor data): left alone
                self.ignored.append(key)
        if not where:
            raise TrajectoryError("no datasets", path)
        return where

    def _current_joints(self, columns: int) -> list[str]:
        """The joints of the ``current`` datasets' columns (root attribute
        ``current_joint_names``, as ``hodyn compute --drives`` writes it)."""
        names = self._file.attrs.get("current_joint_names")
        if names is None:
            raise TrajectoryError("dataset 'current' needs the root attribute "
                                  "'current_joint_names' (its columns' joints)", self.path)
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in np.atleast_1d(names)]
        if len(names) != columns:
            raise TrajectoryError(f"dataset 'current' has {columns} columns, "
                                  f"current_joint_names {len(names)}", self.path)
        return names

    def _check(self, obj, key: str, ndim: int) -> None:
        import h5py

        if not isinstance(obj, h5py.Dataset):
            raise TrajectoryError(f"'{key}' is a group, expected a dataset", self.path)
        if obj.ndim != ndim:
            raise TrajectoryError(f"dataset '{key}' has {obj.ndim} dimensions, expected {ndim}",
                                  self.path)
        if obj.dtype.kind not in "fiu":
            raise TrajectoryError(f"dataset '{key}' is not numeric", self.path)
        self._datasets[key] = obj

    def blocks(self, wanted: list[str] | None = None) -> Iterator[Block]:
        wanted = self.names if wanted is None else wanted
        rows = self.block_rows  # (this reader's: a held table's next reader may set others)
        for s in range(0, self.n_rows, rows):
            yield self.read(s, min(rows, self.n_rows - s), wanted)

    def read(self, start: int, rows: int, wanted: list[str]) -> Block:
        """Rows ``[start, start + rows)`` of the ``wanted`` columns; thread-safe. Contiguous
        datasets are read at their offsets in the file (:mod:`hodyn_cli.io.offsets`: on any
        number of threads at once), the others through h5py (one thread at a time)."""
        out = np.empty((rows, len(wanted)))
        for key, cols, pos, raw in self._plan(tuple(wanted)):
            buffer = self._buffer(key, rows)
            if raw is not None:
                assert self._fd is not None  # opened as there are raw rows (closed: no reads)
                raw.read(self._fd, start, rows, buffer)
            else:
                self._datasets[key].read_direct(buffer, np.s_[start : start + rows],
                                                np.s_[:rows])
            flat = buffer[:rows].reshape(rows, -1)
            if pos == list(range(pos[0], pos[0] + len(pos))) and \
                    cols == list(range(cols[0], cols[0] + len(cols))):  # one slab
                out[:, cols[0] : cols[0] + len(cols)] = flat[:, pos[0] : pos[0] + len(pos)]
            else:
                out[:, cols] = flat[:, pos]
        return out

    def _plan(self, wanted: tuple[str, ...]) -> list[tuple[str, list[int], list[int], RawRows | None]]:
        """Per dataset: its output columns, their positions in a row of the dataset, and its
        raw rows where it can be read at its offset; found once per set of columns."""
        plan = self._plans.get(wanted)
        if plan is None:
            by_set: dict[str, tuple[list[int], list[int]]] = {}
            for c, n in enumerate(wanted):
                key, index = self._where[n]
                cols, pos = by_set.setdefault(key, ([], []))
                cols.append(c)
                shape = self._datasets[key].shape[1:]
                pos.append(int(np.ravel_multi_index(index, shape)) if shape else 0)
            plan = [(key, cols, pos, self._raw.get(key)) for key, (cols, pos) in by_set.items()]
            self._plans[wanted] = plan
        return plan

    def _buffer(self, key: str, rows: int) -> np.ndarray:
        """This thread's buffer for dataset ``key``, reused block after block (fresh arrays
        cost a page fault per 4 kB)."""
        buffers = self._local.__dict__.setdefault("buffers", {})
        buffer = buffers.get(key)
        if buffer is None or len(buffer) < rows:
            ds = self._datasets[key]
            buffer = buffers[key] = np.empty((max(rows, min(self.block_rows, self.n_rows)),
                                              *ds.shape[1:]), ds.dtype)
        return buffer

    @property
    def expected_rows(self) -> int:
        """The number of rows (known up front; :attr:`CsvTable.expected_rows` estimates)."""
        return self.n_rows

    def cancel(self) -> None:
        """Nothing to do: reading a file never waits for a producer."""

    def close(self) -> None:
        if self.held:
            return
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
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


@dataclass(frozen=True, eq=False, repr=False)
class Piece:
    """A part of a CSV file to parse: ``raw`` bytes of whole lines already read (from a
    pipe: ``paused``, the input had nothing more when it was cut; ``first_line``, the line
    it starts on), or the ``span`` (begin, end, begin is the first data byte) of a regular
    file ``fd`` whose lines starting there it holds."""

    raw: bytes | None = None
    paused: bool = False
    first_line: int | None = None
    span: tuple[int, int, bool] = (0, 0, True)
    fd: int = -1


@dataclass(frozen=True, eq=False, repr=False)
class Parsed:
    """A parsed :class:`Piece`: ``values`` (rows, columns), ``lines`` the line of each row
    relative to the piece's first line, ``newlines`` the line ends it holds."""

    values: Block
    lines: np.ndarray
    newlines: int


class BadLine(Exception):  # noqa: N818 - not an error of its own: turned into one
    """A line of a block that does not parse: its ``offset`` from the block's first line,
    what is wrong with it (``what``: the message after ``line N``; the line's own text is
    never a template: a cell ``{x}`` is named as it is), and ``before``, the rows of the
    block before it.

    Those rows go on before the error (:meth:`CsvTable.blocks`, :mod:`hodyn_cli.io.tasks`):
    a fault in a chunk that ends before the line is the one named, however the file is cut
    into blocks (4 MB read one by one, 1 MB spans parsed on threads): ``--jobs 1`` and
    ``--jobs N`` name the same one."""

    def __init__(self, offset: int, what: str, before: Parsed):
        super().__init__(what)
        self.offset, self.what, self.before = offset, what, before

    def error(self, first_line: int, path: str) -> TrajectoryError:
        return TrajectoryError(f"line {first_line + self.offset}{self.what}", path)


def _fields(line: str, delimiter: str) -> list[str]:
    """The fields of one CSV line; ValueError saying why where Python's reader refuses it
    (a field over its size limit: a column name or number of 128 KiB is no trajectory's, and
    raising the limit would change it for the whole process).

    >>> _fields('q_a,"x,y"', ",")
    ['q_a', 'x,y']
    >>> _fields("1," + "9" * 200000, ",")
    Traceback (most recent call last):
    ValueError: a field of more than 131072 characters
    """
    import csv  # (here: an HDF5 input's command skips its import)

    try:
        return next(csv.reader([line], delimiter=delimiter))
    except csv.Error as e:
        if "field limit" in str(e):
            raise ValueError(f"a field of more than {csv.field_size_limit()} characters") from None
        raise ValueError(f"not CSV ({e})") from None


def _row_lines(raw: bytes, rows: int) -> np.ndarray:
    """The line of each of a block's ``rows`` rows relative to its first line (blank lines
    hold no row)."""
    ends = raw.count(b"\n") + (not raw.endswith(b"\n"))
    if ends == rows:  # no blank line: a range
        return np.arange(rows)
    text = raw.split(b"\n")
    return np.flatnonzero([bool(t.strip()) for t in text])[:rows]


#: bytes read past a span's end at once to find the end of its last line
OVERHANG = 1 << 16


def _lines_starting_in(fd: int, begin: int, end: int, first: bool) -> bytes:
    """The bytes of the lines of regular file ``fd`` that start in ``[begin, end)`` (a line
    starts at the first data byte, ``first``, or after a line end), read with ``pread``:
    neighbouring spans share no line and miss none, wherever their bounds fall."""
    low = begin if first else begin - 1  # a line starts at begin if the byte before ends one
    data = bytearray(os.pread(fd, end - low + OVERHANG, low))
    if first:
        start = 0
    else:
        start = data.find(b"\n", 0, end - begin) + 1  # a line end before position end - 1
        if not start:  # no line starts here (one long line spans the range)
            return b""
    stop = data.find(b"\n", end - 1 - low)
    while stop < 0:  # the last line goes on past what was read
        more = os.pread(fd, OVERHANG, low + len(data))
        if not more:
            stop = len(data) - 1  # the file ends without a line end
            break
        data += more
        stop = data.find(b"\n", end - 1 - low)
    return memoryview(data)[start : stop + 1].tobytes()


def open_table(path: str, stdin=None, rows: int = BLOCK_ROWS) -> CsvTable | Hdf5Table:
    """The table of a trajectory or wrench file (by its extension; ``-`` is CSV on stdin);
    an HDF5 file is read in blocks of ``rows`` samples (a CSV file in blocks of about
    ``BLOCK_BYTES``, cut at line ends). Within :func:`held` of ``path``: its one table,
    opened by the first call, in blocks of the latest caller's ``rows``."""
    from hodyn_cli.io.paths import file_format

    if file_format(path) == "hdf5":
        held_here = _held()
        table = held_here.get(path)
        if table is not None:
            table.block_rows = rows
            return table
        if not Path(path).is_file():
            raise TrajectoryError("cannot open as HDF5: no such file", path)
        table = Hdf5Table(path, rows)
        if path in held_here and table.n_rows <= BLOCK_ROWS:
            table.held, held_here[path] = True, table
        return table
    return CsvTable(path, stdin)


#: per thread, path -> the HDF5 table :func:`held` keeps open (None until :func:`open_table`
#: opens it): a thread's own, so that two threads holding one file (library callers of the
#: pipeline's retiming) do not close it under each other (review40: h5py's "unable to get
#: dataspace" in the second)
_HELD = threading.local()


def _held() -> dict[str, Hdf5Table | None]:
    """This thread's tables held open (:data:`_HELD`)."""
    if not hasattr(_HELD, "tables"):
        _HELD.tables = {}
    return _HELD.tables


@contextmanager
def held(path: str) -> Iterator[None]:
    """Within: :func:`open_table` of the HDF5 file at ``path`` opens it once, every later
    call (each pass over the file, its columns looked up before) hands out the same table,
    whose ``close()`` leaves it open; closed on leaving. ``retime --optimal`` reads its
    input in 4 passes or more (the time law's, the output's), each had opened the file and
    looked up its datasets afresh, and its columns were read once before them (~2-4 ms an
    opening). Nested: the outermost one holds; a CSV file or stdin: nothing held (read
    afresh, front to back). Only a file of at most :data:`BLOCK_ROWS` rows: a longer one's
    passes take seconds, its openings nothing, and held open it peaked higher (10^5 iiwa
    samples, ``retime --optimal``: 219-229 MB against 196 MB; the same bits). The blocks'
    buffers and the columns' plans are the table's, made once; a read takes its rows and
    columns as arguments, so readers of it may overlap (:meth:`Hdf5Table.read` is
    thread-safe)."""
    held_here = _held()
    if path in held_here:
        yield
        return
    held_here[path] = None
    try:
        yield
    finally:
        table = held_here.pop(path)
        if table is not None:
            table.held = False
            table.close()


def empty(table: CsvTable | Hdf5Table, path: str) -> TrajectoryError:
    """The error of an input without a sample, in its format's words (a CSV header without
    rows; HDF5 datasets of 0 rows: the CSV words named no row an HDF5 file has)."""
    if isinstance(table, Hdf5Table):
        return TrajectoryError("no samples: its datasets have 0 rows", path)
    return TrajectoryError("no data rows after the header", path)


def rechunk(blocks: Iterator[Block], rows: int, flush: Callable[[], bool] = lambda: False
            ) -> Iterator[Block]:
    """The same columns in chunks of ``rows`` rows (the last one shorter); a shorter chunk
    also whenever ``flush()`` says so after a block (a pipe waiting for its producer)."""
    pending: list[Block] = []
    have = 0
    try:
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
    except TrajectoryError:  # a line that does not parse: the rows before it go on first
        if have:  # (their own faults are named first)
            yield _concat(pending)
        raise
    if have:
        yield _concat(pending)


class Rows:
    """Rows taken from a stream of blocks by exact counts (a second file in lockstep).

    An error of the blocks (a line that does not parse) ends them; it is kept in
    :attr:`fault`, for the reader to raise unless the other file has a fault before it."""

    def __init__(self, blocks: Iterator[Block]):
        self._blocks = blocks
        self._pending: Block | None = None
        self.fault: TrajectoryError | None = None

    def take(self, n: int) -> Block | None:
        """The next ``n`` rows (fewer at the end of the data or at a :attr:`fault`; None
        when there are none)."""
        parts: list[Block] = []
        have = 0
        while have < n:
            block = self._pending
            if block is None and self.fault is None:
                try:
                    block = next(self._blocks, None)
                except TrajectoryError as e:
                    self.fault = e
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
