"""``validate`` of a floating base: the torque checks cover the base wrench, the root's
motion is checked against time differences, and each check fails where it should."""

from dataclasses import replace

import numpy as np
import pytest

from conftest import STENCIL, floating_motion, legged_urdf
from hodyn_cli.algorithms.dynamics import methods
from hodyn_cli.algorithms.verification.checks import local_pose
from hodyn_cli.algorithms.verification.validate import validate
from hodyn_cli.core.trajectory import BaseMotion, taylor
from hodyn_cli.modeling.urdf import parse_model


@pytest.fixture(scope="module")
def talos():
    """A Talos-like tree moving with its root: 2 s at 200 Hz, q to its 6th derivative."""
    text = legged_urdf("talos", seed=2)
    model = parse_model(text.encode())
    traj, base, _, _ = floating_motion(text, model, np.linspace(0, 2, 401), 4, seed=6)
    return model, traj, base


def _by_name(report):
    return {(c.name, c.method): c for c in report.checks}


def test_passes_with_the_base_wrench_in_every_torque_check(talos):
    model, traj, _ = talos
    report = validate(model, traj, samples=12)
    assert report.passed, [c for c in report.failures]
    assert report.order == 2
    checks = _by_name(report)
    for method in ("body-fixed", "spatial", "closed-form"):
        for name in ("taud vs d/dt tau", "taudd vs d/dt taud"):
            c = checks[(name, method)]
            assert c.max_rel <= 1e-11 and c.expected <= 1e-11, (name, method, c)
    # the checked columns are the joints' and the base wrench's
    assert report.series["body-fixed"]["taud"]["analytic"].shape == (12, model.n + 6)
    assert report.series["joint_names"][-1] == "W_base_link_fz"
    for name in ("base_Vbd vs time differences of base_Vb", "base_Vbddd vs time differences of "
                 "base_Vbdd", "base_Rd vs time differences of base_R",
                 "base_pd vs time differences of base_p"):
        assert checks[(name, None)].status == "pass", name
    assert checks[("M positive definite", None)].status == "pass"


def test_a_wrong_base_wrench_rate_fails_finite_differences_and_cross_method(talos, monkeypatch):
    model, traj, _ = talos
    good = methods.METHODS["spatial"]

    def perturbed(*args, **kwargs):
        tau = good.inverse_dynamics(*args, **kwargs)
        tau[:, 1, :6] *= 1 + 1e-6  # only the free root joint's rate (-W_base), by 1e-6 relative
        return tau

    monkeypatch.setitem(methods.METHODS, "spatial", replace(good, inverse_dynamics=perturbed))
    report = validate(model, traj, samples=6)
    failed = {(c.name, c.method) for c in report.failures}
    assert ("taud vs d/dt tau", "spatial") in failed
    assert ("taud: body-fixed vs spatial", "body-fixed,spatial") in failed
    assert ("taud vs d/dt tau", "body-fixed") not in failed
    worst = _by_name(report)[("taud vs d/dt tau", "spatial")].worst_joint
    assert worst.startswith("W_base_link_"), worst


@pytest.mark.parametrize("wrong, check", [
    ("twist rate", "base_Vbd vs time differences of base_Vb"),
    ("rotation", "base_Rd vs time differences of base_R"),
    ("position", "base_pd vs time differences of base_p"),
    ("spatial", "base_Rd vs time differences of base_R"),
])
def test_an_inconsistent_base_motion_fails_its_data_check(talos, wrong, check):
    model, traj, base = talos
    Vb, R, p = base.Vb.copy(), base.R, base.p
    if wrong == "twist rate":
        Vb[:, 1] *= 1.05
    elif wrong == "rotation":  # the orientation of another instant
        R = np.roll(R, 20, axis=0)
    elif wrong == "spatial":  # the angular velocity in the world frame, not the root's
        Vb[:, :, :3] = np.einsum("nij,nkj->nki", R, Vb[:, :, :3])
    else:
        p = p * 1.1
    report = validate(model, replace(traj, base=BaseMotion(R, p, Vb)), samples=6,
                      methods=["body-fixed"])
    failed = _by_name(report)[(check, None)]
    assert failed.status == "fail", check
    assert failed.worst_joint.startswith(check.split(" ")[-1] + "_"), failed.worst_joint


def test_chunks_give_the_report_of_the_whole_trajectory(talos):
    model, traj, base = talos
    whole = validate(model, traj, samples=10, methods=["body-fixed"])
    cuts = [0, 77, 200, 401]
    parts = (replace(traj, derivatives=traj.derivatives[a:b], t=traj.t[a:b],
                     base=base.rows(slice(a, b))) for a, b in zip(cuts, cuts[1:], strict=False))
    chunked = validate(model, parts, samples=10, methods=["body-fixed"])
    assert [(c.name, c.max_rel) for c in chunked.checks] == [(c.name, c.max_rel)
                                                             for c in whole.checks]


def test_the_local_pose_is_moved_by_the_local_twist(talos):
    """Along the local Taylor motion R' = R skew(omega) and p' = R v hold: the 8th-order
    differences of R(s) and p(s) against R skew(omega) and R v at the offsets -4 h .. 4 h of
    the 17."""
    _, _, base = talos
    h = 1e-3
    offsets = np.arange(-8, 9) * h
    rows = base.rows(slice(0, 401, 50))
    R, p = local_pose(rows.R, rows.p, rows.Vb, offsets)
    w = taylor(rows.Vb, offsets)[:, :, 0, :3]
    v = taylor(rows.Vb, offsets)[:, :, 0, 3:]
    for s in range(4, 13):
        numeric = np.einsum("k,nkij->nij", STENCIL, R[:, s - 4 : s + 5]) / h
        skew = np.zeros((len(R), 3, 3))
        skew[:, [2, 0, 1], [1, 2, 0]] = w[:, s]
        skew -= np.swapaxes(skew, 1, 2)
        assert np.abs(numeric - R[:, s] @ skew).max() <= 1e-9, s
        numeric = np.einsum("k,nki->ni", STENCIL, p[:, s - 4 : s + 5]) / h   # p' = R v
        assert np.abs(numeric - np.einsum("nij,nj->ni", R[:, s], v[:, s])).max() <= 1e-9, s
    assert np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max() <= 1e-12


@pytest.mark.parametrize("joints, base", [(7, 4), (4, 4)])
def test_every_given_row_is_checked_against_time_differences(talos, joints, base):
    """The joints' rows beyond the base's twist orders, and the base's beyond the joints',
    are the file's columns too: each checked against the time differences of the one below
    (a corrupted highest row fails naming it), as the robot without the free root joint
    checks them."""
    model, traj, b = talos
    traj = replace(traj, derivatives=traj.derivatives[:, :joints].copy(),
                   base=BaseMotion(b.R, b.p, b.Vb[:, :base].copy()))
    if joints == 7:
        report = validate(model, traj, samples=6, methods=["body-fixed"])
        assert ("qdddddd vs time differences of qddddd", None) in _by_name(report)
        traj.derivatives[:, -1, 3] *= 1.01
        failed, column = "qdddddd vs time differences of qddddd", model.joint_names[3]
    else:
        report = validate(model, traj, samples=6, methods=["body-fixed"])
        assert ("base_Vbddd vs time differences of base_Vbdd", None) in _by_name(report)
        traj.base.Vb[:, -1, 4] *= 1.01
        failed, column = "base_Vbddd vs time differences of base_Vbdd", "base_Vb_vy"
    assert report.passed, report.failures
    c = _by_name(validate(model, traj, samples=6, methods=["body-fixed"]))[(failed, None)]
    assert c.status == "fail" and c.worst_joint == column, c
