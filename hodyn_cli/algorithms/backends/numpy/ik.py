"""Inverse kinematics over a block of samples: the task (model, link frame, path), its
Jacobians and pose error, Newton towards the targets and Algorithm 2's rates
(:mod:`hodyn_cli.algorithms.motion.ik` has the method): the numpy backend's ``ik_newton``,
``ik_rates``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb

import numpy as np

from hodyn_cli.algorithms.backends.numpy.kinematics import frame_pose
from hodyn_cli.algorithms.backends.numpy.spatial import forward_pass
from hodyn_cli.core import lie
from hodyn_cli.core.model import LinkFrame, Model

__all__ = ["Task", "jacobians", "pose_error", "newton", "rates", "condition_numbers",
           "task_condition", "matvec"]


@dataclass(frozen=True, eq=False, repr=False)
class Task:
    """One inverse-kinematics task as the backends' operations take it: the model, the link's
    frame (its body and pose T in it), the path of bodies from the root to that body, the
    kind (``pose``: m = 6 task coordinates; ``position``: 3), and where a pose task's
    condition number takes its translational rows: at ``base`` (3,), root axes, in ``unit``
    (m) (:func:`task_condition`; ``ik.base_point``, ``ik.length_unit``)."""

    model: Model
    frame: LinkFrame
    path: np.ndarray
    kind: str
    base: np.ndarray = field(default_factory=lambda: np.zeros(3))
    unit: float = 1.0

    @property
    def m(self) -> int:
        return 6 if self.kind == "pose" else 3

    @property
    def redundant(self) -> bool:
        return len(self.path) > self.m


def jacobians(task: Task, q: np.ndarray):
    """The link pose R (N, 3, 3), p (N, 3), the path's Jacobian J (N, 6, r) (spatial joint
    screws) and the task Jacobian J_t (N, m, r) at joint positions q (N, n)."""
    N = q.shape[0]
    kin = forward_pass(task.model, np.stack([q, np.zeros_like(q)], axis=1), 0)
    R, p = frame_pose(kin, task.frame)
    J = np.stack([kin.Y[i][:, 0] for i in task.path], axis=-1).reshape(N, 6, -1)
    return R, p, J, _point_jacobian(J, p) if task.kind == "position" else J


def pose_error(task: Task, q: np.ndarray, R_target: np.ndarray | None, p_target: np.ndarray):
    """:func:`jacobians` and the task error (N, m) at q towards the targets (R_target: pose
    task only): the rotation log and the translation, as a spatial twist."""
    R, p, J, Jt = jacobians(task, q)
    dp = p_target - p
    if task.kind == "position":
        return R, p, J, Jt, dp
    w = lie.rotation_log(R_target @ np.swapaxes(R, 1, 2))
    return R, p, J, Jt, np.concatenate([w, dp - lie.cross(w, p)], axis=-1)


def newton(task: Task, q: np.ndarray, R: np.ndarray | None, p: np.ndarray, steps: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """Newton from positions q (N, n) towards the link targets R (N, 3, 3; pose task) and p
    (N, 3), at most ``steps`` minimum-norm / least-squares steps (the whole block stops when
    its steps are small): the positions and the largest pose error (N,) there. The numpy
    backend's (the compiled kernel iterates each lane group on its own)."""
    q = q.copy()
    for _ in range(steps):
        Jt, e = pose_error(task, q, R, p)[3:]
        if Jt.shape[1] == Jt.shape[2]:   # square: LU, 3x cheaper than the SVD of pinv
            try:
                dq = np.linalg.solve(Jt, e[..., None])[..., 0]
            except np.linalg.LinAlgError:  # an exactly singular sample: least squares
                dq = (np.linalg.pinv(Jt) @ e[..., None])[..., 0]
        else:
            dq = (np.linalg.pinv(Jt) @ e[..., None])[..., 0]
        q[:, task.path] += dq
        if np.abs(dq).max() <= 1e-14 * (1.0 + np.abs(q).max()):
            break
    e = pose_error(task, q, R, p)[-1]
    return q, np.abs(e).max(axis=1)


def rates(task: Task, q: np.ndarray, y: np.ndarray, q_ref: np.ndarray | None, gain: float
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q and its rates (N, D+1, n) at positions q (N, n) for the task rates y (N, D, m),
    Algorithm 2 (module docstring), the numpy backend's; the condition numbers of J_t (N,);
    and how far (N, D) the rates miss the prescribed ones, relative, where the path has fewer
    joints than task coordinates (least squares; zero otherwise). ``q_ref``, ``gain``: a
    redundant arm's posture term."""
    N, D = y.shape[:2]
    model, path, body = task.model, task.path, task.frame.body
    kin = forward_pass(model, np.stack([q, np.zeros_like(q)], axis=1), 0)
    p = [frame_pose(kin, task.frame)[1]]                         # link origin, derivatives
    Y = {i: [kin.Y[i][:, 0]] for i in path}                      # joint screws, derivatives
    V: dict[int, list[np.ndarray]] = {i: [] for i in path}       # spatial twists
    zero = [np.zeros((N, 6))] * (D + 1)
    qs = np.zeros((N, D + 1, model.n))
    qs[:, 0] = q
    miss = np.zeros((N, D))
    Jt: list[np.ndarray] = []
    for k in range(D):
        Jk = np.stack([Y[i][k] for i in path], axis=-1)          # (N, 6, r)
        if task.kind == "position":
            Jk = _point_jacobian(Jk, p[0]) + sum(
                comb(k, j) * _moment(np.stack([Y[i][k - j] for i in path], axis=-1), p[j])
                for j in range(1, k + 1))
        Jt.append(Jk)
        if k == 0:
            U, S, Vh = np.linalg.svd(Jk, full_matrices=False)   # once per sample
            cond = (np.nan_to_num(S[:, 0] / np.where(S[:, -1] > 0, S[:, -1], np.nan),
                                  nan=np.inf) if not _balanced(task) else task_condition(task, Jk))
            with np.errstate(divide="ignore"):
                pinv = (np.swapaxes(Vh, 1, 2) / S[:, None, :]) @ np.swapaxes(U, 1, 2)
                if task.redundant:                               # A^-1 = U S^-2 U^T
                    inverse_A = (U / S[:, None, :] ** 2) @ np.swapaxes(U, 1, 2)
                    lam: list[np.ndarray] = []
        # k.a) inverse kinematics of order k+1: J_t q^(k+1) = b
        b = y[:, k] - sum(comb(k, j) * matvec(Jt[j], qs[:, k + 1 - j, path]) for j in range(1, k + 1))
        if task.redundant:
            # q^(k+1) = J_t^T lam^(k) + r with J_t q^(k+1) = b, i.e. A lam^(k) = b - J_t r:
            # the lam recursion of the docstring, solved so that the task equation holds
            # to rounding (J_t^T A^-1 = J_t^+ has J_t's condition, A^-1 its square)
            # q' = z + J_t^T lam: the posture term z = K (q_ref - q), z^(k) = -K q^(k)
            assert q_ref is not None  # a redundant arm's posture (the docstring)
            z = (q_ref[path] - q[:, path] if k == 0 else -qs[:, k, path]) * gain
            r = z + sum(comb(k, j) * matvec(np.swapaxes(Jt[j], 1, 2), lam[k - j])
                        for j in range(1, k + 1))
            c = b - matvec(Jt[0], r)
            lam.append(matvec(inverse_A, c))
            qk = matvec(pinv, c) + r
        else:
            qk = matvec(pinv, b)
            if len(path) < task.m:   # least squares: exact only if the task can be followed
                miss[:, k] = np.abs(matvec(Jt[0], qk) - b).max(axis=1) / (
                    1.0 + np.abs(b).max(axis=1))
        qs[:, k + 1, path] = qk
        # k.b) forward kinematics of order k along the path, (6), (9)
        for i in path:
            par = model.parent[i]
            Vp = V[par] if par >= 0 else zero
            V[i].append(Vp[k] + sum(comb(k, j) * qs[:, k + 1 - j, i, None] * Y[i][j]
                                    for j in range(k + 1)))
            Y[i].append(sum(comb(k, j) * lie.bracket(Vp[j], Y[i][k - j]) for j in range(k + 1)))
        Ve = V[body]
        p.append(Ve[k][:, 3:] + sum(comb(k, j) * lie.cross(Ve[j][:, :3], p[k - j])
                                    for j in range(k + 1)))
    if D == 0:
        cond = task_condition(task, jacobians(task, q)[3])
    return qs, cond, miss


def condition_numbers(Jt: np.ndarray) -> np.ndarray:
    """Condition numbers (N,) of the task Jacobians (N, m, r) (inf where singular)."""
    S = np.linalg.svd(Jt, compute_uv=False)
    return np.nan_to_num(S[:, 0] / np.where(S[:, -1] > 0, S[:, -1], np.nan), nan=np.inf)


def task_condition(task: Task, Jt: np.ndarray) -> np.ndarray:
    """The condition numbers (N,) of the task Jacobians J_t (N, m, r), a pose task's with its
    translational rows the velocity of ``task.base``, ``v + w x c``, in ``task.unit``: a pose
    Jacobian's rows are rad/rad and m/rad, so in metres about the root's origin its condition
    number grows like the arm's size or its inverse, and with its base's distance from that
    origin (the iiwa mounted 3 m up: 105 where on the ground it has 10.3; tests/
    test_ik_mounting.py, test_ik_scale.py). The compiled kernel's ``hodyn_ik_rates`` takes
    the same rows (csrc/ik.c, balanced_condition)."""
    if not _balanced(task):
        return condition_numbers(Jt)
    Jt = Jt.copy()
    Jt[:, 3:] += np.cross(Jt[:, :3], task.base, axisa=1, axisc=1)
    Jt[:, 3:] /= task.unit
    return condition_numbers(Jt)


def _balanced(task: Task) -> bool:
    """Whether a pose task's condition number moves its rows (:func:`task_condition`): a
    base off the root's origin or a unit other than 1 m."""
    return task.kind == "pose" and (task.unit != 1.0 or bool(task.base.any()))


def matvec(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    return (A @ x[..., None])[..., 0]


def _point_jacobian(J: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``P(p) J`` (N, 3, r): velocity of the point p for unit rates, ``v + omega x p``."""
    return J[:, 3:] + _moment(J, p)


def _moment(J: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``omega x p`` for every column (N, 3, r) of J (N, 6, r)."""
    return np.swapaxes(lie.cross(np.swapaxes(J[:, :3], 1, 2), p[:, None, :]), 1, 2)
