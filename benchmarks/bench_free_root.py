"""A floating base run as the robot under its free root joint: microseconds per sample and
peak RSS, per operation, against the same robot on a fixed base (the peer).

    python benchmarks/bench_free_root.py [--samples 20000] [--repeat 5] [--robot quadruped|go2]

The operations a floating base runs through its free root joint (``floating.inverse_dynamics``
by each method, tau to order 2; ``floating.matrices``, the regressor and the sensitivities,
order 1), each in a process of its own (peak RSS: its VmHWM), best of ``--repeat`` in wall
time and in the process's CPU time (what a shared machine's load disturbs least: the code
runs on one thread), on the compiled kernel (the
widest variant this CPU runs). It only calls functions that the floating driver had too, so
the same script measures a checkout from before the free root joint (run it with that
checkout's interpreter from that checkout: ``cd OLD && OLD/.venv/bin/python
NEW/benchmarks/bench_free_root.py``). ``go2``: example-robot-data's Go2 (skipped where the
package is not installed).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from _measure import best_per_sample

CASES = ("fixed base body-fixed", "floating body-fixed", "floating spatial",
         "floating closed-form", "floating matrices (order 1)", "floating regressor (order 1)",
         "floating sensitivities (order 1)")


def robot_path(name: str) -> Path | None:
    """The bundled URDF ``name``, or example-robot-data's Go2 (None where not installed)."""
    if name != "go2":
        return Path.cwd() / "urdf" / f"{name}.urdf"
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return None
    return Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")) \
        / "go2_description" / "urdf" / "go2.urdf"


def motion(path: Path, N: int):
    """The robot and its cosine joint motion (q..qdddd) with a root turning about a tilted axis
    while it translates (finite base columns: a timing needs no consistent ones)."""
    from dataclasses import replace

    from hodyn_cli.core import lie
    from hodyn_cli.core.trajectory import BaseMotion, cosine
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(path)
    t = np.linspace(0, N / 1000, N)
    traj = cosine(model.joint_names, t, amplitude=0.3, omega=np.linspace(1.0, 3.0, model.n),
                  phase=np.arange(model.n), orders=4)
    axis = np.array([0.3, 1.0, 0.2]) / np.linalg.norm([0.3, 1.0, 0.2])
    R = lie.rotation_exp(axis, 0.4 * np.sin(2.0 * t))
    p = np.stack([0.1 * np.cos(t), 0.2 * t, 0.3 + 0.01 * np.sin(3 * t)], axis=1)
    Vb = np.random.default_rng(0).normal(size=(N, 4, 6))
    return model, replace(traj, base=BaseMotion(R, p, Vb))


def run_case(case: str, path: Path, N: int, repeat: int) -> dict:
    from dataclasses import replace

    from hodyn_cli.algorithms import backends
    from hodyn_cli.algorithms.dynamics import body_fixed, floating, regressor, sensitivities

    model, traj = motion(path, N)
    fns = {
        CASES[0]: lambda: body_fixed.inverse_dynamics(model, replace(traj, base=None)),
        CASES[1]: lambda: floating.inverse_dynamics(model, traj, method="body-fixed"),
        CASES[2]: lambda: floating.inverse_dynamics(model, traj, method="spatial"),
        CASES[3]: lambda: floating.inverse_dynamics(model, traj, method="closed-form"),
        CASES[4]: lambda: floating.matrices(model, traj, order=1),
        CASES[5]: lambda: regressor.regressor(model, traj, order=1),
        CASES[6]: lambda: sensitivities.sensitivities(model, traj, order=1),
    }
    with backends.use("compiled"):
        fns[case]()  # warm: the first call loads the kernel
        stats, _ = best_per_sample(fns[case], repeat, N)
    return stats


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--robot", default="quadruped")
    ap.add_argument("--case")
    args = ap.parse_args()
    path = robot_path(args.robot)
    if path is None:
        raise SystemExit("example-robot-data is not installed")
    if args.case:
        print(json.dumps(run_case(args.case, path, args.samples, args.repeat)))
        return
    print(f"{args.robot}, {args.samples} samples, compiled kernel, best of {args.repeat}; "
          "each case in its own process\n")
    print(f"{'case':32s} {'us/sample':>10s} {'CPU us':>8s} {'RSS MiB':>8s}")
    for case in CASES:
        out = subprocess.run([sys.executable, __file__, "--case", case, "--robot", args.robot,
                              "--samples", str(args.samples), "--repeat", str(args.repeat)],
                             capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        print(f"{case:32s} {r['us']:10.2f} {r['cpu_us']:8.2f} {r['rss']:8.0f}")


if __name__ == "__main__":
    main()
