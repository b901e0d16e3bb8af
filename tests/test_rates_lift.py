"""rates._lifted as optimal._rated uses it (issue 37): the law kept by the rounds is lifted
on a path without a corner only, then raised by the sequential programmes
(sequential.py), and auto's SLACK is judged on the programmes' law where they ran, else
on the rounds' law before the lift (optimal.py, rates.kept's docstrings): claims no other
test checked."""


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


def test_the_slack_is_judged_on_the_sequential_programmes_law_where_they_ran(monkeypatch):
    """The slack (beyond SLACK: auto runs the windows too) is the sequential programmes'
    law's where they ran (sequential.raised): 1.012 times the passes' law on this path,
    where the rounds' is 1.118 (the programmes' law then within 0.05 % of the windows', which
    auto does not run); where they leave the lifted law as it is, the rounds' (judged on
    the lifted law, 1.078 on this path before the programmes, auto kept a law 6.5 % longer
    than the windows')."""
    from hodyn_cli.algorithms.limits import sequential

    model, traj, limits = _ur10_fourier()
    # (one kernel: the first that validate passes may differ, the programmes' law at the
    # narrowest passing it where the lifted one fails)
    monkeypatch.setattr(optimal, "RATED_STEPS", (4,))
    _, refined = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
    monkeypatch.setattr(sequential, "raised", lambda sigma, x, *args: sequential.Raised(x, False))
    calls = _counted(monkeypatch, True)
    _, lifted = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
    assert calls, "the path has no corner: its law is lifted"
    assert refined.slack < 1.02 and lifted.slack > 1.1 > optimal.SLACK
    assert refined.duration < 0.95 * lifted.duration


def test_a_path_with_corners_is_not_lifted(monkeypatch):
    """The UR5 through a corner (test_rates' ``_ur5_corners``): its pieces' laws played as
    the rounds keep them (the ramp's tail warps a lifted law, which the rounds do not see)."""
    from test_rates import _ur5_corners

    model, traj, limits = _ur5_corners()
    calls = _counted(monkeypatch, True)
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
    assert opt.used == "reachability" and calls == []
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible


def _usage(x, grows):
    """A :class:`rates.Usage` of two limits: a velocity at 0.3 sqrt(x) everywhere, and one of
    higher order at 0.3 x^p, ``grows`` (M,) holding p per point (0: none there)."""
    import numpy as np

    higher = np.where(grows > 0, 0.3 * x ** np.maximum(grows, 1.0), 0.0)
    return rates.Usage(0.3 * np.sqrt(x), higher, np.zeros(len(x)), np.ones(len(x)))


def test_a_lift_step_beyond_a_limit_is_tried_again_without_the_room_about_it():
    """rates._lifted on 600 grid points at x = 1, the passes' law at 4, w = 2 (r = 16): a
    value growing as x^2 (a torque acceleration's) at 0.3 of its limit on points 280-319,
    where every half-room step is beyond it (((1 + v) / 2)^2 > v), none elsewhere. The
    lift raises x far from them (the velocity's room: 1 / 0.3^2, the passes' law 4: at most
    4), leaves it as it is within r of them, and keeps every limit within TOLERANCE; with
    p = 1.5 instead (a jerk's; at 0.3, above 0.236) the same points are lifted too."""
    import numpy as np

    M, planned, half = 600, np.full(600, 4.0), np.full(600, 2.0)
    spot = (np.arange(M) >= 280) & (np.arange(M) < 320)
    for p, lifted_there in ((2.0, False), (1.5, True)):
        grows = np.where(spot, p, 0.0)
        x = rates._lifted(np.ones(M), planned, half, lambda x, g=grows: _usage(x, g))
        use = _usage(x, grows)
        assert max(use.affine.max(), use.higher.max()) <= 1 + rates.TOLERANCE
        assert np.all(x <= planned * (1 + 1e-12))
        assert x[:200].min() > 2.0 and x[400:].min() > 2.0  # (far from the spot: lifted)
        assert (x[spot].min() > 1.2) == lifted_there, (p, x[spot].min())
        if not lifted_there:
            assert np.all(x[280 - 16 : 320 + 16] == 1.0)  # (F = 1 within r of them)


def test_a_place_a_lift_step_overshot_stays_blocked_at_the_later_lifts():
    """rates._lifted on the x^2 spot of the test above (every half-room step there beyond its
    limit): the first lift's first try overshoots and blocks the spot, and every later lift
    keeps it blocked, so its first try passes: one usage pass per lift, 2 + lifts in all (9 here)
    (the spot made afresh per lift, each lift's first try failed there again: 1 + 2 lifts,
    as the Panda's 1e5-sample Fourier path's 45 passes in 11 lifts)."""
    import numpy as np

    M, planned, half = 600, np.full(600, 4.0), np.full(600, 2.0)
    grows = np.where((np.arange(M) >= 280) & (np.arange(M) < 320), 2.0, 0.0)
    trials: list = []

    def usage(x):
        trials.append(x)
        return _usage(x, grows)

    x = rates._lifted(np.ones(M), planned, half, usage)
    uses = [_usage(t, grows) for t in trials[1:]]
    # (the lifts' trials within the limits: the steps taken)
    taken = [u for u in uses if max(u.affine.max(), u.higher.max()) <= 1 + rates.TOLERANCE]
    assert len(taken) >= 8 and x[:200].min() > 3.99, (len(taken), x[:200].min())
    assert len(trials) <= 2 + len(taken), (len(trials), len(taken))
    use = _usage(x, grows)
    assert max(use.affine.max(), use.higher.max()) <= 1 + rates.TOLERANCE
    assert np.all(x[280 - 16 : 320 + 16] == 1.0)
