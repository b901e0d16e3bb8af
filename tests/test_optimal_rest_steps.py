"""``retime --optimal`` from a rest whose acceleration steps: the half cosine ``q = c + a cos(pi
t)`` of the 2R arm is at rest at both ends with q'' = -+a pi^2 there. A law with x > 0 at such a
rest plays q'' = q^[2] x there, a step from (to) the robot held still: with jerk, torque-rate or
torque-acceleration limits ``hodyn check`` fails it (``rest_acceleration``,
tests/test_check_rests.py). The windows' law holds x at 0 at those rests
(:func:`~hodyn_cli.algorithms.limits.programme.ramped`), and reachability's law, which ramps
the rests, is no longer refused for being slower than the uniform scaling (that one keeps the
step)."""

import numpy as np
import pytest

import hodyn_cli
from conftest import URDF
from hodyn_cli import api
from hodyn_cli.algorithms.limits import programme
from hodyn_cli.algorithms.limits.jets import time_rates
from hodyn_cli.core.trajectory import Trajectory, cosine

MODEL = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
LIMITS = {j: {"jerk": 50.0} for j in MODEL.joint_names}


def _half_cosine() -> Trajectory:
    t = np.linspace(0.0, 1.0, 101)
    return cosine(MODEL.joint_names, t, amplitude=[0.5, -0.3], omega=np.pi, offset=[0.1, 0.2],
                  orders=4)


@pytest.mark.parametrize("solver", ["windows", "reachability"])
def test_a_stepping_rest_is_left_and_reached_with_no_acceleration(solver):
    """Both solvers: q'' = 0 at both ends (before, the windows' law, 0.621 s, left the rest
    with q'' = -15.5 and 9.3 rad/s^2; reachability refused the input: its ramped law, 1.34 s,
    is slower than the uniform scaling's 0.677 s, which steps); every limit and the rest rows
    hold, and hodyn validate passes the output (the windows' law 0.953 s)."""
    out, opt = hodyn_cli.retime_optimal(MODEL, _half_cosine(), limits=LIMITS, solver=solver)
    assert opt.used == solver and opt.stepping == (True, True) and opt.kept == []
    qdd = out.derivatives[:, 2]
    assert np.abs(qdd[[0, -1]]).max() <= 1e-9 * np.abs(qdd).max()
    assert np.abs(qdd).max() > 1  # (the motion accelerates: not a trivial law)
    check = hodyn_cli.check_limits(MODEL, out, limits=LIMITS)
    assert check.feasible and any(r.quantity == "rest_acceleration" for r in check.rows)
    assert hodyn_cli.validate_motion(MODEL, out, samples=50).passed
    if solver == "windows":  # (the ramps cost: the jerk limit binds in them)
        assert opt.uniform_duration < opt.duration < 1.5 * opt.uniform_duration


def test_a_law_held_at_rest_is_timed_exactly():
    """A time law held at x = 0 at both ends (x ~ the distance from the rest: 1/sqrt(x) is
    singular there): its duration as QUADPACK integrates the same spline, s(t) and
    t(s) invert each other, and its rates are finite at the rests, time_rates' where x > 0, and
    the time differences of each other."""
    law = programme.ramped(programme.TimeLaw(np.linspace(0.0, 2.0, 41),
                                             1.5 + 0.2 * np.sin(np.arange(45.0)), 5), (0.3, 0.5))
    assert law.held == (True, True) and law.coefficients[[0, -1]].tolist() == [0.0, 0.0]
    quad = pytest.importorskip("scipy.integrate").quad
    reference, _ = quad(lambda u: 1 / np.sqrt(law.spline(np.array([u]))[0]), 0.0, 2.0,
                        points=law.breaks[1:-1], limit=200)  # (QUADPACK's own extrapolation)
    assert law.duration == pytest.approx(reference, rel=1e-10)
    inner = np.linspace(1e-3, 2 - 1e-3, 4001)  # (away from the singular ends: exact)
    steps = np.diff(law.time_at(np.concatenate([[0.0], inner, [2.0]])))
    assert np.all(steps > 0)
    t = np.linspace(0.0, law.duration, 20001)
    s = law.s_at(t)
    assert s[0] == 0.0 and s[-1] == pytest.approx(2.0, abs=1e-15)
    assert np.abs(law.time_at(s) - t).max() < 1e-12
    rates = law.rates(s, 4)
    assert np.all(np.isfinite(rates)) and rates[[0, -1], 0].tolist() == [0.0, 0.0]
    spline = law.spline
    X = np.stack([spline.derivative(nu)(s[1:-1]) if nu else spline(s[1:-1])
                  for nu in range(4)], axis=1)
    assert np.allclose(rates[1:-1], time_rates(X), rtol=1e-9, atol=1e-9 * np.abs(rates).max())
    h = t[1] - t[0]
    for k in range(3):  # s^(k+1) against the central differences of s^(k)
        lower = s if k == 0 else rates[:, k - 1]
        differences = (lower[2:] - lower[:-2]) / (2 * h)
        assert np.abs(differences - rates[1:-1, k]).max() < 1e-4 * np.abs(rates[:, k]).max()


def test_the_uniform_scaling_keeps_the_steps_and_says_so():
    """``retime --to-limits --rate`` (and the windows' fallback) scale q'' by 1/k^2: the steps
    stay, a text per end (the output's warnings); the laws above keep none."""
    optimal = api.time_optimal(MODEL, LIMITS, rate=100.0, uniform=True)
    motion = _half_cosine()
    optimal.fit(lambda: [motion])
    first, last = optimal.kept
    assert first.startswith("leaves its rest at t = 0 s with q'' != 0 (joint1 -4.935")
    assert last.startswith("comes to rest at t = 1 s") and "no time scaling removes" in last


def test_a_coarse_output_that_misses_the_limits_keeps_the_windows_law():
    """At 20 Hz the windows' law from a stepping rest ramps between the output's samples,
    none of which comes within 2 % of a limit at any speed-up the final fit tries: its
    Fit reaches nothing. The law as planned (sped up by FIT at most, as the uniform
    scaling's) is the output, not the uniform scaling (which keeps the steps: before,
    0.677 s, ``check`` failing its rest rows, with a warning); nor does a resampling speed
    it up to where a sample of it, from rest, would reach a limit. Reachability's law,
    1.356 s, was auto's. (20 Hz asked: by default, its uniform scaling 13.5 of the input's
    steps, it is sampled at 500 Hz, optimal.output_rate: 0.9003 s.)"""
    out, opt = hodyn_cli.retime_optimal(MODEL, _coarse_half_cosine(), limits=LIMITS,
                                        solver="auto", rate=20.0)
    assert opt.used == "windows" and opt.kept == []
    assert opt.duration < 0.9 * 1.356  # (reachability's)
    assert np.diff(out.t).max() == pytest.approx(0.05, rel=1e-9)
    check = hodyn_cli.check_limits(MODEL, out, limits=LIMITS)
    assert check.feasible
    assert hodyn_cli.validate_motion(MODEL, out, samples=0).passed


def _coarse_half_cosine() -> Trajectory:
    """The half cosine at 21 samples (20 Hz)."""
    return cosine(MODEL.joint_names, np.linspace(0.0, 1.0, 21), amplitude=[0.5, -0.3],
                  omega=np.pi, offset=[0.1, 0.2], orders=4)


def test_a_fine_output_from_a_coarse_input_keeps_the_limits_beside_the_held_rest():
    """The 21-sample input to ``--rate 1000``: the windows' law bent within the grid
    interval next to the rest held at x = 0 (the pace bound ``PACE scale sqrt(x0 / x)``
    bounds nothing there, the 1 kHz rate's bound is loose), 1.69 times the jerk limit
    between its ends, and gave way to the uniform scaling (0.677 s, ``check`` failing its
    rest rows). With the pace there bounded by the interval's length (``programme.
    _beside_rest``): 0.900 s, near the 200 Hz output's 0.909 s; ``check`` passes its 1 kHz
    samples (the rest rows too) and validate passes it."""
    out, opt = hodyn_cli.retime_optimal(MODEL, _coarse_half_cosine(), limits=LIMITS,
                                        rate=1000.0, solver="windows")
    assert opt.used == "windows" and opt.duration < 0.95
    check = hodyn_cli.check_limits(MODEL, out, limits=LIMITS)
    assert check.feasible and any(r.quantity == "rest_acceleration" for r in check.rows)
    assert hodyn_cli.validate_motion(MODEL, out, samples=0).passed


@pytest.mark.slow
def test_auto_takes_the_windows_law_on_the_fine_output():
    """The same with ``auto``: it kept reachability's 1.346 s; now the windows' 0.900 s."""
    out, opt = hodyn_cli.retime_optimal(MODEL, _coarse_half_cosine(), limits=LIMITS,
                                        rate=1000.0)
    assert opt.used == "windows" and opt.ran == ("reachability", "windows")
    assert opt.duration < 0.95
    assert hodyn_cli.check_limits(MODEL, out, limits=LIMITS).feasible


def test_the_pace_beside_a_held_rest_is_bounded_by_the_interval_there():
    """Both ends of the grid interval next to each held rest, SMOOTH over its length; none
    elsewhere, nor where no rest is held."""
    s = np.array([0.0, 0.1, 0.3, 0.6, 0.7])
    bound = programme._beside_rest(s, np.array([True, False, False, False, True]))
    assert bound == pytest.approx(programme.SMOOTH / 0.1 * np.array([1, 1, np.inf, 1, 1]),
                                  rel=1e-12)
    assert np.isinf(programme._beside_rest(s, np.zeros(5, bool))).all()
