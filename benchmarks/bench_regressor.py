"""Microseconds per sample of the regressor and the sensitivities, next to the torque.

    python benchmarks/bench_regressor.py [--samples 20000] [--repeat 3]

The iiwa along a cosine motion; ratio = us/sample over ``inverse_dynamics`` order 2
(tau, taud, taudd) in the same run. Peak RSS of this process at the end.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import resource
import time
from pathlib import Path

import numpy as np

from hodyn_cli.algorithms import regressor, sensitivities
from hodyn_cli.algorithms.methods import inverse_dynamics
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.modeling.urdf import load_model

ROOT = Path(__file__).resolve().parents[1]


def best(repeat, fn) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    model = load_model(ROOT / "urdf" / "iiwa14.urdf")
    N = args.samples
    traj = cosine(model.joint_names, np.linspace(0, N / 100, N), amplitude=0.5, omega=1.3,
                  phase=np.arange(model.n), orders=4)
    rng = np.random.default_rng(0)
    qr = rng.normal(size=(N, model.n))
    cases = {
        "inverse_dynamics order 2": lambda: inverse_dynamics(model, traj, order=2),
        "regressor order 0": lambda: regressor.regressor(model, traj, order=0),
        "regressor order 2": lambda: regressor.regressor(model, traj, order=2),
        "slotine-li regressor": lambda: regressor.slotine_li_regressor(model, traj, qr, qr),
        "sensitivities order 0": lambda: sensitivities.sensitivities(model, traj, order=0),
        "sensitivities order 2": lambda: sensitivities.sensitivities(model, traj, order=2),
    }
    print(f"iiwa14, {N} samples, best of {args.repeat}\n")
    print(f"{'case':<28} {'us/sample':>10} {'ratio':>7}")
    base = None
    for name, fn in cases.items():
        us = best(args.repeat, fn) / N * 1e6
        base = base or us
        print(f"{name:<28} {us:>10.2f} {us / base:>7.1f}")
    t0 = time.perf_counter()
    regressor.base_parameters(model)
    print(f"\nbase_parameters (200 random states, QR): {time.perf_counter() - t0:.2f} s; "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
