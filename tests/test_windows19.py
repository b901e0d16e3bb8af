"""The windows' path-speed cap is each stretch's between rests (``programme.stretches``): CAP
times the uniform scaling that stretch played alone from rest to rest has, not the whole
path's, which its fastest stretch sets; and a plan whose resamplings at the output's rate are
inconsistent is planned again as one that is inconsistent as planned
(``Optimal._resampled``'s ``resampled_lag``), not given up for the uniform scaling."""

import sys

import h5py
import numpy as np
import pytest

import hodyn_cli
from conftest import ROOT, URDF, hodyn_here
from hodyn_cli.algorithms.limits import programme
from hodyn_cli.algorithms.limits.feasibility import ScaleSearch
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.api.limits import time_optimal

sys.path.insert(0, str(ROOT / "benchmarks"))

#: the 2R arm from rest to rest twice: a 0.1 s leg, then a 2 s one (50 Hz, 106 samples)
WAYPOINTS = np.array([[-0.9, 0.6], [0.8, -0.5], [-0.3, 0.8]])


def _two_legs():
    model = hodyn_cli.load_robot(str(URDF / "planar_2r.urdf"))
    motion = generate(model, "point-to-point", waypoints=WAYPOINTS,
                      segment_duration=[0.1, 2.0], rate=50.0)
    return model, motion


def test_each_stretch_between_rests_is_capped_at_its_own_speed():
    """On the grid of the input's samples, a law of the 2R's two legs with v = 1 and 4:
    x stays within x0 (CAP v)^2 at every grid point and rises to it on the slow leg, 16 times
    the whole path's cap, x0 CAP^2, which held it before (1.998 s against 3.715 s)."""
    model, motion = _two_legs()
    s, slow = motion.t, programme.slowness(motion)
    joins = programme.rests_inside(slow)
    assert joins.tolist() == [5]  # (the waypoint between the legs; the ends are no joins)
    limits = programme.path_limits(model, motion, time_optimal(model, None).limits, 0)
    x0 = 0.01  # (within the limits: the fast leg's largest speed 30 rad/s, its limit 5)
    v = programme.stretches(s, slow, joins, np.array([1.0, 4.0]), 5)
    assert v.grid.tolist() == [1.0] * 6 + [4.0] * 100  # (the rest takes the faster leg's)
    law = programme.solve(s, limits, x0, 5, 50.0, programme.time_scale(motion), slow=slow,
                          stretched=v)
    x = law.spline(s) / x0
    assert (x <= (programme.CAP * v.grid) ** 2 * (1 + 1e-9)).all()
    assert x[6:].max() == pytest.approx((4 * programme.CAP) ** 2)
    whole = programme.solve(s, limits, x0, 5, 50.0, programme.time_scale(motion), slow=slow)
    assert whole.spline(s).max() / x0 == pytest.approx(programme.CAP**2)
    assert law.duration < 0.6 * whole.duration


def test_a_stretchs_speed_is_its_own_uniform_scaling():
    """``Optimal._stretched``: v of each leg is the uniform speed-up of that leg alone (its
    samples, the rest between them in both) over the whole path's; 1 on the fastest."""
    model, motion = _two_legs()
    solver = time_optimal(model, None)

    def speedup(rows: slice) -> float:
        part = hodyn_cli.core.trajectory.Trajectory(motion.joint_names,
                                                    motion.derivatives[rows], motion.t[rows])
        search = ScaleSearch(model, solver.limits)
        search.add(solver._laws(part), part)
        return search.best[0].x

    whole, first, second = speedup(slice(None)), speedup(slice(0, 6)), speedup(slice(5, None))
    assert first == whole
    search = ScaleSearch(model, solver.limits)
    search.add(solver._laws(motion), motion)
    v = solver._stretched(motion, solver.limits, programme.slowness(motion), search.best[0], 5)
    assert v is not None
    assert v.grid[:6] == pytest.approx(1.0) and v.grid[6:] == pytest.approx(second / whole)
    assert second / whole > 4  # (the slow leg: several times the fast one's speed)


def _baxter_zig(tmp_path):
    """benchmarks/stranger_sweep18.py's Baxter right arm on its ``zig`` (416 samples, legs
    of 0.15 to 2 s at rest between them) and its files."""
    from test_base_parameters import public_robot

    public_robot("")  # (skips without example-robot-data)
    import stranger_sweep18 as sweep

    robot, model, flags = sweep.robot_of("baxter-r")
    src, _ = sweep.design(tmp_path, robot, model, "zig", 100.0, sweep.SHIFT.get("baxter-r"))
    return robot, flags, src, sweep.files(tmp_path, robot, model)


def _retimed(tmp_path, robot, flags, src, *options) -> float:
    """retime --optimal's duration, its output passing check (the same limits) and
    validate."""
    out = tmp_path / "out.h5"
    done = hodyn_here("retime", robot, src, "--optimal", "-q", *flags, *options, "-o", out)
    assert done.returncode == 0, done.stderr
    limits = [a for a in options if a not in ("--solver", "windows")]
    for command in (("check", robot, out, "-q", *flags, *limits),
                    ("validate", robot, out, "-q", *flags)):
        done = hodyn_here(*command)
        assert done.returncode == 0, done.stderr
    with h5py.File(out) as f:
        return float(f.attrs["duration"])


@pytest.mark.slow
def test_baxters_zigzag_windows_run_each_leg_at_its_own_cap(tmp_path):
    """The stranger's Baxter zigzag by the windows (as with rigid --drives, where reachability
    does not apply): 5.2274 s at the whole path's cap, 3.6958 s now (reachability's law:
    2.4989 s); ~3 s of CPU against ~1 s (more programmes, each law off its cap)."""
    robot, flags, src, _ = _baxter_zig(tmp_path)
    assert _retimed(tmp_path, robot, flags, src, "--solver", "windows") < 3.75


@pytest.mark.slow
def test_baxters_zigzag_with_torque_accelerations_is_planned_again_not_given_up(tmp_path):
    """With torque rates and accelerations (auto takes the windows: reachability's law fails
    validate): 5.6420 s before; the local cap's first law is consistent as planned but not at
    any resampling within its limits (4.9 times validate's tolerance), which gave way to the
    uniform scaling, 24.8156 s; planned again at a lower cap and a calmer pace, 4.8519 s from
    the uniform scaling each time (~20 s of CPU), 4.5944 s from the last law played slower
    (tests/test_windows19b.py; ~15 s, the pace halved once, not twice)."""
    robot, flags, src, made = _baxter_zig(tmp_path)
    assert _retimed(tmp_path, robot, flags, src, "--limits", made["taccs"]) < 4.7


@pytest.mark.slow
def test_a_grid_of_several_windows_keeps_the_whole_paths_cap():
    """The 2R's legs of 0.1 and 2.03 s at 10 kHz (21 301 samples: a grid of several windows,
    ``programme.WINDOW``): the windows' law 1.7120 s, as before the stretches had caps of their
    own; with them, each window's programmes starting from the law before, the slow leg raced
    in its first and last windows and crawled in the middle ones: 4.1265 s (review43)."""
    model = hodyn_cli.load_robot(str(URDF / "planar_2r.urdf"))
    motion = generate(model, "point-to-point", waypoints=WAYPOINTS,
                      segment_duration=[0.1, 2.03], rate=10_000.0)
    _, opt = hodyn_cli.retime_optimal(model, motion, solver="windows")
    assert opt.path.grid > programme.WINDOW
    assert opt.duration < 1.8, opt.duration
