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

**Elastic joints** (:mod:`hodyn_cli.algorithms.actuation.elastic`, the same model): call the *grade* of a
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

**Rigid drives** (:mod:`hodyn_cli.algorithms.actuation.actuators`, ``theta = r q``): the coupling
``I_c r_c (S^(a) q_c^(k-a+2) + G^(a) q_c^(k-a+1))`` has grade k + 2, so tau's law keeps the rigid
form with ``d`` the drive model's torque without gravity and wrenches, and so does the frictionless
motor torque (``tau_m = tau / (r eta) + I (r qdd + n . omegad_p)``: ``s / (r eta)``, then grade 2).
Friction is not a polynomial in x: at the speed ``x v`` of its side it adds ``viscous x v +
coulomb tanh(x v / coulomb_velocity) + offset`` (divided by ``r eta`` on the joint side), a law's
``friction`` terms ``a x + c tanh(b x)`` (the offset goes with the static part); the motor
speed is ``x r qd``, the current ``tau_m / k_t``. Friction of series-elastic drives enters u and
through theta the couplings: not a law of this kind (an error names the joint).

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

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.actuation import actuators, elastic
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.dynamics.common import GRAVITY, base_motion, chunks
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import BaseMotion, Trajectory, Wrenches, derivative_name
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.drives import Drives, Friction

__all__ = ["TOLERANCE", "Law", "JOINT_SERIES", "joint_laws", "rigid_laws", "elastic_laws",
           "drive_laws", "earliest", "earliest_negative", "scaled"]

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
    #: (N, m, 3) ``(a, c, b)``: the law has ``+ a x + c tanh(b x)`` too (friction), or None
    friction: np.ndarray | None = None

    def at(self, x=1.0) -> np.ndarray:
        """Values (N, m) at speed-up x: a number, one per sample (N,), or an array that
        broadcasts to (N, m) (e.g. (1, m): one per joint)."""
        x = np.asarray(x, dtype=float)
        x = x[:, None] if x.ndim == 1 else x
        v = _graded(self.coefficients, self.power, x)
        if self.friction is not None:
            a, c, b = np.moveaxis(self.friction, -1, 0)
            v = v + a * x + c * np.tanh(b * x)
        return v

    def take(self, rows, cols) -> Law:
        """The law of some samples (``rows``: indices or a slice) and joints (``cols``)."""
        f = self.friction
        return Law(self.power, self.coefficients[rows][:, cols],
                   tuple(np.array(self.joint_names)[cols]),
                   None if f is None else f[rows][:, cols])


# -- the laws ------------------------------------------------------------------------------


def _still(trajectory: Trajectory) -> Trajectory:
    """The motion without its external wrenches (with no gravity: the dynamic part d)."""
    return replace(trajectory, wrenches=None)


#: the joints' own series a limit may bound: position, velocity, acceleration, jerk
JOINT_SERIES = ("q", "qd", "qdd", "qddd")


def joint_laws(trajectory: Trajectory, names: tuple[str, ...]) -> dict[str, Law]:
    """Laws of the :data:`JOINT_SERIES` the motion has (every joint): ``q^(j) x^j``."""
    q = trajectory.derivatives
    return {name: Law(j, q[:, j, :, None], names)
            for j, name in enumerate(JOINT_SERIES[:trajectory.orders])}


def rigid_laws(model: Model, trajectory: Trajectory, order: int, gravity=GRAVITY,
               data: backends.Data | None = None, whole: bool = False,
               torques: np.ndarray | None = None) -> dict[str, Law]:
    """Laws of ``q``, ``qd`` .. ``qddd`` (every joint: ``trajectory`` over all joints, mimic
    joints expanded; :func:`joint_laws`) and ``tau`` .. ``tau^(order)`` (the independent
    joints; none for order -1). ``data``: the backend's Data for the model, made once per
    request. ``whole``: each torque law's grades the motion's torques and zeros (its value
    at speed-up 1 alone, the grades' count kept: the dynamic part's inverse dynamics not
    made), for a caller that reads them there alone
    (:func:`~hodyn_cli.algorithms.limits.programme.path_limits`' probes). ``torques``: the
    motion's (N, order+1, nv), made already (the probes' together,
    :func:`~hodyn_cli.algorithms.dynamics.body_fixed.inverse_dynamics_probes`), or None."""
    laws = joint_laws(trajectory, model.dof_names)  # a multi-DOF joint: its coordinates
    if order < 0:
        return laws
    _, data = backends.prepare(model, data)
    tau = body_fixed.inverse_dynamics(model, trajectory, order=order, gravity=gravity,
                                      data=data) if torques is None else torques
    if whole:
        parts = np.stack([tau, np.zeros_like(tau)], axis=-1)
    else:
        d = body_fixed.inverse_dynamics(model, _still(trajectory), order=order,
                                        gravity=NO_GRAVITY, data=data)
        parts = np.stack([tau - d, d], axis=-1)
    graded = model.coupling.forces(parts, trajectory, axis=2)  # (N, K+1, m, 2)
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
                 gravity=GRAVITY, data: backends.Data | None = None) -> dict[str, Law]:
    """Laws of ``q``, ``qd``, the spring torques ``u``, ``ud``, ``udd`` (every joint) and,
    for the joints with a drive, the motor speed ``thetad`` and motor torque ``taum`` of the
    elastic model ``kind`` (module docstring). ``data``: the backend's Data for the model,
    made once per request (it keeps ``elastic.requirements(model, drives, 0, kind)``)."""
    with_friction = drives.driven & drives.friction.any
    if with_friction.any():
        raise HodynError(f"joint '{model.joint_names[int(with_friction.argmax())]}': friction "
                         "with series-elastic drives is not in the time-scaling laws yet (it "
                         "enters u and, through theta, the couplings): hodyn elastic computes "
                         "it; leave friction out of the drives file for check and retime")
    _, data = backends.prepare(model, data)
    req = data.derived(elastic.requirements, model, drives, 0, kind)
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
        tau, omega = elastic.rigid_passes(model, qs, R, base, wrenches, data)
        d, _ = elastic.rigid_passes(model, qs, R, still, {}, data)
        graded = np.zeros(tau.shape + (P + 1,))
        graded[..., 0], graded[..., 1] = tau - d, d
        u[sl], thetad[sl], taum[sl] = _graded_solve(model, drives, req, pairs, qs, graded,
                                                    omega)
    names, driven = model.joint_names, np.flatnonzero(drives.driven)
    laws = joint_laws(trajectory, names)
    laws |= {derivative_name("u", j): Law(j, u[:, j], names) for j in range(3)}
    laws["thetad"] = Law(1, thetad[:, driven], tuple(names[c] for c in driven))
    laws["taum"] = Law(0, taum[:, driven], tuple(names[c] for c in driven))
    return laws



def _without_friction(model: Model, drives: Drives) -> Drives:
    """The drives without friction: the laws' torques take friction apart."""
    return replace(drives, friction=Friction.none(model.n))

def drive_laws(model: Model, trajectory: Trajectory, drives: Drives, order: int,
               kind: str = "full", gravity=GRAVITY, data: backends.Data | None = None
               ) -> dict[str, Law]:
    """Laws of ``q``, ``qd`` (every joint), ``tau`` .. ``tau^(order)`` (the rotors' reactions
    included), and for the joints with a drive the motor speed ``thetad``, the motor torque
    ``taum`` and, where the drive has a torque constant, the ``current`` of rigid drives
    (module docstring; ``data``: the backend's Data for the model, made once per request)."""
    K = max(order, 0)
    _, data = backends.prepare(model, data)
    ideal = data.derived(_without_friction, model, drives)   # one per request: its needs too
    full = actuators.inverse_dynamics(model, trajectory, ideal, order=K, kind=kind,
                                      gravity=gravity, data=data)
    dyn = actuators.inverse_dynamics(model, _still(trajectory), ideal, order=K, kind=kind,
                                     gravity=NO_GRAVITY, data=data)
    q, names = trajectory.derivatives, model.joint_names
    laws = joint_laws(trajectory, names)
    for j in range(order + 1):
        laws[derivative_name("tau", j)] = Law(
            j, np.stack([full.tau[:, j] - dyn.tau[:, j], dyn.tau[:, j]], axis=-1), names)
    f = drives.friction
    r = np.where(drives.driven, drives.gear_ratio, 1.0)
    share = np.where(f.motor_side, 1.0, 1.0 / (r * drives.gear_efficiency))  # into taum
    v = np.where(f.motor_side, r, 1.0) * q[:, 1]  # the speed of the friction's side
    taum = np.stack([full.taum[:, 0] - dyn.taum[:, 0] + share * f.offset, dyn.taum[:, 0]], -1)
    fr = np.stack(np.broadcast_arrays(share * f.viscous * v, share * f.coulomb, v / f.velocity),
                  axis=-1)  # a x + c tanh(b x)
    with_friction = (drives.driven & f.any).any()
    for name, cols, scale in (("taum", drives.driven, 1.0),
                              ("current", drives.current, drives.torque_constant)):
        cols = np.flatnonzero(cols)
        per = np.broadcast_to(scale, (model.n,))[cols]
        laws[name] = Law(0, taum[:, cols] / per[:, None], tuple(names[c] for c in cols),
                         fr[:, cols] / np.stack([per, per, np.ones_like(per)], -1)
                         if with_friction else None)
    driven = np.flatnonzero(drives.driven)
    laws["thetad"] = Law(1, (r * q[:, 1])[:, driven, None], tuple(names[c] for c in driven))
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
        for c in np.flatnonzero(drives.driven & (model.parent >= 0)).tolist():
            omegad[:, c] = omega[:, model.parent[c], 1] @ drives.rotor_axis[c]
    k, a = np.meshgrid(np.arange(R + 1), np.arange(R + 1), indexing="ij")
    weight = np.where(a <= k, np.vectorize(comb)(k, np.minimum(a, k)), 0.0)
    orders = np.concatenate([np.clip(k - a + 2, 0, R + 2), np.clip(k - a + 1, 0, R + 2)], axis=1)
    weight = np.concatenate([weight, weight], axis=1)  # (k, 2a): the S terms, the G terms
    for c in reversed(range(n)):  # descendants first: u_c is complete here
        m = req.u_orders[c] + 1
        if drives.elastic[c]:  # theta = r (q + u / K), eq. (3)
            theta[:, c, :, :m] = drives.gear_ratio[c] / drives.stiffness[c] * np.swapaxes(
                u[:, :m, c], 1, 2)
            theta[:, c, 0, :m] += drives.gear_ratio[c] * qs[:, :m, c]
        else:  # a rigid drive's theta = r q (K = inf), q without a drive: every order
            theta[:, c, 0] = (drives.gear_ratio[c] if drives.driven[c] else 1.0) * qs[:, : R + 3, c]
        mine = np.flatnonzero(pairs[:, 1] == c)
        if mine.size:  # sum_a C(k,a) (S^(a) theta^(k-a+2) + G^(a) theta^(k-a+1)), one grade up
            lift = (weight * theta[:, c][:, :, orders]) @ SG[..., mine]  # (N, P+1, k, pairs)
            u[:, :, pairs[mine, 0], 1:] += drives.rotor_inertia[c] * np.moveaxis(
                lift[:, :-1], 1, -1)
    r = np.where(drives.driven, drives.gear_ratio * drives.gear_efficiency, 1.0)
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
    if law.friction is not None:
        return _earliest_with_friction(law, lower, upper)
    c = c if len(cols) == m else c[:, cols]
    centre, half = (lower[cols] + upper[cols]) / 2, (upper[cols] - lower[cols]) / 2
    # (at rest; a law of power > 0 is 0 there at every sample: one row, read broadcast)
    a0 = c[..., 0] - centre if power == 0 else np.broadcast_to(0.0 - centre, (N, len(cols)))
    rest = np.abs(a0)
    beyond = rest > half * (1 + TOLERANCE)
    half = np.maximum(half, rest)  # on the limit within rounding: the band through it
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
    moves = _with_terms(c, int(power == 0))  # (N, m): the sample has a law
    if not moves.any():  # (a position's: constant in x, its crossings at rest alone)
        first = np.argmin(exact, axis=0)
        x[cols], row[cols] = exact[first, every], first
        return x, row
    active = moves.any(axis=0) & (best > 0)  # joints whose best may still improve
    for _ in range(ROUNDS):  # the sample farthest out of its band at the best crossing so far
        if not active.any():
            break
        # (made in place, the solved samples put at -inf by their indices: the same numbers
        # as ``np.where(solved, -inf, |v - centre| / half)``, a quarter of the arrays)
        out = _graded(c, power, at)
        out -= centre
        np.abs(out, out=out)
        out /= half
        out[solved] = -np.inf
        seed = np.argmax(out, axis=0)[active]
        solve(seed, every[active])
        before = best[active]
        best[active] = found = np.minimum(before, exact[seed, every[active]])
        active[active] = (found < before) | ~np.isfinite(found)
        at = np.where(np.isfinite(best), best, 2 * at)
    rising, falling = np.maximum(c, 0.0), np.minimum(c, 0.0)  # the terms of one sign
    if power == 0:
        rising[..., 0] = falling[..., 0] = 0.0
    with np.errstate(invalid="ignore"):  # best = inf: every sample that moves may
        up, down = _graded(rising, power, best), _graded(falling, power, best)
        up += a0  # (in place: the same sums)
        down += a0
        may = (up >= half) | (down <= -half)
    rows, joints = np.nonzero(~solved & moves & may)
    if len(rows) > len(cols):  # terms that cancel: a finer test first
        keep = _may_leave(dense(rows, joints), half[rows, joints], best[joints])
        rows, joints = rows[keep], joints[keep]
    solve(rows, joints)
    first = np.argmin(exact, axis=0)
    x[cols], row[cols] = exact[first, every], first
    return x, row


def _with_terms(c: np.ndarray, first: int) -> np.ndarray:
    """(N, m) whether any of the coefficients ``c[..., first:]`` (N, m, P+1) is not 0: the
    same booleans as ``(c[..., first:] != 0).any(axis=-1)``, a coefficient at a time (a
    reduction along an axis of 1-2 was ~6 times as long, a tenth of the uniform scaling's
    search on a long path)."""
    moves = np.zeros(c.shape[:2], dtype=bool)
    for p in range(first, c.shape[-1]):
        moves |= c[..., p] != 0
    return moves


def earliest_negative(law: Law) -> tuple[np.ndarray, np.ndarray]:
    """Per column of a law that must stay >= 0 (a contact's conditions,
    :mod:`hodyn_cli.algorithms.limits.contact_laws`): the largest speed-up x such that every
    sample stays >= 0 for every speed-up up to x, and the sample that binds it. x = 0: a
    sample is negative at rest already (by more than :data:`TOLERANCE` of its terms), or zero
    there and falling; inf: nothing binds. Exact: the smallest positive root of each sample's
    polynomial (eigenvalues of its companion matrix, polished by Newton).

    >>> law = Law(0, np.array([[[4.0, -1.0]], [[1.0, 2.0]]]), ("c",))   # 4 - x^2 and 1 + 2 x^2
    >>> x, row = earliest_negative(law)
    >>> float(x[0]), int(row[0])
    (2.0, 0)
    """
    c, power = law.coefficients, law.power
    N, m = c.shape[:2]
    a = np.zeros((N, m, power + 2 * c.shape[-1] - 1))
    a[..., power::2] = c
    size = np.abs(a).sum(axis=-1)
    lead = np.take_along_axis(a, np.argmax(a != 0, axis=-1)[..., None], axis=-1)[..., 0]
    flat = np.abs(a[..., 0]) <= TOLERANCE * size
    exact = np.where((a[..., 0] < -TOLERANCE * size) | (flat & (lead < 0)), 0.0, np.inf)
    rows, cols = np.nonzero(np.isinf(exact) & (a[..., 1:] != 0).any(axis=-1))
    exact[rows, cols] = _smallest_positive_root(a[rows, cols])
    first = np.argmin(exact, axis=0) if N else np.zeros(m, dtype=int)
    x = exact[first, np.arange(m)] if N else np.full(m, np.inf)
    return x, first


def _earliest_with_friction(law: Law, lower: np.ndarray, upper: np.ndarray
                            ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`earliest` of a law with friction terms, by :func:`_safe_crossings`: first, per
    joint, for the sample farthest out of its band at the best crossing b found so far (at
    first at x = 1; until b stops improving), then for every sample whose increasing majorant
    ``|a_0| + sum |a_i| x^i + |a| x + |c| min(1, |b| x)`` reaches the band by b."""
    c, power, m = law.coefficients, law.power, len(law.joint_names)
    x, row = np.full(m, np.inf), np.zeros(m, dtype=int)
    cols = np.flatnonzero(np.isfinite(lower) & np.isfinite(upper))
    part = law.take(slice(None), cols)
    centre, half = (lower[cols] + upper[cols]) / 2, (upper[cols] - lower[cols]) / 2
    a0 = part.at(0.0) - centre  # at rest (friction: its offset only)
    beyond = np.abs(a0) > half * (1 + TOLERANCE)
    half = np.broadcast_to(np.maximum(half, np.abs(a0)), a0.shape)
    exact = np.where(beyond, 0.0, np.inf)
    solved = beyond.copy()
    dense = np.zeros(a0.shape + (power + 2 * c.shape[-1] - 1,))
    dense[..., power::2] = part.coefficients
    dense[..., 0] -= centre
    f = part.friction
    assert f is not None  # called for a law with friction terms only
    every = np.arange(len(cols))

    def solve(rows, joints) -> None:
        exact[rows, joints] = _safe_crossings(dense[rows, joints], f[rows, joints],
                                              half[rows, joints], joints, len(cols))
        solved[rows, joints] = True

    best, at = exact.min(axis=0), np.ones(len(cols))
    active = best > 0
    for _ in range(ROUNDS):  # the sample farthest out of its band at the best crossing so far
        if not active.any():
            break
        out = np.abs(part.at(at[None]) - centre) / half
        seed = np.argmax(np.where(solved, -np.inf, out), axis=0)[active]
        solve(seed, every[active])
        before = best[active]
        best[active] = found = np.minimum(before, exact[seed, every[active]])
        active[active] = found < before
        at = np.where(np.isfinite(best), best, 2 * at)
    terms = np.abs(dense)
    terms[..., 0] = 0.0
    reach = np.minimum(best, FAR)
    with np.errstate(over="ignore", invalid="ignore"):
        majorant = (np.abs(dense[..., 0])
                    + (terms * reach[:, None] ** np.arange(terms.shape[-1])).sum(axis=-1)
                    + np.abs(f[..., 0]) * reach
                    + np.abs(f[..., 1]) * np.minimum(1.0, np.abs(f[..., 2]) * reach))
    solve(*np.nonzero(~solved & (majorant >= half)))
    first = np.argmin(exact, axis=0)
    x[cols], row[cols] = exact[first, every], first
    return x, row


#: |tanh''| <= 4 / (3 sqrt(3)): the friction terms' curvature bound
TANH2 = 4 / (3 * np.sqrt(3))
#: safe steps per sample at most (then its crossing is taken where the steps got: a lower
#: bound of it, so the speed-up found stays feasible)
STEPS = 200
#: beyond this speed-up nothing is taken to cross
FAR = 1e8


def _safe_crossings(p: np.ndarray, f: np.ndarray, half: np.ndarray, group: np.ndarray,
                    groups: int) -> np.ndarray:
    """First x > 0 with ``|v(x)| = half``, ``v = p(x) + a x + c tanh(b x)`` (p: rows of (E, D+1),
    lowest coefficient first; f (E, 3) = (a, c, b); ``|v(0)| <= half``), by steps that cannot
    pass it: from x, ``|v|`` grows by at most ``|v'(x)| s + K s^2 / 2`` within s <= H = max(x, 1)
    (K >= |v''| on [x, x + H]: the polynomial's majorant ``sum i (i-1) |p_i| (x+H)^(i-2)`` plus
    ``|c| b^2 |tanh''|``), so the step to where that bound reaches ``half`` is safe; near a
    simple crossing it is a Newton step (quadratic convergence). Per ``group`` (joint) the
    samples whose x passes the best crossing found so far stop there."""
    a, c, b = f.T
    out = np.full(len(p), np.inf)
    x = np.zeros(len(p))
    best = np.full(groups, np.inf)
    live = np.flatnonzero(half > 0)
    i = np.arange(p.shape[1])
    for _ in range(STEPS):
        if not live.size:
            break
        xl, pl, al, cl, bl = x[live], p[live], a[live], c[live], b[live]
        powers = xl[:, None] ** np.maximum(i - 1, 0)
        v = (pl * powers * np.where(i > 0, xl[:, None], 1.0)).sum(axis=1)
        tb = np.tanh(bl * xl)
        v += al * xl + cl * tb
        dv = (pl[:, 1:] * i[1:] * powers[:, 1:]).sum(axis=1) + al + cl * bl * (1 - tb**2)
        g = half[live] - np.abs(v)
        hit = g <= 1e-13 * half[live]
        out[live[hit]] = xl[hit]
        np.minimum.at(best, group[live[hit]], xl[hit])
        H = np.maximum(xl, 1.0)
        y = (xl + H)[:, None]
        K = (np.abs(pl[:, 2:]) * (i[2:] * (i[2:] - 1)) * y ** (i[2:] - 2)).sum(axis=1)
        K += np.abs(cl) * bl**2 * TANH2
        with np.errstate(divide="ignore", invalid="ignore"):
            step = 2 * g / (np.abs(dv) + np.sqrt(dv**2 + 2 * K * np.maximum(g, 0.0)))
        x[live] = xl + np.minimum(np.where(np.isfinite(step), step, H), H)
        gone = hit | (x[live] > np.minimum(best[group[live]], FAR))
        live = live[~gone]
    out[live] = x[live]  # not converged: where the safe steps got, a lower bound
    return out


def _graded(coefficients: np.ndarray, power: int, x) -> np.ndarray:
    """``x^power sum_p coefficients_p x^(2p)``, coefficients (..., P+1), x broadcasting over
    the rest (x = inf: +-inf, or NaN (0 inf) where there is no such term)."""
    S = coefficients[..., -1]
    if coefficients.shape[-1] == 1:
        return S * x**power
    y = x * x
    S = S * y  # (then in place: the same products and sums as ``S * y + c_p``, fewer arrays)
    S += coefficients[..., -2]
    for p in range(coefficients.shape[-1] - 3, -1, -1):  # Horner in x^2
        S *= y
        S += coefficients[..., p]
    S *= x**power
    return S


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
    """First x > 0 with ``|a(x)| = half`` for each row of a (E, D+1) (``|a_0| <= half``):
    the first root of ``a - half`` or ``a + half``, both in one call (the roots are found row
    by row: the same bits; :func:`earliest` solves a few rows a round, up to ROUNDS rounds,
    and each call's own costs were ~half of the roots' time on a 600-sample path)."""
    n = a.shape[0]
    p = np.concatenate([a, a])
    p[:, 0] -= np.concatenate([half, -1.0 * half])
    roots = _smallest_positive_root(p)
    return np.minimum(roots[:n], roots[n:])


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
    derivative ``q^(j) x^j`` and wrench rate ``W^(j) x^j``, a floating root's twist
    ``V^(j) x^(j+1)``, exact; ``t``: its new times."""
    x = np.broadcast_to(np.asarray(x, dtype=float), (trajectory.n_samples,))[:, None]

    def rates(values: np.ndarray) -> np.ndarray:  # (N, D, ...)
        factor = x ** np.arange(values.shape[1])  # (N, D)
        return values * factor.reshape(factor.shape + (1,) * (values.ndim - 2))

    W, base = trajectory.wrenches, trajectory.base
    if base is not None:  # the root's twist is a rate already: x^(j+1) V^(j)
        base = BaseMotion(base.R, base.p, rates(base.Vb) * x[:, :, None])
    return Trajectory(trajectory.joint_names, rates(trajectory.derivatives), t,
                      None if W is None else Wrenches({k: rates(w) for k, w in W.W.items()}),
                      trajectory.series, base)
