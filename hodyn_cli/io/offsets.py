"""Contiguous HDF5 datasets read and written at their offsets in the file, off h5py's lock.

h5py serialises every call under one global lock, so threads reading or writing HDF5
through it take turns. A dataset stored contiguously and unfiltered (the layout hodyn
writes, and h5py's default for a dataset of fixed size) is its raw elements, row after row,
at one offset of the file: rows ``[s, s + n)`` of it are one ``pread`` or ``pwrite`` at
``offset + s * row_bytes``, which the operating system runs on any number of threads at
once (Python releases its lock around both). Chunked or compressed datasets, and anything
else HDF5 must translate, go through h5py as before (:func:`file_offset` says which).

>>> import os, tempfile, h5py, numpy as np
>>> path = os.path.join(tempfile.mkdtemp(), "x.h5")
>>> with h5py.File(path, "w") as f:
...     ds = f.create_dataset("q", data=np.arange(12.0).reshape(6, 2))
...     rows = RawRows.of(ds)
>>> with open(path, "rb") as fh:
...     rows.read(fh.fileno(), 2, 3).tolist()
[[4.0, 5.0], [6.0, 7.0], [8.0, 9.0]]
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["file_offset", "RawRows", "early_allocation"]


def file_offset(ds) -> int | None:
    """The offset of ``ds``'s elements in its file if they are stored there as they are in
    memory (contiguous, no filter, not virtual or external, allocated, a plain numeric
    type); None where only HDF5 can read them."""
    if ds.chunks is not None or ds.is_virtual or ds.external or ds.dtype.kind not in "fiu" \
            or ds.dtype.hasobject or ds.dtype.subdtype is not None:
        return None
    try:
        return ds.id.get_offset()
    except (OSError, ValueError, RuntimeError):  # HDF5 could not say: let it read
        return None


@dataclass(frozen=True, eq=False, repr=False)
class RawRows:
    """Rows of a contiguous dataset at ``offset`` of its file: ``row_shape`` elements of
    ``dtype`` each (the file's byte order)."""

    offset: int
    row_shape: tuple[int, ...]
    dtype: np.dtype

    @classmethod
    def of(cls, ds) -> RawRows | None:
        """The raw rows of h5py dataset ``ds`` (None if :func:`file_offset` says no)."""
        offset = file_offset(ds)
        return None if offset is None else cls(offset, tuple(ds.shape[1:]), ds.dtype)

    @cached_property  # read per block: worked out once
    def row_bytes(self) -> int:
        return int(np.prod(self.row_shape, dtype=np.int64)) * self.dtype.itemsize

    def read(self, fd: int, start: int, rows: int, out: np.ndarray | None = None) -> np.ndarray:
        """Rows ``[start, start + rows)`` into ``out`` (or a new array); thread-safe."""
        if out is None:
            out = np.empty((rows, *self.row_shape), self.dtype)
        view = out[:rows].reshape(-1).view(np.uint8).data
        at, got = self.offset + start * self.row_bytes, 0
        while got < len(view):  # a regular file gives all at once but at its end
            n = os.preadv(fd, [view[got:]], at + got)
            if n <= 0:
                raise OSError(f"the file ends inside a dataset (offset {at + got})")
            got += n
        return out[:rows]

    def write(self, fd: int, start: int, values: np.ndarray) -> None:
        """``values`` (rows, *row_shape), converted to the dataset's type, at row ``start``;
        thread-safe (the rows of different calls do not overlap)."""
        data = np.ascontiguousarray(values, dtype=self.dtype)
        view = data.reshape(-1).view(np.uint8).data
        at, put = self.offset + start * self.row_bytes, 0
        while put < len(view):
            put += os.pwritev(fd, [view[put:]], at + put)


def early_allocation():
    """A dataset creation property list that allocates a (contiguous) dataset's storage
    when it is created and never fills it: its offset is known at once, and the bytes are
    written once, by :meth:`RawRows.write`."""
    import h5py

    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    dcpl.set_fill_time(h5py.h5d.FILL_TIME_NEVER)
    return dcpl
