"""Each derivative order against a finite difference of the order below it.

The motion is analytic (cosines), so every q^(k) is exact and the stencil sees only
hodyn's own numbers. 8th-order central differences with h = 0.01 s: the truncation error
is ~ h^8 |tau^(k+8)| / 630 ~ 1e-16 |tau| omega^9 (omega <= 2.5 rad/s), far below the
rounding error ~ 2.5 eps |tau^(k-1)| / h ~ 1e-13 |tau|. The tolerance 1e-8 of the
derivative's own scale leaves a margin of 1e5 above both; a wrong term in any
recursion changes the result at the 1e-2..1 level.
"""

import numpy as np
import pytest

from conftest import STENCIL, random_cosine
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics

H = 0.01


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_derivative_matches_finite_difference(robot, method, order):
    name, _, model = robot
    t0 = np.linspace(0.2, 4.0, 6)
    offsets = np.arange(-4, 5) * H
    t = (t0[:, None] + offsets[None, :]).ravel()
    traj = random_cosine(model, t, orders=order + 2, seed=order)
    result = inverse_dynamics(model, traj, method=method, order=order)
    result = result.reshape(len(t0), len(offsets), order + 1, model.n)
    analytic = result[:, 4, order]
    numeric = np.einsum("s,nsj->nj", STENCIL, result[:, :, order - 1]) / H
    scale = np.abs(analytic).max()
    assert scale > 1e-3, "the motion must excite this order"
    err = np.abs(analytic - numeric).max()
    assert err <= 1e-8 * scale, f"{name} {method} order {order}: {err:.3g} vs scale {scale:.3g}"


def test_finite_difference_check_can_fail(robot):
    """The check above detects a wrong derivative: tau-dot of another motion fails."""
    _, _, model = robot
    t = (1.0 + np.arange(-4, 5) * H)
    a = inverse_dynamics(model, random_cosine(model, t, orders=3, seed=1), order=1)
    b = inverse_dynamics(model, random_cosine(model, t, orders=3, seed=2), order=1)
    numeric = STENCIL @ a[:, 0] / H
    assert np.abs(b[4, 1] - numeric).max() > 1e-3 * np.abs(a[4, 1]).max()
