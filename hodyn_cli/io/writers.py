"""Results written chunk by chunk, atomically: CSV rows or HDF5 resizable datasets.

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
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from hodyn_cli.io.paths import atomic_path, file_format


class CsvSink:
    """CSV rows to a binary stream: the header before the first chunk, then each chunk."""

    def __init__(self, stream, columns: dict[str, list[str]], flush: bool = False):
        self.stream, self.columns, self.flush = stream, columns, flush
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
            flat = value.reshape(value.shape[0], -1)
            if flat.shape[1] != len(cols):
                raise ValueError(f"dataset {key}: {flat.shape[1]} columns, {len(cols)} names")
            arrays += [np.ascontiguousarray(flat[:, c]) for c in range(flat.shape[1])]
        buf = io.BytesIO()
        pcsv.write_csv(pa.table(arrays, names=self.names), buf,
                       write_options=pcsv.WriteOptions(include_header=False, quoting_style="none"))
        return buf.getbuffer()  # no copy of the text

    def write_encoded(self, text: memoryview) -> None:
        if not self._started:
            self.stream.write((",".join(self.names) + "\n").encode())
            self._started = True
        self.stream.write(text)
        if self.flush:
            self.stream.flush()

    def write(self, data: dict[str, np.ndarray]) -> None:
        self.write_encoded(self.encode(data))

    def close(self) -> None:
        if not self._started:  # no chunk at all: still a header
            self.stream.write((",".join(self.names) + "\n").encode())
        self.stream.flush()


class Hdf5Sink:
    """HDF5 datasets grown chunk by chunk (resizable along samples); root ``attrs`` set when
    the file is closed (so they may be added while writing)."""

    def __init__(self, path: str):
        import h5py

        # no chunk cache: every chunk is written once and never read back; with the default
        # one (per open dataset) the HDF5 library held ~80 MB more for a 470 MB output. The
        # HDF5 1.8 format: attributes over 64 kB (a big robot's base_map and base-parameter
        # names) go to dense storage instead of failing
        self.file = h5py.File(path, "w", rdcc_nbytes=0, libver=("v108", "latest"))
        self.attrs: dict = {}
        self._grown: dict[str, tuple] = {}  # name -> (dataset, rows written)

    @staticmethod
    def encode(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        return data

    def write_encoded(self, data: dict[str, np.ndarray]) -> None:
        self.write(data)

    def write(self, data: dict[str, np.ndarray]) -> None:
        for key, value in data.items():
            value = np.asarray(value)
            if key not in self._grown:
                ds = self.file.create_dataset(key, data=value, maxshape=(None, *value.shape[1:]),
                                              chunks=_chunk_shape(value))
                self._grown[key] = (ds, value.shape[0])
                continue
            # the datasets and their lengths kept here: h5py's lookups by name and of shapes
            # cost as much per call as writing a megabyte
            ds, n = self._grown[key]
            ds.resize(n + value.shape[0], axis=0)
            ds[n:] = value
            self._grown[key] = (ds, n + value.shape[0])

    def close(self) -> None:
        import h5py

        for key, value in self.attrs.items():
            names = isinstance(value, list | tuple) and value and isinstance(value[0], str)
            self.file.attrs[key] = np.array(list(value), dtype=h5py.string_dtype()) if names \
                else value
        self.file.close()


def _chunk_shape(value: np.ndarray) -> tuple[int, ...]:
    """HDF5 chunks of ~256 KiB along samples, no longer than the first block written (a
    small file is not padded to a whole chunk; a stream's first block is a full one)."""
    row = max(1, int(np.prod(value.shape[1:], dtype=np.int64)) * value.itemsize)
    rows = min(1 << 16, (1 << 18) // row, value.shape[0])
    return (max(1, rows), *value.shape[1:])


@contextmanager
def open_sink(path: str, columns: dict[str, list[str]], attrs: dict | None = None,
              stdout=None) -> Iterator[CsvSink | Hdf5Sink]:
    """A sink for ``path`` (``.csv``, ``.h5``/``.hdf5``, or ``-`` for CSV on stdout).

    The file appears, complete, only when the block ends without an error.
    """
    if path == "-":
        stream = stdout if stdout is not None else sys.stdout
        sink = CsvSink(getattr(stream, "buffer", stream), columns, flush=True)
        yield sink
        sink.close()
        return
    fmt = file_format(path)
    with atomic_path(path) as tmp:
        if fmt == "csv":
            with open(tmp, "wb") as fh:
                sink = CsvSink(fh, columns)
                yield sink
                sink.close()
        else:
            sink = Hdf5Sink(tmp)
            sink.attrs.update(attrs or {})
            try:
                yield sink
            finally:
                sink.close()


def write_datasets(path: str, data: dict[str, np.ndarray], columns: dict[str, list[str]],
                   attrs: dict | None = None, stdout=None) -> None:
    """Write one in-memory result (see :func:`open_sink`)."""
    with open_sink(path, columns, attrs, stdout) as sink:
        sink.write(data)
