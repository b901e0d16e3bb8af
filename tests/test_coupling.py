"""The coupling seam admits a configuration-dependent phi: a kind built here, in the test, and
given to the model as its ``coupling_kind`` (nothing else changes), drives both joints of the
2R arm from one coordinate s, ``q_full = (s, a sin s)``, and the API's inverse dynamics on it
obeys the power balance of the constrained system (tau s' = dE/dt, E its mechanical energy,
from the closed-form M and the centre of mass: independent of the recursion and of the
projection), with its time derivative equal to the 8th-order difference of tau."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from conftest import URDF, stencil_derivative, stencil_times
from hodyn_cli import api
from hodyn_cli.core import coupling
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.modeling.urdf import load_model

A = 0.7  # q2 = A sin(q1)


def sine_jet(s: np.ndarray):
    """Taylor coefficients of sin(s(t)) and cos(s(t)) (N, D) from those of s (N, D):
    (k+1) u_{k+1} = sum_j (j+1) s_{j+1} v_{k-j}, (k+1) v_{k+1} = -sum_j (j+1) s_{j+1} u_{k-j}."""
    N, D = s.shape
    u, v = np.zeros((N, D)), np.zeros((N, D))
    u[:, 0], v[:, 0] = np.sin(s[:, 0]), np.cos(s[:, 0])
    for k in range(D - 1):
        j = np.arange(k + 1)
        u[:, k + 1] = ((j + 1) * s[:, j + 1] * v[:, k - j]).sum(axis=1) / (k + 1)
        v[:, k + 1] = -((j + 1) * s[:, j + 1] * u[:, k - j]).sum(axis=1) / (k + 1)
    return u, v


def taylor(derivatives: np.ndarray) -> np.ndarray:
    from math import factorial

    return derivatives / np.array([factorial(k) for k in range(derivatives.shape[1])])


def rates(coefficients: np.ndarray) -> np.ndarray:
    from math import factorial

    return coefficients * np.array([factorial(k) for k in range(coefficients.shape[1])])


class Sine(coupling.Coupling):
    """q_full = (s, A sin s): G(s) = (1, A cos s), a configuration-dependent coupling."""

    active = True

    def __init__(self, model):
        super().__init__(model)
        self.m, self.coordinate_names = 1, model.joint_names[:1]
        self.G = np.array([[1.0], [A]])

    def phi(self, q):
        return np.concatenate([q, A * np.sin(q)], axis=-1)

    def jacobian(self, q):
        return np.stack([np.ones_like(q), A * np.cos(q)], axis=-2)

    def _rates(self, qs):
        u, _ = sine_jet(taylor(qs[:, :, 0]))
        return np.stack([qs[:, :, 0], A * rates(u)], axis=-1)

    def forces(self, f, trajectory=None, axis=-1):
        s = trajectory.derivatives[:, :, 0]          # the joints': s is joint 1
        _, v = sine_jet(taylor(s))
        dv = rates(v)                                 # d^j cos(s(t))
        K = f.shape[1] - 1
        G = [np.stack([np.ones_like(dv[:, j]) if j == 0 else np.zeros_like(dv[:, j]),
                       A * dv[:, j]], axis=-1)[:, :, None] for j in range(K + 1)]
        return coupling.leibniz(G, np.moveaxis(f, axis, -1))


@pytest.fixture
def arm():
    """The 2R arm given the kind: the model builds it, and the API finds it there."""
    model = replace(load_model(URDF / "planar_2r.urdf"), coupling_kind=Sine)
    assert isinstance(model.coupling, Sine) and model.coupling_kind is Sine
    return model, model.coupling


def motion(t: np.ndarray, orders: int) -> np.ndarray:
    """s(t) = 0.6 sin(1.3 t) + 0.2 and its derivatives (N, orders, 1)."""
    w = 1.3
    return np.stack([0.6 * w**k * np.sin(w * t + k * np.pi / 2) + (0.2 if k == 0 else 0.0)
                     for k in range(orders)], axis=1)[:, :, None]


def test_a_configuration_dependent_coupling_obeys_the_power_balance(arm):
    model, sine = arm
    h = 1e-3
    t0 = np.array([0.3, 1.1, 2.0])
    t = stencil_times(t0, h)
    s = motion(t, 4)
    traj = Trajectory(sine.coordinate_names, s, t)
    r = api.inverse_dynamics(model, traj, order=1, method="spatial")
    full = sine.expand(traj)
    assert np.allclose(full.q, sine.phi(s[:, 0]))
    # the mechanical energy of the constrained motion, from M and the centre of mass of all
    # joints (the algorithms themselves: no coupling on the way)
    from hodyn_cli.algorithms.dynamics.closed_form import matrices
    from hodyn_cli.algorithms.motion.momentum import centroidal

    M = matrices(model, Trajectory(model.joint_names, full.derivatives[:, :3], t), order=0).M
    qd = full.qd
    kinetic = 0.5 * np.einsum("si,sij,sj->s", qd, M[:, 0], qd)
    c = centroidal(model, Trajectory(model.joint_names, full.derivatives[:, :2], t), order=0)
    potential = -c.mass * (c.com[:, 0] @ np.array([0.0, 0.0, -9.81]))
    energy = (kinetic + potential).reshape(len(t0), 9)
    power = r.tau[:, 0].reshape(len(t0), 9)[:, 4] * s[:, 1, 0].reshape(len(t0), 9)[:, 4]
    dE = stencil_derivative(energy.T, h)
    assert np.abs(power - dE).max() <= 1e-8 * np.abs(dE).max()
    taud = stencil_derivative(r.tau[:, 0].reshape(len(t0), 9).T, h)
    assert np.abs(r.taud[:, 0].reshape(len(t0), 9)[:, 4] - taud).max() <= 1e-8 * np.abs(taud).max()


def test_the_linear_mimic_coupling_is_the_constant_jacobian(arm):
    """The kind the URDF's <mimic> builds: its G, the expansion and the force projection."""
    model = load_model(URDF / "planar_2r.urdf")
    mimic = replace(model, mimic=np.array([[-1, 1.0, 0.0], [0, -0.5, 0.25]]))
    c = mimic.coupling
    assert isinstance(c, coupling.Linear) and not model.coupling.active
    assert c.active and c.G.tolist() == [[1.0], [-0.5]] and c.o.tolist() == [0.0, 0.25]
    qs = np.arange(6.0).reshape(2, 3, 1)
    full = c.expand(Trajectory(mimic.coordinate_names, qs))
    assert np.array_equal(full.derivatives[..., 1], -0.5 * qs[..., 0] + [[0.25, 0, 0]])
    f = np.arange(8.0).reshape(2, 2, 2)
    assert np.array_equal(c.forces(f)[..., 0], f[..., 0] - 0.5 * f[..., 1])
