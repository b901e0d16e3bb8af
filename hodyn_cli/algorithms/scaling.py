"""Uniform time scaling: how every limited quantity changes when a motion is played k times
slower, and the largest speed-up at which it stays inside its limits.

Playing ``q(t)`` k times slower, ``q_k(t') = q(t'/k)`` (``t' = k t``), scales every derivative
exactly, ``q_k^(j) = x^j q^(j)`` with ``x = 1/k``. Every quantity hodyn limits is then, sample by
sample, a polynomial in x, its *law* ``v(x) = x^m sum_p c_p x^(2p)`` (``v(1)`` is the motion's
own value). **Rigid bodies**: ``tau = M(q) qdd + c(q, qd) + s(q)`` with ``c`` quadratic in qd and
the static part ``s = g(q) + Q_ext``, so ``tau_k = x^2 (tau - s) + s`` and, as d/dt' = x d/dt,

    tau_k^(j) = x^j s^(j) + x^(j+2) d^(j),      d = tau - s = M qdd + c      (m = j; c_0 = s^(j), c_1 = d^(j))

(external wrenches are taken as attached to the path, ``W_k(t') = W(t'/k)``: a payload's
weight, a process force along the path; they scale like gravity). ``s`` and ``d`` are two
inverse-dynamics passes: with gravity and wrenches, and without them.

**Elastic joints** (:mod:`hodyn_cli.algorithms.elastic`, the same model): call the *grade* of a
product of derivatives the total number of time derivatives in it (``q^(j)``: j; ``R^(a)``,
``S^(a)`` of the coupling: a; ``G^(a)`` (it holds qd): a + 1). A term of grade g scales as
``x^g``. ``u^(j)``'s terms have grades ``j, j+2, j+4, ...``: the rigid part has j and j + 2, and
each rotor coupling ``I_c (S^(a) theta_c^(k-a+2) + G^(a) theta_c^(k-a+1))`` (eqs. (2), (4), by
Leibniz) lifts theta_c's grades by exactly 2, while ``theta_c = r_c (q_c + u_c / K_c)`` (eq. (3))
keeps them. So with ``Q^(j) = sum_p x^(j+2p) Q_{j,p}``:

    u_i,p^(k)     = rigid (p = 0: s^(k), p = 1: d^(k))
                    + sum_c I_c sum_a C(k,a) (S^(a) theta_c,p-1^(k-a+2) + G^(a) theta_c,p-1^(k-a+1))
    theta_c,p^(k) = r_c (q_c^(k) [p = 0] + u_c,p^(k) / K_c)
    taum_c,p      = u_c,p / r_c + I_c (theta_c,p-1^(2) + n_c . omegad_carrier [p = 1])   (eq. (32))

solved from the tips to the root exactly as the elastic model itself; the reflected model has
no coupling (u = the rigid torque, taum = u / r + I thetadd). The laws' degree grows by 2 per
coupled generation of drives (the iiwa's joint 1 motor torque: x^0 .. x^16).

**The earliest crossing** (:func:`earliest`): the first x > 0 where ``|v(x) - centre|`` reaches
the half-width of a limit band, per sample, exactly: the smallest positive real root of
``v(x) = lower`` or ``v(x) = upper`` (eigenvalues of the companion matrix, polished by Newton),
solved only for the samples that bounds do not rule out.

>>> import numpy as np
>>> law = Law(0, np.array([[[1.0, 3.0]]]), ("j",))   # tau = 1 + 3 x^2 (gravity 1, inertia 3)
>>> float(law.at(1.0)[0, 0]), float(law.at(0.5)[0, 0])
(4.0, 1.75)
>>> x, row = earliest(law, np.array([-4.0]), np.array([7.0]))   # 1 + 3 x^2 = 7: x = sqrt(2)
>>> round(float(x[0]) ** 2, 12), int(row[0])
(2.0, 0)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import comb

import numpy as np

from hodyn_cli.algorithms import elastic
from hodyn_cli.algorithms.methods import body_fixed
from hodyn_cli.algorithms.methods.common import GRAVITY, base_motion, chunks
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches, derivative_name
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling import mimic
from hodyn_cli.modeling.drives import Drives

__all__ = ["TOLERANCE", "Law", "rigid_laws", "elastic_laws", "earliest", "scaled"]

#: relative slack within which a value counts as on its limit, not beyond it (rounding)
TOLERANCE = 1e-9
#: at most this many rounds of solving, per joint, the sample nearest to its limit at the
#: best crossing found so far (until it no longer improves), before every sample that may
#: cross earlier is solved
ROUNDS = 12
#: steps of the grid on which the samples whose one-signed bounds do not rule them out are
#: looked at (terms that cancel)
GRID = 16
#: |imaginary part| / |root| below which a companion eigenvalue counts as real (a tangency
#: splits into a complex pair of that size; counting it makes k conservative by ~1e-8)
REAL = 1e-7
NO_GRAVITY = (0.0, 0.0, 0.0)


@dataclass(frozen=True, eq=False)
class Law:
    """A quantity of the motion played ``1/x`` times slower: ``x^power sum_p
    coefficients[s, j, p] x^(2p)`` at sample s for joint ``joint_names[j]``."""

    power: int
    coefficients: np.ndarray  # (N, m, P+1)
    joint_names: tuple[str, ...]

    def at(self, x=1.0) -> np.ndarray:
        """Values (N, m) at speed-up x: a number, or one per sample (N,)."""
        x = np.asarray(x, dtype=float)
        return _graded(self.coefficients, self.power, x[:, None] if x.ndim else x)


# -- the laws ------------------------------------------------------------------------------


def _still(trajectory: Trajectory) -> Trajectory:
    """The motion without its external wrenches (with no gravity: the dynamic part d)."""
    return replace(trajectory, wrenches=None)


def rigid_laws(model: Model, trajectory: Trajectory, order: int, gravity=GRAVITY
               ) -> dict[str, Law]:
    """Laws of ``q``, ``qd`` (every joint: ``trajectory`` over all joints, mimic joints
    expanded) and ``tau`` .. ``tau^(order)`` (the independent joints; none for order -1)."""
    q = trajectory.derivatives
    laws = {name: Law(j, q[:, j, :, None], model.joint_names)
            for j, name in enumerate(("q", "qd"))}
    if order < 0:
        return laws
    tau = body_fixed.inverse_dynamics(model, trajectory, order=order, gravity=gravity)
    d = body_fixed.inverse_dynamics(model, _still(trajectory), order=order, gravity=NO_GRAVITY)
    graded = mimic.project(model, np.stack([tau - d, d], axis=-1), axis=2)  # (N, K+1, m, 2)
    for j in range(order + 1):
        laws[derivative_name("tau", j)] = Law(j, graded[:, j], model.coordinate_names)
    return laws


def _levels(n: int, pairs: np.ndarray) -> np.ndarray:
    """(n,) highest p of each joint's u: 1 (rigid), one more than any drive coupled into it."""
    level = np.ones(n, dtype=int)
    for c in reversed(range(n)):  # drives coupled into u_i sit further out: c > i
        for i in pairs[pairs[:, 1] == c, 0]:
            level[i] = max(level[i], level[c] + 1)
    return level


def elastic_laws(model: Model, trajectory: Trajectory, drives: Drives, kind: str = "full",
                 gravity=GRAVITY, known: elastic.Requirements | None = None) -> dict[str, Law]:
    """Laws of ``q``, ``qd``, the spring torques ``u``, ``ud``, ``udd`` (every joint) and,
    for the joints with a drive, the motor speed ``thetad`` and motor torque ``taum`` of the
    elastic model ``kind`` (module docstring). ``known``: ``elastic.requirements(model,
    drives, 0, kind)`` if already found."""
    req = known if known is not None else elastic.requirements(model, drives, 0, kind)
    if trajectory.orders <= req.q_order:
        raise HodynError(f"elastic --model {kind} needs q up to "
                         f"{derivative_name('q', req.q_order)}, the trajectory has up to "
                         f"{derivative_name('q', trajectory.orders - 1)}")
    R = int(req.u_orders.max())
    pairs = np.argwhere(req.accel | req.speed)
    P = int(_levels(model.n, pairs).max()) + 1  # taum: one grade above u
    N, n = trajectory.n_samples, model.n
    u = np.zeros((N, 3, n, P + 1))
    thetad = np.zeros((N, n, P + 1))
    taum = np.zeros((N, n, P + 1))
    still = base_motion(NO_GRAVITY, R + 1)
    for sl, qs, base, wrenches in chunks(model, trajectory, R, gravity):
        tau, omega = elastic.rigid_passes(model, qs, R, base, wrenches)
        d, _ = elastic.rigid_passes(model, qs, R, still, {})
        graded = np.zeros(tau.shape + (P + 1,))
        graded[..., 0], graded[..., 1] = tau - d, d
        u[sl], thetad[sl], taum[sl] = _graded_solve(model, drives, req, pairs, qs, graded,
                                                    omega)
    names, driven = model.joint_names, np.flatnonzero(drives.driven)
    laws = {name: Law(j, trajectory.derivatives[:, j, :, None], names)
            for j, name in enumerate(("q", "qd"))}
    laws |= {derivative_name("u", j): Law(j, u[:, j], names) for j in range(3)}
    laws["thetad"] = Law(1, thetad[:, driven], tuple(names[c] for c in driven))
    laws["taum"] = Law(0, taum[:, driven], tuple(names[c] for c in driven))
    return laws


def _graded_solve(model: Model, drives: Drives, req: elastic.Requirements, pairs: np.ndarray,
                  qs: np.ndarray, u: np.ndarray, omega: np.ndarray):
    """One chunk: the graded rigid torques u (N, R+1, n, P+1) coupled from the tips to the
    root (``omega``: the bodies' angular velocities and derivatives, (N, n, R+2, 3)); returns
    graded u (orders 0..2), thetad and taum (order 0)."""
    N, R, n = qs.shape[0], u.shape[1] - 1, model.n
    theta = np.zeros((N, n, u.shape[-1], R + 3))  # [s, c, p, order]: grades inner to orders
    omegad = np.zeros((N, n))  # n_c . omega_carrier', body-fixed (0: reflected)
    if pairs.size:
        zeta, nu = elastic.axis_rates(model, drives, qs[:, 0], omega, R)
        S, G = elastic.coupling_coefficients(zeta, nu, pairs, R)
        S *= req.accel[tuple(pairs.T)]  # structural zeros exactly zero, as elastic does
        G *= req.speed[tuple(pairs.T)]
        SG = np.concatenate([S, G], axis=1)[:, None]  # (N, 1, 2 (R+1), pairs)
        for c in np.flatnonzero(drives.driven & (model.parent >= 0)):
            omegad[:, c] = omega[:, model.parent[c], 1] @ drives.rotor_axis[c]
    k, a = np.meshgrid(np.arange(R + 1), np.arange(R + 1), indexing="ij")
    weight = np.where(a <= k, np.vectorize(comb)(k, np.minimum(a, k)), 0.0)
    orders = np.concatenate([np.clip(k - a + 2, 0, R + 2), np.clip(k - a + 1, 0, R + 2)], axis=1)
    weight = np.concatenate([weight, weight], axis=1)  # (k, 2a): the S terms, the G terms
    for c in reversed(range(n)):  # descendants first: u_c is complete here
        m = req.u_orders[c] + 1
        if drives.driven[c]:  # theta = r (q + u / K), eq. (3)
            theta[:, c, :, :m] = drives.gear_ratio[c] / drives.stiffness[c] * np.swapaxes(
                u[:, :m, c], 1, 2)
            theta[:, c, 0, :m] += drives.gear_ratio[c] * qs[:, :m, c]
        else:
            theta[:, c, 0, :m] = qs[:, :m, c]
        mine = np.flatnonzero(pairs[:, 1] == c)
        if mine.size:  # sum_a C(k,a) (S^(a) theta^(k-a+2) + G^(a) theta^(k-a+1)), one grade up
            lift = (weight * theta[:, c][:, :, orders]) @ SG[..., mine]  # (N, P+1, k, pairs)
            u[:, :, pairs[mine, 0], 1:] += drives.rotor_inertia[c] * np.moveaxis(
                lift[:, :-1], 1, -1)
    r = np.where(drives.driven, drives.gear_ratio, 1.0)
    taum = u[:, 0] / r[:, None]
    taum[..., 1:] += drives.inertia[:, None] * theta[:, :, :-1, 2]
    taum[..., 1] += drives.inertia * omegad
    return u[:, :3], theta[..., 1], taum


# -- the earliest crossing -------------------------------------------------------------


def earliest(law: Law, lower: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per joint of ``law`` (bands ``lower``, ``upper`` (m,), +-inf: none): the largest
    speed-up x such that every sample stays in its band for every speed-up up to x, and the
    sample that binds it. x = 0: a sample is beyond its band at rest already (by more than
    :data:`TOLERANCE`), no time scaling helps; inf: nothing binds.

    An exact crossing costs an eigenvalue problem, so it is found only for the samples that
    may cross first: per joint, the sample farthest out of its band at the best crossing b
    found so far (at first at x = 1; until b stops improving), then every sample whose terms
    of one sign alone reach the band by b (``a_0 + sum_{a_i > 0} a_i x^i`` is an increasing
    upper bound of the law, the negative terms' a decreasing lower one; exact for the rigid
    laws' two terms) and, where terms cancel, that still may on a grid of [0, b].
    """
    c, power = law.coefficients, law.power
    N, m = c.shape[:2]
    x, row = np.full(m, np.inf), np.zeros(m, dtype=int)
    cols = np.flatnonzero(np.isfinite(lower) & np.isfinite(upper))
    if not cols.size or not N:
        return x, row
    c = c if len(cols) == m else c[:, cols]
    centre, half = (lower[cols] + upper[cols]) / 2, (upper[cols] - lower[cols]) / 2
    a0 = (c[..., 0] if power == 0 else np.zeros((N, len(cols)))) - centre  # at rest
    beyond = np.abs(a0) > half * (1 + TOLERANCE)
    half = np.maximum(half, np.abs(a0))  # on the limit within rounding: the band through it
    exact = np.where(beyond, 0.0, np.inf)
    solved = beyond.copy()
    every = np.arange(len(cols))

    def dense(rows, joints) -> np.ndarray:  # the polynomials in x, centred
        a = np.zeros((len(rows), power + 2 * c.shape[-1] - 1))
        a[:, power::2] = c[rows, joints]
        a[:, 0] -= centre[joints]
        return a

    def solve(rows, joints) -> None:
        exact[rows, joints] = _first_crossings(dense(rows, joints), half[rows, joints])
        solved[rows, joints] = True

    best, at = exact.min(axis=0), np.ones(len(cols))
    moves = (c[..., int(power == 0):] != 0).any(axis=-1)  # (N, m): the sample has a law
    active = moves.any(axis=0) & (best > 0)  # joints whose best may still improve
    for _ in range(ROUNDS):  # the sample farthest out of its band at the best crossing so far
        if not active.any():
            break
        out = np.abs(_graded(c, power, at) - centre) / half
        seed = np.argmax(np.where(solved, -np.inf, out), axis=0)[active]
        solve(seed, every[active])
        before = best[active]
        best[active] = found = np.minimum(before, exact[seed, every[active]])
        active[active] = (found < before) | ~np.isfinite(found)
        at = np.where(np.isfinite(best), best, 2 * at)
    rising, falling = np.maximum(c, 0.0), np.minimum(c, 0.0)  # the terms of one sign
    if power == 0:
        rising[..., 0] = falling[..., 0] = 0.0
    with np.errstate(invalid="ignore"):  # best = inf: every sample that moves may
        may = ((a0 + _graded(rising, power, best) >= half)
               | (a0 + _graded(falling, power, best) <= -half))
    rows, joints = np.nonzero(~solved & moves & may)
    if len(rows) > len(cols):  # terms that cancel: a finer test first
        keep = _may_leave(dense(rows, joints), half[rows, joints], best[joints])
        rows, joints = rows[keep], joints[keep]
    solve(rows, joints)
    first = np.argmin(exact, axis=0)
    x[cols], row[cols] = exact[first, every], first
    return x, row


def _graded(coefficients: np.ndarray, power: int, x) -> np.ndarray:
    """``x^power sum_p coefficients_p x^(2p)``, coefficients (..., P+1), x broadcasting over
    the rest (x = inf: +-inf, or NaN (0 inf) where there is no such term)."""
    y = x * x
    S = coefficients[..., -1]
    for p in range(coefficients.shape[-1] - 2, -1, -1):  # Horner in x^2
        S = S * y + coefficients[..., p]
    return S * x**power


def _may_leave(a: np.ndarray, half: np.ndarray, b: np.ndarray, points: int = GRID) -> np.ndarray:
    """(E,) bool: whether ``|a(x)|`` (rows of a (E, D+1)) may reach ``half`` for some x in
    [0, b]: on a grid of ``points`` steps h, ``|a(x)| <= |a(x_i)| + h M'(x_(i+1))`` between
    grid points, with the increasing ``M'(x) = sum i |a_i| x^(i-1) >= |a'(x)|``."""
    x = b[:, None] * np.linspace(0.0, 1.0, points + 1)  # (E, G+1)
    v = np.zeros_like(x)
    slope = np.zeros_like(x)
    for i in range(a.shape[1] - 1, -1, -1):
        v = v * x + a[:, i : i + 1]
        if i:
            slope = slope * x + i * np.abs(a[:, i : i + 1])
    reach = np.abs(v[:, :-1]) + (b / points)[:, None] * slope[:, 1:]
    return (reach >= half[:, None]).any(axis=1) | (np.abs(v[:, -1]) >= half)


def _first_crossings(a: np.ndarray, half: np.ndarray) -> np.ndarray:
    """First x > 0 with ``|a(x)| = half`` for each row of a (E, D+1) (``|a_0| <= half``)."""
    out = np.full(a.shape[0], np.inf)
    for sign in (1.0, -1.0):
        p = a.copy()
        p[:, 0] -= sign * half
        out = np.minimum(out, _smallest_positive_root(p))
    return out


def _horner(p: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = np.zeros_like(x)
    dv = np.zeros_like(x)
    for i in range(p.shape[-1] - 1, -1, -1):
        dv = dv * x + v
        v = v * x + p[:, i]
    return v, dv


def _smallest_positive_root(p: np.ndarray) -> np.ndarray:
    """Smallest real root x > 0 of each polynomial row of p (E, D+1), lowest coefficient
    first; inf where there is none. Roots at 0 (low zero coefficients) are divided out."""
    out = np.full(p.shape[0], np.inf)
    nz = p != 0
    lo = np.argmax(nz, axis=1)
    hi = p.shape[1] - 1 - np.argmax(nz[:, ::-1], axis=1)
    lo[~nz.any(axis=1)] = -1  # p = 0: no root to find
    for l_, h_ in {(int(l_), int(h_)) for l_, h_ in zip(lo, hi, strict=True) if h_ > l_ >= 0}:
        rows = np.flatnonzero((lo == l_) & (hi == h_))
        c, d = p[rows, l_ : h_ + 1], h_ - l_
        scale = (np.abs(c[:, 0]) / np.abs(c[:, -1])) ** (1.0 / d)  # x = scale z: |roots| ~ 1
        c = c * scale[:, None] ** np.arange(d + 1)
        companion = np.zeros((len(rows), d, d))
        companion[:, np.arange(1, d), np.arange(d - 1)] = 1.0
        companion[:, :, -1] = -c[:, :d] / c[:, -1:]
        z = np.linalg.eigvals(companion)
        real = (np.abs(z.imag) <= REAL * np.abs(z)) & (z.real > 0)
        x = np.where(real, z.real, np.inf).min(axis=1) * scale
        out[rows] = _polished(p[rows], x)
    return out


def _polished(p: np.ndarray, x: np.ndarray, steps: int = 2) -> np.ndarray:
    """Newton steps on the roots x of p, each kept only where it makes |p| smaller."""
    done = ~np.isfinite(x)
    x = np.where(done, 1.0, x)
    for _ in range(steps):
        v, dv = _horner(p, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(dv != 0, v / dv, 0.0)
        better = np.abs(_horner(p, x - step)[0]) < np.abs(v)
        x = np.where(better & (x - step > 0), x - step, x)
    return np.where(done, np.inf, x)


# -- the scaled motion -----------------------------------------------------------------


def scaled(trajectory: Trajectory, x, t=None) -> Trajectory:
    """The motion played ``1/x`` times slower (x a number or one per sample): every
    derivative ``q^(j) x^j`` and wrench rate ``W^(j) x^j``, exact; ``t``: its new times."""
    x = np.broadcast_to(np.asarray(x, dtype=float), (trajectory.n_samples,))[:, None]

    def rates(values: np.ndarray) -> np.ndarray:  # (N, D, ...)
        factor = x ** np.arange(values.shape[1])  # (N, D)
        return values * factor.reshape(factor.shape + (1,) * (values.ndim - 2))

    W = trajectory.wrenches
    return Trajectory(trajectory.joint_names, rates(trajectory.derivatives), t,
                      None if W is None else Wrenches({k: rates(w) for k, w in W.W.items()}),
                      trajectory.series)
