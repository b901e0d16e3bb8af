"""Excitation motions for identification (``hodyn generate --kind excitation``): the finite
Fourier series of ``fourier`` (Swevers, Ganseman, Tukel, De Schutter & Van Brussel 1997)
whose coefficients minimize the condition number of the stacked base regressor, within the
limits.

Per joint ``q(t) = q0 + sum_l [a_l / (l w_f) sin(l w_f t) - b_l / (l w_f) cos(l w_f t)]``
(``q0`` the middle of its range; periodic, so the motion can repeat and be averaged). The
design is evaluated at :data:`SAMPLES` instants over one period: the base regressor ``Y_b``
(:func:`hodyn_cli.algorithms.dynamics.regressor.base_parameters`, gravity included) stacked
over them, its condition number with every column scaled to unit norm
(:func:`hodyn_cli.algorithms.identification.least_squares.condition`, which the estimate's
sensitivity to noise follows). The position and velocity limits hold by construction: each
joint's coefficients are scaled, as ``fourier`` scales random ones, to use at most 80 % of
its range and of its velocity limit. The torques ``Y pi`` and their rates ``Y_d pi`` (the
URDF's parameters) enter as a penalty above 90 % of their limits, so that the chosen
motion keeps them; ``generate --respect-limits`` then checks every sample of the written
motion, and plays it slower if a limit still binds. The optimizer is scipy's L-BFGS-B on
``log cond + penalty`` from the random coefficients of ``seed`` (deterministic), with
forward-difference gradients, each one regressor evaluation of the 2 n L + 1 designs' SAMPLES
samples together (n joints, L harmonics).
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics import regressor
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.identification.least_squares import conditions
from hodyn_cli.algorithms.planning.generate import (
    DEFAULTS,
    Chart,
    _ranges,
    on_the_group,
    seeded,
)
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.modeling.limits import Limits

__all__ = ["excitation", "fourier_series", "SAMPLES", "Excitation"]

#: instants per period at which a design is judged
SAMPLES = 80
#: share of a limit a torque (rate) may use before the penalty
TORQUE_SHARE = 0.9
#: share of the position range and velocity limit the motion uses (as ``fourier``'s)
SHARE = 0.8
#: the forward differences' step of the objective's gradient
STEP = 1e-6


def fourier_series(a: np.ndarray, b: np.ndarray, wf: float, t: np.ndarray, orders: int
                   ) -> np.ndarray:
    """(..., N, orders, n): q - q0 and its derivatives of the Fourier series with coefficients
    a, b (..., n, L) (a design or a stack of them) at times t."""
    lw = wf * np.arange(1, a.shape[-1] + 1)
    out = np.zeros(a.shape[:-2] + (len(t), orders, a.shape[-2]))
    for k in range(orders):
        arg = np.outer(t, lw) + k * np.pi / 2
        out[..., k, :] = (np.einsum("...jl,nl->...nj", a * lw ** (k - 1), np.sin(arg))
                          - np.einsum("...jl,nl->...nj", b * lw ** (k - 1), np.cos(arg)))
    return out


class Excitation:
    """The design problem of one robot (module docstring): :meth:`coefficients` solves it."""

    def __init__(self, model: Model, limits: Limits, *, harmonics: int = DEFAULTS["harmonics"],
                 base_frequency: float = DEFAULTS["base_frequency"], gravity=GRAVITY):
        self.model, self.L, self.wf = model, harmonics, 2 * np.pi * base_frequency
        self.c = model.coupling
        # multi-DOF joints are designed in their charts, one coordinate per DOF (as fourier's)
        designed = Chart.of(model) if model.multi_dof else model
        idx = list(range(designed.n)) if model.multi_dof else list(model.coordinates)
        self.names = tuple(designed.joint_names[i] for i in idx)
        centre, half = _ranges(designed)  # fourier's: a default range where a joint has none
        self.centre, self.half = centre[idx], half[idx]
        self.vmax = designed.velocity_limits[idx]
        joint = np.repeat(np.arange(model.n), model.dofs)[idx]  # each DOF's joint
        self.torque = limits.bands["torque"][joint, 1]
        self.rate = limits.bands["torque_rate"][joint, 1]
        self.t = np.arange(SAMPLES) / (SAMPLES * base_frequency)
        self.gravity = gravity
        self.base = regressor.base_parameters(model, gravity=gravity)
        self.pi = regressor.parameters(model)
        self.order = 1 if np.isfinite(self.rate).any() else 0
        self.data = backends.current().data(model)  # one Data for the thousands of designs

    def scaled(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Coefficients (a, b) ((..., n, L) each) from the free ones ``x`` (..., 2 n L), each
        joint scaled into its position range and velocity limit."""
        n = len(self.centre)
        a, b = np.moveaxis(x.reshape(*x.shape[:-1], 2, n, self.L), -3, 0)
        probe = np.abs(fourier_series(a, b, self.wf, self.t, 2)).max(axis=-3)
        s = SHARE * self.half / (probe[..., 0, :] + 1e-300)
        s = np.minimum(s, np.where(np.isfinite(self.vmax), SHARE * self.vmax, np.inf)
                       / (probe[..., 1, :] + 1e-300))
        return a * s[..., None], b * s[..., None]

    def motion(self, a: np.ndarray, b: np.ndarray) -> Trajectory:
        """The designs of coefficients (a, b) ((m, n, L) each) one after the other: m times
        :data:`SAMPLES` samples (no times: the designs are not one motion)."""
        qs = fourier_series(a, b, self.wf, self.t, self.order + 3)
        qs = qs.reshape(-1, *qs.shape[2:])
        qs[:, 0] += self.centre
        designed = Trajectory(self.names, qs, None)
        return on_the_group(self.model, designed) if self.model.multi_dof else \
            self.c.expand(designed)

    def judge(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Of each of the m designs (a, b) ((m, n, L) each): (condition numbers, penalties of
        the torques and rates beyond their share), their regressors in one call."""
        Y = regressor.project_rows(self.model, regressor.regressor(
            self.model, self.motion(a, b), order=self.order, gravity=self.gravity,
            data=self.data))
        Y = Y.reshape(len(a), SAMPLES, *Y.shape[1:])
        base = Y[:, :, 0][..., self.base.independent]
        cond = conditions(base.reshape(len(a), -1, len(self.base.names)))
        penalty = np.zeros(len(a))
        for k, limit in enumerate((self.torque, self.rate)[: self.order + 1]):
            over = np.abs(Y[:, :, k] @ self.pi) / (TORQUE_SHARE * limit) - 1
            penalty += (np.maximum(over, 0.0) ** 2).sum(axis=(1, 2))
        return cond, penalty

    def objectives(self, X: np.ndarray) -> np.ndarray:
        """``log cond + 100 penalty`` of each row of X (m, 2 n L) (1e6 where cond is
        infinite)."""
        cond, penalty = self.judge(*self.scaled(X))
        with np.errstate(divide="ignore"):
            return np.where(np.isfinite(cond), np.log(cond) + 100.0 * penalty, 1e6)

    def objective_and_gradient(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """The objective at x and its forward differences with steps :data:`STEP` (as scipy's
        L-BFGS-B takes them), the 2 n L + 1 designs judged in one batch."""
        steps = (x + STEP) - x  # the steps x + h represents exactly
        f = self.objectives(np.vstack([x, x + np.diag(steps)]))
        return float(f[0]), (f[1:] - f[0]) / steps

    def coefficients(self, seed: int = DEFAULTS["seed"], iterations: int = 45
                     ) -> tuple[np.ndarray, np.ndarray]:
        """The optimized (a, b) (n, L), from the random coefficients of ``seed``."""
        from scipy.optimize import minimize

        n = len(self.centre)
        x0 = seeded(seed).normal(size=(2, n, self.L)).ravel()
        found = minimize(self.objective_and_gradient, x0, jac=True, method="L-BFGS-B",
                         options={"maxiter": iterations})
        start = self.objectives(x0[None])[0]
        return self.scaled(found.x if found.fun <= start else x0)


def excitation(model: Model, limits: Limits, *, harmonics: int = DEFAULTS["harmonics"],
               base_frequency: float = DEFAULTS["base_frequency"], seed: int = DEFAULTS["seed"],
               gravity=GRAVITY,
               iterations: int = 45) -> dict:
    """The optimized coefficients as ``fourier`` takes them: ``{joint: {"a": [...], "b":
    [...]}}`` over the independent joints (module docstring)."""
    problem = Excitation(model, limits, harmonics=harmonics, base_frequency=base_frequency,
                         gravity=gravity)
    a, b = problem.coefficients(seed, iterations)
    return {name: {"a": a[j].tolist(), "b": b[j].tolist()}
            for j, name in enumerate(model.coordinate_names)}
