"""File kinds and atomic output paths."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hodyn_cli.errors import HodynError


def file_format(path: str) -> str:
    """'csv' or 'hdf5' from a file name ('-' is CSV on stdin/stdout)."""
    suffix = Path(path).suffix.lower()
    if path == "-" or suffix == ".csv":
        return "csv"
    if suffix in (".h5", ".hdf5"):
        return "hdf5"
    raise HodynError(f"unknown file type '{suffix or path}' (use .csv, .h5, .hdf5 or -)", path)


def listing(names: list[str], limit: int = 6) -> str:
    """``a, b, c and 4 more``."""
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


@contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """Yield a temporary path next to ``path``, not yet created; on success rename it over
    ``path``.

    On any error the temporary file is removed and an existing ``path`` is untouched. The
    caller creates the file (exclusively: ``"x"``): a file truncated when opened (``"w"``)
    is written to disk when it is closed by ext4 (its replace-via-truncate safeguard,
    ``auto_da_alloc``), which made closing a 1.2 GB output take 0.45 s and its writing twice
    as slow.
    """
    target = Path(path)
    if not target.parent.is_dir():
        raise HodynError(f"directory '{target.parent}' does not exist", path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    os.unlink(tmp)  # only the random name is kept: the writer creates the file ("x")
    try:
        yield tmp
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file normal permissions
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
