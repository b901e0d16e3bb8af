"""Multi-DOF joints in the body-fixed recursion: microseconds per sample and peak RSS.

    python benchmarks/bench_joint_models.py [--samples 20000] [--repeat 3] [--robot quadruped]

The robot's root link moved by a free joint (a 6-DOF joint whose twist jet enters the
recursion per sample, ``ad_{S nu^(j)}``) against the same robot with ``--floating-base`` (the
floating driver: the root's jet from its base columns, then the 1-DOF recursion), both on
the numpy backend and on the compiled kernel (the widest variant this CPU runs; csrc/
multi_dof.c runs the free joint), tau to order 2; the peers: the fixed-base robot on each,
and Pinocchio's free-flyer ``rnea`` (order 0) looped from Python.
Each case runs in a process of its own (peak RSS: its VmHWM); best of ``--repeat``.
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

ROOT = Path(__file__).resolve().parents[1]
CASES = ("fixed base, 1-DOF joints", "floating base (--floating-base)",
         "free root joint (multi-DOF)", "pinocchio free-flyer rnea (order 0)")
BACKENDS = ("numpy", "compiled")


def motion(robot: str, N: int):
    """(robot, its model under a free root joint, joint trajectory with its base motion, the
    free model's trajectory): cosines on the joints, the root turning about a tilted axis
    while it translates (exact body twist derivatives)."""
    from hodyn_cli.core import lie
    from hodyn_cli.core.model import Model
    from hodyn_cli.core.trajectory import BaseMotion, Trajectory, cosine
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(ROOT / "urdf" / f"{robot}.urdf")
    t = np.linspace(0, N / 1000, N)
    traj = cosine(model.joint_names, t, amplitude=0.3, omega=np.linspace(1.0, 3.0, model.n),
                  phase=np.arange(model.n), orders=4)
    axis = np.array([0.3, 1.0, 0.2]) / np.linalg.norm([0.3, 1.0, 0.2])
    k = np.arange(5)[:, None]
    theta = 0.4 * 2.0**k * np.sin(2.0 * t + k * np.pi / 2)           # (5, N): angle, rates
    R = lie.rotation_exp(axis, theta[0])
    p = np.stack([0.1 * np.cos(t), 0.2 * t, 0.3 + 0.01 * np.sin(3 * t)], axis=1)
    pdot = np.stack([-0.1 * np.sin(t), 0.2 + 0 * t, 0.03 * np.cos(3 * t)], axis=1)
    # a fixed axis: omega = theta' axis (body and spatial); v = R^T p' (its rates by Leibniz
    # are not needed for a timing: the base columns' values only have to be finite)
    Vb = np.zeros((N, 4, 6))
    Vb[:, :, :3] = theta[1:, :, None].transpose(1, 0, 2) * axis
    Vb[:, 0, 3:] = np.einsum("nji,nj->ni", R, pdot)
    base = BaseMotion(R, p, Vb)
    free = Model("free", "world", ("root", *model.joint_names), ("free", *model.joint_types),
                 (model.root_link, *model.link_names), np.array([-1, *(model.parent + 1)]),
                 np.concatenate([np.eye(4)[None], model.B]),
                 np.concatenate([np.zeros((1, 6)), model.X]),
                 np.concatenate([model.root_inertia[None], model.inertias]))
    qs = np.empty((N, 5, 6 + model.n))
    qs[:, 0, :6] = np.concatenate([lie.rotation_log(R), p], axis=1)
    qs[:, 1:, :6] = Vb
    qs[:, :, 6:] = traj.derivatives
    return model, free, Trajectory(model.joint_names, traj.derivatives, t, base=base), \
        Trajectory(free.dof_names, qs, t)


def run_case(case: str, robot: str, N: int, repeat: int, backend: str) -> dict:
    from hodyn_cli.algorithms import backends

    with backends.use(backend):
        return _run(case, robot, N, repeat)


def _run(case: str, robot: str, N: int, repeat: int) -> dict:
    from dataclasses import replace

    from hodyn_cli.algorithms.dynamics import body_fixed, floating

    model, free, traj, free_traj = motion(robot, N)
    if case == CASES[0]:
        fn = lambda: body_fixed.inverse_dynamics(model, replace(traj, base=None))  # noqa: E731
    elif case == CASES[1]:
        fn = lambda: floating.inverse_dynamics(model, traj)  # noqa: E731
    elif case == CASES[2]:
        fn = lambda: body_fixed.inverse_dynamics(free, free_traj)  # noqa: E731
    else:
        import pinocchio as pin

        pm = pin.buildModelFromUrdf(str(ROOT / "urdf" / f"{robot}.urdf"),
                                    pin.JointModelFreeFlyer())
        data = pm.createData()
        order = [model.joint_index(pm.names[j]) for j in range(2, pm.njoints)]
        qp = np.concatenate([traj.base.p, [pin.Quaternion(R).coeffs() for R in traj.base.R],
                             traj.derivatives[:, 0, order]], axis=1)
        v = np.concatenate([traj.base.Vb[:, 0, [3, 4, 5, 0, 1, 2]],
                            traj.derivatives[:, 1, order]], axis=1)
        a = np.concatenate([traj.base.Vb[:, 1, [3, 4, 5, 0, 1, 2]],
                            traj.derivatives[:, 2, order]], axis=1)

        def fn():
            for s in range(N):
                pin.rnea(pm, data, qp[s], v[s], a[s])
    stats, _ = best_per_sample(fn, repeat, N)
    return stats


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--robot", default="quadruped")
    ap.add_argument("--case")
    ap.add_argument("--backend", default="numpy", choices=BACKENDS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.robot, args.samples, args.repeat,
                                  args.backend)))
        return
    print(f"{args.robot}, {args.samples} samples, tau to order 2 (pinocchio: order 0), best "
          f"of {args.repeat}; each case in its own process\n")
    print(f"{'case':44s} {'backend':9s} {'us/sample':>10s} {'RSS MiB':>8s}")
    for backend in BACKENDS:
        for case in CASES if backend == "numpy" else CASES[:3]:
            out = subprocess.run([sys.executable, __file__, "--case", case, "--robot",
                                  args.robot, "--samples", str(args.samples), "--repeat",
                                  str(args.repeat), "--backend", backend],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout)
            name = "-" if case == CASES[3] else backend
            print(f"{case:44s} {name:9s} {r['us']:10.2f} {r['rss']:8.0f}")


if __name__ == "__main__":
    main()
