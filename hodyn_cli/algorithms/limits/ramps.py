"""A ramp into and out of a corner: the time law near a rest warped so that the motion's
derivatives to q^(5) vanish there.

**Why.** Where the path turns at a rest (a corner) its direction ``q_sigma`` jumps, and by
the chain rule ``q^(k) = q_sigma sigma^(k) + ... + q_sigma^(k) sigma_dot^k``: every q^(k)
is continuous through the corner only where every time derivative of the law ``sigma`` to
the k-th vanishes there. The fastest law from rest accelerates at once (``sigma_ddot = u``,
its x = sdot^2 linear in sigma), so its q'' jumps from the leg in to the leg out.

**The warp.** The law ``sigma_0(t_0)`` of a piece is played at ``t_0 = w(tau)`` near its
rest (tau from the rest): ``sigma(tau) = sigma_0(w(tau))``, with ``w ~ a tau^3`` there (so
``sigma ~ u a^2 tau^6 / 2``: sigma's first five derivatives vanish at the rest, the
output's q' .. q^(5) with them) and ``w = tau - d`` from ``tail`` on (the law itself,
``d`` later). ``w`` is ``sqrt(2 W)`` with ``W'' = r``: where the law accelerates as fast as
it can (``sigma_0 = u t_0^2 / 2``) the warped one does so at ``u r`` (``u (w^2/2)''``), and
its speed is ``w'`` times the law's at the same sigma (``w' <= 1``: within the velocity
limits). ``r = r_0(tau / rise) + kappa b(tau / tail)``: ``r_0`` the step from 0 to 1 whose
first three derivatives vanish at both ends (35 x^4 - 84 x^5 + 70 x^6 - 20 x^7), ``b`` a
bump of unit mass over the tail (630 x^4 (1 - x)^4). A law slower than the fastest from
rest never meets it again while it accelerates at its limit, so ``W = (tau - d)^2 / 2``
from ``tail`` on (both its value and its slope) takes the bump's small overshoot ``kappa``
(``r`` up to ``1 + 2.46 kappa`` over the tail: 1.8e-4 at ``tail = 20 rise``, which the
final fit onto the limits pays as a slowing of that share). The two conditions give
``kappa`` and ``d``: ``int_0^tail (1 - r) = d`` and ``int_0^tail tau (1 - r) = d^2 / 2``.

**Its cost** is ``d``, about ``rise / 2`` at each side of a corner (0.4985 ``rise`` at
``tail = 20 rise``).

**The flat steps** (:meth:`Ramp.flat`, with limits of higher orders, which size the rise
by the ramp's jerk and torque rate, ``u max r_0' / rise``, and torque acceleration, ``u max
|r_0''| / rise^2``, times their coefficients: :func:`~hodyn_cli.algorithms.limits.rates.
rise`). Near the rest sigma_dot ~ 0, so a joint's jerk is ``q_sigma sigma'''`` and a torque
rate and acceleration ``M q_sigma sigma'''`` and ``.. sigma''''``: bounds on ``u r_0' /
rise`` and ``u r_0'' / rise^2`` alone. Every step costs ``int (1 - r_0)`` = rise / 2 (r_0
odd about its middle), so the fastest ramp is the one with the shortest rise: under the jerk
alone r_0' = 1 (u stepped in at the limit itself, a rise of ``u / J``), under the torque
acceleration alone r_0'' = +-4 (a rise of ``2 sqrt(u / S)``), under both the S-curve of one
order up, r_0'' at +-C over a share a at each end and r_0' = 1 / (1 - a) between (C = 1 / (a
(1 - a))). The flat steps ride it: r_0's slope turned on over the first a of the rise
(:data:`FLATS`), constant between, turned off over the last, r_0''' continuous (the turn's
curvature a smooth bump, K times its mean at its peak: :data:`_SMOOTH`, :data:`_FLATTER`),
in pieces (each a polynomial in its own ``tau - start``): slope ``1 / (1 - a)``, curvature
``K / (a (1 - a))`` (:data:`STEEPEST`). At a = 1/6 a jerk-bound rise is 1.2 times the
fastest (the single step's, 2.19 times; at the 1/3 kept before, 1.5 times); at a = 1/2,
turned by the flatter bump, a torque-acceleration-bound one 1.19 times (the single step's
1.37 times). The 1/3 step: 0.4978 ``rise`` at ``tail = 20 rise``, overshoot 2.7e-4.

>>> flat = Ramp.flat(0.01)
>>> float(round(flat.delay / flat.rise, 4)), float(round(flat.overshoot, 6))
(0.4978, 0.000266)

>>> ramp = Ramp(0.01)
>>> float(round(ramp.delay / ramp.rise, 4)), float(round(ramp.overshoot, 6))
(0.4985, 0.00018)
>>> ramp.warp(np.array([0.0, ramp.tail]))[:, :3].round(6).tolist()  # w, w', w'' at 0, tail
[[0.0, 0.0, 0.0], [0.195015, 1.0, 0.0]]
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache
from math import factorial

import numpy as np
from numpy.polynomial import Polynomial
from numpy.polynomial.polynomial import polyval

from hodyn_cli.algorithms.limits.jets import product, square_root

__all__ = ["TAIL", "STEEPEST", "FLAT", "Ramp", "Start", "DEEPEST"]

#: the tail (where the warp returns to the law, its overshoot spread) in rises: a longer one
#: overshoots less (``2.46 kappa``: 7.6e-4 at 10, 1.8e-4 at 20) and needs a longer piece
TAIL = 20
#: the step r_0 (0 to 1, three derivatives vanishing at both ends) and the tail's bump
_STEP = Polynomial([0, 0, 0, 0, 35, -84, 70, -20])
_BUMP = 630 * Polynomial([0, 0, 0, 0, 1, -4, 6, -4, 1])
#: the on-curves of the flat steps (:meth:`Ramp.flat`), S (0 to 1, ``S(y) = 1 - S(1 - y)``):
#: r_0's slope ``s S(x / a)`` turned on over the step's flat share a, its curvature
#: ``s S' / a`` there, ``K s / a`` at most, K = max S' (S''s mean is 1). The smooth step
#: 10 y^3 - 15 y^4 + 6 y^5 (S' = 30 y^2 (1 - y)^2, K = 15/8), and a flatter one, S' = f /
#: mean f with ``f = (1 - (2 y - 1)^4)^2`` (K = 45/32). Why two: the fastest step under a
#: bound on r_0'' alone (a torque acceleration) turns at that bound at once (K = 1, its
#: rise at a = 1/2 ``2 / sqrt(bound)``), which r_0''' continuous at the rest (q^(5) through a
#: corner) forbids; S' vanishing with its slope at both ends, the flatter one's rise is
#: sqrt(K) = 1.19 times that, the smooth step's 1.37 times, the single step's (7.51) 1.37
#: times too. But r_0^(4) jumps by ``s S'''(0) / a^3`` at the turns' ends (60 and 180),
#: which the output's q^(6) carries: the flatter one at a = 1/8 failed validate on the
#: bench's ur5-p2p-1kHz at every smoothing tried, the smooth one passed. So the flatter one
#: turns the step whose curvature decides (a = 1/2: r_0^(4) 2880 there, the smooth step's
#: 2430 at a = 1/3, which passed at 1 kHz), the smooth one the steps that ride a jerk
_SMOOTH = Polynomial([0, 0, 0, 10, -15, 6])
_FLATTER = (lambda f: f.integ() / f.integ()(1.0))(
    64 * Polynomial([0, 1, -1]) ** 2 * Polynomial([1, -2, 2]) ** 2)
#: the flat shares a ramp for limits of higher orders may take (:func:`~hodyn_cli.algorithms.
#: limits.rates.shape` takes the one whose rise is the shortest): a smaller one rides a jerk
#: limit (r_0's slope ``1 / (1 - a)``: the constant jerk's 1 as a -> 0, 1.5 at 1/3), the
#: largest, 1/2, a torque acceleration (r_0'' up to ``K / (a (1 - a))``: 5.63, the single
#: step's 7.51). 1/6 at least: r_0^(4) and r_0''' at the turns grow as a^-3 and a^-2,
#: which the output's q^(6) and q^(5) carry: at 1/8 the UR5's corners with --jerk 500 at
#: 20 Hz (tests/test_ramps_shapes.py) failed validate at every smoothing tried; at 1/6
#: they pass
FLATS = (1 / 6, 1 / 4, 1 / 3, 1 / 2)
#: a flat share of :data:`FLATS` (:meth:`Ramp.flat`'s, the module docstring's)
FLAT = 1 / 3


def _turn(a: float) -> tuple[Polynomial, float]:
    """The on-curve S of the flat step of share ``a`` and its K (:data:`_SMOOTH`,
    :data:`_FLATTER`)."""
    return (_FLATTER, 45 / 32) if a >= 0.5 else (_SMOOTH, 15 / 8)


def _flat_step(a: float) -> list[tuple[float, Polynomial]]:
    """r_0 in pieces (start, polynomial in its own ``y = x - start``) on [0, 1): a slope ``s
    S(x / a)`` turned on over ``a`` (S: :func:`_turn`'s), ``s = 1 / (1 - a)`` between, turned
    off over the last ``a`` (r_0(1 - x) = 1 - r_0(x)); no piece between at a = 1/2. (Each in
    its own y: the last one's degree-10 polynomial in x itself, 1 - r_0(1 - x), lost 8e-6 of
    r_0(1) to rounding at a = 1/8.)"""
    s, y = 1 / (1 - a), Polynomial([0, 1])
    turn = s * a * _turn(a)[0].integ()  # (of y / a: r_0 over the turn on)
    on = turn(y / a)
    off = (1 - a, 1 - turn(1 - y / a))
    if a >= 0.5:
        return [(0.0, on), off]
    return [(0.0, on), (a, Polynomial([on(a), s])), off]


def _steepest(pieces: list[tuple[float, Polynomial]]) -> tuple[float, float]:
    """The step's largest |r_0'| and |r_0''| on [0, 1] (its pieces each in its own ``x -
    start``)."""
    ends = [lo for lo, _ in pieces[1:]] + [1.0]
    slope, curvature = (max(float(np.abs(poly.deriv(k)(np.linspace(0, hi - lo, 4001))).max())
                            for (lo, poly), hi in zip(pieces, ends, strict=True))
                        for k in (1, 2))
    return slope, curvature


#: per step (its flat share: 0 the single step, one of :data:`FLATS` a flat one), its
#: steepest slope and curvature: where a law's path acceleration u steps in over ``rise``,
#: sigma^(3) is up to ``STEEPEST[flat][0] |u| / rise`` and sigma^(4) up to
#: ``STEEPEST[flat][1] |u| / rise^2`` (the ramps' jerk, torque rates and torque
#: accelerations: :func:`~hodyn_cli.algorithms.limits.rates.rise`): the single step's (2.19,
#: 7.51) sampled, a flat one's ``(1 / (1 - a), K / (a (1 - a)))`` exactly (its slope's flat
#: top; its turns' peak, K times their mean ``s / a``): at 1/3 (1.5, 6.33), at 1/2 (2, 5.63)
STEEPEST = {0.0: _steepest([(0.0, _STEP)])} | {
    a: (1 / (1 - a), _turn(a)[1] / (a * (1 - a))) for a in FLATS}


@cache
def _shape(flat: float) -> tuple[tuple[tuple[float, Polynomial], ...], float, float]:
    """The step r_0 of a ramp (its pieces; ``flat``: :class:`Ramp`'s) and its two integrals
    ``int (1 - r_0)`` and ``int x (1 - r_0)`` over [0, 1] (the tail's kappa and the delay
    solve for them, :class:`Ramp`): made once per step, not per ramp (~0.5 ms of
    polynomial arithmetic each; a point-to-point path makes two ramps a corner)."""
    step = _flat_step(flat) if flat else [(0.0, _STEP)]
    ends = [lo for lo, _ in step[1:]] + [1.0]
    # (each piece in its own y = x - lo: x = y + lo)
    mass = 1 - sum(poly.integ()(hi - lo)  # int (1 - r_0) = 1/2
                   for (lo, poly), hi in zip(step, ends, strict=True))
    moment = 0.5 - sum((Polynomial([lo, 1]) * poly).integ()(hi - lo)  # int x (1 - r_0)
                       for (lo, poly), hi in zip(step, ends, strict=True))
    return tuple(step), mass, moment


def _derived(poly: Polynomial, orders: int, known: list[np.ndarray]) -> list[np.ndarray]:
    """The coefficients (lowest first) of ``poly`` and of its derivatives up to ``orders -
    1``, kept in ``known`` (replaced whole by a longer list where more are asked: a list
    read by another thread meanwhile is never one in the making): each derivative made
    once, then evaluated by ``polyval`` (a Polynomial's call maps its argument through its
    domain, the identity here: ``0.0 + 1.0 * t``, the same values; ``deriv`` and the call
    check their series each time, ~20 us apiece: Ramp.warp's orders times its pieces at
    each of its calls, ~40 on the xArm7's point-to-point path at 20 Hz, 70 ms of its CPU)."""
    if len(known) >= orders:
        return known[:orders]
    made = [poly.deriv(j).coef if j else poly.coef for j in range(orders)]
    if len(made) > len(known):
        known[:] = made
    return made


def _composed(p: Polynomial, q: np.ndarray) -> Polynomial:
    """``p(Q)``, Q the polynomial of the coefficients ``q`` (lowest first), by the operations
    of Polynomial's own call, on plain arrays: its argument mapped through the domain (the
    identity, ``0.0 + 1.0 q``), then Horner's scheme in polynomials, each step a
    convolution, the constant added and trailing zeros trimmed: the same coefficients to
    the bit (tests/test_ramps_series.py), without a Polynomial made and its series checked
    at each step (a flat ramp's eight compositions, ~2.5 of its 3.6 ms)."""
    q = 0.0 + 1.0 * q
    c = p.coef
    out = np.array([c[-1] + 0.0])
    for a in c[-2::-1]:
        out = np.convolve(out, q)
        out[0] = a + out[0]
        last = len(out)
        while last > 1 and out[last - 1] == 0:
            last -= 1
        out = out[:last]
    return Polynomial(out)

#: Newton's steps of :meth:`Ramp.inverse` at most (3-5 reach rounding)
_NEWTON = 40


class Ramp:
    """The warp ``t_0 = w(tau)`` of a law near its rest (module docstring): ``rise`` seconds
    of step, ``tail`` (``TAIL`` rises, or ``tail`` given in rises) to rejoin the law,
    ``delay`` = d (its cost), ``overshoot``: the largest ``r - 1``. ``flat``: the step's
    slope turned on and off over that share of the rise, constant between (0: the single
    polynomial step of the module docstring; one of :data:`FLATS` for limits of higher
    orders, :func:`~hodyn_cli.algorithms.limits.rates.shape`'s; :data:`FLAT`: :meth:`flat`)."""

    def __init__(self, rise: float, tail: float = TAIL, flat: float = 0.0):
        self.rise, self.tail = rise, tail * rise
        step, mass, moment = _shape(flat)
        # with y = kappa tail / rise: d = (mass - y) rise and the moment's condition
        # moment - y tail / 2 = (mass - y)^2 / 2, a quadratic in y (its positive root)
        b = tail / 2 - mass
        y = -b + np.sqrt(b * b - mass**2 + 2 * moment)
        self.delay = (mass - y) * rise
        kappa = y / tail
        self.overshoot = kappa * _BUMP(0.5)
        # 2 W in pieces of tau (W'' = r, W and W' continuous), the first as tau^6 P (W's
        # lower coefficients vanish: r ~ tau^4 there; w = tau^3 sqrt(P), well conditioned at
        # the rest); the last from the rise to the tail
        # 2 W in pieces (W'' = r, W and W' continuous), each in its own v = tau - start (sums
        # of powers of tau itself rounded by up to 400 units in the last place within the
        # flat step's last piece, below which Newton's steps of :meth:`inverse` could not
        # shrink), the first as v^6 P (W's lower coefficients vanish: r ~ tau^4 there; w =
        # tau^3 sqrt(P), well conditioned at the rest); the last from the rise to the tail
        starts = [lo * rise for lo, _ in step] + [rise]
        shapes = [poly for _, poly in step] + [Polynomial([1.0])]
        self._starts = np.array(starts)
        self._polys: list[Polynomial] = []
        value = slope = 0.0
        for i, (lo, shape) in enumerate(zip(starts, shapes, strict=True)):
            v = np.array([lo, 1.0])  # (tau as a polynomial in v; the step's pieces in v)
            W = (_composed(shape, np.array([0.0, 1.0]) / rise)
                 + kappa * _composed(_BUMP, v / self.tail)).integ(
                2, k=[slope, value])
            hi = (starts[i + 1] if i + 1 < len(starts) else self.tail) - lo
            value, slope = float(W(hi)), float(W.deriv()(hi))
            self._polys.append(Polynomial(2 * W.coef[6:]) if i == 0 else 2 * W)
        self._series: list[list[np.ndarray]] = [[] for _ in self._polys]  # (_derived's)
        grid = np.linspace(0.0, self.tail, 257)  # (tau, w): :meth:`inverse`'s first guess
        self._table = grid, self._w(grid)[0]

    @classmethod
    def flat(cls, rise: float, tail: float = TAIL) -> Ramp:
        """The ramp for limits of higher orders: its slope flat over the middle of the rise
        (:data:`FLAT`)."""
        return cls(rise, tail, FLAT)

    @property
    def joins(self) -> np.ndarray:
        """The tau (from the rest, increasing) where its pieces join: the step's inner joins,
        its rise and its tail. r^(4) jumps there (the step's and the bump's fourth
        derivatives do not vanish at their ends), so the warped law's sigma^(6), and the
        output's q^(6), jump there too (:func:`~hodyn_cli.algorithms.limits.reachability.
        _warped` puts a played point at each)."""
        return np.append(self._starts[1:], self.tail)

    def _piece(self, tau: np.ndarray) -> np.ndarray:
        """The index of the piece of 2 W each tau < tail is in."""
        return np.searchsorted(self._starts, tau, side="right") - 1

    def warp(self, tau: np.ndarray, orders: int = 5) -> np.ndarray:
        """(E, orders) ``w, w', ...`` at ``tau`` (>= 0): from the series of ``sqrt(2 W)``
        (near the rest ``tau^3 sqrt(P)``, which stays well conditioned at tau = 0)."""
        tau = np.asarray(tau, dtype=float)
        out = np.zeros((len(tau), orders))
        after = tau >= self.tail
        out[after, 0] = tau[after] - self.delay
        out[after, 1:2] = 1.0
        fact = np.array([factorial(j) for j in range(orders)])
        piece = np.where(after, -1, self._piece(tau))
        for i, poly in enumerate(self._polys):
            mask = piece == i
            t = tau[mask] - self._starts[i]
            F = square_root(np.stack([polyval(t, c) for c in _derived(poly, orders,
                                                                      self._series[i])],
                                     axis=1) / fact)
            if i == 0:  # times tau^3's series about t
                cube = np.stack([t**3, 3 * t**2, 3 * t, np.ones_like(t)], axis=1)
                F = product(cube, F, orders - 1)
            out[mask] = F * fact
        return out

    def inverse(self, t0: np.ndarray) -> np.ndarray:
        """tau with ``w(tau) = t0`` (``0 <= t0``; w is increasing): ``t0 + d`` from the tail
        on, before it Newton's steps on w from the table's interpolated guess, to rounding
        (64 bisections of :meth:`warp`'s series were 6 ms a call, 0.3 s of a 1 s retime
        with corners; Newton's from the guess converge in 3-5 steps)."""
        t0 = np.asarray(t0, dtype=float)
        tau = t0 + self.delay
        inside = t0 < self.tail - self.delay
        if not inside.any():
            return tau
        goal = t0[inside]
        guess = np.interp(goal, self._table[1], self._table[0])
        first = goal < self._table[1][1]  # (w ~ tau^3 sqrt(P(0)): its cube root, not a chord)
        guess[first] = np.cbrt(goal[first] / np.sqrt(self._polys[0].coef[0]))
        tau[inside] = _newton(self._w, goal, guess, self.tail, self.rise)
        return tau

    def _w(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(w, w') at tau < tail alone (Newton's of :meth:`inverse`): ``tau^3 sqrt(P)`` near
        the rest, ``sqrt(2 W)`` on."""
        piece = self._piece(tau)
        P, dP = np.zeros_like(tau), np.zeros_like(tau)
        for i, poly in enumerate(self._polys):
            mask = piece == i
            v = tau[mask] - self._starts[i]
            c, slope = _derived(poly, 2, self._series[i])
            P[mask], dP[mask] = polyval(v, c), polyval(v, slope)
        near = piece == 0
        root = np.sqrt(np.maximum(P, 0.0))
        half = dP / (2 * np.where(root > 0, root, 1.0))
        cube = np.where(near, tau**3, 1.0)
        return cube * root, np.where(near, 3 * tau**2 * root + cube * half, half)


#: a rest's warp (:class:`Start`): ``w = tau - epsilon L G(tau / L)``, G' = g = x (1 - x)^6
#: (g(0) = 0, g'(0) = 1; g and its first five derivatives vanish at 1: w is C^6 where it
#: rejoins the law)
_DIP = Polynomial([0, 1, -6, 15, -20, 15, -6, 1])
_G = _DIP.integ()
#: _G's coefficients and its derivatives' (:func:`_derived`), made as Start.warp asks for them
_G_SERIES: list[np.ndarray] = []
#: g's largest value on [0, 1] (at 1/7): w' >= 1 - epsilon DEEPEST
DEEPEST = float(_DIP(1 / 7))


class Start:
    """The warp ``t_0 = w(tau)`` of a law at a rest that is an end of the motion (not a
    corner): ``w = tau - epsilon L G(tau / L)`` over ``L`` seconds (``tail``), ``tau - d``
    after (``delay`` d = epsilon L G(1) = epsilon L / 56, its cost). w(0) = 0 and w'(0) = 1:
    the law's speed and acceleration u at the rest are its own, and ``w''(0) = -epsilon /
    L`` gives it the jerk ``sigma''' = -3 u epsilon / L`` there (where the law, x linear
    in sigma at the rest, has none: ``sigma''' = x'' sqrt(x) / 2``); ``w' = 1 - epsilon
    g(tau / L)`` is at most 1 (within the velocity limits) and at least ``1 - epsilon``
    :data:`DEEPEST`.

    >>> start = Start(0.05, 0.5)
    >>> float(round(start.delay * 56 / 0.025, 12))
    1.0
    >>> start.warp(np.array([0.0, 0.05]), 3).round(9).tolist()  # w, w', w'' at 0, tail
    [[0.0, 1.0, -10.0], [0.049553571, 1.0, 0.0]]
    >>> tau = np.array([0.0, 0.01, 0.04, 0.07])
    >>> bool(np.allclose(start.inverse(start.warp(tau, 1)[:, 0]), tau, rtol=0, atol=1e-15))
    True
    """

    def __init__(self, tail: float, epsilon: float):
        self.tail, self.epsilon = tail, epsilon
        self.delay = epsilon * tail * float(_G(1.0))

    def warp(self, tau: np.ndarray, orders: int = 5) -> np.ndarray:
        """(E, orders) ``w, w', ...`` at ``tau`` (>= 0)."""
        tau = np.asarray(tau, dtype=float)
        out = np.zeros((len(tau), orders))
        out[:, 0] = tau
        if orders > 1:
            out[:, 1] = 1.0
        inside = tau < self.tail
        x, L, e = tau[inside] / self.tail, self.tail, self.epsilon
        out[~inside, 0] -= self.delay
        for k, c in enumerate(_derived(_G, orders, _G_SERIES)):
            out[inside, k] -= e * L ** (1 - k) * polyval(x, c)
        return out

    def inverse(self, t0: np.ndarray) -> np.ndarray:
        """tau with ``w(tau) = t0`` (``0 <= t0``; w is increasing, w' within 1 - epsilon
        DEEPEST .. 1): ``t0 + d`` from the tail on, before it Newton's steps from t0."""
        t0 = np.asarray(t0, dtype=float)
        tau = t0 + self.delay
        inside = t0 < self.tail - self.delay
        goal = t0[inside]
        guess = goal + self.delay * (goal / self.tail)  # (w' ~ 1: near the root)
        tau[inside] = _newton(lambda now: tuple(self.warp(now, 2).T), goal, guess, self.tail,
                              self.tail)
        return tau


def _newton(w: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], goal: np.ndarray,
            guess: np.ndarray, tail: float, scale: float) -> np.ndarray:
    """``guess`` (in place) moved by Newton's steps on w (``w(tau) -> (w, w')``, increasing on
    ``0 .. tail``) to ``w = goal``. A point converged is left alone: its tau is its own, not
    its batch's, so a chunk's times are the same however the played motion is cut (stepping
    on with the rest moved 17 % of them by a unit in the last place). It stops where its step
    is a few units in the last place of ``max(tau, scale)``, or stops shrinking: Newton's
    steps shrink until rounding decides them (just below a ramp's rise, tau^3 sqrt(P)'s
    rounding swung some by +-4 units up to the cap of steps, _NEWTON)."""
    going, last = np.arange(len(goal)), np.full(len(goal), np.inf)
    for _ in range(_NEWTON):
        now = guess[going]
        value, slope = w(now)
        step = np.where(slope > 0, (value - goal[going]) / np.where(slope > 0, slope, 1.0), 0.0)
        now = np.clip(now - step, 0.0, tail)
        guess[going] = now
        size = np.abs(step)
        on = (size > 4 * np.spacing(np.maximum(now, scale))) & (size < last)
        going, last = going[on], size[on]
        if not len(going):
            break
    return guess
