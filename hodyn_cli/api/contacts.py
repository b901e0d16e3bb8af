"""A floating-base robot on its contacts (docs/contacts.md): the contacts, the contact
wrenches that carry the base and the torques with them, the matrices on contacts, and where
a contact wrench leaves its friction cone or sole."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from hodyn_cli.api.results import MATRIX_AXES, Motion, Result, capable, rates, series
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name

if TYPE_CHECKING:
    from hodyn_cli.modeling.contacts import Contact

__all__ = ["read_contacts", "contact_dynamics", "contact_matrices", "beyond_margins"]


def read_contacts(robot: Model, contacts: Any) -> tuple[Contact, ...]:
    """The contacts (:class:`~hodyn_cli.modeling.contacts.Contact` tuple) of ``contacts``: a
    contacts file (TOML), ``{name: {key: value}}`` (its ``[contacts]`` table), or contacts."""
    from hodyn_cli.modeling.contacts import Contact, contacts_from_table
    from hodyn_cli.modeling.contacts import read_contacts as read_file

    if isinstance(contacts, tuple | list) and all(isinstance(c, Contact) for c in contacts):
        return tuple(contacts)
    if isinstance(contacts, Mapping):
        return contacts_from_table(robot, contacts)
    return read_file(contacts, robot)


def contact_dynamics(robot: Model, contacts: Any, trajectory: Trajectory, *, order: int = 2,
                     method: str = "body-fixed", gravity: Any = GRAVITY, active: Any = None,
                     base_wrench: bool = False, data: Any = None) -> Result:
    """A floating-base robot on its contacts (docs/contacts.md): fields ``tau, taud, ...``
    (the joint torques with the contact wrenches applied), per contact ``Fc_<name>``,
    ``Fcd_<name>``, ... (N, 3: a point's force, world axes) or ``Wc_<name>``, ... (N, 6: a
    surface's wrench, moment; force, its contact frame), ground reactions, and ``active``
    (N, m); with ``base_wrench`` ``W``, ``Wd``, ...: the base wrench left over (zero where
    the active contacts carry it all).

    ``contacts`` as :func:`read_contacts` takes them; ``trajectory`` a Trajectory with a
    floating ``base`` (and the flags ``contact_<name>`` in its ``series``, else ``active``
    (N, m) bool; a contact without either is always active). ``data``: as for
    :func:`~hodyn_cli.api.dynamics.inverse_dynamics`.
    """
    from hodyn_cli.algorithms.contacts.dynamics import on_contacts

    contacts = read_contacts(robot, contacts)
    m = Motion(robot, (trajectory,), {})
    r = on_contacts(robot, m.full, contacts, active=active, method=method, order=order,
                    gravity=gravity, data=data)
    fields = series("tau", m.forces(r.tau))
    for c in contacts:
        fields |= {f"{derivative_name(c.prefix, k)}_{c.name}": r.wrenches[c.name][:, k]
                   for k in range(order + 1)}
    fields["active"] = r.active
    if base_wrench:
        fields |= series("W", r.W)
    return m.result(fields)


def contact_matrices(robot: Model, contacts: Any, trajectory: Trajectory, *, order: int = 0,
                     gravity: Any = GRAVITY, active: Any = None) -> Result:
    """The floating-base matrices of :func:`~hodyn_cli.api.dynamics.matrices` on contacts
    (docs/contacts.md): ``Q_ext`` with the contact wrenches (``M nu' + C nu + g + Q_ext = (-W;
    tau)``, W the base wrench left over and tau the torques of :func:`contact_dynamics`), the
    contact Jacobian ``Jc``, ``Jc_d``, ... (N, k, 6 + n: each contact's rows in order, a
    point's velocity in world axes, a sole's body twist: ``Q_ext = Q_user - Jc^T Fc``) and the
    stacked ground reactions ``Fc``, ``Fc_d``, ... (N, k); ``result.joint_names`` names the
    columns: the root's twist, then the independent joints (mimic joints' ``qd = G qd_c``:
    ``G'^T A G'``, ``G'^T Q``, ``Jc G'`` with ``G' = diag(I_6, G)``, so that the equations keep
    their form over ``nu_c = (V_0; qd_c)``)."""
    from hodyn_cli.algorithms.contacts.dynamics import on_contacts, with_contacts
    from hodyn_cli.algorithms.contacts.jacobians import contact_jacobian
    from hodyn_cli.algorithms.dynamics import floating
    from hodyn_cli.algorithms.motion.jacobians import ROOT_COLUMNS

    contacts = read_contacts(robot, contacts)
    m = Motion(robot, (trajectory,), {})
    capable("matrices", robot, floating_base=True, contacts=True)
    r = on_contacts(robot, m.full, contacts, active=active, order=order, gravity=gravity)
    E = floating.matrices(robot, with_contacts(robot, m.full, contacts, r.wrenches, order),
                          order=order, gravity=gravity)
    fields = {k: v for name, on in MATRIX_AXES.items()
              for k, v in rates(name, m.past_the_root(getattr(E, name), on)).items()}
    Jc = np.concatenate([contact_jacobian(robot, m.full, c, order) for c in contacts], axis=2)
    Fc = np.concatenate([r.wrenches[c.name] for c in contacts], axis=2)
    return m.result(fields | rates("Jc", m.past_the_root(Jc, (-1,))) | rates("Fc", Fc),
                    ROOT_COLUMNS + robot.coordinate_names)


def beyond_margins(contact: Contact, F: np.ndarray) -> np.ndarray:
    """(N,) bool: where the ground reactions ``F`` (N, 3 or 6) of ``contact`` leave its
    friction cone, or a sole's centre of pressure its sole (beyond 1e-9 relative;
    :mod:`hodyn_cli.algorithms.contacts.margins`).

    >>> from hodyn_cli.api import load_robot
    >>> feet = read_contacts(load_robot("urdf/quadruped.urdf"), {"s": {
    ...     "link": "FL_foot", "type": "surface", "friction": 1.0, "sole": [0.2, 0.1]}})
    >>> W = np.array([[0.5, -1.0, 0, 10.0, 0, 10.0],    # 45 degrees, 10 cm forward: on the edges
    ...               [0.5, -1.0, 0, 10.1, 0, 10.0],    # beyond the cone
    ...               [0.6, -1.0, 0, 10.0, 0, 10.0]])   # beyond the sole's side
    >>> beyond_margins(feet[0], W).tolist()
    [False, True, True]
    """
    from hodyn_cli.algorithms.contacts.margins import cone_angle, friction_angle, pressure_centre

    bad = friction_angle(contact, F) > cone_angle(contact) * (1 + 1e-9)
    if contact.kind == "surface":
        bad |= (np.abs(pressure_centre(contact, F)) > np.array(contact.sole) / 2
                * (1 + 1e-9)).any(axis=1)
    return bad
