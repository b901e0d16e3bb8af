"""``hodyn validate --drives``: the rigid drives' columns (:mod:`hodyn_cli.algorithms.actuation.actuators`)
proven like the torques, at the same checked samples (group ``drives`` of the report):

1. **finite differences**: every derivative of tau, tau_m and the currents against the
   8th-order stencil of the order below along the local Taylor motion (as check 1 of
   :mod:`hodyn_cli.algorithms.verification.validate`);
2. **zero rotor inertia = rigid**: the drive model with the rotor inertias set to 0 gives
   the rigid-body torques of the last method checked (``full``: through the coupling
   kernel; the reflected model's tau is the rigid one by construction), and motor torques
   ``tau_m = (tau + f_J(qd)) / (r eta) + f_M(r qd)`` with the friction written out here;
3. **rotors as bodies** (``full``): the model with each rotor a body of its own
   (:func:`hodyn_cli.modeling.drives.rotors_as_bodies`), moved by ``theta = r q`` and solved
   by the ``spatial`` method, gives tau at the links' joints and ``tau_m - tau / r`` at the
   rotors' (without friction and gear losses, which check 1 covers).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hodyn_cli.algorithms.actuation import actuators
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.algorithms.verification.checks import (
    STEP_FACTOR,
    Check,
    agreement_check,
    block_rows,
    blocked,
    local_motion,
    stencil,
    stencil_verdict,
)
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.modeling.drives import Drives, Friction, rotors_as_bodies

__all__ = ["drive_checks"]

GROUP = "drives"


def drive_checks(model: Model, center: Trajectory, drives: Drives, kind: str, order: int,
                 h: float, gravity, rigid: np.ndarray, fd_rtol: float, cross_rtol: float,
                 idx, t, series: dict) -> list[Check]:
    """The checks above at the checked samples ``center`` (``rigid``: their rigid-body
    torques (M, order+1, n); ``h``: the torques' finite-difference step, shortened to the
    time scale of the smoothed Coulomb friction; ``series``: the report's plotted series)."""
    res = actuators.inverse_dynamics(model, center, drives, order=order, kind=kind,
                                     gravity=gravity)
    rate = _coulomb_rate(drives, center.derivatives)
    h = min(h, STEP_FACTOR / rate) if rate > 0 else h
    for _ in range(4):  # shrink the step while the estimated error is not well below tol
        checks = _finite_differences(model, center, drives, kind, order, h, gravity, res,
                                     fd_rtol, idx, t, series)
        if all((c.expected or 0.0) <= fd_rtol / 10 for c in checks) or h < 1e-7:
            break
        h /= 4
    massless = replace(drives, rotor_inertia=np.zeros(model.n))
    zero = actuators.inverse_dynamics(model, center, massless, order=order, kind=kind,
                                      gravity=gravity)
    if kind == "full":
        checks += [agreement_check(GROUP, f"{derivative_name('tau', k)}: zero rotor inertia vs "
                                   "rigid", zero.tau[:, k], rigid[:, k], cross_rtol, model, idx,
                                   t, kind) for k in range(order + 1)]
    d = np.flatnonzero(drives.driven)
    checks.append(agreement_check(GROUP, "taum: zero rotor inertia vs (tau + f_J) / (r eta) + "
                                  "f_M", zero.taum[:, 0, d], _rigid_motor_torque(
                                      drives, rigid[:, 0], center.derivatives[:, 1])[:, d],
                                  cross_rtol, model, idx, t, kind, d))
    if kind != "full":
        return checks + [Check(GROUP, "rotors as bodies", "skip", method=kind,
                               detail="the reflected model neglects the rotors' gyroscopic "
                                      "coupling: it is not the rotors-as-bodies model")]
    ideal = replace(drives, friction=Friction.none(model.n), gear_efficiency=np.ones(model.n))
    plain = actuators.inverse_dynamics(model, center, ideal, order=order, gravity=gravity)
    both = rotors_as_bodies(model, ideal)
    r = np.where(drives.driven, drives.gear_ratio, 1.0)
    qs = center.derivatives[:, : order + 3]
    motion = Trajectory(both.joint_names, np.concatenate([qs, (r * qs)[..., drives.driven]], 2),
                        center.t, center.wrenches)
    tau = inverse_dynamics(both, motion, method="spatial", order=order, gravity=gravity)
    n, d = model.n, np.flatnonzero(drives.driven)
    rotor = (plain.taum - plain.tau / r)[..., d]
    for k in range(order + 1):
        tk, mk = derivative_name("tau", k), derivative_name("taum", k)
        checks.append(agreement_check(GROUP, f"{tk}: vs rotors as bodies (spatial)",
                                      plain.tau[:, k], tau[:, k, :n], cross_rtol, model, idx, t,
                                      kind))
        checks.append(agreement_check(GROUP, f"{mk} - {tk}/r: vs the rotors' joints (spatial, "
                                      "no friction)", rotor[:, k], tau[:, k, n:], cross_rtol,
                                      model, idx, t, kind, d))
    return checks


def _rigid_motor_torque(drives: Drives, tau: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """``(tau + f_J) / (r eta) + f_M`` (N, n) with ``f(v) = viscous v + coulomb tanh(v /
    coulomb_velocity) + offset`` (docs/drives.md) at the joint's v = qd or the motor's r qd."""
    f, r = drives.friction, np.where(drives.driven, drives.gear_ratio, 1.0)
    v = np.where(f.motor_side, r * qd, qd)
    friction = f.viscous * v + f.coulomb * np.tanh(v / f.velocity) + f.offset
    reta = r * np.where(drives.driven, drives.gear_efficiency, 1.0)
    return np.where(f.motor_side, tau / reta + friction, (tau + friction) / reta)


def _coulomb_rate(drives: Drives, qs: np.ndarray) -> float:
    """The fastest time scale (1/s) of the smoothed Coulomb friction, ``max |d/dt (v /
    coulomb_velocity)|`` over the samples ``qs`` (N, >= 3, n) (0: none)."""
    f = drives.friction
    on = drives.driven & (f.coulomb != 0)
    scale = np.where(f.motor_side, np.abs(drives.gear_ratio), 1.0) / f.velocity
    return float((np.abs(qs[:, 2]) * scale)[:, on].max(initial=0.0))


def _finite_differences(model: Model, center: Trajectory, drives: Drives, kind: str, order: int,
                        h: float, gravity, res: actuators.DriveResult, rtol: float, idx, t,
                        series: dict) -> list[Check]:
    """Check 1 at step h; the drive model along the local motions :func:`block_rows` checked
    samples at a time (17 local samples each: ~12 kB a checked sample at once)."""
    current = np.flatnonzero(drives.current)
    bases = [(base, cols) for base, cols in (("tau", None), ("taum", None), ("current", current))
             if cols is None or cols.size]
    widths = [model.n if cols is None else cols.size for _, cols in bases]

    def differences(rows: slice) -> np.ndarray:
        """(M, 3 order sum(widths)): a block's :func:`stencil` (d_h, d_2h, peak) per base and
        order, side by side."""
        part = center.rows(rows)
        local = actuators.inverse_dynamics(model, local_motion(part, h), drives,
                                           order=order - 1, kind=kind, gravity=gravity)
        out = []
        for base, cols in bases:
            low = getattr(local, base).reshape(part.n_samples, 17, order, model.n)
            if cols is not None:
                low = low[..., cols]
            out += [x for k in range(order) for x in stencil(low[:, :, k], h)]
        return np.concatenate(out, axis=1)

    diffs = blocked(differences, center.n_samples, block_rows(model))
    parts = iter(np.split(diffs, np.cumsum([w for w in widths for _ in range(3 * order)])[:-1],
                          axis=1))
    checks = []
    for base, cols in bases:
        exact = getattr(res, base)
        if cols is not None:
            exact = exact[..., cols]
        for k in range(1, order + 1):
            name = derivative_name(base, k)
            d_h, d_2h, peak = next(parts), next(parts), next(parts)
            checks.append(stencil_verdict(GROUP, name, derivative_name(base, k - 1), d_h, d_2h,
                                          peak, exact[:, k], h, rtol, model, idx, t, kind,
                                          cols))
            if base == "taum":  # the report plots the motor torques (current: taum / k_t)
                series.setdefault(GROUP, {})[name] = {"analytic": exact[:, k],
                                                      "numeric": d_h.copy()}  # (not a view)
    return checks
