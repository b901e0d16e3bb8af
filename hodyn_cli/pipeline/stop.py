"""Stopping a run from a signal handler without breaking its threads.

A signal handler runs on the main thread between two bytecodes, wherever that thread is. An
exception raised there can land inside a lock's ``with`` block of a queue or a thread pool
and leave it held: the clean-up that follows (ending the reading and computing threads)
then waits forever. So while the main thread coordinates threads (:func:`deferred`), a
signal's exception is kept and raised at the next :func:`check`, which the loop calls
between chunks (every few tens of milliseconds); elsewhere it is raised at once, as Python
raises KeyboardInterrupt.

>>> with deferred():
...     interrupt(KeyboardInterrupt())   # what a handler calls: kept for now
...     try:
...         check()
...     except KeyboardInterrupt:
...         print("raised at the check")
raised at the check
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["interrupt", "deferred", "check"]

_pending: list[BaseException] = []  # at most one: the first signal's
_depth = 0  # nesting of deferred() on the main thread


def interrupt(exc: BaseException) -> None:
    """What a signal handler calls: raise ``exc`` now, or inside :func:`deferred` at the
    next :func:`check` (a second signal before that changes nothing)."""
    if not _depth:
        raise exc
    if not _pending:
        _pending.append(exc)


@contextmanager
def deferred() -> Iterator[None]:
    """A region where signals wait for :func:`check`; one that arrived in its last moments
    is raised when it ends (unless another exception ends it). Only the main thread, where
    signal handlers run, defers: elsewhere this does nothing."""
    global _depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _depth += 1
    try:
        yield
    except BaseException:
        _depth -= 1
        if not _depth:
            _pending.clear()
        raise
    _depth -= 1
    if not _depth:
        check()


def check() -> None:
    """Raise the exception of a signal that arrived during :func:`deferred`, if any (main
    thread only)."""
    if _pending and threading.current_thread() is threading.main_thread():
        raise _pending.pop()
