"""Every exit is honest and nothing is lost: errors end every thread first (no SIGABRT at
exit), a signal stops a run as an error does, an output that is one of the inputs is
refused, and the environment's refusals (permissions, a full disk, a file-size limit) are
exit 2 with one line, never "internal errors"."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

import pytest

from conftest import ROOT, SAMPLES, URDF, hodyn_here, threads_started_since
from hodyn_cli.errors import HodynError
from hodyn_cli.io.reader import TrajectoryReader
from hodyn_cli.io.writers import CsvSink
from hodyn_cli.modeling.urdf import load_model
from hodyn_cli.pipeline import stream

IIWA = str(URDF / "iiwa14.urdf")
COSINE_CSV = SAMPLES / "iiwa14_cosine.csv"
LIMITS = str(URDF / "iiwa14_limits.toml")


def hodyn(*args, **kw):
    return subprocess.run([sys.executable, "-m", "hodyn_cli", *map(str, args)],
                          capture_output=True, text=True, **kw)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def temporaries(folder: Path) -> list[Path]:
    return sorted(folder.glob(".*.tmp"))


# -- threads -----------------------------------------------------------------------------


def test_an_error_ends_a_read_ahead_that_waits_for_input(tmp_path):
    """The race made deterministic: the first chunk fails while the read-ahead thread is
    mid-read on a pipe whose producer has gone quiet. The run must end, with its threads,
    at once, not when (or if) the producer writes again."""
    model = load_model(URDF / "iiwa14.urdf")
    rows = COSINE_CSV.read_text().splitlines()
    r, w = os.pipe()
    os.write(w, ("\n".join(rows[:40]) + "\n").encode())  # the write end stays open: quiet
    stdin = os.fdopen(r, "r")
    reader = TrajectoryReader("-", model, need=5, chunk=16, stdin=stdin)
    before = set(threading.enumerate())

    def compute(chunk):
        raise HodynError("the first chunk is bad")

    outcome = []

    def go():
        try:
            stream.run(iter(reader), compute, CsvSink(open(os.devnull, "wb"), {}), jobs=2,
                       cancel=reader.cancel)
        except HodynError as e:
            outcome.append(e)

    runner = threading.Thread(target=go)
    runner.start()
    runner.join(timeout=60)  # at once; the bound is a loaded machine's (the bug: never)
    try:
        assert not runner.is_alive(), "the run waited for the quiet producer"
        assert outcome and "first chunk is bad" in str(outcome[0])
        assert threads_started_since(before) == []  # the runner, read-ahead and pool
    finally:
        os.close(w)
        runner.join()
        stdin.close()


@pytest.mark.parametrize("command", [["compute"], ["check", "--limits", LIMITS]],
                         ids=["compute", "check"])
def test_a_bad_sample_from_a_quiet_pipe_ends_the_run_at_once(command):
    """A bad sample (nan, sample 2) from a pipe whose producer then goes quiet, the pipe
    open: exit 2 with its line at once, every command on threads (check --jobs 2 waited for
    the producer to write again or close: its read-ahead was not woken)."""
    rows = COSINE_CSV.read_text().splitlines()
    cells = rows[3].split(",")
    cells[2] = "nan"
    rows[3] = ",".join(cells)
    proc = subprocess.Popen([sys.executable, "-m", "hodyn_cli", command[0], IIWA, "-",
                             *command[1:], "--jobs", "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stderr is not None
    try:
        proc.stdin.write(("\n".join(rows[:40]) + "\n").encode())
        proc.stdin.flush()  # and nothing more: the producer is quiet
        code = proc.wait(60)  # at once; the bound is a loaded machine's (the bug: never)
        err = proc.stderr.read().decode()
    finally:
        proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stderr.close()
    assert code == 2 and err == ("hodyn: error: -: column 'q_iiwa_joint_2', sample 2 (line 4): "
                                 "value nan is not finite\n"), err


@pytest.mark.slow
def test_error_exits_are_2_under_load():
    """The stress run, short: the same bad file 32 times, 4 processes at a time, exit 2 with
    its one line each time (it was SIGABRT, exit 134, in 7 of 160 such runs).
    ``python benchmarks/stress_exits.py`` is the long run (300 by default)."""
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "stress_exits.py"),
                           "--runs", "32", "--parallel", "4"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "every one exit 2" in proc.stdout


def _feed(writer: Callable[[], BinaryIO], proc: subprocess.Popen, endless: bool = True
          ) -> threading.Thread:
    """A thread writing into what ``writer()`` opens: the cosine without its t column over
    and over (``endless``: rows that repeated are still a trajectory), or the cosine once and
    then nothing more, the pipe open, until ``proc`` has ended. A run reading it cannot end
    before the test stops it (a file of 300 000 samples was read through in ~1.5 s: a
    loaded machine could see the run end before the signal)."""
    lines = [",".join(line.split(",")[1:]) for line in COSINE_CSV.read_text().splitlines()]
    header, rows = (lines[0] + "\n").encode(), ("\n".join(lines[1:]) + "\n").encode()

    def feed() -> None:
        try:
            with writer() as f:
                if not endless:
                    f.write(COSINE_CSV.read_bytes())
                    f.flush()
                    while proc.poll() is None:  # a producer gone quiet
                        time.sleep(0.05)
                    return
                f.write(header)
                while True:
                    f.write(rows)
        except OSError:  # BrokenPipeError: the run has ended
            pass

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


def _fifo_writer(path: Path, proc: subprocess.Popen) -> Callable[[], BinaryIO]:
    """Opens FIFO ``path`` for writing once ``proc`` opens it to read (OSError if it ends
    first: opening a FIFO waits for its reader)."""
    def opened() -> BinaryIO:
        while proc.poll() is None:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO: no reader yet
            except OSError:
                time.sleep(0.01)
                continue
            os.set_blocking(fd, True)
            return os.fdopen(fd, "wb")
        raise OSError("the run ended before it read the FIFO")
    return opened


def _stop(proc: subprocess.Popen, sig: int, feeder: threading.Thread) -> str:
    """Send ``sig`` to ``proc``; its stderr once it has ended (killed after 60 s: the run
    did not stop, the test fails)."""
    proc.send_signal(sig)
    try:
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        feeder.join()  # its next write fails: the pipe has no reader
    assert proc.stderr is not None
    with proc.stderr:  # closed here: left to the collector, a later test heard of it
        return proc.stderr.read().decode()


@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130),
                                         (signal.SIGHUP, 129)])
def test_a_signal_stops_the_run_and_leaves_nothing(tmp_path, sig, status):
    """The signal arrives while the output is being written, the input still coming (a
    pipe the test feeds until the run has ended): exit 128 + the signal, one line, the
    previous output untouched, no temporary left."""
    out = tmp_path / "tau.csv"
    out.write_text("the previous output\n")
    proc = subprocess.Popen([sys.executable, "-m", "hodyn_cli", "compute", IIWA, "-", "-o",
                             str(out), "--jobs", "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stdin = proc.stdin
    assert stdin is not None
    feeder = _feed(lambda: stdin, proc)
    deadline = time.monotonic() + 60
    while not any(p.stat().st_size for p in temporaries(tmp_path)) and proc.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None and temporaries(tmp_path), "no output was being written"
    err = _stop(proc, sig, feeder)
    assert proc.returncode == status, err
    assert "Traceback" not in err and err.count("\n") == 1
    assert out.read_text() == "the previous output\n"
    assert not temporaries(tmp_path)


def test_an_output_is_reserved_without_a_file(tmp_path):
    """The temporary output is created by its writer, inside atomic_path's guard: a file made
    beforehand to reserve the name (and removed at once) was left behind by a signal that
    landed between the two (test_a_signal_stops_the_run_and_leaves_nothing, 1 run in ~30
    under load)."""
    from hodyn_cli.io.paths import atomic_path

    with pytest.raises(KeyboardInterrupt), atomic_path(str(tmp_path / "out.csv")) as tmp:
        assert list(tmp_path.iterdir()) == []
        Path(tmp).write_text("partial")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_a_signal_is_forgotten_when_its_region_ends():
    """Inside stop.deferred() a signal makes every other thread's check() give up (a batch's
    files); once the region has ended, by the signal or not, threads stream again (a run in
    the same process after it: a test worker's next test)."""
    from hodyn_cli.pipeline import stop

    def other_thread_gives_up() -> bool:
        seen = []

        def look():
            try:
                stop.check()
            except stop.Abandoned:
                seen.append(True)

        thread = threading.Thread(target=look)
        thread.start()
        thread.join()
        return bool(seen)

    with stop.deferred():
        stop.interrupt(KeyboardInterrupt())
        assert other_thread_gives_up()
        with pytest.raises(KeyboardInterrupt):
            stop.check()
    assert not other_thread_gives_up()
    with pytest.raises(KeyboardInterrupt), stop.deferred():
        stop.interrupt(KeyboardInterrupt())
        stop.check()
    assert not other_thread_gives_up()


@pytest.mark.parametrize("listed, endless", [(False, True), (True, True), (False, False)],
                         ids=["arguments", "from-list", "quiet-producer"])
def test_a_signal_stops_a_batch_and_keeps_only_finished_outputs(tmp_path, listed, endless):
    """docs/scale.md: the outputs finished before the signal are kept and named in its one
    line; the file being written is discarded (it was finished after the signal, and left
    behind while the exit said the run had stopped), the rest are not started. The file
    being written is a FIFO the test feeds until the run has ended, or whose producer has
    gone quiet: its reading thread gives up too (it held the run until the producer wrote
    again)."""
    short = tmp_path / "short.csv"
    short.write_bytes(COSINE_CSV.read_bytes())
    fifo = tmp_path / "long.csv"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    files = [str(short), str(fifo), str(short.with_name("later.csv"))]
    shutil.copy(short, files[2])
    (tmp_path / "list.txt").write_text("\n".join(files) + "\n")
    inputs = ["--from-list", str(tmp_path / "list.txt")] if listed else files
    proc = subprocess.Popen([sys.executable, "-m", "hodyn_cli", "compute", IIWA, *inputs,
                             "--output-dir", str(out), "--format", "csv", "--jobs", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    feeder = _feed(_fifo_writer(fifo, proc), proc, endless)
    # quiet: the signal once the FIFO's rows are written out (all but the writer's buffer),
    # its thread waiting for more (the short file's output: the same rows)
    least = None  # the bytes of the FIFO's output to wait for
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if least is None and (out / "short.csv").exists():
            least = 1 if endless else \
                (out / "short.csv").stat().st_size - io.DEFAULT_BUFFER_SIZE
        if least is not None and sum(p.stat().st_size for p in temporaries(out)) >= least:
            break
        time.sleep(0.01)
    assert proc.poll() is None and temporaries(out), "the long file never started"
    err = _stop(proc, signal.SIGTERM, feeder)
    assert proc.returncode == 143, err
    assert err.strip() == (f"hodyn: stopped by SIGTERM: 1 of 3 outputs finished before it, "
                           f"kept: {out / 'short.csv'} (the others not written; "
                           "--skip-existing resumes)")
    assert sorted(p.name for p in out.iterdir()) == ["short.csv"]


def test_a_file_finished_just_before_a_signal_is_counted_as_kept():
    """The race made deterministic: a batch file finishes, then a signal arrives before the
    batch loop looks (its output is kept: it must be named, not "no output written")."""
    from concurrent.futures import Future

    from hodyn_cli.pipeline import batch, stop

    finished, given_up = Future(), Future()
    finished.set_result(batch.FileOutcome("a.csv", "out/a.csv", "ok"))
    given_up.set_exception(stop.Abandoned())
    seen = []
    with pytest.raises(KeyboardInterrupt), stop.deferred():
        stop.interrupt(KeyboardInterrupt())
        batch._collect([finished, given_up], batch._finished([finished, given_up]),
                       lambda outcome: seen.append(outcome.output))
    assert seen == ["out/a.csv"]


def _signalling(monkeypatch, owner, name: str, before: bool = False) -> None:
    """``owner.name`` sends this process SIGTERM after (``before``: before) it runs: a
    signal at that moment of a run, on the main thread where its handler runs at once."""
    real = getattr(owner, name)

    def signalled(*args, **kw):
        if before:
            os.kill(os.getpid(), signal.SIGTERM)
        result = real(*args, **kw)
        if not before:
            os.kill(os.getpid(), signal.SIGTERM)
        return result

    monkeypatch.setattr(owner, name, signalled)


@pytest.mark.parametrize("moment", ["solve", "write", "notice", "renamed"])
def test_a_signal_leaves_no_output_the_command_did_not_finish(tmp_path, monkeypatch, moment):
    """``retime --optimal`` stopped by SIGTERM during its solve, during its writing, after
    its output was finished (its notice): exit 143, one line, the previous output
    untouched. Its output was renamed into place when written, and a signal in the
    command's last milliseconds (seen on a real run) exited 143 with the output complete
    over the previous one; the renaming is now the command's last act, after which a
    signal changes nothing (exit 0, the output complete)."""
    from hodyn_cli import outputs
    from hodyn_cli.algorithms.limits.optimal import Optimal
    from hodyn_cli.cli import render
    from hodyn_cli.io.writers import Hdf5Sink

    owner, name, before = {"solve": (Optimal, "fit", True), "write": (Hdf5Sink, "write", False),
                           "notice": (render, "notice", True),
                           "renamed": (outputs, "rename", False)}[moment]
    _signalling(monkeypatch, owner, name, before)
    out = tmp_path / "out.h5"
    out.write_text("the previous output\n")
    r = hodyn_here("retime", URDF / "planar_2r.urdf", SAMPLES / "planar_2r_cosine.h5",
                   "--optimal", "-o", out, *(["--quiet"] if moment != "notice" else []))
    assert not temporaries(tmp_path)
    if moment == "renamed":
        assert r.returncode == 0, r.stderr
        import h5py

        with h5py.File(out) as f:  # (the whole file: its attributes are set at its close)
            assert f.attrs["duration"] > 0 and len(f["q"]) > 1
        return
    assert (r.returncode, r.stderr) == (143, "hodyn: stopped by SIGTERM\n")
    assert out.read_text() == "the previous output\n"


def test_a_signal_after_a_finished_run_keeps_its_status(tmp_path):
    """``python -m hodyn_cli``: a SIGTERM after the run has returned, its output in place,
    the process exiting (Python's default action was back: killed, exit 143, the output
    complete) is ignored: exit 0."""
    out = tmp_path / "tau.csv"
    late = ("import os, signal, sys\n"
            "from hodyn_cli.cli import errors\n"
            "real = errors.run\n"
            "def run(*args, **kw):\n"
            "    code = real(*args, **kw)\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return code\n"
            "errors.run = run\n"
            "sys.argv = ['hodyn'] + sys.argv[1:]\n"
            "from hodyn_cli.cli.app import main\n"
            "main()\n")
    proc = subprocess.run([sys.executable, "-c", late, "compute", str(URDF / "planar_2r.urdf"),
                           str(SAMPLES / "planar_2r_cosine.csv"), "-o", str(out)],
                          capture_output=True, text=True)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert out.read_text().startswith("t,")


# -- an output that is an input ---------------------------------------------------------------


@pytest.fixture
def inputs(tmp_path):
    csv, h5 = tmp_path / "x.csv", tmp_path / "x.h5"
    csv.write_bytes(COSINE_CSV.read_bytes())
    h5.write_bytes((SAMPLES / "iiwa14_cosine.h5").read_bytes())
    (tmp_path / "soft.csv").symlink_to(csv)
    os.link(csv, tmp_path / "hard.csv")
    return tmp_path


@pytest.mark.parametrize("args", [
    ("compute", IIWA, "x.csv", "-o", "x.csv"),
    ("compute", IIWA, "x.h5", "-o", "x.h5"),
    ("compute", IIWA, "x.csv", "-o", "soft.csv"),
    ("compute", IIWA, "x.csv", "-o", "hard.csv"),
    ("compute", IIWA, "soft.csv", "-o", "x.csv"),
    ("kinematics", IIWA, "x.csv", "--link", "iiwa_link_ee", "-o", "x.csv"),
    ("matrices", IIWA, "x.h5", "-o", "x.h5"),
    ("validate", IIWA, "x.h5", "--report", "x.h5"),
    ("check", IIWA, "x.csv", "--report", "hard.csv"),
    ("retime", IIWA, "x.h5", "--factor", "2", "-o", "x.h5"),
    ("compute", IIWA, "x.csv", "--wrench", "soft.csv", "-o", "hard.csv"),
    ("compute", IIWA, "x.h5", "--output-dir", "."),
    ("compute", IIWA, "x.csv", "--output-dir", ".", "--format", "csv"),
], ids=lambda a: " ".join(a[:1] + a[2:]))
def test_an_output_that_is_an_input_is_refused(inputs, args, monkeypatch):
    """In this process (the batch's case below in a real one)."""
    before = {p.name: digest(p) for p in inputs.iterdir() if p.is_file()}
    monkeypatch.chdir(inputs)
    p = hodyn_here(*args)
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "the output is an input" in p.stderr, p.stderr
    assert {p.name: digest(p) for p in inputs.iterdir() if p.is_file()} == before
    assert not temporaries(inputs)


def test_a_batch_whose_output_would_be_an_input_writes_nothing(inputs):
    (inputs / "y.h5").write_bytes((inputs / "x.h5").read_bytes())
    (inputs / "list.txt").write_text("x.h5\ny.h5\n")
    p = hodyn("compute", IIWA, "--from-list", "list.txt", "--output-dir", ".", cwd=inputs)
    assert p.returncode == 2 and "refusing to write over it" in p.stderr
    assert not (inputs / "y.csv").exists() and not temporaries(inputs)


# -- the environment's refusals ---------------------------------------------------------------


def _unwritable() -> list[str]:
    found = []
    for target in ("/sys/out.h5", "/proc/x.csv"):
        if Path(target).parent.exists() and not os.access(Path(target).parent, os.W_OK) or \
                target.startswith("/proc"):
            found.append(target)
    return found


@pytest.mark.parametrize("target", _unwritable())
def test_an_output_the_system_refuses_is_exit_2(target):
    p = hodyn("compute", IIWA, COSINE_CSV, "-o", target)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"hodyn: error: {target}: cannot write: ") and \
        p.stderr.count("\n") == 1


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("order", ["0", "2"])
def test_a_full_stdout_is_exit_2(order):
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "hodyn_cli", "compute", IIWA, str(COSINE_CSV),
                            "--order", order], stdout=full, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 2, p.stderr
    assert p.stderr == "hodyn: error: standard output: cannot write: No space left on device\n"


@pytest.mark.parametrize("suffix", [".csv", ".h5"])
def test_a_file_size_limit_is_exit_2_and_leaves_nothing(tmp_path, suffix):
    out = tmp_path / f"tau{suffix}"
    # the limit set by the child itself (a preexec_fn would fork this multithreaded process)
    limited = ("import resource, runpy, sys; "
               "resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000)); "
               "sys.argv[0] = 'hodyn'; runpy.run_module('hodyn_cli', run_name='__main__')")
    p = subprocess.run([sys.executable, "-c", limited, "compute", IIWA,
                        str(SAMPLES / "iiwa14_cosine.h5"), "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    assert p.stderr == f"hodyn: error: {out}: cannot write: File too large\n"
    assert not out.exists() and not temporaries(tmp_path)


def test_a_failed_hdf5_write_is_exit_2_not_a_crash(tmp_path):
    """Where the check before writing cannot see it coming (another process fills the disk),
    HDF5's own failure is still one line and exit 2; the HDF5 library, which crashes
    closing such a file, is not asked to (the process ends without its clean-up)."""
    out = tmp_path / "tau.h5"
    code = f"""
import resource, sys
import hodyn_cli.io.writers as writers
writers.check_room = lambda *args: None       # blind: HDF5 meets the limit itself
resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
sys.argv = ["hodyn", "compute", {IIWA!r}, {str(SAMPLES / "iiwa14_cosine.h5")!r}, "-o", {str(out)!r}]
from hodyn_cli.cli.app import main
main()
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"hodyn: error: {out}: cannot write: ") and \
        p.stderr.count("\n") == 1, p.stderr
    assert not out.exists() and not temporaries(tmp_path)


@pytest.fixture
def small_disk(tmp_path):
    """A 300 kB file system (tmpfs; needs the right to mount, else skipped)."""
    where = tmp_path / "small"
    where.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(where)],
                      capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    yield where
    subprocess.run(["umount", str(where)], check=True)


@pytest.mark.parametrize("command, fits", [("compute", True), ("regressor", False)])
@pytest.mark.parametrize("source", ["iiwa14_cosine.h5", "iiwa14_cosine.csv"])
def test_a_full_disk_is_exit_2_and_what_fits_is_written(small_disk, command, fits, source):
    out = small_disk / "out.h5"
    p = hodyn(command, IIWA, SAMPLES / source, "-o", out)
    if fits:
        assert p.returncode == 0, p.stderr
        assert out.stat().st_size > 50_000
    else:
        assert p.returncode == 2 and p.stderr == \
            f"hodyn: error: {out}: cannot write: No space left on device\n"
        assert not out.exists()
    assert not temporaries(small_disk)


def test_a_directory_as_output_says_so(tmp_path):
    p = hodyn_here("compute", IIWA, COSINE_CSV, "-o", tmp_path)
    assert p.returncode == 2 and "is a directory" in p.stderr


def test_an_environmental_os_error_is_exit_2_a_bug_exit_3():
    """The last line of defence: an OSError the system raises for the user's environment
    (here EACCES from a path nobody checked) is exit 2; any other exception stays 3."""
    import errno

    import typer

    from hodyn_cli.cli.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, mapped_errors

    for error, status in ((PermissionError(errno.EACCES, "Permission denied", "/x"),
                           EXIT_BAD_INPUT), (OSError(errno.EBADF, "Bad file descriptor"),
                                             EXIT_INTERNAL), (ValueError("a bug"), EXIT_INTERNAL)):
        with pytest.raises(typer.Exit) as e, mapped_errors(debug=False):
            raise error
        assert e.value.exit_code == status

    for error, status in ((HodynError("bad input"), EXIT_BAD_INPUT), (ValueError("a bug"),
                                                                       EXIT_INTERNAL)):
        with pytest.raises(typer.Exit) as e, mapped_errors(debug=True):
            raise error
        assert e.value.exit_code == status  # --debug adds the traceback, not another status


def test_debug_keeps_the_exit_status(tmp_path):
    """``check`` exits 1 for a violated limit: an input error under --debug must stay 2 (it
    was 1, Python's status for an uncaught exception), with the traceback above its line."""
    missing = tmp_path / "missing.csv"
    plain = hodyn("check", IIWA, missing)
    debug = hodyn("check", IIWA, missing, "--debug")
    assert plain.returncode == debug.returncode == 2, debug.stderr
    assert "Traceback" not in plain.stderr and "Traceback" in debug.stderr
    assert debug.stderr.splitlines()[-1] == plain.stderr.strip()
