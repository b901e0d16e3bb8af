"""The contact Jacobian: the generalized velocities ``nu = (V_0; qd)`` of a floating base to
each contact's velocity, with its time derivatives, so that the ground reactions F enter the
equations of motion as ``J_c^T F`` (their power is ``F^T J_c nu``).

- A sole: its frame's body twist, ``J_c = Ad_{T^-1} J^b`` (T: the sole frame in the link
  frame, J^b the link's body Jacobian, :mod:`hodyn_cli.algorithms.motion.jacobians`); 6 rows.
- A point: its velocity in world axes, ``R [-skew(r), I] J^b`` (r: the point in the link
  frame, R the link's orientation in the world, turning as ``R' = R skew(omega^b)``); 3 rows.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.motion.jacobians import link_jacobian
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.core import jets, lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.modeling.contacts import Contact

__all__ = ["contact_jacobian"]


def contact_jacobian(model: Model, trajectory: Trajectory, contact: Contact, order: int
                     ) -> np.ndarray:
    """``J_c, J_c', ..., J_c^(order)`` (N, order+1, 3 or 6, 6+n) of one contact (module
    docstring); ``trajectory`` with a floating ``base`` over all joints."""
    Jb = link_jacobian(model, trajectory, contact.link, order=order).Jb
    T = contact.T
    if contact.kind == "surface":
        return lie.Ad_inv(T[:3, :3], T[:3, 3]) @ Jb
    P = np.concatenate([-lie.skew(T[:3, 3]), np.eye(3)], axis=1)
    lk = link_kinematics(model, trajectory, contact.link, order=max(order - 1, 0))
    R = jets.rotation(lk.R, lk.Vb[..., :3], order, body=True)
    return jets.product(R, P @ Jb)
