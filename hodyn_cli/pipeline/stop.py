"""Stopping a run from a signal handler without breaking its threads.

A signal handler runs on the main thread between two bytecodes, wherever that thread is. An
exception raised there can land inside a lock's ``with`` block of a queue or a thread pool
and leave it held: the clean-up that follows (ending the reading and computing threads)
then waits forever. So while the main thread coordinates threads (:func:`deferred`), a
signal's exception is kept and raised at the next :func:`check`, which the loop calls
between chunks (every few tens of milliseconds); elsewhere it is raised at once, as Python
raises KeyboardInterrupt. Other threads that stream a file of their own (a batch's files)
see the signal at their next :func:`check` too: it raises :class:`Abandoned` there, so that
their output is discarded as after an error, not finished after the run was stopped. One
that waits for input instead (a batch's FIFO whose producer has gone quiet) is woken by the
``cancel`` it registered (:func:`waking`) when the main thread raises the signal's
exception: it held the run, after the signal, until the producer wrote again.

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["interrupt", "deferred", "check", "reset", "waking", "Abandoned"]

_pending: list[BaseException] = []  # at most one: the first signal's
_depth = 0  # nesting of deferred() on the main thread
_stopping = threading.Event()  # a signal arrived: every thread's check() sees it
_wakes: set[Callable[[], None]] = set()  # the cancels of the inputs being read (waking())


class Abandoned(BaseException):
    """The run is stopping (a signal arrived): the work of this thread, not the main one, is
    given up (not an Exception: no ``except Exception`` on the way takes it for a failure
    of its own, every ``finally`` runs)."""


def interrupt(exc: BaseException) -> None:
    """What a signal handler calls: raise ``exc`` now, or inside :func:`deferred` at the
    next :func:`check` (a second signal before that changes nothing)."""
    _stopping.set()
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
            reset()  # the threads it coordinated have ended
        raise
    _depth -= 1
    if not _depth:
        _stopping.clear()
        check()


def check() -> None:
    """Raise the exception of a signal that arrived during :func:`deferred`, if any, on the
    main thread; on another thread, :class:`Abandoned` once a signal arrived."""
    if threading.current_thread() is not threading.main_thread():
        if _stopping.is_set():
            raise Abandoned()
    elif _pending:
        for cancel in list(_wakes):  # here, not in the handler: a cancel takes a lock
            cancel()
        raise _pending.pop()


@contextmanager
def waking(cancel: Callable[[], None]) -> Iterator[None]:
    """A region (a file read on any thread) whose ``cancel()`` (its reader's) is called when
    a signal's exception is raised on the main thread: a read waiting for input ends, and
    the thread's next :func:`check` gives its work up."""
    _wakes.add(cancel)
    try:
        yield
    finally:
        _wakes.discard(cancel)


def reset() -> None:
    """Forget a signal (the run it stopped has ended: the next one, in the same process,
    starts afresh)."""
    _pending.clear()
    _stopping.clear()
