"""End-to-end ``hodyn compute`` on big files, next to Pinocchio's ``rnea`` loop.

    python benchmarks/bench_streaming.py [--samples 1000000] [--repeat 3] [--keep DIR]

The iiwa (7 DOF), order 2, a cosine motion with exact derivatives written once as HDF5 and
as CSV. Each hodyn run is the real command in a subprocess, start-up included; its wall time
and peak RSS (``wait4``) are reported, best of ``--repeat``. Pinocchio's tau-only ``rnea``
runs as a Python loop over the same samples in a subprocess of its own, reading the HDF5
file first (its RSS holds the whole trajectory). This process stays small, so that no child
inherits big pages at fork. Targets (issue 10): HDF5 -> HDF5 <= 0.5x the Pinocchio loop; CSV -> CSV within
4x of HDF5 -> HDF5; peak RSS bounded by the chunk, not the file.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# time hodyn as installed: its bytecode cached (with PYTHONDONTWRITEBYTECODE set, every run
# compiles the modules it imports again, ~80 ms)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _measure import process

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf" / "iiwa14.urdf"


def hodyn_run(args: list[str], output: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one ``hodyn`` process writing ``output``."""
    return process([sys.executable, "-m", "hodyn_cli", *args, "-o", str(output)], output)[:2]


def pinocchio_case(h5: str) -> None:
    """In a subprocess: time the rnea loop over the file's samples; print seconds."""
    import pinocchio as pin

    from hodyn_cli.io import read_trajectory
    from hodyn_cli.modeling.urdf import load_model

    traj = read_trajectory(h5, load_model(URDF), need=3)
    pm = pin.buildModelFromUrdf(str(URDF))
    data = pm.createData()
    q, v, a = (np.ascontiguousarray(traj.derivatives[:, k]) for k in range(3))
    t0 = time.perf_counter()
    for s in range(len(q)):
        pin.rnea(pm, data, q[s], v[s], a[s])
    print(time.perf_counter() - t0)


def pinocchio_run(h5: Path) -> tuple[float, float]:
    """(seconds, peak RSS MiB) of the peer's loop; (inf, 0) where Pinocchio does not run (it
    is a test dependency): hodyn's rows are then printed without the comparison."""
    try:
        _, rss, out = process([sys.executable, __file__, "--pinocchio", str(h5)])
    except SystemExit:
        return float("inf"), 0.0
    return float(out), rss


def make_files(N: int, work: str) -> None:
    """In a subprocess: write the HDF5 and CSV inputs."""
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.io import write_trajectory
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF)
    traj = cosine(model.joint_names, np.linspace(0, N / 100, N), amplitude=0.5, omega=1.3,
                  phase=np.arange(model.n), orders=4)
    for name in ("traj.h5", "traj.csv"):
        if not (Path(work) / name).exists():
            write_trajectory(str(Path(work) / name), traj)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", help="directory for the generated files (kept)")
    ap.add_argument("--make", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--pinocchio", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make:
        return make_files(int(args.make[0]), args.make[1])
    if args.pinocchio:
        return pinocchio_case(args.pinocchio)
    N = args.samples
    work = Path(args.keep or tempfile.mkdtemp(prefix="hodyn-bench-"))
    work.mkdir(exist_ok=True)
    h5, csv = work / "traj.h5", work / "traj.csv"
    subprocess.run([sys.executable, __file__, "--make", str(N), str(work)], check=True)
    pins = [pinocchio_run(h5) for _ in range(args.repeat)]
    pin_s, pin_rss = min(p[0] for p in pins), max(p[1] for p in pins)
    print(f"iiwa14, order 2, {N} samples; best of {args.repeat}; {os.cpu_count()} cores")
    print(f"input: HDF5 {h5.stat().st_size / 2**20:.0f} MiB, CSV {csv.stat().st_size / 2**20:.0f} "
          "MiB\n")
    print(f"{'run':<42} {'wall s':>7} {'vs pin':>7} {'peak RSS MiB':>13}")
    if np.isfinite(pin_s):
        print(f"{'pinocchio rnea loop (tau only)':<42} {pin_s:>7.2f} {1:>7.2f} {pin_rss:>13.0f}")
    cases = [("HDF5 -> HDF5", str(h5), "out.h5", []),
             ("HDF5 -> HDF5, --jobs 1", str(h5), "out.h5", ["--jobs", "1"]),
             ("CSV -> CSV", str(csv), "out.csv", []),
             ("CSV -> CSV, --jobs 1", str(csv), "out.csv", ["--jobs", "1"])]
    results = {}
    for label, src, out, extra in cases:
        runs = [hodyn_run(["compute", str(URDF), src, *extra], work / out)
                for _ in range(args.repeat)]
        wall, rss = min(r[0] for r in runs), max(r[1] for r in runs)
        results[label] = wall
        ratio = wall / pin_s if np.isfinite(pin_s) else float("nan")
        print(f"{'hodyn compute ' + label:<42} {wall:>7.2f} {ratio:>7.2f} {rss:>13.0f}")
    print(f"\nCSV -> CSV / HDF5 -> HDF5: {results['CSV -> CSV'] / results['HDF5 -> HDF5']:.2f}")
    if not args.keep:
        for f in work.iterdir():
            f.unlink()
        work.rmdir()


if __name__ == "__main__":
    main()
