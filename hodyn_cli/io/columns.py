"""Column names of trajectory tables, checked once per file (before any data is read).

A table (a CSV file, or an HDF5 file seen as columns) has ``t``, ``q.._<joint>`` and
``W.._<link>_<mx..fz>`` columns; :func:`plan` maps them onto the model's joints and links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import derivative_name
from hodyn_cli.errors import MissingDerivatives, TrajectoryError
from hodyn_cli.io.paths import listing, shown

WRENCH_COMPONENTS = ("mx", "my", "mz", "fx", "fy", "fz")
#: suffixes of a link's motion columns (``hodyn kinematics``, read by ``hodyn ik``): ``p_x``,
#: ``R_12`` (row 1, column 2), ``Vs_wx`` (angular x), ``Vsd_vz`` (linear z), ``pdd_y``, ...
XYZ = ("x", "y", "z")
ROTATION = tuple(f"{r}{c}" for r in "123" for c in "123")
TWIST = ("wx", "wy", "wz", "vx", "vy", "vz")
#: centroidal momentum: angular about the centre of mass, then linear (``hodyn kinematics --com``)
MOMENTUM = ("ax", "ay", "az", "lx", "ly", "lz")
MOTION_DATASET = re.compile(r"(base_)?(p|R|V[sb]d*|pd+)")  # base_: a floating root's, in a trajectory


def motion_suffixes(key: str) -> tuple[str, ...]:
    """Column suffixes of motion dataset ``key`` (``p``, ``R``, ``Vs``.., ``Vb``.., ``pd``..).

    >>> motion_suffixes("Vbd")[:2], motion_suffixes("R")[1]
    (('wx', 'wy'), '12')
    """
    key = key.removeprefix("base_")
    return ROTATION if key == "R" else TWIST if key.startswith("V") else XYZ
Q_COLUMN = re.compile(r"^q(d*)_(.+)$")
W_COLUMN = re.compile(r"^W(d*)_(.+)_(mx|my|mz|fx|fy|fz)$")
#: torques and their derivatives (``hodyn compute``'s output, ``hodyn forward``'s input)
TAU_COLUMN = re.compile(r"^tau(d*)_(.+)$")
#: which contacts carry a floating base, per sample (1 or 0): ``contact_<name>``
FLAG_PREFIX = "contact_"


@dataclass(frozen=True)
class Layout:
    """Which columns make a trajectory: ``q[k][j]`` names derivative k of joint j (model
    order, k < D); ``wrenches[link][k][c]`` wrench component c of derivative k."""

    q: tuple[tuple[str, ...], ...]
    wrenches: dict[str, tuple[tuple[str, ...], ...]]
    has_t: bool
    series: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ignored: tuple[str, ...] = ()  # columns that are not hodyn's (sensor data, efforts, ...)
    typos: dict[str, str] = field(default_factory=dict)  # ignored column -> likely meant
    mimic: tuple[str, ...] = ()  # columns of mimic joints: their motion follows their leaders
    locked: tuple[str, ...] = ()  # columns of locked joints (--lock): held, not read
    flags: tuple[str, ...] = ()  # single columns read where present (contact_<name>: 1 or 0)

    @property
    def columns(self) -> list[str]:
        """Every column the trajectory is built from (``t`` first if present)."""
        out = ["t"] if self.has_t else []
        out += [c for row in self.q for c in row]
        out += [c for rows in self.wrenches.values() for row in rows for c in row]
        out += [c for row in self.series.values() for c in row]
        out += list(self.flags)
        return out


def plan(names: list[str], model: Model, need: int, source: str,
         series: tuple[str, ...] = (), flags: tuple[str, ...] | None = None) -> Layout:
    """The layout of a trajectory table with columns ``names``; ``need`` = number of q
    derivative orders required (q..qdddd is 5); ``series``: other per-joint columns
    required, ``<series>_<joint>``; ``flags``: the contact columns ``contact_<name>`` wanted,
    read where present (None: ``contact_`` columns are passed over, as a gait planner's
    data; else one that is not wanted is an error). One-line errors name the column."""
    coordinates = model.coordinate_names  # mimic joints follow their leaders: no columns
    joints = set(coordinates)
    orders: dict[int, set[str]] = {}
    wanted = {f"{base}_{j}": base for base in series for j in model.coordinate_names}
    ignored, mimicking, held, flagged = [], [], [], []
    for name in names:
        if name.startswith(FLAG_PREFIX) and flags is not None:
            if name not in flags:
                known = ", ".join(f.removeprefix(FLAG_PREFIX) for f in flags)
                raise TrajectoryError(f"column '{name}': the contacts file has no contact "
                                      f"'{name.removeprefix(FLAG_PREFIX)}' (contacts: {known})",
                                      source)
            flagged.append(name)
            continue
        if name == "t" or W_COLUMN.match(name) or name in wanted or name.startswith("base_") \
                or name.startswith(FLAG_PREFIX):
            continue
        torque = TAU_COLUMN.match(name)
        if torque and torque.group(2) in joints:  # hodyn's own torques, not needed here: quiet
            continue
        m = Q_COLUMN.match(name)
        if not m:
            ignored.append(name)
            continue
        if m.group(2) in model.joint_names and m.group(2) not in joints:
            mimicking.append(name)  # a mimic joint's column: its motion follows its leader
            continue
        if m.group(2) in model.locked:
            held.append(name)
            continue
        if m.group(2) not in joints:
            import difflib

            close = difflib.get_close_matches(m.group(2), model.joint_names, n=1, cutoff=0.75)
            hint = f" (a typo of '{close[0]}'?)" if close else ""
            raise TrajectoryError(f"column '{shown(name)}': the model has no joint "
                                  f"'{shown(m.group(2))}'{hint}", source)
        orders.setdefault(len(m.group(1)), set()).add(m.group(2))
    missing = [derivative_name("q", k) + "_" + j for k in range(need) for j in coordinates
               if j not in orders.get(k, ())]
    if missing:
        positions = all(j in orders.get(0, ()) for j in coordinates)
        raise (MissingDerivatives if positions else TrajectoryError)(
            f"missing columns {listing(missing)} (need q up to "
            f"{derivative_name('q', need - 1)} for every joint)", source)
    D = need
    while D in orders and orders[D] == joints:
        D += 1
    q = tuple(tuple(derivative_name("q", k) + "_" + j for j in coordinates) for k in range(D))
    absent = [c for c in wanted if c not in names]
    if absent:
        raise TrajectoryError(f"missing columns {listing(absent)} (needed for "
                              f"{', '.join(series)})", source)
    extra = {base: tuple(f"{base}_{j}" for j in model.coordinate_names) for base in series}
    return Layout(q, plan_wrenches(names, model, source), "t" in names, extra, tuple(ignored),
                  near_misses(ignored, model), tuple(mimicking), tuple(held), tuple(flagged))


def series_orders(names: list[str], base: str, model: Model) -> int:
    """How many derivative orders of the per-joint series ``base`` (``tau``: ``tau_<joint>``,
    ``taud_<joint>``, ...) the columns ``names`` give for every independent joint.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> m = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> series_orders(["tau_joint1", "tau_joint2", "taud_joint1", "taud_joint2",
    ...                "taudd_joint1"], "tau", m)
    2
    """
    have = set(names)
    k = 0
    while all(f"{derivative_name(base, k)}_{j}" in have for j in model.coordinate_names):
        k += 1
    return k


def near_misses(ignored: list[str], model: Model) -> dict[str, str]:
    """Ignored columns that look like a mistyped hodyn column (``q_joint_1`` for
    ``q_joint1``, ``Qd_j2`` for ``qd_j2``): column -> the name it probably meant."""
    import difflib

    out = {}
    for name in ignored:
        m = re.match(r"^([A-Za-z]+)_(.+)$", name)
        if not m or not re.fullmatch(r"[qQ][dD]*", m.group(1)):
            continue  # only q-like prefixes: effort_J, sensor_0 are data, not typos
        close = difflib.get_close_matches(m.group(2), model.joint_names, n=1, cutoff=0.75)
        if close:
            out[name] = f"{m.group(1).lower()}_{close[0]}"
    return out


def plan_wrenches(names: list[str], model: Model, source: str
                  ) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Wrench columns per link, complete orders only (errors for partial ones)."""
    found: dict[str, dict[int, set[str]]] = {}
    for name in names:
        m = W_COLUMN.match(name)
        if m:
            if m.group(2) not in model.links:
                raise TrajectoryError(f"column '{name}': the model has no link '{m.group(2)}'",
                                      source)
            found.setdefault(m.group(2), {}).setdefault(len(m.group(1)), set()).add(m.group(3))
    out = {}
    for link, orders in found.items():
        D = 0
        while D in orders and orders[D] == set(WRENCH_COMPONENTS):
            D += 1
        partial = [derivative_name("W", k) + f"_{link}_{c}" for k in sorted(orders)
                   for c in WRENCH_COMPONENTS if c not in orders[k] or k >= D]
        if partial:
            raise TrajectoryError(f"incomplete wrench columns: missing or out of order "
                                  f"{listing(partial)}", source)
        out[link] = tuple(tuple(derivative_name("W", k) + f"_{link}_{c}" for c in WRENCH_COMPONENTS)
                          for k in range(D))
    return out
