"""Standard input kept for more than one reading: copied a block at a time into a temporary
file of its own, each reading a stream over that file from its start.

A command that reads its input twice (``validate --samples 0``: the maxima and the data
checks, then every torque check) reads a file afresh; a pipe can be read once, and holding
it in memory grows with the input. The copy is an unnamed file in the temporary directory
(``$TMPDIR``, :func:`tempfile.gettempdir`; on Linux ``O_TMPFILE``, elsewhere unlinked as it
is made): there is no name to remove, so nothing is left behind however the run ends (an
error, Ctrl-C, a kill), and memory holds a block of the copy at a time.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, BinaryIO

from hodyn_cli.errors import TrajectoryError, os_reason

__all__ = ["Spool", "spooled"]

#: bytes copied at a time (the memory the copy takes)
BLOCK_BYTES = 1 << 20


class Spool:
    """A copy of standard input in an unnamed temporary file (:func:`spooled`): ``size``
    bytes; :meth:`reading` gives a stream over it from its start, as many times as asked."""

    def __init__(self, file: IO[bytes], size: int):
        self._file, self.size = file, size

    def reading(self) -> BinaryIO:
        """A buffered binary stream over the copy from its first byte; each its own position
        (positioned reads of the one descriptor, closed with the spool: none to close)."""
        return io.BufferedReader(_Positioned(self._file.fileno(), self.size))


class _Positioned(io.RawIOBase):
    """The spool's bytes read at a position of this stream's own (``os.pread``), so that
    several readings of the one descriptor do not move each other; its ``fileno`` is the
    descriptor's (a regular file: read as a file is, not waited on as a pipe)."""

    def __init__(self, fd: int, size: int):
        super().__init__()
        self._fd, self._size, self._at = fd, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def readinto(self, buffer) -> int:
        data = os.pread(self._fd, len(buffer), self._at)
        buffer[:len(data)] = data
        self._at += len(data)
        return len(data)

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        self._at = {os.SEEK_SET: 0, os.SEEK_CUR: self._at, os.SEEK_END: self._size}[whence] \
            + offset
        return self._at

    def tell(self) -> int:
        return self._at


@contextmanager
def spooled(stdin=None) -> Iterator[Spool]:
    """Standard input (``stdin``: a stream in its place, text with a ``buffer`` or binary)
    copied into an unnamed temporary file, ``BLOCK_BYTES`` at a time; the file goes when the
    block ends, however it ends. Errors name the input ``-``, as its reader does."""
    src = stdin if stdin is not None else sys.stdin
    # its bytes: a binary stream's, a text stream's buffer (one in memory, a test's: encoded)
    source = src if isinstance(src, (io.BufferedIOBase, io.RawIOBase)) else \
        getattr(src, "buffer", None) or io.BytesIO(src.read().encode())
    try:
        file = tempfile.TemporaryFile()  # noqa: SIM115 - closed below, on every exit
    except OSError as e:
        raise TrajectoryError(f"cannot make a temporary file in {tempfile.gettempdir()} to "
                              f"read standard input twice: {os_reason(e)}", "-") from None
    with file:
        size = 0
        while True:
            try:
                data = getattr(source, "read1", source.read)(BLOCK_BYTES)
            except OSError as e:
                raise TrajectoryError(f"cannot read: {os_reason(e)}", "-") from None
            try:
                if not data:
                    file.flush()
                    break
                file.write(data)
            except OSError as e:
                raise TrajectoryError(
                    f"cannot copy standard input to {tempfile.gettempdir()} (read twice): "
                    f"{os_reason(e)}; give the trajectory as a file", "-") from None
            size += len(data)
        yield Spool(file, size)
