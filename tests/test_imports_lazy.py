"""What ``retime --optimal`` imports besides what it uses, held off (issue 37, goal 4: a
1000-sample path in 1 s end to end, of which the process's start is ~0.4 s): checks of
``sys.modules`` and of the source, not timings."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import hodyn_cli
from conftest import URDF, assert_not_imported
from hodyn_cli.algorithms.limits.distinct import distinct
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.io.results import write_trajectory

LIMITS = Path(hodyn_cli.__file__).parent / "algorithms" / "limits"


@pytest.mark.parametrize("values", [
    np.array([3, 1, 2, 1, 3, 3]), np.arange(0), np.array([7]),
    np.random.default_rng(5).integers(-4, 9, 200),
    np.round(np.random.default_rng(6).normal(size=300), 1),
    np.random.default_rng(7).normal(size=(20, 3)),  # (flattened, as np.unique does)
    np.array([2.5, -1.0, 2.5, 1e-300, -1.0, np.inf, -np.inf, np.inf]),
])
def test_distinct_is_numpys_unique_to_the_bit(values):
    out, numpys = distinct(values), np.unique(values)
    assert out.dtype == numpys.dtype and out.shape == numpys.shape
    assert out.tobytes() == numpys.tobytes()


def test_the_limits_modules_call_no_bare_np_unique():
    """NumPy 2's ``np.unique(a)`` imports numpy.ma (``np.ma.is_masked``: ~16-20 ms of the
    command's start); with ``return_index``, ``return_inverse`` or ``return_counts`` it does
    not. The solvers' modules take :func:`distinct` instead."""
    asked = {"return_index", "return_inverse", "return_counts"}
    bare = []
    for path in sorted(LIMITS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "unique" and not asked & {k.arg for k in node.keywords}:
                bare.append(f"{path.name}:{node.lineno}")
    assert not bare, bare


def test_a_point_to_point_retime_imports_no_masked_arrays_and_no_csv_reader(tmp_path):
    """``hodyn retime --optimal`` of an HDF5 point-to-point path (reachability, its corners'
    ramps: their joins' goals, the local rounds' points) in a process of its own: neither
    numpy.ma (np.unique asked for it there) nor csv (an HDF5 input reads no CSV) is imported
    after numpy, nor scipy (no retime needs it: test_programme_design.py checks the windows)."""
    robot = str(URDF / "planar_2r.urdf")
    model = hodyn_cli.load_robot(robot)
    low, high = model.limits[:, 0], model.limits[:, 1]
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    waypoints = middle + half * np.array([[-0.3], [0.3], [-0.3]])
    traj = generate(model, "point-to-point", waypoints=waypoints, derivatives=4,
                    segment_duration=[0.5], rate=100.0)
    source, out = tmp_path / "p2p.h5", tmp_path / "out.h5"
    write_trajectory(str(source), traj)
    assert_not_imported(["retime", robot, str(source), "--optimal", "-q", "-o", str(out)],
                        ("numpy.ma", "csv", "scipy"))
