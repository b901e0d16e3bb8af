"""Every core: chunks read, computed and written on the worker threads (pipeline/parallel.py,
io/tasks.py, io/offsets.py). The new read and write paths against h5py's and the line by
line reader, on every storage layout; every streaming command the same bit for bit on 1, 2
and 3 threads with many small chunks and CSV pieces; errors named as the serial reader
names them; every thread ended however a run ends; memory bounded with many threads."""

from __future__ import annotations

import io
import json
import threading
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF, peak_rss_mib, random_cosine, threads_started_since
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.io import TrajectoryReader, write_trajectory
from hodyn_cli.io.offsets import RawRows, file_offset
from hodyn_cli.io.tables import CsvTable, Hdf5Table
from hodyn_cli.io.writers import Hdf5Sink
from hodyn_cli.modeling.urdf import load_model
from hodyn_cli.pipeline import jobs as jobs_module
from hodyn_cli.pipeline import parallel, stream
from hodyn_cli.pipeline.jobs import TorqueJob

IIWA = URDF / "iiwa14.urdf"
runner = CliRunner()


# -- HDF5 at its offsets ----------------------------------------------------------------------


@pytest.mark.parametrize("layout", [
    {}, {"chunks": (7, 3)}, {"compression": "gzip"}, {"dtype": ">f8"}, {"dtype": "f4"},
    {"dtype": "i4"}], ids=["contiguous", "chunked", "gzip", "big-endian", "float32", "int"])
def test_hdf5_rows_read_at_their_offsets_are_h5pys(tmp_path, layout):
    """Rows read by pread where the dataset is contiguous and through h5py where it is not
    (chunked, compressed): the same values as h5py's slicing, in any order, on threads."""
    rng = np.random.default_rng(1)
    q = (rng.normal(size=(103, 3)) * 100).astype(layout.get("dtype", "f8"))
    path = tmp_path / "x.h5"
    with h5py.File(path, "w") as f:
        f.attrs["joint_names"] = ["a", "b", "c"]
        f.create_dataset("t", data=np.arange(103.0))
        f.create_dataset("q", data=q, **{k: v for k, v in layout.items() if k != "dtype"})
        contiguous = "chunks" not in layout and "compression" not in layout
        assert (file_offset(f["q"]) is not None) == contiguous
        assert (RawRows.of(f["q"]) is None) == (not contiguous)
    table = Hdf5Table(str(path), block_rows=10)
    try:
        wanted = ["q_c", "t", "q_a"]
        expect = np.column_stack([q[:, 2], np.arange(103.0), q[:, 0]]).astype(float)
        assert np.array_equal(np.concatenate(list(table.blocks(wanted))), expect)
        spans = [(s, min(10, 103 - s)) for s in range(0, 103, 10)][::-1]
        with ThreadPoolExecutor(3) as pool:
            got = list(pool.map(lambda sr: table.read(*sr, wanted), spans))
        for (s, r), block in zip(spans, got, strict=True):
            assert np.array_equal(block, expect[s : s + r])
    finally:
        table.close()


def test_positional_writes_from_threads_in_any_order_are_sequential_writes(tmp_path):
    """Blocks written at their rows by several threads, last first, make the file that
    sequential writes make; the datasets are contiguous, each at its offset; a type HDF5
    converts (bool) goes through h5py; a short file is refused at close."""
    rng = np.random.default_rng(2)
    data = {"tau": rng.normal(size=(1000, 7)), "M": rng.normal(size=(1000, 3, 3)),
            "flag": rng.normal(size=1000) > 0}
    spans = [(s, min(64, 1000 - s)) for s in range(0, 1000, 64)][::-1]
    sink = Hdf5Sink(str(tmp_path / "a.h5"), rows=1000)
    assert sink.positional
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(lambda sr: sink.write_at({k: v[sr[0] : sr[0] + sr[1]]
                                                for k, v in data.items()}, sr[0]), spans))
    sink.close()
    serial = Hdf5Sink(str(tmp_path / "b.h5"), rows=1000)
    for s, r in spans[::-1]:
        serial.write({k: v[s : s + r] for k, v in data.items()})
    serial.close()
    with h5py.File(tmp_path / "a.h5") as a, h5py.File(tmp_path / "b.h5") as b:
        for key, value in data.items():
            assert np.array_equal(a[key][()], value) and np.array_equal(b[key][()], value)
            assert a[key].chunks is None
        assert file_offset(a["tau"]) is not None and file_offset(a["flag"]) is None
    short = Hdf5Sink(str(tmp_path / "c.h5"), rows=1000)
    short.write_at({"tau": data["tau"][:10]}, 990)
    with pytest.raises(RuntimeError, match="got 10 of the 1000 samples"):
        short.close()
    over = Hdf5Sink(str(tmp_path / "d.h5"), rows=1000)
    with pytest.raises(RuntimeError, match="more than the 1000 samples announced"):
        over.write_at({"tau": data["tau"][:10]}, 995)
    over.close(complete=False)


# -- CSV in spans of bytes ---------------------------------------------------------------------


def _pieces(table: CsvTable, wanted):
    """Every piece's values and absolute lines, in order (as the tasks count them)."""
    line, values, lines = table._line + 1, [], []
    for piece in table.pieces():
        parsed = table.parse_piece(piece, wanted)
        values.append(parsed.values)
        lines.append(line + parsed.lines)
        line += parsed.newlines
    return np.concatenate(values), np.concatenate(lines)


@pytest.mark.parametrize("block", [pytest.param(1, marks=pytest.mark.slow), 7, 64, 1000,
                                   1 << 20])
@pytest.mark.parametrize("ending", ["\n", "\r\n", "none"])
def test_csv_spans_hold_every_line_once(tmp_path, block, ending):
    """A regular file cut into spans of ``block`` bytes, wherever the cuts fall (inside a
    number, on a line end, a line longer than a span, blank lines, CRLF, no final line
    end): the rows and their line numbers of the serial reader. Spans of 7 bytes cut it at
    every place those are (the lines' lengths vary); of 1 byte, at every byte: slow (a span
    a byte, ~3 700 of them, 3-6 s a case at load ~2.6)."""
    # (150 rows of 9-29 bytes: spans of 7 bytes end at every offset of a line many times
    # over; a span costs ~0.1 ms, so the 300 rows and 3000-byte line before cost ~0.5 s a case)
    rows = [f"{i},{i * 0.5!r},{-i * 1e-3!r}" for i in range(150)]
    rows[17] = "17," + "0" * 1100 + "1.5,2"  # a line longer than every span but 1 << 20's
    rows.insert(40, "")  # blank lines hold no row
    rows.insert(41, "   ")
    end = "\r\n" if ending == "\r\n" else "\n"
    text = "t,a,b" + end + end.join(rows) + ("" if ending == "none" else end)
    path = tmp_path / "x.csv"
    path.write_bytes(text.encode())
    serial = CsvTable(str(path), block_bytes=block)
    try:
        blocks, want_lines = [], []
        for values in serial.blocks(["b", "t"]):  # it remembers the recent blocks' lines
            done = sum(map(len, blocks))
            want_lines += [serial.line_of(s) for s in range(done, done + len(values))]
            blocks.append(values)
        want = np.concatenate(blocks)
    finally:
        serial.close()
    table = CsvTable(str(path), block_bytes=block)
    try:
        got, lines = _pieces(table, ["b", "t"])
    finally:
        table.close()
    assert np.array_equal(got, want) and len(got) == 150
    assert lines.tolist() == want_lines and want_lines[40] == 44  # rows 40.. after the blanks


def _faulty(tmp_path, N=700):
    """The iiwa's motion at 100 Hz, ``N`` samples, as CSV (700: 7 chunks of 100 rows, two
    past the later fault's)."""
    model = load_model(IIWA)
    traj = random_cosine(model, np.linspace(0, N / 100, N), orders=4, seed=5)
    path = tmp_path / "x.csv"
    write_trajectory(str(path), traj)
    return model, path


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.parametrize("fault", ["cell", "fields", "nan", "t-boundary", "t-inside",
                                   "t-both"])
def test_the_first_bad_sample_is_named_as_the_serial_reader_names_it(tmp_path, jobs, fault):
    """Faults planted in chunks 3 and 5 (100-row chunks, 4 kB spans): the error names the
    first one, its line and column, on any number of threads; with t going back both at a
    chunk's first sample and inside it, the first sample is named."""
    model, path = _faulty(tmp_path)
    lines = path.read_text().splitlines()

    def spoil(row: int, how: str) -> None:
        cells = lines[row + 1].split(",")
        if how == "cell":
            cells[3] = "1.2.3"
        elif how == "fields":
            cells = cells[:-1]
        elif how == "nan":
            cells[5] = "nan"
        else:  # t back to before the sample before
            cells[0] = repr(float(lines[row].split(",")[0]) - 1.0)
        lines[row + 1] = ",".join(cells)

    first = {"cell": 310, "fields": 310, "nan": 310, "t-boundary": 300, "t-inside": 333,
             "t-both": 300}[fault]
    spoil(first, fault.split("-")[0] if fault[0] != "t" else "t")
    if fault == "t-both":
        spoil(350, "t")
    spoil(520, "cell")  # a later fault, in a later chunk
    path.write_text("\n".join(lines) + "\n")
    expected = {"cell": "line 312, column 'q_iiwa_joint_3': '1.2.3' is not a number",
                "fields": "line 312 has 35 fields, the header 36",
                "nan": "column 'q_iiwa_joint_5', sample 310 (line 312): value nan",
                "t-boundary": "column 't' is not increasing at sample 300 (line 302)",
                "t-inside": "column 't' is not increasing at sample 333 (line 335)",
                "t-both": "column 't' is not increasing at sample 300 (line 302)"}[fault]
    reader = TrajectoryReader(str(path), model, 5, chunk=100)
    reader.table.block_bytes = 4096
    try:
        with pytest.raises(TrajectoryError) as err:
            stream.run(reader, TorqueJob(model), _Null(), jobs=jobs, cancel=reader.cancel)
    finally:
        reader.close()
    assert expected in str(err.value) and str(err.value).startswith(str(path))


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.parametrize("fault, expected", [
    ((50, 5, "nan"), "column 'q_iiwa_joint_5', sample 50 (line 52): value nan"),
    ((50, 0, "0"), "column 't' is not increasing at sample 50 (line 52)"),
    ((65, 5, "nan"), "column 'q_iiwa_joint_5', sample 65 (line 67): value nan"),
    ((76, 5, "nan"), "line 77, column 'q_iiwa_joint_3': '{x}' is not a number"),
], ids=["nan-before", "t-before", "nan-in-its-chunk", "nan-after-in-its-chunk"])
def test_a_fault_before_a_bad_lines_chunk_is_named_however_the_file_is_cut(
        tmp_path, monkeypatch, jobs, fault, expected):
    """A line that does not parse (sample 75, its cell '{x}' named as it is: it was taken
    for a template, an internal error) in chunk 3 of 20-row chunks, and a fault before it:
    in chunk 2 (sample 50), ending before the line, that fault is named; in chunk 3 itself,
    the first sample's: the fault at 65, the line before one at 76 (the line was named
    before the rows before it were checked). Read one by one the file is cut into 32 kB
    blocks, on threads into 4 kB spans: a block held the line and chunk 2 both, and
    --jobs 1 named the line where --jobs 2 and 3 named sample 50."""
    from hodyn_cli.io import tables

    monkeypatch.setattr(tables, "SPAN_BYTES", 4096)
    model, path = _faulty(tmp_path, N=300)
    lines = path.read_text().splitlines()
    row, column, value = fault
    for r, c, v in ((row, column, value), (75, 3, "{x}")):
        cells = lines[r + 1].split(",")
        cells[c] = v
        lines[r + 1] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    reader = TrajectoryReader(str(path), model, 5, chunk=20)
    reader.table.block_bytes = 32768
    offsets = np.cumsum([len(line) + 1 for line in lines])  # the end of each line
    assert offsets[40] < 32768 < offsets[50] < offsets[76] < 2 * 32768  # as said above
    try:
        with pytest.raises(TrajectoryError) as err:
            stream.run(reader, TorqueJob(model), _Null(), jobs=jobs, cancel=reader.cancel)
    finally:
        reader.close()
    assert expected in str(err.value), err.value


class _Null:
    encode = staticmethod(lambda data: data)

    def write_encoded(self, data) -> None:
        pass


def _wrench_beside(tmp_path, model, t, kind: str, bad: int | None = None) -> str:
    """A wrench file (with ``t`` the trajectory's) of ``kind`` csv or h5 for ``t``'s samples;
    ``bad``: the sample whose fz is not a number (CSV) or NaN (HDF5)."""
    W = np.tile([0.0, 0, 0, 0, 0, 1], (len(t), 1))
    if kind == "h5":
        if bad is not None:
            W[bad, 5] = np.nan
        path = tmp_path / "w.h5"
        with h5py.File(path, "w") as f:
            f["t"], f["wrench/iiwa_link_7/W"] = t, W
        return str(path)
    lines = ["t," + ",".join(f"W_iiwa_link_7_{c}" for c in ("mx", "my", "mz", "fx", "fy", "fz"))]
    lines += [",".join(repr(float(v)) for v in (s, *row)) for s, row in zip(t, W, strict=True)]
    if bad is not None:
        lines[bad + 1] = lines[bad + 1].rsplit(",", 1)[0] + ",xyz"  # its fz
    path = tmp_path / "w.csv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("jobs", [1, 2, 3, 4])
@pytest.mark.parametrize("case, expected", [
    (("csv", 170, (150, 0, "t-back")), "x.csv: column 't' is not increasing at sample 150"),
    (("csv", 170, (160, 5, "nan")), "x.csv: column 'q_iiwa_joint_5', sample 160 (line 162)"),
    (("csv", 170, (175, 3, "{x}")), "w.csv: line 172, column 'W_iiwa_link_7_fz': 'xyz'"),
    (("csv", None, (200, 0, "t-back")), "x.csv: column 't' is not increasing at sample 200"),
    (("csv", None, (150, 0, "t-back")), "x.csv: column 't' is not increasing at sample 150"),
    (("h5", None, (200, 0, "t-back")), "x.csv: column 't' is not increasing at sample 200"),
    (("h5", None, (150, 0, "t-back")), "x.csv: column 't' is not increasing at sample 150"),
    (("h5", 160, (150, 0, "t-back")), "x.csv: column 't' is not increasing at sample 150"),
    (("h5", 140, (150, 0, "t-back")), "w.h5: column 'W_iiwa_link_7_fz', sample 140: value nan"),
], ids=["t-before-wrench-line", "nan-before-wrench-line", "wrench-line-before-own-line",
        "t-boundary-csv", "t-inside-csv", "t-boundary-h5", "t-inside-h5", "t-before-nan-h5",
        "nan-h5-before-t"])
def test_the_first_bad_sample_of_a_trajectory_and_its_wrench_file_is_named(
        tmp_path, jobs, case, expected):
    """A wrench file read beside the trajectory (100-row chunks): the first bad sample of
    either file is named, on any number of threads. A wrench line that does not parse
    (sample 170, in the block that holds the whole wrench file) was named before a fault of
    the trajectory's at samples 150, 160 of its chunk; a trajectory whose own t goes back
    was named as the wrench file's t that differs from it (the comparison ran first); a
    line of the trajectory that does not parse (sample 175) after a wrench one (170); a
    NaN of an HDF5 wrench file after (160) or before (140) the trajectory's t going back."""
    kind, wrench_bad, (row, column, value) = case
    model, path = _faulty(tmp_path, N=300)
    lines = path.read_text().splitlines()
    cells = lines[row + 1].split(",")
    cells[column] = value if value != "t-back" else repr(float(cells[0]) - 1.0)
    lines[row + 1] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    t = np.linspace(0, 3, 300)  # _faulty's instants
    wrench = _wrench_beside(tmp_path, model, t, kind, wrench_bad)
    reader = TrajectoryReader(str(path), model, 5, chunk=100, wrench=wrench)
    reader.table.block_bytes = 4096
    try:
        with pytest.raises(TrajectoryError) as err:
            stream.run(reader, TorqueJob(model, order=0), _Null(), jobs=jobs,
                       cancel=reader.cancel)
    finally:
        reader.close()
    assert expected in str(err.value), err.value


# -- every command, any number of threads -------------------------------------------------------


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """640 iiwa samples at 100 Hz (q to its 7th derivative) as HDF5 and CSV, the HDF5 one
    with torques too (forward dynamics' input): 5 chunks of 128 rows, ~35 CSV spans of 20 kB,
    more than the 3 threads hold (1500 samples cost each command 2.3x as much)."""
    folder = tmp_path_factory.mktemp("scale")
    model = load_model(IIWA)
    traj = random_cosine(model, np.linspace(0, 6.39, 640), orders=7, seed=8)
    write_trajectory(str(folder / "x.h5"), traj)
    write_trajectory(str(folder / "x.csv"), traj)
    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics

    tau = inverse_dynamics(model, traj, order=1)
    with h5py.File(folder / "f.h5", "w") as f:
        f.attrs["joint_names"] = list(model.joint_names)
        f["t"], f["q"], f["qd"] = traj.t, traj.derivatives[:, 0], traj.derivatives[:, 1]
        f["tau"], f["taud"] = tau[:, 0], tau[:, 1]
    return folder


COMMANDS = {
    "compute": ["compute", "{x}", "--order", "2"],
    "compute-wrenches": ["compute", "{x}", "--joint-wrenches"],
    "matrices": ["matrices", "{h5}", "--order", "1"],
    "regressor": ["regressor", "{h5}", "--order", "1", "--base"],
    "sensitivities": ["sensitivities", "{h5}", "--order", "1"],
    "kinematics": ["kinematics", "{x}", "--link", "iiwa_link_ee"],
    "elastic": ["elastic", "{x}", "--drives", str(URDF / "iiwa14_drives.toml"), "--model",
                "reflected"],
    "forward": ["forward", "{f}", "--order", "1"],
    "retime": ["retime", "{x}", "--to-limits", "--limits", str(URDF / "iiwa14_limits.toml")],
    "check": ["check", "{x}", "--limits", str(URDF / "iiwa14_limits.toml"), "--report",
              "{out}.json"],
    "validate": ["validate", "{x}", "--samples", "40", "--report", "{out}.json"],
}


def _contents(path) -> object:
    if path.suffix == ".h5":
        with h5py.File(path) as f:
            out = {}
            f.visititems(lambda k, v: out.__setitem__(k, v[()]) if isinstance(v, h5py.Dataset)
                         else None)
            return out
    return path.read_bytes()


def _assert_contiguous(key: str, item, command: str) -> None:
    if isinstance(item, h5py.Dataset):
        assert file_offset(item) is not None, f"{command}: '{key}' written through h5py"


@pytest.mark.parametrize("threads", [(1, 3), pytest.param((1, 2), marks=pytest.mark.slow)],
                         ids=["1-3", "1-2"])
@pytest.mark.parametrize("ext", ["h5", "csv"])
@pytest.mark.parametrize("command", COMMANDS)
def test_every_streaming_command_is_the_same_on_any_number_of_threads(
        inputs, tmp_path, monkeypatch, command, ext, threads):
    """Chunks of 128 rows (fewer for big outputs) and CSV spans of 20 kB, so that a run has
    many chunks in flight: 1, 2 and 3 threads write the same bytes (CSV) or datasets (HDF5),
    the same reports and the same exit status; an HDF5 output of an HDF5 input is contiguous
    (written at its offsets in the file, on the threads). 1 against 3 (an odd count: chunks
    do not pair off with the threads) by default, 1 against 2 in the slow run."""
    monkeypatch.setattr(jobs_module, "CHUNK_ROWS", 128)
    monkeypatch.setattr(jobs_module, "CHUNK_BYTES", 1 << 18)
    monkeypatch.setattr(jobs_module._Job, "chunk_rows", 128)
    monkeypatch.setattr(CsvTable.__init__, "__defaults__", (None, 20_000))
    hdf5_only = command in ("matrices", "regressor", "sensitivities", "forward",
                            "compute-wrenches")
    if hdf5_only and ext == "csv":
        pytest.skip("HDF5 output only")
    results = []
    for jobs in threads:
        out = tmp_path / f"out{jobs}"
        args = [a.format(x=inputs / f"x.{ext}", h5=inputs / "x.h5", f=inputs / "f.h5", out=out)
                for a in COMMANDS[command]]
        args.insert(1, str(IIWA))
        if command not in ("check", "validate"):
            args += ["-o", f"{out}.{'h5' if hdf5_only else ext}"]
        result = runner.invoke(app, [*args, "--jobs", str(jobs), "-q"])
        assert result.exit_code in (0, 1), result.output
        written = sorted(tmp_path.glob(f"out{jobs}.*"))
        assert written, result.output
        for path in written:  # an HDF5 input's count announced: written at the offsets
            if path.suffix == ".h5" and (ext == "h5" or hdf5_only):
                with h5py.File(path) as f:
                    f.visititems(lambda k, v: _assert_contiguous(k, v, command))
        results.append((result.exit_code, result.stdout, [_contents(p) for p in written]))
    for code, text, contents in results[1:]:
        assert code == results[0][0] and text == results[0][1]
        for a, b in zip(contents, results[0][2], strict=True):
            if isinstance(a, dict):
                assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
            else:
                assert a == b


def test_stdin_pipeline_pieces_parse_on_threads_and_flush_when_paused():
    """CSV on stdin (an in-memory stream here): its blocks go to the threads too, and the
    rows are those of the serial run."""
    model = load_model(URDF / "planar_2r.urdf")
    traj = random_cosine(model, np.linspace(0, 5, 700), orders=4, seed=3)
    buf = io.StringIO()
    from hodyn_cli.io.results import trajectory_datasets
    from hodyn_cli.io.writers import CsvSink

    data, columns = trajectory_datasets(traj)
    raw = io.BytesIO()
    CsvSink(raw, columns).write(data)
    buf = raw.getvalue().decode()
    outs = []
    for jobs in (1, 3):
        result = runner.invoke(app, ["compute", str(URDF / "planar_2r.urdf"), "-", "--jobs",
                                     str(jobs)], input=buf)
        assert result.exit_code == 0, result.output
        outs.append(result.stdout)
    assert outs[0] == outs[1] and outs[0].count("\n") == 701


# -- threads end --------------------------------------------------------------------------------


def test_every_thread_ends_when_the_consumer_stops_or_a_chunk_fails(tmp_path):
    model, path = _faulty(tmp_path, N=1500)
    before = set(threading.enumerate())
    reader = TrajectoryReader(str(path), model, 5, chunk=100)
    reader.table.block_bytes = 8192
    gen = parallel.ordered(reader, lambda chunk, start: chunk.n_samples, 3, reader.cancel)
    assert next(gen)[1] == 100
    assert threads_started_since(before)
    gen.close()  # the consumer stops early
    reader.close()
    assert threads_started_since(before) == []

    def fails(chunk: Trajectory, start: int):
        if start == 700:
            raise HodynError("chunk 8 fails")
        return start

    reader = TrajectoryReader(str(path), model, 5, chunk=100)
    with pytest.raises(HodynError, match="chunk 8 fails"):
        assert [s for _, s in parallel.ordered(reader, fails, 3)] == []
    reader.close()
    assert threads_started_since(before) == []


def test_a_source_failing_ahead_of_slow_chunks_hands_those_chunks_on_first(monkeypatch):
    """The source's error (a later piece that does not parse) reaches the consumer while
    the chunks before it are still being worked on: they go on, and a chunk's own error
    among them is the one raised, as reading them one by one would (a race that CI once lost
    under load: 'line 522' named instead of sample 333). The chunks are held until the
    error has reached the consumer (not for a time: under load the error came after it)."""
    def source():
        for start in range(0, 500, 100):
            yield Trajectory(np.arange(start, start + 100) * 0.01, np.zeros((100, 1)))
        raise TrajectoryError("piece 6 does not parse")

    poll = parallel.ReadAhead.poll

    def releasing_on_the_error(self, timeout):
        try:
            yield from poll(self, timeout)
        except TrajectoryError:
            release.set()  # the error is on its way to the consumer: the chunks may finish
            raise

    monkeypatch.setattr(parallel.ReadAhead, "poll", releasing_on_the_error)

    def slow(chunk: Trajectory, start: int):
        assert release.wait(60), "the source's error never reached the consumer"
        if start == fails_at:
            raise TrajectoryError(f"chunk at {start} is bad")
        return start

    for fails_at, expected in ((None, "piece 6 does not parse"), (200, "chunk at 200 is bad")):
        release, seen = threading.Event(), []
        with pytest.raises(TrajectoryError, match=expected):
            for _, start in parallel.ordered(source(), slow, 8):
                seen.append(start)
        assert seen == ([0, 100, 200, 300, 400] if fails_at is None else [0, 100])


@pytest.mark.slow
def test_memory_stays_bounded_with_many_threads(tmp_path):
    """1.2M iiwa samples HDF5 -> HDF5 and 300 000 CSV -> CSV on 8 threads (more chunks in
    flight than on 2 cores): peak RSS under the 300 MB bound all the same."""
    N = 1_200_000
    model = load_model(IIWA)
    h5 = tmp_path / "big.h5"
    t = np.linspace(0, N / 100, N)
    with h5py.File(h5, "w") as f:
        f.attrs["joint_names"] = list(model.joint_names)
        f.create_dataset("t", data=t)
        sets = [f.create_dataset("q" + "d" * k, shape=(N, 7), dtype=float) for k in range(5)]
        for s in range(0, N, 200_000):
            piece = random_cosine(model, t[s : s + 200_000], orders=4, seed=1)
            for k, ds in enumerate(sets):
                ds[s : s + 200_000] = piece.derivatives[:, k]
    rss = peak_rss_mib(["compute", str(IIWA), str(h5), "-o", str(tmp_path / "o.h5"),
                        "--jobs", "8"])
    assert rss < 300, f"HDF5: {rss:.0f} MiB"
    csv = tmp_path / "big.csv"
    write_trajectory(str(csv), random_cosine(model, t[:300_000], orders=4, seed=1))
    rss = peak_rss_mib(["compute", str(IIWA), str(csv), "-o", str(tmp_path / "o.csv"),
                        "--jobs", "8"])
    assert rss < 300, f"CSV: {rss:.0f} MiB"


def test_check_report_json_is_machine_readable(inputs, tmp_path):
    """(The report the test above compares is JSON with the check's numbers.)"""
    result = runner.invoke(app, ["check", str(IIWA), str(inputs / "x.h5"), "--limits",
                                 str(URDF / "iiwa14_limits.toml"), "--report",
                                 str(tmp_path / "r.json"), "-q"])
    assert result.exit_code in (0, 1)
    assert json.loads((tmp_path / "r.json").read_text())
