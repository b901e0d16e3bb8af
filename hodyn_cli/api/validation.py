"""Proof of the numbers (``hodyn validate``): the computed torques against finite differences,
the methods against each other, the data's own consistency, the model, and a forward
simulation."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hodyn_cli.api.contacts import read_contacts
from hodyn_cli.api.drives import drives_for
from hodyn_cli.api.results import Motion
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

if TYPE_CHECKING:
    from hodyn_cli.algorithms.verification.validate import Report, Tolerances

__all__ = ["validate_motion"]


def validate_motion(robot: Model, *derivatives: Any, t: Any = None, methods: Any = None,
                    gravity: Any = GRAVITY, wrenches: Mapping | None = None,
                    samples: int | None = 1000, tolerances: Tolerances | None = None,
                    source: str = "", estimated: tuple[str, ...] = (),
                    warnings: Iterable[str] = (), chunks: Iterable[Trajectory] | None = None,
                    simulate: bool = False, drives: Any = None, drive_model: str = "full",
                    contacts: Any = (), **named: Any) -> Report:
    """The checks of ``hodyn validate``: a :class:`hodyn_cli.algorithms.verification.validate.Report`
    (``.passed``, ``.checks``). ``chunks``: the trajectory as consecutive chunks instead (one
    pass, memory bounded by a chunk and the ``samples`` checked). ``estimated``: derivative
    names that were estimated from the data (their consistency checks are reported as such);
    ``warnings``: what reading the input warned about (counted as ``warn`` checks).
    ``tolerances``: a :class:`~hodyn_cli.algorithms.verification.validate.Tolerances`.
    ``simulate``: also integrate the forward dynamics driven by the computed torques and
    compare with q, qd (needs ``t``). ``drives`` (rigid, as for
    :func:`~hodyn_cli.api.drives.drive_dynamics`; ``drive_model``): also check the drives'
    columns tau, taum, current. ``contacts`` (as :func:`~hodyn_cli.api.contacts.read_contacts`
    takes them; a floating base on them): the torques and contact wrenches of
    :func:`~hodyn_cli.api.contacts.contact_dynamics`, and the contacts' own checks."""
    from hodyn_cli.algorithms.verification.validate import Tolerances, validate
    from hodyn_cli.modeling import coupling

    motion: Trajectory | Iterable[Trajectory]
    if chunks is None:
        motion = Motion(robot, derivatives, named, t=t, wrenches=wrenches).full
    else:
        motion = (coupling.of(robot).expand(chunk) for chunk in chunks)
    return validate(robot, motion, methods=methods, gravity=gravity, samples=samples,
                    tolerances=tolerances or Tolerances(), source=source, estimated=estimated,
                    warnings=tuple(warnings), simulate=simulate, drive_model=drive_model,
                    drives=None if drives is None else drives_for(robot, drives, "validate"),
                    contacts=read_contacts(robot, contacts) if contacts else ())
