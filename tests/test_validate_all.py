"""``validate --samples 0`` (every sample checked) reads the file twice: first the maxima the
step comes from and the data checks, then the torque checks a chunk at a time, every check's
largest error, worst sample and plotted series folded across chunks. Its report is the one
of every sample held (``samples`` = the file's length), whatever the chunks and blocks, and
its memory does not grow with the file."""

import tracemalloc

import numpy as np
import pytest
from test_validate_memory import agree_but_loops

from conftest import URDF, floating_motion, legged_urdf, random_cosine
from hodyn_cli import api
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.algorithms.verification import blocks, checks
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.modeling.urdf import load_model, parse_model
from hodyn_cli.pipeline.report import decimate


def _chunked(motion: Trajectory, rows: int):
    """The motion's chunks of ``rows`` samples, anew each call."""
    return lambda: (motion.rows(slice(a, a + rows)) for a in range(0, motion.n_samples, rows))


def _streamed_and_held(monkeypatch, model, motion, rows: int, block: int, **options):
    """Every sample checked: read twice in chunks of ``rows`` (blocks of ``block``), and held
    (``samples`` = the length; the same chunks: a closed loop's passive joints are solved a
    chunk at a time)."""
    nv = (model.free_rooted if motion.base is not None else model).nv
    monkeypatch.setattr(checks, "BLOCK", block * nv**2)
    chunks = _chunked(motion, rows)
    streamed = api.validate_motion(model, chunks=chunks(), again=chunks, samples=0, **options)
    held = api.validate_motion(model, chunks=chunks(), samples=motion.n_samples, **options)
    return streamed, held


def _same_columns(streamed: dict, held: dict, x: np.ndarray) -> None:
    """A streamed plotted series (per column: x, analytic, numeric) holds every row of the
    held one where the file is short."""
    a, n = held["analytic"], held["numeric"]
    for j, (xj, aj, nj) in enumerate(streamed["columns"]):
        assert np.array_equal(xj, x) and np.array_equal(aj, a[:, j])
        assert np.array_equal(nj, n[:, j])


def test_every_sample_read_twice_gives_the_report_of_every_sample_held(monkeypatch):
    """The iiwa's 61 samples in chunks of 13, blocks of 8: every number as held (the
    sampled differences' neighbours across chunks, the worst samples found in later
    chunks), the plotted series' rows too; a given torque off on one sample fails there."""
    model = load_model(URDF / "iiwa14.urdf")
    motion = random_cosine(model, np.linspace(0, 3, 61), orders=5, seed=4)
    tau = inverse_dynamics(model, motion, method="spatial", order=0)[:, 0]
    tau[40, 2] *= 1 + 1e-6
    given = {"tau": tau}
    with_torques = Trajectory(motion.joint_names, motion.derivatives, motion.t,
                              series=given)
    streamed, held = _streamed_and_held(monkeypatch, model, with_torques, 13, 8,
                                        methods=["body-fixed", "closed-form"], torques=True)
    assert streamed.to_dict() == held.to_dict()
    assert len(streamed.checked_samples) == 61 and not streamed.passed
    failed, = streamed.failures
    assert failed.group == "torques" and failed.worst_sample == 40
    assert {c.worst_sample for c in streamed.checks if c.worst_sample} - set(range(13))
    for k in ("taud", "taudd"):
        _same_columns(streamed.series["body-fixed"][k], held.series["body-fixed"][k], motion.t)
        sampled = held.series["sampled"][k]
        _same_columns(streamed.series["sampled"][k], sampled, sampled["t"])


def test_a_floating_base_with_drives_off_read_twice(monkeypatch):
    """A floating base's (the root's local pose, the base wrench's columns) in chunks of 7."""
    text = legged_urdf("solo", seed=1)
    model = parse_model(text.encode())
    motion, _, _, _ = floating_motion(text, model, np.linspace(0, 1, 41), 3, seed=3)
    streamed, held = _streamed_and_held(monkeypatch, model, motion, 7, 4,
                                        methods=["body-fixed"])
    assert streamed.to_dict() == held.to_dict()


def test_drives_read_twice(monkeypatch):
    """--drives: the drive model along the local motions, its agreements, a chunk at a time
    (the step shortened to the Coulomb friction's time scale from the first pass's maxima)."""
    model = load_model(URDF / "iiwa14.urdf")
    motion = random_cosine(model, np.linspace(0, 2, 31), orders=5, seed=21)
    streamed, held = _streamed_and_held(monkeypatch, model, motion, 9, 4,
                                        drives=URDF / "iiwa14_motors.toml",
                                        methods=["body-fixed"])
    assert any(c.group == "drives" for c in streamed.checks) and streamed.passed
    assert streamed.to_dict() == held.to_dict()


@pytest.mark.slow
def test_contacts_read_twice(monkeypatch):
    """--contacts: the base wrench left over and the feet's speed, chunks of 8 (the front
    left foot up from sample 15 to 24)."""
    from test_contacts_cli import FEET
    from test_contacts_cli import motion as walk

    model = load_model(URDF / "quadruped.urdf")
    streamed, held = _streamed_and_held(monkeypatch, model, walk(model), 8, 3,
                                        contacts=FEET, methods=["body-fixed"])
    assert [c.status for c in streamed.checks if c.group == "contacts"] == ["pass", "warn"]
    assert streamed.to_dict() == held.to_dict()


def test_loops_read_twice(monkeypatch):
    """--loops: the same checks; the loops' own by rounding only (Newton is warm-started
    along its batch, the passive joints' Jacobian G too: the blocks of a chunk at a time
    start elsewhere)."""
    closed = api.close_loops(api.load_robot(URDF / "fivebar.urdf"), URDF / "fivebar_loops.toml")
    motion = cosine(closed.coordinate_names, np.linspace(0.0, 2.0, 41), amplitude=[0.3, 0.25],
                    omega=[2.0, 3.0], offset=[-2.0, -1.1], phase=[0.0, 0.5], orders=5)
    streamed, held = _streamed_and_held(monkeypatch, closed, motion, 11, 3,
                                        methods=["body-fixed"])
    assert streamed.passed
    agree_but_loops(streamed.checks, held.checks)


def test_a_step_that_shrinks_is_chosen_as_when_held(monkeypatch):
    """A tolerance the first step's estimated error exceeds: the step shrinks by 4 (a pass
    more for the finite differences), as held."""
    model = load_model(URDF / "planar_2r.urdf")
    motion = random_cosine(model, np.linspace(0, 2, 41), orders=5, seed=2)
    streamed, held = _streamed_and_held(monkeypatch, model, motion, 10, 4,
                                        tolerances={"fd": 1e-12}, methods=["body-fixed"])
    assert streamed.to_dict() == held.to_dict()
    first = api.validate_motion(model, chunks=[motion], samples=0, methods=["body-fixed"])
    assert streamed.step < first.step


def test_the_plot_keeps_what_the_report_draws(monkeypatch):
    """A long file's plotted series: per column the rows of each x-bin's smallest and
    largest value (4 bins here), so that the report's lines (``decimate``) are those of
    every row."""
    monkeypatch.setattr(blocks, "PLOT_COLUMNS", 4)
    rng = np.random.default_rng(1)
    x = np.linspace(0.0, 1.0, 101)
    a, n = rng.normal(size=(101, 3)), rng.normal(size=(101, 3))
    plot = blocks.Plot((0.0, 1.0))
    for s in range(0, 101, 7):
        plot.add(x[s:s + 7], a[s:s + 7], n[s:s + 7])
    for j, (xj, aj, nj) in enumerate(plot.series()["columns"]):
        assert len(xj) <= 2 + 6 * 4
        for kept, full in ((aj, a[:, j]), (nj, n[:, j]), (np.abs(aj - nj), np.abs(a - n)[:, j])):
            for u, v in zip(decimate(xj, kept, 4), decimate(x, full, 4), strict=True):
                assert np.array_equal(u, v)


def test_every_sample_checked_takes_memory_of_a_chunk_not_the_file(monkeypatch):
    """4000 samples of the planar arm, every one checked, in chunks of 200 (blocks of 48, 20
    plotted x-bins): held, ~0.7 kB a sample stayed (the rows, the torques, the plotted
    series: 3.0 MB traced, 5.9 MB at 8000 samples); read twice, 0.4-1.0 MB (0.4-0.5 MB from
    1000 to 32 000 samples)."""
    model = load_model(URDF / "planar_2r.urdf")
    motion = cosine(model.joint_names, np.linspace(0, 40, 4000), amplitude=[0.8, 1.2],
                    omega=[1.3, 2.1], orders=5)
    monkeypatch.setattr(checks, "BLOCK", 48 * model.nv**2)
    monkeypatch.setattr(blocks, "PLOT_COLUMNS", 20)
    chunks = _chunked(motion, 200)
    tracemalloc.start()
    try:
        report = api.validate_motion(model, chunks=chunks(), again=chunks, samples=0,
                                     methods=["body-fixed"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.passed and len(report.checked_samples) == 4000
    assert peak < 2e6, f"{peak / 1e6:.1f} MB"


@pytest.mark.parametrize("samples", [0, 5])
def test_a_file_with_too_few_samples_for_differences(samples):
    """Two samples: no sampled differences (no sample with both neighbours), held or not."""
    model = load_model(URDF / "planar_2r.urdf")
    motion = random_cosine(model, np.linspace(0, 0.1, 2), orders=5)
    report = api.validate_motion(model, chunks=[motion], again=lambda: [motion],
                                 samples=samples, methods=["body-fixed"])
    sampled, = [c for c in report.checks if c.group == "sampled differences"]
    assert sampled.status == "skip"


def test_the_plot_bins_are_the_reports():
    """The kept rows are the report's lines only with its x-bins."""
    from hodyn_cli.pipeline import report

    assert blocks.PLOT_COLUMNS == report.COLUMNS
