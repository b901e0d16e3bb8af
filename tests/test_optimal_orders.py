"""issue 37: ``retime --optimal`` on inputs with more derivatives than q .. qdddd (``generate
--derivatives 6``): never slower than the uniform scaling, whichever solver, and by
reachability along the arc length to q^(6) (the law's time derivatives to sigma^(6) from its
quintic x(sigma)), the output within its limits and passing ``hodyn validate``."""
import numpy as np
import pytest
from test_optimal import IIWA, iiwa_path
from test_reachability import _whole

import hodyn_cli
from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.algorithms.limits.programme import time_derivatives
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.modeling.limits import joint_limits


def test_time_derivatives_to_the_sixth_against_sympy():
    """sdot .. s^(6) from x .. x^(5) (x = sdot^2, ``d/dt = sqrt(x) d/ds``) against sympy's
    derivatives of a closed form, where x is of order 1 and near a rest (x ~ 1e-6, where
    the series of ``jets.time_rates`` divide by sqrt(x))."""
    sp = pytest.importorskip("sympy")
    s = sp.symbols("s")
    x = s * (2 + s) + sp.sin(3 * s) ** 2 / 4
    for at in (0.3, 5e-7):
        f, g, want = sp.sqrt(x), sp.sqrt(x), []
        for _ in range(6):
            want.append(float(g.subs(s, at)))
            g = f * sp.diff(g, s)
        X = np.array([[float(sp.diff(x, s, j).subs(s, at)) for j in range(6)]])
        assert np.allclose(time_derivatives(X)[0], want, rtol=1e-9, atol=1e-12), at


def test_a_path_with_q6_is_played_to_q6_by_reachability_as_with_q4():
    """The iiwa's cosine path (1.5 s at 100 Hz, exact derivatives) given with q .. q^(4),
    q^(5) and q^(6), by reachability: with q^(5) and with q^(6) the same duration within
    1e-4 (the limits read neither; 1.695546 s and 1.695631 s since the smoothing's steps on
    an output at 100 Hz are of 200 Hz: more derivatives for the consistency check to judge,
    the smoothing that validate passes differs; 1e-6 apart at steps of 100 Hz), with q^(4)
    also within 1e-4 (1.69572 s against 1.69558 s at steps of 100 Hz: there the narrower
    smoothing's played motion is refused by the consistency check, its
    qdddd 29 times validate's tolerance from the differences of qddd, where with q^(5) given
    the check's error estimate reads q^(5) and it is at 0.045: the wider one is taken; a
    Fourier path at 200 Hz agreed to 1e-13); the orders-7 output within its limits and
    passing validate. The played motion's q^(5) and q^(6) are the central differences of
    its q^(4) and q^(5): their median error 1e-8 of the largest, 90 % of the grid within
    2e-5 (those beyond, ~8 %, are at the ends and where the law turns sharply at a limit,
    which the grid does not resolve: alike for q''' and q'''' there)."""
    model, full, _ = iiwa_path(1.5, 100.0, orders=7)
    durations = []
    for orders in (5, 6, 7):
        traj = Trajectory(full.joint_names, full.derivatives[:, :orders], full.t)
        out, opt = hodyn_cli.retime_optimal(model, traj)
        assert opt.used == "reachability" and out.orders == orders
        durations.append(opt.duration)
    assert abs(durations[2] / durations[1] - 1) < 1e-4, durations
    assert abs(durations[1] / durations[0] - 1) < 1e-4, durations
    assert durations[0] < 0.9 * opt.uniform_duration
    assert hodyn_cli.check_limits(model, out).feasible
    assert hodyn_cli.validate_motion(model, out, samples=50).passed
    found = reachability.solve(model, full, joint_limits(model), 2000)
    motion = _whole(reachability.played(found, 7, full.joint_names, 0.0,
                                        *reachability.kernel(1, 100.0)))
    d, t = motion.derivatives, motion.t
    for k in (5, 6):
        slope = (d[2:, k - 1] - d[:-2, k - 1]) / (t[2:] - t[:-2])[:, None]
        error = np.abs(slope - d[1:-1, k]).max(axis=1) / np.abs(d[:, k]).max()
        assert np.median(error) < 1e-7 and np.percentile(error, 90) < 2e-5, (
            k, np.percentile(error, [50, 90]))


def test_q6_through_a_corner_and_beyond_q6_go_to_the_windows():
    """Through a corner the ramp leaves sigma^(6) (q^(6) would jump with the direction), and
    beyond q^(6) the law would need x^(6): the reachability motion is not played there. With
    q .. q^(5) it is, its q' .. q^(5) all 0 at the corner (sigma ~ tau^6 there)."""
    model = hodyn_cli.load_robot(IIWA)
    a, b = np.zeros(7), np.array([1.0, 0.8, -0.7, -1.2, 0.9, 1.1, -1.3])
    corner = generate(model, "point-to-point", waypoints=np.stack([a, (a + b) / 2 + (
        b - a)[::-1] / 4, b]), derivatives=6, segment_duration=[0.5, 0.5], rate=50.0)
    found = reachability.solve(model, corner, joint_limits(model), 400)
    assert len(found) == 2
    kernel = reachability.kernel(1, 50.0)
    assert reachability.played(found, 7, corner.joint_names, 0.0, *kernel) is None
    assert reachability.played(found[:1], 8, corner.joint_names, 0.0, *kernel) is None
    motion = _whole(reachability.played(found, 6, corner.joint_names, 0.0, *kernel))
    d = motion.derivatives
    at = np.flatnonzero(np.abs(d[1:-1, 1]).max(axis=1) == 0) + 1  # the corner
    assert len(at) == 1
    assert np.all(np.abs(d[at[0], 1:]).max(axis=1) < 1e-15 * np.abs(d[:, 1:]).max(axis=(0, 2)))


def test_never_slower_than_the_uniform_scaling_whichever_solver():
    """The iiwa's Fourier path given with q .. q^(6) at 20 Hz (generate, 2 s): the windows'
    law on it ends as the uniform scaling resampled at 20 Hz, 1.6001 s against the
    uniform scaling's 1.59647 s at the input's samples (before: that was the result, also
    by default). Now the windows' result is never slower (the uniform scaling at the input's
    samples), and by default reachability takes it (well under)."""
    model = hodyn_cli.load_robot(IIWA)
    traj = generate(model, "fourier", duration=2.0, rate=20.0, derivatives=6)
    out, windows = hodyn_cli.retime_optimal(model, traj, solver="windows")
    assert windows.duration <= windows.uniform_duration * (1 + 1e-12)
    assert hodyn_cli.check_limits(model, out).feasible
    assert hodyn_cli.validate_motion(model, out, samples=20).passed
    out, auto = hodyn_cli.retime_optimal(model, traj)
    assert auto.used == "reachability" and auto.duration < 0.97 * auto.uniform_duration
    assert hodyn_cli.check_limits(model, out).feasible
    assert hodyn_cli.validate_motion(model, out, samples=20).passed


def test_the_windows_uniform_fallback_that_fails_validate_is_the_input_samples(monkeypatch):
    """review14: where the windows' programmes run out of their budget (then a loaded machine: HiGHS's
    time limits; now iterations, here none) the law falls back to the uniform scaling, resampled at the
    input's rate; an iiwa point-to-point path with q^(6) and rests inside (a repeated
    waypoint) at 20 Hz resampled so came out 0.19 % faster than the uniform scaling but its
    qdddddd 0.118 from the differences of qddddd (validate's tolerance 0.0428): that output
    failed hodyn validate. Now the uniform scaling at the input's own samples is taken."""
    from hodyn_cli.algorithms.limits import programme
    monkeypatch.setattr(programme, "SIMPLEX_ITERATIONS", 0)
    monkeypatch.setattr(programme, "IPM_ITERATIONS", 0)
    model = hodyn_cli.load_robot(IIWA)
    a = [-0.663, -0.4211, 0.482, 0.1315, -0.6494, -0.107, -0.0335]
    b = [-0.5444, 0.3753, -0.6181, -0.174, 0.0268, -0.111, 0.1389]
    c = [0.3805, 0.73, -0.3453, 0.2377, 0.3139, -0.3316, -0.7976]
    d = [0.7575, -0.3226, -0.2976, 0.6267, 0.1363, -0.0459, 0.4372]
    traj = generate(model, "point-to-point", waypoints=np.array([a, b, b, c, d, d, a]),
                    segment_duration=1.0, rate=20.0, derivatives=6)
    out, windows = hodyn_cli.retime_optimal(model, traj, solver="windows")
    assert windows.duration <= windows.uniform_duration * (1 + 1e-12)
    assert hodyn_cli.check_limits(model, out).feasible
    assert hodyn_cli.validate_motion(model, out).passed


def test_the_windows_rows_with_q7_columns_have_entries_below_a_million(monkeypatch):
    """The iiwa's cosine given with q .. q^(7) at 20 Hz (1 s) goes to the windows (degree 8):
    their smoothness rows ``x^(k) / (2 x1 nu^k)`` had entries up to 3.9e15 against bounds of
    1 (the k-th derivative of B-splines 25 ms of path apart, at a pace of 1.6 per unit: (h
    nu)^-8, and ~1000 times that at the path's clamped ends), beyond what HiGHS took
    (1e15) or scales away (2^20). Every row handed to HiGHS now has its entries within
    ``programme.ENTRY`` (2^20), the rows scaled by powers of two with their bounds; the law
    is within its limits, passes validate and is shorter than the uniform scaling."""
    from hodyn_cli.algorithms.limits import programme

    largest = []

    class Recorded(programme.LP):
        def add(self, A, lb, ub):
            largest.append(float(abs(A).max()) if A.nnz else 0.0)
            super().add(A, lb, ub)

    monkeypatch.setattr(programme, "LP", Recorded)
    model = hodyn_cli.load_robot(IIWA)
    traj = generate(model, "cosine", duration=1.0, rate=20.0, derivatives=7)
    out, opt = hodyn_cli.retime_optimal(model, traj, solver="windows")
    assert opt.used == "windows" and opt.duration < opt.uniform_duration
    assert largest and max(largest) <= programme.ENTRY
    assert hodyn_cli.check_limits(model, out).feasible
    assert hodyn_cli.validate_motion(model, out).passed
