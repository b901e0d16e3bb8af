"""Series-elastic drives of a model's joints (``hodyn elastic --drives FILE.toml``).

A drive of joint j is a rotor carried by the joint's parent link, an ideal gear and a
linear spring to the joint's child link::

    [joints.iiwa_joint_2]
    stiffness = 5000.0        # K_j, N m/rad (N/m for a prismatic joint)
    gear_ratio = 160.0        # r_j: theta_j = r_j q_j at zero spring deflection (rad/m if prismatic)
    rotor_inertia = 0.5e-4    # I_j, kg m^2 about the rotor axis
    rotor_axis = [0, 0, 1]    # optional: in the parent link's frame; default: the joint axis

``gear_ratio`` defaults to the ``mechanicalReduction`` of the joint's URDF ``<transmission>``.
A joint without a drive is rigid. Every mistake is one :class:`~hodyn_cli.errors.HodynError`
line naming the file, the joint and the key.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> d = drives_from_table(model, {"joint2": {"stiffness": 800.0, "gear_ratio": 50,
...                                          "rotor_inertia": 1e-5}})
>>> d.driven.tolist(), d.rotor_axis[1].tolist()
([False, True], [0.0, 0.0, 1.0])
>>> drives_from_table(model, {"joint2": {"stiffness": -1.0, "rotor_inertia": 1e-5}},
...                   source="d.toml")
Traceback (most recent call last):
...
hodyn_cli.errors.HodynError: d.toml: joint 'joint2': 'stiffness' must be a positive number, got -1.0
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["Drives", "drives_from_table", "read_drives", "KEYS"]

KEYS = ("stiffness", "gear_ratio", "rotor_inertia", "rotor_axis")


@dataclass(frozen=True, eq=False)
class Drives:
    """Drive data per joint of a model, in model order (NaN where a joint has no drive).

    Attributes:
        driven: (n,) bool, the joint has an elastic drive.
        stiffness: (n,) K_j > 0.
        gear_ratio: (n,) r_j != 0 (theta = r q at zero deflection).
        rotor_inertia: (n,) I_j >= 0 about the rotor axis.
        rotor_axis: (n, 3) unit rotor axis n_j in the frame of the body that carries the
            rotor (the joint's parent body; zeros where not driven).
    """

    driven: np.ndarray
    stiffness: np.ndarray
    gear_ratio: np.ndarray
    rotor_inertia: np.ndarray
    rotor_axis: np.ndarray

    def __post_init__(self):
        for a in (self.driven, self.stiffness, self.gear_ratio, self.rotor_inertia,
                  self.rotor_axis):
            a.setflags(write=False)

    @property
    def inertia(self) -> np.ndarray:
        """(n,) rotor inertias with 0 for joints without a drive."""
        return np.where(self.driven, self.rotor_inertia, 0.0)


def joint_axis_in_parent(model: Model, j: int) -> np.ndarray:
    """Unit axis of joint j in its parent body's frame (rotation axis or sliding direction)."""
    X = model.X[j]
    axis = X[:3] if X[:3].any() else X[3:]
    return model.B[j, :3, :3] @ axis


def _number(value, what: str, source: str | None, *, positive: bool = False,
            nonnegative: bool = False, nonzero: bool = False) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        value = float(value)
        ok = not (positive and value <= 0 or nonnegative and value < 0 or nonzero and value == 0)
    if not ok:
        kind = ("a positive" if positive else "a non-negative" if nonnegative
                else "a non-zero" if nonzero else "a")
        raise HodynError(f"{what} must be {kind} number, got {value!r}", source)
    return value


def drives_from_table(model: Model, table: Mapping, *, source: str | None = None,
                      allow_zero_inertia: bool = True) -> Drives:
    """Drives from ``{joint name: {key: value}}`` (the ``[joints]`` table of a drives file).

    ``allow_zero_inertia=False`` (the file reader) rejects ``rotor_inertia = 0``, which in
    a file is more likely a mistake than a rotor without inertia.
    """
    n = model.n
    driven = np.zeros(n, dtype=bool)
    K, r, inertia = (np.full(n, np.nan) for _ in range(3))
    axes = np.zeros((n, 3))
    if not isinstance(table, dict):
        raise HodynError("'joints' must be a table of [joints.<name>] sections", source)
    for name, entry in table.items():
        if name not in model.joint_names:
            raise HodynError(f"joint '{name}': the model has no such joint (joints: "
                             f"{', '.join(model.joint_names)})", source)
        what = f"joint '{name}'"
        if not isinstance(entry, dict):
            raise HodynError(f"{what}: expected a table of {', '.join(KEYS)}", source)
        unknown = sorted(set(entry) - set(KEYS))
        if unknown:
            raise HodynError(f"{what}: unknown key '{unknown[0]}' (keys: {', '.join(KEYS)})",
                             source)
        j = model.joint_index(name)
        for key in ("stiffness", "rotor_inertia"):
            if key not in entry:
                raise HodynError(f"{what}: missing '{key}'", source)
        K[j] = _number(entry["stiffness"], f"{what}: 'stiffness'", source, positive=True)
        inertia[j] = _number(entry["rotor_inertia"], f"{what}: 'rotor_inertia'", source,
                             nonnegative=allow_zero_inertia, positive=not allow_zero_inertia)
        if "gear_ratio" in entry:
            r[j] = _number(entry["gear_ratio"], f"{what}: 'gear_ratio'", source, nonzero=True)
        elif np.isfinite(model.reductions[j]):
            r[j] = model.reductions[j]
        else:
            raise HodynError(f"{what}: missing 'gear_ratio' (and the URDF has no <transmission> "
                             "with a mechanicalReduction for it)", source)
        if "rotor_axis" in entry:
            axes[j] = _axis(model, j, entry["rotor_axis"], f"{what}: 'rotor_axis'", source)
        else:
            axes[j] = joint_axis_in_parent(model, j)
        driven[j] = True
    return Drives(driven, K, r, inertia, axes)


def _axis(model: Model, j: int, value, what: str, source: str | None) -> np.ndarray:
    """A rotor axis given in the parent URDF link's frame, as a unit vector in the body frame."""
    if not isinstance(value, list) or len(value) != 3:
        raise HodynError(f"{what} must be a list of 3 numbers, got {value!r}", source)
    v = np.array([_number(x, what, source) for x in value])
    norm = np.linalg.norm(v)
    if norm < 1e-12:
        raise HodynError(f"{what} has zero length", source)
    frame = model.links[model.parent_links[j]] if model.parent_links else None
    R = frame.T[:3, :3] if frame is not None else np.eye(3)
    return R @ (v / norm)


def read_drives(path: str | Path, model: Model) -> Drives:
    """Read a drives file (TOML, see the module docstring) for ``model``."""
    source = str(path)
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise HodynError(f"cannot read drives file: {getattr(e, 'strerror', None) or e}",
                         source) from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise HodynError(f"not valid TOML: {e}", source) from None
    unknown = sorted(set(doc) - {"joints"})
    if unknown:
        raise HodynError(f"unknown top-level key '{unknown[0]}' (expected [joints.<name>] "
                         "sections)", source)
    if not doc.get("joints"):
        raise HodynError("no drives: expected [joints.<name>] sections", source)
    return drives_from_table(model, doc["joints"], source=source, allow_zero_inertia=False)
