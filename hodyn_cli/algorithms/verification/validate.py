"""Prove the numbers: finite differences, cross-method agreement, input consistency, model sanity.

:func:`validate` runs every check on a model and a trajectory and returns a
:class:`Report`; :mod:`hodyn_cli.pipeline.report` renders it (JSON, Markdown, HTML). The
torque checks (1-3, 8 and the contacts') are parts fed a block of samples at a time, in
:mod:`hodyn_cli.algorithms.verification.torque_checks`; here, the reading of the chunks (once,
or twice with every sample checked), the data and model checks and the simulation. The checks:

1. **finite differences** (per method, per order k = 1..K): at each checked sample the
   given ``q, qd, ..., q^(D-1)`` define the Taylor polynomial ``q(s + h)`` whose derivatives
   match the sample exactly; tau^(k-1) is evaluated along it at ``h = -8..8`` steps and
   differentiated with the 8th-order central stencil. Independent of the file's sampling.
   The step is chosen from the data's time scale (``h = 0.01 / omega``, omega the largest
   ratio ``|q^(j+1)| / |q^(j)|``; torques carry sums of the joints' frequencies, so the
   factor is small; the step shrinks by 4 while the estimate exceeds a tenth of the
   tolerance), and the expected error of the numerical derivative is
   estimated from the data: Richardson (stencil at h vs 2h, ``|D_h - D_2h| / 255``) plus a
   rounding bound ``eps * sum|c| * |tau^(k-1)| / h``.
2. **sampled differences** (needs ``t``): the computed tau^(k) against central differences
   of tau^(k-1) over the file's own samples. Limited by the sampling rate, so it only warns.
3. **cross-method**: every available method against every other, per order.
4. **data consistency** (needs ``t``): ``q^(k)`` against differences of ``q^(k-1)`` (the
   trapezoid rule between neighbouring samples), and joint values within the URDF limits.
   This catches derivatives in the wrong units or from another trajectory, which are the
   usual cause of wrong torques, and degrees given for radians.
5. **model**: M(q) symmetric positive definite at the checked samples, ``M' = Cbar + Cbar^T``
   (the skew property of eq. (54)), and the URDF's warnings.
6. **simulation** (``simulate=True``, needs ``t``): from the file's state every
   ``SIM_WINDOW`` seconds, the forward dynamics driven by the first method's tau along that
   sample's local Taylor motion (the motion of check 1), integrated for ``SIM_WINDOW``
   seconds (:mod:`hodyn_cli.algorithms.verification.simulate`), against that motion's q and
   qd. Nothing is interpolated between the file's samples, so the sampling rate does not
   enter (quintic Hermite torques between 20 Hz samples erred by ~2e-7 on the iiwa); the
   expected error is the integrator's, bounded by the same integration at 100x its
   tolerances. Open-loop motion of an arm is unstable (errors grow ~e^(7 t) on the iiwa),
   so the windows are short; in 0.2 s a torque off by 1e-5 relative moves q by ~1e-5
   relative on the bundled robots, the exact torques by 1e-13 to 1e-12. With given torques
   (``torques=True``) the simulation is theirs instead
   (:class:`~hodyn_cli.algorithms.verification.simulation.Replay`): interpolated between the
   file's samples, against the file's q, qd at every sample of each window; the expected
   error adds the interpolation's (Richardson: every other sample).
7. **drives** (with rigid drives, :mod:`hodyn_cli.algorithms.verification.validate_drives`): every
   derivative of tau, tau_m and the currents by finite differences as in 1, the drive model
   with zero rotor inertia against the rigid torques, and the full model against the rotors
   built as bodies of their own.
8. **torques** (``torques=True``: the chunks' ``series`` carry given torques ``tau``,
   ``taud``, ... in the independent joints, from elsewhere): at the checked samples, per
   joint and order, ``max |given - computed|`` (the first method's) relative to the largest
   computed magnitude of that order over the joints.
9. **loops** (a robot with closed loops, :mod:`hodyn_cli.algorithms.verification.validate_loops`):
   the closure, the actuated torques, constraint forces and passive joints' derivatives by
   finite differences along the actuated joints' local motion, the virtual power.

Multi-DOF joints (ball, planar, free: docs/conventions.md; their rows k >= 1 are the
derivatives of the velocity coordinates ``nu``, not of the configuration): the local Taylor
motion of 1 moves each on its group, ``nu`` the Taylor polynomial of the sample's rows and
the pose the one their twist ``S nu`` turns and moves, ``R' = R skew(omega)``, ``p' = R v``,
as Taylor series (exact to rounding: ``|omega| h`` is ~0.01;
:func:`~hodyn_cli.algorithms.verification.checks.local_motion`); check 4 takes ``nu``'s rows
against time differences and the pose against ``nu`` (:class:`PoseConsistency`); check 5
the nv x nv matrices. No simulation (6) yet.

A floating base (chunks with a ``base``, docs/floating.md) is the robot under its free root
joint (:func:`~hodyn_cli.core.trajectory.free_root_motion`), checked as any multi-DOF joint
(its checks named by the base's columns, ``base_Vb``, ``base_R``, ``base_p``); the torque
checks 1-3 take the base wrench, minus the free joint's torque, as 6 more columns ``W_<root>_mx
.. _fz`` after the joints'.

A floating base on contacts (``contacts``, docs/contacts.md; the chunks' ``series`` carry the
flags ``contact_<name>``): the torque checks 1-3 are on the torques with the contacts, the base
wrench left over and the contact wrenches (their columns ``Fc_<name>_fx``, ... after the
base wrench's), each checked sample's local motion keeping its active contacts; and
**contacts** checks: where the active contacts can take any wrench (a sole, three points off a
line) nothing is left on the base (fails otherwise); where one or two points cannot, the couple
left over warns (the motion does not fit its contacts there); an active contact that moves
warns (it slides or lifts: the flags or the motion are off).

Default tolerances (relative to the largest magnitude of the checked quantity; the
reasoning is in :class:`Tolerances`) make each check fail on an error well below 1e-6
relative, while the estimated numerical error stays orders of magnitude below them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics.closed_form import matrices
from hodyn_cli.algorithms.dynamics.forward import inert_coordinates, no_inertia, unit_scales
from hodyn_cli.algorithms.dynamics.methods import GRAVITY, METHODS
from hodyn_cli.algorithms.motion.differences import RTOL, Differences, frequency
from hodyn_cli.algorithms.motion.turns import wrapped_columns
from hodyn_cli.algorithms.verification.blocks import Block
from hodyn_cli.algorithms.verification.checks import (
    STEP_FACTOR,
    Check,
    Peak,
    block_rows,
    column_name,
    largest,
    verdict,
    worst,
)
from hodyn_cli.algorithms.verification.simulate import WINDOWS
from hodyn_cli.algorithms.verification.simulation import SIM_WINDOW, Replay, Windows
from hodyn_cli.algorithms.verification.torque_checks import (
    Contacts,
    CrossMethod,
    GivenTorques,
    Parts,
    SampledDifferences,
    column_names,
    computed,
)
from hodyn_cli.core import lie
from hodyn_cli.core.model import DOF_SUFFIXES, Model, joint_pose
from hodyn_cli.core.trajectory import (
    Trajectory,
    Wrenches,
    derivative_name,
    free_body,
    free_root_motion,
)
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.contacts import Contact
from hodyn_cli.modeling.drives import Drives

__all__ = ["Tolerances", "Check", "Report", "validate"]

#: instants compared in each window of check 6 driven along the local Taylor motion
SIM_POINTS = 8


@dataclass(frozen=True)
class Tolerances:
    """Relative tolerances (error / largest magnitude of the checked quantity).

    - ``fd`` 1e-8: the Taylor-polynomial finite difference is exact to ~1e-12 relative
      (8th order, step from the data; the report prints the estimate next to each error),
      so 1e-8 leaves 1e4 of margin and still fails a 1e-6 relative error in a method.
    - ``cross`` 1e-10: independent O(n) recursions and the closed form agree to ~1e-14
      (observed on every bundled robot up to order 4); 1e-10 absorbs ill-scaled models.
      A pair's error at a sample may pass that by 10x the rounding its summed terms may
      leave there (:func:`~hodyn_cli.algorithms.verification.torque_checks.rounding`,
      "expected"; each sample its own, so a fast stretch's hides nothing in a slow one): the
      spatial form's terms cancel on a robot turning fast (~Omega^(k+2) at order k: a base
      spinning at 500 rad/s, taudd 1.1e-10 apart); below 1e-12 at the bundled robots'
      speeds, so 1e-10 there.
    - ``data`` 1e-3: the trapezoid rule between samples is exact to ``dt^2 omega^2 / 12``
      (1e-4 relative for omega = 3 rad/s at 100 Hz); each check also allows 10x its own
      estimate. Wrong units or foreign columns err by O(1).
    - ``sampled`` 1e-2: central differences of the output over the file's samples; a
      sanity check limited by the sampling rate, it warns only.
    - ``structure`` 1e-10: symmetry of M and ``M' = Cbar + Cbar^T`` hold to rounding.
    - ``simulation`` 1e-8: q, qd simulated from the computed torques agree with the local
      Taylor motion they were computed along to ~1e-12 relative (integration at 1e-12; its
      error bound, printed as "expected", 1e-12 to 1e-10); a torque off by 1e-5 relative errs by
      ~1e-6 to 1e-4. Given torques interpolated between samples add the interpolation's
      error (its estimate is part of "expected"; each check allows 10x that).
    - ``torques`` 1e-8: given torques from float64 arithmetic (hodyn compute's own file,
      another library) agree with hodyn's to ~1e-13; a trajectory whose qdd is off by 1e-5
      relative moves the torques by ~1e-6 relative. Torques stored as float32 (rounding
      6e-8) need a looser tolerance.
    """

    fd: float = 1e-8
    cross: float = 1e-10
    data: float = RTOL
    sampled: float = 1e-2
    structure: float = 1e-10
    simulation: float = 1e-8
    torques: float = 1e-8


@dataclass
class Report:
    """Everything :func:`validate` found, plus the series the report plots."""

    robot: str
    urdf_sha256: str
    trajectory: str
    n_samples: int
    checked_samples: Sequence[int]   # (every sample of a long file: a range)
    order: int
    methods: list[str]
    step: float
    tolerances: Tolerances
    checks: list[Check] = field(default_factory=list)
    series: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not any(c.status == "fail" for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.status == "fail"]

    def summary(self) -> dict:
        """Counts per status."""
        out = {s: 0 for s in ("pass", "fail", "warn", "skip", "estimated")}
        for c in self.checks:
            out[c.status] += 1
        return out

    def to_dict(self) -> dict:
        """JSON-ready dict with stable keys (schema: ``hodyn_cli/schemas/report.schema.json``)."""
        return {
            "schema": "hodyn-validation-report/1",
            "passed": self.passed,
            "summary": self.summary(),
            "robot": self.robot,
            "urdf_sha256": self.urdf_sha256,
            "trajectory": self.trajectory,
            "n_samples": self.n_samples,
            "n_checked": len(self.checked_samples),
            "order": self.order,
            "methods": self.methods,
            "step": self.step,
            "tolerances": asdict(self.tolerances),
            "checks": [asdict(c) for c in self.checks],
        }


def validate(model: Model, trajectory: Trajectory | Iterable[Trajectory], *,
             methods: list[str] | None = None, samples: int | None = 1000,
             tolerances: Tolerances = Tolerances(), gravity=GRAVITY, source: str = "",
             estimated: tuple[str, ...] = (), warnings: tuple[str, ...] = (),
             simulate: bool = False, drives: Drives | None = None, drive_model: str = "full",
             contacts: tuple[Contact, ...] = (), torques: bool = False,
             again: Callable[[], Iterable[Trajectory]] | None = None) -> Report:
    """Run all checks; ``trajectory``: one :class:`Trajectory` (all joints) or its chunks in
    order (one pass over them: memory is bounded by a chunk and the checked samples).
    ``samples``: how many evenly spread samples the torque checks use (None or 0: all).
    ``again``: with ``samples`` 0 and chunks, the chunks once more from the start: the
    checks take every sample a chunk at a time in a second pass (memory bounded by a chunk;
    a :class:`Trajectory` is read again as it is); without it every sample is held.
    ``estimated``: derivative names (``qdd``, ...) hodyn estimated from the data:
    their consistency checks hold by construction and are reported as ``estimated``, not as
    passed. ``warnings``: what reading the input warned about (e.g. a column that looks like a
    typo), counted as ``warn`` checks of group ``input``. ``simulate``: also the simulation
    checks (6), chunk by chunk. ``drives`` (rigid; ``drive_model`` full or reflected): also
    the drives' columns (:mod:`hodyn_cli.algorithms.verification.validate_drives`).
    ``contacts``: a floating base on them (module docstring). ``torques``: every chunk's
    ``series`` carries given torques ``tau``, ``taud``, ... (N x m, the independent joints'):
    the torques checks (8), and the simulation is driven by them.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> from hodyn_cli.core.trajectory import cosine
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
    >>> traj = cosine(model.joint_names, np.linspace(0, 2, 201), amplitude=[0.8, 1.2],
    ...               omega=[1.3, 2.1], orders=5)
    >>> report = validate(model, traj, samples=20)
    >>> report.passed, report.summary()["fail"]
    (True, 0)
    >>> [c.name for c in report.checks if c.group == "data consistency"][0]
    'qd vs time differences of q'
    """
    methods = list(METHODS) if not methods else methods
    for m in methods:
        if m not in METHODS:
            raise HodynError(f"unknown method '{m}' (choose from {', '.join(METHODS)})")
    robot = model
    simulation = None if not simulate else Replay(robot, gravity) if torques else \
        Simulation(robot, methods[0], gravity)
    if isinstance(trajectory, Trajectory):
        whole = trajectory
        trajectory, again = [whole], again or (lambda: [whole])
    streamed = not samples and again is not None
    scan: Scan | None = None
    for chunk in trajectory:
        chunk, given = _prepared(robot, chunk, source)
        if scan is None:
            if given.base is not None:  # a floating base: the robot under its free root joint
                model = robot.free_rooted
            scan = Scan(model, samples, simulation, torques, floating=model is not robot,
                        hold=not streamed)
        scan.add(chunk, given)
    if scan is None or not scan.N:
        raise HodynError("no samples to validate", source)
    floating = scan.floating
    order = min(scan.D - 3, 2)
    if contacts and not floating:
        raise HodynError("contacts carry a floating base: give the root's motion "
                         "(--floating-base)", source)
    names = column_names(robot, floating, contacts)

    torques_of = computed(model, order=order, gravity=gravity, contacts=contacts,
                          floating=floating)
    rows = block_rows(model)
    picked: Picked | None = None
    if streamed:
        assert again is not None and scan.maxima is not None
        maxima, checked = scan.maxima, range(scan.N)
        timed = scan.first_t is not None and scan.last_t is not None
        span = (scan.first_t, scan.last_t) if scan.first_t is not None and \
            scan.last_t is not None else (0.0, float(scan.N - 1))
        feed = _streamed(again, robot, model, source, rows, torques_of, scan.N)
    else:
        picked = scan.picked()
        center, idx = picked.at(picked.centres), picked.index[picked.centres]
        maxima = np.abs(center.derivatives).max(axis=0)
        checked, timed, span = idx.tolist(), center.t is not None, None
        feed = _held(center, idx, rows, torques_of, source)
    h = _step(maxima)
    report = Report(robot.name, robot.source_sha256, source, scan.N, checked, order,
                    list(methods), h, tolerances)
    if picked is not None:
        report.series["t"] = center.t
    else:
        report.series["timed"] = timed
    report.series["joint_names"] = names
    parts = Parts(model, methods, order, gravity, tolerances, contacts, names, floating, span)
    # the parts whatever the steps (made in the first pass), in the report's order
    before: list = [CrossMethod(parts)] + ([GivenTorques(parts)] if torques else []) + \
        ([Contacts(parts)] if contacts else [])
    drive_part = loop_part = None
    rate = 0.0
    if drives is not None:  # (a fixed base: the API refuses a floating one)
        from hodyn_cli.algorithms.verification.validate_drives import Agreements, coulomb_rate

        drive_part = Agreements(model, drives, drive_model, order, gravity, methods[-1],
                                tolerances.cross)
        rate = coulomb_rate(drives, maxima)
    if model.actuated is not None:
        from hodyn_cli.algorithms.verification.validate_loops import Closure

        loop_part = Closure(model, order, methods[0], gravity, tolerances.cross)
    sampled = SampledDifferences(parts, scan.frequency(), streamed) if timed else None
    structure = ModelChecks(parts)
    fixed = before + [p for p in (drive_part, loop_part) if p is not None] + \
        ([sampled] if streamed and sampled is not None else []) + [structure]
    done: dict[tuple, Any] = {}
    while True:  # the steps: a pass for the parts whose step an earlier pass chose
        needed, chosen = _plan(parts, done, h, drives, rate, loop_part is not None,
                               tolerances)
        if not needed:
            break
        made = {key: parts.make(key, drives, drive_model) for key in needed}
        _fed(feed, list(made.values()) + fixed)
        done.update(made)
        fixed = []
    assert chosen is not None
    keys, report.step = chosen
    for key in keys:
        if key[0] == "fd":
            report.checks += done[key].checks()
            done[key].plotted(report.series)
    for part in before:
        report.checks += part.checks()
    for key in keys:
        if key[0] == "drives":
            assert drive_part is not None
            report.checks += done[key].checks() + drive_part.checks()
            done[key].plotted(report.series)
    for key in keys:
        if key[0] == "loops":
            assert loop_part is not None
            report.checks += loop_part.checks() + done[key].checks()
            done[key].plotted(report.series)
    if sampled is not None:
        if not streamed:
            assert picked is not None
            sampled.triples(picked, rows, torques_of)
        report.checks += sampled.checks()
        sampled.plotted(report.series)
        derived = scan.pose_rates()  # a pose check's x' is its joint's rates (estimated too)
        for c in scan.consistency_checks(tolerances.data):
            x = c.name.split(" ")[0]
            if (x in estimated or derived.get(c.name) in estimated) and c.status == "pass":
                c.status = "estimated"
                c.detail = ("estimated by hodyn from the data (--estimate-derivatives): "
                            "consistent by construction, not evidence")
            report.checks.append(c)
    else:
        report.checks.append(Check("data consistency", "derivatives vs differences of q", "skip",
                                   detail="the trajectory has no t column"))
    report.checks += [Check("input", text, "warn") for text in warnings]
    report.checks += scan.limits.checks()
    report.checks += structure.checks()
    if scan.simulation is not None:
        report.checks += scan.simulation.checks(tolerances.simulation, report.series)
    return report


def _prepared(robot: Model, chunk: Trajectory, source: str) -> tuple[Trajectory, Trajectory]:
    """A chunk as read -> the motion checked (a floating base's: under the free root joint)
    and the chunk (no joint, a single free body: its root's)."""
    chunk = free_body(chunk)  # no joint (a single free body): the root bounds the orders
    if chunk.orders < 4:
        raise HodynError("validation needs at least q, qd, qdd, qddd (to check taud)", source)
    if chunk.base is not None:  # the root's twist to order + 2 d's, and at least taud
        if chunk.base.orders < 3:
            raise HodynError("validation of a floating base needs base_Vb, base_Vbd, "
                             "base_Vbdd (to check taud)", source)
        return free_root_motion(chunk, robot.free_rooted.dof_names), chunk
    return chunk, chunk


def _held(center: Trajectory, idx: np.ndarray, rows: int, torques_of, source: str
          ) -> Callable[[], Iterator[Block]]:
    """The checked samples held in memory, in blocks of ``rows``."""
    def blocks() -> Iterator[Block]:
        for a in range(0, center.n_samples, rows):
            yield Block(center.rows(slice(a, a + rows)), idx[a:a + rows], torques_of, source)
    return blocks


def _streamed(again: Callable[[], Iterable[Trajectory]], robot: Model, model: Model,
              source: str, rows: int, torques_of, N: int) -> Callable[[], Iterator[Block]]:
    """Every sample of the chunks ``again()`` gives, in blocks of ``rows`` (a chunk's last
    block shorter): the samples as :class:`Picked` makes them."""
    def blocks() -> Iterator[Block]:
        n = 0
        chunks = iter(again())
        try:
            for chunk in chunks:
                chunk, _ = _prepared(robot, chunk, source)
                W = chunk.wrenches
                for a in range(0, chunk.n_samples, rows):
                    # copies, as Picked's rows are (fancy-indexed): the layout the kernels
                    # get from the held samples, whatever the reader's arrays are
                    sl = np.arange(a, min(a + rows, chunk.n_samples))
                    part = Trajectory(model.dof_names, chunk.derivatives[sl],
                                      None if chunk.t is None else chunk.t[sl],
                                      None if W is None else
                                      Wrenches({k: v[sl] for k, v in W.W.items()}),
                                      {k: v[sl] for k, v in chunk.series.items()}
                                      if chunk.series else None)
                    yield Block(part, np.arange(n + a, n + a + part.n_samples), torques_of,
                                source)
                n += chunk.n_samples
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        if n != N:
            raise HodynError(f"the file gave {n} samples on its second reading, {N} on its "
                             "first", source)
    return blocks


def _fed(blocks: Callable[[], Iterable[Block]], parts: list) -> None:
    """One pass: every block to every part, then their ends."""
    for block in blocks():
        for part in parts:
            part.add(block)
    for part in parts:
        part.finish()


def _plan(parts: Parts, done: dict, h: float, drives, rate: float, loops: bool,
          tolerances: Tolerances) -> tuple[list[tuple], tuple | None]:
    """The steps the checks take, as today's: each method's finite differences from the
    previous method's step (from ``h``), shrunk by 4 while the estimated error is not well
    below the tolerance (up to 4 times); the drives' from there (and the smoothed Coulomb
    friction's time scale, ``rate``), the loops' at the methods' last. Returns the parts to
    make in a pass (a part not ``done`` and, guessing that no step shrinks, the ones after
    it), or none and (the parts chosen, the report's step)."""
    keys: list[tuple] = []
    key: tuple

    def drives_from(step: float) -> float:  # (the Coulomb friction's time scale at most)
        return min(step, STEP_FACTOR / rate) if rate > 0 else step

    def guess(key: tuple, step: float, i: int) -> list[tuple]:
        later: list[tuple] = [("fd", m, step) for m in parts.methods[i + 1:]]
        if drives is not None and key[0] == "fd":
            later.append(("drives", drives_from(step)))
        if loops and key[0] != "loops":
            later.append(("loops", step))
        return [key] + [k for k in later if k not in done]

    for i, m in enumerate(parts.methods):
        for _ in range(4):
            key = ("fd", m, h)
            if key not in done:
                return guess(key, h, i), None
            if done[key].settled(tolerances.fd) or h < 1e-6:
                break
            h /= 4
        keys.append(key)
    n = len(parts.methods)
    if drives is not None:
        hd = drives_from(h)
        for _ in range(4):
            key = ("drives", hd)
            if key not in done:
                return guess(key, h, n), None
            if done[key].settled(tolerances.fd) or hd < 1e-7:
                break
            hd /= 4
        keys.append(key)
    if loops:
        key = ("loops", h)
        if key not in done:
            return [key], None
        keys.append(key)
    return [], (keys, h)


# -- one pass over the chunks ----------------------------------------------------------------


class Picked:
    """The rows a :class:`Sampler` kept: ``index`` (sample numbers, increasing), the rows
    themselves (``derivatives``, ``t``, ``wrenches``, ``series``), and which of them are the
    checked samples (``centres``: positions in the kept rows; their neighbours are kept
    too)."""

    def __init__(self, index, derivatives, t, wrenches, centres, joint_names, series=None):
        self.index, self.derivatives, self.t, self.wrenches = index, derivatives, t, wrenches
        self.centres, self.joint_names = centres, joint_names
        self.series = series  # contact_<name> -> (rows,), tau.. -> (rows, m); or None

    def at(self, rows: np.ndarray) -> Trajectory:
        W = None if self.wrenches is None else Wrenches({k: v[rows]
                                                         for k, v in self.wrenches.items()})
        series = None if self.series is None else {k: v[rows] for k, v in self.series.items()}
        return Trajectory(self.joint_names, self.derivatives[rows],
                          None if self.t is None else self.t[rows], W, series)


class Sampler:
    """Evenly spread samples of a stream whose length is not known in advance, with their
    neighbours: rows whose number is within 1 of a multiple of ``stride`` are kept; when more
    than ``2 samples`` multiples are held, the stride doubles and half of them go. Memory:
    about ``6 samples`` rows, whatever the length (``samples`` None: every row)."""

    def __init__(self, samples: int | None):
        self.samples, self.stride = samples, 1
        self.parts: list[tuple] = []

    def add(self, chunk: Trajectory, start: int) -> None:
        index = np.arange(start, start + chunk.n_samples)
        keep = self._near(index)
        W = None if chunk.wrenches is None else {k: v[keep] for k, v in chunk.wrenches.W.items()}
        series = {k: v[keep] for k, v in (chunk.series or {}).items()}
        self.parts.append((index[keep], chunk.derivatives[keep],
                           None if chunk.t is None else chunk.t[keep], W, series or None))
        while self.samples and self._count() > 2 * self.samples:
            self.stride *= 2  # the same final stride however the stream is cut into chunks
            self.parts = [self._filter(p) for p in self._merged()]

    def _near(self, index: np.ndarray) -> np.ndarray:
        return np.ones(index.shape, bool) if self.stride <= 2 else \
            ((index + 1) % self.stride) <= 2

    def _count(self) -> int:
        return sum(int(np.count_nonzero(p[0] % self.stride == 0)) for p in self.parts)

    def _merged(self) -> list[tuple]:
        index = np.concatenate([p[0] for p in self.parts])
        d = np.concatenate([p[1] for p in self.parts])
        t = None if self.parts[0][2] is None else np.concatenate([p[2] for p in self.parts])
        W = None if self.parts[0][3] is None else {
            k: np.concatenate([p[3][k] for p in self.parts]) for k in self.parts[0][3]}
        series = None if self.parts[0][4] is None else {
            k: np.concatenate([p[4][k] for p in self.parts]) for k in self.parts[0][4]}
        return [(index, d, t, W, series)]

    def _filter(self, part: tuple) -> tuple:
        index, d, t, W, series = part
        keep = self._near(index)
        return (index[keep], d[keep], None if t is None else t[keep],
                None if W is None else {k: v[keep] for k, v in W.items()},
                None if series is None else {k: v[keep] for k, v in series.items()})

    def picked(self, N: int, joint_names) -> Picked:
        index, d, t, W, series = self._merged()[0]
        multiples = np.flatnonzero(index % self.stride == 0)
        if self.samples and self.samples < len(multiples):
            multiples = np.unique(multiples[np.linspace(0, len(multiples) - 1,
                                                        self.samples).round().astype(int)])
        return Picked(index, d, t, W, multiples, joint_names, series)


class Scan:
    """Everything :func:`validate` needs from the whole trajectory, gathered chunk by chunk:
    the checked samples (:class:`Sampler`), the data-consistency statistics of q (its
    1-DOF joints'), of the multi-DOF joints' velocity coordinates and poses
    (:class:`PoseConsistency`) and of the wrenches (:class:`Consistency`), the joint-limit
    margins (:class:`Limits`), the windows of the simulation (check 6, ``simulation``).
    ``torques``: the chunks carry given torques. ``floating``: ``model`` is a robot under its
    free root joint, its floating base (the root's checks named by the base's columns,
    ``base_Vb``, ``base_R``, ``base_p``)."""

    def __init__(self, model: Model, samples: int | None, simulation: Windows | None = None,
                 torques: bool = False, floating: bool = False, hold: bool = True):
        self.model, self.N, self.D = model, 0, 0
        self.simulation, self.torques, self.floating = simulation, torques, floating
        self.sampler = Sampler(samples) if hold else None
        # not held (every sample checked in a second pass): what the step is made of
        self.maxima: np.ndarray | None = None       # (D, nv): max |q^(j)| over the samples
        self.first_t: float | None = None           # the times of the first and last sample
        self.last_t: float | None = None
        multi = [i for i, kind in enumerate(model.joint_types) if kind in DOF_SUFFIXES]
        one = [i for i in range(model.n) if i not in multi]
        self.q_columns = model.dof_offsets[one] if multi else slice(None)
        wrap = wrapped_columns(model, every=True)  # (the motion's mimic joints written out)
        self.q = Consistency("q", [f"_{model.joint_names[i]}" for i in one],
                             wrap[model.dof_offsets[one]])
        self.poses = [PoseConsistency(model, i, floating and i == 0, wrap) for i in multi]
        # the velocity coordinates' rows (a vector each): the floating root's, the others'
        self.rates: list[tuple[Consistency, np.ndarray]] = []
        if floating:
            self.rates.append((Consistency("base_Vb", [f"_{d[-2:]}" for d in
                                                       model.dof_names[:6]]), np.arange(6)))
        rest = np.concatenate([np.arange(model.dof_offsets[i], model.dof_offsets[i + 1])
                               for i in multi if i or not floating] or [np.zeros(0, int)])
        if rest.size:
            self.rates.append((Consistency("qd", [f"_{model.dof_names[j]}" for j in rest],
                                           note=" (multi-DOF joints)"),
                               rest))
        self.wrenches: dict[str, Consistency] = {}
        self.limits = Limits(model)

    def add(self, chunk: Trajectory, given: Trajectory | None = None) -> None:
        """``given``: a floating base's chunk as read (its joints and its ``base``), of which
        ``chunk`` is the motion under the free root joint (as many rows as both have): the
        data checks take every row the file gives, the joints' and the base twist's."""
        self.D = chunk.orders if not self.N else min(self.D, chunk.orders)
        if self.torques and "tau" not in (chunk.series or {}):
            raise HodynError("a chunk without the given torques (series 'tau')")
        if self.sampler is not None:
            self.sampler.add(chunk, self.N)
        elif chunk.n_samples:
            peak = np.abs(chunk.derivatives).max(axis=0)
            self.maxima = peak if self.maxima is None else np.maximum(self.maxima, peak)
            if chunk.t is not None:
                self.first_t = float(chunk.t[0]) if self.first_t is None else self.first_t
                self.last_t = float(chunk.t[-1])
        self.limits.add(chunk.derivatives[:, 0], chunk.t, self.N)
        if self.simulation is not None:
            self.simulation.add(chunk, self.N)
        if chunk.t is not None:
            base = None if given is None else given.base
            qs, shift = (chunk.derivatives, 0) if given is None or base is None else \
                (given.derivatives, 6)
            ones = self.q_columns if isinstance(self.q_columns, slice) else \
                self.q_columns - shift            # (a floating base: the free joint's 6 off)
            self.q.add(qs[..., ones], chunk.t, self.N)
            for rates, columns in self.rates:
                if base is not None and columns[0] < 6:  # the floating root's: its twist's rows
                    rates.add(base.Vb, chunk.t, self.N)
                else:
                    rates.add(qs[:, 1:, columns - shift], chunk.t, self.N)
            for pose in self.poses:
                pose.add(chunk.derivatives, chunk.t, self.N)
            for link, W in (chunk.wrenches.W.items() if chunk.wrenches is not None else ()):
                self.wrenches.setdefault(link, Consistency(
                    "W", [f"_{link}_{c}" for c in ("mx", "my", "mz", "fx", "fy", "fz")])
                ).add(W, chunk.t, self.N)
        self.N += chunk.n_samples

    def picked(self) -> Picked:
        assert self.sampler is not None
        return self.sampler.picked(self.N, self.model.dof_names)

    def frequency(self) -> float:
        """The data's fastest time scale: the 1-DOF joints' and the velocity coordinates'."""
        return max([self.q.frequency()] + [rates.frequency() for rates, _ in self.rates])

    def pose_rates(self) -> dict[str, str]:
        """The multi-DOF joints' pose checks (``<joint>_Rd vs time differences of
        <joint>_R``, ...; a planar joint's ``<joint>'s (x, y, theta) rates vs time
        differences of its pose``) -> the series their rates come from (``qd``; the floating
        root's ``base_Vb``)."""
        return {c.check_name(1): pose.rate for pose in self.poses for c in pose.series()}

    def consistency_checks(self, rtol: float) -> list[Check]:
        """q^(k) vs trapezoid-rule differences of q^(k-1) for every 1-DOF joint and order, the
        same for the velocity coordinates of the multi-DOF joints and their poses
        (:class:`PoseConsistency`, on the rates' time scale), and for the derivatives of every
        external wrench."""
        checks = self.q.checks(rtol)
        for rates, _ in self.rates:
            checks += rates.checks(rtol)
        omega = max((rates.frequency() for rates, _ in self.rates), default=0.0)
        for pose in self.poses:
            checks += pose.checks(rtol, omega)
        for c in self.wrenches.values():
            checks += c.checks(rtol)
        return checks


class PoseConsistency:
    """A multi-DOF joint's pose chunk by chunk (check 4; docs/conventions.md) against its
    velocity coordinates, in its file's columns (:func:`~hodyn_cli.io.columns.pose_columns`),
    each a :class:`Consistency` of the pair (x, x'). A ball or free joint ``J = (R, p)``:
    ``R' = R skew(omega)``, ``p' = R v`` with ``(omega; v) = S nu`` (a ball joint has no
    p), named ``<joint>_R_11 ..``, ``<joint>_p_x ..``; a floating base's (``root``: the free
    root joint) ``base_R_..``, ``base_p_..``. A planar joint's ``(x, y, theta)``, ``p = x u
    + y w``, ``R = exp(theta skew(n))``: ``x' = u . R v``, ``y' = w . R v``, ``theta' = n .
    omega`` (theta an angle a file may wrap: ``wrap``, (nv,) the model's coordinates that
    may, :func:`~hodyn_cli.algorithms.motion.turns.wrapped_columns`), named ``<joint>_x``, ``<joint>_y``,
    ``<joint>_theta``. The checks: ``<joint>_Rd vs time differences of <joint>_R``,
    ``<joint>_pd vs time differences of <joint>_p``; ``<joint>'s (x, y, theta) rates vs time
    differences of its pose`` (the ``<series>d`` rule on a planar joint's name read as a
    derivative of the joint, ``drived``)."""

    def __init__(self, model: Model, i: int, root: bool, wrap: np.ndarray):
        self.kind, self.X, self.S = model.joint_types[i], model.X[i], model.subspaces[i]
        self.cols = slice(model.dof_offsets[i], model.dof_offsets[i + 1])
        prefix = "base" if root else model.joint_names[i]
        self.rate = "base_Vb" if root else "qd"  # the series R' and p' are made from
        rates = ", ".join(f"base_Vb_{d[-2:]}" if root else f"qd_{d}"
                          for d in model.dof_names[self.cols])
        self.R: Consistency | None = None
        self.p: Consistency | None = None
        if self.kind == "planar":
            self.p = Consistency(prefix, ["_x", "_y", "_theta"], wrap[self.cols],
                                 rates=rates, title=f"{prefix}'s (x, y, theta) rates vs time "
                                                    "differences of its pose")
        else:
            self.R = Consistency(f"{prefix}_R", [f"_{i}{j}" for i in "123" for j in "123"],
                                 rates=rates)
            if self.kind != "spherical":
                self.p = Consistency(f"{prefix}_p", ["_x", "_y", "_z"], rates=rates)
        self.speed = 0.0  # the largest |omega|

    def add(self, derivatives: np.ndarray, t: np.ndarray, start: int) -> None:
        c = derivatives[:, :2, self.cols]
        N = len(c)
        R, p = joint_pose(self.kind, self.X, c[:, 0])
        V = c[:, 1] @ self.S.T
        self.speed = max(self.speed, float(np.abs(V[:, :3]).max(initial=0.0)))
        pd = np.einsum("nij,nj->ni", R, V[:, 3:])
        if self.kind == "planar":   # (u, w, n): the plane's axes, the pose's columns' rates
            u, w, n = self.S[3:, 0], self.S[3:, 1], self.S[:3, 2]
            rates = np.stack([pd @ u, pd @ w, V[:, :3] @ n], axis=1)
            assert self.p is not None
            self.p.add(np.stack([c[:, 0], rates], axis=1), t, start)
            return
        assert self.R is not None
        Rd = R @ lie.skew(V[:, :3])
        self.R.add(np.stack([R.reshape(N, 9), Rd.reshape(N, 9)], axis=1), t, start)
        if self.p is not None:
            self.p.add(np.stack([p, pd], axis=1), t, start)

    def series(self) -> list[Consistency]:
        """Its checks' series: R, p; a planar joint's (x, y, theta)."""
        return [c for c in (self.R, self.p) if c is not None]

    def checks(self, rtol: float, omega: float) -> list[Check]:
        """The error estimates take the rates' time scale ``omega`` or the largest angular
        speed, the larger (``|R''| <= |omega|^2 + |omega'|``)."""
        omega = max(omega, self.speed)
        return [check for c in self.series() for check in c.checks(rtol, omega)]


# -- helpers ---------------------------------------------------------------------------------


def _step(maxima: np.ndarray) -> float:
    """Finite-difference step from the data's time scale (``maxima``: (D, nv) the largest
    |q^(j)| at the checked samples): 0.01 / omega (clipped)."""
    omega = frequency(maxima)
    return float(np.clip(STEP_FACTOR / omega, 1e-5, 1.0)) if omega > 0 else 0.01


# -- 4. data consistency ---------------------------------------------------------------------


class Consistency(Differences):
    """:class:`~hodyn_cli.algorithms.motion.differences.Differences` of the columns of a
    file (``base``: their series, ``columns``: their suffixes), as checks; ``rates``: the
    columns x' is made from where it is not the file's (a pose's); ``title``: the check's
    name where ``<base>d vs time differences of <base>`` would not read (a planar joint's
    pose, x and x' alone: :class:`PoseConsistency`)."""

    def __init__(self, base: str, columns: list[str], wrap: np.ndarray | None = None,
                 note: str = "", rates: str = "", title: str = ""):
        super().__init__(wrap)
        self.base, self.columns, self.note, self.rates = base, columns, note, rates
        self.title = title

    def check_name(self, k: int) -> str:
        """The name of order k's check (the report's key: README.md, "Check names")."""
        return self.title or (f"{derivative_name(self.base, k)} vs time differences of "
                              f"{derivative_name(self.base, k - 1)}{self.note}")

    def label(self, j: int) -> str:
        """Where the worst error is: a joint by its name, other columns by their own
        (``base_Vb_vx``, ``W_tool0_fz``)."""
        return self.columns[j][1:] if self.base == "q" else self.base + self.columns[j]

    def checks(self, rtol: float, omega: float | None = None) -> list[Check]:
        """``omega``: the time scale of the error estimates (default: x's own,
        :meth:`frequency`)."""
        out = []
        for k, (rel, tol, expected) in enumerate(self.judged(rtol, omega), start=1):
            assert self.err is not None
            j = int(np.argmax(rel))
            name, prev = derivative_name(self.base, k), derivative_name(self.base, k - 1)
            c = Check("data consistency", self.check_name(k), "pass",
                      float(self.err[k - 1].max()), float(rel[j]), tol, expected,
                      worst_joint=self.label(j), worst_sample=int(self.at[k - 1, j]),
                      worst_time=float(self.when[k - 1, j]))
            if rel[j] > tol:
                c.status = "fail"
                hint = _unit_hint(*self.dots[k - 1, j]) or FIX_HINT
                # a pose's rates are not columns: named by the ones they are made from
                given = f"{prev}{self.columns[j]}' from {self.rates}" if self.rates else \
                    f"{name}{self.columns[j]}"
                c.detail = (f"{given} does not match the time differences of "
                            f"{prev}{self.columns[j]} (relative error {c.max_rel:.3g} near "
                            f"t = {c.worst_time:.6g} s){hint}")
            out.append(c)
        return out


#: what to do when a file's derivative columns do not follow from its positions
FIX_HINT = ("; to derive them from the positions instead, drop those columns and run hodyn "
            "compute (or kinematics, matrices) with --estimate-derivatives, adding --cutoff HZ "
            "for measured, noisy data")


def _unit_hint(cross: float, denom: float) -> str:
    """Name a degrees/radians mix-up when numeric and analytic differ by that factor
    (``cross`` = numeric . analytic, ``denom`` = analytic . analytic over the samples)."""
    if denom == 0:
        return ""
    ratio = cross / denom
    for factor, text in ((180 / np.pi, "values look like degrees, derivatives like radians"),
                         (np.pi / 180, "derivatives look like degrees, values like radians")):
        if abs(ratio / factor - 1) < 0.02:
            return f"; ratio {ratio:.4g}: {text}"
    return ""


class Limits:
    """Joint values within the URDF's position limits, chunk by chunk: the sample farthest
    beyond (or closest to) a limit."""

    def __init__(self, model: Model):
        self.model, self.over = model, -np.inf
        self.where: tuple = (0, 0, 0.0, None)  # sample, joint, q, t

    def add(self, q: np.ndarray, t, start: int) -> None:
        lo, hi = self.model.limits[:, 0], self.model.limits[:, 1]
        if self.model.multi_dof:  # each joint's first column: a multi-DOF joint's has no limits
            q = q[:, self.model.dof_offsets[:-1]]
        over = np.maximum(q - hi, lo - q)                              # > 0 outside
        if not over.size:  # no joint (a single free body) or no sample
            return
        s, j = np.unravel_index(int(np.argmax(over)), over.shape)
        if over[s, j] > self.over:
            self.over = float(over[s, j])
            self.where = (start + int(s), int(j), float(q[s, j]), None if t is None else float(t[s]))

    def checks(self) -> list[Check]:
        model = self.model
        lo, hi = model.limits[:, 0], model.limits[:, 1]
        if not np.isfinite(model.limits).any():
            return [Check("data consistency", "q within URDF limits", "skip",
                          detail="the URDF gives no position limits" if model.n else
                          "the robot has no joint")]
        s, j, q, t = self.where
        c = Check("data consistency", "q within URDF limits", "pass", max(self.over, 0.0),
                  worst_joint=model.joint_names[j], worst_sample=s, worst_time=t)
        if self.over <= 0:
            c.max_abs = None
            c.detail = (f"closest to a limit: q_{model.joint_names[j]} = {q:.6g}, "
                        f"{-self.over:.3g} inside [{lo[j]:.6g}, {hi[j]:.6g}]")
        else:
            c.status = "fail"
            hint = ""
            if model.joint_types[j] != "prismatic" and lo[j] <= np.radians(q) <= hi[j]:
                hint = "; in radians it would be inside: degrees given instead of radians?"
            c.detail = (f"q_{model.joint_names[j]} = {q:.6g} is outside its limits "
                        f"[{lo[j]:.6g}, {hi[j]:.6g}] at sample {s}{hint}")
        return [c]


# -- 5. model sanity -------------------------------------------------------------------------


class ModelChecks:
    """M symmetric positive definite and ``M' = Cbar + Cbar^T`` at the checked samples, and
    the URDF's warnings; the free root joint's rows of a floating base (first in M) named as
    the base wrench's columns, after the joints'. A block keeps the largest errors, the
    lowest eigenvalue, its eigenvector and M there, and the largest condition number: of the
    Jacobi-scaled ``D^-1/2 M D^-1/2`` (D = diag(M); positive definite exactly where M is),
    M's regularity in units of each coordinate's own inertia. M's own eigenvalues mix kg m^2
    and kg: the gripper arm scaled to 0.1 um (1.6e-17 kg m^2 at its wrist, 1.6 kg at its
    elbow slide) had a smallest eigenvalue of -1.8e-16 by rounding, and failed; as
    :func:`~hodyn_cli.algorithms.dynamics.forward.check_regular` judges it."""

    def __init__(self, parts: Parts):
        self.parts = parts
        model = parts.model
        nv = model.nv - 6 if parts.floating else model.nv
        self.columns = list(range(nv, nv + 6)) + list(range(nv)) if parts.floating else None
        self.asym, self.skew = Peak(), Peak()
        self.scale = self.dscale = 1e-300
        self.lowest, self.condition = np.inf, -np.inf
        # at the lowest eigenvalue yet: its eigenvector, sample, time and M
        self.low: tuple | None = None

    def add(self, block: Block) -> None:
        p = self.parts
        E = matrices(p.model, block.center, order=1, gravity=p.gravity)
        M, Md, Cb = E.M[:, 0], E.M[:, 1], E.Cbar[:, 0]
        self.scale = max(self.scale, float(np.abs(M).max()))
        # relative to the terms compared (M' is 0 where only a floating root moves)
        self.dscale = max(self.dscale, float(np.abs(Md).max()), float(np.abs(Cb).max()))
        self.asym.add(np.abs(M - np.swapaxes(M, 1, 2)).max(axis=2), block.idx, block.t)
        self.skew.add(np.abs(Md - Cb - np.swapaxes(Cb, 1, 2)).max(axis=2), block.idx, block.t)
        sym = (M + np.swapaxes(M, 1, 2)) / 2
        d = np.diagonal(sym, axis1=1, axis2=2)
        # (a coordinate moving no inertia, M_jj <= 0, unscaled: its eigenvalue stays <= 0)
        w = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
        lam, vec = np.linalg.eigh(sym * w[:, :, None] * w[:, None, :])
        self.condition = largest(self.condition, float(
            (lam[:, -1] / np.maximum(lam[:, 0], 1e-300)).max()))
        s = int(np.argmin(lam[:, 0]))
        if self.low is None or lam[s, 0] < self.lowest:
            self.lowest = float(lam[s, 0])
            self.low = (vec[s, :, 0], int(block.idx[s]),
                        None if block.t is None else float(block.t[s]), sym[s])

    def finish(self) -> None:
        pass

    def checks(self) -> list[Check]:
        p = self.parts
        model, rtol, columns = p.model, p.tolerances.structure, self.columns
        checks = [Check("model", f"URDF: {d.message}", "warn") for d in model.diagnostics
                  if d.level == "warning"]
        c = Check("model", "M symmetric", "pass", self.asym.value,
                  float(self.asym.value / self.scale), rtol,
                  **self.asym.at(model, columns, p.names))
        c.status = verdict(c.max_rel, rtol)
        checks.append(c)
        checks.append(self._positive_definite())
        c = Check("model", "M' = Cbar + Cbar^T (M' - 2 Cbar skew)", "pass", self.skew.value,
                  float(self.skew.value / self.dscale), rtol,
                  **self.skew.at(model, columns, p.names))
        c.status = verdict(c.max_rel, rtol)
        checks.append(c)
        return checks

    def _positive_definite(self) -> Check:
        """M (n, n) symmetric positive definite at every sample (its value: the smallest
        eigenvalue of the Jacobi-scaled M, a number without unit, and the detail says so);
        named by the joint of the
        largest component of the eigenvector of the lowest eigenvalue at the worst sample. A
        joint with M_jj = S_j^T I_j^c S_j = 0 (its subtree's composite inertia does not resist
        its screw: :func:`~hodyn_cli.algorithms.dynamics.forward.inert_coordinates`) is named
        as the cause."""
        p = self.parts
        assert self.low is not None  # (a sample at least)
        vector, sample, time, M = self.low
        at = worst(np.abs(vector[None]), p.model, [sample], None if time is None else [time],
                   self.columns, p.names)
        inert = inert_coordinates(M, [column_name(p.model, j, self.columns, p.names)
                                      for j in range(M.shape[1])],
                                    unit_scales(M, p.model, p.model.dof_names))
        cause = f"{no_inertia(inert)}; " if inert else ""
        if inert:
            at["worst_joint"] = inert[0]
        c = Check("model", "M positive definite", "pass", self.lowest, **at,
                  detail=f"{cause}smallest eigenvalue of M scaled by its diagonal "
                         f"(D^-1/2 M D^-1/2, D = diag(M): no unit) {self.lowest:.4g}, its "
                         f"largest condition number {self.condition:.4g}")
        c.status = "pass" if self.lowest > 0 else "fail"
        return c


# -- 6. simulation ---------------------------------------------------------------------------


class Simulation(Windows):
    """Check 6 driven by the computed torques, chunk by chunk: from the file's state at a
    sample every ``window`` seconds (the first at or after the last one's time + ``window``,
    across chunks), the forward dynamics driven by the method's tau along that sample's local
    Taylor motion (:func:`hodyn_cli.algorithms.verification.simulate.simulate_local`), against
    the Taylor motion at ``SIM_POINTS`` instants of the window. Nothing is interpolated
    between the file's samples, so exact torques pass at any sampling rate. Memory:
    ``WINDOWS`` states waiting to be simulated."""

    driven, against = "the computed torques", "the sample's Taylor motion"
    method: str

    def __init__(self, model: Model, method: str, gravity, window: float = SIM_WINDOW):
        super().__init__(model, window)
        self.method, self.gravity = method, gravity
        self.torques = computed(model, order=0, gravity=gravity)
        # the backend's Data for the torques of every right-hand side the integrator calls
        # (~900 in a 10-sample validate of the iiwa): made once, not per call (0.16 ms each)
        self.data: backends.Data | None = None
        self.waiting: list[tuple] = []  # (sample, t, derivatives (D, n), wrenches) to simulate
        self.next = -np.inf

    def add(self, chunk: Trajectory, start: int) -> None:
        t = chunk.t
        if t is None:
            self.skipped = True
            return
        i = int(np.searchsorted(t, self.next))
        while i < t.size:
            W = None if chunk.wrenches is None else {k: w[i] for k, w in chunk.wrenches.W.items()}
            self.waiting.append((start + i, float(t[i]), chunk.derivatives[i], W))
            self.next = t[i] + self.window * (1 - 1e-9)
            i = int(np.searchsorted(t, self.next))
        if len(self.waiting) >= WINDOWS:
            self._flush()

    def _torques(self, motion: Trajectory) -> np.ndarray:
        """tau of the checked method along K samples of a motion, (K, m) coordinates."""
        _, self.data = backends.prepare(self.model, self.data)
        return self.coupling.forces(self.torques(self.method, motion, self.data))[:, 0]

    def _flush(self) -> None:
        from hodyn_cli.algorithms.verification.simulate import simulate_local

        if not self.waiting:
            return
        sample, t0, d, W = zip(*self.waiting, strict=True)
        self.waiting = []
        wrenches = None if W[0] is None else Wrenches({k: np.stack([w[k] for w in W])
                                                       for k in W[0]})
        offsets = self.window * np.arange(1, SIM_POINTS + 1) / SIM_POINTS
        x, ref, bound = simulate_local(
            self.model, Trajectory(self.model.joint_names, np.stack(d), None, wrenches),
            self._torques, offsets, gravity=self.gravity, coupling=self.coupling)
        for w in range(len(sample)):
            self._record(t0[w], x[:, w], ref[:, w], bound[:, w], None,
                         np.full(offsets.size, sample[w]), t0[w] + offsets)

    def _detail(self, key: str, scale: float) -> str:
        from hodyn_cli.algorithms.verification.simulate import LOOSER, RTOL

        return (f"forward dynamics driven by tau along the local Taylor motion of the file's "
                f"sample every {self.window:.3g} s ({self.windows} windows; nothing "
                f"interpolated: any sampling rate), DOP853 at {RTOL:g}; expected: the same at "
                f"{RTOL * LOOSER:g} against it")
