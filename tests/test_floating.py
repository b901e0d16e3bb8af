"""Floating-base inverse dynamics: joint torques and the base wrench, every method.

Independent references: Pinocchio with a free-flyer root (order 0 exactly, orders 1-2 by
finite differences of it along analytic motions); the same robot carried by a driven
6-joint chain in a fixed-base model (every order, with external wrenches: the chain's last
joint wrench is the support's wrench on the root); a free-falling robot spinning about a
principal axis needs no support at any order.
"""

from dataclasses import replace
from math import comb

import numpy as np
import pytest

from conftest import (
    LINEAR_FIRST,
    STENCIL,
    STENCIL2,
    URDF,
    floating_motion,
    free_flyer_q,
    free_flyer_rate,
    legged_urdf,
    pinocchio_free_flyer,
    random_cosine,
    random_urdf,
    stencil_times,
    wrench_motion,
)
from hodyn_cli.algorithms.dynamics.floating import BaseMotion, base_from_spatial, inverse_dynamics
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics as fixed_base_tau
from hodyn_cli.algorithms.dynamics.methods import joint_wrenches
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.modeling.urdf import load_model

H = 0.01
TREES = ["solo", "talos", "random1", "random2"]


def tree(tmp_path, name):
    """(URDF text, path, model) of a Solo-like, Talos-like or random tree."""
    text = random_urdf(int(name[-1])) if name.startswith("random") else legged_urdf(name, seed=1)
    path = tmp_path / f"{name}.urdf"
    path.write_text(text)
    return text, path, load_model(path)


def pinocchio_floating(path, model, traj, base):
    """Pinocchio's rnea of the free-flyer model: (tau (N, n), W = -base rows (N, 6))."""
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    tau, W = np.empty_like(traj.q), np.empty((traj.n_samples, 6))
    for s in range(traj.n_samples):
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], traj.q[s])
        out = pin.rnea(pm, data, q, free_flyer_rate(order, base.Vb[s, 0], traj.qd[s]),
                       free_flyer_rate(order, base.Vb[s, 1], traj.qdd[s]))
        tau[s, order] = out[6:]
        W[s, LINEAR_FIRST] = -out[:6]
    return tau, W


@pytest.mark.parametrize("name", TREES)
def test_order_0_matches_pinocchio_free_flyer(tmp_path, name, method):
    _, path, model = tree(tmp_path, name)
    N = 8
    rng = np.random.default_rng(4)
    R = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                  for a in rng.normal(size=(N, 3))])
    base = BaseMotion(R, rng.normal(size=(N, 3)), rng.normal(size=(N, 2, 6)))
    traj = replace(random_cosine(model, np.linspace(0, 3, N), orders=2, seed=5), base=base)
    tau, W = inverse_dynamics(model, traj, method=method, order=0)
    ref_tau, ref_W = pinocchio_floating(path, model, traj, base)
    assert np.abs(tau[:, 0] - ref_tau).max() <= 1e-10 * np.abs(ref_tau).max(), f"{name} {method} tau"
    assert np.abs(W[:, 0] - ref_W).max() <= 1e-10 * np.abs(ref_W).max(), f"{name} {method} W"


@pytest.mark.parametrize("name", ["solo", "talos"])
def test_orders_1_2_match_finite_differences_of_pinocchio(tmp_path, name, method):
    text, path, model = tree(tmp_path, name)
    t = stencil_times([0.7, 1.6], H)
    traj, base, _, _ = floating_motion(text, model, t, 4, seed=6)
    tau, W = inverse_dynamics(model, traj, method=method, order=2)
    ref_tau, ref_W = pinocchio_floating(path, model, traj, base)
    for ours, ref, what in ((tau, ref_tau, "tau"), (W, ref_W, "W")):
        ours, ref = ours.reshape(2, 9, 3, -1), ref.reshape(2, 9, -1)
        for k, stencil in ((1, STENCIL / H), (2, STENCIL2 / H**2)):
            numeric = np.einsum("s,nsj->nj", stencil, ref)
            scale = np.abs(ours[:, 4, k]).max()
            assert np.abs(ours[:, 4, k] - numeric).max() <= 1e-7 * scale, f"{name} {method} {what} {k}"


@pytest.mark.parametrize("name", ["talos", "random1"])
def test_every_order_equals_the_robot_on_a_driven_chain(tmp_path, name, method):
    """Orders 0-3 with known contact wrenches (on a welded end link, and on a link welded to
    the root): tau is the fixed-base model's, the base wrench minus the wrench its last chain
    joint applies to the root; all methods agree with the spatial method to 1e-10."""
    text, _, model = tree(tmp_path, name)
    t = np.linspace(0, 2, 5)
    traj, base, ext, ext_traj = floating_motion(text, model, t, 5, seed=8)
    feet = [link for link, f in model.links.items() if f.body >= 0 and link not in model.link_names]
    welded = [link for link, f in model.links.items() if f.body < 0]
    W = Wrenches({feet[0]: wrench_motion(t, 3), welded[-1]: -0.5 * wrench_motion(t + 1, 3)})
    traj = Trajectory(traj.joint_names, traj.derivatives, t, W, base=base)
    ext_traj = Trajectory(ext_traj.joint_names, ext_traj.derivatives, t, W)
    tau, Wb = inverse_dynamics(model, traj, method=method, order=3)
    ref_tau = fixed_base_tau(ext, ext_traj, order=3)[:, :, 6:]
    ref_W = -joint_wrenches(ext, ext_traj, order=3)[:, :, ext.link_names.index(model.root_link)]
    spatial = inverse_dynamics(model, traj, method="spatial", order=3)
    for k in range(4):
        for ours, ref, other, what in ((tau, ref_tau, spatial[0], "tau"), (Wb, ref_W, spatial[1], "W")):
            scale = np.abs(ref[:, k]).max()
            assert np.abs(ours[:, k] - ref[:, k]).max() <= 1e-10 * scale, f"{name} {method} {what} {k}"
            assert np.abs(ours[:, k] - other[:, k]).max() <= 1e-10 * scale, f"{name} {method} {what} {k}"


def test_free_falling_spinning_robot_needs_no_support(tmp_path, method):
    """Locked joints, the robot falling freely while it turns at rate w about the principal
    axis of largest inertia through its centre of mass (composite inertia from Pinocchio's
    crba of the free-flyer model): ``R = exp(skew(e) w t)``, COM ``c_w = v0 t + g t^2 / 2``,
    root ``p = c_w - R c``, body twist ``(w e; R^T c_w' - w e x c)`` with
    ``(R^T)^(m) = (-w skew(e))^m R^T``. The base wrench vanishes at every order; without
    gravity the same motion needs the support to pull with the weight."""
    _, path, model = tree(tmp_path, "talos")
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    q = np.random.default_rng(9).uniform(-1, 1, model.n)
    M = pin.crba(pm, data, free_flyer_q(pin, pm, order, np.eye(3), np.zeros(3), q))[:6, :6]
    M = np.triu(M) + np.triu(M, 1).T
    M = M[np.ix_(LINEAR_FIRST, LINEAR_FIRST)]  # (angular; linear), about the root origin
    m = M[3, 3]
    c = np.array([M[2, 4], M[0, 5], M[1, 3]]) / m  # M[:3, 3:] = m skew(c)
    theta = M[:3, :3] + m * lie.skew(c) @ lie.skew(c)  # about the COM (Steiner)
    e = np.linalg.eigh(theta)[1][:, 2]
    g, v0, w, K = np.array([0.0, 0.0, -9.81]), np.array([0.3, -0.2, 2.0]), 2.5, 4
    t = np.linspace(0, 1, 6)
    R = lie.rotation_exp(e, w * t)
    Rt = [np.linalg.matrix_power(-w * lie.skew(e), k) @ np.swapaxes(R, 1, 2) for k in range(K + 1)]
    cw_rates = [v0 + g * t[:, None], np.broadcast_to(g, (t.size, 3))]  # c_w', c_w''; then 0
    Vb = np.zeros((t.size, K + 1, 6))
    Vb[:, 0, :3] = w * e
    Vb[:, 0, 3:] = -np.cross(w * e, c)
    for k in range(K + 1):
        for j, rate in enumerate(cw_rates[: k + 1]):
            Vb[:, k, 3:] += comb(k, j) * (Rt[k - j] @ rate[..., None])[..., 0]
    cw = v0 * t[:, None] + 0.5 * g * t[:, None] ** 2
    base = BaseMotion(R, cw - R @ c, Vb)
    traj = Trajectory(model.joint_names, np.concatenate([q[None, None], np.zeros((1, K + 1, model.n))],
                                                        axis=1).repeat(t.size, axis=0), t, base=base)
    tau, W = inverse_dynamics(model, traj, method=method, order=K - 1)
    assert np.abs(W).max() <= 1e-11 * m * 9.81, method
    assert np.abs(tau).max() > 1e-3  # the joints hold the spinning limbs
    _, W = inverse_dynamics(model, traj, method=method, order=K - 1, gravity=(0, 0, 0))
    assert np.allclose(np.linalg.norm(W[:, 0, 3:], axis=-1), m * 9.81, rtol=1e-10, atol=0)


def test_bad_base_motion_is_a_one_line_error():
    model = load_model(URDF / "planar_2r.urdf")
    I = np.broadcast_to(np.eye(3), (4, 3, 3)).copy()
    ok = dict(R=I, p=np.zeros((4, 3)), Vb=np.zeros((4, 3, 6)))
    bent = I.copy()
    bent[2, 0, 1] = 1e-3
    mirrored = I.copy()
    mirrored[1, 2, 2] = -1
    nan = np.zeros((4, 3))
    nan[3, 1] = np.nan
    for change, message in ((dict(R=bent), "base_R at sample 2 is not a rotation"),
                            (dict(R=mirrored), "base_R at sample 1 is a reflection, not a "
                                               "rotation .*det base_R = -1"),
                            (dict(p=nan), "base_p is not finite at sample 3"),
                            (dict(Vb=np.zeros((4, 3, 3))), "do not fit")):
        with pytest.raises(TrajectoryError, match=message):
            BaseMotion(**(ok | change))
    traj = random_cosine(model, np.linspace(0, 1, 4), orders=5)
    base = BaseMotion(**ok)
    with pytest.raises(TrajectoryError, match="order 2 needs base_Vbddd .not in the base motion"):
        inverse_dynamics(model, replace(traj, base=base), order=2)
    with pytest.raises(TrajectoryError, match="base motion has 4 samples, the trajectory 3"):
        inverse_dynamics(model, Trajectory(traj.joint_names, traj.derivatives[:3], base=base), order=0)


def test_a_base_motion_from_spatial_twists():
    """``base_from_spatial`` inverts :func:`spatial.spatial_twists` (``V^s = Ad_C V^b``, rates)."""
    from hodyn_cli.algorithms.backends.numpy.spatial import spatial_twists

    rng = np.random.default_rng(3)
    R = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                  for a in rng.normal(size=(4, 3))])
    p, Vb = rng.normal(size=(4, 3)), rng.normal(size=(4, 4, 6))
    base = base_from_spatial(R, p, spatial_twists(R, p, Vb))
    assert np.allclose(base.Vb, Vb, rtol=0, atol=1e-13) and base.R is R and base.p is p


@pytest.mark.parametrize("link", ["limb1_end", "imu", "base_link"])
def test_link_kinematics_in_the_world(tmp_path, link):
    """A link's pose, twists and point rates with a floating root are those of the robot
    on the driven chain (world frame), also for links on the root."""
    from hodyn_cli.algorithms.motion.kinematics import link_kinematics

    text, _, model = tree(tmp_path, "solo")
    traj, _, ext, ext_traj = floating_motion(text, model, np.linspace(0, 2, 6), 4, seed=5)
    ours, ref = link_kinematics(model, traj, link, order=3), link_kinematics(ext, ext_traj, link, order=3)
    for field in ("R", "p", "Vs", "Vb", "pd"):
        a, b = getattr(ours, field), getattr(ref, field)
        assert np.abs(a - b).max() <= 1e-12 * max(np.abs(b).max(), 1.0), f"{link} {field}"
