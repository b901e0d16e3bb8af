"""Results written chunk by chunk, atomically: CSV rows or HDF5 datasets.

A result is a set of named datasets, each (N, ...) over samples. ``columns`` maps every
dataset that goes to CSV to its column names (its trailing axes flattened in C order); HDF5
takes every dataset as it is (names with ``/`` make groups). A file output is built under a
temporary name and renamed over the target only when complete: an error mid-stream leaves no
partial file and an existing output untouched. On stdout the rows of every finished chunk
have been written (and flushed) when an error stops the stream; the exit status says so.

CSV numbers are written in the shortest form that reads back to the same float64
(round-trip exact, like ``repr``), by pyarrow's C++ CSV writer.
"""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from hodyn_cli.errors import cannot_write
from hodyn_cli.io.offsets import RawRows, early_allocation
from hodyn_cli.io.paths import atomic_path, check_room, file_format


class CsvSink:
    """CSV rows to a binary stream: the header before the first chunk, then each chunk
    (``name``: the file's, for errors; ``-`` is standard output)."""

    def __init__(self, stream, columns: dict[str, list[str]], flush: bool = False,
                 name: str = "-"):
        self.stream, self.columns, self.flush, self.name = stream, columns, flush, name
        self.names = [c for cols in columns.values() for c in cols]
        self._started = False
        self.attrs: dict = {}

    def encode(self, data: dict[str, np.ndarray]) -> memoryview:
        """The CSV text of one chunk (no header); thread-safe, so workers can do it."""
        import pyarrow as pa
        import pyarrow.csv as pcsv

        arrays = []
        for key, cols in self.columns.items():
            value = np.asarray(data[key], dtype=float)
            # (the row's size spelt out: -1 cannot be inferred from 0 samples)
            flat = value.reshape(len(value), int(np.prod(value.shape[1:], dtype=np.int64)))
            if flat.shape[1] != len(cols):
                raise ValueError(f"dataset {key}: {flat.shape[1]} columns, {len(cols)} names")
            # each column wrapped as it is, not converted: pa.array(ndarray) imports numpy.ma
            # (to look for a mask) on each start that writes CSV, 10-15 ms
            arrays += [pa.Array.from_buffers(pa.float64(), len(flat),
                                             [None, pa.py_buffer(np.ascontiguousarray(flat[:, c]))])
                       for c in range(flat.shape[1])]
        buf = io.BytesIO()
        pcsv.write_csv(pa.Table.from_arrays(arrays, names=self.names), buf,
                       write_options=pcsv.WriteOptions(include_header=False, quoting_style="none"))
        return buf.getbuffer()  # no copy of the text

    def write_encoded(self, text: memoryview) -> None:
        if not self._started:
            self._put((",".join(self.names) + "\n").encode())
            self._started = True
        self._put(text, flush=self.flush)

    def write(self, data: dict[str, np.ndarray]) -> None:
        self.write_encoded(self.encode(data))

    def close(self) -> None:
        if not self._started:  # no chunk at all: still a header
            self._put((",".join(self.names) + "\n").encode())
        self._put(b"", flush=True)

    def _put(self, data, flush: bool = False) -> None:
        try:
            self.stream.write(data)
            if flush:
                self.stream.flush()
        except BrokenPipeError:  # the reader of stdout went away: the CLI ends quietly
            raise
        except OSError as e:  # a full disk, a file-size limit, ...
            raise cannot_write(self.name, e) from None


#: sinks of HDF5 files whose write failed: the HDF5 library (2.0, h5py 3.16) crashes when
#: such a file is closed or its datasets are freed, so they are kept here, open; a process
#: that has any must end without its interpreter's clean-up (the command line does)
ABANDONED: list = []
#: room an HDF5 file needs beyond its data: the superblock and root group, and each
#: dataset's header (a resizable dataset's last chunk is allocated whole: its size more)
HDF5_FILE, HDF5_DATASET = 1 << 16, 1 << 12


class Hdf5Sink:
    """HDF5 datasets written block by block; root ``attrs`` set when the file is closed (so
    they may be added while writing).

    ``rows``, the number of samples the file will hold when the caller knows it (an HDF5
    input): each dataset is allocated whole at its first block, in HDF5's contiguous layout,
    and every block is one ``pwrite`` at its offset in the file, from any thread and in any
    order (:meth:`write_at`; a quarter less time than growing chunked datasets: no chunk
    index, no resize, no partly covered chunk written twice; and no h5py call, whose one
    lock would make the threads take turns). Unknown (a CSV stream): resizable chunked
    datasets grown by each block.

    Before each allocation or block the file-size limit and the free space are checked
    (:func:`~hodyn_cli.io.paths.check_room`): what the system would refuse is refused
    before HDF5 writes it, because a failed HDF5 write leaves a file that cannot be closed
    (:data:`ABANDONED`)."""

    def __init__(self, path: str, rows: int | None = None, name: str | None = None):
        import h5py

        self.name = name or path  # the output's name in errors (``path`` may be temporary)
        # no chunk cache: every chunk is written once and never read back; with the default
        # one (per open dataset) the HDF5 library held ~80 MB more for a 470 MB output. The
        # HDF5 1.8 format: attributes over 64 kB (a big robot's base_map and base-parameter
        # names) go to dense storage instead of failing
        try:
            self.file = h5py.File(path, "x", rdcc_nbytes=0, libver=("v108", "latest"))
        except OSError as e:
            raise cannot_write(self.name, e) from None
        self.path, self.rows = path, rows
        self.attrs: dict[str, object] = {}  # root attributes, set at close
        self._grown: dict[str, tuple] = {}  # name -> (dataset, rows written)
        self._end = HDF5_FILE  # the bytes the file will hold after the writes so far
        #: announced rows: each dataset's place in the file (None: written through h5py),
        #: the descriptor they are written through, the next row of :meth:`write`
        self._places: dict[str, RawRows | None] = {}
        self._fd: int | None = None
        self._next = 0
        self._lock = threading.Lock()

    @staticmethod
    def encode(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Every dataset contiguous (on the compute threads: a result's ``tau`` is often a
        strided view, which HDF5 would gather element by element on the writing thread)."""
        return {key: np.ascontiguousarray(value) for key, value in data.items()}

    def write_encoded(self, data: dict[str, np.ndarray]) -> None:
        self.write(data)

    def write(self, data: dict[str, np.ndarray]) -> None:
        if self.rows is not None:  # the next rows, where they lie in the file
            start = self._next
            self.write_at(data, start)
            self._next = start + len(next(iter(data.values()), ()))
            return
        if self in ABANDONED:
            raise cannot_write(self.name, OSError("an earlier write failed"))
        try:
            self._write(data)
        except (OSError, RuntimeError) as e:  # HDF5's errors come as either
            ABANDONED.append(self)
            raise cannot_write(self.name, e if isinstance(e, OSError) else OSError(str(e))
                               ) from None

    @property
    def positional(self) -> bool:
        """True when blocks may be written in any order, from any thread (:meth:`write_at`):
        the number of samples was announced."""
        return self.rows is not None

    def write_at(self, data: dict[str, np.ndarray], start: int) -> None:
        """Rows ``[start, start + m)`` of every dataset (announced ``rows`` only); thread-safe.
        The datasets are allocated whole at the first call, contiguous, and each block goes
        to its place in the file by ``pwrite`` (:mod:`~hodyn_cli.io.offsets`: no h5py call,
        so writes on many threads run at once)."""
        assert self.rows is not None  # announced rows only (positional)
        if self in ABANDONED:
            raise cannot_write(self.name, OSError("an earlier write failed"))
        with self._lock:
            for key, value in data.items():
                if key not in self._places:
                    self._allocate(key, np.asarray(value))
        for key, value in data.items():
            m = len(value)
            if start + m > self.rows:
                raise RuntimeError(f"'{key}' got more than the {self.rows} samples announced")
            raw = self._places[key]
            try:
                if raw is not None:
                    assert self._fd is not None  # opened with the first place (_allocate)
                    raw.write(self._fd, start, value)
                else:  # a type HDF5 converts: through h5py
                    with self._lock:
                        self._grown[key][0][start : start + m] = value
            except (OSError, RuntimeError) as e:  # a failed HDF5 write: the file is lost
                if raw is None:
                    ABANDONED.append(self)
                raise cannot_write(self.name, e if isinstance(e, OSError) else OSError(str(e))
                                   ) from None
            with self._lock:
                ds, n = self._grown[key]
                self._grown[key] = (ds, n + m)

    def _allocate(self, key: str, value: np.ndarray) -> None:
        """Dataset ``key`` of ``rows`` samples, its storage in the file at once (under the
        lock)."""
        assert self.rows is not None  # announced rows only (write_at)
        self._reserve(self.rows * value[:1].nbytes + HDF5_DATASET)  # whole
        try:
            ds = self.file.create_dataset(key, shape=(self.rows, *value.shape[1:]),
                                          dtype=value.dtype, dcpl=early_allocation())
            if self._fd is None:
                self._fd = os.open(self.path, os.O_WRONLY)
        except OSError as e:
            ABANDONED.append(self)
            raise cannot_write(self.name, e) from None
        self._grown[key] = (ds, 0)  # rows written, in any order
        self._places[key] = RawRows.of(ds)

    def _reserve(self, nbytes: int) -> None:
        """Room for ``nbytes`` more bytes, or an error before HDF5 writes them."""
        self._end += nbytes
        check_room(self.path, self._end, nbytes, self.name)

    def _write(self, data: dict[str, np.ndarray]) -> None:
        """The next block of resizable datasets (the number of samples is not known)."""
        for key, value in data.items():
            value = np.asarray(value)
            m = value.shape[0]
            if key not in self._grown:
                chunks = _chunk_shape(value)
                self._reserve(value.nbytes + HDF5_DATASET + int(np.prod(chunks)) * value.itemsize)
                # (a trailing axis of length 0, e.g. the torques of a robot without joints,
                # is resizable: HDF5 chunks no axis to 0 and no chunk beyond a fixed axis)
                ds = self.file.create_dataset(key, data=value, chunks=chunks,
                                              maxshape=(None, *(d or None for d in value.shape[1:])))
                self._grown[key] = (ds, m)
                continue
            # the datasets and their lengths kept here: h5py's lookups by name and of shapes
            # cost as much per call as writing a megabyte
            ds, n = self._grown[key]
            self._reserve(value.nbytes)
            ds.resize(n + m, axis=0)
            ds[n:n + m] = value
            self._grown[key] = (ds, n + m)

    def close(self, complete: bool = True) -> None:
        """Set the attributes and close; ``complete``: the caller wrote everything (a file
        of announced ``rows`` must then hold them all)."""
        import h5py

        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self in ABANDONED:
            return
        short = [k for k, (_, n) in self._grown.items() if n != self.rows]
        if complete and self.rows is not None and short:
            self.file.close()
            raise RuntimeError(f"'{short[0]}' got {self._grown[short[0]][1]} of the "
                             f"{self.rows} samples announced")
        try:
            for key, value in self.attrs.items():
                if isinstance(value, list | tuple) and (not value or isinstance(value[0], str)):
                    # names (an empty list too: the joint names of a robot without joints)
                    value = np.array(list(value), dtype=h5py.string_dtype())
                self.file.attrs[key] = value
            self.file.close()
        except (OSError, RuntimeError) as e:
            ABANDONED.append(self)
            raise cannot_write(self.name, e if isinstance(e, OSError) else OSError(str(e))
                               ) from None


def _chunk_shape(value: np.ndarray) -> tuple[int, ...]:
    """HDF5 chunks of ~256 KiB along samples, no longer than the first block written (a
    small file is not padded to a whole chunk; a stream's first block is a full one)."""
    row = max(1, int(np.prod(value.shape[1:], dtype=np.int64)) * value.itemsize)
    rows = min(1 << 16, (1 << 18) // row, value.shape[0])
    return (max(1, rows), *(max(1, d) for d in value.shape[1:]))


@contextmanager
def open_sink(path: str, columns: dict[str, list[str]], attrs: dict | None = None,
              stdout=None, rows: int | None = None) -> Iterator[CsvSink | Hdf5Sink]:
    """A sink for ``path`` (``.csv``, ``.h5``/``.hdf5``, or ``-`` for CSV on stdout).

    The file appears, complete, only when the block ends without an error. ``rows``: the
    number of samples every dataset will hold, when known (HDF5 datasets are then
    allocated whole, :class:`Hdf5Sink`).
    """
    sink: CsvSink | Hdf5Sink
    if path == "-":
        stream = stdout if stdout is not None else sys.stdout
        sink = CsvSink(getattr(stream, "buffer", stream), columns, flush=True, name="-")
        yield sink
        sink.close()
        return
    fmt = file_format(path)
    with atomic_path(path) as tmp:
        if fmt == "csv":
            try:
                fh = open(tmp, "xb")  # noqa: SIM115 - closed below
            except OSError as e:
                raise cannot_write(path, e) from None
            with fh:
                sink = CsvSink(fh, columns, name=path)
                yield sink
                sink.close()
        else:
            sink = Hdf5Sink(tmp, rows, name=path)
            sink.attrs.update(attrs or {})
            complete = False
            try:
                yield sink
                complete = True
            finally:
                sink.close(complete)


def write_datasets(path: str, data: dict[str, np.ndarray], columns: dict[str, list[str]],
                   attrs: dict | None = None, stdout=None) -> None:
    """Write one in-memory result (see :func:`open_sink`)."""
    with open_sink(path, columns, attrs, stdout, rows=len(next(iter(data.values()), ()))) as sink:
        sink.write(data)
