"""Locked joints: a joint held at a value becomes a fixed joint of the model.

``lock(model, {joint: value})`` merges each locked joint's body into its parent exactly as
the URDF reader merges fixed joints: the body's inertia is lumped into the nearest moving
ancestor, its children hang from that ancestor with composed poses, and its links keep their
names (so wrenches and kinematics on them still work). The result is an ordinary model with
fewer joints, in the same depth-first order.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> arm = lock(model, {"joint2": 0.5})
>>> arm.joint_names, round(float(arm.mass[0]), 12)   # link2's mass is on link1 now
(('joint1',), 2.0)
"""

from __future__ import annotations

import dataclasses

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import JOINT_MODELS, Diagnostic, LinkFrame, Model
from hodyn_cli.errors import ModelError

__all__ = ["lock", "joint_transform", "default_lock_value"]


def joint_transform(model: Model, i: int, value: float) -> np.ndarray:
    """Pose (4, 4) of body i in its parent's frame at joint value ``value``: B_i exp(X_i q)."""
    X = model.X[i]
    E = np.eye(4)
    if X[:3].any():
        E[:3, :3] = lie.rotation_exp(X[:3], np.asarray(value, dtype=float))
    else:
        E[:3, 3] = X[3:] * value
    return model.B[i] @ E


def default_lock_value(model: Model, i: int) -> float:
    """Where ``--lock-missing`` holds joint i: 0, or the middle of its range if 0 is outside."""
    lo, hi = model.limits[i]
    return 0.0 if lo <= 0.0 <= hi else float((lo + hi) / 2)


def lock(model: Model, values: dict[str, float]) -> Model:
    """The model with the named joints fixed at the given values (see the module docstring)."""
    if not values:
        return model
    if model.actuated is not None:  # its loops, actuated joints and coupling: the whole tree's
        raise ModelError("--lock: the robot's loops are closed: lock its joints before closing "
                         "them (api.lock_joints, then api.close_loops)")
    for name in values:
        if name not in model.joint_names:
            raise ModelError(f"--lock: the model has no joint '{name}' (joints: "
                             f"{', '.join(model.joint_names)})")
    values = _with_mimic_partners(model, values)
    for name, v in values.items():
        i = model.joint_index(name)
        if model.joint_types[i] in JOINT_MODELS:
            raise ModelError(f"--lock: joint '{name}' is {model.joint_types[i]}: only revolute, "
                             "continuous and prismatic joints are held yet")
        lo, hi = model.limits[i]
        if not np.isfinite(v) or not lo - 1e-12 <= v <= hi + 1e-12:
            raise ModelError(f"--lock: joint '{name}' cannot be held at {v:g} (its limits: "
                             f"[{lo:g}, {hi:g}])")
    if len(values) == model.n:
        raise ModelError("--lock: every joint would be locked; at least one must move")
    n = model.n
    locked = np.array([name in values for name in model.joint_names])
    new_index = np.cumsum(~locked) - 1
    host = np.full(n, -1)  # nearest kept ancestor-or-self of each body (-1: the root)
    in_host = np.zeros((n, 4, 4))  # pose of each body's frame in its host's frame
    M = np.zeros((int((~locked).sum()), 6, 6))
    root_M = model.root_inertia.copy()
    B, parent = [], []
    for i, p in enumerate(model.parent):
        G = joint_transform(model, i, values[model.joint_names[i]]) if locked[i] else model.B[i]
        above = np.eye(4) if p < 0 or not locked[p] else in_host[p]
        up = -1 if p < 0 else (new_index[p] if not locked[p] else host[p])
        if locked[i]:
            host[i], in_host[i] = up, above @ G
            target = M[up] if up >= 0 else root_M
            target += lie.transform_inertia(model.inertias[i], in_host[i])
        else:
            host[i], in_host[i] = new_index[i], np.eye(4)
            parent.append(up)
            B.append(above @ G)
            M[new_index[i]] += model.inertias[i]
    links = {}
    for name, frame in model.links.items():
        b = frame.body
        links[name] = (frame if b < 0 else LinkFrame(int(host[b]), in_host[b] @ frame.T))
    keep = ~locked
    pick = [k for k in range(n) if keep[k]]
    notes = model.diagnostics + tuple(Diagnostic("info", f"joint '{j}' locked at {v:g}")
                                      for j, v in values.items())
    return dataclasses.replace(
        model, joint_names=tuple(model.joint_names[k] for k in pick),
        joint_types=tuple(model.joint_types[k] for k in pick),
        link_names=tuple(model.link_names[k] for k in pick),
        parent=np.array(parent, dtype=int), B=np.array(B), X=model.X[keep].copy(), inertias=M,
        root_inertia=root_M,
        limits=model.limits[keep].copy(), velocity_limits=model.velocity_limits[keep].copy(),
        effort_limits=model.effort_limits[keep].copy(), jerk_limits=model.jerk_limits[keep].copy(),
        parent_links=tuple(model.parent_links[k] for k in pick) if model.parent_links else (),
        reductions=model.reductions[keep].copy(), links=links, diagnostics=notes,
        locked=model.locked + tuple(values),
        mimic=_reindexed_mimic(model.mimic[keep], new_index))


def _with_mimic_partners(model: Model, values: dict[str, float]) -> dict[str, float]:
    """``values`` and the values the <mimic> pairs impose: a held leader holds its followers
    at ``multiplier q + offset``, a held follower its leader (and so the other followers);
    two held values a pair does not allow are an error naming both.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> model = dataclasses.replace(model, mimic=np.array([[-1, 1, 0], [0, 2.0, 0.1]]))
    >>> _with_mimic_partners(model, {"joint2": 0.5})
    {'joint2': 0.5, 'joint1': 0.2}
    """
    out = dict(values)
    names = model.joint_names
    changed = True
    while changed:
        changed = False
        for f in np.flatnonzero(model.mimic[:, 0] >= 0):
            leader, gain, offset = int(model.mimic[f, 0]), *map(float, model.mimic[f, 1:])
            pair: dict[str, float | None] = {names[f]: None, names[leader]: None}
            if names[leader] in out:
                pair[names[f]] = gain * out[names[leader]] + offset
            elif names[f] in out and gain != 0:
                pair[names[leader]] = (out[names[f]] - offset) / gain
            for name, value in pair.items():
                if value is None:
                    continue
                if name not in out:
                    out[name], changed = float(value), True
                elif not np.isclose(out[name], value, rtol=1e-12, atol=1e-12):
                    raise ModelError(f"--lock: joint '{names[f]}' follows '{names[leader]}' "
                                     f"(<mimic> multiplier {gain:g}, offset {offset:g}): "
                                     f"'{name}' cannot be held at {out[name]:g} and "
                                     f"{value:g}")
    return out


def _reindexed_mimic(rows: np.ndarray, new_index: np.ndarray) -> np.ndarray:
    out = rows.copy()
    leaders = out[:, 0] >= 0
    out[leaders, 0] = new_index[out[leaders, 0].astype(int)]
    return out
