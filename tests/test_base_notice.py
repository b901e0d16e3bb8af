"""The notice that a legged robot's root "looks like a mobile base ... unless --floating-base"
is said where it changes the result and the user has not chosen: by a command that takes
--floating-base, run without it; not with --floating-base given, nor by a command that has
no such option (``generate`` said it on every run). ``info`` describes the robot: it says it.
On the bundled quadruped: ``generate`` through the real command line (``python -m
hodyn_cli``), the others as it runs them in this process (:func:`conftest.hodyn_here`: no
second Python start)."""

import subprocess
import sys

from conftest import URDF, hodyn_here

QUADRUPED = URDF / "quadruped.urdf"
NOTICE = "looks like a mobile base"


def hodyn(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hodyn_cli", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_the_mobile_base_notice_only_where_floating_base_is_open(tmp_path):
    motion, torques = tmp_path / "q.csv", tmp_path / "tau.csv"
    made = hodyn("generate", QUADRUPED, "--kind", "cosine", "--duration", "0.1", "--rate", "50",
                 "-o", motion)
    assert made.returncode == 0 and motion.exists(), made.stderr
    assert NOTICE not in made.stderr  # (generate has no --floating-base)
    welded = hodyn_here("compute", QUADRUPED, motion, "-o", torques)
    assert welded.returncode == 0 and torques.exists(), welded.stderr
    assert welded.stderr.count(NOTICE) == 1 and "--floating-base" in welded.stderr
    described = hodyn_here("info", QUADRUPED)
    assert described.returncode == 0 and described.stderr.count(NOTICE) == 1
