"""Forward simulation: integrate the forward dynamics driven by given joint torques.

The state ``x = (q, qd)`` of the independent coordinates obeys ``x' = (qd, qdd(q, qd, tau))``
with ``qdd`` from :func:`hodyn_cli.algorithms.dynamics.forward.forward_dynamics`, solved by
``scipy.integrate.solve_ivp`` with the 8th-order Dormand-Prince method (DOP853) at tight
tolerances. Three drives:

* :func:`simulate`: torques known at sample times with their first derivatives (``tau``,
  ``taud``, ...: what ``hodyn compute`` gives); between samples they are the piecewise
  Hermite polynomial that matches all of them at both ends (degree 2D - 1 for D orders:
  quintic from tau, taud, taudd; its error ~ dt^(2D) |tau^(2D)| / (2^(2D) (2D)!): ~1e-14
  relative at 100 Hz, but ~1e-7 at 20 Hz on the iiwa's identification motions, when the
  samples are far apart for the torque's frequencies); external wrenches likewise.
* :func:`simulate_local`: the torques a function gives along the *local Taylor motion* of
  a sample (the polynomial whose derivatives at the sample are the given q, qd, ...), from
  the sample's state: nothing is interpolated, so the simulation must reproduce that
  polynomial to the integrator's error whatever the file's sampling rate (``hodyn validate
  --simulate``).
* :func:`simulate_sampled`: torques known only at samples (``hodyn validate --torques
  --simulate``: from elsewhere), in windows of samples, each from its first sample's state,
  with the bound on the error the interpolation between the samples adds (below).

**Interpolation and its error** (:func:`simulate_sampled`). With D orders given (tau, taud,
...; D >= 2) the torque between samples is the Hermite polynomial of degree 2D - 1 matching
all of them at both ends; its error is ``tau^(2D)(xi) / (2D)! (t - t_i)^D (t - t_i+1)^D``,
O(h^2D) for a spacing h. With tau alone it is the not-a-knot cubic spline through the
window's samples and ``MARGIN`` more on either side (its end conditions' influence decays
by 2 - sqrt(3) ~ 0.27 a sample into the window), O(h^4). The error keeps its sign over an
interval (``(t - t_i)^D (t - t_i+1)^D`` does) and varies slowly from one to the next, so it
does not average out: it is integrated twice into q. Its effect on the simulated state is
estimated by Richardson extrapolation of the whole simulation: the same interpolant through
every other sample (spacing 2h) errs ``2^p`` times as much (p = 2D, or 4), so
``|x_2h - x_h| / (2^p - 1)`` estimates the error of ``x_h``, the growth of an error along
the open-loop motion included. With the integrator's bound (the same integration at
``LOOSER`` times the tolerances) it is what a simulation of exact torques may differ from
the sampled motion by.

This is the end-to-end check of inverse dynamics that no finite difference gives: torques
that reproduce the motion they were computed for are right, whatever formula made them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
from hodyn_cli.core.coupling import Coupling
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches, taylor
from hodyn_cli.errors import HodynError, TrajectoryError

__all__ = ["simulate", "simulate_local", "simulate_sampled", "Sampled", "Piecewise",
           "interpolant", "convergence_order", "RTOL", "ATOL", "LOOSER", "MARGIN"]

#: DOP853's tolerances: relative, and absolute on q (rad or m) and qd
RTOL, ATOL = 1e-12, 1e-12
#: :func:`simulate_local` also integrates at tolerances this much looser: the difference
#: bounds the error of the tight run (the global error falls with the tolerance)
LOOSER = 100.0
#: windows integrated side by side in one ODE (bounds the state's and the output's memory)
WINDOWS = 64
#: samples on either side of a window that a cubic spline of tau alone is built over
MARGIN = 4

#: torques (K, m) in the independent coordinates along K samples of a motion (all joints:
#: q, qd, qdd and the wrenches W)
Torques = Callable[[Trajectory], np.ndarray]


def simulate(model: Model, t: np.ndarray, q0: np.ndarray, qd0: np.ndarray, tau: np.ndarray, *,
             wrenches: dict[str, np.ndarray] | None = None, gravity=GRAVITY,
             coupling: Coupling | None = None, rtol: float = RTOL,
             atol: float = ATOL) -> tuple[np.ndarray, np.ndarray]:
    """q and qd (N, m) at the times ``t`` (N,) from the state ``q0, qd0`` (m,) at ``t[0]``.

    ``tau``: (N, D, m) torques and their first D-1 derivatives at ``t`` (piecewise Hermite
    between them); ``wrenches``: link -> (N, Dw, 6) external wrenches W, Wd, ... at ``t``
    (docs/conventions.md); ``coupling``: the model's (``model.coupling``; None: the joints
    themselves).
    """
    from scipy.interpolate import BPoly

    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 2 or np.any(np.diff(t) <= 0):
        raise TrajectoryError("simulation needs at least 2 strictly increasing sample times t")
    torque = BPoly.from_derivatives(t, tau)
    loads = {link: BPoly.from_derivatives(t, w) for link, w in (wrenches or {}).items()}

    def drive(s: float):
        at = np.minimum(t[:1] + s, t[-1])
        W = Wrenches({link: f(at)[:, None] for link, f in loads.items()}) if loads else None
        return torque(at), W

    x = _solve(model, drive, np.reshape(q0, (1, -1)), np.reshape(qd0, (1, -1)),
               coupling or Coupling(model), gravity, t - t[0], rtol, atol)
    return x[0, 0].T, x[1, 0].T


def simulate_local(model: Model, start: Trajectory, torques: Torques, offsets: np.ndarray, *,
                   gravity=GRAVITY, coupling: Coupling | None = None,
                   rtol: float = RTOL, atol: float = ATOL
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each of the K samples of ``start`` (all joints: q, qd, qdd, ... and the wrenches W,
    Wd, ...) simulated from its own state along its local Taylor motion, driven by
    ``torques`` of that motion: ``(x, reference, bound)``, each (2, K, S, m): the simulated
    q and qd at the ``offsets`` (S,) seconds after the sample, the Taylor motion's own, and
    the bound on the integrator's error (the same integration at ``LOOSER`` times the
    tolerances, against this one). ``coupling``: as for :func:`simulate`.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> from hodyn_cli.core.trajectory import cosine
    >>> from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
    >>> start = cosine(model.joint_names, [0.0, 1.0], amplitude=0.8, omega=[1.3, 2.1])
    >>> exact = lambda m: inverse_dynamics(model, m, method="body-fixed", order=0)[:, 0]
    >>> x, ref, bound = simulate_local(model, start, exact, np.array([0.1, 0.2]))
    >>> bool(np.abs(x - ref).max() < 1e-12), bool(bound.max() < 1e-10)
    (True, True)
    >>> off = lambda m: exact(m) * (1 + 1e-5)          # torques off by 1e-5 relative
    >>> bool(np.abs(simulate_local(model, start, off, np.array([0.2]))[0] - ref[:, :, 1:]
    ...                                                                    ).max() > 1e-7)
    True
    """
    if start.orders < 3:
        raise TrajectoryError("the local Taylor motion needs q, qd and qdd")
    offsets = np.asarray(offsets, dtype=float)
    coupling = coupling or Coupling(model)
    coords = list(model.coordinates)                # the independent joints' columns
    K, m = start.n_samples, coupling.m
    x, bound = np.empty((2, K, offsets.size, m)), np.empty((2, K, offsets.size, m))
    for a in range(0, K, WINDOWS):
        rows = slice(a, a + WINDOWS)
        part = Trajectory(start.joint_names, start.derivatives[rows], None,
                          None if start.wrenches is None else
                          Wrenches({k: w[rows] for k, w in start.wrenches.W.items()}))

        def drive(s: float, part=part):
            local = taylor(part.derivatives, np.array([s]), orders=3)[:, 0]
            W = None if part.wrenches is None else Wrenches(
                {k: taylor(w, np.array([s]), orders=1)[:, 0]
                 for k, w in part.wrenches.W.items()})
            return torques(Trajectory(part.joint_names, local, None, W)), W

        q0, qd0 = part.derivatives[:, 0, coords], part.derivatives[:, 1, coords]
        solve = [_solve(model, drive, q0, qd0, coupling, gravity, offsets, rtol * f, atol * f)
                 for f in (1.0, LOOSER)]
        x[:, rows] = np.moveaxis(solve[0], -1, 2)
        bound[:, rows] = np.moveaxis(np.abs(solve[1] - solve[0]), -1, 2)
    ref = taylor(start.derivatives[:, :, coords], offsets, orders=2)      # (K, S, 2, m)
    return x, np.moveaxis(ref, 2, 0), bound


@dataclass(frozen=True, eq=False, repr=False)
class Sampled:
    """A window of a sampled motion to simulate: the samples' times ``t`` (P,), states ``x``
    (P, 2, m) (q, qd of the independent coordinates), torques and their first D-1
    derivatives ``tau`` (P, D, m), and external wrenches ``W`` (link -> (P, Dw, 6)) or None.
    The window runs from sample ``first`` to ``last``; those around it are a margin the
    interpolation may use."""

    t: np.ndarray
    x: np.ndarray
    tau: np.ndarray
    first: int
    last: int
    W: dict[str, np.ndarray] | None = None

    @property
    def offsets(self) -> np.ndarray:
        """Seconds from the window's first sample to each of the others (S,)."""
        return self.t[self.first + 1 : self.last + 1] - self.t[self.first]

    @property
    def reference(self) -> np.ndarray:
        """The sampled q, qd (2, S, m) at the window's samples after the first."""
        return np.moveaxis(self.x[self.first + 1 : self.last + 1], 1, 0)

    def coarse(self) -> Sampled:
        """The same window through every other sample (and its last): spacing 2h."""
        keep = np.arange(self.t.size)
        keep = keep[((keep - self.first) % 2 == 0) | (keep == self.last)]
        return Sampled(self.t[keep], self.x[keep], self.tau[keep],
                       int(np.searchsorted(keep, self.first)),
                       int(np.searchsorted(keep, self.last)),
                       None if self.W is None else {k: w[keep] for k, w in self.W.items()})


def interpolant(t: np.ndarray, y: np.ndarray):
    """The piecewise polynomial (a scipy ``PPoly``) through samples at ``t`` (P,) of values
    and their first D-1 derivatives ``y`` (P, D, c): Hermite of degree 2D - 1 for D >= 2,
    the not-a-knot cubic spline of the values for D = 1 (module docstring)."""
    from scipy.interpolate import BPoly, CubicSpline, PPoly

    if y.shape[1] == 1:
        return CubicSpline(t, y[:, 0], axis=0)
    return PPoly.from_bernstein_basis(BPoly.from_derivatives(t, y))


def convergence_order(D: int) -> int:
    """p of the O(h^p) error of :func:`interpolant` from D orders: 2D, or 4 (the spline)."""
    return 2 * D if D > 1 else 4


class Piecewise:
    """K piecewise polynomials evaluated together at one instant, each in the seconds
    since its own window's first sample and held at its value at the window's last: K
    windows of a file need not share their sample times."""

    def __init__(self, windows: list[tuple[np.ndarray, np.ndarray, float]]):
        """``windows``: per window ``(s, y, end)``: the samples' seconds ``s`` (P_k,) from the
        window's start, ``y`` (P_k, D, c) as for :func:`interpolant`, and the last second
        simulated."""
        polys = [interpolant(s, y) for s, y, _ in windows]
        K, P = len(polys), max(p.x.size for p in polys)
        deg, c = polys[0].c.shape[0], polys[0].c.shape[2]
        self.breaks = np.full((K, P), np.inf)
        self.c = np.zeros((K, P - 1, deg, c))  # per interval, highest power first
        for k, p in enumerate(polys):
            self.breaks[k, : p.x.size] = p.x
            self.c[k, : p.x.size - 1] = np.moveaxis(p.c, 0, 1)
        self.intervals = np.array([p.x.size - 1 for p in polys])
        self.end = np.array([end for _, _, end in windows])
        self.k = np.arange(K)

    def __call__(self, s: float) -> np.ndarray:
        """The K values (K, c) at ``s`` seconds (Horner's scheme in each one's interval)."""
        at = np.minimum(s, self.end)
        i = np.minimum((self.breaks[:, 1:-1] <= at[:, None]).sum(axis=1), self.intervals - 1)
        u = (at - self.breaks[self.k, i])[:, None]
        c = self.c[self.k, i]
        y = c[:, 0]
        for j in range(1, c.shape[1]):
            y = y * u + c[:, j]
        return y


def simulate_sampled(model: Model, windows: list[Sampled], *, gravity=GRAVITY,
                     coupling: Coupling | None = None
                     ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each window simulated from the state at its first sample, driven by its torques (and
    wrenches) interpolated between the samples. Per window ``(x, integration,
    interpolation)``, each (2, S, m): the simulated q and qd at its samples after the first,
    the bound on the integrator's error (the same at ``LOOSER`` times the tolerances, against
    it) and on the interpolation's (``|x_2h - x_h| / (2^p - 1)``: module docstring).
    ``coupling``: as for :func:`simulate`. Windows whose samples lie at the same offsets from
    their first (a uniformly sampled file) are integrated side by side in one ODE; others
    each in its own (the kinks of the interpolants at other instants would each shorten the
    steps of all).

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> from hodyn_cli.core.trajectory import cosine
    >>> from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
    >>> t = np.linspace(0, 0.2, 101)                                    # 500 Hz
    >>> motion = cosine(model.joint_names, t, amplitude=0.8, omega=[1.3, 2.1], orders=5)
    >>> tau = inverse_dynamics(model, motion, method="body-fixed", order=2)
    >>> window = Sampled(t, motion.derivatives[:, :2], tau, 0, 100)
    >>> (x, integration, interpolation), = simulate_sampled(model, [window])
    >>> bool(np.abs(x - window.reference).max() < 1e-11)
    True
    >>> off = Sampled(t, motion.derivatives[:, :2], tau * (1 + 1e-5), 0, 100)
    >>> bool(np.abs(simulate_sampled(model, [off])[0][0] - window.reference).max() > 1e-7)
    True
    """
    coupling = coupling or Coupling(model)
    groups: dict[bytes, list[int]] = {}
    for k, w in enumerate(windows):  # offsets to the nanosecond
        groups.setdefault(np.round(w.offsets * 1e9).astype(np.int64).tobytes(), []).append(k)
    out: list = [None] * len(windows)
    for ks in groups.values():
        results = _side_by_side(model, [windows[k] for k in ks], gravity, coupling)
        for k, result in zip(ks, results, strict=True):
            out[k] = result
    return out


def _side_by_side(model: Model, windows: list[Sampled], gravity, coupling: Coupling
                  ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`simulate_sampled` of windows that share their offsets, in one ODE."""
    times = windows[0].offsets
    q0 = np.stack([w.x[w.first, 0] for w in windows])
    qd0 = np.stack([w.x[w.first, 1] for w in windows])
    orders = [windows[0].tau.shape[1]] + [w.shape[1] for w in (windows[0].W or {}).values()]
    p = min(convergence_order(D) for D in orders)

    def run(ws: list[Sampled], f: float) -> np.ndarray:
        x = _solve(model, _sampled_drive(ws), q0, qd0, coupling, gravity, times, RTOL * f,
                   ATOL * f)
        return np.moveaxis(x, -1, 2)                                    # (2, K, S, m)

    fine, loose, coarse = run(windows, 1.0), run(windows, LOOSER), \
        run([w.coarse() for w in windows], 1.0)
    return [(fine[:, k], np.abs(loose[:, k] - fine[:, k]),
             np.abs(coarse[:, k] - fine[:, k]) / (2.0**p - 1)) for k in range(len(windows))]


def _sampled_drive(windows: list[Sampled]):
    """``drive(s) -> (tau (K, m), wrenches or None)`` of the K windows at ``s`` seconds."""
    def pieces(values) -> Piecewise:
        return Piecewise([(w.t - w.t[w.first], values(w), w.offsets[-1]) for w in windows])

    torque = pieces(lambda w: w.tau)
    loads = {link: pieces(lambda w, link=link: w.W[link]) for link in windows[0].W or {}}

    def drive(s: float):
        W = Wrenches({link: f(s)[:, None] for link, f in loads.items()}) if loads else None
        return torque(s), W

    return drive


def _solve(model, drive, q0, qd0, coupling: Coupling, gravity, times, rtol, atol) -> np.ndarray:
    """q, qd (2, K, m, S) at ``times`` (S,) seconds from 0 of the K states ``q0, qd0`` (K,
    m) driven by ``drive(s) -> (tau (K, m), wrenches or None)``."""
    from scipy.integrate import solve_ivp

    K, m = q0.shape
    _, data = backends.prepare(model)   # this simulation's: every step's forward dynamics

    def rhs(s: float, x: np.ndarray) -> np.ndarray:
        q, qd = x.reshape(2, K, m)
        tau, W = drive(s)
        state = np.stack([coupling.phi(q), coupling.tangent(qd, q)], axis=1)
        qdd = forward_dynamics(model, Trajectory(model.joint_names, state, None, W),
                               tau[:, None], gravity=gravity, coupling=coupling,
                               data=data).qs[:, 0]
        return np.concatenate([qd, qdd], axis=None)

    sol = solve_ivp(rhs, (0.0, float(times[-1])), np.concatenate([q0, qd0], axis=None),
                    method="DOP853", rtol=rtol, atol=atol, t_eval=times)
    if not sol.success:
        raise HodynError(f"the simulation stopped at {sol.t[-1]:.6g} s: {sol.message}")
    return sol.y.reshape(2, K, m, len(times))
