"""MJCF (MuJoCo XML) -> :class:`~hodyn_cli.core.model.Model` (docs/mjcf.md).

:mod:`~hodyn_cli.modeling.mjcf_xml` reads the document (includes, defaults, frames,
orientations), :mod:`~hodyn_cli.modeling.mjcf_inertia` computes every body's mass and
inertia as MuJoCo's compiler does; here the screw model is built:

* a body's joints are applied in order, each in the body frame moved by the ones before,
  ``C_body = C_parent T_body E_1(q_1) ... E_k(q_k)`` (MuJoCo's ``mj_kinematics``) with
  ``E = Tr(p) Rot(a, q - ref) Tr(-p)`` for a hinge at ``pos`` p with ``axis`` a and
  ``E = Tr(a (q - ref))`` for a slide: one model joint each, the frame of joint j at its
  anchor, ``B_j = P Tr(p_j) exp(-X_j ref_j)``, ``X = (a; 0)`` or ``(0; a)``, P the offset
  left by the joint before (``Tr(-p)``), the body's mass on the last of them (the ones
  before are massless), so ``q_J`` is MuJoCo's ``qpos`` of joint J;
* a ``ball`` joint at ``pos`` p is ``E = Tr(p) R(quat) Tr(-p)``, its ``qpos`` a unit
  quaternion (qpos0 the identity; ``axis`` and ``ref`` unused): a spherical joint model with
  its frame at the anchor, ``B_j = P Tr(p_j)``, whose rotation R is the quaternion's and whose
  velocity coordinates ``J_wx, J_wy, J_wz`` are MuJoCo's ``qvel`` of it (the angular velocity
  in the body frame); its ``range`` (a cone, MuJoCo's limit on the rotation angle) is no hodyn
  limit: a notice says it is left out;
* a body without joints (static, or mocap) is welded to its parent, as in MuJoCo;
* a ``free`` joint on a body directly under ``<worldbody>`` makes that body the root link
  (the floating base of ``--floating-base``; welded to the world without it); without one
  the root is the world, and every tree under ``<worldbody>`` hangs from it;
* bodies and named sites are the model's links (frames for ``kinematics --link``).

* ``<equality joint>`` with a linear ``polycoef`` couples two joints as a mimic
  (``model.mimic``: :func:`_couplings`);
* ``<equality connect|weld>`` close loops (``model.loop_tables``:
  :mod:`~hodyn_cli.modeling.mjcf_loops`).

Refused in one line naming the element: a free joint below the top level or with other
joints, several free bodies, ``<equality tendon|flex>``, joint equalities but linear
couplings of hinges and slides, inertias that need MuJoCo's convex hull
(:mod:`~hodyn_cli.modeling.mjcf_mesh`).

>>> from pathlib import Path
>>> model = load_mjcf(Path(__file__).parents[2] / "mjcf" / "acrobot.xml")
>>> model.joint_names, model.joint_types, model.parent.tolist()
(('shoulder', 'elbow'), ('continuous', 'continuous'), [-1, 0])
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Diagnostic, LinkFrame, Model
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.limits import placeholder_notice, placeholder_range, turning_type
from hodyn_cli.modeling.mjcf_inertia import BodyInertia, body_inertia, scale_to_total
from hodyn_cli.modeling.mjcf_loops import loop_tables
from hodyn_cli.modeling.mjcf_mesh import MeshLibrary
from hodyn_cli.modeling.mjcf_root import MJCF_ROOT, is_mjcf
from hodyn_cli.modeling.mjcf_xml import Body, Document, Joint, parse_xml, read_document

__all__ = ["load_mjcf", "is_mjcf", "body_inertias", "MJCF_ROOT"]

#: hodyn's default gravity (hodyn_cli.core.gravity), for the notice when a model has another
DEFAULT_GRAVITY = (0.0, 0.0, -9.81)


def load_mjcf(path: str | Path, data: bytes | None = None) -> Model:
    """The model of the MJCF file at ``path`` (``data``: its bytes, if already read)."""
    path = Path(path)
    source = str(path)
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ModelError(f"cannot read MJCF: {e.strerror or e}", source) from None
    root = parse_xml(data, source)
    if root.tag != MJCF_ROOT:
        raise ModelError(f"root element is <{root.tag}>, expected <mujoco>", source)
    return _build(read_document(root, path), source, hashlib.sha256(data).hexdigest())


def body_inertias(path: str | Path) -> dict[str, BodyInertia]:
    """Every body's mass, COM and inertia about it (body frame) as MuJoCo compiles them, by
    body name (an unnamed body: ``body<id>``, MuJoCo's body id)."""
    path = Path(path)
    doc = read_document(parse_xml(path.read_bytes(), str(path)), path)
    bodies = _bodies(doc.world)
    inertia = _inertias(doc, bodies, str(path))
    return {b.name: inertia[id(b)] for b in bodies}


def _pose(pos: np.ndarray, quat: np.ndarray) -> np.ndarray:
    return lie.homogeneous(lie.quaternion_matrix(quat), pos)


def _translation(p: np.ndarray) -> np.ndarray:
    return lie.homogeneous(np.eye(3), p)


def _bodies(world: Body) -> list[Body]:
    """Every body but the world, depth-first in file order (MuJoCo's body ids 1, 2, ...)."""
    out, stack = [], world.children[::-1]
    while stack:
        body = stack.pop()
        out.append(body)
        stack += body.children[::-1]
    return out


def _has_mass(body: Body, inertia: dict[int, BodyInertia]) -> bool:
    """MuJoCo's check of a moving body (``CheckBodyMassInertia``): mass and principal moments
    of at least 1e-15, its own or a static descendant's."""
    i = inertia[id(body)]
    if i.mass >= 1e-15 and np.linalg.eigvalsh(i.theta)[0] >= 1e-15:
        return True
    return any(_has_mass(c, inertia) for c in body.children if not c.joints)


def _inertias(doc: Document, bodies: list[Body], source: str) -> dict[int, BodyInertia]:
    """Every body's inertia as MuJoCo compiles it, ``settotalmass`` applied."""
    meshes = MeshLibrary(doc.meshes, source)
    inertia = {id(b): body_inertia(b, doc.compiler, source, meshes) for b in bodies}
    for b in bodies:
        if b.joints and not _has_mass(b, inertia):
            raise ModelError(f"body '{b.name}' moves (joint '{b.joints[0].name}') but has no mass: "
                             "no <inertial> and no geom with mass (MuJoCo refuses it too)", source)
    total = doc.compiler.settotalmass
    if total > 0:
        counted = {id(b) for b in bodies}
        if doc.compiler.fusestatic:  # static bodies welded to the world are dropped
            counted -= {id(b) for b in _welded_to_world(doc.world)}
        inertia = scale_to_total(inertia, total, counted)
    return inertia


def _welded_to_world(world: Body) -> list[Body]:
    """The static bodies (no joints, not mocap) welded to the world: those ``fusestatic``
    removes with their masses (``mjCModel::FuseStatic``)."""
    out, stack = [], [b for b in world.children if not (b.joints or b.mocap)]
    while stack:
        body = stack.pop()
        out.append(body)
        stack += [c for c in body.children if not (c.joints or c.mocap)]
    return out


def _check_joints(doc: Document, bodies: list[Body], source: str) -> Body | None:
    """The body with the free joint (None: none), after the one-line refusals."""
    free = []
    for b in bodies:
        for j in b.joints:
            if j.type == "free":
                if b not in doc.world.children:
                    raise ModelError(f"joint '{j.name}': a free joint below the top level (body "
                                     f"'{b.name}' is not a child of <worldbody>)", source)
                if len(b.joints) > 1:
                    raise ModelError(f"joint '{j.name}': a free joint with other joints in body "
                                     f"'{b.name}'", source)
                if not b.children and (j.align == "true" or (
                        j.align == "auto" and doc.compiler.alignfree)):
                    raise ModelError(f"joint '{j.name}': a free body aligned to its inertial "
                                     "frame (align, alignfree) is not supported: its frame would "
                                     "be MuJoCo's principal axes", source)
                free.append(b)
    if len(free) > 1:
        raise ModelError(f"several free bodies ({', '.join(repr(b.name) for b in free)}): "
                         "hodyn's model has one floating base", source)
    if free:
        moving = [b.name for b in doc.world.children if b is not free[0] and _moves(b)]
        if moving:
            raise ModelError(f"body '{free[0].name}' is free and the tree of body '{moving[0]}' "
                             "hangs from the world: hodyn's model has one root", source)
    for e in doc.equalities:
        if e.kind not in ("joint", "connect", "weld"):
            raise ModelError(f"{e.label}: {e.kind} equality constraints are not supported",
                             source)
    return free[0] if free else None


def _couplings(doc: Document, build: _Builder, source: str) -> tuple[np.ndarray, list[Diagnostic]]:
    """``model.mimic`` of the joint equalities with a linear ``polycoef`` (a0, a1): MuJoCo's
    ``q1 - ref1 = a0 + a1 (q2 - ref2)`` (``mj_instantiateEquality``, qpos0 = ref) is the
    mimic ``q1 = a1 q2 + (ref1 + a0 - a1 ref2)``; and their info lines."""
    names = build.names
    mimic = np.tile([-1.0, 1.0, 0.0], (len(names), 1))
    notes = []
    for e in doc.equalities:
        if e.kind != "joint":
            continue
        assert e.joint1 is not None and e.polycoef is not None  # a joint equality
        for joint in (e.joint1, e.joint2):
            if joint is not None and (joint not in names
                                      or build.types[names.index(joint)] == "spherical"):
                raise ModelError(f"{e.label}: joint '{joint}' is not a hinge or slide of the "
                                 "model", source)
        if e.joint2 is None:
            raise ModelError(f"{e.label}: joint '{e.joint1}' alone (held at a value): hold it "
                             "with --lock instead", source)
        if e.joint1 == e.joint2:
            raise ModelError(f"{e.label}: joint1 and joint2 are both '{e.joint1}'", source)
        if e.polycoef[2:].any():
            raise ModelError(f"{e.label}: polycoef {' '.join(f'{c:g}' for c in e.polycoef)} is "
                             "not linear (only a0 + a1 q couples joints as a mimic)", source)
        follower, leader = names.index(e.joint1), names.index(e.joint2)
        if mimic[follower, 0] >= 0:
            raise ModelError(f"{e.label}: joint '{e.joint1}' is coupled twice", source)
        a0, a1 = e.polycoef[:2]
        offset = build.refs[follower] + a0 - a1 * build.refs[leader]
        mimic[follower] = (leader, a1, offset)
        notes.append(Diagnostic("info", f"joint '{e.joint1}' follows '{e.joint2}' ({e.label}): "
                                        f"q = {a1:g} q_{e.joint2} + {offset:g}"))
    for f, leader in enumerate(mimic[:, 0].astype(int)):
        if leader >= 0 and mimic[leader, 0] >= 0:
            raise ModelError(f"joint '{names[f]}' follows '{names[leader]}', which follows "
                             "another joint (chains of couplings are not supported)", source)
    return mimic, notes


def _moves(body: Body) -> bool:
    return bool(body.joints) or any(_moves(c) for c in body.children)


class _Builder:
    """The model's arrays, filled body by body."""

    def __init__(self, doc: Document, inertia: dict[int, BodyInertia], source: str):
        self.doc, self.inertia, self.source = doc, inertia, source
        self.names: list[str] = []
        self.types: list[str] = []
        self.link_names: list[str] = []
        self.parents: list[int] = []
        self.B: list[np.ndarray] = []
        self.X: list[np.ndarray] = []
        self.M: list[np.ndarray] = []
        self.limits: list[tuple[float, float]] = []
        self.refs: list[float] = []  # MuJoCo's qpos0 of each joint (radians, metres)
        self.links: dict[str, LinkFrame] = {}
        self.root_M = np.zeros((6, 6))
        self.notes: list[Diagnostic] = []
        #: kind -> the joints whose range is a placeholder (read as none: URDF's rule)
        self.wide: dict[str, list[str]] = {}
        self.shadowed: list[str] = []  # sites named as a body: not links
        self.body_names = {b.name for b in _bodies(doc.world)}

    def place(self, body: Body, on: int, T: np.ndarray) -> None:
        """Body ``body`` rigidly on model body ``on`` (-1: the root) at pose T in its frame,
        then its children."""
        self.links[body.name] = LinkFrame(on, T)
        if id(body) in self.inertia:  # not the world
            i = self.inertia[id(body)]
            if i.mass > 0 or i.theta.any():
                target = self.M[on] if on >= 0 else self.root_M
                target += lie.transform_inertia(lie.body_inertia(i.mass, i.pos, i.theta), T)
        for site in body.sites:
            if site.name in self.body_names or site.name in self.links:
                self.shadowed.append(site.name)
            else:
                self.links[site.name] = LinkFrame(on, T @ _pose(site.pos, site.quat))
        for child in body.children:
            self.visit(child, on, T @ _pose(child.pos, child.quat))

    def visit(self, body: Body, on: int, P: np.ndarray) -> None:
        """Body ``body`` at pose P on model body ``on`` when its own joints are at their
        ``ref``: one model body per joint, the last carrying it."""
        joints = [j for j in body.joints if j.type != "free"]
        for k, j in enumerate(joints):
            on = self.joint(j, body, on, P, last=k == len(joints) - 1)
            P = _translation(-j.pos)
        i = self.inertia[id(body)]
        moved = ", ".join(f"'{j.name}' ({j.type})" for j in body.joints) if body.joints else \
            "no joint (welded to its parent)"
        self.notes.append(Diagnostic("info", f"body '{body.name}', {moved}: {i.mass:.6g} kg, "
                                             f"inertia from {i.source}"))
        self.place(body, on, P)

    def joint(self, j: Joint, body: Body, on: int, P: np.ndarray, last: bool) -> int:
        if j.type == "ball":
            kind, X, B, limits, ref = "spherical", np.zeros(6), np.eye(4), (-np.inf, np.inf), 0.0
            if j.limited != "false" and any(r != 0 for r in j.range):
                self.notes.append(Diagnostic("notice", f"joint '{j.name}' (ball): its range "
                                                       "(a cone on the rotation angle) is no "
                                                       "hodyn limit, left out"))
        else:
            hinge = j.type == "hinge"
            ref = j.ref * (np.pi / 180 if hinge and self.doc.compiler.degree else 1.0)
            axis = j.axis / np.linalg.norm(j.axis)
            X = np.concatenate([axis, np.zeros(3)] if hinge else [np.zeros(3), axis])
            B = lie.homogeneous(*lie.screw_exp(X, np.array(-ref)))
            limits = self._limits(j, body)
            kind = turning_type(limits) if hinge else "prismatic"
        self.names.append(j.name)
        self.types.append(kind)
        self.link_names.append(body.name if last else f"{body.name}:{j.name}")
        self.parents.append(on)
        self.B.append(P @ _translation(j.pos) @ B)
        self.X.append(X)
        self.M.append(np.zeros((6, 6)))
        self.limits.append(limits)
        self.refs.append(ref)
        if not last:
            self.links[self.link_names[-1]] = LinkFrame(len(self.names) - 1, np.eye(4))
        return len(self.names) - 1

    def _limits(self, j: Joint, body: Body) -> tuple[float, float]:
        """``range`` where the joint is limited (``limited``, ``autolimits``), in radians."""
        c = self.doc.compiler
        lo, hi = j.range
        given = not (lo == 0 and hi == 0)
        if j.limited == "auto" and given and not c.autolimits:
            raise ModelError(f"joint '{j.name}' of body '{body.name}' has a range but no "
                             "'limited' (and <compiler autolimits='false'>)", self.source)
        if j.limited == "false" or (j.limited == "auto" and not given):
            return (-np.inf, np.inf)
        if lo >= hi:
            raise ModelError(f"joint '{j.name}': range {lo:g} {hi:g} is empty", self.source)
        scale = np.pi / 180 if j.type == "hinge" and c.degree else 1.0
        kind = "revolute" if j.type == "hinge" else "prismatic"
        if placeholder_range(kind, lo * scale, hi * scale):  # (+-1e16: a rotor's, no range)
            self.wide.setdefault(kind, []).append(j.name)
            return (-np.inf, np.inf)
        return (lo * scale, hi * scale)


def _unique(bodies: list[Body], source: str) -> None:
    """Body and joint names are unique (MuJoCo refuses repeated names too)."""
    for kind, names in (("body", [b.name for b in bodies]),
                        ("joint", [j.name for b in bodies for j in b.joints])):
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ModelError(f"{kind} name '{name}' is used twice", source)
            seen.add(name)


def _build(doc: Document, source: str, sha256: str) -> Model:
    bodies = _bodies(doc.world)
    _unique(bodies, source)
    free = _check_joints(doc, bodies, source)
    inertia = _inertias(doc, bodies, source)
    build = _Builder(doc, inertia, source)
    notes = build.notes
    if free is not None:
        root = free.name
        build.place(free, -1, np.eye(4))
        notes.append(Diagnostic("notice", f"body '{root}' has a free joint: it is the root link, "
                                          "the floating base with --floating-base, welded to the "
                                          "world (its frame the world frame) without"))
        static = [b.name for b in doc.world.children if b is not free]
        if static:
            notes.append(Diagnostic("info", "bodies welded to the world, not to the floating "
                                            f"base, left out: {', '.join(static)}"))
    else:
        root = "world"
        build.place(doc.world, -1, np.eye(4))
    placeholders = placeholder_notice(build.wide)
    if placeholders is not None:
        notes.append(placeholders)
    if build.shadowed:
        notes.append(Diagnostic("info", "sites with a body's name, not links (the body's name is "
                                        f"the body's frame): {', '.join(build.shadowed)}"))
    ignored = [tag for tag in ("actuator", "tendon", "contact", "sensor") if tag in doc.sections]
    notes.append(Diagnostic("info", "MJCF: the kinematic tree and its inertias are read; "
                                    "armature, damping, springs, friction"
                                    + "".join(f", <{t}>" for t in ignored) + " are not "
                                    "(hodyn info --drives-toml, --limits-toml export them)"))
    gravity = None if doc.gravity is None else \
        (float(doc.gravity[0]), float(doc.gravity[1]), float(doc.gravity[2]))
    if gravity is not None and gravity != DEFAULT_GRAVITY:
        notes.append(Diagnostic("notice", f"gravity {' '.join(f'{v:g}' for v in gravity)} from "
                                          "<option gravity> (--gravity overrides it)"))
    mimic, coupled = _couplings(doc, build, source)
    notes += coupled
    refs = dict(zip(build.names, build.refs, strict=True))
    loops, closing = loop_tables(doc, [doc.world, *bodies], refs, set(build.links), source)
    notes += closing
    n = len(build.names)
    return Model(
        name=doc.model, root_link=root, joint_names=tuple(build.names),
        joint_types=tuple(build.types), link_names=tuple(build.link_names),
        parent=np.array(build.parents, dtype=int), B=np.array(build.B).reshape(n, 4, 4),
        X=np.array(build.X).reshape(n, 6), inertias=np.array(build.M).reshape(n, 6, 6),
        root_inertia=build.root_M, limits=np.array(build.limits).reshape(n, 2), mimic=mimic,
        links=build.links, parent_links=tuple(build.link_names[p] if p >= 0 else root
                                              for p in build.parents),
        diagnostics=tuple(notes), source_sha256=sha256, gravity=gravity, loop_tables=loops)

