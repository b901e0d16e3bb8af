"""Joint limits: the URDF's, a limits file's (``hodyn check --limits FILE.toml``), and the
plausibility check of joint values against the URDF's position limits.

A limits file has one table per joint; every key is optional and overrides the URDF::

    [joints.iiwa_joint_2]
    position = [-2.0, 2.0]        # rad (m): lower, upper; overrides the URDF's lower/upper
    velocity = 1.4                # rad/s (m/s); overrides the URDF's velocity
    acceleration = 10.0           # rad/s^2 (m/s^2)
    jerk = 5000.0                 # rad/s^3 (m/s^3); overrides the URDF's (1.2) jerk
    torque = 300.0                # N m (N); overrides the URDF's effort
    torque_rate = 3000.0          # N m/s
    torque_acceleration = 1e5     # N m/s^2
    motor_speed = 250.0           # rad/s, motor side (elastic drives: thetad)
    motor_torque = 2.5            # N m, motor side (elastic drives: taum)
    current = 8.0                 # A (needs a motor model: reported as not checked for now)

Every limit but ``position`` is a bound on the magnitude, ``|value| <= limit``; ``inf``
removes a URDF limit. Every mistake is one :class:`~hodyn_cli.errors.HodynError` line naming
the file, the joint and the key.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> lim = joint_limits(model, {"joint2": {"torque_rate": 500, "position": [-1, 1]}})
>>> lim.bands["torque"][:, 1].tolist(), lim.bands["torque_rate"][:, 1].tolist()
([100.0, 100.0], [inf, 500.0])
>>> lim.origin["position"]
('URDF', 'file')
>>> joint_limits(model, {"joint2": {"torque": -5.0}}, source="l.toml")
Traceback (most recent call last):
...
hodyn_cli.errors.HodynError: l.toml: joint 'joint2': 'torque' must be a positive number (or inf), got -5.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from hodyn_cli.core.model import Diagnostic, Model
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.joint_files import in_range, joint_entries, joint_sections, out_of_range

__all__ = ["KEYS", "TORQUES", "JOINT_ORDERS", "Limits", "torque_order", "joint_limits",
           "read_limits", "with_limits", "overridden", "urdf_bounds", "beyond_limits",
           "PHYSICAL_RANGE", "placeholder_range", "placeholder_notice"]

#: the keys of a limits file's joint tables
KEYS = ("position", "velocity", "acceleration", "jerk", "torque", "torque_rate",
        "torque_acceleration", "motor_speed", "motor_torque", "current")
#: the keys of the torque and its derivatives, by order
TORQUES = ("torque", "torque_rate", "torque_acceleration")
#: the torque order whose q (to q^(order + 2)) a joint limit needs: an acceleration qdd, a jerk
#: qddd
JOINT_ORDERS = {"acceleration": 0, "jerk": 1}


@dataclass(frozen=True, eq=False)
class Limits:
    """The limits of every joint, in model order.

    Attributes:
        bands: key (:data:`KEYS`) -> (n, 2) lower and upper bound (-inf, inf: no limit);
            every key but ``position`` is symmetric, ``(-limit, limit)``.
        origin: key -> (n,) where each limit comes from: ``'URDF'``, ``'file'`` or ``''``.
        source: the limits file, if any.
    """

    bands: dict[str, np.ndarray]
    origin: dict[str, tuple[str, ...]]
    source: str | None = None

    def limited(self, key: str) -> np.ndarray:
        """(n,) bool: the joints that have a limit on ``key``."""
        return np.isfinite(self.bands[key]).any(axis=1)


def torque_order(limits: Limits) -> int:
    """The highest torque derivative with a limit, or what a limited joint acceleration (0)
    or jerk (1) needs of the motion if higher (its laws hold q to ``order + 2``; -1: none)."""
    keys = [(j, key) for j, key in enumerate(TORQUES)] + [
        (j, key) for key, j in JOINT_ORDERS.items()]
    return max((j for j, key in keys if limits.limited(key).any()), default=-1)


def urdf_bounds(joints: Sequence, names: Sequence[str], key: str) -> np.ndarray:
    """(len(names),) URDF ``<limit effort>`` or ``<limit jerk>`` (``key``; URDF 1.2) of the
    named joints (+inf if absent or not positive: URDF's default 0 means none was given)."""
    given = {j.name: None if j.limit is None else getattr(j.limit, key) for j in joints}
    return np.array([float(e) if e is not None and e > 0 else np.inf
                     for e in (given[name] for name in names)])


#: widest position range a joint can physically have (wider is a placeholder, e.g. +-1e16 on
#: a propeller): 4 turns of a revolute joint (cable-driven joints reach 2), a kilometre of a
#: prismatic one. The URDF and the MJCF importer take such a range as none.
PHYSICAL_RANGE = {"revolute": 8 * np.pi, "prismatic": 1e3}


def placeholder_range(kind: str, lower: float, upper: float) -> bool:
    """Whether a ``kind`` (revolute, prismatic) joint's position range [lower, upper]
    (radians, metres) is wider than :data:`PHYSICAL_RANGE`: a placeholder, no range.

    >>> placeholder_range("revolute", -1e16, 1e16), placeholder_range("revolute", -6.3, 6.3)
    (True, False)
    """
    return kind in PHYSICAL_RANGE and upper - lower > PHYSICAL_RANGE[kind]


def placeholder_notice(wide: dict[str, list[str]], extra: tuple[str, ...] = ()
                       ) -> Diagnostic | None:
    """One notice naming the joints whose limits cannot be physical, taken as absent:
    ``wide`` kind -> the joints with a placeholder range (:func:`placeholder_range`),
    ``extra``: more such parts (the URDF's velocity 0), or None where there is none."""
    parts = [f"{what} of {', '.join(map(repr, names))}" for what, names in (
        ("position range wider than 4 turns", wide.get("revolute", [])),
        ("position range wider than 1 km", wide.get("prismatic", []))) if names]
    parts += extra
    return Diagnostic("notice", "limits that cannot be physical are taken as absent: "
                      + "; ".join(parts)) if parts else None


def turning_type(position: tuple[float, float]) -> str:
    """The type of a joint that turns about its axis (a URDF revolute or continuous joint, an
    MJCF hinge) by the position range its importer read: ``revolute`` within one,
    ``continuous`` without one. No range places such an angle, so q and q + 2 pi are one
    pose, which a file may wrap at +-pi (:mod:`~hodyn_cli.algorithms.motion.turns`): the
    URDF importer and the MJCF importer read such a joint alike.

    >>> turning_type((-1.0, 1.0)), turning_type((-np.inf, np.inf))
    ('revolute', 'continuous')
    """
    return "revolute" if np.isfinite(position).any() else "continuous"


def joint_limits(model: Model, table: Mapping | None = None, *, source: str | None = None
                 ) -> Limits:
    """The model's URDF limits (position, velocity, effort as ``torque``, URDF 1.2's jerk),
    overridden by
    ``table`` = ``{joint: {key: value}}`` (the ``[joints]`` table of a limits file)."""
    n = model.n
    bands = {key: np.tile([-np.inf, np.inf], (n, 1)) for key in KEYS}
    bands["position"] = np.array(model.limits, dtype=float)
    bands["velocity"] = np.stack([-model.velocity_limits, model.velocity_limits], axis=1)
    bands["torque"] = np.stack([-model.effort_limits, model.effort_limits], axis=1)
    bands["jerk"] = np.stack([-model.jerk_limits, model.jerk_limits], axis=1)
    origin = {key: ["URDF" if np.isfinite(bands[key][j]).any() else "" for j in range(n)]
              for key in KEYS}
    for j, what, entry in joint_entries(model, table, KEYS, "limits", source):
        for key, value in entry.items():
            bands[key][j] = (_interval(value, f"{what}: '{key}'", source) if key == "position"
                             else _bound(value, f"{what}: '{key}'", source))
            origin[key][j] = "file" if np.isfinite(bands[key][j]).any() else ""
    for j, nv in enumerate(model.dofs):  # one number for several velocity coordinates
        limited = [key for key in KEYS if np.isfinite(bands[key][j]).any()] if nv > 1 else []
        if limited:
            where = "the limits file's" if origin[limited[0]][j] == "file" else "its URDF"
            raise HodynError(f"joint '{model.joint_names[j]}' ({model.joint_types[j]}): "
                             f"{where} {limited[0]} limit has no meaning for its {nv} velocity "
                             "coordinates (a multi-DOF joint takes no limits yet)",
                             source if origin[limited[0]][j] == "file" else None)
    return Limits(bands, {k: tuple(v) for k, v in origin.items()}, source)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and not np.isnan(value)


def _bound(value, what: str, source: str | None) -> tuple[float, float]:
    if not (_is_number(value) and value > 0):
        raise HodynError(f"{what} must be a positive number (or inf), got {value!r}", source)
    if value != np.inf and not in_range(value):
        raise out_of_range(what, value, source)
    return -float(value), float(value)


def _interval(value, what: str, source: str | None) -> tuple[float, float]:
    if not (isinstance(value, list) and len(value) == 2 and all(map(_is_number, value))
            and np.isfinite(value).all() and value[0] < value[1]):
        raise HodynError(f"{what} must be [lower, upper], finite, lower < upper, got "
                         f"{value!r}", source)
    for end in value:
        if not in_range(end):
            raise out_of_range(what, end, source)
    return float(value[0]), float(value[1])


def overridden(limits: Limits, key: str, values, option: str) -> Limits:
    """``limits`` with every joint's ``key`` (not ``position``) set to ``values`` (one number,
    or one per joint in model order), given by the command-line ``option``.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> overridden(joint_limits(model), "jerk", [50.0, 80.0], "--jerk").bands["jerk"][:, 1].tolist()
    [50.0, 80.0]
    >>> overridden(joint_limits(model), "jerk", 0.0, "--jerk")
    Traceback (most recent call last):
    ...
    hodyn_cli.errors.HodynError: --jerk must be a positive number (or inf), got 0.0
    """
    n = len(limits.bands[key])
    given = np.broadcast_to(np.asarray(values, dtype=float), (n,))
    band = np.array([_bound(float(v), option, None) for v in given])
    return replace(limits, bands={**limits.bands, key: band}, origin={
        **limits.origin, key: tuple("option" if np.isfinite(v) else "" for v in given)})


def with_limits(model: Model, limits: Limits) -> Model:
    """The model with ``limits``' position, velocity and torque limits as its URDF's (what
    designs motions inside them: ``hodyn generate``)."""
    return replace(model, limits=limits.bands["position"].copy(),
                   velocity_limits=limits.bands["velocity"][:, 1].copy(),
                   effort_limits=limits.bands["torque"][:, 1].copy())


def read_limits(path: str | Path, model: Model) -> Limits:
    """The URDF limits of ``model`` overridden by a limits file (module docstring)."""
    return joint_limits(model, joint_sections(path, "limits"), source=str(path))


def beyond_limits(model: Model, q: np.ndarray, t, start: int = 0) -> dict[str, str]:
    """Joints whose q (N, n), all joints in model order (N, nv with multi-DOF joints), leaves
    the URDF position limits by more than rounding: joint -> one line naming the first such
    sample, its value and the limit (and "the values look like degrees" when they do).

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> model = load_model(Path(__file__).parents[2] / "urdf" / "iiwa14.urdf")
    >>> beyond_limits(model, np.full((2, 7), 0.5), None)
    {}
    >>> text = beyond_limits(model, np.full((2, 7), 100.0), np.array([0.0, 0.1]))["iiwa_joint_1"]
    >>> text[:70]
    'q_iiwa_joint_1 = 100 at t = 0 s is outside its URDF limits [-2.967, 2.'
    >>> text[70:]
    '967]; the values look like degrees: hodyn reads radians'
    """
    if model.multi_dof:  # each joint's first column: a multi-DOF joint's has no limits
        q = q[:, model.dof_offsets[:-1]]
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    slack = 1e-6 * np.where(np.isfinite(hi - lo), hi - lo, 0.0) + 1e-9
    if len(q):  # the common case, all inside: each column's extremes (one 1-D reduction per
        # column: q is often a strided view, which numpy reduces along axis 0 4x slower)
        ends = np.array([(column.min(), column.max()) for column in q.T]).reshape(-1, 2)
        if not ((ends[:, 0] < lo - slack) | (ends[:, 1] > hi + slack)).any():
            return {}
    bad = (q < lo - slack) | (q > hi + slack)
    turning = _turning(model)
    out = {}
    for j in np.flatnonzero(bad.any(axis=0)):
        s = int(np.argmax(bad[:, j]))
        when = f"t = {t[s]:.6g} s" if t is not None else f"sample {start + s}"
        hint = "; the values look like degrees: hodyn reads radians" if \
            _like_degrees(model, int(j), np.abs(q[:, j]).max(), lo[j], hi[j], turning) else ""
        out[model.joint_names[j]] = (
            f"q_{model.joint_names[j]} = {q[s, j]:.6g} at {when} is outside its URDF limits "
            f"[{lo[j]:.6g}, {hi[j]:.6g}]{hint}")
    return out


def _turning(model: Model) -> np.ndarray:
    """(n,) the joints whose angle goes on through whole turns: continuous joints, and the
    mimic joints that follow one (``multiplier q_leader + offset``: a leader that turns
    takes its follower out of any range, in radians)."""
    kinds = np.array([kind == "continuous" for kind in model.joint_types], dtype=bool)
    leader = model.mimic[:, 0].astype(int)
    follows = leader >= 0
    out = kinds.copy()
    out[follows] |= kinds[leader[follows]]
    return out


def _like_degrees(model: Model, j: int, top: float, lo: float, hi: float,
                  turning: np.ndarray) -> bool:
    """Whether joint j's positions outside its range, their largest magnitude ``top``, look
    like degrees: an angle (not a length) beyond a turn whose radians would be inside the
    range. Not for a joint that turns (:func:`_turning`: its radians go on past any range),
    and for one whose range spans a turn or more (a UR arm's +-2 pi) only beyond its range
    by more than a turn: a turn too far is a wrist that turned once more, in radians.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> iiwa = load_model(Path(__file__).parents[2] / "urdf" / "iiwa14.urdf")
    >>> _like_degrees(iiwa, 0, 40.0, -2.967, 2.967, np.zeros(7, bool))   # 40 deg: 0.7 rad
    True
    >>> _like_degrees(iiwa, 0, 8.0, -6.283, 6.283, np.zeros(7, bool))    # a turn: radians
    False
    >>> _like_degrees(iiwa, 0, 90.0, -6.283, 6.283, np.zeros(7, bool))
    True
    """
    if model.joint_types[j] == "prismatic" or turning[j]:
        return False
    edge = max(abs(lo), abs(hi))
    wide = np.isfinite(hi - lo) and hi - lo >= 2 * np.pi
    return bool(top > max(2 * np.pi, edge + (2 * np.pi if wide else 0.0))
                and np.radians(top) <= edge)
