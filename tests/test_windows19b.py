"""The windows plan again from their last law, not from the uniform scaling (``Optimal._windows``):
at a lower cap that law played ``peak / cap`` times slower, at half the pace twice slower; each
within the limits, the cap and the smoothness rows of the plan again, whose solve then has a
few steps to take, not the climb from x0 to x's hundreds of times x0 on the slow legs of a path
with rests inside (``programme.stretches``)."""

import h5py
import numpy as np
import pytest

from conftest import URDF, hodyn_here
from hodyn_cli.algorithms.limits import optimal


@pytest.mark.slow
def test_a_lower_caps_plan_starts_from_the_last_law_played_slower(tmp_path, monkeypatch):
    """The 2R from rest to rest twice, a 0.1 s leg then a 2 s one (tests/test_windows19.py's)
    by the windows: the first law (1.252 s as planned) is inconsistent once played, planned
    again at a lower cap. From the uniform scaling that plan took 120 programmes' solves of
    28584 simplex iterations, ~8 s of CPU, to 1.28341 s; from the first law played slower, 24
    of 10920, ~2.3 s, to 1.25668 s (check and validate pass it)."""
    robot = URDF / "planar_2r.urdf"
    points, src, out = tmp_path / "two.csv", tmp_path / "two.h5", tmp_path / "out.h5"
    points.write_text("joint1,joint2\n-0.9,0.6\n0.8,-0.5\n-0.3,0.8\n")
    done = hodyn_here("generate", robot, "--kind", "point-to-point", "--waypoints", points,
                      "--segment-duration", "0.1,2.0", "--rate", "50", "-o", src, "-q",
                      "--allow-limit-violation")
    assert done.returncode == 0, done.stderr
    starts = []
    solve_windows = optimal.solve_windows

    def recorded(s, limited, x0, degree, rate, scale, ceiling, pace, progress, cap, slow, start,
                 *rest):
        # (the caps at the grid points: cap times each stretch's v, the lowered ones' scaled)
        caps = cap * (1.0 if rest[2] is None else rest[2].grid)
        starts.append((caps, pace, None if start is None else start.coefficients / x0))
        return solve_windows(s, limited, x0, degree, rate, scale, ceiling, pace, progress, cap,
                             slow, start, *rest)

    monkeypatch.setattr(optimal, "solve_windows", recorded)
    done = hodyn_here("retime", robot, src, "--optimal", "-q", "--solver", "windows", "-o", out)
    assert done.returncode == 0, done.stderr
    assert len(starts) == 2 and starts[0][2] is None
    (cap, _, _), (lower, _, start) = starts
    # (the slow leg's, where the first law is inconsistent: windows20; the fast leg's kept)
    assert np.any(lower < cap) and np.all(lower <= cap) and start is not None
    assert start.max() > 100  # (the slow leg's x, played slower: far above the uniform x0)
    for command in (("check", robot, out, "-q"), ("validate", robot, out, "-q")):
        assert hodyn_here(*command).returncode == 0
    with h5py.File(out) as f:
        assert f.attrs["duration"] < 1.27  # (1.28341 s from the uniform scaling)
