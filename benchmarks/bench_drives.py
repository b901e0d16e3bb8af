"""Microseconds per sample of ``hodyn compute --drives`` next to ``hodyn compute --order 2``.

    python benchmarks/bench_drives.py [--samples 100000] [--repeat 3]

The iiwa with the LBR-like rigid drives of urdf/iiwa14_motors.toml (rotor inertias, gear
efficiencies, torque constants, friction on both sides) along a cosine motion with exact
derivatives. In process: every case in its own process, so the peak RSS printed next to it is
that case's (trajectory included); the ratio is its time per sample over ``compute --order 2``
(body-fixed: the rigid torque and two derivatives) measured in the same run. End to end: the
``hodyn compute`` command as a process on an HDF5 file of the same samples (start-up, reading,
computing on the default jobs, writing HDF5), wall time and the child's peak RSS.
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
DRIVES = ROOT / "urdf" / "iiwa14_motors.toml"
#: (label, drive model or None for the rigid torque, torque order)
CASES = [("compute --order 2", None, 2), ("compute --drives --model reflected --order 2",
                                          "reflected", 2),
         ("compute --drives --model full --order 0", "full", 0),
         ("compute --drives --model full --order 2", "full", 2)]


def motion(samples: int):
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF)
    return model, cosine(model.joint_names, np.linspace(0, 100, samples), amplitude=0.5,
                         omega=1.3, phase=np.arange(model.n), orders=4)


def measure(kind: str | None, order: int, samples: int, repeat: int) -> dict:
    """Best time of ``repeat`` runs of one case, in this process."""
    from hodyn_cli.algorithms import backends
    from hodyn_cli.algorithms.actuation import actuators
    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
    from hodyn_cli.modeling.drives import read_drives

    model, traj = motion(samples)
    if kind is None:
        def run():
            return inverse_dynamics(model, traj, order=order)
    else:
        drives = read_drives(DRIVES, model)
        data = backends.current().data(model)   # once per command, as a job makes it

        def run():
            return actuators.inverse_dynamics(model, traj, drives, order=order, kind=kind,
                                              data=data)
    best = min(_timed(run) for _ in range(repeat))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB (Linux)
    return {"us": best / samples * 1e6, "rss_mib": rss}


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def end_to_end(kind: str | None, order: int, path: Path, out: Path, repeat: int) -> dict:
    """Best wall time of the command as a process, and its peak RSS."""
    args = [sys.executable, "-m", "hodyn_cli", "compute", str(URDF), str(path), "-o", str(out),
            "--order", str(order), "-q"]
    if kind is not None:
        args += ["--drives", str(DRIVES), "--model", kind]
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(args, check=True)
        best = min(best, time.perf_counter() - t0)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"s": best, "rss_mib": rss}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--case", help=argparse.SUPPRESS)  # internal: one case, JSON out
    ap.add_argument("--e2e", help=argparse.SUPPRESS)  # internal: one command, JSON out
    args = ap.parse_args()
    if args.case or args.e2e:
        kind, order, *path = (args.case or args.e2e).split(":")
        kind = None if kind == "rigid" else kind
        result = (measure(kind, int(order), args.samples, args.repeat) if args.case else
                  end_to_end(kind, int(order), Path(path[0]), Path(path[1]), args.repeat))
        print(json.dumps(result))
        return
    print(f"iiwa14 + urdf/iiwa14_motors.toml, {args.samples} samples, best of {args.repeat}; "
          "ratio = time per sample / compute --order 2's\n")
    print(f"{'in process':<46} {'us/sample':>10} {'ratio':>6} {'peak RSS MiB':>13}")
    base = None
    for label, kind, order in CASES:
        r = _child("--case", f"{kind or 'rigid'}:{order}", args)
        base = base or r["us"]
        print(f"{label:<46} {r['us']:>10.2f} {r['us'] / base:>6.2f} {r['rss_mib']:>13.0f}")
    with tempfile.TemporaryDirectory() as tmp:
        from hodyn_cli.io import write_trajectory

        path = Path(tmp) / "motion.h5"
        write_trajectory(str(path), motion(args.samples)[1])
        print(f"\n{'end to end (hodyn compute, HDF5 in and out)':<46} {'s':>10} {'us/sample':>10} "
              f"{'ratio':>6} {'peak RSS MiB':>13}")
        base = None
        for label, kind, order in CASES:
            r = _child("--e2e", f"{kind or 'rigid'}:{order}:{path}:{Path(tmp) / 'out.h5'}", args)
            base = base or r["s"]
            print(f"{label:<46} {r['s']:>10.2f} {r['s'] / args.samples * 1e6:>10.2f} "
                  f"{r['s'] / base:>6.2f} {r['rss_mib']:>13.0f}")


def _child(flag: str, case: str, args) -> dict:
    out = subprocess.run([sys.executable, __file__, flag, case, "--samples", str(args.samples),
                          "--repeat", str(args.repeat)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


if __name__ == "__main__":
    main()
