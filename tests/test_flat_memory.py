"""issue 37 item 4 (memory bounded by a chunk, not by the file): what reachability holds
across a long path made where it is read or kept on disk, a block at a time, and the same
numbers as the whole arrays: the grid (:class:`~hodyn_cli.algorithms.limits.spaced.Spaced`,
numpy's ``linspace``), the shape points' places on the arc-length table
(:func:`reachability._placed`, numpy's ``interp``) and the passes' law x (on disk)."""
import numpy as np
import pytest
from test_reachability import _zigzag

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import local, reachability, stored
from hodyn_cli.algorithms.limits.spaced import Spaced
from hodyn_cli.modeling.limits import joint_limits


@pytest.mark.parametrize("start, stop, n", [(0.0, 1.0, 2), (0.0, 3.7, 3001), (-2.5, 1e3, 997),
                                            (1.0, 1.0, 5), (0.0, 5e-324, 3)])
def test_an_evenly_spaced_grid_is_numpy_s_linspace_to_the_bit(start, stop, n):
    """Its points whole, by slices (negative ends too), one by one, by index arrays, and
    where values fall (``searchsorted`` left and right: at its points, between them, beyond
    its ends, infinities and NaN) are those of ``np.linspace`` (and a step of 0 or a
    denormal one: numpy's other formula); numpy's functions and operators take it whole."""
    grid, whole = Spaced(start, stop, n), np.linspace(start, stop, n)
    assert len(grid) == n and np.array_equal(np.asarray(grid), whole)
    rng = np.random.default_rng(n)
    for a, b in ((0, n), (1, -1), (-3, None), (n // 3, 2 * n // 3), (5, 2)):
        assert np.array_equal(grid[a:b], whole[a:b])
    index = rng.integers(0, n, 50)
    assert np.array_equal(grid[index], whole[index])
    assert all(grid[i] == whole[i] for i in (0, n - 1, -1, n // 2))
    assert all(grid[np.array(i)] == whole[np.array(i)] for i in (0, n - 1, -1))  # (0-d)
    with pytest.raises(IndexError):
        grid[n]
    at = np.concatenate([whole, np.nextafter(whole, np.inf), np.nextafter(whole, -np.inf),
                         rng.uniform(start - 1, stop + 1, 200), [np.inf, -np.inf, np.nan]])
    for side in ("left", "right"):
        assert np.array_equal(grid.searchsorted(at, side), np.searchsorted(whole, at, side))
    assert np.array_equal(np.diff(grid), np.diff(whole))
    assert np.array_equal(grid - whole[1], whole - whole[1])


def test_the_shape_points_placed_a_block_at_a_time_are_numpy_s_interp(monkeypatch):
    """:func:`reachability._placed` (the table and the targets read in blocks of 20, the
    targets on disk): s at each target arc length is ``np.interp`` over the whole table to
    the bit, and the point before each the last at or before it (the last interval's first
    at the end), on a zigzag (rests inside), targets on the table's points (twice) and at
    its ends."""
    monkeypatch.setattr(reachability, "BLOCK", 20)
    monkeypatch.setattr(stored, "ON_DISK", 0)
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    _, traj = _zigzag(model, legs=3)
    table = reachability.lengths(traj)
    points = table.points[:]
    s, sigma = points[:, reachability.S], points[:, reachability.SIGMA]
    assert len(points) > 5 * 20
    rng = np.random.default_rng(11)
    target = np.sort(np.concatenate([rng.uniform(0, sigma[-1], 300), sigma[::7],
                                     sigma[::7], [0.0, sigma[-1], sigma[-1]]]))
    placed = reachability._placed(table, stored.Stored.of(target))
    assert placed.on_disk
    rows = placed[:]
    assert np.array_equal(rows[:, reachability.AT], np.interp(target, sigma, s))
    j = np.clip(np.searchsorted(sigma, target, side="right") - 1, 0, len(sigma) - 2)
    assert np.array_equal(rows[:, reachability.BEFORE_S], s[j])
    assert np.array_equal(rows[:, reachability.BEFORE_SIGMA], sigma[j])


def test_the_passes_law_on_disk_is_the_law_in_memory(monkeypatch):
    """:func:`reachability.along` keeps a long arc's x on disk (ON_DISK 0 here; in memory
    below it): the same x to the bit, read a block at a time (:attr:`Law.largest` its
    largest), held whole where the rounds take it (:meth:`Law.held`); its grid is the
    evenly spaced one (:class:`Spaced`)."""
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    _, traj = _zigzag(model, legs=2)
    limits = joint_limits(model)
    monkeypatch.setattr(reachability, "BLOCK", 300)  # (pieces of the passes, and the reads)
    found = reachability.solve(model, traj, limits, 1000)
    monkeypatch.setattr(stored, "ON_DISK", 0)
    kept = reachability.solve(model, traj, limits, 1000)
    assert found is not None and kept is not None and len(found) == len(kept) == 2
    for (arc, law), (_, mine) in zip(found, kept, strict=True):
        assert isinstance(arc.sigma, Spaced) and isinstance(law.x, np.ndarray)
        assert isinstance(mine.x, stored.Stored) and mine.x.on_disk
        assert np.array_equal(mine.x[:], law.x) and mine.largest == law.x.max()
        assert np.array_equal(mine.held().x, law.x) and mine.held().duration == law.duration


def test_the_local_slowing_s_fields_made_a_block_at_a_time_are_the_whole_ones(monkeypatch):
    """The local slowing (:mod:`~hodyn_cli.algorithms.limits.local`) on disk, a block of the
    grid at a time (blocks of 7 and 300, and one): the grid points' times, the factor
    fields and the played x at the grid times the field are the whole arrays' formulas to
    the bit (the played points' times picked by ``searchsorted`` over them all; the needs
    set by ``np.minimum.at``, then :func:`reachability.beneath`), on a path with a corner."""
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    _, traj = _zigzag(model, legs=2)
    found = reachability.solve(model, traj, joint_limits(model), 1000)
    assert found is not None
    motion = reachability.played(found, traj.orders, traj.joint_names, 0.0, 0.01)
    assert motion is not None and len(motion.laws) == 2
    times = []
    for arc, warped, start in motion.laws:  # (the whole arrays)
        n = len(warped.sigma)
        tau = np.concatenate([warped.along(warped.sigma[a:a + 50], warped.t[a:a + 50])[0]
                              for a in range(0, n, 50)])
        times.append(start + tau[np.searchsorted(warped.sigma[:], np.asarray(arc.sigma))])
    s = np.array([times[0][3] + 1e-4, times[0][400], times[1][-2] - 1e-4, times[1][-1] + 1])
    y = np.array([0.9, 0.97, 0.95, 0.5])
    seconds = 0.02
    whole = []
    for T in times:
        need = np.ones(len(T))
        inside = (s >= T[0]) & (s <= T[-1])
        i = np.clip(np.searchsorted(T, s[inside]), 1, len(T) - 1)
        np.minimum.at(need, i, y[inside] ** 2)
        np.minimum.at(need, i - 1, y[inside] ** 2)
        width = min(max(1, int(round(seconds * (len(T) - 1) / (T[-1] - T[0])
                                     / reachability.PASSES))), len(T) - 2)
        whole.append(np.minimum(reachability.beneath(need, width), 1.0))
    played = [local.lowered_at_grid(warped, arc.sigma, g)[:]
              for (arc, warped, _), g in zip(motion.laws, whole, strict=True)]
    for block in (7, 300, reachability.BLOCK):
        monkeypatch.setattr(reachability, "BLOCK", block)
        monkeypatch.setattr(local, "BLOCK", block)
        mine = local.grid_times(motion)
        assert all(np.array_equal(a[:], b) for a, b in zip(mine, times, strict=True))
        fields = local.fields(mine, s, y, seconds)
        assert fields is not None
        assert all(np.array_equal(a[:], b) for a, b in zip(fields, whole, strict=True))
        assert all(np.array_equal(local.lowered_at_grid(warped, arc.sigma, g)[:], x)
                   for (arc, warped, _), g, x in zip(motion.laws, fields, played, strict=True))
    assert min(f.min() for f in whole) < 0.9**2 + 1e-12
