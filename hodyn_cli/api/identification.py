"""Identification (``hodyn identify``): the robot's dynamic parameters from measured torques,
weighted least squares on the base parameters and the physically consistent full parameters
(:mod:`hodyn_cli.algorithms.identification`; docs/identification.md)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from hodyn_cli.api.regressor import (
    dynamic_regressor,
    regressor_basis,
    regressor_parameters,
    regressor_rows,
)
from hodyn_cli.api.results import capable
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name, rate_name
from hodyn_cli.errors import HodynError, TrajectoryError

__all__ = ["Identification", "identify", "predict_torques", "unidentified_drive_torques",
           "external_wrench_torques", "measured_rows", "NONNEGATIVE", "CHUNK"]

#: samples of regressor per chunk (7 joints x 113 parameters: ~26 MB)
CHUNK = 4096
#: drive parameters that cannot be negative (their names' prefixes)
NONNEGATIVE = ("rotor_inertia_", "viscous_", "coulomb_")
#: a parameter whose coefficients in every base parameter are at most this is in none (the
#: base parameters' names leave out such terms too)
UNSEEN = 1e-10
#: a base parameter whose standard error exceeds this fraction of its size is poorly excited
POORLY_EXCITED = 0.1


@dataclass(frozen=True)
class Identification:
    """What :func:`identify` found.

    ``names``, ``prior`` (P,): the parameters (10 per moving body, then with the drives'
    ``rotor_inertia_<joint>``, ``viscous_<joint>``, ...) and their URDF / drives file
    values; ``base``: the base parameters (``base.names``, ``base.base_map``);
    ``base_estimate``, ``standard_errors`` (r,), ``covariance`` (r, r): weighted least
    squares on them; ``noise``,
    ``residual_rms`` (m,): each row's (``joint_names``: the joints, after a floating base's
    six base wrench components) noise estimate sigma_j and the RMS of its residual;
    ``condition``: of the column-scaled weighted base regressor; ``samples``: used;
    ``parameters`` (P,): the physically consistent full estimate (every body's pseudo-inertia
    positive definite), ``converged``: whether its solver did; ``unconstrained`` (P,): the
    full parameters nearest the prior with the least-squares base parameters, no constraint;
    ``holdout_rms`` (m,) (None without held-out logs): the RMS error of the torques that
    ``parameters`` predict on the held-out logs, ``holdout_rms_base``: of the base estimate.
    ``bodies``: how many bodies have 10 parameters (a floating root's first).
    """

    names: list[str]
    prior: np.ndarray
    base: Any
    base_estimate: np.ndarray
    standard_errors: np.ndarray
    covariance: np.ndarray
    noise: np.ndarray
    residual_rms: np.ndarray
    condition: float
    samples: int
    parameters: np.ndarray
    converged: bool
    unconstrained: np.ndarray
    bodies: int
    joint_names: tuple[str, ...]
    holdout_rms: np.ndarray | None = None
    holdout_rms_base: np.ndarray | None = None

    @property
    def body_parameters(self) -> np.ndarray:
        """(nb, 10): :attr:`parameters` of each moving body (Pinocchio's order)."""
        return self.parameters[: 10 * self.bodies].reshape(self.bodies, 10)

    @property
    def unseen(self) -> list[str]:
        """The parameters in no base parameter: the data cannot see them (they keep the
        prior's values)."""
        return [n for n, col in zip(self.names, self.base.base_map.T, strict=True)
                if np.abs(col).max() <= UNSEEN]

    @property
    def poorly_excited(self) -> list[str]:
        """The base parameters whose standard error exceeds 10 % of their size."""
        return [n for n, b, s in zip(self.base.names, self.base_estimate, self.standard_errors,
                                     strict=True) if s > POORLY_EXCITED * abs(b)]

    def consistent_bodies(self, parameters: np.ndarray) -> np.ndarray:
        """(nb,) bool: which bodies of ``parameters`` (P,) a mass distribution can have."""
        from hodyn_cli.algorithms.identification.consistent import consistent

        return consistent(parameters[: 10 * self.bodies].reshape(self.bodies, 10))


def _pieces(pairs: Iterable[tuple[Trajectory, np.ndarray]], size: int
            ) -> Iterator[tuple[Trajectory, np.ndarray]]:
    """The pairs cut into pieces of at most ``size`` samples (the regressor's memory)."""
    for motion, torques in pairs:
        for a in range(0, motion.n_samples, size):
            rows = slice(a, a + size)
            yield motion.rows(rows), torques[rows]


def identify(robot: Model, logs: Iterable[tuple[Trajectory, np.ndarray]], *,
             holdout: Iterable[tuple[Trajectory, np.ndarray]] = (), drives: Any = None,
             friction: bool = False, armature: bool = False, drive_model: str = "full",
             gravity: Any = GRAVITY, prior_weight: float = 1.0,
             noise: np.ndarray | None = None, constrained: bool = True, base: Any = None,
             chunk: int = CHUNK) -> Identification:
    """The robot's parameters from ``logs``: pairs of a motion (q, qd, qdd of the independent
    joints, ``robot.coordinate_names``) and the torques measured along it (N, m), or with
    their first K rates (N, K+1, m: ``tau``, ``taud``, ...; the motion then to ``q^(K+2)``;
    every rate is a row of its own with its own noise, :func:`measured_rows`) (a motion
    with a floating ``base``, every log's or none: (N, 6 + m) (with rates (N, K+1, 6 + m)),
    the base wrench ``W_<root>_mx, ..., _fz`` of ``inverse_dynamics(..., base_wrench=True)``
    (``Wd``, ...) then the joint torques; the root
    link's 10 parameters are identified too, first; docs/floating.md) (with
    ``drives``: the motor torques referred to the joints, ``r eta tau_m``, what ``r eta k_t``
    times a measured current is; the drives' columns model them with ``friction`` /
    ``armature``, the drives file's values what is not identified:
    :func:`unidentified_drive_torques`; docs/drives.md).

    The pairs are taken once, in order, and may be pieces of logs (a reader's chunks: only
    the samples matter to the fit), so memory is bounded by a pair, not by the logs. The
    base regressor is built ``chunk`` samples at a time and stacked per joint
    (:class:`~hodyn_cli.algorithms.identification.least_squares.Stack`); weighted least
    squares gives the base parameters with their standard errors (``noise``: the joints'
    sigma_j if known, else estimated from the residuals), then
    :func:`~hodyn_cli.algorithms.identification.consistent.consistent_parameters` the
    physically consistent full parameters (``constrained=False``: not; ``parameters`` are
    then least squares' alone, ``unconstrained``), held towards the URDF's by ``prior_weight``
    (the weight of the squared Riemannian distance of each body's pseudo-inertia from the
    URDF's, against a sum of squares of one per weighted measurement). ``holdout``: pairs
    the estimate is judged on, taken once after the fit (RMS of the predicted torques'
    errors per joint). ``base``: the base parameters
    (:func:`~hodyn_cli.api.regressor.regressor_basis` with the same options) where already
    found, for many identifications of one robot. Too few samples, or logs that leave a
    base parameter unexcited, are a :class:`~hodyn_cli.errors.TrajectoryError`."""
    from hodyn_cli.algorithms.identification import consistent, least_squares

    if prior_weight < 0:
        raise HodynError(f"--prior-weight must be >= 0, got {prior_weight:g}")
    pieces = _pieces(logs, chunk)
    first = next(pieces, None)
    if first is None:
        raise TrajectoryError("no samples to identify from")
    floating, K = first[0].base is not None, _rate_orders(first[1])
    capable("identify", robot, drives=drives is not None, friction=friction or armature,
            floating_base=floating, torque_rates=K > 0)
    options = {"drives": drives, "friction": friction, "armature": armature}
    names, prior = regressor_parameters(robot, floating_base=floating, **options)
    if base is None:
        base = regressor_basis(robot, gravity=gravity, drive_model=drive_model,
                               floating_base=floating, **options)
    rows = measured_rows(robot, floating, K)
    bodies = robot.n + floating
    r, m = len(base.names), len(rows)
    stack = least_squares.Stack(m, r)
    for piece, tau in itertools.chain([first], pieces):
        _same_kind(piece, tau, floating, K)
        stack.add(_base_rows(robot, piece, base, gravity, drive_model, options, K),
                  _modelled(robot, piece, tau, gravity, drive_model, options))
    if stack.samples <= r / m:  # (the noise estimate divides by N - r/m)
        raise TrajectoryError(f"{stack.samples} samples of {m} measured torques for {r} base "
                              f"parameters: too few (more than {int(r / m)} samples are "
                              "needed, many more to average the noise)")
    fit = least_squares.weighted_least_squares(
        stack, None if noise is None else np.asarray(noise, float))
    if not np.isfinite(fit.condition) or fit.condition > 1e12:
        worst = base.names[int(np.argmax(fit.standard_errors))]
        raise TrajectoryError(f"the logs do not excite base parameter '{worst}' (condition number "
                         f"{fit.condition:.3g}): record a richer motion (hodyn generate --kind "
                         "excitation)")
    S, z = stack.weighted(fit.noise)
    driven = names[10 * bodies:]
    unconstrained = consistent.closest_parameters(fit.estimate, base.base_map, prior)
    parameters, converged = consistent.consistent_parameters(
        S, z, base.base_map, prior, bodies, np.array([n.startswith(NONNEGATIVE)
                                                       for n in driven], dtype=bool),
        prior_weight) if constrained else (unconstrained, True)
    held = _holdout_rms(robot, _pieces(holdout, chunk), floating, K, base, parameters,
                        fit.estimate, gravity, drive_model, options)
    return Identification(names, prior, base, fit.estimate, fit.standard_errors,
                          fit.covariance, fit.noise,
                          fit.residual_rms, fit.condition, stack.samples, parameters, converged,
                          unconstrained, bodies, rows, *held)


def measured_rows(robot: Model, floating: bool = False, rates: int = 0) -> tuple[str, ...]:
    """The names of the measurements :func:`identify` fits, one per row of its stacked
    regressor: :func:`~hodyn_cli.api.regressor.regressor_rows` (the joints' torques, after a
    floating base's wrench), then with ``rates`` K the torque rates ``taud_<joint>``, ... to
    the K-th (each after the base wrench's, ``Wd_<root>_mx``, ...).

    >>> from hodyn_cli.api import load_robot
    >>> measured_rows(load_robot("urdf/planar_2r.urdf"), rates=1)
    ('joint1', 'joint2', 'taud_joint1', 'taud_joint2')
    """
    from hodyn_cli.algorithms.dynamics.regressor import base_wrench_rows

    joints = regressor_rows(robot)
    return regressor_rows(robot, floating) + tuple(
        name for k in range(1, rates + 1) for name in (base_wrench_rows(robot, k) if floating
                                                       else ())
        + tuple(f"{derivative_name('tau', k)}_{j}" for j in joints))


def _rate_orders(torques: np.ndarray) -> int:
    """K of measured torques (N, rows) (0) or (N, K+1, rows) (tau and its first K rates)."""
    return 0 if np.ndim(torques) == 2 else np.shape(torques)[1] - 1


def _same_kind(motion: Trajectory, torques: np.ndarray, floating: bool, K: int) -> None:
    """Every log has a floating base's motion, or none does; every log the same rates."""
    if (motion.base is not None) != floating:
        raise TrajectoryError("some logs have a floating base's motion and some do not")
    if _rate_orders(torques) != K:
        raise TrajectoryError("some logs have torque rates (taud_<joint> columns) and some do "
                              "not (or other orders)")


def _modelled(robot: Model, piece: Trajectory, torques: np.ndarray, gravity: Any,
              drive_model: str, options: dict) -> np.ndarray:
    """What the regressor's columns explain of the measured ``torques`` (N, m) (or (N, K+1,
    m) with rates: the rows of :func:`measured_rows`): less the
    measured external wrenches' share (:func:`external_wrench_torques`); with drives,
    ``r eta tau_m`` less the terms of the drive parameters not identified (the file's
    values; :func:`unidentified_drive_torques`)."""
    known = unidentified_drive_torques(robot, piece, gravity=gravity, drive_model=drive_model,
                                       **options)
    if known is not None:
        torques = torques - known
    external = external_wrench_torques(robot, piece, _rate_orders(torques))
    if external is not None:
        torques = torques - external
    return torques.reshape(len(torques), -1)  # (rates: tau's rows, then taud's, ...)


def external_wrench_torques(robot: Model, motion: Trajectory, rates: int = 0
                            ) -> np.ndarray | None:
    """(N, rows) ``J^T W``: what the external wrenches of ``motion`` (``motion.wrenches``, W
    of the links on their environment as measured by force-torque sensors, order 0;
    docs/conventions.md) add to the measured rows (:func:`regressor_rows`: a floating
    base's wrench first, then the joints'). The parameters do not enter it (``tau = Y pi +
    J^T W``): it is the inverse dynamics at rest under W (q as given; no velocity,
    acceleration or gravity). None without wrenches. With torque ``rates`` (measured with
    them) the table's one-line refusal: their share's rates need the wrenches' rates."""
    from hodyn_cli.api.dynamics import inverse_dynamics
    from hodyn_cli.core.trajectory import BaseMotion, Wrenches

    if motion.wrenches is None or not motion.wrenches.W:
        return None
    if rates:
        from hodyn_cli import capabilities

        capabilities.check("identify", {"torque_rates", "log_wrenches"})
    N, n = motion.n_samples, len(motion.joint_names)
    base = motion.base
    still = Trajectory(motion.joint_names, np.concatenate([motion.derivatives[:, :1],
                                                           np.zeros((N, 2, n))], axis=1),
                       motion.t, Wrenches({k: w[:, :1] for k, w in motion.wrenches.W.items()}),
                       base=None if base is None else BaseMotion(base.R, base.p,
                                                                 np.zeros((N, 2, 6))))
    out = inverse_dynamics(robot, still, order=0, gravity=np.zeros(3),
                           base_wrench=base is not None)
    return out.tau if base is None else np.concatenate([out.W, out.tau], axis=1)


def unidentified_drive_torques(robot: Model, motion: Trajectory, *, drives: Any = None,
                               friction: bool = False, armature: bool = False,
                               drive_model: str = "full", gravity: Any = GRAVITY
                               ) -> np.ndarray | None:
    """(N, m) the part of the motor torques referred to the joints, ``r eta tau_m``
    (docs/drives.md), that the parameters identified with these options do not model: the
    rotors' reactions and inertias without ``armature``, the friction without ``friction``,
    at the drives file's values. ``r eta tau_m = Y pi + sum_c A_c I_c + sum_j F_j f_j`` is
    linear in them, so this is ``r eta tau_m - Y' pi'`` with ``Y'``, ``pi'`` the regressor's
    columns and the file's values of the parameters identified. None without ``drives`` or
    with both (nothing left over). A joint without a drive has ``tau_m = tau``."""
    if drives is None or (friction and armature):
        return None
    from hodyn_cli.api.drives import drive_dynamics, drives_for

    d = drives_for(robot, drives)
    joints = np.asarray(robot.coordinates)
    referred = np.where(d.driven, d.gear_ratio * d.gear_efficiency, 1.0)[joints]
    taum = drive_dynamics(robot, d, motion, order=0, model=drive_model, gravity=gravity).taum
    Y = dynamic_regressor(robot, motion, gravity=gravity, drive_model=drive_model, drives=d,
                          friction=friction, armature=armature).Y
    identified = regressor_parameters(robot, drives=d, friction=friction, armature=armature)[1]
    return referred * taum - Y @ identified


def _base_rows(robot: Model, piece: Trajectory, base: Any, gravity: Any, drive_model: str,
               options: dict, K: int = 0) -> np.ndarray:
    """(N, (K+1) m, r) the base regressor of tau and its first K rates, stacked as
    :func:`measured_rows`."""
    Y = dynamic_regressor(robot, piece, base=base, gravity=gravity, drive_model=drive_model,
                          order=K, **options)
    return _stacked(Y, "Y_base", K)


def _stacked(Y: Any, name: str, K: int) -> np.ndarray:
    """The regressor field ``name`` and its first K rates, (N, (K+1) m, columns)."""
    return np.concatenate([Y[rate_name(name, k)] for k in range(K + 1)], axis=1)


def _holdout_rms(robot: Model, pieces: Iterator[tuple[Trajectory, np.ndarray]],
                 floating: bool, K: int, base: Any, parameters: np.ndarray,
                 base_estimate: np.ndarray, gravity: Any, drive_model: str, options: dict
                 ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """RMS per joint of the errors of the torques that the full ``parameters`` and the
    ``base_estimate`` predict on the held-out ``pieces``, against theirs (what the columns
    model of them: :func:`_modelled`), in one pass; (None, None) without any."""
    squares, count = np.zeros((2, len(measured_rows(robot, floating, K)))), 0
    for piece, tau in pieces:
        _same_kind(piece, tau, floating, K)
        tau = _modelled(robot, piece, tau, gravity, drive_model, options)
        Y = dynamic_regressor(robot, piece, base=base, gravity=gravity,
                              drive_model=drive_model, order=K, **options)
        squares += [((_stacked(Y, "Y", K) @ parameters - tau) ** 2).sum(axis=0),
                    ((_stacked(Y, "Y_base", K) @ base_estimate - tau) ** 2).sum(axis=0)]
        count += len(tau)
    if not count:
        return None, None
    full, base_only = np.sqrt(squares / count)
    return full, base_only


def predict_torques(robot: Model, motion: Trajectory, parameters: np.ndarray, *,
                    gravity: Any = GRAVITY, drives: Any = None, friction: bool = False,
                    armature: bool = False, drive_model: str = "full") -> np.ndarray:
    """The torques (N, m) of ``motion`` with the full ``parameters`` (P,) in place of the
    URDF's (:func:`~hodyn_cli.api.regressor.regressor_parameters`' order): ``Y pi``."""
    Y = dynamic_regressor(robot, motion, gravity=gravity, drives=drives, friction=friction,
                          armature=armature, drive_model=drive_model).Y
    return Y @ parameters
