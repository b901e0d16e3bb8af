"""``hodyn``: the typer application, the root group of :mod:`hodyn_cli.cli.root` with every
command registered (``app``; :func:`main` registers only the one it runs). Each command
parses its arguments, calls the library, renders (commands in :mod:`hodyn_cli.cli.dynamics`,
:mod:`~hodyn_cli.cli.motion`, :mod:`~hodyn_cli.cli.data`, :mod:`~hodyn_cli.cli.checks`,
:mod:`~hodyn_cli.cli.feasibility`, :mod:`~hodyn_cli.cli.identification`; shared options and the
preamble in :mod:`~hodyn_cli.cli.options` and :mod:`~hodyn_cli.cli.session`; exit codes in
:mod:`~hodyn_cli.cli.errors`). Importing it imports no numpy: ``hodyn --help`` stays fast."""

from __future__ import annotations

import copy
import gc
import importlib
import os
import sys

import typer

from hodyn_cli.cli import root

__all__ = ["app", "main", "only", "COMMANDS"]  # noqa: F822 (app: made by __getattr__)

#: the module of :mod:`hodyn_cli.cli` whose import registers each command on the root group
#: (in this order: ``hodyn --help`` lists them so); :func:`main` imports only the one of the
#: command it runs (all six cost ~15 ms of CPU on each start)
COMMANDS = {"validate": "checks", "info": "checks", "generate": "data", "import": "data",
            "compute": "dynamics", "matrices": "dynamics", "regressor": "dynamics",
            "sensitivities": "dynamics", "elastic": "dynamics", "forward": "dynamics",
            "check": "feasibility", "retime": "feasibility", "identify": "identification",
            "kinematics": "motion", "ik": "motion"}


def __getattr__(name: str) -> typer.Typer:
    """``app``: the root group with every command registered (their modules imported on
    first use)."""
    if name == "app":
        return _every()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _every() -> typer.Typer:
    for module in dict.fromkeys(COMMANDS.values()):
        importlib.import_module(f"hodyn_cli.cli.{module}")
    return root.app


def main() -> None:
    global _STOPPED
    if gc.isenabled():  # (the start's objects live on: started(), when the command's body runs)
        gc.disable()
        _STOPPED = True
    try:
        from hodyn_cli.cli.errors import run

        keep_freed_memory()
        code = run(only(sys.argv[1:2]), last=True)
    finally:
        if _STOPPED:  # (no command's body ran, --help, a usage error: as the caller had it)
            _STOPPED = False
            gc.enable()
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


def started() -> None:
    """The command's start is over (its options parsed, its modules imported so far): the
    objects made until now (modules, classes, functions: they live as long as the process)
    are left out of every garbage collection from here on (``gc.freeze``), and collections
    run again where :func:`main` had stopped them. Each object a start makes was traversed
    by two collections (a young one, then the next generation's) and freed by neither: ~90
    collections, 15-20 ms of CPU of ``retime --optimal`` on 1000 samples (load ~5), the same
    objects alive after (benchmarks/README.md, 2026-12-01, short10). Where :func:`main` did
    not stop them (the library, the tests calling a command): nothing changes."""
    global _STOPPED
    if _STOPPED:
        _STOPPED = False
        gc.freeze()
        gc.enable()


#: whether :func:`main` stopped the garbage collector for the start (:func:`started`)
_STOPPED = False


#: mallopt's parameters (glibc's malloc.h) and the heap kept (bytes)
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
HEAP_KEEP = 1 << 30


def only(first: list[str]) -> typer.Typer:
    """The app with just the command ``first`` names (only its module imported): typer turns
    the signature of every command it holds into click parameters on each start (~30 ms for
    all of them), and one command runs. Anything else (``--help``, ``--version``, a mistyped
    name): the whole app.

    >>> [c.name for c in only(["ik"]).registered_commands], only(["--help"]) is root.app
    (['ik'], True)
    """
    if not first or first[0] not in COMMANDS:
        return _every()
    importlib.import_module(f"hodyn_cli.cli.{COMMANDS[first[0]]}")
    one = copy.copy(root.app)  # its callback (--version) too: still a group, `hodyn ik ...` parses
    one.registered_commands = [c for c in root.app.registered_commands if c.name == first[0]]
    return one
