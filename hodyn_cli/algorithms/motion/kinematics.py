"""Higher-order forward kinematics of one link: pose, twists and their time derivatives.

The spatial forward pass (:mod:`hodyn_cli.algorithms.dynamics.spatial`, Algorithm 1 of the spatial
paper) gives every body's spatial twist ``V^s = (omega; v^s)`` and its derivatives. For a
link with pose ``C = (R, p)`` this module adds the two other views engineers check limits
in:

- body-fixed twist ``V^b = Ad_C^-1 V^s``. With ``d/dt Ad_C^-1 = -Ad_C^-1 ad_{V^s}`` and
  ``Ad_C^-1 [V^s, x] = [V^b, Ad_C^-1 x]``, the body-frame images ``u_m = Ad_C^-1 V^s(m)``
  obey ``u_m' = u_{m+1} - [V^b, u_m]``; with ``V^b = u_0`` the Leibniz table
  ``d^k u_m = d^(k-1) u_{m+1} - sum_j C(k-1,j) [d^j u_0, d^(k-1-j) u_m]`` is triangular;
- derivatives of the link origin in the root frame: ``p' = v^s + omega x p`` and, by
  Leibniz, ``p^(k+1) = v^s(k) + sum_j C(k,j) omega^(j) x p^(k-j)`` (velocity,
  acceleration, jerk, ... of the point, e.g. a tool centre point).

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> from hodyn_cli.core.trajectory import cosine
>>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
>>> traj = cosine(model.joint_names, [0.0], amplitude=0, omega=1, offset=0, orders=4)
>>> lk = link_kinematics(model, traj, "tool0", order=3)
>>> lk.p.round(12) + 0.0   # arm stretched along the root's x axis: L1 + L2
array([[0.7, 0. , 0. ]])
>>> lk.Vs.shape, lk.pd.shape
((1, 4, 6), (1, 4, 3))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.kinematics import frame_pose, point_derivatives
from hodyn_cli.algorithms.backends.numpy.spatial import body_fixed_twists
from hodyn_cli.algorithms.dynamics import floating
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name, free_root_motion
from hodyn_cli.errors import HodynError, TrajectoryError

__all__ = ["LinkKinematics", "link_kinematics"]


@dataclass(frozen=True)
class LinkKinematics:
    """Motion of one link frame at N samples, up to derivative order K.

    Attributes:
        link: the URDF link.
        R, p: (N, 3, 3), (N, 3) pose of the link frame in the root frame.
        Vs: (N, K+1, 6) spatial twist (omega; v^s) in the root frame and derivatives.
        Vb: (N, K+1, 6) body-fixed twist in the link frame and derivatives.
        pd: (N, K+1, 3) velocity, acceleration, ... of the link origin, root frame.
    """

    link: str
    R: np.ndarray
    p: np.ndarray
    Vs: np.ndarray
    Vb: np.ndarray
    pd: np.ndarray

    @property
    def order(self) -> int:
        return self.Vs.shape[1] - 1


def link_kinematics(model: Model, trajectory: Trajectory, link: str, order: int = 3,
                    data: backends.Data | None = None) -> LinkKinematics:
    """Pose, twists and their first ``order`` derivatives of ``link`` (needs q^(order+1)).

    With a floating root (``trajectory.base``, Vb to order ``order``) in the world frame,
    the robot under its free root joint (:func:`~hodyn_cli.algorithms.dynamics.floating.
    free_root_model`); else in the root frame. By the backend's ``spatial_kinematics`` (``data``: its Data for
    the model, :func:`~hodyn_cli.algorithms.backends.prepare`).
    """
    if link not in model.links:
        raise HodynError(f"the model has no link '{link}' (links: {', '.join(model.links)})")
    if order < 0:
        raise HodynError(f"order must be >= 0, got {order}")
    if trajectory.orders < order + 2:
        missing = ", ".join(derivative_name("q", k) for k in range(trajectory.orders, order + 2))
        raise TrajectoryError(f"kinematics of order {order} needs {missing} (not in the trajectory)")
    N, K = trajectory.n_samples, order
    frame, base = model.links[link], trajectory.base
    if base is not None and base.orders < K + 1:
        missing = ", ".join(f"base_{derivative_name('Vb', k)}" for k in range(base.orders, K + 1))
        raise TrajectoryError(f"kinematics of order {order} needs {missing} (not in the base motion)")
    if base is not None:  # a floating root: the robot under its free root joint, in the world
        free, free_data = floating.free_root_model(model, data)
        return link_kinematics(free, free_root_motion(trajectory, free.dof_names), link, order,
                               free_data)
    if frame.body < 0:  # on the root: at rest
        R = np.broadcast_to(frame.T[:3, :3], (N, 3, 3)).copy()
        p = np.broadcast_to(frame.T[:3, 3], (N, 3)).copy()
        Vs = np.zeros((N, K + 1, 6))
    else:
        backend, data = backends.prepare(model, data)
        kin = backend.spatial_kinematics(model, data, trajectory.derivatives, K, None)
        R, p = frame_pose(kin, frame)
        Vs = kin.V[frame.body]
    return LinkKinematics(link, R, p, Vs, body_fixed_twists(R, p, Vs), point_derivatives(p, Vs))
