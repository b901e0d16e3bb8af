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
    y, s = np.empty_like(x), np.empty_like(x)
    y[:, 0] = np.tanh(x[:, 0])
    with np.errstate(over="ignore"):  # cosh -> inf far out: sech^2 = 0
        s[:, 0] = 1.0 / np.cosh(x[:, 0]) ** 2
    for k in range(x.shape[1] - 1):
        y[:, k + 1] = sum(comb(k, a) * s[:, a] * x[:, k + 1 - a] for a in range(k + 1))
        s[:, k + 1] = -sum(comb(k + 1, b) * y[:, b] * y[:, k + 1 - b] for b in range(k + 2))
    return y


def columns(friction: Friction, v: np.ndarray) -> np.ndarray:
    """``d f^(k) / d (viscous, coulomb, offset)``: (N, K+1, n, 3) from the speeds v and their
    derivatives (N, K+1, n) at which each joint's friction acts."""
    out = np.zeros(v.shape + (3,))
    out[..., 0] = v
    out[..., 1] = tanh_rates(v / friction.velocity)
    out[:, 0, :, 2] = 1.0
    return out


def parameters(friction: Friction) -> np.ndarray:
    """(n, 3): each joint's viscous, coulomb and offset (the columns' parameters)."""
    return np.stack([friction.viscous, friction.coulomb, friction.offset], axis=1)


def torque(friction: Friction, v: np.ndarray) -> np.ndarray:
    """``f^(k)``, k = 0..K, (N, K+1, n) from the speeds v and their derivatives (N, K+1, n)."""
    return np.einsum("skjp,jp->skj", columns(friction, v), parameters(friction))


def at_side(drives: Drives, v: np.ndarray, *, motor: bool) -> np.ndarray | None:
    """The friction ``f^(k)`` (N, K+1, n) of the drives whose friction acts on the motor side
    (``motor``) or the joint side, at speeds v (N, K+1, n) of that side (0 for the other
    joints); None when there is none."""
    on = drives.driven & drives.friction.any & (drives.friction.motor_side == motor)
    return np.where(on, torque(drives.friction, v), 0.0) if on.any() else None
