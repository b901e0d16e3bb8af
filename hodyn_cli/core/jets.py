"""Jets: a quantity and its first K time derivatives, ``(N, K+1, ...)`` (sample, derivative
order, the quantity's own axes), and the rules that carry derivatives through products and
inverses (Leibniz). What a closed-form expression of quantities with known derivatives needs to
have exact derivatives itself.

- product: ``(a b)^(k) = sum_j C(k, j) a^(j) b^(k-j)``;
- inverse: from ``A A^-1 = I``, ``(A^-1)^(k) = -A^-1 sum_{j>=1} C(k, j) A^(j) (A^-1)^(k-j)``;
- rotation: ``R' = skew(omega) R`` (spatial angular velocity) or ``R' = R skew(omega)`` (body),
  so ``R^(k+1) = sum_j C(k, j) skew(omega^(j)) R^(k-j)`` (or the mirror image).

>>> t = 0.5   # a = (t, 1, 0): the jet of t; its square and its reciprocal
>>> a = np.array([[[t], [1.0], [0.0]]])
>>> product(a, a, np.multiply)[0, :, 0].tolist()   # t^2, 2t, 2
[0.25, 1.0, 2.0]
>>> reciprocal(a[..., 0])[0].tolist()              # 1/t, -1/t^2, 2/t^3
[2.0, -4.0, 16.0]
"""

from __future__ import annotations

from collections.abc import Callable
from math import comb

import numpy as np

from hodyn_cli.core import lie

__all__ = ["product", "inverse", "reciprocal", "rotation", "transpose"]


def product(a: np.ndarray, b: np.ndarray,
            op: Callable[[np.ndarray, np.ndarray], np.ndarray] = np.matmul) -> np.ndarray:
    """The jet of ``op(a, b)`` (bilinear: matmul by default) from the jets a, b (N, K+1, ...),
    to the lower of their orders."""
    K1 = min(a.shape[1], b.shape[1])
    # order first, each order contiguous: op on strided (N, ...) slices copies them every time
    a, b = (np.ascontiguousarray(np.moveaxis(x[:, :K1], 1, 0)) for x in (a, b))
    first = op(a[0], b[0])
    out = np.empty((K1,) + first.shape)
    out[0] = first
    for k in range(1, K1):
        out[k] = sum(comb(k, j) * op(a[j], b[k - j]) for j in range(k + 1))
    return np.moveaxis(out, 0, 1)


def inverse(A: np.ndarray) -> np.ndarray:
    """The jet of ``A^-1`` from the jet of invertible matrices A (N, K+1, m, m)."""
    X = np.empty_like(A)
    X[:, 0] = np.linalg.inv(A[:, 0])
    for k in range(1, A.shape[1]):
        X[:, k] = -X[:, 0] @ sum(comb(k, j) * (A[:, j] @ X[:, k - j]) for j in range(1, k + 1))
    return X


def reciprocal(a: np.ndarray) -> np.ndarray:
    """The jet of ``1 / a`` from the jet of nonzero numbers a (N, K+1)."""
    x = np.empty_like(a)
    x[:, 0] = 1.0 / a[:, 0]
    for k in range(1, a.shape[1]):
        x[:, k] = -x[:, 0] * sum(comb(k, j) * a[:, j] * x[:, k - j] for j in range(1, k + 1))
    return x


def rotation(R: np.ndarray, omega: np.ndarray, K: int, body: bool = False) -> np.ndarray:
    """The jet (N, K+1, 3, 3) of a rotation R (N, 3, 3) turning with angular velocity omega
    (N, >= K, 3) and its derivatives: spatial ``R' = skew(omega) R``, or with ``body`` the
    body-fixed ``R' = R skew(omega)``."""
    W = np.ascontiguousarray(np.moveaxis(lie.skew(omega[:, :K]), 1, 0))  # order first (product)
    out = np.empty((K + 1,) + R.shape)
    out[0] = R
    for k in range(K):
        out[k + 1] = sum(comb(k, j) * (out[k - j] @ W[j] if body else W[j] @ out[k - j])
                         for j in range(k + 1))
    return np.moveaxis(out, 0, 1)


def transpose(A: np.ndarray) -> np.ndarray:
    """The jet of ``A^T`` (the last two axes swapped; linear maps such as ``skew`` act on a
    jet derivative by derivative)."""
    return np.swapaxes(A, -1, -2)

