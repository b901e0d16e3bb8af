"""Spatial recursive O(n) kinematics of order K and inverse dynamics (method ``spatial``).

Mueller, "An O(n)-algorithm for the higher-order kinematics and inverse dynamics of
serial manipulators using spatial representation of twists" (the spatial paper). Its
formulas were lost in the text conversion; they are rebuilt here from the Lie group
identities the paper names, with its equation numbers. Everything is expressed in the
root (world) frame; body i has parent p, n bodies form a tree.

Kinematics (sec. II-III, Algorithm 1). Spatial POE (4)-(5)::

    C_i = E_i A_i,   E_i = E_p exp(Y_i^0 q_i),   Y_i^0 = Ad_{A_i} X_i        (4), (5)

The instantaneous joint screw ``Y_i = Ad_{E_p} Y_i^0`` moves with the parent, so
``d/dt Ad_{E_p} = ad_{V_p} Ad_{E_p}`` gives ``Y_i' = [V_p, Y_i]`` (9) and, by Leibniz::

    Y_i^(k) = sum_{j<k} C(k-1, j) [V_p^(j), Y_i^(k-1-j)]                              (9)

The spatial twist adds joint rates without any frame transformation (6)::

    V_i = V_p + Y_i qd_i
    V_i^(k) = V_p^(k) + sum_{j<=k} C(k, j) Y_i^(j) q_i^(k+1-j)                       (6), (9)

Dynamics (sec. V). The spatial mass matrix is the body inertia moved to the world
frame, and its rate follows from ``d/dt Ad_{C_i}^-1 = -Ad_{C_i}^-1 ad_{V_i}``::

    M_i^s = Ad_{C_i}^-T M_i Ad_{C_i}^-1                                               (13)
    M_i^s' = -ad_{V_i}^T M_i^s - M_i^s ad_{V_i}                                       (14)
    M^s(k) = -sum_{j<k} C(k-1, j) (ad_{V^(j)}^T M^s(k-1-j) + M^s(k-1-j) ad_{V^(j)})

The momentum balance ``d/dt (M^s V) = W`` with (14) and ``ad_V V = 0`` gives the
Newton-Euler equations in spatial form and, differentiated, their rates::

    Pi_i = M_i^s V_i                                                                  (12)
    Pi_i' = M_i^s V_i' - ad_{V_i}^T Pi_i                                              (16)
    Pi^(k+1) = sum_{j<=k} C(k, j) (M^s(j) V^(k+1-j) - ad_{V^(j)}^T Pi^(k-j))      (17)-(19)

Inter-body wrenches need no frame transformation either; the joint torque is the
wrench's power on the instantaneous joint screw::

    W_i = Pi_i' + sum_{c child} W_c + W_i^ext                                     (26)-(30)
    tau_i^(k) = sum_{j<=k} C(k, j) Y_i^(j)T W_i^(k-j)                                (31)

Gravity is the ground acceleration ``V_0' = (0; -g)`` (Algorithm 1), carried through
every derivative (see :func:`hodyn_cli.algorithms.dynamics.common.base_motion`). An external
wrench ``W^b`` that a link exerts on its environment (docs/conventions.md) enters in spatial form
``W^s = Ad_{C_i}^-T W^b`` with ``W^s' = Ad_{C_i}^-T W^b' - ad_{V_i}^T W^s`` (22).

Arrays: per body, ``(N, K+1, 6)`` (sample, derivative order, screw); poses ``(N, 3, 3)``
and ``(N, 3)``; spatial inertias ``(N, 6, 6)``.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics.common import GRAVITY, solve_in_chunks
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

__all__ = ["inverse_dynamics", "joint_wrenches"]


def joint_wrenches(model: Model, trajectory: Trajectory, *, order: int = 2,
                   gravity=GRAVITY, data: backends.Data | None = None) -> np.ndarray:
    """Wrench each body's parent exerts on it through its joint, in the body frame, and
    its first ``order`` derivatives: (N, order+1, n, 6), by the backend that runs."""
    backend, data = backends.prepare(model, data)

    def per_chunk(qs: np.ndarray, base: np.ndarray, wrenches: dict[int, np.ndarray]
                  ) -> np.ndarray:
        _, F = cast(tuple, backend.spatial_inverse_dynamics(model, data, qs, base, wrenches,
                                                            order=order, joint_wrenches=True))
        return F

    return solve_in_chunks(model, trajectory, order, gravity, per_chunk, (model.n, 6),
                           joint_models=True)


def inverse_dynamics(model: Model, trajectory: Trajectory, *, order: int = 2,
                     gravity=GRAVITY, data: backends.Data | None = None) -> np.ndarray:
    """tau and its first ``order`` time derivatives, (N, order+1, n), by the backend that
    runs (its ``spatial_inverse_dynamics``)."""
    backend, data = backends.prepare(model, data)

    def per_chunk(qs: np.ndarray, base: np.ndarray, wrenches: dict[int, np.ndarray]
                  ) -> np.ndarray:
        return cast(np.ndarray, backend.spatial_inverse_dynamics(model, data, qs, base,
                                                                 wrenches, order=order))

    return solve_in_chunks(model, trajectory, order, gravity, per_chunk, joint_models=True)
