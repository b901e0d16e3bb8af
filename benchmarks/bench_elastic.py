"""Microseconds per sample of ``hodyn elastic`` next to ``hodyn compute --order 2``.

    python benchmarks/bench_elastic.py [--samples 100000] [--repeat 3]

The iiwa with the LBR-like drives of urdf/iiwa14_drives.toml along a cosine motion with
exact derivatives (as many as each case needs). Every case runs in its own process, so the
peak RSS printed next to it is that case's (trajectory included); the ratio is its time per
sample over ``compute --order 2`` (body-fixed, the rigid torque and two derivatives)
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
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CASES = [("compute", "rigid", 2), ("elastic", "reflected", 0), ("elastic", "reflected", 2),
         ("elastic", "full", 0), ("elastic", "full", 1), ("elastic", "full", 2)]


def measure(command: str, kind: str, order: int, samples: int, repeat: int) -> dict:
    """Best time of ``repeat`` runs of one case, in this process."""
    from hodyn_cli.algorithms.actuation import elastic
    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.modeling.drives import read_drives
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(ROOT / "urdf" / "iiwa14.urdf")
    drives = read_drives(ROOT / "urdf" / "iiwa14_drives.toml", model)
    need = order + 2 if command == "compute" else elastic.requirements(model, drives, order,
                                                                        kind).q_order
    traj = cosine(model.joint_names, np.linspace(0, 100, samples), amplitude=0.5, omega=1.3,
                  phase=np.arange(model.n), orders=need)
    if command == "compute":
        def run():
            return inverse_dynamics(model, traj, order=order)
    else:
        def run():
            return elastic.inverse_dynamics(model, traj, drives, order=order, kind=kind)
    best = min(_timed(run) for _ in range(repeat))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB (Linux)
    return {"us": best / samples * 1e6, "q_order": need, "rss_mib": rss}


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--case", help=argparse.SUPPRESS)  # internal: one case, JSON out
    args = ap.parse_args()
    if args.case:
        command, kind, order = args.case.split(":")
        print(json.dumps(measure(command, kind, int(order), args.samples, args.repeat)))
        return
    print(f"iiwa14 + urdf/iiwa14_drives.toml, {args.samples} samples, best of {args.repeat}; "
          "ratio = us/sample / compute --order 2's\n")
    print(f"{'case':<36} {'q derivatives':>13} {'us/sample':>10} {'ratio':>6} {'peak RSS MiB':>13}")
    base = None
    for command, kind, order in CASES:
        out = subprocess.run([sys.executable, __file__, "--case", f"{command}:{kind}:{order}",
                              "--samples", str(args.samples), "--repeat", str(args.repeat)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        base = base or r["us"]
        label = (f"compute --order {order}" if command == "compute"
                 else f"elastic --model {kind} --order {order}")
        print(f"{label:<36} {r['q_order']:>13} {r['us']:>10.2f} {r['us'] / base:>6.2f} "
              f"{r['rss_mib']:>13.0f}")


if __name__ == "__main__":
    main()
