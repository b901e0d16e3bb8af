"""Arrays that span a long path kept on disk, read and written a block at a time.

Why not in memory: reachability (:mod:`~hodyn_cli.algorithms.limits.reachability`) holds a
few numbers per grid point (~3 per input sample) for each array that its sequential passes
and the played motion must span, which made a long input's peak memory grow with its
length (issue 37 item 4: memory bounded by a chunk, not by the file). Why not
``np.memmap``: the pages of a mapping that a pass touches stay in the process's resident
set until it is unmapped, so a pass over the whole array brings it all back; a plain file
read into a block's array (``os.preadv``) leaves the data in the page cache, which the
system may drop, and the process holds the block alone.

The file is unnamed (``tempfile.TemporaryFile``: unlinked as it is made), so it is gone
when the array is let go, and on an error, Ctrl-C or a crash alike. It is made in ``TMPDIR``
where that is set (not, as ``tempfile`` would, silently in ``/tmp`` when it is missing or not
writable: a user who points it at a disk with room means it); where it cannot be made,
written (a full disk) or read, :class:`Unstorable` says so in one line naming the directory,
and the run ends before its output is written (a short path, whose arrays are all under
:data:`ON_DISK` bytes, needs no disk: it runs).
"""
from __future__ import annotations

import os
import tempfile
import weakref
from typing import IO

import numpy as np

from hodyn_cli.errors import HodynError

__all__ = ["Stored", "ON_DISK", "Unstorable"]

#: arrays of at least this many bytes go to disk; smaller ones (a short path's, a short arc's
#: between corners) stay in memory, the same interface: a path of many corners opens a file
#: per long arc at most, not three per arc (the open files' limit is 1024 on many systems)
ON_DISK = 8 << 20
#: rows read at once by :meth:`Stored.take`
TAKEN = 1 << 15


class Unstorable(HodynError):
    """The temporary file of a long path's arrays cannot be made, written or read (its
    ``source``: the directory; the message: what failed, the system's reason, the remedy)."""


def _directory() -> str:
    """Where the temporary files go: ``TMPDIR`` where set, else ``tempfile``'s choice."""
    return os.environ.get("TMPDIR") or tempfile.gettempdir()


def _unstorable(doing: str, error: OSError) -> Unstorable:
    return Unstorable(f"cannot {doing} the temporary file of a long path's arrays: "
                      f"{error.strerror or error} (set TMPDIR to a writable directory with "
                      "room)", _directory())


class Stored:
    """A float64 array of shape ``(n, *trailing)`` in a temporary file (in memory below
    :data:`ON_DISK` bytes, but for one that ``grows`` by :meth:`append`: the arc-length
    table as the input is read, whose copies as it grew in memory stayed in the heap, +8 MB
    of peak RSS at 10^5 samples; where its file cannot be made, it is held in memory up to
    :data:`ON_DISK` bytes, then the error is raised; ``disk``: in its file whatever its
    size, raising :class:`Unstorable` where that cannot be made): ``write(a, values)``
    puts rows a .. a + len(values) - 1, ``stored[a:b]`` (a slice of step 1, negative ends as
    numpy's) and ``stored[i]`` read rows into a new array.

    >>> s = Stored(5, (2,))
    >>> s.write(0, np.arange(10.0).reshape(5, 2))
    >>> s[1:3].tolist(), s[-1].tolist(), len(s), s.shape
    ([[2.0, 3.0], [4.0, 5.0]], [8.0, 9.0], 5, (5, 2))
    """

    def __init__(self, n: int, trailing: tuple[int, ...] = (), *, grows: bool = False,
                 disk: bool = False) -> None:
        self.shape = (n, *trailing)
        self._row = int(np.prod(trailing, dtype=int)) * 8  # bytes a row
        self._memory = np.zeros(self.shape) if n * self._row < ON_DISK and not (
            grows or disk) else None
        self._file: IO[bytes] | None = None
        #: why a growing array is held in memory: its file could not be made (raised when
        #: it grows past ON_DISK bytes)
        self._unstorable: Unstorable | None = None
        if self._memory is None:
            try:
                self._open()
            except Unstorable as e:
                if not grows:
                    raise
                # a short path needs no disk (a missing TMPDIR failed every retime --optimal):
                # up to ON_DISK bytes in an array allocated once (its pages taken as written)
                self._unstorable = e
                self._memory = np.zeros((ON_DISK // max(self._row, 8), *trailing))

    def _open(self) -> None:
        try:
            self._file = tempfile.TemporaryFile(dir=_directory())
            # (closed when the array is let go: left to the file's own collection, it was
            # closed with a ResourceWarning, an error under ``python -W error``)
            weakref.finalize(self, self._file.close)
            self._file.truncate(len(self) * self._row)
        except OSError as e:
            raise _unstorable("make", e) from None

    @classmethod
    def of(cls, values: np.ndarray, disk: bool = False) -> Stored:
        """An array on disk holding ``values`` (in memory below :data:`ON_DISK` bytes but
        where ``disk`` asks)."""
        stored = cls(len(values), values.shape[1:], disk=disk)
        stored.write(0, values)
        return stored

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def on_disk(self) -> bool:
        """Whether its rows are in its file (not in memory)."""
        return self._file is not None

    def write(self, a: int, values: np.ndarray) -> None:
        """Rows a .. a + len(values) - 1 set to ``values``."""
        values = np.ascontiguousarray(values, dtype=float).reshape((-1, *self.shape[1:]))
        assert 0 <= a and a + len(values) <= len(self)
        if self._file is None:
            assert self._memory is not None
            self._memory[a : a + len(values)] = values
            return
        data, at = values.data.cast("B"), a * self._row
        try:
            while len(data):  # (a write cut short, as on a disk filling up: the rest again)
                written = os.pwrite(self._file.fileno(), data, at)
                data, at = data[written:], at + written
        except OSError as e:
            raise _unstorable("write", e) from None

    def append(self, values: np.ndarray) -> None:
        """Rows added after the last (an array made with ``grows``)."""
        assert self._file is not None or self._unstorable is not None  # (``grows``)
        a = len(self)
        if self._unstorable is not None:  # held in memory, ON_DISK bytes at most
            assert self._memory is not None
            if a + len(values) > len(self._memory):
                raise self._unstorable  # the file it could not make
        self.shape = (a + len(values), *self.shape[1:])
        self.write(a, values)

    def take(self, index: np.ndarray) -> np.ndarray:
        """The rows at ``index`` (sorted), read a block of the rows they span at a time."""
        out = np.empty((len(index), *self.shape[1:]))
        start = 0
        while start < len(index):
            a = int(index[start])
            stop = int(np.searchsorted(index, a + TAKEN, side="left"))
            out[start:stop] = self[a : int(index[stop - 1]) + 1][index[start:stop] - a]
            start = stop
        return out

    def __getitem__(self, key: int | slice) -> np.ndarray:
        if isinstance(key, slice):
            a, b, step = key.indices(len(self))
            assert step == 1
            if self._file is None:
                assert self._memory is not None
                return self._memory[a:b].copy()
            out = np.empty((max(0, b - a), *self.shape[1:]))
            if len(out):
                try:
                    read = os.preadv(self._file.fileno(), [out.data.cast("B")],
                                     a * self._row)
                except OSError as e:
                    raise _unstorable("read", e) from None
                assert read == out.nbytes
            return out
        i = key + len(self) if key < 0 else key
        if not 0 <= i < len(self):
            raise IndexError(key)
        return self[i : i + 1][0]
