"""Planar 2R (Mueller & Kumar sec. 6.1): the textbook closed formula and its derivatives."""

import numpy as np
import pytest

from conftest import URDF
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.modeling.urdf import load_model

L1, L2, M1, M2, G = 0.4, 0.3, 1.2, 0.8, 9.81  # as in urdf/planar_2r.urdf


def closed_form_derivatives(max_order: int):
    """Functions (q-derivative symbols) -> tau^(k), k = 0..max_order, from sympy (imported
    here, not when the file is collected: ~0.5 s of CPU in every pytest worker)."""
    sp = pytest.importorskip("sympy")
    t = sp.symbols("t")
    q1, q2 = sp.Function("q1")(t), sp.Function("q2")(t)
    d = sp.diff
    tau1 = ((M1 + M2) * L1**2 + M2 * L2**2 + 2 * M2 * L1 * L2 * sp.cos(q2)) * d(q1, t, 2) \
        + (M2 * L2**2 + M2 * L1 * L2 * sp.cos(q2)) * d(q2, t, 2) \
        - M2 * L1 * L2 * sp.sin(q2) * (2 * d(q1, t) * d(q2, t) + d(q2, t) ** 2) \
        + (M1 + M2) * L1 * G * sp.cos(q1) + M2 * L2 * G * sp.cos(q1 + q2)
    tau2 = (M2 * L2**2 + M2 * L1 * L2 * sp.cos(q2)) * d(q1, t, 2) + M2 * L2**2 * d(q2, t, 2) \
        + M2 * L1 * L2 * sp.sin(q2) * d(q1, t) ** 2 + M2 * L2 * G * sp.cos(q1 + q2)
    D = max_order + 3
    syms = sp.symbols(f"a0:{D} b0:{D}")
    a, b = syms[:D], syms[D:]
    subs = {}
    for k in reversed(range(1, D)):
        subs[d(q1, t, k)] = a[k]
        subs[d(q2, t, k)] = b[k]
    subs[q1], subs[q2] = a[0], b[0]
    out = []
    for k in range(max_order + 1):
        exprs = [sp.diff(tau, t, k).subs(subs) for tau in (tau1, tau2)]
        out.append(sp.lambdify(syms, exprs, "numpy"))
    return out, D


def test_planar_2r_matches_symbolic_derivatives(method):
    model = load_model(URDF / "planar_2r.urdf")
    functions, D = closed_form_derivatives(2)
    rng = np.random.default_rng(7)
    derivs = rng.uniform(-2, 2, (50, D, 2))
    ours = inverse_dynamics(model, Trajectory(model.joint_names, derivs), method=method, order=2)
    args = [derivs[:, k, 0] for k in range(D)] + [derivs[:, k, 1] for k in range(D)]
    for k, f in enumerate(functions):
        ref = np.stack(f(*args), axis=-1)
        assert np.allclose(ours[:, k], ref, rtol=1e-12, atol=1e-12), f"order {k}"
