"""The compiled kernel's joint kinds: microseconds per sample and peak RSS of tau to order 2.

    python benchmarks/bench_joint_kinds.py [--samples 20000] [--repeat 5]

The iiwa along a cosine motion as it is (7 revolute joints), per kernel variant this CPU runs,
next to Pinocchio's ``rnea`` (order 0) called once per sample from Python over the same
samples in the same run (ratio = hodyn us/sample / rnea us/call); then the same iiwa with
every joint made helical (pitch 0.01 m/rad about the same axes) on each variant and on numpy.
The kernel dispatches on the joint kind (csrc/hodyn.h): the revolute rows measure what the
dispatch costs the revolute path (run the script on a build from before it to compare), the
helical rows what the kernel gains over numpy's recursion (a build from before the kind ran
helical joints by numpy's even under the compiled backend). Each case runs in a process of
its own (peak RSS: its VmHWM); best of ``--repeat``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from _measure import best_per_sample

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf" / "iiwa14.urdf"
PITCH = 0.01


def motion(N: int, helical: bool):
    """(model, trajectory): the iiwa (its joints helical of pitch PITCH if ``helical``) along
    cosines with exact derivatives."""
    from dataclasses import replace

    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF)
    if helical:
        X = model.X.copy()
        X[:, 3:] = PITCH * X[:, :3]
        model = replace(model, joint_types=("helical",) * model.n, X=X)
    t = np.linspace(0, N / 1000, N)
    return model, cosine(model.joint_names, t, amplitude=0.3,
                         omega=np.linspace(1.0, 3.0, model.n), phase=np.arange(model.n),
                         orders=5)


def run_case(case: dict, N: int, repeat: int) -> dict:
    from hodyn_cli.algorithms import backends
    from hodyn_cli.algorithms.dynamics import body_fixed

    model, traj = motion(N, case["joints"] == "helical")
    if case["backend"] == "pinocchio":
        import pinocchio as pin

        pm = pin.buildModelFromUrdf(str(URDF))
        data = pm.createData()
        q, v, a = (np.ascontiguousarray(traj.derivatives[:, k]) for k in range(3))

        def fn():
            for s in range(N):
                pin.rnea(pm, data, q[s], v[s], a[s])

        stats, _ = best_per_sample(fn, repeat, N)
        return stats
    options = {"variant": case["backend"]} if case["backend"] != "numpy" else {}
    with backends.use("compiled" if options else "numpy", **options):
        stats, _ = best_per_sample(
            lambda: body_fixed.inverse_dynamics(model, traj, order=2), repeat, N)
    return stats


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--case")
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(json.loads(args.case), args.samples, args.repeat)))
        return
    from hodyn_cli.algorithms.backends import compiled

    variants = compiled.variants()
    cases = [{"joints": "revolute", "backend": "pinocchio"},
             *({"joints": "revolute", "backend": v} for v in variants),
             *({"joints": "helical", "backend": v} for v in [*variants, "numpy"])]
    print(f"iiwa, {args.samples} samples, tau to order 2 (pinocchio rnea: order 0), best of "
          f"{args.repeat}; each case in its own process\n")
    print(f"{'joints':10s} {'backend':10s} {'us/sample':>10s} {'x rnea':>7s} {'RSS MiB':>8s}")
    rnea = None
    for case in cases:
        out = subprocess.run([sys.executable, __file__, "--case", json.dumps(case),
                              "--samples", str(args.samples), "--repeat", str(args.repeat)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        rnea = rnea or r["us"]
        print(f"{case['joints']:10s} {case['backend']:10s} {r['us']:10.2f} "
              f"{r['us'] / rnea:7.2f} {r['rss']:8.0f}")


if __name__ == "__main__":
    main()
