"""The one read -> compute -> write loop every command runs, on one thread or several.

``compute`` maps a trajectory chunk to named datasets (see :mod:`hodyn_cli.io.results`);
chunks are read, computed and encoded on ``jobs`` threads (the compiled kernels, pread and
pwrite, pyarrow and most numpy work release the GIL; :mod:`hodyn_cli.pipeline.parallel`)
and written in input order. The chunks are the reader's, whatever ``jobs`` is, so the
numbers are the same bit for bit on any number of threads. A few chunks per thread are in
memory at once (up to ``jobs + 1`` submitted, one task queued by the read-ahead thread,
CSV pieces parsed ahead): memory stays bounded by the chunk size.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable

import numpy as np

from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.pipeline import parallel

__all__ = ["run", "default_jobs"]

#: how often (s) the writer looks for finished chunks while the input is quiet
POLL = parallel.POLL


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

    With ``jobs > 1`` every chunk is read (where ``chunks`` has tasks: a reader of
    :mod:`hodyn_cli.io.tasks`), computed and encoded (``sink.encode``: e.g. CSV formatting)
    or written at its place (a sink that is ``positional``: ``sink.write_at``) on one of
    ``jobs`` threads, several at once (:func:`hodyn_cli.pipeline.parallel.ordered`); this
    thread writes the encoded chunks in order. ``progress(samples_done)`` is called after
    each chunk is written. Every thread started here has ended when this returns or raises
    (an error, Ctrl-C, a signal): ``cancel()`` (the reader's) wakes a read-ahead that waits
    for input.
    """
    done = 0

    def work(chunk: Trajectory):
        return sink.encode(finite(compute(chunk)))

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
    positional = getattr(sink, "positional", False)

    def work_at(chunk: Trajectory, start: int):
        if not positional:
            return work(chunk)
        sink.write_at(finite(compute(chunk)), start)  # at its place in the file, here
        return None

    for chunk, payload in parallel.ordered(chunks, work_at, jobs, cancel):
        if payload is None:
            done += chunk.n_samples
            if progress is not None:
                progress(done)
        else:
            written(payload, chunk.n_samples)
    return done


def finite(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The results, or an error if one is not finite (overflowing inputs): NaN or inf never
    reach an output silently."""
    for name, value in data.items():
        if not np.isfinite(value.sum()):  # fast path: finite only if every value is
            bad = np.argwhere(~np.isfinite(value))
            if bad.size:
                raise HodynError(f"result '{name}' is not finite at sample {bad[0][0]} of a "
                                 "chunk: the inputs are too large for float64")
    return data


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
