"""Derivatives of multi-DOF joints estimated on their groups (``--estimate-derivatives`` of a
file that gives only their poses; docs/conventions.md, "Multi-DOF and helical joints").

A ball joint's omega is not the rate of its rotation vector, and the entries of R(t) are not
free to be interpolated one by one (an interpolant leaves SO(3)). Its samples are turned
into a *chart* whose interpolant is a motion on the group: the unit quaternion of each R,
its sign chosen continuous along the record (``q`` and ``-q`` are the same rotation: each
sample takes the sign nearer its predecessor's), a free joint's followed by its position; a
planar joint's ``(x, y, theta)``, theta unwrapped. :class:`~hodyn_cli.algorithms.motion.
estimate.DerivativeStream` interpolates the chart's columns and differentiates them; the
velocity coordinates and their rates follow exactly from the chart's jets
(:func:`hodyn_cli.core.joint_jets.joint_rows`: ``R = B(q, q) / (q . q)`` holds for an
interpolant of any norm, so ``skew(omega) = R^T R'`` and ``v = R^T p'`` are tangent by
construction). A file that gives the joints' rates as well has them interpolated as they
are (nu is a vector: its derivatives are ordinary ones), with no chart.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from hodyn_cli.algorithms.motion.turns import wrapped_columns
from hodyn_cli.core.joint_jets import joint_rows
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

__all__ = ["Charts", "MappedReader", "GroupStream"]

#: chart columns of each multi-DOF joint type (a rotation as a quaternion)
WIDTH = {"spherical": 4, "planar": 3, "free": 7}


def _quaternions(r: np.ndarray) -> np.ndarray:
    """(N, 4) unit quaternions ``(cos(t/2), sin(t/2) r/t)`` of rotation vectors r (N, 3)."""
    t = np.linalg.norm(r, axis=1)
    small = t < 1e-4  # sin(t/2)/t by its series there (exact to rounding)
    half = np.where(small, 0.5 - t**2 / 48, np.sin(t / 2) / np.where(small, 1.0, t))
    return np.concatenate([np.cos(t / 2)[:, None], half[:, None] * r], axis=1)


class Charts:
    """A model's chart columns (module docstring): ``to_chart`` the positions of a chunk,
    ``back`` a chunk of chart jets to the model's rows. Quaternion signs stay continuous from
    chunk to chunk (chunks in time order)."""

    def __init__(self, model: Model):
        self.model = model
        self.widths = [WIDTH.get(kind, 1) for kind in model.joint_types]
        self.at = np.concatenate([[0], np.cumsum(self.widths)]).astype(int)
        self.names = tuple(f"{model.joint_names[i]}_c{k}" if w > 1 else model.joint_names[i]
                           for i, w in enumerate(self.widths) for k in range(w))
        self._last: dict[int, np.ndarray] = {}

    @property
    def wrapped(self) -> np.ndarray:
        """(m,) the chart columns that may wrap at +-pi: the coordinates that may
        (:func:`~hodyn_cli.algorithms.motion.turns.wrapped_columns`) where a joint's chart
        columns are its coordinates (1-DOF and planar joints; not a quaternion's)."""
        wrap, o = wrapped_columns(self.model, every=True), self.model.dof_offsets
        out = np.zeros(self.at[-1], bool)
        for i in range(self.model.n):
            if self.at[i + 1] - self.at[i] == o[i + 1] - o[i]:
                out[self.at[i]:self.at[i + 1]] = wrap[o[i]:o[i + 1]]
        return out

    def to_chart(self, chunk: Trajectory) -> Trajectory:
        """The positions of ``chunk`` (row 0, the configuration coordinates) as chart
        columns."""
        q, o = chunk.derivatives[:, 0], self.model.dof_offsets
        out = np.empty((chunk.n_samples, 1, self.at[-1]))
        for i, kind in enumerate(self.model.joint_types):
            c = q[:, o[i]:o[i + 1]]
            if kind in ("spherical", "free"):
                c = np.concatenate([self._continuous(i, _quaternions(c[:, :3])), c[:, 3:]],
                                   axis=1)
            out[:, 0, self.at[i]:self.at[i + 1]] = c
        return Trajectory(self.names, out, chunk.t, chunk.wrenches, chunk.series, chunk.base)

    def _continuous(self, i: int, Q: np.ndarray) -> np.ndarray:
        """Quaternions Q (N, 4) of joint i with each sign the one nearer the sample before
        (the previous chunk's last for the first)."""
        before = np.concatenate([self._last.get(i, Q[:1]), Q[:-1]])
        flips = np.cumsum(np.einsum("ni,ni->n", Q, before) < 0) % 2  # (Q[:-1] as given)
        Q = np.where(flips[:, None] == 1, -Q, Q)
        self._last[i] = Q[-1:]
        return Q

    def back(self, chunk: Trajectory) -> Trajectory:
        """A chunk of chart jets (N, K, m) as the model's rows (N, K, nv) (the chart's
        positions back to configuration coordinates, the rates to nu's)."""
        model, o = self.model, self.model.dof_offsets
        out = np.empty((chunk.n_samples, chunk.orders, model.nv))
        for i, kind in enumerate(model.joint_types):
            c = chunk.derivatives[:, :, self.at[i]:self.at[i + 1]]
            out[:, :, o[i]:o[i + 1]] = c if self.widths[i] == 1 else \
                joint_rows(model, i, c, quaternion=kind != "planar")
        return Trajectory(model.coordinate_names, out, chunk.t, chunk.wrenches, chunk.series,
                          chunk.base)


class MappedReader:
    """A trajectory reader whose chunks come through ``mapping`` (a chunk to a chunk: into
    chart columns, :meth:`Charts.to_chart`, or back to the model's rows, :meth:`Charts.back`,
    around an estimating reader); its other attributes pass through."""

    def __init__(self, reader, mapping: Callable[[Trajectory], Trajectory]):
        self.reader, self.mapping = reader, mapping

    def __getattr__(self, name: str):
        return getattr(self.reader, name)

    def __enter__(self) -> MappedReader:
        self.reader.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.reader.__exit__(*exc)

    def __iter__(self) -> Iterator[Trajectory]:
        for chunk in self.reader:
            yield self.mapping(chunk)


class GroupStream:
    """A :class:`~hodyn_cli.algorithms.motion.estimate.DerivativeStream` over ``chunks`` of a
    model with multi-DOF joints: chunks of poses alone (one row) are estimated on the groups
    (their chart columns interpolated, the chunks that come back the model's rows); chunks
    that give the rates too as they are. ``stream(chunks, wrapped)`` builds the inner
    stream; which one is known when :meth:`start` reads the first chunk. Its other
    attributes (``names``, ``expected_error``, ...) pass through after :meth:`start`."""

    def __init__(self, chunks: Iterable[Trajectory], charts: Charts,
                 stream: Callable, wrapped: np.ndarray):
        self.chunks, self.charts, self._stream, self._wrapped = chunks, charts, stream, wrapped
        self.inner: Any = None
        self._charted = False

    def start(self) -> GroupStream:
        if self.inner is None:
            it = iter(self.chunks)
            first = next(it, None)
            chunks: Iterable[Trajectory] = [] if first is None else itertools.chain([first], it)
            self._charted = first is not None and first.orders == 1
            if self._charted:
                self.inner = self._stream(map(self.charts.to_chart, chunks), self.charts.wrapped)
            else:
                self.inner = self._stream(chunks, self._wrapped)
        self.inner.start()
        return self

    def __getattr__(self, name: str):
        if name == "inner":
            raise AttributeError(name)
        if self.inner is None:
            raise AttributeError(f"{name}: start() the stream first")
        return getattr(self.inner, name)

    def __iter__(self) -> Iterator[Trajectory]:
        self.start()
        for chunk in self.inner:
            yield self.charts.back(chunk) if self._charted else chunk
