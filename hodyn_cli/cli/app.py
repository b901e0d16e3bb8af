"""``hodyn``: the typer application, the root group of :mod:`hodyn_cli.cli.root` with every
command registered. Each command parses its arguments, calls the library, renders (commands in
:mod:`hodyn_cli.cli.dynamics`, :mod:`~hodyn_cli.cli.motion`, :mod:`~hodyn_cli.cli.data`,
:mod:`~hodyn_cli.cli.checks`, :mod:`~hodyn_cli.cli.feasibility`,
:mod:`~hodyn_cli.cli.identification`; shared options and the
preamble in :mod:`~hodyn_cli.cli.options` and :mod:`~hodyn_cli.cli.session`; exit codes in
:mod:`~hodyn_cli.cli.errors`). Importing it imports no numpy: ``hodyn --help`` stays fast."""

from __future__ import annotations

import copy
import os
import sys

import typer

# the commands register themselves on the root group
from hodyn_cli.cli import (  # noqa: F401
    checks,
    data,
    dynamics,
    feasibility,
    identification,
    motion,
)
from hodyn_cli.cli.root import app

__all__ = ["app", "main", "only"]


def main() -> None:
    from hodyn_cli.cli.errors import run

    keep_freed_memory()
    code = run(only(sys.argv[1:2]))
    if "hodyn_cli.io.writers" in sys.modules and sys.modules["hodyn_cli.io.writers"].ABANDONED:
        # an HDF5 file whose write failed: the HDF5 library crashes freeing it at exit
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def keep_freed_memory() -> None:
    """Where the C library is glibc: memory freed below :data:`HEAP_KEEP` stays with the
    process (``M_TRIM_THRESHOLD``), arrays up to 32 MB come from the heap (its
    ``M_MMAP_THRESHOLD``, as high as glibc's own adaptive one goes). A command frees and
    allocates a chunk's arrays over and over; glibc returned the top of the heap to the system
    after each and took it back page by page: 1.9 s of system time and 460 000 page faults of
    ``retime --optimal`` on 10^5 samples (14 s of CPU), 0.15 s and 34 000 so, the peak memory
    the same (264 / 267 MB). The threads of ``--jobs`` share one heap (``M_ARENA_MAX`` 1):
    with an arena each, each kept its own freed chunks, and 300 000 samples CSV -> CSV on 8
    threads peaked at 335-349 MB against 280-301 MB so (the same speed: a chunk's few large
    allocations are nothing next to its work). Elsewhere nothing changes."""
    if sys.platform != "linux":
        return
    try:  # (a Python without ctypes, or one that cannot dlopen itself: nothing to change)
        import ctypes

        process = ctypes.CDLL(None)  # (the C library's symbols, already loaded: no search)
    except (ImportError, OSError):
        return
    if hasattr(process, "mallopt") and hasattr(process, "gnu_get_libc_version"):  # glibc
        process.mallopt(M_MMAP_THRESHOLD, 32 << 20)
        process.mallopt(M_TRIM_THRESHOLD, HEAP_KEEP)
        process.mallopt(M_ARENA_MAX, 1)


#: mallopt's parameters (glibc's malloc.h) and the heap kept (bytes)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
HEAP_KEEP = 1 << 30


def only(first: list[str]) -> typer.Typer:
    """The app with just the command ``first`` names: typer turns the signature of every
    command it holds into click parameters on each start (~30 ms for all of them), and one
    command runs. Anything else (``--help``, ``--version``, a mistyped name): the whole app.

    >>> [c.name for c in only(["ik"]).registered_commands], only(["--help"]) is app
    (['ik'], True)
    """
    chosen = [c for c in app.registered_commands if first and c.name == first[0]]
    if not chosen:
        return app
    one = copy.copy(app)  # its callback (--version) too: still a group, `hodyn ik ...` parses
    one.registered_commands = chosen
    return one

