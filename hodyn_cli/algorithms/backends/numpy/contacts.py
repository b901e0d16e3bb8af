"""Contacts over a chunk: the contact frames' jets relative to the root (the spatial forward
pass, ``R' = omega^ R``, ``p' = v + omega x p``: the numpy backend's ``contact_frames``) and
one phase's share of the base wrench among the active contacts (``contact_share``).

The base wrench distributed over the active contacts: minimum weighted norm, closed form,
with every time derivative.

Unknowns: the stacked contact wrenches F (a point's force f in world axes, 3; a surface's
wrench (m; f) in its contact frame about its origin, 6), ground reactions: what the ground
exerts on the robot. ``A F`` is their sum moved to the root (root frame, moment about its
origin)::

    point:    A_c = [skew(p_c) R_0^T; R_0^T]              (p_c: the point, root frame;
    surface:  A_c = [[R_c, skew(p_c) R_c]; [0, R_c]]       R_c: the contact frame's orientation)

(``Ad_{X^-1}^T`` of the contact frame's pose X in the root frame), and they must carry what
the root needs from its supports, ``b = -W`` (W: the base wrench, what the root exerts on its
supports). Among all F with ``A F = b`` the distribution takes the one of least ``F^T H F``
(H: :meth:`~hodyn_cli.modeling.contacts.Contact.inverse_weights`); its optimality conditions
``H F = A^T y``, ``A F = b`` give ``F = H^-1 A^T y`` with ``G y = b``, ``G = A H^-1 A^T``.

G is invertible when the contacts can carry any wrench (a sole, or three points not on a
line). One or two points cannot take every moment, so the rule is stated so that it holds for
every contact set: the contacts carry the whole force, and of the moment what they can, in
the least-squares sense; the rest, a pure couple, stays on the root (the motion does not
fit its contacts there). Block elimination of ``G y = b`` on (moment; force)::

    y_m = S^+ (b_m - G_mf G_ff^-1 b_f),    y_f = G_ff^-1 (b_f - G_fm y_m),
    S = G_mm - G_mf G_ff^-1 G_fm

(G_ff, the forces' block, is always invertible). S, the moments the contacts can take for a
given force, has rank 3, 2 (points on a line u, ``S u = 0``: no moment about it) or 0 (one
point); ``S^+`` stands for a generalized inverse, smooth within each case: ``S^-1``;
``(S + u u^T)^-1`` with ``u u^T = D D^T / (D^T D)``, D the line's direction; 0. In each,
``S S^+`` is the orthogonal projector on the moments the contacts can take, so the couple
left over, ``(1 - S S^+)(b_m - G_mf G_ff^-1 b_f)``, is the least moment residual, and F is
the least ``F^T H F`` that achieves the rest (it lies in the range of ``H^-1 A^T``; a part of
``y_m`` along u would change neither: ``G z = 0`` implies ``H^-1 A^T z = 0``).

Derivatives: every step is a product or an inverse of jets (:mod:`hodyn_cli.core.jets`), so
``F^(k)`` follows exactly from the derivatives of A (the contact frames' motion) and of b (the
base wrench's).

This is the reference (the numpy backend's ``contact_share``); the compiled backend's
``hodyn_contact_share`` (``backends/csrc/contacts.c``) computes the same steps in C.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hodyn_cli.algorithms.backends.numpy.kinematics import frame_pose, point_derivatives
from hodyn_cli.algorithms.backends.numpy.spatial import forward_pass
from hodyn_cli.core import jets, lie
from hodyn_cli.core.model import LinkFrame, Model
from hodyn_cli.modeling.contacts import Contact

__all__ = ["FrameJets", "contact_frames", "distribute", "share", "contact_map", "in_contact_axes", "RANKS"]


@dataclass(frozen=True, eq=False, repr=False)
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


#: the moments a contact set can take: every one, all but those about a line, none
RANKS = ("full", "line", "none")


def _vector(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The jet of ``M v`` from jets of a matrix (N, K+1, a, b) and a vector (N, K+1, b)."""
    return jets.product(M, v[..., None])[..., 0]


def distribute(A: np.ndarray, Hinv: np.ndarray, b: np.ndarray, rank: str = "full",
               line: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The contact wrenches F (N, K+1, k) and the couple left over ``b - A F`` (N, K+1, 6),
    jets, from the jets of A (N, K+1, 6, k) and b (N, K+1, 6); ``Hinv`` (k, k) the inverse
    weights; ``rank`` one of :data:`RANKS` (``line``: with the jet of the line's direction
    (N, K+1, 3))."""
    B = A @ Hinv
    G = jets.product(B, jets.transpose(A))
    Gff_inv = jets.inverse(G[..., 3:, 3:])
    L = jets.product(G[..., :3, 3:], Gff_inv)
    S = G[..., :3, :3] - jets.product(L, G[..., 3:, :3])
    if rank == "full":
        S_plus = jets.inverse(S)
    elif rank == "line":
        assert line is not None, "rank 'line' takes the line's jet"
        outer = jets.product(line, line, lambda u, v: u[..., :, None] * v[..., None, :])
        size = jets.product(line, line, lambda u, v: np.einsum("...i,...i->...", u, v))
        P = jets.product(outer, jets.reciprocal(size)[..., None, None], np.multiply)
        S_plus = jets.inverse(S + P)
    else:
        S_plus = np.zeros_like(S)
    bm, bf = b[..., :3], b[..., 3:]
    ym = _vector(S_plus, bm - _vector(L, bf))
    yf = _vector(Gff_inv, bf - _vector(G[..., 3:, :3], ym))
    F = _vector(jets.transpose(B), np.concatenate([ym, yf], axis=-1))
    return F, b - _vector(A, F)


def contact_map(R: np.ndarray, p: np.ndarray, R0: np.ndarray | None, point: bool) -> np.ndarray:
    """The jet of ``A_c`` (N, K+1, 6, 3 or 6): a contact's wrench moved to the root (module
    docstring), from the jets of its frame R (N, K+1, 3, 3), p (N, K+1, 3) and, for a
    point, of the root's orientation R0 (N, K+1, 3, 3)."""
    S = lie.skew(p)   # skew is linear: derivative by derivative
    if point:
        assert R0 is not None, "a point's force is in world axes: its map takes R0"
        Rt = jets.transpose(R0)
        return np.concatenate([jets.product(S, Rt), Rt], axis=-2)
    top = np.concatenate([R, jets.product(S, R)], axis=-1)
    return np.concatenate([top, np.concatenate([np.zeros_like(R), R], axis=-1)], axis=-2)


def in_contact_axes(R: np.ndarray, R0: np.ndarray | None, F: np.ndarray, point: bool
                    ) -> np.ndarray:
    """The jet of a contact's ground reaction F (N, K+1, 3 or 6) in its frame's axes (what its
    link's wrench is made of): a point's world-axes force ``R_c^T R_0^T f`` (R (N, K+1, 3, 3)
    its frame, R0 the root's orientation), a surface's wrench as it is."""
    if not point:
        return F
    assert R0 is not None, "a point's force is in world axes: its frame's axes take R0"
    return jets.product(jets.transpose(R), jets.product(jets.transpose(R0), F[..., None]))[..., 0]


def share(R: np.ndarray, p: np.ndarray, R0: np.ndarray | None, point: np.ndarray,
          Hinv: np.ndarray, b: np.ndarray, rank: str
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`distribute` over the active contacts of one phase from their frames' jets R
    (N, m, K+1, 3, 3), p (N, m, K+1, 3), ``point`` (m,) bool (else a surface), the root's
    orientation R0 (N, K+1, 3, 3; None without a point) and their inverse weights ``Hinv``
    (k, k); for ``line`` the line through the two points, ``p_1 - p_0``. Returns F, the
    couple left over and F in the contacts' axes (:func:`in_contact_axes`)."""
    A = np.concatenate([contact_map(R[:, c], p[:, c], R0, bool(point[c]))
                        for c in range(len(point))], axis=-1)
    F, left = distribute(A, Hinv, b, rank, p[:, 1] - p[:, 0] if rank == "line" else None)
    starts = np.cumsum([0] + [3 if pt else 6 for pt in point])
    Fc = np.concatenate([in_contact_axes(R[:, c], R0, F[..., starts[c] : starts[c + 1]],
                                         bool(point[c])) for c in range(len(point))], axis=-1)
    return F, left, Fc
