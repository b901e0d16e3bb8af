"""A link's Jacobians J (spatial and body) and their derivatives J', J'', ...

Independent references: Pinocchio's ``getFrameJacobian`` (WORLD: the spatial Jacobian, LOCAL:
the body one) and ``getFrameJacobianTimeVariation`` for J' (fixed base and free flyer); every
derivative order against the 8th-order difference of the order below along analytic motions
(Pinocchio declines J''); and the twists of :func:`link_kinematics`: ``V = J nu`` and
``V' = J' nu + J nu'``.
"""

import numpy as np
import pytest

from conftest import (
    LINEAR_FIRST,
    URDF,
    assert_rates,
    floating_motion,
    free_flyer_q,
    free_flyer_rate,
    legged_urdf,
    pin_configuration,
    pinocchio_free_flyer,
    pinocchio_model,
    random_cosine,
    stencil_times,
)
from hodyn_cli.algorithms.motion.jacobians import link_jacobian
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.modeling.urdf import load_model

H = 0.01
LINKS = {"iiwa14": "iiwa_link_ee", "gripper_arm": "tool0", "planar_2r": "tool0"}


def _pin_rows(J):
    """Pinocchio's (linear; angular) rows in hodyn's (angular; linear) order."""
    return J[LINEAR_FIRST]


def test_fixed_base_matches_pinocchio(robot):
    name, path, model = robot
    link = LINKS[name]
    traj = random_cosine(model, np.linspace(0, 2, 6), orders=3, seed=2)
    J = link_jacobian(model, traj, link, order=1)
    pin, pm, data, order = pinocchio_model(path, model)
    fid = pm.getFrameId(link)
    for s in range(traj.n_samples):
        q = pin_configuration(pm, order, traj.q[s])
        v = traj.qd[s, order]
        pin.computeJointJacobians(pm, data, q)
        pin.updateFramePlacements(pm, data)
        pin.computeJointJacobiansTimeVariation(pm, data, q, v)
        for frame, ours in ((pin.ReferenceFrame.WORLD, J.Js), (pin.ReferenceFrame.LOCAL, J.Jb)):
            ref = _pin_rows(pin.getFrameJacobian(pm, data, fid, frame))
            dref = _pin_rows(pin.getFrameJacobianTimeVariation(pm, data, fid, frame))
            for k, r in ((0, ref), (1, dref)):
                mine = ours[s, k][:, order]
                assert np.abs(mine - r).max() <= 1e-10 * max(np.abs(r).max(), 1.0), (name, frame, k)


def test_local_world_aligned_from_the_body_jacobian(robot):
    """docs/contacts.md: Pinocchio's LOCAL_WORLD_ALIGNED Jacobian (the link origin's velocity
    and the angular velocity, both in root axes) is ``diag(R, R) Jb`` with R the link's
    orientation (``kinematics``' R), its rows swapped to Pinocchio's (linear; angular)."""
    name, path, model = robot
    link = LINKS[name]
    traj = random_cosine(model, np.linspace(0, 2, 4), orders=3, seed=5)
    J = link_jacobian(model, traj, link, order=0)
    R = link_kinematics(model, traj, link, order=0).R
    pin, pm, data, order = pinocchio_model(path, model)
    fid = pm.getFrameId(link)
    for s in range(traj.n_samples):
        pin.computeJointJacobians(pm, data, pin_configuration(pm, order, traj.q[s]))
        pin.updateFramePlacements(pm, data)
        ref = _pin_rows(pin.getFrameJacobian(pm, data, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED))
        aligned = np.kron(np.eye(2), R[s]) @ J.Jb[s, 0][:, order]
        assert np.abs(aligned - ref).max() <= 1e-10 * max(np.abs(ref).max(), 1.0), name


def test_free_flyer_matches_pinocchio(tmp_path):
    text = legged_urdf("talos", seed=3)
    path = tmp_path / "talos.urdf"
    path.write_text(text)
    model = load_model(path)
    traj, base, _, _ = floating_motion(text, model, np.linspace(0, 2, 5), 3, seed=4)
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    for link in ("limb0_end", "limb3_end", "imu", "base_link"):
        J = link_jacobian(model, traj, link, order=1)
        assert J.columns[:6] == ("base_wx", "base_wy", "base_wz", "base_vx", "base_vy",
                                 "base_vz")
        cols = list(LINEAR_FIRST) + [6 + j for j in order]   # pin's v: (v; w) of the root, joints
        fid = pm.getFrameId(link)
        for s in range(traj.n_samples):
            q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], traj.q[s])
            v = free_flyer_rate(order, base.Vb[s, 0], traj.qd[s])
            pin.computeJointJacobians(pm, data, q)
            pin.updateFramePlacements(pm, data)
            pin.computeJointJacobiansTimeVariation(pm, data, q, v)
            for frame, ours in ((pin.ReferenceFrame.WORLD, J.Js), (pin.ReferenceFrame.LOCAL, J.Jb)):
                ref = _pin_rows(pin.getFrameJacobian(pm, data, fid, frame))
                dref = _pin_rows(pin.getFrameJacobianTimeVariation(pm, data, fid, frame))
                for k, r in ((0, ref), (1, dref)):
                    mine = ours[s, k][:, cols]
                    assert np.abs(mine - r).max() <= 1e-10 * max(np.abs(r).max(), 1.0), \
                        (link, frame, k, s)


@pytest.mark.parametrize("floating", [False, True])
def test_every_order_against_finite_differences(tmp_path, floating):
    """J', J'', J''' against the 8th-order difference of the order below (the spatial one in
    the world with a floating root, the body one in the moving link frame)."""
    t = stencil_times([0.4, 1.3], H)
    if floating:
        text = legged_urdf("solo", seed=2)
        path = tmp_path / "solo.urdf"
        path.write_text(text)
        model = load_model(path)
        traj = floating_motion(text, model, t, 4, seed=3)[0]
        link = "limb2_end"
    else:
        model = load_model(URDF / "iiwa14.urdf")
        traj = random_cosine(model, t, orders=5, seed=3)
        link = "iiwa_link_ee"
    J = link_jacobian(model, traj, link, order=3)
    N, K1, _, m = J.Js.shape
    assert_rates(J.Js.reshape(N, K1, 6 * m), H, 1e-8, f"{link} Js")
    assert_rates(J.Jb.reshape(N, K1, 6 * m), H, 1e-8, f"{link} Jb")


@pytest.mark.parametrize("floating", [False, True])
def test_jacobians_give_the_link_twists_and_their_rates(tmp_path, floating):
    """``V = J nu`` and ``V^(k) = sum_j C(k, j) J^(j) nu^(k-j)`` for the twists
    link_kinematics computes (spatial and body)."""
    from math import comb

    if floating:
        text = legged_urdf("talos", seed=1)
        path = tmp_path / "talos.urdf"
        path.write_text(text)
        model = load_model(path)
        traj = floating_motion(text, model, np.linspace(0, 1, 7), 4, seed=9)[0]
        nu = np.concatenate([traj.base.Vb, traj.derivatives[:, 1:5]], axis=2)
        link = "limb4_end"
    else:
        model = load_model(URDF / "gripper_arm.urdf")
        traj = random_cosine(model, np.linspace(0, 1, 7), orders=5, seed=9)
        nu = traj.derivatives[:, 1:]
        link = "tool0"
    J = link_jacobian(model, traj, link, order=3)
    lk = link_kinematics(model, traj, link, order=3)
    for ours, ref in ((J.Js, lk.Vs), (J.Jb, lk.Vb)):
        for k in range(4):
            V = sum(comb(k, j) * np.einsum("nij,nj->ni", ours[:, j], nu[:, k - j])
                    for j in range(k + 1))
            assert np.abs(V - ref[:, k]).max() <= 1e-11 * np.abs(ref[:, k]).max(), k


def test_a_link_on_the_root_and_bad_input():
    model = load_model(URDF / "gripper_arm.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 3), orders=3)
    J = link_jacobian(model, traj, model.root_link, order=1)
    assert not J.Js.any() and not J.Jb.any()
    with pytest.raises(HodynError, match="no link 'nope'"):
        link_jacobian(model, traj, "nope")
    with pytest.raises(TrajectoryError, match="order 3 need qdddd"):
        link_jacobian(model, traj, "tool0", order=3)
