"""One trajectory file through a job into one output file: open the input (checked,
estimated if asked), open the atomic output, stream the chunks."""

from __future__ import annotations

from collections.abc import Callable

from hodyn_cli.core.model import Diagnostic
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import open_sink
from hodyn_cli.pipeline import stream
from hodyn_cli.pipeline.inputs import open_input
from hodyn_cli.pipeline.protocols import Job, Sink

__all__ = ["run_file"]


def run_file(job: Job, source: str, output: str, attrs: dict | None = None, *, jobs: int = 1,
             notify: Callable[[Diagnostic], None] | None = None,
             progress: Callable[[int, int | None], None] | None = None,
             first: Callable[[Trajectory, Sink], None] | None = None,
             stdout=None, **input_options) -> int:
    """Stream ``source`` through ``job`` into ``output`` (``-``: CSV on stdout); returns the
    number of samples.

    ``notify`` hears the input's notes when it opens and its limit warnings at the end;
    ``progress(samples_done, total)`` after each chunk (total None if not known);
    ``first(chunk, sink)`` sees the first chunk before it is computed (``compute
    --validate``). ``input_options`` go to
    :func:`~hodyn_cli.pipeline.inputs.open_input` (wrench, estimate, cutoff, strict, ...).
    """
    def tell(notes) -> None:
        for note in notes if notify is not None else ():
            notify(note)

    attrs = {"joint_names": list(job.model.coordinate_names), **(attrs or {})}
    with open_input(source, job.model, job.need, wrench_need=job.wrench_need,
                    series=job.series, chunk=job.chunk_rows, flags=job.flags,
                    **input_options) as reader:
        tell(reader.notes)
        with open_sink(output, job.columns(reader.has_t), attrs, stdout,
                       rows=reader.n_samples) as sink:
            chunks = reader  # its tasks: read on the threads that compute
            if first is not None:
                rest = iter(reader)
                head = next(rest)
                first(head, sink)
                chunks = _chain(head, rest)
            n = stream.run(chunks, job, sink, jobs=jobs, progress=None if progress is None else
                           lambda done: progress(done, reader.n_samples), cancel=reader.cancel)
    tell(reader.end_notes())
    return n


def _chain(head, rest):
    yield head
    yield from rest
