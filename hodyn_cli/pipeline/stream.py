"""The one read -> compute -> write loop every command runs, on one thread or several.

``compute`` maps a trajectory chunk to named datasets (see :mod:`hodyn_cli.io.results`);
chunks are computed on ``jobs`` threads (the compiled kernels and most numpy work release
the GIL) and written in input order. The chunks are the reader's, whatever ``jobs`` is, so
the numbers are the same bit for bit on any number of threads. At most ``jobs + 3`` chunks
are in memory at once (up to ``jobs + 1`` submitted, one queued by the read-ahead thread,
one being read): memory stays bounded by the chunk size.
"""

from __future__ import annotations

import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from hodyn_cli.core.trajectory import Trajectory, check_results
from hodyn_cli.pipeline import stop

__all__ = ["run", "default_jobs"]

#: how often (s) the writer looks for finished chunks while the input is quiet
POLL = 0.05


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def run(chunks: Iterable[Trajectory], compute: Callable[[Trajectory], dict[str, np.ndarray]],
        sink, *, jobs: int = 1, progress: Callable[[int], None] | None = None,
        cancel: Callable[[], None] | None = None) -> int:
    """Compute every chunk and write it to ``sink`` in order; returns the number of samples.

    With ``jobs > 1`` the chunks are read ahead on a thread of their own and computed and
    encoded (``sink.encode``: e.g. CSV formatting) on ``jobs`` threads; this thread only
    writes. ``progress(samples_done)`` is called after each chunk is written. Every thread
    started here has ended when this returns or raises (an error, Ctrl-C, a signal):
    ``cancel()`` (the reader's) wakes a read-ahead that waits for input.
    """
    done = 0

    def work(chunk: Trajectory):
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named below
            results = compute(chunk)
        check_results(results, chunk)  # NaN or inf never reach an output silently
        return sink.encode(results)

    def written(payload, n: int) -> None:
        nonlocal done
        sink.write_encoded(payload)
        done += n
        if progress is not None:
            progress(done)

    if jobs <= 1:
        for chunk in chunks:
            written(work(chunk), chunk.n_samples)
        return done
    with stop.deferred():  # a signal is raised here between chunks, not inside a lock
        pool = ThreadPoolExecutor(jobs)
        ahead = ReadAhead(chunks, depth=1, cancel=cancel)
        try:
            pending: deque = deque()
            for chunk in ahead.poll(POLL):  # None: nothing new for a while (a slow pipe)
                stop.check()
                if chunk is not None:
                    pending.append((pool.submit(work, chunk), chunk.n_samples))
                # finished chunks go out at once (a pipeline's consumer waits for them)
                while pending and (len(pending) > jobs or pending[0][0].done()):
                    future, n = pending.popleft()
                    written(future.result(), n)
            while pending:
                stop.check()
                future, n = pending.popleft()
                written(future.result(), n)
        finally:
            ahead.stop()
            pool.shutdown(wait=True, cancel_futures=True)
    return done


class ReadAhead:
    """Iterate ``items`` on a background thread, at most ``depth`` items ahead; an exception
    there is raised here, in order."""

    _END = object()

    def __init__(self, items: Iterable, depth: int = 2, cancel: Callable[[], None] | None = None):
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._stopped = threading.Event()
        self._cancel = cancel
        self._thread = threading.Thread(target=self._fill, args=(iter(items),), daemon=True)
        self._thread.start()

    def _fill(self, it) -> None:
        try:
            for item in it:
                if not self._put(item):
                    return
            self._put(self._END)
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            self._put(e)

    def _put(self, item) -> bool:
        while not self._stopped.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def poll(self, timeout: float):
        """The items in order, and None whenever none came for ``timeout`` seconds."""
        while True:
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                yield None
                continue
            if item is self._END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def stop(self) -> None:
        """End the thread and wait for it (``cancel``: wake it where it waits for input)."""
        self._stopped.set()
        if self._cancel is not None and self._thread.is_alive():
            self._cancel()
        self._thread.join()
