"""Microseconds per sample of a floating base's forward dynamics (``forward --floating-base``:
the robot under its free root joint, that joint unactuated) next to Pinocchio's free-flyer
``aba`` called per sample and the same robot's forward dynamics on a fixed base.

    python benchmarks/bench_floating_forward.py [--samples 20000] [--e2e-samples 100000]
                                                [--repeat 3] [--robot urdf/quadruped.urdf]

hodyn runs batched over the trajectory (``forward_dynamics`` on q, qd, the root's pose and
body twist, tau); Pinocchio's ``aba`` (C++, a free-flyer root, zero torque on it) is called
once per sample from Python. Each case runs in its own process; peak RSS is that process's
VmHWM. ratio = us/sample over the peer's us/call measured in the same run. The end-to-end
case runs ``hodyn forward --floating-base`` as a process (start-up, reading q, qd, the
root's pose and twist and tau from HDF5, writing qdd and base_Vbd to HDF5); its peak RSS
is the command's.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see bench_inverse_dynamics.py
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)     # see bench_forward.py

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from _measure import best_per_sample, cases_in_processes, process

ROOT = Path(__file__).resolve().parents[1]
PIN = "pinocchio free-flyer aba (per call)"
#: case -> (kind, backend, peer case)
CASES = {
    PIN: ("pin", None, None),
    "forward --floating-base: qdd, base_Vbd": ("floating", "compiled", PIN),
    "  the same, numpy backend": ("floating", "numpy", PIN),
    "  + qddd, base_Vbdd (from taud)": ("floating-rates", "compiled", PIN),
    "forward, fixed base: qdd": ("fixed", "compiled", PIN),
    "hodyn forward --floating-base (end to end)": ("cli", None, PIN),
}


def setup(robot: Path, N: int):
    """The model, a cosine motion of its joints with a tumbling root (q, qd; R, p, Vb) and
    torques of no motion of ours (tau, taud)."""
    from hodyn_cli.api import load_robot
    from hodyn_cli.core import lie
    from hodyn_cli.core.trajectory import BaseMotion, cosine

    model = load_robot(robot)
    n, t = model.n, np.arange(N) * 1e-3
    traj = cosine(model.joint_names, t, amplitude=0.8, omega=np.linspace(1.0, 3.0, n),
                  phase=np.arange(n), offset=0.2, orders=2)
    R = lie.rotation_vector_exp(np.stack([np.sin(t), 0.5 * t, np.cos(2 * t)], axis=1))
    Vb = np.broadcast_to([0.3, -0.2, 0.5, 1.0, 0.1, -0.4], (N, 1, 6)).copy()
    base = BaseMotion(R, np.stack([t, 0 * t, 0.3 + 0 * t], axis=1), Vb)
    tau = np.sin(np.arange(2 * n) + t[:, None]).reshape(N, 2, n) * 3
    return model, traj, base, tau


def pinocchio(robot: Path, traj, base, tau):
    import pinocchio as pin

    from hodyn_cli.api import load_robot

    model = load_robot(robot)
    pm = pin.buildModelFromUrdf(str(robot), pin.JointModelFreeFlyer())
    data = pm.createData()
    order = [model.joint_index(pm.names[j]) for j in range(2, pm.njoints)]
    assert all(pm.joints[j].nq == 1 for j in range(2, pm.njoints)), "revolute joints only"
    quat = np.stack([pin.Quaternion(R).coeffs() for R in base.R])
    qs = np.concatenate([base.p, quat, traj.q[:, order]], axis=1)
    vs = np.concatenate([base.Vb[:, 0, [3, 4, 5, 0, 1, 2]], traj.qd[:, order]], axis=1)
    ts = np.concatenate([np.zeros((len(qs), 6)), tau[:, 0, order]], axis=1)
    return lambda: [pin.aba(pm, data, q, v, t) for q, v, t in zip(qs, vs, ts, strict=True)]


def run_command(robot: Path, N: int, repeat: int) -> dict:
    from hodyn_cli.io import open_sink, trajectory_datasets
    from hodyn_cli.io.results import base_datasets

    model, traj, base, tau = setup(robot, N)
    state = traj.__class__(traj.joint_names, traj.derivatives, traj.t, base=base)
    with tempfile.TemporaryDirectory(prefix="hodyn-bench-") as tmp:
        source, out = Path(tmp) / "in.h5", Path(tmp) / "out.h5"
        joints, _ = trajectory_datasets(state)
        root, _ = base_datasets(state)
        with open_sink(str(source), {}, {"joint_names": list(model.joint_names)},
                       rows=N) as sink:
            sink.write(joints | root | {"tau": tau[:, 0]})
        args = [sys.executable, "-m", "hodyn_cli", "forward", str(robot), str(source),
                "--floating-base", "-o", str(out)]
        runs = [process(args, output=out) for _ in range(repeat)]
    return {"us": min(r[0] for r in runs) / N * 1e6, "rss": max(r[1] for r in runs)}


def run_case(name: str, robot: Path, N: int, repeat: int) -> dict:
    from hodyn_cli.algorithms import backends
    from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
    from hodyn_cli.core.trajectory import Trajectory

    kind, backend, _ = CASES[name]
    if kind == "cli":
        return run_command(robot, N, repeat)
    model, traj, base, tau = setup(robot, N)
    if kind == "pin":
        return best_per_sample(pinocchio(robot, traj, base, tau), repeat, N)[0]
    state = Trajectory(traj.joint_names, traj.derivatives, None,
                       base=None if kind == "fixed" else base)
    torques = tau if kind == "floating-rates" else tau[:, :1]
    with backends.use(backend):
        return best_per_sample(lambda: forward_dynamics(model, state, torques), repeat, N)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--e2e-samples", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--robot", type=Path, default=ROOT / "urdf" / "quadruped.urdf")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.robot, args.samples, args.repeat)))
        return
    print(f"{args.robot.name}, {args.samples} samples ({args.e2e_samples} end to end), best "
          f"of {args.repeat}; ratio = us/sample / the peer's us/call (same run)\n")
    cases_in_processes(__file__, {name: case[2] for name, case in CASES.items()}, lambda name: [
        "--robot", str(args.robot), "--repeat", str(args.repeat), "--samples",
        str(args.e2e_samples if CASES[name][0] == "cli" else args.samples)])

if __name__ == "__main__":
    main()
