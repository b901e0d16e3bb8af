"""Inverse dynamics of order K: tau and its first K time derivatives.

Every method is a pure function ``f(model, trajectory, order, gravity) -> (N, K+1, n)``
array (sample, derivative order, joint). :func:`inverse_dynamics` selects one by name.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hodyn_cli.errors import HodynError
from hodyn_cli.methods import body_fixed
from hodyn_cli.methods.common import GRAVITY, required_orders
from hodyn_cli.model import Model
from hodyn_cli.trajectory import Trajectory

__all__ = ["METHODS", "MAX_ORDER", "GRAVITY", "inverse_dynamics", "required_orders"]

#: name -> (function, highest torque order it supports); None: not implemented yet.
METHODS: dict[str, tuple[Callable, int] | None] = {
    "body-fixed": (body_fixed.inverse_dynamics, 4),
    "spatial": None,
    "closed-form": None,
}
MAX_ORDER = 4


def inverse_dynamics(
    model: Model,
    trajectory: Trajectory,
    *,
    method: str = "body-fixed",
    order: int = 2,
    gravity=GRAVITY,
) -> np.ndarray:
    """tau and its derivatives up to ``order``, shape (N, order + 1, n).

    >>> from pathlib import Path
    >>> from hodyn_cli.urdf import load_model
    >>> from hodyn_cli.trajectory import cosine
    >>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> traj = cosine(model.joint_names, [0.0], amplitude=0, omega=1, offset=0, orders=4)
    >>> inverse_dynamics(model, traj, order=0)[0, 0]   # arm horizontal, at rest
    array([10.2024,  2.3544])
    """
    if method not in METHODS:
        raise HodynError(f"unknown method '{method}' (choose from {', '.join(METHODS)})")
    entry = METHODS[method]
    if entry is None:
        raise HodynError(f"method '{method}' is not implemented yet")
    function, max_order = entry
    if not 0 <= order <= max_order:
        raise HodynError(f"method '{method}' computes orders 0..{max_order}, not {order}")
    return function(model, trajectory, order=order, gravity=gravity)
