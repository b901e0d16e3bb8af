"""Closed kinematic loops (four-bar knees, parallelograms, parallel robots): the loops file
(``--loops FILE.toml``; docs/loops.md is the one description of the file)::

    actuated = ["crank"]            # the driven joints: the trajectory's columns
    [guess]                         # joint positions to assemble the loops from (default 0)
    coupler = 1.9
    rocker = 2.3
    [loops.knee]
    type = "point"                  # point: two points coincide (3 rows); frame: two frames (6)
    a = { link = "coupler_link", xyz = [0.35, 0.0, 0.0] }          # rpy = [r, p, y] too
    b = { link = "rocker_link", xyz = [0.3, 0.0, 0.0] }
    components = ["x", "z"]         # optional: a subset of x, y, z (and rx, ry, rz for a frame)

URDF describes trees: the loop is cut at one joint (a revolute or spherical cut joint: a
``point`` closure; a weld: ``frame``) and the two frames the cut separates, ``a`` and ``b``
(a link and a pose in it), must coincide: ``p_a(q) = p_b(q)`` (and ``R_a(q) = R_b(q)``),
components along the root's axes. The joints not in ``actuated`` are passive: the loops set
them (:mod:`hodyn_cli.algorithms.motion.loops`). The constraint forces are named by the
rows: ``Fl_<loop>_fx`` (the force link b exerts on link a at the point, root axes), ``mx``..
(the moment, with a frame closure). Every mistake is one :class:`~hodyn_cli.errors.HodynError`
line naming the file, the loop and the key.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "fourbar.urdf")
>>> loops = loops_from_table(model, {"actuated": ["crank"], "loops": {"knee": {
...     "type": "point", "a": {"link": "coupler_link", "xyz": [0.35, 0, 0]},
...     "b": {"link": "rocker_link", "xyz": [0.3, 0, 0]}, "components": ["x", "z"]}}})
>>> loops.actuated, loops.closures[0].components
((0,), ('fx', 'fz'))
>>> loops_from_table(model, {"actuated": ["crank"], "loops": {"knee": {"type": "point",
...     "a": {"link": "coupler"}, "b": {"link": "rocker_link"}}}}, source="l.toml")
Traceback (most recent call last):
...
hodyn_cli.errors.HodynError: l.toml: loop 'knee': 'a': the model has no link 'coupler'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.contacts import NAME
from hodyn_cli.modeling.joint_files import in_range, out_of_range, toml_parser

__all__ = ["Closure", "Loops", "ROWS", "loops_from_table", "read_loops", "read_table"]

#: a frame closure's rows (moment; force, as hodyn's wrenches): the component a user names
#: and the constraint force's column suffix
ROWS = (("rx", "mx"), ("ry", "my"), ("rz", "mz"), ("x", "fx"), ("y", "fy"), ("z", "fz"))
KEYS = ("type", "a", "b", "components")
FRAME_KEYS = ("link", "xyz", "rpy")


@dataclass(frozen=True, eq=False, repr=False)
class Closure:
    """One loop's cut: frame ``T_a`` on ``link_a`` coincides with ``T_b`` on ``link_b``.

    Attributes:
        rows: the rows kept of (rx, ry, rz, x, y, z) (a point closure: of 3..5), root axes.
    """

    name: str
    kind: str
    link_a: str
    T_a: np.ndarray
    link_b: str
    T_b: np.ndarray
    rows: tuple[int, ...]

    @property
    def components(self) -> tuple[str, ...]:
        """The constraint force's components, ``Fl_<name>_<component>`` (fx, .. mx, ..)."""
        return tuple(ROWS[r][1] for r in self.rows)


@dataclass(frozen=True, eq=False)
class Loops:
    """The loops of a robot: its closures, the actuated joints (indices, increasing) and
    the joint positions (n,) to assemble the loops from."""

    closures: tuple[Closure, ...]
    actuated: tuple[int, ...]
    guess: np.ndarray
    source: str | None = None


def read_loops(path: str | Path, model: Model) -> Loops:
    """The loops of a loops file (module docstring), checked against the model."""
    return loops_from_table(model, read_table(path), source=str(path))


def read_table(path: str | Path) -> dict:
    """A loops file's tables, unchecked (:func:`loops_from_table` checks them)."""
    source, tomllib = str(path), toml_parser()
    try:
        return tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise HodynError(f"cannot read loops file: {e.strerror or e}", source) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise HodynError(f"not valid TOML: {e}", source) from None


def loops_from_table(model: Model, doc: Mapping, *, source: str | None = None) -> Loops:
    """Loops from the tables of a loops file (``actuated``, ``guess``, ``loops``)."""
    unknown = sorted(set(doc) - {"actuated", "guess", "loops"})
    if unknown:
        raise HodynError(f"unknown top-level key '{unknown[0]}' (actuated, guess, [loops.<name>])",
                         source)
    table = doc.get("loops")
    if not isinstance(table, Mapping) or not table:
        raise HodynError("no loops: expected [loops.<name>] sections", source)
    actuated = doc.get("actuated")
    if not (isinstance(actuated, list) and actuated and all(isinstance(a, str) for a in actuated)):
        raise HodynError(f"'actuated' must be a list of joint names, got {actuated!r}", source)
    indices = [_joint(model, a, "'actuated'", source) for a in actuated]
    if len(set(indices)) < len(indices):
        raise HodynError("'actuated' names a joint twice", source)
    guess = np.zeros(model.n)
    entries = doc.get("guess", {})
    if not isinstance(entries, Mapping):
        raise HodynError("[guess] must be a table of joint = position", source)
    for joint, value in entries.items():
        if not (isinstance(value, int | float) and not isinstance(value, bool)
                and np.isfinite(value)):
            raise HodynError(f"[guess] '{joint}' must be a number, got {value!r}", source)
        if not in_range(value):
            raise out_of_range(f"[guess] '{joint}'", value, source)
        guess[_joint(model, joint, "[guess]", source)] = value
    closures = tuple(_closure(model, name, entry, source) for name, entry in table.items())
    return Loops(closures, tuple(sorted(indices)), guess, source)


def _joint(model: Model, name: str, where: str, source: str | None) -> int:
    if name in model.locked:
        raise HodynError(f"{where}: joint '{name}' is locked (--lock)", source)
    if name not in model.joint_names:
        raise HodynError(f"{where}: the model has no moving joint '{name}'", source)
    return model.joint_index(name)


def _closure(model: Model, name: str, entry, source: str | None) -> Closure:
    what = f"loop '{name}'"
    if not NAME.fullmatch(name):
        raise HodynError(f"{what}: a name of letters, digits, '_' and '-' (it names columns)",
                         source)
    if not isinstance(entry, Mapping):
        raise HodynError(f"{what}: expected a table of {', '.join(KEYS)}", source)
    unknown = sorted(set(entry) - set(KEYS))
    if unknown:
        raise HodynError(f"{what}: unknown key '{unknown[0]}' (keys: {', '.join(KEYS)})", source)
    for key in ("type", "a", "b"):
        if key not in entry:
            raise HodynError(f"{what}: missing '{key}'", source)
    kind = entry["type"]
    if kind not in ("point", "frame"):
        raise HodynError(f"{what}: 'type' must be point or frame, got {kind!r}", source)
    allowed = [r for r in range(6) if kind == "frame" or r >= 3]
    rows = tuple(allowed)
    if "components" in entry:
        names = {ROWS[r][0]: r for r in allowed}
        given = entry["components"]
        if not (isinstance(given, list) and given and all(g in names for g in given)
                and len(set(given)) == len(given)):
            raise HodynError(f"{what}: 'components' must be distinct names of "
                             f"{', '.join(names)}, got {given!r}", source)
        rows = tuple(sorted(names[g] for g in given))
    (link_a, T_a), (link_b, T_b) = (_frame(model, entry[k], f"{what}: '{k}'", source)
                                    for k in ("a", "b"))
    if kind == "point" and any("rpy" in entry[k] for k in ("a", "b")):
        raise HodynError(f"{what}: 'rpy' does not go with a point closure", source)
    if link_a == link_b:
        raise HodynError(f"{what}: 'a' and 'b' are both on link '{link_a}'", source)
    return Closure(name, kind, link_a, T_a, link_b, T_b, rows)


def _frame(model: Model, entry, what: str, source: str | None) -> tuple[str, np.ndarray]:
    if not isinstance(entry, Mapping) or "link" not in entry:
        raise HodynError(f"{what} must be a table {{ link = ..., xyz = [..], rpy = [..] }}",
                         source)
    unknown = sorted(set(entry) - set(FRAME_KEYS))
    if unknown:
        raise HodynError(f"{what}: unknown key '{unknown[0]}' (keys: {', '.join(FRAME_KEYS)})",
                         source)
    link = entry["link"]
    if link not in model.links:
        raise HodynError(f"{what}: the model has no link '{link}'", source)
    xyz, rpy = (_three(entry.get(k, [0.0, 0.0, 0.0]), f"{what}: '{k}'", source)
                for k in ("xyz", "rpy"))
    return link, lie.homogeneous(lie.rpy_matrix(rpy), xyz)


def _three(value, what: str, source: str | None) -> np.ndarray:
    ok = isinstance(value, list) and len(value) == 3 and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    if not ok or not np.isfinite(value).all():
        raise HodynError(f"{what} must be 3 finite numbers, got {value!r}", source)
    for v in value:
        if not in_range(v):
            raise out_of_range(what, v, source)
    return np.array(value, dtype=float)
