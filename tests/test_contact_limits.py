"""Limits of a floating base on its contacts: time-scaling laws, friction cones, soles.

The laws against the dynamics of the scaled motion computed afresh (torques and contact
wrenches at several speeds, also without contacts); each contact condition against its
definition from the recomputed wrench; the retiming's speed-up on the binding contact
condition (a little faster leaves it); the check's friction and centre-of-pressure rows
against the margins computed from the contact wrenches; a motion that needs the feet to
pull fails.
"""

import numpy as np
import pytest

from conftest import URDF, floating_motion, legged_urdf
from hodyn_cli import api
from hodyn_cli.algorithms.contacts.dynamics import on_contacts
from hodyn_cli.algorithms.contacts.margins import cone_angle, friction_angle, pressure_centre
from hodyn_cli.algorithms.dynamics import floating
from hodyn_cli.algorithms.limits.contact_laws import contact_conditions, floating_laws, wrench_key
from hodyn_cli.algorithms.limits.feasibility import ScaleSearch
from hodyn_cli.algorithms.limits.scaling import scaled
from hodyn_cli.core.trajectory import BaseMotion, Trajectory
from hodyn_cli.modeling.contacts import contacts_from_table
from hodyn_cli.modeling.limits import joint_limits
from hodyn_cli.modeling.urdf import load_model

SPEEDS = (0.5, 1.7)


def humanoid(tmp_path, seed=1):
    text = legged_urdf("talos", seed=seed)
    path = tmp_path / "talos.urdf"
    path.write_text(text)
    model = load_model(path)
    contacts = contacts_from_table(model, {
        "left": {"link": "limb0_end", "type": "surface", "sole": [0.25, 0.12], "friction": 0.8},
        "right": {"link": "limb1_end", "type": "surface", "sole": [0.25, 0.12], "friction": 0.8,
                  "rpy": [0.0, 0.1, 0.0]},
        "hand": {"link": "limb3_end", "type": "point", "friction": 0.4}})
    return text, model, contacts


@pytest.mark.parametrize("with_contacts", [False, True])
def test_the_laws_are_the_dynamics_of_the_scaled_motion(tmp_path, with_contacts):
    text, model, contacts = humanoid(tmp_path)
    traj = floating_motion(text, model, np.linspace(0, 1, 5), 4, seed=2)[0]
    contacts = contacts if with_contacts else ()
    laws = floating_laws(model, traj, 2, contacts=contacts)
    for x in SPEEDS:
        fast = scaled(traj, x)
        if contacts:
            r = on_contacts(model, fast, contacts, order=2)
            tau = r.tau
            for c in contacts:
                F = r.wrenches[c.name][:, 0]
                assert np.abs(laws[wrench_key(c)].at(x) - F).max() <= 1e-10 * np.abs(F).max()
        else:
            tau = floating.inverse_dynamics(model, fast, order=2)[0]
        for j in range(3):
            law = laws["tau" + "d" * j].at(x)
            assert np.abs(law - tau[:, j]).max() <= 1e-10 * np.abs(tau[:, j]).max(), (x, j)


def test_each_contact_condition_is_its_definition(tmp_path):
    text, model, contacts = humanoid(tmp_path, seed=3)
    traj = floating_motion(text, model, np.linspace(0, 1, 6), 4, seed=4)[0]
    laws = floating_laws(model, traj, 0, contacts=contacts)
    for x in SPEEDS:
        r = on_contacts(model, scaled(traj, x), contacts, order=0)
        for c in contacts:
            F = r.wrenches[c.name][:, 0]
            cond = {k: v.at(x) for k, v in contact_conditions(c, laws[wrench_key(c)]).items()}
            if c.kind == "point":
                fn = F @ c.normal
                ft = F - fn[:, None] * c.normal
            else:
                fn, ft = F[:, 5], F[:, 3:5]
                half = np.array(c.sole) / 2
                assert np.allclose(cond["cop_x"], np.stack([half[0] * fn - F[:, 1],
                                                            half[0] * fn + F[:, 1]], 1))
                assert np.allclose(cond["cop_y"], np.stack([half[1] * fn + F[:, 0],
                                                            half[1] * fn - F[:, 0]], 1))
            scale = (c.friction * fn) ** 2 + (ft**2).sum(1)
            ref = c.friction**2 * fn**2 - (ft**2).sum(1)
            assert np.abs(cond["cone"][:, 0] - ref).max() <= 1e-10 * scale.max()
            assert np.allclose(cond["pressing"][:, 0], fn, rtol=1e-12, atol=1e-12 * np.abs(fn).max())


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_forces_near_floats_largest_give_no_warning():
    """A base acceleration of 1e300 (finite) in a file: contact forces of ~1e300 whose squares
    overflow. The friction angle is still computed (hypot), the cone of those samples is not
    judged (nan) and no RuntimeWarning reaches the user before the limits' verdict."""
    from hodyn_cli.algorithms.limits.scaling import Law

    foot = contacts_from_table(load_model(URDF / "quadruped.urdf"), {"FL": {
        "link": "FL_foot", "type": "point", "friction": 0.5}})[0]
    F = np.array([[3e300, 0.0, 4e300], [0.3, 0.0, 1.0]])
    assert friction_angle(foot, F) == pytest.approx(np.degrees(np.arctan2([3, 0.3], [4, 1])))
    law = Law(0, np.stack([F, F], axis=-1), foot.components)
    cone = contact_conditions(foot, law)["cone"].coefficients
    assert np.isnan(cone[0]).any() and np.isfinite(cone[1]).all()


def quadruped(gravity_sign=-1.0):
    """The bundled quadruped standing on its four feet, its trunk bobbing (2 Hz, 2 cm)."""
    model = load_model(URDF / "quadruped.urdf")
    feet = contacts_from_table(model, {leg: {"link": f"{leg}_foot", "type": "point",
                                             "friction": 0.6} for leg in ("FL", "FR", "HL", "HR")})
    t = np.linspace(0, 0.5, 51)
    w = 2 * np.pi * 2.0
    Vb = np.zeros((t.size, 4, 6))
    for k in range(4):   # v_z = 0.02 w cos(w t): its derivatives
        Vb[:, k, 5] = 0.02 * w ** (k + 1) * np.cos(w * t + k * np.pi / 2)
        Vb[:, k, 3] = 0.03 * w ** (k + 1) * np.cos(w * t + 0.3 + k * np.pi / 2)  # and sway in x
    p = np.stack([0.03 * np.sin(w * t + 0.3), 0 * t, 0.3 + 0.02 * np.sin(w * t)], axis=1)
    base = BaseMotion(np.broadcast_to(np.eye(3), (t.size, 3, 3)).copy(), p, Vb)
    q = np.zeros((t.size, 5, 12))
    q[:, 0] = np.tile([0.0, 0.8, -1.6], 4)
    return model, feet, Trajectory(model.joint_names, q, t, base=base), (0, 0, gravity_sign * 9.81)


def test_retime_lands_on_the_binding_friction_cone():
    """No torque limits: the trunk's sway is what the feet's friction must carry, so the
    fastest playing puts one foot exactly on its cone; 1e-6 faster leaves it."""
    model, feet, traj, g = quadruped()
    lim = joint_limits(model, {j: {"torque": 1e9, "velocity": 1e9} for j in model.joint_names})
    search = ScaleSearch(model, lim, (), feet)
    search.add(floating_laws(model, traj, 0, g, feet), traj)
    best = search.best[0]
    assert best.quantity == "friction cone" and best.joint in {c.name for c in feet}
    c = next(c for c in feet if c.name == best.joint)
    for x, inside in ((best.x, True), (best.x * (1 + 1e-6), False)):
        F = on_contacts(model, scaled(traj, x), feet, order=0, gravity=g).wrenches[c.name][:, 0]
        angle = friction_angle(c, F).max()
        assert (angle <= cone_angle(c) * (1 + 1e-9)) == inside, (x, angle)
    assert np.isclose(friction_angle(c, on_contacts(model, scaled(traj, best.x), feet, order=0,
                                                    gravity=g).wrenches[c.name][:, 0]).max(),
                      cone_angle(c), rtol=1e-9)


def test_check_rows_and_a_motion_that_pulls():
    """The friction rows are the largest friction angle of each foot; with gravity reversed
    the feet must pull: every friction row fails (beyond 90 degrees)."""
    model, feet, traj, g = quadruped()
    check = api.check_limits(model, traj, contacts=feet, gravity=g)
    r = on_contacts(model, traj, feet, order=0, gravity=g)
    rows = {row.joint: row for row in check.rows if row.quantity == "friction"}
    for c in feet:
        angle = friction_angle(c, r.wrenches[c.name][:, 0])
        assert np.isclose(rows[c.name].value, angle.max(), rtol=1e-12)
        beyond = angle > cone_angle(c) * (1 + 1e-9)
        assert rows[c.name].violations == int(beyond.sum())
        assert rows[c.name].status == ("violated" if beyond.any() else "ok")
        assert rows[c.name].sample == int(np.argmax(angle))
    pulling = api.check_limits(model, traj, contacts=feet, gravity=(0, 0, 9.81))
    assert not pulling.feasible
    assert all(row.status == "violated" and row.value > 90 for row in pulling.rows
               if row.quantity == "friction")


def test_check_of_a_sole_reports_its_centre_of_pressure(tmp_path):
    text, model, contacts = humanoid(tmp_path, seed=5)
    traj = floating_motion(text, model, np.linspace(0, 1, 9), 4, seed=6)[0]
    sole = contacts[:1]
    check = api.check_limits(model, traj, contacts=sole)
    W = on_contacts(model, traj, sole, order=0).wrenches["left"][:, 0]
    cop = pressure_centre(sole[0], W)
    for row in check.rows:
        if row.quantity in ("cop_x", "cop_y"):
            v = cop[:, int(row.quantity == "cop_y")]
            usage = np.abs(v) / row.upper
            pressing = ~np.isnan(usage)
            assert row.violations == int((usage[pressing] > 1 + 1e-9).sum())
            assert np.isclose(np.abs(row.value), np.abs(v[pressing]).max(), rtol=1e-12)
