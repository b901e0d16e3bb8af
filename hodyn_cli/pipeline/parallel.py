"""Every stage of a chunk on the worker threads, several chunks in flight, results in order.

A chunk's reading (its bytes, parsing or copying into columns, the checks of its values),
its computation, and its encoding or writing (an HDF5 output of announced length is
written at its place in the file: :meth:`~hodyn_cli.io.writers.Hdf5Sink.write_at`) all
run on one of ``jobs`` threads, off the GIL and off h5py's lock where it matters
(:mod:`hodyn_cli.io.offsets`). What must happen in order (the checks across chunk
boundaries, the first error of the file, output to a stream) happens on the thread that
consumes the results, as each comes up: :func:`ordered`.

The chunks are the reader's whatever ``jobs`` is (:mod:`hodyn_cli.io.tasks`), so the
numbers are the same bit for bit on any number of threads. At most ``jobs + 1`` chunks are
submitted, one more task is queued by the thread that takes them, and CSV pieces are parsed
at most ``jobs + 1`` ahead: memory stays bounded by a few chunks per thread.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any, cast

from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io.tasks import ChunkTask, Loaded
from hodyn_cli.pipeline import stop

__all__ = ["ordered", "prefetched", "tasks_of", "POLL"]

#: how often (s) the consumer looks for finished chunks while the input is quiet
POLL = 0.05


def tasks_of(source: Iterable[Trajectory], executor: Executor, ahead: int
             ) -> Iterator[ChunkTask]:
    """The tasks of ``source``'s chunks: its own (``source.tasks``) where it has them, else
    each chunk read here, in order, as a task with nothing left to do."""
    if hasattr(type(source), "tasks"):  # the class's: a wrapper may pass attributes on
        return cast(Any, source).tasks(executor, ahead)
    return _loaded(source)


def _loaded(chunks: Iterable[Trajectory]) -> Iterator[ChunkTask]:
    start = 0
    for chunk in chunks:
        yield Loaded(chunk, start)
        start += chunk.n_samples


def ordered(source: Iterable[Trajectory], work: Callable[[Trajectory, int], Any], jobs: int,
            cancel: Callable[[], None] | None = None) -> Iterator[tuple[Trajectory, Any]]:
    """``(chunk, work(chunk, first sample))`` for every chunk of ``source``, in order: each
    chunk loaded and worked on by one of ``jobs`` threads, settled here.

    An error is raised where the chunks read one by one would raise it: the first chunk's
    first. Every thread started here has ended when this returns or raises (an error,
    Ctrl-C, a signal, the consumer stopping early): ``cancel()`` (the reader's; by default
    ``source.cancel`` where it has one) wakes a thread that waits for input.
    """
    if cancel is None:  # a caller that forgot it: check --jobs N waited for a quiet pipe
        cancel = getattr(source, "cancel", None)
    with stop.deferred():  # a signal is raised here between chunks, not inside a lock
        pool = ThreadPoolExecutor(jobs)
        ahead = None
        try:
            ahead = ReadAhead(tasks_of(source, pool, jobs + 1), depth=1, cancel=cancel)
            pending: deque[tuple[ChunkTask, Future]] = deque()
            tasks, failed = ahead.poll(POLL), None
            while True:
                try:
                    task = next(tasks)  # None: nothing new for a while (a slow pipe)
                except StopIteration:
                    break
                except Exception as e:  # noqa: BLE001 - the source's (a later piece's parse
                    failed = e          # error): the chunks handed out before come first
                    break
                stop.check()
                if task is not None:
                    pending.append((task, pool.submit(_run, task, work)))
                # finished chunks go on at once (a pipeline's consumer waits for them)
                while pending and (len(pending) > jobs or pending[0][1].done()):
                    yield _settled(*pending.popleft())
            while pending:
                stop.check()
                yield _settled(*pending.popleft())
            stop.check()  # the source ended as a signal woke its read (stop.waking)
            if failed is not None:
                raise failed
        finally:  # also when the consumer stops early: the chunks not started are dropped
            if ahead is not None:
                ahead.stop()
            pool.shutdown(wait=True, cancel_futures=True)


def _run(task: ChunkTask, work: Callable[[Trajectory, int], Any]):
    """On a worker: load the chunk, then work on it; an error of either is kept for the
    chunk's turn (the checks across the chunks before, in order, come first)."""
    try:
        chunk = task.load()
    except BaseException as e:  # noqa: BLE001 - raised in order, by _settled
        return None, None, e
    try:
        return chunk, work(chunk, task.start), None
    except BaseException as e:  # noqa: BLE001 - raised in order, by _settled
        return chunk, None, e


def _settled(task: ChunkTask, future: Future) -> tuple[Trajectory, Any]:
    chunk, result, error = future.result()
    task.settle(chunk)
    if error is not None:
        raise error
    return chunk, result


def prefetched(source: Iterable[Trajectory], jobs: int,
               cancel: Callable[[], None] | None = None) -> Generator[Trajectory, None, None]:
    """The chunks of ``source`` in order, read on ``jobs`` threads ahead of the consumer
    (a consumer that keeps state from chunk to chunk: ``jobs <= 1`` reads them here)."""
    if jobs <= 1:
        yield from source
        return
    for chunk, _ in ordered(source, _nothing, jobs, cancel):
        yield chunk


def _nothing(chunk: Trajectory, start: int) -> None:
    return None


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
