"""rates._lifted as optimal._rated uses it (issue 37): the law kept by the rounds is lifted
on a path without a corner only, and auto's SLACK is judged on the rounds' law before the
lift (optimal.py, rates.kept's docstrings): claims no other test checked."""

import pytest

import hodyn_cli
from hodyn_cli.algorithms.limits import optimal, rates
from hodyn_cli.algorithms.planning.generate import generate


def _ur10_fourier():
    """benchmarks' ``ur10-fourier-jerk``'s kind: the UR10 (example-robot-data) on a Fourier
    path, 3 s at 200 Hz (601 samples), ``--jerk 200``: its rounds slow the law by 1.20, the
    lift takes 2.104 s to 1.904 s."""
    from test_base_parameters import public_robot

    model = hodyn_cli.load_robot(str(public_robot("ur_description/urdf/ur10_robot.urdf")))
    traj = generate(model, "fourier", duration=3.0, rate=200.0, derivatives=4)
    return model, traj, hodyn_cli.joint_limits(model, jerk=200.0)


def _counted(monkeypatch, lift: bool) -> list:
    """rates._lifted counting its calls (``lift``: as it is, else the played x unlifted)."""
    calls: list = []
    lifted = rates._lifted

    def counted(x, *args):
        calls.append(len(x))
        return lifted(x, *args) if lift else x

    monkeypatch.setattr(rates, "_lifted", counted)
    return calls


def test_the_slack_is_judged_on_the_rounds_law_before_its_lift(monkeypatch):
    """The same slack (beyond SLACK: auto runs the windows) with the lift and without it,
    though the lift shortens the law by 5 % or more."""
    model, traj, limits = _ur10_fourier()
    runs = {}
    for lift in (True, False):
        calls = _counted(monkeypatch, lift)
        _, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
        assert calls, "the path has no corner: its law is lifted"
        runs[lift] = opt
    assert runs[True].slack == pytest.approx(runs[False].slack, rel=1e-12)
    assert runs[True].slack > optimal.SLACK
    assert runs[True].duration < 0.95 * runs[False].duration


def test_a_path_with_corners_is_not_lifted(monkeypatch):
    """The UR5 through a corner (test_rates' ``_ur5_corners``): its pieces' laws played as
    the rounds keep them (the ramp's tail warps a lifted law, which the rounds do not see)."""
    from test_rates import _ur5_corners

    model, traj, limits = _ur5_corners()
    calls = _counted(monkeypatch, True)
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
    assert opt.used == "reachability" and calls == []
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
