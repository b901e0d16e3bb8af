"""Many trajectory files: --output-dir, bad files, --skip-existing, --from-list, Dask."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF, random_cosine
from hodyn_cli.cli.app import app
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.urdf import load_model
from hodyn_cli.pipeline import batch
from hodyn_cli.pipeline.jobs import TorqueJob

runner = CliRunner()
ROBOT = URDF / "gripper_arm.urdf"


def make_inputs(tmp_path: Path, count: int = 3, bad: bool = True) -> list[str]:
    model = load_model(ROBOT)
    src = tmp_path / "in"
    src.mkdir(exist_ok=True)
    paths = []
    for k in range(count):
        ext = "h5" if k % 3 == 1 else "csv"
        path = src / f"run{k:04d}.{ext}"
        write_trajectory(str(path), random_cosine(model, np.linspace(0, 1, 7 + k), orders=4,
                                                  seed=k))
        paths.append(str(path))
    if bad:
        broken = src / "broken.csv"
        broken.write_text("t,q_shoulder_yaw\n0,1\n")
        paths.insert(1, str(broken))
    return paths


def single(tmp_path: Path, source: str, fmt: str) -> Path:
    out = tmp_path / f"single_{Path(source).stem}.{fmt}"
    result = runner.invoke(app, ["compute", str(ROBOT), source, "-o", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    return out


def same(a: Path, b: Path) -> bool:
    if a.suffix == ".csv":
        return a.read_bytes() == b.read_bytes()
    with h5py.File(a) as fa, h5py.File(b) as fb:
        return all(np.array_equal(fa[k][()], fb[k][()]) for k in ("t", "tau", "taud", "taudd"))


def test_output_dir_continues_past_a_bad_file(tmp_path):
    sources = make_inputs(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    result = runner.invoke(app, ["compute", str(ROBOT), *sources, "--output-dir", str(out)])
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("hodyn: error:")]
    assert len(errors) == 1 and "broken.csv: missing columns" in errors[0]
    assert "4 files: 3 written, 0 skipped, 1 failed" in result.stderr
    for src in sources:
        if "broken" in src:
            assert not (out / "broken.csv").exists()
            continue
        made = out / (Path(src).stem + Path(src).suffix.replace(".hdf5", ".h5"))
        assert same(made, single(tmp_path, src, Path(src).suffix[1:]))
    assert not list(out.glob(".*"))  # no temporary leftovers


def test_skip_existing_and_format(tmp_path):
    sources = make_inputs(tmp_path, bad=False)
    out = tmp_path / "out"
    out.mkdir()
    args = ["compute", str(ROBOT), *sources, "--output-dir", str(out), "--format", "hdf5"]
    assert runner.invoke(app, args).exit_code == 0
    made = sorted(out.iterdir())
    assert [p.suffix for p in made] == [".h5"] * 3
    first = {p: p.stat().st_mtime_ns for p in made}
    made[0].unlink()
    result = runner.invoke(app, [*args, "--skip-existing"])
    assert result.exit_code == 0 and "1 written, 2 skipped, 0 failed" in result.stderr
    assert all(p.stat().st_mtime_ns == first[p] for p in made[1:])
    with h5py.File(made[0]) as f:
        assert f.attrs["method"] == "body-fixed" and "trajectory" in f.attrs


def test_from_list_with_hundreds_of_files(tmp_path):
    # (200: nothing in the list's reading or batch.run_local depends on the count, and
    # each file costs ~8 ms of CPU: 300 made the test 2.4 s; the files copies of three,
    # CSV and HDF5, under names of their own: making 200 motions took 0.8 s)
    made, sources = make_inputs(tmp_path, bad=False), []   # two CSV files, one HDF5
    for k in range(200):
        source = Path(made[k % 3])
        sources.append(str(source.with_name(f"copy{k:04d}{source.suffix}")))
        shutil.copyfile(source, sources[-1])
    listing = tmp_path / "list.txt"
    listing.write_text("\n".join(sources) + "\n")
    out = tmp_path / "out"
    out.mkdir()
    result = runner.invoke(app, ["compute", str(ROBOT), "--from-list", str(listing),
                                 "--output-dir", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert len(list(out.iterdir())) == 200 and result.stderr == ""
    out2 = tmp_path / "out2"
    out2.mkdir()
    result = runner.invoke(app, ["compute", str(ROBOT), "--from-list", "-", "--output-dir",
                                 str(out2), "-q"], input="\n".join(sources[:5]))
    assert result.exit_code == 0 and len(list(out2.iterdir())) == 5


def test_output_dir_is_created(tmp_path):
    sources = make_inputs(tmp_path, count=2, bad=False)
    out = tmp_path / "new" / "out"
    result = runner.invoke(app, ["compute", str(ROBOT), *sources, "--output-dir", str(out)])
    assert result.exit_code == 0, result.stderr
    assert sorted(p.stem for p in out.iterdir()) == sorted(Path(s).stem for s in sources)


@pytest.mark.parametrize("args, message", [
    (["--output-dir", "a_file/out"], "cannot create the output directory"),
    (["-o", "x.csv"], "several trajectories need --output-dir"),
    (["--output-dir", ".", "--validate"], "--output-dir (several files) does not go with "
                                          "--validate (it checks one trajectory)"),
    (["--output-dir", ".", "--wrench", "w.csv"], "--output-dir (several files) does not go "
                                                 "with --wrench (one wrench file goes with one "
                                                 "trajectory)"),
])
def test_many_file_usage_errors(tmp_path, monkeypatch, args, message):
    sources = make_inputs(tmp_path, count=2, bad=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_file").write_text("not a directory")
    result = runner.invoke(app, ["compute", str(ROBOT), *sources, *args])
    assert result.exit_code == 2 and message in result.stderr


def test_two_inputs_with_one_stem_are_refused(tmp_path):
    sources = make_inputs(tmp_path, count=2, bad=False)
    other = tmp_path / "other"
    other.mkdir()
    twin = other / Path(sources[0]).name
    twin.write_bytes(Path(sources[0]).read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    result = runner.invoke(app, ["compute", str(ROBOT), sources[0], str(twin), "--output-dir",
                                 str(out)])
    assert result.exit_code == 2 and "would both write" in result.stderr
    assert not list(out.iterdir())


@pytest.mark.cluster
def test_local_cluster_equals_the_local_run(tmp_path):
    distributed = pytest.importorskip("distributed")
    sources = make_inputs(tmp_path)
    model = load_model(ROBOT)
    job = TorqueJob(model)
    local_dir, cluster_dir = tmp_path / "local", tmp_path / "cluster"
    local_dir.mkdir()
    cluster_dir.mkdir()
    local = batch.run_local(job, sources, batch.plan_outputs(sources, str(local_dir), None))
    # dashboard on a free port: docs/scale.md's `dask scheduler` may hold 8787 meanwhile
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        remote = batch.run_on_cluster(cluster.scheduler_address, job, sources,
                                      batch.plan_outputs(sources, str(cluster_dir), None))
    assert [o.status for o in remote] == [o.status for o in local] == [
        "ok", "failed", "ok", "ok"]
    assert remote[1].message == local[1].message
    for a, b in zip(sorted(local_dir.iterdir()), sorted(cluster_dir.iterdir()), strict=True):
        assert a.name == b.name and same(a, b)


@pytest.mark.cluster
def test_dask_command_line_cluster(tmp_path):
    pytest.importorskip("distributed")
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        pytest.skip("the dask command is not installed")
    sources = make_inputs(tmp_path, bad=False)
    scheduler_file = tmp_path / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    procs = [subprocess.Popen([str(dask), "scheduler", "--scheduler-file", str(scheduler_file),
                               "--port", "0", "--no-dashboard", "--host", "127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)]
    try:
        # the file is made empty, then written (distributed's Scheduler.start): read whole
        # when it parses, as hodyn reads it (read as soon as it exists, it can be empty)
        address = batch.scheduler_address(str(scheduler_file), wait=60)
        assert address.startswith("tcp://127.0.0.1")
        procs.append(subprocess.Popen([str(dask), "worker", "--scheduler-file",
                                       str(scheduler_file), "--nworkers", "1", "--nthreads", "2",
                                       "--no-dashboard", "--host", "127.0.0.1"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      env=env))
        out = tmp_path / "out"
        out.mkdir()
        result = subprocess.run(
            [sys.executable, "-m", "hodyn_cli", "compute", str(ROBOT), *sources, "--output-dir",
             str(out), "--scheduler", str(scheduler_file)], capture_output=True, text=True,
            timeout=120)
        assert result.returncode == 0, result.stderr
        assert "3 files: 3 written" in result.stderr
        for src in sources:
            made = out / (Path(src).stem + Path(src).suffix)
            assert same(made, single(tmp_path, src, Path(src).suffix[1:]))
    finally:  # the workers first: a worker whose scheduler went first waits ~8 s for it
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.mark.cluster
def test_unreachable_scheduler_is_one_line(tmp_path):
    pytest.importorskip("distributed")
    import dask
    sources = make_inputs(tmp_path, count=1, bad=False)
    out = tmp_path / "out"
    out.mkdir()
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = runner.invoke(app, ["compute", str(ROBOT), *sources, "--output-dir", str(out),
                                     "--scheduler", "tcp://127.0.0.1:9"])
    assert result.exit_code == 2
    assert result.stderr.startswith("hodyn: error: cannot reach the Dask scheduler at "
                                    "tcp://127.0.0.1:9")
