"""Forward simulation: integrate the forward dynamics driven by given joint torques.

The state ``x = (q, qd)`` of the independent coordinates obeys ``x' = (qd, qdd(q, qd, tau(t)))``
with ``qdd`` from :func:`hodyn_cli.algorithms.dynamics.forward.forward_dynamics`. The torques are known
at the sample times with their first derivatives (``tau``, ``taud``, ...: what
``hodyn compute`` gives), so between samples they are the piecewise Hermite polynomial that
matches all of them at both ends (degree 2D - 1 for D orders: quintic from tau, taud, taudd;
its error ~ dt^(2D) |tau^(2D)| / (2^(2D) (2D)!), ~1e-14 relative at 100 Hz); external wrenches
likewise. The ODE is solved by ``scipy.integrate.solve_ivp`` with the 8th-order Dormand-Prince
method (DOP853) at tight tolerances and read out at the sample times (its dense output).

This is the end-to-end check of inverse dynamics that no finite difference gives: torques
that reproduce the motion they were computed for are right, whatever formula made them.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.errors import HodynError, TrajectoryError

__all__ = ["simulate", "window_starts", "RTOL", "ATOL"]

#: DOP853's tolerances: relative, and absolute on q (rad or m) and qd
RTOL, ATOL = 1e-12, 1e-12
#: windows integrated side by side in one ODE (bounds the dense output's memory)
WINDOWS = 64


def simulate(model: Model, t: np.ndarray, q0: np.ndarray, qd0: np.ndarray, tau: np.ndarray, *,
             wrenches: dict[str, np.ndarray] | None = None, gravity=GRAVITY,
             coupling: tuple[np.ndarray, np.ndarray] | None = None, rtol: float = RTOL,
             atol: float = ATOL, starts: np.ndarray | None = None, duration: float | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """q and qd (N, m) at the times ``t`` (N,), each sample reached from the state ``q0, qd0``
    (K, m) at the start of its window.

    ``tau``: (N, D, m) torques and their first D-1 derivatives at ``t``; ``wrenches``: link ->
    (N, Dw, 6) external wrenches W, Wd, ... at ``t`` (docs/conventions.md); ``coupling``:
    ``(G, o)`` with ``q_joints = G q + o`` (mimic joints; None: the joints themselves).
    ``starts``: (K,) increasing sample indices where the windows start, the first 0 (default:
    one window; see :func:`window_starts`); sample i belongs to the last window starting at or
    before it, and every window is integrated over ``duration`` seconds (default: to the last
    sample), ``WINDOWS`` of them at once. Beyond the last sample the torques hold their last
    value.
    """
    from scipy.interpolate import BPoly

    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 2 or np.any(np.diff(t) <= 0):
        raise TrajectoryError("simulation needs at least 2 strictly increasing sample times t")
    starts = np.zeros(1, dtype=int) if starts is None else np.asarray(starts)
    if starts[0] != 0 or np.any(np.diff(starts) <= 0):
        raise HodynError("simulation windows must start at sample 0 and increase")
    ends = np.append(starts[1:], t.size)
    duration = t[-1] - t[0] if duration is None else duration
    if np.any(t[ends - 1] - t[starts] > duration * (1 + 1e-12)):
        raise HodynError("a sample lies beyond its simulation window")
    G, o = coupling if coupling is not None else (np.eye(model.n), np.zeros(model.n))
    torque = BPoly.from_derivatives(t, tau)
    loads = {link: BPoly.from_derivatives(t, w) for link, w in (wrenches or {}).items()}
    q0, qd0 = (np.reshape(x, (len(starts), G.shape[1])) for x in (q0, qd0))
    q, qd = np.empty((t.size, G.shape[1])), np.empty((t.size, G.shape[1]))
    for g in range(0, len(starts), WINDOWS):
        ks = slice(g, g + WINDOWS)
        sol = _solve(model, t, torque, loads, t[starts[ks]], q0[ks], qd0[ks], G, o,
                     coupling is None, gravity, duration, rtol, atol)
        for k, (a, b) in enumerate(zip(starts[ks], ends[ks], strict=True)):
            x = sol(np.clip(t[a:b] - t[a], 0.0, duration))                    # (2 K m, samples)
            x = x.reshape(2, -1, G.shape[1], b - a)[:, k]
            q[a:b], qd[a:b] = x[0].T, x[1].T
    return q, qd


def _solve(model, t, torque, loads, T0, q0, qd0, G, o, plain: bool, gravity, duration, rtol,
           atol):
    """The dense solution over ``[0, duration]`` of the windows starting at the times ``T0``
    (K,) from ``q0, qd0`` (K, m), stacked ``(q, qd)`` (2 K m)."""
    from scipy.integrate import solve_ivp

    K, m = q0.shape

    def rhs(s: float, x: np.ndarray) -> np.ndarray:
        q, qd = x.reshape(2, K, m)
        state = np.stack([q @ G.T + o, qd @ G.T], axis=1)
        at = np.minimum(T0 + s, t[-1])
        W = Wrenches({link: f(at)[:, None] for link, f in loads.items()}) if loads else None
        qdd = forward_dynamics(model, Trajectory(model.joint_names, state, None, W),
                               torque(at)[:, None], gravity=gravity,
                               coupling=None if plain else G).qs[:, 0]
        return np.concatenate([qd, qdd], axis=None)

    sol = solve_ivp(rhs, (0.0, duration), np.concatenate([q0, qd0], axis=None), method="DOP853",
                    rtol=rtol, atol=atol, dense_output=True)
    if not sol.success:
        raise HodynError(f"the simulation stopped at {sol.t[-1]:.6g} s: {sol.message}")
    return sol.sol


def window_starts(t: np.ndarray, duration: float) -> np.ndarray:
    """Sample indices that start windows of ``duration`` seconds covering ``t``: each window
    starts at the first sample after the one before ends.

    >>> window_starts(np.arange(10) * 0.1, 0.3).tolist()
    [0, 4, 8]
    """
    starts = [0]
    while (nxt := int(np.searchsorted(t, t[starts[-1]] + duration * (1 + 1e-12), "right"))) < t.size:
        starts.append(nxt)
    return np.array(starts)
