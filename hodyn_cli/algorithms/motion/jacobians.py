"""A link's Jacobians and their time derivatives of any order.

The spatial forward pass (:mod:`hodyn_cli.algorithms.dynamics.spatial`) already carries the
columns: the spatial twist of a link on body b is ``V^s = sum_{j <= b} Y_j qd_j`` (6), so its
spatial Jacobian is ``J^s = [Y_j]`` over the joints on the path from the root (zero elsewhere),
and its derivatives are the screws' derivatives (9)::

    J^s(k) = [Y_j^(k)],    Y_j^(k) = sum_{i<k} C(k-1, i) [V_p^(i), Y_j^(k-1-i)]

A floating root adds 6 columns for its body twist ``V_0`` (generalized velocities ``nu = (V_0;
qd)``, as ``hodyn matrices --floating-base`` orders them): the robot under its free root
joint (:func:`~hodyn_cli.algorithms.dynamics.floating.free_root_model`), whose columns are
the free joint's ``Y_0 = Ad_{C_0} S_0`` in the world, ``S_0 = I``.

The body Jacobian ``J^b = Ad_{C_L}^-1 J^s`` (link frame L) maps ``nu`` to the link's body twist;
column by column its derivatives follow the rule of body-fixed twists
(:func:`~hodyn_cli.algorithms.backends.numpy.spatial.body_fixed_twists`): with ``u_m = Ad_{C_L}^-1
J^s(m)``, ``u_m' = u_{m+1} - [V^b, u_m]``, V^b the link's body twist.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> from hodyn_cli.core.trajectory import cosine
>>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
>>> traj = cosine(model.joint_names, [0.0], amplitude=0, omega=1, offset=0, orders=3)
>>> J = link_jacobian(model, traj, "tool0", order=1)
>>> J.Jb[0, 0].round(12) + 0.0   # stretched along x: each joint turns the tool about z
array([[0. , 0. ],
       [0. , 0. ],
       [1. , 1. ],
       [0. , 0. ],
       [0.7, 0.3],
       [0. , 0. ]])
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.common import leibniz_rates
from hodyn_cli.algorithms.backends.numpy.kinematics import frame_pose
from hodyn_cli.algorithms.backends.numpy.spatial import body_fixed_twists
from hodyn_cli.algorithms.dynamics import floating
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name, free_root_motion
from hodyn_cli.errors import HodynError, TrajectoryError

__all__ = ["LinkJacobian", "link_jacobian", "ROOT_COLUMNS"]

#: the floating root's generalized velocities: its body twist, root frame (as ``hodyn
#: matrices --floating-base`` names them)
ROOT_COLUMNS = ("base_wx", "base_wy", "base_wz", "base_vx", "base_vy", "base_vz")


@dataclass(frozen=True)
class LinkJacobian:
    """A link's Jacobians and their first K derivatives at N samples.

    Attributes:
        link: the URDF link.
        Js: (N, K+1, 6, m) spatial Jacobian and derivatives: ``V^s = Js nu`` (root frame;
            world frame with a floating root).
        Jb: (N, K+1, 6, m) body Jacobian and derivatives: ``V^b = Jb nu`` (link frame).
        columns: the m generalized velocities (joints, a multi-DOF joint's velocity
            coordinates; a floating root's 6 first).
    """

    link: str
    Js: np.ndarray
    Jb: np.ndarray
    columns: tuple[str, ...]


def link_jacobian(model: Model, trajectory: Trajectory, link: str, order: int = 2,
                  data: backends.Data | None = None) -> LinkJacobian:
    """Spatial and body Jacobian of ``link`` and their first ``order`` derivatives (needs
    q^(order+1); a floating root, ``trajectory.base``, its Vb to ``order``), from the
    backend's ``spatial_kinematics`` (``data``: its Data for the model)."""
    if link not in model.links:
        raise HodynError(f"the model has no link '{link}' (links: {', '.join(model.links)})")
    if order < 0:
        raise HodynError(f"order must be >= 0, got {order}")
    K, base = order, trajectory.base
    if trajectory.orders < K + 2:
        missing = ", ".join(derivative_name("q", k) for k in range(trajectory.orders, K + 2))
        raise TrajectoryError(f"Jacobian derivatives of order {order} need {missing} (not in "
                              "the trajectory)")
    if base is not None and base.orders < K + 1:
        missing = ", ".join(f"base_{derivative_name('Vb', k)}" for k in range(base.orders, K + 1))
        raise TrajectoryError(f"Jacobian derivatives of order {order} need {missing} (not in "
                              "the base motion)")
    if base is not None:  # a floating root: the robot under its free root joint, in the world
        free, free_data = floating.free_root_model(model, data)
        J = link_jacobian(free, free_root_motion(trajectory, free.dof_names), link, order,
                          free_data)
        return replace(J, columns=ROOT_COLUMNS + model.coordinate_names)
    N, o, frame = trajectory.n_samples, model.dof_offsets, model.links[link]
    Js = np.zeros((N, K + 1, 6, model.nv))
    if frame.body < 0:
        R = np.broadcast_to(frame.T[:3, :3], (N, 3, 3))
        p = np.broadcast_to(frame.T[:3, 3], (N, 3))
        Vs = np.zeros((N, K + 1, 6))
    else:
        backend, data = backends.prepare(model, data)
        kin = backend.spatial_kinematics(model, data, trajectory.derivatives, K, None)
        for j in np.flatnonzero(model.ancestry[:, frame.body]):  # a multi-DOF joint's nv_j
            Y = kin.Y[j]
            Js[..., o[j] : o[j + 1]] = Y if Y.ndim == 4 else Y[..., None]
        R, p = frame_pose(kin, frame)
        Vs = kin.V[frame.body]
    Vb = body_fixed_twists(R, p, Vs)
    return LinkJacobian(link, Js, _body_columns(Js, R, p, Vb), model.coordinate_names)


def _body_columns(Js: np.ndarray, R: np.ndarray, p: np.ndarray, Vb: np.ndarray) -> np.ndarray:
    """``d^k/dt^k (Ad_C^-1 J^s)`` column by column (module docstring)."""
    N, K1, _, m = Js.shape
    cols = np.moveaxis(Js, 3, 1).reshape(N * m, K1, 6)       # columns as samples
    A = np.repeat(np.swapaxes(lie.Ad_inv(R, p), 1, 2), m, axis=0)
    V = np.repeat(Vb, m, axis=0)
    u = leibniz_rates(cols @ A, lambda j, z, t: -lie.bracket(V[:, j : j + 1], z))
    return np.moveaxis(u.reshape(N, m, K1, 6), 1, 3)
