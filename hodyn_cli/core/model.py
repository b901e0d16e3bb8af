"""The read-only multibody model all methods share.

A model is a fixed-base kinematic tree of n bodies, each moved by one joint, numbered
depth-first from the root (``parent[i] < i``, ``-1`` is the root link); n = 0 is a robot
without moving joints, a single rigid body (its root), which moves only as a free body (a
trajectory's floating ``base``)::

    C_i(q) = C_parent(i)(q) B_i exp(X_i q_i)            (body-fixed POE, docs/conventions.md)
    C_i(q) = exp(Y_1 q_1) ... exp(Y_i q_i) A_i,  A_i = C_i(0),  Y_i = Ad_{A_i} X_i

for 1-DOF joints (revolute, continuous, prismatic, helical). A multi-DOF joint (spherical,
planar, free) moves its body by a pose ``J_i`` instead of ``exp(X_i q_i)``, ``C_i = C_parent(i)
B_i J_i``, with ``nv_i`` velocity coordinates ``nu_i``: its body twist is ``J_i^-1 J_i' = S_i
nu_i`` with a motion subspace ``S_i`` (6 x nv_i) constant in the child frame (Pinocchio's
convention; :attr:`Model.subspaces`, :data:`DOF_SUFFIXES`). A 1-DOF joint has ``S_i = X_i``.

Build it once (usually with :func:`hodyn_cli.modeling.urdf.load_model`) and pass it to the
algorithms; nothing mutates it. It checks its invariants when built (parents before
children, array shapes, finite values, unit joint screws, rigid transformations, symmetric
rigid-body inertias): no hand-built model can make an algorithm, or the compiled kernel that
reads its arrays without bounds checks, read out of bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.coupling import Coupling, Linear
from hodyn_cli.errors import ModelError

__all__ = ["Model", "Diagnostic", "LinkFrame", "JOINT_TYPES", "DOF_SUFFIXES", "JOINT_MODELS",
           "joint_pose", "FREE_ROOT", "free_root_name", "with_free_root", "without_free_root"]

JOINT_TYPES = ("revolute", "continuous", "prismatic", "helical", "spherical", "planar", "free")

#: the multi-DOF joint types and the suffixes of their velocity coordinates' names (``J_wx``):
#: spherical ``nu = omega`` (child frame); planar ``nu = (v_u, v_w, omega_n)`` (child frame, in the
#: plane of axes u, w = n x u, turning about its normal n: Pinocchio's JointModelPlanar for n = z,
#: u = x); free ``nu = (omega; v)``, the child's body twist, hodyn's (angular; linear) order.
DOF_SUFFIXES = {"spherical": ("wx", "wy", "wz"), "planar": ("vx", "vy", "wz"),
                "free": ("wx", "wy", "wz", "vx", "vy", "vz")}

#: the joint types that only some operations run yet: the inverse dynamics (numpy's three
#: methods, the compiled body-fixed kernel), numpy's closed-form matrices, regressor, spatial
#: kinematics, sensitivities and forward dynamics (the GPU kernels hand them to their host
#: backend; the other commands refuse them: docs/capabilities.md)
JOINT_MODELS = ("helical", *DOF_SUFFIXES)

#: the name of the free joint that moves a floating root link (:func:`with_free_root`): its
#: velocity coordinates ``base_wx, ..., base_vz`` are the root's body twist, the trajectory's
#: ``base_Vb`` columns, and its torques the wrench its supports exert on it (underscores in
#: front where the robot has a joint or a coordinate of that name: :func:`free_root_name`)
FREE_ROOT = "base"

#: relative tolerance of the model's invariants (unit screws, rotations, symmetric inertias)
TOL = 1e-9


@dataclass(frozen=True)
class Diagnostic:
    """A message about the model found while building it (``level``: info, notice: shown by
    every command, or warning: an error with ``--strict``). ``suggests``: the command-line
    option the message proposes (e.g. ``"--floating-base"``): said only by a command that
    takes that option, run without it (elsewhere it changes nothing the user can choose)."""

    level: str
    message: str
    suggests: str = ""


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
        joint_names, joint_types, link_names: per body, the joint that moves it (one of
            :data:`JOINT_TYPES`) and its URDF link.
        parent: (n,) int, parent body index, -1 for the root.
        B: (n, 4, 4) pose of body i's frame in its parent's frame at q = 0.
        X: (n, 6) joint screw of body i in its own frame (body-fixed): ``(axis; 0)`` revolute,
            ``(0; axis)`` prismatic, ``(axis; pitch axis)`` helical (pitch: m/rad); a planar
            joint's ``(n; u)``, the plane's unit normal and first axis (u perpendicular to n);
            zero for spherical and free joints.
        inertias: (n, 6, 6) body inertia about the body frame origin (fixed links lumped).
        root_inertia: (6, 6) inertia of the root link and the links welded to it, about the root
            frame origin (moves only with a floating base; its weight is in the base wrench).
        limits: (n, 2) position limits (lower, upper) from the URDF; +-inf if none.
        velocity_limits: (n,) URDF ``<limit velocity>``; +inf if none.
        effort_limits: (n,) URDF ``<limit effort>`` (N m, N for a prismatic joint); +inf if
            none or not positive.
        jerk_limits: (n,) URDF 1.2 ``<limit jerk>`` (rad/s^3, m/s^3); +inf if none or not
            positive.
        parent_links: per joint, its URDF parent link (the link that carries its drive).
        reductions: (n,) ``mechanicalReduction`` of the joint's URDF ``<transmission>``,
            NaN where there is none.
        mimic: (n, 3) URDF ``<mimic>``: ``[leader index, multiplier, offset]``, leader -1 for
            an independent joint; ``q_j = multiplier q_leader + offset``.
        links: every URDF link by name, with the body it is rigidly attached to.
        locked: joints of the URDF held fixed (``--lock``: welded into their parents, so
            not among ``joint_names``): a file's columns for them are ignored, not unknown.
        diagnostics: info and warnings found while building the model.
        source_sha256: hash of the URDF the model came from ('' if none).
        gravity: the description's own gravity (gx, gy, gz) in the world frame (MJCF
            ``<option gravity>``), the default of the commands; None: hodyn's
            (:data:`hodyn_cli.core.gravity.GRAVITY`).
        actuated: where closed kinematic loops (``--loops``, docs/loops.md) tie the joints,
            the indices of the actuated joints, the independent coordinates (the rest are
            passive, set by the loops); None: a tree.
        loop_tables: the loops the description itself closes (an MJCF's ``<equality
            connect|weld>``), as the tables of a loops file (docs/loops.md; ``actuated`` left
            out where the description does not say); None: none.
        coupling_kind: how the joints follow the coordinates, a :class:`Coupling` kind (a
            class or factory called with the model) that modeling sets: closed loops'
            (:func:`hodyn_cli.algorithms.motion.loops.close`); None: :class:`Linear` where
            the model has ``mimic`` joints, else the identity.
        coupling: that kind built for this model (and rebuilt by ``dataclasses.replace``):
            what the coordinates' motion is expanded to every joint and the joints' forces
            are projected back through (:mod:`hodyn_cli.core.coupling`).
    """

    name: str
    root_link: str
    joint_names: tuple[str, ...]
    joint_types: tuple[str, ...]
    link_names: tuple[str, ...]
    parent: np.ndarray
    B: np.ndarray
    X: np.ndarray
    inertias: np.ndarray
    root_inertia: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    limits: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    velocity_limits: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    effort_limits: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    jerk_limits: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    parent_links: tuple[str, ...] = ()
    reductions: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    mimic: np.ndarray = None  # type: ignore[assignment]  # defaults: __post_init__
    links: dict[str, LinkFrame] = field(default_factory=dict)
    locked: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    source_sha256: str = ""
    gravity: tuple[float, float, float] | None = None
    actuated: tuple[int, ...] | None = None
    loop_tables: Mapping[str, Any] | None = None
    coupling_kind: Callable[[Model], Coupling] | None = None
    coupling: Coupling = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.limits is None:
            object.__setattr__(self, "limits", np.tile([-np.inf, np.inf], (len(self.joint_names), 1)))
        if self.velocity_limits is None:
            object.__setattr__(self, "velocity_limits", np.full(len(self.joint_names), np.inf))
        if self.effort_limits is None:
            object.__setattr__(self, "effort_limits", np.full(len(self.joint_names), np.inf))
        if self.jerk_limits is None:
            object.__setattr__(self, "jerk_limits", np.full(len(self.joint_names), np.inf))
        if self.mimic is None:
            object.__setattr__(self, "mimic", np.tile([-1.0, 1.0, 0.0], (len(self.joint_names), 1)))
        if self.root_inertia is None:
            object.__setattr__(self, "root_inertia", np.zeros((6, 6)))
        if self.reductions is None:
            object.__setattr__(self, "reductions", np.full(len(self.joint_names), np.nan))
        self._validate()
        for a in (self.parent, self.B, self.X, self.inertias, self.root_inertia, self.limits,
                  self.velocity_limits, self.effort_limits, self.jerk_limits, self.reductions,
                  self.mimic):
            a.setflags(write=False)
        # built last: a kind reads the finished model (closed loops assemble on its kinematics)
        kind = self.coupling_kind or (Linear if (self.mimic[:, 0] >= 0).any() else Coupling)
        object.__setattr__(self, "coupling", kind(self))

    def _validate(self) -> None:
        """The invariants every algorithm (and the compiled kernel, which reads the arrays
        without bounds) relies on; a :class:`ModelError` naming the joint otherwise."""
        n = len(self.joint_names)

        def fail(what: str) -> None:
            raise ModelError(f"model '{self.name}': {what}")

        for name, value in (("joint_types", self.joint_types), ("link_names", self.link_names)):
            if len(value) != n:
                fail(f"{name} has {len(value)} entries for {n} joints")
        shapes = {"parent": (n,), "B": (n, 4, 4), "X": (n, 6), "inertias": (n, 6, 6), "root_inertia": (6, 6),
                  "limits": (n, 2), "velocity_limits": (n,), "jerk_limits": (n,), "reductions": (n,),
                  "mimic": (n, 3)}
        for name, shape in shapes.items():
            value = getattr(self, name)
            if not isinstance(value, np.ndarray) or value.shape != shape:
                fail(f"{name} must be an array of shape {shape}, got "
                     f"{getattr(value, 'shape', type(value).__name__)}")
        if not np.issubdtype(self.parent.dtype, np.integer):
            fail(f"parent must hold integers, got {self.parent.dtype}")
        for name in ("B", "X", "inertias"):
            value = getattr(self, name)
            bad = ~np.isfinite(value).all(axis=tuple(range(1, value.ndim)))
            if bad.any():
                fail(f"joint '{self.joint_names[np.argmax(bad)]}': {name} is not finite")
        for i, (name, kind, p) in enumerate(zip(self.joint_names, self.joint_types, self.parent,
                                                strict=True)):
            what = f"joint '{name}'"
            if not -1 <= p < i:
                fail(f"{what}: parent {p} must be -1 (the root) or a joint before it "
                     "(parents first)")
            if kind not in JOINT_TYPES:
                fail(f"{what}: type '{kind}' (choose from {', '.join(JOINT_TYPES)})")
            expected = _screw_shape(kind, self.X[i])
            if expected:
                fail(f"{what}: a {kind} joint's screw X must be {expected}, got "
                     f"{self.X[i].tolist()}")
            R, row = self.B[i, :3, :3], self.B[i, 3]
            if np.abs(R.T @ R - np.eye(3)).max() > TOL or np.abs(row - (0, 0, 0, 1)).max() > 0:
                fail(f"{what}: B is not a rigid transformation")
            if not _rigid_body_inertia(self.inertias[i]):
                fail(f"{what}: its inertia is not a symmetric rigid-body inertia [[I, skew(h)], "
                     "[-skew(h), m 1]]")
        if not (np.isfinite(self.root_inertia).all() and _rigid_body_inertia(self.root_inertia)):
            fail("root_inertia is not a finite symmetric rigid-body inertia")
        leaders = self.mimic[:, 0]
        bad = (leaders != np.round(leaders)) | (leaders < -1) | (leaders >= n) | \
            (leaders == np.arange(n))
        if bad.any():
            fail(f"joint '{self.joint_names[np.argmax(bad)]}': mimic leader "
                 f"{leaders[np.argmax(bad)]} is not another joint")
        multi = np.array([kind in DOF_SUFFIXES for kind in self.joint_types], dtype=bool)
        coupled = (leaders >= 0) & (multi | multi[np.clip(leaders, 0, None).astype(int)]) \
            if n else np.zeros(0, dtype=bool)
        if coupled.any():
            fail(f"joint '{self.joint_names[np.argmax(coupled)]}': a mimic of or by a "
                 "multi-DOF joint is not supported")
        if self.actuated is not None and multi.any():
            fail(f"joint '{self.joint_names[np.argmax(multi)]}': closed loops with multi-DOF "
                 "joints are not supported")
        if (np.isfinite(self.limits[multi]).any() if n else False):
            fail(f"joint '{self.joint_names[np.argmax(multi & np.isfinite(self.limits).any(1))]}'"
                 ": a multi-DOF joint has no position limits")
        if self.actuated is not None and (any(not 0 <= i < n for i in self.actuated)
                                          or list(self.actuated) != sorted(set(self.actuated))):
            fail(f"actuated {self.actuated} must be increasing joint indices")
        if self.actuated is not None and self.coupling_kind is None:
            fail("closed loops (actuated) need their coupling_kind "
                 "(hodyn_cli.algorithms.motion.loops.close builds it)")
        for link, frame in self.links.items():
            if not -1 <= frame.body < n:
                fail(f"link '{link}' sits on body {frame.body}, not one of -1..{n - 1}")

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (to a Dask worker, by ``client.scatter``; ``--jobs`` threads share the
        model unpickled) without what it builds on first use and keeps (its
        ``cached_property`` values: :attr:`free_rooted`, :attr:`carried`, a whole model each,
        which made a floating base's used model twice the size of a fresh one): the receiver
        builds them again when first asked."""
        return {name: value for name, value in self.__dict__.items()
                if not isinstance(getattr(type(self), name, None), cached_property)}

    def __repr__(self) -> str:
        follow = len(self.joint_names) - len(self.coordinates)
        kind = "mimic" if self.actuated is None else "passive"
        return (f"Model({self.name!r}: {self.n} joints{f' ({follow} {kind})' if follow else ''}, "
                f"root link {self.root_link!r}, {len(self.links)} links; coordinate_names="
                f"{self.coordinate_names!r})")

    @property
    def n(self) -> int:
        """Number of joints (degrees of freedom)."""
        return len(self.joint_names)

    @property
    def dofs(self) -> tuple[int, ...]:
        """Number of velocity coordinates ``nv_i`` of each joint (1, or 3 spherical and planar,
        6 free); its configuration coordinates (:func:`joint_pose`: a rotation vector, not a
        quaternion or matrix) are as many, ``nq_i = nv_i``."""
        return tuple(len(DOF_SUFFIXES.get(kind, "q")) for kind in self.joint_types)

    @property
    def nv(self) -> int:
        """Number of velocity coordinates (degrees of freedom) ``sum nv_i``; n for 1-DOF joints."""
        return sum(self.dofs)

    @property
    def dof_offsets(self) -> np.ndarray:
        """(n + 1,) where each joint's velocity coordinates start (``nu_i`` is
        ``nu[offsets[i]:offsets[i+1]]``)."""
        return np.concatenate([[0], np.cumsum(self.dofs, dtype=int)])

    @cached_property
    def dof_names(self) -> tuple[str, ...]:
        """Names of the velocity coordinates: a 1-DOF joint's name, a multi-DOF joint J's
        ``J_<suffix>`` (:data:`DOF_SUFFIXES`)."""
        return tuple(name for joint, kind in zip(self.joint_names, self.joint_types, strict=True)
                     for name in ((joint,) if kind not in DOF_SUFFIXES else
                                  tuple(f"{joint}_{s}" for s in DOF_SUFFIXES[kind])))

    @cached_property
    def multi_dof(self) -> bool:
        """Whether a joint has several degrees of freedom (spherical, planar or free)."""
        return any(kind in DOF_SUFFIXES for kind in self.joint_types)

    @property
    def has_joint_models(self) -> bool:
        """Whether a joint is one of :data:`JOINT_MODELS` (not revolute, continuous or
        prismatic)."""
        return any(kind in JOINT_MODELS for kind in self.joint_types)

    @property
    def subspaces(self) -> tuple[np.ndarray, ...]:
        """Motion subspaces ``S_i`` (6, nv_i), constant in the child frame: the joint's body
        twist is ``S_i nu_i`` (``X_i`` as a column for 1-DOF joints)."""
        return tuple(_subspace(kind, X) for kind, X in zip(self.joint_types, self.X, strict=True))

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
    def spatial_screws(self) -> np.ndarray:
        """(n, 6) spatial joint screws in the zero configuration, ``Y_i = Ad_{A_i} X_i``."""
        A = self.A
        return np.einsum("nij,nj->ni", lie.Ad(A[:, :3, :3], A[:, :3, 3]), self.X)

    @property
    def mass(self) -> np.ndarray:
        """(n,) body masses (fixed links lumped)."""
        return self.inertias[:, 3, 3].copy()

    @property
    def com(self) -> np.ndarray:
        """(n, 3) centre of mass of each body in its frame (zero for massless bodies)."""
        m = self.mass
        mc = np.stack([self.inertias[:, 2, 4], self.inertias[:, 0, 5], self.inertias[:, 1, 3]], axis=-1)
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

    @cached_property
    def coordinates(self) -> tuple[int, ...]:
        """Indices of the independent joints (not mimicking another; with closed loops the
        actuated ones): the trajectory's."""
        if self.actuated is not None:
            return self.actuated
        return tuple(int(i) for i in np.flatnonzero(self.mimic[:, 0] < 0))

    @cached_property
    def coordinate_names(self) -> tuple[str, ...]:
        """Names of the independent joints: the columns trajectories and results carry; with
        multi-DOF joints (which have no mimic) the velocity coordinates, :attr:`dof_names`."""
        if self.multi_dof:
            return self.dof_names
        return tuple(self.joint_names[i] for i in self.coordinates)

    @cached_property
    def free_rooted(self) -> Model:
        """This robot with its root link moved by a free joint (:func:`with_free_root`),
        built on the first ask and kept with the model (a floating base's every call runs
        it)."""
        return with_free_root(self)

    @cached_property
    def carried(self) -> Model | None:
        """The robot this model's free root joint carries (:func:`without_free_root`), built
        on the first ask and kept with the model; None: no free root joint."""
        return without_free_root(self)

    def joint_index(self, name: str) -> int:
        """Index of the joint called ``name`` (KeyError if there is none)."""
        return self.joint_names.index(name)


def with_free_root(model: Model) -> Model:
    """The robot with its root link moved by a free joint :data:`FREE_ROOT` from a massless
    world: a floating base (docs/floating.md). Body 0 is the root link (its inertia the
    model's ``root_inertia``, ``B_0 = I``), the joints follow as bodies 1..n; the links keep
    their frames (a link on the root is on body 0). The joints' coupling is the caller's: the
    model it gives moves every joint (no mimic, no closed loops: the algorithms run expanded
    trajectories).

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> robot = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> free = with_free_root(robot)
    >>> free.joint_types, free.dof_names[:3], free.parent.tolist()
    (('free', 'revolute', 'revolute'), ('base_wx', 'base_wy', 'base_wz'), [-1, 0, 1])
    >>> without_free_root(free).parent.tolist(), without_free_root(robot) is None
    ([-1, 0], True)
    """
    links = {name: LinkFrame(frame.body + 1, frame.T) for name, frame in model.links.items()}
    return Model(model.name, "world", (free_root_name(model), *model.joint_names),
                 ("free", *model.joint_types), (model.root_link, *model.link_names),
                 np.array([-1, *(model.parent + 1)]), np.concatenate([np.eye(4)[None], model.B]),
                 np.concatenate([np.zeros((1, 6)), model.X]),
                 np.concatenate([model.root_inertia[None], model.inertias]),
                 limits=np.concatenate([[[-np.inf, np.inf]], model.limits]),
                 velocity_limits=np.concatenate([[np.inf], model.velocity_limits]),
                 effort_limits=np.concatenate([[np.inf], model.effort_limits]),
                 jerk_limits=np.concatenate([[np.inf], model.jerk_limits]),
                 parent_links=("world", *model.parent_links) if model.parent_links else (),
                 reductions=np.concatenate([[np.nan], model.reductions]),
                 links=links, locked=model.locked, diagnostics=model.diagnostics,
                 source_sha256=model.source_sha256, gravity=model.gravity)


def free_root_name(model: Model) -> str:
    """:data:`FREE_ROOT`, with as many underscores in front as it takes for neither it nor its
    coordinates (``<name>_wx``, ..., ``<name>_vz``) to be a joint's or a coordinate's name of
    ``model``: a robot may call a joint ``base``, and two joints of one name would be one to
    :meth:`Model.joint_index`.

    >>> from pathlib import Path
    >>> from dataclasses import replace
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> robot = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> free_root_name(robot), free_root_name(replace(robot, joint_names=("base", "_base_vz")))
    ('base', '__base')
    """
    taken = {*model.joint_names, *model.dof_names}
    name = FREE_ROOT
    while name in taken or any(f"{name}_{s}" in taken for s in DOF_SUFFIXES["free"]):
        name = "_" + name
    return name


def without_free_root(model: Model) -> Model | None:
    """The robot a :func:`with_free_root` model carries (joints 1..n on a root whose inertia
    is body 0's), or None unless joint 0 is a free joint from the world at ``B_0 = I``: what a
    backend needs to run a free root by its floating-base kernels (the root's twist jet
    comes in whole, no joint adjoint per sample); its links keep their frames (those on body
    0 are on its root), so that its contact frames are those of the free joint's body; a link
    on the world the free joint hangs from (a URDF's ``world``) is none of its."""
    if not model.n or model.joint_types[0] != "free" or model.parent[0] != -1 \
            or (model.parent[1:] < 0).any() or np.abs(model.B[0] - np.eye(4)).max() > 0:
        return None
    links = {name: LinkFrame(frame.body - 1, frame.T) for name, frame in model.links.items()
             if frame.body >= 0}
    return Model(model.name, model.link_names[0], model.joint_names[1:], model.joint_types[1:],
                 model.link_names[1:], model.parent[1:] - 1, model.B[1:], model.X[1:],
                 model.inertias[1:], root_inertia=model.inertias[0], links=links)


def _rigid_body_inertia(M: np.ndarray) -> bool:
    """M (6, 6) is ``[[I, skew(h)], [-skew(h), m 1]]`` with I symmetric (to TOL of its
    largest entry: with a floor of 1 kg, a body of micrograms passed any asymmetry).

    >>> M = np.diag([2e-12, 2e-12, 2e-12, 1e-9, 1e-9, 1e-9])
    >>> _rigid_body_inertia(M), _rigid_body_inertia(M + 1e-15 * np.eye(6, k=1))
    (True, False)
    """
    scale = np.abs(M).max()
    h = np.array([M[2, 4], M[0, 5], M[1, 3]])
    return bool(np.abs(M - M.T).max() <= TOL * scale
                and np.abs(M[3:, 3:] - M[3, 3] * np.eye(3)).max() <= TOL * scale
                and np.abs(M[:3, 3:] - lie.skew(h)).max() <= TOL * scale)


def _screw_shape(kind: str, X: np.ndarray) -> str:
    """'' if X (6,) is a screw of a ``kind`` joint (docstring of :class:`Model`), else the
    shape it must have."""
    xi, eta = X[:3], X[3:]
    unit = abs(np.linalg.norm(xi) - 1) <= TOL
    if kind in ("revolute", "continuous"):
        return "" if unit and np.abs(eta).max() <= TOL else "(unit axis; 0)"
    if kind == "prismatic":
        return "" if abs(np.linalg.norm(eta) - 1) <= TOL and np.abs(xi).max() <= TOL else \
            "(0; unit axis)"
    if kind == "helical":
        return "" if unit and np.abs(np.cross(xi, eta)).max() <= TOL else \
            "(unit axis; pitch axis)"
    if kind == "planar":
        return "" if unit and abs(np.linalg.norm(eta) - 1) <= TOL and abs(xi @ eta) <= TOL \
            else "(unit normal n; unit axis u perpendicular to n)"
    return "" if not X.any() else "0"


def joint_pose(kind: str, X: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pose ``J = (R, p)`` ((N, 3, 3), (N, 3)) of a multi-DOF joint of type ``kind`` with
    screw X (6,) at its configuration coordinates q (N, nv) (docs/conventions.md, "Multi-DOF
    joints"): spherical ``q = r``, ``R = exp(skew(r))`` (a rotation vector), p = 0; planar
    ``q = (x, y, theta)``, ``R = exp(theta skew(n))``, ``p = x u + y (n x u)``; free
    ``q = (r; p)``.

    >>> R, p = joint_pose("planar", np.array([0, 0, 1.0, 1, 0, 0]), np.array([[1, 2, np.pi / 2]]))
    >>> R.round(12)[0, :2, :2] + 0.0, p.tolist()
    (array([[ 0., -1.],
           [ 1.,  0.]]), [[1.0, 2.0, 0.0]])
    """
    N = q.shape[0]
    if kind == "spherical":
        return lie.rotation_vector_exp(q), np.zeros((N, 3))
    if kind == "free":
        return lie.rotation_vector_exp(q[:, :3]), q[:, 3:].copy()
    if kind == "planar":
        n, u = X[:3], X[3:]
        return lie.rotation_exp(n, q[:, 2]), q[:, :1] * u + q[:, 1:2] * np.cross(n, u)
    raise ValueError(f"a {kind} joint has one coordinate: lie.screw_exp gives its pose")


def _subspace(kind: str, X: np.ndarray) -> np.ndarray:
    """``S`` (6, nv) of a joint of type ``kind`` with screw X (:data:`DOF_SUFFIXES`)."""
    if kind == "spherical":
        return np.eye(6)[:, :3]
    if kind == "free":
        return np.eye(6)
    if kind == "planar":
        n, u = X[:3], X[3:]
        S = np.zeros((6, 3))
        S[3:, 0], S[3:, 1], S[:3, 2] = u, np.cross(n, u), n
        return S
    return X[:, None].copy()
