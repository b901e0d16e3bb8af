"""Estimate missing time derivatives from the sampled data (only when the user asks).

SPEC.md: missing derivative columns are an error, or, on request, estimated from
positions and time with a warning. The highest order the file gives (q, or qd if present,
...) is interpolated by a spline over ``t`` (scipy's ``make_interp_spline``, degree 5, or
7 when more than four further derivatives are needed; not-a-knot ends), and the spline is
differentiated. Interpolation does not smooth: noise in measured data is amplified by
every derivative, so filter first. Away from the ends the error of derivative m is
~ (dt omega)^(k+1-m) relative for a motion of frequency omega (k the degree).

>>> from hodyn_cli.trajectory import cosine
>>> exact = cosine(("a",), np.linspace(0, 3, 301), amplitude=1, omega=2, orders=4)
>>> only_q = Trajectory(exact.joint_names, exact.derivatives[:, :1], exact.t)
>>> est, names = estimate_derivatives(only_q, 5)
>>> names
['qd', 'qdd', 'qddd', 'qdddd']
>>> bool(np.abs(est.qdd[50:-50] - exact.qdd[50:-50]).max() < 1e-6)
True
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.errors import TrajectoryError
from hodyn_cli.trajectory import Trajectory, Wrenches, derivative_name

__all__ = ["estimate_derivatives"]


def _extend(x: np.ndarray, t: np.ndarray, need: int) -> np.ndarray:
    """x (N, D, m) with D < need: derivatives D..need-1 from a spline through x[:, D-1]."""
    from scipy.interpolate import make_interp_spline  # only when estimating

    D = x.shape[1]
    m = need - D  # derivatives of the last given order still needed
    k = 5 if m <= 4 else 7
    if len(t) <= k:
        raise TrajectoryError(f"estimating derivatives needs at least {k + 1} samples, got "
                              f"{len(t)}")
    spline = make_interp_spline(t, x[:, D - 1], k=k, axis=0)
    extra = np.stack([spline.derivative(j)(t) for j in range(1, m + 1)], axis=1)
    return np.concatenate([x, extra], axis=1)


def estimate_derivatives(trajectory: Trajectory, need: int, wrench_need: int = 0
                         ) -> tuple[Trajectory, list[str]]:
    """A trajectory with q up to ``q^(need-1)`` (and wrenches up to ``W^(wrench_need-1)``),
    missing orders estimated; also the names of what was estimated (empty: nothing was)."""
    t = trajectory.t
    missing_q = trajectory.orders < need
    W = trajectory.wrenches
    missing_W = W is not None and bool(W.W) and W.orders < wrench_need
    if not (missing_q or missing_W):
        return trajectory, []
    if t is None:
        raise TrajectoryError("estimating derivatives needs a t column")
    names = []
    derivs = trajectory.derivatives
    if missing_q:
        names += [derivative_name("q", k) for k in range(trajectory.orders, need)]
        derivs = _extend(derivs, t, need)
    if missing_W:
        names += [derivative_name("W", k) for k in range(W.orders, wrench_need)]
        W = Wrenches({link: w if w.shape[1] >= wrench_need else _extend(w, t, wrench_need)
                      for link, w in W.W.items()})
    return Trajectory(trajectory.joint_names, derivs, t, W, trajectory.series), names
