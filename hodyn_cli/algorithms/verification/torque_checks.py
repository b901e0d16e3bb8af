"""The torque checks of :func:`~hodyn_cli.algorithms.verification.validate.validate`: tau and
its derivatives against inverse dynamics, as parts fed a block of checked samples at a time
(:mod:`~hodyn_cli.algorithms.verification.blocks`; ``add`` each block, ``finish`` after the
last, then ``checks``), their numbers folded across blocks.

1. **finite differences** (:class:`FiniteDifferences`): tau^(k) against the 8th-order stencil
   of tau^(k-1) along each checked sample's local Taylor motion, per method, at a step
   ``h``.
2. **sampled differences** (:class:`SampledDifferences`): tau^(k) against central
   differences of tau^(k-1) over the file's own samples (warns only).
3. **cross-method** (:class:`CrossMethod`): every method against every other, per order.
8. **torques** (:class:`GivenTorques`): torques from elsewhere against the first method's.

and, on contacts, the **contacts** checks (:class:`Contacts`): nothing left on the base where
the active contacts take any wrench, the couple left where they cannot, active contacts at
rest. The numbering is :mod:`~hodyn_cli.algorithms.verification.validate`'s, whose docstring
gives the reasoning (steps, tolerances, a floating base's and the contacts' columns).

Every torque these checks compare is made by :func:`inverse_dynamics` (through
:func:`computed` where a part is given a method and a motion): the joints' torques, a
floating base's wrench left over, the contact wrenches, in the columns of
:func:`column_names`.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.contacts.dynamics import on_contacts
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics as fixed_base_dynamics
from hodyn_cli.algorithms.dynamics.regressor import base_wrench_rows
from hodyn_cli.algorithms.verification.blocks import Block, Plot
from hodyn_cli.algorithms.verification.checks import (
    EPS,
    Check,
    Peak,
    Stencils,
    largest,
    local_motion,
    stencil,
    verdict,
)
from hodyn_cli.algorithms.verification.simulation import given_torques
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.modeling.contacts import Contact
from hodyn_cli.modeling.drives import Drives

if TYPE_CHECKING:
    from hodyn_cli.algorithms.verification.validate import Picked, Tolerances

__all__ = ["Parts", "FiniteDifferences", "SampledDifferences", "CrossMethod", "GivenTorques",
           "Contacts", "column_names", "inverse_dynamics", "computed"]


def column_names(robot: Model, floating: bool = False, contacts: tuple[Contact, ...] = ()
                 ) -> list[str]:
    """The columns of :func:`inverse_dynamics`: the robot's velocity coordinates; with a
    floating base its base wrench (left over, on contacts), each contact's wrench
    components."""
    return (list(robot.dof_names) + (list(base_wrench_rows(robot)) if floating else [])
            + [f"{c.prefix}_{c.name}_{x}" for c in contacts for x in c.components])


def inverse_dynamics(model: Model, trajectory: Trajectory, *, method: str, order: int,
                     gravity, contacts: tuple[Contact, ...] = (), floating: bool = False,
                     data: backends.Data | None = None) -> np.ndarray:
    """tau^(k) (N, order+1, nv): what the torque checks compare. ``floating``: ``model`` is a
    robot under its free root joint, its floating base: the joints' columns, then the base
    wrench's 6, ``W = -F_0`` (minus the free joint's: docs/floating.md). On ``contacts``:
    the torques with them, the base wrench left over, the contact wrenches
    (:func:`column_names`). ``data``: the backend's Data for ``model`` where the caller keeps
    one (:func:`~hodyn_cli.algorithms.backends.prepare`; without contacts)."""
    if contacts:
        r = on_contacts(model, trajectory, contacts, method=method, order=order,
                        gravity=gravity)
        return np.concatenate([r.tau, r.W, *(r.wrenches[c.name] for c in contacts)], axis=2)
    tau = fixed_base_dynamics(model, trajectory, method=method, order=order, gravity=gravity,
                              data=data)
    return np.concatenate([tau[..., 6:], np.negative(tau[..., :6])], axis=2) if floating \
        else tau


def computed(model: Model, *, order: int, gravity, contacts: tuple[Contact, ...] = (),
             floating: bool = False) -> Callable[..., np.ndarray]:
    """``(method, motion, data=None) ->`` :func:`inverse_dynamics` of ``model`` along
    ``motion`` (the same options): what a block's torques and the simulation's are made by;
    ``data``: the backend's Data for ``model`` where the caller keeps one."""
    def torques(method: str, motion: Trajectory, data: backends.Data | None = None
                ) -> np.ndarray:
        return inverse_dynamics(model, motion, method=method, order=order, gravity=gravity,
                                contacts=contacts, floating=floating, data=data)
    return torques


# -- the parts of the torque checks, fed block by block ---------------------------------------


class Parts:
    """What the torque checks' parts share (the robot checked, ``methods``, the torques'
    ``order``, ``names`` of their columns, ...; ``span``: the plotted series' x-range on a
    file read twice, :class:`~hodyn_cli.algorithms.verification.blocks.Plot`), and the
    parts that depend on a step, :meth:`make` by key: ``("fd", method, h)``, ``("drives",
    h)``, ``("loops", h)``."""

    def __init__(self, model: Model, methods: list[str], order: int, gravity,
                 tolerances: Tolerances, contacts: tuple[Contact, ...], names: list[str],
                 floating: bool, span: tuple[float, float] | None):
        self.model, self.methods, self.order, self.gravity = model, methods, order, gravity
        self.tolerances, self.contacts, self.names = tolerances, contacts, names
        self.floating, self.span = floating, span

    def plot(self, x_key: str | None = None) -> Plot:
        return Plot(self.span, x_key)

    def make(self, key: tuple, drives: Drives | None, drive_model: str):
        if key[0] == "fd":
            return FiniteDifferences(self, key[1], key[2])
        if key[0] == "drives":
            from hodyn_cli.algorithms.verification.validate_drives import Differences as Drive

            assert drives is not None
            return Drive(self.model, drives, drive_model, self.order, key[1], self.gravity,
                         self.tolerances.fd, self.plot)
        from hodyn_cli.algorithms.verification.validate_loops import Differences as Loop

        return Loop(self.model, self.order, key[1], self.methods[0], self.gravity,
                    self.tolerances.fd, self.plot)

    def x(self, block: Block) -> np.ndarray | None:
        """The plotted x of a block's rows on a file read twice (times, else sample
        numbers); None where the report's ``t`` is the x of every series."""
        return None if self.span is None else block.idx if block.t is None else block.t


# -- 1. finite differences along the local Taylor motion -------------------------------------


class FiniteDifferences:
    """Analytic tau^(k) vs the 8th-order stencil of tau^(k-1) along the Taylor motion (of
    multi-DOF joints on their groups: :func:`~hodyn_cli.algorithms.verification.checks.
    local_motion`) at step ``h``, for ``method``."""

    def __init__(self, parts: Parts, method: str, h: float):
        self.parts, self.method, self.h = parts, method, h
        self.folds = [Stencils(h) for _ in range(parts.order)]
        self.plots = [parts.plot() for _ in range(parts.order)]

    def add(self, block: Block) -> None:
        p, part, h = self.parts, block.center, self.h
        order = p.order
        tau = inverse_dynamics(p.model, local_motion(part, h, p.model), method=self.method,
                               order=order - 1, gravity=p.gravity, contacts=p.contacts,
                               floating=p.floating).reshape(part.n_samples, 17, order, -1)
        analytic = block.results(self.method)
        for k in range(1, order + 1):
            d_h, d_2h, peak = stencil(tau[:, :, k - 1], h)
            self.folds[k - 1].add(d_h, d_2h, peak, analytic[:, k], block.idx, block.t)
            self.plots[k - 1].add(p.x(block), analytic[:, k], d_h)

    def finish(self) -> None:
        pass

    def checks(self) -> list[Check]:
        p = self.parts
        return [fold.check("finite differences", derivative_name("tau", k),
                           derivative_name("tau", k - 1), p.tolerances.fd, p.model,
                           self.method, names=p.names)
                for k, fold in enumerate(self.folds, start=1)]

    def settled(self, rtol: float) -> bool:
        """The estimated error well below the tolerance (else the step shrinks)."""
        return all((c.expected or 0.0) <= rtol / 10 for c in self.checks())

    def plotted(self, series: dict) -> None:
        for k, plot in enumerate(self.plots, start=1):
            series.setdefault(self.method, {})[derivative_name("tau", k)] = plot.series()


# -- 2. sampled differences of the output ----------------------------------------------------


class SampledDifferences:
    """tau^(k) vs central differences of tau^(k-1) over the file's samples (warn only), at
    the checked samples that have both neighbours; ``omega``: the data's fastest time scale.
    ``streamed``: every sample checked, fed block by block (the first method's torques of
    the block, a block's last sample checked when the next block comes); else the held
    samples' :meth:`triples`."""

    def __init__(self, parts: Parts, omega: float, streamed: bool = False):
        self.parts, self.omega, self.streamed = parts, omega, streamed
        order = parts.order
        self.err = [Peak() for _ in range(order)]
        self.scale = [-np.inf] * order
        self.rate = [-np.inf] * order   # max |tau^(k+1)|
        self.dt = -np.inf               # max (t+ - t-)
        self.plots = [parts.plot("t") for _ in range(order)]
        self.before: tuple | None = None  # streamed: (tau, t, idx) of the rows not yet checked
        self.any = False

    def add(self, block: Block) -> None:
        if not self.streamed:
            return
        tau, t = block.results(self.parts.methods[0]), block.t
        assert t is not None
        if self.before is not None:
            tau, t, idx = (np.concatenate([a, b]) for a, b in
                           zip(self.before, (tau, t, block.idx), strict=True))
        else:
            idx = block.idx
        if len(t) >= 3:
            self.fold(tau[:-2], tau[1:-1], tau[2:], t[:-2], t[1:-1], t[2:], idx[1:-1])
        self.before = (tau[-2:], t[-2:], idx[-2:])

    def finish(self) -> None:
        pass

    def triples(self, picked: Picked, rows: int, torques_of) -> None:
        """The held samples with both neighbours, ``rows`` at a time: the torques at them
        and at their neighbours (``torques_of(method, motion)``)."""
        c = picked.centres
        inner = c[(c > 0) & (c < len(picked.index) - 1)]
        inner = inner[(picked.index[inner - 1] == picked.index[inner] - 1)
                      & (picked.index[inner + 1] == picked.index[inner] + 1)]
        for a in range(0, inner.size, rows):
            at = inner[a:a + rows]
            prev, mid, nxt = np.split(torques_of(self.parts.methods[0], picked.at(
                np.concatenate([at - 1, at, at + 1]))), 3)
            assert picked.t is not None
            self.fold(prev, mid, nxt, picked.t[at - 1], picked.t[at], picked.t[at + 1],
                      picked.index[at])

    def fold(self, prev, mid, nxt, tm, t0, tp, idx) -> None:
        """Samples ``idx`` at times ``t0`` between neighbours at ``tm`` and ``tp``, the
        torques (M, order+1, m) at each."""
        order = self.parts.order
        self.any = True
        self.dt = largest(self.dt, float(np.max(tp - tm)))
        a_, b_ = (t0 - tm)[:, None], (tp - t0)[:, None]
        for k in range(1, order + 1):
            # 3-point derivative on a non-uniform grid (second order)
            numeric = (-(b_ / (a_ * (a_ + b_))) * prev[:, k - 1]
                       + ((b_ - a_) / (a_ * b_)) * mid[:, k - 1]
                       + (a_ / (b_ * (a_ + b_))) * nxt[:, k - 1])
            analytic = mid[:, k]
            self.err[k - 1].add(np.abs(analytic - numeric), idx, t0)
            self.scale[k - 1] = largest(self.scale[k - 1], float(np.abs(analytic).max()))
            if k + 1 <= order:
                self.rate[k - 1] = largest(self.rate[k - 1], float(np.abs(mid[:, k + 1]).max()))
            # (a copy: a view of mid would keep the neighbours' torques alive with the report)
            self.plots[k - 1].add(t0, analytic.copy(), numeric)

    def checks(self) -> list[Check]:
        if not self.any:
            return [Check("sampled differences", "output vs time differences", "skip",
                          detail="needs samples with neighbours on both sides")]
        p, omega = self.parts, self.omega
        dt = float(self.dt / 2)
        checks = []
        for k in range(1, p.order + 1):
            err = self.err[k - 1]
            scale = max(self.scale[k - 1], 1e-300)
            # truncation dt^2/6 |tau^(k+2)|, estimated as |tau^(k+1)| omega (|tau^(k)| omega^2
            # when tau^(k+1) was not computed), omega the data's fastest time scale
            rate = self.rate[k - 1] if k + 1 <= p.order else scale * omega
            exp_rel = float(dt**2 / 6 * rate * omega / scale)
            tol = max(p.tolerances.sampled, 10 * exp_rel)
            rel = float(err.value / scale)
            checks.append(Check(
                "sampled differences", f"{derivative_name('tau', k)} vs time differences of "
                f"{derivative_name('tau', k - 1)}", "pass" if rel <= tol else "warn", err.value,
                rel, tol, exp_rel, method=p.methods[0],
                detail=f"limited by the sampling rate (dt = {dt:.3g} s); warns only",
                **err.at(p.model, names=p.names)))
        return checks

    def plotted(self, series: dict) -> None:
        if self.any:
            for k, plot in enumerate(self.plots, start=1):
                series.setdefault("sampled", {})[derivative_name("tau", k)] = plot.series(
                    ("analytic", "numeric"))


# -- 3. cross-method agreement ---------------------------------------------------------------


def turning(model: Model, motion: Trajectory) -> np.ndarray:
    """(M,) per sample of ``motion``, how fast its bodies' frames turn (1/s): the largest
    ``(sum_i |omega_i^(j)|)^(1/(j+1))`` over the orders j the motion carries, ``omega_i =
    S_i[:3] nu_i`` the angular part of joint i's twist (a body's angular velocity is at
    most the sum of its joints', and its j-th derivative grows as Omega^(j+1))."""
    weights = np.concatenate([np.linalg.norm(S[:3], axis=0) for S in model.subspaces])
    rates = np.abs(motion.derivatives[:, 1:]) @ weights       # (M, D-1)
    return (rates ** (1 / np.arange(1, rates.shape[1] + 1))).max(axis=1, initial=0.0)


def rounding(tau: np.ndarray, omega: np.ndarray, k: int) -> np.ndarray:
    """(M,) the rounding error a method's tau^(k) may carry at each sample (``tau`` (M, K+1,
    m) its tau .. tau^(K), ``omega`` (M,) :func:`turning`): ``eps sum_j C(k, j) |tau^(j)|
    (2 Omega)^(k-j)``, |.| the largest over the columns. The spatial form sums terms of
    that size: in world coordinates a joint's axis s and its body's force f turn with the
    body (``s' = omega x s``, ``|s^(a)| <= Omega^a |s|``, f's likewise about its body-fixed
    derivatives), so ``tau^(k) = sum_a C(k, a) s^(a) . f^(k-a)`` adds up terms of size
    ``sum_j C(k, j) (2 Omega)^(k-j) |f^(j)|`` (Leibniz twice), which cancel down to the
    body-fixed form's result: the mobile 2R's base spinning at 500 rad/s, its taudd's
    terms ~8e5 times the result, the two forms 1.1e-10 of it apart (0.6 times this bound,
    0.5-0.8 at orders 1-4 at 50 and 500 rad/s; 0.01-3.5 times it at orders 1-4 on the
    bundled robots' cosine motions played 1 and 30 times as fast, where it is 1e-12 of the
    result or less; at order 0, EPS alone, a sum of a few terms, up to 8.6)."""
    mags = np.abs(tau).max(axis=2)                              # (M, K+1)
    return EPS * sum(comb(k, j) * mags[:, j] * (2 * omega) ** (k - j) for j in range(k + 1))


class CrossMethod:
    """Every method against every other, per order, at the checked samples, each sample's
    error within ``cross`` times the result's largest magnitude plus 10 times the rounding
    the terms the methods sum may leave at that sample (:func:`rounding`, the first
    method's; printed as "expected"): a tolerance relative to the result alone failed the
    two forms' agreement on a base spinning fast, where the spatial form's terms cancel
    (~Omega^(k+2): the mobile 2R's taudd 1.1e-10 of it apart at 500 rad/s, its tau^(4)
    3e-10 at 50 rad/s); one allowance for the whole motion, its fastest sample's, let a
    slow stretch's error hide under a fast stretch's rounding. At the bundled robots'
    speeds the rounding is 1e-12 of the result or less: the tolerance is ``cross``."""

    def __init__(self, parts: Parts):
        self.parts = parts
        self.pairs = [(a, b, k) for a, b in combinations(parts.methods, 2)
                      for k in range(parts.order + 1)]
        self.folds = [Allowed() for _ in self.pairs]

    def add(self, block: Block) -> None:
        omega = turning(self.parts.model, block.center)
        for (a, b, k), fold in zip(self.pairs, self.folds, strict=True):
            fold.add(block.results(a)[:, k], block.results(b)[:, k],
                     10 * rounding(block.results(a), omega, k), block.idx, block.t)

    def finish(self) -> None:
        pass

    def checks(self) -> list[Check]:
        p = self.parts
        return [fold.check("cross-method", f"{derivative_name('tau', k)}: {a} vs {b}",
                           p.tolerances.cross, p.model, f"{a},{b}", names=p.names)
                for (a, b, k), fold in zip(self.pairs, self.folds, strict=True)]


class Allowed:
    """``|a - b|`` folded block by block against ``rtol * scale + allowance`` at each sample
    (``scale`` the largest ``|a|`` of all the blocks; ``allowance`` (M,), absolute, per
    sample): the entry whose error passes its sample's allowance by the most decides, since
    ``rtol * scale`` is the same at every sample, whatever the scale comes to be. Its check
    prints that entry: its error, ``rtol`` plus its allowance relative to the scale as the
    tolerance, a tenth of its allowance as "expected"."""

    def __init__(self) -> None:
        self.over, self.scale = Peak(), -np.inf
        self.err = self.allowance = np.nan  # (at the deciding entry)

    def add(self, a: np.ndarray, b: np.ndarray, allowance: np.ndarray, idx, t) -> None:
        err = np.abs(a - b)
        over = err - allowance[:, None]
        if over.size:
            s, j = np.unravel_index(int(np.argmax(over)), over.shape)
            self.over.add(over, idx, t)
            if self.over.sample == idx[s] and self.over.column == j:  # (this block's)
                self.err, self.allowance = float(err[s, j]), float(allowance[s])
        self.scale = largest(self.scale, float(np.abs(a).max(initial=-np.inf)))

    def check(self, group: str, name: str, rtol: float, model: Model, method: str,
              names=None) -> Check:
        scale = max(self.scale, 1e-300)
        allowed = self.allowance / scale
        c = Check(group, name, "pass", self.err, self.err / scale, rtol + allowed,
                  allowed / 10, method=method, **self.over.at(model, names=names))
        c.status = verdict(c.max_rel, c.tolerance or 0.0)
        return c


# -- 8. given torques ------------------------------------------------------------------------


class GivenTorques:
    """The given torques the checked samples carry (:func:`given_torques`) against the
    first method's, per order and joint: the largest ``|given - computed|`` relative to the
    largest computed magnitude of that order over the joints (as every torque check, so
    that a joint with little torque is not judged by its rounding). An order the
    trajectory's derivatives do not reach is skipped."""

    def __init__(self, parts: Parts):
        self.parts = parts
        self.orders = 0
        self.err: list[list[Peak]] = []
        self.scale: list[float] = []
        self.dots: np.ndarray | None = None   # (orders, 2, m): sum given . ours, ours . ours

    def add(self, block: Block) -> None:
        p = self.parts
        given = given_torques(block.center)
        ours = p.model.coupling.forces(block.results(p.methods[0]), block.center)  # (M, o+1, m)
        if not self.err:
            self.orders = given.shape[1]
            m = given.shape[2]
            self.err = [[Peak() for _ in range(m)] for _ in range(self.orders)]
            self.scale = [-np.inf] * self.orders
            self.dots = np.zeros((self.orders, 2, m))
        assert self.dots is not None
        for k in range(min(self.orders, ours.shape[1])):
            err = np.abs(given[:, k] - ours[:, k])
            self.scale[k] = largest(self.scale[k], float(np.abs(ours[:, k]).max()))
            for j, peak in enumerate(self.err[k]):
                peak.add(err[:, j:j + 1], block.idx, block.t)
            self.dots[k] += [np.einsum("sj,sj->j", given[:, k], ours[:, k]),
                             np.einsum("sj,sj->j", ours[:, k], ours[:, k])]

    def finish(self) -> None:
        pass

    def checks(self) -> list[Check]:
        p = self.parts
        method, rtol, computed = p.methods[0], p.tolerances.torques, p.order + 1
        checks = []
        for k in range(self.orders):
            name = derivative_name("tau", k)
            if k >= computed:
                last = derivative_name("tau", computed - 1)
                checks.append(Check("torques", f"{name}: given vs computed", "skip",
                                    method=method,
                                    detail=f"the computed torques go to {last} (validate "
                                           "computes them to taudd where q goes to qdddd)"))
                continue
            scale = max(self.scale[k], 1e-300)
            for j, joint in enumerate(p.model.coordinate_names):
                peak = self.err[k][j]
                c = Check("torques", f"{name}_{joint}: given vs computed", "pass", peak.value,
                          float(peak.value / scale), rtol, method=method, worst_joint=joint,
                          worst_sample=peak.sample, worst_time=peak.time)
                c.status = verdict(c.max_rel, rtol)
                if c.status == "fail":
                    assert self.dots is not None
                    c.detail = (f"the given {name}_{joint} differs from the computed one by "
                                f"{c.max_rel:.3g} of the largest {name} near "
                                + (f"t = {c.worst_time:.6g} s" if c.worst_time is not None
                                   else f"sample {c.worst_sample}")
                                + _sign_hint(*self.dots[k, :, j]))
                checks.append(c)
        return checks


def _sign_hint(cross: float, denom: float) -> str:
    """Name a flipped sign when the given values are the computed ones negated (within 2
    %): ``cross`` = given . computed, ``denom`` = computed . computed over the samples."""
    if denom > 0 and abs(float(cross) / denom + 1) < 0.02:
        return "; the given values look like the computed ones negated (a sign convention?)"
    return ""


# -- contacts --------------------------------------------------------------------------------


class Contacts:
    """On contacts (module docstring): nothing left on the base where the active contacts can
    take any wrench, the couple left where they cannot, the active contacts at rest; the
    robot under its free root joint."""

    def __init__(self, parts: Parts):
        self.parts = parts
        self.points = np.array([c.kind == "point" for c in parts.contacts])
        self.left = {"full": Peak(), "couple": Peak()}
        self.any = {"full": False, "couple": False}
        self.speed, self.scale, self.motion = Peak(), 1e-300, 1e-300

    def add(self, block: Block) -> None:
        from hodyn_cli.algorithms.contacts.jacobians import contact_jacobian

        p, part = self.parts, block.center
        model, contacts = p.model, p.contacts
        r = on_contacts(model, part, contacts, order=0, gravity=p.gravity)
        F0 = fixed_base_dynamics(model, part, order=0, gravity=p.gravity)[:, 0, :6]   # -W
        some_points = r.active & self.points
        full = (r.active & ~self.points).any(axis=1) | (some_points.sum(axis=1) >= 3)
        nu = part.derivatives[:, 1]   # (V_0; qd): the free root joint's velocity first
        speed = np.zeros((part.n_samples, len(contacts)))
        for i, contact in enumerate(contacts):
            J = contact_jacobian(model, part, contact, 0)[:, 0]
            v = np.einsum("nij,nj->ni", J, nu)
            speed[:, i] = np.where(r.active[:, i], np.linalg.norm(v[:, -3:], axis=1), 0.0)
        left = np.abs(r.W[:, 0]).max(axis=1)
        self.scale = max(self.scale, float(np.abs(F0).max(axis=1).max()))
        for key, rows in (("full", full), ("couple", ~full & r.active.any(axis=1))):
            self.any[key] = self.any[key] or bool(rows.any())
            self.left[key].add(np.where(rows, left, 0.0)[:, None], block.idx, block.t)
        self.speed.add(speed, block.idx, block.t)
        self.motion = max(self.motion, float(np.abs(part.derivatives[:, 1]).max()))

    def finish(self) -> None:
        pass

    def checks(self) -> list[Check]:
        p = self.parts
        rtol, model = p.tolerances.cross, p.model
        checks = []
        for key, what, status in (("full", "nothing left on the base where they take any "
                                   "wrench", "fail"), ("couple", "the couple one or two points "
                                                       "leave on the base", "warn")):
            if not self.any[key]:
                continue
            peak = self.left[key]
            rel = float(peak.value / self.scale)
            c = Check("contacts", what, "pass" if rel <= rtol else status, peak.value, rel, rtol,
                      detail="the base wrench left over, relative to the base wrench",
                      **peak.at(model, names=["base wrench"]))
            if status == "warn" and c.status == "warn":
                c.detail = "the motion does not fit its contacts there (a moment they cannot take)"
            checks.append(c)
        rel = float(self.speed.value / self.motion)
        checks.append(Check(
            "contacts", "active contacts at rest (point velocity, m/s)",
            "pass" if rel <= rtol else "warn", self.speed.value, rel, rtol,
            detail="an active contact that moves slides or lifts: the flags or the motion are "
                   "off", **self.speed.at(model, names=[c.name for c in p.contacts])))
        return checks
