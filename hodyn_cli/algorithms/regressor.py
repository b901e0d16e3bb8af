"""Dynamic parameters, the regressor and its time derivatives, base parameters.

Parameters (Garofalo, Ott & Albu-Schaeffer, eq. (13)): 10 per moving body (after fixed-joint
lumping), in the body (URDF link) frame about its origin, in Pinocchio's order::

    pi_b = (m, m c_x, m c_y, m c_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz)

with ``I`` the rotational inertia about the body frame origin. The body inertia is linear in
them, ``M_b = sum_p pi_b,p E_p``, and the inverse dynamics (gravity included, as the base
acceleration) is linear in the body inertias, so column ``(b, p)`` of the regressor is the
torque of a model whose only inertia is ``E_p`` on body b::

    tau^(k) = Y^(k) pi + J^T W (external wrenches do not depend on pi: Y excludes them)

and every time derivative ``Y^(k)`` comes from the same recursion (and the same compiled
kernel) as ``tau^(k)``. The Slotine-Li regressor (Remark 4) is
``Y_r pi = M(q) qdd_r + Cbar(q, qd) qd_r + g(q)`` with the closed-form ``Cbar`` of
Mueller & Kumar's eq. (54) (``M_d - 2 Cbar`` is skew-symmetric, as adaptive control needs).

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> pi = parameters(model)
>>> pi.shape, float(pi[0]), parameter_names(model)[:2]
((20,), 1.2, ['m_link1', 'mcx_link1'])
>>> bool(np.allclose(inertia_from_parameters(pi[:10]), model.M[0]))
True
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache

import numpy as np

from hodyn_cli.algorithms.methods import GRAVITY, body_fixed, closed_form
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

__all__ = ["PARAMETERS", "parameters", "parameter_names", "inertia_from_parameters",
           "regressor", "slotine_li_regressor", "BaseParameters", "base_parameters"]

PARAMETERS = ("m", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz")

#: |R_jj| of the pivoted QR below this fraction of |R_00|: column j is not identifiable
BASE_RTOL = 1e-8


def parameters(model: Model) -> np.ndarray:
    """(10 nb,) dynamic parameters of every moving body, in body order."""
    M = model.M
    theta = M[:, :3, :3]
    return np.stack([M[:, 3, 3], M[:, 2, 4], M[:, 0, 5], M[:, 1, 3],
                     theta[:, 0, 0], theta[:, 0, 1], theta[:, 1, 1],
                     theta[:, 0, 2], theta[:, 1, 2], theta[:, 2, 2]], axis=1).reshape(-1)


def parameter_names(model: Model) -> list[str]:
    """``<parameter>_<link>`` for every column of the regressor."""
    return [f"{p}_{link}" for link in model.link_names for p in PARAMETERS]


def inertia_from_parameters(pi) -> np.ndarray:
    """The 6x6 body inertia (angular; linear) of one body's 10 parameters."""
    m, hx, hy, hz, ixx, ixy, iyy, ixz, iyz, izz = np.asarray(pi, dtype=float)
    theta = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    S = lie.skew(np.array([hx, hy, hz]))
    return np.block([[theta, S], [-S, m * np.eye(3)]])


@cache
def unit_models(model: Model) -> tuple[Model, ...]:
    """One model per regressor column: the only inertia is parameter p = 1 on body b."""
    out = []
    for b in range(model.n):
        for p in range(10):
            M = np.zeros_like(model.M)
            M[b] = inertia_from_parameters(np.eye(10)[p])
            out.append(dataclasses.replace(model, M=M))
    return tuple(out)


def _without_wrenches(trajectory: Trajectory) -> Trajectory:
    return Trajectory(trajectory.joint_names, trajectory.derivatives, trajectory.t)


def regressor(model: Model, trajectory: Trajectory, *, order: int = 2, gravity=GRAVITY
              ) -> np.ndarray:
    """``Y^(k)``, k = 0..order: (N, order+1, n, 10 nb) with ``tau^(k) = Y^(k) pi`` (+ J^T W)."""
    traj = _without_wrenches(trajectory)
    cols = [body_fixed.inverse_dynamics(unit, traj, order=order, gravity=gravity)
            for unit in unit_models(model)]
    return np.stack(cols, axis=-1)


def slotine_li_regressor(model: Model, trajectory: Trajectory, qr_d: np.ndarray,
                         qr_dd: np.ndarray, *, gravity=GRAVITY) -> np.ndarray:
    """``Y_r`` (N, n, 10 nb): ``Y_r pi = M qr_dd + Cbar qr_d + g`` (Remark 4); ``qr_d``,
    ``qr_dd`` (N, n) the reference velocity and acceleration."""
    traj = _without_wrenches(trajectory)
    cols = []
    for unit in unit_models(model):
        E = closed_form.matrices(unit, traj, order=0, gravity=gravity)
        cols.append(np.einsum("nij,nj->ni", E.M[:, 0], qr_dd)
                    + np.einsum("nij,nj->ni", E.Cbar[:, 0], qr_d) + E.g[:, 0])
    return np.stack(cols, axis=-1)


@dataclass(frozen=True)
class BaseParameters:
    """A minimal set of identifiable parameter combinations.

    ``pi_base = base_map @ pi``; ``Y_base = Y[..., independent]`` satisfies
    ``Y pi = Y_base pi_base`` for every motion. ``names`` says what each one is.
    """

    independent: np.ndarray
    base_map: np.ndarray
    names: list[str]


def base_parameters(model: Model, *, samples: int = 200, seed: int = 0, gravity=GRAVITY,
                    rtol: float = BASE_RTOL) -> BaseParameters:
    """The base parameters by QR with column pivoting of the regressor stacked over random
    configurations, velocities and accelerations (order 0 suffices: every derivative of
    ``Y pi`` has the same null space)."""
    from scipy.linalg import qr

    from hodyn_cli.modeling import mimic

    rng = np.random.default_rng(seed)
    m = len(model.coordinates)  # random states of the independent joints (mimics follow)
    qs = rng.normal(size=(samples, 3, m))
    qs[:, 0] = rng.uniform(-np.pi, np.pi, size=(samples, m))
    full = mimic.expand(model, Trajectory(model.coordinate_names, qs))
    Y = mimic.project(model, regressor(model, full, order=0, gravity=gravity), axis=2)
    W = Y[:, 0].reshape(-1, Y.shape[-1])
    scale = np.abs(W).max(axis=0)
    used = scale > 0
    _, R, perm = qr(W[:, used] / scale[used], mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    r = int((diag > rtol * diag[0]).sum())
    cols = np.flatnonzero(used)[perm]
    independent, dependent = cols[:r], cols[r:]
    # W_dep = W_ind K (exact on the random samples); pi_base = pi_ind + K pi_dep
    K = np.linalg.lstsq(W[:, independent], W[:, dependent], rcond=None)[0]
    base_map = np.zeros((r, W.shape[1]))
    base_map[np.arange(r), independent] = 1.0
    base_map[:, dependent] = K
    names = parameter_names(model)
    labels = []
    for row in base_map:
        terms = [f"{c:+.6g} {names[j]}" if abs(c - 1) > 1e-12 else f"+{names[j]}"
                 for j, c in enumerate(row) if abs(c) > 1e-10]
        labels.append(" ".join(terms).lstrip("+"))
    order = np.argsort(independent)
    return BaseParameters(independent[order], base_map[order], [labels[i] for i in order])
