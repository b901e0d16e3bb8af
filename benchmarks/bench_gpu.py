"""Microseconds per sample of the GPU backend (tau, taud, taudd of the iiwa, order 2) at 1M
and 4M samples, on the device alone and with the host<->device transfers, next to the
compiled kernel and a plain JAX RNEA with nested jvp (the issue's anchor).

    python benchmarks/bench_gpu.py [--device gpu|cpu] [--samples 1000000 4000000] [--repeat 3]
                                   [--block SAMPLES] [--no-anchor]

``--device cpu`` runs the very same programs on JAX's CPU backend (what a machine without a
GPU can measure: CPU numbers, not GPU ones). Rows:

- ``gpu backend, with transfers``: :func:`hodyn_cli.algorithms.backends.gpu.inverse_dynamics_chunk`
  on host arrays, as the pipeline calls it: blocks streamed to the device and back into host
  arrays (transfers overlapping the compute).
- ``gpu backend, device only``: the same compiled program on one block already on the
  device, per sample (the compute alone).
- ``jax anchor, with transfers`` / ``device only``: the plain JAX RNEA below (tau by the
  recursive Newton-Euler algorithm, taud and taudd by nested ``jax.jvp`` along the motion,
  ``vmap`` over the samples, float64), on the whole array at once.
- ``compiled kernel``: hodyn's C kernel on this machine's CPU (every core it has: one call
  per core on its share of the samples, as ``--jobs`` does).

Each is the best of ``--repeat`` runs, after one run that compiles; every result is checked
against the compiled kernel (largest relative difference printed).
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from hodyn_cli.algorithms.backends import gpu
from hodyn_cli.algorithms.backends.compiled import CompiledBackend
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData
from hodyn_cli.algorithms.dynamics.common import base_motion
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.modeling.urdf import load_model

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf" / "iiwa14.urdf"
ORDER = 2


def anchor(model):
    """The issue's anchor: (tau, taud, taudd) (N, 3, n) from q..qdddd (N, 5, n) by a plain
    RNEA per sample, its derivatives by nested jvp, vmapped (jitted; float64)."""
    import jax
    import jax.numpy as jnp

    A0, A1, A2 = ModelData(model).adjoints   # float64 constants (traced under x64)
    X, M, parent = model.X, model.inertias, model.parent
    rev = model.X[:, :3].any(axis=1)
    g = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 9.81])   # the base accelerates up: gravity

    def rnea(q, qd, qdd):
        V, Vd, Ad = [], [], []
        for i, p in enumerate(parent):
            s, c = (jnp.sin(q[i]), 1 - jnp.cos(q[i])) if rev[i] else (q[i], 0.0)
            Ad.append(A0[i] - s * A1[i] + c * A2[i])
            Vp, Vdp = (jnp.zeros(6), g) if p < 0 else (V[p], Vd[p])
            V.append(Ad[i] @ Vp + X[i] * qd[i])
            Vd.append(Ad[i] @ Vdp + X[i] * qdd[i] + _bracket(V[i], X[i] * qd[i]))
        F = [M[i] @ Vd[i] - _coad(V[i], M[i] @ V[i]) for i in range(len(parent))]
        tau = [None] * len(parent)
        for i in reversed(range(len(parent))):
            tau[i] = X[i] @ F[i]
            if parent[i] >= 0:
                F[parent[i]] = F[parent[i]] + Ad[i].T @ F[i]
        return jnp.stack(tau)

    def rates(x, xd):
        return jax.jvp(rnea, x, xd)[1]

    def one(qs):
        x, xd, xdd = (qs[0], qs[1], qs[2]), (qs[1], qs[2], qs[3]), (qs[2], qs[3], qs[4])
        taud, taudd = jax.jvp(rates, (x, xd), (xd, xdd))
        return jnp.stack([rnea(*x), taud, taudd])

    return jax.jit(jax.vmap(one))


def _bracket(V, W):
    import jax.numpy as jnp

    w, v, x, y = V[:3], V[3:], W[:3], W[3:]
    return jnp.concatenate([jnp.cross(w, x), jnp.cross(v, x) + jnp.cross(w, y)])


def _coad(V, h):
    import jax.numpy as jnp

    w, v, m, f = V[:3], V[3:], h[:3], h[3:]
    return -jnp.concatenate([jnp.cross(w, m) + jnp.cross(v, f), jnp.cross(w, f)])


def best(repeat: int, fn) -> tuple[float, object]:
    """(best seconds of ``repeat`` calls, the last result)."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def compiled_all_cores(model, qs, base):
    """The C kernel on every core: one thread per core on its share (ctypes releases the GIL)."""
    parts = np.array_split(np.arange(len(qs)), os.cpu_count() or 1)
    kernel = CompiledBackend()
    data = kernel.data(model)
    with ThreadPoolExecutor(len(parts)) as pool:
        out = pool.map(lambda rows: kernel.inverse_dynamics(
            model, data, qs[rows[0] : rows[-1] + 1], base, {}, order=ORDER), parts)
    return np.concatenate(list(out))


def rel(ours, ref) -> float:
    return float(np.abs(np.asarray(ours) - ref).max() / np.abs(ref).max())


def measure(N: int, device: str = "gpu", repeat: int = 3, block: int | None = None,
            with_anchor: bool = True) -> list[tuple[str, float, float | None]]:
    """(case, microseconds per sample, largest relative difference to the compiled kernel or
    None) of every row on N samples (``benchmarks/bench_scale.py`` prints them too). Without
    the device: :class:`hodyn_cli.errors.HodynError`."""
    model = load_model(URDF)
    base = base_motion((0.0, 0.0, -9.81), ORDER + 1)
    dm = gpu.DeviceModel(model, device)
    traj = cosine(model.joint_names, np.linspace(0, N * 1e-3, N), amplitude=0.5, omega=1.3,
                  phase=np.arange(model.n), orders=ORDER + 3)
    qs = np.ascontiguousarray(traj.derivatives)
    t, ref = best(repeat, lambda: compiled_all_cores(model, qs, base))
    rows = [("compiled kernel, every core", t, ref)]
    gpu.inverse_dynamics_chunk(model, qs[: 1 << 18], base, {}, order=ORDER, device=device,
                               block=block, on_device=dm)   # compiles the chunk's program
    t, tau = best(repeat, lambda: gpu.inverse_dynamics_chunk(
        model, qs, base, {}, order=ORDER, device=device, block=block, on_device=dm))
    rows.append(("gpu backend, with transfers", t, tau))
    rows.append(("gpu backend, device only", device_only(dm, qs, base, repeat), None))
    if with_anchor:
        rows += anchor_rows(anchor(model), qs, dm.device, repeat)
    return [(name, seconds / N * 1e6, None if out is None else rel(out, ref))
            for name, seconds, out in rows]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="gpu", choices=["gpu", "cpu"])
    ap.add_argument("--samples", type=int, nargs="+", default=[1_000_000, 4_000_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--block", type=int, default=None, help="samples per device block")
    ap.add_argument("--no-anchor", action="store_true",
                    help="leave out the JAX anchor (on a CPU it holds GBs per 2**20 samples)")
    args = ap.parse_args()
    import jax

    device = gpu.device_of(args.device)
    kind = "CPU numbers (JAX's CPU backend), not a GPU's" if args.device == "cpu" else "GPU"
    print(f"iiwa14, tau/taud/taudd (order {ORDER}), us per sample, best of {args.repeat}; "
          f"JAX {jax.__version__} on {device.device_kind} ({kind}); compiled kernel: "
          f"{CompiledBackend().describe()}, {os.cpu_count()} cores")
    print(f"{'samples':>9} {'case':<40} {'us/sample':>10}  max rel. diff to the kernel")
    for N in args.samples:
        for name, us, diff in measure(N, args.device, args.repeat, args.block,
                                      not args.no_anchor):
            print(f"{N:>9} {name:<40} {us:>10.4f}  {'' if diff is None else f'{diff:.1e}'}",
                  flush=True)


def anchor_rows(fa, qs, device, repeat: int) -> list:
    """The anchor on batches of at most 2**20 samples, one after the other (plain JAX: put,
    compute, fetch), and on one batch already on the device."""
    import jax

    N = len(qs)
    batch = min(N, 1 << 20)
    with jax.enable_x64(True):
        first = jax.device_put(qs[:batch], device)
        fa(first).block_until_ready()   # compiles
        t, out = best(repeat, lambda: np.concatenate([
            np.asarray(fa(jax.device_put(qs[s : s + batch], device))) for s in range(0, N, batch)]))
        t1, _ = best(repeat, lambda: fa(first).block_until_ready())
    return [("jax anchor (nested jvp), with transfers", t, out),
            ("jax anchor (nested jvp), device only", t1 * N / batch, None)]


def device_only(dm, qs, base, repeat: int) -> float:
    """Seconds for all samples from the time of one device-resident block of the backend's
    compiled program (the block its chunks run in), without the transfers."""
    import jax

    key, program = max(((k, p) for k, p in dm._programs.items() if k[0] == "tau"),
                       key=lambda kp: kp[0][-1])   # the biggest blocks: the whole chunk's
    size = key[-1]
    block = np.resize(qs, (size,) + qs.shape[1:])
    with jax.enable_x64(True):
        args = [jax.device_put(a, dm.device) for a in (block, base)]
        jax.block_until_ready(program(*args))
        t, _ = best(repeat, lambda: jax.block_until_ready(program(*args)))
    return t * len(qs) / size


if __name__ == "__main__":
    main()
