"""Dynamic parameters, the regressor and its time derivatives, base parameters.

Parameters (Garofalo, Ott & Albu-Schaeffer, eq. (13)): 10 per moving body (after fixed-joint
lumping), in the body (URDF link) frame about its origin, in Pinocchio's order::

    pi_b = (m, m c_x, m c_y, m c_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz)

with ``I`` the rotational inertia about the body frame origin. The body inertia is linear in
them, ``M_b = sum_p pi_b,p E_p``, and so is body b's Newton-Euler wrench (eq. (13)):
``F_b = M_b V_b' - ad*_{V_b} M_b V_b = A_b pi_b`` with column p of ``A_b`` the wrench of
``E_p`` alone. The torques are the wrenches' powers on the joint screws, ``tau = sum_b J_b^T
F_b`` (``J_b`` the body Jacobian of b in its own frame), so one recursion gives the whole
regressor and, by the Leibniz rule, its time derivatives::

    A_b^(k)[:, p] = E_p V_b^(k+1) - sum_j C(k, j) ad*_{V_b^(j)} E_p V_b^(k-j)
    Y^(k)[:, 10 b + p] = sum_j C(k, j) J_b^(j)T A_b^(k-j)[:, p]
    tau^(k) = Y^(k) pi + J^T W   (external wrenches do not depend on pi: Y excludes them)

A floating root (``trajectory.base``) is the robot under its free root joint
(:func:`hodyn_cli.algorithms.dynamics.floating.free_root`): body 0 with ``S_0 = I``, the root's
own 10 parameters first, and the same sum over bodies gives the 6 + n rows ``(F_0; tau)``
(``F_0`` the supports' wrench on the root, the free joint's tau); the first 6 rows are
negated to give the base wrench ``W_base = -F_0`` (moment; force, root frame), so
``Y^(k) pi = (W_base^(k); tau^(k))`` as ``compute --floating-base --base-wrench`` writes them.
The compiled backend runs that model by its floating-base kernel (the root's jet in the
free-falling frame, :mod:`hodyn_cli.algorithms.backends.free_root`).

Gravity enters as the base acceleration, as in the inverse dynamics. The compiled kernel
(``csrc/regressor.c``) computes Y; :func:`regressor_numpy` is its readable reference. The
Slotine-Li regressor (Remark 4, eqs. (15), (16)) is
``Y_r pi = M(q) qdd_r + Cbar(q, qd) qd_r + g(q)`` with the closed-form ``Cbar`` of Mueller &
Kumar's eq. (54) (``M_d - 2 Cbar`` is skew-symmetric, as adaptive control needs), by the same
recursion with the reference twists ``V_r = J qd_r`` and ``beta = J qdd_r + J' qd_r + u``
(``u`` the gravity acceleration)::

    V_r,b = Ad V_r,p + X_b qd_r,b
    beta_b = Ad beta_p + X_b qdd_r,b - qd_b [X_b, Ad V_r,p],   beta_root = (0; -g)
    F_b = M_b (beta_b + [V_b, V_r,b]) - ad*_{V_b} M_b V_r,b

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
>>> pi = parameters(model)
>>> pi.shape, float(pi[0]), parameter_names(model)[:2]
((20,), 1.2, ['m_link1', 'mcx_link1'])
>>> from hodyn_cli.algorithms.backends.numpy.regressor import inertia_from_parameters
>>> bool(np.allclose(inertia_from_parameters(pi[:10]), model.inertias[0]))
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.closed_form import jacobians
from hodyn_cli.algorithms.backends.numpy.common import relative_adjoint
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData
from hodyn_cli.algorithms.backends.numpy.regressor import UNIT_INERTIAS
from hodyn_cli.algorithms.dynamics import floating
from hodyn_cli.algorithms.dynamics.common import GRAVITY, chunks, solve_in_chunks
from hodyn_cli.core import lie
from hodyn_cli.core.coupling import Coupling
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import BaseMotion, Trajectory, derivative_name

__all__ = ["PARAMETERS", "parameters", "parameter_names", "regressor", "base_wrench_rows", "project_rows",
           "slotine_li_regressor", "BaseParameters", "base_parameters"]

PARAMETERS = ("m", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz")

#: what is left of a regressor column after the base columns before it, below this fraction
#: of its size: it depends on them (on the robots of tests/test_base_parameters.py, 0.06 or
#: more, else 2e-9 or less)
BASE_RTOL = 1e-8


def parameters(model: Model, root: bool = False) -> np.ndarray:
    """(10 nb,) dynamic parameters of every moving body, in body order (``root``: the root
    link's 10 first, for a floating base)."""
    M = np.concatenate([model.root_inertia[None], model.inertias]) if root else model.inertias
    theta = M[:, :3, :3]
    return np.stack([M[:, 3, 3], M[:, 2, 4], M[:, 0, 5], M[:, 1, 3],
                     theta[:, 0, 0], theta[:, 0, 1], theta[:, 1, 1],
                     theta[:, 0, 2], theta[:, 1, 2], theta[:, 2, 2]], axis=1).reshape(-1)


def parameter_names(model: Model, root: bool = False) -> list[str]:
    """``<parameter>_<link>`` for every column of the regressor (``root``: the root link's
    first, for a floating base)."""
    links = ((model.root_link,) if root else ()) + model.link_names
    return [f"{p}_{link}" for link in links for p in PARAMETERS]


def _without_wrenches(trajectory: Trajectory) -> Trajectory:
    return replace(trajectory, wrenches=None, series=None)


def base_wrench_rows(model: Model, order: int = 0) -> tuple[str, ...]:
    """Names of a floating base's first 6 regressor rows: ``compute --base-wrench``'s columns
    ``W_<root>_mx, ..., W_<root>_fz`` (``order`` k: of its k-th derivative, ``Wd_<root>_mx``,
    ...)."""
    return tuple(f"{derivative_name('W', order)}_{model.root_link}_{c}"
                 for c in ("mx", "my", "mz", "fx", "fy", "fz"))


def project_rows(model: Model, Y: np.ndarray, trajectory: Trajectory | None = None
                 ) -> np.ndarray:
    """The regressor's joint rows (axis 2) over the independent joints, ``Y_a^(k) = sum_j
    C(k, j) G^(j)T Y^(k-j)`` (:meth:`hodyn_cli.core.coupling.Coupling.forces`: mimic
    joints' constant G; closed loops' G(q) along the joints' ``trajectory``, as their torques'
    ``tau_a = G^T tau``); a floating base's 6 base rows stay."""

    c = model.coupling
    if not c.active:
        return Y  # nothing to project: no copy of a chunk that may be hundreds of MB
    first = Y.shape[2] - model.nv  # 6 base-wrench rows of a floating base, else 0
    return np.concatenate([Y[:, :, :first], c.forces(Y[:, :, first:], trajectory, axis=2)],
                          axis=2)


def regressor(model: Model, trajectory: Trajectory, *, order: int = 2, gravity=GRAVITY,
              data: backends.Data | None = None) -> np.ndarray:
    """``Y^(k)``, k = 0..order: (N, order+1, nv, 10 nb) with ``tau^(k) = Y^(k) pi`` (+ J^T W),
    a row per velocity coordinate (a multi-DOF joint's ``S_i^T`` rows, :attr:`Model.dof_names`).

    A floating base (``trajectory.base``; gravity in the world frame): (N, order+1, 6+nv,
    10 (nb+1)) with ``Y^(k) pi = (W_base^(k); tau^(k))``, pi ``parameters(model, root=True)``."""
    traj = _without_wrenches(trajectory)
    if traj.base is not None:
        return _floating_regressor(model, traj, order, gravity, data)
    backend, data = backends.prepare(model, data)

    def per_chunk(qs, base, _):
        return backend.regressor(model, data, qs, base, order)

    return solve_in_chunks(model, traj, order, gravity, per_chunk, (model.nv, 10 * model.n),
                           backend.rows(256), joint_models=True)


def _floating_regressor(model: Model, trajectory: Trajectory, order: int, gravity,
                        data: backends.Data | None) -> np.ndarray:
    """:func:`regressor` of a floating base: the regressor of the robot under its free root
    joint (:func:`~hodyn_cli.algorithms.dynamics.floating.free_root`; body 0 the root, its
    parameters first), the free joint's rows negated (``W_base = -F_0``)."""
    free, motion, free_data = floating.free_root(model, trajectory, order, data)
    Y = regressor(free, motion, order=order, gravity=gravity, data=free_data)
    Y[:, :, :6] *= -1
    return Y


def slotine_li_regressor(model: Model, trajectory: Trajectory, qr_d: np.ndarray,
                         qr_dd: np.ndarray, *, gravity=GRAVITY) -> np.ndarray:
    """``Y_r`` (N, n, 10 nb): ``Y_r pi = M qr_dd + Cbar qr_d + g`` (Remark 4); ``qr_d``,
    ``qr_dd`` (N, n) the reference velocity and acceleration."""
    traj = _without_wrenches(trajectory)
    out = np.empty((traj.n_samples, model.n, 10 * model.n))
    data = ModelData(model)   # the numpy passes' constants: this recursion is numpy's alone
    for sl, qs, base, _ in chunks(model, traj, 0, gravity):
        out[sl] = _slotine_li_chunk(model, data, qs, base, qr_d[sl], qr_dd[sl])
    return out


def _slotine_li_chunk(model: Model, data: ModelData, qs: np.ndarray, base: np.ndarray,
                      qr_d: np.ndarray, qr_dd: np.ndarray) -> np.ndarray:
    """Y_r of one chunk by the recursion in the module docstring."""
    N, n = qs.shape[0], model.n
    J = jacobians(model, qs, 0, data=data)[0]
    V: list[np.ndarray] = []
    Vr: list[np.ndarray] = []
    beta: list[np.ndarray] = []
    Y = np.zeros((N, n, 10 * n))
    for i, p in enumerate(model.parent):
        Ad, X = relative_adjoint(model, data, i, qs[:, 0, i]), model.X[i]
        if p < 0:
            Vp, Vrp, bp = np.zeros((N, 6)), np.zeros((N, 6)), np.broadcast_to(base[:, 1], (N, 6))
        else:
            Vp, Vrp, bp = V[p], Vr[p], beta[p]
        AVr = _apply(Ad, Vrp)
        V.append(_apply(Ad, Vp) + qs[:, 1, i, None] * X)
        Vr.append(AVr + qr_d[:, i, None] * X)
        beta.append(_apply(Ad, bp) + qr_dd[:, i, None] * X
                    - qs[:, 1, i, None] * lie.bracket(X, AVr))
        alpha = beta[i] + lie.bracket(V[i], Vr[i])
        A = (np.einsum("nj,pij->npi", alpha, UNIT_INERTIAS)
             - lie.coad(V[i][:, None], np.einsum("nj,pij->npi", Vr[i], UNIT_INERTIAS)))
        Y[:, :, 10 * i : 10 * i + 10] = np.swapaxes(J[i][:, 0], 1, 2) @ np.swapaxes(A, 1, 2)
    return Y


def _apply(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return (A @ x[..., None])[..., 0]


@dataclass(frozen=True)
class BaseParameters:
    """A minimal set of identifiable parameter combinations.

    ``pi_base = base_map @ pi``; ``Y_base = Y[..., independent]`` satisfies
    ``Y pi = Y_base pi_base`` for every motion. ``names`` says what each one is.
    """

    independent: np.ndarray
    base_map: np.ndarray
    names: list[str]


def base_parameters(model: Model, *, samples: int = 200, seed: int = 0, gravity=GRAVITY,
                    rtol: float = BASE_RTOL,
                    extra: tuple[Callable[[Trajectory], np.ndarray], list[str]] | None = None,
                    floating_base: bool = False) -> BaseParameters:
    """The base parameters by QR with column pivoting of the regressor stacked over random
    configurations, velocities and accelerations (order 0 suffices: every derivative of
    ``Y pi`` has the same null space). ``extra``: more columns after Y's, ``(columns,
    names)`` with ``columns(trajectory) -> (N, 1, n, p)`` (the drives' parameters,
    :func:`hodyn_cli.algorithms.actuation.actuators.regressor_columns`). ``floating_base``: of the
    floating-base regressor (root parameters first), over random root orientations, twists
    and twist rates too. The rank: :func:`_independent_columns`."""

    rng = np.random.default_rng(seed)
    c = model.coupling  # random states of the independent joints (the others follow)
    qs = rng.normal(size=(samples, 3, len(c.coordinate_names)))  # per velocity coordinate
    qs[:, 0] = c.random_coordinates(rng, samples)
    # the coordinates that move along an axis in the robot's length unit, as the turning
    # ones' are in rad: the same states (in angles) at any size (their positions where the
    # coupling draws them as angles, +-pi; closed loops' are about their assembly already)
    unit, moving = length_unit(model), _moving(model, c.coordinate_names)
    qs[:, 1:, moving] *= unit
    if type(c).random_coordinates is Coupling.random_coordinates:
        qs[:, 0, moving] *= unit
    base = None
    if floating_base:
        R = np.linalg.qr(rng.normal(size=(samples, 3, 3)))[0]
        R[:, :, 0] *= np.sign(np.linalg.det(R))[:, None]  # proper rotations
        twists = rng.normal(size=(samples, 2, 6))
        twists[..., 3:] *= unit   # (the root's moving, (w, v): in the length unit too)
        base = BaseMotion(R, np.zeros((samples, 3)), twists)
    full = c.expand(Trajectory(model.coordinate_names, qs, base=base))
    Y = project_rows(model, regressor(model, full, order=0, gravity=gravity), full)
    if extra is not None:
        Y = np.concatenate([Y, extra[0](full)], axis=3)
    W = Y[:, 0].reshape(-1, Y.shape[-1])
    # chosen in units (the same columns at any size); K from W itself
    independent, dependent = _independent_columns(
        (Y[:, 0] * _unit_factors(model, floating_base, Y.shape[-1], unit)).reshape(W.shape)
        if unit != 1.0 else W, rtol)
    r = independent.size
    # W_dep = W_ind K (exact on the random samples); pi_base = pi_ind + K pi_dep
    K = np.linalg.lstsq(W[:, independent], W[:, dependent], rcond=None)[0]
    base_map = np.zeros((r, W.shape[1]))
    base_map[np.arange(r), independent] = 1.0
    base_map[:, dependent] = K
    names = parameter_names(model, floating_base) + (list(extra[1]) if extra is not None else [])
    labels = []
    for row in base_map:
        terms = [f"{c:+.6g} {names[j]}" if abs(c - 1) > 1e-12 else f"+{names[j]}"
                 for j, c in enumerate(row) if abs(c) > 1e-10]
        labels.append(" ".join(terms).lstrip("+"))
    order = np.argsort(independent)
    return BaseParameters(independent[order], base_map[order], [labels[i] for i in order])


def length_unit(model: Model) -> float:
    """The robot's length unit (m): the power of ten nearest the sum of its joints' offsets
    (1 where they are 0). Every bundled robot's is 1 m; the same robot written in mm (its
    lengths' numbers 1e3 times larger) has 1e3, so that :func:`base_parameters` sees it in
    numbers of the 1 m one.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> length_unit(load_model(Path(__file__).parents[3] / "urdf" / "gripper_arm.urdf"))
    1.0
    """
    reach = float(np.linalg.norm(model.B[:, :3, 3], axis=1).sum()) if model.n else 0.0
    return 10.0 ** round(np.log10(reach)) if reach > 0 else 1.0


def _moving(model: Model, names) -> np.ndarray:
    """(len(names),) bool: the velocity coordinates ``names`` that move along an axis without
    turning (prismatic joints; a planar or free joint's translations): their rates are in m
    (kg for their inertia, N for their rows), the others' in rad."""
    screws = np.concatenate([np.zeros((6, 0)), *model.subspaces], axis=1)  # (none: a free body)
    dof = {name: d for d, name in enumerate(model.dof_names)}
    return np.array([not screws[:3, dof[name]].any() for name in names], dtype=bool)


def _unit_factors(model: Model, floating_base: bool, columns: int, unit: float) -> np.ndarray:
    """(rows, columns) factors that put the regressor's rows and columns in the robot's
    length ``unit``: ``Y_jp`` is a row's unit (N m: length^2, N: length, per mass and
    time^-2) over a parameter's (m: 1, m c: length, I: length^2), so ``Y_jp unit^(b_p -
    a_j)`` is the same number for the robot in any unit. A drive's parameters (columns after
    the bodies') count as masses. The rows: a floating base's wrench (moments, forces), then
    the coordinates."""
    c = model.coupling
    rows = np.concatenate([np.repeat([False, True], 3) if floating_base else np.zeros(0, bool),
                           _moving(model, c.coordinate_names)])
    a = np.where(rows, 1.0, 2.0)
    body = np.array([0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0])
    bodies = model.n + floating_base
    b = np.concatenate([np.tile(body, bodies), np.zeros(columns - 10 * bodies)])
    return unit ** (b[None, :] - a[:, None])


def _independent_columns(W: np.ndarray, rtol: float) -> tuple[np.ndarray, np.ndarray]:
    """(independent, dependent) column indices of ``W`` (rows, p): QR with column pivoting of
    the columns scaled to a largest entry of 1, independent while ``|R_jj| > rtol |R_00|``.

    The scaling makes the test relative, what is left of a column after the ones chosen
    before it against its own size, so that units do not matter (a mass column is gravity
    times a length, an inertia column an acceleration). But it would blow a column of
    rounding noise up into a random vector independent of all the others (the iiwa's ``mcz``
    of link 2, zero in exact arithmetic, is ~2e-17 of the largest column here). So no column
    is scaled up beyond ``rtol / t`` times the largest's scaling, ``t = max(rows, p) eps``
    (numpy's ``matrix_rank`` tolerance; ~3e-13 at 200 samples of 7 joints): one of a
    largest entry under ``t / rtol`` of W's counts only if what is left of it is more than
    ~``t`` times the largest column's norm, above rounding. Real columns are far above that
    (they scale with lengths: an iiwa of micrometres keeps all its base parameters).
    """
    from scipy.linalg import qr

    size = np.abs(W).max(axis=0)
    floor = size.max() * max(W.shape) * np.finfo(float).eps / rtol
    _, R, perm = qr(W / np.maximum(size, floor), mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    r = int((diag > rtol * diag[0]).sum())  # |R_jj| decreases: the first r pass
    return perm[:r], perm[r:]
