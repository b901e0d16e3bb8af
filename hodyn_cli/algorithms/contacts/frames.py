"""The contact frames' motion relative to the floating root, as jets (pose and its first K
time derivatives), and the root's orientation in the world: what the contact wrenches' map
to the root (:mod:`~hodyn_cli.algorithms.contacts.distribution`) and its rates are made of.

With the root held, the spatial forward pass (:mod:`hodyn_cli.algorithms.dynamics.spatial`)
gives each body's pose ``(R_b, p_b)`` and spatial twist ``(omega; v)`` in the root frame; a
contact frame at the constant pose T on its body moves with ``R' = skew(omega) R`` and
``p' = v + omega x p`` (:func:`~hodyn_cli.algorithms.motion.kinematics.point_derivatives`).
The root turns in the world with its body angular velocity, ``R_0' = R_0 skew(omega_0)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hodyn_cli.algorithms.dynamics.spatial import forward_pass
from hodyn_cli.algorithms.motion.kinematics import frame_pose, point_derivatives
from hodyn_cli.core import jets
from hodyn_cli.core.model import LinkFrame, Model
from hodyn_cli.modeling.contacts import Contact

__all__ = ["FrameJets", "contact_frames", "root_rotation"]


@dataclass(frozen=True)
class FrameJets:
    """A contact frame relative to the root: orientation R (N, K+1, 3, 3) and origin p
    (N, K+1, 3) with their first K derivatives, root frame."""

    R: np.ndarray
    p: np.ndarray


def _paths(model: Model, bodies: list[int]) -> tuple[Model, np.ndarray]:
    """The model cut to the joints on the paths from the root to ``bodies`` (a humanoid's
    feet: its legs, 12 of 32 joints), and those joints' indices: the forward pass need not
    move the arms and head."""
    keep = np.flatnonzero(model.ancestry[:, [b for b in bodies if b >= 0]].any(axis=1))
    if len(keep) == model.n:
        return model, keep
    new = np.full(model.n, -1)
    new[keep] = np.arange(len(keep))
    parent = np.array([new[p] if p >= 0 else -1 for p in model.parent[keep]])
    names = tuple(model.joint_names[i] for i in keep)
    cut = Model(model.name, model.root_link, names, tuple(model.joint_types[i] for i in keep),
                tuple(model.link_names[i] for i in keep), parent, model.B[keep], model.X[keep],
                model.inertias[keep])
    return cut, keep


def contact_frames(model: Model, qs: np.ndarray, contacts: tuple[Contact, ...], K: int
                   ) -> list[FrameJets]:
    """The jets of every contact frame relative to the root; ``qs`` (N, >= K+1, n)."""
    N = qs.shape[0]
    cut, keep = _paths(model, [model.links[c.link].body for c in contacts])
    new = np.full(model.n, -1)
    new[keep] = np.arange(len(keep))
    kin = forward_pass(cut, qs[..., keep], max(K - 1, 0))   # twists to K-1 give poses to K
    out = []
    for c in contacts:
        link = model.links[c.link]
        frame = LinkFrame(int(new[link.body]) if link.body >= 0 else -1, link.T @ c.T)
        if frame.body < 0:  # on the root: at rest relative to it
            R = np.zeros((N, K + 1, 3, 3))
            p = np.zeros((N, K + 1, 3))
            R[:, 0], p[:, 0] = frame.T[:3, :3], frame.T[:3, 3]
            out.append(FrameJets(R, p))
            continue
        R0, p0 = frame_pose(kin, frame)
        V = kin.V[frame.body][:, :K]
        p = p0[:, None] if K == 0 else np.concatenate([p0[:, None], point_derivatives(p0, V)], 1)
        out.append(FrameJets(jets.rotation(R0, V[..., :3], K), p))
    return out


def root_rotation(R: np.ndarray, Vb: np.ndarray, K: int) -> np.ndarray:
    """The jet (N, K+1, 3, 3) of the root's orientation in the world from its body twist
    derivatives Vb (N, >= K, 6)."""
    return jets.rotation(R, Vb[..., :3], K, body=True)
