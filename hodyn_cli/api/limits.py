"""Limits and time scaling (docs/feasibility.md): the robot's limits, how every limited series
changes when the motion is played slower or faster, the check of a motion against its
limits, the uniform retiming onto them and the time-optimal one along the path."""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from hodyn_cli.api.contacts import read_contacts
from hodyn_cli.api.drives import drives_for
from hodyn_cli.api.results import Motion, capable
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError

if TYPE_CHECKING:
    from hodyn_cli.algorithms.backends.numpy.elastic import Requirements
    from hodyn_cli.algorithms.limits.feasibility import (
        Binding,
        Check,
        Retiming,
        Row,  # noqa: F401  (a Check's; the reports')
        ScaleSearch,
    )
    from hodyn_cli.algorithms.limits.optimal import Optimal
    from hodyn_cli.algorithms.limits.scaling import Law
    from hodyn_cli.modeling.contacts import Contact
    from hodyn_cli.modeling.drives import Drives
    from hodyn_cli.modeling.limits import Limits

__all__ = ["joint_limits", "scaling_laws", "check_limits", "retime", "time_optimal",
           "retime_optimal", "torque_order", "scaling_requirements", "limit_check",
           "scale_search", "retiming_by", "played", "ARC_GRID_TIMES", "check_arc_grid"]

#: ``arc_grid`` (``--arc-grid``) at most this many times the least default grid of its input
#: (4000 intervals, 3 a sample on a long one), 6 x 10^6 at most (the default's on the longest
#: input reachability takes): reachability's time grows with its grid, not with the input's
#: samples (10^5 intervals on a 20-sample path ran 142 s on a loaded machine where the
#: default 4000 took 8 s) for a law no output sample tells from the default's (four times
#: the default moved it 0.05 %, docs/feasibility.md)
ARC_GRID_TIMES = 16


def joint_limits(robot: Model, limits: Any = None, *, jerk: Any = None) -> Limits:
    """The robot's limits: its URDF's (position, velocity, effort as torque, URDF 1.2's jerk),
    overridden by ``limits``: a limits file (TOML), ``{joint: {key: value}}`` (keys:
    :data:`hodyn_cli.modeling.limits.KEYS`), or a :class:`~hodyn_cli.modeling.limits.Limits`;
    and every joint's jerk limit by ``jerk`` (one number, or one per joint: ``--jerk``)."""
    from hodyn_cli.modeling.limits import Limits, overridden, read_limits
    from hodyn_cli.modeling.limits import joint_limits as table_limits

    if isinstance(limits, Limits):
        out = limits
    elif limits is None or isinstance(limits, Mapping):
        out = table_limits(robot, limits)
    else:
        out = read_limits(limits, robot)
    return out if jerk is None else overridden(out, "jerk", jerk, "--jerk")


def scaling_laws(robot: Model, *derivatives: Any, order: int = 2, drives: Any = None,
                 model: str = "full", gravity: Any = GRAVITY, wrenches: Mapping | None = None,
                 data: Any = None, contacts: Any = (), **named: Any) -> dict[str, Law]:
    """How every limited series changes when the motion is played k times slower: name ->
    :class:`~hodyn_cli.algorithms.limits.scaling.Law` (``law.at(1 / k)``: (N, m) values, joints
    ``law.joint_names``). Rigid: ``q``, ``qd`` (every joint), ``tau`` .. ``tau^(order)`` (order
    -1: none); with ``drives`` (as :func:`~hodyn_cli.api.drives.elastic_dynamics` takes them,
    ``model``) ``u``, ``ud``, ``udd``, and ``thetad``, ``taum`` of the joints with a
    drive. A Trajectory with a floating ``base``: its torques, on ``contacts`` if given (as
    :func:`~hodyn_cli.api.contacts.read_contacts` takes them; then also each contact's wrench,
    ``contact/<name>``; docs/contacts.md). ``data``: as for
    :func:`~hodyn_cli.api.dynamics.inverse_dynamics` (it keeps what the drives need)."""
    from hodyn_cli import capabilities
    from hodyn_cli.algorithms.limits.feasibility import series_laws

    m = Motion(robot, derivatives, named, wrenches=wrenches)
    if m.full.base is not None and drives is not None:
        capabilities.check("check", {"floating_base", "drives"})
    return series_laws(robot, m.full, order=order, gravity=gravity,
                       drives=None if drives is None else drives_for(robot, drives, "check"),
                       kind=model, data=data,
                       contacts=read_contacts(robot, contacts) if contacts else ())


def check_limits(robot: Model, *derivatives: Any, limits: Any = None, drives: Any = None,
                 model: str = "full", gravity: Any = GRAVITY, t: Any = None,
                 wrenches: Mapping | None = None, contacts: Any = (), **named: Any) -> Check:
    """``hodyn check``: every limited quantity against its limit at every sample, a
    :class:`~hodyn_cli.algorithms.limits.feasibility.Check` (``.feasible``, ``.rows``: per joint
    and quantity the worst sample, its value, the margin and the number of violations).
    ``limits``: as :func:`joint_limits` takes them; ``contacts`` (a floating base on them):
    also each contact's friction cone and sole."""
    lim = joint_limits(robot, limits)
    m = Motion(robot, derivatives, named, t=t, wrenches=wrenches)
    contacts = read_contacts(robot, contacts) if contacts else ()
    check = limit_check(robot, lim, contacts=contacts)
    check.add(scaling_laws(robot, m.coordinates, order=torque_order(lim), drives=drives,
                           model=model, gravity=gravity, contacts=contacts), m.coordinates.t)
    return check


def retime(robot: Model, *derivatives: Any, limits: Any = None, drives: Any = None,
           model: str = "full", gravity: Any = GRAVITY, factor: float | None = None,
           segments: Any = (), t: Any = None, wrenches: Mapping | None = None,
           contacts: Any = (), **named: Any
           ) -> tuple[Trajectory, Retiming, list[Binding | None]]:
    """``hodyn retime``: the motion played k times slower, ``t' = t0 + k (t - t0)``, with every
    derivative (and wrench rate) scaled exactly: ``(trajectory, retiming, bindings)``.

    k is ``factor``, or the smallest that keeps every limited quantity within ``limits`` (as
    :func:`joint_limits` takes them) for that and any slower playing; ``segments`` (times)
    scale the pieces between them independently. ``retiming``: a
    :class:`~hodyn_cli.algorithms.limits.feasibility.Retiming` (``.k`` per segment); ``bindings``:
    per segment the :class:`~hodyn_cli.algorithms.limits.feasibility.Binding` that set its k (its
    time in the retimed motion). ``contacts`` (a floating base on them): the torques on them,
    and each stays in its friction cone and on its sole.
    """
    m = Motion(robot, derivatives, named, t=t, wrenches=wrenches)
    traj = m.coordinates
    capable("retime", robot, floating_base=traj.base is not None, contacts=bool(contacts),
            drives=drives is not None, wrench=traj.wrenches is not None,
            factor=factor is not None,
            to_limits=factor is None, segments=bool(segments))
    bindings: list[Binding | None]
    if factor is not None:
        if not factor > 0 or segments:
            raise HodynError(f"factor must be positive, without segments; got {factor}")
        retiming = retiming_by(factor, 0.0 if traj.t is None else float(traj.t[0]))
        bindings = []
    else:
        lim = joint_limits(robot, limits)
        contacts = read_contacts(robot, contacts) if contacts else ()
        search = scale_search(robot, lim, tuple(segments), contacts)
        search.add(scaling_laws(robot, traj, order=torque_order(lim), drives=drives, model=model,
                                gravity=gravity, contacts=contacts), traj)
        retiming = search.retiming()
        bindings = [retiming.played(b) for b in search.best]
    return played(traj, retiming), retiming, bindings


def time_optimal(robot: Model, limits: Any = None, *, drives: Any = None, model: str = "full",
                 gravity: Any = GRAVITY, rate: float | None = None, grid: int | None = None,
                 uniform: bool = False, progress: Callable[[int, int], None] | None = None,
                 solver: str = "auto", arc_grid: int | None = None) -> Optimal:
    """The time-optimal retiming within ``limits`` (as :func:`joint_limits` takes them; torque
    rates and accelerations too) and, with rigid ``drives``, the motor limits, before it has
    seen the motion: an :class:`~hodyn_cli.algorithms.limits.optimal.Optimal` whose
    ``fit(chunks)`` (a function that gives the motion's chunks afresh: it reads them twice)
    finds the time law and whose ``retimed(chunks)`` plays the motion along it, chunk by chunk
    (what :func:`retime_optimal` does on a whole motion). ``rate``: the output's samples per
    second (default: the input's mean rate, or finer where the law is over 10 times faster
    than the input or a few of its steps long:
    :func:`~hodyn_cli.algorithms.limits.optimal.output_rate`); ``grid``:
    the windows' grid size (default: as many points as the path's speed needs,
    docs/feasibility.md); ``arc_grid``:
    reachability's, intervals in arc length (default: 4000, 3 per input sample on a long
    input); ``uniform``: the uniform
    scaling resampled at ``rate`` instead (``retime --to-limits --rate``); ``progress(done,
    points)``: the grid points solved so far, as the programmes go; ``solver``: ``"auto"``
    (reachability along the path's arc length where every limit is affine in the law and
    the output passes validate, else the windows of linear programmes), ``"reachability"``
    or ``"windows"`` (docs/feasibility.md). A grid asked for has at least
    :data:`~hodyn_cli.algorithms.limits.optimal.GRID_LEAST` points (8, as the command's);
    ``grid`` at most the default's most (131 072), ``arc_grid`` at most 6 x 10^6 (and at most
    :data:`ARC_GRID_TIMES` times the input's least default grid: :func:`check_arc_grid`,
    which the caller runs once the input's length is known)."""
    from hodyn_cli.algorithms.limits.optimal import GRID_LEAST, Optimal
    from hodyn_cli.algorithms.limits.programme import MOST as GRID_MOST

    capable("retime", robot, optimal=True, drives=drives is not None)
    lim = joint_limits(robot, limits)
    rigid = None if drives is None else drives_for(robot, drives, "retime")
    refuse_elastic_optimal(rigid)
    for option, points in (("--grid", grid), ("--arc-grid", arc_grid)):
        # (-5 or 2.5 made reachability's grid fail and auto fall to the windows unsaid; 0
        # was taken for none)
        if points is not None and (isinstance(points, bool) or not isinstance(
                points, numbers.Integral) or points < GRID_LEAST):
            raise HodynError(f"{option} must be a whole number >= {GRID_LEAST}, got {points!r}")
    if grid is not None and grid > GRID_MOST:  # (a short, fast path was filled to it)
        raise HodynError(f"--grid {grid} is more than {GRID_MOST} points, the most the "
                         "windows' default grid takes")
    check_arc_grid(arc_grid)  # (the input's own bound: as its chunks are read, the caller's)
    if solver == "reachability" and grid is not None:
        raise HodynError("--grid is the windows solver's grid: not with --solver reachability "
                         "(its grid: --arc-grid)")
    if solver == "windows" and arc_grid is not None:
        raise HodynError("--arc-grid is the reachability solver's grid: not with --solver "
                         "windows (its grid: --grid)")
    if drives is not None and arc_grid is not None:  # (else ignored, unsaid)
        raise HodynError("--arc-grid with --drives: reachability does not take the "
                         "drives' motor limits; the windows solve it, on --grid")
    return Optimal(robot, lim, torque_order(lim), rate=rate, grid=grid, gravity=gravity,
                   drives=rigid, kind=model, uniform=uniform, progress=progress,
                   admit=_optimal_admits, solver=solver, arc_grid=arc_grid)


def check_arc_grid(arc_grid: int | None, samples: int | None = None) -> None:
    """A one-line error where ``arc_grid`` is finer than :data:`ARC_GRID_TIMES` times the least
    default grid of an input of ``samples`` (4000 intervals, 3 a sample), or than 6 x 10^6
    (``samples`` None: that bound alone).

    >>> check_arc_grid(64000, 20), check_arc_grid(4_800_000, 10**5)
    (None, None)
    >>> check_arc_grid(64001, 20)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hodyn_cli.errors.HodynError: --arc-grid 64001 is more than 64000 intervals for 20 input ...
    """
    from hodyn_cli.algorithms.limits.reachability import MOST_SAMPLES, PER_SAMPLE, POINTS

    most = longest = PER_SAMPLE * MOST_SAMPLES
    if samples is not None:
        most = min(longest, ARC_GRID_TIMES * max(POINTS, PER_SAMPLE * samples))
    if arc_grid is not None and arc_grid > most:
        of = "" if samples is None else f" for {samples} input samples"
        raise HodynError(f"--arc-grid {arc_grid} is more than {most} intervals{of} "
                         f"({ARC_GRID_TIMES} times the default's least: {POINTS}, "
                         f"{PER_SAMPLE} a sample; {longest} at most)")


def refuse_elastic_optimal(drives: Drives | None) -> None:
    """The table's refusal of a time-optimal law with elastic ``drives`` (their motor angles
    need more derivatives of the time law than its programmes keep)."""
    from hodyn_cli import capabilities

    if drives is not None and drives.elastic.any():
        capabilities.check("retime", {"optimal", "elastic"})


def _optimal_admits(chunk: Trajectory) -> None:
    """The table's refusal of what a chunk of the motion carries that the time-optimal law
    has no limits for (given to :class:`~hodyn_cli.algorithms.limits.optimal.Optimal`, which
    sees the chunks): external wrenches, a floating base (it was ignored: the joints retimed,
    the base dropped)."""
    from hodyn_cli import capabilities

    if chunk.wrenches is not None:
        capabilities.check("retime", {"optimal", "wrench"})
    if chunk.base is not None:
        capabilities.check("retime", {"optimal", "floating_base"})


def retime_optimal(robot: Model, *derivatives: Any, limits: Any = None, drives: Any = None,
                   model: str = "full", gravity: Any = GRAVITY, rate: float | None = None,
                   grid: int | None = None, t: Any = None, solver: str = "auto",
                   arc_grid: int | None = None, **named: Any) -> tuple[Trajectory, Optimal]:
    """``hodyn retime --optimal``: the motion along its own path with the fastest time law
    within every limit of ``limits`` (as :func:`joint_limits` takes them; torque rates and
    accelerations too) and, with rigid ``drives``, the motor limits: ``(trajectory,
    optimal)``.

    The input's times are the path parameter (``t`` is required); the output has every
    derivative the input has, exact by the chain rule, at ``rate`` Hz (default: the input's
    mean rate, or finer where the law is over 10 times faster than the input or a few of its
    steps long: ``.attributes["rate"]`` says which), and every limit holds at every sample,
    one on its limit. ``optimal``: an
    :class:`~hodyn_cli.algorithms.limits.optimal.Optimal` (``.duration``,
    ``.uniform_duration``: that of :func:`retime`'s uniform scaling, ``.bound.describe()``:
    where the limits bind, ``.used``: the solver that made it (``uniform``: the windows fell
    back to the uniform scaling), ``.why_windows``: why the windows did, None where
    reachability did; ``.ran``: the solvers run, ``.solver_note``: the notice's
    words on them, ``.attributes``: what an output file records); ``grid``, ``arc_grid``:
    the windows' and reachability's grid sizes;
    ``solver``: as for :func:`time_optimal` (docs/feasibility.md).
    """
    m = Motion(robot, derivatives, named, t=t)
    check_arc_grid(arc_grid, m.coordinates.n_samples)
    optimal = time_optimal(robot, limits, drives=drives, model=model, gravity=gravity,
                           rate=rate, grid=grid, solver=solver, arc_grid=arc_grid)
    optimal.fit(lambda: [m.coordinates])
    pieces = list(optimal.retimed([m.coordinates]))
    return Trajectory(robot.coordinate_names, np.concatenate([p.derivatives for p in pieces]),
                      np.concatenate([p.t for p in pieces])), optimal


# -- the streaming forms: a file's chunks one after another (the pipeline's) --------------------
def torque_order(limits: Limits) -> int:
    """The highest torque derivative ``limits`` limit (or what a limited acceleration, 0, or
    jerk, 1, needs of the motion if higher; -1: none): the ``order`` of the
    :func:`scaling_laws` a check or a retiming against them needs."""
    from hodyn_cli.modeling.limits import torque_order as highest

    return highest(limits)


def scaling_requirements(robot: Model, drives: Drives | None, order: int, model: str = "full",
                         data: Any = None) -> Requirements | None:
    """What :func:`scaling_laws` with ``drives`` (read: :func:`~hodyn_cli.api.read_drives`)
    needs of the motion for torque order ``order`` (None without drives: q to ``order + 2``),
    kept in ``data`` (:func:`~hodyn_cli.api.backends.backend_data`) where given: the
    :func:`scaling_laws` given the same ``data``, chunk after chunk, find them there."""
    from hodyn_cli.algorithms.limits.feasibility import requirements

    return requirements(robot, drives, order, model, data)


def limit_check(robot: Model, limits: Limits, *, envelopes: bool = False,
                contacts: tuple[Contact, ...] = ()) -> Check:
    """:func:`check_limits` chunk by chunk: ``check.add(laws, t)`` with each chunk's
    :func:`scaling_laws` and times, then ``check.rows`` and ``check.feasible``. ``limits``:
    :func:`joint_limits`'; ``envelopes``: keep a plot's worth of every checked series;
    ``contacts`` (read: :func:`~hodyn_cli.api.read_contacts`): each one's cone and sole."""
    from hodyn_cli.algorithms.limits.feasibility import Check

    return Check(robot, limits, envelopes=envelopes, contacts=contacts)


def scale_search(robot: Model, limits: Limits, joins: tuple[float, ...] = (),
                 contacts: tuple[Contact, ...] = ()) -> ScaleSearch:
    """:func:`retime`'s search chunk by chunk: ``search.add(laws, chunk)`` with each chunk's
    :func:`scaling_laws`, then ``search.retiming()`` (the smallest k per segment between the
    ``joins``), ``search.best`` (what binds each) and ``search.jumps(retiming)``."""
    from hodyn_cli.algorithms.limits.feasibility import ScaleSearch

    return ScaleSearch(robot, limits, joins, contacts)


def retiming_by(factor: float, t0: float = 0.0) -> Retiming:
    """The motion played ``factor`` times slower from ``t0`` (its start)."""
    from hodyn_cli.algorithms.limits.feasibility import Retiming

    return Retiming((t0, t0), (float(factor),))


def played(chunk: Trajectory, retiming: Retiming) -> Trajectory:
    """``chunk`` played as ``retiming`` says: its times and every derivative (and wrench rate,
    floating root's twist) scaled exactly; without times, by the first segment's k."""
    from hodyn_cli.algorithms.limits.scaling import scaled

    t = chunk.t
    if t is None:
        return scaled(chunk, 1.0 / retiming.k[0])
    return scaled(chunk, retiming.speedups(t), retiming.times(t))
