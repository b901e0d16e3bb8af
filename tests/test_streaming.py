"""Streaming I/O: chunk boundaries, threads, errors mid-stream, memory, pipes, progress."""

import os
import re
import select
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import SAMPLES, URDF, peak_rss_mib, random_cosine, wrench_motion
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, Wrenches, cosine
from hodyn_cli.errors import HodynError
from hodyn_cli.io import TrajectoryReader, read_trajectory, tables, trajectory_datasets, write_trajectory
from hodyn_cli.io.tables import CsvTable
from hodyn_cli.io.writers import CsvSink
from hodyn_cli.modeling.urdf import load_model
from hodyn_cli.pipeline import jobs as jobs_module
from hodyn_cli.pipeline import stream
from hodyn_cli.pipeline.jobs import TorqueJob

runner = CliRunner()
IIWA = URDF / "iiwa14.urdf"
#: the chunk the CLI tests patch in for the reader's CHUNK_ROWS (16384): the same cuts, fewer rows
SHORT_CHUNK = 256


class ListSink:
    """Collects what the loop writes."""

    def __init__(self):
        self.parts = []

    encode = staticmethod(lambda data: data)

    def write_encoded(self, data):
        self.parts.append(data)

    def joined(self, key):
        return np.concatenate([p[key] for p in self.parts])


def motion(model, N, orders=4, seed=0):
    return random_cosine(model, np.linspace(0, N / 100, N), orders=orders, seed=seed)


@pytest.mark.parametrize("N", [1, 63, 64, 65, 201])
@pytest.mark.parametrize("ext", ["csv", "h5"])
def test_chunk_boundaries_give_the_whole_file_numbers(tmp_path, N, ext):
    model = load_model(IIWA)
    traj = motion(model, N)
    W = Wrenches({"iiwa_link_ee": wrench_motion(traj.t, 2)})
    traj = Trajectory(traj.joint_names, traj.derivatives, traj.t, W)
    path = str(tmp_path / f"traj.{ext}")
    write_trajectory(path, traj)
    whole = inverse_dynamics(model, read_trajectory(path, model, need=5), order=2)
    assert np.array_equal(read_trajectory(path, model, need=5).derivatives, traj.derivatives)
    for jobs in (1, 2):
        sink = ListSink()
        with TrajectoryReader(path, model, 5, chunk=64) as reader:
            n = stream.run(reader, TorqueJob(model), sink, jobs=jobs)
        assert n == N and [len(p["t"]) for p in sink.parts] == [64] * (N // 64) + (
            [N % 64] if N % 64 else [])
        for k, name in enumerate(("tau", "taud", "taudd")):
            assert np.array_equal(sink.joined(name), whole[:, k]), (jobs, name)
        assert np.array_equal(sink.joined("t"), traj.t)


@pytest.mark.parametrize("threads", [(1, 3), pytest.param((1, 2), marks=pytest.mark.slow)],
                         ids=["1-3", "1-2"])
def test_cli_output_is_bitwise_the_same_for_any_number_of_threads(tmp_path, monkeypatch,
                                                                threads):
    """Three chunks of the iiwa's torques, the last one short: 1 thread and 3 (an odd count)
    write the same bytes or datasets (1 and 2 in the slow run), the numbers round-trip.
    Chunks of 256 rows and CSV blocks of 64 kB (spans of 16 kB): the same cuts as the
    defaults' (16384 rows, 4 MB, 1 MB) make of 32785 rows, a 50th of the torques to compute."""
    monkeypatch.setattr(jobs_module, "CHUNK_ROWS", SHORT_CHUNK)
    monkeypatch.setattr(tables, "SPAN_BYTES", 1 << 14)
    monkeypatch.setattr(CsvTable.__init__, "__defaults__", (None, 1 << 16))
    model = load_model(IIWA)
    assert TorqueJob(model).chunk_rows == SHORT_CHUNK
    N = 2 * SHORT_CHUNK + 17  # three chunks, the last one short
    for ext in ("csv", "h5"):
        src = str(tmp_path / f"traj.{ext}")
        write_trajectory(src, motion(model, N, seed=3))
        outs = []
        for jobs in threads:
            out = tmp_path / f"tau{jobs}.{ext}"
            result = runner.invoke(app, ["compute", str(IIWA), src, "-o", str(out), "--jobs",
                                         str(jobs)])
            assert result.exit_code == 0, result.output
            outs.append(out.read_bytes() if ext == "csv" else h5py.File(out)["taudd"][()])
        assert all(np.array_equal(o, outs[0]) if ext == "h5" else o == outs[0] for o in outs)
    text = (tmp_path / "tau1.csv").read_text().splitlines()
    assert len(text) == N + 1
    ref = inverse_dynamics(model, read_trajectory(str(tmp_path / "traj.csv"), model, need=5))
    assert np.array_equal(np.loadtxt(tmp_path / "tau1.csv", delimiter=",", skiprows=1)[:, 1:],
                          ref.reshape(N, -1))  # round-trip exact numbers


def test_corrupt_row_mid_file_names_the_line_and_writes_nothing(tmp_path, monkeypatch):
    """(Chunks of 256 rows, not 16384: the bad line is as far past the first output rows.)"""
    monkeypatch.setattr(jobs_module, "CHUNK_ROWS", SHORT_CHUNK)
    model = load_model(URDF / "planar_2r.urdf")
    assert TorqueJob(model).chunk_rows == SHORT_CHUNK
    N = 3 * SHORT_CHUNK
    src = tmp_path / "big.csv"
    write_trajectory(str(src), motion(model, N))
    lines = src.read_text().splitlines()
    bad = 2 * SHORT_CHUNK + 5  # a line in the third chunk, past the first output rows
    fields = lines[bad - 1].split(",")
    fields[3] = "1.2.3"
    lines[bad - 1] = ",".join(fields)
    src.write_text("\n".join(lines) + "\n")
    for out in (tmp_path / "tau.csv", tmp_path / "tau.h5"):
        result = runner.invoke(app, ["compute", str(URDF / "planar_2r.urdf"), str(src),
                                     "-o", str(out)])
        assert result.exit_code == 2
        assert result.stderr.strip() == (f"hodyn: error: {src}: line {bad}, column "
                                         f"'{lines[0].split(',')[3]}': '1.2.3' is not a number")
        assert not out.exists() and not list(tmp_path.glob(".tau*"))
    keep = tmp_path / "keep.csv"
    keep.write_text("old")
    assert runner.invoke(app, ["compute", str(URDF / "planar_2r.urdf"), str(src), "-o",
                               str(keep)]).exit_code == 2
    assert keep.read_text() == "old"


def test_wrong_field_count_and_time_going_back_across_chunks(tmp_path):
    model = load_model(URDF / "planar_2r.urdf")
    traj = motion(model, 300)
    src = tmp_path / "t.csv"
    write_trajectory(str(src), traj)
    lines = src.read_text().splitlines()
    lines[250] += ",7"
    src.write_text("\n".join(lines) + "\n")
    with pytest.raises(HodynError, match="line 251 has 12 fields, the header 11"):
        list(TrajectoryReader(str(src), model, 5, chunk=64))
    t = traj.t.copy()
    t[128] = t[127]  # the first sample of the third chunk of 64
    h5 = str(tmp_path / "t.h5")
    write_trajectory(h5, Trajectory(traj.joint_names, traj.derivatives, t))
    reader = TrajectoryReader(h5, model, 5, chunk=64)
    with pytest.raises(HodynError, match="column 't' is not increasing at sample 128"):
        list(reader)


def test_wrench_file_in_lockstep_and_its_sample_count(tmp_path):
    model = load_model(IIWA)
    traj = motion(model, 150)
    W = wrench_motion(traj.t, 2)
    wpath = str(tmp_path / "w.csv")
    write_trajectory(wpath, Trajectory((), np.zeros((150, 0, 0)), None,
                                       Wrenches({"iiwa_link_ee": W})))
    src = str(tmp_path / "q.h5")
    write_trajectory(src, traj)
    with TrajectoryReader(src, model, 5, wrench=wpath, chunk=64) as reader:
        chunks = list(reader)
    assert np.array_equal(np.concatenate([c.wrenches.W["iiwa_link_ee"] for c in chunks]), W)
    write_trajectory(wpath, Trajectory((), np.zeros((149, 0, 0)), None,
                                       Wrenches({"iiwa_link_ee": W[:149]})))
    with pytest.raises(HodynError, match="w.csv: has 149 samples, the trajectory 150"):
        list(TrajectoryReader(src, model, 5, wrench=wpath, chunk=64))


def test_a_short_wrench_file_is_an_error_with_the_chunk_where_it_ends(tmp_path):
    """A wrench file that ends before the trajectory is reported with the chunk where it
    ends, not once the trajectory was read to its end to count it (it waited on a pipe whose
    producer goes on: the run hung): the trajectory on stdin, its pipe left open, exits 2 in
    one line, no output; a CSV trajectory's length is not known up front (``at least``)."""
    model = load_model(URDF / "planar_2r.urdf")
    traj = motion(model, 300)
    write_trajectory(str(tmp_path / "q.csv"), traj)
    wrench = Trajectory((), np.zeros((100, 0, 0)), traj.t[:100],
                        Wrenches({"link2": wrench_motion(traj.t[:100], 2)}))
    write_trajectory(str(tmp_path / "w.csv"), wrench)
    out = tmp_path / "tau.csv"
    proc = subprocess.Popen([sys.executable, "-m", "hodyn_cli", "compute",
                             URDF / "planar_2r.urdf", "-", "--wrench", tmp_path / "w.csv",
                             "-o", out], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stderr is not None
    with proc.stdin, proc.stderr:
        proc.stdin.write((tmp_path / "q.csv").read_bytes())
        proc.stdin.flush()  # and left open: more may come
        try:
            status = proc.wait(timeout=60)
        finally:
            proc.kill()
        err = proc.stderr.read().decode()
    assert status == 2 and err.count("\n") == 1, err
    # (at least the samples of its chunk: as many as the pipe had delivered)
    assert re.search(r"w\.csv: has 100 samples, fewer than the trajectory \(at least "
                     r"\d+\)", err), err
    assert not out.exists()


@pytest.mark.slow
def test_memory_is_bounded_by_the_chunk_not_the_file(tmp_path):
    """1.2M samples of the 7-DOF arm (HDF5, 0.34 GB of input) and of the 2R (CSV, 0.24 GB):
    peak RSS stays under the 300 MB bound (the whole input, with the ~100 MB a process
    starts with, would exceed it)."""
    N = 1_200_000
    iiwa = load_model(IIWA)
    h5 = tmp_path / "big.h5"
    t = np.linspace(0, N / 100, N)
    with h5py.File(h5, "w") as f:  # written in pieces: this test process stays small too
        f.attrs["joint_names"] = list(iiwa.joint_names)
        f.create_dataset("t", data=t)
        for k in range(5):
            ds = f.create_dataset("q" + "d" * k, shape=(N, iiwa.n), dtype="f8")
            for s in range(0, N, 200_000):
                piece = cosine(iiwa.joint_names, t[s : s + 200_000], amplitude=0.5, omega=1.3,
                               phase=np.arange(iiwa.n), orders=4)
                ds[s : s + 200_000] = piece.derivatives[:, k]
    assert h5.stat().st_size > 300e6
    rss = peak_rss_mib(["compute", str(IIWA), str(h5), "-o", str(tmp_path / "tau.h5")])
    assert rss < 300, f"HDF5: {rss:.0f} MiB"
    with h5py.File(tmp_path / "tau.h5") as f:
        assert f["taudd"].shape == (N, 7)
    planar = load_model(URDF / "planar_2r.urdf")
    csv = tmp_path / "big.csv"
    with open(csv, "wb") as fh:  # written in pieces, by the streaming writer
        sink = None
        for s in range(0, N, 200_000):
            piece = cosine(planar.joint_names, t[s : s + 200_000], amplitude=0.5, omega=1.3,
                           orders=4)
            data, columns = trajectory_datasets(piece)
            sink = sink or CsvSink(fh, columns)
            sink.write(data)
    rss = peak_rss_mib(["compute", str(URDF / "planar_2r.urdf"), str(csv), "-o", "-"])
    assert rss < 300, f"CSV: {rss:.0f} MiB"


def test_pipeline_filter_emits_rows_before_the_input_ends():
    lines = (SAMPLES / "planar_2r_cosine.csv").read_text().splitlines()
    proc = subprocess.Popen([sys.executable, "-m", "hodyn_cli", "compute",
                             str(URDF / "planar_2r.urdf"), "-", "--order", "0"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(("\n".join(lines[:101]) + "\n").encode())  # header + 100 rows
        proc.stdin.flush()
        got = b""
        deadline = time.monotonic() + 30
        while got.count(b"\n") < 101 and time.monotonic() < deadline:
            if select.select([proc.stdout], [], [], 0.5)[0]:
                got += os.read(proc.stdout.fileno(), 1 << 16)
        assert got.count(b"\n") >= 101, got[:200]  # the header and 100 rows, input still open
        assert proc.poll() is None
        proc.stdin.write(("\n".join(lines[101:]) + "\n").encode())
        proc.stdin.close()
        rest = proc.stdout.read()
        assert proc.wait(30) == 0
    finally:
        proc.kill()
    assert (got + rest).decode().count("\n") == len(lines)


@pytest.mark.parametrize("ext", [".h5", ".csv"])
def test_progress_bar_only_on_a_terminal(tmp_path, ext):
    """Samples done of the total (a CSV file's estimated from its size), only on a terminal."""
    import pty

    src = str(SAMPLES / f"iiwa14_cosine{ext}")
    out = str(tmp_path / "tau.h5")
    result = runner.invoke(app, ["compute", str(IIWA), src, "-o", out])
    assert result.exit_code == 0 and result.stderr == ""  # not a terminal: no bar
    # (--quiet's silence does not depend on the input's format: the HDF5 input's run only)
    for quiet, expect in ((False, True), (True, False))[: 2 if ext == ".h5" else 1]:
        master, slave = pty.openpty()
        proc = subprocess.Popen([sys.executable, "-m", "hodyn_cli", "compute", str(IIWA), src,
                                 "-o", "-"] + (["--quiet"] if quiet else []),
                                stdout=subprocess.PIPE, stderr=slave, env={**os.environ,
                                                                            "COLUMNS": "120"})
        os.close(slave)
        stdout = proc.stdout.read()
        proc.wait(30)
        seen = b""
        while select.select([master], [], [], 0.2)[0]:
            try:
                data = os.read(master, 1 << 16)
            except OSError:
                break
            if not data:
                break
            seen += data
        os.close(master)
        assert (b"samples" in seen) == expect, seen[:300]
        assert (b"501/501" in seen) == expect, seen[-300:]  # the total is known
        assert stdout.startswith(b"t,tau_iiwa_joint_1") and b"samples" not in stdout


def test_a_csv_files_length_is_estimated_from_its_size(tmp_path):
    """The progress bar's total for a CSV file: the rows parsed so far scaled by the file's
    size, close after the first block, exact at the end; unknown from a pipe."""
    from hodyn_cli.io.tables import CsvTable
    from hodyn_cli.pipeline.files import run_file

    src = SAMPLES / "iiwa14_cosine.csv"
    rows = len(src.read_text().splitlines()) - 1
    table = CsvTable(str(src), block_bytes=1 << 14)
    assert table.expected_rows is None  # nothing read yet
    blocks = table.blocks()
    next(blocks)
    assert 0 < table._samples < rows and abs(table.expected_rows - rows) < 0.05 * rows
    list(blocks)
    assert table.expected_rows == rows
    table.close()
    r, w = os.pipe()
    with os.fdopen(r, "r") as pipe:
        os.write(w, "".join(src.read_text().splitlines(keepends=True)[:5]).encode())
        os.close(w)
        table = CsvTable("-", stdin=pipe)
        list(table.blocks())
        assert table.expected_rows is None
    seen = []
    job = TorqueJob(load_model(IIWA), order=1)
    run_file(job, str(src), str(tmp_path / "tau.h5"), progress=lambda *a: seen.append(a))
    assert seen == [(rows, rows)]  # (done, total) after the one chunk
    seen.clear()  # the file's byte ranges parsed on two threads: counted where they settle
    run_file(job, str(src), str(tmp_path / "tau2.h5"), jobs=2,
             progress=lambda *a: seen.append(a))
    assert seen == [(rows, rows)]


def test_wrench_file_times_must_be_the_trajectorys(tmp_path):
    model = load_model(IIWA)
    traj = motion(model, 150)
    W = wrench_motion(traj.t, 2)
    src, wpath = str(tmp_path / "q.csv"), str(tmp_path / "w.h5")
    write_trajectory(src, traj)
    write_trajectory(wpath, Trajectory((), np.zeros((150, 0, 0)), traj.t,
                                       Wrenches({"iiwa_link_ee": W})))
    with TrajectoryReader(src, model, 5, wrench=wpath, chunk=64) as reader:
        assert sum(c.n_samples for c in reader) == 150  # the same t: fine
    t = traj.t.copy()
    t[100:] += 0.005
    write_trajectory(wpath, Trajectory((), np.zeros((150, 0, 0)), t,
                                       Wrenches({"iiwa_link_ee": W})))
    with pytest.raises(HodynError, match=rf"w.h5: t differs from the trajectory's at sample 100 "
                                         rf"\({t[100]} here, {traj.t[100]} there\)"):
        list(TrajectoryReader(src, model, 5, wrench=wpath, chunk=64))


def test_a_result_of_no_samples_is_its_header_or_empty_datasets(tmp_path):
    """write_datasets of 0 samples (a matrix dataset among them): CSV its header alone (it was
    a bare ValueError from the encoder: -1 cannot be inferred from 0 rows), HDF5 datasets of
    0 rows in their shapes; the same columns as 2 samples give."""
    from hodyn_cli.io import write_datasets

    columns = {"t": ["t"], "M": ["M_11", "M_12", "M_21", "M_22"]}
    for n in (0, 2):
        data = {"t": np.arange(n, dtype=float), "M": np.ones((n, 2, 2))}
        write_datasets(str(tmp_path / f"{n}.csv"), data, columns)
        write_datasets(str(tmp_path / f"{n}.h5"), data, columns)
        lines = (tmp_path / f"{n}.csv").read_text().splitlines()
        assert lines[0] == "t,M_11,M_12,M_21,M_22" and len(lines) == n + 1
        with h5py.File(tmp_path / f"{n}.h5") as f:
            assert f["t"].shape == (n,) and f["M"].shape == (n, 2, 2)


def test_hdf5_output_of_known_length_is_allocated_whole_and_checked(tmp_path):
    """An announced sample count gives contiguous datasets (one write per block), the same
    numbers as grown chunked ones; a count that does not match is an error and no file."""
    from hodyn_cli.io.writers import open_sink

    blocks = [np.arange(10 * k, 10 * k + 10, dtype=float).reshape(5, 2) for k in range(3)]
    layouts = {}
    for rows in (None, 15):
        path = tmp_path / f"{rows}.h5"
        with open_sink(str(path), {"x": ["a", "b"]}, rows=rows) as sink:
            for b in blocks:
                sink.write({"x": b})
        with h5py.File(path) as f:
            assert np.array_equal(f["x"][()], np.concatenate(blocks))
            layouts[rows] = f["x"].chunks
    assert layouts[None] is not None and layouts[15] is None  # chunked vs contiguous
    for rows, message in ((14, "more than the 14"), (16, "got 15 of the 16")):
        path = tmp_path / f"bad{rows}.h5"
        path.write_bytes(b"kept")
        with pytest.raises(RuntimeError, match=message), \
                open_sink(str(path), {"x": ["a", "b"]}, rows=rows) as sink:
            for b in blocks:
                sink.write({"x": b})
        assert path.read_bytes() == b"kept"
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(f"bad{rows}")] == \
            [path.name]
