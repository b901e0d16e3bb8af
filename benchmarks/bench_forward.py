"""Microseconds per sample of hodyn's forward dynamics (and its partials, the matrices'
derivatives) next to Pinocchio's ``aba`` and ``computeABADerivatives`` called per sample.

    python benchmarks/bench_forward.py [--samples 20000] [--e2e-samples 100000] [--repeat 3]
                                       [--robot iiwa14]

hodyn runs batched over a trajectory (its intended use: ``forward_dynamics`` on q, qd, tau of
N samples); Pinocchio's functions (C++) are called once per sample from Python, which is how a
Python user gets them. Each case runs in its own process; peak RSS is that process's VmHWM
(the trajectory and the results included). ratio = us/sample over the peer's us/call measured
in the same run: ``aba`` for qdd (and qddd), ``computeABADerivatives`` for the partials;
``computeRNEADerivatives`` is printed for the matrices' state derivatives, which have no peer
(their n^3 entries are what the contraction ``dtau/dq`` sums up). The ``hodyn forward`` cases
run the command end to end (a subprocess: start-up, reading q, qd, tau from HDF5, writing
qdd and, with ``--derivatives``, the three n x n partials per sample to HDF5) on
``--e2e-samples`` samples; their peak RSS is the command's (``wait4``).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see bench_inverse_dynamics.py
# time hodyn as installed: its bytecode cached (with PYTHONDONTWRITEBYTECODE set, every run
# compiles the modules it imports again, ~80 ms)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
from _measure import best_per_sample, cases_in_processes, process

ROOT = Path(__file__).resolve().parents[1]
#: case -> (kind, peer case)
CASES = {
    "pinocchio aba (per call)": ("pin-aba", None),
    "forward: qdd": ("qdd", "pinocchio aba (per call)"),
    "forward: qdd, qddd (from taud)": ("qddd", "pinocchio aba (per call)"),
    "pinocchio computeABADerivatives": ("pin-daba", None),
    "forward --derivatives: qdd + partials": ("partials", "pinocchio computeABADerivatives"),
    "hodyn forward (end to end)": ("cli-qdd", "pinocchio aba (per call)"),
    "hodyn forward --derivatives (end to end)": ("cli-partials",
                                                 "pinocchio computeABADerivatives"),
    "pinocchio computeRNEADerivatives": ("pin-drnea", None),
    "matrices --state-derivatives (n^3)": ("state", "pinocchio computeRNEADerivatives"),
}


def setup(robot: str, N: int):
    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
    from hodyn_cli.core.trajectory import Trajectory, cosine
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(ROOT / "urdf" / f"{robot}.urdf")
    n = model.n
    traj = cosine(model.joint_names, np.arange(N) * 1e-3, amplitude=0.8,
                  omega=np.linspace(1.0, 3.0, n), phase=np.arange(n), offset=0.2, orders=4)
    tau = inverse_dynamics(model, traj, order=1) + 0.5   # torques of no motion of ours
    return model, traj, Trajectory(model.joint_names, traj.derivatives[:, :2]), tau


def pinocchio(robot: str, traj, tau, kind: str):
    import pinocchio as pin

    from hodyn_cli.modeling.urdf import load_model

    pm = pin.buildModelFromUrdf(str(ROOT / "urdf" / f"{robot}.urdf"))
    data = pm.createData()
    model = load_model(ROOT / "urdf" / f"{robot}.urdf")
    order = [model.joint_index(pm.names[j]) for j in range(1, pm.njoints)]
    angles = traj.q[:, order]
    qs = np.concatenate([np.stack([np.cos(angles[:, c]), np.sin(angles[:, c])], 1)  # continuous
                         if pm.joints[c + 1].nq == 2 else angles[:, c : c + 1]
                         for c in range(len(order))], axis=1)
    vs, ts = (np.ascontiguousarray(x[:, order]) for x in (traj.qd, tau[:, 0]))
    acc = np.ascontiguousarray(traj.qdd[:, order])
    if kind == "pin-aba":
        return lambda: [pin.aba(pm, data, q, v, t) for q, v, t in zip(qs, vs, ts, strict=True)]
    if kind == "pin-daba":
        return lambda: [pin.computeABADerivatives(pm, data, q, v, t)
                        for q, v, t in zip(qs, vs, ts, strict=True)]
    return lambda: [pin.computeRNEADerivatives(pm, data, q, v, a)
                    for q, v, a in zip(qs, vs, acc, strict=True)]


def run_command(robot: str, N: int, repeat: int, derivatives: bool) -> dict:
    """``hodyn forward`` as a process on an HDF5 file of q, qd, tau: best wall time, peak RSS."""
    import h5py

    model, traj, _, tau = setup(robot, N)
    with tempfile.TemporaryDirectory(prefix="hodyn-bench-") as tmp:
        source, out = Path(tmp) / "in.h5", Path(tmp) / "out.h5"
        with h5py.File(source, "w") as f:
            f.attrs["joint_names"] = list(model.joint_names)
            f["t"], f["q"], f["qd"], f["tau"] = traj.t, traj.q, traj.qd, tau[:, 0]
        args = [sys.executable, "-m", "hodyn_cli", "forward", str(ROOT / "urdf" / f"{robot}.urdf"),
                str(source), "-o", str(out)] + (["--derivatives"] if derivatives else [])
        runs = [process(args, output=out) for _ in range(repeat)]
    return {"us": min(r[0] for r in runs) / N * 1e6, "rss": max(r[1] for r in runs)}


def run_case(name: str, robot: str, N: int, repeat: int) -> dict:
    from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
    from hodyn_cli.algorithms.dynamics.matrix_derivatives import state_derivatives
    from hodyn_cli.core.trajectory import Trajectory

    kind, _ = CASES[name]
    if kind.startswith("cli"):
        return run_command(robot, N, repeat, kind == "cli-partials")
    model, traj, state, tau = setup(robot, N)
    if kind.startswith("pin"):
        fn = pinocchio(robot, traj, tau, kind)
    elif kind == "state":
        N = min(N, 2000)  # 5 n^3 doubles per sample
        part = Trajectory(traj.joint_names, traj.derivatives[:N])
        fn = lambda: state_derivatives(model, part)  # noqa: E731
    else:
        torques = tau[:, :2] if kind == "qddd" else tau[:, :1]
        fn = lambda: forward_dynamics(model, state, torques,  # noqa: E731
                                      derivatives=kind == "partials")
    return best_per_sample(fn, repeat, N)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--e2e-samples", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--robot", default="iiwa14")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.robot, args.samples, args.repeat)))
        return
    print(f"{args.robot}, {args.samples} samples ({args.e2e_samples} end to end), best of "
          f"{args.repeat}; ratio = us/sample / the peer's us/call (same run)\n")
    cases_in_processes(__file__, {name: case[1] for name, case in CASES.items()}, lambda name: [
        "--robot", args.robot, "--repeat", str(args.repeat), "--samples",
        str(args.e2e_samples if CASES[name][0].startswith("cli") else args.samples)])

if __name__ == "__main__":
    main()
