"""Reachability's smoothings on short paths with many rests cost by their played laws and
fits, not their samples (issue 37, goal 4): a candidate whose output the local slowing leaves
as it is and another keeps out is not played again (:func:`optimal._beaten`: the same
output to the bit), and a local slowing whose attempt is not shorter is tried wider only
where what it could gain is beyond :data:`optimal.WIDEN`."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from test_base_parameters import public_robot
from test_optimal_fresh_robots import G1_ARM, _arm
from test_rates import PANDA

import hodyn_cli
from hodyn_cli.algorithms.limits import local, optimal, reachability
from hodyn_cli.algorithms.planning.generate import generate


class _Fit:
    """A stand-in for a fit of reachability's played law: its output ``duration``, the
    played law's own ``span``."""

    def __init__(self, duration: float, span: float = 1.0, pending=None):
        self.duration, self.path, self.pending = duration, SimpleNamespace(span=span), pending
        self.consistent = True

    def settled(self):
        return self


@pytest.mark.parametrize("slowed, attempts", [(5e-4, 1), (2e-3, optimal.SPOTS)])
def test_a_local_slowing_that_is_not_shorter_is_widened_only_for_a_gain(monkeypatch, slowed,
                                                                          attempts):
    """Every attempt's lowered law fits longer than the law it lowers: where the fit slows the
    law by less than WIDEN (K - 1 = 5e-4) the first attempt is the last (before: SPOTS of
    them, each WIDER times as wide, a played law and a fit each; the G1 arm's 8-waypoint
    path at 100 Hz, three of 0.25-0.4 s for nothing), beyond it SPOTS as before; the fit
    kept is the one given."""
    spreads, fits = [], []
    monkeypatch.setattr(local, "grid_times", lambda motion: [np.linspace(0.0, 1.0, 11)])
    monkeypatch.setattr(local, "fields", lambda times, s, y, seconds: spreads.append(seconds)
                        or ["field"])
    owner = SimpleNamespace(_beyond=lambda inner, motion, K, near=None: (np.array([0.5]),
                                                                         np.array([0.99])))
    inner = _Fit(1 + slowed)

    def fitted(trial):
        fits.append(trial)
        return _Fit(inner.duration * 1.001)

    kept, motion = optimal.Optimal._local(owner, inner, "motion", fitted,
                                          lambda motion, fields: "lowered", 1e-3)
    assert kept is inner and motion == "motion"
    assert len(fits) == attempts
    assert spreads == [optimal.SPREAD * 1e-3 * optimal.WIDER**k for k in range(attempts)]


def _first_of_the_shortest(finals: list[float]) -> int:
    """The candidate the loop of :meth:`Optimal._smoothings` keeps: the first of the
    shortest (it replaces the one kept only where strictly shorter)."""
    return min(range(len(finals)), key=lambda i: (finals[i], i))


def test_a_beaten_candidate_is_never_the_one_kept():
    """Over every pattern of two and three candidates, each left as it is by the local
    slowing (K within CLOSE) or not (its final duration then shorter than its fit's, and
    unknown to ``_beaten``), or left lazy, with ties: the loop skipping those ``_beaten``
    says keeps the candidate the full loop keeps, and skips every candidate left as it is
    that is not it where another left as it is keeps it out."""
    durations = (1.0, 1.0 + 1e-4, 1.001)
    for n in (2, 3):
        for kinds in itertools.product(("as is", "slowed", "lazy"), repeat=n):
            for picked in itertools.product(durations, repeat=n):
                fits, finals = [], []
                for kind, d in zip(kinds, picked, strict=True):
                    span = d if kind == "as is" else d / 1.01
                    fits.append(_Fit(d, span, pending="fit" if kind == "lazy" else None))
                    # (the local slowing of one slowed by 1 %: 0.5 % shorter)
                    finals.append(d if kind == "as is" else d * 0.995)
                done = None
                for i in range(n):
                    if optimal._beaten(i, fits, None if done is None else fits[done]):
                        continue
                    if done is None or finals[i] < finals[done]:
                        done = i
                assert done == _first_of_the_shortest(finals), (kinds, picked)
                fixed = [i for i, k in enumerate(kinds) if k == "as is"]
                if len(fixed) == n:  # (all known: all but the one kept skipped)
                    assert [optimal._beaten(i, fits, None) for i in range(n)] == [
                        i != done for i in range(n)]


@pytest.mark.parametrize("seconds, skipped", [(2.0, 0), (1.0, 1)])
def test_a_beaten_candidate_is_not_played_again(monkeypatch, seconds, skipped):
    """The Panda's Fourier path at 100 Hz (URDF limits): two candidates (the lowered law's
    and the one kept within the passes' rows), each within CLOSE of its played law, which
    the local slowing leaves as they are: the one not kept (the first on the 2 s path, the
    second on the 1 s one) is not played again, one played law fewer (~0.1 s on the G1
    arm's 8-waypoint path), and the output is the one the loop that played it gives, to
    the bit."""
    model = hodyn_cli.load_robot(PANDA)
    traj = generate(model, "fourier", rate=100.0, duration=seconds)
    played, beaten = reachability.played, optimal._beaten
    calls, said = [], []

    def counted(*args, **kwargs):
        calls.append(args[4])
        return played(*args, **kwargs)

    def spied(i, fits, done):
        said.append(beaten(i, fits, done))
        return said[-1]

    monkeypatch.setattr(reachability, "played", counted)
    monkeypatch.setattr(optimal, "_beaten", spied)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    now, verdicts = len(calls), list(said)
    calls.clear()
    monkeypatch.setattr(optimal, "_beaten", lambda i, fits, done: False)  # (as before)
    before, opt_before = hodyn_cli.retime_optimal(model, traj)
    assert verdicts == [i == skipped for i in range(2)]
    assert now == len(calls) - 1
    assert opt.used == opt_before.used == "reachability"
    assert opt.duration == opt_before.duration
    assert np.array_equal(out.t, before.t)
    assert np.array_equal(out.derivatives, before.derivatives)


#: benchmarks/stranger_optimal.py's waypoints (TURNS, then each row -0.8 times: ``many``),
#: as shares of each joint's half range about its middle
TURNS = [[-0.3, 0.2, -0.2, 0.25, -0.2, 0.2, -0.1], [0.25, -0.15, 0.3, -0.2, 0.25, -0.2, 0.2],
         [-0.1, 0.25, -0.25, 0.1, -0.3, 0.1, -0.25], [0.2, -0.2, 0.15, -0.25, 0.2, -0.15, 0.3]]


def _through(model, shares, seconds: float):
    """``generate --kind point-to-point`` through the waypoints ``shares`` (:data:`TURNS`'
    kind: of each joint's half range about its middle), from rest to rest, ``seconds`` a
    leg at 100 Hz (stranger_optimal's waypoint paths)."""
    low, high = model.limits[:, 0], model.limits[:, 1]
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    return generate(model, "point-to-point", waypoints=middle + half * np.array(shares),
                    segment_duration=[seconds], rate=100.0)


def _within_and_valid(model, out) -> None:
    """The output keeps its limits (check_limits) and passes validate."""
    q = [out.derivatives[:, k] for k in range(out.orders)]
    assert hodyn_cli.check_limits(model, *q[:3], t=out.t).feasible
    assert hodyn_cli.validate_motion(model, *q, t=out.t).passed


def _g1_retimed(monkeypatch, shares: list[list[float]], seconds: float):
    """The G1's left arm (stranger_optimal's ``g1-arm``) through the waypoints ``shares``
    (:data:`TURNS`' kind), from rest to rest, ``seconds`` a leg at 100 Hz, retimed: (the
    model, the output, its Optimal, whether each fit made was of a uniform law: those of
    reachability's played laws)."""
    model = _arm("g1_description/urdf/g1_29dof_rev_1_0.urdf", G1_ARM)
    traj = _through(model, shares, seconds)
    fit, fits = optimal.Optimal.fit, []

    def counted(self, *args, **kwargs):
        fits.append(self.uniform)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(optimal.Optimal, "fit", counted)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    return model, out, opt, fits


@pytest.mark.slow
def test_the_g1_arms_eight_waypoints_fit_fewer_times(monkeypatch):
    """stranger_optimal's ``g1-arm many`` (eight waypoints, 0.4 s legs, 100 Hz: 281
    samples): 5 fits of played laws (9 before: three wider local slowings that were not
    shorter, K - 1 3.5e-4, below WIDEN), its duration the one before to the bit
    (0.9191242858883598 s), within its limits and passing validate."""
    model, out, opt, fits = _g1_retimed(monkeypatch, TURNS + [[-0.8 * x for x in row]
                                                              for row in TURNS], 0.4)
    assert opt.used == "reachability"
    assert sum(fits) == 5
    # (gaps17's NEAR points at warped rests: +4.1e-9 from 0.9191242858883598)
    assert opt.duration == pytest.approx(0.9191242896901317, rel=1e-12)  # (HODYN_NO_KERNEL: 3e-14 off)
    _within_and_valid(model, out)


def test_the_finer_scale_tries_its_narrowest_kernel_alone(monkeypatch):
    """stranger_optimal's ``g1-arm back`` (A, B, A, B, 1 s legs, 100 Hz): its played law's
    smoothing costs more than NOTED, so the kernels of a time scale FINER times shorter are
    tried too; their narrowest fails validate there (as on 8 of 26 of the sweep's fresh
    rows, where the next one failed too): the next is not tried (one played law and fit
    fewer: 3 fits of played laws, 4 before), the output the one before to the bit
    (0.5458522127325595 s, the own scale's narrowest kernel's; 0.5458522064373657 s before
    gaps17's reachability.NEAR points at the warped rests, 1.2e-8 longer: the output
    resampled near its rests between those points), within its limits and passing
    validate."""
    model, out, opt, fits = _g1_retimed(monkeypatch, [TURNS[0], TURNS[1]] * 2, 1.0)
    assert opt.used == "reachability"
    assert sum(fits) == 3
    assert opt.duration == pytest.approx(0.5458522127368023, rel=1e-12)  # (HODYN_NO_KERNEL: 3e-14 off;
    # 0.5458522127325595 before the shape points were graded, shape22)
    _within_and_valid(model, out)


def test_a_law_within_the_rows_is_made_for_the_narrowest_kernel_alone(monkeypatch):
    """stranger_optimal's ``z1 p2p`` (four waypoints, 1 s legs, 100 Hz): both kernels of
    its own scale are slowed by their fits by more than CLOSE; the law kept within the
    passes' rows is made for the first alone (reachability.within at its reach, 5 ms, not at
    the second's 10 ms too: one played law and fit fewer; the second's was the longer on
    the 19 paths where both were made), the output the one before to the bit (gaps17's
    reachability.NEAR points at the warped rests: 8.2e-9 longer, as above), within its
    limits and passing validate."""
    model = hodyn_cli.load_robot(public_robot("z1_description/urdf/z1.urdf"))
    traj = _through(model, np.array(TURNS)[:, : model.n], 1.0)
    within, reaches = reachability.within, []

    def spied(arc, law, rows_at, reach, interpolate):
        reaches.append(reach)
        return within(arc, law, rows_at, reach, interpolate)

    monkeypatch.setattr(reachability, "within", spied)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    assert opt.used == "reachability"
    assert set(reaches) == {0.005}
    assert opt.duration == pytest.approx(1.1085158649202227, rel=1e-12)  # (HODYN_NO_KERNEL: 3e-14 off;
    # 1.1085158649134261 before the shape points were graded, shape22)
    _within_and_valid(model, out)
