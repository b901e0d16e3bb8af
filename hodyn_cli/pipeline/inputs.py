"""A command's input: the trajectory file read in chunks, missing derivatives estimated if
asked, positions checked against the URDF limits as they stream, and what the user should
hear about it as :class:`~hodyn_cli.core.model.Diagnostic` notes (the command line prints
them; nothing here prints).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli import api, capabilities
from hodyn_cli.api.robots import leaders_unwrapped
from hodyn_cli.core.model import Diagnostic, Model
from hodyn_cli.core.trajectory import BaseMotion, Trajectory
from hodyn_cli.errors import HodynError, MissingDerivatives, TrajectoryError
from hodyn_cli.io import CHUNK_ROWS, TrajectoryReader
from hodyn_cli.io.paths import listing
from hodyn_cli.io.tasks import ChunkTask, Loaded
from hodyn_cli.modeling.limits import beyond_limits

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from hodyn_cli.api.estimation import DerivativeStream

__all__ = ["Input", "open_input", "ESTIMATE_HINT"]

#: what the error for missing derivative columns suggests
ESTIMATE_HINT = "--estimate-derivatives estimates them from the data"


class Input:
    """Trajectory chunks of a file (a :class:`~hodyn_cli.pipeline.protocols.Reader`) whose
    positions are checked against the URDF limits as they pass; the angles that mimic joints
    follow continued through +-pi where the file wraps them
    (:func:`~hodyn_cli.api.robots.leaders_unwrapped`: the followers' poses).

    ``notes``: what was found when the file was opened (ignored columns, likely typos,
    estimated derivatives). ``beyond_limits``: joint -> where its positions first left their
    URDF limits (after iterating; with ``strict`` that is an error instead). ``estimated``:
    the derivative names that were estimated.
    """

    def __init__(self, reader, model: Model, source: str, *, strict: bool = False,
                 notes: list[Diagnostic] | None = None, estimated: tuple[str, ...] = (),
                 base=None, estimate: DerivativeStream | None = None,
                 flags: tuple[str, ...] | None = None):
        self.reader, self.model, self.source, self.strict = reader, model, source, strict
        self.estimate = estimate  # the estimated derivatives' stream: their expected error
        self.base = base  # a BaseMotionReader: the floating root's motion, or None
        self.notes = list(notes or [])
        self.estimated = estimated
        self.beyond_limits: dict[str, str] = {}
        self.has_t, self.n_samples = reader.has_t, reader.n_samples
        self.switches = ContactSwitches(flags or (), source)

    def __enter__(self) -> Input:
        return self

    def __exit__(self, *exc) -> None:
        self.reader.__exit__(*exc)
        if self.base is not None:
            self.base.close()

    def cancel(self) -> None:
        """End the chunks early; thread-safe (a read waiting on a pipe returns)."""
        self.reader.cancel()

    @property
    def expected_samples(self) -> int | None:
        """:attr:`n_samples`, or while a CSV file streams an estimate from its size (the
        progress bar's total); None from a pipe."""
        if self.n_samples is not None:
            return self.n_samples
        return getattr(self.reader, "expected_samples", None)

    def __iter__(self) -> Iterator[Trajectory]:
        start = 0
        leading = leaders_unwrapped(self.model)  # (counted afresh at each reading)
        for chunk in map(leading, self.reader):
            if self.base is not None:
                chunk = replace(chunk, base=_base_motion(self.base.take(chunk.n_samples, chunk.t)))
            self._settle(chunk, start, self._findings(chunk, start))
            start += chunk.n_samples
            yield chunk
        if self.base is not None:
            self.base.finish()

    def tasks(self, executor: Executor, ahead: int) -> Iterator[ChunkTask]:
        """The chunks of :meth:`__iter__` as tasks (:mod:`hodyn_cli.io.tasks`): each read, and
        its positions held against the URDF limits, on any thread; the limits' findings
        taken, and the contact flags followed, in order. Where the chunks must be made one
        after the other (derivatives estimated over windows, a floating root's motion read
        alongside, the turns of angles that mimic joints follow counted) they are, where the
        tasks are taken."""
        # (the class's: an estimating reader passes other attributes on to the file's reader)
        if (self.base is not None or not hasattr(type(self.reader), "tasks")
                or leaders_unwrapped(self.model).active):
            start = 0
            for chunk in self:
                yield Loaded(chunk, start)
                start += chunk.n_samples
            return
        for task in self.reader.tasks(executor, ahead):
            yield _Limited(task, self)

    def _findings(self, chunk: Trajectory, start: int) -> dict[str, str]:
        """joint -> where the chunk's positions first leave their URDF limits."""
        return beyond_limits(self.model, self.model.coupling.expand(chunk).derivatives[:, 0],
                             chunk.t, start)

    def _settle(self, chunk: Trajectory, start: int, findings: dict[str, str]) -> None:
        for joint, text in findings.items():
            if self.strict:
                raise TrajectoryError(f"{text} (--strict)", self.source)
            self.beyond_limits.setdefault(joint, text)
        self.switches.add(chunk, start)

    def end_notes(self) -> list[Diagnostic]:
        """What is known once every chunk was read: one warning per joint whose positions
        left its URDF limits; with estimated derivatives, a notice of their expected error."""
        notes = [Diagnostic("warning", f"{self.source}: {text}")
                 for text in self.beyond_limits.values()]
        if self.switches.found:
            notes.append(Diagnostic("notice", f"{self.source}: {self.switches.describe()}"))
        if self.estimate is not None and self.estimate.expected_error:
            expected = ", ".join(f"{name} {e:.2g}"
                                 for name, e in self.estimate.largest_error().items())
            notes.append(Diagnostic("notice", f"{self.source}: expected RMS error of the "
                                    f"estimated derivatives away from the first and last "
                                    f"{self.estimate.end_seconds:.2g} s, largest joint: "
                                    f"{expected}"))
            unreliable = self.estimate.unreliable()
            if unreliable:
                notes.append(Diagnostic("warning", f"{self.source}: estimated "
                                        f"{'; '.join(unreliable)} (derivative k of samples dt "
                                        "apart passes their noise and rounding as ~1/dt^k: "
                                        "--cutoff, or the data sampled slower)"))
        return notes


def open_input(path: str, model: Model, need: int, *, wrench: str | None = None,
               wrench_need: int = 0, estimate: bool = False, cutoff: float | None = None,
               series: tuple[str, ...] = (), chunk: int = CHUNK_ROWS, strict: bool = False,
               missing_hint: str = ESTIMATE_HINT, stdin=None, floating: bool = False,
               base_motion: str | None = None, base_orders: int = 0,
               base_most: int = 0, flags: tuple[str, ...] | None = None) -> Input:
    """The trajectory at ``path`` (and the ``wrench`` file) as checked chunks.

    ``need``: q derivative orders the command needs (5: q..qdddd). With ``estimate`` the
    missing derivatives (and wrench rates) are estimated from the highest order the file
    gives as the chunks stream (``cutoff``: low-pass first, Hz; memory bounded by a window,
    :class:`~hodyn_cli.algorithms.motion.estimate.DerivativeStream`). ``missing_hint`` ends the error
    for missing derivative columns (what to do about them). ``floating``: the root is a free
    body; its motion (``base_orders`` twist orders, up to ``base_most`` where the file has
    them) comes with every chunk (``chunk.base``) from the file's ``base_`` columns or the
    ``base_motion`` file (docs/floating.md).
    ``flags``: the contact columns ``contact_<name>`` to read where present (into
    ``chunk.series``; docs/contacts.md); where they switch is a notice at the end.
    """
    # what goes with what (the rules of every streaming command: compute's)
    capabilities.check("compute", {name for name, given in (
        ("cutoff", cutoff is not None), ("estimate", estimate), ("floating_base", floating),
        ("base_motion", base_motion is not None)) if given})
    one_on_stdin(path, wrench=wrench, base_motion=base_motion)
    base = _base_reader(path, model, floating, base_motion, base_orders, base_most, chunk,
                        stdin)
    try:
        reader = TrajectoryReader(path, model, 1 if estimate else need, wrench=wrench,
                                  series=series, chunk=chunk, stdin=stdin, flags=flags)
    except MissingDerivatives as e:  # (missing positions: nothing to estimate them from)
        if estimate:
            raise
        raise TrajectoryError(f"{e.message}; {missing_hint}", e.source) from None
    notes = _column_notes(reader, path)
    if not estimate:
        return Input(reader, model, path, strict=strict, notes=notes, base=base, flags=flags)
    estimating = api.estimating_reader(model, reader, need, wrench_need=wrench_need,
                                       cutoff=cutoff, rows=chunk)
    names = estimating.estimated
    if names:
        how = ("the sampled data over t (interpolating spline, no smoothing)" if cutoff is None
               else f"the data low-passed at {cutoff:g} Hz (zero-phase Butterworth) over t")
        notes.append(Diagnostic("warning", f"estimated {', '.join(names)} from {how}"))
    return Input(estimating, model, path, strict=strict, notes=notes, estimated=names,
                 base=base, estimate=estimating.stream, flags=flags)


class _Limited(ChunkTask):
    """A reader's task whose chunk is also held against the URDF limits (:class:`Input`)."""

    def __init__(self, task: ChunkTask, source: Input):
        self.task, self.source, self.start, self.rows = task, source, task.start, task.rows
        self._findings: dict[str, str] = {}

    def load(self) -> Trajectory:
        chunk = self.task.load()
        self._findings = self.source._findings(chunk, self.start)
        return chunk

    def settle(self, chunk: Trajectory | None) -> None:
        self.task.settle(chunk)
        if chunk is not None:  # None: its load failed (raised once settled)
            self.source._settle(chunk, self.start, self._findings)


class ContactSwitches:
    """Where the contact flags (``contact_<name>`` columns) change, found as the chunks pass:
    the contact wrenches and joint torques jump there (their derivatives are each phase's).
    A flag that is neither 1 nor 0 is an error naming the file, column and time."""

    #: switches named one by one in the notice
    SHOWN = 6

    def __init__(self, flags: tuple[str, ...], source: str = ""):
        self.flags, self.source = flags, source
        self.last: dict[str, float] = {}
        self.count = 0
        self.first: list[str] = []

    @property
    def found(self) -> bool:
        return self.count > 0

    def add(self, chunk: Trajectory, start: int) -> None:
        series = chunk.series or {}
        present = [f for f in self.flags if f in series]
        if not present or not chunk.n_samples:
            return
        values = np.stack([np.asarray(series[f]).reshape(-1) for f in present], axis=1)
        bad = np.argwhere((values != 0) & (values != 1))
        if bad.size:
            s, c = bad[0]
            when = f"t = {chunk.t[s]:.6g} s" if chunk.t is not None else f"sample {start + s}"
            raise TrajectoryError(f"column '{present[c]}' at {when}: {values[s, c]:g} is not 1 "
                                  "(in contact) or 0", self.source)
        before = np.array([self.last.get(f, v) for f, v in zip(present, values[0], strict=True)])
        rows = np.concatenate([before[None], values])
        changed = np.flatnonzero((rows[1:] != rows[:-1]).any(axis=1))
        self.count += len(changed)
        for s in changed[: max(self.SHOWN - len(self.first), 0)]:
            what = [f"{f.removeprefix('contact_')} {'lands' if rows[s + 1, c] else 'lifts'}"
                    for c, f in enumerate(present) if rows[s + 1, c] != rows[s, c]]
            when = f"t = {chunk.t[s]:.6g} s" if chunk.t is not None else f"sample {start + s}"
            self.first.append(f"{when} ({', '.join(what)})")
        self.last = dict(zip(present, values[-1], strict=True))

    def describe(self) -> str:
        more = f", ... ({self.count} switches)" if self.count > len(self.first) else ""
        return (f"the contacts switch at {', '.join(self.first)}{more}: the contact wrenches "
                "and the joint torques jump there, their derivatives are each phase's")


def one_on_stdin(path: str, **files: str | None) -> bool:
    """Whether the trajectory at ``path`` or one of the other ``files`` (option -> path) is
    ``-``, stdin; an error where two are (stdin is one stream, read by one reader).

    >>> one_on_stdin("walk.csv", wrench=None, base_motion="-")
    True
    >>> one_on_stdin("-", wrench=None, base_motion="-")
    Traceback (most recent call last):
    ...
    hodyn_cli.errors.HodynError: the trajectory and --base-motion cannot both come on stdin
    """
    given = {"the trajectory": path} | {f"--{option.replace('_', '-')}": file
                                         for option, file in files.items()}
    on_stdin = [name for name, file in given.items() if file == "-"]
    if len(on_stdin) > 1:
        raise HodynError(f"{' and '.join(on_stdin)} cannot both come on stdin")
    return bool(on_stdin)


def _base_reader(path: str, model: Model, floating: bool, base_motion: str | None, orders: int,
                 most: int, rows: int, stdin=None):
    """The reader of the floating root's motion (None without ``floating``): ``orders``
    twist orders, or up to ``most`` where the file has them; its pose columns none of the
    ``model``'s joints' (:func:`~hodyn_cli.io.base_motion.check_poses_apart`: the output
    writes both). An HDF5 file is read ``rows`` samples at a time, as the trajectory's
    chunks (the default 65 536-row blocks of its ~37 columns held 2 x 19 MB more than the
    trajectory's 16 384-row chunks: validate on a floating quadruped 165 -> 242 MiB from 2e4
    to 2e5 samples). ``stdin``: the stream read for a ``--base-motion -``."""
    from hodyn_cli.io.base_motion import BaseMotionReader, check_poses_apart

    if not floating:
        return None
    check_poses_apart(model, path)
    if base_motion is None and path == "-":
        raise HodynError("--floating-base with a trajectory on stdin needs --base-motion FILE")
    if base_motion is None:
        return BaseMotionReader(path, orders, rows=rows, most=most)
    return BaseMotionReader(base_motion, orders, stdin, own_file=True, rows=rows, most=most)


def _base_motion(motion) -> BaseMotion:
    """A :class:`BaseMotion` from the pose and body (``Vb``) or spatial (``Vs``) twists read."""
    return api.base_motion(motion.R, motion.p, Vb=motion.Vb, Vs=motion.Vs)


def _column_notes(reader: TrajectoryReader, path: str) -> list[Diagnostic]:
    notes = []
    if reader.ignored:
        notes.append(Diagnostic("notice", f"{path}: ignoring {len(reader.ignored)} column(s) "
                                          f"that are not hodyn's: {listing(reader.ignored)}"))
    if reader.mimic_columns:
        which = ("the closed loops' passive joints, ignored (the loops give them)"
                 if reader.model.actuated is not None
                 else "mimic joints, ignored (they follow their leaders)")
        notes.append(Diagnostic("notice", f"{path}: {which}: {listing(reader.mimic_columns)}"))
    if reader.locked_columns:
        notes.append(Diagnostic("notice", f"{path}: locked joints, ignored (held where --lock "
                                          f"says): {listing(reader.locked_columns)}"))
    for column, meant in reader.typos.items():  # likely mistakes: warnings, shown even -q
        notes.append(Diagnostic("warning", f"{path}: column '{column}' is ignored; a typo of "
                                           f"'{meant}'?"))
    return notes
