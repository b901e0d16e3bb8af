"""Where reachability's path shape and the sequential programmes' correction put their
points (issue 37, shapeknots): the shape's points over the input's time as well as its arc
length, so the shape follows a sharp turn where the input nearly stops; the correction's
knots over the law's time as well as the grid, denser where the law is slow."""
import numpy as np

from hodyn_cli.algorithms.limits import reachability, sequential, stored
from hodyn_cli.core.trajectory import Trajectory


def _near_stop(eps: float, samples: int = 201) -> tuple[Trajectory, np.ndarray]:
    """``q(s) = (s^3 - eps s, s^2)`` on s in [-1, 1]: |q'| falls to eps at s = 0, where the
    path turns through a bend of radius eps^2 / 2 (its curvature 2 / eps^2 against ~0.5
    elsewhere); with the exact q_sigmasigma (the component of q'' across the path over
    |q'|^2) at the samples."""
    s = np.linspace(-1.0, 1.0, samples)
    zero = np.zeros_like(s)
    jet = np.stack([np.stack(column, axis=1) for column in (
        (s**3 - eps * s, s**2), (3 * s**2 - eps, 2 * s), (6 * s, 2 + zero), (6 + zero, zero))],
        axis=1)
    d1, d2 = jet[:, 1], jet[:, 2]
    speed = np.linalg.norm(d1, axis=1)
    unit = d1 / speed[:, None]
    across = d2 - unit * np.einsum("ij,ij->i", unit, d2)[:, None]
    return Trajectory(("a", "b"), jet, s), across / speed[:, None] ** 2


def test_the_shape_follows_a_sharp_turn_where_the_input_nearly_stops():
    """400 shape points uniform in arc length (0.007 apart, the bend's radius 0.00125)
    made the degree-7 spline ring about the turn: its q_sigmasigma 61 % of the largest
    off at the samples (eps 0.05; 17 % at eps 0.1). Spread over the input's time too, one an
    input sample, they crowd ~20 times closer about the turn, and the shape's
    q_sigmasigma is the path's to 1e-4 of its largest."""
    for eps, within in ((0.1, 1e-6), (0.05, 1e-4)):
        traj, exact = _near_stop(eps)
        table = reachability.lengths(traj)
        points = table.points[:]
        sigma = np.interp(traj.t, points[:, reachability.S], points[:, reachability.SIGMA])
        (arc,) = reachability.arcs(traj, 1000, table=table)
        shape = arc.jet(sigma, 3)[:, 2]
        largest = np.linalg.norm(exact, axis=1).max()
        assert np.linalg.norm(shape - exact, axis=1).max() < within * largest
        spacing = np.diff(arc.knots[reachability.DEGREE : -reachability.DEGREE])
        middle = spacing[np.argmin(np.abs(arc.knots[reachability.DEGREE : -reachability.DEGREE - 1]
                                          - sigma[len(sigma) // 2]))]
        assert middle < np.median(spacing) / 8


def test_the_shape_points_made_a_block_at_a_time_are_the_whole_tables(monkeypatch):
    """:func:`reachability._targets` reads the table a block at a time (20 points here,
    the targets on disk): the same pieces and points, to rounding, as in one block."""
    traj, _ = _near_stop(0.05)
    table = reachability.lengths(traj)
    length = float(table.points[-1][reachability.SIGMA])
    cuts = [0.0, 0.37 * length, length]
    spans, whole = reachability._targets(table, cuts, 400)
    monkeypatch.setattr(reachability, "BLOCK", 20)
    monkeypatch.setattr(stored, "ON_DISK", 0)
    blocked, target = reachability._targets(table, cuts, 400)
    assert target.on_disk and len(table.points[:]) > 10 * 20
    assert [count for *_, count in blocked] == [count for *_, count in spans]
    assert np.allclose(target[:], whole[:], rtol=0, atol=1e-12 * length)
    assert np.all(np.diff(target[:]) >= 0) and target[0] == 0.0
    ends = np.cumsum([count for *_, count in spans])
    assert np.allclose(target[:][ends[:-1] - 1], cuts[1], atol=1e-12 * length)  # (a cut ends
    assert np.allclose(target[:][ends[:-1]], cuts[1], atol=1e-12 * length)  # and starts them)


def test_the_corrections_knots_are_denser_where_the_law_is_slow():
    """A law at rest at its start that dips to 1 % of its x over ~40 grid intervals: a knot
    every ~KNOTS / 2 grid points where it keeps its pace, FINEST or closer in the dip (the
    uniform knots were 32 apart everywhere), and KNOTS apart next to the rest,
    where the frozen coefficients are."""
    M = 4001
    i = np.arange(M)
    x = 1 - 0.99 * np.exp(-(((i - 2000) / 20.0) ** 2))
    x *= np.minimum(i / 400.0, 1.0) ** 2  # (from rest)
    knots = sequential._knots(x)
    gaps = np.diff(knots)
    assert np.all((knots > 0) & (knots < M - 1)) and np.all(gaps > 0)
    dip = (knots[:-1] >= 1985) & (knots[1:] <= 2015)  # (x below 0.11 of its pace)
    assert dip.sum() >= 3 and gaps[dip].max() <= sequential.FINEST
    steady = (knots[:-1] > 3000) & (knots[1:] < 3900)
    assert steady.sum() > 40 and np.all(np.abs(gaps[steady] - sequential.KNOTS / 2) <= 1)
    near = knots[knots <= (sequential.FROZEN + 1) * sequential.KNOTS]
    assert np.all(np.diff(near) == sequential.KNOTS)
