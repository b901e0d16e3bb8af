"""Microseconds per sample of hodyn's inverse dynamics vs Pinocchio's per-call ``rnea``.

    python benchmarks/bench_inverse_dynamics.py [--samples 100000] [--repeat 3]

Both are measured in the same run on the same machine. hodyn runs batched over the
trajectory (its intended use); Pinocchio's ``rnea`` (tau only, C++) is called once per
sample from Python, which is how a Python user gets torques from it. The ratio is
hodyn's cost per sample over Pinocchio's cost per call (< 1: hodyn is faster). "b-f numpy"
is the body-fixed method without its compiled kernel (the readable reference).
"""

from __future__ import annotations

import os

# single-threaded comparison: OpenBLAS's idle worker threads otherwise spin on the second
# core and slow both sides by up to ~30 % on a 2-core machine (set before numpy loads)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import time
from pathlib import Path

import numpy as np

from hodyn_cli.algorithms.backends.numpy import body_fixed as numpy_body_fixed
from hodyn_cli.algorithms.dynamics.common import solve_in_chunks
from hodyn_cli.algorithms.dynamics.methods import GRAVITY, METHODS, inverse_dynamics
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.modeling.urdf import load_model

ROOT = Path(__file__).resolve().parents[1]


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def pinocchio_rnea_us(path: Path, traj, calls: int, repeat: int) -> float | None:
    try:
        import pinocchio as pin
    except ImportError:
        return None
    pm = pin.buildModelFromUrdf(str(path))
    data = pm.createData()
    rng = np.random.default_rng(0)
    qs = [pin.randomConfiguration(pm) for _ in range(calls)]
    vs, as_ = rng.standard_normal((calls, pm.nv)), rng.standard_normal((calls, pm.nv))

    def loop():
        for q, v, a in zip(qs, vs, as_, strict=True):
            pin.rnea(pm, data, q, v, a)

    return best_of(repeat, loop) / calls * 1e6


NUMPY_BODY_FIXED = "b-f numpy"


def run(model, traj, method: str, order: int):
    """One method; ``b-f numpy`` is body-fixed without the compiled kernel."""
    if method != NUMPY_BODY_FIXED:
        return inverse_dynamics(model, traj, method=method, order=order)

    def per_chunk(qs, base, wrenches):
        kin = numpy_body_fixed.forward_pass(model, qs, order + 1, base)
        return numpy_body_fixed.backward_pass(model, qs, kin, order, wrenches)[0]

    return solve_in_chunks(model, traj, order, GRAVITY, per_chunk)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--method", default="all", help="a method name or 'all' (implemented ones)")
    args = ap.parse_args()
    N = args.samples
    methods = list(METHODS) if args.method == "all" else [args.method]
    if args.method == "all":  # the numpy reference of the compiled body-fixed kernel
        methods.insert(1, NUMPY_BODY_FIXED)
    print(f"{N} samples, best of {args.repeat}; ratio = hodyn us/sample / pin rnea us/call; "
          f"vs b-f = us/sample / body-fixed's\n")
    print(f"{'robot':<12} {'dof':>3} {'pin rnea us/call':>17} {'method':>12} {'order':>5} "
          f"{'hodyn us/sample':>16} {'ratio':>6} {'vs b-f':>7}")
    for robot in ("iiwa14", "gripper_arm"):
        path = ROOT / "urdf" / f"{robot}.urdf"
        model = load_model(path)
        traj = cosine(model.joint_names, np.linspace(0, 100, N), amplitude=0.5, omega=1.3,
                      phase=np.arange(model.n), orders=4)
        pin_us = pinocchio_rnea_us(path, traj, min(N, 20_000), args.repeat)
        pin_text = f"{pin_us:17.2f}" if pin_us else f"{'n/a':>17}"
        body_fixed_us = {}
        for method in methods:
            for order in (0, 1, 2):
                sec = best_of(args.repeat, lambda m=model, tr=traj, o=order, me=method:
                              run(m, tr, me, o))
                us = sec / N * 1e6
                if method == "body-fixed":
                    body_fixed_us[order] = us
                ratio = f"{us / pin_us:6.2f}" if pin_us else "   n/a"
                vs = f"{us / body_fixed_us[order]:7.2f}" if order in body_fixed_us else f"{'':>7}"
                print(f"{robot:<12} {model.n:>3} {pin_text} {method:>12} {order:>5} {us:>16.2f} "
                      f"{ratio} {vs}")


if __name__ == "__main__":
    main()
