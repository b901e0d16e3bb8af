"""SE(3) operators in hodyn's conventions (docs/conventions.md).

Screw coordinates are ordered (angular; linear), wrenches (moment; force). All
functions accept leading batch axes: a twist is ``(..., 6)``, a rotation
``(..., 3, 3)``, a rigid transformation is carried as the pair ``(R, p)``.

For ``C = (R, p)``::

    Ad_C = [[R, 0], [skew(p) R, R]]          ad_X = [[skew(xi), 0], [skew(eta), skew(xi)]]

>>> import numpy as np
>>> X, Y = np.array([0, 0, 1.0, 0, 0, 0]), np.array([1.0, 0, 0, 0, 1, 0])
>>> bracket(X, Y)
array([ 0.,  1.,  0., -1.,  0.,  0.])
>>> np.allclose(ad(X) @ Y, bracket(X, Y))
True
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "skew",
    "rpy_matrix",
    "matrix_rpy",
    "quaternion_matrix",
    "rotation_exp",
    "rotation_vector_exp",
    "rotation_log",
    "screw_exp",
    "Ad",
    "Ad_inv",
    "ad",
    "bracket",
    "coad",
    "cross",
    "homogeneous",
    "body_inertia",
]


def skew(v: np.ndarray) -> np.ndarray:
    """Skew-symmetric matrix of ``v`` (..., 3) so that ``skew(a) @ b = a x b``.

    >>> skew(np.array([1.0, 2.0, 3.0]))
    array([[ 0., -3.,  2.],
           [ 3.,  0., -1.],
           [-2.,  1.,  0.]])
    """
    v = np.asarray(v)
    v = v.astype(np.result_type(v, 1.0), copy=False)  # complex too (complex-step derivatives)
    S = np.zeros(v.shape[:-1] + (3, 3), v.dtype)
    S[..., 0, 1], S[..., 0, 2] = -v[..., 2], v[..., 1]
    S[..., 1, 0], S[..., 1, 2] = v[..., 2], -v[..., 0]
    S[..., 2, 0], S[..., 2, 1] = -v[..., 1], v[..., 0]
    return S


def rpy_matrix(rpy: np.ndarray | list[float] | tuple[float, ...]) -> np.ndarray:
    """URDF roll-pitch-yaw (fixed axes x, y, z): ``R = Rz(yaw) Ry(pitch) Rx(roll)``.

    >>> np.round(rpy_matrix([np.pi / 2, 0, 0]), 12) + 0.0
    array([[ 1.,  0.,  0.],
           [ 0.,  0., -1.],
           [ 0.,  1.,  0.]])
    """
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def matrix_rpy(R: np.ndarray) -> np.ndarray:
    """The roll, pitch, yaw of :func:`rpy_matrix` that give the rotation R (pitch in
    [-pi/2, pi/2]; at pitch +-pi/2, where only yaw -+ roll is defined, roll 0).

    >>> rpy = [0.3, -1.2, 2.9]
    >>> bool(np.allclose(matrix_rpy(rpy_matrix(rpy)), rpy, atol=1e-15))
    True
    >>> bool(np.allclose(rpy_matrix(matrix_rpy(rpy_matrix([0.4, np.pi / 2, 0.1]))),
    ...                  rpy_matrix([0.4, np.pi / 2, 0.1]), atol=1e-15))
    True
    """
    cp = np.hypot(R[0, 0], R[1, 0])
    pitch = np.arctan2(-R[2, 0], cp)
    if cp < 1e-12:  # cos(pitch) = 0: R = Rz(yaw -+ roll) Ry(+-pi/2)
        return np.array([0.0, pitch, np.arctan2(-R[0, 1], R[1, 1])])
    return np.array([np.arctan2(R[2, 1], R[2, 2]), pitch, np.arctan2(R[1, 0], R[0, 0])])


def quaternion_matrix(q: np.ndarray) -> np.ndarray:
    """The rotation matrix of a unit quaternion ``(w, x, y, z)`` (Hamilton's convention: MJCF
    ``quat``; URDF 1.1's ``quat_xyzw`` puts w last).

    >>> quaternion_matrix(np.array([np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)])).round(12) + 0.0
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  1.]])
    """
    w, x, y, z = q
    return np.array([
        [w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z]])


def rotation_exp(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Euler-Rodrigues ``exp(angle skew(axis))`` for a unit ``axis`` (3,), angles (...,)."""
    S = skew(axis)
    s, c = np.sin(angle)[..., None, None], np.cos(angle)[..., None, None]
    return np.eye(3) + s * S + (1.0 - c) * (S @ S)


def rotation_vector_exp(w: np.ndarray) -> np.ndarray:
    """``exp(skew(w))`` (..., 3, 3) of rotation vectors w (..., 3): Rodrigues,
    ``I + sin(t)/t W + (1 - cos t)/t^2 W^2`` with t = |w|, the coefficients by their series
    below t = 1e-4 (exact to rounding there).

    >>> w = np.array([[0.3, -0.2, 0.1], [0.0, 0.0, 0.0]])
    >>> bool(np.abs(rotation_log(rotation_vector_exp(w)) - w).max() < 1e-15)
    True
    """
    w = np.asarray(w, dtype=float)
    t = np.linalg.norm(w, axis=-1)[..., None, None]
    small = t < 1e-4
    safe = np.where(small, 1.0, t)
    a = np.where(small, 1.0 - t**2 / 6.0, np.sin(safe) / safe)
    b = np.where(small, 0.5 - t**2 / 24.0, (1.0 - np.cos(safe)) / safe**2)
    W = skew(w)
    return np.eye(3) + a * W + b * (W @ W)


def rotation_log(R: np.ndarray) -> np.ndarray:
    """Rotation vector ``theta * axis`` (..., 3) with ``exp(skew(.)) = R``, ``theta`` in [0, pi].

    ``2 sin(theta) axis`` is the skew part of R; beyond ``theta = pi/2`` (where that vanishes
    towards pi: an error e of R's entries would tilt the axis by e / sin(theta)) the axis
    comes from the symmetric part ``(R + R^T)/2 - cos(theta) I = (1 - cos) a a^T``, tilted by
    e / (1 - cos) < e there, its sign from the skew part.

    >>> w = np.array([[0.3, -0.2, 0.1], [0.0, 0.0, 0.0], [0.0, np.pi - 1e-9, 0.0]])
    >>> R = np.stack([rotation_exp(v / max(np.linalg.norm(v), 1e-300), np.linalg.norm(v)) for v in w])
    >>> float(np.abs(rotation_log(R) - w).max()) < 1e-12
    True
    """
    R = np.asarray(R, dtype=float)
    s = 0.5 * np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                        R[..., 1, 0] - R[..., 0, 1]], axis=-1)          # sin(theta) axis
    c = np.clip(0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0), -1.0, 1.0)
    sin = np.linalg.norm(s, axis=-1)
    theta = np.arctan2(sin, c)
    # theta / sin(theta) -> 1 at 0 (series 1 + theta^2/6 below 1e-4: exact to rounding); at
    # theta = pi exactly sin = 0 (a base yawed by pi): divided by 1, the near-pi branch's below
    small = theta < 1e-4
    scale = np.where(small, 1.0 + theta**2 / 6.0,
                     theta / np.where(small | (sin == 0), 1.0, sin))
    w = s * scale[..., None]
    near_pi = c < 0.0   # theta > pi/2
    if np.any(near_pi):
        B = 0.5 * (R + np.swapaxes(R, -1, -2)) - c[..., None, None] * np.eye(3)
        col = np.argmax(np.diagonal(B, axis1=-2, axis2=-1), axis=-1)
        a = np.take_along_axis(B, col[..., None, None], axis=-1)[..., 0]
        a /= np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), 1e-300)
        a *= np.where(np.sum(a * s, axis=-1) < 0, -1.0, 1.0)[..., None]
        w = np.where(near_pi[..., None], theta[..., None] * a, w)
    return w


def screw_exp(X: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``exp(X q)`` for a joint screw X (6,) and joint values q (...,), as ``(R, p)``.

    X is revolute/helical when its angular part is a unit vector, prismatic when it
    is zero (Mueller & Kumar eq. (6)).

    >>> R, p = screw_exp(np.array([0, 0, 1.0, 0, -1.0, 0]), np.array([np.pi / 2]))
    >>> np.round(p, 12) + 0.0   # rotation about the axis through (1, 0, 0)
    array([[ 1., -1.,  0.]])
    """
    q = np.asarray(q)
    q = q.astype(np.result_type(q, 1.0), copy=False)  # complex too (complex-step derivatives)
    xi, eta = X[:3], X[3:]
    if not np.any(xi):
        return np.broadcast_to(np.eye(3), q.shape + (3, 3)).copy(), q[..., None] * eta
    R = rotation_exp(xi, q)
    x = np.cross(xi, eta)  # point on the axis closest to the origin
    h = xi @ eta  # pitch
    p = (np.eye(3) - R) @ x + (h * q)[..., None] * xi
    return R, p


def Ad(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Adjoint matrix (..., 6, 6) of ``C = (R, p)``: screws from C's frame to its parent's."""
    A = np.zeros(R.shape[:-2] + (6, 6))
    A[..., :3, :3] = R
    A[..., 3:, 3:] = R
    A[..., 3:, :3] = skew(p) @ R
    return A


def Ad_inv(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``Ad_{C^-1}`` for ``C = (R, p)``: ``[[R^T, 0], [-R^T skew(p), R^T]]``."""
    Rt = np.swapaxes(R, -1, -2)
    A = np.zeros(R.shape[:-2] + (6, 6), np.result_type(R, p))
    A[..., :3, :3] = Rt
    A[..., 3:, 3:] = Rt
    A[..., 3:, :3] = -Rt @ skew(p)
    return A


def ad(X: np.ndarray) -> np.ndarray:
    """Matrix (..., 6, 6) of the Lie bracket ``ad_X``."""
    A = np.zeros(X.shape[:-1] + (6, 6))
    A[..., :3, :3] = A[..., 3:, 3:] = skew(X[..., :3])
    A[..., 3:, :3] = skew(X[..., 3:])
    return A


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product of 3-vectors (..., 3) (broadcasting)."""
    # np.cross spends most of its time on axis bookkeeping; this is 3x faster here.
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def bracket(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Lie bracket ``[X, Y] = ad_X Y`` of screws (..., 6) (broadcasting)."""
    xi, eta, zeta, rho = X[..., :3], X[..., 3:], Y[..., :3], Y[..., 3:]
    return np.concatenate([cross(xi, zeta), cross(eta, zeta) + cross(xi, rho)], axis=-1)


def coad(V: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Co-adjoint action ``ad_V^T W`` of a twist V on a wrench W, both (..., 6).

    >>> V, W = np.arange(6.0), np.arange(6.0)[::-1]
    >>> np.allclose(coad(V, W), ad(V).T @ W)
    True
    """
    w, v, m, f = V[..., :3], V[..., 3:], W[..., :3], W[..., 3:]
    return -np.concatenate([cross(w, m) + cross(v, f), cross(w, f)], axis=-1)


def homogeneous(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    """4x4 homogeneous matrix (..., 4, 4) of ``(R, p)``."""
    T = np.zeros(R.shape[:-2] + (4, 4))
    T[..., :3, :3], T[..., :3, 3], T[..., 3, 3] = R, p, 1.0
    return T


def transform_inertia(M: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Inertia M (6, 6) given in frame L, expressed in frame k where ``T`` = pose of L in k
    (``Ad_{T^-1}^T M Ad_{T^-1}``)."""
    A = Ad_inv(T[:3, :3], T[:3, 3])
    return A.T @ M @ A


def body_inertia(mass: float, com: np.ndarray, theta_com: np.ndarray) -> np.ndarray:
    """Body inertia (6, 6) about the body frame origin, (angular; linear) ordering, from the
    mass, the COM and the rotational inertia about the COM (not to be confused with
    :func:`hodyn_cli.algorithms.backends.numpy.spatial.spatial_inertia`, a body inertia in the root
    frame).

    ``theta_com`` is the rotational inertia about the COM in body-frame axes; Steiner
    gives ``Theta = theta_com - m skew(c)^2`` (Mueller & Kumar eq. (24)).

    >>> M = body_inertia(2.0, np.array([1.0, 0, 0]), np.zeros((3, 3)))
    >>> M[[2, 2, 4], [2, 4, 2]].tolist()   # a point mass at (1, 0, 0): m L^2 and +-m L
    [2.0, 2.0, 2.0]
    """
    C = skew(com)
    M = np.zeros((6, 6))
    M[:3, :3] = theta_com - mass * C @ C
    M[:3, 3:] = mass * C
    M[3:, :3] = -mass * C
    M[3:, 3:] = mass * np.eye(3)
    return M
