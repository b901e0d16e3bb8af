"""Reachability's grid denser where the path turns, kept on disk on a long path
(:class:`StoredGrid`; issue 37 item 4: memory bounded by a chunk, not by the file): read as
the array in memory is, to the bit."""

import numpy as np
import pytest
from test_base_parameters import public_robot
from test_borinot19 import _bump

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import reachability, stored, stored_grid
from hodyn_cli.algorithms.limits.stored_grid import StoredGrid
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory


def test_a_grid_on_disk_reads_as_the_array_in_memory(monkeypatch):
    """Points, slices (negative ends, steps), index arrays in any order and shape, boolean
    masks, numpy's operators, the longest step, and searchsorted on both sides (points of the
    grid itself, between them, beyond both ends, NaN, a scalar), in blocks of 7 (TAKEN) read
    5 rows at a time (Stored.take): numpy's own answers on the whole array."""
    monkeypatch.setattr(stored_grid, "TAKEN", 7)
    monkeypatch.setattr(stored, "TAKEN", 5)
    rng = np.random.default_rng(3)
    x = np.cumsum(rng.uniform(0.0, 1.0, 100))
    x[40:43] = x[40]  # (equal points: searchsorted's sides differ there)
    g = StoredGrid(stored.Stored.of(x, disk=True))
    assert g.stored.on_disk and len(g) == 100 and g.shape == (100,)
    assert g[5] == x[5] and g[-1] == x[-1] and np.array_equal(g[-30:-2], x[-30:-2])
    assert np.array_equal(g[3:90:4], x[3:90:4]) and np.array_equal(g[::-3], x[::-3])
    index = np.array([[99, 0, 41], [41, -1, 7]])
    assert np.array_equal(g[index], x[index]) and np.array_equal(g[x > 50], x[x > 50])
    assert np.array_equal(g - g[0], x - x[0]) and np.array_equal(np.diff(g), np.diff(x))
    assert g.longest == np.diff(x).max()
    v = np.concatenate([x, (x[1:] + x[:-1]) / 2, [-1.0, x[-1] + 1, np.nan]])
    for side in ("left", "right"):
        assert np.array_equal(g.searchsorted(v, side=side), np.searchsorted(x, v, side=side))
    assert g.searchsorted(x[41]) == 40 and g.searchsorted(x[41], side="right") == 43
    assert g.searchsorted(np.array([])).shape == (0,)
    assert np.array_equal(g.searchsorted(v[:201].reshape(-1, 3)), np.searchsorted(x, v[:201]).reshape(-1, 3))
    with pytest.raises(IndexError):
        g[100]


def test_a_long_paths_turning_grid_is_on_disk_and_the_same_numbers(monkeypatch):
    """A bump that turns sharply (test_borinot19): its grid, made a block at a time (BLOCK
    300) and on disk (ON_DISK 0, as a long path's), is the grid made in memory to the bit,
    and so is its longest step, which the smoothing's widths read."""
    [arc] = reachability.arcs(_bump(0.01), 4000, turning=True)
    monkeypatch.setattr(reachability, "BLOCK", 300)
    monkeypatch.setattr(stored, "ON_DISK", 0)
    [kept] = reachability.arcs(_bump(0.01), 4000, turning=True)
    assert isinstance(arc.sigma, np.ndarray) and isinstance(kept.sigma, StoredGrid)
    assert np.array_equal(np.asarray(kept.sigma), arc.sigma)
    assert reachability._step(kept.sigma) == reachability._step(arc.sigma)


def _retimed_with_grids_on_disk(monkeypatch, model, traj):
    """``retime_optimal`` in memory, then with every array on disk (ON_DISK 0) read in
    blocks of 2048 points, and the played motion in chunks of 2048 points (PLAYED): both
    outputs and the lengths of the grids read from disk."""
    out, opt = hodyn_cli.retime_optimal(model, traj)
    made = []

    class Counted(StoredGrid):
        def __init__(self, points):
            made.append(len(points))
            super().__init__(points)

    monkeypatch.setattr(stored, "ON_DISK", 0)
    monkeypatch.setattr(reachability, "BLOCK", 2048)  # (the grids in blocks: on disk)
    monkeypatch.setattr(reachability, "PLAYED", 2048)  # (and the played motion's chunks)
    monkeypatch.setattr(reachability, "StoredGrid", Counted)
    kept, again = hodyn_cli.retime_optimal(model, traj)
    return (out, opt), (kept, again), made


def test_a_law_on_a_turning_grid_on_disk_is_the_law_in_memory(monkeypatch):
    """The planar 2R arm along the bump (half its speed): its grid, denser about the bump,
    read from disk by the passes, the smoothing and the played law (slices, index arrays,
    searchsorted) gives the output made in memory, to the bit."""
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    bump = _bump(0.01)
    traj = Trajectory(model.joint_names, bump.derivatives * 0.5, bump.t)
    (out, opt), (kept, again), made = _retimed_with_grids_on_disk(monkeypatch, model, traj)
    assert made and again.duration == opt.duration
    assert np.array_equal(kept.derivatives, out.derivatives) and np.array_equal(kept.t, out.t)


@pytest.mark.slow
def test_the_borinots_law_on_a_grid_on_disk_is_the_law_in_memory(monkeypatch):
    """The Borinot's flying arm along its 9-harmonic Fourier path at 20 Hz (36 sharp turns:
    test_borinot19), retimed with its turning grid (36 084 points) on disk, read in blocks of
    2048 points and played in chunks of 2048: the same output to the bit. Since shape22 it was
    1.2e-8 shorter so: the played motion's chunks cut the local slowing's ranges, where
    ``local.tops`` judged a range's first and last samples by one neighbour and the finer
    samplings about a peak were clipped to its chunk (now ``local.Tops``, across them)."""
    robot = public_robot("borinot_description/urdf/borinot_flying_arm_2.urdf")
    model = hodyn_cli.load_robot(robot)
    traj = generate(model, "fourier", rate=20.0, duration=20.0, harmonics=9,
                    base_frequency=0.25, seed=7, source=str(robot))
    (out, opt), (kept, again), made = _retimed_with_grids_on_disk(monkeypatch, model, traj)
    assert made and again.duration == opt.duration
    assert np.array_equal(kept.derivatives, out.derivatives) and np.array_equal(kept.t, out.t)
