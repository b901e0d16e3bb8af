"""How far each contact wrench is from slipping or tipping: its friction angle against the
cone's, and a sole's centre of pressure against the sole's edges (``hodyn check``).

- Friction: the angle between the ground reaction and the ground normal, ``atan2(|f_t|,
  f_n)`` (a point: the normal of the contacts file, world axes; a sole: its frame's z axis),
  against the cone's half-angle ``atan(mu)``. A contact that pulls on the ground (``f_n < 0``)
  is beyond 90 degrees: always outside its cone.
- Centre of pressure of a sole (where the ground reaction's line of action meets the sole,
  its frame): ``x = -m_y / f_z``, ``y = m_x / f_z`` (a force f at (x, y, 0) has the moment
  ``(y f_z, -x f_z, ...)``), against ``|x| <= length / 2``, ``|y| <= width / 2``; defined
  where the sole presses (``f_z > 0``).

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> from hodyn_cli.modeling.contacts import contacts_from_table
>>> model = load_model(Path(__file__).parents[3] / "urdf" / "quadruped.urdf")
>>> sole = contacts_from_table(model, {"s": {"link": "FL_foot", "type": "surface",
...                                          "friction": 1.0, "sole": [0.2, 0.1]}})[0]
>>> W = np.array([[0.5, -1.0, 0.0, 10.0, 0.0, 10.0]])   # 45 degrees; 10 cm forward, 5 cm left
>>> friction_angle(sole, W).round(9).tolist(), pressure_centre(sole, W).round(9).tolist()
([45.0], [[0.1, 0.05]])
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.modeling.contacts import Contact

__all__ = ["friction_angle", "cone_angle", "pressure_centre"]


def cone_angle(contact: Contact) -> float:
    """The friction cone's half-angle, degrees."""
    return float(np.degrees(np.arctan(contact.friction)))


def friction_angle(contact: Contact, F: np.ndarray) -> np.ndarray:
    """(N,) degrees between the ground reactions F (N, 3 or 6) and the ground normal (0 where
    there is no force)."""
    if contact.kind == "point":
        normal = F @ contact.normal
        side = F - normal[:, None] * contact.normal
        # (hypot, not the root of a sum of squares: forces of 1e300 are finite, their squares not)
        tangential = np.hypot(np.hypot(side[:, 0], side[:, 1]), side[:, 2])
    else:
        normal, tangential = F[:, 5], np.hypot(F[:, 3], F[:, 4])
    return np.degrees(np.arctan2(tangential, normal))


def pressure_centre(contact: Contact, W: np.ndarray) -> np.ndarray:
    """(N, 2) centre of pressure (x, y) of a sole's wrenches W (N, 6) in its frame; NaN where
    the sole does not press."""
    fz = W[:, 5]
    pressing = fz > 0
    safe = np.where(pressing, fz, 1.0)
    cop = np.stack([-W[:, 1] / safe, W[:, 0] / safe], axis=1)
    return np.where(pressing[:, None], cop, np.nan)
