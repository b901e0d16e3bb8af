"""Microseconds per sample of `hodyn ik` (spatial paper, Algorithm 2), next to a peer.

    python benchmarks/bench_ik.py [--samples 20000] [--repeat 3]

The iiwa with joint 3 locked (6 DOF) and the full iiwa (7 DOF, redundant) along a cosine
motion at 1 kHz, its flange motion from ``link_kinematics`` (order 3: q up to q''''). Peer:
the inverse kinematics a user writes with Pinocchio (C++): per sample, Newton steps
warm-started from the last sample (forwardKinematics, frame Jacobian, solve) and
``qd = J^-1 V``: positions and velocities only, no higher derivatives. ratio = hodyn /
peer. Each case runs in its own process; peak RSS is that process's VmHWM.
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
from pathlib import Path

import numpy as np
from _measure import best_per_sample

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf" / "iiwa14.urdf"
EE = "iiwa_link_ee"
OFFSETS = {6: [0.2, 0.6, -1.2, 0.3, 1.0, 0.1], 7: [0.2, 0.6, 0.3, -1.2, 0.3, 1.0, 0.1]}
CASES = {
    "kinematics order 3 (6 dof)": (6, "kinematics", "pose"),
    "ik 6 dof, q..q''''": (6, "ik", "pose"),
    "ik 6 dof, q only": (6, "ik-q", "pose"),
    "ik 7 dof redundant, q..q''''": (7, "ik", "pose"),
    "ik 7 dof position task": (7, "ik", "position"),
    "pinocchio Newton + J^-1 V (6 dof)": (6, "pin", "pose"),
}


def setup(dof: int, N: int):
    from hodyn_cli.algorithms.motion.ik import LinkMotion
    from hodyn_cli.algorithms.motion.kinematics import link_kinematics
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.modeling.locking import lock
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(URDF)
    if dof == 6:
        model = lock(model, {"iiwa_joint_3": 0.0})
    t = np.arange(N) * 1e-3
    traj = cosine(model.joint_names, t, amplitude=0.3, omega=2.0, offset=OFFSETS[dof],
                  phase=np.arange(model.n), orders=5)
    lk = link_kinematics(model, traj, EE, order=3)
    return model, traj, lk, LinkMotion.of(lk, t)


def pinocchio_peer(model, traj, lk):
    import pinocchio as pin

    pm = pin.buildModelFromUrdf(str(URDF))
    pm = pin.buildReducedModel(pm, [pm.getJointId("iiwa_joint_3")], np.zeros(pm.nq))
    data, frame = pm.createData(), pm.getFrameId(EE)
    order = [model.joint_index(pm.names[j]) for j in range(1, pm.njoints)]
    q = traj.q[0, order].copy()
    out = np.empty((len(lk.p), 2, pm.nv))
    for s in range(len(lk.p)):
        target = pin.SE3(lk.R[s], lk.p[s])
        for _ in range(10):
            pin.forwardKinematics(pm, data, q)
            pin.updateFramePlacement(pm, data, frame)
            err = pin.log6(data.oMf[frame].actInv(target)).vector
            if np.abs(err).max() < 1e-12:
                break
            J = pin.computeFrameJacobian(pm, data, q, frame, pin.ReferenceFrame.LOCAL)
            q = q + np.linalg.solve(J, err)
        J = pin.computeFrameJacobian(pm, data, q, frame, pin.ReferenceFrame.WORLD)
        out[s, 0] = q
        out[s, 1] = np.linalg.solve(J, np.r_[lk.Vs[s, 0, 3:], lk.Vs[s, 0, :3]])
    return out


def run_case(name: str, N: int, repeat: int) -> dict:
    from hodyn_cli.algorithms.motion.ik import inverse_kinematics
    from hodyn_cli.algorithms.motion.kinematics import link_kinematics

    dof, kind, task = CASES[name]
    model, traj, lk, motion = setup(dof, N)
    if kind == "kinematics":
        fn = lambda: link_kinematics(model, traj, EE, order=3)  # noqa: E731
    elif kind == "pin":
        fn = lambda: pinocchio_peer(model, traj, lk)  # noqa: E731
    else:
        if kind == "ik-q":
            motion = type(motion)(motion.p, motion.R, None, None, motion.t)
        fn = lambda: inverse_kinematics(model, motion, EE, task=task, q0=traj.q[0])  # noqa: E731
    stats, result = best_per_sample(fn, repeat, N)
    if kind == "ik" and dof == 6:   # the round trip is exact: say so next to the time
        err = np.abs(result.trajectory.derivatives - traj.derivatives[:, :5]).max()
        assert err < 1e-8 * np.abs(traj.derivatives).max(), err
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.samples, args.repeat)))
        return
    rows = {}
    for name in CASES:
        out = subprocess.run([sys.executable, __file__, "--case", name, "--samples",
                              str(args.samples), "--repeat", str(args.repeat)],
                             capture_output=True, text=True, check=True)
        rows[name] = json.loads(out.stdout)
    peer = rows["pinocchio Newton + J^-1 V (6 dof)"]["us"]
    print(f"iiwa14 flange, {args.samples} samples at 1 kHz, best of {args.repeat}; "
          "ratio = us/sample / peer's\n")
    print(f"{'case':<36} {'us/sample':>10} {'ratio':>7} {'peak RSS MB':>12}")
    for name, r in rows.items():
        print(f"{name:<36} {r['us']:>10.1f} {r['us'] / peer:>7.2f} {r['rss']:>12.0f}")


if __name__ == "__main__":
    main()
