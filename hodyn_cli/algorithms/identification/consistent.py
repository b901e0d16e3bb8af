r"""Physically consistent parameters: the full parameters closest to the data subject to every
body's pseudo-inertia being positive definite.

A body's 10 parameters ``pi_b = (m, h_x, h_y, h_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz)``
(``h = m c``, ``I`` the rotational inertia about the body frame's origin) belong to a real
mass distribution iff its pseudo-inertia (Wensing, Kim & Slotine 2017, eq. 12)::

    J = [[Sigma, h], [h^T, m]],   Sigma = 1/2 tr(I) 1 - I = int r r^T dm

is positive semidefinite: mass positive, and about the centre of mass a second moment of
mass that is PSD, the principal moments' triangle inequalities. Least squares on the base
parameters says nothing of the combinations the data cannot see, and on short or noisy logs
even a body's identifiable part may leave that set (a negative mass, an impossible inertia).

The set ``J > 0`` is an LMI; rather than a conic solver (a new, heavy dependency for a
problem of 10 numbers per body) it is parametrized (Rucker & Wensing 2022): ``J = U U^T``
with ``U`` upper triangular with a positive diagonal,

    U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2], [0, 0, e^d3, t3], [0, 0, 0, 1]]

so that every ``theta = (alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3)`` in R^10 is a
consistent body and every positive definite J has exactly one theta (``m = e^(2 alpha)``).
The problem becomes unconstrained and is solved by ``scipy.optimize.least_squares``
(``dogbox``: a trust region with the bounds as a box, which here converges in tens of
steps where trust-region reflective takes hundreds; drive parameters that must not be
negative, rotor inertias, viscous and Coulomb friction, by its bounds)::

    min_theta  ||S (K pi(theta)) - z||^2  +  w sum_b ||log(L_b^-1 J_b(theta) L_b^-T)||_F^2
                                          +  w sum_d ((p_d - p0_d) / max(|p0_d|, 1))^2

The first term is the weighted least-squares problem of the base parameters ``K pi``
(``S``, ``z``: :meth:`~.least_squares.Stack.weighted`; a sum of squares of the order of the
number of measurements). The second is the prior (``w``: ``prior_weight``): the squared
affine-invariant Riemannian distance between each body's ``J`` and the URDF's ``J0 = L_b
L_b^T`` (Lee & Park 2018; to second order twice their entropic, log-det, divergence):
unitless and the same in any body frame, it holds the parameters the data cannot see at
the URDF's and pulls the others with the weight of ``w`` measurements. A URDF body whose J0
is singular (a point mass, a massless link) is given ``J0 + 1e-3 lambda_max(J0) 1`` (or 1e-6
1 if it is zero) as its prior centre, both in units of the body's own size
(:func:`_prior_centre`). Drive parameters are held by their relative distance to the
drives file's value (or absolute, in SI units, below 1).

>>> pi = np.array([2.0, 0.2, 0.0, 0.0, 0.01, 0.0, 0.03, 0.0, 0.0, 0.03])  # a rod, c = 0.1 x
>>> J = pseudo_inertia(pi[None])
>>> bool(np.allclose(parameters_of(from_log_cholesky(log_cholesky(J)))[0], pi))
True
>>> consistent(pi[None]).tolist(), consistent(-pi[None]).tolist()
([True], [False])
"""

from __future__ import annotations

import numpy as np

__all__ = ["pseudo_inertia", "parameters_of", "log_cholesky", "from_log_cholesky",
           "consistent", "closest_parameters", "consistent_parameters", "SINGULAR_PRIOR"]

#: a singular URDF pseudo-inertia J0 is regularized to J0 + SINGULAR_PRIOR lambda_max(J0) 1
SINGULAR_PRIOR = 1e-3
#: bound of the log-Cholesky exponents alpha, d_i (:func:`from_log_cholesky`)
LOG_BOUND = 60.0
#: indices of the 3x3 symmetric I in the 10 parameters (rows then columns)
_I = np.array([[4, 5, 7], [5, 6, 8], [7, 8, 9]])
#: the strictly upper entries of U in theta's order (s12, s23, s13, t1, t2, t3)
_OFF = ((0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3))
#: the upper triangle of a 3x3 matrix (I's entries) and the strict one of a 4x4 (log J's),
#: made once: the solver's every residual and Jacobian reads them
_UPPER3 = np.triu_indices(3)
_STRICT4 = np.triu_indices(4, 1)


def pseudo_inertia(pi: np.ndarray) -> np.ndarray:
    """J (nb, 4, 4) of the parameters pi (nb, 10)."""
    I = pi[:, _I]
    J = np.zeros((len(pi), 4, 4))
    J[:, :3, :3] = 0.5 * np.trace(I, axis1=1, axis2=2)[:, None, None] * np.eye(3) - I
    J[:, :3, 3] = J[:, 3, :3] = pi[:, 1:4]
    J[:, 3, 3] = pi[:, 0]
    return J


def parameters_of(J: np.ndarray) -> np.ndarray:
    """The parameters pi (nb, 10) of pseudo-inertias J (nb, 4, 4): ``I = tr(Sigma) 1 -
    Sigma``."""
    Sigma = J[:, :3, :3]
    I = np.trace(Sigma, axis1=1, axis2=2)[:, None, None] * np.eye(3) - Sigma
    rows, cols = _UPPER3
    pi = np.zeros((len(J), 10))
    pi[:, 0], pi[:, 1:4] = J[:, 3, 3], J[:, :3, 3]
    pi[:, _I[rows, cols]] = I[:, rows, cols]
    return pi


def from_log_cholesky(theta: np.ndarray) -> np.ndarray:
    """J = U U^T (nb, 4, 4) of theta (nb, 10) (module docstring)."""
    U = np.zeros((len(theta), 4, 4))
    # the exponents clipped where a trial step of the solver goes far out (e^60: 1e26, far
    # beyond any body, and U U^T stays finite): no overflow, and such steps are rejected
    logs = np.clip(theta[:, :4], -LOG_BOUND, LOG_BOUND)
    U[:, [0, 1, 2], [0, 1, 2]] = np.exp(logs[:, 1:4])
    U[:, 3, 3] = 1.0
    for k, (i, j) in enumerate(_OFF):
        U[:, i, j] = theta[:, 4 + k]
    U *= np.exp(logs[:, 0])[:, None, None]
    return U @ U.transpose(0, 2, 1)


def log_cholesky(J: np.ndarray) -> np.ndarray:
    """theta (nb, 10) of positive definite J (nb, 4, 4): ``U`` from the Cholesky factor of
    J with rows and columns reversed (``P J P = L L^T`` gives ``U = P L P``)."""
    L = np.linalg.cholesky(J[:, ::-1, ::-1])
    U = L[:, ::-1, ::-1]
    scale = U[:, 3, 3]
    U = U / scale[:, None, None]
    theta = np.zeros((len(J), 10))
    theta[:, 0] = np.log(scale)
    theta[:, 1:4] = np.log(U[:, [0, 1, 2], [0, 1, 2]])
    for k, (i, j) in enumerate(_OFF):
        theta[:, 4 + k] = U[:, i, j]
    return theta


def consistent(pi: np.ndarray, rtol: float = 1e-12) -> np.ndarray:
    """(nb,) bool: each body's pseudo-inertia is positive semidefinite (to ``rtol`` of its
    largest eigenvalue): a mass distribution has these parameters."""
    lam = np.linalg.eigvalsh(pseudo_inertia(pi))
    return (lam[:, 0] >= -rtol * np.abs(lam).max(axis=1)) & (pi[:, 0] > 0)


def closest_parameters(beta: np.ndarray, base_map: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """The full parameters nearest (Euclidean) to ``prior`` with base parameters ``beta =
    base_map @ pi``: what least squares alone gives, no constraint."""
    return prior + np.linalg.pinv(base_map) @ (beta - base_map @ prior)


def _prior_centre(J0: np.ndarray) -> np.ndarray:
    """J0, regularized where singular (module docstring), both in units of each body's own
    size: ``J0 = D Jn D`` with ``D = diag(r, r, r, 1)``, r its radius of gyration about its
    frame's origin (``sqrt(tr Sigma / m)``; 1 m where it has none), and the test and the
    added ``SINGULAR_PRIOR lambda_max 1`` on Jn. On J0 itself they compared Sigma (kg m^2)
    with m (kg): the lift ~1e-3 m (every body of the gripper arm counts as singular) is
    small against Sigma at 1 m but swamped it at 1e-3 (a blob of 1e-3 the mass spread over
    a metre), the prior distance of the 1 m arm's identified parameters was 128x its value
    at 1 m, and the solver stopped unconverged with
    masses 0.57x to 7x the 1 m arm's at 1e-3 and 1e-2 (20x to 28x in mm); now they agree to
    2e-4 from 1e-3 to 1e3 (tests/test_identify_scale.py)."""
    m, spread = J0[:, 3, 3], np.trace(J0[:, :3, :3], axis1=1, axis2=2)
    ok = (m > 0) & (spread > 0)
    r = np.where(ok, np.sqrt(np.where(ok, spread, 1.0) / np.where(ok, m, 1.0)), 1.0)
    d = np.ones((len(J0), 4))
    d[:, :3] = r[:, None]
    Jn = J0 / (d[:, :, None] * d[:, None, :])
    lam = np.linalg.eigvalsh(Jn)
    top = np.maximum(lam[:, -1], 0.0)
    singular = lam[:, 0] <= SINGULAR_PRIOR * top
    # a URDF body that is no rigid body (lambda_min < 0: four of the iiwa's) is lifted by
    # |lambda_min| more, to SINGULAR_PRIOR lambda_max; on J0 the kg-sized lift had covered it
    add = np.where(top > 0, SINGULAR_PRIOR * top - np.minimum(lam[:, 0], 0.0), 1e-6)
    return (Jn + np.where(singular, add, 0.0)[:, None, None] * np.eye(4)) * d[:, :, None] \
        * d[:, None, :]


def _spd_log_residuals(M: np.ndarray) -> np.ndarray:
    """(nb, 10) entries of log(M) (M symmetric positive definite) whose squares sum to
    ``||log M||_F^2``: the diagonal, and sqrt(2) times the upper entries."""
    lam, V = np.linalg.eigh(M)
    # (M = U U^T is positive definite; a trial step far out can round an eigenvalue to <= 0)
    logM = (V * np.log(np.maximum(lam, 1e-300))[:, None, :]) @ V.transpose(0, 2, 1)
    rows, cols = _STRICT4
    return np.concatenate([logM[:, range(4), range(4)], np.sqrt(2) * logM[:, rows, cols]],
                          axis=1)


def consistent_parameters(S: np.ndarray, z: np.ndarray, base_map: np.ndarray,
                          prior: np.ndarray, bodies: int, nonnegative: np.ndarray,
                          prior_weight: float = 1.0) -> tuple[np.ndarray, bool]:
    """The full parameters (10 bodies, then the drives') minimizing the module docstring's
    objective, and whether the solver converged. ``S``, ``z``: the weighted base regressor
    rows (:meth:`~.least_squares.Stack.weighted`); ``base_map`` (r, P): base parameters of the
    full ones; ``prior`` (P,): the URDF's (and the drives file's) values, also the start;
    ``nonnegative`` (P - 10 bodies,) bool: the drive parameters bounded below by 0."""
    from scipy.optimize import least_squares

    nb10 = 10 * bodies
    G = S @ base_map
    # the same sum of squares, fewer rows
    R = np.asarray(np.linalg.qr(np.column_stack([G, z]), mode="r"))
    G, z = R[:, :-1], R[:, -1]
    centre = _prior_centre(pseudo_inertia(prior[:nb10].reshape(bodies, 10)))
    # each body's unknowns relative to its prior centre J0 = L L^T: J = L Jn L^T, theta that
    # of Jn (0 at the centre), so that they, the prior's residuals log(Jn) and the steps of the
    # Jacobian's differences (1e-6 of each theta, or absolute below 1) are the same numbers
    # for the robot in any unit; theta of J itself has entries of the body's size (m c, its
    # Cholesky factor's sqrt(kg) m), and at 1e-3 the solver stopped with the identified
    # parameters 1e-4 from the 1 m robot's (tests/test_identify_scale.py)
    L0 = np.linalg.cholesky(centre)
    drives0 = prior[nb10:]
    scale = np.maximum(np.abs(drives0), 1.0)
    root = np.sqrt(prior_weight)

    def bodies_of(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(pi (nb, 10), prior residuals (nb, 10)) of the bodies' theta (nb, 10), Jn's."""
        Jn = from_log_cholesky(theta)
        # (theta may be several copies of the bodies, one after the other: the Jacobian's)
        L = L0 if len(theta) == bodies else np.tile(L0, (len(theta) // bodies, 1, 1))
        return parameters_of(L @ Jn @ L.transpose(0, 2, 1)), _spd_log_residuals(Jn)

    def residuals(x: np.ndarray) -> np.ndarray:
        pi, prior_part = bodies_of(x[:nb10].reshape(bodies, 10))
        parts = [G @ np.concatenate([pi.ravel(), x[nb10:]]) - z]
        if prior_weight > 0:
            parts += [root * prior_part.ravel(), root * (x[nb10:] - drives0) / scale]
        return np.concatenate(parts)

    def jacobian(x: np.ndarray) -> np.ndarray:
        """Bodies are independent: each theta component moved in every body at once, central
        differences (20 evaluations, not 20 per body, and those 20 one batched call: most of
        a solve was these calls' fixed cost at 7 bodies), then the chain rule through G."""
        theta = x[:nb10].reshape(bodies, 10)
        step = 1e-6 * np.maximum(1.0, np.abs(theta))   # (bodies, 10): component k's in [:, k]
        moved = np.broadcast_to(theta, (2, 10, bodies, 10)).copy()   # (up/down, k, body, .)
        for k in range(10):
            moved[0, k, :, k] += step[:, k]
            moved[1, k, :, k] -= step[:, k]
        pi, prior_part = bodies_of(moved.reshape(-1, 10))
        width = 2 * step.T[:, :, None]   # (k, body, 1)
        pi, prior_part = pi.reshape(2, 10, bodies, 10), prior_part.reshape(2, 10, bodies, 10)
        # (body, parameter, k), contiguous as einsum below was given it (its sums in that order)
        d_pi = np.ascontiguousarray(((pi[0] - pi[1]) / width).transpose(1, 2, 0))
        d_prior = ((prior_part[0] - prior_part[1]) / width).transpose(1, 2, 0)
        rows = [np.concatenate([np.einsum("rbi,bik->rbk", G[:, :nb10].reshape(-1, bodies, 10),
                                          d_pi).reshape(len(G), nb10), G[:, nb10:]], axis=1)]
        if prior_weight > 0:
            block = np.zeros((nb10, x.size))
            for b in range(bodies):
                block[10 * b:10 * b + 10, 10 * b:10 * b + 10] = root * d_prior[b]
            drive = np.zeros((x.size - nb10, x.size))
            drive[:, nb10:] = np.diag(root / scale)
            rows += [block, drive]
        return np.concatenate(rows)

    lower = np.concatenate([np.full(nb10, -np.inf), np.where(nonnegative, 0.0, -np.inf)])
    x0 = np.concatenate([np.zeros(nb10), np.maximum(drives0, lower[nb10:])])   # (Jn = 1)
    found = least_squares(residuals, x0, jac=jacobian, bounds=(lower, np.inf), method="dogbox",
                          xtol=1e-10, ftol=1e-10, gtol=1e-10, max_nfev=1000)
    pi = bodies_of(found.x[:nb10].reshape(bodies, 10))[0]
    return np.concatenate([pi.ravel(), found.x[nb10:]]), bool(found.success)
