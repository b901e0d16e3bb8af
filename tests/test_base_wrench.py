"""The base wrench of a fixed-base robot: what the root link exerts on its mount, and its rates.

Three independent ways to the same wrench: the rate of the total momentum minus gravity,
summed over Pinocchio's bodies link by link; Pinocchio's centroidal momentum rate; and each
order against finite differences of the order below, along analytic motions.
"""

import numpy as np
import pytest

from conftest import (
    LINEAR_FIRST,
    STENCIL,
    STENCIL2,
    assert_rates,
    free_flyer_q,
    free_flyer_rate,
    pin_configuration,
    pinocchio_free_flyer,
    pinocchio_model,
    random_cosine,
    stencil_times,
)
from hodyn_cli.algorithms.dynamics.floating import inverse_dynamics
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics as fixed_base_tau

G = np.array([0.0, 0.0, -9.81])
H = 0.01


def test_base_wrench_is_the_momentum_rate_minus_gravity(robot, method):
    """``W = -(Pi' - sum_i (c_i x m_i g; m_i g))``, ``Pi`` = sum over Pinocchio's bodies of their
    spatial momenta ``oMi.act(I_i v_i)`` (the root link's, in the universe, is zero) and the
    weights at their COMs, the root link's included; ``Pi'``, ``Pi''`` by finite differences."""
    name, path, model = robot
    pin, pm, data, order = pinocchio_model(path, model)
    t = stencil_times([0.4, 1.7], H)
    traj = random_cosine(model, t, orders=4, seed=5)
    Pi, Gw = np.empty((t.size, 6)), np.empty((t.size, 6))
    for s in range(t.size):
        pin.forwardKinematics(pm, data, pin_configuration(pm, order, traj.q[s]), traj.qd[s, order])
        Pi[s] = Gw[s] = 0.0
        for j in range(pm.njoints):
            I, X = pm.inertias[j], data.oMi[j]
            c = X.act(I.lever)
            Pi[s] += X.act(I * data.v[j]).vector[LINEAR_FIRST]
            Gw[s] += np.concatenate([np.cross(c, I.mass * G), I.mass * G])
    W = inverse_dynamics(model, traj, method=method, order=1)[1].reshape(2, 9, 2, 6)
    Pi, Gw = Pi.reshape(2, 9, 6), Gw.reshape(2, 9, 6)
    rate = {1: np.einsum("s,nsc->nc", STENCIL, Pi) / H, 2: np.einsum("s,nsc->nc", STENCIL2, Pi) / H**2}
    for k, ref in ((0, rate[1] - Gw[:, 4]), (1, rate[2] - np.einsum("s,nsc->nc", STENCIL, Gw) / H)):
        scale = np.abs(ref).max()
        assert np.abs(W[:, 4, k] + ref).max() <= 1e-8 * scale, f"{name} {method} order {k}"


def test_base_wrench_matches_pinocchio_centroidal_momentum_rate(robot, method):
    """Pinocchio's free-flyer model held at rest at the origin is the fixed-base robot, root
    link included; ``dhg`` = (linear; angular about the COM) rate of its centroidal momentum:
    the mount's wrench is ``f = dhg_lin - m g``, ``n = dhg_ang + c x f`` about the root origin.
    Order 0 exactly, order 1 against the finite difference of that in time."""
    name, path, model = robot
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    t = stencil_times([0.3, 2.2], H)
    traj = random_cosine(model, t, orders=4, seed=6)
    ref = np.empty((t.size, 6))
    rest = np.zeros(6)
    for s in range(t.size):
        q = free_flyer_q(pin, pm, order, np.eye(3), np.zeros(3), traj.q[s])
        dhg = pin.computeCentroidalMomentumTimeVariation(
            pm, data, q, free_flyer_rate(order, rest, traj.qd[s]),
            free_flyer_rate(order, rest, traj.qdd[s]))
        f = dhg.linear - data.mass[0] * G
        ref[s] = -np.concatenate([dhg.angular + np.cross(data.com[0], f), f])
    W = inverse_dynamics(model, traj, method=method, order=1)[1]
    scale = np.abs(ref).max()
    assert np.abs(W[:, 0] - ref).max() <= 1e-12 * scale, f"{name} {method} order 0"
    numeric = np.einsum("s,nsc->nc", STENCIL, ref.reshape(2, 9, 6)) / H
    center = W.reshape(2, 9, 2, 6)[:, 4, 1]
    assert np.abs(center - numeric).max() <= 1e-8 * np.abs(center).max(), f"{name} {method} order 1"


def test_base_wrench_rates_match_finite_differences(robot, method):
    """Orders 1-3 against the 8th-order difference of the order below; tau is the fixed-base
    tau of the method."""
    name, _, model = robot
    traj = random_cosine(model, stencil_times([0.5, 1.9, 3.1], H), orders=6, seed=7)
    tau, W = inverse_dynamics(model, traj, method=method, order=3)
    assert_rates(W, H, 1e-8, f"{name} {method} base wrench")
    ref = fixed_base_tau(model, traj, method=method, order=3)
    assert np.abs(tau - ref).max() <= 1e-12 * np.abs(ref).max()


def test_unknown_method_and_order_are_one_line_errors(robot):
    from hodyn_cli.errors import HodynError

    _, _, model = robot
    traj = random_cosine(model, np.zeros(1), orders=4)
    with pytest.raises(HodynError, match="unknown method 'rnea'"):
        inverse_dynamics(model, traj, method="rnea")
    with pytest.raises(HodynError, match="orders 0..4, not 5"):
        inverse_dynamics(model, random_cosine(model, np.zeros(1), orders=8), order=5)
