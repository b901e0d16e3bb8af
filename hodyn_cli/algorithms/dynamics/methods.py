"""Inverse dynamics of order K: tau and its first K time derivatives.

Every method is a pure function ``f(model, trajectory, order, gravity) -> (N, K+1, n)``
array (sample, derivative order, joint). :func:`inverse_dynamics` selects one by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics import body_fixed, closed_form, spatial
from hodyn_cli.algorithms.dynamics.common import GRAVITY, required_orders
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError

__all__ = [
    "METHODS",
    "MAX_ORDER",
    "GRAVITY",
    "Method",
    "inverse_dynamics",
    "joint_wrenches",
    "required_orders",
]



@dataclass(frozen=True, eq=False, repr=False)
class Method:
    """One algorithm: its torque function, joint-wrench function (None: it has no inter-body
    wrenches), both by the backend that runs (they take its ``data``), and the highest torque
    order it computes."""

    inverse_dynamics: Callable[..., np.ndarray]
    joint_wrenches: Callable[..., np.ndarray] | None
    max_order: int


#: name -> Method
METHODS: dict[str, Method] = {
    "body-fixed": Method(body_fixed.inverse_dynamics, body_fixed.joint_wrenches, 4),
    "spatial": Method(spatial.inverse_dynamics, spatial.joint_wrenches, 4),
    "closed-form": Method(closed_form.inverse_dynamics, None, 4),
}
MAX_ORDER = 4


def inverse_dynamics(
    model: Model,
    trajectory: Trajectory,
    *,
    method: str = "body-fixed",
    order: int = 2,
    gravity=GRAVITY,
    data: backends.Data | None = None,
) -> np.ndarray:
    """tau and its derivatives up to ``order``, shape (N, order + 1, n); ``data``: the
    backend's Data for the model, made once per request (:func:`~hodyn_cli.algorithms.
    backends.prepare`).

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> from hodyn_cli.core.trajectory import cosine
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
    >>> traj = cosine(model.joint_names, [0.0], amplitude=0, omega=1, offset=0, orders=4)
    >>> inverse_dynamics(model, traj, order=0)[0, 0]   # arm horizontal, at rest
    array([10.2024,  2.3544])
    """
    entry = _select(method, order)
    return entry.inverse_dynamics(model, trajectory, order=order, gravity=gravity, data=data)


def joint_wrenches(
    model: Model,
    trajectory: Trajectory,
    *,
    method: str = "body-fixed",
    order: int = 2,
    gravity=GRAVITY,
    data: backends.Data | None = None,
) -> np.ndarray:
    """Inter-body (joint reaction) wrenches and derivatives, (N, order + 1, n, 6).

    Entry ``[:, k, i]`` is the k-th time derivative of the wrench (moment; force) that
    body i's parent exerts on body i through joint i, in body i's frame (its URDF link
    frame), moment about that frame's origin; ``tau_i = X_i^T F_i``.
    """
    entry = _select(method, order)
    if entry.joint_wrenches is None:
        raise HodynError(f"method '{method}' does not compute joint wrenches")
    return entry.joint_wrenches(model, trajectory, order=order, gravity=gravity, data=data)


def _select(method: str, order: int) -> Method:
    if method not in METHODS:
        raise HodynError(f"unknown method '{method}' (choose from {', '.join(METHODS)})")
    entry = METHODS[method]
    if not 0 <= order <= entry.max_order:
        raise HodynError(f"method '{method}' computes orders 0..{entry.max_order}, not {order}")
    return entry
