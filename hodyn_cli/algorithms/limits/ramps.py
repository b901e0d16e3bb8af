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

>>> ramp = Ramp(0.01)
>>> float(round(ramp.delay / ramp.rise, 4)), float(round(ramp.overshoot, 6))
(0.4985, 0.00018)
>>> ramp.warp(np.array([0.0, ramp.tail]))[:, :3].round(6).tolist()  # w, w', w'' at 0, tail
[[0.0, 0.0, 0.0], [0.195015, 1.0, 0.0]]
"""
from __future__ import annotations

from collections.abc import Callable
from math import factorial

import numpy as np
from numpy.polynomial import Polynomial
from numpy.polynomial.polynomial import polyval

from hodyn_cli.algorithms.limits.jets import product, square_root

__all__ = ["TAIL", "STEEPEST", "Ramp", "Start", "DEEPEST"]

#: the tail (where the warp returns to the law, its overshoot spread) in rises: a longer one
#: overshoots less (``2.46 kappa``: 7.6e-4 at 10, 1.8e-4 at 20) and needs a longer piece
TAIL = 20
#: the step r_0 (0 to 1, three derivatives vanishing at both ends) and the tail's bump
_STEP = Polynomial([0, 0, 0, 0, 35, -84, 70, -20])
_BUMP = 630 * Polynomial([0, 0, 0, 0, 1, -4, 6, -4, 1])
#: the step's steepest slope and curvature on [0, 1]: where a law's path acceleration u
#: steps in over ``rise``, sigma^(3) is up to ``STEEPEST[0] |u| / rise`` and sigma^(4) up to
#: ``STEEPEST[1] |u| / rise^2`` (the corners' ramps' jerk and torque rates:
#: :func:`~hodyn_cli.algorithms.limits.rates.rise`)
STEEPEST = tuple(float(np.abs(_STEP.deriv(k)(np.linspace(0, 1, 10001))).max()) for k in (1, 2))
#: Newton's steps of :meth:`Ramp.inverse` at most (3-5 reach rounding)
_NEWTON = 40


class Ramp:
    """The warp ``t_0 = w(tau)`` of a law near its rest (module docstring): ``rise`` seconds
    of step, ``tail`` (``TAIL`` rises, or ``tail`` given in rises) to rejoin the law,
    ``delay`` = d (its cost), ``overshoot``: the largest ``r - 1``."""

    def __init__(self, rise: float, tail: float = TAIL):
        self.rise, self.tail = rise, tail * rise
        mass = 1 - _STEP.integ()(1.0)                         # int (1 - r_0) = 1/2
        moment = 0.5 - (Polynomial([0, 1]) * _STEP).integ()(1.0)  # int x (1 - r_0)
        # with y = kappa tail / rise: d = (mass - y) rise and the moment's condition
        # moment - y tail / 2 = (mass - y)^2 / 2, a quadratic in y (its positive root)
        b = tail / 2 - mass
        y = -b + np.sqrt(b * b - mass**2 + 2 * moment)
        self.delay = (mass - y) * rise
        kappa = y / tail
        self.overshoot = kappa * _BUMP(0.5)
        tau = Polynomial([0, 1])
        step = _STEP(tau / rise) + kappa * _BUMP(tau / self.tail)
        W = step.integ(2)
        #: 2 W = tau^6 P on [0, rise) (W's lower coefficients vanish: w = tau^3 sqrt(P))
        self._near = Polynomial(2 * W.coef[6:])
        self._far = 2 * (1 + kappa * _BUMP(tau / self.tail)).integ(
            2, lbnd=rise, k=[W.deriv()(rise), W(rise)])
        self._dnear, self._dfar = self._near.deriv().coef, self._far.deriv().coef
        grid = np.linspace(0.0, self.tail, 257)  # (tau, w): :meth:`inverse`'s first guess
        self._table = grid, self._w(grid)[0]

    def warp(self, tau: np.ndarray, orders: int = 5) -> np.ndarray:
        """(E, orders) ``w, w', ...`` at ``tau`` (>= 0): from the series of ``sqrt(2 W)``
        (near the rest ``tau^3 sqrt(P)``, which stays well conditioned at tau = 0)."""
        tau = np.asarray(tau, dtype=float)
        out = np.zeros((len(tau), orders))
        near = tau < self.rise
        far = ~near & (tau < self.tail)
        after = ~(near | far)
        out[after, 0] = tau[after] - self.delay
        out[after, 1:2] = 1.0
        fact = np.array([factorial(j) for j in range(orders)])
        for mask, poly in ((near, self._near), (far, self._far)):
            t = tau[mask]
            F = square_root(np.stack([poly.deriv(j)(t) if j else poly(t)
                                      for j in range(orders)], axis=1) / fact)
            if poly is self._near:  # times tau^3's series about t
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
        guess[first] = np.cbrt(goal[first] / np.sqrt(self._near.coef[0]))
        tau[inside] = _newton(self._w, goal, guess, self.tail, self.rise)
        return tau

    def _w(self, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(w, w') at tau < tail alone (Newton's of :meth:`inverse`): ``tau^3 sqrt(P)`` near
        the rest, ``sqrt(2 W)`` on."""
        near = tau < self.rise
        P, dP = np.where(near, polyval(tau, self._near.coef), polyval(tau, self._far.coef)), \
            np.where(near, polyval(tau, self._dnear), polyval(tau, self._dfar))
        root = np.sqrt(np.maximum(P, 0.0))
        half = dP / (2 * np.where(root > 0, root, 1.0))
        cube = np.where(near, tau**3, 1.0)
        return cube * root, np.where(near, 3 * tau**2 * root + cube * half, half)


#: a rest's warp (:class:`Start`): ``w = tau - epsilon L G(tau / L)``, G' = g = x (1 - x)^6
#: (g(0) = 0, g'(0) = 1; g and its first five derivatives vanish at 1: w is C^6 where it
#: rejoins the law)
_DIP = Polynomial([0, 1, -6, 15, -20, 15, -6, 1])
_G = _DIP.integ()
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
        poly = _G
        for k in range(orders):
            out[inside, k] -= e * L ** (1 - k) * poly(x)
            poly = poly.deriv()
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
