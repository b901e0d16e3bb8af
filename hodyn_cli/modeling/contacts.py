"""Contacts of a legged or humanoid robot with the ground: the contacts file (``--contacts
FILE.toml``; docs/contacts.md is the one description of the file)::

    [contacts.left_foot]
    link = "left_sole_link"        # the URDF link that touches the ground
    type = "surface"               # point: a force at a point; surface: a wrench (a flat sole)
    position = [0.0, 0.0, -0.01]   # the contact point or sole centre, link frame (default 0)
    rpy = [0.0, 0.0, 0.0]          # surface: the sole frame in the link frame (z: its normal)
    sole = [0.22, 0.10]            # surface: length (along x), width (along y) of the sole
    friction = 0.7                 # Coulomb coefficient mu (the distribution and hodyn check)
    normal = [0.0, 0.0, 1.0]       # point: the ground normal in the world (default +z)
    weight = 1.0                   # its share in the distribution (default 1)

Which contacts carry the robot at each sample comes from trajectory columns
``contact_<name>`` (1 or 0; a contact without a column is always active).

The distribution of the base wrench over the active contacts minimizes ``sum_c F_c^T H_c
F_c`` (:mod:`hodyn_cli.algorithms.contacts`); :meth:`Contact.inverse_weights` is ``H_c^-1``:
a normal force costs its square, a tangential one its square over mu^2 (the distribution leans
towards the cone's axis), a sole's moment as much as the force that would produce it at the
sole's edge (about x at half its width, about y at half its length, about z at half its
diagonal), all divided by the contact's ``weight``. Every mistake is one
:class:`~hodyn_cli.errors.HodynError` line naming the file, the contact and the key.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "quadruped.urdf")
>>> c = contacts_from_table(model, {"FL": {"link": "FL_foot", "type": "point",
...                                        "friction": 0.5}})
>>> c[0].name, c[0].size, c[0].inverse_weights().diagonal().tolist()
('FL', 3, [0.25, 0.25, 1.0])
>>> contacts_from_table(model, {"FL": {"link": "FL_foot", "type": "surface", "friction": 0.5}},
...                     source="c.toml")
Traceback (most recent call last):
...
hodyn_cli.errors.HodynError: c.toml: contact 'FL': a surface contact needs 'sole' = [length, width] (m)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.joint_files import in_range, out_of_range, sections

__all__ = ["Contact", "KEYS", "KINDS", "contacts_from_table", "read_contacts", "flag_column"]

KEYS = ("link", "type", "position", "rpy", "sole", "friction", "normal", "weight")
KINDS = ("point", "surface")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


def flag_column(name: str) -> str:
    """The trajectory column that says when contact ``name`` is active."""
    return f"contact_{name}"


@dataclass(frozen=True, eq=False)
class Contact:
    """One contact of the robot with the ground.

    Attributes:
        name: the contact's name (columns ``contact_<name>``, ``Fc_<name>_..``, ``Wc_<name>_..``).
        link: the URDF link it is on.
        kind: ``point`` (a force, world axes, at the point) or ``surface`` (a wrench, moment;
            force, in the contact frame about its origin).
        T: (4, 4) the contact frame in the link frame (its origin: the point or sole centre;
            a surface's z axis: the sole's normal).
        friction: Coulomb coefficient mu.
        sole: (length, width) of a surface's sole along its frame's x and y, or None.
        normal: (3,) unit ground normal in the world of a point contact.
        weight: its share in the distribution (> 0).
    """

    name: str
    link: str
    kind: str
    T: np.ndarray
    friction: float
    sole: tuple[float, float] | None = None
    normal: np.ndarray = None  # type: ignore[assignment]  # default: __post_init__
    weight: float = 1.0

    def __post_init__(self):
        if self.normal is None:
            object.__setattr__(self, "normal", np.array([0.0, 0.0, 1.0]))
        for a in (self.T, self.normal):
            a.setflags(write=False)

    @property
    def size(self) -> int:
        """Unknowns of its wrench: 3 (a point's force) or 6 (a surface's moment; force)."""
        return 3 if self.kind == "point" else 6

    @property
    def components(self) -> tuple[str, ...]:
        return ("fx", "fy", "fz") if self.kind == "point" else \
            ("mx", "my", "mz", "fx", "fy", "fz")

    @property
    def prefix(self) -> str:
        """``Fc`` (a point's force) or ``Wc`` (a surface's wrench)."""
        return "Fc" if self.kind == "point" else "Wc"

    def inverse_weights(self) -> np.ndarray:
        """``H_c^-1`` (size x size) of the distribution's cost (module docstring)."""
        mu2 = self.friction**2
        if self.kind == "point":
            nn = np.outer(self.normal, self.normal)
            return self.weight * (mu2 * (np.eye(3) - nn) + nn)
        length, width = self.sole  # type: ignore[misc]
        lever = np.array([width / 2, length / 2, np.hypot(length, width) / 2])
        return self.weight * np.diag(np.concatenate([lever**2, [mu2, mu2, 1.0]]))


def read_contacts(path: str | Path, model: Model) -> tuple[Contact, ...]:
    """The contacts of a contacts file (module docstring), checked against the model."""
    return contacts_from_table(model, sections(path, "contacts", "contacts"), source=str(path))


def contacts_from_table(model: Model, table: Mapping, *, source: str | None = None
                        ) -> tuple[Contact, ...]:
    """Contacts from ``{name: {key: value}}`` (the ``[contacts]`` table of a contacts file)."""
    if not isinstance(table, Mapping) or not table:
        raise HodynError("expected [contacts.<name>] sections", source)
    out = []
    for name, entry in table.items():
        what = f"contact '{name}'"
        if not NAME.fullmatch(name):
            raise HodynError(f"{what}: a name of letters, digits, '_' and '-' (it names "
                             "columns)", source)
        if not isinstance(entry, Mapping):
            raise HodynError(f"{what}: expected a table of {', '.join(KEYS)}", source)
        unknown = sorted(set(entry) - set(KEYS))
        if unknown:
            raise HodynError(f"{what}: unknown key '{unknown[0]}' (keys: {', '.join(KEYS)})",
                             source)
        out.append(_contact(model, name, entry, what, source))
    return tuple(out)


def _contact(model: Model, name: str, entry: Mapping, what: str, source: str | None
             ) -> Contact:
    for key in ("link", "type", "friction"):
        if key not in entry:
            raise HodynError(f"{what}: missing '{key}'", source)
    link = entry["link"]
    if link not in model.links:
        raise HodynError(f"{what}: the model has no link '{link}'", source)
    kind = entry["type"]
    if kind not in KINDS:
        raise HodynError(f"{what}: 'type' must be one of {', '.join(KINDS)}, got {kind!r}", source)
    only = {"point": ("rpy", "sole"), "surface": ("normal",)}[kind]
    wrong = [key for key in only if key in entry]
    if wrong:
        raise HodynError(f"{what}: '{wrong[0]}' does not go with a {kind} contact", source)
    position = _numbers(entry.get("position", [0.0, 0.0, 0.0]), 3, f"{what}: 'position'", source)
    rpy = _numbers(entry.get("rpy", [0.0, 0.0, 0.0]), 3, f"{what}: 'rpy'", source)
    T = lie.homogeneous(lie.rpy_matrix(rpy), position)
    friction = _positive(entry["friction"], f"{what}: 'friction'", source)
    weight = _positive(entry.get("weight", 1.0), f"{what}: 'weight'", source)
    sole = None
    if kind == "surface":
        if "sole" not in entry:
            raise HodynError(f"{what}: a surface contact needs 'sole' = [length, width] (m)",
                             source)
        value = _numbers(entry["sole"], 2, f"{what}: 'sole'", source)
        if not (value > 0).all():
            raise HodynError(f"{what}: 'sole' must be [length, width], both positive, got "
                             f"{entry['sole']!r}", source)
        sole = (float(value[0]), float(value[1]))
    normal = None
    if "normal" in entry:
        normal = _numbers(entry["normal"], 3, f"{what}: 'normal'", source)
        size = np.linalg.norm(normal)
        if size == 0:
            raise HodynError(f"{what}: 'normal' must not be zero", source)
        normal = normal / size
    return Contact(name, link, kind, T, friction, sole,
                   normal, weight)  # type: ignore[arg-type]  # None: the default (__post_init__)


def _numbers(value, count: int, what: str, source: str | None) -> np.ndarray:
    ok = isinstance(value, list) and len(value) == count and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    if not ok or not np.isfinite(value).all():
        raise HodynError(f"{what} must be {count} finite numbers, got {value!r}", source)
    for v in value:
        if not in_range(v):
            raise out_of_range(what, v, source)
    return np.array(value, dtype=float)


def _positive(value, what: str, source: str | None) -> float:
    if not (isinstance(value, int | float) and not isinstance(value, bool)
            and np.isfinite(value) and value > 0):
        raise HodynError(f"{what} must be a positive number, got {value!r}", source)
    if not in_range(value):
        raise out_of_range(what, value, source)
    return float(value)
