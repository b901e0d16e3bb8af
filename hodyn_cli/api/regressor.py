"""Identification: the dynamic regressor (``tau^(k) = Y^(k) pi``) and its parameters, with the
drives' friction and rotor inertias, and the base parameters."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from hodyn_cli.api.drives import drives_for
from hodyn_cli.api.results import Motion, Result, capable, rates
from hodyn_cli.api.robots import coordinates, joint_array
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError

if TYPE_CHECKING:
    from hodyn_cli.algorithms.dynamics.regressor import BaseParameters

__all__ = ["dynamic_regressor", "regressor_parameters", "regressor_basis", "regressor_rows",
           "body_parameters"]


def dynamic_regressor(robot: Model, *derivatives: Any, order: int = 0, gravity: Any = GRAVITY,
                      base: Any = None, qr_d: Any = None, qr_dd: Any = None, drives: Any = None,
                      friction: bool = False, armature: bool = False, drive_model: str = "full",
                      data: Any = None, **named: Any) -> Result:
    """The regressor: fields ``Y``, ``Y_d``, ... (n x 10 nb per sample) with
    ``tau^(k) = Y^(k) pi`` (pi: :func:`regressor_parameters`).

    ``base``: a :class:`~hodyn_cli.algorithms.dynamics.regressor.BaseParameters` (or True to find
    them) adds ``Y_base``, ... (``Y pi = Y_base pi_base``). ``qr_d``, ``qr_dd``: reference
    velocity and acceleration (N, m) add the Slotine-Li ``Y_r`` (``Y_r pi = M qr_dd + Cbar
    qr_d + g``). ``friction``, ``armature`` (with ``drives``, as for
    :func:`~hodyn_cli.api.drives.drive_dynamics`; ``drive_model`` full or reflected): Y gains
    the columns of each drive's friction parameters and rotor inertia
    (:func:`regressor_parameters`), and models the motor torque referred to the joint, ``r
    eta tau_m`` (docs/drives.md).

    A Trajectory with a floating ``base``: 6 + m rows, the base wrench ``W_<root>_mx, ...,
    _fz`` (as ``inverse_dynamics(..., base_wrench=True)`` gives it) then the joints
    (``result.joint_names``), and the root link's 10 parameters first
    (``regressor_parameters(robot, floating_base=True)``; docs/floating.md). A robot with
    closed loops (:func:`~hodyn_cli.api.loops.close_loops`): the actuated joints' rows,
    ``Y_a^(k) = sum_j C(k, j) G^(j)T Y^(k-j)`` (docs/loops.md). ``data``: as for
    :func:`~hodyn_cli.api.dynamics.inverse_dynamics`.
    """
    from hodyn_cli.algorithms.dynamics import regressor

    m = Motion(robot, derivatives, named)
    floating = m.full.base is not None
    capable("regressor", robot, floating_base=floating, slotine_li=qr_d is not None,
            friction=friction or armature, drives=friction or armature)
    Y = regressor.project_rows(robot, regressor.regressor(robot, m.full, order=order,
                                                          gravity=gravity, data=data), m.full)
    extra = _drive_columns(robot, drives, friction, armature, drive_model)
    if extra is not None:
        Y = np.concatenate([Y, extra[0](m.full, order)], axis=3)
    fields = rates("Y", Y)
    if base is True:
        base = regressor_basis(robot, gravity=gravity, drives=drives, friction=friction,
                               armature=armature, drive_model=drive_model,
                               floating_base=floating)
    if base is not None:
        if base.base_map.shape[1] != Y.shape[-1]:
            raise HodynError(f"base parameters of {base.base_map.shape[1]} parameters for a "
                             f"regressor of {Y.shape[-1]}")
        fields |= rates("Y_base", Y[..., base.independent])
    if (qr_d is None) != (qr_dd is None):
        raise HodynError("the Slotine-Li regressor needs both qr_d and qr_dd")
    if qr_d is not None:
        ref = [m.coupling.tangent(joint_array(robot, name, v), m.coordinates.q)
               for name, v in (("qr_d", qr_d), ("qr_dd", qr_dd))]
        fields["Y_r"] = m.forces(regressor.slotine_li_regressor(robot, m.full, *ref,
                                                                gravity=gravity), axis=1)
    return m.result(fields, regressor_rows(robot, floating))


def regressor_rows(robot: Model, floating_base: bool = False) -> tuple[str, ...]:
    """The names of :func:`dynamic_regressor`'s rows: the independent joints, after a
    floating base's 6 base wrench rows ``W_<root>_mx, ..., _fz``.

    >>> from hodyn_cli.api import load_robot
    >>> regressor_rows(load_robot("urdf/planar_2r.urdf"), floating_base=True)[-3:]
    ('W_world_fz', 'joint1', 'joint2')
    """
    from hodyn_cli.algorithms.dynamics.regressor import base_wrench_rows

    return (base_wrench_rows(robot) if floating_base else ()) + coordinates(robot)


def body_parameters(robot: Model) -> tuple[tuple[str, ...], np.ndarray]:
    """The 10 dynamic parameters of every moving body (``hodyn info --parameters``): their
    names (Pinocchio's order: ``m``, ``mcx``, ..., ``Izz``; body frame, about its origin) and
    values (nb, 10), bodies in ``robot.link_names`` order.

    >>> from hodyn_cli.api import load_robot
    >>> names, values = body_parameters(load_robot("urdf/planar_2r.urdf"))
    >>> names[:4], values.shape
    (('m', 'mcx', 'mcy', 'mcz'), (2, 10))
    """
    from hodyn_cli.algorithms.dynamics.regressor import PARAMETERS, parameters

    return PARAMETERS, parameters(robot).reshape(-1, len(PARAMETERS))


def regressor_parameters(robot: Model, *, drives: Any = None, friction: bool = False,
                         armature: bool = False, floating_base: bool = False
                         ) -> tuple[list[str], np.ndarray]:
    """Names and values of the parameters of :func:`dynamic_regressor`'s columns: the 10 per
    body (``m_<link>``, ...; ``floating_base``: the root link's first), then with ``armature``
    ``rotor_inertia_<joint>`` per drive and with ``friction`` ``viscous_<joint>``,
    ``coulomb_<joint>``, ``offset_<joint>`` (the drives file's values)."""
    from hodyn_cli.algorithms.actuation import actuators
    from hodyn_cli.algorithms.dynamics import regressor

    names = regressor.parameter_names(robot, floating_base)
    values = regressor.parameters(robot, floating_base)
    if friction or armature:
        if drives is None:
            raise HodynError("friction and armature parameters need the drives (--drives FILE)")
        more, extra = actuators.regressor_parameters(robot, drives_for(robot, drives, "regressor"),
                                                     with_armature=armature, with_friction=friction)
        names, values = names + more, np.concatenate([values, extra])
    return names, values


def regressor_basis(robot: Model, *, gravity: Any = GRAVITY, drives: Any = None,
                    friction: bool = False, armature: bool = False, drive_model: str = "full",
                    floating_base: bool = False) -> BaseParameters:
    """The base parameters (:class:`~hodyn_cli.algorithms.dynamics.regressor.BaseParameters`) of
    :func:`dynamic_regressor`'s columns with these options (``floating_base``: of a floating
    base's regressor)."""
    from hodyn_cli.algorithms.dynamics import regressor

    capable("regressor", robot, floating_base=floating_base, friction=friction or armature,
            drives=friction or armature)
    extra = _drive_columns(robot, drives, friction, armature, drive_model)
    return regressor.base_parameters(robot, gravity=gravity, extra=None if extra is None else (
        lambda trajectory: extra[0](trajectory, 0), extra[1]), floating_base=floating_base)


def _drive_columns(robot: Model, drives: Any, friction: bool, armature: bool, drive_model: str
                   ) -> tuple[Callable[[Trajectory, int], np.ndarray], list[str]] | None:
    """``(columns(trajectory, order), names)`` of the drive parameters, or None."""
    from hodyn_cli.algorithms.actuation import actuators

    if not (friction or armature):
        return None
    if drives is None:
        raise HodynError("friction and armature columns need the drives (--drives FILE)")
    drives = drives_for(robot, drives, "regressor")
    unsmoothed = drives.driven & ~drives.friction.velocity_given
    if friction and unsmoothed.any():  # its Coulomb column would be tanh(v / (1 rad/s))
        names = [robot.joint_names[j] for j in np.flatnonzero(unsmoothed)]
        raise HodynError(f"joint '{names[0]}': the friction columns need its 'coulomb_velocity' "
                         "in the drives file (the speed that smooths its Coulomb column)"
                         + (f"; so do {', '.join(names[1:])}" if len(names) > 1 else ""),
                         drives.source)
    names, _ = actuators.regressor_parameters(robot, drives, with_armature=armature,
                                              with_friction=friction)

    def columns(trajectory: Trajectory, order: int) -> np.ndarray:
        return actuators.regressor_columns(robot, trajectory, drives, order=order,
                                           kind=drive_model, with_armature=armature,
                                           with_friction=friction)

    return columns, names
