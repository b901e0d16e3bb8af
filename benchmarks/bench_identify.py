"""End-to-end ``hodyn identify`` on long logs, next to the plain Python way with Pinocchio.

    python benchmarks/bench_identify.py [--samples 10000 100000 1000000] [--repeat 2]

The iiwa (7 DOF): an excitation motion (``api.design_motion``'s Fourier series, q, qd, qdd
exact) at 1 kHz, its torques with 1 % noise, written once as an HDF5 log per length, and as
a log of q and tau alone. hodyn is the real command in a subprocess (start-up included):
weighted least squares on the base parameters and the physically consistent estimate, the
log streamed chunk by chunk; "estimate": the q-only log with ``--estimate-derivatives
--cutoff 20`` (qd, qdd estimated and the torques low-passed window by window). The peer
is what a Python user writes with Pinocchio: ``computeJointTorqueRegressor`` in a loop over
the samples, the rows stacked, ``numpy.linalg.lstsq`` on the 70 full parameters (ordinary
least squares, no base parameters, no consistency), in a subprocess of its own. Wall time
(each process's, start-up included) and peak RSS (``wait4``) of each, best of
``--repeat``; hodyn's RSS must not grow with the log.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # time hodyn as installed (bytecode cached)

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

import numpy as np
from _measure import process

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf" / "iiwa14.urdf"
RATE = 1000.0


def make_log(N: int, path: str) -> None:
    """In a subprocess: the log of N samples, written chunk by chunk."""
    from hodyn_cli import api
    from hodyn_cli.io.results import trajectory_datasets
    from hodyn_cli.io.writers import open_sink

    robot = api.load_robot(URDF)
    design = api.design_motion(robot, "fourier", seed=0, duration=N / RATE, rate=RATE,
                               derivatives=2)
    rng = np.random.default_rng(0)
    names = [f"tau_{j}" for j in robot.joint_names]
    chunks = iter(design.chunks)
    first = next(chunks)
    attrs = {"joint_names": list(robot.joint_names)}
    q_only = path.replace(".h5", "_q.h5")
    with open_sink(path, {**trajectory_datasets(first)[1], "tau": names}, attrs) as sink, \
            open_sink(q_only, {**trajectory_datasets(_q(first))[1], "tau": names}, attrs) as q:
        for chunk in itertools.chain([first], chunks):
            tau = api.inverse_dynamics(robot, chunk, order=0).tau
            tau = tau + rng.normal(size=tau.shape) * 0.01 * np.abs(tau).max(axis=0)
            sink.write(trajectory_datasets(chunk)[0] | {"tau": tau})
            q.write(trajectory_datasets(_q(chunk))[0] | {"tau": tau})


def _q(chunk):
    """The positions alone (the log of a robot that records no velocities)."""
    from hodyn_cli.core.trajectory import Trajectory

    return Trajectory(chunk.joint_names, chunk.derivatives[:, :1], chunk.t)


def pinocchio_case(path: str) -> None:
    """In a subprocess: the peer's identification of the log."""
    import h5py
    import pinocchio as pin

    pm = pin.buildModelFromUrdf(str(URDF))
    data = pm.createData()
    with h5py.File(path) as f:
        q, v, a = (f[name][:] for name in ("q", "qd", "qdd"))
        tau = f["tau"][:]
    Y = np.empty((len(q), pm.nv, 10 * (pm.njoints - 1)))
    for s in range(len(q)):
        Y[s] = pin.computeJointTorqueRegressor(pm, data, q[s], v[s], a[s])
    np.linalg.lstsq(Y.reshape(-1, Y.shape[-1]), tau.reshape(-1), rcond=None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--make", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--pinocchio", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make:
        return make_log(int(args.make[0]), args.make[1])
    if args.pinocchio:
        return pinocchio_case(args.pinocchio)
    print(f"iiwa14, hodyn identify of an HDF5 log at {RATE:g} Hz; best of {args.repeat}; "
          f"{os.cpu_count()} cores\n")
    print(f"{'samples':>9} {'hodyn s':>8} {'RSS MiB':>8} {'estimate s':>10} {'RSS MiB':>8} "
          f"{'pinocchio s':>12} {'RSS MiB':>8} {'time ratio':>10}")
    with tempfile.TemporaryDirectory(prefix="hodyn-bench-") as work:
        for N in args.samples:
            log, out = Path(work) / f"log{N}.h5", Path(work) / "id.urdf"
            process([sys.executable, __file__, "--make", str(N), str(log)])
            runs = [process([sys.executable, "-m", "hodyn_cli", "identify", str(URDF), str(log),
                             "-o", str(out), "-q"], out)[:2] for _ in range(args.repeat)]
            wall, rss = min(r[0] for r in runs), max(r[1] for r in runs)
            estimating = [process([sys.executable, "-m", "hodyn_cli", "identify", str(URDF),
                                   str(log).replace(".h5", "_q.h5"), "--estimate-derivatives",
                                   "--cutoff", "20", "-o", str(out), "-q"], out)[:2]
                          for _ in range(args.repeat)]
            est, est_rss = min(r[0] for r in estimating), max(r[1] for r in estimating)
            try:
                peers = [process([sys.executable, __file__, "--pinocchio", str(log)])
                         for _ in range(args.repeat)]
                pin_s, pin_rss = min(p[0] for p in peers), max(p[1] for p in peers)
            except SystemExit:  # no Pinocchio (a test dependency): hodyn alone
                pin_s, pin_rss = float("inf"), 0.0
            print(f"{N:>9} {wall:>8.2f} {rss:>8.0f} {est:>10.2f} {est_rss:>8.0f} "
                  f"{pin_s:>12.2f} {pin_rss:>8.0f} {wall / pin_s:>10.2f}", flush=True)
            for f in Path(work).iterdir():
                f.unlink()


if __name__ == "__main__":
    main()
