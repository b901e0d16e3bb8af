"""A retimed motion follows its input's path (issue 37 goal 2, stray22): ``hodyn validate
--path INPUT`` measures each sample's distance from INPUT's interpolant
(:mod:`hodyn_cli.algorithms.verification.stray`). Before, nothing looked: the generic
quadruped's leg's optimal output lay 0.227 rad off its path at hairpin turns (shape22) while
check and validate passed."""

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF
from hodyn_cli.algorithms.limits import reachability, strays
from hodyn_cli.algorithms.verification import stray
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory

IIWA = str(URDF / "iiwa14.urdf")


def _curve(t: np.ndarray, w: float = 1.0) -> Trajectory:
    """A figure eight, (sin t, sin 2t) played at w: it crosses itself at the origin and
    reverses nowhere; q, q', q'' exact."""
    a = w * t
    d = np.stack([np.stack([np.sin(a), np.sin(2 * a)], 1),
                  w * np.stack([np.cos(a), 2 * np.cos(2 * a)], 1),
                  -w**2 * np.stack([np.sin(a), 4 * np.sin(2 * a)], 1)], 1)
    return Trajectory(("a", "b"), d, t)


def test_a_motion_along_a_self_crossing_path_at_another_pace_lies_on_it():
    path = _curve(np.linspace(0.0, 4 * np.pi, 201))  # (twice round: every point revisited)
    t = np.linspace(0.0, 4 * np.pi, 1733)
    q = _curve(4 * np.pi * (t / t[-1]) ** 2).derivatives[:, 0]  # (slow, then fast)
    found = stray.strayed(path, q)
    assert found.share.max() < 1e-7  # (the interpolant's error: 4e-9; a sample of one lap
    # may be matched to the same point of the other: the distance is the same)


def test_a_bent_stretch_is_found_where_it_is():
    path = _curve(np.linspace(0.0, 2 * np.pi, 101))
    q = _curve(np.linspace(0.0, 2 * np.pi, 5000)).derivatives[:, 0]
    q[3000:3010, 1] += 0.003  # (3e-3 of b's travel, 2: 1.5e-3 > STRAY)
    found = stray.strayed(path, q)
    assert found.worst() in range(3000, 3010) and found.joint[found.worst()] == 1
    assert found.share.max() > strays.STRAY
    assert found.share[:3000].max() < 1e-7 and found.share[3010:].max() < 1e-7


def test_a_reversing_path_is_matched_on_both_legs():
    """A joint that goes out and back (a cusp at its turn): each sample matched to a point of
    the path, whichever leg."""
    t = np.linspace(0.0, 1.0, 51)
    d = np.stack([np.stack([np.sin(np.pi * t)], 1), np.stack([np.pi * np.cos(np.pi * t)], 1)],
                 1)
    path = Trajectory(("a",), d, t)
    q = np.sin(np.pi * np.linspace(0.0, 1.0, 777))[:, None]
    assert stray.strayed(path, q).share.max() < 1e-7


def test_a_sample_by_another_branch_many_laps_over_is_matched_to_its_own():
    """A narrow loop played ten times (its two branches 1e-3 apart, a tenth of the seeds'
    spacing; its phase shifted so that the branches' seeds do not face each other): a
    sample on one branch between its seeds has the other branch's nearest seed of every lap
    nearer than its own, more than the 8 nearest seeds looked at before (the generic
    quadruped's leg along its Fourier path, five laps: the windows' output, on the path to
    1e-5, was measured 1e-3 off, 7e-4 of the knee's travel, and validate --path failed it).
    The loop's tips turn with a radius of 2.5e-7: the projection's bisections reach them."""
    def loop(u: np.ndarray) -> np.ndarray:
        a = 2 * np.pi * (u + 0.00123)
        return np.stack([np.stack([np.sin(a), 5e-4 * np.cos(a)], 1),
                         2 * np.pi * np.stack([np.cos(a), -5e-4 * np.sin(a)], 1),
                         -4 * np.pi**2 * np.stack([np.sin(a), 5e-4 * np.cos(a)], 1)], 1)

    t = np.linspace(0.0, 10.0, 1001)
    path = Trajectory(("a", "b"), loop(t), t)
    s = np.sort(np.random.default_rng(3).uniform(0.0, 10.0, 4000))
    found = stray.strayed(path, loop(s)[:, 0])
    assert found.distance.max() < 1e-9  # (the interpolant's error: ~1e-12)


def test_a_periodic_path_s_start_seed_gives_way_to_its_copies():
    """A circle played 2.5 times, and points on it just before its start's angle: the path
    passes there on its later laps, not before its start, where the start seed's foot
    stops. Every seed within reach is projected but one of each set at the same distance
    (a lap's copies): of the start seed's, a later lap's (the kd-tree's nearest of equals is
    any of them: at the quadruped leg's end, its 2.5 laps' last seed)."""
    def circle(u: np.ndarray) -> np.ndarray:
        a = 2 * np.pi * u
        return np.stack([np.stack([np.cos(a), np.sin(a)], 1),
                         2 * np.pi * np.stack([-np.sin(a), np.cos(a)], 1),
                         -4 * np.pi**2 * np.stack([np.cos(a), np.sin(a)], 1)], 1)

    from scipy.spatial import cKDTree

    t = np.linspace(0.0, 2.5, 251)
    path = Trajectory(("a", "b"), circle(t), t)
    q = circle(-np.array([1e-5, 1e-4, 3e-4]))[:, 0]
    follower = stray.Follower(path, len(q))
    tree = cKDTree(stray._positions(path, follower.fine))
    row, j = follower._around(tree, q, tree.query(q)[0])
    starts = np.isin(follower.fine[j], (0.0, 1.0, 2.0))  # (the start and its copies)
    assert np.all(np.bincount(row[starts]) == 1) and 0.0 not in follower.fine[j]
    assert stray.strayed(path, q).distance.max() < 1e-9


@pytest.fixture(scope="module")
def retimed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stray22")
    src, out = folder / "in.h5", folder / "out.h5"
    runner = CliRunner()
    for args in (["generate", IIWA, "--kind", "fourier", "--rate", "100", "--duration", "2",
                  "-o", str(src), "-q"],
                 ["retime", IIWA, str(src), "--optimal", "-q", "-o", str(out)]):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
    return src, out


def test_validate_path_passes_a_retiming_and_fails_a_bent_one(retimed, tmp_path):
    src, out = retimed
    runner = CliRunner()
    res = runner.invoke(app, ["validate", IIWA, str(out), "--path", str(src), "--samples", "50"])
    assert res.exit_code == 0, res.output
    assert "follows --path" in res.output
    bent = tmp_path / "bent.h5"
    with h5py.File(out) as f, h5py.File(bent, "w") as g:
        for key in f:
            g[key] = f[key][()]
        g.attrs.update(f.attrs)
        q = g["q"][()]
        n = len(q)
        q[n // 2 : n // 2 + 3, 3] += 0.01  # (a joint bent at three samples)
        g["q"][...] = q
    res = runner.invoke(app, ["validate", IIWA, str(bent), "--path", str(src), "--samples",
                              "50"])
    assert res.exit_code == 1, res.output
    assert "follows --path" in res.output and "iiwa_joint_4" in res.output
    res = runner.invoke(app, ["validate", IIWA, str(out), "--path", str(tmp_path / "no.h5")])
    assert res.exit_code == 2 and "no.h5" in res.output


def _bent_shape(monkeypatch, amplitude: float) -> None:
    """The shape reachability plays moved off the path by ``amplitude sin(sigma / L)`` in
    its first joint, with every sigma-derivative of that: the played motion is consistent,
    only not on the path."""
    jet, L = reachability.Arc.jet, 0.3

    def bent(self, sigma, orders):
        out = jet(self, sigma, orders)
        for k in range(orders):
            out[:, k, 0] += amplitude / L**k * np.sin(sigma / L + k * np.pi / 2)
        return out

    monkeypatch.setattr(reachability.Arc, "jet", bent)


def test_the_retiming_holds_its_shape_to_the_path(retimed, tmp_path, monkeypatch):
    """reachability's shape moved 0.02 rad off the path, consistently in every derivative (its
    played output would pass the derivative checks and its limits): the retiming's own check
    of its shape (``reachability.off_path``) finds it. auto plays the windows' law instead,
    on the path, and says why; ``--solver reachability`` exits 2 naming the joint and writes
    nothing."""
    src, _ = retimed
    _bent_shape(monkeypatch, 0.02)
    runner = CliRunner()
    out, kept = tmp_path / "out.h5", tmp_path / "kept.h5"
    res = runner.invoke(app, ["retime", IIWA, str(src), "--optimal", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "strays" in res.output and "iiwa_joint_1" in res.output, res.output
    with h5py.File(out) as f:
        assert f.attrs["solver"] == "windows"
    kept.write_bytes(b"untouched")
    res = runner.invoke(app, ["retime", IIWA, str(src), "--optimal", "--solver",
                              "reachability", "-o", str(kept)])
    assert res.exit_code == 2, res.output
    assert "strays" in res.output and "iiwa_joint_1" in res.output
    assert kept.read_bytes() == b"untouched"
    monkeypatch.undo()
    res = runner.invoke(app, ["validate", IIWA, str(out), "--path", str(src), "--samples", "50"])
    assert res.exit_code == 0, res.output


def test_validate_path_fails_a_retiming_whose_shape_left_the_path(retimed, tmp_path,
                                                                  monkeypatch):
    """reachability's shape moved 0.02 rad off the path and the retiming's own check of it
    left out: the played output passes the derivative checks and its limits, and validate
    --path fails it, naming the joint."""
    src, _ = retimed
    _bent_shape(monkeypatch, 0.02)
    monkeypatch.setattr(reachability, "ON_PATH", np.inf)
    out = tmp_path / "out.h5"
    runner = CliRunner()
    res = runner.invoke(app, ["retime", IIWA, str(src), "--optimal", "-q", "-o", str(out)])
    assert res.exit_code == 0, res.output
    monkeypatch.undo()
    res = runner.invoke(app, ["validate", IIWA, str(out), "--path", str(src), "--samples", "50"])
    assert res.exit_code == 1 and "follows --path" in res.output, res.output
    assert "iiwa_joint_1" in res.output
