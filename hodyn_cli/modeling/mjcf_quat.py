"""Quaternions (w, x, y, z) and rotations as MuJoCo's compiler computes them
(``src/user/user_util.cc``), for the MJCF reader."""

from __future__ import annotations

import numpy as np

__all__ = ["quat_mul", "unit", "z_to_quat", "frame_quat", "principal_axes"]


def quat_mul(a: np.ndarray | list[float], b: np.ndarray | list[float]) -> np.ndarray:
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


#: the Jacobi iteration stops at an off-diagonal element under this share of the matrix's
#: largest entry (MuJoCo's ``kEigTOL``, the default relative tolerance of ``mjuu_eig3``)
EIG_TOL = 4e-15
#: two moments closer than this share of it are not swapped by the sort (``kEigEPS``)
EIG_EPS = 1e-12
#: MuJoCo's cos(pi/4), to the digits it writes
COS_QUARTER_PI = 0.707106781186548


def principal_axes(theta: np.ndarray, reltol: float = EIG_TOL) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments of a symmetric 3x3 inertia (decreasing) and the unit quaternion q of
    their axes, ``R(q) diag(moments) R(q)^T = theta``, as MuJoCo's compiler finds them
    (``mjuu_eig3``): the same axes, order and signs, so that its compiled ``body_iquat`` and
    the mesh frames (and what is built on them) are reproduced to rounding.

    Jacobi's iteration on q (from 1), each step in the frame ``D = R(q)^T theta R(q)``: the
    largest off-diagonal element ``D_rc`` is zeroed by the turn about the third axis k by the
    angle a of ``tan a = t = sign(tau) / (|tau| + sqrt(1 + tau^2))``, ``tau = (D_cc - D_rr) /
    (2 D_rc)`` (the 2x2 symmetric Schur decomposition, Golub and Van Loan, Matrix
    Computations, 8.5.2), ``q <- q (cos(a/2), -+ sin(a/2) e_k)`` (+ for k = y) with ``tan(a/2)
    = t / (1 + sqrt(1 + t^2))``, until ``|D_rc| <= tol max|theta|``, ``tol = max(reltol,
    EIG_TOL)``; the moments are D's diagonal, sorted by three swaps (positions 0, 1, 0) of
    moments more than ``max(reltol, EIG_EPS) max|theta|`` apart, each turning q by pi/2 about
    the third axis. A ``reltol`` above rounding leaves q off the exact axes by up to ~reltol
    rad (MuJoCo's mesh frames: :data:`hodyn_cli.modeling.mjcf_mesh.MESH_EIG_TOL`).

    >>> lam, q = principal_axes(np.diag([1.0, 3.0, 2.0]))
    >>> from hodyn_cli.core.lie import quaternion_matrix
    >>> R = quaternion_matrix(q)
    >>> lam.tolist(), (R @ np.diag(lam) @ R.T).round(12).diagonal().tolist()
    ([3.0, 2.0, 1.0], [1.0, 3.0, 2.0])
    """
    mat = [float(x) for x in np.asarray(theta, dtype=float).reshape(9)]
    scale = max(abs(x) for x in mat)
    tol, eps = scale * max(reltol, EIG_TOL), scale * max(reltol, EIG_EPS)
    quat = [1.0, 0.0, 0.0, 0.0]
    lam = [mat[0], mat[4], mat[8]]
    for _ in range(500):
        R = _quat_matrix(quat)
        D = _matmul(_matmul(_transpose(R), mat), R)
        lam = [D[0], D[4], D[8]]
        if abs(D[1]) > abs(D[2]) and abs(D[1]) > abs(D[5]):
            r, c, k = 0, 1, 2
        elif abs(D[2]) > abs(D[5]):
            r, c, k = 0, 2, 1
        else:
            r, c, k = 1, 2, 0
        if abs(D[3 * r + c]) <= tol:
            break
        tau = (D[4 * c] - D[4 * r]) / (2 * D[3 * r + c])
        t = 1.0 / (tau + np.sqrt(1 + tau * tau)) if tau >= 0 else \
            -1.0 / (-tau + np.sqrt(1 + tau * tau))
        h = t / (1.0 + np.sqrt(1.0 + t * t))
        turn = [1.0 / np.sqrt(1.0 + h * h), 0.0, 0.0, 0.0]
        turn[k + 1] = (h if k == 1 else -h) * turn[0]
        quat = _unit(_unit(quat_mul(quat, turn).tolist()))
    for j in range(3):
        i = j % 2
        if lam[i] + eps < lam[i + 1]:
            lam[i], lam[i + 1] = lam[i + 1], lam[i]
            turn = [COS_QUARTER_PI, 0.0, 0.0, 0.0]
            turn[(i + 2) % 3 + 1] = COS_QUARTER_PI
            quat = _unit(_unit(quat_mul(quat, turn).tolist()))
    return np.array(lam), np.array(quat)


def _unit(v: list[float]) -> list[float]:
    """``mjuu_normvec``: the squares summed in order; unchanged within 1e-14 of unit length."""
    n2 = 0.0
    for x in v:
        n2 += x * x
    if n2 < 1e-14:
        return v
    n = float(np.sqrt(n2))
    return [x / n for x in v] if abs(n - 1) > 1e-14 else v


def _quat_matrix(q: list[float]) -> list[float]:
    """``mjuu_quat2mat``, row-major."""
    if q == [1.0, 0.0, 0.0, 0.0]:
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    w, x, y, z = q
    ww, wx, wy, wz = w * w, w * x, w * y, w * z
    xx, xy, xz, yy, yz, zz = x * x, x * y, x * z, y * y, y * z, z * z
    return [ww + xx - yy - zz, 2 * (xy - wz), 2 * (xz + wy),
            2 * (xy + wz), ww - xx + yy - zz, 2 * (yz - wx),
            2 * (xz - wy), 2 * (yz + wx), ww - xx - yy + zz]


def _matmul(A: list[float], B: list[float]) -> list[float]:
    """``mjuu_mulmat``: 3x3 row-major, each entry summed left to right."""
    return [A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j]
            for i in range(3) for j in range(3)]


def _transpose(A: list[float]) -> list[float]:
    return [A[0], A[3], A[6], A[1], A[4], A[7], A[2], A[5], A[8]]
