"""Designed motions with exact derivatives of any order (``hodyn generate``).

Every kind is analytic, so q and its first D derivatives are exact (no differences), and
every kind has defaults that give a sensible motion inside the URDF's position limits (and
velocity limits where given) for any robot; ``seed`` varies them.

* ``cosine``: ``q0 + a cos(omega t + phi)`` per joint (the papers' test motions).
* ``fourier``: finite Fourier series, the excitation trajectories of parameter
  identification (Swevers et al.)::

      q(t) = q0 + sum_l [a_l / (l w_f) sin(l w_f t) - b_l / (l w_f) cos(l w_f t)]

  base frequency ``w_f = 2 pi f``, L harmonics; coefficients from ``seed`` (or given),
  then scaled per joint to use 80 % of its position range and to respect its velocity limit.
* ``excitation``: the ``fourier`` series whose coefficients excite the base parameters best
  (:mod:`hodyn_cli.algorithms.planning.excitation`; designed by
  :func:`hodyn_cli.api.design_motion`, which then generates it as ``fourier``).
* ``filtered-step``: a step through an m-th order critically damped filter
  (:func:`hodyn_cli.core.trajectory.filtered_step`; the elastic-joint paper's Fig. 4, m = 16).
* ``point-to-point``: rest to rest through waypoints: on each segment
  ``q = q_a + (q_b - q_a) s(t / T)`` with the polynomial ``s`` of degree 2k+1 that has
  ``s(0) = 0, s(1) = 1`` and its first k derivatives 0 at both ends (quintic for k = 2,
  septic for k = 3, ...): the first k derivatives vanish at every waypoint; k defaults to D.

A robot with ball, planar or free joints is designed in :class:`Chart` coordinates (a ball
joint's three angles, ...), each moved by the kind as a 1-DOF joint, and carried onto the
joints' groups exactly (:func:`on_the_group`; docs/conventions.md, "Multi-DOF and helical
joints").

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
>>> traj = generate(model, "point-to-point", derivatives=4)
>>> traj.derivatives.shape[1], bool(np.all(traj.derivatives[0, 1:] == 0))
(5, True)
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from dataclasses import dataclass, replace
from math import comb, factorial
from typing import TYPE_CHECKING, Any

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.limits.feasibility import (
    Binding,
    ScaleSearch,
    requirements,
    series_laws,
    torque_order,
)
from hodyn_cli.algorithms.limits.scaling import scaled
from hodyn_cli.core.joint_jets import joint_rows
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, cosine, derivative_name, filtered_step
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.drives import Drives
from hodyn_cli.modeling.limits import Limits

if TYPE_CHECKING:  # (imported where a design is fitted along it: the time-optimal retiming's
    # linear programmes are ~30 ms of a ``hodyn generate``'s start that most designs never run)
    from hodyn_cli.algorithms.limits.optimal import Optimal

__all__ = ["KINDS", "DESIGNED", "generate", "chunks", "seeded", "rest_to_rest", "check_limits",
           "within_limits", "optimal", "Chart", "on_the_group"]

KINDS = ("cosine", "fourier", "filtered-step", "point-to-point")
#: kinds designed before they are generated (:func:`hodyn_cli.api.design_motion` turns an
#: excitation into the fourier series of its optimized coefficients)
DESIGNED = ("excitation",)
#: the options' defaults, in one place: :func:`generate`'s, ``hodyn generate``'s (it passes
#: only the options given) and the designs' (:func:`optimal`, the excitation's)
DEFAULTS: dict[str, Any] = {"rate": 100.0, "derivatives": 4, "seed": 0, "base_frequency": 0.1,
                             "harmonics": 5, "filter_order": 16}
DEFAULT_DURATION = {"cosine": 10.0, "fourier": 10.0, "filtered-step": 2.5,
                    "point-to-point": None}
#: half-range used where a joint has no position limits (rad, or m for prismatic joints)
FREE_HALF_RANGE = {"revolute": 1.0, "continuous": 1.0, "helical": 1.0, "prismatic": 0.1}


def _ranges(model: Model | Chart) -> tuple[np.ndarray, np.ndarray]:
    """(centre, half range) of every joint's position limits (a default where unlimited)."""
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    free = ~(np.isfinite(lo) & np.isfinite(hi))
    lo, hi = np.where(free, 0.0, lo), np.where(free, 0.0, hi)
    centre = (lo + hi) / 2
    half = np.where(free, [FREE_HALF_RANGE[t] for t in model.joint_types], (hi - lo) / 2)
    return centre, half


def _times(rate: float, duration: float, rows: slice) -> np.ndarray:
    """The sample times ``rows`` of a motion of ``duration`` s at ``rate`` Hz (both ends)."""
    return np.arange(*rows.indices(int(round(duration * rate)) + 1)) / rate


def _last_sample(rate: float, duration: float | None, kind: str) -> float:
    """The time of a motion's last sample: ``duration`` (default: the kind's) on the grid of
    ``rate``; an error (the values as given) where either is not positive or the duration
    is shorter than one sample interval."""
    for option, value in (("--rate", rate), ("--duration", duration)):
        if value is not None and not value > 0:
            raise HodynError(f"{option} must be positive, got {float(value)!r}")
    duration = DEFAULT_DURATION[kind] if duration is None else duration
    assert duration is not None  # only point-to-point has none: it is timed by its segments
    T = round(duration * rate) / rate
    if T == 0:
        raise HodynError(f"--duration {float(duration)!r} s is shorter than one sample "
                         f"interval at --rate {float(rate)!r} Hz ({1 / rate:.6g} s)")
    return T


def generate(model: Model, kind: str, **options) -> Trajectory:
    """A motion of ``kind`` with q and its first ``derivatives`` derivatives, exact, of the
    independent joints (``model.coordinate_names``: a ``<mimic>`` joint follows its leader).

    ``options``: ``rate``, ``duration``, ``derivatives``, ``seed``, ``slow`` (the designed
    motion played that many times slower, at the same rate); fourier: ``base_frequency``,
    ``harmonics``, ``coefficients``; filtered-step: ``filter_order``, ``step``;
    point-to-point: ``waypoints`` (rows of the independent joints' positions),
    ``segment_duration``, ``vanishing``. ``rows``: only these samples (a slice; the motion is
    the same, so the chunks of :func:`chunks` are pieces of the whole). ``source``: the
    robot's file, named in errors about its limits.

    The motion stays inside every joint's position limits and velocity limit, a mimic
    follower's too: its leader moves within its own limits intersected with the follower's
    mapped back through the mimic map (:meth:`hodyn_cli.core.coupling.Coupling.limits`).
    """
    rows = options.pop("rows", slice(None))
    if options.get("waypoints") is not None and model.coupling.active:
        options["waypoints"] = model.coupling.phi(
            np.atleast_2d(np.asarray(options["waypoints"], float)))
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named below
        # every joint its own (mimics' dropped below); multi-DOF joints in their charts
        full = _design(Chart.of(model) if model.multi_dof else model, kind, rows, **options)
    _finite(full)
    motion = (on_the_group(model, full) if model.multi_dof else
              Trajectory(model.coordinate_names,
                         full.derivatives[:, :, list(model.coordinates)], full.t))
    # (C-ordered, as a file's reader gives it: the design's is a transposed view, whose other
    # rounding of the algorithms' sums gave a retiming of the motion a duration other than
    # that of its file's)
    return replace(motion, derivatives=np.ascontiguousarray(motion.derivatives))


@dataclass(frozen=True, eq=False, repr=False)
class Chart:
    """The coordinates a model with multi-DOF joints is designed in, one per velocity
    coordinate (named as it): a 1-DOF joint's q; a ball joint's angles ``a_x, a_y, a_z`` of
    ``R = exp(a_x e_x^) exp(a_y e_y^) exp(a_z e_z^)``; a planar joint's ``x, y, theta``; a
    free joint's angles then its position (:mod:`hodyn_cli.core.joint_jets`). Each moves as
    a 1-DOF joint of the kind would (angles as continuous joints, lengths as prismatic ones,
    unlimited), and :func:`on_the_group` carries the motion onto the joints' groups."""

    joint_names: tuple[str, ...]
    joint_types: tuple[str, ...]
    limits: np.ndarray
    velocity_limits: np.ndarray

    @classmethod
    def of(cls, model: Model) -> Chart:
        kinds: list[str] = []
        limits, velocity = [], []
        for i, kind in enumerate(model.joint_types):
            chart = CHART_KINDS.get(kind, (kind,))
            kinds += chart
            bounded = len(chart) == 1  # a multi-DOF joint has no limits (docs/conventions.md)
            limits += [model.limits[i] if bounded else (-np.inf, np.inf)] * len(chart)
            velocity += [model.velocity_limits[i] if bounded else np.inf] * len(chart)
        return cls(model.dof_names, tuple(kinds), np.array(limits, float),
                   np.array(velocity, float))

    @property
    def n(self) -> int:
        return len(self.joint_names)

    def joint_index(self, name: str) -> int:
        return self.joint_names.index(name)


#: the chart coordinates of each multi-DOF joint type, as the 1-DOF joints they move like
CHART_KINDS = {"spherical": ("continuous",) * 3, "planar": ("prismatic", "prismatic", "continuous"),
               "free": ("continuous",) * 3 + ("prismatic",) * 3}


def on_the_group(model: Model, chart: Trajectory) -> Trajectory:
    """The motion designed in :class:`Chart` coordinates as the model's trajectory: each
    multi-DOF joint's rows from its chart's jets (:func:`hodyn_cli.core.joint_jets.joint_rows`,
    exact), a 1-DOF joint's as designed."""
    out = chart.derivatives.copy()
    o = model.dof_offsets
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is named below
        for i, nv in enumerate(model.dofs):
            if nv > 1:
                out[:, :, o[i]:o[i + 1]] = joint_rows(model, i,
                                                       chart.derivatives[:, :, o[i]:o[i + 1]])
    traj = Trajectory(model.dof_names, out, chart.t)
    _finite(traj)
    return traj


def _finite(traj: Trajectory) -> None:
    """An error if a derivative of the designed motion overflows float64 (a motion so fast
    that its high derivatives, ~omega^k, pass 1.8e308), naming the first."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(traj.derivatives.sum()):
            return
    s, k, j = np.argwhere(~np.isfinite(traj.derivatives))[0]
    raise HodynError(f"{derivative_name('q', int(k))}_{traj.joint_names[j]} overflows float64 "
                     f"at {_time(traj, s)}: the motion is too fast for {k} derivatives "
                     "(fewer --derivatives, or a slower motion)")


def chunks(model: Model, kind: str, size: int, **options) -> Iterator[Trajectory]:
    """:func:`generate`'s motion in pieces of ``size`` samples (memory bounded by a piece)."""
    start = 0
    while True:
        piece = generate(model, kind, rows=slice(start, start + size), **options)
        if not piece.n_samples:
            return
        yield piece
        start += size


def _design(model: Model | Chart, kind: str, rows: slice, *, rate: float = DEFAULTS["rate"],
            duration: float | None = None, derivatives: int = DEFAULTS["derivatives"],
            seed: int = DEFAULTS["seed"], base_frequency: float = DEFAULTS["base_frequency"],
            harmonics: int = DEFAULTS["harmonics"], coefficients: dict | None = None,
            filter_order: int = DEFAULTS["filter_order"], step=None, waypoints=None, segment_duration=None,
            vanishing: int | None = None, slow: float = 1.0, source: str | None = None
            ) -> Trajectory:
    if kind in DESIGNED:
        raise HodynError(f"a motion of kind '{kind}' is designed first: "
                         "hodyn_cli.api.design_motion makes it")
    if kind not in KINDS:
        raise HodynError(f"unknown kind '{kind}' (choose from {', '.join(KINDS + DESIGNED)})")
    if derivatives < 0:
        raise HodynError(f"--derivatives must be >= 0, got {derivatives}")
    if isinstance(model, Model) and model.coupling.active:  # the leaders' limits keep
        # every follower inside its own (a chart's joints follow no other)
        position, velocity = model.coupling.limits(model, source)
        model = replace(model, limits=position, velocity_limits=velocity)
    rng = seeded(seed)
    centre, half = _ranges(model)
    if kind == "point-to-point":
        if not rate > 0:
            raise HodynError(f"--rate must be positive, got {float(rate)!r}")
        return _point_to_point(model, rng, centre, half, rate, derivatives, waypoints,
                               segment_duration, derivatives if vanishing is None else vanishing,
                               rows, slow)
    T = _last_sample(rate, duration, kind)  # the design's last sample
    played = _times(rate, slow * T, rows)  # the output's times
    return _played(_timed(model, kind, T, played / slow, rng, centre, half, derivatives,
                          base_frequency, harmonics, coefficients, filter_order, step),
                   slow, played)


def _played(traj: Trajectory, slow: float, t: np.ndarray) -> Trajectory:
    """The motion sampled at ``t / slow`` played ``slow`` times slower: times ``t``."""
    return traj if slow == 1 else scaled(traj, 1.0 / slow, t)


def seeded(seed: int) -> np.random.Generator:
    """The random numbers of ``seed``, a whole number >= 0 (numpy's generator takes no other:
    ``--seed -1`` was an internal error, exit 3).

    >>> seeded(-1)
    Traceback (most recent call last):
    ...
    hodyn_cli.errors.HodynError: --seed must be a whole number >= 0, got -1
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise HodynError(f"--seed must be a whole number >= 0, got {seed!r}")
    return np.random.default_rng(seed)


def _timed(model, kind, T, t, rng, centre, half, derivatives, base_frequency, harmonics,
           coefficients, filter_order, step) -> Trajectory:
    """A motion of a kind defined over time, designed to last ``T`` s, at ``t``."""
    n = model.n
    if kind == "cosine":
        omega = 2 * np.pi * rng.uniform(0.15, 0.4, n)
        amplitude = 0.5 * half
        vmax = np.where(np.isfinite(model.velocity_limits), model.velocity_limits, np.inf)
        amplitude = np.minimum(amplitude, 0.8 * vmax / omega)
        return cosine(model.joint_names, t, amplitude=amplitude, omega=omega,
                      phase=rng.uniform(0, 2 * np.pi, n), offset=centre, orders=derivatives)
    if kind == "fourier":
        return _fourier(model, t, rng, centre, half, derivatives, base_frequency, harmonics,
                        coefficients)
    omega = 2.0 * filter_order / T  # the step's mean time (m / omega) is half the duration
    if step is None:  # 60 % of the range, slow enough for the velocity limit
        m1 = filter_order - 1  # peak rate = size omega p*, p* = max of the Erlang density
        peak = np.exp(m1 * np.log(m1) - m1 - np.sum(np.log(np.arange(1, m1 + 1)))) if m1 else 1.0
        size = np.minimum(0.6 * half, 0.8 * model.velocity_limits / (omega * peak))
    else:
        size = np.asarray(step, float).ravel()
        if size.size not in (1, n):
            raise HodynError(f"--step has {size.size} values: one, or one per coordinate of "
                             f"the motion ({', '.join(model.joint_names)})")
        size = np.broadcast_to(size, (n,))
    return filtered_step(model.joint_names, t, step=size, omega=omega,
                         filter_order=filter_order, offset=centre - size / 2, orders=derivatives)


def _fourier(model, t, rng, centre, half, D, f, L, coefficients) -> Trajectory:
    """Swevers' finite Fourier series, scaled into the position and velocity limits."""
    n = model.n
    if f <= 0 or L < 1:
        raise HodynError(f"--base-frequency must be > 0 and --harmonics >= 1, got {f}, {L}")
    wf = 2 * np.pi * f
    if coefficients is None:
        a, b = rng.normal(size=(2, n, L))
        scale_free = True
    else:
        a, b = _coefficient_arrays(model, coefficients, L)
        scale_free = False
    lw = wf * np.arange(1, L + 1)  # l w_f
    out = np.zeros((len(t), D + 1, n))
    for k in range(D + 1):
        # d^k/dt^k [a/(lw) sin(lw t) - b/(lw) cos(lw t)] = lw^(k-1) [a sin(.) - b cos(.)](+k pi/2)
        arg = np.outer(t, lw)[:, None, :] + k * np.pi / 2  # (N, 1, L)
        out[:, k] = (lw ** (k - 1) * (a[None] * np.sin(arg) - b[None] * np.cos(arg))).sum(-1)
    if scale_free:  # use 80 % of the range, then respect the velocity limit
        period = np.linspace(0, 1 / f, 2001)
        probe = np.zeros((len(period), 2, n))
        for k in range(2):
            arg = np.outer(period, lw)[:, None, :] + k * np.pi / 2
            probe[:, k] = (lw ** (k - 1) * (a[None] * np.sin(arg) - b[None] * np.cos(arg))
                           ).sum(-1)
        s = 0.8 * half / np.abs(probe[:, 0]).max(axis=0)
        vmax = model.velocity_limits
        s = np.minimum(s, np.where(np.isfinite(vmax), 0.8 * vmax, np.inf)
                       / (np.abs(probe[:, 1]).max(axis=0) + 1e-300))
        out *= s  # (pure harmonics: the motion is centred on q0 already)
    out[:, 0] += centre
    return Trajectory(model.joint_names, out, t)


def _coefficient_arrays(model, coefficients: dict, L: int) -> tuple[np.ndarray, np.ndarray]:
    """``{joint: {"a": [...L], "b": [...L]}}`` -> arrays (n, L); missing joints stay at rest."""
    a, b = np.zeros((model.n, L)), np.zeros((model.n, L))
    for name, entry in coefficients.items():
        if name not in model.joint_names:
            if isinstance(model, Chart):  # (a multi-DOF joint's name is not a coordinate)
                raise HodynError(f"coefficients: '{name}' is no coordinate of the motion "
                                 f"(its coordinates: {', '.join(model.joint_names)})")
            raise HodynError(f"coefficients: the model has no joint '{name}'")
        j = model.joint_index(name)
        for key, arr in (("a", a), ("b", b)):
            values = np.asarray(entry.get(key, [0.0] * L), dtype=float)
            if values.shape != (L,):
                raise HodynError(f"coefficients of '{name}': '{key}' needs {L} numbers "
                                 f"(--harmonics), got {values.size}")
            arr[j] = values
    return a, b


def rest_to_rest(k: int) -> np.ndarray:
    """Coefficients (low to high) of the degree 2k+1 polynomial s with s(0) = 0, s(1) = 1 and
    s', ..., s^(k) zero at 0 and 1: ``s(x) = sum_j c_j x^j``.

    It is the regularized incomplete beta function ``I_x(k+1, k+1) =
    sum_{j=k+1}^{n} C(n,j) x^j (1-x)^(n-j)``, n = 2k+1, whose coefficients are integers
    (computed exactly; a linear solve in the monomial basis loses digits for large k).

    >>> rest_to_rest(2).tolist()   # the quintic 10 x^3 - 15 x^4 + 6 x^5
    [0.0, 0.0, 0.0, 10.0, -15.0, 6.0]
    """
    n = 2 * k + 1
    c = [0] * (n + 1)
    for j in range(k + 1, n + 1):
        for i in range(n - j + 1):  # C(n,j) x^j * C(n-j,i) (-x)^i
            c[j + i] += comb(n, j) * comb(n - j, i) * (-1) ** i
    return np.array(c, dtype=float)


def _point_to_point(model, rng, centre, half, rate, D, waypoints, T, k, rows, slow
                    ) -> Trajectory:
    n = model.n
    if waypoints is None:
        waypoints = centre + half * rng.uniform(-0.8, 0.8, size=(3, n))
    waypoints = np.atleast_2d(np.asarray(waypoints, dtype=float))
    if waypoints.shape[1] != n or len(waypoints) < 2:
        raise HodynError(f"waypoints: need at least 2 rows of {n} joint positions, got "
                         f"{waypoints.shape[0]} x {waypoints.shape[1]}")
    c = rest_to_rest(k)
    if T is None:  # 2 s, or longer where the peak rate |dq| max s' / T needs it
        peak = sum(j * cj * 0.5 ** (j - 1) for j, cj in enumerate(c) if j)  # s'(1/2) = max s'
        need = np.abs(np.diff(waypoints, axis=0)) * peak / (0.8 * model.velocity_limits)
        T = np.maximum(2.0, need.max(axis=1))
    durations = np.broadcast_to(np.asarray(T, dtype=float), (len(waypoints) - 1,))
    if np.any(durations <= 0):
        raise HodynError("segment durations must be positive")
    # waypoints on samples: no sampling interval straddles a waypoint, where the derivatives
    # above k jump (checks by time differences, as hodyn validate makes, stay exact)
    durations = np.ceil(durations * slow * rate - 1e-9) / rate
    starts = np.concatenate([[0.0], np.cumsum(durations)])
    t = _times(rate, starts[-1], rows)
    seg = np.clip(np.searchsorted(starts, t, side="right") - 1, 0, len(durations) - 1)
    x = np.clip((t - starts[seg]) / durations[seg], 0.0, 1.0)
    out = np.zeros((len(t), D + 1, n))
    delta = waypoints[seg + 1] - waypoints[seg]  # (N, n)
    for d in range(D + 1):
        sd = sum(c[j] * factorial(j) / factorial(j - d) * x ** (j - d)
                 for j in range(d, len(c)))  # s^(d)(x)
        out[:, d] = delta * (sd / durations[seg] ** d)[:, None]
    out[:, 0] += waypoints[seg]
    return Trajectory(model.joint_names, out, t)


def _time(trajectory: Trajectory, s: int) -> str:
    """Where sample s is, for a message: its time, or its number if the motion has none."""
    return f"sample {s}" if trajectory.t is None else f"t = {trajectory.t[s]:.6g} s"


def check_limits(model: Model, trajectory: Trajectory, source: str | None = None) -> None:
    """One-line error for the first sample of ``trajectory`` (every joint's: mimic joints
    move as their leaders make them) outside a position or velocity limit; ``source``: the
    file the limits come from, named in it. A multi-DOF joint has no limits: its columns
    are passed over."""
    joints = np.array([i for i, nv in enumerate(model.dofs) if nv == 1], int)
    columns = model.dof_offsets[joints]  # (each joint's own column without multi-DOF joints)
    limits = model.limits[joints]
    lo, hi = limits[:, 0], limits[:, 1]
    q = trajectory.derivatives[:, 0, columns]
    tol = 1e-9 * (1 + np.abs(limits).clip(max=1e9))
    for bad, what in ((q < lo - tol[:, 0], "lower"), (q > hi + tol[:, 1], "upper")):
        if bad.any():
            s, j = np.argwhere(bad)[0]
            limit = lo[j] if what == "lower" else hi[j]
            raise HodynError(f"joint '{model.joint_names[joints[j]]}' at "
                             f"{_time(trajectory, s)}: q = {q[s, j]:.6g} is beyond its {what} "
                             f"limit {limit:.6g} (--allow-limit-violation to write it anyway)",
                             source)
    if trajectory.orders > 1:
        qd = np.abs(trajectory.derivatives[:, 1, columns])
        vmax = model.velocity_limits[joints]
        bad = qd > vmax * (1 + 1e-9)
        if bad.any():
            s, j = np.argwhere(bad)[0]
            raise HodynError(f"joint '{model.joint_names[joints[j]]}' at "
                             f"{_time(trajectory, s)}: |qd| = {qd[s, j]:.6g} exceeds its "
                             f"velocity limit {vmax[j]:.6g} (--allow-limit-violation to "
                             "write it anyway)", source)


#: rounds of :func:`within_limits` before it gives up (each plays the motion slower)
ROUNDS = 20


def within_limits(model: Model, kind: str, limits: Limits, *, gravity=GRAVITY,
                  drives: Drives | None = None, elastic_model: str = "full",
                  size: int = 1 << 14, **options) -> tuple[float, Binding | None]:
    """How much slower :func:`generate`'s motion must play so that every limit holds:
    ``(slow, binding)``; ``generate(..., slow=slow)`` (or :func:`chunks`) is the motion.

    The scaling laws of the generated motion give the slowing that brings every limited
    quantity (torques and their rates too, :mod:`hodyn_cli.algorithms.limits.feasibility`) inside its
    limit at its samples; the slower motion is sampled at the same rate, at other instants of
    the design, so it is checked again (and slowed further if need be) until it fits. Each
    round reads the motion in pieces of ``size`` samples. ``binding``: the limit the slowed
    motion is on (None: it was not slowed).
    """
    order = torque_order(limits)
    _, data = backends.prepare(model)   # this request's: every piece's laws share it
    req = requirements(model, drives, order, elastic_model, data)
    need = order + 2 if req is None else req.q_order
    asked = options.pop("derivatives", DEFAULTS["derivatives"])
    slow = 1.0
    for _ in range(ROUNDS):
        search = ScaleSearch(model, limits)
        for piece in chunks(model, kind, size, derivatives=max(asked, need), slow=slow,
                            **options):
            search.add(series_laws(model, model.coupling.expand(piece), order=order,
                                   gravity=gravity, drives=drives, kind=elastic_model, data=data),
                       piece)
        best = search.best[0]
        if best is None or best.x >= 1:
            return slow, best if slow > 1 else None
        search.retiming()  # the error when no slowing helps
        slow /= best.x
    assert best is not None  # ROUNDS > 0, and a round without a binding limit returned
    raise HodynError(f"--respect-limits: the motion still exceeds a limit after {ROUNDS} rounds "
                     f"of slowing ({slow:.6g} times slower): {best.describe()}")


def optimal(model: Model, kind: str, limits: Limits, *, gravity=GRAVITY,
            drives: Drives | None = None, elastic_model: str = "full", size: int = 1 << 14,
            **options) -> tuple[Optimal, Iterator[Trajectory]]:
    """:func:`generate`'s motion played along its path with the fastest time law within
    every limit (:class:`~hodyn_cli.algorithms.limits.optimal.Optimal`; torque rates and
    accelerations, and with rigid ``drives`` the motor limits): ``(optimal, chunks)``, the
    chunks of the retimed motion at the design's ``rate`` with ``derivatives`` derivatives
    (the design is read in pieces of ``size`` samples, three times)."""
    order = torque_order(limits)
    asked = options.pop("derivatives", DEFAULTS["derivatives"])
    if options.get("vanishing") is None and kind == "point-to-point":
        options["vanishing"] = asked  # rest at the waypoints to the orders written

    def design() -> Iterator[Trajectory]:
        return chunks(model, kind, size, derivatives=max(asked, order + 2), **options)

    from hodyn_cli.algorithms.limits.optimal import Optimal

    plan = Optimal(model, limits, order, rate=options.get("rate", DEFAULTS["rate"]),
                   gravity=gravity,
                   drives=drives, kind=elastic_model)
    plan.fit(design)
    return plan, (Trajectory(p.joint_names, p.derivatives[:, : asked + 1], p.t)
                  for p in plan.retimed(design()))
