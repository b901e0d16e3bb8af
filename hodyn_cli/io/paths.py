"""File kinds and atomic output paths."""

from __future__ import annotations

import errno
import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hodyn_cli import outputs
from hodyn_cli.errors import HodynError, cannot_write


def file_format(path: str) -> str:
    """'csv' or 'hdf5' from a file name ('-' is CSV on stdin/stdout)."""
    suffix = Path(path).suffix.lower()
    if path == "-" or suffix == ".csv":
        return "csv"
    if suffix in (".h5", ".hdf5"):
        return "hdf5"
    if Path(path).is_dir():
        raise HodynError("is a directory: name a file (.csv, .h5, .hdf5) or -", path)
    raise HodynError(f"unknown file type '{suffix or path}' (use .csv, .h5, .hdf5 or -)", path)


def check_room(path: str, end: int, more: int, name: str | None = None) -> None:
    """Refuse, before writing, what the system would refuse while writing: a file ``path``
    reaching ``end`` bytes over the file-size limit (``ulimit -f``), or ``more`` bytes over
    the free space of its file system (what a caller about to write must know: an HDF5 file
    whose write failed cannot be closed; ``name``: the output's name in the error)."""
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY and end > limit:
        raise cannot_write(name or path, OSError(errno.EFBIG, os.strerror(errno.EFBIG)))
    fs = os.statvfs(os.path.dirname(os.path.abspath(path)))
    if more > fs.f_bavail * fs.f_frsize:
        raise cannot_write(name or path, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))


def listing(names: list[str], limit: int = 6) -> str:
    """``a, b, c and 4 more`` (each name :func:`shown`)."""
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(shown(n) for n in names[:limit]) + more


def shown(name: str, most: int = 80) -> str:
    """A name from a file as a message shows it: whole up to ``most`` characters, else its
    start and its length (a 100 kB column name made a 100 kB line).

    >>> shown("q_" + "x" * 200)
    'q_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (202 characters)'
    """
    return name if len(name) <= most else f"{name[:most - 16]}... ({len(name)} characters)"


def same_file(a: str, b: str) -> bool:
    """True when the paths name one existing file: also through a symbolic or a hard link.

    >>> same_file(__file__, __file__), same_file(__file__, "no such file")
    (True, False)
    """
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def refuse_inputs(output: str, inputs) -> None:
    """An error if ``output`` (``-``: stdout, never a file) is one of the files in ``inputs``:
    writing it would destroy what the run reads."""
    for source in inputs:
        if output != "-" and source != "-" and same_file(output, source):
            also = "" if os.path.abspath(output) == os.path.abspath(source) else \
                f" ({source}, the same file)"
            raise HodynError(f"the output is an input{also}: refusing to write over it; "
                             "choose another output", output)


def refuse_shared_outputs(outputs) -> None:
    """An error if two of ``outputs`` (``-``: stdout) are one file: the second written would
    replace the first.

    >>> refuse_shared_outputs(["a.urdf", "-", "-", "r.json"])
    >>> refuse_shared_outputs(["out/a.toml", "out/../out/a.toml"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hodyn_cli.errors.HodynError: out/../out/a.toml: two outputs are one file (out/a.toml): ...
    """
    outputs = [o for o in outputs if o != "-"]
    for k, output in enumerate(outputs):
        for earlier in outputs[:k]:
            if os.path.abspath(earlier) == os.path.abspath(output) or same_file(earlier, output):
                raise HodynError(f"two outputs are one file ({earlier}): the second would "
                                 "replace the first; choose another", output)


@contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """Yield a temporary path next to ``path``, not yet created; on success rename it over
    ``path``: at once, or when the command ends (:mod:`hodyn_cli.outputs`: a command's
    main thread).

    On any error the temporary file is removed and an existing ``path`` is untouched. The
    caller creates the file (exclusively: ``"x"``): a file truncated when opened (``"w"``)
    is written to disk when it is closed by ext4 (its replace-via-truncate safeguard,
    ``auto_da_alloc``), which made closing a 1.2 GB output take 0.45 s and its writing twice
    as slow.
    """
    target = Path(path)
    if not target.parent.is_dir():
        raise HodynError(f"directory '{target.parent}' does not exist", path)
    if target.is_dir():
        raise HodynError("is a directory: name a file", path)
    if not os.access(target.parent, os.W_OK | os.X_OK):  # refused before any work is done
        read_only = os.statvfs(target.parent).f_flag & os.ST_RDONLY
        code = errno.EROFS if read_only else errno.EACCES
        raise cannot_write(path, OSError(code, os.strerror(code)))
    # a random name, no file yet: the writer creates it exclusively ("x"), inside the guard
    # below (a file made here to reserve the name, removed at once, was left behind by a
    # signal landing between the two)
    tmp = str(target.parent / f".{target.name}.{os.urandom(6).hex()}.tmp")
    held = False
    try:
        yield tmp
        held = outputs.hold(tmp, path)  # (a command's: renamed when it ends)
        if not held:
            outputs.rename(tmp, path)
    finally:
        if not held and os.path.exists(tmp):
            os.unlink(tmp)


def write_text(path: str, text: str) -> None:
    """A whole text file (a report), atomically (:func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        try:
            with open(tmp, "x") as fh:
                fh.write(text)
        except OSError as e:
            raise cannot_write(path, e) from None
