"""The regressor of a floating base (numpy, batched) against Pinocchio's and the fixed base's.

    python benchmarks/bench_floating_regressor.py [--samples 4000] [--repeat 3]
                                                  [--robot quadruped]

In process, microseconds per sample, each case in its own process (peak RSS: its VmHWM),
best of ``--repeat``, on the motion of ``bench_floating.py`` (joint cosines, the root turning,
translating and bobbing): ``regressor.regressor`` of the floating base (6 + n rows, 10 (nb+1)
columns) at orders 0 and 2; Pinocchio's ``computeJointTorqueRegressor`` of the free-flyer model
called per sample from Python (order 0: its peer); the fixed-base regressor (the compiled
kernel, n rows) on the same joint motion. ratio = hodyn floating / Pinocchio in the same run.
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

from _measure import best_per_sample
from bench_floating import ROOT, trajectories

CASES = ("floating order 0", "floating order 2", "pinocchio free flyer", "fixed order 0",
         "fixed order 2")


def in_process(robot: str, case: str, N: int, repeat: int) -> dict:
    import numpy as np

    from hodyn_cli.algorithms.dynamics import regressor

    model, traj, ftraj = trajectories(robot, N)
    if case == "pinocchio free flyer":
        import pinocchio as pin

        pm = pin.buildModelFromUrdf(str(ROOT / "urdf" / f"{robot}.urdf"), pin.JointModelFreeFlyer())
        data = pm.createData()
        order = [model.joint_index(pm.names[j]) for j in range(2, pm.njoints)]
        b = ftraj.base
        lin = [3, 4, 5, 0, 1, 2]  # hodyn's (angular; linear) -> Pinocchio's (linear; angular)
        quat = np.stack([pin.Quaternion(R).coeffs() for R in b.R])
        Q = np.concatenate([b.p, quat, traj.q[:, order]], axis=1)
        V = np.concatenate([b.Vb[:, 0, lin], traj.qd[:, order]], axis=1)
        A = np.concatenate([b.Vb[:, 1, lin], traj.qdd[:, order]], axis=1)

        def fn():
            for s in range(N):
                pin.computeJointTorqueRegressor(pm, data, Q[s], V[s], A[s])
    else:
        k = int(case[-1])
        which = ftraj if case.startswith("floating") else traj

        def fn():
            regressor.regressor(model, which, order=k)
    return best_per_sample(fn, repeat, N)[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--robot", default="quadruped")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(in_process(args.robot, args.case, args.samples, args.repeat)))
        return
    print(f"{args.robot}, {args.samples} samples in process, best of {args.repeat}; ratio = / "
          "Pinocchio's free-flyer computeJointTorqueRegressor in the same run\n")
    r = {}
    for case in CASES:
        out = subprocess.run([sys.executable, __file__, "--robot", args.robot, "--case", case,
                              "--samples", str(args.samples), "--repeat", str(args.repeat)],
                             capture_output=True, text=True, check=True)
        r[case] = json.loads(out.stdout)
    print(f"{'regressor':<28} {'us/sample':>10} {'RSS MiB':>8} {'ratio':>6}")
    for case in CASES:
        print(f"{case:<28} {r[case]['us']:>10.2f} {r[case]['rss']:>8.0f} "
              f"{r[case]['us'] / r['pinocchio free flyer']['us']:>6.2f}")


if __name__ == "__main__":
    main()
