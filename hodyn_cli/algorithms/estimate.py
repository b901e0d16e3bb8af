"""Estimate missing time derivatives from the sampled data (only when the user asks).

docs/conventions.md: missing derivative columns are an error, or, on request, estimated from
positions and time with a warning. The highest order the file gives (q, or qd if present,
...) is interpolated by a spline over ``t`` (scipy's ``make_interp_spline``, degree 5, or
7 when more than four further derivatives are needed; not-a-knot ends), and the spline is
differentiated. Interpolation does not smooth: noise in measured data is amplified by
every derivative, so measured data are low-passed first when a ``cutoff`` is given
(:func:`lowpass`, with the expected error from :func:`noise_estimate`). Away from the ends
the error of derivative m is ~ (dt omega)^(k+1-m) relative for a motion of frequency omega
(k the degree).

>>> from hodyn_cli.core.trajectory import cosine
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

from hodyn_cli.core.trajectory import Trajectory, Wrenches, derivative_name
from hodyn_cli.errors import TrajectoryError

__all__ = ["estimate_derivatives"]


def _extend(x: np.ndarray, t: np.ndarray, need: int, cutoff: float | None = None
            ) -> np.ndarray:
    """x (N, D, m) with D < need: derivatives D..need-1 from a spline through x[:, D-1]
    (low-passed first when ``cutoff`` is given)."""
    from scipy.interpolate import make_interp_spline  # only when estimating

    D = x.shape[1]
    if cutoff is not None:
        x = x.copy()
        x[:, D - 1] = lowpass(x[:, D - 1], t, cutoff)
    m = need - D  # derivatives of the last given order still needed
    k = 5 if m <= 4 else 7
    if len(t) <= k:
        raise TrajectoryError(f"estimating derivatives needs at least {k + 1} samples, got "
                              f"{len(t)}")
    spline = make_interp_spline(t, x[:, D - 1], k=k, axis=0)
    extra = np.stack([spline.derivative(j)(t) for j in range(1, m + 1)], axis=1)
    return np.concatenate([x, extra], axis=1)


def lowpass(x: np.ndarray, t: np.ndarray, cutoff: float) -> np.ndarray:
    """Zero-phase low-pass of x (N, ...) along samples: a 4th-order Butterworth filter run
    forwards and backwards (scipy ``filtfilt``: no delay, 8th-order roll-off)."""
    from scipy.signal import butter, filtfilt

    rate = uniform_rate(t)
    if not 0 < cutoff < rate / 2:
        raise TrajectoryError(f"--cutoff {cutoff:g} Hz must be between 0 and half the sampling "
                              f"rate ({rate / 2:g} Hz)")
    b, a = butter(4, cutoff / (rate / 2))
    if len(t) <= 3 * max(len(a), len(b)):
        raise TrajectoryError(f"--cutoff needs more than {3 * max(len(a), len(b))} samples")
    # odd extension over 3 periods of the cutoff: the filter's start-up settles outside the data
    pad = min(len(t) - 1, int(3 * rate / cutoff))
    return filtfilt(b, a, x, axis=0, padtype="odd", padlen=pad)


def uniform_rate(t: np.ndarray) -> float:
    """Samples per second of a uniformly sampled t (a filter needs one rate)."""
    dt = np.diff(t)
    if dt.size == 0 or np.ptp(dt) > 0.01 * dt.mean():
        raise TrajectoryError("--cutoff needs uniformly sampled t (steps vary by "
                              f"{np.ptp(dt) / dt.mean():.1%}): resample first")
    return 1.0 / dt.mean()


def noise_estimate(x: np.ndarray, t: np.ndarray, cutoff: float, orders: int) -> np.ndarray:
    """Expected standard error of the estimated derivatives 1..orders of low-passed x (N, m):
    the noise std ``sigma`` (what the filter removed) times what passes the filter:
    ``sigma sqrt(2 fc / (fs (2k+1))) (2 pi fc)^k`` for derivative k (white noise, ideal
    low-pass at fc, differentiation multiplying the spectrum by 2 pi f), an RMS error away
    from the ends of the record (within ~2/fc of them the filter's transients add more).
    Returns (orders, m).
    Signal above the cutoff counts as noise here, and the signal below it is slightly
    attenuated near fc: choose fc well above the motion's frequencies."""
    rate = uniform_rate(t)
    removed = x - lowpass(x, t, cutoff)
    # a robust std (median absolute deviation): the filter's transients at the ends of the
    # record are not noise
    sigma = 1.4826 * np.median(np.abs(removed - np.median(removed, axis=0)), axis=0)
    k = np.arange(1, orders + 1)[:, None]
    return sigma * np.sqrt(2 * cutoff / (rate * (2 * k + 1))) * (2 * np.pi * cutoff) ** k


def estimate_derivatives(trajectory: Trajectory, need: int, wrench_need: int = 0,
                         cutoff: float | None = None, wrapped=None
                         ) -> tuple[Trajectory, list[str]]:
    """A trajectory with q up to ``q^(need-1)`` (and wrenches up to ``W^(wrench_need-1)``),
    missing orders estimated; also the names of what was estimated (empty: nothing was).
    ``cutoff`` (Hz): low-pass the highest given order first (measured, noisy data).
    ``wrapped`` (n,) bool: joints whose q may wrap at +-pi (continuous joints), unwrapped
    before the spline (their q columns stay as given)."""
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
        given = trajectory.orders
        if wrapped is not None and np.any(wrapped) and given == 1:
            smooth = derivs.copy()
            smooth[:, 0, wrapped] = np.unwrap(smooth[:, 0, wrapped], axis=0)
            derivs = np.concatenate([derivs, _extend(smooth, t, need, cutoff)[:, 1:]], axis=1)
        else:
            derivs = _extend(derivs, t, need, cutoff)
    if missing_W:
        names += [derivative_name("W", k) for k in range(W.orders, wrench_need)]
        W = Wrenches({link: w if w.shape[1] >= wrench_need else _extend(w, t, wrench_need,
                                                                          cutoff)
                      for link, w in W.W.items()})
    return Trajectory(trajectory.joint_names, derivs, t, W, trajectory.series), names
