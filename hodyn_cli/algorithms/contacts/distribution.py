"""The base wrench distributed over the active contacts: minimum weighted norm, closed form,
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

This module is the reference (the numpy backend runs it); the compiled backend's
``hodyn_contact_share`` (``backends/csrc/contacts.c``) computes the same steps in C.
"""

from __future__ import annotations

__all__ = []











