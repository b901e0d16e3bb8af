"""Quaternions (w, x, y, z) and rotations as MuJoCo's compiler computes them
(``src/user/user_util.cc``), for the MJCF reader."""

from __future__ import annotations

import numpy as np

__all__ = ["quat_mul", "unit", "z_to_quat", "frame_quat", "principal_axes"]


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The product a b (the rotation b, then a)."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def unit(v: np.ndarray) -> tuple[np.ndarray, float]:
    """v normalized as ``mjuu_normvec``: unchanged within 1e-14 of unit length; its norm (0
    below 1e-14: too small)."""
    n2 = float(v @ v)
    if n2 < 1e-14:
        return v, 0.0
    n = float(np.sqrt(n2))
    return (v / n if abs(n - 1) > 1e-14 else v), n


def z_to_quat(vec: np.ndarray) -> np.ndarray:
    """The rotation taking z onto ``vec`` (``mjuu_z2quat``)."""
    axis, s = unit(np.cross([0.0, 0.0, 1.0], vec))
    if s < 1e-10:
        axis = np.array([1.0, 0.0, 0.0])
    angle = np.arctan2(s, vec[2])
    return np.concatenate([[np.cos(angle / 2)], axis * np.sin(angle / 2)])


def frame_quat(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Quaternion of the rotation with columns x, y, z (``mjuu_frame2quat``: from the largest
    of its four components, so none is divided by a small one)."""
    m = (x, y, z)  # m[c][r]: column c, row r
    if m[0][0] + m[1][1] + m[2][2] > 0:
        w = 0.5 * np.sqrt(1 + m[0][0] + m[1][1] + m[2][2])
        q = [w, 0.25 * (m[1][2] - m[2][1]) / w, 0.25 * (m[2][0] - m[0][2]) / w,
             0.25 * (m[0][1] - m[1][0]) / w]
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        a = 0.5 * np.sqrt(1 + m[0][0] - m[1][1] - m[2][2])
        q = [0.25 * (m[1][2] - m[2][1]) / a, a, 0.25 * (m[1][0] + m[0][1]) / a,
             0.25 * (m[2][0] + m[0][2]) / a]
    elif m[1][1] > m[2][2]:
        a = 0.5 * np.sqrt(1 - m[0][0] + m[1][1] - m[2][2])
        q = [0.25 * (m[2][0] - m[0][2]) / a, 0.25 * (m[1][0] + m[0][1]) / a, a,
             0.25 * (m[2][1] + m[1][2]) / a]
    else:
        a = 0.5 * np.sqrt(1 - m[0][0] - m[1][1] + m[2][2])
        q = [0.25 * (m[0][1] - m[1][0]) / a, 0.25 * (m[2][0] + m[0][2]) / a,
             0.25 * (m[2][1] + m[1][2]) / a, a]
    return unit(np.array(q))[0]



def principal_axes(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (increasing) of a symmetric 3x3 inertia and the unit quaternion of
    their axes (a right-handed frame), ``R(quat) diag(moments) R(quat)^T = theta``.

    >>> lam, q = principal_axes(np.diag([1.0, 3.0, 2.0]))
    >>> from hodyn_cli.core.lie import quaternion_matrix
    >>> R = quaternion_matrix(q)
    >>> lam.tolist(), (R @ np.diag(lam) @ R.T).round(12).diagonal().tolist()
    ([1.0, 2.0, 3.0], [1.0, 3.0, 2.0])
    """
    lam, axes = np.linalg.eigh(theta)
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    return lam, frame_quat(axes[:, 0], axes[:, 1], axes[:, 2])
