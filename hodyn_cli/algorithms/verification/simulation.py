"""Check 6 of :mod:`hodyn_cli.algorithms.verification.validate`, chunk by chunk: from the
file's state at a sample every ``SIM_WINDOW`` seconds, the forward dynamics over the window,
against a reference. Two drives share the bookkeeping of :class:`Windows` (the largest
errors and where, the error bounds, per window its largest error per joint for the
report's plot):

* the computed torques along the sample's local Taylor motion, against that motion
  (``validate --simulate``; :class:`hodyn_cli.algorithms.verification.validate.Simulation`);
* :class:`Replay`: torques given at the file's samples (``validate --torques TAU
  --simulate``: a controller's log, another library's), interpolated between them, against
  the file's own q, qd at every sample of the window
  (:func:`~hodyn_cli.algorithms.verification.simulate.simulate_sampled`).

Open-loop motion of an arm is unstable (an error grows ~e^(7 t) on the iiwa), so the windows
are short; in 0.2 s a torque off by 1e-5 relative moves q by 1e-6 to 1e-4 relative on the
bundled robots' motions (relative to the largest |q|), while exact torques sampled at 500 Hz
reproduce them to ~1e-11.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.verification.checks import Check, verdict
from hodyn_cli.algorithms.verification.simulate import (
    LOOSER,
    MARGIN,
    RTOL,
    WINDOWS,
    Sampled,
    convergence_order,
    simulate_sampled,
)
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import HodynError

__all__ = ["SIM_WINDOW", "Windows", "Replay", "given_torques"]

#: seconds simulated from each of the file's states
SIM_WINDOW = 0.2


def interpolation(D: int) -> str:
    """The interpolation of D given torque orders, in words.

    >>> interpolation(1), interpolation(3)
    ('cubic spline of tau', 'Hermite polynomial of degree 5 of tau, taud, taudd')
    """
    if D == 1:
        return "cubic spline of tau"
    names = ", ".join(derivative_name("tau", k) for k in range(D))
    return f"Hermite polynomial of degree {2 * D - 1} of {names}"


def given_torques(motion: Trajectory) -> np.ndarray:
    """The given torques a motion carries in its ``series`` (``tau``, ``taud``, ...: N x m,
    the independent joints') as one array (N, D, m)."""
    series = motion.series or {}
    if "tau" not in series:
        raise HodynError("the motion carries no given torques (series 'tau')")
    D = 1
    while derivative_name("tau", D) in series:
        D += 1
    return np.stack([series[derivative_name("tau", k)] for k in range(D)], axis=1)


#: points of the report's plot of the windows' errors: beyond twice as many, neighbours are
#: merged (the larger error per joint, the earlier start), so that a long file's windows
#: (one per 0.2 s: 10 000 in 2e6 samples at 1 kHz) take bounded memory
PLOTTED = 1000


class Windows:
    """What check 6 keeps of its windows, whatever drives them: per q and qd the largest
    error, where, the largest magnitude (the scale of the relative error), the largest
    bounds of the integrator's error and the interpolation's, and per window its largest
    error per joint (the report's plot; per ``width`` consecutive windows on a long file:
    :data:`PLOTTED`). A subclass simulates (:meth:`add`, :meth:`_flush`)
    and says what it compared (:meth:`_detail`); ``method``: the method whose torques drive
    it (None: given ones)."""

    method: str | None = None
    #: what the simulation is driven by and compared with (the report's plot)
    driven, against = "", ""

    def __init__(self, model: Model, window: float = SIM_WINDOW):

        self.model, self.window = model, window
        self.coupling = model.coupling
        self.worst = {k: (-1.0, 0, 0, 0.0) for k in ("q", "qd")}  # err, sample, joint, t
        self.scale = {k: 0.0 for k in ("q", "qd")}
        self.integration = {k: 0.0 for k in ("q", "qd")}
        self.interpolation = {k: 0.0 for k in ("q", "qd")}
        self.starts: list[float] = []  # window start times (of each plotted point's first)
        self.peaks: dict[str, list] = {"q": [], "qd": []}  # per point, largest error per joint
        self.width, self.filled = 1, 0  # windows per plotted point; in the last one
        self.skipped, self.windows = False, 0

    def add(self, chunk: Trajectory, start: int) -> None:
        raise NotImplementedError

    def _flush(self) -> None:
        """Simulate the windows still waiting."""
        raise NotImplementedError

    def _detail(self, key: str, scale: float) -> str:
        """What the check of ``key`` (q or qd, of largest magnitude ``scale``) compared."""
        raise NotImplementedError

    def _record(self, start: float, x: np.ndarray, ref: np.ndarray, integration: np.ndarray,
                interpolation: np.ndarray | None, samples: np.ndarray, times: np.ndarray
                ) -> None:
        """One window starting at ``start`` seconds: simulated ``x`` and reference ``ref``
        (2, S, m) q, qd at S instants, the bounds (2, S, m) there, and the instants' sample
        numbers and times (S,)."""
        self.windows += 1
        point = not 0 < self.filled < self.width   # a new plotted point
        if point:
            self.starts.append(start)
            self.filled = 0
        self.filled += 1
        for k, key in enumerate(("q", "qd")):
            err = np.abs(x[k] - ref[k])
            self.scale[key] = max(self.scale[key], float(np.abs(ref[k]).max()))
            self.integration[key] = max(self.integration[key], float(integration[k].max()))
            if interpolation is not None:
                self.interpolation[key] = max(self.interpolation[key],
                                              float(interpolation[k].max()))
            s, j = np.unravel_index(int(np.argmax(err)), err.shape)
            if err[s, j] > self.worst[key][0]:
                self.worst[key] = (float(err[s, j]), int(samples[s]), int(j), float(times[s]))
            peak = err.max(axis=0)
            if point:
                self.peaks[key].append(peak)
            else:
                self.peaks[key][-1] = np.maximum(self.peaks[key][-1], peak)
        if len(self.starts) > 2 * PLOTTED:   # odd: the last point, just begun, stays alone
            self.starts = self.starts[::2]
            for key, p in self.peaks.items():
                self.peaks[key] = [np.maximum(a, b) for a, b in
                                   zip(p[:-1:2], p[1::2], strict=True)] + p[-1:]
            self.width *= 2

    def checks(self, rtol: float, series: dict) -> list[Check]:
        """q and qd reproduced: the largest error relative to the largest magnitude, against
        ``rtol`` or 10x the expected error (the bounds' sum), whichever is larger."""
        self._flush()
        if self.skipped or not self.windows:
            need = "a t column" if self.skipped else "two samples or more"
            return [Check("simulation", "q, qd reproduced by simulation", "skip",
                          detail=f"needs {need} (a window every {self.window:.3g} s)")]
        names = [self.model.joint_names[i] for i in self.model.coordinates]
        series["simulation"] = {"starts": np.array(self.starts), "joint_names": names,
                                "driven": self.driven, "against": self.against,
                                "width": self.width}
        checks = []
        for key in ("q", "qd"):
            err, s, j, t = self.worst[key]
            scale = max(self.scale[key], 1e-300)
            expected = (self.integration[key] + self.interpolation[key]) / scale
            tol = max(rtol, 10 * expected)
            c = Check("simulation", f"{key} reproduced by simulation", "pass", err, err / scale,
                      tol, expected, method=self.method, worst_joint=names[j], worst_sample=s,
                      worst_time=t, detail=self._detail(key, scale))
            c.status = verdict(c.max_rel, tol)
            checks.append(c)
            series["simulation"][key] = np.stack(self.peaks[key])
        return checks


class Replay(Windows):
    """Check 6 driven by given torques (the chunks' ``series`` ``tau``, ``taud``, ...: the
    independent joints'), from the file's state at a sample every ``window`` seconds to the
    first sample at or after ``window`` seconds later, where the next window starts (the
    windows cover the file), against the file's q, qd at every sample in between. Between
    the samples the torques (and the external wrenches) are interpolated
    (:func:`~hodyn_cli.algorithms.verification.simulate.simulate_sampled`: Hermite from the
    derivatives given, else a cubic spline over the window and ``MARGIN`` samples more on
    either side). Memory: the samples from ``MARGIN`` before the next window's start, and
    ``WINDOWS`` windows waiting to be simulated side by side."""

    driven, against = "the given torques", "the file's samples"

    def __init__(self, model: Model, gravity, window: float = SIM_WINDOW):
        super().__init__(model, window)
        self.gravity = gravity
        self.coords = list(model.coordinates)
        self.rows: tuple | None = None  # t, x (q, qd), tau, W of the samples held
        self.offset = 0  # the sample number of the first row held
        self.begin = 0  # the row where the next window starts
        self.orders = 0
        self.waiting: list[tuple[Sampled, int]] = []  # (window, sample number of its row 0)

    def add(self, chunk: Trajectory, start: int) -> None:
        if chunk.t is None:
            self.skipped = True
            return
        tau = given_torques(chunk)
        self.orders = tau.shape[1]
        W = None if chunk.wrenches is None else chunk.wrenches.W
        new = (chunk.t, chunk.derivatives[:, :2, self.coords], tau, W)
        if self.rows is None:
            self.rows, self.offset = new, start
        else:
            t, x, g, held = self.rows
            self.rows = (np.concatenate([t, new[0]]), np.concatenate([x, new[1]]),
                         np.concatenate([g, tau]), None if held is None or W is None else
                         {k: np.concatenate([held[k], W[k]]) for k in held})
        self._cut(final=False)

    def _cut(self, final: bool) -> None:
        """Cut the windows the rows held complete (with their margin; ``final``: the file
        ended, every one), simulate when ``WINDOWS`` wait, and drop the rows no window
        needs."""
        if self.rows is None:
            return
        t, x, tau, W = self.rows
        while self.begin < t.size - 1:
            i = self.begin
            j = int(np.searchsorted(t, t[i] + self.window * (1 - 1e-9)))
            if not final and j + MARGIN >= t.size:
                break
            j = min(j, t.size - 1)
            rows = slice(max(i - MARGIN, 0), min(j + MARGIN + 1, t.size))
            window = Sampled(t[rows], x[rows], tau[rows], i - rows.start, j - rows.start,
                             None if W is None else {k: w[rows] for k, w in W.items()})
            self.waiting.append((window, self.offset + rows.start))
            self.begin = j
        drop = max(self.begin - MARGIN, 0)
        self.rows = (t[drop:], x[drop:], tau[drop:],
                     None if W is None else {k: w[drop:] for k, w in W.items()})
        self.offset, self.begin = self.offset + drop, self.begin - drop
        if len(self.waiting) >= WINDOWS or final:
            self._simulate()

    def _flush(self) -> None:
        self._cut(final=True)

    def _simulate(self) -> None:
        if not self.waiting:
            return
        windows, self.waiting = self.waiting, []
        results = simulate_sampled(self.model, [w for w, _ in windows], gravity=self.gravity,
                                   coupling=self.coupling)
        for (w, row0), (x, integration, interpolation) in zip(windows, results, strict=True):
            rows = np.arange(w.first + 1, w.last + 1)
            self._record(float(w.t[w.first]), x, w.reference, integration, interpolation,
                         row0 + rows, w.t[rows])

    def _detail(self, key: str, scale: float) -> str:
        p = convergence_order(self.orders)
        return (f"forward dynamics driven by the given torques ({interpolation(self.orders)} "
                f"between the samples) from the file's state every {self.window:.3g} s "
                f"({self.windows} windows), against the file's q, qd at every sample; DOP853 "
                f"at {RTOL:g}; expected: the integrator's bound "
                f"{self.integration[key] / scale:.2g} (the same at {RTOL * LOOSER:g} against "
                f"it) + the interpolation's {self.interpolation[key] / scale:.2g} (through "
                f"every other sample, / (2^{p} - 1))")
