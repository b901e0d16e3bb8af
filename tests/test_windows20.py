"""A law inconsistent once played is planned again with a lower path-speed cap on the stretch
between rests where the inconsistency is (``Optimal._where``: the path parameter of its
largest error), the other stretches' caps kept (``Optimal._windows``): lowered together, the
xArm7's curve through a stop, inconsistent on its second leg, came to 1.74530 s at a cap of 4
on both legs; with the second leg's alone, 1.68103 s (tests/test_optimal.py's PUBLIC_ARMS)."""

import numpy as np
import pytest

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import optimal, programme
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.api import limits as api_limits

#: the 2R arm from rest to rest twice: a 0.1 s leg, then a 2 s one (tests/test_windows19.py's)
WAYPOINTS = np.array([[-0.9, 0.6], [0.8, -0.5], [-0.3, 0.8]])


def _planned(monkeypatch, at: float, times: int = 1):
    """The 2R's two legs by the windows on a grid of ~300 points, each of the first
    ``times`` laws taken as 1.07 of validate's tolerance at the path parameter ``at``: the
    caps each plan was given, the peaks it recorded, the output's optimal."""
    model = hodyn_cli.load_robot(str(URDF / "planar_2r.urdf"))
    motion = generate(model, "point-to-point", waypoints=WAYPOINTS,
                      segment_duration=[0.1, 2.0], rate=50.0)
    caps, peaks, fitted, plan = [], [], optimal.Optimal._fitted, optimal.Optimal.plan

    def planned(self, chunks, limits=None, pace=programme.PACE, cap=programme.CAP, start=None):
        caps.append(np.atleast_1d(cap).copy())
        made = plan(self, chunks, limits, pace, cap, start)
        peaks.append(self.peaks.copy())
        return made

    def inconsistent_at(self, chunks, sampled=None):
        fit, search, lag = fitted(self, chunks, sampled)
        if len(caps) <= times:
            self.lagged[-1] = (1.07, at)
            return fit, search, 1.07
        return fit, search, lag

    monkeypatch.setattr(optimal.Optimal, "plan", planned)
    monkeypatch.setattr(optimal.Optimal, "_fitted", inconsistent_at)
    _, opt = hodyn_cli.retime_optimal(model, motion, grid=300, solver="windows")
    return caps, peaks, opt


def _lowered(peak: float) -> float:
    """The peak rule: a cap lowered from ``peak`` for a lag of 1.07."""
    return max(peak * (optimal.CALM / 1.07) ** (1 / programme.STEEP), programme.CAP_LEAST)


def test_only_the_inconsistent_stretchs_cap_is_lowered(monkeypatch):
    """The 2R's two legs (on fewer grid points the first law's peak is below CAP_LEAST):
    the first law, inconsistent at s = 1.5 (on the slow leg), is planned again with the slow
    leg's cap lowered as the peak rule says (its peak times (CALM / 1.07)^(1 / STEEP)) and
    the fast leg's cap of 8 kept; before, one cap for every stretch, lowered together."""
    caps, peaks, opt = _planned(monkeypatch, 1.5)
    assert len(caps) >= 2 and caps[0].tolist() == [programme.CAP]
    assert opt.rests.size and opt.rests.max() < 1.5  # (the slow leg: the last stretch)
    lowered = caps[1]
    assert len(lowered) == len(opt.rests) + 1, (caps, peaks)
    assert lowered[0] == programme.CAP  # (the fast leg's kept)
    assert lowered[-1] == pytest.approx(_lowered(peaks[0][-1]))
    assert lowered[-1] < programme.CAP


@pytest.mark.slow  # (the first lowering: the default test above)
def test_a_stretch_lowered_twice_is_lowered_from_its_own_peak(monkeypatch):
    """Inconsistent twice on the slow leg: its cap lowered again from the peak of the law
    planned under the first lowering (6.3335 -> 5.638 on this path; plan's peaks in units of
    each stretch's own speed, not of the lowered cap's), the fast leg's still 8."""
    caps, peaks, _ = _planned(monkeypatch, 1.5, times=2)
    assert len(caps) >= 3 and caps[2][0] == programme.CAP
    assert caps[2][-1] == pytest.approx(_lowered(peaks[1][-1]))
    assert caps[2][-1] < caps[1][-1] < programme.CAP


@pytest.mark.slow  # (the stretch's own lowering: the default test above)
def test_a_stretch_no_faster_than_cap_least_lowers_every_cap_from_the_fastest(monkeypatch):
    """Inconsistent on the fast leg (s = 0.05), whose peak is below CAP_LEAST (its cap is
    not what makes it inconsistent): every stretch's cap is lowered together, from the
    fastest stretch's peak, as before windows20 (the Baxter zigzag with torque
    accelerations: 4.59445 s so, 4.60127 s with the leg's cap alone)."""
    caps, peaks, _ = _planned(monkeypatch, 0.05)
    assert peaks[0][0] <= programme.CAP_LEAST < peaks[0].max()
    assert caps[1].tolist() == pytest.approx([_lowered(peaks[0].max())] * len(peaks[0]))


def test_the_largest_inconsistency_is_found_on_the_path():
    """``Optimal._where``: the path parameter of the step where the played motion's
    derivatives disagree most with its samples (a spike in qd at the 30th of 61 samples of
    a law x = 1 on s in 0 .. 1: a step next to s = 0.5)."""
    from hodyn_cli.algorithms.motion.differences import Differences

    model = hodyn_cli.load_robot(str(URDF / "planar_2r.urdf"))
    solver = api_limits.time_optimal(model, None)
    t = np.linspace(0.0, 1.0, 61)
    x = np.zeros((61, 3, 2))
    x[:, 0, 0], x[:, 1, 0] = np.sin(t), np.cos(t)
    x[30, 1, 0] += 0.5  # (qd off at t = 0.5: the trapezoid rule either side of it)
    differences = Differences()
    differences.add(x, t, 0)
    degree = 5
    law = programme.TimeLaw(t[[0, -1]], np.ones(degree + 1), degree)
    solver.path = optimal.Plan(law, 0.0, 1 / 60, None, 1.0, 61)
    # (the steps either side of the spike err alike: the first of the largest, at its start)
    assert solver._where(differences) in (t[29], t[30])
