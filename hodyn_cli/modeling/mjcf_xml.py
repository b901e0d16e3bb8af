"""An MJCF (MuJoCo XML) document as plain objects: what :mod:`hodyn_cli.modeling.mjcf` builds
the model from.

Read as MuJoCo's XML reader reads it (``src/xml/xml.cc``, ``xml_native_reader.cc``):

* ``<include file>`` elements are replaced by the children of the included file's root, the
  file looked up in the main file's folder first, then in the including file's;
* ``<compiler>`` (anywhere, last value wins): ``angle`` (``degree``, the default, or
  ``radian``), ``eulerseq``, ``autolimits``, ``inertiafromgeom``, ``inertiagrouprange``,
  ``boundmass``, ``boundinertia``, ``balanceinertia``, ``settotalmass``, ``fusestatic``,
  ``meshdir``/``assetdir``;
* ``<default>`` classes, nested (a class starts from its parent's values; a ``size`` given in
  part keeps the rest), chosen by an element's ``class``, else by the ``childclass`` of the
  nearest enclosing body or frame, else ``main``;
* ``<frame>`` elements are dissolved: the pose of each element inside is composed with them;
* orientations: ``quat``, ``axisangle``, ``euler`` (``eulerseq``: lower case moving axes,
  upper case fixed ones), ``xyaxes``, ``zaxis``, as ``ResolveOrientation`` of MuJoCo's
  ``user_objects.cc``; quaternions are (w, x, y, z).

Angles stay as written here (the compiler's unit is applied when the model is built, as
MuJoCo's compiler does); everything else is converted and checked, so that a bad file gives
one line naming the file and the element.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from lxml import etree

from hodyn_cli.core.lie import quaternion_matrix
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.mjcf_mesh import MeshAsset
from hodyn_cli.modeling.mjcf_quat import frame_quat, quat_mul, unit, z_to_quat

__all__ = ["Compiler", "Document", "Body", "Equality", "Joint", "Geom", "Inertial", "Site", "read_document",
           "parse_xml"]

#: nested includes deeper than this are a loop MuJoCo would also refuse
MAX_INCLUDE_DEPTH = 32

#: elements that make bodies hodyn cannot read (yet): one line refuses them
GENERATORS = ("composite", "flexcomp", "replicate", "attach")

ORIENTATIONS = ("quat", "axisangle", "xyaxes", "zaxis", "euler")

#: the elements of ``<actuator>``: one kind of default (MuJoCo's shortcuts all set the
#: default class's one actuator), kept under this key
ACTUATORS = ("general", "motor", "position", "velocity", "intvelocity", "damper", "cylinder",
             "muscle", "adhesion", "plugin")
ACTUATOR_DEFAULT = "actuator"


@dataclass(frozen=True, eq=False, repr=False)
class Compiler:
    """``<compiler>``: MuJoCo's defaults (``user_init.c``)."""

    degree: bool = True
    eulerseq: str = "xyz"
    autolimits: bool = True
    inertiafromgeom: str = "auto"
    inertiagrouprange: tuple[int, int] = (0, 5)
    boundmass: float = 0.0
    boundinertia: float = 0.0
    balanceinertia: bool = False
    settotalmass: float = -1.0
    fusestatic: bool = False
    alignfree: bool = False
    meshdir: str = ""
    assetdir: str = ""


@dataclass(frozen=True, eq=False, repr=False)
class Inertial:
    """``<inertial>``: mass, COM ``pos``, orientation ``quat`` of the principal axes and the
    principal moments ``diag``, or ``full`` (xx yy zz xy xz yz) about the COM in body axes."""

    mass: float
    pos: np.ndarray
    quat: np.ndarray
    diag: np.ndarray
    full: np.ndarray | None


@dataclass(frozen=True, eq=False, repr=False)
class Joint:
    name: str
    type: str                       # hinge, slide, ball, free
    pos: np.ndarray                 # anchor in the body frame (frames composed)
    axis: np.ndarray                # in the body frame (not normalized)
    ref: float                      # as written (degrees for a hinge with angle="degree")
    range: tuple[float, float]      # as written
    limited: str                    # true, false, auto
    align: str = "auto"             # a free joint's: its body's frame moved to the inertial one
    attrs: dict[str, str] = field(default_factory=dict)  # as written, over its defaults


@dataclass(frozen=True, eq=False, repr=False)
class Geom:
    name: str
    type: str
    size: np.ndarray                # 3 entries, missing ones 0
    pos: np.ndarray
    quat: np.ndarray
    mass: float | None              # None: from density
    density: float
    shell: bool
    group: int
    mesh: str | None


@dataclass(frozen=True, eq=False, repr=False)
class Site:
    name: str
    pos: np.ndarray
    quat: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class Equality:
    """An active ``<equality>`` element: its ``kind`` (its tag: joint, connect, weld, tendon,
    flex) and ``label`` (``"<equality> kind 'name'"``, for messages); a joint equality's
    ``joint1``, ``joint2`` (None: joint1 alone) and ``polycoef`` (5 numbers; MuJoCo's
    ``joint1 - ref1 = sum_k a_k (joint2 - ref2)^k``); a connect or weld's ``obj1``, ``obj2``
    (bodies, or sites where ``sites``; ``obj2`` None: the world), ``anchor`` (3), ``relpose``
    (7: position, quaternion; None: not given or its quaternion zero) and ``torquescale``."""

    kind: str
    label: str
    name: str | None = None
    joint1: str | None = None
    joint2: str | None = None
    polycoef: np.ndarray | None = None
    obj1: str | None = None
    obj2: str | None = None
    sites: bool = False
    anchor: np.ndarray | None = None
    relpose: np.ndarray | None = None
    torquescale: float = 1.0


@dataclass(repr=False)
class Body:
    name: str
    pos: np.ndarray                 # in the parent body's frame (frames composed)
    quat: np.ndarray
    own_pos: np.ndarray             # as written (MuJoCo copies it to ipos of a massless body)
    own_quat: np.ndarray
    mocap: bool = False
    inertial: Inertial | None = None
    joints: list[Joint] = field(default_factory=list)
    geoms: list[Geom] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)
    children: list[Body] = field(default_factory=list)


@dataclass(frozen=True, eq=False, repr=False)
class Document:
    model: str
    compiler: Compiler
    world: Body                     # the world body: its geoms, sites and children
    gravity: np.ndarray | None      # <option gravity> (None: not given)
    meshes: dict[str, MeshAsset]    # the mesh assets by name
    equalities: tuple[Equality, ...]  # the active <equality> elements
    sections: tuple[str, ...]       # the tags of <mujoco>'s children
    #: the ``<actuator>`` elements: their attributes over their defaults, ``tag`` added
    actuators: tuple[dict[str, str], ...] = ()


# -- reading ---------------------------------------------------------------------------------


def parse_xml(data: bytes, source: str) -> etree._Element:
    """The root element of XML text, parsed safely (no DTD, no entities, no network)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             dtd_validation=False, huge_tree=False, remove_comments=True,
                             remove_pis=True)
    try:
        tree = etree.parse(io.BytesIO(data), parser)
    except etree.XMLSyntaxError as e:
        raise ModelError(f"not well-formed XML: {e.msg}", source) from None
    dtd = tree.docinfo.internalDTD
    if (dtd is not None and any(True for _ in dtd.iterentities())) or \
            any(isinstance(el, etree._Entity) for el in tree.iter()):
        raise ModelError("entity declarations and references are not allowed", source)
    return tree.getroot()


class _Reader:
    """One document: its includes expanded, its compiler and defaults read, then its bodies."""

    def __init__(self, root: etree._Element, path: Path):
        self.path, self.source, self.base = path, str(path), path.parent
        self.root = root
        self._included: set[Path] = set()
        self._expand(root, path.parent, 0)
        self.compiler = self._compiler()
        self.defaults: dict[str, dict[str, dict[str, str]]] = {"main": {}}
        for el in root.findall("default"):
            self._read_default(el, "main", top=True)

    # errors
    def fail(self, message: str) -> ModelError:
        return ModelError(message, self.source)

    # -- includes
    def _expand(self, el: etree._Element, folder: Path, depth: int) -> None:
        for child in list(el):
            if not isinstance(child.tag, str):
                continue
            if child.tag != "include":
                self._expand(child, folder, depth)
                continue
            name = child.get("file")
            if not name:
                raise self.fail(f"<include> (line {child.sourceline}) has no 'file'")
            candidates = [self.base / name, folder / name]
            found = next((p for p in candidates if p.is_file()), None)
            if found is None:
                raise self.fail(f"<include file='{name}'> (line {child.sourceline}): no such file "
                                f"(looked in {self.base} and {folder})")
            if found.resolve() in self._included or depth >= MAX_INCLUDE_DEPTH:
                raise self.fail(f"<include file='{name}'>: already included (a loop?)")
            self._included.add(found.resolve())
            try:
                data = found.read_bytes()
            except OSError as e:
                raise self.fail(f"<include file='{name}'>: {e.strerror or e}") from None
            included = parse_xml(data, str(found))
            self._expand(included, found.parent, depth + 1)
            parent = child.getparent()
            at = parent.index(child)
            parent.remove(child)
            for k, grafted in enumerate(list(included)):
                parent.insert(at + k, grafted)

    # -- compiler
    def _compiler(self) -> Compiler:
        values: dict[str, object] = {}
        for el in self.root.iter("compiler"):
            a = el.attrib
            if a.get("coordinate", "local") != "local":
                raise self.fail("<compiler coordinate='global'> is not supported (MuJoCo 2.x; "
                                "MuJoCo 3 refuses it too)")
            if "angle" in a:
                if a["angle"] not in ("degree", "radian"):
                    raise self.fail(f"<compiler angle='{a['angle']}'>: degree or radian")
                values["degree"] = a["angle"] == "degree"
            if "eulerseq" in a:
                seq = a["eulerseq"]
                if len(seq) != 3 or set(seq) - set("xyzXYZ"):
                    raise self.fail(f"<compiler eulerseq='{seq}'>: three of x, y, z, X, Y, Z")
                values["eulerseq"] = seq
            for key in ("autolimits", "balanceinertia", "fusestatic", "alignfree"):
                if key in a:
                    values[key] = self._bool(a[key], f"<compiler {key}>")
            if "inertiafromgeom" in a:
                if a["inertiafromgeom"] not in ("auto", "true", "false"):
                    raise self.fail(f"<compiler inertiafromgeom='{a['inertiafromgeom']}'>: "
                                    "auto, true or false")
                values["inertiafromgeom"] = a["inertiafromgeom"]
            if "inertiagrouprange" in a:
                lo, hi = self._numbers(el, "inertiagrouprange", 2, "<compiler>")
                values["inertiagrouprange"] = (int(lo), int(hi))
            for key in ("boundmass", "boundinertia", "settotalmass"):
                if key in a:
                    values[key] = self._numbers(el, key, 1, "<compiler>")[0]
            for key in ("meshdir", "assetdir"):
                if key in a:
                    values[key] = a[key]
        return Compiler(**values)  # type: ignore[arg-type]

    # -- defaults
    def _read_default(self, el: etree._Element, parent: str, top: bool = False) -> None:
        name = el.get("class", "main" if top else None)
        if name is None:
            raise self.fail(f"<default> (line {el.sourceline}) below the top has no 'class'")
        if name not in self.defaults:
            self.defaults[name] = {tag: dict(attrs) for tag, attrs in self.defaults[parent].items()}
        for child in el:
            if not isinstance(child.tag, str):
                continue
            if child.tag == "default":
                self._read_default(child, name)
            else:
                tag = ACTUATOR_DEFAULT if child.tag in ACTUATORS else child.tag
                merged = self.defaults[name].setdefault(tag, {})
                _merge(merged, child.attrib)

    def attrs(self, el: etree._Element, cls: str) -> dict[str, str]:
        """An element's attributes over those of its default class."""
        name = el.get("class", cls)
        if name not in self.defaults:
            raise self.fail(f"<{el.tag} {_label(el)}>: unknown default class '{name}'")
        out = dict(self.defaults[name].get(el.tag, {}))
        if any(k in el.attrib for k in ORIENTATIONS):  # the element's orientation, alone
            for k in ORIENTATIONS:
                out.pop(k, None)
        if "fromto" in out and "pos" in el.attrib:
            out.pop("fromto")
        _merge(out, el.attrib)
        return out

    # -- numbers
    def _bool(self, text: str, what: str) -> bool:
        if text not in ("true", "false"):
            raise self.fail(f"{what}: '{text}' is not true or false")
        return text == "true"

    def _numbers(self, el, attr: str, count: int | None, what: str,
                 attrs: dict[str, str] | None = None, default: str | None = None) -> np.ndarray:
        text = (attrs if attrs is not None else el.attrib).get(attr, default)
        if text is None:
            raise self.fail(f"{what}: missing attribute '{attr}'")
        try:
            values = np.array([float(v) for v in text.split()])
        except ValueError:
            raise self.fail(f"{what}: {attr}='{text}' is not a list of numbers") from None
        if (count is not None and len(values) != count) or not np.isfinite(values).all():
            raise self.fail(f"{what}: {attr}='{text}' needs {count} finite numbers")
        return values

    def orientation(self, attrs: dict[str, str], what: str) -> np.ndarray:
        """The unit quaternion of an element's orientation (``ResolveOrientation``)."""
        given = [k for k in ORIENTATIONS if k in attrs]
        if len(given) > 1:
            raise self.fail(f"{what}: orientation given twice ({', '.join(given)})")
        kind = given[0] if given else "quat"
        scale = np.pi / 180 if self.compiler.degree else 1.0
        if kind == "quat":
            q, n = unit(self._numbers(None, "quat", 4, what, attrs, "1 0 0 0"))
            if n == 0:
                raise self.fail(f"{what}: quat is zero")
            return q
        if kind == "axisangle":
            v = self._numbers(None, "axisangle", 4, what, attrs)
            axis, n = unit(v[:3])
            if n == 0:
                raise self.fail(f"{what}: axisangle's axis is zero")
            half = v[3] * scale / 2
            return np.concatenate([[np.cos(half)], np.sin(half) * axis])
        if kind == "xyaxes":
            v = self._numbers(None, "xyaxes", 6, what, attrs)
            x, nx = unit(v[:3])
            y, ny = unit(v[3:] - x * (x @ v[3:]))
            z, nz = unit(np.cross(x, y))
            if min(nx, ny, nz) == 0:
                raise self.fail(f"{what}: xyaxes are parallel or zero")
            return frame_quat(x, y, z)
        if kind == "zaxis":
            z, n = unit(self._numbers(None, "zaxis", 3, what, attrs))
            if n == 0:
                raise self.fail(f"{what}: zaxis is zero")
            return z_to_quat(z)
        angles = self._numbers(None, "euler", 3, what, attrs) * scale
        q = np.array([1.0, 0, 0, 0])
        for letter, angle in zip(self.compiler.eulerseq, angles, strict=True):
            r = np.zeros(4)
            r[0], r["xyz".index(letter.lower()) + 1] = np.cos(angle / 2), np.sin(angle / 2)
            q = quat_mul(q, r) if letter.islower() else quat_mul(r, q)
        return q

    # -- bodies
    def read_world(self) -> Body:
        world = Body("world", np.zeros(3), np.array([1.0, 0, 0, 0]), np.zeros(3),
                     np.array([1.0, 0, 0, 0]))
        counters = {"body": 0, "joint": 0}
        for section in self.root.findall("worldbody"):
            self._contents(section, world, "main", np.zeros(3), np.array([1.0, 0, 0, 0]),
                           counters, is_world=True)
        return world

    def _contents(self, section, body: Body, cls: str, fpos: np.ndarray, fquat: np.ndarray,
                  counters: dict[str, int], is_world: bool = False) -> None:
        """The elements of a body (or a frame in it, at pose fpos, fquat in the body)."""
        for el in section:
            if not isinstance(el.tag, str):
                continue
            tag = el.tag
            if tag in GENERATORS:
                raise self.fail(f"<{tag}> (line {el.sourceline}) in body '{body.name}' is not "
                                "supported: it generates bodies (expand it with MuJoCo and save "
                                "the compiled XML)")
            if tag == "frame":
                child_cls = el.get("childclass", cls)
                if child_cls not in self.defaults:
                    raise self.fail(f"<frame> (line {el.sourceline}): unknown default class "
                                    f"'{child_cls}'")
                a = dict(el.attrib)
                pos, quat = self._compose(fpos, fquat, self._numbers(
                    None, "pos", 3, f"<frame> (line {el.sourceline})", a, "0 0 0"),
                    self.orientation(a, f"<frame> (line {el.sourceline})"))
                self._contents(el, body, child_cls, pos, quat, counters, is_world)
            elif tag == "body":
                counters["body"] += 1
                body.children.append(self._body(el, cls, fpos, fquat, counters))
            elif tag in ("joint", "freejoint"):
                if is_world:
                    raise self.fail(f"<{tag}> (line {el.sourceline}): the world body cannot have "
                                    "joints")
                body.joints.append(self._joint(el, cls, fpos, fquat, body, counters))
            elif tag == "geom":
                body.geoms.append(self._geom(el, cls, fpos, fquat, body))
            elif tag == "site":
                a = self.attrs(el, cls)
                what = f"site '{a.get('name', '')}' of body '{body.name}'"
                pos, quat = self._compose(fpos, fquat, self._numbers(None, "pos", 3, what, a,
                                                                     "0 0 0"),
                                          self.orientation(a, what))
                if a.get("name"):
                    body.sites.append(Site(a["name"], pos, quat))
            elif tag == "inertial":
                if is_world:
                    raise self.fail("<inertial> in the world body")
                body.inertial = self._inertial(el, body)

    @staticmethod
    def _compose(fpos, fquat, pos, quat) -> tuple[np.ndarray, np.ndarray]:
        """The pose (pos, quat) given in a frame at (fpos, fquat), in the frame's parent."""
        return fpos + quaternion_matrix(fquat) @ pos, unit(quat_mul(fquat, quat))[0]

    def _body(self, el, cls: str, fpos, fquat, counters) -> Body:
        a = dict(el.attrib)
        name = a.get("name") or f"body{counters['body']}"
        what = f"body '{name}'"
        child_cls = a.get("childclass", cls)
        if child_cls not in self.defaults:
            raise self.fail(f"{what}: unknown default class '{child_cls}'")
        own_pos = self._numbers(None, "pos", 3, what, a, "0 0 0")
        own_quat = self.orientation(a, what)
        pos, quat = self._compose(fpos, fquat, own_pos, own_quat)
        body = Body(name, pos, quat, own_pos, own_quat,
                    mocap=self._bool(a.get("mocap", "false"), f"{what} mocap"))
        self._contents(el, body, child_cls, np.zeros(3), np.array([1.0, 0, 0, 0]), counters)
        return body

    def _joint(self, el, cls: str, fpos, fquat, body: Body, counters) -> Joint:
        counters["joint"] += 1
        if el.tag == "freejoint":
            return Joint(el.get("name") or f"joint{counters['joint'] - 1}", "free", np.zeros(3),
                         np.array([0.0, 0, 1]), 0.0, (0.0, 0.0), "false",
                         el.get("align", "auto"))
        a = self.attrs(el, cls)
        name = a.get("name") or f"joint{counters['joint'] - 1}"
        what = f"joint '{name}' of body '{body.name}'"
        kind = a.get("type", "hinge")
        if kind not in ("hinge", "slide", "ball", "free"):
            raise self.fail(f"{what}: unknown joint type '{kind}' (hinge, slide, ball or free)")
        limited = a.get("limited", "auto")
        if limited not in ("true", "false", "auto"):
            raise self.fail(f"{what}: limited='{limited}' (true, false or auto)")
        lo, hi = self._numbers(None, "range", 2, what, a, "0 0")
        pos = self._numbers(None, "pos", 3, what, a, "0 0 0")
        axis = self._numbers(None, "axis", 3, what, a, "0 0 1")
        if kind in ("hinge", "slide") and float(axis @ axis) < 1e-14:
            raise self.fail(f"{what}: axis is zero")
        return Joint(name, kind, fpos + quaternion_matrix(fquat) @ pos, quaternion_matrix(fquat) @ axis,
                     float(self._numbers(None, "ref", 1, what, a, "0")[0]), (float(lo), float(hi)),
                     limited, a.get("align", "auto"), a)

    def _geom(self, el, cls: str, fpos, fquat, body: Body) -> Geom:
        a = self.attrs(el, cls)
        name = a.get("name", "")
        what = f"geom {f'{name!r} ' if name else ''}(line {el.sourceline}) of body '{body.name}'"
        size = np.zeros(3)
        given = self._numbers(None, "size", None, what, a, "0 0 0")[:3]
        size[:len(given)] = given
        fromto = self._numbers(None, "fromto", 6, what, a) if "fromto" in a else None
        pos = self._numbers(None, "pos", 3, what, a, "0 0 0")
        quat = self.orientation(a, what)
        mass = float(self._numbers(None, "mass", 1, what, a)[0]) if "mass" in a else None
        density = float(self._numbers(None, "density", 1, what, a, "1000")[0])
        group = int(self._numbers(None, "group", 1, what, a, "0")[0])
        shell = self._bool(a.get("shellinertia", "false"), f"{what} shellinertia")
        kind = a.get("type", "sphere")
        if fromto is not None:  # as mjCGeom::Compile: the segment's middle, z along it
            if kind not in ("capsule", "cylinder", "ellipsoid", "box"):
                raise self.fail(f"{what}: fromto needs a capsule, cylinder, ellipsoid or box")
            if pos.any():
                raise self.fail(f"{what}: both pos and fromto given")
            vec, length = unit(fromto[:3] - fromto[3:])
            if length / 2 < 1e-14:
                raise self.fail(f"{what}: fromto's points coincide")
            size[1] = length / 2
            if kind in ("ellipsoid", "box"):
                size[1], size[2] = size[0], size[1]
            pos, quat = (fromto[:3] + fromto[3:]) / 2, z_to_quat(vec)
        pos, quat = self._compose(fpos, fquat, pos, quat)
        return Geom(name, kind, size, pos, quat, mass, density, shell, group, a.get("mesh"))

    def _inertial(self, el, body: Body) -> Inertial:
        a = dict(el.attrib)
        what = f"<inertial> of body '{body.name}'"
        mass = float(self._numbers(None, "mass", 1, what, a)[0])
        pos = self._numbers(None, "pos", 3, what, a)
        quat = self.orientation(a, what)
        full = self._numbers(None, "fullinertia", 6, what, a) if "fullinertia" in a else None
        diag = self._numbers(None, "diaginertia", 3, what, a, "0 0 0")
        if full is not None and ("diaginertia" in a or any(k in a for k in ORIENTATIONS)):
            raise self.fail(f"{what}: fullinertia goes without diaginertia and orientation")
        return Inertial(mass, pos, quat, diag, full)

    # -- the rest of the document
    def gravity(self) -> np.ndarray | None:
        g = None
        for el in self.root.findall("option"):
            if "gravity" in el.attrib:
                g = self._numbers(el, "gravity", 3, "<option>")
            for flag in el.findall("flag"):
                if flag.get("gravity") == "disable":
                    g = np.zeros(3)
        return g

    def meshes(self) -> dict[str, MeshAsset]:
        """The ``<mesh>`` assets by name, their files found (``meshdir``, else
        ``assetdir``, relative to the main file's folder)."""
        c = self.compiler
        folder = self.base / (c.meshdir or c.assetdir)
        out = {}
        for asset in self.root.findall("asset"):
            for el in asset.findall("mesh"):
                a = self.attrs(el, "main")
                file = a.get("file")
                name = a.get("name") or (Path(file).stem if file else "")
                what = f"mesh '{name}'"
                path = None
                if file:
                    path = Path(file) if Path(file).is_absolute() else folder / file
                    if not path.is_file():
                        raise self.fail(f"{what}: file '{file}' not found (in {folder})")
                out[name] = MeshAsset(
                    name, path, self._numbers(None, "scale", 3, what, a, "1 1 1"),
                    self._numbers(None, "refpos", 3, what, a, "0 0 0"),
                    self._numbers(None, "refquat", 4, what, a, "1 0 0 0"),
                    a.get("inertia", "legacy"),
                    self._numbers(None, "vertex", None, what, a) if "vertex" in a else None,
                    self._numbers(None, "face", None, what, a) if "face" in a else None)
        return out

    def actuators(self) -> tuple[dict[str, str], ...]:
        out = []
        for section in self.root.findall("actuator"):
            for el in section:
                if not isinstance(el.tag, str):
                    continue
                cls = el.get("class", "main")
                if cls not in self.defaults:
                    raise self.fail(f"<{el.tag} {_label(el)}>: unknown default class '{cls}'")
                a = dict(self.defaults[cls].get(ACTUATOR_DEFAULT, {}))
                _merge(a, el.attrib)
                out.append({**a, "tag": el.tag, "name": a.get("name") or f"line {el.sourceline}"})
        return tuple(out)

    def equalities(self) -> tuple[Equality, ...]:
        out = []
        for section in self.root.findall("equality"):
            for el in section:
                if not isinstance(el.tag, str) or el.get("active", "true") != "true":
                    continue
                label = f"<equality> {el.tag} '{el.get('name', f'line {el.sourceline}')}'"
                if el.tag in ("connect", "weld"):
                    out.append(self._closure(el, label))
                    continue
                if el.tag != "joint":
                    out.append(Equality(el.tag, label))
                    continue
                if not el.get("joint1"):
                    raise self.fail(f"{label}: missing attribute 'joint1'")
                coef = np.array([0.0, 1, 0, 0, 0])  # MuJoCo's default; fewer numbers keep the rest
                given = self._numbers(el, "polycoef", None, label, default="0 1 0 0 0")[:5]
                coef[:len(given)] = given
                out.append(Equality("joint", label, el.get("name"), el.get("joint1"),
                                    el.get("joint2"), coef))
        return tuple(out)

    def _closure(self, el, label: str) -> Equality:
        """A connect or weld as MuJoCo's reader takes it (``OneEquality``): body semantics
        where ``body1`` (and, for a connect, ``anchor``) is given, else ``site1`` and
        ``site2``."""
        body = el.get("body1") is not None and (el.tag == "weld" or "anchor" in el.attrib)
        if not body and not (el.get("site1") and el.get("site2")):
            needs = "body1 and anchor" if el.tag == "connect" else "body1"
            raise self.fail(f"{label}: needs {needs}, or site1 and site2")
        anchor = self._numbers(el, "anchor", 3, label, default="0 0 0")
        relpose = None
        if el.tag == "weld" and "relpose" in el.attrib:
            relpose = self._numbers(el, "relpose", 7, label)
            if not relpose[3:].any():  # MuJoCo: a zero quaternion means "from qpos0"
                relpose = None
        scale = float(self._numbers(el, "torquescale", 1, label, default="1")[0])
        if body:
            return Equality(el.tag, label, el.get("name"), obj1=el.get("body1"),
                            obj2=el.get("body2"), anchor=anchor, relpose=relpose, torquescale=scale)
        return Equality(el.tag, label, el.get("name"), obj1=el.get("site1"),
                        obj2=el.get("site2"), sites=True, anchor=anchor, torquescale=scale)


def _merge(into: dict[str, str], attrs) -> None:
    """Attributes over defaults; a ``size`` given in part keeps the default's other values
    (MuJoCo reads as many numbers as are given)."""
    for key, value in attrs.items():
        if key == "size" and key in into:
            old, new = into[key].split(), value.split()
            value = " ".join(new + old[len(new):])
        into[key] = value


def _label(el) -> str:
    return f"name='{el.get('name')}'" if el.get("name") else f"line {el.sourceline}"


def read_document(root: etree._Element, path: Path) -> Document:
    """The ``<mujoco>`` element (parsed from ``path``) as a :class:`Document`."""
    reader = _Reader(root, path)
    world = reader.read_world()
    return Document(root.get("model", path.stem), reader.compiler, world, reader.gravity(),
                    reader.meshes(), reader.equalities(),
                    tuple(el.tag for el in root if isinstance(el.tag, str)), reader.actuators())
