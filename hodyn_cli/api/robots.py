"""Robots and trajectories: a robot loaded as the command line loads it, its joints held
fixed, and the motions the other API functions take (q, qd, ... arrays or dicts by joint
name, a floating root's motion), checked and shaped."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from hodyn_cli.algorithms.motion.turns import leaders_unwrapped
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import BaseMotion, Trajectory, Wrenches, derivative_name
from hodyn_cli.errors import HodynError

__all__ = ["load_robot", "load_joints", "lock_joints", "lock_value", "joint_trajectory", "joint_array",
           "wrenches_of", "base_motion", "coordinates", "check_number", "derivative_name",
           "leaders_unwrapped"]


def load_robot(path: str | Path, *, strict: bool = False, xacro_args: dict | None = None,
               lock: dict[str, float] | None = None, repair_inertia: bool = False,
               ignore_broken_mimic: bool = False) -> Model:
    """The model of a URDF (or ``.xacro``) file, as the command line loads it: ``strict``
    (URDF warnings are errors), ``xacro_args`` (``{name: value}``), ``lock`` (``{joint:
    value}``: held fixed, see :mod:`hodyn_cli.modeling.locking`), ``repair_inertia``
    (impossible link inertias replaced by the nearest consistent ones, with a warning each),
    ``ignore_broken_mimic`` (a ``<mimic>`` naming no moving joint of the robot ignored, with a
    warning)."""
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(path, strict=strict, xacro_args=xacro_args, repair_inertia=repair_inertia,
                       ignore_broken_mimic=ignore_broken_mimic)
    return lock_joints(model, lock or {})


def load_joints(path: str | Path, *, strict: bool = False, xacro_args: dict | None = None,
                ignore_broken_mimic: bool = False) -> Model:
    """The robot where only its joints matter (their names, order, coupling and the root:
    ``hodyn import``): a URDF's impossible inertias repaired rather than refused, an MJCF
    model as it is (MuJoCo's compiler gives consistent ones)."""
    from hodyn_cli.modeling.mjcf_root import is_mjcf

    try:
        mujoco = is_mjcf(Path(path).read_bytes())
    except OSError:
        mujoco = False  # load_robot names the file that cannot be read
    return load_robot(path, strict=strict, xacro_args=xacro_args, repair_inertia=not mujoco,
                      ignore_broken_mimic=ignore_broken_mimic)


def lock_joints(robot: Model, values: Mapping[str, float]) -> Model:
    """The robot with the joints of ``values`` (``{joint: value}``) held fixed there, merged
    like URDF fixed joints (a ``<mimic>`` partner of a held joint is held where it follows;
    :mod:`hodyn_cli.modeling.locking`); no values: the robot itself."""
    from hodyn_cli.modeling.locking import lock

    return lock(robot, dict(values))


def lock_value(robot: Model, joint: str) -> float:
    """Where ``--lock-missing`` holds ``joint``: 0, or the middle of its range if 0 is
    outside it."""
    from hodyn_cli.modeling.locking import default_lock_value

    return default_lock_value(robot, robot.joint_index(joint))


def check_number(what: str, value: float) -> None:
    """The one-line error for a number hodyn cannot compute with (NaN, infinite, or a
    magnitude that is not 0 and not within 1e-30 .. 1e30: beyond, float64 overflows somewhere
    in what it scales); ``what`` names where it was given.

    >>> check_number("--rate", 100.0)
    >>> check_number("--rate", 1e300)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hodyn_cli.errors.HodynError: --rate = 1e300 is beyond the magnitudes hodyn computes with, ...
    """
    from hodyn_cli.modeling.joint_files import in_range, out_of_range

    if not in_range(value):
        raise out_of_range(what, value, None)


def coordinates(robot: Model) -> tuple[str, ...]:
    """The names of the robot's independent coordinates (its coupling's)."""

    return tuple(robot.coupling.coordinate_names)


def joint_array(robot: Model, name: str, value: Any) -> np.ndarray:
    """(N, m) from (N, m), (m,) or {joint: values} (mimic joints' keys are ignored)."""
    names = coordinates(robot)
    n = len(names)
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in robot.joint_names]
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


def joint_trajectory(robot: Model, *derivatives: Any, t: Any = None,
                     wrenches: Mapping | None = None, **named: Any) -> Trajectory:
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
    arrays = [joint_array(robot, derivative_name("q", k), v) for k, v in enumerate(given)]
    lengths = {a.shape[0] for a in arrays}
    if len(lengths) > 1:
        raise HodynError(f"q and its derivatives differ in length: {sorted(lengths)} samples")
    N = arrays[0].shape[0]
    tt = None if t is None else np.atleast_1d(np.asarray(t, dtype=float))
    if tt is not None and tt.shape != (N,):
        raise HodynError(f"t: expected {N} times, got shape {tt.shape}")
    return Trajectory(coordinates(robot), np.stack(arrays, axis=1), tt,
                      wrenches_of(robot, wrenches, N))


def wrenches_of(robot: Model, wrenches: Mapping | None, N: int) -> Wrenches | None:
    """``{link: (N, D, 6)}`` checked against the robot's links (None: no wrenches)."""
    if not wrenches:
        return None
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
    return Wrenches(W)


def base_motion(R: np.ndarray, p: np.ndarray, *, Vb: np.ndarray | None = None,
                Vs: np.ndarray | None = None) -> BaseMotion:
    """A floating root's motion (docs/floating.md): its orientation ``R`` (N, 3, 3) and
    position ``p`` (N, 3) in the world, and its body twist ``Vb`` with its derivatives (N, D,
    6), or instead its spatial twist ``Vs`` (world frame) and its derivatives."""
    if Vb is not None:
        return BaseMotion(R, p, Vb)
    if Vs is None:
        raise HodynError("a base motion needs the root's twist: Vb (body) or Vs (spatial)")
    from hodyn_cli.algorithms.dynamics.floating import base_from_spatial

    return base_from_spatial(R, p, Vs)
