"""hodyn's commands end to end next to the Pinocchio call a user would otherwise loop over.

    python benchmarks/bench_engine.py [--samples 100000] [--repeat 3] [--case NAME ...]

The iiwa (7 DOF) along a cosine motion with exact derivatives, written once as HDF5. Each
hodyn run is the real command in a subprocess (``python -m hodyn_cli``, start-up, reading and
writing HDF5 included, default ``--jobs``); its wall time and peak RSS (``wait4``) are
reported, best of ``--repeat``; each run writes a new output file (``_measure.process``).
The peer is a Pinocchio (C++) Python loop over the same samples in a subprocess of its own,
timed around the loop only (the file read and ``import pinocchio`` are not counted), its
results left in Pinocchio's data (not stored). ratio = hodyn wall / Pinocchio loop, both
measured in this run.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# time hodyn as installed: its bytecode cached (with PYTHONDONTWRITEBYTECODE set, every run
# compiles the modules it imports again, ~80 ms)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _measure import process

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf" / "iiwa14.urdf"

#: name -> (hodyn arguments after the URDF and input, Pinocchio peer)
CASES = {
    "compute-2": (["compute", "--order", "2"], "rnea"),
    "regressor-0": (["regressor", "--order", "0"], "regressor"),
    "regressor-2": (["regressor", "--order", "2"], "regressor"),
    "sensitivities-0": (["sensitivities", "--order", "0"], "derivatives"),
    "sensitivities-2": (["sensitivities", "--order", "2"], "derivatives"),
    "matrices-0": (["matrices", "--order", "0"], "matrices"),
    "matrices-2": (["matrices", "--order", "2"], "matrices"),
}

PEERS = {
    "rnea": "rnea (tau only)",
    "regressor": "computeJointTorqueRegressor",
    "derivatives": "computeRNEADerivatives",
    "matrices": "crba + computeCoriolisMatrix + computeGeneralizedGravity",
}


def pinocchio_loop(peer: str, h5: str) -> None:
    """In a subprocess: time the peer's loop over the file's samples; print seconds."""
    import pinocchio as pin

    from hodyn_cli.io import read_trajectory
    from hodyn_cli.modeling.urdf import load_model

    traj = read_trajectory(h5, load_model(URDF), need=3)
    pm = pin.buildModelFromUrdf(str(URDF))
    data = pm.createData()
    q, v, a = (np.ascontiguousarray(traj.derivatives[:, k]) for k in range(3))
    calls = {
        "rnea": lambda s: pin.rnea(pm, data, q[s], v[s], a[s]),
        "regressor": lambda s: pin.computeJointTorqueRegressor(pm, data, q[s], v[s], a[s]),
        "derivatives": lambda s: pin.computeRNEADerivatives(pm, data, q[s], v[s], a[s]),
        "matrices": lambda s: (pin.crba(pm, data, q[s]),
                               pin.computeCoriolisMatrix(pm, data, q[s], v[s]),
                               pin.computeGeneralizedGravity(pm, data, q[s])),
    }
    call = calls[peer]
    t0 = time.perf_counter()
    for s in range(len(q)):
        call(s)
    print(time.perf_counter() - t0)


def make_input(N: int, path: Path) -> None:
    """In a subprocess (this process stays small): the HDF5 input, q and 5 derivatives."""
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.io import write_trajectory
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF)
    write_trajectory(str(path), cosine(model.joint_names, np.linspace(0, N / 100, N),
                                       amplitude=0.5, omega=1.3, phase=np.arange(model.n),
                                       orders=5))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--case", nargs="*", choices=list(CASES), help="default: all")
    ap.add_argument("--make", help=argparse.SUPPRESS)
    ap.add_argument("--pinocchio", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make:
        return make_input(args.samples, Path(args.make))
    if args.pinocchio:
        return pinocchio_loop(*args.pinocchio)
    from hodyn_cli import api

    N = args.samples
    work = Path(tempfile.mkdtemp(prefix="hodyn-bench-"))
    h5 = work / "traj.h5"
    subprocess.run([sys.executable, __file__, "--samples", str(N), "--make", str(h5)], check=True)
    info = api.backend_info()
    print(f"iiwa14, {N} samples, best of {args.repeat}, {os.cpu_count()} cores; kernel: "
          f"{info['variant']} ({info['isa']}, {info['lanes']} lanes)\n")
    print(f"{'case':<24} {'hodyn s':>8} {'us/sample':>9} {'RSS MiB':>8} {'peer s':>7} "
          f"{'RSS MiB':>8} {'ratio':>6}  peer")
    peers: dict[str, tuple[float, float]] = {}
    for name in args.case or CASES:
        command, peer = CASES[name]
        if peer not in peers:
            runs = [process([sys.executable, __file__, "--pinocchio", peer, str(h5)])
                    for _ in range(args.repeat)]
            peers[peer] = (min(float(r[2]) for r in runs), max(r[1] for r in runs))
        out = work / "out.h5"
        runs = [process([sys.executable, "-m", "hodyn_cli", command[0], str(URDF), str(h5), "-o",
                         str(out), *command[1:]], output=out) for _ in range(args.repeat)]
        out.unlink()
        wall, rss = min(r[0] for r in runs), max(r[1] for r in runs)
        pin_s, pin_rss = peers[peer]
        print(f"hodyn {' '.join(command):<18} {wall:>8.2f} {wall / N * 1e6:>9.2f} {rss:>8.0f} "
              f"{pin_s:>7.2f} {pin_rss:>8.0f} {wall / pin_s:>6.2f}  {PEERS[peer]}")
    h5.unlink()
    work.rmdir()


if __name__ == "__main__":
    main()
