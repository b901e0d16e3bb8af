"""Microseconds per sample of ``hodyn check`` and ``hodyn retime`` next to ``hodyn compute
--order 2``, file to file.

    python benchmarks/bench_feasibility.py [--samples 100000] [--repeat 3] [--jobs 1]

The iiwa along a cosine motion with exact derivatives, as HDF5: q to qdddd for the rigid cases
(what compute --order 2 needs), q to its 10th derivative for the elastic ones; the limits of
urdf/iiwa14_limits.toml (torque rates and accelerations: the torques to order 2), the drives
of urdf/iiwa14_drives.toml. Every case runs in its own process and times the command's
pipeline call (read, compute, write: what ``hodyn`` runs after its start-up), best of
``--repeat``; the peak RSS next to it is that process's. ratio = us/sample over ``compute
--order 2``'s, or ``elastic --model full``'s for the cases with the full elastic model,
measured in the same run.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as bench_inverse_dynamics.py
# time hodyn as installed: its bytecode cached (with PYTHONDONTWRITEBYTECODE set, every run
# compiles the modules it imports again, ~80 ms)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf" / "iiwa14.urdf"
LIMITS = ROOT / "urdf" / "iiwa14_limits.toml"
DRIVES = ROOT / "urdf" / "iiwa14_drives.toml"
CASES = ["compute --order 2", "check", "check --report .html", "retime --to-limits",
         "elastic --model full", "check --drives (full)", "check --drives --model reflected",
         "retime --to-limits --drives (full)"]
Q_ORDER = 10


def measure(case: str, h5: str, jobs: int, repeat: int) -> dict:
    """Best time of ``repeat`` runs of one case's pipeline call, in this process."""
    from hodyn_cli.modeling.drives import read_drives
    from hodyn_cli.modeling.limits import read_limits
    from hodyn_cli.modeling.urdf import load_model
    from hodyn_cli.pipeline.check_report import Meta, render
    from hodyn_cli.pipeline.feasibility import check_file, retime_file
    from hodyn_cli.pipeline.files import run_file
    from hodyn_cli.pipeline.jobs import ElasticJob, TorqueJob
    from hodyn_cli.pipeline.laws import LawsJob

    model = load_model(URDF)
    limits = read_limits(LIMITS, model)
    drives = read_drives(DRIVES, model) if "drives" in case or "elastic" in case else None
    kind = "reflected" if "reflected" in case else "full"
    laws = LawsJob(model, order=2, drives=drives, kind=kind)
    out = str(Path(h5).with_name("out.h5"))
    if case.startswith("compute"):
        def run():
            run_file(TorqueJob(model, order=2), h5, out, jobs=jobs)
    elif case.startswith("elastic"):
        def run():
            run_file(ElasticJob(model, drives), h5, out, jobs=jobs)
    elif case.startswith("retime"):
        def run():
            retime_file(laws, h5, out, {}, limits, jobs=jobs)
    else:
        html = "html" in case

        def run():
            check = check_file(laws, h5, limits, envelopes=html, jobs=jobs)
            if html:
                render(check, Meta("iiwa14", "", h5), "html")
    best = min(_timed(run) for _ in range(repeat))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB (Linux)
    return {"s": best, "rss_mib": rss}


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def make_file(N: int, path: str, orders: int) -> None:
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.io import write_trajectory
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF)
    traj = cosine(model.joint_names, np.linspace(0, N / 100, N), amplitude=0.5, omega=1.3,
                  phase=np.arange(model.n), orders=orders)
    write_trajectory(path, traj)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--case", help=argparse.SUPPRESS)  # internal: one case, JSON out
    ap.add_argument("--file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(measure(args.case, args.file, args.jobs, args.repeat)))
        return
    with tempfile.TemporaryDirectory() as work:
        files = {}
        for group, orders in (("rigid", 4), ("elastic", Q_ORDER)):
            files[group] = str(Path(work) / f"{group}.h5")
            subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, "
                            f"{str(ROOT)!r}); from benchmarks.bench_feasibility import "
                            f"make_file; make_file({args.samples}, {files[group]!r}, {orders})"],
                           check=True, cwd=ROOT)
        print(f"iiwa14, {args.samples} samples (HDF5 -> HDF5: q..qdddd, with drives q to its "
              f"{Q_ORDER}th derivative), "
              f"--jobs {args.jobs}, best of {args.repeat}; limits {LIMITS.name}, drives "
              f"{DRIVES.name}\nratio = us/sample / compute --order 2's, or elastic --model "
              "full's for the full elastic cases\n")
        print(f"{'case':<38} {'us/sample':>10} {'ratio':>6} {'peak RSS MiB':>13}")
        base: dict[str, float] = {}
        for case in CASES:
            elastic = "drives" in case or "elastic" in case
            out = subprocess.run([sys.executable, __file__, "--case", case, "--file",
                                  files["elastic" if elastic else "rigid"],
                                  "--jobs", str(args.jobs), "--repeat", str(args.repeat)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout)
            us = r["s"] / args.samples * 1e6
            group = "elastic" if "full" in case else "rigid"
            base.setdefault(group, us)
            print(f"{case:<38} {us:>10.2f} {us / base[group]:>6.2f} {r['rss_mib']:>13.0f}")


if __name__ == "__main__":
    main()
