"""Joint values against the URDF's position limits (plausibility checks with one-line texts)."""

from __future__ import annotations

import numpy as np

from hodyn_cli.core.model import Model

__all__ = ["beyond_limits"]


def beyond_limits(model: Model, q: np.ndarray, t, start: int = 0) -> dict[str, str]:
    """Joints whose q (N, n), all joints in model order, leaves the URDF position limits by
    more than rounding: joint -> one line naming the first such sample, its value and the
    limit (and "the values look like degrees" when they do).

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> model = load_model(Path(__file__).parents[2] / "urdf" / "iiwa14.urdf")
    >>> beyond_limits(model, np.full((2, 7), 0.5), None)
    {}
    >>> text = beyond_limits(model, np.full((2, 7), 100.0), np.array([0.0, 0.1]))["iiwa_joint_1"]
    >>> text[:70]
    'q_iiwa_joint_1 = 100 at t = 0 s is outside its URDF limits [-2.967, 2.'
    >>> text[70:]
    '967]; the values look like degrees: hodyn reads radians'
    """
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    slack = 1e-6 * np.where(np.isfinite(hi - lo), hi - lo, 0.0) + 1e-9
    bad = (q < lo - slack) | (q > hi + slack)
    out = {}
    for j in np.flatnonzero(bad.any(axis=0)):
        s = int(np.argmax(bad[:, j]))
        when = f"t = {t[s]:.6g} s" if t is not None else f"sample {start + s}"
        degrees = (model.joint_types[j] != "prismatic" and np.abs(q[:, j]).max() > 2 * np.pi
                   and np.abs(np.radians(q[:, j])).max() <= max(np.abs(lo[j]), np.abs(hi[j])))
        hint = "; the values look like degrees: hodyn reads radians" if degrees else ""
        out[model.joint_names[j]] = (
            f"q_{model.joint_names[j]} = {q[s, j]:.6g} at {when} is outside its URDF limits "
            f"[{lo[j]:.6g}, {hi[j]:.6g}]{hint}")
    return out
