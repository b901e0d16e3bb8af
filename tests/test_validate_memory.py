"""``validate``'s memory is bounded by a block of checked samples, not by how many are
checked: the torques along the local Taylor motions, the closed form's matrices and the
model checks are made ``BLOCK / nv^2`` samples at a time, with the very numbers of one
block."""

import tracemalloc

import numpy as np
import pytest

from conftest import SAMPLES, URDF, floating_motion, legged_urdf
from hodyn_cli.algorithms.verification import validate as checker
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.urdf import load_model, parse_model


def _same(a, b, where="series") -> None:
    """The report's series equal to the bit (nested dicts and lists of arrays)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, np.ndarray):
        assert np.array_equal(a, b), where
    else:
        assert a == b, where


def _blocked_and_whole(monkeypatch, model, motion, samples: int, rows: int):
    nv = (model.free_rooted if motion.base is not None else model).nv
    monkeypatch.setattr(checker, "BLOCK", rows * nv**2)
    blocked = checker.validate(model, motion, samples=samples)
    monkeypatch.setattr(checker, "BLOCK", 1 << 30)
    return blocked, checker.validate(model, motion, samples=samples)


def test_blocks_give_the_numbers_of_one_block(monkeypatch):
    """61 checked samples in blocks of 8 (the last of 5): every check and every plotted series
    as in one block, the positive-definite check's worst sample found across blocks."""
    model = load_model(URDF / "iiwa14.urdf")
    motion = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    blocked, whole = _blocked_and_whole(monkeypatch, model, motion, 61, 8)
    assert len(blocked.checked_samples) == 61 and blocked.passed
    assert blocked.to_dict() == whole.to_dict()
    _same(blocked.series, whole.series)
    pd, = [c for c in blocked.checks if c.name == "M positive definite"]
    assert pd.worst_sample not in blocked.checked_samples[:8]   # not the first block's


def test_blocks_of_a_floating_base_give_the_numbers_of_one_block(monkeypatch):
    """The base wrench's columns and the root's motion (the free joint's local pose) too."""
    text = legged_urdf("solo", seed=1)
    model = parse_model(text.encode())
    motion, _, _, _ = floating_motion(text, model, np.linspace(0, 1, 101), 3, seed=3)
    blocked, whole = _blocked_and_whole(monkeypatch, model, motion, 11, 4)
    assert blocked.to_dict() == whole.to_dict()
    _same(blocked.series, whole.series)


def test_memory_is_bounded_by_a_block_not_the_samples_checked(monkeypatch):
    """400 samples, all checked: ~63 kB a checked sample at once (the closed form's matrices
    along 17 local samples each) took 25 MB; in blocks of 48, 3 kB a sample stays (the
    results and the series plotted) and a block's working set."""
    model = load_model(URDF / "iiwa14.urdf")
    motion = cosine(model.joint_names, np.linspace(0, 4, 400), amplitude=0.5, omega=1.3,
                    orders=5)
    monkeypatch.setattr(checker, "BLOCK", 48 * 7**2)
    tracemalloc.start()
    try:
        report = checker.validate(model, motion, samples=400)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.passed and len(report.checked_samples) == 400
    assert peak < 12e6, f"{peak / 1e6:.1f} MB"


@pytest.mark.parametrize("n", [0, 1, 5, 6, 11])
def test_blocked_joins_each_rows_own_result(n):
    seen = []

    def f(rows: slice) -> np.ndarray:
        seen.append(rows)
        return np.arange(n)[rows][None] * 2.0

    out = checker.blocked(f, n, 5, axis=1)
    assert out.shape == (1, n) and np.array_equal(out[0], 2.0 * np.arange(n))
    assert len(seen) == max(1, -(-n // 5))


def test_the_simulation_plot_keeps_a_bounded_number_of_points(monkeypatch):
    """37 windows, 4 points plotted: at most 8 kept, each the largest error per joint of
    consecutive windows (``width`` of them) from its first window's start."""
    from hodyn_cli.algorithms.verification import simulation

    monkeypatch.setattr(simulation, "PLOTTED", 4)
    model = load_model(URDF / "planar_2r.urdf")
    windows = simulation.Windows(model)
    errors = np.random.default_rng(0).random((37, 2, 3, model.n))  # q/qd, 3 instants each
    for i, e in enumerate(errors):
        windows._record(0.2 * i, e, np.zeros_like(e), np.zeros_like(e), None, np.arange(3),
                        np.arange(3.0))
    w = windows.width
    assert w == 8 and windows.windows == 37
    assert np.allclose(windows.starts, 0.2 * np.arange(0, 37, w))
    for k, key in enumerate(("q", "qd")):
        expected = [errors[a:a + w, k].max(axis=(0, 1)) for a in range(0, 37, w)]
        assert np.array_equal(np.stack(windows.peaks[key]), np.stack(expected))
