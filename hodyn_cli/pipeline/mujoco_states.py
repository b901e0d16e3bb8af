"""MuJoCo's generalized coordinates as hodyn's trajectory (``hodyn import LOG.npz --urdf
MODEL.xml``; docs/mjcf.md): MuJoCo's joint layout is the model's.

A model read from MJCF has MuJoCo's joints in MuJoCo's order, so ``qpos`` is, per sample,

* the joints' values in model order, when the root is welded to the world: a hinge's or
  slide's ``q_J = qpos_J`` (docs/mjcf.md), a ball joint's unit quaternion ``(w, x, y, z)``
  (4 entries in qpos, 3 in qvel: its angular velocity in the body frame, hodyn's ``J_wx,
  J_wy, J_wz``; its rotation becomes the configuration coordinates, the rotation vector
  ``log R``, which a trajectory file writes as ``J_R_11 .. J_R_33``), or
* ``(p, quat, q)`` with 7 more entries in qpos, 6 in qvel: the free joint of the root body
  first (it is the only moving tree: :mod:`hodyn_cli.modeling.mjcf`), its position ``p`` in
  the world and orientation ``quat = (w, x, y, z)``, then the joints.

A free joint's ``qvel = (v, omega_b)`` has the linear velocity of the body's origin in the
world frame and the angular velocity in the body frame (MuJoCo's ``mj_kinematics``,
``mj_comVel``), ``qacc`` their time derivatives ``(vd, omegad_b)``. hodyn's base motion is
the body twist and its derivative in the root frame (docs/floating.md)::

    Vb  = (omega_b; R^T v)
    Vbd = (omegad_b; R^T vd - omega_b x R^T v)       (d/dt R^T = -skew(omega_b) R^T)

``R`` is the quaternion's rotation, normalized first (MuJoCo's kinematics normalizes it
too; so is a ball joint's). A mimic joint (``<equality joint>``) takes its value from its
leader: its qpos entry is dropped.
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import BaseMotion, Trajectory
from hodyn_cli.errors import HodynError

__all__ = ["mujoco_trajectory", "free_root"]

#: a free joint's entries in qpos (p, quat) and qvel (v, omega)
FREE_NQ, FREE_NV = 7, 6
#: a ball joint's entries in qpos (quat); in qvel, its 3 velocity coordinates
BALL_NQ = 4


def _qpos_widths(model: Model) -> list[int]:
    """Each joint's number of qpos entries (MuJoCo's ``nq`` of it)."""
    return [BALL_NQ if kind == "spherical" else 1 for kind in model.joint_types]


def _rotations(quat: np.ndarray, what: str, source: str, start: int) -> np.ndarray:
    """(N, 3, 3) rotations of quaternions ``quat`` (N, 4) ``(w, x, y, z)``, normalized; a zero
    one is an error naming ``what`` and the sample."""
    norm = np.linalg.norm(quat, axis=1)
    if (norm < 1e-9).any():
        raise HodynError(f"qpos of {what}: a zero quaternion at sample "
                         f"{start + int(np.argmax(norm < 1e-9))}", source)
    return np.moveaxis(lie.quaternion_matrix((quat / norm[:, None]).T), -1, 0)


def free_root(model: Model, widths: tuple[int, int | None], source: str) -> bool:
    """Whether a log of ``widths`` (nq, nv; nv None: no qvel) has a free root's coordinates
    before the model's joints; an error naming the file when it fits neither layout."""
    nq, nv = widths
    n, m = sum(_qpos_widths(model)), model.nv
    if nq == n and nv in (None, m):
        return False
    if model.root_link != "world" and nq == n + FREE_NQ and nv in (None, m + FREE_NV):
        return True
    layouts = f"{n}" + ("" if model.root_link == "world" else
                        f" (or {n + FREE_NQ} with the free joint of '{model.root_link}')")
    raise HodynError(f"qpos has {nq} entries per sample"
                     + ("" if nv is None else f", qvel {nv}")
                     + f": the model '{model.name}' has {layouts} (a log of another model?)",
                     source)


def mujoco_trajectory(model: Model, qpos: np.ndarray, qvel: np.ndarray | None = None,
                      qacc: np.ndarray | None = None, t: np.ndarray | None = None, *,
                      free: bool = False, source: str = "", start: int = 0) -> Trajectory:
    """The trajectory of MuJoCo's ``qpos`` (N, nq), ``qvel``, ``qacc`` (N, nv) at times ``t``:
    the joints' q, qd, qdd (``model.coordinate_names``; with ball joints row 0 holds the
    configuration coordinates, a ball joint's rotation vector) and, with ``free``
    (:func:`free_root`), the root's ``base_p``, ``base_R``, ``base_Vb``, ``base_Vbd`` (module
    docstring). Errors name ``source`` and the sample, counted from ``start``.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> acrobot = load_model(Path(__file__).parents[2] / "mjcf" / "acrobot.xml")
    >>> mujoco_trajectory(acrobot, np.array([[0.1, 0.2]])).derivatives.tolist()
    [[[0.1, 0.2]]]
    """
    k = FREE_NQ if free else 0
    v = FREE_NV if free else 0
    rates = [a[:, v:] for a in (qvel, qacc) if a is not None]
    if model.multi_dof:
        derivatives = np.stack([_ball_coordinates(model, qpos[:, k:], source, start), *rates],
                               axis=1)
    else:
        coordinates = list(model.coordinates)
        derivatives = np.stack([s[:, coordinates] for s in [qpos[:, k:], *rates]], axis=1)
    base = None
    if free:
        if qvel is None:
            raise HodynError(f"no array 'qvel': the motion of the free root "
                             f"'{model.root_link}' needs its velocity", source)
        R = _rotations(qpos[:, 3:7], f"the free joint of '{model.root_link}'", source, start)
        w = qvel[:, 3:6]
        vb = np.einsum("nji,nj->ni", R, qvel[:, :3])  # R^T v
        twists = [np.concatenate([w, vb], axis=1)]
        if qacc is not None:
            vbd = np.einsum("nji,nj->ni", R, qacc[:, :3]) - np.cross(w, vb)
            twists.append(np.concatenate([qacc[:, 3:6], vbd], axis=1))
        base = BaseMotion(R, qpos[:, :3].copy(), np.stack(twists, axis=1))
    return Trajectory(model.coordinate_names, derivatives, t=t, base=base)



def _ball_coordinates(model: Model, qpos: np.ndarray, source: str, start: int) -> np.ndarray:
    """(N, nv) configuration coordinates of a model with ball joints from the joints' qpos
    (N, nq): a hinge's or slide's value, a ball joint's rotation vector ``log R(quat)``
    (docs/conventions.md, "Multi-DOF and helical joints")."""
    out = np.empty((len(qpos), model.nv))
    at = np.concatenate([[0], np.cumsum(_qpos_widths(model))])
    for i, (name, kind) in enumerate(zip(model.joint_names, model.joint_types, strict=True)):
        v = int(model.dof_offsets[i])
        if kind == "spherical":
            R = _rotations(qpos[:, at[i]:at[i + 1]], f"ball joint '{name}'", source, start)
            out[:, v:v + 3] = lie.rotation_log(R)
        else:
            out[:, v] = qpos[:, at[i]]
    return out
