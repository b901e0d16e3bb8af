"""Drives between motors and joints (docs/drives.md, docs/elastic.md): drives files, the
motor angles and torques of elastic joints, and the torques, motor torques and currents of
rigid drives."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hodyn_cli.api.results import Motion, Result, capable, series
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model

if TYPE_CHECKING:
    from hodyn_cli.algorithms.backends.numpy.elastic import Requirements
    from hodyn_cli.modeling.drives import Drives

__all__ = ["read_drives", "drives_for", "elastic_dynamics", "drive_dynamics",
           "elastic_requirements", "drive_requirements", "explain_elastic"]


def read_drives(robot: Model, drives: Any) -> Drives:
    """A :class:`~hodyn_cli.modeling.drives.Drives` from one, a drives file (TOML), or
    ``{joint: {"stiffness": ..., "gear_ratio": ..., "rotor_inertia": ...}}``."""
    from hodyn_cli.modeling.drives import Drives, drives_from_table
    from hodyn_cli.modeling.drives import read_drives as read_file

    if isinstance(drives, Drives):
        return drives
    return (drives_from_table(robot, drives) if isinstance(drives, Mapping)
            else read_file(drives, robot))


def drives_for(robot: Model, drives: Any, command: str = "compute") -> Drives:
    """:func:`read_drives` for ``command`` (its capabilities: drives of a robot with mimic
    joints are refused; the regressor reads them for their friction and armature columns)."""
    capable(command, robot, drives=True, friction=command == "regressor")
    return read_drives(robot, drives)


def elastic_requirements(robot: Model, drives: Any, order: int = 0, model: str = "full",
                         data: Any = None) -> Requirements:
    """What :func:`elastic_dynamics` of this ``order`` and ``model`` needs of the motion:
    ``q_order`` (q to that derivative) and each joint's order of u (``u_orders``), found by
    probing the robot; kept in ``data`` (:func:`~hodyn_cli.api.backends.backend_data`) where
    given, for the computations given the same ``data``."""
    from hodyn_cli.algorithms.actuation import elastic

    capable("elastic", robot)
    return _kept(elastic.requirements, robot, read_drives(robot, drives), order, model, data)


def drive_requirements(robot: Model, drives: Any, order: int = 2, model: str = "full",
                       data: Any = None) -> Requirements:
    """What :func:`drive_dynamics` of this ``order`` and ``model`` needs (which rotors couple
    into which joint), found by probing the robot; kept in ``data`` as for
    :func:`elastic_requirements`."""
    from hodyn_cli.algorithms.actuation import actuators

    return _kept(actuators.requirements, robot, read_drives(robot, drives), order, model, data)


def _kept(find: Any, robot: Model, drives: Drives, order: int, model: str, data: Any
          ) -> Requirements:
    return find(robot, drives, order, model) if data is None else \
        data.derived(find, robot, drives, order, model)


def explain_elastic(robot: Model, drives: Any, requirements: Requirements) -> list[dict]:
    """Per joint (``hodyn elastic --explain``): its drive, the order of u the solve needs
    (``requirements``: :func:`elastic_requirements`) and why."""
    from hodyn_cli.algorithms.actuation import elastic

    return elastic.explain(robot, read_drives(robot, drives), requirements)


def elastic_dynamics(robot: Model, drives: Any, *derivatives: Any, order: int = 0,
                     model: str = "full", gravity: Any = GRAVITY,
                     wrenches: Mapping | None = None, data: Any = None, **named: Any
                     ) -> Result:
    """Elastic joints: fields ``u, ud, ...``, ``theta, ...`` (to order + 2), ``taum, ...``.

    ``drives``: as :func:`read_drives` takes them. ``data``: as for
    :func:`~hodyn_cli.api.dynamics.inverse_dynamics`; it keeps the
    :func:`elastic_requirements` (they probe the model: a stream of chunks finds them once).
    """
    from hodyn_cli.algorithms.actuation import elastic

    drives = drives_for(robot, drives, "elastic")
    m = Motion(robot, derivatives, named, wrenches=wrenches)
    res = elastic.inverse_dynamics(robot, m.full, drives, order=order, kind=model,
                                   gravity=gravity, data=data)
    return m.result(series("u", res.u) | series("theta", res.theta) | series("taum", res.taum))


def drive_dynamics(robot: Model, drives: Any, *derivatives: Any, order: int = 2,
                   model: str = "full", rigid: bool = False, gravity: Any = GRAVITY,
                   wrenches: Mapping | None = None, data: Any = None, **named: Any) -> Result:
    """Rigid drives (docs/drives.md): fields ``tau, taud, ...`` (link-side joint torques, the
    rotors' reactions included), ``taum, ...`` (motor torques, friction included) and
    ``current, ...`` (NaN where a drive has no torque constant), to ``order``.

    ``drives`` as for :func:`elastic_dynamics`; ``rigid``: take series-elastic drives as rigid
    (else they are an error); ``model``: ``full`` (rotor gyroscopics) or ``reflected``
    (Pinocchio's armature); ``data``: as for :func:`elastic_dynamics`.
    """
    from hodyn_cli.algorithms.actuation import actuators

    drives = drives_for(robot, drives)
    m = Motion(robot, derivatives, named, wrenches=wrenches)
    res = actuators.inverse_dynamics(robot, m.full, drives.made_rigid() if rigid else drives,
                                     order=order, kind=model, gravity=gravity, data=data)
    return m.result(series("tau", res.tau) | series("taum", res.taum)
                    | series("current", res.current))
