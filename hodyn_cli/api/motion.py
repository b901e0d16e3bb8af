"""A link's motion: its pose, twists and their derivatives (forward kinematics), its Jacobians
and their derivatives, the centre of mass and momentum, and back: the joint motion that moves
a link as prescribed (inverse kinematics)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from hodyn_cli.api.results import Motion, Result, rates, series
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import derivative_name
from hodyn_cli.errors import HodynError

if TYPE_CHECKING:
    from hodyn_cli.algorithms.motion.ik import InverseKinematics
    from hodyn_cli.core.motion import LinkMotion

__all__ = ["forward_kinematics", "centre_of_mass", "inverse_kinematics", "ik_solver",
           "link_jacobian", "jacobian_columns"]


def forward_kinematics(robot: Model, link: str, *derivatives: Any, order: int = 3,
                       data: Any = None, **named: Any) -> Result:
    """One link's pose and motion: fields ``p`` (N, 3), ``R`` (N, 3, 3), the spatial twist
    ``Vs``, ``Vsd``, ... and the body-fixed ``Vb``, ... (N, 6) to ``order``, and the velocity,
    acceleration, ... of the link origin ``pd``, ``pdd``, ... (N, 3). ``data``: as for
    :func:`~hodyn_cli.api.dynamics.inverse_dynamics`."""
    from hodyn_cli.algorithms.motion.kinematics import link_kinematics

    m = Motion(robot, derivatives, named)
    lk = link_kinematics(robot, m.full, link, order=order, data=data)
    fields = {"p": lk.p, "R": lk.R, **series("Vs", lk.Vs), **series("Vb", lk.Vb),
              **{derivative_name("p", k + 1): lk.pd[:, k] for k in range(lk.pd.shape[1])}}
    return m.result(fields)


def centre_of_mass(robot: Model, *derivatives: Any, order: int = 1, data: Any = None,
                   **named: Any) -> Result:
    """The whole robot's (root link included) ``mass`` (N,), centre of mass ``com``, ``comd``,
    ... (N, 3) to ``order + 1`` and centroidal momentum ``h``, ``hd``, ... (N, 6: angular about
    the centre of mass; linear) to ``order``: root frame, or the world's for a Trajectory with
    a floating ``base`` (:mod:`hodyn_cli.algorithms.motion.momentum`). ``data``: as for
    :func:`~hodyn_cli.api.dynamics.inverse_dynamics`."""
    from hodyn_cli.algorithms.motion.momentum import centroidal

    m = Motion(robot, derivatives, named)
    c = centroidal(robot, m.full, order=order, data=data)
    return m.result({"mass": np.full(m.full.n_samples, c.mass), **series("com", c.com),
                     **series("h", c.h)})


def inverse_kinematics(robot: Model, link: str, motion: Any, *, t: Any = None, task: str = "pose",
                       q0: Any = None, max_condition: float | None = None,
                       on_singular: str = "error", on_branch_jump: str = "error",
                       posture_gain: float | None = None) -> Result:
    """Joint motion that moves ``link`` as ``motion`` prescribes (``hodyn ik``).

    ``motion``: a :class:`~hodyn_cli.core.motion.LinkMotion`, or the fields
    :func:`forward_kinematics` returns: ``p``, ``R``, the twist ``Vs``, ``Vsd``, ... (or
    body-fixed ``Vb``, ...) for a pose task, ``pd``, ``pdd``, ... for a position task. Fields:
    ``q``, ``qd``, ... (one more order than the twists given) and ``condition`` (the task
    Jacobian's condition number per sample); see :mod:`hodyn_cli.algorithms.motion.ik` for the
    scheme (spatial paper, Algorithm 2) and the options (``posture_gain``: redundant arms' pull
    towards the first sample's posture, 1/s).
    """
    from hodyn_cli.algorithms.motion.ik import MAX_CONDITION, POSTURE_GAIN
    from hodyn_cli.algorithms.motion.ik import inverse_kinematics as solve
    from hodyn_cli.core.motion import LinkMotion

    _refuse_ik(robot)
    if not isinstance(motion, LinkMotion):
        motion = _link_motion(motion, t)
    res = solve(robot, motion, link, task=task, q0=q0,
                max_condition=MAX_CONDITION if max_condition is None else max_condition,
                on_singular=on_singular, on_branch_jump=on_branch_jump,
                posture_gain=POSTURE_GAIN if posture_gain is None else posture_gain)
    return Result({**series("q", res.trajectory.derivatives), "condition": res.condition},
                  robot.joint_names)


def ik_solver(robot: Model, link: str, *, task: str = "pose", q0: Any = None,
              max_condition: float | None = None, on_singular: str = "error",
              on_branch_jump: str = "error", posture_gain: float | None = None
              ) -> InverseKinematics:
    """:func:`inverse_kinematics` chunk after chunk (``hodyn ik`` on a file): the streaming
    solver, ``solver(motion) -> (qs, condition)`` on each chunk's
    :class:`~hodyn_cli.core.motion.LinkMotion` in turn, each continuing from the last sample
    of the one before; ``.done`` (samples solved), ``.singular``, ``.max_condition``
    (:class:`~hodyn_cli.algorithms.motion.ik.InverseKinematics`). Options as
    :func:`inverse_kinematics` takes them."""
    from hodyn_cli.algorithms.motion.ik import MAX_CONDITION, POSTURE_GAIN, InverseKinematics

    _refuse_ik(robot)
    return InverseKinematics(
        robot, link, task=task, q0=q0,
        max_condition=MAX_CONDITION if max_condition is None else max_condition,
        on_singular=on_singular, on_branch_jump=on_branch_jump,
        posture_gain=POSTURE_GAIN if posture_gain is None else posture_gain)


def _refuse_ik(robot: Model) -> None:
    """The table's refusal of a robot inverse kinematics does not solve: mimic joints (its
    task Jacobian is over every joint), no joint."""
    from hodyn_cli import capabilities

    if (robot.mimic[:, 0] >= 0).any():
        capabilities.check("ik", {"mimic"})
    if not robot.n:
        capabilities.check("ik", {"no_joints"})


def _link_motion(fields: Mapping, t: Any) -> LinkMotion:
    from hodyn_cli.core.motion import LinkMotion

    def stacked(base: str, first: int, width: int) -> np.ndarray | None:
        rows, k = [], first
        while derivative_name(base, k) in fields:
            rows.append(np.asarray(fields[derivative_name(base, k)], dtype=float).reshape(-1, width))
            k += 1
        return np.stack(rows, axis=1) if rows else None

    if "p" not in fields:
        raise HodynError("motion: no field 'p' (the link origin, as forward_kinematics gives it)")
    p = np.asarray(fields["p"], dtype=float).reshape(-1, 3)
    R = np.asarray(fields["R"], dtype=float).reshape(-1, 3, 3) if "R" in fields else None
    t = None if t is None else np.atleast_1d(np.asarray(t, dtype=float))
    return LinkMotion(p, R, stacked("Vs", 0, 6), stacked("p", 1, 3), t, stacked("Vb", 0, 6))


def link_jacobian(robot: Model, link: str, *derivatives: Any, order: int = 2,
                  data: Any = None, **named: Any) -> Result:
    """A link's Jacobians and their derivatives (docs/contacts.md): fields ``Js``, ``Js_d``,
    ... (N, 6, m: ``V^s = Js nu``, root frame, world with a floating base) and ``Jb``, ...
    (``V^b = Jb nu``, link frame); ``result.joint_names`` names the columns
    (:func:`jacobian_columns`: a floating root's body twist ``base_wx, ..`` first). ``data``: as for
    :func:`~hodyn_cli.api.dynamics.inverse_dynamics`."""
    from hodyn_cli.algorithms.motion.jacobians import link_jacobian as jacobian

    m = Motion(robot, derivatives, named)
    J = jacobian(robot, m.full, link, order=order, data=data)
    f = 6 if m.full.base is not None else 0

    def columns(A: np.ndarray) -> np.ndarray:
        return np.concatenate([A[..., :f], m.forces(A[..., f:])], axis=-1)

    return m.result(rates("Js", columns(J.Js)) | rates("Jb", columns(J.Jb)),
                    jacobian_columns(robot, bool(f)))


def jacobian_columns(robot: Model, floating_base: bool = False) -> tuple[str, ...]:
    """The names of the columns of :func:`link_jacobian`'s Jacobians (and of the
    floating-base matrices): a floating root's body twist first, then the independent joints.

    >>> from hodyn_cli.api import load_robot
    >>> jacobian_columns(load_robot("urdf/planar_2r.urdf"), floating_base=True)
    ('base_wx', 'base_wy', 'base_wz', 'base_vx', 'base_vy', 'base_vz', 'joint1', 'joint2')
    """
    from hodyn_cli.algorithms.motion.jacobians import ROOT_COLUMNS
    from hodyn_cli.api.robots import coordinates

    return (ROOT_COLUMNS if floating_base else ()) + coordinates(robot)
