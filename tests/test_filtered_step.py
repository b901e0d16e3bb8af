"""The filtered-step motion: exact derivatives of an m-th order critically damped step."""

import numpy as np
import pytest

from conftest import STENCIL
from hodyn_cli.core.trajectory import filtered_step


@pytest.mark.parametrize("t0", [0.6, 1.1, 1.8])  # while the joints move
def test_every_derivative_by_finite_differences(t0):
    h = 1e-3
    tr = filtered_step(("a", "b"), t0 + h * np.arange(-4, 5), step=[2.0, -1.0],
                       omega=[14.5, 9.0], offset=[0.3, 0.0], orders=14)
    for k in range(1, 15):
        fd = np.tensordot(STENCIL, tr.derivatives[:, k - 1], axes=(0, 0)) / h
        scale = np.abs(tr.derivatives[:, k]).max()
        assert np.abs(fd - tr.derivatives[4, k]).max() <= 1e-7 * scale, k


def test_value_and_rate_are_the_erlang_distribution():
    from scipy import stats  # (here: ~0.5 s of CPU in every pytest worker that collects it)

    t = np.linspace(0, 3, 61)
    m, w = 16, 12.0
    tr = filtered_step(("a",), t, step=2.0, omega=w, filter_order=m, offset=-1.0, orders=1)
    assert np.allclose(tr.q[:, 0], -1.0 + 2.0 * stats.gamma.cdf(w * t, m), rtol=0, atol=1e-14)
    assert np.allclose(tr.qd[:, 0], 2.0 * w * stats.gamma.pdf(w * t, m), rtol=0, atol=1e-12)


def test_smooth_start_to_order_m_minus_1():
    m = 6
    tr = filtered_step(("a",), [-0.5, 0.0, 1e-3], step=1.0, omega=5.0, filter_order=m,
                       orders=m + 1)
    assert not tr.derivatives[:2, :m].any()  # at rest before and at the step, to order m-1
    assert tr.derivatives[1, m, 0] == pytest.approx(5.0**m)  # the m-th derivative jumps
    assert 0 < tr.derivatives[2, m - 1, 0] < 1e-3 * 5.0**m
