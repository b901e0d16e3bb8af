"""``d tau^(k) / d q^(j)`` over a chunk by complex steps through the body-fixed recursion
(:mod:`hodyn_cli.algorithms.dynamics.sensitivities` has the method): the numpy backend's
``sensitivities``, the independent reference of the compiled forward-mode passes.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.backends.numpy import body_fixed
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData, model_data
from hodyn_cli.core.model import Model

__all__ = ["complex_step", "STEP"]


STEP = 1e-30


def complex_step(model: Model, qs: np.ndarray, base: np.ndarray, W: dict[int, np.ndarray],
                 order: int, *, data: ModelData | None = None, held: int = 0) -> np.ndarray:
    """:func:`sensitivities` by the complex step (module docstring), the numpy backend's:
    ``qs`` (N, order+3, nv), ``base`` the root's twist jet (1 or N, order+2, 6), ``W`` body ->
    wrench derivatives (N, order+1, 6); (S, N, nv, nv) in the order of :func:`dataset_names`.
    A multi-DOF joint's configuration is stepped in its tangent space, ``J exp(S_i delta)``
    (:func:`~hodyn_cli.algorithms.backends.numpy.common.relative_adjoint`). ``held``: the
    first ``held`` coordinates are held (a free root joint's, 6: the root's motion as given)
    and neither stepped nor differentiated: (S, N, nv - held, nv - held)."""
    N, nv, J, data = qs.shape[0], model.nv, order + 3, model_data(model, data)
    n = nv - held
    # directions (j, m) as blocks of the sample axis: (J n N, J, nv), complex
    batch = np.repeat(qs[None, :, :J].astype(complex), J * n, axis=0)  # (J n, N, J, nv)
    for d in range(J * n):
        j, m = divmod(d, n)
        batch[d, :, j, held + m] += 1j * STEP
    batch = batch.reshape(J * n * N, J, nv)
    wrenches = {b: np.tile(w, (J * n, 1, 1)) for b, w in W.items()}
    bases = base if len(base) == 1 else np.tile(base, (J * n, 1, 1))  # shared or per sample
    tau = np.empty((J * n * N, order + 1, nv), dtype=complex)
    for s in range(0, len(batch), CHUNK):
        sl = slice(s, s + CHUNK)
        kin = body_fixed.forward_pass(model, batch[sl], order + 1,
                                      bases if len(bases) == 1 else bases[sl], data=data)
        tau[sl] = body_fixed.backward_pass(model, batch[sl], kin, order,
                                           {b: w[sl] for b, w in wrenches.items()})[0]
    D = (tau.imag[..., held:] / STEP).reshape(J, n, N, order + 1, n)  # [j, m, s, k, i]
    return np.stack([D[j, :, :, k, :].transpose(1, 2, 0)
                     for k in range(order + 1) for j in range(k + 3)])
