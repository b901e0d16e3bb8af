"""A multi-DOF joint's trajectory rows from the jets of coordinates of its pose, exact on the
group (docs/conventions.md, "Multi-DOF and helical joints").

A spherical, planar or free joint's rows are its configuration coordinates (row 0) and the
derivatives of its velocity coordinates ``nu = S^T V`` (rows k >= 1: ``nu^(k-1)``), where
``V = (omega; v)`` is the body twist of its pose ``J = (R, p)``::

    skew(omega) = R^T R',   v = R^T p'                       (child frame)

not the rates of row 0 (a ball joint's omega is not the rate of its rotation vector). When
the pose is a closed-form function of coordinates ``c(t)`` whose derivatives are known (a
*chart*), the jets of R and p follow from those of c by Leibniz's rule
(:mod:`hodyn_cli.core.jets`), and so does the twist's::

    skew(omega^(k)) = sum_j C(k, j) (R^T)^(j) R^(k+1-j),   v^(k) = sum_j C(k, j) (R^T)^(j) p^(k+1-j)

The charts (:func:`pose_jets`):

- ``angles`` (a ball joint's, a free joint's rotation; what ``hodyn generate`` designs):
  ``R = exp(a_x skew(e_x)) exp(a_y skew(e_y)) exp(a_z skew(e_z))``, each factor turning about
  its fixed axis at the rate ``a_j'`` (its jet: :func:`hodyn_cli.core.jets.rotation`);
- ``quaternion`` (what ``--estimate-derivatives`` interpolates): ``q = (w, x, y, z)`` not
  necessarily of unit norm, ``R = B(q, q) / (q . q)`` with B the bilinear form whose
  ``B(q, q)`` is :func:`hodyn_cli.core.lie.quaternion_matrix` of a unit q (any nonzero
  multiple of a unit quaternion curve gives the same R, so an interpolant need not stay on
  the sphere);
- a planar joint's ``(x, y, theta)``: ``R = exp(theta skew(n))``, ``p = x u + y (n x u)``;
- a free joint's position p is its own chart.

>>> import numpy as np
>>> c = np.zeros((1, 3, 3)); c[0, 1] = [0.0, 0.0, 2.0]   # a ball turning about z at 2 rad/s
>>> body_twists(*pose_jets("spherical", np.zeros(6), c))[0, :, :3].tolist()   # omega, omega'
[[0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.core import jets, lie
from hodyn_cli.core.model import Model

__all__ = ["pose_jets", "body_twists", "joint_rows", "angle_rotation",
           "quaternion_rotation"]

_AXES = np.eye(3)


def angle_rotation(a: np.ndarray) -> np.ndarray:
    """The jet (N, K+1, 3, 3) of ``R = exp(a_x e_x^) exp(a_y e_y^) exp(a_z e_z^)`` from the
    jets of the angles a (N, K+1, 3)."""
    K = a.shape[1] - 1
    out = None
    for j, e in enumerate(_AXES):
        factor = jets.rotation(lie.rotation_exp(e, a[:, 0, j]), a[:, 1:, j, None] * e, K)
        out = factor if out is None else jets.product(out, factor)
    assert out is not None
    return out


def _quaternion_form(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The symmetric bilinear B(a, b) (..., 3, 3) with ``B(q, q) = |q|^2 R(q / |q|)``
    (:func:`hodyn_cli.core.lie.quaternion_matrix`, Hamilton's (w, x, y, z))."""
    aw, av, bw, bv = a[..., 0], a[..., 1:], b[..., 0], b[..., 1:]
    out = (aw * bw - np.einsum("...i,...i->...", av, bv))[..., None, None] * np.eye(3)
    out = out + av[..., :, None] * bv[..., None, :] + bv[..., :, None] * av[..., None, :]
    return out + aw[..., None, None] * lie.skew(bv) + bw[..., None, None] * lie.skew(av)


def quaternion_rotation(q: np.ndarray) -> np.ndarray:
    """The jet (N, K+1, 3, 3) of the rotation of quaternions whose jet is q (N, K+1, 4)
    (nonzero; of any norm: ``R = B(q, q) / (q . q)``)."""
    square = jets.product(q, q, lambda a, b: np.einsum("...i,...i->...", a, b))
    scale = jets.reciprocal(square)
    return jets.product(scale[..., None, None], jets.product(q, q, _quaternion_form),
                        np.multiply)


def pose_jets(kind: str, X: np.ndarray, c: np.ndarray, quaternion: bool = False
              ) -> tuple[np.ndarray, np.ndarray]:
    """The jets of the pose ``J = (R, p)`` ((N, K+1, 3, 3), (N, K+1, 3)) of a multi-DOF joint
    of ``kind`` with screw X (6,) from the jets of its chart coordinates c (N, K+1, m): a ball
    joint's angles (m = 3), or with ``quaternion`` its quaternion (m = 4); a free joint's
    the same followed by its position; a planar joint's ``(x, y, theta)`` (module
    docstring)."""
    N, K1 = c.shape[:2]
    if kind == "planar":
        n, u = X[:3], X[3:]
        R = jets.rotation(lie.rotation_exp(n, c[:, 0, 2]), c[:, 1:, 2, None] * n, K1 - 1)
        return R, c[..., :1] * u + c[..., 1:2] * np.cross(n, u)
    m = 4 if quaternion else 3
    R = quaternion_rotation(c[..., :m]) if quaternion else angle_rotation(c[..., :m])
    p = c[..., m:] if kind == "free" else np.zeros((N, K1, 3))
    return R, p


def body_twists(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The body twist ``V = (omega; v)`` and its first K-1 derivatives (N, K, 6) of a pose
    whose jets are R (N, K+1, 3, 3) and p (N, K+1, 3) (module docstring)."""
    Rt = jets.transpose(R[:, :-1])
    W = jets.product(Rt, R[:, 1:])
    v = jets.product(Rt, p[:, 1:, :, None])[..., 0]
    omega = np.stack([W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0],
                      W[..., 1, 0] - W[..., 0, 1]], axis=-1) / 2  # vee of its skew part
    return np.concatenate([omega, v], axis=-1)


def joint_rows(model: Model, i: int, c: np.ndarray, quaternion: bool = False) -> np.ndarray:
    """Multi-DOF joint i's trajectory rows (N, K+1, nv_i) from the jets of its chart
    coordinates c (N, K+1, m) (:func:`pose_jets`): row 0 its configuration coordinates (a
    rotation vector ``log R``, then a free joint's p; a planar joint's ``(x, y, theta)`` as
    they are), rows k >= 1 ``nu^(k-1) = S_i^T V^(k-1)`` (S_i's columns are orthonormal)."""
    kind = model.joint_types[i]
    R, p = pose_jets(kind, model.X[i], c, quaternion)
    S = model.subspaces[i]
    out = np.empty(c.shape[:2] + (S.shape[1],))
    if c.shape[1] > 1:  # (positions alone: no twist)
        out[:, 1:] = body_twists(R, p) @ S
    if kind == "planar":
        out[:, 0] = c[:, 0]
    else:
        r = lie.rotation_log(R[:, 0])
        out[:, 0] = r if kind == "spherical" else np.concatenate([r, p[:, 0]], axis=1)
    return out
