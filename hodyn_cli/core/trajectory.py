"""Joint trajectories: positions and their time derivatives at N samples.

``Trajectory.derivatives`` is ``(N, D, n)``: sample, derivative order (0 = q, 1 = qd,
...), joint. Names follow docs/conventions.md: derivative k of q is ``q`` followed by k ``d``.

>>> traj = cosine(("a", "b"), np.linspace(0, 1, 5), amplitude=[1, 2], omega=[1, 3], orders=4)
>>> traj.derivatives.shape, traj.q.shape, traj.qdddd.shape
((5, 5, 2), (5, 2), (5, 2))
>>> derivative_name("tau", 2)
'taudd'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from math import comb, factorial

import numpy as np
from numpy.typing import ArrayLike

from hodyn_cli.core import lie
from hodyn_cli.errors import TrajectoryError

__all__ = ["Trajectory", "Wrenches", "BaseMotion", "check_base", "cosine", "filtered_step",
           "derivative_name", "rate_name", "taylor", "check_results", "free_body",
           "free_root_motion"]


def derivative_name(base: str, k: int) -> str:
    """Name of the k-th time derivative: ``q, qd, qdd, ...``, ``tau, taud, ...``."""
    return base + "d" * k


def rate_name(name: str, k: int) -> str:
    """Name of the k-th time derivative of a matrix-valued quantity: ``M``, ``M_d``, ``M_dd``
    (``_`` keeps ``C_d`` apart from a quantity called ``Cd``).

    >>> [rate_name("Y", k) for k in range(3)]
    ['Y', 'Y_d', 'Y_dd']
    """
    return name + ("_" + "d" * k if k else "")


def taylor(x: np.ndarray, offsets: np.ndarray, orders: int | None = None) -> np.ndarray:
    """The Taylor polynomials of samples x (N, D, ...) (value and D-1 derivatives each) and
    their derivatives at ``offsets`` (S,) from the sample: (N, S, D, ...); ``orders``: only
    the value and the first ``orders - 1`` derivatives, (N, S, min(orders, D), ...), the
    same numbers as the whole one's (a simulation's right-hand side needs 3 of a file's 7).

    >>> taylor(np.array([[1.0, 2.0, 6.0]]), np.array([0.0, 1.0]))[0].tolist()   # 1 + 2s + 3s^2
    [[1.0, 2.0, 6.0], [6.0, 8.0, 6.0]]
    >>> taylor(np.array([[1.0, 2.0, 6.0]]), np.array([0.0, 1.0]), orders=1)[0].tolist()
    [[1.0], [6.0]]
    >>> e = taylor(np.ones((1, 25)), np.array([1.0]))[0, 0, 0]   # 25 terms of exp(s) at s = 1
    >>> bool(abs(e - np.e) < 1e-14)
    True
    """
    D = x.shape[1]
    M = D if orders is None else max(0, min(orders, D))
    out = np.zeros((x.shape[0], len(offsets), M) + x.shape[2:])
    # term k (x's order m + k into order m) for every order m at once: each order still sums
    # its terms from k = 0 up, one product at a time, as a loop over m then k would (the
    # same bits), in D numpy operations, not D (D + 1) / 2
    for k in range(D):
        width = min(M, D - k)
        if width <= 0:
            break
        # a float: 21! and above exceed int64, which numpy < 2 then divides as objects
        c = (offsets ** k / float(factorial(k))).reshape((1, -1) + (1,) * (x.ndim - 1))
        out[:, :, :width] += c * x[:, None, k:k + width]
    return out


@dataclass(frozen=True, eq=False)
class Wrenches:
    """External wrenches exerted by links on their environment (docs/conventions.md).

    ``W`` maps a link name to ``(N, D, 6)``: sample, derivative order (W, Wd, Wdd, ...),
    (moment; force) in the link's frame, moment about the link frame origin.
    """

    W: dict[str, np.ndarray]

    @property
    def orders(self) -> int:
        """Number of derivative orders present for every link (0 if there are none)."""
        return min((w.shape[1] for w in self.W.values()), default=0)


#: largest ``|R^T R - I|`` entry accepted for a rotation (a base's, a link's target)
ORTHONORMAL_TOL = 1e-6


def check_rotations(R: np.ndarray, name: str, start: int = 0) -> None:
    """Raise a one-line error at the first of the finite (N, 3, 3) ``R`` that is not a
    rotation: not orthonormal (``|R^T R - I| > ORTHONORMAL_TOL``), or a reflection
    (orthonormal with det R = -1: a left-handed frame, e.g. one axis flipped); samples are
    numbered from ``start``.

    >>> check_rotations(np.diag([1.0, 1.0, -1.0])[None], "R", 7)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hodyn_cli.errors.TrajectoryError: R at sample 7 is a reflection, not a rotation (det R = -1: ...)
    """
    with np.errstate(over="ignore", invalid="ignore"):  # huge entries: err = inf, named
        err = np.abs(np.swapaxes(R, 1, 2) @ R - np.eye(3)).max(axis=(1, 2))
        det = np.linalg.det(R) if len(R) else np.zeros(0)
    bad = np.flatnonzero(~(err <= ORTHONORMAL_TOL) | ~(det > 0))
    if not bad.size:
        return
    s = int(bad[0])
    if err[s] <= ORTHONORMAL_TOL:
        raise TrajectoryError(f"{name} at sample {start + s} is a reflection, not a rotation "
                              f"(det {name} = {det[s]:.3g}: a left-handed frame)")
    raise TrajectoryError(f"{name} at sample {start + s} is not a rotation "
                          f"(|{name}^T {name} - I| = {err[s]:.3g})")


def check_base(R: np.ndarray, p: np.ndarray, Vb: np.ndarray, start: int = 0,
               prefix: str = "base_") -> None:
    """Raise a one-line error unless R, p, Vb fit (N, 3, 3), (N, 3), (N, D, 6), are finite and
    every R is a rotation (``|R^T R - I| <= ORTHONORMAL_TOL``, ``det R > 0``); samples are
    numbered from ``start``, the arrays named ``<prefix>R``, ... (a ``--base-motion`` file's
    columns may have no prefix)."""
    N = R.shape[0] if R.ndim == 3 else -1
    if R.shape != (N, 3, 3) or p.shape != (N, 3) or Vb.ndim != 3 or Vb.shape[0] != N \
            or Vb.shape[2] != 6 or Vb.shape[1] < 1:
        raise TrajectoryError(f"base motion: R {R.shape}, p {p.shape}, Vb {Vb.shape} do not "
                              "fit (N, 3, 3), (N, 3), (N, D, 6)")
    for name, a in (("R", R), ("p", p), ("Vb", Vb)):
        bad = np.flatnonzero(~np.isfinite(a).all(axis=tuple(range(1, a.ndim))))
        if bad.size:
            raise TrajectoryError(f"{prefix}{name} is not finite at sample {start + bad[0]}")
    check_rotations(R, f"{prefix}R", start)


@dataclass(frozen=True, eq=False)
class BaseMotion:
    """Motion of a floating root link at N samples.

    Attributes:
        R: (N, 3, 3) orientation of the root link frame in the world.
        p: (N, 3) position of its origin in the world.
        Vb: (N, D, 6) body twist (omega; v) in the root frame and its first D-1 derivatives
            (``Vb``, ``Vbd``, ... as :func:`hodyn_cli.algorithms.motion.kinematics.link_kinematics` gives
            them; :func:`hodyn_cli.algorithms.dynamics.floating.base_from_spatial` from spatial ones).
    """

    R: np.ndarray
    p: np.ndarray
    Vb: np.ndarray

    def __post_init__(self) -> None:
        check_base(self.R, self.p, self.Vb)

    @property
    def n_samples(self) -> int:
        return self.R.shape[0]

    @property
    def orders(self) -> int:
        """Number of twist derivative orders present (2 means Vb, Vbd)."""
        return self.Vb.shape[1]

    def rows(self, sl: slice) -> BaseMotion:
        """The samples ``sl`` (a chunk)."""
        return BaseMotion(self.R[sl], self.p[sl], self.Vb[sl])


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Joint positions and derivatives at N samples, for the model's joints, in its order.

    Attributes:
        joint_names: (n,) joint names, in model order (a model with multi-DOF joints: its
            velocity coordinates, ``Model.dof_names``).
        derivatives: (N, D, n) ``q, qd, qdd, ...`` for D derivative orders (with multi-DOF
            joints: row 0 their configuration coordinates, rows k >= 1 derivative k-1 of
            their velocity coordinates: docs/conventions.md).
        t: (N,) sample times in seconds, or None if the source had none.
        wrenches: external wrenches, or None.
        series: other columns a command asked for, by name: per joint (N, n) (e.g. ``qr_d``,
            the reference velocity of the Slotine-Li regressor), or single (N,) (a contact's
            flag ``contact_<name>``, 1 or 0).
        base: the motion of a floating root link, or None: the root is welded to the world.
    """

    joint_names: tuple[str, ...]
    derivatives: np.ndarray
    t: np.ndarray | None = None
    wrenches: Wrenches | None = None
    series: dict[str, np.ndarray] | None = None
    base: BaseMotion | None = None

    def __post_init__(self) -> None:
        # (the names are compared with a model's tuples: a list given names the same joints)
        if not isinstance(self.joint_names, tuple):
            object.__setattr__(self, "joint_names", tuple(self.joint_names))

    def __getattr__(self, name: str) -> np.ndarray:
        # q, qd, qdd, ... as (N, n) views
        if name.startswith("q") and set(name[1:]) <= {"d"} and len(name) - 1 < self.orders:
            return self.derivatives[:, len(name) - 1, :]
        raise AttributeError(name)

    @property
    def n_samples(self) -> int:
        return self.derivatives.shape[0]

    @property
    def orders(self) -> int:
        """Number of derivative orders present (3 means q, qd, qdd)."""
        return self.derivatives.shape[1]

    def rows(self, sl: slice) -> Trajectory:
        """The samples ``sl`` (a chunk) of everything it has.

        >>> tr = Trajectory(("a",), np.arange(6.0).reshape(3, 2, 1), np.arange(3.0),
        ...                 series={"flag": np.array([1.0, 0.0, 1.0])})
        >>> part = tr.rows(slice(1, 3))
        >>> part.q.ravel().tolist(), part.t.tolist(), part.series["flag"].tolist()
        ([2.0, 4.0], [1.0, 2.0], [0.0, 1.0])
        """
        W, series, base = self.wrenches, self.series, self.base
        return Trajectory(self.joint_names, self.derivatives[sl],
                          None if self.t is None else self.t[sl],
                          None if W is None else Wrenches({k: w[sl] for k, w in W.W.items()}),
                          None if series is None else {k: v[sl] for k, v in series.items()},
                          None if base is None else base.rows(sl))


def free_body(trajectory: Trajectory) -> Trajectory:
    """The motion of a robot without joints (a single free body) with as many empty joint
    derivative orders as its root's motion allows, at least ``base.orders + 1`` (the root's
    twist to its K-th derivative goes with the pose's to the (K+1)-th): no joint derivative
    bounds the orders computed. Any other trajectory, unchanged.

    >>> base = BaseMotion(np.eye(3)[None], np.zeros((1, 3)), np.zeros((1, 4, 6)))
    >>> free_body(Trajectory((), np.zeros((1, 1, 0)), base=base)).orders
    5
    """
    base = trajectory.base
    if trajectory.derivatives.shape[2] or base is None or trajectory.orders > base.orders:
        return trajectory
    return replace(trajectory, derivatives=np.zeros((trajectory.n_samples, base.orders + 1, 0)))


def free_root_motion(trajectory: Trajectory, names: tuple[str, ...]) -> Trajectory:
    """The motion of the robot under its free root joint
    (:func:`~hodyn_cli.core.model.with_free_root`, velocity coordinates ``names``): the
    floating base's pose and body twist jet as that joint's six columns (row 0 its
    configuration ``(r; p)``, ``r = log R``; row k >= 1 ``Vb^(k-1)``: docs/conventions.md), the
    joints' after them, as many orders as both have (:func:`free_body` first); the base
    leaves the trajectory. Without a base, the trajectory.

    >>> base = BaseMotion(np.eye(3)[None], np.ones((1, 3)), np.arange(12.0).reshape(1, 2, 6))
    >>> free = free_root_motion(Trajectory(("j",), np.full((1, 4, 1), 7.0), base=base),
    ...                         ("b1", "b2", "b3", "b4", "b5", "b6", "j"))
    >>> free.derivatives.shape, free.derivatives[0, :, 3].tolist(), free.base
    ((1, 3, 7), [1.0, 3.0, 9.0], None)
    """
    trajectory = free_body(trajectory)
    base = trajectory.base
    if base is None:
        return trajectory
    D = min(trajectory.orders, base.orders + 1)
    root = np.empty((trajectory.n_samples, D, 6))
    root[:, 0, :3], root[:, 0, 3:] = lie.rotation_log(base.R), base.p
    root[:, 1:] = base.Vb[:, : D - 1]
    return replace(trajectory, joint_names=tuple(names),
                   derivatives=np.concatenate([root, trajectory.derivatives[:, :D]], axis=2),
                   base=None)


def check_results(results: dict[str, np.ndarray], motion: Trajectory) -> None:
    """Raise if a result computed from ``motion`` (``results``: name -> (N, ...) arrays, row s
    of sample s) is not finite: the motion's values are too large for float64 there (its
    values were checked finite where they were read). The one line names the result, the
    sample's time and the motion's largest value there.

    >>> traj = Trajectory(("j1",), np.array([[[0.0], [1e300]]]), np.array([0.5]))
    >>> check_results({"tau": np.full((1, 1), np.inf)}, traj)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hodyn_cli.errors.TrajectoryError: result 'tau' overflows float64 at t = 0.5 s: ... qd_j1 = 1e+300)
    """
    if _finite(list(results.values())):  # (the usual case: one pass, then nothing to name)
        return
    for name, value in results.items():
        with np.errstate(over="ignore", invalid="ignore"):
            if np.isfinite(value.sum()):  # fast path: finite only if every value is
                continue
        bad = np.argwhere(~np.isfinite(value))
        if not bad.size:
            continue
        s = int(bad[0][0])
        t = getattr(motion, "t", None)
        largest = ""
        if isinstance(motion, Trajectory):  # (a link's motion, for ik: no joint values)
            name_, value_ = max(_inputs(motion, s), key=lambda c: abs(c[1]),
                                default=(None, 0.0))
            largest = "" if name_ is None else f" (the largest, {name_} = {value_:.6g})"
        raise TrajectoryError(f"result '{name}' overflows float64 at "
                              f"{'a sample' if t is None else f't = {t[s]:.6g} s'}: the inputs "
                              f"there are too large{largest}")


def _finite(values: list[np.ndarray]) -> bool:
    """True where every one of ``values`` is finite (False: maybe not, look at each), by
    one sum (non-finite if any value is) over the memory they lie in: views of one
    C-contiguous array (a motion's orders, a law's grades: rows of one block) as the one
    stretch of it they span where that is at most twice their size, each other value
    alone. A strided view reads the whole cache lines of the rows it takes: the orders of a
    path's probe (programme.path_limits), each summed apart, read its block once each,
    ~1 ns a value against ~0.3 ns once (feasibility.series_laws' check, ~0.6 s of a
    10^5-sample retime, 2.7 * 10^8 values)."""
    groups: dict[int, list[np.ndarray]] = {}
    for value in values:
        if not isinstance(value, np.ndarray):
            return False
        root = value
        while isinstance(root.base, np.ndarray):
            root = root.base
        groups.setdefault(id(root), [root]).append(value)
    with np.errstate(over="ignore", invalid="ignore"):
        for root, *members in groups.values():
            stretch = _stretch(root, members)
            if not all(np.isfinite(part.sum())
                       for part in (members if stretch is None else [stretch])):
                return False
    return True


def _stretch(root: np.ndarray, views: list[np.ndarray]) -> np.ndarray | None:
    """The 1-D stretch of C-contiguous ``root`` from the first to the last element of
    ``views`` (of its memory, its dtype), or None where it is more than twice their size
    or they are not such views (a view whose strides go backwards too: its bounds are
    its lowest and highest addresses)."""
    if not root.flags.c_contiguous or any(v.dtype != root.dtype for v in views):
        return None
    start, size = root.__array_interface__["data"][0], root.itemsize
    lo, hi = np.inf, -np.inf
    for v in views:
        if v.size == 0:
            continue
        first = v.__array_interface__["data"][0] - start
        reach = [(n - 1) * step for n, step in zip(v.shape, v.strides, strict=True)]
        lo = min(lo, first + sum(r for r in reach if r < 0))
        hi = max(hi, first + sum(r for r in reach if r > 0) + size)
    if lo == np.inf:
        return root.reshape(-1)[:0]
    if lo % size or hi % size or hi - lo > 2 * size * sum(v.size for v in views):
        return None
    return root.reshape(-1)[int(lo) // size : int(hi) // size]


def _inputs(motion: Trajectory, s: int) -> Iterator[tuple[str, float]]:
    """(column, value) of every number of ``motion`` at sample ``s``: the joints' q, qd, ...,
    the per-joint series (tau, ...), the wrenches and a floating root's position and twist."""
    names = motion.joint_names
    for k, row in enumerate(motion.derivatives[s]):
        yield from ((f"{derivative_name('q', k)}_{j}", v)
                    for j, v in zip(names, row, strict=False))
    for key, x in (motion.series or {}).items():
        if np.ndim(x) == 2 and x.shape[1] == len(names):
            yield from ((f"{key}_{j}", v) for j, v in zip(names, x[s], strict=False))
    twist = ("wx", "wy", "wz", "vx", "vy", "vz")
    for link, w in (motion.wrenches.W.items() if motion.wrenches else ()):
        for k, row in enumerate(w[s]):
            yield from ((f"{derivative_name('W', k)}_{link}_{c}", v)
                        for c, v in zip(("mx", "my", "mz", "fx", "fy", "fz"), row, strict=True))
    if motion.base is not None:
        yield from ((f"base_p_{c}", v) for c, v in zip("xyz", motion.base.p[s], strict=True))
        for k, row in enumerate(motion.base.Vb[s]):
            yield from ((f"base_{derivative_name('Vb', k)}_{c}", v)
                        for c, v in zip(twist, row, strict=True))


def cosine(
    joint_names: tuple[str, ...] | list[str],
    t: np.ndarray,
    *,
    amplitude: ArrayLike,
    omega: ArrayLike,
    phase: ArrayLike = 0.0,
    offset: ArrayLike = 0.0,
    orders: int = 4,
) -> Trajectory:
    """``q_j(t) = offset_j + amplitude_j cos(omega_j t + phase_j)`` with exact derivatives
    up to order ``orders`` (the cosine motion of Mueller & Kumar, sec. 6.2)."""
    t = np.asarray(t, dtype=float)
    n = len(joint_names)
    a, w, ph, off = (np.broadcast_to(np.asarray(x, dtype=float), (n,)) for x in
                     (amplitude, omega, phase, offset))
    k = np.arange(orders + 1)[:, None]
    arg = w * t[:, None, None] + ph + k * np.pi / 2  # (N, D, n)
    d = a * w ** k * np.cos(arg)
    d[:, 0, :] += off
    return Trajectory(tuple(joint_names), d, t)


def filtered_step(
    joint_names: tuple[str, ...] | list[str],
    t: np.ndarray,
    *,
    step: ArrayLike,
    omega: ArrayLike,
    filter_order: int = 16,
    offset: ArrayLike = 0.0,
    orders: int = 4,
) -> Trajectory:
    """A step of size ``step_j`` at t = 0 through an m-th order critically damped filter
    ``(1 + s/omega)^-m`` (Hoepler & Thuemmel's Fig. 4 motion: m = 16), exact derivatives.

    ``q(t) = offset + step P(m, omega t)`` with the Erlang distribution function
    ``P(m, x) = 1 - exp(-x) sum_{k<m} x^k / k!``, so ``qd`` is ``step`` times the Erlang
    density ``omega^m t^(m-1) exp(-omega t) / (m-1)!`` and every higher derivative follows by
    Leibniz; q is smooth to order m - 1 at t = 0 (all those derivatives start at 0).

    >>> tr = filtered_step(("a",), [0.0, 1.0, 50.0], step=2.0, omega=16.0, orders=3)
    >>> tr.derivatives[0, :, 0].tolist(), round(float(tr.q[2, 0]), 12)
    ([0.0, 0.0, 0.0, 0.0], 2.0)
    """
    t = np.asarray(t, dtype=float)
    n, m = len(joint_names), int(filter_order)
    if m < 1:
        raise ValueError(f"filter_order must be >= 1, got {filter_order}")
    a, w, off = (np.broadcast_to(np.asarray(x, dtype=float), (n,)) for x in (step, omega, offset))
    x = np.clip(t, 0.0, None)[:, None] * w  # (N, n)
    d = np.zeros((t.size, orders + 1, n))
    decay = np.exp(-x)
    d[:, 0] = 1.0 - decay * sum(x**k / factorial(k) for k in range(m))
    for j in range(1, orders + 1):  # d^(j-1)/dt^(j-1) of t^(m-1) exp(-omega t) omega^m/(m-1)!
        acc = np.zeros_like(x)
        for i in range(min(j - 1, m - 1) + 1):
            power = x ** (m - 1 - i) / factorial(m - 1 - i)  # (omega t)^(m-1-i) / (m-1-i)!
            acc += comb(j - 1, i) * power * (-1.0) ** (j - 1 - i)
        d[:, j] = acc * decay * w**j
    d[t < 0] = 0.0
    d *= a
    d[:, 0] += off
    return Trajectory(tuple(joint_names), d, t)
