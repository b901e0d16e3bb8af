"""``hodyn retime`` on a legged robot's walk without ``--floating-base``: the file's floating
root (``base_``) and contact (``contact_``) columns are not in the output, and the command
says so. ``--optimal`` refuses ``--floating-base``, and a go2 walk retimed with it (the
joints alone) lost those columns without a word (issue 37: never silently dropped;
benchmarks/stranger_optimal.py's fresh group, branch stranger5)."""

import numpy as np
import pytest
from test_contacts_cli import motion, run, table

from conftest import URDF
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import open_sink, trajectory_datasets
from hodyn_cli.io.results import base_datasets
from hodyn_cli.modeling.urdf import load_model

WARNING = "its base_ and contact_ columns are not written"


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """The quadruped's swaying trunk (test_contacts_cli's walk, a foot up) with its front
    left thigh swinging (the joints move: a time law has something to play), as CSV."""
    model = load_model(URDF / "quadruped.urdf")
    sway = motion(model)
    w = 2 * np.pi * 2.5
    q = sway.derivatives.copy()
    thigh = model.joint_names.index("FL_HFE")
    for k in range(q.shape[1]):  # d^k/dt^k of 0.2 sin(w t)
        q[:, k, thigh] += 0.2 * w**k * np.sin(w * sway.t + k * np.pi / 2)
    traj = Trajectory(model.joint_names, q, sway.t, series=sway.series, base=sway.base)
    data, columns = trajectory_datasets(traj)
    more, cols = base_datasets(traj)
    path = tmp_path_factory.mktemp("dropped") / "walk.csv"
    with open_sink(str(path), columns | cols, {}) as sink:
        sink.write(data | more)
    return path


# --optimal and --to-limits --rate take one path (cli/feasibility.py: the warning's
# `resampled` and _retime_optimal, which writes the joints alone); --to-limits --rate's
# uniform law costs ~0.1 s of CPU, --optimal's solve ~1.7 s: in the slow run
@pytest.mark.parametrize("how", [pytest.param(["--optimal"], marks=pytest.mark.slow),
                                 ["--to-limits", "--rate", "200"], ["--factor", "2"]])
def test_a_walk_retimed_without_its_floating_base_says_its_base_columns_are_dropped(
        walk, tmp_path, how):
    out = tmp_path / "out.csv"
    r = run("retime", URDF / "quadruped.urdf", walk, *how, "-o", out)
    assert r.exit_code == 0, r.output
    assert not [name for name in table(out) if name.startswith(("base_", "contact_"))]
    assert f"hodyn: warning: {walk}: {WARNING}" in " ".join(r.output.split()), r.output
    said = "do not go with --floating-base yet" in " ".join(r.output.split())
    assert said == (how[0] != "--factor"), r.output


def test_nothing_is_said_where_nothing_is_dropped(walk, tmp_path):
    """With --floating-base --factor the columns are written (scaled); a file without them
    is said nothing."""
    r = run("retime", URDF / "quadruped.urdf", walk, "--floating-base", "--factor", "2",
            "-o", tmp_path / "out.csv")
    assert r.exit_code == 0 and WARNING not in " ".join(r.output.split()), r.output
    assert "base_Vb_vx" in table(tmp_path / "out.csv")
    r = run("retime", URDF / "iiwa14.urdf", URDF.parent / "sample_trajectories" /
            "iiwa14_cosine.csv", "--factor", "2", "-o", tmp_path / "iiwa.csv")
    assert r.exit_code == 0 and "warning" not in r.output, r.output
