"""Friction of a drive and its exact time derivatives (docs/drives.md).

Per joint with a drive (:class:`~hodyn_cli.modeling.drives.Friction`)::

    f(v) = viscous v + coulomb tanh(v / coulomb_velocity) + offset

at the joint's speed ``v = qd`` (``friction_side = "joint"``) or the motor's ``v = thetad``
(``"motor"``). The smoothed Coulomb term has every derivative. Along a motion v(t), with
``x = v / coulomb_velocity``, ``y = tanh x`` and ``s = 1 - y^2 = sech^2 x``: ``y' = s x'`` and
``s' = -2 y y'``, so by the Leibniz rule (the derivative polynomials of tanh, Faa di Bruno's
formula, written as a recursion)::

    y^(k+1) = sum_{a=0..k} C(k, a) s^(a) x^(k+1-a)
    s^(k+1) = -sum_{b=0..k+1} C(k+1, b) y^(b) y^(k+1-b)

and ``f^(k) = viscous v^(k) + coulomb y^(k) (+ offset for k = 0)``. The friction parameters
enter linearly: :func:`columns` gives ``d f^(k) / d (viscous, coulomb, offset)``.

>>> x = np.array([[0.0, 1.0, 0.0]])      # x = t at t = 0: tanh' = 1, tanh'' = 0
>>> tanh_rates(x)[0].tolist()
[0.0, 1.0, 0.0]

``s`` starts as ``1 - y^2``: where tanh saturates its rates are ~1e-16 instead of ~exp(-2|x|),
an absolute error far below the friction's own.
"""

from __future__ import annotations

from math import comb

import numpy as np

from hodyn_cli.modeling.drives import Drives, Friction

__all__ = ["PARAMETERS", "tanh_rates", "columns", "parameters", "torque", "at_side"]

#: the friction parameters of a drive, in the regressor's column order
PARAMETERS = ("viscous", "coulomb", "offset")


def tanh_rates(x: np.ndarray) -> np.ndarray:
    """``d^k tanh(x(t))``, k = 0..K, (N, K+1, ...) from x and its derivatives (N, K+1, ...)."""
    x = np.ascontiguousarray(np.moveaxis(x, 1, 0))  # order first: contiguous per order
    y, s = np.empty_like(x), np.empty_like(x)
    y[0] = np.tanh(x[0])
    s[0] = 1.0 - y[0] ** 2  # sech^2, to rounding of 1
    for k in range(len(x) - 1):
        y[k + 1] = sum(comb(k, a) * s[a] * x[k + 1 - a] for a in range(k + 1))
        s[k + 1] = -sum(comb(k + 1, b) * y[b] * y[k + 1 - b] for b in range(k + 2))
    return np.moveaxis(y, 0, 1)


def columns(friction: Friction, v: np.ndarray, joints=slice(None)) -> np.ndarray:
    """``d f^(k) / d (viscous, coulomb, offset)``: (N, K+1, m, 3) from the speeds v and their
    derivatives (N, K+1, m) at which the friction of ``joints`` (m of them) acts."""
    out = np.zeros(v.shape + (3,))
    out[..., 0] = v
    out[..., 1] = tanh_rates(v / friction.velocity[joints])
    out[:, 0, :, 2] = 1.0
    return out


def parameters(friction: Friction) -> np.ndarray:
    """(n, 3): each joint's viscous, coulomb and offset (the columns' parameters)."""
    return np.stack([friction.viscous, friction.coulomb, friction.offset], axis=1)


def torque(friction: Friction, v: np.ndarray, joints=slice(None)) -> np.ndarray:
    """``f^(k) = viscous v^(k) + coulomb d^k tanh(v / coulomb_velocity) (+ offset, k = 0)``,
    k = 0..K, (N, K+1, m) from the speeds v and their derivatives (N, K+1, m) at which the
    friction of ``joints`` acts."""
    f = friction.viscous[joints] * v + friction.coulomb[joints] * tanh_rates(
        v / friction.velocity[joints])
    f[:, 0] += friction.offset[joints]
    return f


def at_side(drives: Drives, v: np.ndarray, *, motor: bool) -> np.ndarray | None:
    """The friction ``f^(k)`` (N, K+1, n) of the drives whose friction acts on the motor side
    (``motor``) or the joint side, at speeds v (N, K+1, n) of that side (0 for the other
    joints); None when there is none."""
    on = np.flatnonzero(drives.driven & drives.friction.any
                        & (drives.friction.motor_side == motor))
    if not on.size:
        return None
    out = np.zeros(v.shape)
    out[..., on] = torque(drives.friction, v[..., on], on)
    return out
