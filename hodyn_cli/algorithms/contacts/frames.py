"""The contact frames' motion relative to the floating root, as jets (pose and its first K
time derivatives), and the root's orientation in the world: what the contact wrenches' map
to the root (:mod:`~hodyn_cli.algorithms.backends.numpy.contacts`) and its rates are made of.

Both come from the robot under its free root joint
(:func:`~hodyn_cli.core.model.with_free_root`, its motion
:func:`~hodyn_cli.core.trajectory.free_root_motion`): the contact frames are frames of the
free joint's body, the root, so they move with the joints the free joint carries; the
root's orientation is the free joint's rotation.

With the root held, the spatial forward pass (:mod:`hodyn_cli.algorithms.dynamics.spatial`)
gives each body's pose ``(R_b, p_b)`` and spatial twist ``(omega; v)`` in the root frame; a
contact frame at the constant pose T on its body moves with ``R' = skew(omega) R`` and
``p' = v + omega x p`` (:func:`~hodyn_cli.algorithms.backends.numpy.kinematics.point_derivatives`).
The free joint's configuration ``(r; p)`` gives ``R_0 = exp(skew(r))``, and it turns in the
world with its body angular velocity, the first three of its velocity coordinates:
``R_0' = R_0 skew(omega_0)`` (docs/conventions.md).
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.core import jets, lie

__all__ = ["root_rotation"]


def root_rotation(qs: np.ndarray, K: int) -> np.ndarray:
    """The jet (N, K+1, 3, 3) of the root's orientation in the world from the free root
    joint's columns, the first six of ``qs`` (N, >= K+1, 6 + nv): row 0 ``(r; p)``, rows
    k >= 1 the body twist's derivative k-1.

    >>> qs = np.zeros((1, 3, 6)); qs[0, 0, 2] = np.pi / 2; qs[0, 1, 2] = 1.0   # about z
    >>> root_rotation(qs, 1)[0, :, :, 0].round(12).tolist()   # R e_x = e_y, turning to -e_x
    [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]
    """
    return jets.rotation(lie.rotation_vector_exp(qs[:, 0, :3]), qs[:, 1:, :3], K, body=True)
