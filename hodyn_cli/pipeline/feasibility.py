"""A trajectory file against the robot's limits (``hodyn check``) and retimed to them (``hodyn
retime``), streamed in chunks: memory stays bounded by the chunk size (the retimed file is
read two or three times: the time scaling first, last the output; CSV from stdin from its
copy in a temporary file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli import api
from hodyn_cli.core.model import Diagnostic
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.errors import HodynError, Infeasible
from hodyn_cli.io import open_sink, trajectory_datasets
from hodyn_cli.io.spool import spooled
from hodyn_cli.io.tables import held
from hodyn_cli.modeling.limits import Limits
from hodyn_cli.pipeline.inputs import Input, one_on_stdin, open_input
from hodyn_cli.pipeline.laws import LawsJob, RetimeJob

if TYPE_CHECKING:
    from hodyn_cli.api.limits import Binding, Check, Optimal, Retiming

__all__ = ["check_file", "retime_file", "retime_optimal_file"]


def _mapped(chunks: Iterable[Trajectory], job: LawsJob, jobs: int
            ) -> Iterator[tuple[Trajectory, dict]]:
    """``(chunk, job(chunk))`` in order, each chunk read and its laws computed on one of
    ``jobs`` threads (:func:`hodyn_cli.pipeline.parallel.ordered`)."""
    if jobs <= 1:
        yield from ((chunk, job(chunk)) for chunk in chunks)
        return
    from hodyn_cli.pipeline import parallel  # (its threads, queues and futures: ~5 ms)

    yield from parallel.ordered(chunks, lambda chunk, start: job(chunk), jobs)


#: the derivative orders a retimed file carries where ``--estimate-derivatives`` makes them
#: (q..qdddd, as ``hodyn generate`` writes them): a q-only input's output had only the orders
#: the limits needed (q..qdd), which ``hodyn validate`` refuses (it needs qddd)
RETIMED_ORDERS = 5


def _open(job, source: str, notify, need: int | None = None, **input_options) -> Input:
    reader = open_input(source, job.model, job.need if need is None else need,
                        wrench_need=job.wrench_need,
                        chunk=job.chunk_rows, flags=job.flags, base_orders=job.base_need,
                        base_most=job.base_most, **input_options)
    for note in reader.notes if notify is not None else ():
        notify(note)
    return reader


def check_file(job: LawsJob, source: str, limits: Limits, *, envelopes: bool = False,
               jobs: int = 1, notify: Callable[[Diagnostic], None] | None = None,
               progress: Callable[[int, int | None], None] | None = None,
               **input_options) -> Check:
    """Every limited quantity of the trajectory at ``source`` against ``limits``
    (``envelopes``: keep a plot's worth of each series); ``input_options`` as
    :func:`~hodyn_cli.pipeline.inputs.open_input` takes them (positions beyond the URDF
    limits are the check's to report: no warnings about them)."""
    check = api.limit_check(job.model, limits, envelopes=envelopes, contacts=job.contacts)
    with _open(job, source, notify, **input_options) as reader, _named(source):
        for chunk, laws in _mapped(reader, job, jobs):
            check.add(laws, chunk.t)
            if progress is not None:
                progress(check.n_samples, reader.expected_samples)
    return check


@contextmanager
def _named(source: str) -> Iterator[None]:
    """Errors about the motion (its laws overflow, no time scaling changes it) name its
    file (a verdict, :class:`Infeasible`, is a ``fail`` line as the check's are)."""
    try:
        yield
    except HodynError as e:
        if e.source is not None or isinstance(e, Infeasible):
            raise
        raise type(e)(e.message, source) from None


@contextmanager
def _reopener(job, source: str, notify, input_options: dict) -> Iterator[Callable[[], Input]]:
    """Opens ``source`` for one more pass each time it is called (the orders to write,
    :data:`RETIMED_ORDERS`, where they are estimated), its notes told on the first: a file
    afresh, stdin (which can be read once: the trajectory, the ``--wrench`` or the
    ``--base-motion``) from its copy in a temporary file (:func:`~hodyn_cli.io.spool.spooled`,
    made here and gone on leaving: memory bounded by a block of it, where holding stdin grew
    with it). An HDF5 file is opened once for every pass (:func:`~hodyn_cli.io.tables.held`)."""
    with ExitStack() as stack:
        files = (source, input_options.get("wrench"), input_options.get("base_motion"))
        on_stdin = one_on_stdin(source, wrench=files[1], base_motion=files[2])
        spool = stack.enter_context(spooled()) if on_stdin else None
        for path in files:
            if path is not None:
                stack.enter_context(held(path))
        passes = 0

        def opened() -> Input:
            nonlocal passes
            passes += 1
            return _open(job, source, notify if passes == 1 else None,
                         max(job.need, RETIMED_ORDERS) if input_options.get("estimate")
                         else None, stdin=None if spool is None else spool.reading(),
                         **input_options)
        yield opened


def _empty(chunk: Trajectory) -> Trajectory:
    """The chunk's layout without samples (what the retimed file's columns are: a floating
    root's and the contact flags too)."""
    W, flags = chunk.wrenches, {k: v[:0] for k, v in (chunk.series or {}).items()
                                if k.startswith("contact_")}
    return Trajectory(chunk.joint_names, chunk.derivatives[:0],
                      None if chunk.t is None else chunk.t[:0],
                      None if W is None else Wrenches({k: w[:0] for k, w in W.W.items()}),
                      flags or None, None if chunk.base is None else chunk.base.rows(slice(0, 0)))


def retime_file(job: LawsJob, source: str, output: str, attrs: dict, limits: Limits, *,
                factor: float | None = None, joins: tuple[float, ...] = (),
                compact: bool = False, jobs: int = 1,
                notify: Callable[[Diagnostic], None] | None = None,
                progress: Callable[[int, int | None], None] | None = None,
                **input_options) -> tuple[Retiming, list[Binding | None], list[str]]:
    """Write the trajectory at ``source`` played k times slower to ``output``: k = ``factor``,
    or per segment (``joins``: the times between them) the smallest that keeps every limited
    quantity within ``limits``. Returns the retiming, the binding of each segment (its time
    in the retimed motion) and where the retimed derivatives jump (at joins)."""
    with _reopener(job, source, notify, input_options) as opened:
        search = api.scale_search(job.model, limits, joins, job.contacts)
        with opened() as reader, _named(source):
            if factor is not None:
                first = next(iter(reader))
                template, t0 = _empty(first), 0.0 if first.t is None else float(first.t[0])
                retiming = api.retiming_by(factor, t0)
            else:
                template = None
                for chunk, laws in _mapped(reader, job, jobs):
                    search.add(laws, chunk)
                    template = template or _empty(chunk)
                    if progress is not None:
                        progress(search.n_samples, reader.expected_samples)
                retiming = search.retiming()
                for text in search.rest_steps():
                    if notify is not None:
                        notify(Diagnostic("warning", f"{source}: {text}"))
        best = [retiming.played(b) for b in search.best]
        attrs = {**attrs, "time_scale": list(retiming.k), "segment_bounds": list(retiming.bounds)}
        if factor is None:
            attrs["binding"] = [b.describe() for b in best if b is not None]
        assert template is not None  # search.retiming() refused a motion without samples
        writer = RetimeJob(job.model, retiming, template, compact, output)
        from hodyn_cli.pipeline import stream  # (not on --optimal's path: parallel's threads)

        # a sample out per sample in: an HDF5 input's count announced, so each chunk is written
        # at its place by the thread that retimed it
        with opened() as reader, open_sink(output, writer.columns(reader.has_t),
                                           {"joint_names": list(job.model.coordinate_names),
                                            **attrs}, rows=reader.n_samples) as sink:
            stream.run(reader, writer, sink, jobs=jobs, progress=None if progress is None else
                       lambda done: progress(done, reader.expected_samples))
        return retiming, best, search.jumps(retiming)


def retime_optimal_file(job: LawsJob, source: str, output: str, attrs: dict, limits: Limits, *,
                        rate: float | None = None, grid: int | None = None,
                        compact: bool = False, uniform: bool = False, solver: str = "auto",
                        arc_grid: int | None = None,
                        notify: Callable[[Diagnostic], None] | None = None,
                        progress: Callable[[int, int], None] | None = None,
                        **input_options) -> Optimal:
    """Write the trajectory at ``source`` along its own path with the fastest time law within
    ``limits`` (:func:`hodyn_cli.api.time_optimal`; ``grid``, ``arc_grid``: the windows'
    and reachability's grid sizes) to ``output``, at ``rate`` Hz (default: the input's),
    every derivative column the input has. The input is read three times (the time law; the
    played motion's dynamics; the output), chunk by chunk; stdin from its copy in a
    temporary file. HDF5 attributes: those of
    :attr:`~hodyn_cli.algorithms.limits.optimal.Optimal.attributes` (``duration``,
    ``uniform_duration``, ``final_scale``, ``grid_points``, ``binding``, ...; ``uniform``:
    the uniform scaling resampled at ``rate``, ``retime --to-limits --rate``).
    ``progress(done, points)``: the time law's grid points solved so far; ``solver``:
    :data:`~hodyn_cli.algorithms.limits.optimal.SOLVERS`."""
    with _reopener(job, source, notify, input_options) as opened:
        optimal = api.time_optimal(job.model, limits, rate=rate, grid=grid, arc_grid=arc_grid,
                                   gravity=job.gravity,
                                   drives=job.drives, model=job.kind, uniform=uniform,
                                   progress=progress, solver=solver)
        def again() -> Iterator[Trajectory]:
            samples = 0
            with opened() as reader:
                for chunk in reader:
                    samples += chunk.n_samples
                    yield chunk
            # the input's own bound on --arc-grid, once its length is known: at the end of the
            # first pass, before reachability solves on that grid
            api.check_arc_grid(arc_grid, samples)

        with _named(source):  # the path refused, or nothing limits its speed: name its file once
            optimal.fit(again)
        # (a step of acceleration at a rest, kept; a pause of the input's, not kept)
        for text in optimal.kept + optimal.paused:
            if notify is not None:
                notify(Diagnostic("warning", f"{source}: {text}"))
        names = job.model.coordinate_names
        template = Trajectory(names, np.zeros((0, optimal.orders, len(names))), np.zeros(0))
        with opened() as reader, open_sink(output, trajectory_datasets(template, compact)[1],
                                           {"joint_names": list(names), **attrs}) as sink:
            for piece in optimal.retimed(reader):
                sink.write(trajectory_datasets(piece, compact)[0])
            sink.attrs.update(optimal.attributes)
        return optimal
