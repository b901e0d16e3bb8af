"""The read-only multibody model all methods share.

A model is a fixed-base kinematic tree of n bodies, each moved by one 1-DOF joint,
numbered depth-first from the root (``parent[i] < i``, ``-1`` is the root link)::

    C_i(q) = C_parent(i)(q) B_i exp(X_i q_i)            (body-fixed POE, docs/conventions.md)
    C_i(q) = exp(Y_1 q_1) ... exp(Y_i q_i) A_i,  A_i = C_i(0),  Y_i = Ad_{A_i} X_i

Build it once (usually with :func:`hodyn_cli.modeling.urdf.load_model`) and pass it to the
algorithms; nothing mutates it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hodyn_cli.core import lie

__all__ = ["Model", "Diagnostic", "LinkFrame"]


@dataclass(frozen=True)
class Diagnostic:
    """A message about the model found while building it (``level``: info, notice: shown by
    every command, or warning: an error with ``--strict``)."""

    level: str
    message: str


@dataclass(frozen=True)
class LinkFrame:
    """Where a URDF link sits: on ``body`` (-1: the root), at pose ``T`` (4x4) in its frame."""

    body: int
    T: np.ndarray


@dataclass(frozen=True, eq=False)
class Model:
    """Kinematic tree with joint screws and body inertias.

    Attributes (n = number of joints = number of moving bodies):
        name: robot name.
        root_link: name of the fixed root link (the world frame).
        joint_names, joint_types, link_names: per body, the joint that moves it
            (``revolute``, ``continuous`` or ``prismatic``) and its URDF link.
        parent: (n,) int, parent body index, -1 for the root.
        B: (n, 4, 4) pose of body i's frame in its parent's frame at q = 0.
        X: (n, 6) joint screw of body i in its own frame (body-fixed).
        M: (n, 6, 6) body inertia about the body frame origin (fixed links lumped).
        root_M: (6, 6) inertia of the root link and the links welded to it, about the root
            frame origin (moves only with a floating base; its weight is in the base wrench).
        limits: (n, 2) position limits (lower, upper) from the URDF; +-inf if none.
        velocity_limits: (n,) URDF ``<limit velocity>``; +inf if none.
        effort_limits: (n,) URDF ``<limit effort>`` (N m, N for a prismatic joint); +inf if
            none or not positive.
        parent_links: per joint, its URDF parent link (the link that carries its drive).
        reductions: (n,) ``mechanicalReduction`` of the joint's URDF ``<transmission>``,
            NaN where there is none.
        mimic: (n, 3) URDF ``<mimic>``: ``[leader index, multiplier, offset]``, leader -1 for
            an independent joint; ``q_j = multiplier q_leader + offset``.
        links: every URDF link by name, with the body it is rigidly attached to.
        diagnostics: info and warnings found while building the model.
        source_sha256: hash of the URDF the model came from ('' if none).
    """

    name: str
    root_link: str
    joint_names: tuple[str, ...]
    joint_types: tuple[str, ...]
    link_names: tuple[str, ...]
    parent: np.ndarray
    B: np.ndarray
    X: np.ndarray
    M: np.ndarray
    root_M: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    limits: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    velocity_limits: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    effort_limits: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    parent_links: tuple[str, ...] = ()
    reductions: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    mimic: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    links: dict[str, LinkFrame] = field(default_factory=dict)
    diagnostics: tuple[Diagnostic, ...] = ()
    source_sha256: str = ""

    def __post_init__(self):
        if self.limits is None:
            object.__setattr__(self, "limits", np.tile([-np.inf, np.inf], (len(self.joint_names), 1)))
        if self.velocity_limits is None:
            object.__setattr__(self, "velocity_limits", np.full(len(self.joint_names), np.inf))
        if self.effort_limits is None:
            object.__setattr__(self, "effort_limits", np.full(len(self.joint_names), np.inf))
        if self.mimic is None:
            object.__setattr__(self, "mimic", np.tile([-1.0, 1.0, 0.0], (len(self.joint_names), 1)))
        if self.root_M is None:
            object.__setattr__(self, "root_M", np.zeros((6, 6)))
        if self.reductions is None:
            object.__setattr__(self, "reductions", np.full(len(self.joint_names), np.nan))
        for a in (self.parent, self.B, self.X, self.M, self.root_M, self.limits, self.velocity_limits,
                  self.effort_limits, self.reductions, self.mimic):
            a.setflags(write=False)

    def __repr__(self) -> str:
        mimic = len(self.joint_names) - len(self.coordinates)
        return (f"Model({self.name!r}: {self.n} joints{f' ({mimic} mimic)' if mimic else ''}, "
                f"root link {self.root_link!r}, {len(self.links)} links; coordinate_names="
                f"{self.coordinate_names!r})")

    @property
    def n(self) -> int:
        """Number of joints (degrees of freedom)."""
        return len(self.joint_names)

    @property
    def children(self) -> tuple[tuple[int, ...], ...]:
        """Child bodies of each body, in joint order."""
        return tuple(tuple(np.flatnonzero(self.parent == i)) for i in range(self.n))

    @property
    def A(self) -> np.ndarray:
        """(n, 4, 4) reference configurations ``A_i = C_i(0)`` in the root frame."""
        A = np.empty_like(self.B)
        for i, p in enumerate(self.parent):
            A[i] = self.B[i] if p < 0 else A[p] @ self.B[i]
        return A

    @property
    def Y(self) -> np.ndarray:
        """(n, 6) spatial joint screws in the zero configuration, ``Y_i = Ad_{A_i} X_i``."""
        A = self.A
        return np.einsum("nij,nj->ni", lie.Ad(A[:, :3, :3], A[:, :3, 3]), self.X)

    @property
    def mass(self) -> np.ndarray:
        """(n,) body masses (fixed links lumped)."""
        return self.M[:, 3, 3].copy()

    @property
    def com(self) -> np.ndarray:
        """(n, 3) centre of mass of each body in its frame (zero for massless bodies)."""
        m = self.mass
        mc = np.stack([self.M[:, 2, 4], self.M[:, 0, 5], self.M[:, 1, 3]], axis=-1)
        return np.divide(mc, m[:, None], out=np.zeros_like(mc), where=m[:, None] > 0)

    @property
    def ancestry(self) -> np.ndarray:
        """(n, n) bool, ``[i, b]``: body i is body b or one of its ancestors (joint i is on
        the path from the root to body b)."""
        anc = np.eye(self.n, dtype=bool)
        for b, p in enumerate(self.parent):
            if p >= 0:
                anc[:, b] |= anc[:, p]
        return anc

    @property
    def coordinates(self) -> tuple[int, ...]:
        """Indices of the independent joints (not mimicking another): the trajectory's."""
        return tuple(int(i) for i in np.flatnonzero(self.mimic[:, 0] < 0))

    @property
    def coordinate_names(self) -> tuple[str, ...]:
        """Names of the independent joints: the columns trajectories and results carry."""
        return tuple(self.joint_names[i] for i in self.coordinates)

    def joint_index(self, name: str) -> int:
        """Index of the joint called ``name`` (KeyError if there is none)."""
        return self.joint_names.index(name)
