"""A floating base next to the same robot on a fixed base: microseconds per sample.

    python benchmarks/bench_floating.py [--samples 20000] [--e2e-samples 100000] [--repeat 3]
                                        [--robot quadruped]

The robot's joints move along a cosine motion (q..qdddd); as a floating base its root also
turns about a fixed axis, translates and bobs (an analytic motion: its spatial twist and
derivatives in closed form, turned into the body twist columns ``base_Vb..`` that
``--floating-base`` reads). In process: the library functions on the whole trajectory
(``inverse_dynamics`` of the fixed base against ``floating.inverse_dynamics`` with its base
wrench; the closed-form matrices, 6 + n square) on ``--samples`` samples, each case in its
own process (peak RSS: its VmHWM). End to end: the real commands in a subprocess on one HDF5
file of ``--e2e-samples`` samples (start-up, reading and writing included; the floating file
has the base columns too), wall time and peak RSS (``wait4``), best of ``--repeat``. ratio =
floating / fixed in the same run.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# time hodyn as installed: its bytecode cached (with PYTHONDONTWRITEBYTECODE set, every run
# compiles the modules it imports again, ~80 ms)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import argparse
import json
import subprocess
import sys
import tempfile
from math import comb
from pathlib import Path

import numpy as np
from _measure import best_per_sample, process

ROOT = Path(__file__).resolve().parents[1]

#: case -> (kind, floating?, order): in process ("lib") or a command ("cli")
CASES = {
    "compute --order 2 (body-fixed)": ("tau", 2),
    "compute --order 2 --method closed-form": ("tau-cf", 2),
    "matrices --order 2": ("matrices", 2),
}


def base_motion(t: np.ndarray, K: int):
    """Rotation about a fixed axis, forward motion and a bob: (R, p, spatial twists (N, K+1, 6))."""
    from hodyn_cli.core import lie

    axis = np.array([0.3, 1.0, 0.2]) / np.linalg.norm([0.3, 1.0, 0.2])
    w = 2 * np.pi
    k = np.arange(K + 2)[:, None]
    theta = 0.2 * w**k * np.sin(w * t + k * np.pi / 2)                 # angle and its rates
    p = np.zeros((K + 2, t.size, 3))
    p[:, :, 0] = 0.1 * w**k * np.cos(w * t + k * np.pi / 2)
    p[:, :, 2] = 0.01 * (2 * w) ** k * np.sin(2 * w * t + k * np.pi / 2)
    p[0, :, 1], p[1, :, 1] = 0.3 * t, 0.3
    p[0, :, 2] += 0.3
    omega = np.concatenate([theta[1:], [np.zeros_like(t)]])[:, :, None] * axis
    Vs = np.empty((t.size, K + 1, 6))
    for n in range(K + 1):  # v^s = p' - omega x p, by Leibniz
        Vs[:, n, :3] = omega[n]
        Vs[:, n, 3:] = p[n + 1] - sum(comb(n, j) * np.cross(omega[j], p[n - j]) for j in range(n + 1))
    return lie.rotation_exp(axis, theta[0]), p[0], Vs


def trajectories(robot: str, N: int):
    """(model, fixed-base trajectory, the same joints with the floating base)."""
    from dataclasses import replace

    from hodyn_cli.algorithms.dynamics.floating import base_from_spatial
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(ROOT / "urdf" / f"{robot}.urdf")
    t = np.linspace(0, N / 1000, N)
    traj = cosine(model.joint_names, t, amplitude=0.3, omega=np.linspace(1.0, 3.0, model.n),
                  phase=np.arange(model.n), orders=5)
    return model, traj, replace(traj, base=base_from_spatial(*base_motion(t, 3)))


def make_input(robot: str, N: int, work: Path) -> None:
    """In a subprocess: fixed.h5 (joints) and floating.h5 (joints and base columns)."""
    from hodyn_cli.io import open_sink, trajectory_datasets, write_trajectory
    from hodyn_cli.io.columns import motion_suffixes

    model, traj, ftraj = trajectories(robot, N)
    write_trajectory(str(work / "fixed.h5"), traj)
    data, columns = trajectory_datasets(traj)
    base = ftraj.base
    for k in range(base.orders):
        key = "base_V" + "b" + "d" * k
        data[key], columns[key] = base.Vb[:, k], [f"{key}_{s}" for s in motion_suffixes(key)]
    for key, value in (("base_p", base.p), ("base_R", base.R)):
        data[key], columns[key] = value, [f"{key}_{s}" for s in motion_suffixes(key)]
    with open_sink(str(work / "floating.h5"), columns,
                   {"joint_names": list(model.joint_names)}) as sink:
        sink.write(data)


def in_process(robot: str, name: str, floating: bool, N: int, repeat: int) -> dict:
    from hodyn_cli.algorithms.dynamics import closed_form
    from hodyn_cli.algorithms.dynamics import floating as fb
    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics

    kind, order = CASES[name]
    model, traj, ftraj = trajectories(robot, N)
    if kind == "matrices":
        fn = (lambda: fb.matrices(model, ftraj, order=order)) if floating else (
            lambda: closed_form.matrices(model, traj, order=order))
    else:
        method = "closed-form" if kind == "tau-cf" else "body-fixed"
        fn = (lambda: fb.inverse_dynamics(model, ftraj, method=method, order=order)) if floating \
            else (lambda: inverse_dynamics(model, traj, method=method, order=order))
    return best_per_sample(fn, repeat, N)[0]


def command(robot: str, name: str, floating: bool, work: Path) -> list[str]:
    kind, order = CASES[name]
    sub = "matrices" if kind == "matrices" else "compute"
    args = [sys.executable, "-m", "hodyn_cli", sub, str(ROOT / "urdf" / f"{robot}.urdf"),
            str(work / ("floating.h5" if floating else "fixed.h5")), "-o", str(work / "out.h5"),
            "--order", str(order)]
    if kind == "tau-cf":
        args += ["--method", "closed-form"]
    return args + (["--floating-base"] + (["--base-wrench"] if sub == "compute" else [])
                   if floating else [])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--e2e-samples", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--robot", default="quadruped")
    ap.add_argument("--case", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--make", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make:
        return make_input(args.robot, args.samples, Path(args.make))
    if args.case:
        name, floating = args.case[0], args.case[1] == "floating"
        print(json.dumps(in_process(args.robot, name, floating, args.samples, args.repeat)))
        return
    from hodyn_cli import api

    N, here = args.samples, [sys.executable, __file__, "--robot", args.robot]
    info = api.backend_info()
    print(f"{args.robot}, {N} samples in process, {args.e2e_samples} end to end, best of "
          f"{args.repeat}; kernel: {info['variant']} ({info['lanes']} lanes); ratio = floating "
          "/ fixed in the same run\n")
    print(f"{'in process':<42} {'fixed us':>9} {'RSS MiB':>8} {'floating us':>12} "
          f"{'RSS MiB':>8} {'ratio':>6}")
    for name in CASES:
        r = {}
        for mode in ("fixed", "floating"):
            out = subprocess.run([*here, "--case", name, mode, "--samples", str(N), "--repeat",
                                  str(args.repeat)], capture_output=True, text=True, check=True)
            r[mode] = json.loads(out.stdout)
        print(f"{name:<42} {r['fixed']['us']:>9.2f} {r['fixed']['rss']:>8.0f} "
              f"{r['floating']['us']:>12.2f} {r['floating']['rss']:>8.0f} "
              f"{r['floating']['us'] / r['fixed']['us']:>6.2f}")
    with tempfile.TemporaryDirectory(prefix="hodyn-bench-") as tmp:
        work = Path(tmp)
        subprocess.run([*here, "--samples", str(args.e2e_samples), "--make", tmp], check=True)
        print(f"\n{'hodyn ... (end to end)':<42} {'fixed us':>9} {'RSS MiB':>8} "
              f"{'floating us':>12} {'RSS MiB':>8} {'ratio':>6}")
        for name in CASES:
            r = {}
            for mode in ("fixed", "floating"):
                runs = [process(command(args.robot, name, mode == "floating", work),
                                work / "out.h5")
                        for _ in range(args.repeat)]
                r[mode] = (min(run[0] for run in runs), max(run[1] for run in runs))
            us = {mode: r[mode][0] / args.e2e_samples * 1e6 for mode in r}
            print(f"{name:<42} {us['fixed']:>9.2f} {r['fixed'][1]:>8.0f} "
                  f"{us['floating']:>12.2f} {r['floating'][1]:>8.0f} "
                  f"{r['floating'][0] / r['fixed'][0]:>6.2f}")


if __name__ == "__main__":
    main()
