"""The notice that a legged robot's root "looks like a mobile base ... unless --floating-base"
is said where it changes the result and the user has not chosen: by a command that takes
--floating-base, run without it; not with --floating-base given, nor by a command that has
no such option (``generate`` said it on every run), nor by a run whose result it does not
change (``retime --factor`` of a file without base_ columns, ``retime --optimal``). ``info``
describes the robot: it says it.
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


def test_retime_proposes_floating_base_only_where_it_changes_the_result(tmp_path):
    """``retime --factor K`` scales every derivative as given: --floating-base changes its
    output only where the file has base_ columns (carried with it, dropped without); the
    real command line on a file without them says nothing of a mobile base (it did: review30).
    ``--to-limits``' k comes from the torques, which the free root changes: said (not by
    ``--optimal``, which refuses --floating-base)."""
    motion = tmp_path / "q.csv"
    assert hodyn_here("generate", QUADRUPED, "--kind", "cosine", "--duration", "0.1", "--rate",
                      "50", "-o", motion).returncode == 0
    scaled = hodyn("retime", QUADRUPED, motion, "--factor", "2", "-o", tmp_path / "r.csv")
    assert scaled.returncode == 0 and "played k = 2 times slower" in scaled.stderr
    assert NOTICE not in scaled.stderr
    lines = motion.read_text().splitlines()
    with_base = tmp_path / "qb.csv"
    with_base.write_text("\n".join([lines[0] + ",base_p_x"] + [f"{r},0" for r in lines[1:]]))
    for args in ((with_base, "--factor", "2"), (motion, "--to-limits")):
        run = hodyn_here("retime", QUADRUPED, *args, "-o", tmp_path / "r.csv")
        assert run.returncode == 0 and run.stderr.count(NOTICE) == 1, (args, run.stderr)
