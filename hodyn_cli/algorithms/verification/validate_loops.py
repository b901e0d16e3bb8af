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

import numpy as np

from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.algorithms.verification.checks import (
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
from hodyn_cli.errors import HodynError

__all__ = ["loop_checks", "GROUP"]

GROUP = "loops"
#: the loops' residual at a checked sample that passes (m, rad): Newton's, with margin
CLOSURE_TOL = 1e-10


def loop_checks(model: Model, center: Trajectory, order: int, h: float, method: str, gravity,
                fd_rtol: float, cross_rtol: float, idx, t, series: dict) -> list[Check]:
    """The checks above at the checked samples ``center`` (all joints, as expanded)."""
    from hodyn_cli.algorithms.motion.loops import Closed

    closed = model.coupling
    if not isinstance(closed, Closed):
        raise HodynError("validating loops needs a robot with its loops closed")
    c, _ = closed.residual(center.q)
    worst_closure = float(np.abs(c).max())
    checks = [Check(GROUP, "closure residual |c(q)| (m, rad)",
                    "pass" if worst_closure <= CLOSURE_TOL else "fail", worst_closure,
                    worst_closure, CLOSURE_TOL, detail="the loops at the checked samples")]
    G = closed.jacobian(center.q[:, closed.a])
    checks.append(agreement_check(GROUP, "qd (passive) vs G qd_a", center.qd[:, closed.p],
                                  (G @ center.qd[:, closed.a, None])[:, closed.p, 0], cross_rtol,
                                  model, idx, t, method, closed.p))
    ours = _results(model, closed, center, order, method, gravity)
    power = np.einsum("sj,sj->s", ours["tau"][:, 0], center.qd[:, closed.a])[:, None]
    tree = np.einsum("sj,sj->s", ours["full"][:, 0], center.qd)[:, None]
    checks.append(agreement_check(GROUP, "virtual power: tau_a . qd_a vs tau_full . qd_full",
                                  power, tree, cross_rtol, model, idx, t, method,
                                  names=["power"]))
    names = {"tau": list(model.coordinate_names), "Fl": [f"Fl_{x}" for x in closed.components]}
    widths = {"tau": len(names["tau"]), "Fl": len(names["Fl"]), "q": closed.p.size}
    # the stencils' columns: tau and Fl to order - 1, the passive joints' q to orders - 2
    pieces = [(base, k) for base in ("tau", "Fl") for k in range(order)] + \
        [("q", k) for k in range(center.orders - 1)]

    def differences(rows: slice) -> np.ndarray:
        """(M, 3 sum(widths)): a block's :func:`stencil` (d_h, d_2h, peak) of each piece,
        side by side (the passive joints found by Newton at 17 local samples each)."""
        part = center.rows(rows)
        actuated = Trajectory(model.coordinate_names, part.derivatives[:, :, closed.a], part.t)
        local = closed.expand(local_motion(actuated, h))
        there = _results(model, closed, local, order - 1, method, gravity)
        M = part.n_samples
        f = {base: there[base].reshape(M, 17, order, -1) for base in ("tau", "Fl")}
        f["q"] = local.derivatives.reshape(M, 17, -1, model.n)[..., closed.p]
        return np.concatenate([x for base, k in pieces for x in stencil(f[base][:, :, k], h)],
                              axis=1)

    diffs = blocked(differences, center.n_samples, block_rows(model))
    parts = iter(np.split(diffs, np.cumsum([widths[b] for b, _ in pieces for _ in range(3)])[:-1],
                          axis=1))
    for base, k in pieces:
        d_h, d_2h, peak = next(parts), next(parts), next(parts)
        if base == "q":
            checks.append(stencil_verdict(GROUP, derivative_name("q", k + 1) + " (passive)",
                                          derivative_name("q", k), d_h, d_2h, peak,
                                          center.derivatives[:, k + 1, closed.p], h, fd_rtol,
                                          model, idx, t, method, columns=closed.p))
            continue
        checks.append(stencil_verdict(GROUP, derivative_name(base, k + 1),
                                      derivative_name(base, k), d_h, d_2h, peak,
                                      ours[base][:, k + 1], h, fd_rtol, model, idx, t, method,
                                      names=names[base]))
        series.setdefault(GROUP, {})[derivative_name(base, k + 1)] = {
            "analytic": ours[base][:, k + 1], "numeric": d_h.copy()}  # (not a view of diffs)
    return checks


def _results(model: Model, closed, full: Trajectory, order: int, method: str, gravity) -> dict:
    """The tree's torques, the actuated ones and the constraint forces with their first
    ``order`` derivatives along the joints' motion ``full``."""
    tau = inverse_dynamics(model, full, method=method, order=order, gravity=gravity)
    tau_a, Fl = closed.split(tau, full)
    return {"full": tau, "tau": tau_a, "Fl": Fl}
