"""The Python API: the command line's capabilities on plain arrays (see docs/python.md).

Joint values come as (N, n) or (n,) arrays in the model's joint order (``robot.joint_names``)
or as dicts keyed by joint name; results are :class:`Result` objects whose fields (``tau``,
``taud``, ...) are (N, n) arrays, or (n,) when the input was one sample.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from hodyn_cli.algorithms.methods import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches, derivative_name
from hodyn_cli.errors import HodynError

__all__ = ["Result", "load_robot", "inverse_dynamics", "forward_kinematics", "matrices", "validate_motion",
           "elastic_dynamics", "dynamic_regressor", "torque_sensitivities", "joint_trajectory",
           "inverse_kinematics"]


class Result(Mapping):
    """Named arrays: ``result.tau`` or ``result["tau"]``; ``list(result)`` gives the names."""

    def __init__(self, fields: dict[str, np.ndarray], joint_names: tuple[str, ...]):
        self._fields, self.joint_names = dict(fields), joint_names

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["_fields"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name: str) -> np.ndarray:
        return self._fields[name]

    def __iter__(self):
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k}{tuple(v.shape)}" for k, v in self._fields.items())
        return f"Result({shapes})"


def load_robot(path: str | Path, *, strict: bool = False, xacro_args: dict | None = None,
               lock: dict[str, float] | None = None) -> Model:
    """The model of a URDF (or ``.xacro``) file, as the command line loads it: ``strict``
    (URDF warnings are errors), ``xacro_args`` (``{name: value}``), ``lock`` (``{joint:
    value}``: held fixed, see :mod:`hodyn_cli.modeling.locking`)."""
    from hodyn_cli.modeling.locking import lock as lock_joints
    from hodyn_cli.modeling.urdf import load_model

    return lock_joints(load_model(path, strict=strict, xacro_args=xacro_args), lock or {})


def _joint_array(robot: Model, name: str, value) -> np.ndarray:
    """(N, n) from (N, n), (n,) or {joint: values}."""
    names = robot.coordinate_names  # mimic joints follow their leaders: no values for them
    n = len(names)
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in names]
        if unknown:
            raise HodynError(f"{name}: the model has no joint '{unknown[0]}' (joints: "
                             f"{', '.join(names)})")
        missing = [j for j in names if j not in value]
        if missing:
            raise HodynError(f"{name}: no values for joint(s) {', '.join(missing)}")
        value = np.stack([np.atleast_1d(np.asarray(value[j], dtype=float))
                          for j in names], axis=-1)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise HodynError(f"{name}: expected numbers, got {type(value).__name__}") from None
    if arr.ndim == 1:
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != n:
        raise HodynError(f"{name}: expected shape (N, {n}) or ({n},) in the model's joint order "
                         f"{names}, or a dict by joint name; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise HodynError(f"{name}: values must be finite")
    return arr


def joint_trajectory(robot: Model, *derivatives, t=None, wrenches: Mapping | None = None,
               **named) -> Trajectory:
    """A :class:`Trajectory` from q, qd, qdd, ... given in order, or by name (``qddd=...``).

    ``wrenches``: ``{link: (N, D, 6) array}`` of W, Wd, ... exerted by the link on its
    environment, in the link frame (moment; force).
    """
    given = list(derivatives)
    for key in sorted(named, key=len):
        k = len(key) - 1
        if not (key.startswith("q") and set(key[1:]) <= {"d"}):
            raise HodynError(f"unknown argument '{key}' (q, qd, qdd, ... or t, wrenches)")
        if k < len(given):
            raise HodynError(f"'{key}' given twice")
        if k > len(given):
            raise HodynError(f"'{key}' given without {derivative_name('q', len(given))}")
        given.append(named[key])
    if not given:
        raise HodynError("no joint values: give q (and its derivatives)")
    arrays = [_joint_array(robot, derivative_name("q", k), v) for k, v in enumerate(given)]
    lengths = {a.shape[0] for a in arrays}
    if len(lengths) > 1:
        raise HodynError(f"q and its derivatives differ in length: {sorted(lengths)} samples")
    N = arrays[0].shape[0]
    tt = None if t is None else np.atleast_1d(np.asarray(t, dtype=float))
    if tt is not None and tt.shape != (N,):
        raise HodynError(f"t: expected {N} times, got shape {tt.shape}")
    W = None
    if wrenches:
        W = {}
        for link, w in wrenches.items():
            if link not in robot.links:
                raise HodynError(f"wrenches: the model has no link '{link}'")
            w = np.asarray(w, dtype=float)
            w = w.reshape(1, *w.shape) if w.ndim == 2 and N == 1 else w
            if w.ndim != 3 or w.shape[0] != N or w.shape[2] != 6:
                raise HodynError(f"wrenches['{link}']: expected shape ({N}, D, 6) (W, Wd, ...), "
                                 f"got {w.shape}")
            W[link] = w
        W = Wrenches(W)
    return Trajectory(robot.coordinate_names, np.stack(arrays, axis=1), tt, W)


def _shaped(fields: dict, single: bool, robot: Model) -> Result:
    return Result({k: (v[0] if single else v) for k, v in fields.items() if k != "t"},
                  robot.coordinate_names)


def _single(derivatives, named) -> bool:
    """True when q was one sample: (n,) or a dict of scalars."""
    first = derivatives[0] if derivatives else named.get("q")
    if isinstance(first, Mapping):
        return np.ndim(next(iter(first.values()), 0.0)) == 0
    return np.ndim(first) == 1


def _run(job, robot: Model, derivatives, named, **trajectory_options) -> Result:
    """A job (the command line's, :mod:`hodyn_cli.pipeline.jobs`) on the given joint values."""
    traj = joint_trajectory(robot, *derivatives, **trajectory_options, **named)
    return _shaped(job(traj), _single(derivatives, named), robot)


def inverse_dynamics(robot: Model, *derivatives, order: int = 2, method: str = "body-fixed",
                     gravity=GRAVITY, t=None, wrenches: Mapping | None = None,
                     **named) -> Result:
    """tau and its first ``order`` time derivatives: fields ``tau, taud, ...``.

    Give q and its derivatives up to order + 2 (positionally or by name).
    """
    from hodyn_cli.pipeline.jobs import TorqueJob

    return _run(TorqueJob(robot, method, order, tuple(gravity)), robot, derivatives, named,
                t=t, wrenches=wrenches)


def forward_kinematics(robot: Model, link: str, *derivatives, order: int = 3, **named
                       ) -> Result:
    """One link's pose and motion: fields ``p, R, Vs, Vsd, ..., Vb, ..., pd, pdd, ...``."""
    from hodyn_cli.pipeline.jobs import KinematicsJob

    return _run(KinematicsJob(robot, link, order), robot, derivatives, named)


def inverse_kinematics(robot: Model, link: str, motion: Mapping, *, t=None, task: str = "pose",
                       q0=None, max_condition: float | None = None, on_singular: str = "error"
                       ) -> Result:
    """Joint motion that moves ``link`` as ``motion`` prescribes (``hodyn ik``).

    ``motion`` has the fields :func:`forward_kinematics` returns: ``p``, ``R``, the twist
    ``Vs``, ``Vsd``, ... (or body-fixed ``Vb``, ...) for a pose task, ``pd``, ``pdd``, ... for
    a position task. Fields: ``q``, ``qd``, ... (one more order than the twists given) and
    ``condition`` (the task Jacobian's condition number per sample); see
    :mod:`hodyn_cli.algorithms.ik` for the scheme (spatial paper, Algorithm 2).
    """
    from hodyn_cli.algorithms.ik import MAX_CONDITION, LinkMotion
    from hodyn_cli.algorithms.ik import inverse_kinematics as solve
    from hodyn_cli.algorithms.methods.spatial import spatial_twists

    def stacked(base: str, first: int, width: int):
        rows, k = [], first
        while derivative_name(base, k) in motion:
            rows.append(np.asarray(motion[derivative_name(base, k)], dtype=float).reshape(-1, width))
            k += 1
        return np.stack(rows, axis=1) if rows else None

    if "p" not in motion:
        raise HodynError("motion: no field 'p' (the link origin, as forward_kinematics gives it)")
    p = np.asarray(motion["p"], dtype=float).reshape(-1, 3)
    R = np.asarray(motion["R"], dtype=float).reshape(-1, 3, 3) if "R" in motion else None
    Vs = stacked("Vs", 0, 6)
    if Vs is None and R is not None and "Vb" in motion:
        Vs = spatial_twists(R, p, stacked("Vb", 0, 6))
    t = None if t is None else np.atleast_1d(np.asarray(t, dtype=float))
    res = solve(robot, LinkMotion(p, R, Vs, stacked("p", 1, 3), t), link, task=task, q0=q0,
                max_condition=MAX_CONDITION if max_condition is None else max_condition,
                on_singular=on_singular)
    qs = res.trajectory.derivatives
    return Result({**{derivative_name("q", k): qs[:, k] for k in range(qs.shape[1])},
                   "condition": res.condition}, robot.joint_names)


def matrices(robot: Model, *derivatives, order: int = 0, gravity=GRAVITY,
             wrenches: Mapping | None = None, **named) -> Result:
    """M, C, Cbar, g (and Q_ext) with their first ``order`` derivatives: fields ``M``,
    ``M_d``, ..."""
    from hodyn_cli.pipeline.jobs import MatricesJob

    return _run(MatricesJob(robot, order, tuple(gravity)), robot, derivatives, named,
                wrenches=wrenches)


def validate_motion(robot: Model, *derivatives, t=None, methods=None, gravity=GRAVITY, **named):
    """The checks of ``hodyn validate``: a :class:`hodyn_cli.algorithms.validate.Report` (``.passed``)."""
    from hodyn_cli.algorithms.validate import validate as run
    from hodyn_cli.modeling import mimic

    traj = joint_trajectory(robot, *derivatives, t=t, **named)
    return run(robot, mimic.expand(robot, traj), methods=methods, gravity=gravity)


def elastic_dynamics(robot: Model, drives, *derivatives, order: int = 0, model: str = "full",
                     gravity=GRAVITY, **named) -> Result:
    """Elastic joints: fields ``u, ud, ...``, ``theta, ...`` (to order + 2), ``taum, ...``.

    ``drives``: a drives file (TOML) or ``{joint: {"stiffness": ..., "gear_ratio": ...,
    "rotor_inertia": ...}}``.
    """
    from hodyn_cli.modeling.drives import drives_from_table, read_drives
    from hodyn_cli.pipeline.jobs import ElasticJob

    d = drives_from_table(robot, drives) if isinstance(drives, Mapping) else read_drives(
        drives, robot)
    return _run(ElasticJob(robot, d, order, model, tuple(gravity)), robot, derivatives, named)


def dynamic_regressor(robot: Model, *derivatives, order: int = 0, gravity=GRAVITY,
                      **named) -> Result:
    """Y, Y_d, ... (n x 10 nb per sample) with tau^(k) = Y^(k) pi; pi is
    ``hodyn_cli.algorithms.regressor.parameters(robot)``."""
    from hodyn_cli.pipeline.jobs import RegressorJob

    return _run(RegressorJob(robot, order, tuple(gravity)), robot, derivatives, named)


def torque_sensitivities(robot: Model, *derivatives, order: int = 0, gravity=GRAVITY,
                         **named) -> Result:
    """d tau^(k) / d q^(j): fields ``dtau_dq``, ``dtau_dqd``, ... (n x n per sample)."""
    from hodyn_cli.pipeline.jobs import SensitivityJob

    return _run(SensitivityJob(robot, order, tuple(gravity)), robot, derivatives, named)
