"""Time-scaling laws of a floating base and of a robot on its contacts (``hodyn check`` and
``hodyn retime`` with ``--floating-base``, ``--contacts``; :mod:`.scaling` has the laws' idea).

Played k times slower (x = 1/k) the root's twist scales like a joint rate,
``V_0,k^(j) = x^(j+1) V_0^(j)``, and its pose like a position, so the floating-base torques
keep the rigid laws' form ``tau_k^(j) = x^j s^(j) + x^(j+2) d^(j)``: d the dynamics without
gravity and external wrenches, s = tau - d. On contacts the base wrench splits the same way,
``W = W_s + W_d``, and the distribution is linear in it at a given pose (its map A depends on
the pose only: :mod:`hodyn_cli.algorithms.backends.numpy.contacts`), so every contact wrench
is ``F_k = F_s + x^2 F_d`` (d: the distribution of ``W_d``) and the torques with the contacts
keep the form too, d then with the contact wrenches ``F_d``.

A contact stays in its friction cone and on its sole under conditions on F that are
polynomials in x (:func:`contact_conditions`, each ``g(x) >= 0``; y = x^2):

- it presses: ``f_n = f_n,s + y f_n,d >= 0``;
- its cone: ``mu^2 f_n^2 - |f_t|^2 >= 0``, ``(mu^2 a_0^2 - |b_0|^2) + 2 y (mu^2 a_0 a_1 - b_0 .
  b_1) + y^2 (mu^2 a_1^2 - |b_1|^2)`` with ``f_n = a_0 + y a_1``, ``f_t = b_0 + y b_1``
  (with the first it is the cone itself, not its mirror);
- a sole's centre of pressure: ``(length/2) f_z -+ m_y >= 0``, ``(width/2) f_z +- m_x >= 0``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.contacts.dynamics import on_contacts
from hodyn_cli.algorithms.dynamics import floating
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.limits.scaling import NO_GRAVITY, Law, joint_laws
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.modeling.contacts import Contact

__all__ = ["floating_laws", "contact_conditions", "CONDITIONS", "wrench_key"]

#: the conditions of :func:`contact_conditions` (a sole's centre of pressure: soles only):
#: key -> label
CONDITIONS = {"pressing": "contact force", "cone": "friction cone",
              "cop_x": "centre of pressure x", "cop_y": "centre of pressure y"}


def wrench_key(contact: Contact) -> str:
    """The key of a contact wrench's law among the laws."""
    return f"contact/{contact.name}"


def floating_laws(model: Model, trajectory: Trajectory, order: int, gravity=GRAVITY,
                  contacts: tuple[Contact, ...] = (), data: backends.Data | None = None
                  ) -> dict[str, Law]:
    """Laws of ``q``, ``qd`` .. ``qddd`` (every joint: :func:`joint_laws`), ``tau`` ..
    ``tau^(order)`` (the independent joints; none for order -1) of a floating base
    (``trajectory.base``, all joints); with ``contacts`` the torques on them and each
    contact's wrench (:func:`wrench_key`: components as columns, order 0). ``data``: the
    backend's Data for the model, made once per request."""
    laws = joint_laws(trajectory, model.dof_names)  # a multi-DOF joint: its coordinates
    if order < 0 and not contacts:
        return laws
    K = max(order, 0)
    still = replace(trajectory, wrenches=None)
    _, data = backends.prepare(model, data)
    if contacts:
        full = on_contacts(model, trajectory, contacts, order=K, gravity=gravity, data=data)
        dyn = on_contacts(model, still, contacts, active=full.active, order=K, gravity=NO_GRAVITY,
                          data=data)
        tau, d = full.tau, dyn.tau
        for c in contacts:
            F, Fd = full.wrenches[c.name][:, 0], dyn.wrenches[c.name][:, 0]
            laws[wrench_key(c)] = Law(0, np.stack([F - Fd, Fd], axis=-1), c.components)
    else:
        tau = floating.inverse_dynamics(model, trajectory, order=K, gravity=gravity,
                                        data=data)[0]
        d = floating.inverse_dynamics(model, still, order=K, gravity=NO_GRAVITY, data=data)[0]
    graded = model.coupling.forces(np.stack([tau - d, d], axis=-1), trajectory, axis=2)
    for j in range(order + 1):
        laws[derivative_name("tau", j)] = Law(j, graded[:, j], model.coordinate_names)
    return laws


def contact_conditions(contact: Contact, law: Law) -> dict[str, Law]:
    """The conditions (module docstring) of a contact wrench's law, each a law (power 0) whose
    columns must all stay >= 0: key of :data:`CONDITIONS` -> law (a sole's centre of
    pressure: one column per edge, the lower first)."""
    c = law.coefficients  # (N, size, 2): static, dynamic
    if contact.kind == "point":
        n = contact.normal
        fn = np.einsum("nij,i->nj", c, n)                      # (N, 2)
        ft = c - fn[:, None, :] * n[None, :, None]             # (N, 3, 2)
    else:
        fn, ft = c[:, 5], c[:, 3:5]
    mu2 = contact.friction**2
    with np.errstate(over="ignore", invalid="ignore"):  # forces of 1e155 or more (finite)
        # have no finite square: that sample's cone is not judged (nan), its torques are
        cone = np.stack([mu2 * fn[:, 0] ** 2 - (ft[..., 0] ** 2).sum(1),
                         2 * (mu2 * fn[:, 0] * fn[:, 1] - (ft[..., 0] * ft[..., 1]).sum(1)),
                         mu2 * fn[:, 1] ** 2 - (ft[..., 1] ** 2).sum(1)], axis=-1)
    out = {"pressing": fn[:, None], "cone": cone[:, None]}
    if contact.kind == "surface":
        half_length, half_width = np.array(contact.sole) / 2
        fz, mx, my = c[:, 5], c[:, 0], c[:, 1]
        out["cop_x"] = np.stack([half_length * fz - my, half_length * fz + my], axis=1)
        out["cop_y"] = np.stack([half_width * fz + mx, half_width * fz - mx], axis=1)
    return {key: Law(0, value, (contact.name,) * value.shape[1]) for key, value in out.items()}
