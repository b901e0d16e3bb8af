"""Closed kinematic loops (docs/loops.md): a robot closed by a loops file, whose motion is
its actuated joints' and whose torques are theirs (:func:`inverse_dynamics` on it also gives
the constraint forces ``Fl``, ``Fld``, ...)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError

if TYPE_CHECKING:
    from hodyn_cli.algorithms.motion.loops import Closed

__all__ = ["close_loops", "loop_summary", "loop_components"]


def close_loops(robot: Model, loops: Any) -> Model:
    """The robot with its loops closed: ``loops`` a loops file (TOML) or its tables
    (``{"actuated": [...], "guess": {...}, "loops": {...}}``). Its ``coordinate_names`` are
    the actuated joints (:mod:`hodyn_cli.algorithms.motion.loops`: assembled, checked)."""
    from hodyn_cli.algorithms.motion.loops import close
    from hodyn_cli.modeling.loops import loops_from_table, read_loops

    if robot.actuated is not None:
        raise HodynError("the robot's loops are closed already")
    found = loops_from_table(robot, loops) if isinstance(loops, Mapping) else \
        read_loops(loops, robot)
    return close(robot, found)


def _closed(robot: Model) -> Closed:
    from hodyn_cli.algorithms.motion.loops import Closed
    from hodyn_cli.modeling import coupling

    if robot.actuated is None:
        raise HodynError("the robot has no loops (api.close_loops closes them)")
    found = coupling.of(robot)
    assert isinstance(found, Closed)  # (close_loops registered it)
    return found


def loop_summary(robot: Model) -> str:
    """What the loops leave: constraint rows, independent ones, coordinates."""
    return _closed(robot).summary


def loop_components(robot: Model) -> tuple[str, ...]:
    """The constraint forces' columns ``<loop>_<component>`` (the last axis of ``Fl``)."""
    return _closed(robot).components
