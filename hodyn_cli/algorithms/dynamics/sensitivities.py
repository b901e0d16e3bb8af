"""Sensitivities of tau and its time derivatives to the trajectory: d tau^(k) / d q^(j).

For trajectory optimization with limits on torque rates: how tau, taud, taudd, ... change
when q and its derivatives change. ``tau^(k)`` depends on ``q^(j)`` for j <= k + 2, so for
k = 0..K the Jacobians ``d tau^(k)/d q^(j)``, j = 0..k+2, are computed, each (N, n, n) with
entry ``[s, i, m] = d tau^(k)_i / d q^(j)_m`` at sample s. For k = 0 these are Pinocchio's
``dtau_dq``, ``dtau_dv`` and the mass matrix.

Computed by forward-mode differentiation of the body-fixed jet recursion: the tangents in
the directions of q, qd and qdd of each joint, carried through the compiled passes
(``csrc/sensitivities.c``), give ``d tau^(k)/d q^(j)`` for j <= 2 and every k; the others
follow from the total time derivative D along the motion::

    d (D g)/d q^(j) = D (d g/d q^(j)) + d g/d q^(j-1)
    =>  d tau^(k)/d q^(j) = sum_a C(k, a) D^(k-a) (d tau/d q^(j-a))      (d tau/d q^(j) = 0, j > 2)

so no finite difference and no truncation: exact to rounding. A floating root
(``trajectory.base``) is the robot's free root joint
(:func:`hodyn_cli.algorithms.dynamics.floating.free_root`), held: the joint torques'
sensitivities to the joint motion with the root moving as given (the backends' ``held``: the
free joint's 6 coordinates neither stepped nor differentiated; the compiled kernel runs the
robot it carries with the root's twist jet, gravity included, as the matrices do; the base
wrench's are not computed). :func:`complex_step` is the
independent reference (and the implementation without the kernel): the same recursion in
complex arithmetic with ``q^(j)_m`` given the imaginary part ``h = 1e-30``, one batch of
samples per direction, ``Im tau^(k) / h`` the derivative.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> from hodyn_cli.core.trajectory import cosine
>>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
>>> traj = cosine(model.joint_names, [0.3], amplitude=0.5, omega=1.0, orders=2)
>>> S = sensitivities(model, traj, order=0)
>>> sorted(S)
['dtau_dq', 'dtau_dqd', 'dtau_dqdd']
>>> S["dtau_dqdd"].shape       # the mass matrix
(1, 2, 2)
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics import floating
from hodyn_cli.algorithms.dynamics.common import (
    GRAVITY,
    base_motion,
    body_wrenches,
    check_inputs,
)
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name

__all__ = ["sensitivities", "dataset_name", "dataset_names"]


def dataset_name(k: int, j: int) -> str:
    """``d<out>_d<in>``: ``dtaud_dqdd`` is d taud / d qdd."""
    return f"d{derivative_name('tau', k)}_d{derivative_name('q', j)}"


def dataset_names(order: int) -> list[str]:
    """The datasets of torque orders 0..order: ``dataset_name(k, j)``, k first, j <= k + 2."""
    return [dataset_name(k, j) for k in range(order + 1) for j in range(k + 3)]


def sensitivities(model: Model, trajectory: Trajectory, *, order: int = 2, gravity=GRAVITY,
                  data: backends.Data | None = None) -> dict[str, np.ndarray]:
    """``{dataset_name(k, j): (N, n, n)}`` for k = 0..order, j = 0..k+2 (a floating base:
    its motion held, module docstring)."""
    held = 0
    if trajectory.base is not None:
        model, trajectory, data = floating.free_root(model, trajectory, order, data)
        held = 6
    check_inputs(model, trajectory, order, joint_models=True)
    qs = trajectory.derivatives[:, : order + 3]
    W = body_wrenches(model, trajectory, order)
    backend, data = backends.prepare(model, data)
    sets = backend.sensitivities(model, data, qs, base_motion(gravity, order + 1), W, order,
                                 held)
    return dict(zip(dataset_names(order), sets, strict=True))
