"""``validate``'s memory is bounded by a block of checked samples, not by how many are
checked: the torques along the local Taylor motions, the closed form's matrices and the
model checks are made ``BLOCK / nv^2`` samples at a time, with the very numbers of one
block."""

import tracemalloc

import numpy as np
import pytest

from conftest import SAMPLES, URDF, floating_motion, legged_urdf, random_cosine
from hodyn_cli import api
from hodyn_cli.algorithms.verification import checks
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


def _blocked_and_whole(monkeypatch, model, motion, samples: int, rows: int, **options):
    """``validate`` (``options``: :func:`api.validate_motion`'s) in blocks of ``rows`` checked
    samples, and in one block."""
    nv = (model.free_rooted if motion.base is not None else model).nv
    monkeypatch.setattr(checks, "BLOCK", rows * nv**2)
    blocked = api.validate_motion(model, chunks=[motion], samples=samples, **options)
    monkeypatch.setattr(checks, "BLOCK", 1 << 30)
    return blocked, api.validate_motion(model, chunks=[motion], samples=samples, **options)


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


def test_drive_checks_in_blocks_give_the_numbers_of_one_block(monkeypatch):
    """--drives: the drive model along the local motions 5 checked samples at a time (3
    blocks of 13), its stencils split back per base and order (taum, current: fewer columns)."""
    model = load_model(URDF / "iiwa14.urdf")
    motion = random_cosine(model, np.linspace(0, 2, 101), orders=5, seed=21)
    blocked, whole = _blocked_and_whole(monkeypatch, model, motion, 13, 5,
                                        drives=URDF / "iiwa14_motors.toml",
                                        methods=["body-fixed"])
    assert blocked.passed and any(c.group == "drives" for c in blocked.checks)
    assert blocked.to_dict() == whole.to_dict()
    _same(blocked.series, whole.series)


def test_loop_checks_in_blocks_agree_with_one_block(monkeypatch):
    """--loops: the passive joints found by Newton along the local motions, the actuated
    torques and constraint forces there, 3 checked samples at a time (blocks of 3, 3, 1).
    Not to the bit: Newton and the passive joints' Jacobian G are warm-started along their
    batch (``Closed._closed``: from the neighbours' solutions), so a block's first local
    samples start elsewhere and converge to other roundings (~1e-13 relative; on NumPy's
    backend ``qd (passive) vs G qd_a`` moved 4.4e-16 -> 5.6e-16); the other groups' checks
    are identical."""
    closed = api.close_loops(api.load_robot(URDF / "fivebar.urdf"), URDF / "fivebar_loops.toml")
    motion = cosine(closed.coordinate_names, np.linspace(0.0, 2.0, 41), amplitude=[0.3, 0.25],
                    omega=[2.0, 3.0], offset=[-2.0, -1.1], phase=[0.0, 0.5], orders=5)
    blocked, whole = _blocked_and_whole(monkeypatch, closed, motion, 7, 3,
                                        methods=["body-fixed"])
    assert blocked.passed
    agree_but_loops(blocked.checks, whole.checks)


def agree_but_loops(first: list, second: list) -> None:
    """The same checks, to the bit but the loops' (theirs: the same names and statuses, their
    errors within 1e-3 of their tolerance: Newton's warm starts round differently)."""
    assert len(first) == len(second)
    for a, b in zip(first, second, strict=True):
        if a.group != "loops":
            assert a == b
            continue
        assert (a.name, a.status) == (b.name, b.status)
        assert abs(a.max_rel - b.max_rel) <= 1e-3 * a.tolerance, a.name
        if a.expected is not None or b.expected is not None:
            assert abs(a.expected - b.expected) <= 1e-3 * a.tolerance, a.name


def test_contact_checks_in_blocks_give_the_numbers_of_one_block(monkeypatch):
    """--contacts: the base wrench left over and the feet's speed 3 samples at a time (the
    front left foot up from sample 15 to 24; the feet sliding as the trunk sways warns)."""
    from test_contacts_cli import FEET
    from test_contacts_cli import motion as walk

    model = load_model(URDF / "quadruped.urdf")
    blocked, whole = _blocked_and_whole(monkeypatch, model, walk(model), 10, 3, contacts=FEET)
    assert [c.status for c in blocked.checks if c.group == "contacts"] == ["pass", "warn"]
    assert blocked.to_dict() == whole.to_dict()
    _same(blocked.series, whole.series)


def _validated_in_blocks_of_48(monkeypatch, validate) -> tuple:
    """``validate(model, motion)``'s report and traced peak on the iiwa's 400-sample cosine,
    every sample checked, in blocks of 48 samples."""
    model = load_model(URDF / "iiwa14.urdf")
    motion = cosine(model.joint_names, np.linspace(0, 4, 400), amplitude=0.5, omega=1.3,
                    orders=5)
    monkeypatch.setattr(checks, "BLOCK", 48 * 7**2)
    tracemalloc.start()
    try:
        report = validate(model, motion)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.passed and len(report.checked_samples) == 400
    return report, peak


def test_memory_is_bounded_by_a_block_not_the_samples_checked(monkeypatch):
    """400 samples, all checked: ~63 kB a checked sample at once (the closed form's matrices
    along 17 local samples each) took 25 MB with the compiled kernel, 36 MB with NumPy's
    (``HODYN_NO_KERNEL=1``); in blocks of 48, 3 kB a sample stays (the results and the series
    plotted) and a block's working set: 6.3 MB, 13.9 MB with NumPy's."""
    _, peak = _validated_in_blocks_of_48(
        monkeypatch, lambda model, motion: checker.validate(model, motion, samples=400))
    assert peak < 16e6, f"{peak / 1e6:.1f} MB"


def test_drive_checks_memory_is_bounded_by_a_block(monkeypatch):
    """--drives, 400 samples all checked: the drive model along every local motion at once
    (17 local samples a checked sample) peaked at 12.2 MB traced; in blocks of 48, 7.8 MB."""
    _, peak = _validated_in_blocks_of_48(
        monkeypatch, lambda model, motion: api.validate_motion(
            model, chunks=[motion], samples=400, methods=["body-fixed"],
            drives=URDF / "iiwa14_motors.toml"))
    assert peak < 10e6, f"{peak / 1e6:.1f} MB"


def test_a_floating_base_is_read_a_chunk_at_a_time(tmp_path, monkeypatch):
    """The base motion's HDF5 columns are read in the trajectory's chunks, not in blocks of
    65 536 rows (2 x 19 MB a quadruped's base held beyond the chunks: validate 165 -> 242
    MiB from 2e4 to 2e5 samples); the chunks' numbers as read whole."""
    from test_contacts_cli import motion as walk

    from hodyn_cli.io import open_sink, trajectory_datasets
    from hodyn_cli.io.results import base_datasets
    from hodyn_cli.io.tables import Hdf5Table
    from hodyn_cli.pipeline.inputs import open_input

    model = load_model(URDF / "quadruped.urdf")
    traj = walk(model, 300)
    data, columns = trajectory_datasets(traj)
    more, cols = base_datasets(traj)
    path = str(tmp_path / "walk.h5")
    with open_sink(path, {}, {"joint_names": list(model.joint_names)}) as sink:
        sink.write(data | more)
    reads = []
    read = Hdf5Table.read
    monkeypatch.setattr(Hdf5Table, "read", lambda self, start, rows, wanted: (
        reads.append(rows), read(self, start, rows, wanted))[1])
    with open_input(path, model, 4, floating=True, base_orders=3, chunk=64) as reader:
        chunks = list(reader)
    assert max(reads) == 64 and sum(c.n_samples for c in chunks) == 300
    Vb = np.concatenate([c.base.Vb for c in chunks])
    assert np.array_equal(Vb, traj.base.Vb[:, :3])


@pytest.mark.parametrize("n", [0, 1, 5, 6, 11])
def test_blocked_joins_each_rows_own_result(n):
    seen = []

    def f(rows: slice) -> np.ndarray:
        seen.append(rows)
        return np.arange(n)[rows][None] * 2.0

    out = checks.blocked(f, n, 5, axis=1)
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


def test_the_simulation_plot_says_how_many_windows_a_point_holds(monkeypatch):
    """A plotted point of a long file's simulation holds ``width`` windows: the report's
    titles say "per 8 windows", not "per window"."""
    from hodyn_cli.algorithms.verification import simulation
    from hodyn_cli.pipeline import report

    monkeypatch.setattr(simulation, "PLOTTED", 4)
    class Recorded(simulation.Windows):   # the windows recorded: nothing left to simulate
        def _flush(self) -> None:
            pass

        def _detail(self, key: str, scale: float) -> str:
            return ""

    model = load_model(URDF / "planar_2r.urdf")
    windows = Recorded(model)
    errors = np.random.default_rng(0).random((37, 2, 3, model.n))
    for i, e in enumerate(errors):
        windows._record(0.2 * i, e, np.zeros_like(e), np.zeros_like(e), None, np.arange(3),
                        np.arange(3.0))
    series: dict = {}
    windows.checks(1e-6, series)
    assert series["simulation"]["width"] == 8
    canvases = report.Canvases()
    try:
        report._simulation_figure(series["simulation"], canvases)
        (fig, _), = canvases._figs.values()
        titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
        assert titles and all("per 8 windows" in title for title in titles)
    finally:
        canvases.close()
