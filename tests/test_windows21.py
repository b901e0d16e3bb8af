"""A stretch whose cap is lowered alone restarts from its own law played slower, the other
stretches from theirs as planned (``programme.eased``; before, the whole law was played
slower and the kept stretches climbed back: the xArm7's corner planned again at 3.6-4.3 s of
CPU, now 2.5-2.7 s, 1.681028 s against 1.681034 s); ``Optimal._state`` carries the plan's
stretches (``rests``, ``peaks``) with it."""

import numpy as np

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import optimal, programme
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.api import limits as api_limits

#: the 2R arm from rest to rest twice: a 0.1 s leg, then a 2 s one (tests/test_windows20.py's)
WAYPOINTS = np.array([[-0.9, 0.6], [0.8, -0.5], [-0.3, 0.8]])


def test_eased_scales_one_stretch_and_keeps_the_rest():
    """x times f on the stretch, as it was beyond the ramp, and between them a smoothstep
    flat to the degree's derivative at both ends: monotone, within f .. 1."""
    degree, breaks = 5, np.linspace(0.0, 10.0, 41)
    law = programme.TimeLaw(breaks, np.linspace(1.0, 3.0, len(breaks) + degree - 1), degree)
    out = programme.eased(law, 6.0, 10.0, 0.25, 2.0)
    ratio = out.coefficients / law.coefficients
    greville = np.lib.stride_tricks.sliding_window_view(law.knots[1:], degree)[
        :len(ratio)].mean(axis=1)
    assert np.all(ratio[greville >= 6.0] == 0.25) and np.all(ratio[greville <= 4.0] == 1.0)
    ramp = ratio[(greville > 4.0) & (greville < 6.0)]
    assert ramp.size and np.all(np.diff(ramp) < 0) and np.all((ramp > 0.25) & (ramp < 1.0))


def test_a_lowered_stretch_alone_restarts_slower(monkeypatch):
    """The 2R's two legs, the first law taken as inconsistent on the slow leg (s = 1.5): the
    plan with that leg's cap lowered starts from the first law with the slow leg's x times
    (lowered cap / its peak)^2 and the fast leg's x as planned; before, every coefficient
    was scaled so (the fast leg restarted slower and climbed back to its cap)."""
    model = hodyn_cli.load_robot(str(URDF / "planar_2r.urdf"))
    motion = generate(model, "point-to-point", waypoints=WAYPOINTS,
                      segment_duration=[0.1, 2.0], rate=50.0)
    laws, starts, caps, peaks = [], [], [], []
    fitted, plan = optimal.Optimal._fitted, optimal.Optimal.plan

    def planned(self, chunks, limits=None, pace=programme.PACE, cap=programme.CAP, start=None):
        caps.append(np.atleast_1d(cap).copy())
        starts.append(start)
        made = plan(self, chunks, limits, pace, cap, start)
        laws.append(made.law)
        peaks.append(self.peaks.copy())
        return made

    def inconsistent_once(self, chunks, sampled=None):
        fit, search, lag = fitted(self, chunks, sampled)
        if len(caps) == 1:
            self.lagged[-1] = (1.07, 1.5)
            return fit, search, 1.07
        return fit, search, lag

    monkeypatch.setattr(optimal.Optimal, "plan", planned)
    monkeypatch.setattr(optimal.Optimal, "_fitted", inconsistent_once)
    _, opt = hodyn_cli.retime_optimal(model, motion, grid=300, solver="windows")
    assert len(caps) >= 2 and caps[1][0] == programme.CAP > caps[1][-1]
    first, start = laws[0], starts[1]
    assert start is not None
    ratio = start.coefficients / first.coefficients
    greville = np.lib.stride_tricks.sliding_window_view(first.knots[1:], first.degree)[
        :len(ratio)].mean(axis=1)
    rest = float(opt.rests.max())  # (the slow leg: the last stretch)
    f = (caps[1][-1] / peaks[0][-1]) ** 2
    assert np.allclose(ratio[greville >= rest], f, rtol=1e-12)
    # (the fast leg, 0.1 s of s beside a ramp of half the slow leg's 2 s: eased back toward
    # its own law, the farther from the slow leg the less slowed; on the xArm7's corner, legs
    # of 3 s, the first leg's first half restarts as planned)
    assert ratio[0] > f * (1 + 1e-9) and np.all(np.diff(ratio[greville < rest]) <= 0)
    end = float(first.breaks[-1])
    eased = programme.eased(first, rest, end, f, optimal.EASED * (end - rest))
    assert np.array_equal(start.coefficients, eased.coefficients)


def test_state_restores_the_plans_stretches(monkeypatch):
    """``_restore(_state())`` brings back the rests and the peaks of the plan it restores
    with it (before, those of the last plan stayed: a raised cap's law given up for the law
    before it kept the raised plan's peaks)."""
    model = hodyn_cli.load_robot(str(URDF / "planar_2r.urdf"))
    solver = api_limits.time_optimal(model, None)
    monkeypatch.setattr(optimal.Optimal, "duration", property(lambda self: 1.0))
    solver.rests, solver.peaks = np.array([0.5]), np.array([8.0, 6.0])
    state = solver._state()
    solver.rests, solver.peaks = np.array([0.2, 0.7]), np.array([9.0, 4.0, 3.0])
    solver._restore(state)
    assert solver.rests.tolist() == [0.5] and solver.peaks.tolist() == [8.0, 6.0]
