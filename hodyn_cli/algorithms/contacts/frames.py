"""The contact frames' motion relative to the floating root, as jets (pose and its first K
time derivatives), and the root's orientation in the world: what the contact wrenches' map
to the root (:mod:`~hodyn_cli.algorithms.backends.numpy.contacts`) and its rates are made of.

With the root held, the spatial forward pass (:mod:`hodyn_cli.algorithms.dynamics.spatial`)
gives each body's pose ``(R_b, p_b)`` and spatial twist ``(omega; v)`` in the root frame; a
contact frame at the constant pose T on its body moves with ``R' = skew(omega) R`` and
``p' = v + omega x p`` (:func:`~hodyn_cli.algorithms.backends.numpy.kinematics.point_derivatives`).
The root turns in the world with its body angular velocity, ``R_0' = R_0 skew(omega_0)``.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.core import jets

__all__ = ["root_rotation"]


def root_rotation(R: np.ndarray, Vb: np.ndarray, K: int) -> np.ndarray:
    """The jet (N, K+1, 3, 3) of the root's orientation in the world from its body twist
    derivatives Vb (N, >= K, 6)."""
    return jets.rotation(R, Vb[..., :3], K, body=True)
