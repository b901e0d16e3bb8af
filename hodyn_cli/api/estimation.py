"""Derivatives estimated from the sampled data as a file's chunks stream
(``--estimate-derivatives``, docs/trajectories.md): the missing orders of q (and of the
wrenches) from an interpolating spline over t, or the data low-passed first (``cutoff``),
window by window so that memory stays bounded by a window; the expected error is known after
the last chunk (:mod:`hodyn_cli.algorithms.motion.estimate`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hodyn_cli.algorithms.motion.turns import wrapped_columns
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

if TYPE_CHECKING:
    from hodyn_cli.algorithms.motion.estimate import DerivativeStream, EstimatingReader

__all__ = ["derivative_stream", "estimating_reader"]


def derivative_stream(robot: Model, chunks: Iterable[Trajectory], need: int, *,
                      wrench_need: int = 0, cutoff: float | None = None,
                      rows: int | None = None, lowpassed: tuple[str, ...] = ()
                      ) -> DerivativeStream:
    """The chunks (time order, over ``robot.coordinate_names``) with q to ``q^(need-1)`` and
    the wrenches to ``W^(wrench_need-1)``, what they lack estimated, in pieces of at most
    ``rows`` samples; ``cutoff`` (Hz): low-pass the highest given order first; ``lowpassed``:
    series of the chunks (measurements taken with the samples) low-passed alike. Iterate it
    after ``start()``; ``.names`` (what is estimated), ``.end_samples``, and after the last
    chunk ``.expected_error`` (:class:`~hodyn_cli.algorithms.motion.estimate.DerivativeStream`).
    Continuous joints are unwrapped first; a robot's multi-DOF joints given by their poses
    only are estimated on their groups (:mod:`hodyn_cli.algorithms.motion.group_estimate`)."""
    from hodyn_cli.algorithms.motion.estimate import DerivativeStream

    if robot.multi_dof:  # poses alone estimated on the groups (as estimating_reader's)
        from hodyn_cli.algorithms.motion import group_estimate

        return group_estimate.GroupStream(  # type: ignore[return-value]
            chunks, group_estimate.Charts(robot),
            lambda chunks, wrapped: DerivativeStream(chunks, need, wrench_need, cutoff,
                                                     wrapped, rows=rows, lowpassed=lowpassed),
            wrapped_columns(robot))
    return DerivativeStream(chunks, need, wrench_need, cutoff, wrapped_columns(robot), rows=rows,
                            lowpassed=lowpassed)


def estimating_reader(robot: Model, reader: Any, need: int, *, wrench_need: int = 0,
                      cutoff: float | None = None, rows: int | None = None) -> EstimatingReader:
    """``reader`` (a trajectory reader: chunks in time order, e.g. ``io.TrajectoryReader``)
    whose chunks come with what they lack estimated as :func:`derivative_stream` does (its
    ``.stream``; ``.estimated``: the names estimated; the reader's other attributes pass
    through). The first chunk is read at once: its errors, naming the file, come first.
    A robot's multi-DOF joints given by their poses only are estimated on their groups
    (:mod:`hodyn_cli.algorithms.motion.group_estimate`)."""
    from hodyn_cli.algorithms.motion.estimate import EstimatingReader

    if robot.multi_dof and getattr(reader, "orders", 1) == 1:
        from hodyn_cli.algorithms.motion import group_estimate

        charts = group_estimate.Charts(robot)
        return group_estimate.MappedReader(EstimatingReader(  # type: ignore[return-value]
            group_estimate.MappedReader(reader, charts.to_chart), need, wrench_need, cutoff,
            charts.wrapped, rows=rows), charts.back)
    return EstimatingReader(reader, need, wrench_need, cutoff, wrapped_columns(robot), rows=rows)
