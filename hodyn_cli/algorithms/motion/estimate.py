"""Estimate missing time derivatives from the sampled data (only when the user asks).

docs/conventions.md: missing derivative columns are an error, or, on request, estimated from
positions and time with a warning. The highest order the file gives (q, or qd if present,
...) is interpolated by a spline over ``t`` (scipy's ``make_interp_spline``, odd degree
p >= 5 above the number of derivatives needed: 5 for up to four, 7 for up to six;
not-a-knot ends), and the spline is differentiated. Interpolation does not smooth: noise in
measured data is amplified by every derivative, so measured data are low-passed first when a
``cutoff`` is given (:class:`Lowpass`). The expected RMS error of every estimated derivative
(noise passed, spline truncation, filter bias) comes with the estimate
(:mod:`hodyn_cli.algorithms.motion.estimate_error`).

Memory is bounded by a window, not by the file: :class:`DerivativeStream` takes the
trajectory in chunks, in order, and estimates ``window`` samples at a time from the window
plus margins on both sides (16 p samples: the spline's end conditions fade as 0.54^n; and 12
periods of the cutoff: the filter's start-up fades as exp(-2.4 fc t)), so the result equals
the whole-record estimate but for rounding (the filter's, amplified by the derivatives:
~1e-3 of the expected error). :func:`estimate_derivatives` is the whole record at once.

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

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from hodyn_cli.algorithms.motion.estimate_error import ErrorTally, end_samples
from hodyn_cli.algorithms.motion.turns import Turns
from hodyn_cli.core.trajectory import Trajectory, Wrenches, derivative_name
from hodyn_cli.errors import TrajectoryError

__all__ = ["estimate_derivatives", "DerivativeStream", "EstimatingReader", "Lowpass",
           "spline_degree", "WINDOW"]

#: an estimated order whose expected RMS error exceeds this share of its RMS is named in a
#: warning (:meth:`DerivativeStream.unreliable`)
UNRELIABLE = 0.1
#: samples estimated per window of :class:`DerivativeStream` (at least 4 margins)
WINDOW = 1 << 14
#: the Butterworth filter's order (run forwards and backwards: twice that roll-off)
FILTER_ORDER = 4
#: the polynomial that extends the data at the ends before filtering: the zero-phase
#: filter passes polynomials of degree < 2 FILTER_ORDER unchanged (|F| = 1 - (f/fc)^8 ...)
EXTENSION_DEGREE = 7


def spline_degree(m: int) -> int:
    """The spline's degree for m derivatives: odd, at least 5 and above m (its derivative
    m is then continuous)."""
    p = max(5, m + 1)
    return p + 1 - p % 2


@dataclass(frozen=True, eq=False, repr=False)
class Lowpass:
    """A zero-phase low-pass at ``cutoff`` Hz for samples at ``rate`` Hz: a Butterworth filter
    of order 4 run forwards and backwards (no delay; F = |B|^2, 8th-order roll-off)."""

    cutoff: float
    rate: float

    def __post_init__(self):
        if not 0 < self.cutoff < self.rate / 2:
            raise TrajectoryError(f"--cutoff {self.cutoff:g} Hz must be between 0 and half the "
                                  f"sampling rate ({self.rate / 2:g} Hz)")

    @property
    def sos(self) -> np.ndarray:
        from scipy.signal import butter

        return butter(FILTER_ORDER, self.cutoff / (self.rate / 2), output="sos")

    def samples(self, periods: float) -> int:
        """``periods`` periods of the cutoff, in samples."""
        return round(periods * self.rate / self.cutoff)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """x (N, ...) low-passed along samples. Beyond each end the data are extended by a
        polynomial P of degree 7 fitted to the last 4 periods of the cutoff plus the odd
        reflection of x - P (continuous with its slope; its curvature jumps by twice that of
        x - P only), over 10 periods: the filter's start-up settles outside the data."""
        from scipy.signal import sosfiltfilt

        N = len(x)
        flat = x.reshape(N, -1)
        fit = min(N, max(self.samples(4), 4 * (EXTENSION_DEGREE + 1)))
        pad = min(N - 1, self.samples(10))
        y = np.concatenate([_extension(flat, fit, pad), flat,
                            _extension(flat[::-1], fit, pad)[::-1]])
        # filtered along the last, contiguous axis (scipy copies otherwise)
        y = sosfiltfilt(self.sos, np.ascontiguousarray(y.T), padtype=None)
        return y[:, pad:pad + N].T.reshape(x.shape)


def _extension(x: np.ndarray, fit: int, pad: int) -> np.ndarray:
    """``pad`` samples before x[0] (N, c): P + the odd reflection of x - P about x[0], P the
    least-squares polynomial of degree <= 7 through x[:fit]."""
    P = np.polynomial.polynomial
    coef = P.polyfit(np.arange(fit) / fit, x[:fit], min(EXTENSION_DEGREE, fit - 1))

    def poly(n):
        return P.polyval(n / fit, coef).T

    n = np.arange(1, pad + 1)
    return (poly(-n) + 2 * (x[0] - poly(np.zeros(1))) - (x[n] - poly(n)))[::-1]


def _times(chunk: Trajectory) -> np.ndarray:
    """A chunk's t: estimating needs one (:meth:`DerivativeStream._plan` checks the first)."""
    assert chunk.t is not None
    return chunk.t


def _rate(t: np.ndarray) -> float:
    """Samples per second: 1 / the median step of the first 1024 samples of t (a filter
    needs one rate)."""
    if len(t) < 2:
        raise TrajectoryError("--cutoff needs at least 2 samples")
    return 1 / np.median(np.diff(t[:1024]))


def _check_uniform(t: np.ndarray, rate: float, start: int) -> None:
    """Steps within 1 % of 1/rate: a low-pass needs uniform sampling."""
    steps = np.diff(t)
    off = np.abs(steps * rate - 1)
    if off.size and off.max() > 0.01:
        i = int(np.argmax(off))
        raise TrajectoryError(f"--cutoff needs uniformly sampled t: the step after sample "
                              f"{start + i} is {steps[i]:.6g} s, the sampling step "
                              f"{1 / rate:.6g} s (more than 1 % off): resample first")


@dataclass(eq=False, repr=False)
class _Signal:
    """One signal whose missing orders are estimated: q (key ``"q"``) or a link's wrench.

    ``given``: orders present; ``m``: orders to estimate; ``p``: spline degree."""

    key: str
    given: int
    m: int
    columns: int

    @property
    def p(self) -> int:
        return spline_degree(self.m)


class DerivativeStream:
    """Trajectory chunks, in time order -> the same samples with q up to ``q^(need-1)`` (and
    wrenches up to ``W^(wrench_need-1)``), missing orders estimated, in pieces of at most
    ``rows`` samples. Holds a window of ``window`` samples plus two margins at a time.

    ``cutoff`` (Hz): low-pass the highest given order first (measured, noisy data).
    ``wrapped`` (n,) bool: joints whose q may wrap at +-pi (continuous joints), unwrapped
    before the spline (their q columns stay as given). ``lowpassed``: the chunks' series
    (measurements taken with the samples, e.g. ``hodyn identify``'s torques) that go through
    the same low-pass as the data, window by window, so that they stay synchronous with the
    estimated derivatives (as they are where nothing is estimated or without a ``cutoff``).
    After the first chunk ``names`` lists what is estimated; after the first window
    ``end_samples`` is known; after the last, ``expected_error`` maps ``"q"`` (and each
    estimated link) to the expected RMS error (m, columns) of the estimated orders, away from
    the first and last ``end_seconds`` of the record
    (:mod:`hodyn_cli.algorithms.motion.estimate_error`).
    """

    def __init__(self, chunks: Iterable[Trajectory], need: int, wrench_need: int = 0,
                 cutoff: float | None = None, wrapped: np.ndarray | None = None, *,
                 window: int | None = WINDOW, rows: int | None = None,
                 lowpassed: tuple[str, ...] = ()):
        self.chunks, self.need, self.wrench_need = chunks, need, wrench_need
        self.cutoff, self.wrapped, self.window, self.rows = cutoff, wrapped, window, rows
        self.lowpassed = lowpassed
        self.names: list[str] = []
        self.signals: list[_Signal] = []
        self._chunks: Iterator[Trajectory] | None = None
        self._first: Trajectory | None = None
        self._windows: _Windows | None = None
        self.expected_error: dict[str, np.ndarray] = {}
        self.magnitude: dict[str, np.ndarray] = {}
        self.columns: dict[str, tuple[str, ...]] = {}
        self.end_seconds = 0.0

    def start(self) -> DerivativeStream:
        """Read the first chunk: what is missing, and the checks that need only it (a t
        column, the cutoff below half the sampling rate), happen here."""
        if self._chunks is None:
            self._chunks = iter(self.chunks)
            self._first = next(self._chunks, None)
            if self._first is not None:
                self.signals = self._plan(self._first)
                self._windows = _Windows(self, self.signals, self._first) if self.signals \
                    else None
        return self

    def __iter__(self) -> Iterator[Trajectory]:
        self.start()
        if self._first is None or self._chunks is None:
            return
        chunks = itertools.chain([self._first], self._chunks)
        self._first = None
        if self._windows:
            yield from self._windows.run(chunks)
        else:  # nothing missing: the chunks as they are
            yield from chunks

    @property
    def end_samples(self) -> int:
        """Samples at each end of the record where an estimate is unreliable (its end zones,
        the longest over the signals: ``end_seconds`` of them); 0 where nothing is estimated.
        Known once the first window is estimated (the first piece yielded)."""
        return max(self._windows.ends.values(), default=0) if self._windows else 0

    def largest_error(self) -> dict[str, float]:
        """Each estimated name (``qd``, ...) -> its largest expected RMS error over the joints
        (or wrench components); after the last chunk."""
        out: dict[str, float] = {}
        for sig in self.signals:
            base = "q" if sig.key == "q" else "W"
            for i, e in enumerate(self.expected_error[sig.key]):
                name = derivative_name(base, sig.given + i)
                out[name] = max(out.get(name, 0.0), float(e.max()))
        return out

    def unreliable(self, share: float = UNRELIABLE) -> list[str]:
        """The estimated orders whose largest expected RMS error over the joints (or wrench
        components) exceeds ``share`` of the estimate's own RMS over them, away from the
        ends, e.g. ``qdddd: expected RMS error 1.3e+02 (joint2), over 10% of the estimate's RMS
        41``;
        after the last chunk. Noise and rounding pass derivative k as sigma / dt^k (eq. 2 of
        :mod:`.estimate_error`): the highest orders of data sampled fast are mostly error."""
        out = []
        for sig in self.signals:
            base = "q" if sig.key == "q" else "W"
            error, size = self.expected_error[sig.key], self.magnitude[sig.key]
            for i, (e, s) in enumerate(zip(error, size, strict=True)):
                j, scale = int(np.argmax(e)), float(np.sqrt(np.mean(s ** 2)))
                if e[j] > share * scale:
                    out.append(f"{derivative_name(base, sig.given + i)}: expected RMS error "
                               f"{e[j]:.2g} ({self.columns[sig.key][j]}), over {share:.0%} "
                               f"of the estimate's RMS {scale:.2g}")
        return out

    def _plan(self, first: Trajectory) -> list[_Signal]:
        signals = []
        if first.orders < self.need:
            signals.append(_Signal("q", first.orders, self.need - first.orders,
                                   len(first.joint_names)))
            self.columns["q"] = tuple(first.joint_names)
            self.names += [derivative_name("q", k) for k in range(first.orders, self.need)]
        W = first.wrenches
        if W is not None and W.W and W.orders < self.wrench_need:
            self.names += [derivative_name("W", k) for k in range(W.orders, self.wrench_need)]
            signals += [_Signal(link, w.shape[1], self.wrench_need - w.shape[1], 6)
                        for link, w in W.W.items() if w.shape[1] < self.wrench_need]
            self.columns.update({link: tuple(f"{link} component {c}" for c in range(6))
                                 for link in W.W})
        if signals and first.t is None:
            raise TrajectoryError("estimating derivatives needs a t column")
        return signals


class _Windows:
    """The windows of one :class:`DerivativeStream` run."""

    def __init__(self, stream: DerivativeStream, signals: list[_Signal], first: Trajectory):
        self.s, self.signals = stream, signals
        # the filter's rate from the record's first samples, once the first window has them
        # (the same numbers for any chunking); the first chunk's checks the cutoff meanwhile
        self.filter: Lowpass | None = None
        probe = None if stream.cutoff is None else Lowpass(stream.cutoff, _rate(_times(first)))
        self.rate = None if probe is None else probe.rate
        self.margin = max(16 * sig.p for sig in signals) + (
            0 if probe is None else probe.samples(12) + 1)
        self.ends: dict[str, int] = {}
        self.tallies = {sig.key: ErrorTally(sig.p, sig.m, sig.columns) for sig in signals}
        q = next((sig for sig in signals if sig.key == "q"), None)
        wrapped = stream.wrapped
        self.wrapped = (wrapped if q is not None and q.given == 1 and wrapped is not None
                        and np.any(wrapped) else None)
        self.turns = None if self.wrapped is None else Turns(self.wrapped)

    def run(self, chunks: Iterator[Trajectory]) -> Iterator[Trajectory]:
        step = None if self.s.window is None else max(self.s.window, 4 * self.margin)
        buf, done = _Buffer(), 0  # samples estimated and yielded so far
        for chunk in chunks:
            if not chunk.n_samples:  # (a reader's last, or a caller's): nothing to add
                continue
            if self.rate is not None:
                _check_uniform(np.concatenate([buf.last_t, _times(chunk)]), self.rate,
                               buf.end - len(buf.last_t))
            buf.append(chunk, self._unwrapped(chunk))
            while step is not None and buf.end - done >= step + self.margin:
                yield from self._window(buf, done, done + step, None)
                done += step
                buf.drop(done - self.margin)
        yield from self._window(buf, done, buf.end, buf.end)
        self._finish()

    def _unwrapped(self, chunk: Trajectory) -> np.ndarray | None:
        """The q the spline goes through when joints wrap (None: q as given): whole turns
        added where q steps by more than pi, counted across chunks (:class:`Turns`)."""
        return None if self.turns is None else self.turns(chunk.derivatives[:, 0])

    def _window(self, buf: _Buffer, a: int, b: int, total: int | None
                ) -> Iterator[Trajectory]:
        """Estimate samples [a, b) from the buffered [a - margin, b + margin); ``total``: the
        record's length when this is the last window."""
        lo, hi = max(0, a - self.margin), min(buf.end, b + self.margin)
        chunk, smooth = buf.take(lo, hi)
        t = _times(chunk)
        if not self.ends:  # the first window: the record's start
            self._start(t)
        rest = slice(a - lo, b - lo)
        derivs = chunk.derivatives
        wrenches = {} if chunk.wrenches is None else dict(chunk.wrenches.W)
        for sig in self.signals:
            if sig.key == "q":
                x = derivs[:, sig.given - 1] if smooth is None else smooth
            else:  # a wrench's signal: the chunk has that wrench (_plan)
                x = wrenches[sig.key][:, sig.given - 1]
            d, refiltered = self._estimate(x, t, sig)
            self.tallies[sig.key].add(x, t, d, rest, self._inner(sig, a, b, lo, total),
                                      refiltered)
            if sig.key == "q":
                derivs = np.concatenate([derivs, d[:, :sig.m]], axis=1)
            else:
                wrenches[sig.key] = np.concatenate([wrenches[sig.key], d[:, :sig.m]], axis=1)
        series = chunk.series
        if series is not None and self.filter is not None:
            series = {k: self.filter(v) if k in self.s.lowpassed else v
                      for k, v in series.items()}
        out = Trajectory(chunk.joint_names, derivs, t,
                         None if chunk.wrenches is None else Wrenches(wrenches),
                         series).rows(rest)
        rows = self.s.rows or max(out.n_samples, 1)
        for start in range(0, out.n_samples, rows):
            yield out.rows(slice(start, start + rows))

    def _start(self, t: np.ndarray) -> None:
        """The filter (its rate from the first samples t) and the end zones."""
        if self.s.cutoff is not None:  # so is self.rate
            self.filter = Lowpass(self.s.cutoff, _rate(t))
        period = None if self.filter is None else self.filter.rate / self.filter.cutoff
        self.ends = {sig.key: end_samples(sig.p, period) for sig in self.signals}

    def _estimate(self, x: np.ndarray, t: np.ndarray, sig: _Signal
                  ) -> tuple[np.ndarray, np.ndarray | None]:
        """(derivatives 1..max(m, p-1) of x (W, c) as (W, ., c); the first m of them
        low-passed again (the filter's bias, eq. 4 of estimate_error) or None)."""
        from scipy.interpolate import make_interp_spline  # only when estimating

        if len(t) <= sig.p:
            raise TrajectoryError(f"estimating derivatives needs at least {sig.p + 1} samples, "
                                  f"got {len(t)}")
        xf = x if self.filter is None else self.filter(x)
        spline = make_interp_spline(t, xf, k=sig.p, axis=0)
        d = np.stack([spline.derivative(j)(t) for j in range(1, max(sig.m, sig.p - 1) + 1)],
                     axis=1)
        return d, None if self.filter is None else self.filter(d[:, :sig.m])

    def _inner(self, sig: _Signal, a: int, b: int, lo: int, total: int | None) -> slice:
        """The window's new samples [a, b) away from the record's ends, window-relative (a
        record shorter than four end zones: its middle half)."""
        e = self.ends[sig.key]
        if total is not None and a == 0 and total <= 4 * e:
            self.ends[sig.key] = total // 4
            return slice(total // 4 - lo, total - total // 4 - lo)
        start = max(a, e)
        stop = b if total is None else min(b, total - e)
        return slice(start - lo, max(start, stop) - lo)

    def _finish(self) -> None:
        f = self.filter
        sos, period = (None, None) if f is None else (f.sos, f.rate / f.cutoff)
        for key, tally in self.tallies.items():
            self.s.expected_error[key] = tally.rms(sos, period)
            self.s.magnitude[key] = tally.magnitude()
        tally = next(iter(self.tallies.values()))
        self.s.end_seconds = float(max(self.ends.values()) * tally.step)


class _Buffer:
    """Consecutive chunks (with their unwrapped q) from sample ``start`` to ``end``."""

    def __init__(self):
        self.parts: list[tuple[Trajectory, np.ndarray | None]] = []
        self.start = self.end = 0

    @property
    def last_t(self) -> np.ndarray:
        return _times(self.parts[-1][0])[-1:] if self.parts else np.zeros(0)

    def append(self, chunk: Trajectory, smooth: np.ndarray | None) -> None:
        self.parts.append((chunk, smooth))
        self.end += chunk.n_samples

    def drop(self, before: int) -> None:
        """Forget whole chunks that end before sample ``before``."""
        while self.parts and self.start + self.parts[0][0].n_samples <= before:
            self.start += self.parts.pop(0)[0].n_samples

    def take(self, lo: int, hi: int) -> tuple[Trajectory, np.ndarray | None]:
        """Samples [lo, hi) as one trajectory (and its unwrapped q)."""
        pieces, smooth, s = [], [], self.start
        for tr, sm in self.parts:
            a, b = max(lo - s, 0), min(hi - s, tr.n_samples)
            if a < b:
                pieces.append(tr.rows(slice(a, b)))
                smooth.append(None if sm is None else sm[a:b])
            s += tr.n_samples
        if len(pieces) == 1:
            return pieces[0], smooth[0]
        first = pieces[0]
        W = first.wrenches
        # the chunks of one record have the same columns: the first's wrenches and series
        joined = Trajectory(
            first.joint_names, np.concatenate([p.derivatives for p in pieces]),
            np.concatenate([_times(p) for p in pieces]),
            None if W is None else Wrenches({k: np.concatenate(
                [p.wrenches.W[k] for p in pieces])  # type: ignore[union-attr]
                for k in W.W}),
            None if first.series is None else {k: np.concatenate(
                [p.series[k] for p in pieces])  # type: ignore[index]
                for k in first.series})
        smooths = [s for s in smooth if s is not None]  # all or none of them
        return joined, np.concatenate(smooths) if smooths else None


class EstimatingReader:
    """A trajectory reader (chunks in time order, e.g. ``io.TrajectoryReader``) whose chunks
    come with the missing derivatives estimated (``stream``, a :class:`DerivativeStream`: its
    expected error is known after the last chunk; the reader's other attributes pass
    through). The first chunk is read at once (its errors come before any output). Errors
    name the reader's file."""

    def __init__(self, reader, need: int, wrench_need: int = 0, cutoff: float | None = None,
                 wrapped: np.ndarray | None = None, *, rows: int | None = None):
        self.reader = reader
        self.stream = DerivativeStream(reader, need, wrench_need, cutoff, wrapped, rows=rows)
        try:
            self.stream.start()
        except BaseException as e:
            reader.__exit__(type(e), e, e.__traceback__)  # the files close
            if isinstance(e, TrajectoryError):
                raise _named(e, reader) from None
            raise

    def __getattr__(self, name: str):
        return getattr(self.reader, name)

    @property
    def estimated(self) -> tuple[str, ...]:
        """What is estimated (``qd``, ..., ``Wd``, ...), once the first chunk is read."""
        return tuple(self.stream.names)

    def __enter__(self) -> EstimatingReader:
        self.reader.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.reader.__exit__(*exc)

    def __iter__(self) -> Iterator[Trajectory]:
        try:
            yield from self.stream
        except TrajectoryError as e:
            raise _named(e, self.reader) from None


def _named(e: TrajectoryError, reader) -> TrajectoryError:
    """The error naming the reader's file (if it names none)."""
    return e if e.source else TrajectoryError(e.message, getattr(reader, "path", None))


def estimate_derivatives(trajectory: Trajectory, need: int, wrench_need: int = 0,
                         cutoff: float | None = None, wrapped: np.ndarray | None = None
                         ) -> tuple[Trajectory, list[str]]:
    """A trajectory with q up to ``q^(need-1)`` (and wrenches up to ``W^(wrench_need-1)``),
    missing orders estimated; also the names of what was estimated (empty: nothing was).
    The whole record in one window (see :class:`DerivativeStream` for the arguments)."""
    stream = DerivativeStream([trajectory], need, wrench_need, cutoff, wrapped, window=None)
    parts = list(stream)
    if not stream.names:
        return trajectory, []
    return parts[0], stream.names
