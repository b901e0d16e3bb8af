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
from collections.abc import Callable, Iterable

import numpy as np

from hodyn_cli.core.trajectory import Trajectory, check_results
from hodyn_cli.pipeline import parallel, stop

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

    def results(chunk: Trajectory) -> dict[str, np.ndarray]:
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named below
            data = compute(chunk)
        check_results(data, chunk)  # NaN or inf never reach an output silently
        return data

    def work(chunk: Trajectory):
        return sink.encode(results(chunk))

    def written(payload, n: int) -> None:
        nonlocal done
        sink.write_encoded(payload)
        done += n
        if progress is not None:
            progress(done)

    if jobs <= 1:
        for chunk in chunks:
            stop.check()  # a batch's file, on its own thread: given up when the run stops
            written(work(chunk), chunk.n_samples)
        stop.check()  # the chunks ended as the signal woke a read (stop.waking): not the end
        return done
    positional = getattr(sink, "positional", False)

    def work_at(chunk: Trajectory, start: int):
        if not positional:
            return work(chunk)
        sink.write_at(results(chunk), start)  # at its place in the file, here
        return None

    for chunk, payload in parallel.ordered(chunks, work_at, jobs, cancel):
        if payload is None:
            done += chunk.n_samples
            if progress is not None:
                progress(done)
        else:
            written(payload, chunk.n_samples)
    return done
