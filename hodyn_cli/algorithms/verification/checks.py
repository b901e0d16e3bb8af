"""The pieces every check of :mod:`hodyn_cli.algorithms.verification.validate` and
:mod:`hodyn_cli.algorithms.verification.validate_drives` is made of: a :class:`Check`'s
outcome, the 8th-order stencil along a sample's local Taylor motion, the agreement of two
results. Their own module so that both checkers import it and neither the other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb

import numpy as np

from hodyn_cli.algorithms.dynamics.regressor import base_wrench_rows
from hodyn_cli.core import lie
from hodyn_cli.core.model import DOF_SUFFIXES, Model, joint_pose
from hodyn_cli.core.trajectory import Trajectory, Wrenches, taylor

__all__ = ["STENCIL", "STEP_FACTOR", "BLOCK", "Check", "block_rows", "blocked", "worst", "verdict",
           "local_motion", "local_pose", "stencil",
           "agreement_check", "Peak", "Stencils", "Agreement", "largest"]

#: 8th-order central first-derivative stencil at offsets -4..4
STENCIL = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0.0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])
EPS = np.finfo(float).eps
STEP_FACTOR = 0.01  # h * omega
#: entries of nv x nv matrices per block of checked samples (:func:`block_rows`): their
#: local Taylor motions (17 samples each), the closed form's matrices along them (~65 bytes
#: per entry and local sample, order 1: the compiled backend takes every sample in one
#: call) and the model checks' are made a block at a time, so that memory is bounded by a
#: block, not by the samples checked (``--samples 20000`` took 1.3 GB on the iiwa, 6 GB on
#: a floating quadruped); ~70 MB, 1337 samples of the iiwa. The drives' and loops' checks
#: (:mod:`~hodyn_cli.algorithms.verification.validate_drives`, ``validate_loops``) and the
#: contacts' take the same blocks.
BLOCK = 1 << 16


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

def worst(err: np.ndarray, model: Model, idx, t, columns=None, names=None) -> dict:
    """Joint, sample and time of the largest entry of err (M, m); ``idx``, ``t``: the sample
    numbers and times of err's rows; ``columns``: the joint of each column (default: all);
    ``names``: the columns' names (default: the joints, then a floating base's 6)."""
    s, j = np.unravel_index(int(np.argmax(err)), err.shape)
    return {"worst_joint": column_name(model, int(j), columns, names),
            "worst_sample": int(idx[s]), "worst_time": None if t is None else float(t[s])}


def column_name(model: Model, j: int, columns=None, names=None) -> str:
    """The name of column j of a check's array (``columns``, ``names``: as :func:`worst`)."""
    j = j if columns is None else columns[j]
    return (names or model.joint_names + base_wrench_rows(model))[j]

def block_rows(model: Model) -> int:
    """Checked samples per block: :data:`BLOCK` entries of the nv x nv matrices."""
    return max(1, BLOCK // model.nv**2)


def blocked(f: Callable[[slice], np.ndarray], n: int, rows: int, axis: int = 0) -> np.ndarray:
    """``f`` on the consecutive blocks of ``rows`` of ``n`` rows (a slice each), its arrays
    joined along ``axis``: a row's result is its own, whatever the block."""
    parts = [f(slice(a, a + rows)) for a in range(0, max(n, 1), rows)]
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis)


def verdict(max_rel: float | None, tol: float) -> str:
    """pass within the tolerance, else fail (also without a measure)."""
    return "pass" if max_rel is not None and max_rel <= tol else "fail"

def local_motion(center: Trajectory, h: float, model: Model | None = None) -> Trajectory:
    """The Taylor motion of each checked sample at the 17 offsets ``-8 h .. 8 h``: one
    trajectory of M * 17 samples (sample-major), wrenches likewise. A 1-DOF joint's q the
    Taylor polynomial of its derivatives; a multi-DOF joint of ``model`` (ball, planar,
    free: its rows k >= 1 are the derivatives of its velocity coordinates ``nu``, not of
    its configuration) moves on its group: ``nu`` the Taylor polynomial of the sample's
    rows, the configuration that of the pose ``nu`` turns and moves
    (:func:`local_configuration`)."""
    offsets = np.arange(-8, 9) * h
    qs = taylor(center.derivatives, offsets)                      # (M, 17, D, nv)
    M, S = qs.shape[:2]
    if model is not None and model.multi_dof:
        o = model.dof_offsets
        for i, kind in enumerate(model.joint_types):
            if kind in DOF_SUFFIXES:
                cols = slice(o[i], o[i + 1])
                qs[:, :, 0, cols] = local_configuration(model, i, center.derivatives[..., cols],
                                                        offsets)
    W = None
    if center.wrenches is not None:
        W = Wrenches({k: taylor(v, offsets).reshape(M * S, *v.shape[1:])
                      for k, v in center.wrenches.W.items()})
    flags = None if center.series is None else {  # each sample's active contacts held
        k: np.repeat(v, S) for k, v in center.series.items() if v.ndim == 1}
    return Trajectory(center.joint_names, qs.reshape(M * S, *qs.shape[2:]), None, W,
                      flags or None)


#: terms of the pose's Taylor series along the local motion: |omega| |offset| <= ~0.1
#: there (the step is 0.01 / omega), so the remainder is below 0.1^25 / 25!
ROTATION_TERMS = 25


def local_pose(R: np.ndarray, p: np.ndarray, V: np.ndarray, offsets: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """The pose ``(R, p)`` (M, S, 3, 3), (M, S, 3) at ``offsets`` (S,) from the poses R (M, 3,
    3), p (M, 3) moving with the body twist ``V = (omega; v)`` whose derivatives at the
    sample are V (M, K, 6) (its Taylor polynomial: the higher ones 0): ``R' = R
    skew(omega)``, ``p' = R v``, as the Taylor series ``R^(k+1) = sum_j C(k, j) R^(k-j)
    skew(omega^(j))``, ``p^(k+1) = sum_j C(k, j) R^(k-j) v^(j)`` (Leibniz)."""
    W = [lie.skew(V[:, j, :3]) for j in range(V.shape[1])]
    Rk, pk = [R], [p]                           # R^(k), p^(k) at the sample
    for k in range(ROTATION_TERMS - 1):
        js = range(min(k + 1, len(W)))
        Rk.append(sum(comb(k, j) * (Rk[k - j] @ W[j]) for j in js))
        pk.append(sum(comb(k, j) * np.einsum("nij,nj->ni", Rk[k - j], V[:, j, 3:]) for j in js))
    return (taylor(np.stack(Rk, axis=1), offsets, orders=1)[:, :, 0],
            taylor(np.stack(pk, axis=1), offsets, orders=1)[:, :, 0])


def local_configuration(model: Model, i: int, c: np.ndarray, offsets: np.ndarray
                        ) -> np.ndarray:
    """Multi-DOF joint i's configuration coordinates (M, S, nv_i) at ``offsets`` (S,) along
    the local motion of its rows c (M, D, nv_i) (row 0 its configuration, rows k >= 1
    ``nu^(k-1)``, docs/conventions.md): the pose :func:`local_pose` gives with the twist
    ``V = S_i nu``, read back in its coordinates: a ball joint's ``log R``, a free joint's
    ``(log R; p)``, a planar joint's ``(u . p, (n x u) . p, theta)`` (R = exp(theta
    skew(n)): theta the sample's plus ``n . log(R_0^T R)``, the angle turned since)."""
    kind, X = model.joint_types[i], model.X[i]
    R0, p0 = joint_pose(kind, X, c[:, 0])
    R, p = local_pose(R0, p0, c[:, 1:] @ model.subspaces[i].T, offsets)
    if kind == "planar":
        n, u = X[:3], X[3:]
        turned = lie.rotation_log(np.swapaxes(R0, 1, 2)[:, None] @ R) @ n
        return np.stack([p @ u, p @ np.cross(n, u), c[:, None, 0, 2] + turned], axis=-1)
    r = lie.rotation_log(R)
    return r if kind == "spherical" else np.concatenate([r, p], axis=-1)


def stencil(f: np.ndarray, h: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 8th-order central differences of f (M, 17, m) at the middle offset with steps h
    and 2h, and max |f| over the 17 offsets: each (M, m), a sample's own (so a caller can
    make them a block of samples at a time and :class:`Stencils` fold them)."""
    d_h = np.einsum("s,msj->mj", STENCIL, f[:, 4:13]) / h
    d_2h = np.einsum("s,msj->mj", STENCIL, f[:, ::2]) / (2 * h)
    return d_h, d_2h, np.abs(f).max(1)


def agreement_check(group: str, name: str, a: np.ndarray, b: np.ndarray, rtol: float,
                    model: Model, idx, t, method: str | None = None, columns=None,
                    names=None) -> Check:
    """a against b (M, m), relative to the largest |a| (``columns``, ``names``: as for
    :func:`worst`)."""
    fold = Agreement()
    fold.add(a, b, idx, t)
    return fold.check(group, name, rtol, model, method, columns, names)


# -- checks folded block by block ------------------------------------------------------------
# A check over every sample of a long file (``validate --samples 0``) sees its samples a
# block at a time: what it is made of (the largest error and where, the largest magnitude)
# is folded block by block, with the numbers np.max and np.argmax give over all of them at
# once (NaN first, the first of equal maxima), so that the checks are those of one block.


def largest(a: float, b: float) -> float:
    """max(a, b) as np.max over both: NaN if either is."""
    return a if a != a or a >= b else b


class Peak:
    """The largest entry of (M, m) arrays given a block of samples at a time, and where:
    its sample number, time and column (the first of equal ones, as np.argmax)."""

    def __init__(self) -> None:
        self.value = -np.inf
        self.sample, self.column = 0, 0
        self.time: float | None = None
        self.seen = False

    def add(self, err: np.ndarray, idx, t) -> None:
        """``idx``, ``t``: the sample numbers and times of err's rows (t None: none)."""
        if not err.size:
            return
        s, j = np.unravel_index(int(np.argmax(err)), err.shape)
        v = float(err[s, j])
        if not self.seen or (self.value == self.value and (v != v or v > self.value)):
            self.value, self.sample, self.column = v, int(idx[s]), int(j)
            self.time = None if t is None else float(t[s])
        self.seen = True

    def at(self, model: Model, columns=None, names=None) -> dict:
        """:func:`worst`'s fields."""
        return {"worst_joint": column_name(model, self.column, columns, names),
                "worst_sample": self.sample, "worst_time": self.time}


class Stencils:
    """``analytic`` against the 8th-order central differences :func:`stencil` gave, folded
    block by block (the step ``h``): the error's :class:`Peak`, the largest ``|analytic|``
    and the largest expected error (Richardson: the stencil at h against 2h, plus
    rounding)."""

    def __init__(self, h: float) -> None:
        self.h, self.err = h, Peak()
        self.scale = self.expected = -np.inf

    def add(self, d_h: np.ndarray, d_2h: np.ndarray, peak: np.ndarray, analytic: np.ndarray,
            idx, t) -> None:
        """A block's :func:`stencil` (M, m) each, the analytic derivative (M, m)."""
        self.err.add(np.abs(analytic - d_h), idx, t)
        self.scale = largest(self.scale, float(np.abs(analytic).max()))
        expected = (np.abs(d_h - d_2h) / 255 + EPS * np.abs(STENCIL).sum() * peak / self.h)
        self.expected = largest(self.expected, float(expected.max()))

    def check(self, group: str, name: str, prev: str, rtol: float, model: Model,
              method: str | None = None, columns=None, names=None) -> Check:
        scale = max(self.scale, 1e-300)
        exp_rel = float(self.expected / scale)
        tol = max(rtol, 10 * exp_rel)
        c = Check(group, f"{name} vs d/dt {prev}", "pass", self.err.value,
                  float(self.err.value / scale), tol, exp_rel, method=method,
                  detail=f"8th-order stencil along the local Taylor motion, h = {self.h:.3g} s",
                  **self.err.at(model, columns, names))
        c.status = verdict(c.max_rel, tol)
        return c


class Agreement:
    """:func:`agreement_check` folded block by block: the error's :class:`Peak` and the
    largest ``|a|``."""

    def __init__(self) -> None:
        self.err, self.scale = Peak(), -np.inf

    def add(self, a: np.ndarray, b: np.ndarray, idx, t) -> None:
        self.err.add(np.abs(a - b), idx, t)
        self.scale = largest(self.scale, float(np.abs(a).max()))

    def check(self, group: str, name: str, rtol: float, model: Model,
              method: str | None = None, columns=None, names=None) -> Check:
        scale = max(self.scale, 1e-300)
        c = Check(group, name, "pass", self.err.value, float(self.err.value / scale), rtol,
                  method=method, **self.err.at(model, columns, names))
        c.status = verdict(c.max_rel, rtol)
        return c
