"""A pause in the input (every joint still over more than one sample: a waypoint repeated)
has no path of its own: ``retime --optimal`` passes it at once along the path, so the
retimed motion has no pause there. Said in a warning naming the span, not dropped in
silence (benchmarks/README.md, stranger5: a 3.5 s motion with a 1 s hold came out 0.88 s
long, nothing said); ``--to-limits`` keeps the pause and says nothing."""

import numpy as np

import hodyn_cli
from conftest import URDF, hodyn_here
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.io import write_trajectory

MODEL = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
#: the 2R arm to a waypoint, held there a whole segment (the same waypoint twice), and on
WAYPOINTS = [[0.0, 0.0], [0.6, -0.4], [0.6, -0.4], [1.0, 0.3]]


def _paused():
    return generate(MODEL, "point-to-point", waypoints=WAYPOINTS, segment_duration=1.0,
                    rate=100.0, derivatives=4)


def test_a_pause_inside_the_path_is_found_and_said():
    motion = _paused()
    still = np.all(motion.derivatives[:, 1] == 0, axis=1)
    assert still[100:201].all()  # (the input holds still from t = 1 s to 2 s)
    out, opt = hodyn_cli.retime_optimal(MODEL, motion)
    assert opt.pauses == [(1.0, 2.0)]
    assert opt.duration < 3.0 - 1.0  # (the hold is gone: it had a whole segment)
    (text,) = opt.paused
    assert text.startswith("holds still from t = 1 s to 2 s (1 s): a pause is no part of")
    # the retimed motion does not hold still over a whole sample interval anywhere inside
    qd = out.derivatives[1:-1, 1]
    assert not np.any(np.all(np.abs(qd[1:]) + np.abs(qd[:-1]) == 0, axis=1))


def test_the_warning_names_the_file_and_to_limits_keeps_the_pause(tmp_path):
    source = tmp_path / "paused.h5"
    write_trajectory(source, _paused())
    urdf = URDF / "planar_2r.urdf"
    optimal = hodyn_here("retime", urdf, source, "--optimal", "-o", tmp_path / "fast.h5")
    assert optimal.returncode == 0, optimal.stderr
    assert f"{source}: holds still from t = 1 s to 2 s (1 s)" in optimal.stderr
    scaled = hodyn_here("retime", urdf, source, "--to-limits", "-o", tmp_path / "scaled.h5")
    assert scaled.returncode == 0 and "holds still" not in scaled.stderr
