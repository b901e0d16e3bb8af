"""MJCF ``<equality connect|weld>`` -> closed loops: the tables of a loops file
(:mod:`hodyn_cli.modeling.loops`, docs/loops.md) that the model carries (``model.loop_tables``).

MuJoCo's semantics (``mj_setConst``, ``mj_instantiateEquality``), with ``T_1``, ``T_2`` the
bodies' world poses at ``qpos0`` (the MJCF pose: every joint at its ``ref``):

* ``connect body1 body2 anchor``: the point ``anchor`` of body1 coincides with the point of
  body2 that is there at qpos0, ``T_2^-1 T_1 anchor``: a ``point`` closure;
* ``weld body1 body2 anchor relpose``: body2's frame at ``anchor`` (body2's frame) coincides
  with the frame ``relpose`` (position, quaternion) of body1, or, without ``relpose``, with the
  frame of body1 it coincides with at qpos0, ``T_1^-1 T_2 Tr(anchor)``: a ``frame`` closure
  (``torquescale="0"``, which drops the orientation rows: a ``point`` closure);
* ``site1 site2`` (MuJoCo 3): the two sites' origins (a connect) or frames (a weld) coincide,
  wherever they are at qpos0;
* ``body2`` left out: the world.

The loops are assembled from qpos0 (``[guess]``: every joint at its ``ref``); the actuated
joints are those an ``<actuator>`` drives through a joint transmission (none: the tables have
no ``actuated``, and a loops file must give it). ``solref``, ``solimp`` (MuJoCo's constraints
are soft; hodyn's loops hold exactly) and ``torquescale`` (but 0) do not change the motion.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.mjcf import load_mjcf
>>> tables = load_mjcf(Path(__file__).parents[2] / "mjcf" / "fourbar.xml").loop_tables
>>> tables["actuated"], tables["loops"]["knee"]["type"], tables["loops"]["knee"]["b"]["link"]
(['crank'], 'point', 'rocker_link')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hodyn_cli.core import lie
from hodyn_cli.core.model import Diagnostic
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.contacts import NAME
from hodyn_cli.modeling.mjcf_drives import TRANSMISSIONS
from hodyn_cli.modeling.mjcf_xml import Body, Document, Equality

__all__ = ["loop_tables"]

#: the world body's name in MJCF (``body2`` left out)
WORLD = "world"


def loop_tables(doc: Document, bodies: list[Body], joints: dict[str, float], links: set[str],
                source: str) -> tuple[dict[str, Any] | None, list[Diagnostic]]:
    """The loops file's tables of the connect and weld equalities of ``doc`` (None: none) and
    their info lines. ``bodies``: every body, the world's too; ``joints``: the model's joints
    and their ``ref`` (qpos0, radians or metres); ``links``: the model's link names."""
    closures = [e for e in doc.equalities if e.kind in ("connect", "weld")]
    if not closures:
        return None, []
    poses = _world_poses(doc.world)
    sites = {s.name: (body, s) for body in bodies for s in body.sites}
    loops: dict[str, Any] = {}
    notes = []
    for k, e in enumerate(closures):
        name = e.name if e.name and NAME.fullmatch(e.name) else f"{e.kind}{k}"
        if name in loops:
            raise ModelError(f"{e.label}: a second closure named '{name}'", source)
        loops[name] = _closure(e, poses, sites, links, source)
        what = f"{loops[name]['a']['link']}' and '{loops[name]['b']['link']}"
        notes.append(Diagnostic("info", f"{e.label}: a closed loop '{name}' ({loops[name]['type']} "
                                        f"closure of '{what}'), closed by compute, validate, "
                                        "matrices, check and regressor; the other commands "
                                        "refuse the model (docs/loops.md)"))
    tables: dict[str, Any] = {"loops": loops,
                              "guess": {j: ref for j, ref in joints.items() if ref != 0}}
    actuated = _actuated(doc, joints)
    if actuated:
        tables["actuated"] = actuated
        notes.append(Diagnostic("info", "the closed loops' actuated joints (an <actuator> drives "
                                        f"them): {', '.join(actuated)}"))
    else:
        notes.append(Diagnostic("info", "no <actuator> drives a joint of the closed loops: a loops "
                                        "file says which (--loops with actuated = [...])"))
    return tables, notes


def _closure(e: Equality, poses: dict[str, np.ndarray], sites: dict, links: set[str],
             source: str) -> dict[str, Any]:
    kind = "point" if e.kind == "connect" or e.torquescale == 0 else "frame"
    assert e.obj1 is not None and e.anchor is not None  # (the reader's checks)
    if e.sites:
        (body1, T_a), (body2, T_b) = (_site(e, s, sites, source) for s in (e.obj1, e.obj2))
    else:
        body1, body2 = e.obj1, e.obj2 or WORLD
        for body in (body1, body2):
            if body not in poses:
                raise ModelError(f"{e.label}: no body '{body}'", source)
        T_1, T_2 = poses[body1], poses[body2]
        if e.kind == "connect":  # anchor on body1; body2's point from qpos0
            T_a = lie.homogeneous(np.eye(3), e.anchor)
            T_b = np.linalg.solve(T_2, T_1 @ T_a)
        else:  # anchor on body2; body1's frame from relpose or qpos0
            T_b = lie.homogeneous(np.eye(3), e.anchor)
            T_a = np.linalg.solve(T_1, T_2 @ T_b) if e.relpose is None else lie.homogeneous(
                lie.quaternion_matrix(e.relpose[3:] / np.linalg.norm(e.relpose[3:])),
                e.relpose[:3])
    for body in (body1, body2):
        if body not in links:
            raise ModelError(f"{e.label}: body '{body}' is not in the model (the free body's "
                             "model leaves out what is welded to the world)", source)
    if body1 == body2:
        raise ModelError(f"{e.label}: both ends on body '{body1}'", source)
    return {"type": kind, "a": _frame(body1, T_a, kind), "b": _frame(body2, T_b, kind)}


def _site(e: Equality, name: str | None, sites: dict, source: str) -> tuple[str, np.ndarray]:
    if name not in sites:
        raise ModelError(f"{e.label}: no site '{name}'", source)
    body, site = sites[name]
    return body.name, lie.homogeneous(lie.quaternion_matrix(site.quat), site.pos)


def _frame(link: str, T: np.ndarray, kind: str) -> dict[str, Any]:
    frame = {"link": link, "xyz": [float(v) for v in T[:3, 3]]}
    if kind == "frame":
        frame["rpy"] = [float(v) for v in lie.matrix_rpy(T[:3, :3])]
    return frame


def _actuated(doc: Document, joints: dict[str, float]) -> list[str]:
    """The joints an ``<actuator>`` drives through a joint transmission, in model order."""
    driven = {a[k] for a in doc.actuators for k in TRANSMISSIONS
              if k in a and TRANSMISSIONS[k] == "joint"}
    return [j for j in joints if j in driven]


def _world_poses(world: Body) -> dict[str, np.ndarray]:
    """Every body's world pose at qpos0 (MuJoCo's ``xpos``, ``xquat`` there)."""
    poses = {world.name: np.eye(4)}
    stack = [world]
    while stack:
        body = stack.pop()
        for child in body.children:
            poses[child.name] = poses[body.name] @ lie.homogeneous(
                lie.quaternion_matrix(child.quat), child.pos)
            stack.append(child)
    return poses
