"""Forward simulation: integrate the forward dynamics driven by given joint torques.

The state ``x = (q, qd)`` of the independent coordinates obeys ``x' = (qd, qdd(q, qd, tau))``
with ``qdd`` from :func:`hodyn_cli.algorithms.dynamics.forward.forward_dynamics`, solved by
``scipy.integrate.solve_ivp`` with the 8th-order Dormand-Prince method (DOP853) at tight
tolerances. Two drives:

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

This is the end-to-end check of inverse dynamics that no finite difference gives: torques
that reproduce the motion they were computed for are right, whatever formula made them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches, taylor
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.modeling.coupling import Coupling

__all__ = ["simulate", "simulate_local", "RTOL", "ATOL", "LOOSER"]

#: DOP853's tolerances: relative, and absolute on q (rad or m) and qd
RTOL, ATOL = 1e-12, 1e-12
#: :func:`simulate_local` also integrates at tolerances this much looser: the difference
#: bounds the error of the tight run (the global error falls with the tolerance)
LOOSER = 100.0
#: windows integrated side by side in one ODE (bounds the state's and the output's memory)
WINDOWS = 64

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
    (docs/conventions.md); ``coupling``: the model's
    (:func:`hodyn_cli.modeling.coupling.of`; None: the joints themselves).
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
            local = taylor(part.derivatives, np.array([s]))[:, 0, :3]
            W = None if part.wrenches is None else Wrenches(
                {k: taylor(w, np.array([s]))[:, 0, :1] for k, w in part.wrenches.W.items()})
            return torques(Trajectory(part.joint_names, local, None, W)), W

        q0, qd0 = part.derivatives[:, 0, coords], part.derivatives[:, 1, coords]
        solve = [_solve(model, drive, q0, qd0, coupling, gravity, offsets, rtol * f, atol * f)
                 for f in (1.0, LOOSER)]
        x[:, rows] = np.moveaxis(solve[0], -1, 2)
        bound[:, rows] = np.moveaxis(np.abs(solve[1] - solve[0]), -1, 2)
    ref = taylor(start.derivatives[:, :, coords], offsets)[:, :, :2]      # (K, S, 2, m)
    return x, np.moveaxis(ref, 2, 0), bound


def _solve(model, drive, q0, qd0, coupling: Coupling, gravity, times, rtol, atol) -> np.ndarray:
    """q, qd (2, K, m, S) at ``times`` (S,) seconds from 0 of the K states ``q0, qd0`` (K,
    m) driven by ``drive(s) -> (tau (K, m), wrenches or None)``."""
    from scipy.integrate import solve_ivp

    K, m = q0.shape

    def rhs(s: float, x: np.ndarray) -> np.ndarray:
        q, qd = x.reshape(2, K, m)
        tau, W = drive(s)
        state = np.stack([coupling.phi(q), coupling.tangent(qd, q)], axis=1)
        qdd = forward_dynamics(model, Trajectory(model.joint_names, state, None, W),
                               tau[:, None], gravity=gravity, coupling=coupling).qs[:, 0]
        return np.concatenate([qd, qdd], axis=None)

    sol = solve_ivp(rhs, (0.0, float(times[-1])), np.concatenate([q0, qd0], axis=None),
                    method="DOP853", rtol=rtol, atol=atol, t_eval=times)
    if not sol.success:
        raise HodynError(f"the simulation stopped at {sol.t[-1]:.6g} s: {sol.message}")
    return sol.y.reshape(2, K, m, len(times))
