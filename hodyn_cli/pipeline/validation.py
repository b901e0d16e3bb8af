"""A trajectory file proven (``hodyn validate``): its chunks read once through the checks of
:func:`hodyn_cli.api.validate_motion` (memory bounded by a chunk and the samples checked),
with the torques of another file to judge read in lockstep (``--torques``); with every
sample checked (``--samples 0``), a file is read twice (memory bounded by a chunk), stdin
copied to a temporary file first (:mod:`hodyn_cli.io.spool`) and read twice from there."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, closing
from dataclasses import replace
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from hodyn_cli import api
from hodyn_cli.core.model import Diagnostic, Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io.paths import listing
from hodyn_cli.io.spool import Spool, spooled
from hodyn_cli.io.torques import TorqueReader
from hodyn_cli.modeling.contacts import Contact
from hodyn_cli.pipeline.inputs import Input, one_on_stdin, open_input
from hodyn_cli.pipeline.job import contact_flags
from hodyn_cli.pipeline.parallel import prefetched
from hodyn_cli.pipeline.protocols import Notify, tell
from hodyn_cli.pipeline.stream import default_jobs

if TYPE_CHECKING:
    from hodyn_cli.api.validation import Report, ValidationCheck

__all__ = ["validate_file", "path_check"]

#: q derivative orders the checks read (q..qdddd: tau to taudd, and their differences)
NEED = 4


def validate_file(model: Model, source: str, *, notify: Notify = None,
                  wrench: str | None = None, estimate: bool = False, cutoff: float | None = None,
                  strict: bool = False, floating: bool = False, base_motion: str | None = None,
                  contacts: tuple[Contact, ...] = (), jobs: int | None = None,
                  torques: str | None = None, **checks: Any) -> Report:
    """The checks of :func:`hodyn_cli.api.validate_motion` (``checks``: its options) on the
    trajectory at ``source``, read chunk by chunk as :func:`~hodyn_cli.pipeline.inputs.open_input`
    reads it (``wrench``, ``estimate``, ``cutoff``, ``strict``; a floating root's twist to
    Vbdd, Vbddd where the file has it; the flags of ``contacts``), its chunks read ahead on
``jobs`` threads (default: every core). What reading it warned about
    counts as ``warn`` checks; ``notify`` hears the input's notes. An overflow is an error
    (the torques) or fails its check (NaN): no numpy warnings. ``torques``: a file of torques
    to judge (:class:`~hodyn_cli.io.torques.TorqueReader`: the columns hodyn compute writes,
    the trajectory's samples row for row), carried in each chunk's ``series``."""
    on_stdin = one_on_stdin(source, wrench=wrench, base_motion=base_motion, torques=torques)
    # every sample checked: a second pass over the files; stdin, which can be read once,
    # copied to a file of its own first (memory bounded by a block of the copy, not held)
    reread = not checks.get("samples")
    spool: Spool | None = None

    def stdin() -> BinaryIO | None:
        """A reading of stdin's copy from its start, where there is one."""
        return None if spool is None else spool.reading()

    def opened() -> Input:
        return open_input(source, model, NEED, wrench=wrench, wrench_need=NEED - 1,
                          cutoff=cutoff, estimate=estimate, strict=strict, floating=floating,
                          base_motion=base_motion, base_orders=NEED - 1, base_most=NEED,
                          flags=contact_flags(contacts), stdin=stdin())

    def again() -> Iterator[Trajectory]:
        """The file (and the torques') read once more, its notes told already."""
        with ExitStack() as stack:
            yield from _chunks(stack, stack.enter_context(opened()), torques, model, jobs,
                               stdin)

    with ExitStack() as stack:
        if reread and on_stdin:
            spool = stack.enter_context(spooled())
        reader = stack.enter_context(opened())
        given = None if torques is None else stack.enter_context(
            TorqueReader(torques, model, stdin=stdin()))
        tell(notify, reader.notes + ([] if given is None else torque_notes(given)))
        # read ahead on the threads; closed (its threads ended) however the pass ends
        chunks: Iterable[Trajectory] = stack.enter_context(
            closing(prefetched(reader, jobs or default_jobs(), reader.cancel)))
        stack.enter_context(np.errstate(over="ignore", invalid="ignore"))
        report = api.validate_motion(
            model, chunks=chunks if given is None else carrying(chunks, given), source=source,
            estimated=reader.estimated, torques=given is not None,
            warnings=[n.message for n in reader.notes if n.level == "warning"],
            contacts=contacts, again=again if reread else None, **checks)
    tell(notify, reader.end_notes())
    return report


def _chunks(stack: ExitStack, reader: Input, torques: str | None, model: Model,
            jobs: int | None, stdin: Callable[[], BinaryIO | None]) -> Iterator[Trajectory]:
    """The reader's chunks read ahead on ``jobs`` threads (closed with ``stack``), with the
    torques at ``torques`` carried (``stdin()``: a stream in place of standard input)."""
    chunks = stack.enter_context(closing(prefetched(reader, jobs or default_jobs(),
                                                    reader.cancel)))
    if torques is None:
        return iter(chunks)
    return carrying(chunks, stack.enter_context(TorqueReader(torques, model, stdin=stdin())))


def carrying(chunks: Iterable[Trajectory], given: TorqueReader) -> Iterator[Trajectory]:
    """The chunks with the given torques of their samples in their ``series`` (``tau``,
    ``taud``, ...: N x m); an error where the files' samples differ."""
    for chunk in chunks:
        tau = given.take(chunk.n_samples, chunk.t)
        yield replace(chunk, series={**(chunk.series or {}), **{
            derivative_name("tau", k): tau[:, k] for k in range(given.orders)}})
    given.finish()


def torque_notes(given: TorqueReader) -> list[Diagnostic]:
    """What reading the torques says: which orders it judges, the columns it passes over."""
    orders = ", ".join(derivative_name("tau", k) for k in range(given.orders))
    notes = [Diagnostic("notice", f"{given.path}: judging the given {orders}")]
    if given.ignored:
        notes.append(Diagnostic("notice", f"{given.path}: ignoring {len(given.ignored)} "
                                          "column(s), not tau, taud or taudd of an "
                                          f"independent joint: {listing(given.ignored)}"))
    return notes



def path_check(model: Model, source: str, path: str) -> ValidationCheck:
    """``hodyn validate --path``: :func:`hodyn_cli.api.path_check` of the trajectory at
    ``source`` (a retiming's output) against the one at ``path`` (its input), each read
    whole."""
    from hodyn_cli.io import read_trajectory

    if model.multi_dof:
        raise TrajectoryError(f"{path}: --path takes robots of 1-DOF joints alone (a ball, "
                              "planar or free joint's path is not its coordinates' "
                              "interpolant)")
    given = read_trajectory(path, model, need=2)
    if given.n_samples < 2 or given.t is None:
        raise TrajectoryError(f"{path}: --path needs 2 timed samples at least")
    return api.path_check(model, read_trajectory(source, model, need=2), given, path)
