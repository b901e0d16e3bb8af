"""``hodyn import`` of MuJoCo's own state logs (hodyn_cli.io.mujoco_log, pipeline.mujoco_states):
a motion MuJoCo simulates (mj_step under a known control), saved as MuJoCo users save it
(qpos, qvel, qacc, time in .npz or HDF5), imported and put through ``hodyn compute`` gives
MuJoCo's mj_inverse forces; bad logs are one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import ROOT
from hodyn_cli.cli.app import app
from hodyn_cli.modeling.urdf import load_model

mjr = pytest.importorskip("mjcf_reference")  # skips where mujoco is not installed
mujoco = mjr.mujoco
ACROBOT = ROOT / "mjcf" / "acrobot.xml"
G = ",".join(repr(float(v)) for v in mjr.GRAVITY)


def simulate(path: Path, steps: int, seed: int = 0, **state) -> dict[str, np.ndarray]:
    """qpos, qvel, qacc, time of ``steps`` steps of MuJoCo (rigid-body dynamics only) from a
    random state under a random generalized force (scaled by the model's mass: the fish
    weighs 40 g), and the reference forces mj_inverse gives at each logged state."""
    m = mjr.rigid_body_only(path)
    d = mujoco.MjData(m)
    rng = np.random.default_rng(seed)
    d.qpos[:] = state.get("qpos", d.qpos + 0.3 * rng.normal(size=m.nq))
    if m.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE:  # a turned unit quaternion
        d.qpos[3:7] = rng.normal(size=4)
        d.qpos[3:7] /= np.linalg.norm(d.qpos[3:7])
    d.qvel[:] = rng.normal(size=m.nv)
    scale = 0.1 * m.body_mass.sum()
    log: dict[str, list] = {"qpos": [], "qvel": [], "qacc": [], "time": [], "ref": []}
    for _ in range(steps):
        d.qfrc_applied[:] = scale * rng.normal(size=m.nv)
        mujoco.mj_forward(m, d)
        for key in ("qpos", "qvel", "qacc", "time"):
            log[key].append(np.array(getattr(d, key), copy=True))
        log["ref"].append(mjr.mj_inverse(m, d.qpos, d.qvel, d.qacc))
        mujoco.mj_step(m, d)
    return {k: np.array(v) for k, v in log.items()}


def save(path: Path, log: dict[str, np.ndarray], keys=("qpos", "qvel", "qacc", "time")) -> Path:
    if path.suffix == ".npz":
        np.savez(path, **{k: log[k] for k in keys})
    else:
        with h5py.File(path, "w") as f:
            for k in keys:
                f[k] = log[k]
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def read_csv(path: Path) -> dict[str, np.ndarray]:
    lines = path.read_text().splitlines()
    values = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    return {name: values[:, k] for k, name in enumerate(lines[0].split(","))}


@pytest.mark.parametrize("suffix", [".npz", ".h5"])
def test_free_root_log_gives_mujocos_forces(tmp_path, suffix):
    """fish.xml (a free root, two joints in one body): MuJoCo's qpos/qvel/qacc imported, then
    compute --floating-base --base-wrench equals mj_inverse's forces, the free joint's
    (force in the world frame, moment in the body frame) as W = -(moment; R^T force)."""
    suite = pytest.importorskip("dm_control.suite")
    path = Path(suite.__file__).parent / "fish.xml"
    model = load_model(path)
    log = simulate(path, steps=12)
    imported = tmp_path / "fish.csv"
    code, out = run("import", save(tmp_path / f"fish{suffix}", log), "--urdf", path,
                    "-o", imported)
    assert code == 0, out
    assert "the free joint of 'torso' as the base motion" in out
    cols = read_csv(imported)
    assert np.array_equal(cols["t"], log["time"])
    code, out = run("compute", path, imported, "--floating-base", "--base-wrench", "--order",
                    "0", "--gravity", G, "-o", tmp_path / "tau.csv")
    assert code == 0, out
    res = read_csv(tmp_path / "tau.csv")
    quat = log["qpos"][:, 3:7]
    R = np.array([mjr.quat_matrix(q / np.linalg.norm(q)) for q in quat])
    W = np.stack([res[f"W_torso_{a}"] for a in ("mx", "my", "mz", "fx", "fy", "fz")], axis=1)
    tau = np.stack([res[f"tau_{j}"] for j in model.joint_names], axis=1)
    ours = np.concatenate([-np.einsum("nij,nj->ni", R, W[:, 3:]), -W[:, :3], tau], axis=1)
    assert np.abs(ours - log["ref"]).max() < 1e-9 * np.abs(log["ref"]).max()


def test_fixed_base_log_and_velocities_only(tmp_path):
    """The acrobot (hinges only): q, qd, qdd are qpos, qvel, qacc one to one, and compute
    gives mj_inverse's torques; a log without qacc gives q, qd only."""
    log = simulate(ACROBOT, steps=8, seed=1)
    code, out = run("import", save(tmp_path / "a.npz", log), "--urdf", ACROBOT,
                    "-o", tmp_path / "a.csv")
    assert code == 0, out
    cols = read_csv(tmp_path / "a.csv")
    for prefix, key in (("q", "qpos"), ("qd", "qvel"), ("qdd", "qacc")):
        assert np.array_equal(np.stack([cols[f"{prefix}_shoulder"], cols[f"{prefix}_elbow"]], 1),
                              log[key])
    code, out = run("compute", ACROBOT, tmp_path / "a.csv", "--order", "0", "--gravity", G,
                    "-o", tmp_path / "tau.csv")
    assert code == 0, out
    res = read_csv(tmp_path / "tau.csv")
    tau = np.stack([res["tau_shoulder"], res["tau_elbow"]], axis=1)
    assert np.abs(tau - log["ref"]).max() < 1e-9 * np.abs(log["ref"]).max()
    code, out = run("import", save(tmp_path / "b.h5", log, ("qpos", "qvel")), "--urdf", ACROBOT,
                    "-o", tmp_path / "b.csv")
    assert code == 0, out
    assert (tmp_path / "b.csv").read_text().splitlines()[0] == \
        "q_shoulder,q_elbow,qd_shoulder,qd_elbow"


BAD = {
    "no qpos": ({"qvel": np.zeros((3, 2))}, "no array 'qpos'"),
    "widths": ({"qpos": np.zeros((3, 3))}, "qpos has 3 entries per sample: the model 'acrobot' "
                                            "has 2"),
    "samples": ({"qpos": np.zeros((3, 2)), "qvel": np.zeros((4, 2))},
                "array 'qvel' has 4 samples, 'qpos' 3"),
    "nan": ({"qpos": np.array([[0, 0], [0, np.nan]])}, "array 'qpos': nan at sample 1, entry 1"),
    "qacc alone": ({"qpos": np.zeros((3, 2)), "qacc": np.zeros((3, 2))},
                   "array 'qacc' without 'qvel'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_logs_are_one_line(tmp_path, case):
    arrays, message = BAD[case]
    log = tmp_path / "bad.npz"
    np.savez(log, **arrays)
    (tmp_path / "out.csv").write_text("kept")
    code, out = run("import", log, "--urdf", ACROBOT, "-o", tmp_path / "out.csv")
    assert code == 2 and len(out.strip().splitlines()) == 1, out
    assert message in out and str(log) in out
    assert (tmp_path / "out.csv").read_text() == "kept"


def test_mujoco_log_needs_the_mjcf_model(tmp_path):
    log = tmp_path / "a.npz"
    np.savez(log, qpos=np.zeros((2, 2)))
    code, out = run("import", log)
    assert code == 2 and "give --urdf MODEL.xml" in out
    code, out = run("import", log, "--urdf", ROOT / "urdf" / "planar_2r.urdf")
    assert code == 2 and "planar_2r.urdf is not one: give the MJCF model" in out


def test_blocks_stream_the_same_file(tmp_path, monkeypatch):
    """A log read in blocks of 5 samples gives the file one block gives (HDF5 output: its
    datasets allocated whole); a bad value is named by its sample in the whole log."""
    import hodyn_cli.pipeline.trajectories as trajectories

    suite = pytest.importorskip("dm_control.suite")
    path = Path(suite.__file__).parent / "fish.xml"
    log = save(tmp_path / "fish.h5", simulate(path, steps=12, seed=2))
    assert run("import", log, "--urdf", path, "-o", tmp_path / "one.h5")[0] == 0
    monkeypatch.setattr(trajectories, "CHUNK_ROWS", 5)
    assert run("import", log, "--urdf", path, "-o", tmp_path / "blocks.h5")[0] == 0
    with h5py.File(tmp_path / "one.h5") as one, h5py.File(tmp_path / "blocks.h5") as blocks:
        assert sorted(one) == sorted(blocks) and "base_Vbd" in one
        for name in one:
            assert np.array_equal(one[name][()], blocks[name][()]), name
    with h5py.File(log, "r+") as f:
        f["qvel"][7, 2] = np.inf
    code, out = run("import", log, "--urdf", path, "-o", tmp_path / "bad.h5")
    assert code == 2 and "array 'qvel': inf at sample 7, entry 2" in out
    with h5py.File(log, "r+") as f:
        f["qvel"][7, 2] = 0.0
        f["qpos"][9, 3:7] = 0.0
    code, out = run("import", log, "--urdf", path, "-o", tmp_path / "bad.h5")
    assert code == 2 and "the free joint of 'torso': a zero quaternion at sample 9" in out
    assert not (tmp_path / "bad.h5").exists()
