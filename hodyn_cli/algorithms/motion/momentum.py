"""Total mass, centre of mass and centroidal momentum, with their time derivatives.

The spatial forward pass (:mod:`hodyn_cli.algorithms.dynamics.spatial`) gives every body's spatial twist
``V_i`` and its derivatives in a frame fixed in the world (the root frame; for a floating
base the world, the robot under its free root joint). The spatial momentum about
that frame's origin is the sum over bodies, the root link included (spatial paper (12),
(16)-(19): ``Pi_i' = M_i^s V_i' - ad_{V_i}^T Pi_i``)::

    Pi = sum_i M_i^s V_i = (sum_i c_i x m_i c_i' + Theta_i omega_i; m c')

Its linear part is ``m c'`` for the total mass m and the centre of mass c, so
``c^(k+1) = Pi_lin^(k) / m``; the angular momentum about the centre of mass is, with its
Leibniz rates::

    k_G = Pi_ang - c x Pi_lin,    k_G^(k) = Pi_ang^(k) - sum_j C(k, j) c^(j) x Pi_lin^(k-j)

``h = (k_G; m c')`` is the centroidal momentum (Pinocchio's ``hg``, in hodyn's
(angular; linear) order). Its rate is the sum of the external wrenches about the centre of
mass (gravity, supports, contacts): ``h' = (n_G; f)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.backends.numpy.spatial import (
    inertia_derivatives,
    momentum_derivatives,
    spatial_inertia,
)
from hodyn_cli.algorithms.dynamics import floating
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name, free_root_motion
from hodyn_cli.errors import HodynError, TrajectoryError

__all__ = ["Centroidal", "centroidal"]


@dataclass(frozen=True)
class Centroidal:
    """Mass distribution and momentum of the whole robot (root link included) at N samples.

    Attributes:
        mass: total mass (kg).
        com: (N, K+2, 3) centre of mass and its first K+1 derivatives, world (root) frame.
        h: (N, K+1, 6) centroidal momentum ``(k_G; m c')`` and its first K derivatives:
            angular momentum about the centre of mass (world axes), linear momentum.
    """

    mass: float
    com: np.ndarray
    h: np.ndarray

    @property
    def order(self) -> int:
        return self.h.shape[1] - 1


def centroidal(model: Model, trajectory: Trajectory, *, order: int = 1,
               data: backends.Data | None = None) -> Centroidal:
    """Total mass, centre of mass and centroidal momentum with their first ``order``
    derivatives (the centre of mass to ``order + 1``; needs q^(order+1) and, for a floating
    root (``trajectory.base``), its Vb to order ``order``). No base: the root is welded.
    By the backend's ``spatial_kinematics`` (``data``: its Data for the model).

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> from hodyn_cli.core.trajectory import cosine
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
    >>> traj = cosine(model.joint_names, [0.0], amplitude=0, omega=1, offset=0, orders=3)
    >>> c = centroidal(model, traj, order=1)
    >>> c.mass, c.com[0, 0].round(4) + 0.0, float(np.abs(c.h).max())   # stretched, at rest
    (2.0, array([0.52, 0.  , 0.  ]), 0.0)
    """
    base = trajectory.base
    if order < 0:
        raise HodynError(f"order must be >= 0, got {order}")
    if trajectory.orders < order + 2:
        missing = ", ".join(derivative_name("q", k) for k in range(trajectory.orders, order + 2))
        raise TrajectoryError(f"momentum of order {order} needs {missing} (not in the trajectory)")
    if base is not None and base.orders < order + 1:
        missing = ", ".join(f"base_{derivative_name('Vb', k)}" for k in range(base.orders, order + 1))
        raise TrajectoryError(f"momentum of order {order} needs {missing} (not in the base motion)")
    if base is not None and base.n_samples != trajectory.n_samples:
        raise TrajectoryError(f"the base motion has {base.n_samples} samples, the trajectory "
                              f"{trajectory.n_samples}")
    if base is not None:  # a floating root: the robot under its free root joint, in the world
        free, free_data = floating.free_root_model(model, data)
        return centroidal(free, free_root_motion(trajectory, free.dof_names), order=order,
                          data=free_data)
    mass = float(model.root_inertia[3, 3] + model.mass.sum())
    if mass <= 0:
        raise HodynError(f"robot '{model.name}' has no mass: no centre of mass")
    N, K = trajectory.n_samples, order
    backend, data = backends.prepare(model, data)
    com, h = np.empty((N, K + 2, 3)), np.empty((N, K + 1, 6))
    for s in range(0, N, CHUNK):
        sl = slice(s, s + CHUNK)
        com[sl], h[sl] = _chunk(backend, model, data, trajectory.derivatives[sl], K, mass)
    return Centroidal(mass, com, h)


def _chunk(backend: backends.Backend, model: Model, data: backends.Data, qs: np.ndarray,
           K: int, mass: float):
    N = qs.shape[0]
    V0 = np.zeros((1, K + 1, 6))
    kin = backend.spatial_kinematics(model, data, qs, K, V0)
    root = np.broadcast_to(model.root_inertia, (N, 6, 6))
    Pi = momentum_derivatives(inertia_derivatives(root, np.broadcast_to(V0, (N, K + 1, 6)), K - 1),
                              np.broadcast_to(V0, (N, K + 1, 6)), K - 1)         # (12), (16)-(19)
    first_moment = np.broadcast_to(model.root_inertia[[2, 0, 1], [4, 5, 3]], (N, 3)).copy()  # m c
    for i in range(model.n):
        Ms = spatial_inertia(model.inertias[i], lie.Ad_inv(kin.R[i], kin.p[i]))              # (13)
        Pi += momentum_derivatives(inertia_derivatives(Ms, kin.V[i], K - 1), kin.V[i], K - 1)
        first_moment += model.mass[i] * (kin.R[i] @ model.com[i] + kin.p[i])
    c = np.concatenate([first_moment[:, None] / mass, Pi[:, :, 3:] / mass], axis=1)
    h = Pi.copy()
    for k in range(K + 1):
        h[:, k, :3] -= sum(comb(k, j) * lie.cross(c[:, j], Pi[:, k - j, 3:]) for j in range(k + 1))
    return c, h
