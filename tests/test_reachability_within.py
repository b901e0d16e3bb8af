"""Reachability's law kept within the passes' own rows where its smoothing is not
(:func:`hodyn_cli.algorithms.limits.reachability.within`): the Go2 leg's cosine passes a
zero-inertia point of its hip, where the smoothed law is far beyond the hip's and the
thigh's torque rows; the passes run again under a ceiling make a law whose smoothing keeps
them."""

import numpy as np
import pytest
from test_optimal_fresh_robots import _arm

from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.modeling.limits import joint_limits

GO2_LEG = ("go2_description/urdf/go2.urdf", ["FL_hip_joint", "FL_thigh_joint",
                                             "FL_calf_joint"])


@pytest.fixture(scope="module")
def go2_arc():
    """The Go2 leg's cosine (100 Hz, 10 s) in its arc length on 4000 intervals: its arc, the
    passes' law (interpolated, as ``retime --optimal`` makes it with these limits) and the
    passes' rows (one piece: the path has no rest)."""
    model = _arm(*GO2_LEG)
    traj = generate(model, "cosine", duration=10.0, rate=100.0, derivatives=4)
    limits = joint_limits(model)
    ((arc, law),) = reachability.solve(model, traj, limits, 4000, interpolate=True)
    rows = reachability.ArcRows(len(arc.sigma), lambda a, b: reachability.arc_rows(
        model, arc, model.joint_names, a, b, limits))
    return arc, law, rows


def test_the_law_kept_within_its_rows_is_smoothed_within_them(go2_arc):
    """Smoothed over 5 ms (a 100 Hz output's kernel), the passes' law is >= 10 % beyond a
    torque row at the hip's zero-inertia point; the law :func:`within` returns plays (its
    ``played``: the smoothing of the law under the ceiling) within every row at every grid
    point to :data:`~reachability.FITS`, is nowhere faster than the passes' law, and takes
    less than 1 % longer."""
    arc, law, rows = go2_arc
    reach = 0.005
    plain = reachability._smoothed(law.x, reachability._widths(law, reach))
    assert reachability._needs(arc.sigma, plain, rows)[1] < 0.9  # (the dip: beyond)
    kept = reachability.within(arc, law, rows, reach, interpolate=True)
    assert kept.played is not None
    assert reachability._needs(arc.sigma, kept.played, rows)[1] >= 1 - reachability.FITS
    assert np.all(kept.x[:] <= law.x[:] * (1 + 1e-12))
    assert law.duration < kept.duration < 1.01 * law.duration


def test_the_kept_rows_are_the_rows(go2_arc, monkeypatch):
    """:class:`~reachability.ArcRows` gives each of the passes' pieces the rows its function
    makes, to the bit (read back from where they were kept: a piece's at its place after the
    pieces before it, each of which repeats its last point), and any other span afresh; on
    a grid of one piece and of several (``BLOCK`` at 1000: 4 pieces of the 4000 intervals)."""
    arc, _, one = go2_arc
    M = len(arc.sigma)
    monkeypatch.setattr(reachability, "BLOCK", 1000)
    several = reachability.ArcRows(M, one.rows_at)
    assert len(one.pieces) == 1 and len(several.pieces) == 4
    for rows in (one, several):
        for a, b in [(a, b + 1) for a, b in rows.pieces] + [(10, 50), (990, 1010)]:
            kept, made = rows(a, b), rows.rows_at(a, b)
            for name in ("alpha", "beta", "gamma", "top"):
                assert np.array_equal(getattr(kept, name), getattr(made, name)), (a, b, name)
