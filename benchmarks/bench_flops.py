"""Floating-point operations per sample of the compiled kernel, counted, and the fraction of
the CPU's peak they reach.

    python benchmarks/bench_flops.py [--order 2] [--samples 100000]

The count is exact for the code that runs: valgrind's callgrind counts how often every
instruction of the kernel library executes (on 400 iiwa samples, a multiple of every lane
width), objdump says which are floating-point arithmetic and on how many doubles (ymm 4,
xmm 2, scalar 1; a fused multiply-add counts 2). sin and cos run in libm and are counted
apart (calls). The time per sample is measured without valgrind (best of 5, 100 000
samples); peak = cores x clock x FMA pipes x lanes x 2 for this CPU (assumed: two 256-bit FMA
pipes per core, AMD Zen 2/3 and Intel since Haswell; the clock from /proc/cpuinfo).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = 400

WORKLOAD = """
import numpy as np
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends import compiled
from hodyn_cli.algorithms.dynamics.common import base_motion
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.modeling.urdf import load_model
model = load_model({urdf!r})
traj = cosine(model.joint_names, np.linspace(0, 4, {N}), amplitude=0.5, omega=1.3,
              phase=np.arange(model.n), orders={order} + 3)
kernel = backends.load("compiled")
kernel.inverse_dynamics(model, kernel.data(model), traj.derivatives,
                        base_motion((0, 0, -9.81), {order} + 1), {{}}, order={order})
print(compiled.VARIANTS[kernel.variant][0])
"""


def flops_of(mnemonic: str, operands: str) -> int:
    """Double-precision operations of one executed instruction (0: not FP arithmetic)."""
    m = re.match(r"v?(fn?m(add|sub)\d*|mul|add|sub|div)(p|s)d$", mnemonic)
    if not m:
        return 0
    width = 4 if "ymm" in operands else 8 if "zmm" in operands else 2 if m.group(3) == "p" else 1
    return width * (2 if m.group(1).startswith("f") else 1)


def executed(callgrind_out: str, library: str) -> tuple[Counter, Counter]:
    """(executions per instruction address of ``library``, calls per callee name)."""
    counts: Counter = Counter()
    calls: Counter = Counter()
    names: dict[str, str] = {}
    ob = cfn = ""
    addr = 0
    skip = False
    for line in open(callgrind_out):
        line = line.rstrip("\n")
        key, _, rest = line.partition("=")
        if key in ("ob", "cob", "fn", "cfn") and rest:
            m = re.match(r"\((\d+)\)(?: (.*))?", rest)
            value = names.setdefault(key[-2:] + m.group(1), m.group(2) or "") if m else rest
            if key == "ob":
                ob = value
            elif key == "cfn":
                cfn = value
            continue
        if key == "calls":
            if library in ob:
                calls[cfn] += int(rest.split()[0])
            skip = True
            continue
        if not line or line[0] not in "+-*0123456789":
            continue
        parts = line.split()
        a = parts[0]
        addr = int(a, 16) if a.startswith("0x") else addr + int(a) if a[0] in "+-" else addr
        if skip:  # the inclusive cost of a call: not this instruction's executions
            skip = False
            continue
        if library in ob and len(parts) >= 3:
            counts[addr] += int(parts[2])
    return counts, calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--order", type=int, default=2)
    ap.add_argument("--samples", type=int, default=100_000)
    args = ap.parse_args()
    urdf = str(ROOT / "urdf" / "iiwa14.urdf")
    with tempfile.TemporaryDirectory() as work:
        script = Path(work) / "workload.py"
        script.write_text(WORKLOAD.format(urdf=urdf, N=SAMPLES, order=args.order))
        out = Path(work) / "callgrind.out"
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                              "--dump-instr=yes", sys.executable, str(script)],
                             capture_output=True, text=True, check=True)
        module = run.stdout.split()[-1]
        from importlib import import_module

        library = import_module(f"hodyn_cli.algorithms.backends.{module}").__file__
        counts, calls = executed(str(out), Path(library).name)
    disassembly = subprocess.run(["objdump", "-d", "--no-show-raw-insn", library],
                                 capture_output=True, text=True, check=True).stdout
    weight = {}
    for m in re.finditer(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", disassembly, re.M):
        weight[int(m.group(1), 16)] = flops_of(m.group(2), m.group(3))
    flops = sum(c * weight.get(a, 0) for a, c in counts.items())  # addresses: in the library
    sincos = sum(c for name, c in calls.items() if "sin" in name or "cos" in name)
    per_sample = flops / SAMPLES

    from hodyn_cli.algorithms import backends
    from hodyn_cli.algorithms.dynamics.common import base_motion
    from hodyn_cli.core.trajectory import cosine
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(urdf)
    N = args.samples
    traj = cosine(model.joint_names, np.linspace(0, N / 100, N), amplitude=0.5, omega=1.3,
                  phase=np.arange(model.n), orders=args.order + 3)
    base = base_motion((0, 0, -9.81), args.order + 1)
    kernel = backends.load("compiled")
    data = kernel.data(model)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        kernel.inverse_dynamics(model, data, traj.derivatives, base, {}, order=args.order)
        times.append(time.perf_counter() - t0)
    us = min(times) / N * 1e6
    mhz = max(float(m) for m in re.findall(r"cpu MHz\s*:\s*([\d.]+)",
                                           Path("/proc/cpuinfo").read_text()))
    info = kernel.details
    lanes = info["lanes"]
    peak = mhz * 1e6 * 2 * lanes * 2  # one core: two FMA pipes of `lanes` doubles
    achieved = per_sample / (us * 1e-6)
    print(f"iiwa14 (7 DOF), compute --order {args.order}, kernel {info['variant']} "
          f"({info['isa']}, {lanes} lanes)")
    print(f"floating-point operations per sample: {per_sample:,.0f} (counted by callgrind on "
          f"{SAMPLES} samples in {module}; FMA = 2)")
    print(f"per body and torque order: {per_sample / model.n / (args.order + 1):,.0f}")
    print(f"sin/cos calls per sample: {sincos / SAMPLES:.1f}")
    print(f"time per sample: {us:.3f} us (one core, best of 5, {N} samples)")
    print(f"achieved: {achieved / 1e9:.2f} GFLOP/s = {achieved / peak:.1%} of one core's peak "
          f"({peak / 1e9:.1f} GFLOP/s at {mhz:.0f} MHz)")


if __name__ == "__main__":
    main()
