"""Weighted least squares on the base parameters, from regressor rows stacked chunk by chunk.

The measurements of joint j are ``y_j = A_j beta + e_j`` (``A_j``: the rows of joint j of the
base regressor, one per sample; ``beta``: the base parameters; ``e_j``: noise of standard
deviation sigma_j). :class:`Stack` keeps per joint only the triangular factor ``R_j`` of
``[A_j y_j] = Q_j R_j`` ((p+1) x (p+1), updated by a QR of ``[R_j; new rows]``: memory
bounded by a chunk, and the numbers of a QR, not of the normal equations). Everything
follows from them: with ``R_j = [[S_j, z_j], [0, rho_j]]``,

    ||A_j beta - y_j||^2 = ||S_j beta - z_j||^2 + rho_j^2

The estimate (Gautier & Poignet 2001; Swevers et al. 1997) weights each joint's rows by
1 / sigma_j: first with sigma_j each joint's RMS measurement (:func:`_spread`), then
sigma_j^2 = RSS_j / (N_j - p / m) from its residuals and weighted least squares, sigma_j
again from those residuals and the weighted solve once more (:data:`ITERATIONS`). Its covariance is
``(sum_j S_j^T S_j / sigma_j^2)^-1``, the standard errors the square roots of its diagonal.
The condition number is that of the stacked weighted regressor with each column scaled to
unit norm (units do not matter), the singular values of ``[S_j / sigma_j]_j``'s.

>>> rng = np.random.default_rng(0)
>>> A = rng.normal(size=(500, 2, 3))                  # 500 samples, 2 joints, 3 parameters
>>> beta = np.array([1.0, -2.0, 0.5])
>>> y = A @ beta + rng.normal(size=(500, 2)) * [0.01, 0.1]
>>> stack = Stack(2, 3)
>>> stack.add(A[:200], y[:200]); stack.add(A[200:], y[200:])
>>> fit = weighted_least_squares(stack)
>>> fit.noise.round(2).tolist(), bool(np.all(np.abs(fit.estimate - beta) < 3 * fit.standard_errors))
([0.01, 0.1], True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Stack", "Fit", "weighted_least_squares", "condition", "conditions", "ITERATIONS"]

#: below this, :func:`condition` takes the Gram matrix's eigenvalues (accurate to ~1e-4 there)
GRAM_CONDITION = 1e6
#: the smallest noise estimate, relative to the joint's RMS measurement
NOISE_FLOOR = 1e-9
#: weighted solves after the ordinary one (each with sigma_j from the last residuals)
ITERATIONS = 2


class Stack:
    """Per joint the triangular factor of ``[A_j y_j]`` over every row added (:meth:`add`):
    ``R`` (m, p+1, p+1); ``samples``: rows per joint so far."""

    def __init__(self, joints: int, parameters: int):
        self.R = np.zeros((joints, parameters + 1, parameters + 1))
        self.samples = 0

    @property
    def parameters(self) -> int:
        return self.R.shape[-1] - 1

    def add(self, A: np.ndarray, y: np.ndarray) -> None:
        """Rows ``A`` (N, m, p) (the base regressor of N samples) and measurements ``y``
        (N, m)."""
        X = np.concatenate([A, y[..., None]], axis=2).transpose(1, 0, 2)  # (m, N, p+1)
        self.R = np.asarray(np.linalg.qr(np.concatenate([self.R, X], axis=1), mode="r"))
        self.samples += A.shape[0]

    def residual_squares(self, beta: np.ndarray) -> np.ndarray:
        """``||A_j beta - y_j||^2`` per joint (m,)."""
        p = self.parameters
        S, z, rho = self.R[:, :p, :p], self.R[:, :p, p], self.R[:, p, p]
        return ((S @ beta - z) ** 2).sum(axis=1) + rho**2

    def weighted(self, noise: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(S, z)``: the rows of every joint divided by its noise, stacked
        (m (p+1), p) and (m (p+1),): ``||S beta - z||^2 = sum_j ||A_j beta - y_j||^2 /
        sigma_j^2`` up to a constant."""
        p = self.parameters
        W = (self.R / noise[:, None, None]).reshape(-1, p + 1)
        return W[:, :p], W[:, p]


@dataclass(frozen=True)
class Fit:
    """Weighted least squares' result: ``estimate`` (p,), ``covariance`` (p, p),
    ``standard_errors`` (p,), ``noise`` sigma_j (m,), ``residual_rms`` per joint (m,),
    ``condition`` of the column-scaled weighted regressor (:func:`condition`)."""

    estimate: np.ndarray
    covariance: np.ndarray
    standard_errors: np.ndarray
    noise: np.ndarray
    residual_rms: np.ndarray
    condition: float


def _solve(stack: Stack, noise: np.ndarray) -> np.ndarray:
    S, z = stack.weighted(noise)
    return np.linalg.lstsq(S, z, rcond=None)[0]


def _spread(stack: Stack) -> np.ndarray:
    """The first solve's sigma_j: each joint's RMS measurement (1 where it is 0), so that it
    weighs every joint alike whatever its units. With 1 for all (ordinary least squares in
    the units given), a prismatic joint's N weighed against the revolute joints' N m by the
    robot's size, and :data:`ITERATIONS` reweightings did not always undo it: on the gripper
    arm's identification log (docs/identification.md) scaled by 1e-3, wrist_roll's noise came
    out 3.8x its residual RMS and the condition number 25.2 (47.7 at 1 m, 132 in mm); now
    1.005x (N / (N - p / m)) on every joint and 48.7 at 1e-3, 1 and 100 m."""
    rms = np.linalg.norm(stack.R[:, :, stack.parameters], axis=1) / np.sqrt(stack.samples)
    return np.where(rms > 0, rms, 1.0)


def _noise(stack: Stack, beta: np.ndarray) -> np.ndarray:
    """sigma_j from the residuals, ``RSS_j / (N - p / m)`` (the p parameters' degrees of
    freedom shared by the m joints); at least :data:`NOISE_FLOOR` times the joint's RMS
    measurement (``||y_j||^2``: the last column of ``R_j``), so that torques fitted to
    rounding (simulated without noise) do not weigh their joint by 1e13."""
    m, p = stack.R.shape[0], stack.parameters
    sigma = np.sqrt(stack.residual_squares(beta) / (stack.samples - p / m))
    rms = np.linalg.norm(stack.R[:, :, p], axis=1) / np.sqrt(stack.samples)
    return np.maximum(sigma, NOISE_FLOOR * np.maximum(rms, 1e-300))


def weighted_least_squares(stack: Stack, noise: np.ndarray | None = None) -> Fit:
    """The weighted least-squares estimate of the stacked rows (module docstring); ``noise``
    (m,): the joints' sigma_j as known (not estimated from the residuals)."""
    sigma = noise
    if sigma is None:
        beta = _solve(stack, _spread(stack))
        for _ in range(ITERATIONS):
            sigma = _noise(stack, beta)
            beta = _solve(stack, sigma)
    else:
        beta = _solve(stack, np.asarray(sigma, float))
    assert sigma is not None
    S, _ = stack.weighted(sigma)
    _, s, Vt = np.linalg.svd(S, full_matrices=False)
    covariance = (Vt.T / s**2) @ Vt
    rms = np.sqrt(stack.residual_squares(beta) / stack.samples)
    return Fit(beta, covariance, np.sqrt(np.diag(covariance)), sigma, rms, condition(S))


def condition(A: np.ndarray) -> float:
    """The condition number of ``A`` (rows, p) with every column scaled to unit norm (a
    column of zeros: infinite), largest over smallest singular value: how much the
    estimate's relative error can exceed the data's, whatever the parameters' units.

    >>> condition(np.array([[1.0, 0.0], [0.0, 1e-6]]))
    1.0
    >>> round(condition(np.array([[1.0, 1.0], [0.0, 1e-9]])) / 2e9, 6)  # by the SVD
    1.0
    """
    return float(conditions(A[None])[0])


def conditions(A: np.ndarray) -> np.ndarray:
    """:func:`condition` of each matrix of the stack ``A`` (m, rows, p), the same bits as
    one at a time (tests/test_identify.py): the excitation design judges thousands, ~37 a
    batch, where a Python loop's calls cost ~15 % more.

    >>> conditions(np.array([[[1.0, 0.0], [0.0, 1e-6]], [[1.0, 1.0], [0.0, 0.0]]]))
    array([ 1., inf])
    """
    norms = np.linalg.norm(A, axis=-2)
    ok = norms.all(axis=-1)  # (a column of zeros: infinite)
    if not ok.all():
        cond = np.full(len(A), np.inf)
        if ok.any():
            cond[ok] = conditions(A[ok])
        return cond
    B = A / norms[:, None, :]
    # the Gram matrix's eigenvalues are the squared singular values to ~eps cond^2 of the
    # largest: a few digits of cond below GRAM_CONDITION, at a tenth of the cost of the SVD
    # of the tall B
    lam = np.linalg.eigvalsh(B.transpose(0, 2, 1) @ B)
    cond = np.sqrt(lam[:, -1] / np.where(lam[:, 0] > 0, lam[:, 0], 1.0))
    by_svd = ~((lam[:, 0] > 0) & (lam[:, -1] < GRAM_CONDITION**2 * lam[:, 0]))
    if by_svd.any():
        s = np.linalg.svd(B[by_svd], compute_uv=False)
        with np.errstate(divide="ignore"):
            cond[by_svd] = s[:, 0] / s[:, -1]
    return cond
