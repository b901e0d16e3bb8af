"""``hodyn validate --loops``: the closed loops' results (:mod:`hodyn_cli.algorithms.motion.loops`)
proven at the checked samples (group ``loops`` of the report):

1. **closure**: the loops' residual ``|c(q)|`` at the checked samples (m, rad), and the
   passive joints' velocities against ``G q_a'`` (two routes to q_p': the implicit function
   theorem's order 1 and the Jacobian G);
2. **finite differences**: along the local Taylor motion of the *actuated* joints (as check 1
   of :mod:`hodyn_cli.algorithms.verification.validate`, offsets -8h .. 8h), the passive
   joints found anew by Newton at every offset, and their derivatives, the actuated torques
   and the constraint forces there: every derivative against the 8th-order stencil of the
   order below (the passive joints' derivatives to the highest the torques need);
3. **virtual power**: ``tau_a . q_a' = tau_full . q_full'`` (the projection by G loses no
   power: the constraint forces do no work on the closed motion).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.algorithms.verification.blocks import Block, Plot
from hodyn_cli.algorithms.verification.checks import (
    Agreement,
    Check,
    Stencils,
    largest,
    local_motion,
    stencil,
)
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import HodynError

__all__ = ["Closure", "Differences", "GROUP"]

GROUP = "loops"
#: the loops' residual at a checked sample that passes (m, rad), times the loops' length
#: where it is below 1 m (``Closed.length``): Newton's, with margin
CLOSURE_TOL = 1e-10


def _closed(model: Model):
    from hodyn_cli.algorithms.motion.loops import Closed

    closed = model.coupling
    if not isinstance(closed, Closed):
        raise HodynError("validating loops needs a robot with its loops closed")
    return closed


class Closure:
    """Checks 1 and 3 at the checked samples (all joints, as expanded), block by block."""

    def __init__(self, model: Model, order: int, method: str, gravity, rtol: float):
        self.model, self.order, self.method, self.gravity, self.rtol = \
            model, order, method, gravity, rtol
        self.closed = _closed(model)
        self.residual = -np.inf
        self.passive, self.power = Agreement(), Agreement()

    def add(self, block: Block) -> None:
        closed, center, idx, t = self.closed, block.center, block.idx, block.t
        c, _ = closed.residual(center.q)
        self.residual = largest(self.residual, float(np.abs(c).max()))
        G = closed.jacobian(center.q[:, closed.a])
        self.passive.add(center.qd[:, closed.p],
                         (G @ center.qd[:, closed.a, None])[:, closed.p, 0], idx, t)
        ours = _results(self.model, closed, center, self.order, self.method, self.gravity)
        power = np.einsum("sj,sj->s", ours["tau"][:, 0], center.qd[:, closed.a])[:, None]
        tree = np.einsum("sj,sj->s", ours["full"][:, 0], center.qd)[:, None]
        self.power.add(power, tree, idx, t)

    def finish(self) -> None:
        pass

    def checks(self) -> list[Check]:
        model, method, rtol = self.model, self.method, self.rtol
        allowed = CLOSURE_TOL * self.closed.length
        return [Check(GROUP, "closure residual |c(q)| (m, rad)",
                      "pass" if self.residual <= allowed else "fail", self.residual,
                      self.residual, allowed, detail="the loops at the checked samples"),
                self.passive.check(GROUP, "qd (passive) vs G qd_a", rtol, model, method,
                                   self.closed.p),
                self.power.check(GROUP, "virtual power: tau_a . qd_a vs tau_full . qd_full",
                                 rtol, model, method, names=["power"])]


class Differences:
    """Check 2 at step h, fed block by block: along the actuated joints' local motions, the
    passive joints found by Newton at 17 local samples each."""

    def __init__(self, model: Model, order: int, h: float, method: str, gravity, rtol: float,
                 plot: Callable[[], Plot]):
        self.model, self.order, self.h, self.method = model, order, h, method
        self.gravity, self.rtol = gravity, rtol
        self.closed = closed = _closed(model)
        self.names = {"tau": list(model.coordinate_names),
                      "Fl": [f"Fl_{x}" for x in closed.components]}
        self.pieces: list[tuple[str, int]] = []   # made at the first block (q's orders)
        self.folds: list[Stencils] = []
        self.plots: dict[str, Plot] = {}
        self.plot = plot

    def add(self, block: Block) -> None:
        model, closed, order, h = self.model, self.closed, self.order, self.h
        part = block.center
        if not self.pieces:
            # the stencils' columns: tau and Fl to order - 1, the passive joints' q to
            # orders - 2
            self.pieces = [(base, k) for base in ("tau", "Fl") for k in range(order)] + \
                [("q", k) for k in range(part.orders - 1)]
            self.folds = [Stencils(h) for _ in self.pieces]
            self.plots = {derivative_name(b, k + 1): self.plot() for b, k in self.pieces
                          if b != "q"}
        actuated = Trajectory(model.coordinate_names, part.derivatives[:, :, closed.a], part.t)
        local = closed.expand(local_motion(actuated, h))
        there = _results(model, closed, local, order - 1, self.method, self.gravity)
        ours = _results(model, closed, part, order, self.method, self.gravity)
        M = part.n_samples
        f = {base: there[base].reshape(M, 17, order, -1) for base in ("tau", "Fl")}
        f["q"] = local.derivatives.reshape(M, 17, -1, model.n)[..., closed.p]
        x = None if self.plot().span is None else block.idx if block.t is None else block.t
        for (base, k), fold in zip(self.pieces, self.folds, strict=True):
            d_h, d_2h, peak = stencil(f[base][:, :, k], h)
            analytic = part.derivatives[:, k + 1, closed.p] if base == "q" else \
                ours[base][:, k + 1]
            fold.add(d_h, d_2h, peak, analytic, block.idx, block.t)
            if base != "q":
                self.plots[derivative_name(base, k + 1)].add(x, analytic, d_h)

    def finish(self) -> None:
        pass

    def checks(self) -> list[Check]:
        checks = []
        for (base, k), fold in zip(self.pieces, self.folds, strict=True):
            if base == "q":
                checks.append(fold.check(GROUP, derivative_name("q", k + 1) + " (passive)",
                                         derivative_name("q", k), self.rtol, self.model,
                                         self.method, columns=self.closed.p))
            else:
                checks.append(fold.check(GROUP, derivative_name(base, k + 1),
                                         derivative_name(base, k), self.rtol, self.model,
                                         self.method, names=self.names[base]))
        return checks

    def settled(self, rtol: float) -> bool:
        return True   # (the step is the torques': the loops' own never shrinks it)

    def plotted(self, series: dict) -> None:
        for name, plot in self.plots.items():
            series.setdefault(GROUP, {})[name] = plot.series()


def _results(model: Model, closed, full: Trajectory, order: int, method: str, gravity) -> dict:
    """The tree's torques, the actuated ones and the constraint forces with their first
    ``order`` derivatives along the joints' motion ``full``."""
    tau = inverse_dynamics(model, full, method=method, order=order, gravity=gravity)
    tau_a, Fl = closed.split(tau, full)
    return {"full": tau, "tau": tau_a, "Fl": Fl}
