"""Trajectories read chunk by chunk: columns checked once, values checked as they stream.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> root = Path(__file__).parents[2]
>>> model = load_model(root / "urdf" / "planar_2r.urdf")
>>> with TrajectoryReader(str(root / "sample_trajectories" / "planar_2r_cosine.h5"), model,
...                       need=5, chunk=200) as reader:
...     [c.n_samples for c in reader], reader.orders
([200, 200, 101], 7)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import (
    BaseMotion,
    Trajectory,
    Wrenches,
    check_rotations,
    derivative_name,
)
from hodyn_cli.errors import MissingDerivatives, TrajectoryError
from hodyn_cli.io.checks import (
    SampleError,
    check_increasing,
    check_same_times,
    check_values,
)
from hodyn_cli.io.columns import W_COLUMN, Layout, plan, plan_wrenches
from hodyn_cli.io.tables import Block, Rows, empty, open_table, rechunk, row_count
from hodyn_cli.io.tasks import ChunkTask, at_line, chunk_tasks

if TYPE_CHECKING:  # (as io.tasks: not imported to run)
    from concurrent.futures import Executor

#: samples per chunk a command reads, computes and writes before the next (bounds memory)
CHUNK_ROWS = 1 << 14

_T = TypeVar("_T")


class TrajectoryReader:
    """A trajectory file (``-``: CSV on stdin) as a stream of :class:`Trajectory` chunks.

    The columns are checked when the reader opens (missing or unknown ones are errors
    naming them); values as they stream: non-finite values and a ``t`` that does not
    increase (across chunk boundaries too) raise a one-line error naming the column and
    sample. A ``wrench`` file is read in lockstep; a different number of samples is an error.
    """

    def __init__(self, path: str, model: Model, need: int = 1, *, wrench: str | None = None,
                 chunk: int = CHUNK_ROWS, stdin=None, series: tuple[str, ...] = (),
                 flags: tuple[str, ...] | None = None):
        self.path, self.model, self.chunk = path, model, chunk
        self.table = open_table(path, stdin, chunk)  # HDF5 read by chunk: no re-chunking
        self.wtable = None
        try:
            if model.multi_dof and self.table.n_rows is not None:
                raise TrajectoryError("the trajectory of a robot with multi-DOF joints is read "
                                      "from CSV (HDF5 datasets of joint poses are not defined "
                                      "yet)", path)
            try:
                self.layout = plan(self.table.names, model, need, path, series, flags)
            except TrajectoryError as e:
                if self.table.n_rows is None or not e.message.startswith("missing columns"):
                    raise
                raise _in_hdf5_words(self.table.names, model, need, path, series) or e from None
            if wrench is not None:
                self.wtable = open_table(wrench, stdin, chunk)
                extra = [c for c in self.wtable.names if c != "t" and not W_COLUMN.match(c)]
                if extra:
                    raise TrajectoryError(f"column '{extra[0]}' does not belong in a wrench file",
                                          wrench)
                self.wlayout = Layout((), plan_wrenches(self.wtable.names, model, wrench),
                                      "t" in self.wtable.names)
                both = sorted(set(self.layout.wrenches) & set(self.wlayout.wrenches))
                if both:
                    raise TrajectoryError(f"wrenches on '{both[0]}' are in both the trajectory "
                                          f"and {wrench}", path)
        except BaseException:
            self.close()
            raise
        self.wrench_path = wrench

    @property
    def orders(self) -> int:
        """Number of q derivative orders the chunks carry (3 means q, qd, qdd)."""
        return len(self.layout.q)

    @property
    def has_t(self) -> bool:
        return self.layout.has_t

    @property
    def ignored(self) -> list[str]:
        """Columns (CSV) or datasets (HDF5) of the file that are not hodyn's."""
        return list(getattr(self.table, "ignored", [])) + list(self.layout.ignored)

    @property
    def mimic_columns(self) -> list[str]:
        """Columns of mimic joints (ignored: their motion follows their leaders)."""
        return list(self.layout.mimic)

    @property
    def locked_columns(self) -> list[str]:
        """Columns of locked joints (ignored: ``--lock`` holds them)."""
        return list(self.layout.locked)

    @property
    def typos(self) -> dict[str, str]:
        """Ignored columns that look like mistyped hodyn columns -> what they probably meant."""
        return dict(self.layout.typos)

    @property
    def n_samples(self) -> int | None:
        """Number of samples if the format says so up front (HDF5), else None."""
        return self.table.n_rows

    @property
    def expected_samples(self) -> int | None:
        """The number of samples if the format says so up front (HDF5), else an estimate
        that improves as the file is read (CSV files; None from a pipe): a progress bar's
        total."""
        return self.table.expected_rows

    def __enter__(self) -> TrajectoryReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for table in (self.table, self.wtable):
            if table is not None:
                table.close()

    def cancel(self) -> None:
        """End the chunks early (thread-safe: a read waiting on a pipe returns)."""
        for table in (self.table, self.wtable):
            if table is not None:
                table.cancel()

    def __iter__(self) -> Iterator[Trajectory]:
        main = rechunk(self.table.blocks(self.layout.columns), self.chunk,
                       lambda: self.table.paused)
        side = Rows(self.wtable.blocks(self.wlayout.columns)) if self.wtable is not None else None
        start, last_t = 0, None
        for block in main:
            n = row_count(block)
            wblock = side.take(n) if side is not None else None
            wend = None
            if side is not None and row_count(wblock) != n:  # the wrench file's rows end
                nw = start + row_count(wblock)  # at sample nw: a line that does not parse,
                fault = side.fault  # or the file's end
                wend = (nw, _returning(fault) if fault is not None else
                        partial(self._wrench_ends, start + n, nw))
            chunk = self._assemble(block, wblock, start, last_t, wend=wend)
            start += n
            if chunk.t is not None:
                last_t = chunk.t[-1]
            yield chunk
        if not start:
            raise empty(self.table, self.path)
        if side is not None and (left := side.remaining()):
            raise self._count_mismatch(start, start + left)

    def tasks(self, executor: Executor, ahead: int) -> Iterator[ChunkTask]:
        """The chunks of :meth:`__iter__` as tasks: each read and checked by its ``load``,
        on any thread, then ``settle``d in order (the checks across chunks). Parsing CSV
        runs on ``executor``, up to ``ahead`` pieces ahead. A file read in lockstep with a
        wrench file of another kind or length is read here, chunk by chunk."""
        return chunk_tasks(self, executor, ahead)

    def _where(self, sample: int) -> str:
        """``sample N``, and its line where the file is CSV."""
        line = self.table.line_of(sample) if hasattr(self.table, "line_of") else None
        return at_line(sample, line)

    def _with_poses(self, block: Block, index: dict[str, int], start: int) -> np.ndarray:
        """``qs`` (n, D, nv) of a model with multi-DOF joints: the rates' columns, and row 0
        of each multi-DOF joint from its pose (:func:`_pose_coordinates`)."""
        model, layout = self.model, self.layout
        derivs = np.empty((row_count(block), len(layout.q), model.nv))
        for k, row in enumerate(layout.q):
            for v, c in enumerate(row):
                if c:
                    derivs[:, k, v] = block[:, index[c]]
        o = model.dof_offsets
        for joint, cols in layout.poses.items():
            i = model.joint_index(joint)
            derivs[:, 0, o[i] : o[i + 1]] = _pose_coordinates(
                model.joint_types[i], block[:, [index[c] for c in cols]], joint, start,
                self.path)
        return derivs

    def _count_mismatch(self, n: int, nw: int) -> TrajectoryError:
        """The wrench file has ``nw`` samples, the trajectory ``n``."""
        return TrajectoryError(f"has {nw} samples, the trajectory {n}", self.wrench_path)

    def _wrench_ends(self, n: int, nw: int) -> TrajectoryError:
        """The wrench file ends at sample ``nw``, the trajectory has ``n`` at least: its
        length where the format gives it up front (HDF5), else not read on to count it (the
        rest of a long file, or a pipe that goes on: the error comes with the chunk where
        the wrench file ends)."""
        if self.table.n_rows is not None:
            return self._count_mismatch(self.table.n_rows, nw)
        return TrajectoryError(f"has {nw} samples, fewer than the trajectory (at least {n})",
                               self.wrench_path)

    def _assemble(self, block: Block, wblock: Block | None, start: int, last_t,
                  where: Callable[[int], str] | None = None,
                  wend: tuple[int, Callable[[], TrajectoryError]] | None = None) -> Trajectory:
        """The chunk of ``block`` (and ``wblock``, the wrench file's rows), its values checked,
        also that t increases (from ``last_t`` on, where given). ``wend``: the wrench file's
        rows end early, at that sample, with that error (a line that does not parse, or
        the file's end). Of all the faults the first sample's is raised: the trajectory's
        own before the wrench file's at one sample (:func:`_raise_first`)."""
        columns = self.layout.columns
        where = where or self._where
        has_t = self.layout.has_t
        checks = [lambda: check_values(block, columns, self.path, start, where)]
        if has_t:
            checks.append(lambda: check_increasing(block[:, 0], last_t, start, self.path, where))
        if wblock is not None:
            wpath = self.wrench_path
            assert wpath is not None  # wblock: the wrench file's rows
            checks.append(lambda: check_values(wblock, self.wlayout.columns, wpath, start))
            if self.wlayout.has_t and has_t:  # the same instants, or an error
                checks.append(lambda: check_same_times(wblock[:, 0], block[: len(wblock), 0],
                                                       start, wpath))
        _raise_first(checks, wend)
        n = row_count(block)
        t = np.ascontiguousarray(block[:, 0]) if has_t else None
        first = int(self.layout.has_t)  # columns: [t], q..., wrenches...
        D, nj = len(self.layout.q), len(self.model.coordinates)
        index = {c: k for k, c in enumerate(columns)}
        if self.layout.poses:
            derivs = self._with_poses(block, index, start)
        else:
            # a view, not a copy: this thread, reading ahead, is the stream's longest chain;
            # the compiled kernels read the view in place (its row stride), numpy works on it
            derivs = block[:, first : first + D * nj].reshape(n, D, nj)
        series = {name: block[:, [index[c] for c in cols]]
                  for name, cols in self.layout.series.items()}
        series |= {name: block[:, index[name]] for name in self.layout.flags}
        W = {}
        for layout, data in ((self.layout, block), (getattr(self, "wlayout", None), wblock)):
            if layout is None or data is None:
                continue
            index = {c: k for k, c in enumerate(layout.columns)}
            for link, rows in layout.wrenches.items():
                cols = [index[c] for row in rows for c in row]
                W[link] = data[:, cols].reshape(n, len(rows), 6)
        return Trajectory(self.model.coordinate_names, derivs, t, Wrenches(W) if W else None,
                          series or None)


def _raise_first(checks: list[Callable[[], None]],
                 late: tuple[int, Callable[[], TrajectoryError]] | None = None) -> None:
    """Raise the fault of the first sample: of the ``checks`` (each raises a
    :class:`~hodyn_cli.io.checks.SampleError`) and ``late`` (a sample and its error, made
    only if it is the one raised); at one sample, the earlier in the list. The chunks are
    read in order, so the first bad sample of either file is the one named, whatever the
    size of the blocks each file is read in."""
    found: list[tuple[int, int, Callable[[], TrajectoryError]]] = []
    for k, check in enumerate(checks):
        try:
            check()
        except SampleError as e:
            found.append((e.sample if e.sample is not None else -1, k, _returning(e)))
    if late is not None:
        found.append((late[0], len(checks), late[1]))
    if found:
        raise min(found, key=lambda f: f[:2])[2]()


def _returning(error: TrajectoryError) -> Callable[[], TrajectoryError]:
    """``error`` as an error made on demand (:func:`_raise_first`)."""
    return lambda: error


def _pose_coordinates(kind: str, values: np.ndarray, name: str, start: int, path: str
                      ) -> np.ndarray:
    """A multi-DOF joint's configuration coordinates (N, nv) from its pose columns (N, 3, 9
    or 12: :func:`~hodyn_cli.io.columns.pose_columns`): a rotation's rotation vector
    (:func:`~hodyn_cli.core.model.joint_pose` inverts it), a planar joint's x, y, theta as
    they are; a rotation that is not one is a one-line error naming ``name``'s columns."""
    if kind == "planar":
        return values
    R = values[:, -9:].reshape(-1, 3, 3)
    try:
        check_rotations(R, f"{name}_R", start)
    except TrajectoryError as e:
        raise TrajectoryError(e.message, path) from None
    r = lie.rotation_log(R)
    return r if kind == "spherical" else np.concatenate([r, values[:, :3]], axis=1)


def _in_hdf5_words(names: list[str], model: Model, need: int, path: str,
                   series: tuple[str, ...] = ()) -> TrajectoryError | None:
    """The missing-columns error for an HDF5 file, named as its datasets: q's derivatives,
    else the ``series`` (``tau``, ...) a command needs (None: neither is missing); both over
    the coordinates (a mimic or passive joint has no column: :func:`~hodyn_cli.io.columns.plan`)."""
    missing = [derivative_name("q", k) for k in range(need)
               if not all(f"{derivative_name('q', k)}_{j}" in names
                          for j in model.coordinate_names)]
    if missing:
        return (TrajectoryError if "q" in missing else MissingDerivatives)(
            f"missing columns: dataset(s) {', '.join(missing)} (need q up to "
            f"{derivative_name('q', need - 1)}: datasets N x n in joint_names order, or "
            "q_derivatives N x D x n)", path)
    absent = [base for base in series
              if not all(f"{base}_{j}" in names for j in model.coordinate_names)]
    if absent:
        return TrajectoryError(f"missing columns: dataset(s) {', '.join(absent)} (N x n in "
                               "joint_names order)", path)
    return None


class MemoryReader:
    """An in-memory trajectory with the interface of :class:`TrajectoryReader` (a file that
    must be read twice but came from stdin)."""

    def __init__(self, trajectory: Trajectory, chunk: int = CHUNK_ROWS):
        self.trajectory, self.chunk = trajectory, chunk
        self.has_t = trajectory.t is not None
        self.n_samples = trajectory.n_samples

    def __enter__(self) -> MemoryReader:
        return self

    def __exit__(self, *exc) -> None:
        pass

    def cancel(self) -> None:
        """Nothing to do: the chunks are in memory."""

    def __iter__(self) -> Iterator[Trajectory]:
        return split(self.trajectory, self.chunk)


def read_trajectory(path: str, model: Model, *, need: int = 1, wrench: str | None = None,
                    stdin=None, series: tuple[str, ...] = (), floating: bool = False
                    ) -> Trajectory:
    """The whole trajectory at once (see :class:`TrajectoryReader`; ``need`` = number of q
    derivative orders required, q..qdddd is 5). ``floating``: with the floating root's
    motion (``trajectory.base``) from the file's ``base_`` columns, the body twist and
    every derivative of it the file has (``base_Vb``, ``base_Vbd``, ...: as
    :func:`~hodyn_cli.io.results.write_trajectory` writes them; a file of spatial twists
    ``base_Vs`` only is an error: ``hodyn_cli.api.base_motion`` turns them into body ones).
    """
    from dataclasses import replace

    from hodyn_cli.io.base_motion import BaseMotionReader, check_poses_apart

    if floating:
        check_poses_apart(model, path)
    with TrajectoryReader(path, model, need, wrench=wrench, stdin=stdin,
                          series=series) as reader:
        trajectory = concatenate(list(reader), model)
    if not floating:
        return trajectory
    if path == "-":
        raise TrajectoryError("the floating root's motion is read from a file, not stdin")
    base = BaseMotionReader(path, 0, most=MAX_TWIST_ORDERS)
    try:
        if base.twist != "Vb":
            raise TrajectoryError("has the floating root's spatial twists (Vs) only: "
                                  "read_trajectory reads body twists base_Vb, ...", path)
        motion = base.take(trajectory.n_samples, trajectory.t)
        base.finish()
    finally:
        base.close()
    assert motion.Vb is not None and motion.R is not None  # a pose and body twists (above)
    return replace(trajectory, base=BaseMotion(motion.R, motion.p, motion.Vb))


#: the most twist derivative orders :func:`read_trajectory` looks for
MAX_TWIST_ORDERS = 64


def concatenate(chunks: list[Trajectory], model: Model) -> Trajectory:
    """One trajectory from consecutive chunks."""
    if len(chunks) == 1:
        return chunks[0]
    if not chunks:
        raise TrajectoryError("no data rows after the header")
    t = None if chunks[0].t is None else np.concatenate([c.t for c in chunks])
    W = None
    if chunks[0].wrenches is not None:
        W = Wrenches({link: np.concatenate([_present(c.wrenches).W[link] for c in chunks])
                      for link in chunks[0].wrenches.W})
    series = None
    if chunks[0].series:
        series = {k: np.concatenate([_present(c.series)[k] for c in chunks])
                  for k in chunks[0].series}
    base = None
    if chunks[0].base is not None:
        base = BaseMotion(*(np.concatenate([getattr(c.base, a) for c in chunks])
                            for a in ("R", "p", "Vb")))
    return Trajectory(chunks[0].joint_names, np.concatenate([c.derivatives for c in chunks]), t,
                      W, series, base)


def _present(value: _T | None) -> _T:
    """A chunk's ``value`` where the first chunk has one: the chunks of one trajectory have
    the same columns."""
    assert value is not None, "the chunks of one trajectory have the same columns"
    return value


def split(trajectory: Trajectory, rows: int) -> Iterator[Trajectory]:
    """An in-memory trajectory as chunks of ``rows`` samples."""
    for s in range(0, trajectory.n_samples, rows):
        yield trajectory.rows(slice(s, s + rows))
