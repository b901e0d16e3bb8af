"""Where reachability's path shape and the sequential programmes' correction put their
points (issue 37, shapeknots2): with limits of higher orders the shape's points crowd where
the path turns sharply (a point every ``ANGLE`` of its turning), so the shape follows a
sharp turn where the input nearly stops, and stay uniform in arc length on a piece that
does not turn (a point-to-point leg, about a rest); the correction's knots over the law's
time as well as the grid, denser where the law is slow."""
from types import SimpleNamespace

import numpy as np
import pytest

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


def _shape_error(traj: Trajectory, exact: np.ndarray) -> tuple[float, float]:
    """The shape's worst error of q_sigmasigma at the samples over its largest, and its
    knots' spacing at the middle sample over their median spacing."""
    table = reachability.lengths(traj)
    points = table.points[:]
    sigma = np.interp(traj.t, points[:, reachability.S], points[:, reachability.SIGMA])
    (arc,) = reachability.arcs(traj, 1000, table=table)
    error = np.linalg.norm(arc.jet(sigma, 3)[:, 2] - exact, axis=1).max()
    inner = arc.knots[reachability.DEGREE : -reachability.DEGREE]
    middle = np.diff(inner)[np.argmin(np.abs(inner[:-1] - sigma[len(sigma) // 2]))]
    return error / np.linalg.norm(exact, axis=1).max(), middle / np.median(np.diff(inner))


def test_the_shape_follows_a_sharp_turn_where_the_input_nearly_stops(monkeypatch):
    """400 shape points uniform in arc length (0.007 apart, the bend's radius 0.00125 at
    eps 0.05) make the degree-7 spline ring about the turn: its q_sigmasigma 17 % / 61 % of
    the largest off at the samples (eps 0.1 / 0.05; the uniform placement: DENSEST 1, the
    turning adding no point). A point every ANGLE of the path's turning where it turns faster crowds them
    ~DENSEST times closer about the turn (~25 points more), and the shape's q_sigmasigma is
    the path's to 2e-6 / 1.3e-5 of its largest."""
    for eps, within in ((0.1, 1e-5), (0.05, 1e-4)):
        traj, exact = _near_stop(eps)
        error, middle = _shape_error(traj, exact)
        assert error < within and middle < 1 / 8
    monkeypatch.setattr(reachability, "DENSEST", 1)  # (the turning adds no point: uniform)
    for eps in (0.1, 0.05):
        traj, exact = _near_stop(eps)
        error, middle = _shape_error(traj, exact)
        assert error > 0.1 and middle == pytest.approx(1, rel=1e-2)


def test_a_piece_that_does_not_turn_keeps_its_uniform_shape_points(monkeypatch):
    """Legs along lines from rest to rest through two corners (the path cut there): no
    point is added, the same shape points to the bit as the uniform placement's (DENSEST 1). The time's
    points (shapeknots, reverted) crowded 64 times about each rest, where the shape's top
    derivatives are rounding's (~1e-16 / h^4): the UR5's corners with --jerk 500 at 1 kHz
    then failed validate at every smoothing, the planar 2R's zigzag was slower than the
    uniform scaling."""
    corners = np.array([[0.0, 0.0], [1.0, 0.5], [0.2, 1.2], [0.9, 1.6]])
    p = np.linspace(0.0, 1.0, 101)
    ramp = np.stack([10 * p**3 - 15 * p**4 + 6 * p**5, 30 * p**2 - 60 * p**3 + 30 * p**4,
                     60 * p - 180 * p**2 + 120 * p**3, 60 - 360 * p + 360 * p**2], axis=1)
    legs = []
    for i, (a, b) in enumerate(zip(corners[:-1], corners[1:], strict=True)):
        leg = ramp[:, :, None] * (b - a)  # (samples, q and its first three, joints)
        leg[:, 0] += a
        legs.append(leg[1 if i else 0 :])  # (a corner's sample once)
    jet = np.concatenate(legs)
    traj = Trajectory(("a", "b"), jet, np.linspace(0.0, 3.0, len(jet)))
    table = reachability.lengths(traj)
    cuts = [0.0, *reachability._corners(table, reachability.source(traj)),
            float(table.points[-1][reachability.SIGMA])]
    assert len(cuts) == 4
    spans, turning = reachability._targets(table, cuts, 400)
    monkeypatch.setattr(reachability, "DENSEST", 1)  # (the turning adds no point: uniform)
    uniform, target = reachability._targets(table, cuts, 400)
    assert spans == uniform and np.array_equal(turning[:], target[:])


def test_the_shape_points_made_a_block_at_a_time_are_the_whole_tables(monkeypatch):
    """:func:`reachability._targets` reads the table a block at a time (20 points here,
    the targets on disk): the same pieces and points, to rounding, as in one block."""
    traj, _ = _near_stop(0.05)
    table = reachability.lengths(traj)
    length = float(table.points[-1][reachability.SIGMA])
    cuts = [0.0, 0.37 * length, 0.6 * length, length]  # (the turn at 0.5: the middle
    # piece's points over its turning, the others' uniform)
    spans, whole = reachability._targets(table, cuts, 400)
    monkeypatch.setattr(reachability, "BLOCK", 20)
    monkeypatch.setattr(stored, "ON_DISK", 0)
    blocked, target = reachability._targets(table, cuts, 400)
    assert target.on_disk and len(table.points[:]) > 10 * 20
    assert [count for *_, count in blocked] == [count for *_, count in spans]
    assert [count - 1 for *_, count in spans][::2] == [148, 160]  # (400 x 0.37, x 0.4)
    assert spans[1][2] - 1 > 400 * 0.23 + 20  # (the turn: ~25 more)
    assert np.allclose(target[:], whole[:], rtol=0, atol=1e-12 * length)
    assert np.all(np.diff(target[:]) >= 0) and target[0] == 0.0
    ends = np.cumsum([count for *_, count in spans])
    assert np.allclose(target[:][ends[:-1] - 1], cuts[1:-1], atol=1e-12 * length)  # (a cut
    assert np.allclose(target[:][ends[:-1]], cuts[1:-1], atol=1e-12 * length)  # ends and
    # starts them)


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


def _uniform(M: int) -> np.ndarray:
    """The knots before the law's time took a share (main 40f5c23): every KNOTS grid
    points, the last at least KNOTS / 2 from the end."""
    inner = np.arange(sequential.KNOTS, M - 1, sequential.KNOTS)
    return inner[inner < M - 1 - sequential.KNOTS / 2]


def test_a_short_piece_from_rest_to_rest_takes_the_uniform_knots():
    """Within (FROZEN + 1) KNOTS grid points of a rest the time's knots are left out; on a
    piece of at most twice that from rest to rest that left no time at all, and the measure
    was NaN (0 times an infinite share): ``np.arange`` raised, exit 3 (the xArm7's stop with
    --jerk 20 --arc-grid 200). It takes the uniform knots now, as on any M."""
    for M in (40, 200, 257):
        i = np.arange(M)
        x = np.sin(np.pi * i / (M - 1)) ** 2  # (at rest at both ends)
        assert np.array_equal(sequential._knots(x), _uniform(M))
    x = np.zeros(300)  # (at rest throughout)
    assert np.array_equal(sequential._knots(x), _uniform(300))


def test_a_limit_of_the_laws_third_derivative_keeps_the_uniform_knots(monkeypatch):
    """A limit whose monomials read s'''' (x''': torque accelerations) makes refined ask
    for the grid's knots alone (the iiwa's 1 kHz Fourier path: with the time's, its first
    smoothing failed validate); jerk's (s''' at most) the time's too. And not timed, a law
    with a deep dip takes the uniform knots."""
    asked = []

    def basis(sigma, x, timed=True):
        asked.append(timed)
        raise RuntimeError("asked")

    monkeypatch.setattr(sequential, "_basis", basis)
    sigma = np.linspace(0.0, 1.0, 401)
    x = np.ones_like(sigma)
    for monomials in (((1, 1, 3), (2, 2)), ((1, 1, 4), (2, 3), (1, 1))):
        limit = SimpleNamespace(monomials=monomials)
        with pytest.raises(RuntimeError, match="asked"):
            sequential.refined(sigma, x, lambda a, b, limit=limit: [limit], [(0, 401)], 1e-4)
    assert asked == [True, False]
    i = np.arange(4001)
    x = 1 - 0.99 * np.exp(-(((i - 2000) / 20.0) ** 2))
    assert np.array_equal(sequential._knots(x, timed=False), _uniform(4001))
    assert not np.array_equal(sequential._knots(x), _uniform(4001))


def test_a_path_turning_sharply_everywhere_takes_as_many_shape_points_again_at_most():
    """Twenty turns of a circle of radius 0.01 (0.31 rad of turning between two of the 400
    points uniform in arc length, everywhere): a point every ANGLE of turning would be ~3.1
    times as many; the turning's share is scaled to ``shape_points`` more in all, so the
    shape's knots stay within two numbers an input sample (MOST_SAMPLES)."""
    s = np.linspace(0.0, 1.0, 2001)
    w, radius = 2 * np.pi * 20, 0.01
    c, d = np.cos(w * s), np.sin(w * s)
    jet = radius * np.stack([np.stack(pair, axis=1) for pair in (
        (c, d), (-w * d, w * c), (-(w**2) * c, -(w**2) * d), (w**3 * d, -(w**3) * c))], axis=1)
    table = reachability.lengths(Trajectory(("a", "b"), jet, s))
    length = float(table.points[-1][reachability.SIGMA])
    *_, (_, _, extra, _) = reachability._measure(table, 400)
    assert extra[-1] > 2 * 400  # (3.1 times in all)
    [(_, _, count)], target = reachability._targets(table, [0.0, length], 400)
    assert count == 801 and len(target) == 801
    gaps = np.diff(target[:])
    assert target[0] == 0.0 and target[-1] == length and np.all(gaps > 0)
    assert gaps.max() < 1.01 * gaps.min()  # (evenly: it turns evenly)


def test_the_turning_shape_of_a_path_read_chunk_by_chunk_is_the_whole_paths(monkeypatch):
    """The table's turned angles are carried across the chunks (the direction at a chunk's
    last point kept for the next one's first): the near-stop read in chunks of one sample,
    empty ones and uneven ones, with its table, targets and shape on disk, gives the same
    shape to the bit as the path whole."""
    traj, _ = _near_stop(0.05)
    whole = reachability.arcs(traj, 1000)
    n = traj.n_samples
    cuts = [0, 1, 1, 2, 37, 38, n // 2, n // 2 + 1, n - 1, n, n]

    def chunks():
        return [traj.rows(slice(a, b)) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]

    monkeypatch.setattr(reachability, "BLOCK", 70)
    monkeypatch.setattr(stored, "ON_DISK", 0)
    (mine,) = reachability.arcs(chunks, 1000)
    (theirs,) = whole
    assert len(theirs.knots) > 400 + 2 * reachability.DEGREE + 20  # (it turns: ~25 more)
    assert np.array_equal(mine.knots[:], theirs.knots[:])
    assert np.array_equal(mine.shape.c, theirs.shape.c)
