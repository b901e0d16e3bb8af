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


def column_listing(columns: list[str], hdf5: bool) -> str:
    """Motion columns (``<dataset>_<component>``: ``base_p_x``, ``R_12``, ...) and wrench
    columns (``W_<link>_mx``, ...) as a message names them: ``column(s) ...``, or in an HDF5
    file the datasets that hold them (``base_p``, ``wrench/<link>/W``: :class:`~hodyn_cli.io.
    tables.Hdf5Table`).

    >>> column_listing(["base_p_x", "base_R_11", "base_R_12"], hdf5=False)
    'column(s) base_p_x, base_R_11, base_R_12'
    >>> column_listing(["base_p_x", "base_R_11", "base_R_12"], hdf5=True)
    'dataset(s) base_p, base_R'
    >>> column_listing(["Wd_l_1_mx", "Wd_l_1_my"], hdf5=True)
    'dataset(s) wrench/l_1/Wd'
    """
    if not hdf5:
        return f"column(s) {listing(columns)}"
    return f"dataset(s) {listing(list(dict.fromkeys(_dataset(c) for c in columns)))}"


def _dataset(column: str) -> str:
    """The HDF5 dataset of a motion or wrench column (:func:`column_listing`)."""
    wrench = W_COLUMN.match(column)
    return f"wrench/{wrench.group(2)}/W{wrench.group(1)}" if wrench else column.rsplit("_", 1)[0]


Q_COLUMN = re.compile(r"^q(d*)_(.+)$")
W_COLUMN = re.compile(r"^W(d*)_(.+)_(mx|my|mz|fx|fy|fz)$")
#: torques and their derivatives (``hodyn compute``'s output, ``hodyn forward``'s input)
TAU_COLUMN = re.compile(r"^tau(d*)_(.+)$")
#: which contacts carry a floating base, per sample (1 or 0): ``contact_<name>``
FLAG_PREFIX = "contact_"


@dataclass(frozen=True, eq=False, repr=False)
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
    #: a multi-DOF joint's pose columns (:func:`pose_columns`) by joint; its entries of
    #: ``q[0]`` are '' (its configuration coordinates come from its pose)
    poses: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def columns(self) -> list[str]:
        """Every column the trajectory is built from (``t`` first if present)."""
        out = ["t"] if self.has_t else []
        out += [c for row in self.q for c in row if c]
        out += [c for rows in self.wrenches.values() for row in rows for c in row]
        out += [c for row in self.series.values() for c in row]
        out += list(self.flags)
        out += [c for cols in self.poses.values() for c in cols]
        return out


def pose_columns(model: Model, i: int) -> tuple[str, ...]:
    """The columns of multi-DOF joint i's pose (docs/conventions.md), as the floating base's:
    a ball joint J's rotation ``J_R_11 .. J_R_33`` (row by row), a free one's ``J_p_x ..
    J_p_z`` and ``J_R_..``, a planar one's ``J_x, J_y, J_theta``.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import parse_model
    >>> m = parse_model(b'<robot name="r"><link name="a"/><link name="b"/><joint name="J" '
    ...                 b'type="planar"><parent link="a"/><child link="b"/></joint></robot>')
    >>> pose_columns(m, 0)
    ('J_x', 'J_y', 'J_theta')
    """
    joint, kind = model.joint_names[i], model.joint_types[i]
    if kind == "planar":
        return (f"{joint}_x", f"{joint}_y", f"{joint}_theta")
    rotation = tuple(f"{joint}_R_{s}" for s in ROTATION)
    return rotation if kind == "spherical" else tuple(f"{joint}_p_{s}" for s in XYZ) + rotation


def plan(names: list[str], model: Model, need: int, source: str,
         series: tuple[str, ...] = (), flags: tuple[str, ...] | None = None) -> Layout:
    """The layout of a trajectory table with columns ``names``; ``need`` = number of q
    derivative orders required (q..qdddd is 5); ``series``: other per-joint columns
    required, ``<series>_<joint>``; ``flags``: the contact columns ``contact_<name>`` wanted,
    read where present (None: ``contact_`` columns are passed over, as a gait planner's
    data; else one that is not wanted is an error). One-line errors name the column."""
    coordinates = model.coordinate_names  # mimic joints follow their leaders: no columns
    joints = set(coordinates)
    poses = {model.joint_names[i]: pose_columns(model, i) for i, nv in enumerate(model.dofs)
             if nv > 1}
    pose_of = {c: joint for joint, cols in poses.items() for c in cols}
    # a multi-DOF joint's velocity coordinates have rates (qd_J_wx, ...), no position column
    o = model.dof_offsets
    posed = {model.dof_names[v]: model.joint_names[i] for i, nv in enumerate(model.dofs)
             if nv > 1 for v in range(o[i], o[i + 1])}
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
                or name.startswith(FLAG_PREFIX) or name in pose_of:
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
        if not m.group(1) and m.group(2) in posed:
            joint = posed[m.group(2)]
            raise TrajectoryError(f"column '{shown(name)}': joint '{joint}' has several degrees "
                                  f"of freedom: its pose is {listing(list(poses[joint]))}",
                                  source)
        orders.setdefault(len(m.group(1)), set()).add(m.group(2))
    unposed = [c for cols in poses.values() for c in cols if c not in names]
    if unposed:
        raise TrajectoryError(f"missing columns {listing(unposed)} (the pose of each "
                              "multi-DOF joint)", source)
    orders.setdefault(0, set()).update(posed)   # (their poses' columns, there)
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
    q = tuple(tuple("" if k == 0 and j in posed else derivative_name("q", k) + "_" + j
                    for j in coordinates) for k in range(D))
    absent = [c for c in wanted if c not in names]
    if absent:
        raise TrajectoryError(f"missing columns {listing(absent)} (needed for "
                              f"{', '.join(series)})", source)
    extra = {base: tuple(f"{base}_{j}" for j in model.coordinate_names) for base in series}
    return Layout(q, plan_wrenches(names, model, source), "t" in names, extra, tuple(ignored),
                  near_misses(ignored, model), tuple(mimicking), tuple(held), tuple(flagged),
                  poses)


def series_orders(names: list[str], base: str, model: Model) -> int:
    """How many derivative orders of the per-joint series ``base`` (``tau``: ``tau_<joint>``,
    ``taud_<joint>``, ...) the columns ``names`` give for every independent joint. A model
    without joints has no such series (every order would be complete): ValueError.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> m = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> series_orders(["tau_joint1", "tau_joint2", "taud_joint1", "taud_joint2",
    ...                "taudd_joint1"], "tau", m)
    2
    """
    if not model.coordinate_names:
        raise ValueError("a model without joints has no per-joint series to count")
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
