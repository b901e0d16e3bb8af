"""The elements of a checked URDF document as plain objects (what the model builder reads).

:mod:`hodyn_cli.modeling.urdf` parses the XML safely and checks every attribute this module
reads (numbers, required elements, names), so here the values are only converted: origins
to 4x4 poses (URDF ``rpy``: fixed axes x, y, z, ``R = Rz(yaw) Ry(pitch) Rx(roll)``), inertias
to 3x3 matrices. Defaults are the URDF specification's: a missing ``<origin>`` is the
identity, a missing ``<axis>`` is ``1 0 0``, a missing ``<mimic multiplier|offset>`` is 1 | 0.

>>> from lxml import etree
>>> robot = read_robot(etree.fromstring(
...     b'<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute">'
...     b'<parent link="a"/><child link="b"/><origin xyz="0 0 1" rpy="0 0 1.5707963267948966"/>'
...     b'<limit lower="-1" upper="1" velocity="2" effort="30"/></joint></robot>'))
>>> j = robot.joints[0]
>>> (j.origin.round(12) + 0.0)[:3].tolist(), j.axis.tolist(), j.limit.effort
([[0.0, -1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]], [1.0, 0.0, 0.0], 30.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hodyn_cli.core import lie

__all__ = ["Robot", "Link", "Inertial", "Joint", "Limit", "Mimic", "read_robot"]


@dataclass(frozen=True, eq=False, repr=False)
class Inertial:
    """``<inertial>``: mass, rotational inertia (3x3) about the COM in the ``origin`` frame."""

    mass: float
    inertia: np.ndarray
    origin: np.ndarray


@dataclass(frozen=True, eq=False, repr=False)
class Link:
    name: str
    inertial: Inertial | None


@dataclass(frozen=True, eq=False, repr=False)
class Limit:
    """``<limit>``; an attribute that is absent is None."""

    lower: float | None
    upper: float | None
    velocity: float | None
    effort: float | None
    jerk: float | None = None  # URDF 1.2


@dataclass(frozen=True, eq=False, repr=False)
class Mimic:
    joint: str
    multiplier: float
    offset: float


@dataclass(frozen=True, eq=False, repr=False)
class Joint:
    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray
    axis: np.ndarray
    limit: Limit | None
    mimic: Mimic | None


@dataclass(frozen=True, eq=False, repr=False)
class Robot:
    name: str
    links: tuple[Link, ...]
    joints: tuple[Joint, ...]


def read_robot(root) -> Robot:
    """The ``<robot>`` element (lxml, checked) as a :class:`Robot`."""
    links = tuple(Link(el.get("name"), _inertial(el.find("inertial")))
                  for el in root.findall("link"))
    joints = tuple(_joint(el) for el in root.findall("joint"))
    return Robot(root.get("name"), links, joints)


def _numbers(el, attr: str, default: str) -> np.ndarray:
    text = default if el is None else el.get(attr, default)
    return np.array([float(v) for v in text.split()])


def _origin(parent) -> np.ndarray:
    """The ``<origin>``'s pose: ``xyz`` and ``rpy``, or URDF 1.1's ``quat_xyzw`` (normalized)."""
    origin = parent.find("origin")
    if origin is None or origin.get("quat_xyzw") is None:
        R = lie.rpy_matrix(_numbers(origin, "rpy", "0 0 0"))
    else:
        x, y, z, w = _numbers(origin, "quat_xyzw", "0 0 0 1")
        R = lie.quaternion_matrix(np.array([w, x, y, z]) / np.linalg.norm([w, x, y, z]))
    return lie.homogeneous(R, _numbers(origin, "xyz", "0 0 0"))


def _inertial(el) -> Inertial | None:
    if el is None:
        return None
    i = {a: float(el.find("inertia").get(a)) for a in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    theta = np.array([[i["ixx"], i["ixy"], i["ixz"]],
                      [i["ixy"], i["iyy"], i["iyz"]],
                      [i["ixz"], i["iyz"], i["izz"]]])
    return Inertial(float(el.find("mass").get("value")), theta, _origin(el))


def _optional(el, attr: str) -> float | None:
    text = None if el is None else el.get(attr)
    return None if text is None else float(text)


def _joint(el) -> Joint:
    limit = el.find("limit")
    mimic = el.find("mimic")
    return Joint(
        name=el.get("name"), type=el.get("type"), parent=el.find("parent").get("link"),
        child=el.find("child").get("link"), origin=_origin(el),
        axis=_numbers(el.find("axis"), "xyz", "1 0 0"),
        limit=None if limit is None else Limit(*(_optional(limit, a) for a in
                                                 ("lower", "upper", "velocity", "effort",
                                                  "jerk"))),
        mimic=None if mimic is None else Mimic(mimic.get("joint"),
                                               float(mimic.get("multiplier", "1")),
                                               float(mimic.get("offset", "0"))))
