"""URDF -> :class:`~hodyn_cli.core.model.Model` (docs/conventions.md, "URDF → model").

The XML is parsed here first, safely (no DTD loading, no entity expansion, no
network access), and checked element by element so that a bad file gives one line
naming the link or joint; :mod:`hodyn_cli.modeling.urdf_xml` turns the checked document into
plain objects, from which the screw model is built:

* body frame of a link = its URDF link frame; ``B_i`` = joint ``<origin>``;
* revolute/continuous: ``X_i = (axis; 0)``, prismatic: ``X_i = (0; axis)``; a ``floating``
  joint is a free joint, a ``planar`` one a planar joint in the plane normal to its axis
  (:func:`planar_screw`: ``X_i = (axis; u)``);
* fixed joints are merged: inertias lumped into the moving ancestor, ``B`` composed;
* bodies are numbered depth-first from the root, children in file order.

>>> from pathlib import Path
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> model.joint_names, model.parent.tolist()
(('joint1', 'joint2'), [-1, 0])
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
from lxml import etree

from hodyn_cli.core import lie
from hodyn_cli.core.model import Diagnostic, LinkFrame, Model
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling import xacro_expand
from hodyn_cli.modeling.joint_files import LARGEST
from hodyn_cli.modeling.limits import (
    PHYSICAL_RANGE,
    placeholder_notice,
    placeholder_range,
    turning_type,
    urdf_bounds,
)
from hodyn_cli.modeling.mjcf_root import is_mjcf
from hodyn_cli.modeling.urdf_xml import read_robot

__all__ = ["load_model", "parse_model", "consistent_inertia", "TRIANGLE_RTOL"]

MOVING = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
          "floating": "free", "planar": "planar"}

#: Principal moments may violate the triangle inequality by this fraction of the trace
#: before a warning. Identified models sit on the boundary: the iiwa table of Mueller &
#: Kumar (5 decimals) meets it with equality on the diagonal for links 2, 4, 7, and its
#: rounded off-diagonal terms push the principal moments of links 4 and 7 over by 0.29 %
#: and 0.26 % of the trace. Real mistakes (a mistyped or swapped moment) are tens of %.
TRIANGLE_RTOL = 1e-2

#: suffixes of trajectory, result and log files (given where the robot was meant)
DATA_FILES = (".csv", ".h5", ".hdf5", ".bag", ".mcap", ".db3", ".json", ".toml")

#: kg and kg m^2: larger values overflow float64 in the higher-order recursions (the bound of
#: every number hodyn reads, :data:`~hodyn_cli.modeling.joint_files.LARGEST`)
MAX_INERTIA = LARGEST

#: A principal moment negative by at most this fraction of the link's inertia scale (the
#: trace of its rotational inertia about the link frame, which counts ``m |c|^2``) is
#: rounding: it is taken as zero, silently (iCub's ``ixz="1.35525e-20"`` on a point mass).
ROUNDING = 1e-12

REPAIR_HINT = "--repair-inertia projects it onto the nearest physically consistent inertia"


def load_model(path: str | Path, *, strict: bool = False,
               xacro_args: dict[str, str] | None = None, repair_inertia: bool = False,
               ignore_broken_mimic: bool = False) -> Model:
    """Read a URDF file (or an MJCF one, whose root is ``<mujoco>``:
    :func:`hodyn_cli.modeling.mjcf.load_mjcf`) into a model. ``strict`` turns warnings into errors;
    ``repair_inertia`` replaces physically impossible link inertias (negative mass, principal
    moments negative or violating the triangle inequality) by the nearest consistent ones
    (:func:`consistent_inertia`), with a warning per link, instead of refusing the file;
    ``ignore_broken_mimic``: a ``<mimic>`` whose leader is not a moving joint of the robot
    (a missing one, as in published URDFs with a renamed hand) is ignored, with a warning
    (its joint then moves on its own, with columns of its own), instead of refusing the file.

    A ``.xacro`` file is expanded first (PyPI ``xacro``, bounded:
    :mod:`~hodyn_cli.modeling.xacro_expand`; ``xacro_args`` are its ``name:=value``
    arguments; xacro's warnings are the model's).
    """
    path = Path(path)
    if path.suffix.lower() in DATA_FILES:
        raise ModelError("this is a data file, not a robot description (URDF, .xacro or MJCF): the "
                         "robot comes first, e.g. hodyn compute robot.urdf traj.csv", str(path))
    notes: list[Diagnostic] = []
    if path.suffix == ".xacro":
        data, printed = xacro_expand.expand(path, xacro_args or {})
        notes = [Diagnostic("warning", f"xacro: {text}") for text in printed]
    else:
        if xacro_args:
            raise ModelError("xacro arguments given, but the robot is not a .xacro file",
                             str(path))
        try:
            data = path.read_bytes()
        except OSError as e:
            raise ModelError(f"cannot read URDF: {e.strerror or e}", str(path)) from None
        if is_mjcf(data):  # a MuJoCo model (docs/mjcf.md)
            # the MJCF reader only for MJCF: a URDF's load (every command's) does without it
            from hodyn_cli.modeling.mjcf import load_mjcf

            for flag, given in (("--repair-inertia", repair_inertia),
                                ("--ignore-broken-mimic", ignore_broken_mimic)):
                if given:
                    raise ModelError(f"{flag} is for URDF robots, not MJCF", str(path))
            model = load_mjcf(path, data)
            _check_strict(model, strict, str(path))
            return model
    model = _parse(data, str(path), hashlib.sha256(data).hexdigest(), repair_inertia,
                   ignore_broken_mimic)
    if notes:
        model = replace(model, diagnostics=(*notes, *model.diagnostics))
    _check_strict(model, strict, str(path))
    return model


def parse_model(data: bytes, *, source: str = "<urdf>", strict: bool = False,
                repair_inertia: bool = False, ignore_broken_mimic: bool = False) -> Model:
    """Build a model from URDF text (bytes). See :func:`load_model`."""
    model = _parse(data, source, hashlib.sha256(data).hexdigest(), repair_inertia,
                   ignore_broken_mimic)
    _check_strict(model, strict, source)
    return model


def _parse(data: bytes, source: str, sha256: str, repair_inertia: bool = False,
           ignore_broken_mimic: bool = False) -> Model:
    root = _safe_xml(data, source)
    _check_document(root, source)
    robot = read_robot(root)
    notes: list[Diagnostic] = []
    reductions = _transmission_reductions(root, notes)
    return _build(robot, source, sha256, reductions, notes, repair_inertia, ignore_broken_mimic)


def _not_moving(name: str, joints) -> str:
    """Why joint ``name`` cannot lead a mimic joint: it does not exist (the nearest name
    suggested), or it does not move.

    >>> from types import SimpleNamespace as J
    >>> _not_moving("index_q1", [J(name="Left_index_q1", type="revolute")])
    "names a joint that does not exist (a typo of 'Left_index_q1'?)"
    """
    import difflib

    kinds = {j.name: j.type for j in joints}
    if name in kinds:
        return f"is a {kinds[name]} joint, not a moving one"
    close = difflib.get_close_matches(name, list(kinds), n=1, cutoff=0.6)
    return "names a joint that does not exist" + (f" (a typo of '{close[0]}'?)" if close else "")


def _check_strict(model: Model, strict: bool, source: str) -> None:
    if strict:
        for d in model.diagnostics:
            if d.level == "warning":
                raise ModelError(f"{d.message} (--strict)", source)


# -- safe parsing and checks -------------------------------------------------------------


def _safe_xml(data: bytes, source: str) -> etree._Element:
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
        huge_tree=False, remove_blank_text=True, remove_comments=True, remove_pis=True,
    )
    try:
        tree = etree.parse(io.BytesIO(data), parser)
    except etree.XMLSyntaxError as e:
        raise ModelError(f"not well-formed XML: {e.msg}", source) from None
    dtd = tree.docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise ModelError("entity declarations are not allowed in a URDF", source)
    if any(isinstance(el, etree._Entity) for el in tree.iter()):
        raise ModelError("entity references are not allowed in a URDF", source)
    root = tree.getroot()
    if root.tag != "robot":
        raise ModelError(f"root element is <{root.tag}>, expected <robot>", source)
    return root


def _floats(el, attr: str, count: int, what: str, source: str, default: str | None = None):
    text = el.get(attr, default)
    if text is None:
        raise ModelError(f"{what}: missing attribute '{attr}'", source)
    try:
        values = [float(v) for v in text.split()]
    except ValueError:
        raise ModelError(f"{what}: '{attr}=\"{text}\"' is not a number list", source) from None
    if len(values) != count or not np.all(np.isfinite(values)):
        raise ModelError(f"{what}: '{attr}' needs {count} finite numbers, got '{text}'", source)
    return values


def _check_origin(parent, what: str, source: str) -> None:
    """An ``<origin>``'s numbers: ``xyz``, and ``rpy`` or URDF 1.1's ``quat_xyzw`` (a unit
    quaternion to 1e-3, normalized as urdfdom does; not both)."""
    origin = parent.find("origin")
    if origin is None:
        return
    _floats(origin, "xyz", 3, f"{what} <origin>", source, "0 0 0")
    if origin.get("quat_xyzw") is None:
        _floats(origin, "rpy", 3, f"{what} <origin>", source, "0 0 0")
        return
    if origin.get("rpy") is not None:
        raise ModelError(f"{what} <origin>: both 'rpy' and 'quat_xyzw': give one", source)
    norm = float(np.linalg.norm(_floats(origin, "quat_xyzw", 4, f"{what} <origin>", source)))
    if abs(norm - 1) > 1e-3:
        raise ModelError(f"{what} <origin>: 'quat_xyzw' has norm {norm:.6g}, not a unit "
                         "quaternion (x y z w)", source)


def _check_document(root, source: str) -> None:
    if not root.get("name"):
        raise ModelError("<robot> has no 'name'", source)
    links = set()
    for link in root.findall("link"):
        name = link.get("name")
        if not name:
            raise ModelError("a <link> has no 'name'", source)
        if name in links:
            raise ModelError(f"link '{name}' is defined twice", source)
        links.add(name)
        inertial = link.find("inertial")
        if inertial is None:
            continue
        what = f"link '{name}' <inertial>"
        _check_origin(inertial, what, source)
        if inertial.find("mass") is None:
            raise ModelError(f"{what} has no <mass>", source)
        _floats(inertial.find("mass"), "value", 1, f"{what} <mass>", source)
        inertia = inertial.find("inertia")
        if inertia is None:
            raise ModelError(f"{what} has no <inertia>", source)
        for a in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"):
            _floats(inertia, a, 1, f"{what} <inertia>", source)
    if not links:
        raise ModelError("the robot has no <link>", source)
    joints = set()
    for joint in root.findall("joint"):
        name = joint.get("name")
        if not name:
            raise ModelError("a <joint> has no 'name'", source)
        if name in joints:
            raise ModelError(f"joint '{name}' is defined twice", source)
        joints.add(name)
        if not joint.get("type"):
            raise ModelError(f"joint '{name}' has no 'type'", source)
        for tag in ("parent", "child"):
            el = joint.find(tag)
            if el is None or not el.get("link"):
                raise ModelError(f"joint '{name}' has no <{tag} link=...>", source)
            if el.get("link") not in links:
                raise ModelError(f"joint '{name}': {tag} link '{el.get('link')}' does not exist",
                                 source)
        _check_origin(joint, f"joint '{name}'", source)
        if joint.find("axis") is not None:
            _floats(joint.find("axis"), "xyz", 3, f"joint '{name}' <axis>", source, "1 0 0")
        limit = joint.find("limit")
        bounds = {}
        for a in ("lower", "upper", "velocity", "effort", "jerk"):
            if limit is not None and limit.get(a) is not None:
                bounds[a] = _floats(limit, a, 1, f"joint '{name}' <limit>", source)[0]
        if bounds.get("lower", -np.inf) > bounds.get("upper", np.inf):
            raise ModelError(f"joint '{name}' <limit>: lower {bounds['lower']:g} > upper "
                             f"{bounds['upper']:g} (swapped?)", source)
        mimic = joint.find("mimic")
        if mimic is not None:
            if not mimic.get("joint"):
                raise ModelError(f"joint '{name}' <mimic> has no 'joint'", source)
            for a in ("multiplier", "offset"):
                if mimic.get(a) is not None:
                    _floats(mimic, a, 1, f"joint '{name}' <mimic>", source)


def _transmission_reductions(root, notes: list[Diagnostic]) -> dict[str, float]:
    """Joint name -> ``mechanicalReduction`` of its simple (one-joint) ``<transmission>``.

    Both the ROS format (reduction inside ``<actuator>``) and the older one (directly in
    ``<transmission>``) are read. A transmission hodyn cannot use is noted, never an error:
    only ``hodyn elastic`` reads reductions, as default gear ratios.
    """
    out: dict[str, float] = {}
    for tr in root.findall("transmission"):
        joints = [j.get("name") for j in tr.findall("joint")]
        values = [el.text for el in tr.iter("mechanicalReduction")]
        if len(joints) != 1 or len(values) != 1 or not joints[0]:
            continue  # differential or multi-actuator transmissions: no single ratio
        try:
            ratio = float((values[0] or "").strip())
        except ValueError:
            ratio = float("nan")
        if not np.isfinite(ratio) or ratio == 0:
            notes.append(Diagnostic("warning", f"transmission of joint '{joints[0]}': "
                                               f"mechanicalReduction '{values[0]}' ignored"))
            continue
        out[joints[0]] = ratio
    return out


# -- model building ------------------------------------------------------------------------


def consistent_inertia(theta: np.ndarray) -> np.ndarray:
    """The rotational inertia about the COM nearest to ``theta`` (3, 3) that a body can have.

    About its COM a body has ``Theta = tr(S) 1 - S`` with ``S = int r r^T dm`` its second
    moment of mass, which must be positive semi-definite; in principal axes
    ``s_i = (lam_j + lam_k - lam_i) / 2 >= 0`` states both the positivity and the triangle
    inequality of the principal moments lam. Clipping the s_i at zero gives the nearest
    consistent S in the Frobenius norm (mass, COM and principal axes unchanged).

    >>> consistent_inertia(np.diag([0.1, 0.1, 0.3])).round(12).diagonal().tolist()
    [0.15, 0.15, 0.3]
    >>> bool(np.all(consistent_inertia(np.diag([1.0, 2.0, 2.5])) == np.diag([1.0, 2.0, 2.5])))
    True
    """
    lam, axes = np.linalg.eigh(theta)
    s = lam.sum() / 2 - lam
    if s.min() >= 0:
        return theta
    s = np.maximum(s, 0.0)
    return (axes * (s.sum() - s)) @ axes.T


def _link_inertia(link, source: str, notes: list[Diagnostic], moving: bool = True,
                  repair: bool = False) -> np.ndarray:
    """6x6 inertia of a URDF link about its link frame, checked (also on links welded to the
    root, whose inertia does nothing: a bad one is still a bad file).

    Principal moments off by rounding (:data:`ROUNDING`) are made consistent silently; beyond
    that a negative one is an error and a triangle-inequality violation over
    :data:`TRIANGLE_RTOL` a warning, unless ``repair`` (then :func:`consistent_inertia` and a
    warning naming the change)."""
    inertial = link.inertial
    if inertial is None:
        if moving:
            notes.append(Diagnostic("info", f"link '{link.name}' has no <inertial>: zero "
                                            "inertia"))
        return np.zeros((6, 6))
    m = float(inertial.mass)
    theta = inertial.inertia
    T = inertial.origin
    if m < 0:
        if not repair:
            raise ModelError(f"link '{link.name}': negative mass {m:g}; --repair-inertia makes "
                             "the link massless", source)
        notes.append(Diagnostic("warning", f"link '{link.name}': negative mass {m:g} replaced "
                                           "by a massless link (--repair-inertia)"))
        return np.zeros((6, 6))
    # beyond this, products in the recursions overflow to inf: no real body is that heavy
    if m > MAX_INERTIA or np.abs(theta).max() > MAX_INERTIA or np.abs(T[:3, 3]).max() > 1e6:
        raise ModelError(f"link '{link.name}': mass {m:g}, inertia up to "
                         f"{np.abs(theta).max():g} or COM offset {np.abs(T[:3, 3]).max():g} m is "
                         "beyond what hodyn can compute with", source)
    R, c = T[:3, :3], T[:3, 3]
    lam = np.linalg.eigvalsh(theta)
    moments = ", ".join(f"{v:.6g}" for v in lam)
    excess = lam[2] - lam[0] - lam[1]          # the triangle inequality's violation, -2 min(s)
    rounding = ROUNDING * (lam.sum() + 2 * m * c @ c)
    if excess > rounding:
        if repair:
            theta = consistent_inertia(theta)
            fixed = ", ".join(f"{v:.6g}" for v in np.linalg.eigvalsh(theta))
            notes.append(Diagnostic("warning", f"link '{link.name}': principal moments {moments}"
                                               f" repaired to {fixed} (--repair-inertia)"))
        elif lam[0] < -rounding:
            how = (f"the smallest is negative by {-lam[0] / lam[2]:.1%} of the largest"
                   if lam[2] > 0 else "none is positive")
            raise ModelError(f"link '{link.name}': rotational inertia is not positive "
                             f"semi-definite (principal moments {moments}: {how}); "
                             f"{REPAIR_HINT}", source)
        elif excess > TRIANGLE_RTOL * lam.sum() + 1e-12:
            notes.append(Diagnostic(
                "warning", f"link '{link.name}': principal moments {moments} violate the "
                f"triangle inequality by {excess:.3g} ({excess / lam.sum():.1%} of their sum: no "
                f"rigid body has them); {REPAIR_HINT}"))
    else:
        theta = consistent_inertia(theta)      # off by rounding at most: zero moments
    return lie.body_inertia(m, c, R @ theta @ R.T)


def planar_screw(normal: np.ndarray) -> np.ndarray:
    """A planar joint's ``X = (n; u)`` (:class:`~hodyn_cli.core.model.Model`) for the unit
    normal n of its plane: u is the frame axis least aligned with n (the first of equals),
    projected into the plane, so that the plane of normal z has u = x, w = y as Pinocchio's
    JointModelPlanar.

    >>> planar_screw(np.array([0.0, 0, 1])).tolist()
    [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    """
    e = np.eye(3)[int(np.argmin(np.abs(normal)))]
    u = e - (e @ normal) * normal
    return np.concatenate([normal, u / np.linalg.norm(u)])


def _position_limits(joint) -> tuple[float, float]:
    """(lower, upper) of a revolute/prismatic joint; (-inf, inf) if continuous, unset, or
    wider than a joint can physically be (:func:`_placeholder_range`)."""
    lim = joint.limit
    if joint.type == "continuous" or lim is None or lim.lower is None or lim.upper is None:
        return (-np.inf, np.inf)
    if lim.lower == 0 and lim.upper == 0:  # URDF's default when the attributes are omitted
        return (-np.inf, np.inf)
    if _placeholder_range(joint):
        return (-np.inf, np.inf)
    return (float(lim.lower), float(lim.upper))


def _placeholder_range(joint) -> bool:
    """True when a joint's ``<limit lower upper>`` span more than a joint can physically
    (:func:`~hodyn_cli.modeling.limits.placeholder_range`, the MJCF importer's rule too)."""
    lim = joint.limit
    return (lim is not None and lim.lower is not None and lim.upper is not None
            and placeholder_range(joint.type, lim.lower, lim.upper))


def _velocity_limit(joint) -> float:
    """URDF ``<limit velocity>`` (+inf if absent or not positive: 0 is a placeholder)."""
    lim = joint.limit
    v = None if lim is None else lim.velocity
    return float(v) if v is not None and v > 0 else np.inf


def _placeholder_notice(joints) -> Diagnostic | None:
    """One notice naming the moving joints whose limits cannot be physical (taken as absent
    by :func:`_position_limits` and :func:`_velocity_limit`), or None."""
    wide = {kind: [j.name for j in joints if j.type == kind and _placeholder_range(j)]
            for kind in PHYSICAL_RANGE}
    still = [j.name for j in joints if j.limit is not None and j.limit.velocity is not None
             and j.limit.velocity <= 0]
    return placeholder_notice(wide, (f"velocity 0 of {', '.join(map(repr, still))}",)
                              if still else ())


def _build(robot, source: str, sha256: str, reductions: dict[str, float],
           notes: list[Diagnostic], repair_inertia: bool = False,
           ignore_broken_mimic: bool = False) -> Model:
    link_by_name = {link.name: link for link in robot.links}
    joints_of: dict[str, list] = {name: [] for name in link_by_name}
    parent_joint: dict[str, str] = {}
    for j in robot.joints:
        if j.child in parent_joint:
            raise ModelError(
                f"joint '{j.name}': link '{j.child}' already has parent joint "
                f"'{parent_joint[j.child]}' (kinematic loops are not supported)", source)
        parent_joint[j.child] = j.name
        joints_of[j.parent].append(j)
    roots = [name for name in link_by_name if name not in parent_joint]
    if len(roots) != 1:
        if not roots:
            raise ModelError("every link has a parent joint: the joints form a loop", source)
        raise ModelError(f"the robot is not connected: links {', '.join(roots)} have no parent "
                         "joint", source)

    names, types, link_names, parents, Bs, Xs, limits = [], [], [], [], [], [], []
    Ms: list[np.ndarray] = []
    parent_links, velocities = [], []
    turning: list[str] = []  # (revolute joints without a range: read as continuous)
    mimics: dict[str, tuple[str, float, float]] = {}
    links: dict[str, LinkFrame] = {}
    root_M = np.zeros((6, 6))

    def enter(link_name: str, body: int, T: np.ndarray) -> list:
        """Record a link on ``body`` at pose T; its joints, to visit next."""
        links[link_name] = LinkFrame(body, T)
        inertia = _link_inertia(link_by_name[link_name], source, notes, body >= 0,
                                repair_inertia)
        if inertia.any():  # in place: into the body's inertia, or the root's
            target = Ms[body] if body >= 0 else root_M
            target += lie.transform_inertia(inertia, T)
        return [(j, body, T) for j in joints_of[link_name]]

    # depth-first pre-order, children in file order, with an explicit stack: no recursion
    # limit for chains of thousands of links
    stack = enter(roots[0], -1, np.eye(4))[::-1]
    while stack:
        j, body, T = stack.pop()
        origin = j.origin
        if j.type == "fixed":
            stack += enter(j.child, body, T @ origin)[::-1]
            continue
        if j.type not in MOVING:
            raise ModelError(f"joint '{j.name}': type '{j.type}' is not supported (use "
                             "revolute, continuous, prismatic, planar, floating or fixed)",
                             source)
        kind = MOVING[j.type]
        axis = j.axis
        norm = np.linalg.norm(axis)
        if norm < 1e-12 and kind != "free":
            raise ModelError(f"joint '{j.name}': axis is zero", source)
        if abs(norm - 1.0) > 1e-9 and kind != "free":
            notes.append(Diagnostic("info", f"joint '{j.name}': axis normalized"))
        if j.mimic is not None:
            mimics[j.name] = (j.mimic.joint, j.mimic.multiplier, j.mimic.offset)
        X = np.zeros(6)              # a free joint's (floating: no axis)
        if kind == "revolute":
            X[:3] = axis / norm
        elif kind == "prismatic":
            X[3:] = axis / norm
        elif kind == "planar":
            X = planar_screw(axis / norm)
        # (a URDF limit is on 1-DOF joints)
        position = _position_limits(j) if kind in ("revolute", "prismatic") else (-np.inf,
                                                                                  np.inf)
        names.append(j.name)
        types.append(turning_type(position) if kind == "revolute" else kind)
        if j.type == "revolute" and types[-1] == "continuous":
            turning.append(j.name)
        link_names.append(j.child)
        parent_links.append(j.parent)
        parents.append(body)
        Bs.append(T @ origin)
        Xs.append(X)
        Ms.append(np.zeros((6, 6)))
        limits.append(position)
        velocities.append(_velocity_limit(j) if kind in ("revolute", "prismatic") else np.inf)
        if kind not in ("revolute", "prismatic") and j.limit is not None and any(
                (getattr(j.limit, key, None) or 0) > 0 for key in ("velocity", "effort", "jerk")):
            notes.append(Diagnostic("notice", f"joint '{j.name}' ({j.type}): its <limit> is "
                                              "left out (one number has no meaning for its "
                                              "several velocity coordinates)"))
        stack += enter(j.child, len(names) - 1, np.eye(4))[::-1]

    for name in [name for name, (leader, _, _) in mimics.items() if leader not in names]:
        leader = mimics.pop(name)[0]
        why = f"joint '{name}': <mimic joint='{leader}'> {_not_moving(leader, robot.joints)}"
        if not ignore_broken_mimic:
            raise ModelError(f"{why}; --ignore-broken-mimic loads the robot with this mimic "
                             "ignored", source)
        notes.append(Diagnostic("warning", f"{why}: the mimic is ignored, '{name}' moves on "
                                           "its own (--ignore-broken-mimic)"))
    mimic = np.tile([-1.0, 1.0, 0.0], (len(names), 1))
    for name, (leader, gain, offset) in mimics.items():
        if leader in mimics:
            raise ModelError(f"joint '{name}' mimics '{leader}', which mimics another joint "
                             "(chains of mimic joints are not supported)", source)
        mimic[names.index(name)] = (names.index(leader), gain, offset)
        notes.append(Diagnostic("info", f"joint '{name}' mimics '{leader}': q = {gain:g} "
                                        f"q_{leader} + {offset:g}"))
    placeholders = _placeholder_notice([j for j in robot.joints if j.name in names])
    if placeholders is not None:
        notes.append(placeholders)
    if turning:
        notes.append(Diagnostic("info", f"revolute joint(s) without a position range, read as "
                                        f"continuous (q and q + 2 pi one pose, which a file "
                                        f"may wrap at +-pi): {', '.join(map(repr, turning))}"))
    if names:
        notes.append(Diagnostic("info", f"root link '{roots[0]}' is welded to the world "
                                        "(fixed-base dynamics)"))
    else:
        notes.append(Diagnostic("notice", f"the robot has no moving joint: root link "
                                          f"'{roots[0]}' and the links welded to it are a "
                                          f"single rigid body of {root_M[3, 3]:.6g} kg, which "
                                          "moves only as a free body (--floating-base)",
                                suggests="--floating-base"))
    limbs = sum(p < 0 for p in parents)
    if limbs >= 2 and re.search(r"trunk|pelvis|torso|base|body|chassis", roots[0], re.I):
        notes.append(Diagnostic("notice", f"root link '{roots[0]}' with {limbs} limbs looks like "
                                          "a mobile base (legged robot, humanoid): hodyn welds it "
                                          "to the world unless --floating-base (its motion from "
                                          "base_ columns) is given",
                                suggests="--floating-base"))
    unreachable = sorted(set(link_by_name) - set(links))
    if unreachable:  # a cycle detached from the root
        raise ModelError(f"links {', '.join(unreachable)} form a kinematic loop", source)
    one_dof = np.array([kind in ("revolute", "continuous", "prismatic") for kind in types],
                       dtype=bool)
    return Model(
        name=robot.name, root_link=roots[0], joint_names=tuple(names), joint_types=tuple(types),
        link_names=tuple(link_names), parent=np.array(parents, dtype=int),
        B=np.array(Bs).reshape(-1, 4, 4), X=np.array(Xs).reshape(-1, 6),
        inertias=np.array(Ms).reshape(-1, 6, 6), root_inertia=root_M,
        limits=np.array(limits).reshape(-1, 2), links=links,
        parent_links=tuple(parent_links), velocity_limits=np.array(velocities), mimic=mimic,
        effort_limits=np.where(one_dof, urdf_bounds(robot.joints, names, "effort"), np.inf),
        jerk_limits=np.where(one_dof, urdf_bounds(robot.joints, names, "jerk"), np.inf),
        reductions=np.array([reductions.get(name, np.nan) for name in names]),
        diagnostics=tuple(notes),
        source_sha256=sha256,
    )
