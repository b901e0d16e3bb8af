"""Optional dependencies (extras): where one is missing, the command that needs it says so in
one line (exit 2, nothing written), and everything else works without it."""

from __future__ import annotations

import subprocess
import sys

from conftest import SAMPLES, URDF

IIWA = str(URDF / "iiwa14.urdf")

#: run hodyn in a fresh interpreter where importing the named packages fails
HIDDEN = """
import sys
for name in {names!r}:
    sys.modules[name] = None  # import raises ImportError
from hodyn_cli.cli.app import main
sys.argv = ["hodyn", *{args!r}]
main()
"""


def hodyn_without(names, *args, cwd=None):
    return subprocess.run([sys.executable, "-c", HIDDEN.format(names=list(names), args=list(args))],
                          capture_output=True, text=True, cwd=cwd)


def test_html_report_without_matplotlib(tmp_path):
    out = tmp_path / "r.html"
    r = hodyn_without(["matplotlib"], "validate", IIWA, str(SAMPLES / "iiwa14_cosine.h5"),
                      "--samples", "5", "--report", str(out))
    assert r.returncode == 2 and 'pip install -e ".[plots]" in hodyn' in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not out.exists()
    r = hodyn_without(["matplotlib"], "validate", IIWA, str(SAMPLES / "iiwa14_cosine.h5"),
                      "--samples", "5", "--report", str(tmp_path / "r.json"))
    assert r.returncode == 0, r.stderr


def test_import_without_rosbags(tmp_path):
    r = hodyn_without(["rosbags", "rosbags.highlevel"], "import", str(tmp_path / "x.bag"))
    assert r.returncode == 2 and 'pip install -e ".[ros]" in hodyn' in r.stderr, r.stderr


def test_compute_needs_no_extra(tmp_path):
    out = tmp_path / "tau.csv"
    r = hodyn_without(["matplotlib", "rosbags", "dask", "distributed"], "compute", IIWA,
                      str(SAMPLES / "iiwa14_cosine.csv"), "-o", str(out))
    assert r.returncode == 0 and out.stat().st_size > 0, r.stderr
