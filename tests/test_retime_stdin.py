"""``hodyn retime ROBOT - ...``: the trajectory from stdin, which --to-limits reads twice
(the scale, then the output) and --optimal three times (the law, the played motion's
dynamics, the output), copied a block at a time to an unnamed file in ``$TMPDIR``
(:mod:`hodyn_cli.io.spool`) and read from there as a file is; it was held whole in memory
(the iiwa's 10^6 samples, 690 MB of CSV, with --to-limits: 690 MiB peak RSS, 159 MiB now).
The output is the file's, byte for byte."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import PEAK, URDF, hodyn_here, random_cosine
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.urdf import load_model

IIWA, TWO_R = URDF / "iiwa14.urdf", URDF / "planar_2r.urdf"


def _motion_csv(path: Path, robot: Path, samples: int, rate: float) -> bytes:
    """A smooth motion of ``samples`` samples at ``rate`` Hz to qdddd, written to ``path``
    as CSV; its bytes."""
    model = load_model(robot)
    write_trajectory(str(path), random_cosine(model, np.arange(samples) / rate, orders=5,
                                              seed=4))
    return path.read_bytes()


@pytest.mark.parametrize("how", [["--to-limits"], ["--optimal"]],
                         ids=["to-limits", "optimal"])
def test_a_trajectory_from_stdin_is_retimed_as_its_file(tmp_path, how):
    """The 2R arm's 1 s at 100 Hz: from stdin, the file's output to the byte (CSV). (1 s:
    its optimal retiming ~0.25 s of CPU, 2 s's ~0.7: the input's route is the same)"""
    csv = tmp_path / "in.csv"
    data = _motion_csv(csv, TWO_R, 101, 100.0)
    outs = {}
    for name, source, given in (("file", csv, None), ("pipe", "-", data.decode())):
        outs[name] = tmp_path / f"{name}.csv"
        run = hodyn_here("retime", str(TWO_R), str(source), *how, "-o", str(outs[name]),
                         "-q", input=given)
        assert run.returncode == 0, run.stderr
    assert outs["file"].read_bytes() == outs["pipe"].read_bytes()


@pytest.mark.slow
def test_many_samples_from_a_pipe_are_retimed_in_a_chunks_memory(tmp_path):
    """The iiwa's 2 x 10^5 samples (140 MB of CSV) piped into the real ``retime
    --to-limits``: the file's output, the peak RSS within 30 MiB of the file's (held, ~1 kB
    a sample more), nothing left in ``$TMPDIR``."""
    csv, tmp = tmp_path / "m.csv", tmp_path / "tmp"
    tmp.mkdir()
    data = _motion_csv(csv, IIWA, 200_000, 200.0)
    peaks = {}
    for name, source, given in (("file", csv, None), ("pipe", "-", data)):
        proc = subprocess.Popen(
            [sys.executable, "-c", PEAK, "retime", str(IIWA), str(source), "--to-limits", "-o",
             str(tmp_path / f"{name}.h5"), "-q"], stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "TMPDIR": str(tmp)})
        _, err = proc.communicate(given, timeout=600)
        assert proc.returncode == 0, err.decode()
        peaks[name] = int(err.decode().split("PEAK ")[-1].split()[0]) / 1024
    import h5py

    with h5py.File(tmp_path / "file.h5") as a, h5py.File(tmp_path / "pipe.h5") as b:
        assert np.array_equal(a["q"][:], b["q"][:]) and np.array_equal(a["t"][:], b["t"][:])
    assert peaks["pipe"] < peaks["file"] + 30, peaks
    assert list(tmp.iterdir()) == []
