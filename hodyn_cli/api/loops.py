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


def close_loops(robot: Model, loops: Any = None, *, source: str | None = None) -> Model:
    """The robot with its loops closed: ``loops`` a loops file (TOML) or its tables
    (``{"actuated": [...], "guess": {...}, "loops": {...}}``), over the robot's own
    (``robot.loop_tables``, an MJCF's ``<equality connect|weld>``: a table the file gives
    replaces the robot's); None: the robot's own. Its ``coordinate_names`` are the actuated
    joints (:mod:`hodyn_cli.algorithms.motion.loops`: assembled, checked). ``source``: the
    robot's file, named by a refusal of its own loops."""
    from hodyn_cli.algorithms.motion.loops import close
    from hodyn_cli.modeling.loops import loops_from_table, read_table

    if robot.actuated is not None:
        raise HodynError("the robot's loops are closed already")
    own = dict(robot.loop_tables or {})
    if loops is None:
        if not own:
            raise HodynError("the robot has no loops of its own: give a loops file", source)
        if "actuated" not in own:
            raise HodynError("the robot's closed loops (<equality connect|weld>) do not say "
                             "which joints are driven (no <actuator> on a joint): give --loops "
                             "FILE.toml with actuated = [...] (docs/loops.md)", source)
        return close(robot, loops_from_table(robot, own, source=source))
    tables = loops if isinstance(loops, Mapping) else read_table(loops)
    name = None if isinstance(loops, Mapping) else str(loops)
    return close(robot, loops_from_table(robot, own | dict(tables), source=name))


def _closed(robot: Model) -> Closed:
    from hodyn_cli.algorithms.motion.loops import Closed

    if robot.actuated is None:
        raise HodynError("the robot has no loops (api.close_loops closes them)")
    found = robot.coupling
    assert isinstance(found, Closed)  # (close_loops registered it)
    return found


def loop_summary(robot: Model) -> str:
    """What the loops leave: constraint rows, independent ones, coordinates."""
    return _closed(robot).summary


def loop_components(robot: Model) -> tuple[str, ...]:
    """The constraint forces' columns ``<loop>_<component>`` (the last axis of ``Fl``)."""
    return _closed(robot).components
