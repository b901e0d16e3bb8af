"""Time-optimal retiming along the path (``hodyn retime --optimal``): the fastest time law s(t)
along the geometric path of a motion within every limit ``check`` knows, torque rates and
torque accelerations included.

**The path.** The input's time is the path parameter s; its derivative columns are then
``q^[m] = d^m q / ds^m``, and between samples q(s) follows their two-point Hermite
interpolants (:func:`~hodyn_cli.algorithms.limits.jets.hermite`, :func:`_between`). A time
law is ``x(s) = sdot^2 > 0``; played along it the motion has, by the chain rule, ``qd = q'
sqrt(x)``, ``qdd = q'' x + q' x'/2``, ... (:mod:`~hodyn_cli.algorithms.limits.jets`); x = 1
is the input itself.

**Every limited quantity along the path.** With the time law's derivatives ``sigma_k =
s^(k)`` (``sigma_1 = sqrt(x)``, ``sigma_2 = x'/2``, ``sigma_3 = sqrt(x) x''/2``, ``sigma_4 = (x
x''' + x' x''/2)/2``) a quantity of time order j (the power of its scaling law,
:mod:`~hodyn_cli.algorithms.limits.scaling`: tau^(j), taum, current: j; qd, motor speed: 1) is,
at each point of the path, a polynomial in the sigmas whose monomials have the grades of its
law, ``j + 2p`` (sigma_k has grade k): the static part (gravity, friction's offset) grade j,
the inertial and Coriolis part grade j + 2. So, with ``tau = M qdd + C qd + g``::

    tau  = c + b x + a x'/2                                    (a = M q', b = M q'' + C q', c = g)
    taud = sqrt(x) (c' + b' x + (b + a'/2) x' + a x''/2)
    taudd = x'/2 (...) + x (...)'                              (quadratic in x, x', x'', x''')

The coefficients are not derived by hand: at every grid point the dynamics are evaluated
(exactly, by hodyn's inverse dynamics and drive models, :func:`series_laws`) on the motions
that leave the point with the time-law derivatives of :data:`PROBES`, and the monomials'
coefficients are the (exact) solution of that linear system (:func:`path_limits`); friction
``a sigma_1 + c tanh(b sigma_1)`` comes from the law directly.

**The programme** (:func:`solve`). x is a B-spline of degree ``max(5, D - 1)`` with a knot at
every :data:`KNOTS`-th grid point (every output derivative ``q^(D-1)`` exists: x^(D-2) is
continuous), and the time ``T = int ds / sqrt(x)`` is minimised by a sequence of linear
programmes (HiGHS) over its coefficients, the limits imposed at the grid points:

* velocity, torque, motor torque and current without friction (order 0, and qd): linear in
  x, x' as they stand;
* torque rate, motor speed (order 1): ``|L(x, x', x'')| <= R / sqrt(x)`` with L linear; the
  convex ``R / sqrt(x)`` is replaced by its tangent at the current x, which lies below it, so
  every programme's solution is feasible (an inner approximation);
* torque acceleration and friction: linearised at the current x; a step may leave them by
  each of :data:`SLACKS` in turn;
* the objective is T linearised at the current x (``-int (x - x_k) / (2 x_k^(3/2)) ds``)
  plus :data:`ROUGH` times the spline's roughness, in a trust region ``x_k / (1 + rho) <= x <=
  x_k (1 + rho)``, and each step is shortened until T decreases (T is convex: a descent
  method).

It starts from the uniform scaling (``retime --to-limits``: x constant, feasible). The path
speed stays within :data:`CAP` times the uniform one (where the path is at rest, ``q' = 0``,
e.g. the waypoints of a point-to-point motion, no limit bounds it), and the time law's
derivatives within :data:`SMOOTH`'s bounds (smooth on the output's sampling).

**The final check** (:meth:`Optimal.fit`). Between grid points the limits are not imposed, so
the played motion's dynamics are computed afresh at every output sample and the motion is
then scaled uniformly, exactly by its scaling laws, onto its limits (:class:`Fit`): every limit
holds at every output sample, and one is on its limit; where no scaling near 1 fits, it is
planned again for tighter limits, and it is never slower than the uniform scaling.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import combinations_with_replacement

import numpy as np
from scipy import sparse
from scipy.interpolate import BSpline
from scipy.optimize import Bounds, LinearConstraint, milp

from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.limits.feasibility import (
    Binding,
    Quantity,
    ScaleSearch,
    limited_series,
    series_laws,
)
from hodyn_cli.algorithms.limits.jets import compose, hermite, time_rates
from hodyn_cli.algorithms.limits.scaling import TOLERANCE, Law, scaled
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling import mimic
from hodyn_cli.modeling.drives import Drives
from hodyn_cli.modeling.limits import Limits

__all__ = ["GRID", "CAP", "PROBES", "PathGrid", "PathLimit", "path_limits", "TimeLaw", "solve",
           "Plan", "Bound", "Optimal"]

#: the grid keeps between GRID and 2 GRID samples of the input (every 2^i-th, and the last)
GRID = 1000
#: the path speed sdot stays within CAP times the uniform scaling's
CAP = 3.0
#: the time law's derivatives ``|x^(k)| <= 2 x0 (SMOOTH rate / sqrt(x0))^k``, k = 2..4 (x0: the
#: uniform scaling's x; rate: the output's): x changes by ~SMOOTH^k of itself through its k-th
#: derivative within one output sample (no spike of speed between two samples)
SMOOTH = 0.1
#: relative overshoot at grid points of a linearised limit (torque acceleration, friction)
#: that a step may have, in turn (the final check removes what is left)
SLACKS = (1e-2, 1e-3, 1e-4)
#: a knot of the spline at every KNOTS-th grid point (the limits are imposed at every one: more
#: conditions than coefficients keep the spline from bulging between grid points)
KNOTS = 4
#: relative overshoot at grid points of an exact linear limit that a step may have (the
#: solver's feasibility tolerance, relative to the band)
FEASIBLE = 1e-5
#: the final uniform scaling is looked for among the speed-ups 1 +- FIT: first on SPEEDUPS,
#: then by bisection on the samples within NEAR of their band at one of them
FIT = 0.02
SPEEDUPS = np.linspace(1 + FIT, 1 - FIT, 201)
NEAR = 1e-3
#: plans at most: where no uniform speed-up within FIT of 1 fits the played motion, the limits
#: the plan is made for are tightened by twice the excess (at least MARGIN) and it is planned
#: again
ATTEMPTS = 3
MARGIN = 1e-3
#: the path's derivative r between samples comes from the orders r - BELOW .. D-1 there
BELOW = 2
#: weight (times the uniform scaling's x) of the spline's roughness in each programme's
#: objective, against T's (normalised to 1 per coefficient)
ROUGH = 0.1
#: linear programmes at most
ITERATIONS = 60
#: relative decrease of T below which the iteration stops
CONVERGED = 1e-7
#: Gauss-Legendre nodes per grid interval for T = int ds / sqrt(x), and Newton steps for s(t)
NODES, WEIGHTS = np.polynomial.legendre.leggauss(12)
NEWTON = 5
#: time-law derivatives (sigma_1 .. sigma_4) at which the dynamics are probed; the first has
#: sigma_1 = 1 (friction's terms are read there); together they determine every monomial of
#: grade 0 .. 4 (their matrix has full rank, tests/test_optimal.py)
PROBES = np.vstack([[1.0, 0.0, 0.0, 0.0],
                    np.random.default_rng(31).uniform(-1.5, 1.5, (15, 4))])


# -- the path and its limits -------------------------------------------------------------


class PathGrid:
    """Every stride-th sample of a path fed in chunks (:meth:`add`), and its last; the stride
    doubles whenever more than ``2 target`` samples are kept: between ``target`` and ``2
    target`` samples however long the path."""

    def __init__(self, target: int = GRID):
        self.target, self.stride, self.count = target, 1, 0
        self.index = np.zeros(0, dtype=np.int64)
        self.t = np.zeros(0)
        self.rows: np.ndarray | None = None
        self.last: tuple[int, float, np.ndarray] | None = None
        self.names: tuple[str, ...] = ()

    def add(self, chunk: Trajectory) -> None:
        idx = np.arange(self.count, self.count + chunk.n_samples)
        keep = idx % self.stride == 0
        rows = chunk.derivatives[keep]
        self.rows = rows if self.rows is None else np.concatenate([self.rows, rows])
        self.index = np.concatenate([self.index, idx[keep]])
        self.t = np.concatenate([self.t, chunk.t[keep]])
        self.last = (int(idx[-1]), float(chunk.t[-1]), chunk.derivatives[-1])
        self.names = chunk.joint_names
        self.count += chunk.n_samples
        while len(self.index) > 2 * self.target:
            self.stride *= 2
            keep = self.index % self.stride == 0
            self.index, self.t, self.rows = self.index[keep], self.t[keep], self.rows[keep]

    def path(self) -> Trajectory:
        """The kept samples (times t: the path parameter s), the last one included; where every
        sample is kept and there is room, with points of the path halfway between them (by
        :func:`~hodyn_cli.algorithms.limits.jets.hermite`) until ``target`` or more."""
        if self.last is None:
            raise HodynError("the motion has no samples")
        t, rows = self.t, self.rows
        if self.index[-1] != self.last[0]:
            t, rows = np.append(t, self.last[1]), np.concatenate([rows, self.last[2][None]])
        while self.stride == 1 and 1 < len(t) < self.target:
            h = np.diff(t)
            mid = hermite(rows[:-1], rows[1:], h, np.full(len(h), 0.5))
            t = np.insert(t, np.arange(1, len(t)), t[:-1] + h / 2)
            rows = np.insert(rows, np.arange(1, len(rows)), mid, axis=0)
        return Trajectory(self.names, rows, t)


def _partitions(grade: int, largest: int = 4) -> list[tuple[int, ...]]:
    """The monomials ``prod sigma_k`` of a grade: its partitions into parts <= ``largest``."""
    if grade == 0:
        return [()]
    return [p for n in range(1, grade + 1)
            for p in combinations_with_replacement(range(1, largest + 1), n) if sum(p) == grade]


def _sigmas(X: np.ndarray) -> np.ndarray:
    """(E, 4) ``sdot .. s''''`` from (E, 4) ``x, x', x'', x'''`` (complex steps pass through)."""
    x, x1, x2, x3 = X.T
    r = np.sqrt(x)
    return np.stack([r, x1 / 2, r * x2 / 2, (x * x3 + x1 * x2 / 2) / 2], axis=1)


def _monomials(sigma: np.ndarray, monomials) -> np.ndarray:
    """(E, n) the monomials at each row of sigma (E, 4)."""
    out = np.ones((len(sigma), len(monomials)), dtype=sigma.dtype)
    for i, parts in enumerate(monomials):
        for k in parts:
            out[:, i] = out[:, i] * sigma[:, k - 1]
    return out


@dataclass(frozen=True, eq=False)
class PathLimit:
    """One limited series along the path, its joints' values at the grid points as polynomials
    in the time law's derivatives: ``sum_i coefficients[g, j, i] monomials[i](sigma) + a sigma_1
    + c tanh(b sigma_1)`` (``friction`` (a, c, b), or None) within ``lower .. upper``."""

    quantity: Quantity
    series: str
    joints: tuple[str, ...]
    lower: np.ndarray
    upper: np.ndarray
    power: int
    monomials: tuple[tuple[int, ...], ...]
    coefficients: np.ndarray  # (M, m, monomials)
    friction: np.ndarray | None = None  # (M, m, 3)

    @property
    def kind(self) -> str:
        """``affine`` (exactly linear in x, x'), ``rate`` (sqrt(x) times linear: the inner
        tangent) or ``linear`` (linearised)."""
        if self.friction is None and self.power == 0:
            return "affine"
        if self.friction is None and self.power == 1 and np.all(self.lower == -self.upper):
            return "rate"
        return "linear"

    def values(self, X: np.ndarray) -> np.ndarray:
        """(M, m) the values at the grid points for ``x, x', x'', x'''`` there (M, 4)."""
        sigma = _sigmas(X)
        v = np.einsum("gi,gji->gj", _monomials(sigma, self.monomials), self.coefficients)
        if self.friction is not None:
            a, c, b = np.moveaxis(self.friction, -1, 0)
            r = sigma[:, :1]
            v = v + a * r + c * np.tanh(b * r)
        return v

    def usage(self, X: np.ndarray) -> float:
        """The largest ``|value - centre| / half-width`` at the grid points."""
        centre, half = (self.lower + self.upper) / 2, (self.upper - self.lower) / 2
        return float((np.abs(self.values(X) - centre) / half).max())

    def linear(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(F, G)``: F (M, m) the values (divided by sqrt(x) for a ``rate``) and G (M, m, 4)
        their gradient in ``x, x', x'', x'''`` (complex steps: exact)."""
        def f(Y):
            v = self.values(Y)
            return v / np.sqrt(Y[:, :1]) if self.kind == "rate" else v

        step = 1e-30
        G = np.stack([f(X + 1j * step * np.eye(4)[d]).imag / step for d in range(4)], axis=-1)
        return f(X.astype(complex)).real, G


def path_limits(model: Model, grid: Trajectory, limits: Limits, order: int, *,
                gravity=GRAVITY, drives: Drives | None = None, kind: str = "full"
                ) -> list[PathLimit]:
    """Every speed-dependent limited series at the samples of ``grid`` (the path: its times
    are s, its derivatives by s) as polynomials in the time law's derivatives: the dynamics
    of the motions that leave each sample with the time-law derivatives of :data:`PROBES`
    (rigid to torque order ``order``, or with rigid ``drives``), fitted monomial by monomial."""
    full = mimic.expand(model, grid)
    q = full.derivatives[:, : order + 3]
    probes = []
    for sigma in PROBES:
        jet = compose(q, np.broadcast_to(sigma[: order + 2], (len(q), order + 2)))
        probes.append(series_laws(model, Trajectory(full.joint_names, jet), order=order,
                                  gravity=gravity, drives=drives, kind=kind))
    out = []
    for quantity, series, cols, lower, upper in limited_series(model, limits, probes[0]):
        law: Law = probes[0][series]
        if quantity.key == "position":
            continue
        monomials = tuple(m for p in range(law.coefficients.shape[-1])
                          for m in _partitions(law.power + 2 * p))
        A = _monomials(PROBES, monomials)
        V = np.stack([replace(p[series], friction=None).at(1.0)[:, cols] for p in probes])
        coef = np.linalg.lstsq(A, V.reshape(len(PROBES), -1), rcond=None)[0]
        out.append(PathLimit(quantity, series, tuple(law.joint_names[c] for c in cols), lower,
                             upper, law.power, monomials,
                             np.moveaxis(coef.reshape((len(monomials),) + V.shape[1:]), 0, -1),
                             None if law.friction is None else law.friction[:, cols]))
    return out


# -- the time law ------------------------------------------------------------------------


def _design(knots: np.ndarray, degree: int, s: np.ndarray, nu: int) -> sparse.csr_matrix:
    """(len(s), coefficients) sparse: the nu-th derivative of the B-spline at s, linear in its
    coefficients (a derivative is the spline of degree - 1 on the inner knots whose
    coefficients are the scaled differences ``p (c_(i+1) - c_i) / (t_(i+p+1) - t_(i+1))``)."""
    if nu == 0:
        return BSpline.design_matrix(s, knots, degree).tocsr()
    n = len(knots) - degree - 1
    span = knots[degree + 1 : degree + n] - knots[1:n]
    diff = sparse.diags([-degree / span, degree / span], [0, 1], shape=(n - 1, n))
    return (_design(knots[1:-1], degree - 1, s, nu - 1) @ diff).tocsr()


@dataclass(frozen=True, eq=False)
class TimeLaw:
    """``x(s) = sdot^2``, a B-spline on the grid ``breaks``; ``times``: t at each break."""

    breaks: np.ndarray
    coefficients: np.ndarray
    degree: int

    @property
    def knots(self) -> np.ndarray:
        b, p = self.breaks, self.degree
        return np.concatenate([np.full(p, b[0]), b, np.full(p, b[-1])])

    @property
    def spline(self) -> BSpline:
        return BSpline(self.knots, self.coefficients, self.degree, extrapolate=False)

    def _elapsed(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``int_a^b ds / sqrt(x)`` for a <= b inside one grid interval each (Gauss-Legendre)."""
        mid, half = (a + b) / 2, (b - a) / 2
        x = self.spline(mid[:, None] + half[:, None] * NODES)
        return half * (WEIGHTS / np.sqrt(x)).sum(axis=1)

    @property
    def times(self) -> np.ndarray:
        b = self.breaks
        return np.concatenate([[0.0], np.cumsum(self._elapsed(b[:-1], b[1:]))])

    def time_at(self, s: np.ndarray, times: np.ndarray | None = None) -> np.ndarray:
        """t(s) (``times``: :attr:`times`, if already known)."""
        times = self.times if times is None else times
        i = np.clip(np.searchsorted(self.breaks, s, side="right") - 1, 0, len(self.breaks) - 2)
        return times[i] + self._elapsed(self.breaks[i], s)

    def s_at(self, t: np.ndarray, times: np.ndarray | None = None) -> np.ndarray:
        """s(t): Newton's method on t(s) inside each sample's grid interval (dt/ds =
        1/sqrt(x)), safeguarded to the interval."""
        times = self.times if times is None else times
        b = self.breaks
        i = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(b) - 2)
        lo, hi = b[i], b[i + 1]
        s = np.clip(lo + (t - times[i]) * np.sqrt(self.spline(lo)), lo, hi)
        for _ in range(NEWTON):
            s = np.clip(s - (times[i] + self._elapsed(lo, s) - t) * np.sqrt(self.spline(s)),
                        lo, hi)
        return s

    def rates(self, s: np.ndarray, K: int) -> np.ndarray:
        """(E, K) ``sdot .. s^(K)`` at s."""
        spline = self.spline
        return time_rates(np.stack([spline(s, nu) for nu in range(K)], axis=1))


def _duration(law: TimeLaw) -> float:
    return float(law.times[-1])


def solve(s: np.ndarray, limits: list[PathLimit], x0: float, degree: int, rate: float
          ) -> TimeLaw:
    """The time law of least duration on the grid s within ``limits`` at the grid points,
    from the feasible constant ``x0`` (module docstring: linear programmes, inner tangents of
    the rate limits, a trust region, T decreasing). Linearised limits may overshoot by each
    of :data:`SLACKS` in turn: a step from beyond the next one back within it is taken even
    where T grows. The time law's derivatives stay within :data:`SMOOTH`'s bounds (``rate``:
    the output's samples per second)."""
    breaks = np.append(s[:-1:KNOTS], s[-1])
    law = TimeLaw(breaks, np.full(len(breaks) + degree - 1, x0), degree)
    D = [_design(law.knots, degree, s, nu) for nu in range(4)]
    weights = np.gradient(s) if len(s) > 1 else np.ones(1)  # trapezoid weights of int ds
    floor, cap = x0 * 1e-8, x0 * CAP**2
    exact = [lim for lim in limits if lim.kind != "linear"]
    linear = [lim for lim in limits if lim.kind == "linear"]

    def grid(c):
        return np.stack([Dn @ c for Dn in D], axis=1)

    def excess(c) -> float:
        """How far the linearised limits are beyond their bands (inf: an exact one is)."""
        X = grid(c)
        if X[:, 0].min() <= 0 or any(lim.usage(X) > 1 + FEASIBLE for lim in exact):
            return np.inf
        return max([lim.usage(X) - 1 for lim in linear], default=0.0)

    # |x^(k)| <= 2 x0 (SMOOTH rate / sqrt(x0))^k, k = 2..4: a time law smooth on the output's
    # sampling (the LP's solutions chatter in the highest derivative the limits hold)
    smooth = [_design(law.knots, degree, s, nu) for nu in (2, 3, 4)]
    bend = np.concatenate([np.full(len(s), 2 * x0 * (SMOOTH * rate / np.sqrt(x0)) ** k)
                           for k in (2, 3, 4)])
    smooth_rows = sparse.vstack(smooth).tocsr()
    T, rho = _duration(law), 1.0
    for slack in SLACKS if linear else SLACKS[-1:]:
        beyond = excess(law.coefficients) > slack
        for _ in range(ITERATIONS):
            c = law.coefficients
            X = grid(c)
            A, lb, ub = _programme(limits, X, D)
            A = sparse.vstack([A, smooth_rows]).tocsr()
            lb, ub = np.append(lb, -bend), np.append(ub, bend)
            objective = -(D[0].T @ (weights / (2 * X[:, 0] ** 1.5)))
            bounds = Bounds(np.maximum(floor, c / (1 + rho)), np.minimum(cap, c * (1 + rho)))
            x = _smooth_programme(objective / np.abs(objective).max(), bounds, A, lb, ub, c,
                                  ROUGH / x0)
            for alpha in (1.0, 0.5, 0.25, 0.125) if x is not None else ():
                trial = replace(law, coefficients=c + alpha * (x - c))
                if excess(trial.coefficients) <= slack and (
                        beyond or (Tn := _duration(trial)) < T):
                    break
            else:
                rho /= 4
                if rho < 1e-4:
                    break
                continue
            Tn = _duration(trial)
            law, gain, T, beyond = trial, T - Tn, Tn, False
            rho = min(2 * rho, 8.0) if alpha == 1 else rho
            if 0 <= gain < CONVERGED * T:
                break
    return law


#: rows of the programme first imposed: those within this (of their band's half-width) of a
#: bound at the current x; the rows the solution violates are added until it violates none
NEAR = 0.5


def _smooth_programme(objective, bounds, A, lb, ub, c, weight) -> np.ndarray | None:
    """:func:`_linear_programme` with ``weight sum_j |third difference of c|_j`` added to the
    objective (auxiliary ``e_j >= |(Delta^3 c)_j|``): the vertex solutions of a programme
    chatter where nothing else decides, this keeps the spline calm there."""
    n = len(c)
    diff = sparse.diags([-1.0, 3.0, -3.0, 1.0], [0, 1, 2, 3], shape=(n - 3, n))
    eye = sparse.identity(n - 3)
    A = sparse.vstack([sparse.hstack([A, sparse.csr_matrix((A.shape[0], n - 3))]),
                       sparse.hstack([diff, -eye]), sparse.hstack([-diff, -eye])]).tocsr()
    lb = np.concatenate([lb, np.full(2 * (n - 3), -np.inf)])
    ub = np.concatenate([ub, np.zeros(2 * (n - 3))])
    z = np.concatenate([c, np.abs(diff @ c)])
    bounds = Bounds(np.concatenate([bounds.lb, np.zeros(n - 3)]),
                    np.concatenate([bounds.ub, np.full(n - 3, np.inf)]))
    x = _linear_programme(np.concatenate([objective, np.full(n - 3, weight)]), bounds, A, lb,
                          ub, A @ z)
    return None if x is None else x[:n]


def _linear_programme(objective, bounds, A, lb, ub, now) -> np.ndarray | None:
    """``min objective . c`` with ``lb <= A c <= ub`` within ``bounds`` (HiGHS), by row
    generation: most rows are far from their bounds (``now``: A c at the current c)."""
    rows = (now - lb < NEAR) | (ub - now < NEAR)
    for _ in range(8):
        res = milp(objective, bounds=bounds,
                   constraints=LinearConstraint(A[rows], lb[rows], ub[rows]))
        if res.x is None:
            return None
        v = A @ res.x
        broken = ~rows & ((v < lb - 1e-9) | (v > ub + 1e-9))
        if not broken.any():
            return res.x
        rows |= broken
    return None


def _programme(limits: list[PathLimit], X: np.ndarray, D: list) -> tuple:
    """The linear constraints ``lb <= A c <= ub`` on the spline coefficients, each row scaled
    by its limit's half-width."""
    rows, lbs, ubs = [], [], []
    x = X[:, 0]
    for lim in limits:
        F, G = lim.linear(X)
        const = F - np.einsum("gjd,gd->gj", G, X)
        half = (lim.upper - lim.lower) / 2
        for j in range(len(lim.joints)):
            A = sum(sparse.diags(G[:, j, d]) @ D[d] for d in range(4) if np.any(G[:, j, d]))
            if lim.kind == "rate":  # |L| <= R (1.5 x_k^-1/2 - 0.5 x_k^-3/2 x): the tangent
                R = lim.upper[j]
                slope = sparse.diags(0.5 * R * x**-1.5) @ D[0]
                top = 1.5 * R * x**-0.5
                rows += [(A + slope) / R, (A - slope) / R]
                lbs += [np.full(len(x), -np.inf), (-top - const[:, j]) / R]
                ubs += [(top - const[:, j]) / R, np.full(len(x), np.inf)]
            else:
                rows.append(A / half[j])
                lbs.append((lim.lower[j] - const[:, j]) / half[j])
                ubs.append((lim.upper[j] - const[:, j]) / half[j])
    return sparse.vstack(rows).tocsr(), np.concatenate(lbs), np.concatenate(ubs)


# -- the retimed motion ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Plan:
    """A time law along a path: the motion played along it starts at ``t0`` and is sampled at
    ``samples + 1`` equally spaced times over its ``duration``; ``uniform``: the uniform
    scaling's binding (its k: ``retime --to-limits``); ``span``: the input's duration."""

    law: TimeLaw
    t0: float
    samples: int
    uniform: Binding
    span: float
    grid: int

    @property
    def duration(self) -> float:
        return _duration(self.law)

    def played(self, chunks: Iterable[Trajectory]) -> Iterator[Trajectory]:
        """The motion along the law, chunk by chunk of the path (``chunks``: the input once
        more): at each output time s(t), q(s) and its s-derivatives by Hermite interpolation
        between the input samples around it, then the chain rule."""
        law, times = self.law, self.law.times
        dt = self.duration / self.samples
        done, carry = 0, None
        chunks = iter(chunks)
        chunk = next(chunks, None)
        while chunk is not None:
            after = next(chunks, None)
            path = chunk if carry is None else _joined(carry, chunk)
            carry = _row(chunk, -1)
            if path.n_samples < 2:
                chunk = after
                continue
            if after is None:
                end = self.samples + 1
            else:
                end = int(np.ceil(law.time_at(path.t[-1:], times)[0] / dt - 1e-9))
                end = min(max(end, done), self.samples + 1)
            t = np.arange(done, end) * dt
            if t.size:
                yield self._piece(path, np.clip(law.s_at(t, times), path.t[0], path.t[-1]),
                                  self.t0 + t)
            done, chunk = end, after

    def _piece(self, path: Trajectory, s: np.ndarray, t: np.ndarray) -> Trajectory:
        """The played motion at times t (path parameters s); ``series["s"]``: s (N, 1)."""
        q = _between(path, s)
        K = path.orders - 1
        return Trajectory(path.joint_names,
                          compose(q, self.law.rates(s, K)) if K else q, t, series={"s": s[:, None]})


def _between(path: Trajectory, s: np.ndarray) -> np.ndarray:
    """(E, D, m) ``q^[r](s)`` between the samples of ``path`` (its times: s): each order r as
    the derivative of the Hermite interpolant of the orders from r - :data:`BELOW` to D-1 the
    samples give. (The interpolant of all of them has the same derivatives up to its error,
    but takes q^[r] from differences of the positions over h^r: 1e-14 of rounding in q
    becomes ~1e-2 in q^[4] at h = 10 ms; from BELOW orders down, it stays ~1e-10.)"""
    i = np.clip(np.searchsorted(path.t, s, side="right") - 1, 0, path.n_samples - 2)
    h = path.t[i + 1] - path.t[i]
    u = (s - path.t[i]) / h
    left, right = path.derivatives[i], path.derivatives[i + 1]
    low = [max(0, r - BELOW) for r in range(path.orders)]
    return np.stack([hermite(left[:, a:], right[:, a:], h, u, r - a)
                     for r, a in enumerate(low)], axis=1)


def _row(chunk: Trajectory, i: int) -> Trajectory:
    return Trajectory(chunk.joint_names, chunk.derivatives[i : i + 1 or None],
                      chunk.t[i : i + 1 or None])


def _joined(a: Trajectory, b: Trajectory) -> Trajectory:
    return Trajectory(b.joint_names, np.concatenate([a.derivatives, b.derivatives]),
                      np.concatenate([a.t, b.t]))


#: a sample counts as on its limit within this fraction of the band's half-width
ON_LIMIT = 1e-2


class Bound:
    """Where a motion is on its limits (within :data:`ON_LIMIT`), fed chunk by chunk: per
    (quantity label, joint) the time intervals, and their share of the duration."""

    def __init__(self, model: Model, limits: Limits):
        self.model, self.limits = model, limits
        self.intervals: dict[tuple[str, str], list[list[float]]] = {}
        self.t_first: float | None = None
        self.t_last = 0.0
        self._open: dict[tuple[str, str], bool] = {}

    def add(self, laws: dict[str, Law], t: np.ndarray) -> None:
        self.t_first = float(t[0]) if self.t_first is None else self.t_first
        for quantity, series, cols, lower, upper in limited_series(self.model, self.limits,
                                                                     laws):
            law = laws[series]
            usage = np.abs(law.at(1.0)[:, cols] - (lower + upper) / 2) / ((upper - lower) / 2)
            for c, on in zip(cols, (usage >= 1 - ON_LIMIT).T, strict=True):
                key = (quantity.label, law.joint_names[c])
                spans = self.intervals.setdefault(key, [])
                before = np.concatenate([[self._open.get(key, False)], on[:-1]])
                starts = np.flatnonzero(on & ~before)
                ends = np.flatnonzero(on & ~np.append(on[1:], False))
                if on[0] and before[0]:  # a run that goes on from the previous chunk
                    spans[-1][1], ends = float(t[ends[0]]), ends[1:]
                spans += [[float(t[a]), float(t[b])] for a, b in zip(starts, ends, strict=True)]
                self._open[key] = bool(on[-1])
        self.t_last = float(t[-1])

    def describe(self, most: int = 4) -> list[str]:
        """``"<quantity> of <joint>: a-b s, ... (x % of the time)"`` per bound limit, those
        bound longest first."""
        total = max(self.t_last - (self.t_first or 0.0), 1e-300)
        bound = [(sum(b - a for a, b in v), k, v) for k, v in self.intervals.items() if v]
        out = []
        for share, (label, joint), spans in sorted(bound, key=lambda e: -e[0]):
            where = ", ".join(f"{a:.4g}-{b:.4g} s" if b > a else f"{a:.4g} s"
                              for a, b in spans[:most])
            more = f" and {len(spans) - most} more" if len(spans) > most else ""
            out.append(f"{label} of {joint}: {where}{more} ({100 * share / total:.3g} % of "
                       "the time)")
        return out


class Fit:
    """The largest uniform speed-up x within ``1 +- FIT`` at which every sample of a motion fed
    chunk by chunk (:meth:`add`: its laws) is inside its band. Per chunk, the largest usage
    at each of :data:`SPEEDUPS` (of the samples whose majorant ``|a_0 - centre| + sum_i |a_i|
    X^i + |a| X + |c|``, X = 1 + FIT, reaches the band: the others are inside at every such
    x), and the laws of the samples within :data:`NEAR` of their band at one of them (a usage
    moves by less between two of them). :meth:`solve`: the largest of them that fits, then
    bisection to the boundary on the kept samples (every sample inside there, one on its
    limit to rounding). Memory: the kept samples' few coefficients."""

    def __init__(self):
        self.curve = np.full(len(SPEEDUPS), -np.inf)
        self.kept: list[tuple] = []

    def add(self, laws: dict[str, Law], limited: list, t: np.ndarray, start: int) -> None:
        top = SPEEDUPS[0]
        for quantity, series, cols, lower, upper in limited:
            law = laws[series].take(slice(None), cols)
            c = law.coefficients
            dense = np.zeros(c.shape[:2] + (law.power + 2 * c.shape[-1] - 1,))
            dense[..., law.power::2] = c
            f = law.friction if law.friction is not None else np.zeros(c.shape[:2] + (3,))
            centre, half = (lower + upper) / 2, (upper - lower) / 2
            reach = np.abs(dense[..., 0] - centre) + np.abs(f[..., 0]) * top + np.abs(f[..., 1])
            reach += (np.abs(dense[..., 1:]) * top ** np.arange(1, dense.shape[-1])).sum(axis=-1)
            rows, j = np.nonzero(reach >= half)
            if not rows.size:
                continue
            group = (dense[rows, j], f[rows, j], centre[j], half[j], lower[j], upper[j])
            usage = _usage(group, SPEEDUPS)
            self.curve = np.maximum(self.curve, usage.max(axis=0))
            near = usage.max(axis=1) >= 1 - NEAR
            if near.any():
                self.kept.append(tuple(a[near] for a in group) + (
                    quantity.label, np.array(law.joint_names)[j[near]], start + rows[near],
                    t[rows[near]]))

    def _worst(self, x: float) -> tuple[float, tuple[int, int]]:
        """The largest usage of the kept samples at x, and (group, row) of it."""
        worst, where = -np.inf, (0, 0)
        for g, group in enumerate(self.kept):
            usage = _usage(group[:6], np.array([x]))[:, 0]
            if usage.max() > worst:
                worst, where = float(usage.max()), (g, int(np.argmax(usage)))
        return worst, where

    def excess(self) -> float:
        """How far the worst sample is beyond its band at x = 1 (of the half-width)."""
        return max(self._worst(1.0)[0] - 1, 0.0)

    def solve(self) -> Binding | None:
        """The binding at the largest x that fits, or None (none does within 1 +- FIT)."""
        fits = self.curve <= 1 + TOLERANCE / 10
        if not self.kept or not fits.any():
            return None
        g = int(np.argmax(fits))
        lo, hi = SPEEDUPS[g], SPEEDUPS[max(g - 1, 0)]
        for _ in range(60 if g else 0):  # lo fits, hi does not
            mid = (lo + hi) / 2
            if self._worst(mid)[0] <= 1 + TOLERANCE / 10:
                lo = mid
            else:
                hi = mid
        _, (k, r) = self._worst(lo)
        dense, f, centre, half, lower, upper, label, joints, samples, times = self.kept[k]
        value = float(np.polyval(dense[r, ::-1], lo) + f[r, 0] * lo + f[r, 1] * np.tanh(
            f[r, 2] * lo))
        return Binding(float(lo), label, str(joints[r]), int(samples[r]), float(times[r]),
                       value, float(upper[r] if value >= centre[r] else lower[r]))


def _usage(group: tuple, x: np.ndarray) -> np.ndarray:
    """(K, G) ``|v(x) - centre| / half`` of K samples' laws (dense polynomials, friction
    terms, centres, half-widths) at G speed-ups, in blocks (memory: a block's)."""
    dense, f, centre, half = group[:4]
    out = np.empty((len(dense), len(x)))
    powers = x[None] ** np.arange(dense.shape[1])[:, None]
    for a in range(0, len(dense), 4096):
        b = slice(a, a + 4096)
        v = dense[b] @ powers + f[b, :1] * x + f[b, 1:2] * np.tanh(f[b, 2:3] * x)
        out[b] = np.abs(v - centre[b, None]) / half[b, None]
    return out


class Optimal:
    """The time-optimal retiming of a motion's path within ``limits`` (torque order
    ``order``; rigid, or with rigid ``drives``), in three passes over the motion (each an
    iterable of chunks over the independent joints, with times): :meth:`plan` (the uniform
    scaling, the grid, the time law), :meth:`fit` (the played motion's own dynamics at every
    output sample, and the exact uniform scaling onto its limits), :meth:`retimed` (the
    motion, chunk by chunk, and where it is on its limits: :attr:`bound`)."""

    def __init__(self, model: Model, limits: Limits, order: int, *, rate: float | None = None,
                 grid: int = GRID, gravity=GRAVITY, drives: Drives | None = None,
                 kind: str = "full"):
        if drives is not None and drives.elastic.any():
            raise HodynError("--optimal does not take series-elastic drives yet (their torques "
                             "depend on many derivatives of the time law): use --to-limits")
        self.model, self.limits, self.order, self.rate, self.grid = model, limits, order, rate, grid
        self.dynamics = dict(order=order, gravity=gravity, drives=drives, kind=kind)
        self.path: Plan | None = None
        self.final: Binding | None = None
        self.bound = Bound(model, limits)
        self.orders = 0
        self.samples_per_second = 0.0

    def _laws(self, chunk: Trajectory) -> dict[str, Law]:
        return series_laws(self.model, mimic.expand(self.model, chunk), **self.dynamics)

    def plan(self, chunks: Iterable[Trajectory], limits: Limits | None = None) -> Plan:
        """The fastest time law along the path within the limits (or ``limits``) at the grid
        points: the uniform scaling first (its k, and the grid's samples), then
        :func:`solve`."""
        limits = self.limits if limits is None else limits
        search, collected = ScaleSearch(self.model, limits), PathGrid(self.grid)
        for chunk in chunks:
            if chunk.t is None:
                raise HodynError("--optimal needs a motion with times (a t column): they are "
                                 "the path parameter")
            if chunk.wrenches is not None:
                raise HodynError("--optimal does not take external wrenches yet: use "
                                 "--to-limits")
            search.add(self._laws(chunk), chunk)
            collected.add(chunk)
        search.retiming()  # the errors: infeasible at any speed, nothing limits the speed
        uniform = search.best[0]
        assert uniform is not None
        path = collected.path()
        self.orders = path.orders
        span = float(path.t[-1] - path.t[0])
        rate = (collected.count - 1) / span if self.rate is None else self.rate
        if not rate > 0:
            raise HodynError(f"--rate must be positive, got {rate}")
        limited = path_limits(self.model, path, limits, **self.dynamics)
        law = solve(path.t, limited, uniform.x**2, max(5, path.orders - 1), rate)
        self.samples_per_second = rate
        samples = max(1, int(np.ceil(_duration(law) * rate - 1e-9)))
        self.path = Plan(law, float(path.t[0]), samples, uniform, span, path.n_samples)
        return self.path

    def fit(self, chunks: Callable[[], Iterable[Trajectory]]) -> Binding:
        """Plan (with ``chunks()``: the motion afresh), then play it and fit it onto its limits
        at every output sample (:class:`Fit`: the largest uniform speed-up within :data:`FIT`
        of 1 at which every sample is inside). Where none is (a sample between grid points
        beyond a limit, and another that a slower playing pushes out: a static term of the
        other sign), plan again for limits tightened by twice the excess. Where that fails
        :data:`ATTEMPTS` times, or the result is slower than the uniform scaling (a grid too
        coarse for the path), the uniform scaling itself (x constant), fitted likewise or,
        failing that, from rest as ``retime --to-limits`` scales."""
        margin, uniform = 0.0, None
        for _ in range(ATTEMPTS):
            self.plan(chunks(), self._tightened(margin))
            assert self.path is not None
            uniform = uniform or self.path.uniform  # for the limits as given
            self.path = replace(self.path, uniform=uniform)
            fit, search = self._fitted(chunks())
            self.final = fit.solve()
            if self.final is not None:
                if self.duration <= self.uniform_duration:
                    return self.final
                break
            margin = max(2 * fit.excess(), 2 * margin, MARGIN)
        assert self.path is not None and uniform is not None
        law = replace(self.path.law, coefficients=np.full_like(self.path.law.coefficients,
                                                               uniform.x**2))
        self.path = replace(self.path, law=law, samples=max(1, int(np.ceil(
            _duration(law) * self.samples_per_second - 1e-9))))
        fit, search = self._fitted(chunks())
        self.final = fit.solve() or search.best[0]
        assert self.final is not None
        return self.final

    def _fitted(self, chunks: Iterable[Trajectory]) -> tuple[Fit, ScaleSearch]:
        """The played motion's laws at every output sample, fed to a :class:`Fit` and to a
        :class:`~hodyn_cli.algorithms.limits.feasibility.ScaleSearch` (from rest)."""
        assert self.path is not None
        search, fit, count = ScaleSearch(self.model, self.limits), Fit(), 0
        for piece in self.path.played(chunks):
            laws = self._laws(piece)
            search.add(laws, piece)
            fit.add(laws, limited_series(self.model, self.limits, laws), piece.t, count)
            count += piece.n_samples
        search.retiming()
        return fit, search

    def _tightened(self, margin: float) -> Limits:
        """The limits with every band but position's ``1 - margin`` as wide."""
        if not margin:
            return self.limits
        return replace(self.limits, bands={k: b if k == "position" else b * (1 - margin)
                                           for k, b in self.limits.bands.items()})

    def retimed(self, chunks: Iterable[Trajectory]) -> Iterator[Trajectory]:
        """The retimed motion, chunk by chunk: the plan's played motion scaled by the fit's k
        (exactly); :attr:`bound`: where the played motion, before that scaling, is on its
        limits (the time law's binding limits: the scaling lowers them all a little)."""
        p, final = self.path, self.final
        assert p is not None and final is not None, "plan and fit first"
        self.bound = Bound(self.model, self.limits)
        for piece in p.played(chunks):
            out = scaled(piece, final.x, p.t0 + final.k * (piece.t - p.t0))
            self.bound.add(self._laws(piece), out.t)  # the time law's own limits
            yield out

    @property
    def duration(self) -> float:
        assert self.path is not None and self.final is not None
        return self.path.duration * self.final.k

    @property
    def uniform_duration(self) -> float:
        """The duration of the fastest uniform scaling (``retime --to-limits``)."""
        assert self.path is not None
        return self.path.uniform.k * self.path.span

    @property
    def attributes(self) -> dict:
        """What an output file records: durations, the grid, and where the limits bind."""
        assert self.path is not None and self.final is not None
        return {"duration": self.duration, "uniform_duration": self.uniform_duration,
                "grid_points": self.path.grid, "final_scale": self.final.k,
                "binding": self.bound.describe()}
