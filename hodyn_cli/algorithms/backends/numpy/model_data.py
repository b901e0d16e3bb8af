"""Per-model precomputation the algorithms share, owned by the model.

:func:`model_data` builds a :class:`ModelData` on a model's first use and keeps it as long as
the model lives (a weak mapping: releasing the model frees its data too). It holds constant
arrays derived from the model (Pinocchio's ``Data`` for what does not depend on the state).

>>> import gc, weakref
>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[4] / "urdf" / "planar_2r.urdf")
>>> model_data(model).adjoints[0].shape
(2, 6, 6)
>>> gone = weakref.ref(model_data(model)); del model; _ = gc.collect()
>>> gone() is None
True
"""

from __future__ import annotations

import weakref

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Model

__all__ = ["ModelData", "model_data"]

_DATA: weakref.WeakKeyDictionary[Model, ModelData] = weakref.WeakKeyDictionary()


class ModelData:
    """Constants of one model (it must not refer back to the model: the mapping is weak).

    Attributes (n bodies):
        adjoints: ``Ad_{B_i^-1}``, ``ad_{X_i} Ad_{B_i^-1}``, ``ad_{X_i}^2 Ad_{B_i^-1}``, each
            (n, 6, 6): the joint adjoint is ``A0 - sin(q) A1 + (1 - cos q) A2`` (revolute).
        parent, revolute: (n,) int32; X (n, 6), M (n, 6, 6), root_M (6, 6) contiguous float64.
        ancestors: (n, n) uint8, ``[b, c] = 1`` iff body c is body b or one of its ancestors.
        kernel_joints: every joint is revolute, continuous or prismatic, the joints the
            compiled and GPU kernels run (``revolute`` tells those apart); numpy's
            body-fixed recursion runs the others.
    """

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


def model_data(model: Model) -> ModelData:
    """The model's :class:`ModelData`, built on first use (threads that ask at once all get
    the one that was stored: ``setdefault`` is atomic)."""
    data = _DATA.get(model)
    return data if data is not None else _DATA.setdefault(model, ModelData(model))
