"""Derivatives of the EOM matrices with respect to the state and the dynamic parameters.

Garofalo, Ott & Albu-Schaeffer, "On the closed form computation of the dynamic matrices and
their differentiations" (the Garofalo paper), sections III-IV and VI, on the body Jacobians of
the closed form (:mod:`hodyn_cli.algorithms.dynamics.closed_form`). Per body i (inertia
``M_i``, Jacobian ``J_i``, columns ``J_j``: zero unless joint j is on the path to body i;
``j < h`` below means joint j is a strict ancestor of joint h)::

    M = sum_i J_i^T M_i J_i                                                    (6a)
    C = sum_i J_i^T G_i,   G_i = M_i J_i' - ad_{V_i}^T M_i J_i       (Mueller & Kumar (22))
    Cbar = C + sum_i J_i^T M_i ad_{V_i} J_i       (the paper's C (6b): Mdot = Cbar + Cbar^T)
    g = sum_i J_i^T M_i u_i,   u_i = Ad_{C_i}^-1 (0; -g)                         (6c)

The Jacobian derivatives (31) are Lie brackets: ``Ad`` maps brackets to brackets, so the
recursion (31) along the path closes in::

    d J_j / d q_h = [J_j, J_h]  if j < h,  else 0                                (31)
    J_j' = sum_h dJ_j/dq_h qd_h = [J_j, W_j],   W_j = sum_{l > j} J_l qd_l              (28)
    d J_j' / d q_h = [dJ_j/dq_h, W_j] + [J_j, sum_{l > j} qd_l dJ_l/dq_h]                (32)
    d J' / d qd_h = d J / d q_h                                                   (30)
    d u_i / d q_h = -[J_h, u_i],   d V_i / d q_h = dJ_i/dq_h qd,  d V_i / d qd_h = J_h   (18)

and the state derivatives are the product rule on (6), eqs. (24a)-(24d)::

    dM/dq_h = sum_i dJ^T/dq_h M_i J + J^T M_i dJ/dq_h                           (24a)
    dG/dq_h = M_i dJ'/dq_h - ad_{dV/dq_h}^T M_i J - ad_V^T M_i dJ/dq_h
    dC/dq_h = sum_i dJ^T/dq_h G_i + J^T dG/dq_h                                  (24b)
    dC/dqd_h = sum_i J^T (M_i dJ/dq_h - ad_{J_h}^T M_i J)                        (24c)
    dg/dq_h = sum_i dJ^T/dq_h M_i u_i - J^T M_i [J_h, u_i]                       (24d)

(``Cbar`` adds ``M_i (ad_{dV/dq_h} J + ad_V dJ/dq_h)`` resp. ``M_i ad_{J_h} J`` to dG). The
external wrenches' ``Q_ext = sum_i J_i^T W_i`` (W_i held in the body frame) gives
``dQ_ext/dq_h = sum_i dJ^T/dq_h W_i``.

The parameters (13): every matrix is linear in the inertias, ``M_i = sum_p pi_{i,p} E_p``
(:func:`hodyn_cli.algorithms.backends.numpy.regressor.inertia_from_parameters`), so ``dM/dpi_{i,p} = J_i^T E_p
J_i`` and so on: exact, in the regressor's parameter order.

Arrays: a tensor ``dA_dq`` is (N, n, n, n) with the coordinate last: ``[s, a, b, h] =
d A_ab / d q_h`` at sample s; ``dg_dq`` (N, n, n); parameter derivatives (N, n, n, 10 nb) and
(N, n, 10 nb).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from hodyn_cli.algorithms.backends.numpy.closed_form import body_gravity, jacobians
from hodyn_cli.algorithms.backends.numpy.common import CHUNK, gravity_vector
from hodyn_cli.algorithms.backends.numpy.regressor import inertia_from_parameters
from hodyn_cli.algorithms.dynamics.common import GRAVITY, body_wrenches
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import TrajectoryError

__all__ = ["StateDerivatives", "ParameterDerivatives", "state_derivatives",
           "parameter_derivatives"]

#: the 10 unit inertias E_p of one body's parameters (regressor order), (10, 6, 6)
BASIS = np.stack([inertia_from_parameters(e) for e in np.eye(10)])


@dataclass(frozen=True, eq=False, repr=False)
class StateDerivatives:
    """``d/dq`` and ``d/dqd`` of the EOM matrices at N samples (the coordinate last).

    Attributes: ``dM_dq``, ``dC_dq``, ``dC_dqd``, ``dCbar_dq``, ``dCbar_dqd`` (N, n, n, n);
    ``dg_dq``, ``dQ_ext_dq`` (N, n, n) (zeros without external wrenches).
    """

    dM_dq: np.ndarray
    dC_dq: np.ndarray
    dC_dqd: np.ndarray
    dCbar_dq: np.ndarray
    dCbar_dqd: np.ndarray
    dg_dq: np.ndarray
    dQ_ext_dq: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class ParameterDerivatives:
    """``d/dpi`` of M, C, Cbar (N, n, n, 10 nb) and g (N, n, 10 nb), regressor order."""

    dM_dpi: np.ndarray
    dC_dpi: np.ndarray
    dCbar_dpi: np.ndarray
    dg_dpi: np.ndarray


class _Body:
    """One body's Jacobian columns on its path and their state derivatives, for a chunk.

    ``path``: the joints from the root to the body (a chain: joint ``path[j]`` is a strict
    ancestor of ``path[h]`` iff j < h). Columns (N, m, 6) over the path: ``J``; with ``V_{<h}
    = sum_{j < h} J_j qd_j``, ``W[:, j] = sum_{l > j} J_l qd_l = V - V_{<j} - J_j qd_j``;
    ``Jd = J'`` (28); ``dV[:, h] = dV/dq_h = sum_j dJ_j/dq_h qd_j = [V_{<h}, J_h]`` (31);
    ``du[:, h] = du/dq_h``; ``V``, ``u`` (N, 6).
    """

    def __init__(self, J: np.ndarray, u: np.ndarray, qd: np.ndarray, path: np.ndarray):
        self.path = path
        m = len(path)
        self.J = J = np.swapaxes(J[:, :, path], 1, 2)                                # (N, m, 6)
        self.qd = qd = qd[:, path]
        self.later = np.triu(np.ones((m, m)), 1)                                  # [j, h]: j < h
        Jq = J * qd[..., None]
        Vless = np.cumsum(Jq, axis=1) - Jq                                           # V_{<h}
        self.V = Jq.sum(axis=1)
        self.W = self.V[:, None] - Vless - Jq
        self.Jd = lie.bracket(J, self.W)                                                  # (28)
        self.dV = lie.bracket(Vless, J)                                                   # (31)
        self.u = u
        self.du = -lie.bracket(J, u[:, None])                                            # (18)

    @cached_property
    def D(self) -> np.ndarray:
        """``D[:, j, h] = dJ_j/dq_h`` (N, m, m, 6), eq. (31)."""
        return lie.bracket(self.J[:, :, None], self.J[:, None, :]) * self.later[..., None]

    def dJd(self) -> np.ndarray:
        """``d J_j' / d q_h`` (N, m, m, 6), eq. (32)."""
        Y = self.D * self.qd[:, :, None, None]
        P = np.cumsum(Y[:, ::-1], axis=1)[:, ::-1] - Y                   # sum_{l > j} qd_l D_lh
        return lie.bracket(self.D, self.W[:, :, None]) + lie.bracket(self.J[:, :, None], P)


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``[s, i.., j..] = a[s, i..] . b[s, j..]``: dot products of the screws a (N, ..., 6) with
    the screws b (N, ..., 6) of the same sample (J^T A B-type products, one matrix product)."""
    N = a.shape[0]
    out = a.reshape(N, -1, 6) @ np.swapaxes(b.reshape(N, -1, 6), 1, 2)
    return out.reshape(a.shape[:-1] + b.shape[1:-1])


def _chunks(model: Model, trajectory: Trajectory, gravity, size: int = CHUNK):
    """``(samples, bodies, wrenches)`` per chunk: the :class:`_Body` of every moving body."""
    if tuple(trajectory.joint_names) != tuple(model.joint_names):
        raise TrajectoryError("trajectory joints do not match the model's joints")
    if trajectory.orders < 2:
        raise TrajectoryError("matrix derivatives need q and qd")
    u_root = np.concatenate([np.zeros(3), -gravity_vector(gravity)])[None]
    W = body_wrenches(model, trajectory, 0)
    paths = [np.flatnonzero(model.ancestry[:, i]) for i in range(model.n)]
    qs = trajectory.derivatives[:, :2]
    for s in range(0, trajectory.n_samples, size):
        sl = slice(s, s + size)
        J, D = jacobians(model, qs[sl], 0)
        u = body_gravity(model, D, u_root)                                      # (N, 6) each
        bodies = [_Body(J[i][:, 0], u[i], qs[sl, 1], paths[i]) for i in range(model.n)]
        yield sl, bodies, {b: w[sl, 0] for b, w in W.items()}


def state_derivatives(model: Model, trajectory: Trajectory, *, gravity=GRAVITY
                      ) -> StateDerivatives:
    """``dM/dq``, ``dC/dq``, ``dC/dqd``, ``dCbar/dq``, ``dCbar/dqd``, ``dg/dq``, ``dQ_ext/dq``
    at every sample, eqs. (24) with (31), (32); needs q and qd."""
    N, n = trajectory.n_samples, model.n
    out = {name: np.zeros((N, n, n, n)) for name in ("dM_dq", "dC_dq", "dC_dqd", "dCbar_dq",
                                                      "dCbar_dqd")}
    out |= {name: np.zeros((N, n, n)) for name in ("dg_dq", "dQ_ext_dq")}
    for sl, bodies, wrenches in _chunks(model, trajectory, gravity):
        for i, b in enumerate(bodies):
            Mi = model.inertias[i]
            LJ, LD = b.J @ Mi, b.D @ Mi                                 # rows (M_i J_j)^T, ...
            G = b.Jd @ Mi - lie.coad(b.V[:, None], LJ)                                    # (22)
            dG = (b.dJd() @ Mi - lie.coad(b.dV[:, None], LJ[:, :, None])
                  - lie.coad(b.V[:, None, None], LD))                             # [s, b, h]
            dGd = LD - lie.coad(b.J[:, None], LJ[:, :, None])
            H = G + lie.bracket(b.V[:, None], b.J) @ Mi                                   # (54)
            dH = dG + (lie.bracket(b.dV[:, None], b.J[:, :, None])
                       + lie.bracket(b.V[:, None, None], b.D)) @ Mi
            dHd = dGd + lie.bracket(b.J[:, None], b.J[:, :, None]) @ Mi
            # dJ_a/dq_h . (M J_b, G_b, H_b) and J_a . (dG_bh, dGd_bh, dH_bh, dHd_bh) at once
            X, DG, DH = np.moveaxis(np.swapaxes(_dot(b.D, np.stack([LJ, G, H], 1)), 2, 4), 3, 0)
            JG, JGd, JH, JHd = np.moveaxis(_dot(b.J, np.stack([dG, dGd, dH, dHd], 1)), 2, 0)
            dg = _dot(b.D, (b.u @ Mi)[:, None])[..., 0] + _dot(LJ, b.du)
            ix = (sl, *np.ix_(b.path, b.path, b.path))
            for name, value in (("dM_dq", X + np.swapaxes(X, 1, 2)),                   # (24a)
                                ("dC_dq", DG + JG), ("dC_dqd", JGd),                 # (24b), (24c)
                                ("dCbar_dq", DH + JH), ("dCbar_dqd", JHd)):
                out[name][ix] += value
            ix2 = (sl, *np.ix_(b.path, b.path))
            out["dg_dq"][ix2] += dg                                                      # (24d)
            if i in wrenches:
                out["dQ_ext_dq"][ix2] += _dot(b.D, wrenches[i][:, None])[..., 0]
    return StateDerivatives(**out)


def parameter_derivatives(model: Model, trajectory: Trajectory, *, gravity=GRAVITY
                          ) -> ParameterDerivatives:
    """``dM/dpi``, ``dC/dpi``, ``dCbar/dpi`` (N, n, n, 10 n), ``dg/dpi`` (N, n, 10 n), eq.
    (13): the matrices of unit inertias, parameters in the regressor's order."""
    N, n = trajectory.n_samples, model.n
    P = 10 * n
    dM, dC, dCb = (np.zeros((N, n, n, P)) for _ in range(3))
    dg = np.zeros((N, n, P))
    for sl, bodies, _ in _chunks(model, trajectory, gravity):
        for i, b in enumerate(bodies):
            cols = slice(10 * i, 10 * i + 10)
            EJ = b.J[:, None] @ BASIS[None]                             # [s, p, j]: (E_p J_j)^T
            G = b.Jd[:, None] @ BASIS[None] - lie.coad(b.V[:, None, None], EJ)
            EadVJ = lie.bracket(b.V[:, None], b.J)[:, None] @ BASIS[None]
            ix = (sl, *np.ix_(b.path, b.path), cols)
            JEJ, JG, JEadVJ = (np.moveaxis(_dot(b.J, x), 2, 3) for x in (EJ, G, EadVJ))
            dM[ix], dC[ix], dCb[ix] = JEJ, JG, JG + JEadVJ
            dg[sl, b.path, cols] = _dot(b.J, (b.u[:, None, None] @ BASIS)[:, :, 0])
    return ParameterDerivatives(dM, dC, dCb, dg)
