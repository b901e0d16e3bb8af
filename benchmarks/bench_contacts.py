"""A floating base on its contacts: what the contacts' share costs next to the floating base
alone and next to Pinocchio, in microseconds per sample.

    python benchmarks/bench_contacts.py [--samples 4096] [--repeat 5] [--orders 0 1 2]
                                        [--variants default avx2 numpy] [--e2e-samples 20000]

Talos (example-robot-data's talos_reduced.urdf, 32 joints, two soles:
docs/examples/talos_feet.toml) and urdf/quadruped.urdf (12 joints, four point feet:
docs/examples/quadruped_feet.toml), every contact down; the joints move along cosines and
the root turns, translates and bobs (bench_floating.py's motion). In process, one process
per robot, order and variant (peak RSS: its VmHWM): ``floating.inverse_dynamics`` (the
floating base alone: its base wrench) and ``on_contacts`` (the base wrench shared over the
contacts with every derivative, then the torques with them: a second floating-base pass)
on ``--samples`` samples at once (the chunk of ``compute --contacts``), best of
``--repeat``; share = on contacts - floating alone. Pinocchio's nearest calls, per sample
from Python on the same samples: the free-flyer ``rnea``, and ``rnea`` with the contact
frames' Jacobians (``computeJointJacobians``, ``updateFramePlacements``, ``getFrameJacobian``
of each contact: what the share is made of at order 0; Pinocchio has no call that shares a
base wrench). End to end: ``hodyn compute --floating-base --order 2`` with ``--base-wrench``
and with ``--contacts`` on one HDF5 file of ``--e2e-samples`` samples, wall time and peak
RSS, best of ``--repeat``.

Variants: ``default`` the widest kernel this CPU runs, ``avx2`` (``HODYN_KERNEL=avx2``),
``numpy`` (``HODYN_NO_KERNEL=1``: every operation numpy's). Run with another checkout's
interpreter (e.g. an older hodyn's ``.venv/bin/python``) it measures that hodyn: the script
uses only ``floating.inverse_dynamics``, ``on_contacts`` and the command line.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import importlib.metadata
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from _measure import best_per_sample, peak_rss_mib, process

ROOT = Path(__file__).resolve().parents[1]
ROBOTS = {"talos": "docs/examples/talos_feet.toml", "quadruped": "docs/examples/quadruped_feet.toml"}
#: variant -> environment
VARIANTS = {"default": {}, "avx2": {"HODYN_KERNEL": "avx2"}, "avx512": {"HODYN_KERNEL": "avx512"},
            "portable": {"HODYN_KERNEL": "portable"}, "numpy": {"HODYN_NO_KERNEL": "1"}}


def urdf(robot: str) -> Path:
    if robot == "talos":
        dist = importlib.metadata.distribution("example-robot-data")
        return Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots/talos_data/"
                                     "robots/talos_reduced.urdf"))
    return ROOT / "urdf" / f"{robot}.urdf"


def trajectory(robot: str, N: int):
    """(model, contacts, the floating-base trajectory): bench_floating.py's motion."""
    from bench_floating import base_motion

    from hodyn_cli.algorithms.dynamics.floating import base_from_spatial
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.modeling.contacts import read_contacts
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(urdf(robot))
    t = np.linspace(0, N / 1000, N)
    traj = cosine(model.joint_names, t, amplitude=0.3, omega=np.linspace(1.0, 3.0, model.n),
                  phase=np.arange(model.n), orders=5)
    traj = replace(traj, base=base_from_spatial(*base_motion(t, 3)))
    return model, read_contacts(ROOT / ROBOTS[robot], model), traj


def pinocchio_peers(robot: str, model, contacts, traj, repeat: int) -> dict[str, float]:
    """us per call of the free-flyer rnea, and of rnea with the contact frames' Jacobians."""
    import pinocchio as pin

    pm = pin.buildModelFromUrdf(str(urdf(robot)), pin.JointModelFreeFlyer())
    data = pm.createData()
    order = [model.joint_index(pm.names[j]) for j in range(2, pm.njoints)]
    N = traj.n_samples
    base = traj.base
    quat = [pin.Quaternion(base.R[s]).coeffs() for s in range(N)]
    q = [np.concatenate([base.p[s], quat[s], traj.derivatives[s, 0, order]]) for s in range(N)]
    v, a = ([np.concatenate([base.Vb[s, k, [3, 4, 5, 0, 1, 2]], traj.derivatives[s, k + 1, order]])
             for s in range(N)] for k in (0, 1))
    frames = [pm.getFrameId(c.link) for c in contacts]
    frame = pin.ReferenceFrame.LOCAL_WORLD_ALIGNED

    def with_jacobians(s):
        pin.rnea(pm, data, q[s], v[s], a[s])
        pin.computeJointJacobians(pm, data, q[s])
        pin.updateFramePlacements(pm, data)
        return [pin.getFrameJacobian(pm, data, f, frame) for f in frames]

    calls = {"rnea": lambda s: pin.rnea(pm, data, q[s], v[s], a[s]),
             "rnea + frame Jacobians": with_jacobians}
    out = {}
    for name, call in calls.items():
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            for s in range(N):
                call(s)
            times.append(time.perf_counter() - t0)
        out[name] = min(times) / N * 1e6
    return out


def in_process(robot: str, order: int, N: int, repeat: int, peers: bool) -> dict:
    from hodyn_cli.algorithms import backends
    from hodyn_cli.algorithms.contacts.dynamics import on_contacts
    from hodyn_cli.algorithms.dynamics import floating

    model, contacts, traj = trajectory(robot, N)
    alone_fn = lambda: floating.inverse_dynamics(model, traj, order=order)  # noqa: E731
    on_fn = lambda: on_contacts(model, traj, contacts, order=order)  # noqa: E731
    alone_fn(), on_fn()   # warm: the kernel loaded, the model's data built
    alone = best_per_sample(alone_fn, repeat, N)[0]
    on = best_per_sample(on_fn, repeat, N)[0]
    out = {"alone": alone["us"], "contacts": on["us"], "rss": peak_rss_mib(),
           "backend": backends.describe()}
    if peers:
        out |= pinocchio_peers(robot, model, contacts, traj, repeat)
    return out


def make_input(robot: str, N: int, path: Path) -> None:
    """An HDF5 file of the trajectory with its base columns."""
    from hodyn_cli.io import open_sink, trajectory_datasets
    from hodyn_cli.io.columns import motion_suffixes

    model, _, traj = trajectory(robot, N)
    data, columns = trajectory_datasets(traj)
    base = traj.base
    for k in range(base.orders):
        key = "base_V" + "b" + "d" * k
        data[key], columns[key] = base.Vb[:, k], [f"{key}_{s}" for s in motion_suffixes(key)]
    for key, value in (("base_p", base.p), ("base_R", base.R)):
        data[key], columns[key] = value, [f"{key}_{s}" for s in motion_suffixes(key)]
    with open_sink(str(path), columns, {"joint_names": list(model.joint_names)}) as sink:
        sink.write(data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--orders", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--robots", nargs="+", default=list(ROBOTS), choices=list(ROBOTS))
    ap.add_argument("--variants", nargs="+", default=["default", "avx2", "numpy"],
                    choices=list(VARIANTS))
    ap.add_argument("--e2e-samples", type=int, default=20_000)
    ap.add_argument("--case", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--make", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make:
        return make_input(args.make[0], args.e2e_samples, Path(args.make[1]))
    if args.case:
        robot, order, peers = args.case
        print(json.dumps(in_process(robot, int(order), args.samples, args.repeat,
                                    peers == "peers")))
        return
    here = [sys.executable, __file__, "--samples", str(args.samples), "--repeat",
            str(args.repeat)]
    print(f"{args.samples} samples in process, {args.e2e_samples} end to end, best of "
          f"{args.repeat}; share = on contacts - floating alone; peers per call\n")
    print(f"{'robot':<10} {'order':>5} {'variant':<8} {'floating us':>11} {'contacts us':>11} "
          f"{'share us':>8} {'share/fl':>8} {'RSS MiB':>7}  peers (us/call)")
    for robot in args.robots:
        for order in args.orders:
            for variant in args.variants:
                env = os.environ | VARIANTS[variant]
                peers = "peers" if variant == args.variants[0] and order == args.orders[0] \
                    else "-"
                out = subprocess.run([*here, "--case", robot, str(order), peers], env=env,
                                     capture_output=True, text=True, check=True)
                r = json.loads(out.stdout)
                share = r["contacts"] - r["alone"]
                pins = ", ".join(f"{k} {r[k]:.2f}" for k in ("rnea", "rnea + frame Jacobians")
                                 if k in r)
                print(f"{robot:<10} {order:>5} {variant:<8} {r['alone']:>11.2f} "
                      f"{r['contacts']:>11.2f} {share:>8.2f} {share / r['alone']:>8.1f} "
                      f"{r['rss']:>7.0f}  {pins}", flush=True)
    if not args.e2e_samples:
        return
    print(f"\n{'hodyn compute --order 2 (end to end)':<44} {'variant':<8} {'s':>6} "
          f"{'us/sample':>9} {'RSS MiB':>7}")
    with tempfile.TemporaryDirectory(prefix="hodyn-bench-") as tmp:
        work = Path(tmp)
        for robot in args.robots:
            data = work / f"{robot}.h5"
            subprocess.run([*here, "--e2e-samples", str(args.e2e_samples), "--make", robot,
                            str(data)], check=True)
            for option in (["--base-wrench"], ["--contacts", str(ROOT / ROBOTS[robot])]):
                for variant in args.variants:
                    cmd = [sys.executable, "-m", "hodyn_cli", "compute", str(urdf(robot)),
                           str(data), "-o", str(work / "out.h5"), "--order", "2",
                           "--floating-base", *option]
                    os.environ.update(VARIANTS[variant])
                    try:
                        runs = [process(cmd, work / "out.h5") for _ in range(args.repeat)]
                    finally:
                        for key in VARIANTS[variant]:
                            del os.environ[key]
                    wall, rss = min(r[0] for r in runs), max(r[1] for r in runs)
                    what = f"{robot} --floating-base {option[0]}"
                    print(f"{what:<44} {variant:<8} {wall:>6.2f} "
                          f"{wall / args.e2e_samples * 1e6:>9.2f} {rss:>7.0f}", flush=True)


if __name__ == "__main__":
    main()
