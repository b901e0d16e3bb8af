"""A floating root over a chunk: its twist jet in the free-falling frame and the
EOM matrices (6 + nv, equations in :mod:`hodyn_cli.algorithms.dynamics.floating`): the numpy
backend's ``root_jet`` and ``eom_matrices`` with a root twist.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.backends.numpy import closed_form
from hodyn_cli.algorithms.backends.numpy.common import gravity_vector
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData
from hodyn_cli.core.model import Model

__all__ = ["root_jet_numpy", "eom_numpy", "gravity_in_root"]


def root_jet_numpy(R: np.ndarray, Vb: np.ndarray, g: np.ndarray, K: int) -> np.ndarray:
    """The backends' ``root_jet`` of a floating base in numpy, from its orientation R
    (N, 3, 3), body twist derivatives Vb (N, >= K+1, 6) and gravity g (3,) in the world: the
    reference of the compiled kernel."""
    Vb = Vb[:, : K + 1]
    u = closed_form.gravity_accelerations(gravity_in_root(R, g), Vb, K - 1)
    jet = Vb.copy()
    jet[:, 1:] += np.arange(1, K + 1)[:, None] * u[:, :K]
    return jet


def gravity_in_root(R: np.ndarray | None, gravity) -> np.ndarray:
    """``u_0 = Ad_{C_0}^-1 (0; -g) = (0; -R^T g)`` ((N or 1), 6); R None: a fixed base."""
    g = gravity_vector(gravity)
    R = np.eye(3)[None] if R is None else R
    return np.concatenate([np.zeros(R.shape[:1] + (3,)), -np.einsum("nji,j->ni", R, g)], axis=-1)


def eom_numpy(model: Model, qs: np.ndarray, r: int, base: np.ndarray,
              W: dict[int, np.ndarray] | None, with_cbar: bool, root_twist: np.ndarray, *,
              data: ModelData | None = None) -> closed_form.EOMMatrices:
    """Floating-base closed-form matrices of one chunk in numpy (the reference of the compiled
    kernel): the root one more body with ``J_0 = [I 0]``, the sums (20)-(27). ``base[:, 1]``
    ((1 or N) rows): the root's gravity acceleration ``u_0 = (0; -R^T g)``; ``root_twist``
    (N, >= r+2, 6) its body twist and derivatives (without the root's own external wrench:
    the caller adds it to ``Q_ext[..., :6]``)."""
    N, nv = qs.shape[0], model.nv
    nu = np.concatenate([np.broadcast_to(root_twist[:, : r + 2], (N, r + 2, 6)),
                         qs[:, 1 : r + 3]], axis=2)
    J, D = closed_form.jacobians(model, qs, r + 1, base=6, data=data)
    J0 = np.zeros((1, r + 2, 6, 6 + nv))
    J0[:, 0, :, :6] = np.eye(6)
    u0 = base[:, 1]
    wrenches = {b + 1: w for b, w in (W or {}).items()}
    return closed_form.assemble([J0, *J], [model.root_inertia, *model.inertias],
                                [u0, *closed_form.body_gravity(model, D, u0)], nu, r, wrenches,
                                with_cbar)
