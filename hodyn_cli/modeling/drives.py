"""Drives of a model's joints: the drives file (``--drives FILE.toml``) of ``hodyn elastic``,
``hodyn compute``, ``hodyn regressor``, ``hodyn validate`` and ``hodyn check``.

A drive of joint j is a motor whose rotor is carried by the joint's parent link, an ideal gear
and, for a series-elastic drive, a linear spring to the joint's child link (docs/drives.md is
the one description of the file)::

    [joints.iiwa_joint_2]
    gear_ratio = 160.0        # r_j: theta_j = r_j q_j (at zero spring deflection; rad/m if prismatic)
    rotor_inertia = 0.5e-4    # I_j, kg m^2 about the rotor axis
    rotor_axis = [0, 0, 1]    # optional: in the parent link's frame; default: the joint axis
    stiffness = 5000.0        # K_j, N m/rad (N/m if prismatic); none: a rigid drive
    gear_efficiency = 0.9     # eta_j in (0, 1], default 1
    torque_constant = 0.1     # k_t, N m/A: the motor current (optional)
    viscous = 0.5             # friction (all optional, default 0): N m s/rad,
    coulomb = 2.0             # N m, smoothed as coulomb tanh(v / coulomb_velocity),
    coulomb_velocity = 0.02   # rad/s (needed with coulomb),
    offset = 0.1              # N m,
    friction_side = "joint"   # at v = qd ("joint", default) or v = thetad ("motor")

``gear_ratio`` defaults to the ``mechanicalReduction`` of the joint's URDF ``<transmission>``.
A joint without a drive is rigid and has no motor. Every mistake is one
:class:`~hodyn_cli.errors.HodynError` line naming the file, the joint and the key.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> d = drives_from_table(model, {"joint2": {"stiffness": 800.0, "gear_ratio": 50,
...                                          "rotor_inertia": 1e-5}})
>>> d.driven.tolist(), d.rotor_axis[1].tolist(), d.elastic.tolist()
([False, True], [0.0, 0.0, 1.0], [False, True])
>>> drives_from_table(model, {"joint2": {"stiffness": -1.0, "rotor_inertia": 1e-5}},
...                   source="d.toml")
Traceback (most recent call last):
...
hodyn_cli.errors.HodynError: d.toml: joint 'joint2': 'stiffness' must be a positive number, got -1.0
>>> drives_from_table(model, {"joint1": {"gear_ratio": 100, "coulomb": 2.0}})
...                                                     # doctest: +ELLIPSIS
Traceback (most recent call last):
...
hodyn_cli.errors.HodynError: joint 'joint1': 'coulomb' needs 'coulomb_velocity' (the speed ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.joint_files import in_range, joint_entries, joint_sections, out_of_range

__all__ = ["Drives", "Friction", "drives_from_table", "read_drives", "rotors_as_bodies", "KEYS",
           "SIDES"]

KEYS = ("gear_ratio", "rotor_inertia", "rotor_axis", "stiffness", "gear_efficiency",
        "torque_constant", "viscous", "coulomb", "coulomb_velocity", "offset", "friction_side")
#: where friction acts: at the joint's speed qd, or at the motor's thetad
SIDES = ("joint", "motor")


@dataclass(frozen=True, eq=False)
class Friction:
    """Friction per joint, ``viscous v + coulomb tanh(v / velocity) + offset`` at the joint's
    speed v = qd or, where ``motor_side``, at the motor's v = thetad (all (n,); 0 where none,
    ``velocity`` 1 where there is no Coulomb friction). ``velocity_given``: the file gave
    ``coulomb_velocity`` (a Coulomb column to identify needs it)."""

    viscous: np.ndarray
    coulomb: np.ndarray
    velocity: np.ndarray
    offset: np.ndarray
    motor_side: np.ndarray
    velocity_given: np.ndarray

    def __post_init__(self):
        for a in (self.viscous, self.coulomb, self.velocity, self.offset, self.motor_side,
                  self.velocity_given):
            a.setflags(write=False)

    @classmethod
    def none(cls, n: int) -> Friction:
        return cls(np.zeros(n), np.zeros(n), np.ones(n), np.zeros(n), np.zeros(n, dtype=bool),
                   np.zeros(n, dtype=bool))

    @property
    def any(self) -> np.ndarray:
        """(n,) bool: the joint has friction."""
        return (self.viscous != 0) | (self.coulomb != 0) | (self.offset != 0)


@dataclass(frozen=True, eq=False)
class Drives:
    """Drive data per joint of a model, in model order (NaN where a joint has no drive).

    Attributes:
        driven: (n,) bool, the joint has a drive.
        stiffness: (n,) K_j > 0 of a series-elastic drive, ``inf`` for a rigid drive.
        gear_ratio: (n,) r_j != 0 (theta = r q at zero deflection).
        rotor_inertia: (n,) I_j >= 0 about the rotor axis.
        rotor_axis: (n, 3) unit rotor axis n_j in the frame of the body that carries the
            rotor (the joint's parent body; zeros where not driven).
        gear_efficiency: (n,) eta_j in (0, 1] (1 where not driven).
        torque_constant: (n,) k_t > 0, N m/A (NaN where not given).
        friction: :class:`Friction` per joint.
        source: the drives file it was read from ("" if none), for error messages.
    """

    driven: np.ndarray
    stiffness: np.ndarray
    gear_ratio: np.ndarray
    rotor_inertia: np.ndarray
    rotor_axis: np.ndarray
    gear_efficiency: np.ndarray = None  # type: ignore[assignment]  # default: __post_init__
    torque_constant: np.ndarray = None  # type: ignore[assignment]  # default: __post_init__
    friction: Friction = None  # type: ignore[assignment]  # default: __post_init__
    source: str = ""

    def __post_init__(self):
        n = len(self.driven)
        if self.gear_efficiency is None:
            object.__setattr__(self, "gear_efficiency", np.ones(n))
        if self.torque_constant is None:
            object.__setattr__(self, "torque_constant", np.full(n, np.nan))
        if self.friction is None:
            object.__setattr__(self, "friction", Friction.none(n))
        for a in (self.driven, self.stiffness, self.gear_ratio, self.rotor_inertia,
                  self.rotor_axis, self.gear_efficiency, self.torque_constant):
            a.setflags(write=False)

    @property
    def inertia(self) -> np.ndarray:
        """(n,) rotor inertias with 0 for joints without a drive."""
        return np.where(self.driven, self.rotor_inertia, 0.0)

    @property
    def elastic(self) -> np.ndarray:
        """(n,) bool: a series-elastic drive (finite stiffness)."""
        return self.driven & np.isfinite(self.stiffness)

    @property
    def rigid(self) -> np.ndarray:
        """(n,) bool: a rigid drive (theta = r q)."""
        return self.driven & ~np.isfinite(self.stiffness)

    @property
    def current(self) -> np.ndarray:
        """(n,) bool: the drive has a torque constant (its current is known)."""
        return self.driven & np.isfinite(self.torque_constant)

    def made_rigid(self) -> Drives:
        """The same drives with every spring taken as rigid (``--rigid-drives``)."""
        return replace(self, stiffness=np.where(self.driven, np.inf, np.nan))


def joint_axis_in_parent(model: Model, j: int) -> np.ndarray:
    """Unit axis of joint j in its parent body's frame (rotation axis or sliding direction)."""
    X = model.X[j]
    axis = X[:3] if X[:3].any() else X[3:]
    return model.B[j, :3, :3] @ axis


def _number(value, what: str, source: str | None, *, positive: bool = False,
            nonnegative: bool = False, nonzero: bool = False, fraction: bool = False) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and np.isfinite(value)
    if ok:
        value = float(value)
        ok = not (positive and value <= 0 or nonnegative and value < 0 or nonzero and value == 0
                  or fraction and not 0 < value <= 1)
    if not ok:
        kind = ("a positive number" if positive else "a non-negative number" if nonnegative
                else "a non-zero number" if nonzero else "a number in (0, 1]" if fraction
                else "a number")
        raise HodynError(f"{what} must be {kind}, got {value!r}", source)
    if not in_range(value):
        raise out_of_range(what, value, source)
    return value


#: key -> the check of its value (``_number``'s keyword), for the optional numeric keys
_OPTIONAL = {"gear_efficiency": "fraction", "torque_constant": "positive",
             "viscous": "nonnegative", "coulomb": "nonnegative", "coulomb_velocity": "positive",
             "offset": None}


def drives_from_table(model: Model, table: Mapping, *, source: str | None = None,
                      allow_zero_inertia: bool = True) -> Drives:
    """Drives from ``{joint name: {key: value}}`` (the ``[joints]`` table of a drives file).

    ``allow_zero_inertia=False`` (the file reader) rejects ``rotor_inertia = 0``, which in
    a file is more likely a mistake than a rotor without inertia (leave the key out for a
    rigid drive without rotor inertia).
    """
    n = model.n
    driven = np.zeros(n, dtype=bool)
    K, r, inertia = (np.full(n, np.nan) for _ in range(3))
    axes = np.zeros((n, 3))
    values = {key: np.zeros(n) for key in _OPTIONAL}
    values["gear_efficiency"][:] = 1.0
    values["coulomb_velocity"][:] = 1.0
    values["torque_constant"][:] = np.nan
    motor_side, velocity_given = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    for j, what, entry in joint_entries(model, table, KEYS, "drive", source):
        elastic = "stiffness" in entry
        if elastic and "rotor_inertia" not in entry:
            raise HodynError(f"{what}: missing 'rotor_inertia' (a drive with 'stiffness' is "
                             "series-elastic)", source)
        K[j] = _number(entry["stiffness"], f"{what}: 'stiffness'", source,
                       positive=True) if elastic else np.inf
        inertia[j] = _number(entry.get("rotor_inertia", 0.0), f"{what}: 'rotor_inertia'",
                             source, nonnegative=allow_zero_inertia,
                             positive=not allow_zero_inertia and "rotor_inertia" in entry)
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
        for key, check in _OPTIONAL.items():
            if key in entry:
                values[key][j] = _number(entry[key], f"{what}: '{key}'", source,
                                         **({check: True} if check else {}))
        if values["coulomb"][j] and "coulomb_velocity" not in entry:
            raise HodynError(f"{what}: 'coulomb' needs 'coulomb_velocity' (the speed at which "
                             "the smoothed Coulomb friction reaches tanh(1) = 76 % of its level)",
                             source)
        side = entry.get("friction_side", "joint")
        if side not in SIDES:
            raise HodynError(f"{what}: 'friction_side' must be \"joint\" or \"motor\", got "
                             f"{side!r}", source)
        motor_side[j] = side == "motor"
        velocity_given[j] = "coulomb_velocity" in entry
        driven[j] = True
    friction = Friction(values["viscous"], values["coulomb"], values["coulomb_velocity"],
                        values["offset"], motor_side, velocity_given)
    return Drives(driven, K, r, inertia, axes, values["gear_efficiency"],
                  values["torque_constant"], friction, source or "")


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
    return drives_from_table(model, joint_sections(path, "drives"), source=str(path),
                             allow_zero_inertia=False)


def rotors_as_bodies(model: Model, drives: Drives) -> Model:
    """The model with every rotor as a body of its own, a second construction of the drives'
    mechanics (``hodyn validate --drives``): the rotor of drive c is body ``n + k`` (the k-th
    drive), joint ``rotor_<joint>``, turning about its axis n_c on a frame that coincides with
    its carrier's, with the inertia ``I_c n_c n_c^T`` (no mass) taken off the carrier's. Its
    coordinate is the rotor angle theta_c relative to the carrier; the inverse dynamics of this
    model give the links' joint torques and, at the rotor joints, ``I_c (thetadd_c + n_c .
    omegad_carrier)``.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> both = rotors_as_bodies(model, drives_from_table(model, {"joint2": {"gear_ratio": 50,
    ...                                                           "rotor_inertia": 1e-5}}))
    >>> both.joint_names, both.parent.tolist()
    (('joint1', 'joint2', 'rotor_joint2'), [-1, 0, 0])
    """
    rotors = np.flatnonzero(drives.driven)
    M = model.inertias.copy()
    spin = np.zeros((len(rotors), 6, 6))
    for k, c in enumerate(rotors):
        spin[k, :3, :3] = drives.rotor_inertia[c] * np.outer(drives.rotor_axis[c],
                                                            drives.rotor_axis[c])
        if model.parent[c] >= 0:
            M[model.parent[c]] -= spin[k]
    X = np.zeros((len(rotors), 6))
    X[:, :3] = drives.rotor_axis[rotors]
    names = tuple(f"rotor_{model.joint_names[c]}" for c in rotors)
    carriers = tuple(model.parent_links[c] for c in rotors) if model.parent_links else ()
    return Model(
        model.name, model.root_link, model.joint_names + names,
        model.joint_types + ("continuous",) * len(rotors), model.link_names + names,
        np.concatenate([model.parent, model.parent[rotors]]),
        np.concatenate([model.B, np.broadcast_to(np.eye(4), (len(rotors), 4, 4))]),
        np.concatenate([model.X, X]), np.concatenate([M, spin]), model.root_inertia,
        parent_links=model.parent_links + carriers if carriers else (), links=model.links)
