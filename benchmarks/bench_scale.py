"""Scale-out on this machine: every streaming command end to end at --jobs 1..N, next to raw
h5py reading and writing the same bytes, the GPU backend where a GPU is, and the JAX anchor
where JAX is.

    python benchmarks/bench_scale.py [--samples 4000000] [--csv-samples 1000000]
                                     [--repeat 3] [--jobs 1 2 4 ...] [--commands compute ...]
                                     [--keep DIR] [--no-gpu]

On a machine others are using, ``chrt -f 10 python benchmarks/bench_scale.py ...`` (root)
runs hodyn's threads before every ordinary process, as a quiet machine would.

The iiwa (7 DOF), a cosine motion with exact derivatives q..qdddd, written once as HDF5
(contiguous, as hodyn writes files) and as CSV. Every row is the real ``hodyn`` command in a
subprocess (start-up included), a new output file each run, the page cache synced before
it (``_measure.process``); wall time and peak RSS (``wait4``), best of ``--repeat``. The
jobs are every power of two up to the cores this process may use, and that number.

- ``raw h5py I/O``: in a subprocess, h5py reading the datasets ``compute --order 2`` reads
  (t, q..qdddd: the input's bytes) block by block into a reused buffer, then writing
  datasets of the output's shapes (t, tau, taud, taudd), contiguous, block by block: what
  reading and writing the same bytes costs, without hodyn.
- ``speed-up``: the command's --jobs 1 time over this row's, measured in the same run;
  ``/ raw I/O``: this row's time over the raw h5py read + write (HDF5 -> HDF5 compute).
- Each command runs on the number of samples that keeps its output near a gigabyte at most
  (``SCALE`` below: a fraction of ``--samples``).
- GPU (``--backend gpu``, :func:`bench_gpu.measure`) where JAX finds a GPU: the backend's
  microseconds per sample on the device alone and with transfers, and ``compute --backend
  gpu`` end to end. The JAX anchor (a plain RNEA with nested jvp, vmapped, float64) where
  JAX is installed: on the GPU at the same size, or on JAX's CPU device on
  ``--anchor-samples`` samples (what a machine without a GPU can measure).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # time hodyn as installed (bytecode cached)

import argparse
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _measure import process

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf" / "iiwa14.urdf"
LIMITS = ROOT / "urdf" / "iiwa14_limits.toml"
DRIVES = ROOT / "urdf" / "iiwa14_drives.toml"
BLOCK = 1 << 18  # rows per h5py call of the raw I/O row

#: command -> (arguments after ROBOT TRAJ, fraction of --samples, input kind, writes output)
SCALE = {
    "compute": (["--order", "2"], 1, "h5", True),
    "compute (CSV -> CSV)": (["--order", "2"], None, "csv", True),
    "kinematics": (["--link", "iiwa_link_ee", "--order", "2"], 1 / 2, "h5", True),
    "elastic": (["--drives", str(DRIVES), "--model", "reflected", "--order", "0"], 1 / 2,
                "h5", True),
    "forward": (["--order", "0"], 1 / 2, "forward", True),
    "matrices": (["--order", "0"], 1 / 8, "h5", True),
    "regressor": (["--order", "0"], 1 / 16, "h5", True),
    "sensitivities": (["--order", "0"], 1 / 8, "h5", True),
    "check": (["--limits", str(LIMITS)], 1 / 2, "h5", False),
    "retime": (["--to-limits", "--limits", str(LIMITS)], 1 / 4, "h5", True),
    "validate": (["--samples", "1000"], 1, "h5", False),
}


def default_jobs() -> list[int]:
    """Every power of two up to the cores this process may use, and that number."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return sorted({2**k for k in range(cores.bit_length()) if 2**k <= cores} | {cores})


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f
                         if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{model}, {default_jobs()[-1]} cores for this process, Python "
            f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f}")


# -- inputs (each made in a subprocess: this process stays small) ---------------------------


def make_inputs(N: int, n_csv: int, work: Path, forward_rows: int) -> None:
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.io import trajectory_datasets
    from hodyn_cli.io.writers import open_sink
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF)

    def piece(s: int, n: int):
        t = np.arange(s, s + n) * 1e-2
        return cosine(model.joint_names, t, amplitude=0.5, omega=1.3, phase=np.arange(model.n),
                      offset=[0, 0.8, 0, -1.2, 0, 1.0, 0], orders=4)

    def write(path: Path, rows: int, forward: bool = False) -> None:
        if path.exists():
            return
        import h5py

        from hodyn_cli import api

        first = piece(0, 1)
        data, columns = trajectory_datasets(first)
        if forward:
            columns = {"t": ["t"], "q": [], "qd": [], "tau": []}
        attrs = {"joint_names": list(model.joint_names)}
        with open_sink(str(path), columns, attrs, rows=rows if path.suffix == ".h5" else None
                       ) as sink:
            for s in range(0, rows, BLOCK):
                traj = piece(s, min(BLOCK, rows - s))
                data = trajectory_datasets(traj)[0]
                if forward:
                    tau = api.inverse_dynamics(model, traj, order=0)["tau"]
                    data = {"t": data["t"], "q": data["q"], "qd": data["qd"], "tau": tau}
                sink.write(data)
        if path.suffix == ".h5":
            with h5py.File(path) as f:
                assert f["t"].chunks is None  # contiguous, as hodyn writes files

    write(work / "traj.h5", N)
    write(work / "traj.csv", n_csv)
    write(work / "forward.h5", forward_rows, forward=True)


def raw_io(src: str, dst: str) -> None:
    """In a subprocess: print the seconds h5py takes to read the compute input's datasets
    and to write datasets of its output's shapes."""
    import h5py

    with h5py.File(src, "r") as f:
        sets = [f[k] for k in ("t", "q", "qd", "qdd", "qddd", "qdddd")]
        N = len(sets[0])
        buffers = [np.empty((BLOCK, *ds.shape[1:])) for ds in sets]
        t0 = time.perf_counter()
        for s in range(0, N, BLOCK):
            n = min(BLOCK, N - s)
            for ds, buf in zip(sets, buffers, strict=True):
                ds.read_direct(buf, np.s_[s : s + n], np.s_[:n])
        read = time.perf_counter() - t0
        n_joints = sets[1].shape[1]
    t0 = time.perf_counter()
    with h5py.File(dst, "x", rdcc_nbytes=0, libver=("v108", "latest")) as f:
        out = [f.create_dataset("t", shape=(N,))] + [
            f.create_dataset(k, shape=(N, n_joints)) for k in ("tau", "taud", "taudd")]
        blocks = [buffers[0]] + [buffers[1]] * 3
        for s in range(0, N, BLOCK):
            n = min(BLOCK, N - s)
            for ds, buf in zip(out, blocks, strict=True):
                ds.write_direct(buf, np.s_[:n], np.s_[s : s + n])
    print(read, time.perf_counter() - t0)


# -- the runs ---------------------------------------------------------------------------------


def best(runs: list[tuple[float, float]]) -> tuple[float, float, float]:
    """(best wall s, slowest wall s, largest peak RSS MiB) of repeated runs."""
    return min(r[0] for r in runs), max(r[0] for r in runs), max(r[1] for r in runs)


def hodyn(args: list[str], output: Path | None) -> tuple[float, float]:
    """(wall s, peak RSS MiB) of one ``hodyn`` process (exit 1, a limit violated or a check
    failed, is a result like exit 0)."""
    cmd = [sys.executable, "-m", "hodyn_cli", *args, "-q"]
    if output is not None:
        cmd += ["-o", str(output)]
    wall, rss, _ = process(cmd, output, ok=(0, 1))
    return wall, rss


def subset(path: Path, rows: int, work: Path) -> Path:
    """The first ``rows`` samples of HDF5 file ``path`` (made once, in a subprocess;
    contiguous datasets, as hodyn writes them)."""
    if rows is None:
        return path
    out = work / f"{path.stem}_{rows}.h5"
    if not out.exists():
        subprocess.run([sys.executable, __file__, "--subset", str(path), str(rows), str(out)],
                       check=True)
    return out


def make_subset(src: str, rows: int, dst: str) -> None:
    import h5py

    with h5py.File(src) as f, h5py.File(dst, "w") as g:
        for key, value in f.attrs.items():
            g.attrs[key] = value
        for key in f:
            ds = g.create_dataset(key, shape=(rows, *f[key].shape[1:]), dtype=f[key].dtype)
            for s in range(0, rows, BLOCK):
                n = min(BLOCK, rows - s)
                ds[s : s + n] = f[key][s : s + n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=4_000_000)
    ap.add_argument("--csv-samples", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, nargs="+", default=None)
    ap.add_argument("--commands", nargs="+", default=list(SCALE), choices=list(SCALE),
                    metavar="COMMAND")
    ap.add_argument("--keep", help="directory for the generated files (kept)")
    ap.add_argument("--no-gpu", action="store_true", help="leave out the GPU and JAX rows")
    ap.add_argument("--anchor-samples", type=int, default=1 << 17,
                    help="samples of the JAX anchor on a CPU device (no GPU)")
    ap.add_argument("--make", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--raw", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--subset", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make:
        return make_inputs(int(args.make[0]), int(args.make[1]), Path(args.make[2]),
                           int(args.make[3]))
    if args.raw:
        return raw_io(*args.raw)
    if args.subset:
        return make_subset(args.subset[0], int(args.subset[1]), args.subset[2])
    N, jobs = args.samples, args.jobs or default_jobs()
    work = Path(args.keep or tempfile.mkdtemp(prefix="hodyn-scale-"))
    work.mkdir(exist_ok=True)
    forward_rows = int(N * SCALE["forward"][1])
    subprocess.run([sys.executable, __file__, "--make", str(N), str(args.csv_samples),
                    str(work), str(forward_rows)], check=True)
    h5 = work / "traj.h5"
    print(f"iiwa14, {N} samples (HDF5 {h5.stat().st_size / 2**30:.2f} GiB), best of "
          f"{args.repeat} (range over the runs); {machine()}")
    raws = []
    for _ in range(args.repeat):
        (work / "raw.h5").unlink(missing_ok=True)
        os.sync()
        _, rss, out = process([sys.executable, __file__, "--raw", str(h5), str(work / "raw.h5")])
        r, w = map(float, out.split())
        raws.append((r, w, rss))
    raw_read, raw_write = min(r[0] for r in raws), min(r[1] for r in raws)
    raw = raw_read + raw_write
    print(f"\n{'run':<44} {'samples':>9} {'wall s':>7} {'range s':>11} {'speed-up':>8} "
          f"{'/ raw I/O':>9} {'RSS MiB':>8}")
    print(f"{'raw h5py I/O: read + write':<44} {N:>9} {raw:>7.2f} {'':>11} {'':>8} "
          f"{1:>9.2f} {max(r[2] for r in raws):>8.0f}")
    print(f"{'  of which read / write':<44} {'':>9} {raw_read:>7.2f} / {raw_write:.2f}")
    summary = {}
    for command in args.commands:
        extra, fraction, kind, writes = SCALE[command]
        if kind == "csv":
            src, rows, ext = work / "traj.csv", args.csv_samples, "csv"
        elif kind == "forward":
            src, rows, ext = work / "forward.h5", forward_rows, "h5"
        else:
            rows = int(N * fraction)
            src, ext = subset(h5, rows if rows != N else None, work), "h5"
        name = command.split(" ")[0]
        first = None
        for j in jobs:
            out = work / f"out.{ext}" if writes else None
            runs = [hodyn([name, str(URDF), str(src), *extra, "--jobs", str(j)], out)
                    for _ in range(args.repeat)]
            wall, slow, rss = best(runs)
            first = first or wall
            vs_raw = f"{wall / raw:>9.2f}" if command == "compute" else f"{'':>9}"
            print(f"{command + f' --jobs {j}':<44} {rows:>9} {wall:>7.2f} "
                  f"{f'{wall:.2f}-{slow:.2f}':>11} {first / wall:>8.2f} {vs_raw} {rss:>8.0f}",
                  flush=True)
            summary.setdefault(command, []).append((j, first / wall))
        if writes:
            (work / f"out.{ext}").unlink(missing_ok=True)
    print("\nspeed-up over --jobs 1: " + "; ".join(
        f"{c} " + ", ".join(f"{j}: {s:.2f}x" for j, s in v) for c, v in summary.items()))
    if not args.no_gpu:
        gpu_rows(N, args, work)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    if not args.keep:
        for f in work.iterdir():
            f.unlink()
        work.rmdir()


def gpu_rows(N: int, args, work: Path) -> None:
    """The GPU backend and the JAX anchor, where they run."""
    try:
        import jax
    except ImportError:
        print("\nGPU, JAX anchor: JAX is not installed (pip install 'hodyn[gpu]')")
        return
    sys.path.insert(0, str(Path(__file__).parent))
    import bench_gpu

    from hodyn_cli.errors import HodynError

    try:
        rows = bench_gpu.measure(N, "gpu", args.repeat)
    except HodynError as e:  # no GPU: the anchor on JAX's CPU device, fewer samples
        print(f"\nGPU: none ({e.message})")
        n = args.anchor_samples
        rows = bench_gpu.measure(n, "cpu", args.repeat)
        print(f"JAX {jax.__version__} on the CPU, {n} samples (CPU numbers, not a GPU's):")
    else:
        h5 = work / "traj.h5"
        runs = [hodyn(["compute", str(URDF), str(h5), "--order", "2", "--backend", "gpu"],
                      work / "gpu.h5") for _ in range(args.repeat)]
        wall, slow, rss = best(runs)
        print(f"\ncompute --backend gpu, HDF5 -> HDF5, {N} samples: {wall:.2f} s "
              f"({wall:.2f}-{slow:.2f}), peak RSS {rss:.0f} MiB")
        (work / "gpu.h5").unlink(missing_ok=True)
    for name, us, diff in rows:
        print(f"  {name:<44} {us:>9.4f} us/sample  "
              f"{'' if diff is None else f'max rel. diff to the kernel {diff:.1e}'}")


if __name__ == "__main__":
    main()
