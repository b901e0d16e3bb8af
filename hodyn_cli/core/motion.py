"""A link's prescribed motion: the data ``hodyn kinematics`` writes and ``hodyn ik`` follows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["LinkMotion"]


@dataclass(frozen=True)
class LinkMotion:
    """Prescribed motion of one link frame at N samples.

    Attributes:
        p: (N, 3) link origin in the root frame.
        R: (N, 3, 3) link orientation, or None (position task).
        Vs: (N, K, 6) spatial twist (omega; v^s) and its first K-1 derivatives, or None.
        Vb: (N, K, 6) body-fixed twist (link frame) and derivatives, or None; used where ``Vs``
            is not given (:func:`hodyn_cli.algorithms.motion.ik.spatial_motion` converts it).
        pd: (N, P, 3) velocity, acceleration, ... of the link origin (P may be 0), or None.
        t: (N,) times, or None.
    """

    p: np.ndarray
    R: np.ndarray | None = None
    Vs: np.ndarray | None = None
    pd: np.ndarray | None = None
    t: np.ndarray | None = None
    Vb: np.ndarray | None = None

    @property
    def n_samples(self) -> int:
        return self.p.shape[0]

    @classmethod
    def of(cls, kinematics: Any, t: np.ndarray | None = None) -> LinkMotion:
        """From a :class:`hodyn_cli.algorithms.motion.kinematics.LinkKinematics` (``hodyn
        kinematics``' result; Any: the core knows no algorithm)."""
        return cls(kinematics.p, kinematics.R, kinematics.Vs, kinematics.pd, t)

    def rates(self, task: str) -> np.ndarray:
        """(N, D, m): ``y', ..., y^(D)`` of the task (spatial twist derivatives or point
        derivatives)."""
        y = self.Vs if task == "pose" else self.pd
        m = 6 if task == "pose" else 3
        return np.zeros((self.n_samples, 0, m)) if y is None else y
