"""Prove the numbers: finite differences, cross-method agreement, input consistency, model sanity.

:func:`validate` runs every check on a model and a trajectory and returns a
:class:`Report`; :mod:`hodyn_cli.pipeline.report` renders it (JSON, Markdown, HTML). The checks:

1. **finite differences** (per method, per order k = 1..K): at each checked sample the
   given ``q, qd, ..., q^(D-1)`` define the Taylor polynomial ``q(s + h)`` whose derivatives
   match the sample exactly; tau^(k-1) is evaluated along it at ``h = -8..8`` steps and
   differentiated with the 8th-order central stencil. Independent of the file's sampling.
   The step is chosen from the data's time scale (``h = 0.01 / omega``, omega the largest
   ratio ``|q^(j+1)| / |q^(j)|``; torques carry sums of the joints' frequencies, so the
   factor is small; the step shrinks by 4 while the estimate exceeds a tenth of the
   tolerance), and the expected error of the numerical derivative is
   estimated from the data: Richardson (stencil at h vs 2h, ``|D_h - D_2h| / 255``) plus a
   rounding bound ``eps * sum|c| * |tau^(k-1)| / h``.
2. **sampled differences** (needs ``t``): the computed tau^(k) against central differences
   of tau^(k-1) over the file's own samples. Limited by the sampling rate, so it only warns.
3. **cross-method**: every available method against every other, per order.
4. **data consistency** (needs ``t``): ``q^(k)`` against differences of ``q^(k-1)`` (the
   trapezoid rule between neighbouring samples), and joint values within the URDF limits.
   This catches derivatives in the wrong units or from another trajectory, which are the
   usual cause of wrong torques, and degrees given for radians.
5. **model**: M(q) symmetric positive definite at the checked samples, ``M' = Cbar + Cbar^T``
   (the skew property of eq. (54)), and the URDF's warnings.

Default tolerances (relative to the largest magnitude of the checked quantity; the
reasoning is in :class:`Tolerances`) make each check fail on an error well below 1e-6
relative, while the estimated numerical error stays orders of magnitude below them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from itertools import combinations
from math import factorial

import numpy as np

from hodyn_cli.algorithms.methods import GRAVITY, METHODS, inverse_dynamics
from hodyn_cli.algorithms.methods.closed_form import matrices
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches, derivative_name
from hodyn_cli.errors import HodynError

__all__ = ["Tolerances", "Check", "Report", "validate", "STENCIL"]

#: 8th-order central first-derivative stencil at offsets -4..4
STENCIL = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0.0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])
EPS = np.finfo(float).eps
STEP_FACTOR = 0.01  # h * omega


@dataclass(frozen=True)
class Tolerances:
    """Relative tolerances (error / largest magnitude of the checked quantity).

    - ``fd`` 1e-8: the Taylor-polynomial finite difference is exact to ~1e-12 relative
      (8th order, step from the data; the report prints the estimate next to each error),
      so 1e-8 leaves 1e4 of margin and still fails a 1e-6 relative error in a method.
    - ``cross`` 1e-10: independent O(n) recursions and the closed form agree to ~1e-14
      (observed on every bundled robot up to order 4); 1e-10 absorbs ill-scaled models.
    - ``data`` 1e-3: the trapezoid rule between samples is exact to ``dt^2 omega^2 / 12``
      (1e-4 relative for omega = 3 rad/s at 100 Hz); each check also allows 10x its own
      estimate. Wrong units or foreign columns err by O(1).
    - ``sampled`` 1e-2: central differences of the output over the file's samples; a
      sanity check limited by the sampling rate, it warns only.
    - ``structure`` 1e-10: symmetry of M and ``M' = Cbar + Cbar^T`` hold to rounding.
    """

    fd: float = 1e-8
    cross: float = 1e-10
    data: float = 1e-3
    sampled: float = 1e-2
    structure: float = 1e-10


@dataclass
class Check:
    """One check's outcome. ``status``: pass, fail, warn (does not fail the run) or skip."""

    group: str
    name: str
    status: str
    max_abs: float | None = None
    max_rel: float | None = None
    tolerance: float | None = None
    expected: float | None = None
    worst_joint: str | None = None
    worst_sample: int | None = None
    worst_time: float | None = None
    method: str | None = None
    detail: str = ""


@dataclass
class Report:
    """Everything :func:`validate` found, plus the series the report plots."""

    robot: str
    urdf_sha256: str
    trajectory: str
    n_samples: int
    checked_samples: list[int]
    order: int
    methods: list[str]
    step: float
    tolerances: Tolerances
    checks: list[Check] = field(default_factory=list)
    series: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not any(c.status == "fail" for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.status == "fail"]

    def summary(self) -> dict:
        """Counts per status."""
        out = {s: 0 for s in ("pass", "fail", "warn", "skip", "estimated")}
        for c in self.checks:
            out[c.status] += 1
        return out

    def to_dict(self) -> dict:
        """JSON-ready dict with stable keys (schema: ``hodyn_cli/schemas/report.schema.json``)."""
        return {
            "schema": "hodyn-validation-report/1",
            "passed": self.passed,
            "summary": self.summary(),
            "robot": self.robot,
            "urdf_sha256": self.urdf_sha256,
            "trajectory": self.trajectory,
            "n_samples": self.n_samples,
            "n_checked": len(self.checked_samples),
            "order": self.order,
            "methods": self.methods,
            "step": self.step,
            "tolerances": asdict(self.tolerances),
            "checks": [asdict(c) for c in self.checks],
        }


def validate(model: Model, trajectory: Trajectory, *, methods: list[str] | None = None,
             samples: int | None = 1000, tolerances: Tolerances = Tolerances(),
             gravity=GRAVITY, source: str = "", estimated: tuple[str, ...] = (),
             warnings: tuple[str, ...] = ()) -> Report:
    """Run all checks; ``samples``: how many evenly spread samples the torque checks use
    (None or 0: all). ``estimated``: derivative names (``qdd``, ...) hodyn estimated from
    the data: their consistency checks hold by construction and are reported as
    ``estimated``, not as passed. ``warnings``: what reading the input warned about (e.g. a
    column that looks like a typo), counted as ``warn`` checks of group ``input``.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> from hodyn_cli.core.trajectory import cosine
    >>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> traj = cosine(model.joint_names, np.linspace(0, 2, 201), amplitude=[0.8, 1.2],
    ...               omega=[1.3, 2.1], orders=5)
    >>> report = validate(model, traj, samples=20)
    >>> report.passed, report.summary()["fail"]
    (True, 0)
    >>> [c.name for c in report.checks if c.group == "data consistency"][0]
    'qd vs time differences of q'
    """
    methods = list(METHODS) if not methods else methods
    for m in methods:
        if m not in METHODS:
            raise HodynError(f"unknown method '{m}' (choose from {', '.join(METHODS)})")
    D = trajectory.orders
    if D < 4:
        raise HodynError("validation needs at least q, qd, qdd, qddd (to check taud)", source)
    order = min(D - 3, 2)
    N = trajectory.n_samples
    idx = _spread(N, samples)
    h = _step(trajectory.derivatives[idx])
    report = Report(model.name, model.source_sha256, source, N, idx.tolist(), order, list(methods),
                    h, tolerances)
    center = _subset(trajectory, idx)
    report.series["t"] = None if trajectory.t is None else trajectory.t[idx]
    report.series["joint_names"] = list(model.joint_names)
    results = {m: inverse_dynamics(model, center, method=m, order=order, gravity=gravity)
               for m in methods}
    for m in methods:
        for _ in range(4):  # shrink the step while the estimated error is not well below tol
            fd = finite_difference_checks(model, center, m, order, h, results[m], gravity,
                                          tolerances.fd, report.series, idx, trajectory.t)
            if all(c.expected <= tolerances.fd / 10 for c in fd) or h < 1e-6:
                break
            h /= 4
        report.step = h
        report.checks += fd
    report.checks += cross_method_checks(model, results, tolerances.cross, idx, trajectory.t)
    if trajectory.t is not None:
        report.checks += sampled_difference_checks(model, trajectory, methods[0], order, idx,
                                                   gravity, tolerances.sampled, report.series)
        for c in data_consistency_checks(model, trajectory, tolerances.data):
            if c.name.split(" ")[0] in estimated and c.status == "pass":
                c.status = "estimated"
                c.detail = ("estimated by hodyn from the data (--estimate-derivatives): "
                            "consistent by construction, not evidence")
            report.checks.append(c)
    else:
        report.checks.append(Check("data consistency", "derivatives vs differences of q", "skip",
                                   detail="the trajectory has no t column"))
    report.checks += [Check("input", text, "warn") for text in warnings]
    report.checks += limit_checks(model, trajectory)
    report.checks += model_checks(model, center, tolerances.structure, gravity, idx, trajectory.t)
    return report


# -- helpers ---------------------------------------------------------------------------------


def _spread(N: int, samples: int | None) -> np.ndarray:
    if not samples or samples >= N:
        return np.arange(N)
    return np.unique(np.linspace(0, N - 1, samples).round().astype(int))


def _subset(trajectory: Trajectory, idx: np.ndarray) -> Trajectory:
    W = trajectory.wrenches
    sub = None if W is None else Wrenches({k: v[idx] for k, v in W.W.items()})
    return Trajectory(trajectory.joint_names, trajectory.derivatives[idx],
                      None if trajectory.t is None else trajectory.t[idx], sub)


def _frequency(x: np.ndarray) -> float:
    """The data's fastest time scale: the largest ratio |x^(k+1)| / |x^(k)| (k >= 1), 1/s."""
    mags = np.abs(x[:, 1:]).max(axis=0)  # (D-1, m): |xd|, |xdd|, ...
    ratios = mags[1:] / np.where(mags[:-1] > 0, mags[:-1], np.inf)
    return float(ratios.max()) if ratios.size else 0.0


def _step(qs: np.ndarray) -> float:
    """Finite-difference step from the data's time scale: 0.01 / omega (clipped)."""
    omega = _frequency(qs)
    return float(np.clip(STEP_FACTOR / omega, 1e-5, 1.0)) if omega > 0 else 0.01


def _taylor(x: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Derivatives of the Taylor polynomials of x (N, D, ...) at offsets (S,): (N, S, D, ...)."""
    D = x.shape[1]
    out = np.zeros((x.shape[0], len(offsets)) + x.shape[1:])
    for m in range(D):
        for j in range(m, D):
            c = (offsets ** (j - m) / factorial(j - m)).reshape((1, -1) + (1,) * (x.ndim - 2))
            out[:, :, m] += c * x[:, None, j]
    return out


def _worst(err: np.ndarray, model: Model, idx, t) -> dict:
    """Joint, sample and time of the largest entry of err (M, n)."""
    s, j = np.unravel_index(int(np.argmax(err)), err.shape)
    sample = int(idx[s])
    return {"worst_joint": model.joint_names[j], "worst_sample": sample,
            "worst_time": None if t is None else float(t[sample])}


def _verdict(max_rel: float, tol: float) -> str:
    return "pass" if max_rel <= tol else "fail"


# -- 1. finite differences along the local Taylor motion -------------------------------------


def finite_difference_checks(model, center: Trajectory, method: str, order: int, h: float,
                             analytic: np.ndarray, gravity, rtol: float, series: dict, idx, t
                             ) -> list[Check]:
    """Analytic tau^(k) vs the 8th-order stencil of tau^(k-1) along the Taylor motion."""
    offsets = np.arange(-8, 9) * h
    qs = _taylor(center.derivatives, offsets)                      # (M, 17, D, n)
    M, S = qs.shape[:2]
    W = None
    if center.wrenches is not None:
        W = Wrenches({k: _taylor(v, offsets).reshape(M * S, *v.shape[1:])
                      for k, v in center.wrenches.W.items()})
    local = Trajectory(center.joint_names, qs.reshape(M * S, *qs.shape[2:]), None, W)
    tau = inverse_dynamics(model, local, method=method, order=order - 1, gravity=gravity)
    tau = tau.reshape(M, S, order, model.n)
    checks = []
    for k in range(1, order + 1):
        f = tau[:, :, k - 1]                                        # (M, 17, n)
        d_h = np.einsum("s,msj->mj", STENCIL, f[:, 4:13]) / h
        d_2h = np.einsum("s,msj->mj", STENCIL, f[:, ::2]) / (2 * h)
        a = analytic[:, k]
        err = np.abs(a - d_h)
        scale = max(float(np.abs(a).max()), 1e-300)
        expected = (np.abs(d_h - d_2h) / 255 + EPS * np.abs(STENCIL).sum() * np.abs(f).max(1) / h)
        exp_rel = float(expected.max() / scale)
        tol = max(rtol, 10 * exp_rel)
        name = derivative_name("tau", k)
        checks.append(Check(
            "finite differences", f"{name} vs d/dt {derivative_name('tau', k - 1)}", "pass",
            float(err.max()), float(err.max() / scale), tol, exp_rel, method=method,
            detail=f"8th-order stencil along the local Taylor motion, h = {h:.3g} s",
            **_worst(err, model, idx, t)))
        checks[-1].status = _verdict(checks[-1].max_rel, tol)
        series.setdefault(method, {})[name] = {"analytic": a, "numeric": d_h}
    return checks


# -- 2. sampled differences of the output ----------------------------------------------------


def sampled_difference_checks(model, trajectory: Trajectory, method: str, order: int, idx,
                              gravity, rtol: float, series: dict) -> list[Check]:
    """tau^(k) vs central differences of tau^(k-1) over the file's samples (warn only)."""
    N, t = trajectory.n_samples, trajectory.t
    inner = idx[(idx > 0) & (idx < N - 1)]
    if inner.size == 0:
        return [Check("sampled differences", "output vs time differences", "skip",
                      detail="needs samples with neighbours on both sides")]
    around = np.concatenate([inner - 1, inner, inner + 1])
    res = inverse_dynamics(model, _subset(trajectory, around), method=method, order=order,
                           gravity=gravity)
    prev, mid, nxt = np.split(res, 3)
    tm, t0, tp = t[inner - 1], t[inner], t[inner + 1]
    checks = []
    for k in range(1, order + 1):
        # 3-point derivative on a non-uniform grid (second order)
        a_, b_ = (t0 - tm)[:, None], (tp - t0)[:, None]
        numeric = (-(b_ / (a_ * (a_ + b_))) * prev[:, k - 1] + ((b_ - a_) / (a_ * b_)) * mid[:, k - 1]
                   + (a_ / (b_ * (a_ + b_))) * nxt[:, k - 1])
        analytic = mid[:, k]
        err = np.abs(analytic - numeric)
        scale = max(float(np.abs(analytic).max()), 1e-300)
        dt = float(np.max(tp - tm) / 2)
        # truncation dt^2/6 |tau^(k+2)|, estimated as |tau^(k+1)| omega (|tau^(k)| omega^2
        # when tau^(k+1) was not computed), omega the data's fastest time scale
        omega = _frequency(trajectory.derivatives)
        rate = np.abs(mid[:, k + 1]).max() if k + 1 <= order else scale * omega
        exp_rel = float(dt**2 / 6 * rate * omega / scale)
        tol = max(rtol, 10 * exp_rel)
        name = derivative_name("tau", k)
        c = Check("sampled differences", f"{name} vs time differences of {derivative_name('tau', k - 1)}",
                  "pass", float(err.max()), float(err.max() / scale), tol, exp_rel, method=method,
                  detail=f"limited by the sampling rate (dt = {dt:.3g} s); warns only",
                  **_worst(err, model, inner, t))
        c.status = "pass" if c.max_rel <= tol else "warn"
        checks.append(c)
        series.setdefault("sampled", {})[name] = {"t": t0, "numeric": numeric, "analytic": analytic}
    return checks


# -- 3. cross-method agreement ---------------------------------------------------------------


def cross_method_checks(model, results: dict[str, np.ndarray], rtol: float, idx, t) -> list[Check]:
    checks = []
    for a, b in combinations(results, 2):
        for k in range(results[a].shape[1]):
            ra, rb = results[a][:, k], results[b][:, k]
            err = np.abs(ra - rb)
            scale = max(float(np.abs(ra).max()), 1e-300)
            c = Check("cross-method", f"{derivative_name('tau', k)}: {a} vs {b}", "pass",
                      float(err.max()), float(err.max() / scale), rtol, method=f"{a},{b}",
                      **_worst(err, model, idx, t))
            c.status = _verdict(c.max_rel, rtol)
            checks.append(c)
    return checks


# -- 4. data consistency ---------------------------------------------------------------------


def data_consistency_checks(model, trajectory: Trajectory, rtol: float) -> list[Check]:
    """q^(k) vs trapezoid-rule differences of q^(k-1) for every joint and order, and the
    same for the derivatives of every external wrench."""
    checks = _consistency(unwrapped(model, trajectory.derivatives), trajectory.t, rtol, "q",
                          [f"_{j}" for j in model.joint_names])
    if trajectory.wrenches is not None:
        for link, W in trajectory.wrenches.W.items():
            checks += _consistency(W, trajectory.t, rtol, "W",
                                   [f"_{link}_{c}" for c in ("mx", "my", "mz", "fx", "fy", "fz")])
    return checks


def unwrapped(model, derivatives: np.ndarray) -> np.ndarray:
    """q of continuous joints made continuous in time (files often wrap them into (-pi, pi]);
    the other joints and every derivative as they are."""
    wrap = np.array([t == "continuous" for t in model.joint_types])
    if not wrap.any():
        return derivatives
    out = derivatives.copy()
    out[:, 0, wrap] = np.unwrap(out[:, 0, wrap], axis=0)
    return out


def _consistency(x: np.ndarray, t: np.ndarray, rtol: float, base: str, columns: list[str]
                 ) -> list[Check]:
    """x (N, D, m): derivative k against the trapezoid rule on derivative k-1, k = 1..D-1."""
    dt = np.diff(t)[:, None]
    omega = _frequency(x)
    checks = []
    for k in range(1, x.shape[1]):
        numeric = np.diff(x[:, k - 1], axis=0) / dt                # mean of x^(k) over each step
        analytic = (x[:-1, k] + x[1:, k]) / 2
        err = np.abs(numeric - analytic)                           # (N-1, m)
        scale = np.abs(x[:, k]).max(axis=0)
        scale = np.maximum(scale, 1e-9 * max(scale.max(), 1e-300) + 1e-300)
        rel = err / scale
        # trapezoid error dt^2/12 |x^(k+2)|: from the data when it has that order, else estimated
        higher = np.abs(x[:, k + 2]).max(axis=0) if k + 2 < x.shape[1] else scale * omega**2
        expected = float((dt.max() ** 2 / 12 * higher / scale).max())
        tol = max(rtol, 10 * expected)
        s, j = np.unravel_index(int(np.argmax(rel)), rel.shape)
        name, prev = derivative_name(base, k), derivative_name(base, k - 1)
        c = Check("data consistency", f"{name} vs time differences of {prev}", "pass",
                  float(err.max()), float(rel.max()), tol, expected,
                  worst_joint=columns[j][1:], worst_sample=int(s), worst_time=float(t[s]))
        if c.max_rel > tol:
            c.status = "fail"
            hint = _unit_hint(numeric[:, j], analytic[:, j]) or FIX_HINT
            c.detail = (f"{name}{columns[j]} does not match the time differences of "
                        f"{prev}{columns[j]} (relative error {c.max_rel:.3g} near "
                        f"t = {t[s]:.6g} s){hint}")
        checks.append(c)
    return checks


#: what to do when a file's derivative columns do not follow from its positions
FIX_HINT = ("; to derive them from the positions instead, drop those columns and run hodyn "
            "compute (or kinematics, matrices) with --estimate-derivatives, adding --cutoff HZ "
            "for measured, noisy data")


def _unit_hint(numeric: np.ndarray, analytic: np.ndarray) -> str:
    """Name a degrees/radians mix-up when the two differ by that factor."""
    denom = float(analytic @ analytic)
    if denom == 0:
        return ""
    ratio = float(numeric @ analytic) / denom
    for factor, text in ((180 / np.pi, "values look like degrees, derivatives like radians"),
                         (np.pi / 180, "derivatives look like degrees, values like radians")):
        if abs(ratio / factor - 1) < 0.02:
            return f"; ratio {ratio:.4g}: {text}"
    return ""


def limit_checks(model: Model, trajectory: Trajectory) -> list[Check]:
    """Joint values within the URDF's position limits."""
    q = trajectory.q
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    over = np.maximum(q - hi, lo - q)                              # > 0 outside
    if not np.isfinite(model.limits).any():
        return [Check("data consistency", "q within URDF limits", "skip",
                      detail="the URDF gives no position limits")]
    s, j = np.unravel_index(int(np.argmax(over)), over.shape)
    c = Check("data consistency", "q within URDF limits", "pass", float(max(over.max(), 0.0)),
              worst_joint=model.joint_names[j], worst_sample=int(s),
              worst_time=None if trajectory.t is None else float(trajectory.t[s]))
    if over[s, j] <= 0:
        c.max_abs = None
        c.detail = (f"closest to a limit: q_{model.joint_names[j]} = {q[s, j]:.6g}, "
                    f"{-over[s, j]:.3g} inside [{lo[j]:.6g}, {hi[j]:.6g}]")
    else:
        c.status = "fail"
        hint = ""
        if model.joint_types[j] != "prismatic" and lo[j] <= np.radians(q[s, j]) <= hi[j]:
            hint = "; in radians it would be inside: degrees given instead of radians?"
        c.detail = (f"q_{model.joint_names[j]} = {q[s, j]:.6g} is outside its limits "
                    f"[{lo[j]:.6g}, {hi[j]:.6g}] at sample {s}{hint}")
    return [c]


# -- 5. model sanity -------------------------------------------------------------------------


def model_checks(model: Model, center: Trajectory, rtol: float, gravity, idx, t) -> list[Check]:
    checks = [Check("model", f"URDF: {d.message}", "warn") for d in model.diagnostics
              if d.level == "warning"]
    E = matrices(model, center, order=1, gravity=gravity)
    M, Md, Cb = E.M[:, 0], E.M[:, 1], E.Cbar[:, 0]
    scale = max(float(np.abs(M).max()), 1e-300)
    asym = np.abs(M - np.swapaxes(M, 1, 2)).max(axis=2)
    c = Check("model", "M symmetric", "pass", float(asym.max()), float(asym.max() / scale), rtol,
              **_worst(asym, model, idx, t))
    c.status = _verdict(c.max_rel, rtol)
    checks.append(c)
    lam = np.linalg.eigvalsh((M + np.swapaxes(M, 1, 2)) / 2)
    s = int(np.argmin(lam[:, 0]))
    c = Check("model", "M positive definite", "pass", float(lam[:, 0].min()), worst_sample=int(idx[s]),
              worst_time=None if t is None else float(t[idx[s]]),
              detail=f"smallest eigenvalue {lam[:, 0].min():.4g}, largest condition number "
                     f"{(lam[:, -1] / np.maximum(lam[:, 0], 1e-300)).max():.4g}")
    c.status = "pass" if lam[:, 0].min() > 0 else "fail"
    checks.append(c)
    skew = np.abs(Md - Cb - np.swapaxes(Cb, 1, 2)).max(axis=2)
    dscale = max(float(np.abs(Md).max()), 1e-300)
    c = Check("model", "M' = Cbar + Cbar^T (M' - 2 Cbar skew)", "pass", float(skew.max()),
              float(skew.max() / dscale), rtol, **_worst(skew, model, idx, t))
    c.status = _verdict(c.max_rel, rtol)
    checks.append(c)
    return checks
