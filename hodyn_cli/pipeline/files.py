"""One trajectory file through a job into one output file: open the input (checked,
estimated if asked), open the atomic output, stream the chunks; and what the command line
asks of files (their format, their columns, a report written whole), from :mod:`hodyn_cli.io`.
"""

from __future__ import annotations

from collections.abc import Callable

from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io import file_format, open_sink
from hodyn_cli.io.base_motion import check_poses_apart
from hodyn_cli.io.paths import refuse_inputs, refuse_shared_outputs, write_text
from hodyn_cli.io.tables import held
from hodyn_cli.pipeline import stop
from hodyn_cli.pipeline.inputs import open_input
from hodyn_cli.pipeline.protocols import Job, Notify, Sink, tell

__all__ = ["run_file", "file_format", "refuse_inputs", "refuse_shared_outputs", "write_text", "column_names",
           "torque_orders", "check_poses_apart", "held"]


def run_file(job: Job, source: str, output: str, attrs: dict | None = None, *, jobs: int = 1,
             notify: Notify = None,
             progress: Callable[[int, int | None], None] | None = None,
             first: Callable[[Trajectory, Sink], None] | None = None,
             stdout=None, **input_options) -> int:
    """Stream ``source`` through ``job`` into ``output`` (``-``: CSV on stdout); returns the
    number of samples.

    ``notify`` hears the input's notes when it opens and its limit warnings at the end;
    ``progress(samples_done, total)`` after each chunk (total: estimated while a CSV file
    streams, None from a pipe);
    ``first(chunk, sink)`` sees the first chunk before it is computed (``compute
    --validate``). ``input_options`` go to
    :func:`~hodyn_cli.pipeline.inputs.open_input` (wrench, estimate, cutoff, strict, ...).
    """
    attrs = {"joint_names": list(job.model.coordinate_names), **(attrs or {})}
    with open_input(source, job.model, job.need, wrench_need=job.wrench_need,
                    series=job.series, chunk=job.chunk_rows, flags=job.flags,
                    base_orders=job.base_need, base_most=job.base_most,
                    **input_options) as reader:
        tell(notify, reader.notes)
        with open_sink(output, job.columns(reader.has_t), attrs, stdout,
                       rows=reader.n_samples) as sink:
            chunks = reader  # its tasks: read on the threads that compute
            if first is not None:
                rest = iter(reader)
                head = next(rest)
                first(head, sink)
                chunks = _chain(head, rest)
            from hodyn_cli.pipeline import stream  # (its threads: not every command's)

            try:
                with stop.waking(reader.cancel):  # a signal ends a read waiting for a pipe
                    n = stream.run(chunks, job, sink, jobs=jobs, progress=None
                                   if progress is None else
                                   lambda done: progress(done, reader.expected_samples),
                                   cancel=reader.cancel)
            except TrajectoryError as e:  # about the values of this file (an overflow)
                raise TrajectoryError(e.message, e.source or source) from None
    tell(notify, reader.end_notes())
    return n


def _chain(head, rest):
    yield head
    yield from rest


def column_names(path: str) -> list[str]:
    """The column (dataset) names of a trajectory file (``--lock-missing`` holds the joints
    it has no ``q_`` column for)."""
    from hodyn_cli.io.tables import open_table

    table = open_table(path)
    try:
        return list(table.names)
    finally:
        table.close()


def torque_orders(traj: str, model: Model, wrench: str | None = None) -> int:
    """The highest qdd derivative the files allow (``hodyn forward``'s default order): one
    less than the number of complete tau orders (and wrench orders, if there are wrenches);
    a robot without joints has no tau column to bound it (0 without wrenches)."""
    from hodyn_cli.io.columns import plan_wrenches, series_orders

    orders = []
    for path in [traj] + ([wrench] if wrench else []):
        names = column_names(path)
        if path == traj and model.coordinate_names:
            orders.append(series_orders(names, "tau", model))
        orders += [len(rows) for rows in plan_wrenches(names, model, path).values()]
    return max(min(orders) - 1, 0) if orders else 0
