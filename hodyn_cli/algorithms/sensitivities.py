"""Sensitivities of tau and its time derivatives to the trajectory: d tau^(k) / d q^(j).

For trajectory optimization with limits on torque rates: how tau, taud, taudd, ... change
when q and its derivatives change. ``tau^(k)`` depends on ``q^(j)`` for j <= k + 2, so for
k = 0..K the Jacobians ``d tau^(k)/d q^(j)``, j = 0..k+2, are computed, each (N, n, n) with
entry ``[s, i, m] = d tau^(k)_i / d q^(j)_m`` at sample s. For k = 0 these are Pinocchio's
``dtau_dq``, ``dtau_dv`` and the mass matrix.

Computed by forward-mode differentiation of the body-fixed recursion in complex arithmetic
(the complex step): with ``q^(j)_m`` given the imaginary part ``h``, every operation of the
recursion carries its first derivative in the imaginary part, and ``Im tau^(k) / h`` is the
derivative with no subtraction, so no truncation or cancellation error for ``h = 1e-30``:
exact to rounding, not a finite difference. All n (K+3) directions of a chunk run as one
batch of samples.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> from hodyn_cli.core.trajectory import cosine
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> traj = cosine(model.joint_names, [0.3], amplitude=0.5, omega=1.0, orders=2)
>>> S = sensitivities(model, traj, order=0)
>>> sorted(S)
['dtau_dq', 'dtau_dqd', 'dtau_dqdd']
>>> S["dtau_dqdd"].shape       # the mass matrix
(1, 2, 2)
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.methods import GRAVITY, body_fixed
from hodyn_cli.algorithms.methods.common import CHUNK, base_motion, body_wrenches, check_inputs
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name

__all__ = ["sensitivities", "dataset_name", "STEP"]

STEP = 1e-30


def dataset_name(k: int, j: int) -> str:
    """``d<out>_d<in>``: ``dtaud_dqdd`` is d taud / d qdd."""
    return f"d{derivative_name('tau', k)}_d{derivative_name('q', j)}"


def sensitivities(model: Model, trajectory: Trajectory, *, order: int = 2, gravity=GRAVITY
                  ) -> dict[str, np.ndarray]:
    """``{dataset_name(k, j): (N, n, n)}`` for k = 0..order, j = 0..k+2."""
    check_inputs(model, trajectory, order)
    N, n, J = trajectory.n_samples, model.n, order + 3
    qs = trajectory.derivatives[:, :J]
    W = body_wrenches(model, trajectory, order)
    base = base_motion(gravity, order + 1)
    # directions (j, m) as blocks of the sample axis: (J n N, J, n), complex
    batch = np.repeat(qs[None].astype(complex), J * n, axis=0)  # (J n, N, J, n)
    for d in range(J * n):
        j, m = divmod(d, n)
        batch[d, :, j, m] += 1j * STEP
    batch = batch.reshape(J * n * N, J, n)
    wrenches = {b: np.tile(w, (J * n, 1, 1)) for b, w in W.items()}
    tau = np.empty((J * n * N, order + 1, n), dtype=complex)
    for s in range(0, len(batch), CHUNK):
        sl = slice(s, s + CHUNK)
        kin = body_fixed.forward_pass(model, batch[sl], order + 1, base)
        tau[sl] = body_fixed.backward_pass(model, batch[sl], kin, order,
                                           {b: w[sl] for b, w in wrenches.items()})[0]
    D = (tau.imag / STEP).reshape(J, n, N, order + 1, n)  # [j, m, s, k, i]
    return {dataset_name(k, j): np.ascontiguousarray(D[j, :, :, k, :].transpose(1, 2, 0))
            for k in range(order + 1) for j in range(k + 3)}
