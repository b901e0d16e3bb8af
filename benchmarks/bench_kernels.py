"""Microseconds per sample of every compiled kernel, in this process, next to the Pinocchio
call a user would loop over, per kernel variant (lane width).

    python benchmarks/bench_kernels.py [--samples 20000] [--repeat 3]

The iiwa along a cosine motion. hodyn runs batched over the samples (its library functions,
no file I/O, no start-up); Pinocchio (C++) is called once per sample from Python over the
same samples. ratio = hodyn us/sample / Pinocchio us/call, measured in the same run. Each
variant of the kernel this CPU runs (``portable``: 2 lanes; ``avx2``: 4; ``avx512``: 8) is
measured in turn; ``numpy`` is the implementation without the kernel (its reference).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import resource
import time
from pathlib import Path

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.actuation import elastic
from hodyn_cli.algorithms.backends import compiled
from hodyn_cli.algorithms.dynamics import closed_form, regressor, sensitivities
from hodyn_cli.algorithms.dynamics import floating as fb
from hodyn_cli.algorithms.dynamics.forward import forward_dynamics
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.modeling.drives import read_drives
from hodyn_cli.modeling.urdf import load_model

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf" / "iiwa14.urdf"


def best(repeat: int, fn) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def pinocchio_peers(traj, repeat: int) -> dict[str, float]:
    """us per call of the Pinocchio peers over the trajectory's samples."""
    import pinocchio as pin

    pm = pin.buildModelFromUrdf(str(URDF))
    data = pm.createData()
    q, v, a = (np.ascontiguousarray(traj.derivatives[:, k]) for k in range(3))
    N = len(q)
    calls = {
        "rnea": lambda s: pin.rnea(pm, data, q[s], v[s], a[s]),
        "computeJointTorqueRegressor": lambda s: pin.computeJointTorqueRegressor(
            pm, data, q[s], v[s], a[s]),
        "computeRNEADerivatives": lambda s: pin.computeRNEADerivatives(pm, data, q[s], v[s], a[s]),
        "crba + Coriolis + gravity": lambda s: (pin.crba(pm, data, q[s]),
                                                pin.computeCoriolisMatrix(pm, data, q[s], v[s]),
                                                pin.computeGeneralizedGravity(pm, data, q[s])),
        "computeABADerivatives": lambda s: pin.computeABADerivatives(pm, data, q[s], v[s], a[s]),
    }

    def loop(call):
        for s in range(N):
            call(s)

    return {name: best(repeat, lambda c=call: loop(c)) / N * 1e6 for name, call in calls.items()}


def floating(model, traj):
    """The trajectory with a floating root: turning about a fixed axis, moving, its body twist
    and 3 derivatives in closed form (a constant-axis rotation: omega^(k) = axis theta^(k+1))."""
    from dataclasses import replace

    from hodyn_cli.algorithms.dynamics.floating import base_from_spatial
    from hodyn_cli.core import lie

    t, axis = traj.t, np.array([0.6, 0.0, 0.8])
    k = np.arange(5)[:, None]
    theta = 0.3 * 1.7**k * np.sin(1.7 * t + k * np.pi / 2)
    Vs = np.zeros((len(t), 4, 6))
    Vs[:, :, :3] = theta[1:].T[..., None] * axis     # the origin stays at the world's: v^s = 0
    return replace(traj, base=base_from_spatial(lie.rotation_exp(axis, theta[0]),
                                                np.zeros((len(t), 3)), Vs))


#: case -> (function of (model, trajectory, drives, inputs made once: ``extras``), Pinocchio peer)
CASES = {
    "compute --order 2": (lambda m, t, d, x: inverse_dynamics(m, t, order=2), "rnea"),
    "regressor --order 0": (lambda m, t, d, x: regressor.regressor(m, t, order=0),
                            "computeJointTorqueRegressor"),
    "regressor --order 2": (lambda m, t, d, x: regressor.regressor(m, t, order=2),
                            "computeJointTorqueRegressor"),
    "sensitivities --order 0": (lambda m, t, d, x: sensitivities.sensitivities(m, t, order=0),
                                "computeRNEADerivatives"),
    "sensitivities --order 2": (lambda m, t, d, x: sensitivities.sensitivities(m, t, order=2),
                                "computeRNEADerivatives"),
    "matrices --order 0": (lambda m, t, d, x: closed_form.matrices(m, t, order=0),
                           "crba + Coriolis + gravity"),
    "matrices --order 2": (lambda m, t, d, x: closed_form.matrices(m, t, order=2),
                           "crba + Coriolis + gravity"),
    "elastic --model full --order 0": (
        lambda m, t, d, x: elastic.inverse_dynamics(m, t, d, order=0), "rnea"),
    "regressor --slotine-li": (
        lambda m, t, d, x: regressor.slotine_li_regressor(m, t, x["qr"], x["qr"]),
        "computeJointTorqueRegressor"),
    "compute --floating-base --order 2": (
        lambda m, t, d, x: fb.inverse_dynamics(m, x["floating"], order=2), "rnea"),
    "forward --derivatives": (
        lambda m, t, d, x: forward_dynamics(m, x["state"], x["tau"], derivatives=True),
        "computeABADerivatives"),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    model = load_model(URDF)
    drives = read_drives(ROOT / "urdf" / "iiwa14_drives.toml", model)
    N = args.samples
    traj = cosine(model.joint_names, np.linspace(0, N / 100, N), amplitude=0.5, omega=1.3,
                  phase=np.arange(model.n), orders=10)
    qr = np.random.default_rng(0).normal(size=(N, model.n))
    peers = pinocchio_peers(traj, args.repeat)
    print(f"iiwa14, {N} samples ({N // 20} for numpy), best of {args.repeat}; ratio = hodyn "
          "us/sample / Pinocchio us/call\n")
    print(f"{'case':<34} {'variant':<9} {'us/sample':>9} {'ratio':>6}  peer (us/call)")
    for variant in [*compiled.variants(), "numpy"]:
        n = N if variant != "numpy" else N // 20  # the reference is slow: fewer samples
        head = Trajectory(traj.joint_names, traj.derivatives[:n], traj.t[:n])
        extras = {"qr": qr[:n], "floating": floating(model, head),
                  "state": Trajectory(traj.joint_names, head.derivatives[:, :2]),
                  "tau": inverse_dynamics(model, head, order=0) + 0.5}   # not this motion's
        with (backends.use("numpy") if variant == "numpy" else
              backends.use("compiled", variant=variant)):
            for name, (fn, peer) in CASES.items():
                us = best(args.repeat, lambda f=fn, h=head, x=extras: f(model, h, drives, x)) / n * 1e6
                print(f"{name:<34} {variant:<9} {us:>9.2f} {us / peers[peer]:>6.2f}  "
                      f"{peer} ({peers[peer]:.2f})")
    print(f"\npeak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
