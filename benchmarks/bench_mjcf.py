"""An MJCF model through hodyn next to MuJoCo's own inverse dynamics: microseconds per sample.

    python benchmarks/bench_mjcf.py [--samples 20000] [--repeat 3] [--model humanoid_CMU_V2020]

dm_control's CMU humanoid (56 hinges, fixed base: ``locomotion/walkers/assets``) along a
cosine motion. In process, each case in a process of its own (peak RSS: its VmHWM): hodyn's
``inverse_dynamics`` on the whole trajectory at order 0 and 2 (tau; tau, taud, taudd), and
the peer, a Python loop of ``mujoco.mj_inverse`` over the same samples with passive forces
and constraints switched off (tau only: MuJoCo has no time derivatives), setting qpos, qvel,
qacc and reading ``qfrc_inverse`` per sample. Best of ``--repeat``; ratio = hodyn / MuJoCo.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from _measure import best_per_sample

CASES = ("hodyn order 0", "hodyn order 2", "mujoco mj_inverse loop")


def model_path(name: str) -> Path:
    import dm_control

    return Path(dm_control.__file__).parent / "locomotion" / "walkers" / "assets" / f"{name}.xml"


def run_case(case: str, name: str, N: int, repeat: int) -> dict:
    from hodyn_cli import api
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.modeling.urdf import load_model

    path = model_path(name)
    model = load_model(path)
    t = np.linspace(0, N / 1000, N)
    traj = cosine(model.joint_names, t, amplitude=0.3, omega=np.linspace(1.0, 3.0, model.n),
                  phase=np.arange(model.n), orders=5)
    g = (0.0, 0.0, -9.81)
    if case.startswith("hodyn"):
        order = int(case[-1])
        stats, _ = best_per_sample(lambda: api.inverse_dynamics(model, traj, order=order,
                                                                gravity=g), repeat, N)
        return stats
    import mujoco

    m = mujoco.MjModel.from_xml_path(str(path))
    off = mujoco.mjtDisableBit
    m.opt.disableflags |= off.mjDSBL_CONSTRAINT | off.mjDSBL_SPRING | off.mjDSBL_DAMPER
    m.dof_armature[:] = 0
    d = mujoco.MjData(m)
    q, qd, qdd = (traj.derivatives[:, k] for k in range(3))
    out = np.empty((N, m.nv))

    def loop():
        for s in range(N):
            d.qpos[:], d.qvel[:], d.qacc[:] = q[s], qd[s], qdd[s]
            mujoco.mj_inverse(m, d)
            out[s] = d.qfrc_inverse
        return out

    stats, _ = best_per_sample(loop, repeat, N)
    return stats


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--model", default="humanoid_CMU_V2020")
    parser.add_argument("--case", choices=CASES)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.model, args.samples, args.repeat)))
        return
    results = {}
    for case in CASES:
        done = subprocess.run([sys.executable, __file__, "--case", case, "--samples",
                               str(args.samples), "--repeat", str(args.repeat), "--model",
                               args.model], capture_output=True, text=True, check=True)
        results[case] = json.loads(done.stdout.strip().splitlines()[-1])
    peer = results["mujoco mj_inverse loop"]["us"]
    print(f"{args.model}, {args.samples} samples, best of {args.repeat}\n")
    print("| case | µs / sample | ratio to MuJoCo | peak RSS (MiB) |\n|---|---:|---:|---:|")
    for case, r in results.items():
        print(f"| {case} | {r['us']:.2f} | {r['us'] / peer:.2f} | {r['rss']:.0f} |")


if __name__ == "__main__":
    main()
