"""The optimal retiming's shape follows the input's path at its hairpin turns (issue 37,
shape22): the generic quadruped's front left leg (FL_HFE, FL_KFE) along the first 2.5 s of a
9-harmonic Fourier path at 100 Hz (``stranger_sweep22.py``'s ``fourier5s``, seed 7), its hip
swinging -5.05 .. 8 rad with hairpin turns. The turning measure crowded the shape points up
to 29 times closer from one interval to the next there, and the degree-7 spline through them
rang 60 rad off the path between its knots (they are on it); its spacing graded, the shape
stays within 1e-3 rad of the path."""

from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import cKDTree

from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.algorithms.limits.programme import between
from hodyn_cli.algorithms.verification.stray import strayed
from hodyn_cli.core.trajectory import Trajectory

HAIRPINS = Path(__file__).parent / "data" / "quad_leg_hairpins.npz"


def hairpins() -> Trajectory:
    data = np.load(HAIRPINS)
    return Trajectory(("FL_HFE", "FL_KFE"), data["derivatives"], data["t"])


def off_the_path(path: Trajectory, arc: reachability.Arc) -> np.ndarray:
    """How far (rad) the shape lies from the input's path (its interpolant at 10^5 points)
    at 16 points within each interval between the shape's knots."""
    assert path.t is not None
    dense = between(path, np.linspace(path.t[0], path.t[-1], 100_001))[:, 0]
    knots = np.unique(arc.knots)
    sigma = knots[:-1, None] + np.diff(knots)[:, None] * np.linspace(0.0, 1.0, 16, endpoint=False)
    return cKDTree(dense).query(arc.jet(sigma.ravel(), 1)[:, 0])[0]


def test_the_shape_follows_the_path_at_hairpin_turns():
    path = hairpins()
    arc, = reachability.arcs(path, 3 * len(path.t))
    assert off_the_path(path, arc).max() < 1e-3  # (2.7e-4; ungraded, 0.35 rad)


def test_the_shape_points_spacing_changes_gradually():
    path = hairpins()
    arc, = reachability.arcs(path, 3 * len(path.t))
    # (the knots: the shape points less the not-a-knot ends' 3 each side)
    h = np.diff(np.unique(arc.knots))[4:-4]
    # (GRADE 0.2: the targets' spacing exp(0.2) = 1.2214 times its neighbour's at most; the
    # points 2.93 where the speed dips within a table interval, its s linear there; ungraded
    # 10.2)
    assert np.max(np.maximum(h[1:] / h[:-1], h[:-1] / h[1:])) < 4


def test_a_played_law_that_stops_at_a_hairpin_is_not_sampled(tmp_path):
    """The whole 5 s of that path at 100 Hz (501 samples): on the grid made denser where the
    smoothing left the rows (``Optimal._denser``), the passes' law stopped at a hairpin's apex
    (x = 0), its smoothed law played 4.8e146 s, and sampling it at the output's rate raised an
    OverflowError (exit 3). A played law over ``optimal.SLOWEST`` times the uniform scaling's
    is refused (its fit could not make it the shorter): the law found before is kept,
    0.0816839 s against the uniform scaling's 0.147675 s."""
    from test_base_parameters import public_robot

    import hodyn_cli
    from hodyn_cli.io import read_trajectory
    from hodyn_cli.pipeline.trajectories import generate_file

    robot = str(public_robot("quadruped_description/urdf/quadruped.urdf"))
    joints = hodyn_cli.load_robot(robot).joint_names
    model = hodyn_cli.load_robot(robot, lock={n: 0.0 for n in joints
                                              if n not in ("FL_HFE", "FL_KFE")})
    src = tmp_path / "fourier5s.h5"
    generate_file(model, "fourier", str(src), {"kind": "fourier", "urdf": robot}, check=False,
                  rate=100.0, duration=5.0, harmonics=9, base_frequency=0.25, seed=7)
    _, opt = hodyn_cli.retime_optimal(model, read_trajectory(str(src), model, need=5))
    assert opt.used == "reachability"
    assert opt.duration < 0.56 * opt.uniform_duration, (opt.duration, opt.uniform_duration)


@pytest.mark.parametrize("grade", [0.2, 0.5])
def test_the_retimings_check_of_its_shape_measures_what_validate_does(monkeypatch, grade):
    """``reachability.off_path`` (the shape at the middle of each interval between its points,
    the path's foot by Newton's method from the point at that arc length) against validate
    --path's search (the nearest path point, ``stray.strayed``, to 16 points an interval):
    GRADE 0.2, 2.7e-5 against 1.8e-5 (the hairpin's other leg is nearer than the point
    matched); 0.5, where the spline rings between its points, 0.0075 against 0.0080."""
    path = hairpins()
    seen = []
    measured = reachability.off_path
    monkeypatch.setattr(reachability, "off_path",
                        lambda *args: seen.append(measured(*args)) or seen[-1])
    monkeypatch.setattr(reachability, "GRADE", grade)
    monkeypatch.setattr(reachability, "ON_PATH", 0.0)  # (every foot by Newton's method)
    with pytest.raises(reachability.Inapplicable):
        reachability.arcs(path, 3 * len(path.t))
    monkeypatch.setattr(reachability, "ON_PATH", np.inf)
    arc, = reachability.arcs(path, 3 * len(path.t))
    knots = np.unique(arc.knots)
    sigma = knots[:-1, None] + np.diff(knots)[:, None] * np.linspace(0.0, 1.0, 16, endpoint=False)
    found = strayed(path, arc.jet(sigma.ravel(), 1)[:, 0])
    assert found.share.max() * 0.8 <= seen[0].share <= 2 * found.share.max(), (
        seen[0].share, found.share.max())
    assert seen[0].joint == found.joint[found.worst()] == 1


def test_a_shape_off_the_path_is_refused(monkeypatch):
    """The hairpins' shape points ungraded (GRADE 0, as before shape22): the shape rings 0.12
    rad off the knee's path, and reachability refuses it, naming the joint (auto then plays
    the windows' law; ``--solver reachability`` exits 2: test_stray22)."""
    path = hairpins()
    monkeypatch.setattr(reachability, "GRADE", 0.0)
    with pytest.raises(reachability.Inapplicable, match=r"strays 0\.1\d* from it in FL_KFE"):
        reachability.arcs(path, 3 * len(path.t))
