"""Proof of the numbers (``hodyn validate``): the computed torques against finite differences,
the methods against each other, the data's own consistency, the model, a forward
simulation, and torques from elsewhere against all of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from itertools import chain
from typing import TYPE_CHECKING, Any

import numpy as np

from hodyn_cli.algorithms.motion.turns import leaders_unwrapped
from hodyn_cli.api.contacts import read_contacts
from hodyn_cli.api.drives import drives_for
from hodyn_cli.api.dynamics import torque_rates
from hodyn_cli.api.results import Motion, capable
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import HodynError

if TYPE_CHECKING:
    from hodyn_cli.algorithms.verification.validate import (  # noqa: F401  (a Report's)
        Check as ValidationCheck,
    )
    from hodyn_cli.algorithms.verification.validate import Report, Tolerances

__all__ = ["validate_motion", "path_check"]


def validate_motion(robot: Model, *derivatives: Any, t: Any = None, methods: Any = None,
                    gravity: Any = GRAVITY, wrenches: Mapping | None = None,
                    samples: int | None = 1000,
                    tolerances: Tolerances | Mapping[str, float] | None = None,
                    source: str = "", estimated: tuple[str, ...] = (),
                    warnings: Iterable[str] = (), chunks: Iterable[Trajectory] | None = None,
                    simulate: bool = False, drives: Any = None, drive_model: str = "full",
                    contacts: Any = (), tau: Any = None, torques: bool = False,
                    again: Callable[[], Iterable[Trajectory]] | None = None,
                    **named: Any) -> Report:
    """The checks of ``hodyn validate``: a :class:`hodyn_cli.algorithms.verification.validate.Report`
    (``.passed``, ``.checks``). ``chunks``: the trajectory as consecutive chunks instead (one
    pass, memory bounded by a chunk and the ``samples`` checked); ``again``: with ``samples``
    0, the chunks once more from the start (every sample checked in a second pass, a chunk
    at a time; without it every sample is held). ``estimated``: derivative
    names that were estimated from the data (their consistency checks are reported as such);
    ``warnings``: what reading the input warned about (counted as ``warn`` checks).
    ``tolerances``: a :class:`~hodyn_cli.algorithms.verification.validate.Tolerances`, or
    its fields by name (``{"fd": 1e-6, "simulation": 1e-6}``; the others their defaults).
    ``simulate``: also integrate the forward dynamics from the state every 0.2 s (needs
    ``t``): driven by the computed torques along each sample's local Taylor motion, against
    that motion; with given torques, by them, against the samples' q, qd. ``tau``: torques
    from elsewhere to judge (N x m, the independent joints'; ``taud=``, ``taudd=``: their
    derivatives), against the computed ones and, with ``simulate``, interpolated between
    the samples; with ``chunks``, ``torques=True`` says each chunk's ``series`` carries them
    (``tau``, ``taud``, ...). ``drives`` (rigid, as for
    :func:`~hodyn_cli.api.drives.drive_dynamics`; ``drive_model``): also check the drives'
    columns tau, taum, current. ``contacts`` (as :func:`~hodyn_cli.api.contacts.read_contacts`
    takes them; a floating base on them): the torques and contact wrenches of
    :func:`~hodyn_cli.api.contacts.contact_dynamics`, and the contacts' own checks."""
    from hodyn_cli.algorithms.verification.validate import Tolerances, validate

    given = torque_rates(robot, tau, named)
    torques = torques or bool(given)
    motion: Trajectory | Iterable[Trajectory]
    if chunks is None:
        m = Motion(robot, derivatives, named, t=t, wrenches=wrenches)
        motion = (next(_expanded(robot, [m.coordinates])) if leaders_unwrapped(robot).active
                  else m.full)
        floating = motion.base is not None
        if given:
            motion = _carrying(motion, given)
    elif given:
        raise HodynError("with chunks, the given torques come in their series (torques=True)")
    else:
        chunks = iter(chunks)  # the first one says whether the root floats
        first = next(chunks, None)
        floating = first is not None and first.base is not None
        motion = _expanded(robot, [] if first is None else chain([first], chunks))
        if again is not None:  # (the second pass's chunks expanded as the first's)
            reread = again
            again = lambda: _expanded(robot, reread())  # noqa: E731
    capable("validate", robot, floating_base=floating, torques=torques,
            drives=drives is not None)
    # a floating base's simulation last: the refusals above come first, as they always have
    capable("validate", robot, floating_base=floating, simulate=simulate)
    return validate(robot, motion, methods=methods, gravity=gravity, samples=samples,
                    tolerances=tolerances if isinstance(tolerances, Tolerances)
                    else Tolerances(**(tolerances or {})), source=source, estimated=estimated,
                    warnings=tuple(warnings), simulate=simulate, drive_model=drive_model,
                    drives=None if drives is None else drives_for(robot, drives, "validate"),
                    contacts=read_contacts(robot, contacts) if contacts else (),
                    torques=torques, again=again)


def _expanded(robot: Model, chunks: Iterable[Trajectory]) -> Iterator[Trajectory]:
    """A motion's chunks in time over every joint: the angles that mimic joints follow
    continued through +-pi where they wrap first (counted afresh at each call:
    :func:`~hodyn_cli.algorithms.motion.turns.leaders_unwrapped`), or a follower of a
    wrapped leader jumps to another pose (multiplier 0.5: by pi) and fails its data checks."""
    leading = leaders_unwrapped(robot)
    return (robot.coupling.expand(leading(chunk)) for chunk in chunks)


def _carrying(motion: Trajectory, given: list[np.ndarray]) -> Trajectory:
    """``motion`` with the given torques ``[tau, taud, ...]`` (N, m) in its series."""
    if any(g.shape[0] != motion.n_samples for g in given):
        raise HodynError(f"tau and its derivatives need {motion.n_samples} samples, like q")
    return replace(motion, series={**(motion.series or {}),
                                   **{derivative_name("tau", k): g for k, g in enumerate(given)}})


def path_check(robot: Model, motion: Trajectory, given: Trajectory, name: str = "the input"
               ) -> ValidationCheck:
    """``hodyn validate --path``'s check: whether ``motion`` (a retiming's output) lies on the
    path of ``given`` (its input; q and q' at least, timed), each sample at most
    :data:`~hodyn_cli.algorithms.limits.strays.STRAY` of each joint's travel along it
    from its interpolant (:func:`~hodyn_cli.algorithms.verification.stray.strayed`), the
    angles that wrap (``robot``'s continuous joints) continued through +-pi in both as the
    retiming reads them; ``name``: the input's, in the check's words."""
    from hodyn_cli.algorithms.limits.strays import STRAY
    from hodyn_cli.algorithms.motion.turns import Unwrapped, wrapped_columns
    from hodyn_cli.algorithms.verification.checks import Check
    from hodyn_cli.algorithms.verification.stray import strayed

    wrapped = wrapped_columns(robot)
    if wrapped.any():
        given, motion = Unwrapped(wrapped)(given), Unwrapped(wrapped)(motion)
    found = strayed(given, motion.derivatives[:, 0])
    if not motion.n_samples:
        return Check("path", "follows --path", "pass", 0.0, 0.0, STRAY)
    w = found.worst()
    share = float(found.share[w])
    return Check(
        "path", "follows --path", "pass" if share <= STRAY else "fail",
        max_abs=float(found.distance[w]), max_rel=share, tolerance=STRAY,
        worst_joint=motion.joint_names[int(found.joint[w])], worst_sample=w,
        worst_time=None if motion.t is None else float(motion.t[w]),
        detail=f"each sample's distance from {name}'s path (its interpolant), over the "
               f"joint's travel along it; the worst at {name}'s t = {found.s[w]:.6g} s")
