"""validate's cross-method tolerance on a fast-spinning robot: the spatial form sums terms
that cancel (~Omega^(k+2) at order k), so its agreement with the body-fixed form is judged
against their rounding (torque_checks.rounding) at each sample, not against the result
alone. The mobile 2R's base spinning at 500 rad/s passes (its taudd's two forms 1.14e-10
apart: the fixed 1e-10 failed it), a method off by 1e-8 relative still fails the check, at
500 rad/s as on a slow, gravity-dominated motion, whose tolerance stays 1e-10, and an error
in a slow stretch is judged by the slow stretch's rounding, not the fast one's."""

from dataclasses import replace

import numpy as np
import pytest
from test_retime_wrapped import _spinning_base

import hodyn_cli
from conftest import SAMPLES, URDF
from hodyn_cli.algorithms.dynamics.common import GRAVITY
from hodyn_cli.algorithms.dynamics.methods import METHODS as REGISTRY
from hodyn_cli.algorithms.dynamics.methods import Method
from hodyn_cli.algorithms.verification.torque_checks import inverse_dynamics, rounding, turning
from hodyn_cli.io import read_trajectory

PAIR = "taudd: body-fixed vs spatial"


def _cross(report, name: str = PAIR):
    return next(c for c in report.checks if c.group == "cross-method" and c.name == name)


def _off(monkeypatch, share: float) -> None:
    """spatial's taudd off by ``share`` of itself."""
    good = REGISTRY["spatial"]

    def perturbed(model, trajectory, *, order, gravity, data=None):
        out = good.inverse_dynamics(model, trajectory, order=order, gravity=gravity, data=data)
        if order >= 2:
            out[:, 2] *= 1 + share
        return out

    monkeypatch.setitem(REGISTRY, "spatial", Method(perturbed, None, good.max_order))


def test_a_base_spinning_at_500_rad_s_passes_the_cross_method_check():
    """Every check passes, though the two forms' taudd are 1.1e-10 of the result apart (the
    fixed 1e-10 failed them): each sample's error is within its own allowance, 1e-10 plus
    10 times its rounding bound (1.8e-10 of the result at the fastest)."""
    model, plain, _ = _spinning_base(500.0)
    report = hodyn_cli.validate_motion(model, plain)
    assert report.passed, [(c.name, c.max_rel, c.tolerance) for c in report.failures]
    c = _cross(report)
    assert c.tolerance == pytest.approx(1e-10 + 10 * c.expected) and c.expected > 1e-12, c
    tau = {m: inverse_dynamics(model, plain, method=m, order=2, gravity=GRAVITY)[:, 2]
           for m in ("body-fixed", "spatial")}
    apart = np.abs(tau["spatial"] - tau["body-fixed"]).max() / np.abs(tau["body-fixed"]).max()
    assert 1e-10 < apart < 1e-9


def test_an_error_in_a_slow_stretch_is_not_hidden_by_a_fast_stretchs_rounding(monkeypatch):
    """The base at 500 rad/s for the first second, 5 rad/s after: spatial's taudd off by
    3e-10 of the motion's largest taudd at the slow samples alone fails the check, where
    the rounding allows nothing (one allowance for the whole motion, its fastest sample's
    10 x 4.8e-11 of the result, let it pass: the check passes on the old code)."""
    model, fast, _ = _spinning_base(500.0)
    slow = _spinning_base(5.0)[1]
    half = fast.n_samples // 2
    mixed = replace(fast, derivatives=np.concatenate([fast.derivatives[:half],
                                                      slow.derivatives[half:]]))
    crossed = [c for c in hodyn_cli.validate_motion(model, mixed, samples=0).checks
               if c.group == "cross-method"]  # (its data checks fail: it jumps at half)
    assert all(c.status == "pass" for c in crossed), crossed
    scale = np.abs(inverse_dynamics(model, mixed, method="body-fixed", order=2,
                                    gravity=GRAVITY)[:, 2]).max()
    good = REGISTRY["spatial"]

    def perturbed(model, trajectory, *, order, gravity, data=None):
        out = good.inverse_dynamics(model, trajectory, order=order, gravity=gravity, data=data)
        if order >= 2:  # (the slow samples: the base turning at ~5 rad/s)
            out[np.abs(trajectory.derivatives[:, 1, 2]) < 100, 2] += 3e-10 * scale
        return out

    monkeypatch.setitem(REGISTRY, "spatial", Method(perturbed, None, good.max_order))
    c = _cross(hodyn_cli.validate_motion(model, mixed, samples=0))
    assert c.status == "fail" and c.worst_sample >= half and c.tolerance < 1.01e-10, c
    assert c.max_rel == pytest.approx(3e-10, rel=0.01)


@pytest.mark.parametrize("speed", [5.0, 500.0])
def test_a_method_off_by_1e_8_fails_the_cross_method_check_at_any_speed(monkeypatch, speed):
    """spatial's taudd off by 1e-8 relative: the taudd pairs with it fail, at 5 rad/s
    (the tolerance 1e-10) as at 500 rad/s (1.8e-9)."""
    model, plain, _ = _spinning_base(speed)
    _off(monkeypatch, 1e-8)
    report = hodyn_cli.validate_motion(model, plain)
    c = _cross(report)
    assert c.status == "fail" and c.max_rel > 5e-9 and c.tolerance < 2e-9, c
    assert _cross(report, "taud: body-fixed vs spatial").status == "pass"


def test_a_slow_gravity_dominated_motion_keeps_the_tolerance_and_catches_1e_8(monkeypatch):
    """The iiwa's sample cosine motion: every cross-method tolerance is 1e-10 itself (the
    rounding bound 1e-14 of the result or less), and spatial's taudd off by 1e-8 relative
    fails its pairs."""
    model = hodyn_cli.load_robot(str(URDF / "iiwa14.urdf"))
    traj = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    report = hodyn_cli.validate_motion(model, traj, samples=40)
    crossed = [c for c in report.checks if c.group == "cross-method"]
    assert report.passed and len(crossed) == 9
    assert all(c.tolerance == pytest.approx(1e-10, rel=1e-3) and c.expected < 1e-13
               for c in crossed), crossed
    _off(monkeypatch, 1e-8)
    report = hodyn_cli.validate_motion(model, traj, samples=40)
    assert _cross(report).status == "fail" and _cross(report).max_rel > 5e-9


def test_the_rounding_bound_is_the_leibniz_sum_of_the_turning_terms():
    """rounding: eps sum_j C(k, j) |tau^(j)| (2 Omega)^(k-j) per sample, Omega from the
    angular rates alone (the planar joint's wz, the revolute joints; not its vx, vy) and
    their derivatives' roots."""
    model, plain, _ = _spinning_base(500.0)
    d = plain.derivatives[:3]
    omega = turning(model, plain)[:3]
    angular = np.abs(d[:, 1:, 2:]).sum(axis=2)              # (wz, shoulder, elbow)
    want = (angular ** (1 / np.arange(1, d.shape[1]))).max(axis=1)
    assert np.allclose(omega, want, rtol=1e-15) and omega.min() > 499
    tau = np.array([[[3.0, -1.0], [0.5, 2.0], [-4.0, 1.0]]])
    eps = np.finfo(float).eps
    assert rounding(tau, np.array([10.0]), 2)[0] == pytest.approx(
        eps * (3.0 * 20.0**2 + 2 * 2.0 * 20.0 + 4.0), rel=1e-15)
