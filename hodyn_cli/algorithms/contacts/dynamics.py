"""Inverse dynamics of a floating-base robot on its contacts: the contact wrenches that carry
the base wrench, the joint torques with them applied, and the time derivatives of both.

1. The floating-base inverse dynamics (:mod:`hodyn_cli.algorithms.dynamics.floating`) gives the
   base wrench W and its derivatives: what the root would need from a support.
2. At each sample the active contacts (trajectory columns ``contact_<name>``) take it over:
   the minimum weighted-norm distribution of ``b = -W`` and its derivatives
   (:mod:`~hodyn_cli.algorithms.contacts.distribution`), from the jets of the contact frames
   (:mod:`~hodyn_cli.algorithms.contacts.frames`). Samples with the same active contacts (a
   phase of the gait) are solved together; the derivatives are those of each phase's closed
   form, and where the active set switches the wrenches and torques jump.
3. The contact wrenches, moved to their links as external wrenches (what the link exerts on
   the ground: minus the ground reaction, link frame, moment about its origin, with the
   derivatives of the frame's turning for a point's world-axes force), join the trajectory's
   own, and the floating-base inverse dynamics runs again: the joint torques with the
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

from hodyn_cli.algorithms.contacts.distribution import distribute
from hodyn_cli.algorithms.contacts.frames import contact_frames, root_rotation
from hodyn_cli.algorithms.dynamics import floating
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.core import jets, lie
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.modeling.contacts import Contact, flag_column

__all__ = ["OnContacts", "on_contacts", "active_flags", "contact_wrenches", "with_contacts",
           "switches", "COLLINEAR"]

#: three or more points count as on one line (no moment about it) below this ratio of their
#: spread across to along it
COLLINEAR = 1e-6


@dataclass(frozen=True)
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
                gravity=GRAVITY) -> OnContacts:
    """The motion on its contacts (module docstring): ``trajectory`` over all joints with a
    floating ``base``; ``active`` (N, m) bool, default :func:`active_flags`."""
    if trajectory.base is None:
        raise HodynError("contacts carry a floating base: give the root's motion (--floating-base)")
    if not contacts:
        raise HodynError("no contacts")
    active = active_flags(trajectory, contacts) if active is None else np.asarray(active, bool)
    if active.shape != (trajectory.n_samples, len(contacts)):
        raise HodynError(f"active: expected shape ({trajectory.n_samples}, {len(contacts)}), "
                         f"got {active.shape}")
    _, W = floating.inverse_dynamics(model, trajectory, method=method, order=order,
                                     gravity=gravity)
    F = contact_wrenches(model, trajectory, contacts, active, -W)
    tau, left = floating.inverse_dynamics(model, with_contacts(model, trajectory, contacts, F,
                                                               order),
                                          method=method, order=order, gravity=gravity)
    return OnContacts(tau, left, F, active)


def with_contacts(model: Model, trajectory: Trajectory, contacts: tuple[Contact, ...],
                  F: dict[str, np.ndarray], order: int) -> Trajectory:
    """The trajectory with the contact wrenches F (contact name -> jets) among its external
    wrenches (module docstring, 3.), to derivative ``order``."""
    W_links = {} if trajectory.wrenches is None else {
        link: w[:, : order + 1] for link, w in trajectory.wrenches.W.items()}
    for link, w in _link_wrenches(model, trajectory, contacts, F, order).items():
        W_links[link] = W_links[link] + w if link in W_links else w
    return replace(trajectory, wrenches=Wrenches(W_links))


def contact_wrenches(model: Model, trajectory: Trajectory, contacts: tuple[Contact, ...],
                     active: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    """The distribution of ``b`` (N, K+1, 6), what the root needs from its supports (root
    frame), over the active contacts, per phase (module docstring)."""
    N, K = b.shape[0], b.shape[1] - 1
    frames = contact_frames(model, trajectory.derivatives, contacts, K)
    assert trajectory.base is not None  # contacts hold a floating base (capabilities)
    R0 = root_rotation(trajectory.base.R, trajectory.base.Vb, K)
    out = {c.name: np.zeros((N, K + 1, c.size)) for c in contacts}
    patterns, phase = np.unique(active, axis=0, return_inverse=True)
    for p, pattern in enumerate(patterns):
        on = np.flatnonzero(pattern)
        rows = np.flatnonzero(phase.reshape(-1) == p)
        if not on.size:  # in the air: nothing to distribute
            continue
        chosen = [contacts[c] for c in on]
        A = np.concatenate([_map(c, frames[i], R0, rows) for c, i in zip(chosen, on, strict=True)],
                           axis=-1)
        Hinv = _block_diagonal([c.inverse_weights() for c in chosen])
        rank, line = _rank(chosen, [frames[i].p[rows] for i in on], trajectory, rows)
        F, _ = distribute(A, Hinv, b[rows], rank, line)
        start = 0
        for c in chosen:
            out[c.name][rows] = F[..., start : start + c.size]
            start += c.size
    return out


def _map(c: Contact, frame, R0: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The jet of ``A_c`` (rows, K+1, 6, size): contact c's wrench moved to the root."""
    R, S = frame.R[rows], lie.skew(frame.p[rows])   # skew is linear: derivative by derivative
    if c.kind == "point":
        Rt = jets.transpose(R0[rows])
        return np.concatenate([jets.product(S, Rt), Rt], axis=-2)
    top = np.concatenate([R, jets.product(S, R)], axis=-1)
    return np.concatenate([top, np.concatenate([np.zeros_like(R), R], axis=-1)], axis=-2)


def _block_diagonal(blocks: list[np.ndarray]) -> np.ndarray:
    size = sum(b.shape[0] for b in blocks)
    out, start = np.zeros((size, size)), 0
    for b in blocks:
        out[start : start + b.shape[0], start : start + b.shape[0]] = b
        start += b.shape[0]
    return out


def _rank(chosen: list[Contact], points: list[np.ndarray], trajectory: Trajectory,
          rows: np.ndarray) -> tuple[str, np.ndarray | None]:
    """Which moments the contacts can take (:data:`~.distribution.RANKS`) and, for two
    points, the jet of the line through them."""
    if any(c.kind == "surface" for c in chosen):
        return "full", None
    if len(chosen) == 1:
        return "none", None
    if len(chosen) == 2:
        return "line", points[1] - points[0]
    P = np.stack([p[:, 0] for p in points], axis=1)   # (rows, m, 3)
    sv = np.linalg.svd(P - P.mean(axis=1, keepdims=True), compute_uv=False)
    flat = np.flatnonzero(sv[:, 1] <= COLLINEAR * sv[:, 0])
    if flat.size:
        names = ", ".join(c.name for c in chosen)
        raise HodynError(f"the active point contacts {names} are on one line at "
                         f"{_when(trajectory, rows[flat[0]])}: they take no moment about it "
                         "(make one a surface, or activate a point off the line)")
    return "full", None


def _link_wrenches(model: Model, trajectory: Trajectory, contacts: tuple[Contact, ...],
                   F: dict[str, np.ndarray], order: int) -> dict[str, np.ndarray]:
    """The contact wrenches as external wrenches of their links (link frame, moment about its
    origin, what the link exerts: minus the ground reaction), with their derivatives."""
    out: dict[str, np.ndarray] = {}
    K = order
    points = [c for c in contacts if c.kind == "point"]
    if points:
        frames = contact_frames(model, trajectory.derivatives, tuple(points), K)
        assert trajectory.base is not None  # contacts hold a floating base (capabilities)
        R0t = jets.transpose(root_rotation(trajectory.base.R, trajectory.base.Vb, K))
    for c in contacts:
        G = F[c.name]
        if c.kind == "point":  # f in the link's axes: R_{0c}^T R_0^T f, at the point
            Rt = jets.transpose(frames[points.index(c)].R)
            f = jets.product(Rt, jets.product(R0t, G[..., None]))[..., 0]
            G = np.concatenate([lie.cross(c.T[:3, 3], f), f], axis=-1)
            w = -G
        else:
            w = -G @ lie.Ad_inv(c.T[:3, :3], c.T[:3, 3])  # (Ad_{T^-1}^T G)^T, row-wise
        out[c.link] = out[c.link] + w if c.link in out else w
    return out
