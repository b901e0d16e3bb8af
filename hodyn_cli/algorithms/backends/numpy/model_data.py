"""The numpy backend's Data: per-model constants the passes share (Pinocchio's ``Data`` for
what does not depend on the state), made by :meth:`NumpyBackend.data
<hodyn_cli.algorithms.backends.numpy.NumpyBackend.data>` once per request and passed to every
operation; the other backends' Data extend it. Nothing keeps it: it lives as long as the
request that made it.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[4] / "urdf" / "planar_2r.urdf")
>>> ModelData(model).adjoints[0].shape
(2, 6, 6)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Model

__all__ = ["ModelData", "model_data"]

T = TypeVar("T")


class ModelData:
    """Constants of one model.

    Attributes (n bodies):
        adjoints: ``Ad_{B_i^-1}``, ``ad_{X_i} Ad_{B_i^-1}``, ``ad_{X_i}^2 Ad_{B_i^-1}``, each
            (n, 6, 6): the joint adjoint is ``A0 - sin(q) A1 + (1 - cos q) A2`` (revolute).
        parent, revolute: (n,) int32; X (n, 6), M (n, 6, 6), root_M (6, 6) contiguous float64.
        ancestors: (n, n) uint8, ``[b, c] = 1`` iff body c is body b or one of its ancestors.
        kernel_joints: every joint is one the backend's inverse-dynamics kernel runs in one
            call for any number of samples: revolute, continuous or prismatic for the GPU
            kernels (``revolute`` tells those apart; numpy's body-fixed recursion runs the
            others) and numpy's own chunks; every kind for the compiled kernel
            (:class:`~hodyn_cli.algorithms.backends.compiled.CompiledData`: by the kind,
            offsets and pitch compiled.py packs).
        made_by: the backend whose :meth:`data` made it (None: a pass called on its own), so
            that :func:`~hodyn_cli.algorithms.backends.prepare` knows whether it fits.
        model: the model it was made for (a Data given with another model, even one of the
            same shape, is not used for it: :func:`~hodyn_cli.algorithms.backends.prepare`).

    What an algorithm derives from the model and other inputs of a request (the drives'
    derivative requirements, found by probing the model) it keeps here too (:meth:`derived`).
    """

    made_by: object = None

    def __init__(self, model: Model):
        A0 = lie.Ad_inv(model.B[:, :3, :3], model.B[:, :3, 3])
        N_X = lie.ad(model.X)
        A1 = N_X @ A0
        self.adjoints = tuple(np.ascontiguousarray(A) for A in (A0, A1, N_X @ A1))
        self.parent = model.parent.astype(np.int32)
        self.revolute = np.asarray(model.X[:, :3].any(axis=1), dtype=np.int32)  # an array (n,)
        self.X = np.ascontiguousarray(model.X, dtype=np.float64)
        self.M = np.ascontiguousarray(model.inertias, dtype=np.float64)
        self.root_M = np.ascontiguousarray(model.root_inertia, dtype=np.float64)
        self.ancestors = np.ascontiguousarray(model.ancestry.T, dtype=np.uint8)
        self.kernel_joints = not model.has_joint_models
        self.model = model
        self._derived: dict[tuple, Any] = {}

    def derived(self, find: Callable[..., T], model: Model, *inputs: Hashable) -> T:
        """``find(model, *inputs)``, found on the first ask and kept as long as this Data (one
        request: its chunks ask again); ``inputs`` compare as dict keys (a Drives object by
        identity). Asked about another model than its own: found now, not kept."""
        if model is not self.model:
            return find(model, *inputs)
        key = (find, *inputs)
        if key not in self._derived:
            self._derived.setdefault(key, find(model, *inputs))  # atomic: one value wins
        return self._derived[key]


def model_data(model: Model, data: ModelData | None = None) -> ModelData:
    """``data`` (the caller's, made once per request by the backend's
    :meth:`~hodyn_cli.algorithms.backends.Backend.data`), or the model's constants built now
    (a pass called on its own: they cost less than a chunk's pass)."""
    return ModelData(model) if data is None else data
