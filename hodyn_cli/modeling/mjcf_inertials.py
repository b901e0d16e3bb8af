"""An MJCF model with new inertial parameters (``hodyn identify``'s output when the robot is
MuJoCo XML): the bodies' ``<inertial>`` elements rewritten, every other element (and
comment) as it was.

Each moving body's 10 parameters (in the frame of hodyn's model body, the frame of the joint
that moves it: :mod:`~hodyn_cli.modeling.mjcf`) become its MuJoCo body's
``<inertial pos="c" mass="m" fullinertia="Ixx Iyy Izz Ixy Ixz Iyz"/>``, in the MuJoCo body's
frame: with ``T = (R, p)`` the pose of that frame in the model body's (``Model.links``),
``c' = R^T (c - p)`` and the inertia about the centre of mass ``I_c' = R^T I_c R``
(:func:`~hodyn_cli.modeling.urdf_inertials.inertial_of` gives ``I_c``; ``fullinertia`` is
MuJoCo's order, about the COM, axes of the body frame as no ``quat`` is given). Bodies welded
to a moving body (no joint), whose inertias the model lumped into it, get a massless
``<inertial>`` (MuJoCo's ``inertiafromgeom="auto"`` would otherwise give them their geoms'
again): the moving body's ``<inertial>`` holds the whole.

Refused in one line: ``<compiler inertiafromgeom="true">`` (MuJoCo would ignore the
``<inertial>`` elements) or ``settotalmass`` (it would rescale the masses), a body with
several joints (its identified inertia is spread over massless bodies MuJoCo does not have),
a body that is not in the file itself (an ``<include>``'s, or unnamed).

>>> data = b'<mujoco><worldbody><body name="a"><joint name="j"/><geom size="1"/>'\\
...        b'</body></worldbody></mujoco>'
>>> out = with_mjcf_inertials(data, {"a": np.array([2.0, 0.2, 0, 0, 0.1, 0, 0.12, 0, 0,
...                                                 0.12])}, {"a": np.eye(4)})
>>> out.decode().split("<joint")[0].split('name="a">')[1]
'<inertial pos="0.1 0 0" mass="2" fullinertia="0.1 0.1 0.1 0 0 0"/>'
"""

from __future__ import annotations

import numpy as np
from lxml import etree

from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.urdf_inertials import inertial_of, number, parse_kept, serialized

__all__ = ["with_mjcf_inertials"]

#: MuJoCo's ``fullinertia`` order: (row, column) of I
FULL_INERTIA = ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))


def _attributes(pi: np.ndarray | None, T: np.ndarray) -> dict[str, str]:
    """The ``<inertial>`` attributes of the parameters ``pi`` (model body frame) in the
    MuJoCo body frame at pose ``T`` in it; a massless one for None."""
    if pi is None:
        return {"pos": "0 0 0", "mass": "0", "diaginertia": "0 0 0"}
    m, c, Ic = inertial_of(np.asarray(pi, float))
    R, p = T[:3, :3], T[:3, 3]
    c, Ic = R.T @ (c - p), R.T @ Ic @ R
    return {"pos": " ".join(number(v) for v in c), "mass": number(m),
            "fullinertia": " ".join(number(Ic[i, j]) for i, j in FULL_INERTIA)}


def _refuse_compiler(root: etree._Element, source: str) -> None:
    for compiler in root.iter("compiler"):
        if compiler.get("inertiafromgeom", "").strip() == "true":
            raise ModelError("<compiler inertiafromgeom=\"true\">: MuJoCo would ignore the "
                             "identified <inertial> elements", source)
        total = compiler.get("settotalmass", "").strip()
        if total and float(total) > 0:
            raise ModelError("<compiler settotalmass>: MuJoCo would rescale the identified "
                             "masses", source)


def with_mjcf_inertials(data: bytes, parameters: dict[str, np.ndarray | None],
                        frames: dict[str, np.ndarray], source: str = "<mjcf>") -> bytes:
    """The MJCF ``data`` with ``<inertial>`` elements from ``parameters``: body name -> its
    10 parameters in the model body's frame, in which ``frames[name]`` (4 x 4) is the MuJoCo
    body's pose (module docstring), or None for a welded body's massless one (a name that is
    no ``<body>``, a site, is passed over then)."""
    tree = parse_kept(data, source)
    root = tree.getroot()
    _refuse_compiler(root, source)
    bodies = {b.get("name"): b for b in root.iter("body") if b.get("name")}
    for name, pi in parameters.items():
        body = bodies.get(name)
        if body is None and ":" in name and name.split(":")[0] in bodies:
            raise ModelError(f"body '{name.split(':')[0]}' has several joints: its identified "
                             "inertia is spread over bodies MuJoCo does not have", source)
        if body is None:
            if pi is None:
                continue
            raise ModelError(f"no <body name=\"{name}\"> in the file itself (an <include>d "
                             "file's or an unnamed body): the identified inertias are written "
                             "into this file only", source)
        new = etree.Element("inertial", _attributes(pi, frames[name]))
        old = body.find("inertial")
        if old is not None:
            new.tail = old.tail
            body.replace(old, new)
            continue
        new.tail = body.text if len(body) else (body.tail or "\n")
        if not len(body):  # (the closing tag one level out)
            body.text = (body.tail or "\n") + "  "
        body.insert(0, new)
    return serialized(data, root)
