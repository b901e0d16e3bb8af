"""The expected error of derivatives estimated from samples (:mod:`.estimate`).

Away from the ends of the record the estimate of derivative k of the sampled signal x (the
highest order a file gives) is a linear, shift-invariant filter of the samples: the optional
zero-phase low-pass F, then the k-th derivative of the interpolating spline of odd degree p
taken at the samples (the cardinal spline: knots at the samples). With theta = 2 pi f dt its
frequency response is ``F(theta) S_k(theta) / dt^k``, where::

    S_k(theta) = sum_n beta_p^(k)(n) e^(-i theta n) / sum_n beta_p(n) e^(-i theta n)     (1)

(beta_p the centred B-spline of degree p; the denominator interpolates, the numerator
differentiates). For samples x = s + w of a smooth motion s and white noise w of std sigma
the error of derivative k has three parts; the RMS over the samples is
``sqrt(noise^2 + rms(truncation + bias)^2)`` (the last two are signals of the motion, summed
with their signs: the spline overshoots where the filter attenuates):

* **noise passed** (:func:`noise_gain`)::

      noise = sigma sqrt(1/pi int_0^pi |F S_k|^2 dtheta) / dt^k                          (2)

* **spline truncation** (:func:`truncation`): ``S_k / (i theta)^k = 1 + c theta^m + ...``,
  c and m exact from the series of (1) (degree 5: qd ``-theta^6 / 5040``, qdd
  ``theta^4 / 720``, qddd ``-theta^4 / 240``, qdddd ``theta^2 / 12``), so::

      truncation = c (-1)^(m/2) dt^m s^(k+m)                                              (3)

  with ``s^(k+m)`` from divided differences of the spline's derivative p-1 (where noise
  dominates those differences, this stays well below (2)).
* **filter bias**: the low-pass attenuates the motion near and above the cutoff, more for
  higher derivatives (derivative k weighs frequency f by (2 pi f)^k): the error is
  ``(F - 1) s^(k)``, estimated by filtering the estimated derivative d_k once more::

      bias = F d_k - d_k = (F - 1) F s^(k) + ...                                          (4)

  (exact where F ~ 1; half the bias at the cutoff, where F = 1/2, and none of what the
  filter removed entirely; the noise F (F - 1) lets through is small next to (2), the
  rounding of the filter's output, amplified by the spline, is counted here).

sigma is estimated from the data (:func:`noise_std`): the median absolute 10th divided
difference, normalised so that white noise gives its std (a smooth motion's 10th
differences are ~(2 pi f dt)^10 of it: nothing). To it come the rounding of x (eps rms(x))
and of t: samples at times rounded to ``spacing(t)`` (5e-13 s at t = 2000 s) carry
``x' spacing(t) / sqrt(12)``, what limits the highest derivatives of long records sampled
fast (qdddd at 1 kHz and t ~ 1000 s: ~1.5 rad/s^4 per rad/s of velocity).
Within the first and last :func:`end_samples` of the record the estimate is one-sided (the
spline's end conditions, the filter's extension of the data) and the error is larger; the
figure is the RMS error away from them (for a record shorter than four of those: over its
middle half).

>>> truncation(5, 4)  # qdddd from q by a quintic spline: dt^2/12 x^(6)
(2, 0.08333333333333333)
>>> round(float(noise_gain(5, 1, None)[0]), 3)  # white noise through qd: 1.376 sigma / dt
1.376
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb, factorial

import numpy as np

__all__ = ["truncation", "noise_gain", "noise_std", "divided_differences", "end_samples",
           "ErrorTally"]

#: order of the divided differences that measure the noise
NOISE_ORDER = 10


@lru_cache
def _bspline_at_integers(p: int, k: int) -> tuple[tuple[int, ...], tuple[Fraction, ...]]:
    """(n, beta_p^(k)(n)): the k-th derivative (k < p) of the centred B-spline of odd degree
    p at the integers where it is not 0, exactly (the truncated-power formula)."""
    h = (p + 1) // 2
    ns = tuple(range(1 - h, h))
    values = tuple(sum((Fraction((-1) ** j * comb(p + 1, j)) * (n + h - j) ** (p - k)
                        for j in range(p + 2) if n + h - j > 0), Fraction(0)) / factorial(p - k)
                   for n in ns)
    return ns, values


@lru_cache
def truncation(p: int, k: int) -> tuple[int, float]:
    """(m, c): the k-th derivative of the cardinal spline of degree p at the samples is
    ``x^(k) + c (-1)^(m/2) dt^m x^(k+m) + ...`` (eq. 3), exactly from the series of (1)."""
    ns, bk = _bspline_at_integers(p, k)
    _, b0 = _bspline_at_integers(p, 0)
    terms = p + 3  # series in theta^2, far enough for the first term after the leading 1

    def series(b, first):  # sum_n b(n) e^(-i theta n) / (-i theta)^first, in powers theta^2l
        return [Fraction((-1) ** l) * sum(v * Fraction(n) ** (first + 2 * l)
                                          for n, v in zip(ns, b, strict=True))
                / factorial(first + 2 * l) for l in range(terms)]

    num, den = series(bk, k), series(b0, 0)
    ratio: list[Fraction] = []  # num / den; times (-i)^k / i^k = (-1)^k
    for l in range(terms):
        ratio.append((num[l] - sum(ratio[j] * den[l - j] for j in range(l))) / den[0])
    ratio = [(-1) ** k * r for r in ratio]
    assert ratio[0] == 1, (p, k)  # the spline differentiates polynomials exactly
    l = next(l for l in range(1, terms) if ratio[l])
    return 2 * l, float(ratio[l])


def spline_response(p: int, k: int, theta: np.ndarray) -> np.ndarray:
    """S_k(theta) of eq. (1), dt = 1."""
    ns, bk = _bspline_at_integers(p, k)
    _, b0 = _bspline_at_integers(p, 0)
    E = np.exp(-1j * np.outer(theta, ns))
    return (E @ np.array(bk, float)) / (E @ np.array(b0, float))


def noise_gain(p: int, ks, sos=None, period: float | None = None) -> np.ndarray:
    """sqrt(1/pi int_0^pi |F S_k|^2 dtheta) for each k (eq. 2, dt = 1): the std of the
    estimated derivative k for white noise of std 1. ``sos``: the low-pass (run forwards and
    backwards: F = |B|^2), ``period`` its cutoff's period in samples (the integrand is
    negligible beyond 16 times the cutoff)."""
    from scipy.integrate import trapezoid  # numpy's trapezoid is numpy >= 2 only
    from scipy.signal import sosfreqz

    ks = np.atleast_1d(ks)
    top = np.pi if sos is None or period is None else min(np.pi, 32 * np.pi / period)
    theta = np.linspace(0, top, 8193)
    F = 1.0 if sos is None else np.abs(sosfreqz(sos, worN=theta)[1]) ** 2
    return np.array([np.sqrt(trapezoid(np.abs(F * spline_response(p, k, theta)) ** 2, theta)
                             / np.pi) for k in ks])


def divided_differences(x: np.ndarray, t: np.ndarray, order: int) -> np.ndarray:
    """``x[t_i, ..., t_{i+order}]`` for x (N, ...): ~ x^(order) / order! (N - order, ...)."""
    d = x
    for j in range(1, order + 1):
        step = (t[j:] - t[:-j]).reshape((-1,) + (1,) * (x.ndim - 1))
        d = (d[1:] - d[:-1]) / step
    return d


def noise_std(x: np.ndarray, t: np.ndarray, order: int = NOISE_ORDER) -> np.ndarray:
    """Robust std of white noise in x (N, c) sampled at t: the median absolute divided
    difference of ``order`` over its std for unit white noise, sqrt(sum_i w_i^2) with
    ``w_i = 1 / prod_{j != i} (t_i - t_j)`` (N > order)."""
    d = divided_differences(x, t, order)
    n = len(t) - order
    w2 = np.zeros(n)
    for i in range(order + 1):
        prod = np.ones(n)
        for j in range(order + 1):
            if j != i:
                prod *= t[i:i + n] - t[j:j + n]
        w2 += prod ** -2.0
    return 1.4826 * np.median(np.abs(d / np.sqrt(w2)[:, None]), axis=0)


def end_samples(p: int, period: float | None = None) -> int:
    """Samples at each end of the record where the estimate is one-sided: the spline's end
    conditions fade as ~0.54^n (degree 7; 0.43^n for 5), a filter's start-up as
    exp(-2.4 fc t) (its slowest pole; ``period``: the cutoff's period in samples)."""
    return 8 * p + (0 if period is None else round(6 * period))


class ErrorTally:
    """Sums over the record for eqs. (2)-(4), one window at a time; :meth:`rms` at the end.

    ``p``: spline degree, ``m``: number of derivatives estimated, ``columns``: signals.
    """

    def __init__(self, p: int, m: int, columns: int):
        self.p, self.m = p, m
        self.noise = np.zeros(columns)  # sigma^2 of the windows, weighted by their samples
        self.weight = 0
        self.squares = np.zeros(columns)  # sums of x^2, x'^2 and spacing(t)^2: rounding
        self.slopes = np.zeros(columns)
        self.times = 0.0
        self.signal = np.zeros((m, columns))  # squared errors of eqs. (3) + (4)
        self.count = 0  # samples away from the ends
        self.values = np.zeros((m, columns))  # sums of the estimated derivatives' squares
        self.first_t = self.last_t = None
        self.samples = 0

    def add(self, x: np.ndarray, t: np.ndarray, d: np.ndarray, rest: slice, inner: slice,
            refiltered: np.ndarray | None) -> None:
        """One window: x (W, c) the samples (before any filter), t (W,), d (W, >= p-1, c)
        the estimated derivatives 1.. of x; ``rest`` the window's samples not seen before,
        ``inner`` those of them away from the record's ends; ``refiltered`` (W, m, c) the
        low-passed d (eq. 4) or None without a filter."""
        top = d[:, self.p - 2]  # the spline's derivative p-1: continuous
        lo, hi = rest.start, min(rest.stop + NOISE_ORDER, len(t))
        if hi - lo > NOISE_ORDER:
            self.noise += (hi - lo - NOISE_ORDER) * noise_std(x[lo:hi], t[lo:hi]) ** 2
            self.weight += hi - lo - NOISE_ORDER
        self.squares += (x[rest] ** 2).sum(axis=0)
        self.slopes += (d[rest, 0] ** 2).sum(axis=0)
        self.times += float((np.spacing(t[rest]) ** 2).sum())
        if rest.stop > rest.start:
            self.first_t = t[rest.start] if self.first_t is None else self.first_t
            self.last_t = t[rest.stop - 1]
            self.samples += rest.stop - rest.start
        n = inner.stop - inner.start
        if n <= 0:
            return
        self.values += (d[inner, :self.m] ** 2).sum(axis=0)
        dt = (t[-1] - t[0]) / (len(t) - 1)
        for i, k in enumerate(range(1, self.m + 1)):
            m, c = truncation(self.p, k)
            j = k + m - (self.p - 1)  # s^(k+m) = (d/dt)^j s^(p-1), centred on the samples
            at = slice(max(inner.start, j // 2), min(inner.stop, len(t) - j + j // 2))
            lo, hi = at.start - j // 2, at.stop + j - j // 2
            high = divided_differences(top[lo:hi], t[lo:hi], j) * factorial(j)
            error = c * (-1) ** (m // 2) * dt ** m * high  # eq. 3, with its sign
            if refiltered is not None:  # eq. 4: of opposite sign where the spline overshoots
                error = error + refiltered[at, i] - d[at, i]
            self.signal[i] += (error ** 2).mean(axis=0) * n
        self.count += n

    @property
    def step(self) -> float:
        """The mean sampling step (s)."""
        if self.samples < 2 or self.first_t is None or self.last_t is None:
            return 1.0
        return (self.last_t - self.first_t) / (self.samples - 1)

    def magnitude(self) -> np.ndarray:
        """(m, c): the RMS of the estimated derivatives 1..m themselves, away from the ends
        (what :meth:`rms` is compared with)."""
        return np.sqrt(self.values / max(self.count, 1))

    def rms(self, sos=None, period: float | None = None) -> np.ndarray:
        """(m, c): the expected RMS error of derivatives 1..m, away from the ends."""
        dt = self.step
        sigma2 = self.noise / max(self.weight, 1)
        n, eps = max(self.samples, 1), np.finfo(float).eps
        jitter = np.sqrt(self.times / n / 12)  # t rounded to its spacing: a time jitter
        sigma2 = sigma2 + eps ** 2 * self.squares / n + jitter ** 2 * self.slopes / n
        ks = np.arange(1, self.m + 1)
        gain = noise_gain(self.p, ks, sos, period)[:, None] / dt ** ks[:, None]
        return np.sqrt(sigma2 * gain ** 2 + self.signal / max(self.count, 1))
