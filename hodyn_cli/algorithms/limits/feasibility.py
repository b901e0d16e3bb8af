"""A motion against the robot's limits (``hodyn check``) and the uniform time scaling that makes
it feasible in the shortest time (``hodyn retime --to-limits``), chunk by chunk.

Every limited quantity is a row of :data:`QUANTITIES`: a limits-file key (see
:mod:`hodyn_cli.modeling.limits`) and the *series* it is checked on, the first of them that the
dynamics provide. The rigid model gives ``q, qd, qdd, qddd`` (as far as the motion has
them), ``tau, taud, taudd``; elastic drives
(``--drives``, :mod:`hodyn_cli.algorithms.actuation.elastic`) give the spring torque ``u, ud, udd``
(the link-side joint torque: it is what ``torque`` limits then), the motor speed ``thetad``
and motor torque ``taum``; rigid drives (:mod:`hodyn_cli.algorithms.actuation.actuators`) ``tau, taud,
taudd`` with the rotors' reactions, ``thetad = r qd``, ``taum`` (friction included) and the
``current`` of the drives with a torque constant. Each series comes as a
:class:`~hodyn_cli.algorithms.limits.scaling.Law`, so the same numbers serve the check (the law at
x = 1) and the time scaling (its earliest crossing of the limit band). A limit whose series
the dynamics do not provide (a motor limit on a joint without a drive, a current without a
torque constant) is reported as not checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.actuation import actuators, elastic
from hodyn_cli.algorithms.contacts.margins import cone_angle, friction_angle, pressure_centre
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.limits.contact_laws import (
    CONDITIONS,
    contact_conditions,
    floating_laws,
    wrench_key,
)
from hodyn_cli.algorithms.limits.rests import End, RestEnds
from hodyn_cli.algorithms.limits.scaling import (
    TOLERANCE,
    Law,
    drive_laws,
    earliest,
    earliest_negative,
    elastic_laws,
    rigid_laws,
)
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, check_results
from hodyn_cli.errors import HodynError, Infeasible
from hodyn_cli.modeling.contacts import Contact
from hodyn_cli.modeling.drives import Drives
from hodyn_cli.modeling.limits import JOINT_ORDERS, TORQUES, Limits, torque_order

# (torque_order and its tables are the limits' own, here for this module's users: api's
# torque_order reads them without the kernels this module imports)
__all__ = ["QUANTITIES", "CONTACT_QUANTITIES", "REST_QUANTITY", "STEPPED", "Quantity",
           "TORQUES", "JOINT_ORDERS", "torque_order", "requirements", "series_laws", "probe_laws",
           "limited_series", "Row", "Envelope", "Check", "Binding", "Retiming", "ScaleSearch",
           "Infeasible", "Unlimited"]


class Unlimited(HodynError):
    """No limit bounds the motion's speed at its samples: it never moves, or none of its
    limits depends on its speed (:meth:`ScaleSearch.retiming`; bad input, exit 2, where it
    is the input: ``retime --optimal`` also meets it on its own played motion, sampled at
    its rests alone where the law is shorter than an output step, and tries another)."""


@dataclass(frozen=True)
class Quantity:
    """A limited quantity: its limits-file key, name, the series it is checked on (the first
    one the dynamics provide) and its units (revolute joint, prismatic joint)."""

    key: str
    label: str
    series: tuple[str, ...]
    units: tuple[str, str]
    missing: str  # why a limit goes unchecked when no series is there


QUANTITIES = (
    Quantity("position", "position", ("q",), ("rad", "m"), ""),
    Quantity("velocity", "velocity", ("qd",), ("rad/s", "m/s"), ""),
    Quantity("acceleration", "acceleration", ("qdd",), ("rad/s^2", "m/s^2"), ""),
    Quantity("jerk", "jerk", ("qddd",), ("rad/s^3", "m/s^3"), ""),
    Quantity("torque", "torque", ("u", "tau"), ("N m", "N"), ""),
    Quantity("torque_rate", "torque rate", ("ud", "taud"), ("N m/s", "N/s"), ""),
    Quantity("torque_acceleration", "torque acceleration", ("udd", "taudd"),
             ("N m/s^2", "N/s^2"), ""),
    Quantity("motor_speed", "motor speed", ("thetad",), ("rad/s", "rad/s"),
             "the joint has no drive (--drives)"),
    Quantity("motor_torque", "motor torque", ("taum",), ("N m", "N m"),
             "the joint has no drive (--drives)"),
    Quantity("current", "current", ("current",), ("A", "A"),
             "the joint has no rigid drive with a torque_constant (--drives)"),
)
#: the quantities of a contact (``--contacts``): its friction angle against the cone's (a
#: contact that pulls is beyond 90 degrees), a sole's centre of pressure against its edges
CONTACT_QUANTITIES = (
    Quantity("friction", "friction cone", ("contact",), ("deg", "deg"), ""),
    Quantity("cop_x", "centre of pressure x", ("contact",), ("m", "m"), ""),
    Quantity("cop_y", "centre of pressure y", ("contact",), ("m", "m"), ""),
)
#: q'' at the motion's ends at rest (:mod:`~hodyn_cli.algorithms.limits.rests`): 0 where a
#: jerk, torque-rate or torque-acceleration limit is checked, else the held robot's
#: acceleration steps there (unbounded jerk and torque rates); a row per joint those limits
#: bound, only for a motion that starts or ends at rest
REST_QUANTITY = Quantity("rest_acceleration", "acceleration at rest", ("qdd",),
                         ("rad/s^2", "m/s^2"), "")
#: the limits whose quantities a step of acceleration makes unbounded: the joint's own jerk;
#: the torques' rates, which every joint's q'' moves (tau = M(q) q'' + ...)
STEPPED = ("jerk", "torque_rate", "torque_acceleration")


def held_at_rest(model: Model, limits: Limits) -> dict[str, str]:
    """The joints whose q'' a motion's ends at rest must have at 0 (:data:`STEPPED`): those
    with a jerk limit, every joint where a torque rate or acceleration is limited; each with
    where that limit comes from (its jerk limit's first).

    >>> from hodyn_cli.modeling.limits import joint_limits
    >>> from hodyn_cli.modeling.urdf import parse_model
    >>> two = parse_model(b'<robot name="r"><link name="a"/><link name="b"/><link name="c"/>'
    ...     b'<joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>'
    ...     b'<joint name="j2" type="continuous"><parent link="b"/><child link="c"/></joint>'
    ...     b'</robot>')
    >>> held_at_rest(two, joint_limits(two, {"j2": {"jerk": 10.0}}))
    {'j2': 'file'}
    >>> held_at_rest(two, joint_limits(two, {"j1": {"torque_rate": 5.0}}))
    {'j1': 'file', 'j2': 'file'}
    """
    jerk = limits.limited("jerk")
    origin = {name: limits.origin["jerk"][j] for j, name in enumerate(model.joint_names)
              if jerk[j]}
    for key in STEPPED[1:]:
        limited = np.flatnonzero(limits.limited(key))
        if limited.size:
            moved = limits.origin[key][limited[0]]
            origin = {name: origin.get(name, moved) for name in model.joint_names}
    return origin


def requirements(model: Model, drives: Drives | None, order: int, kind: str = "full",
                 data: backends.Data | None = None) -> elastic.Requirements | None:
    """The derivative orders :func:`series_laws` needs for torque order ``order``: None
    without drives (q to ``order + 2``), the elastic model's where a drive is series-elastic,
    else the rigid drives' (q to ``max(order, 0) + 2``); kept in ``data`` (the backend's Data
    of the request) where given, so that :func:`series_laws` with it finds them there."""
    if drives is None:
        return None
    if drives.elastic.any():
        find, need = elastic.requirements, 0
    else:
        find, need = actuators.requirements, max(order, 0)
    return find(model, drives, need, kind) if data is None else \
        data.derived(find, model, drives, need, kind)


def series_laws(model: Model, trajectory: Trajectory, *, order: int, gravity=GRAVITY,
                drives: Drives | None = None, kind: str = "full",
                data: backends.Data | None = None,
                contacts: tuple[Contact, ...] = (), whole: bool = False,
                torques: np.ndarray | None = None) -> dict[str, Law]:
    """Every series the dynamics give for ``trajectory`` (all joints, mimic joints expanded):
    rigid to torque order ``order``; with ``drives``, elastic where one of them is, else rigid
    drives (:func:`~hodyn_cli.algorithms.limits.scaling.elastic_laws`,
    :func:`~hodyn_cli.algorithms.limits.scaling.drive_laws`; ``kind``; ``data``: the backend's
    Data of the request, which keeps the :func:`requirements`); a floating base
    (``trajectory.base``) rigid, on its ``contacts`` if given
    (:func:`~hodyn_cli.algorithms.limits.contact_laws.floating_laws`). A law that overflows
    float64 (inputs too large there) is an error naming it and the sample. ``whole``: rigid
    torques (no drives, no floating base) as their values at speed-up 1 alone
    (:func:`~hodyn_cli.algorithms.limits.scaling.rigid_laws`); ``torques``: those rigid
    torques made already (:func:`probe_laws`), or None."""
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named below
        laws = _series_laws(model, trajectory, order=order, gravity=gravity, drives=drives,
                            kind=kind, data=data, contacts=contacts, whole=whole,
                            torques=torques)
    check_results({name: law.coefficients for name, law in laws.items()}, trajectory)
    return laws


def probe_laws(model: Model, names: tuple[str, ...], probes: np.ndarray, *, order: int,
               gravity=GRAVITY, drives: Drives | None = None, kind: str = "full",
               data: backends.Data | None = None) -> list[dict[str, Law]]:
    """:func:`series_laws` of each of the motions ``probes`` (P, N, D, m: every joint, mimic
    joints expanded, ``names``) through the same positions (the path's probes,
    :func:`~hodyn_cli.algorithms.limits.programme.path_limits`), rigid torques ``whole``:
    the rigid torques of all of them in one
    :func:`~hodyn_cli.algorithms.dynamics.body_fixed.inverse_dynamics_probes` (the joint
    adjoints made once, not once per probe: the same numbers), drives' laws probe by probe."""
    torques: list[np.ndarray | None] = [None] * len(probes)
    if drives is None and order >= 0:
        with np.errstate(over="ignore", invalid="ignore"):  # (series_laws names an overflow)
            torques = list(body_fixed.inverse_dynamics_probes(
                model, names, probes, order=order, gravity=gravity, data=data))
    return [series_laws(model, Trajectory(names, qs), order=order, gravity=gravity,
                        drives=drives, kind=kind, data=data, whole=drives is None, torques=tau)
            for qs, tau in zip(probes, torques, strict=True)]


def _series_laws(model: Model, trajectory: Trajectory, *, order: int, gravity, drives, kind,
                 data, contacts, whole: bool, torques: np.ndarray | None) -> dict[str, Law]:
    if trajectory.base is not None:  # (rigid: drives with a floating base are refused by the API)
        return floating_laws(model, trajectory, order, gravity, contacts, data)
    if contacts:
        raise HodynError("contacts carry a floating base: give the root's motion "
                         "(--floating-base)")
    if drives is None:
        return rigid_laws(model, trajectory, order, gravity, data, whole, torques)
    if drives.elastic.any():
        return elastic_laws(model, trajectory, drives, kind, gravity, data)
    return drive_laws(model, trajectory, drives, order, kind, gravity, data)


def limited_series(model: Model, limits: Limits, laws: dict[str, Law]
                   ) -> list[tuple[Quantity, str, np.ndarray, np.ndarray, np.ndarray]]:
    """Per quantity that has a limit on a joint of the series the dynamics give for it (the
    first of ``quantity.series`` in ``laws``): ``(quantity, series, columns, lower, upper)``
    with the columns of the law's limited joints and their bands."""
    out = []
    for quantity in QUANTITIES:
        series = next((s for s in quantity.series if s in laws), None)
        if series is None:
            continue
        names = laws[series].joint_names
        limited = limits.limited(quantity.key)
        cols = np.flatnonzero([limited[model.joint_index(j)] for j in names])
        if cols.size:
            lower, upper = _bands(limits, model, quantity.key, names)
            out.append((quantity, series, cols, lower[cols], upper[cols]))
    return out


def _unit(quantity: Quantity, model: Model, j: int) -> str:
    return quantity.units[model.joint_types[j] == "prismatic"]


@dataclass
class Row:
    """One joint's quantity against its limit: the worst sample (largest
    ``|value - centre| / half-width``), its value, and how many samples are beyond it."""

    quantity: str
    joint: str
    unit: str
    lower: float
    upper: float
    origin: str
    checked: bool = True
    reason: str = ""
    usage: float = -np.inf  # |value - centre| / half-width at the worst sample
    value: float | None = None
    sample: int | None = None
    time: float | None = None
    violations: int = 0

    @property
    def status(self) -> str:
        return "unchecked" if not self.checked else "violated" if self.violations else "ok"

    @property
    def label(self) -> str:
        """The quantity's name in words (``"friction cone"``: :class:`Quantity`'s label)."""
        return next(q.label for q in QUANTITIES + CONTACT_QUANTITIES + (REST_QUANTITY,)
                    if q.key == self.quantity)

    @property
    def margin(self) -> float | None:
        """Room left at the worst sample, % of the half-width (negative: beyond the limit;
        None where it has none: an :data:`REST_QUANTITY`'s band is 0)."""
        if self.value is None or not np.isfinite(self.usage):
            return None
        return 100.0 * (1.0 - self.usage)

    @property
    def limit(self) -> float:
        """The bound the worst sample is nearest to (upper where not known yet)."""
        if self.value is not None and self.value < (self.lower + self.upper) / 2:
            return self.lower
        return self.upper


@dataclass(eq=False, repr=False)
class Envelope:
    """A long series, per joint, reduced to at most ``2 * bins`` (min, max) bins for plots:
    memory stays bounded however long the file."""

    bins: int = 1000
    width: int = 1  # samples per bin
    t: list = field(default_factory=list)
    lo: list = field(default_factory=list)
    hi: list = field(default_factory=list)

    def add(self, t: np.ndarray, values: np.ndarray) -> None:
        starts = np.arange(0, len(t), self.width)
        self.t.append(t[starts])
        self.lo.append(np.minimum.reduceat(values, starts, axis=0))
        self.hi.append(np.maximum.reduceat(values, starts, axis=0))
        if sum(len(x) for x in self.t) > 2 * self.bins:
            t_, lo, hi = self.arrays()
            odd = len(t_) % 2
            lo, hi = (np.concatenate([a, a[-1:]]) if odd else a for a in (lo, hi))
            self.t = [t_[::2]]
            self.lo = [np.minimum(lo[::2], lo[1::2])]
            self.hi = [np.maximum(hi[::2], hi[1::2])]
            self.width *= 2

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(bin start times (B,), minima (B, m), maxima (B, m))."""
        return np.concatenate(self.t), np.concatenate(self.lo), np.concatenate(self.hi)


def _bands(limits: Limits, model: Model, key: str, names) -> tuple[np.ndarray, np.ndarray]:
    idx = [model.joint_index(j) for j in names]
    band = limits.bands[key][idx]
    return band[:, 0], band[:, 1]


class Check:
    """Every limited quantity of a motion against its limit, fed chunk by chunk
    (:meth:`add`); ``rows`` and ``feasible`` at the end. ``envelopes``: keep a plot's worth of
    every checked series (``"<quantity key>/<series>"`` -> :class:`Envelope`). ``contacts``:
    each one's friction cone and sole (:data:`CONTACT_QUANTITIES`) from the laws of its
    wrench (a row each, ``joint`` the contact's name). With limits of :data:`STEPPED`
    quantities, a motion's ends at rest are rows too (:data:`REST_QUANTITY`, last)."""

    #: a value beyond its limit by more than this share of it is a violation (the scaling's)
    tolerance = TOLERANCE

    def __init__(self, model: Model, limits: Limits, envelopes: bool = False,
                 contacts: tuple[Contact, ...] = ()):
        self.model, self.limits, self.contacts = model, limits, contacts
        self._rows: list[Row] = []
        self._ends = RestEnds()
        self.envelopes: dict[str, Envelope] | None = {} if envelopes else None
        self._plan: list[tuple[Quantity, str, list[int], list[Row]]] | None = None
        self._contact_rows: list[tuple[Contact, list[Row]]] = []
        self.n_samples = 0
        self.has_t = False

    def _start(self, laws: dict[str, Law]) -> None:
        """Rows for every (quantity, joint) with a limit, checked where a series has it."""
        model, self._plan = self.model, []
        for quantity in QUANTITIES:
            band = self.limits.bands[quantity.key]
            limited = np.flatnonzero(self.limits.limited(quantity.key)).tolist()
            rows_by_series: dict[str, tuple[list[int], list[Row]]] = {}
            for j in limited:
                name = model.joint_names[j]
                series = next((s for s in quantity.series if s in laws
                               and name in laws[s].joint_names), None)
                if series is None and model.actuated is not None and j not in model.actuated:
                    continue  # a passive joint of closed loops: no torque (the cuts' forces)
                reason = ("" if series else quantity.missing if model.mimic[j, 0] < 0 else
                          "a mimic joint: its leader carries its torque")
                row = Row(quantity.key, name, _unit(quantity, model, j), float(band[j, 0]),
                          float(band[j, 1]), self.limits.origin[quantity.key][j],
                          checked=series is not None, reason=reason)
                self._rows.append(row)
                if series is not None:
                    cols, rows = rows_by_series.setdefault(series, ([], []))
                    cols.append(laws[series].joint_names.index(name))
                    rows.append(row)
            self._plan += [(quantity, s, cols, rows) for s, (cols, rows) in rows_by_series.items()]
        for c in self.contacts:
            cone = cone_angle(c)
            rows = [Row("friction", c.name, "deg", -cone, cone, "file")]
            if c.kind == "surface" and c.sole is not None:  # a surface has its sole
                rows += [Row(key, c.name, "m", -size / 2, size / 2, "file")
                         for key, size in zip(("cop_x", "cop_y"), c.sole, strict=True)]
            self._rows += rows
            self._contact_rows.append((c, rows))

    def add(self, laws: dict[str, Law], t: np.ndarray | None) -> None:
        """The next chunk's laws (and times, if the motion has them)."""
        if self._plan is None:
            self._start(laws)
            self.has_t = t is not None
        start, N = self.n_samples, len(next(iter(laws.values())).coefficients)
        when = t if t is not None else np.arange(start, start + N, dtype=float)
        self._ends.follow(laws, t, start)
        for contact, rows in self._contact_rows:
            self._add_contact(contact, rows, laws[wrench_key(contact)].at(1.0), t, when, start)
        for quantity, series, cols, rows in self._plan or ():
            values = laws[series].at(1.0)[:, cols]
            lower = np.array([r.lower for r in rows])
            upper = np.array([r.upper for r in rows])
            usage = np.abs(values - (lower + upper) / 2) / ((upper - lower) / 2)
            worst = np.argmax(usage, axis=0)
            beyond = (usage > 1 + TOLERANCE).sum(axis=0)
            for c, row in enumerate(rows):
                row.violations += int(beyond[c])
                if usage[worst[c], c] > row.usage:
                    row.usage, row.value = float(usage[worst[c], c]), float(values[worst[c], c])
                    row.sample = start + int(worst[c])
                    row.time = None if t is None else float(t[worst[c]])
            if self.envelopes is not None:
                self.envelopes.setdefault(f"{quantity.key}/{series}", Envelope()).add(
                    when, values)
        self.n_samples += N

    def _add_contact(self, contact: Contact, rows: list[Row], F: np.ndarray, t, when,
                     start: int) -> None:
        """A contact's rows from its wrenches F (N, size) at this speed: the friction angle,
        a sole's centre of pressure (only where it presses: elsewhere the cone fails)."""
        values = [friction_angle(contact, F)]
        if contact.kind == "surface":
            values += list(pressure_centre(contact, F).T)
        for row, v in zip(rows, values, strict=True):
            usage = np.abs(v) / row.upper
            defined = ~np.isnan(usage)
            row.violations += int((usage[defined] > 1 + TOLERANCE).sum())
            if defined.any():
                worst = int(np.argmax(np.where(defined, usage, -np.inf)))
                if usage[worst] > row.usage:
                    row.usage, row.value = float(usage[worst]), float(v[worst])
                    row.sample = start + worst
                    row.time = None if t is None else float(t[worst])
            if self.envelopes is not None:
                self.envelopes.setdefault(f"{row.quantity}/contact/{contact.name}",
                                          Envelope()).add(when, v[:, None])

    @property
    def rows(self) -> list[Row]:
        """A row per (quantity, joint) with a limit; then, for a motion at rest at an end,
        one per joint whose q'' a :data:`STEPPED` limit needs at 0 there (:meth:`_rests`)."""
        return self._rows + self._rests()

    def _rests(self) -> list[Row]:
        """:data:`REST_QUANTITY`'s rows: per joint :func:`held_at_rest` names, its q'' at the
        ends at rest: ok where 0 at each (:mod:`~hodyn_cli.algorithms.limits.rests`), else
        violated at each end it steps at (the value, sample and time: the larger step's)."""
        rests = self._ends.rests()
        origin = held_at_rest(self.model, self.limits)
        if not rests or not origin:
            return []
        stepped = {(end.sample, c) for end, c, _ in self._ends.steps()}
        rows = []
        for c, name in enumerate(self._ends.names):
            if name not in origin or name not in self.model.joint_names:
                continue  # (a multi-DOF joint's coordinate: its limits are not per joint)
            end = max(rests, key=lambda end: abs(end.qdd[c]))
            steps = sum((rest.sample, c) in stepped for rest in rests)
            rows.append(Row(REST_QUANTITY.key, name,
                            _unit(REST_QUANTITY, self.model, self.model.joint_index(name)),
                            0.0, 0.0, origin[name], usage=np.inf if steps else 0.0,
                            value=float(end.qdd[c]), sample=end.sample, time=end.time,
                            violations=steps))
        return rows

    @property
    def feasible(self) -> bool:
        return all(r.status != "violated" for r in self.rows)

    def plotted(self) -> list[tuple[Quantity, list[Row], Envelope]]:
        """Per checked series: the quantity, its rows (one per plotted column) and envelope."""
        if not self.envelopes:
            return []
        out = [(q, rows, self.envelopes[f"{q.key}/{s}"]) for q, s, _, rows in self._plan or ()]
        labels = {q.key: q for q in CONTACT_QUANTITIES}
        for contact, rows in self._contact_rows:
            out += [(labels[r.quantity], [r], self.envelopes[f"{r.quantity}/contact/{contact.name}"])
                    for r in rows]
        return out


@dataclass(frozen=True)
class Binding:
    """What limits a time scaling: the speed-up ``x = 1/k`` at which the quantity of a joint
    reaches its limit at a sample (time ``time``, value there ``value`` at that speed-up)."""

    x: float
    quantity: str
    joint: str
    sample: int
    time: float | None
    value: float
    limit: float

    @property
    def k(self) -> float:
        return 1.0 / self.x if self.x > 0 else np.inf

    def describe(self) -> str:
        when = f"t = {self.time:.6g} s" if self.time is not None else f"sample {self.sample}"
        return f"{self.quantity} of {self.joint} at {when} (limit {self.limit:.6g})"


@dataclass(frozen=True)
class Retiming:
    """A piecewise uniform time scaling: the segment ``s`` between ``bounds[s]`` and
    ``bounds[s+1]`` (times of the input) is played ``k[s]`` times slower; the motion still
    starts at ``bounds[0]``."""

    bounds: tuple[float, ...]
    k: tuple[float, ...]

    def segment(self, t: np.ndarray) -> np.ndarray:
        """(N,) the segment each time plays in (a join belongs to the segment after it)."""
        return np.clip(np.searchsorted(self.bounds[1:-1], t, side="right"), 0, len(self.k) - 1)

    def times(self, t: np.ndarray) -> np.ndarray:
        """The new times of input times t."""
        k, b = np.array(self.k), np.array(self.bounds)
        start = b[0] + np.concatenate([[0.0], np.cumsum(k * np.diff(b))])
        s = self.segment(t)
        return start[s] + k[s] * (t - b[s])

    def speedups(self, t: np.ndarray) -> np.ndarray:
        """(N,) x = 1/k at each input time."""
        return 1.0 / np.array(self.k)[self.segment(t)]

    def played(self, binding: Binding | None) -> Binding | None:
        """The binding with its time in the retimed motion."""
        if binding is None or binding.time is None:
            return binding
        return replace(binding, time=float(self.times(np.array([binding.time]))[0]))


def _moves(trajectory: Trajectory, rows: np.ndarray) -> bool:
    """Some derivative of the motion at ``rows`` is not 0: q's or the floating base's."""
    base = trajectory.base
    return bool(trajectory.derivatives[rows, 1:].any()
                or base is not None and base.Vb[rows].any())


class ScaleSearch:
    """The smallest uniform time scaling k per segment (``joins``: the times between segments)
    that keeps every limited quantity within its limit at every sample, for every slower
    playing too: fed chunk by chunk (:meth:`add`), its per-segment :class:`Binding` in
    ``best``. A join's sample counts in both segments it ends and starts."""

    def __init__(self, model: Model, limits: Limits, joins: tuple[float, ...] = (),
                 contacts: tuple[Contact, ...] = ()):
        if list(joins) != sorted(set(joins)):
            raise HodynError(f"--segments: the times must increase, got {list(joins)}")
        self.model, self.limits, self.joins = model, limits, tuple(joins)
        self.contacts = contacts  # each stays in its cone and on its sole, as it is played
        self.best: list[Binding | None] = [None] * (len(joins) + 1)
        #: per segment: some derivative of the motion (q's, the base's twist) is not 0
        self.moving = [False] * (len(joins) + 1)
        self.n_samples = 0
        self.first_t: float | None = None
        self.last_t: float | None = None
        #: per join: (|t - join|, derivatives (D, m)) of the sample nearest to it
        self.at_joins: list[tuple[float, np.ndarray] | None] = [None] * len(joins)
        self._ends = RestEnds()  # (:meth:`rest_steps`)

    def add(self, laws: dict[str, Law], trajectory: Trajectory) -> None:
        t, start = trajectory.t, self.n_samples
        N = trajectory.n_samples
        if self.joins and t is None:
            raise HodynError("--segments needs a motion with times (a t column)")
        if t is not None:
            self.first_t = t[0] if self.first_t is None else self.first_t
            self.last_t = t[-1]
            self._near_joins(t, trajectory.derivatives)
        self._ends.follow(laws, t, start)
        edges = (-np.inf,) + self.joins + (np.inf,)
        for s in range(len(self.best)):
            rows = (np.arange(N) if t is None
                    else np.flatnonzero((t >= edges[s]) & (t <= edges[s + 1])))
            if rows.size:
                self._segment(s, laws, rows, t, start)
                self.moving[s] = self.moving[s] or _moves(trajectory, rows)
        self.n_samples += N

    def _held_steps(self) -> list[tuple[End, str, float]]:
        """``(end, joint, q'')`` where the motion steps its acceleration at an end at rest, for
        the joints :func:`held_at_rest` names."""
        held = held_at_rest(self.model, self.limits)
        names = self._ends.names
        return [(end, names[c], qdd) for end, c, qdd in self._ends.steps() if names[c] in held]

    def stepping(self) -> tuple[bool, bool]:
        """Whether the motion steps its acceleration at its first and at its last sample, a
        rest (:meth:`rest_steps`' ends)."""
        at = {end.sample for end, _, _ in self._held_steps()}
        last = self._ends.last
        return 0 in at, last is not None and last.sample in at

    def rest_steps(self, ends: tuple[bool, bool] = (True, True)) -> list[str]:
        """Where the motion steps its acceleration at an end at rest (:class:`Check`'s
        :data:`REST_QUANTITY`), for the joints :func:`held_at_rest` names: a text per end
        (of the first, the last as ``ends`` asks). No time scaling removes a step (it scales
        q'' by 1/k^2)."""
        at: dict[int, list[str]] = {}
        for step, name, qdd in self._held_steps():
            at.setdefault(step.sample, []).append(f"{name} {qdd:.4g}")
        first = self._ends.first
        texts = []
        for sample, steps in at.items():
            end = first if first is not None and sample == first.sample else self._ends.last
            assert end is not None
            if not ends[0 if end is first else 1]:
                continue
            when = f"t = {end.time:.6g} s" if end.time is not None else f"sample {sample}"
            how, held_so = (("leaves its rest", "from") if end is first else
                            ("comes to rest", "to"))
            texts.append(f"{how} at {when} with q'' != 0 ({', '.join(steps)}): a step of "
                         f"acceleration {held_so} a robot held still, which no time scaling "
                         "removes (jerk and torque rates unbounded there)")
        return texts

    def _segment(self, s: int, laws: dict[str, Law], rows: np.ndarray, t, start: int) -> None:
        for quantity in QUANTITIES:
            limited = self.limits.limited(quantity.key)
            for series in quantity.series:
                law = laws.get(series)
                if law is None:
                    continue
                lower, upper = _bands(self.limits, self.model, quantity.key, law.joint_names)
                take = np.array([limited[self.model.joint_index(j)] for j in law.joint_names])
                if not take.any():
                    break
                part = law if len(rows) == len(law.coefficients) and take.all() else \
                    law.take(rows, np.flatnonzero(take))  # copied only where a part is taken
                x, row = earliest(part, lower[take], upper[take])
                lower, upper = lower[take], upper[take]
                for c in np.flatnonzero(np.isfinite(x)):
                    best = self.best[s]
                    if best is None or x[c] < best.x:
                        r = rows[row[c]]
                        one = part.take([row[c]], [c])
                        value = float(one.at(x[c])[0, 0])  # at rest (x = 0): the static value
                        self.best[s] = Binding(
                            float(x[c]), quantity.label, part.joint_names[c], start + int(r),
                            None if t is None else float(t[r]), value,
                            float(upper[c] if value >= (lower[c] + upper[c]) / 2 else lower[c]))
                break  # the first series that exists is the quantity's
        for contact in self.contacts:
            self._contact(s, contact, laws[wrench_key(contact)].take(rows, slice(None)), rows,
                          t, start)

    def _contact(self, s: int, contact: Contact, law: Law, rows: np.ndarray, t, start: int
                 ) -> None:
        """Where the contact would leave its cone or sole (or pull), as the motion speeds up:
        the first sign change of each of its conditions."""
        for key, condition in contact_conditions(contact, law).items():
            x, row = earliest_negative(condition)
            for c in np.flatnonzero(np.isfinite(x)):
                best = self.best[s]
                if best is not None and x[c] >= best.x:
                    continue
                r = int(row[c])
                F = law.take([r], slice(None)).at(x[c])
                if key == "pressing":  # the normal force, 0 there
                    value, limit = float(condition.take([r], [c]).at(x[c])[0, 0]), 0.0
                elif key == "cone":
                    value, limit = float(friction_angle(contact, F)[0]), cone_angle(contact)
                else:
                    axis = key == "cop_y"
                    assert contact.sole is not None  # a centre of pressure: a surface's
                    cop = pressure_centre(contact, F)[0, int(axis)]
                    value = float(cop) if np.isfinite(cop) else 0.0
                    limit = (1 if c else -1) * contact.sole[int(axis)] / 2
                self.best[s] = Binding(float(x[c]), CONDITIONS[key], contact.name,
                                       start + int(rows[r]),
                                       None if t is None else float(t[rows[r]]), value, limit)

    def _near_joins(self, t: np.ndarray, derivatives: np.ndarray) -> None:
        for i, join in enumerate(self.joins):
            s = int(np.argmin(np.abs(t - join)))
            gap = abs(t[s] - join)
            near = self.at_joins[i]
            if near is None or gap < near[0]:
                self.at_joins[i] = (gap, derivatives[s].copy())

    def retiming(self) -> Retiming:
        """The per-segment scalings (an error where no time scaling makes the motion feasible,
        or where nothing limits its speed)."""
        for s, best in enumerate(self.best):
            where = f" in segment {s + 1}" if len(self.best) > 1 else ""
            if best is not None and best.x == 0:
                raise Infeasible(f"no time scaling makes the motion feasible{where}: the "
                                 f"{best.describe()} is beyond its limit at any speed "
                                 f"({best.value:.6g})")
            # (whatever limit seems to bind: a law of a still motion is rounding, e.g. a
            # torque acceleration of 4e-14 that played a rest 5e8 times faster)
            if not self.moving[s]:
                raise Unlimited(f"the motion never moves{where}: every derivative of q (and "
                                 "of the floating base) is 0, so no time scaling changes it")
            if best is None:
                raise Unlimited(f"nothing limits the speed{where}: no limit depends on it "
                                 "(give torque, velocity or rate limits)")
        first = self.first_t if self.first_t is not None else 0.0
        last = self.last_t if self.last_t is not None else 0.0
        if self.joins and not first < self.joins[0] <= self.joins[-1] < last:
            raise HodynError(f"--segments: the times must lie inside the motion ({first:.6g} .. "
                             f"{last:.6g} s)")
        return Retiming((first, *self.joins, last),
                        tuple(b.k for b in self.best if b is not None))  # none is: see above

    def jumps(self, retiming: Retiming, rtol: float = 1e-9) -> list[str]:
        """Where the retimed motion's derivatives jump: at a join between segments of
        different k, every derivative the input does not have at rest there."""
        out = []
        for i, near in enumerate(self.at_joins):
            kl, kr = retiming.k[i], retiming.k[i + 1]
            if near is None or kl == kr:
                continue
            values = np.abs(near[1][1:]).max(axis=1)  # per derivative order >= 1
            moving = np.flatnonzero(values > rtol * max(1.0, values.max()))
            if moving.size:
                out.append(f"at t = {self.joins[i]:.6g} s (k {kl:.6g} -> {kr:.6g}) the "
                           f"derivatives of order {', '.join(str(j + 1) for j in moving)} jump "
                           "(the input is not at rest there)")
        return out
