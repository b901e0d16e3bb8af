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

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from hodyn_cli.algorithms.actuation import actuators
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.algorithms.verification.blocks import Block, Plot
from hodyn_cli.algorithms.verification.checks import (
    Agreement,
    Check,
    Stencils,
    local_motion,
    stencil,
)
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.modeling.drives import Drives, Friction, rotors_as_bodies

__all__ = ["Agreements", "Differences", "coulomb_rate"]

GROUP = "drives"


class Agreements:
    """Checks 2 and 3 at the checked samples, fed block by block (``method``: whose rigid
    torques the zero rotor inertia gives)."""

    def __init__(self, model: Model, drives: Drives, kind: str, order: int, gravity,
                 method: str, rtol: float):
        self.model, self.drives, self.kind, self.order = model, drives, kind, order
        self.gravity, self.method, self.rtol = gravity, method, rtol
        self.driven = np.flatnonzero(drives.driven)
        self.zero = [Agreement() for _ in range(order + 1)] if kind == "full" else []
        self.motor = Agreement()
        self.bodies = [(Agreement(), Agreement()) for _ in range(order + 1)] \
            if kind == "full" else []

    def add(self, block: Block) -> None:
        model, drives, order, gravity = self.model, self.drives, self.order, self.gravity
        center, idx, t = block.center, block.idx, block.t
        rigid = block.results(self.method)
        massless = replace(drives, rotor_inertia=np.zeros(model.n))
        zero = actuators.inverse_dynamics(model, center, massless, order=order, kind=self.kind,
                                          gravity=gravity)
        for k, fold in enumerate(self.zero):
            fold.add(zero.tau[:, k], rigid[:, k], idx, t)
        d = self.driven
        self.motor.add(zero.taum[:, 0, d], _rigid_motor_torque(
            drives, rigid[:, 0], center.derivatives[:, 1])[:, d], idx, t)
        if self.kind != "full":
            return
        ideal = replace(drives, friction=Friction.none(model.n),
                        gear_efficiency=np.ones(model.n))
        plain = actuators.inverse_dynamics(model, center, ideal, order=order, gravity=gravity)
        both = rotors_as_bodies(model, ideal)
        r = np.where(drives.driven, drives.gear_ratio, 1.0)
        qs = center.derivatives[:, : order + 3]
        motion = Trajectory(both.joint_names,
                            np.concatenate([qs, (r * qs)[..., drives.driven]], 2),
                            center.t, center.wrenches)
        tau = inverse_dynamics(both, motion, method="spatial", order=order, gravity=gravity)
        n = model.n
        rotor = (plain.taum - plain.tau / r)[..., d]
        for k, (links, rotors) in enumerate(self.bodies):
            links.add(plain.tau[:, k], tau[:, k, :n], idx, t)
            rotors.add(rotor[:, k], tau[:, k, n:], idx, t)

    def finish(self) -> None:
        pass

    def checks(self) -> list[Check]:
        model, kind, rtol = self.model, self.kind, self.rtol
        checks = [fold.check(GROUP, f"{derivative_name('tau', k)}: zero rotor inertia vs "
                             "rigid", rtol, model, kind) for k, fold in enumerate(self.zero)]
        checks.append(self.motor.check(GROUP, "taum: zero rotor inertia vs (tau + f_J) / "
                                       "(r eta) + f_M", rtol, model, kind, self.driven))
        if kind != "full":
            return checks + [Check(GROUP, "rotors as bodies", "skip", method=kind,
                                   detail="the reflected model neglects the rotors' gyroscopic "
                                          "coupling: it is not the rotors-as-bodies model")]
        for k, (links, rotors) in enumerate(self.bodies):
            tk, mk = derivative_name("tau", k), derivative_name("taum", k)
            checks.append(links.check(GROUP, f"{tk}: vs rotors as bodies (spatial)", rtol,
                                      model, kind))
            checks.append(rotors.check(GROUP, f"{mk} - {tk}/r: vs the rotors' joints (spatial, "
                                       "no friction)", rtol, model, kind, self.driven))
        return checks


def _rigid_motor_torque(drives: Drives, tau: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """``(tau + f_J) / (r eta) + f_M`` (N, n) with ``f(v) = viscous v + coulomb tanh(v /
    coulomb_velocity) + offset`` (docs/drives.md) at the joint's v = qd or the motor's r qd."""
    f, r = drives.friction, np.where(drives.driven, drives.gear_ratio, 1.0)
    v = np.where(f.motor_side, r * qd, qd)
    friction = f.viscous * v + f.coulomb * np.tanh(v / f.velocity) + f.offset
    reta = r * np.where(drives.driven, drives.gear_efficiency, 1.0)
    return np.where(f.motor_side, tau / reta + friction, (tau + friction) / reta)


def coulomb_rate(drives: Drives, maxima: np.ndarray) -> float:
    """The fastest time scale (1/s) of the smoothed Coulomb friction, ``max |d/dt (v /
    coulomb_velocity)|`` over the checked samples (``maxima``: (>= 3, n) their largest
    ``|q^(j)|``) (0: none): the drives' finite-difference step is no longer than
    ``STEP_FACTOR`` over it."""
    f = drives.friction
    on = drives.driven & (f.coulomb != 0)
    scale = np.where(f.motor_side, np.abs(drives.gear_ratio), 1.0) / f.velocity
    return float((maxima[2] * scale)[on].max(initial=0.0))


class Differences:
    """Check 1 at step h, fed block by block: the drive model along the local motions
    (17 local samples a checked sample)."""

    def __init__(self, model: Model, drives: Drives, kind: str, order: int, h: float, gravity,
                 rtol: float, plot: Callable[[], Plot]):
        self.model, self.drives, self.kind, self.order = model, drives, kind, order
        self.h, self.gravity, self.rtol = h, gravity, rtol
        current = np.flatnonzero(drives.current)
        self.bases = [(base, cols) for base, cols in (("tau", None), ("taum", None),
                                                       ("current", current))
                      if cols is None or cols.size]
        self.folds = [[Stencils(h) for _ in range(order)] for _ in self.bases]
        self.plots = [plot() for _ in range(order)]   # the motor torques'
        self.x = plot().span is not None

    def add(self, block: Block) -> None:
        model, drives, order, h = self.model, self.drives, self.order, self.h
        part = block.center
        exact = actuators.inverse_dynamics(model, part, drives, order=order, kind=self.kind,
                                           gravity=self.gravity)
        local = actuators.inverse_dynamics(model, local_motion(part, h), drives,
                                           order=order - 1, kind=self.kind, gravity=self.gravity)
        x = None if not self.x else block.idx if block.t is None else block.t
        for (base, cols), folds in zip(self.bases, self.folds, strict=True):
            low = getattr(local, base).reshape(part.n_samples, 17, order, model.n)
            analytic = getattr(exact, base)
            if cols is not None:
                low, analytic = low[..., cols], analytic[..., cols]
            for k in range(1, order + 1):
                d_h, d_2h, peak = stencil(low[:, :, k - 1], h)
                folds[k - 1].add(d_h, d_2h, peak, analytic[:, k], block.idx, block.t)
                if base == "taum":  # the report plots the motor torques (current: taum / k_t)
                    self.plots[k - 1].add(x, analytic[:, k], d_h)

    def finish(self) -> None:
        pass

    def checks(self) -> list[Check]:
        return [fold.check(GROUP, derivative_name(base, k), derivative_name(base, k - 1),
                           self.rtol, self.model, self.kind, cols)
                for (base, cols), folds in zip(self.bases, self.folds, strict=True)
                for k, fold in enumerate(folds, start=1)]

    def settled(self, rtol: float) -> bool:
        """The estimated error well below the tolerance (else the step shrinks)."""
        return all((c.expected or 0.0) <= rtol / 10 for c in self.checks())

    def plotted(self, series: dict) -> None:
        for k, plot in enumerate(self.plots, start=1):
            series.setdefault(GROUP, {})[derivative_name("taum", k)] = plot.series()
