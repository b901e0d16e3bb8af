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

from math import factorial

import numpy as np
from numpy.polynomial import Polynomial

from hodyn_cli.algorithms.limits.jets import product, square_root

__all__ = ["TAIL", "STEEPEST", "Ramp"]

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
#: bisections of :meth:`Ramp.inverse` (its interval halved to rounding)
_BISECTIONS = 64


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
        """tau with ``w(tau) = t0`` (``0 <= t0``; w is increasing), by bisection."""
        t0 = np.asarray(t0, dtype=float)
        lo, hi = np.zeros_like(t0), np.maximum(np.full_like(t0, self.tail), t0 + self.delay)
        for _ in range(_BISECTIONS):
            mid = (lo + hi) / 2
            below = self.warp(mid, 1)[:, 0] < t0
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        return (lo + hi) / 2
