"""A floating-base robot on its contacts: contact wrenches, torques with them, derivatives.

Independent references: Pinocchio's free-flyer ``rnea`` with the contact wrenches as ``fext``
gives hodyn's joint torques and a zero base wrench; the contact forces' sum is the momentum
rate minus gravity from Pinocchio's ``centerOfMass``; a single sole's wrench is the unique
solution of ``A F = b``; the distribution's optimality conditions (KKT, and for one or two
points the least-moment-residual rule) solved independently with numpy/scipy; every
derivative by the 8th-order difference of the order below along analytic motions, per phase.
"""

from dataclasses import replace

import numpy as np
import pytest
from scipy.linalg import null_space

from conftest import (
    URDF,
    assert_rates,
    floating_motion,
    free_flyer_q,
    free_flyer_rate,
    legged_urdf,
    pinocchio_free_flyer,
    stencil_times,
    wrench_motion,
)
from hodyn_cli.algorithms.backends.numpy.contacts import contact_frames
from hodyn_cli.algorithms.contacts.dynamics import (
    COLLINEAR,
    _collinear,
    _phases,
    active_flags,
    on_contacts,
    switches,
)
from hodyn_cli.algorithms.dynamics import floating
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import Trajectory, Wrenches, free_root_motion
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.modeling.contacts import contacts_from_table
from hodyn_cli.modeling.urdf import load_model

H = 0.0025  # the analytic motions are fast (8th-order truncation ~1e-11 here, 1e-7 at 0.01)
SOLE = {"type": "surface", "sole": [0.2, 0.1], "friction": 0.6}


def robot(tmp_path, kind, seed=1):
    text = legged_urdf(kind, seed=seed)
    path = tmp_path / f"{kind}.urdf"
    path.write_text(text)
    return text, path, load_model(path)


def feet(model, kind):
    """Talos-like: two soles (one tilted, offset); Solo-like: four point feet."""
    if kind == "talos":
        return contacts_from_table(model, {
            "left": {"link": "limb0_end", **SOLE, "position": [0.02, 0.0, -0.03]},
            "right": {"link": "limb1_end", **SOLE, "rpy": [0.1, -0.2, 0.3], "weight": 2.0}})
    return contacts_from_table(model, {f"foot{k}": {"link": f"limb{k}_end", "type": "point",
                                                    "friction": 0.5 + 0.1 * k,
                                                    "position": [0.0, 0.01 * k, -0.02]}
                                       for k in range(4)})


def pinocchio_forces(pin, pm, data, model, contacts, wrenches, s):
    """fext: each contact's ground reaction on its body, in the body (joint) frame, (f; m)."""
    fext = [pin.Force.Zero() for _ in range(pm.njoints)]
    for c in contacts:
        frame = model.links[c.link]
        jid = pm.getJointId(model.joint_names[frame.body])
        T = frame.T @ c.T  # the contact frame on the body
        G = wrenches[c.name][s, 0]
        if c.kind == "point":
            f = data.oMi[jid].rotation.T @ G
            Wb = np.concatenate([np.cross(T[:3, 3], f), f])
        else:
            Wb = G @ lie.Ad_inv(T[:3, :3], T[:3, 3])
        fext[jid] += pin.Force(Wb[3:], Wb[:3])
    return fext


@pytest.mark.parametrize("kind", ["talos", "solo"])
def test_pinocchio_rnea_with_the_contact_wrenches(tmp_path, kind, method):
    """tau = Pinocchio's free-flyer rnea with the contacts (and a user wrench) as fext; its base
    rows vanish; the forces sum to Pinocchio's momentum rate minus gravity."""
    text, path, model = robot(tmp_path, kind)
    t = np.linspace(0, 2, 6)
    traj, base, _, _ = floating_motion(text, model, t, 3, seed=4)
    user = Wrenches({"limb2_end": wrench_motion(t, 1)})
    traj = replace(traj, wrenches=user)
    contacts = feet(model, kind)
    r = on_contacts(model, traj, contacts, method=method, order=0)
    assert np.abs(r.W).max() <= 1e-10 * np.abs(r.tau).max()
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    for s in range(len(t)):
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], traj.q[s])
        v = free_flyer_rate(order, base.Vb[s, 0], traj.qd[s])
        a = free_flyer_rate(order, base.Vb[s, 1], traj.qdd[s])
        pin.forwardKinematics(pm, data, q)
        fext = pinocchio_forces(pin, pm, data, model, contacts, r.wrenches, s)
        Wu = user.W["limb2_end"][s, 0]  # the user's wrench: what the link exerts, its frame
        frame = model.links["limb2_end"]
        Wb = Wu @ lie.Ad_inv(frame.T[:3, :3], frame.T[:3, 3])
        fext[pm.getJointId(model.joint_names[frame.body])] -= pin.Force(Wb[3:], Wb[:3])
        out = pin.rnea(pm, data, q, v, a, fext)
        scale = np.abs(out[6:]).max()
        assert np.abs(out[:6]).max() <= 1e-10 * scale, (kind, method, s)
        assert np.abs(r.tau[s, 0, order] - out[6:]).max() <= 1e-10 * scale, (kind, method, s)
        if kind == "solo":  # sum f_c = m (c'' - g) - (the user's force, on the robot)
            pin.centerOfMass(pm, data, q, v, a)
            m = data.mass[0]
            Rl = data.oMi[pm.getJointId(model.joint_names[frame.body])].rotation
            total = m * (data.acom[0] - pm.gravity.linear) + Rl @ Wb[3:]
            forces = sum(r.wrenches[c.name][s, 0] for c in contacts)
            assert np.abs(forces - total).max() <= 1e-10 * np.abs(total).max()


@pytest.mark.parametrize("kind", ["talos", "solo"])
def test_derivatives_by_finite_differences(tmp_path, kind):
    """Contact wrenches, torques with them, orders 1-3 against the 8th-order difference of the
    order below, along analytic motions (a phase: the active set held)."""
    text, _, model = robot(tmp_path, kind, seed=2)
    traj = floating_motion(text, model, stencil_times([0.5, 1.4], H), 5, seed=5)[0]
    r = on_contacts(model, traj, feet(model, kind), order=3)
    assert_rates(r.tau, H, 1e-8, f"{kind} tau")
    for name, F in r.wrenches.items():
        assert_rates(F, H, 1e-8, f"{kind} {name}")


def test_methods_agree(tmp_path):
    text, _, model = robot(tmp_path, "talos", seed=3)
    traj = floating_motion(text, model, np.linspace(0, 1, 4), 5, seed=6)[0]
    contacts = feet(model, "talos")
    ref = on_contacts(model, traj, contacts, method="spatial", order=3)
    for method in ("body-fixed", "closed-form"):
        r = on_contacts(model, traj, contacts, method=method, order=3)
        assert np.abs(r.tau - ref.tau).max() <= 1e-10 * np.abs(ref.tau).max()
        for name, F in r.wrenches.items():
            assert np.abs(F - ref.wrenches[name]).max() <= 1e-10 * np.abs(F).max()


def _maps(model, traj, contacts, K=0):
    """A (N, K+1, 6, k) and H^-1 of all contacts, assembled here from the frames' poses (the
    contact frame in the root frame, ``Ad_{X^-1}^T``)."""
    frames = contact_frames(model, traj.derivatives, contacts, K)
    R0 = traj.base.R   # the root's orientation in the world
    cols, Hinv = [], []
    for c, fr in zip(contacts, frames, strict=True):
        R = fr.R[:, 0]
        X = np.swapaxes(lie.Ad_inv(R, fr.p[:, 0]), 1, 2)   # Ad_{X^-1}^T: to the root
        # a point's force in world axes: R^T R_0^T f in the contact frame's
        cols.append(X[:, :, 3:] @ np.swapaxes(R0 @ R, 1, 2) if c.kind == "point" else X)
        Hinv.append(c.inverse_weights())
    from scipy.linalg import block_diag

    return np.concatenate(cols, axis=2), block_diag(*Hinv)


@pytest.mark.parametrize("kind", ["talos", "solo"])
def test_the_distribution_solves_its_optimality_conditions(tmp_path, kind):
    """Full rank (two soles, four points): the KKT system ``[[H, A^T], [A, 0]] (F; -y) = (0;
    b)`` solved by numpy gives the same F (1e-10), and ``A F = b``."""
    text, _, model = robot(tmp_path, kind, seed=4)
    traj = floating_motion(text, model, np.linspace(0, 1, 5), 3, seed=7)[0]
    contacts = feet(model, kind)
    _, W = floating.inverse_dynamics(model, traj, order=0)
    r = on_contacts(model, traj, contacts, order=0)
    F = np.concatenate([r.wrenches[c.name][:, 0] for c in contacts], axis=1)
    A, Hinv = _maps(model, traj, contacts)
    H = np.linalg.inv(Hinv)
    k = H.shape[0]
    for s in range(traj.n_samples):
        KKT = np.block([[H, A[s].T], [A[s], np.zeros((6, 6))]])
        ref = np.linalg.solve(KKT, np.concatenate([np.zeros(k), -W[s, 0]]))[:k]
        assert np.abs(F[s] - ref).max() <= 1e-10 * np.abs(ref).max(), s
        assert np.abs(A[s] @ F[s] + W[s, 0]).max() <= 1e-10 * np.abs(W[s, 0]).max()


@pytest.mark.parametrize("count", [1, 2])
def test_one_or_two_points_carry_the_force_and_what_moment_they_can(tmp_path, count):
    """The least-moment-residual rule, checked from its definition: the force exactly; the
    couple left over orthogonal to every moment the points could add without changing the
    force; F of least H-norm for what it achieves (``H F`` orthogonal to A's null space); the
    base wrench left over is that couple; 1e-10."""
    text, _, model = robot(tmp_path, "solo", seed=5)
    traj = floating_motion(text, model, np.linspace(0, 1, 5), 3, seed=8)[0]
    contacts = feet(model, "solo")[:count]
    _, W = floating.inverse_dynamics(model, traj, order=0)
    r = on_contacts(model, traj, contacts, order=0)
    F = np.concatenate([r.wrenches[c.name][:, 0] for c in contacts], axis=1)
    A, Hinv = _maps(model, traj, contacts)
    H = np.linalg.inv(Hinv)
    scale = np.abs(W).max()
    for s in range(traj.n_samples):
        residual = -W[s, 0] - A[s] @ F[s]
        assert np.abs(residual[3:]).max() <= 1e-10 * scale                    # the force
        keep_force = null_space(A[s, 3:])   # one point: none (its force is the force)
        if keep_force.size:
            assert np.abs(residual[:3] @ A[s, :3] @ keep_force).max() <= 1e-10 * scale
        free = null_space(A[s])
        if free.size:
            assert np.abs((H @ F[s]) @ free).max() <= 1e-10 * np.abs(H @ F[s]).max()
        assert np.abs(r.W[s, 0] + residual).max() <= 1e-9 * scale      # what is left on the base
    assert np.abs(r.W[:, 0, :3]).max() > 1e-3 * scale   # an analytic motion does not fit them


def test_a_single_sole_carries_the_unique_wrench(tmp_path):
    text, _, model = robot(tmp_path, "talos", seed=6)
    traj = floating_motion(text, model, np.linspace(0, 1, 4), 3, seed=9)[0]
    sole = feet(model, "talos")[1:]
    _, W = floating.inverse_dynamics(model, traj, order=0)
    r = on_contacts(model, traj, sole, order=0)
    A, _ = _maps(model, traj, sole)
    ref = np.linalg.solve(A, -W[:, 0][..., None])[..., 0]
    assert np.abs(r.wrenches["right"][:, 0] - ref).max() <= 1e-10 * np.abs(ref).max()
    heavier = replace(sole[0], weight=50.0)   # the weights do not matter then
    again = on_contacts(model, traj, (heavier,), order=0)
    assert np.abs(again.wrenches["right"] - r.wrenches["right"]).max() <= 1e-10 * np.abs(ref).max()


def test_phases_switch_with_the_flags(tmp_path):
    """Each phase is solved as if alone (the same numbers as its active contacts given
    without flags); inactive contacts carry nothing; the switches are found."""
    text, _, model = robot(tmp_path, "solo", seed=7)
    t = np.linspace(0, 1, 12)
    traj = floating_motion(text, model, t, 4, seed=10)[0]
    contacts = feet(model, "solo")
    flags = np.ones((12, 4))
    flags[4:8, 1] = 0      # foot1 lifts
    flags[8:, 3] = 0       # then foot3
    series = {f"contact_{c.name}": flags[:, i] for i, c in enumerate(contacts)}
    traj = replace(traj, series=series)
    r = on_contacts(model, traj, contacts, order=2)
    assert switches(r.active).tolist() == [4, 8]
    assert not r.wrenches["foot1"][4:8].any() and not r.wrenches["foot3"][8:].any()
    for rows, on in ((slice(0, 4), [0, 1, 2, 3]), (slice(4, 8), [0, 2, 3]), (slice(8, 12), [0, 1, 2])):
        part = Trajectory(traj.joint_names, traj.derivatives[rows], t[rows],
                          base=traj.base.rows(rows))
        alone = on_contacts(model, part, tuple(contacts[i] for i in on), order=2)
        for i in on:
            name = contacts[i].name
            assert np.allclose(r.wrenches[name][rows], alone.wrenches[name], rtol=0, atol=1e-10)
        assert np.allclose(r.tau[rows], alone.tau, rtol=0, atol=1e-10 * np.abs(alone.tau).max())


def test_in_the_air_the_base_wrench_stays(tmp_path):
    text, _, model = robot(tmp_path, "solo", seed=8)
    traj = floating_motion(text, model, np.linspace(0, 1, 3), 3, seed=11)[0]
    contacts = feet(model, "solo")
    tau, W = floating.inverse_dynamics(model, traj, order=1)
    r = on_contacts(model, traj, contacts, active=np.zeros((3, 4), bool), order=1)
    assert np.array_equal(r.tau, tau) and np.array_equal(r.W, W)


@pytest.mark.parametrize("kind", ["talos", "solo"])
def test_the_robot_under_its_free_root_joint_gives_the_same(tmp_path, kind):
    """The floating base as given (its ``base``) and as the robot under its free root joint
    with that joint's columns (what validate runs): one computation, the same numbers."""
    text, _, model = robot(tmp_path, kind, seed=10)
    traj = floating_motion(text, model, np.linspace(0, 1, 5), 4, seed=13)[0]
    contacts = feet(model, kind)
    r = on_contacts(model, traj, contacts, order=2)
    free = model.free_rooted
    again = on_contacts(free, free_root_motion(traj, free.dof_names), contacts, order=2)
    for a, b in [(r.tau, again.tau), (r.W, again.W)] + [(r.wrenches[c.name],
                                                         again.wrenches[c.name]) for c in contacts]:
        assert np.array_equal(a, b)


def test_bad_input_is_a_one_line_error(tmp_path):
    text, _, model = robot(tmp_path, "solo", seed=9)
    traj = floating_motion(text, model, np.linspace(0, 1, 3), 3, seed=12)[0]
    contacts = feet(model, "solo")
    with pytest.raises(HodynError, match="floating base"):
        on_contacts(model, replace(traj, base=None), contacts, order=0)
    bad = replace(traj, series={"contact_foot2": np.array([1.0, 0.5, 0.0])})
    with pytest.raises(TrajectoryError, match="column 'contact_foot2' at t = 0.5 s: 0.5 is not 1"):
        active_flags(bad, contacts)
    line = contacts_from_table(model, {f"p{k}": {"link": "limb0_end", "type": "point",
                                                 "friction": 1, "position": [0, 0, 0.1 * k]}
                                       for k in range(3)})
    with pytest.raises(HodynError, match="p0, p1, p2 are on one line at t = 0 s"):
        on_contacts(model, traj, line, order=0)


def test_points_on_a_line_are_those_of_the_svd():
    """The cheap bound sends every set near a line to the SVD, which decides: the same
    samples as the SVD of every one, across the threshold (spreads across of 0.3 to 3 times
    COLLINEAR of along), far from it, on it; points with not-a-number are on no line (the SVD
    would raise)."""
    rng = np.random.default_rng(3)
    ratios = np.concatenate([COLLINEAR * rng.uniform(0.3, 3, 300), [0, 1e-3, 0.3, 1.0]])
    X = []
    for r in ratios:   # m points along a random line, spread across by r of along
        m = int(rng.integers(3, 7))
        frame = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        local = rng.normal(size=(m, 3)) * [1.0, r, r * rng.uniform(0, 1)]
        X.append(np.pad(local @ frame.T, ((0, 6 - m), (0, 0)), mode="edge") * 10.0 ** rng.integers(-3, 3))
    X = np.stack(X)
    X -= X.mean(axis=1, keepdims=True)
    sv = np.linalg.svd(X, compute_uv=False)
    svd = np.flatnonzero(sv[:, 1] <= COLLINEAR * sv[:, 0])
    assert 50 < len(svd) < 250
    assert np.array_equal(_collinear(X), svd)
    X[svd[0], 2, 1] = np.nan
    assert np.array_equal(_collinear(X), svd[1:])


def test_not_a_number_in_q_gives_not_a_number_on_four_feet():
    """A library caller's NaN in one sample's q (the readers refuse it in files): that
    sample's torques and forces are not-a-number, the others as without it."""
    model = load_model(URDF / "quadruped.urdf")
    contacts = contacts_from_table(model, {leg: {"link": f"{leg}_foot", "type": "point",
                                                 "friction": 0.8}
                                           for leg in ("FL", "FR", "HL", "HR")})
    from hodyn_cli.core.trajectory import BaseMotion

    q = np.random.default_rng(5).uniform(-0.3, 0.3, size=(3, 1, 12))
    derivatives = np.concatenate([q, np.zeros((3, 4, 12))], axis=1)
    base = BaseMotion(np.broadcast_to(np.eye(3), (3, 3, 3)), np.zeros((3, 3)),
                      np.zeros((3, 3, 6)))
    clean = on_contacts(model, Trajectory(model.joint_names, derivatives, base=base), contacts,
                        order=1)
    derivatives[1, 0, 4] = np.nan
    r = on_contacts(model, Trajectory(model.joint_names, derivatives, base=base), contacts,
                    order=1)
    assert np.isnan(r.tau[1]).all() and np.isnan(r.wrenches["FL"][1]).all()
    assert np.allclose(r.tau[[0, 2]], clean.tau[[0, 2]], rtol=1e-12, atol=1e-12)


def test_phases_are_the_distinct_rows_of_the_flags():
    """In np.unique's order of rows, with their samples (65 contacts: more than a word)."""
    active = np.random.default_rng(4).uniform(size=(300, 65)) < 0.5
    active[::3] = active[0]
    active[1::7] = False
    rows, inverse = np.unique(active, axis=0, return_inverse=True)
    phases = _phases(active)
    assert len(phases) == len(rows)
    for p, (on, samples) in enumerate(phases):
        assert np.array_equal(on, np.flatnonzero(rows[p]))
        assert np.array_equal(samples, np.flatnonzero(inverse.reshape(-1) == p))


def test_the_quadruped_standing_shares_its_weight():
    """Standing still on four symmetric feet: each carries a quarter of the weight of the
    (symmetric) robot, straight up, and the joint torques hold it."""
    model = load_model(URDF / "quadruped.urdf")
    contacts = contacts_from_table(model, {leg: {"link": f"{leg}_foot", "type": "point",
                                                 "friction": 0.8}
                                           for leg in ("FL", "FR", "HL", "HR")})
    q = np.zeros(12)   # legs straight down: symmetric about both axes
    from hodyn_cli.core.trajectory import BaseMotion

    traj = Trajectory(model.joint_names, np.concatenate([q[None, None], np.zeros((1, 4, 12))], 1),
                      base=BaseMotion(np.eye(3)[None], np.zeros((1, 3)), np.zeros((1, 3, 6))))
    r = on_contacts(model, traj, contacts, order=1)
    weight = 2.98 * 9.81
    for F in r.wrenches.values():
        assert np.allclose(F[0, 0], [0, 0, weight / 4], rtol=0, atol=1e-6)
        assert np.abs(F[0, 1]).max() < 1e-9


def test_a_heavier_weight_takes_more_of_the_load(tmp_path):
    """Standing still on two soles placed symmetrically about the centre of mass: equal
    weights share the vertical load equally, a weight of 3 on one of them gives it more (a
    little: the moments about the centre of mass decide most of the share)."""
    model = load_model(URDF / "quadruped.urdf")
    from hodyn_cli.core.trajectory import BaseMotion

    traj = Trajectory(model.joint_names, np.zeros((1, 4, 12)),
                      base=BaseMotion(np.eye(3)[None], np.zeros((1, 3)), np.zeros((1, 3, 6))))
    table = {side: {"link": f"{leg}_foot", "type": "surface", "sole": [0.1, 0.05],
                     "friction": 1.0} for side, leg in (("a", "FL"), ("b", "HR"))}
    even = on_contacts(model, traj, contacts_from_table(model, table), order=0)
    fz = {k: F[0, 0, 5] for k, F in even.wrenches.items()}
    assert np.isclose(fz["a"], fz["b"], rtol=1e-9) and np.isclose(fz["a"] + fz["b"], 2.98 * 9.81)
    table["a"]["weight"] = 3.0
    uneven = on_contacts(model, traj, contacts_from_table(model, table), order=0)
    assert uneven.wrenches["a"][0, 0, 5] > fz["a"] + 0.1
    assert uneven.wrenches["b"][0, 0, 5] < fz["b"] - 0.1
