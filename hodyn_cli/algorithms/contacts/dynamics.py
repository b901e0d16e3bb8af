"""Inverse dynamics of a floating-base robot on its contacts: the contact wrenches that carry
the base wrench, the joint torques with them applied, and the time derivatives of both.

1. The inverse dynamics of the robot under its free root joint (the floating base:
   :mod:`hodyn_cli.algorithms.dynamics.floating`) gives the free joint's torque, the wrench
   ``F_0 = -W`` the root would need from a support (W the base wrench), and its derivatives.
2. At each sample the active contacts (trajectory columns ``contact_<name>``) take it over:
   the minimum weighted-norm distribution of ``b = -W`` and its derivatives
   (:mod:`~hodyn_cli.algorithms.backends.numpy.contacts`), from the jets of the contact frames
   on the free joint's body and of its rotation (:mod:`~hodyn_cli.algorithms.contacts.frames`).
   Samples with the same active contacts (a
   phase of the gait) are solved together; the derivatives are those of each phase's closed
   form, and where the active set switches the wrenches and torques jump.
3. The contact wrenches, moved to their links as external wrenches (what the link exerts on
   the ground: minus the ground reaction, link frame, moment about its origin, with the
   derivatives of the frame's turning for a point's world-axes force), join the trajectory's
   own, and the robot under its free root joint runs again: the joint torques with the
   contacts, and the base wrench left over (zero where the contacts carry it all; a couple
   where one or two points cannot, see the distribution).

>>> from pathlib import Path
>>> from dataclasses import replace
>>> from hodyn_cli.modeling.urdf import load_model
>>> from hodyn_cli.modeling.contacts import contacts_from_table
>>> from hodyn_cli.core.trajectory import BaseMotion, cosine
>>> model = load_model(Path(__file__).parents[3] / "urdf" / "quadruped.urdf")
>>> feet = contacts_from_table(model, {leg: {"link": f"{leg}_foot", "type": "point",
...                                          "friction": 0.8} for leg in ("FL", "FR", "HL")})
>>> traj = cosine(model.joint_names, [0.0], amplitude=0, omega=1, offset=0.3, orders=4)
>>> traj = replace(traj, base=BaseMotion(np.eye(3)[None], np.zeros((1, 3)), np.zeros((1, 3, 6))))
>>> r = on_contacts(model, traj, feet, order=0)
>>> float(sum(f[0, 0, 2] for f in r.wrenches.values()).round(9))   # the feet carry the weight, 2.98 kg
29.2338
>>> float(np.abs(r.W).max()) < 1e-12                                # nothing left on the base
True
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.contacts import in_contact_axes
from hodyn_cli.algorithms.contacts.frames import root_rotation
from hodyn_cli.algorithms.dynamics import floating, methods
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches, free_root_motion
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.modeling.contacts import Contact, flag_column

__all__ = ["OnContacts", "on_contacts", "active_flags", "contact_wrenches", "with_contacts",
           "contact_frames_jets", "switches", "COLLINEAR"]

#: three or more points count as on one line (no moment about it) below this ratio of their
#: spread across to along it
COLLINEAR = 1e-6


@dataclass(frozen=True, eq=False, repr=False)
class OnContacts:
    """A motion on its contacts at N samples, to derivative order K.

    Attributes:
        tau: (N, K+1, n) joint torques with the contact wrenches applied.
        W: (N, K+1, 6) the base wrench left over (root link frame, what the root still
            exerts on a support): zero where the active contacts carry it all.
        wrenches: contact name -> (N, K+1, 3) force of a point (world axes) or (N, K+1, 6)
            wrench of a surface (moment; force, its contact frame, about its origin): ground
            reactions, zero where the contact is not active.
        active: (N, m) which contacts carry the robot, in the contacts' order.
    """

    tau: np.ndarray
    W: np.ndarray
    wrenches: dict[str, np.ndarray]
    active: np.ndarray


def _when(trajectory: Trajectory, s: int) -> str:
    return f"t = {trajectory.t[s]:.6g} s" if trajectory.t is not None else f"sample {s}"


def active_flags(trajectory: Trajectory, contacts: tuple[Contact, ...]) -> np.ndarray:
    """(N, m) bool: the trajectory's ``contact_<name>`` series (1 or 0), True where a contact
    has none; a one-line error names a value that is neither."""
    series = trajectory.series or {}
    out = np.ones((trajectory.n_samples, len(contacts)), dtype=bool)
    for c, contact in enumerate(contacts):
        flag = series.get(flag_column(contact.name))
        if flag is None:
            continue
        flag = np.asarray(flag, dtype=float).reshape(-1)
        bad = np.flatnonzero((flag != 0) & (flag != 1))
        if bad.size:
            raise TrajectoryError(f"column '{flag_column(contact.name)}' at "
                                  f"{_when(trajectory, bad[0])}: {flag[bad[0]]:g} is not 1 "
                                  "(in contact) or 0")
        out[:, c] = flag == 1
    return out


def switches(active: np.ndarray) -> np.ndarray:
    """The samples (indices) where the active set differs from the sample before."""
    return np.flatnonzero((active[1:] != active[:-1]).any(axis=1)) + 1


def on_contacts(model: Model, trajectory: Trajectory, contacts: tuple[Contact, ...], *,
                active: np.ndarray | None = None, method: str = "body-fixed", order: int = 2,
                gravity=GRAVITY, data: backends.Data | None = None) -> OnContacts:
    """The motion on its contacts (module docstring): ``trajectory`` over all joints with a
    floating ``base``, or ``model`` a robot under its free root joint
    (:func:`~hodyn_cli.core.model.with_free_root`) and ``trajectory`` its motion
    (:func:`~hodyn_cli.core.trajectory.free_root_motion`); ``active`` (N, m) bool, default
    :func:`active_flags`; ``data``: the backend's Data for the model
    (:func:`~hodyn_cli.algorithms.backends.prepare`)."""
    robot = model if trajectory.base is not None else model.carried
    if robot is None:
        raise HodynError("contacts carry a floating base: give the root's motion (--floating-base)")
    if not contacts:
        raise HodynError("no contacts")
    active = active_flags(trajectory, contacts) if active is None else np.asarray(active, bool)
    if active.shape != (trajectory.n_samples, len(contacts)):
        raise HodynError(f"active: expected shape ({trajectory.n_samples}, {len(contacts)}), "
                         f"got {active.shape}")
    if robot is model:
        _, data = backends.prepare(model, data)
        free, motion, free_data = floating.free_root(model, trajectory, order, data)
    else:  # the robot under its free root joint already: the carried robot's Data made here
        free, motion, free_data, data = model, trajectory, data, None
    F0 = methods.inverse_dynamics(free, motion, method=method, order=order, gravity=gravity,
                                  data=free_data)[..., :6]   # b = -W: the free joint's tau
    F, Fc = contact_wrenches(robot, motion, contacts, active, F0, data)
    out = methods.inverse_dynamics(free, _with_link_wrenches(motion, contacts, Fc, order),
                                   method=method, order=order, gravity=gravity, data=free_data)
    return OnContacts(out[..., 6:], np.negative(out[..., :6]), F, active)


def contact_frames_jets(model: Model, motion: Trajectory, contacts: tuple[Contact, ...],
                        K: int, data: backends.Data | None = None
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The jets of every contact frame relative to the root, R (N, m, K+1, 3, 3) and p (N, m,
    K+1, 3) (the backend's :meth:`contact_frames` of ``model``, the robot the free root
    joint carries), and of the root's orientation (N, K+1, 3, 3:
    :func:`~hodyn_cli.algorithms.contacts.frames.root_rotation`) where a point's force
    (world axes) needs it, else None; ``motion`` the robot's under its free root joint
    (:func:`~hodyn_cli.core.trajectory.free_root_motion`: that joint's six columns first)."""
    backend, data = backends.prepare(model, data)
    qs = motion.derivatives
    R, p = backend.contact_frames(model, data, qs[..., 6:], contacts, K)
    R0 = root_rotation(qs, K) if any(c.kind == "point" for c in contacts) else None
    return R, p, R0


def with_contacts(model: Model, trajectory: Trajectory, contacts: tuple[Contact, ...],
                  F: dict[str, np.ndarray], order: int, data: backends.Data | None = None
                  ) -> Trajectory:
    """The trajectory (with a floating ``base``) with the contact wrenches F (contact name ->
    jets) among its external wrenches (module docstring, 3.), to derivative ``order``."""
    F = {name: f[:, : order + 1] for name, f in F.items()}
    motion = free_root_motion(trajectory, model.free_rooted.dof_names)
    R, _, R0 = contact_frames_jets(model, motion, contacts, order, data)
    Fc = {c.name: in_contact_axes(R[:, i], R0, F[c.name], c.kind == "point")
          for i, c in enumerate(contacts)}
    return _with_link_wrenches(trajectory, contacts, Fc, order)


def _with_link_wrenches(trajectory: Trajectory, contacts: tuple[Contact, ...],
                        Fc: dict[str, np.ndarray], order: int) -> Trajectory:
    """:func:`with_contacts` from the wrenches in the contacts' axes, Fc (contact name ->
    jets): the contact wrenches as external wrenches of their links (link frame, moment
    about its origin, what the link exerts: minus the ground reaction)."""
    W_links = {} if trajectory.wrenches is None else {
        link: w[:, : order + 1] for link, w in trajectory.wrenches.W.items()}
    for c in contacts:
        G = Fc[c.name]
        if c.kind == "point":  # the force at the point, in the link's (= the frame's) axes
            G = np.concatenate([lie.cross(c.T[:3, 3], G), G], axis=-1)
            w = -G
        else:
            w = -G @ lie.Ad_inv(c.T[:3, :3], c.T[:3, 3])  # (Ad_{T^-1}^T G)^T, row-wise
        W_links[c.link] = W_links[c.link] + w if c.link in W_links else w
    return replace(trajectory, wrenches=Wrenches(W_links))


def contact_wrenches(model: Model, motion: Trajectory, contacts: tuple[Contact, ...],
                     active: np.ndarray, b: np.ndarray, data: backends.Data | None = None
                     ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The distribution of ``b`` (N, K+1, 6), what the root needs from its supports (root
    frame: the free root joint's tau), over the active contacts, per phase (module
    docstring): contact name -> jets of its ground reaction, and of the same in its frame's
    axes (:func:`~hodyn_cli.algorithms.backends.numpy.contacts.in_contact_axes`); ``motion``
    as :func:`contact_frames_jets` takes it. Each phase is the backend's
    :meth:`contact_share`."""
    N, K = b.shape[0], b.shape[1] - 1
    backend, data = backends.prepare(model, data)
    R, p, R0 = contact_frames_jets(model, motion, contacts, K, data)
    point = np.array([c.kind == "point" for c in contacts])
    out = {c.name: np.zeros((N, K + 1, c.size)) for c in contacts}
    local = {c.name: np.zeros((N, K + 1, c.size)) for c in contacts}
    for on, rows in _phases(active):
        if not on.size:  # in the air: nothing to distribute
            continue
        chosen = [contacts[c] for c in on]
        Hinv = _block_diagonal([c.inverse_weights() for c in chosen])
        rank = _rank(chosen, p[rows[:, None], on, 0], motion, rows)
        F, _, Fc = backend.contact_share(R, p, R0, point, on, rows, Hinv, b, rank)
        start = 0
        for c in chosen:
            out[c.name][rows] = F[..., start : start + c.size]
            local[c.name][rows] = Fc[..., start : start + c.size]
            start += c.size
    return out, local


def _phases(active: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(active contacts, samples) of each distinct row of ``active`` (N, m) bool, in the
    rows' lexicographic order (the rows packed into bytes: np.unique of bytes, not of rows,
    ~20x faster)."""
    packed = np.ascontiguousarray(np.packbits(active, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
    _, first, phase = np.unique(keys, return_index=True, return_inverse=True)
    phase = phase.reshape(-1)
    return [(np.flatnonzero(active[s]), np.flatnonzero(phase == p)) for p, s in enumerate(first)]


def _block_diagonal(blocks: list[np.ndarray]) -> np.ndarray:
    size = sum(b.shape[0] for b in blocks)
    out, start = np.zeros((size, size)), 0
    for b in blocks:
        out[start : start + b.shape[0], start : start + b.shape[0]] = b
        start += b.shape[0]
    return out


def _collinear(X: np.ndarray) -> np.ndarray:
    """The rows of X (rows, m, 3: points about their mean) whose singular values have
    ``sigma_1 <= COLLINEAR sigma_0``: the points on one line. The SVD decides, on the rows
    a cheap bound cannot clear: with ``M = X^T X`` (eigenvalues ``sigma_i^2``), ``e1 = tr M >=
    sigma_0^2`` and ``e2 = ((tr M)^2 - |M|_F^2) / 2 = sum_{i<j} sigma_i^2 sigma_j^2 <= 3
    sigma_0^2 sigma_1^2``, so such points have ``e2 <= 3 COLLINEAR^2 e1^2`` (a margin of 100
    for the rounding of e2's difference). Points with not-a-number (a library caller's NaN
    in q) are on no line: their forces come out not-a-number, as every result of that
    sample does."""
    M = np.einsum("nki,nkj->nij", X, X)
    e1 = np.trace(M, axis1=1, axis2=2)
    e2 = (e1**2 - (M**2).sum(axis=(1, 2))) / 2
    near = np.flatnonzero(~(e2 > 300 * COLLINEAR**2 * e1**2) & np.isfinite(e1))
    if not near.size:
        return near
    sv = np.linalg.svd(X[near], compute_uv=False)
    return near[sv[:, 1] <= COLLINEAR * sv[:, 0]]


def _rank(chosen: list[Contact], P: np.ndarray, trajectory: Trajectory, rows: np.ndarray
          ) -> str:
    """Which moments the contacts can take
    (:data:`~hodyn_cli.algorithms.backends.numpy.contacts.RANKS`), from their points
    P (rows, m, 3)."""
    if any(c.kind == "surface" for c in chosen):
        return "full"
    if len(chosen) == 1:
        return "none"
    if len(chosen) == 2:
        return "line"
    flat = _collinear(P - P.mean(axis=1, keepdims=True))
    if flat.size:
        names = ", ".join(c.name for c in chosen)
        raise HodynError(f"the active point contacts {names} are on one line at "
                         f"{_when(trajectory, rows[flat[0]])}: they take no moment about it "
                         "(make one a surface, or activate a point off the line)")
    return "full"
