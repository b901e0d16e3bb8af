"""``hodyn validate ROBOT - --samples 0``: every sample checked from stdin, which can be read
once, copied a block at a time to an unnamed file in ``$TMPDIR`` (:mod:`hodyn_cli.io.spool`)
and read twice from there as a file is (it was held whole: iiwa 2e5 samples 471 MiB against
146 MiB from the file). The report is the file's; bad input on stdin is one line, exit 2,
and nothing is left in ``$TMPDIR``, however the run ends (an error, Ctrl-C)."""

import errno
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import PEAK, URDF, hodyn_here, random_cosine
from hodyn_cli.errors import TrajectoryError
from hodyn_cli.io import spool, write_trajectory
from hodyn_cli.io.spool import spooled
from hodyn_cli.modeling.urdf import load_model

IIWA = URDF / "iiwa14.urdf"
TWO_R = URDF / "planar_2r.urdf"


def _motion_csv(path: Path, robot: Path, samples: int, rate: float = 1000.0) -> bytes:
    """A smooth motion of ``samples`` samples at ``rate`` Hz to qdddd, written to ``path``
    as CSV; its bytes."""
    model = load_model(robot)
    write_trajectory(str(path), random_cosine(model, np.arange(samples) / rate, orders=5,
                                              seed=2))
    return path.read_bytes()


def _report(path: Path) -> dict:
    """The JSON report but the trajectory's name (the file's path, or ``-``)."""
    report = json.loads(path.read_text())
    report.pop("trajectory")
    return report


def _in_tmpdir(tmp: Path) -> list[str]:
    """What a run left in the temporary directory ``tmp``."""
    return sorted(p.name for p in tmp.iterdir())


def test_stdin_is_copied_once_and_read_as_often_as_asked(tmp_path, monkeypatch):
    """Copied 1 MiB at a time (a test's stream of 2.5 MiB: 3 reads, not held whole) into
    an unnamed file in the temporary directory; each reading from the first byte, none
    moving another; the file goes with the block."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data = bytes(range(256)) * (10 * 1024)
    reads = []

    class Pipe(io.BytesIO):
        def read1(self, n=-1):
            reads.append(n)
            return super().read1(n)

    with spooled(Pipe(data)) as copy:
        assert copy.size == len(data) and _in_tmpdir(tmp_path) == []
        first, second = copy.reading(), copy.reading()
        assert first.read(1000) == data[:1000]
        assert second.read() == data and first.read() == data[1000:]
        if Path("/proc/self/fd").is_dir():  # on Linux: where the copy is, unnamed
            fd = first.fileno()
            assert os.readlink(f"/proc/self/fd/{fd}").startswith(str(tmp_path))
    assert reads == [spool.BLOCK_BYTES] * 4 and _in_tmpdir(tmp_path) == []
    with pytest.raises(OSError):  # (closed with the spool)
        os.fstat(fd)


def test_a_full_temporary_directory_is_one_line(monkeypatch):
    """The copy cannot be written (``$TMPDIR`` full): one line naming stdin, the directory
    and what to do instead."""
    class Full(io.BytesIO):
        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", Full)
    with pytest.raises(TrajectoryError) as e, spooled(io.BytesIO(b"t,q_joint1\n0,1\n")):
        pass
    assert str(e.value) == (f"-: cannot copy standard input to {tempfile.gettempdir()} (read "
                            "twice): No space left on device; give the trajectory as a file")


@pytest.mark.parametrize("piped", ["trajectory", "--wrench", "--torques"])
def test_every_sample_from_stdin_is_the_files_report(tmp_path, piped):
    """The 2R arm's 400 samples, every one checked, with a wrench at its tool and the
    torques compute writes: one of the three files from stdin (in this process), the same
    report as from the files but its name (a wrench on stdin was read once: its second
    pass found stdin empty, "-: empty file")."""
    csv, wrench, torques = tmp_path / "m.csv", tmp_path / "w.csv", tmp_path / "tau.csv"
    motion = random_cosine(load_model(TWO_R), np.arange(400) / 1000, orders=5, seed=2)
    write_trajectory(str(csv), motion)
    names = [f"{d}_tool0_{c}" for d in ("W", "Wd", "Wdd", "Wddd")
             for c in ("mx", "my", "mz", "fx", "fy", "fz")]
    W = np.zeros((400, len(names)))
    W[:, 5] = np.cos(motion.t)      # fz and its derivatives
    W[:, 11], W[:, 17], W[:, 23] = -np.sin(motion.t), -np.cos(motion.t), np.sin(motion.t)
    np.savetxt(wrench, np.column_stack([motion.t, W]), delimiter=",", comments="",
               header=",".join(["t", *names]))
    assert hodyn_here("compute", TWO_R, csv, "--wrench", wrench, "-o", torques).returncode == 0
    files = {"trajectory": csv, "--wrench": wrench, "--torques": torques}
    args = ["validate", TWO_R, files["trajectory"], "--wrench", files["--wrench"], "--torques",
            files["--torques"], "--samples", "0", "--method", "body-fixed", "-q"]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert hodyn_here(*args, "--report", a).returncode == 0
    args[args.index(files[piped])] = "-"
    run = hodyn_here(*args, "--report", b, input=files[piped].read_bytes())
    assert run.returncode == 0, run.stderr
    assert _report(a) == _report(b) and _report(b)["n_checked"] == 400


@pytest.mark.parametrize("data, error", [
    (b"", "-: empty file (expected a header row)"),
    (b"t,q_joint1,,q_joint2\n0,1,2,3\n", "-: empty column name in the header"),
])
def test_bad_stdin_is_one_line(tmp_path, monkeypatch, data, error):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # ($TMPDIR as read at start)
    r = hodyn_here("validate", TWO_R, "-", "--samples", "0", input=data)
    assert r.returncode == 2 and r.stderr == f"hodyn: error: {error}\n"
    assert _in_tmpdir(tmp_path) == []


def _hodyn(*args, tmpdir: Path, **options) -> subprocess.Popen:
    """``python -m hodyn_cli args`` with ``$TMPDIR`` at ``tmpdir``: stdin a pipe, stderr
    kept, the peak RSS on stderr's last line (:data:`conftest.PEAK`)."""
    return subprocess.Popen([sys.executable, "-c", PEAK, *map(str, args)],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(tmpdir)},
                            **options)


def _peak(stderr: bytes) -> float:
    return int(stderr.decode().split("PEAK ")[-1].split()[0]) / 1024


@pytest.mark.slow
def test_many_samples_from_a_pipe_are_the_files_report_in_a_chunks_memory(tmp_path):
    """The iiwa's 60 000 samples (4 chunks, 42 MB of CSV) piped into the real command, every
    sample checked: the file's report, and the peak RSS within 30 MiB of the file's (held,
    it was ~100 MiB more: ~1.6 kB a sample); nothing left in ``$TMPDIR``."""
    csv, tmp = tmp_path / "m.csv", tmp_path / "tmp"
    tmp.mkdir()
    data = _motion_csv(csv, IIWA, 60_000)
    args = ("validate", IIWA, "--samples", "0", "--method", "body-fixed", "-q")
    runs = {}
    for name, source, given in (("file", csv, None), ("pipe", "-", data)):
        proc = _hodyn(*args[:2], source, *args[2:], "--report", tmp_path / f"{name}.json",
                      tmpdir=tmp)
        _, err = proc.communicate(given, timeout=600)
        assert proc.returncode == 0, err.decode()
        runs[name] = _peak(err)
    assert _report(tmp_path / "file.json") == _report(tmp_path / "pipe.json")
    assert runs["pipe"] < runs["file"] + 30, runs
    assert _in_tmpdir(tmp) == []


@pytest.mark.slow
def test_a_bad_cell_far_into_a_pipe_is_one_line_and_leaves_nothing(tmp_path):
    """A cell that is not a number at row 150 000 of stdin (the 2R arm's): its line, exit
    2, nothing in ``$TMPDIR``."""
    csv, tmp = tmp_path / "m.csv", tmp_path / "tmp"
    tmp.mkdir()
    lines = _motion_csv(csv, TWO_R, 150_010).split(b"\n")
    fields = lines[150_000].split(b",")
    fields[3] = b"x"
    lines[150_000] = b",".join(fields)
    column = lines[0].split(b",")[3].decode()
    proc = _hodyn("validate", TWO_R, "-", "--samples", "0", tmpdir=tmp)
    _, err = proc.communicate(b"\n".join(lines), timeout=600)
    said = err.decode().splitlines()[:-1]  # (the peak RSS last)
    assert proc.returncode == 2 and said == [
        f"hodyn: error: -: line 150001, column '{column}': 'x' is not a number"], said
    assert _in_tmpdir(tmp) == []


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_ctrl_c_while_stdin_is_copied_leaves_nothing(tmp_path):
    """Ctrl-C while stdin is still coming (a producer that never ends): the copy, an unnamed
    file in ``$TMPDIR`` while it runs, goes with the run; exit 130, one line."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    header, row = (b"t,q_joint1,q_joint2,qd_joint1,qd_joint2,qdd_joint1,qdd_joint2,qddd_joint1,"
                   b"qddd_joint2\n", b"0,0,0,0,0,0,0,0,0\n" * 10_000)
    proc = _hodyn("validate", TWO_R, "-", "--samples", "0", tmpdir=tmp)
    assert proc.stdin is not None and proc.stderr is not None

    def feed() -> None:
        try:
            proc.stdin.write(header)
            while True:
                proc.stdin.write(row)
        except OSError:  # the run has ended
            pass

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    copy, deadline = None, time.monotonic() + 60
    while copy is None and proc.poll() is None and time.monotonic() < deadline:
        for fd in Path(f"/proc/{proc.pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith(str(tmp)) and target.endswith(" (deleted)"):
                copy = target  # (unnamed: O_TMPFILE, or unlinked as it was made)
        time.sleep(0.01)
    assert copy is not None, list(tmp.iterdir())
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        feeder.join()  # (its next write fails: the pipe has no reader)
        try:
            proc.stdin.close()
        except OSError:  # (what it still buffered cannot go)
            pass
    err = proc.stderr.read().decode().splitlines()[:-1]
    proc.stderr.close()
    assert proc.returncode == 130 and err == ["hodyn: stopped by SIGINT"], err
    assert _in_tmpdir(tmp) == []
