"""Arrays kept on disk (:class:`hodyn_cli.algorithms.limits.stored.Stored`): what a block
write puts is what a read of any slice across the blocks' seams gives back, bit for bit, and
nothing is left on disk; where the temporary file cannot be made or written, one line says
which directory and why, and the output is left as it was."""

from __future__ import annotations

import errno
import os

import numpy as np
import pytest
from test_reachability import _zigzag
from typer.testing import CliRunner

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import bsplines, rates
from hodyn_cli.algorithms.limits import stored as stored_module
from hodyn_cli.algorithms.limits.stored import Stored
from hodyn_cli.cli.app import app


@pytest.mark.parametrize("on_disk", [0, stored_module.ON_DISK])
def test_rows_written_a_block_at_a_time_read_back_across_the_seams(monkeypatch, on_disk):
    """Rows written in blocks of 7 (the last one short) read back as the whole array's
    slices, starting and ending inside blocks, by negative ends, and row by row: on disk,
    and in memory (an array below ON_DISK bytes)."""
    monkeypatch.setattr(stored_module, "ON_DISK", on_disk)
    rng = np.random.default_rng(3)
    whole = rng.standard_normal((50, 3))
    stored = Stored(50, (3,))
    for a in range(0, 50, 7):
        stored.write(a, whole[a : a + 7])
    for a, b in ((0, 50), (3, 18), (6, 8), (13, 14), (20, 20), (-5, None), (40, 99)):
        assert np.array_equal(stored[a:b], whole[a:b])
    assert all(np.array_equal(stored[i], whole[i]) for i in (0, 6, 7, 49, -1, -50))
    assert stored[-1:].shape == (1, 3) and stored[5:2].shape == (0, 3)
    with pytest.raises(IndexError):
        stored[50]
    assert (stored._file is None) == (on_disk > 0)
    stored[0:1][0, 0] = 1e9  # (a read is a copy: the array is not changed through it)
    assert stored[0][0] == whole[0, 0]


def test_a_rewritten_row_is_the_last_one_written_and_the_file_has_no_name(monkeypatch):
    """A row written twice reads as the second write (the passes' pieces share their end
    point), a vector array reads as one; the file is unlinked from the start (gone on an
    error or Ctrl-C alike)."""
    monkeypatch.setattr(stored_module, "ON_DISK", 0)
    stored = Stored(4)
    stored.write(0, np.array([1.0, 2.0, 3.0]))
    stored.write(2, np.array([5.0, 6.0]))
    assert stored[:].tolist() == [1.0, 2.0, 5.0, 6.0] and stored.shape == (4,)
    assert os.fstat(stored._file.fileno()).st_nlink == 0


def test_rows_appended_are_kept_and_taken_by_index(monkeypatch):
    """An array grown by appends (the arc-length table as the input is read) is on disk
    however small, every row kept; rows taken at sorted indices (repeated ones too) across
    TAKEN-row reads are those rows."""
    monkeypatch.setattr(stored_module, "TAKEN", 4)
    whole = np.random.default_rng(5).standard_normal((25, 3))
    stored = Stored(0, (3,), grows=True)
    for a, b in ((0, 4), (4, 9), (9, 25)):
        stored.append(whole[a:b])
        assert stored._memory is None and stored.shape == (b, 3)
        assert np.array_equal(stored[:], whole[:b])
    index = np.array([0, 0, 3, 4, 9, 17, 24])
    assert np.array_equal(stored.take(index), whole[index])
    assert stored.take(np.zeros(0, dtype=int)).shape == (0, 3)


def test_a_write_cut_short_is_finished(monkeypatch):
    """A write the system cuts short (as a disk filling up does before it refuses) has its
    rest written: the rows read back whole."""
    monkeypatch.setattr(stored_module, "ON_DISK", 0)
    real = os.pwrite
    monkeypatch.setattr(stored_module.os, "pwrite",
                        lambda fd, data, at: real(fd, data[: max(1, len(data) // 3)], at))
    stored = Stored(5, (2,))
    stored.write(1, np.arange(8.0).reshape(4, 2))
    assert stored[1:].ravel().tolist() == list(range(8))


def test_a_missing_tmpdir_is_said_in_one_line(monkeypatch, tmp_path):
    """TMPDIR set to a folder that does not exist is not passed over
    for /tmp: the error names it, what failed and the remedy."""
    monkeypatch.setattr(stored_module, "ON_DISK", 0)
    missing = tmp_path / "nowhere"
    monkeypatch.setenv("TMPDIR", str(missing))
    with pytest.raises(stored_module.Unstorable) as failed:
        Stored(4)
    assert failed.value.source == str(missing)
    assert "cannot make the temporary file" in failed.value.message
    assert "No such file or directory" in str(failed.value) and "\n" not in str(failed.value)


def test_a_growing_array_without_its_directory_is_held_while_short(monkeypatch, tmp_path):
    """A growing array (the arc-length table) whose file cannot be made (TMPDIR missing) is
    held in memory up to ON_DISK bytes, read back as written; the append past that raises
    the error naming the directory. An array of a known length above ON_DISK still does."""
    monkeypatch.setattr(stored_module, "ON_DISK", 10 * 3 * 8)  # ten rows of three
    missing = tmp_path / "nowhere"
    monkeypatch.setenv("TMPDIR", str(missing))
    grown = Stored(0, (3,), grows=True)
    rows = np.arange(30.0).reshape(10, 3)
    grown.append(rows[:4])
    grown.append(rows[4:])
    assert np.array_equal(grown[0:10], rows) and np.array_equal(grown[-1], rows[-1])
    for make in (lambda: grown.append(rows[:1]), lambda: Stored(11, (3,))):
        with pytest.raises(stored_module.Unstorable) as failed:
            make()
        assert failed.value.source == str(missing)
        assert "cannot make the temporary file" in failed.value.message
    assert len(grown) == 10 and not missing.exists()


def _full(fd, data, at):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_ends_retime_in_one_line_and_leaves_the_output(monkeypatch, tmp_path):
    """``retime --optimal`` whose arrays go to disk (ON_DISK 0: every one) on a disk that is
    full: exit 2, one line naming the temporary directory and the disk's refusal, the
    existing output untouched; the same run with room succeeds. With TMPDIR missing the
    short path runs (its arrays all under ON_DISK bytes: it had failed) and writes the same
    file; one whose arrays go to disk is one line naming the directory, the output as it was."""
    iiwa = URDF / "iiwa14.urdf"
    path, out = tmp_path / "in.h5", tmp_path / "out.h5"
    made = CliRunner().invoke(app, ["generate", str(iiwa), "--kind", "cosine", "--duration",
                                    "1", "--rate", "20", "--derivatives", "4", "-o", str(path)])
    assert made.exit_code == 0, made.output
    out.write_bytes(b"before")
    monkeypatch.setattr(stored_module, "ON_DISK", 0)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(stored_module.os, "pwrite", _full)
    args = ["retime", str(iiwa), str(path), "--optimal", "-q", "-o", str(out)]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [
        f"hodyn: error: {tmp_path}: cannot write the temporary file of a long path's arrays: "
        "No space left on device (set TMPDIR to a writable directory with room)"]
    assert out.read_bytes() == b"before"
    monkeypatch.undo()
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert out.read_bytes() != b"before"
    missing = tmp_path / "nowhere"
    monkeypatch.setenv("TMPDIR", str(missing))
    res = CliRunner().invoke(app, [*args[:-1], str(tmp_path / "without.h5")])
    assert res.exit_code == 0, res.output
    kept = out.read_bytes()
    assert (tmp_path / "without.h5").read_bytes() == kept
    monkeypatch.setattr(stored_module, "ON_DISK", 0)
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
    assert res.output.startswith(f"hodyn: error: {missing}: cannot make the temporary file")
    assert out.read_bytes() == kept and not missing.exists()


def test_a_retimed_path_with_corners_is_the_same_to_the_bit_with_every_array_on_disk(
        monkeypatch):
    """review22: ``retime --optimal`` by reachability on the 2R's path through 3 waypoints
    (a corner) with a jerk and a torque-rate limit (the rounds' coefficients, ``rates._Kept``,
    read CHUNK points at a time): the same output to the bit with every array on disk
    (ON_DISK 0), read 3 rows at a time (TAKEN), the shapes' rows a block of 37
    (``bsplines.BLOCK``) and the rounds' coefficients 50 points at a time, as in memory."""
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    _, traj = _zigzag(model, legs=2)
    limits = {"joint1": {"jerk": 40.0}, "joint2": {"torque_rate": 30.0}}
    runs = []
    for on_disk in (stored_module.ON_DISK, 0):
        monkeypatch.setattr(stored_module, "ON_DISK", on_disk)
        out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
        assert opt.used == "reachability"
        runs.append(out)
        monkeypatch.setattr(stored_module, "TAKEN", 3)
        monkeypatch.setattr(bsplines, "BLOCK", 37)
        monkeypatch.setattr(rates, "CHUNK", 50)
    memory, disk = runs
    assert np.array_equal(memory.derivatives, disk.derivatives)
    assert np.array_equal(memory.t, disk.t)
