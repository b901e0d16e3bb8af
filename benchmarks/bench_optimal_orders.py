"""``retime --optimal`` on inputs with more derivatives than q..qdddd, and on 1000-sample paths
with torque-rate, torque-acceleration and jerk limits, which went to the windows of linear
programmes and now go to reachability (issue 37; more of them: bench_optimal_rates.py).

    python benchmarks/bench_optimal_orders.py

Each case is ``hodyn generate --kind fourier`` (5 s) then ``hodyn retime --optimal -q`` file to
file, a process each (wall time, peak RSS), its duration against the fastest uniform
scaling's; the peer, in the same run: the same input with ``--solver windows`` (the solver
these inputs went to before), or without the limits file (reachability).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import h5py
from _measure import process

ROOT = Path(__file__).resolve().parents[1]
HODYN = [sys.executable, "-m", "hodyn_cli"]

#: (robot, rate Hz, --derivatives, limits file or None, --solver)
CASES = [
    ("iiwa14", 20, 4, None, "auto"),
    ("iiwa14", 20, 6, None, "auto"),
    ("iiwa14", 20, 6, None, "windows"),
    ("iiwa14", 200, 4, None, "auto"),
    ("iiwa14", 200, 6, None, "auto"),
    ("iiwa14", 200, 6, None, "windows"),
    ("iiwa14", 200, 4, "iiwa14_limits.toml", "auto"),
    ("iiwa14", 200, 4, "iiwa14_limits.toml", "windows"),
    ("iiwa14", 200, 6, "iiwa14_limits.toml", "auto"),
    ("iiwa14", 200, 6, "iiwa14_limits.toml", "windows"),
    ("panda", 200, 4, None, "auto"),
    ("panda", 200, 4, "panda_limits.toml", "auto"),
    ("panda", 200, 4, "panda_limits.toml", "windows"),
]


def main() -> None:
    print("retime --optimal -q file to file (generate --kind fourier, 5 s), a process each")
    print(f"{'robot':>7s} {'Hz':>4s} {'orders':>6s} {'limits':>18s} {'solver':>8s} "
          f"{'used':>12s} {'optimal s':>10s} {'uniform s':>10s} {'wall s':>7s} "
          f"{'peak RSS MiB':>12s}")
    with tempfile.TemporaryDirectory() as tmp:
        for robot, rate, derivatives, limits, solver in CASES:
            urdf = str(ROOT / "urdf" / f"{robot}.urdf")
            src, out = Path(tmp) / f"{robot}_{rate}_{derivatives}.h5", Path(tmp) / "out.h5"
            if not src.exists():
                process(HODYN + ["generate", urdf, "--kind", "fourier", "--rate", str(rate),
                                 "--duration", "5", "--derivatives", str(derivatives), "-o",
                                 str(src), "-q"], src)
            extra = ["--limits", str(ROOT / "urdf" / limits)] if limits else []
            wall, rss, _ = process(HODYN + ["retime", urdf, str(src), "--optimal", "-q",
                                            "--solver", solver, *extra, "-o", str(out)], out)
            with h5py.File(out) as f:
                used, duration = f.attrs["solver"], f.attrs["duration"]
                uniform = f.attrs["uniform_duration"]
            print(f"{robot:>7s} {rate:4d} {derivatives + 1:6d} {limits or 'URDF':>18s} "
                  f"{solver:>8s} {used:>12s} {duration:10.5f} {uniform:10.5f} {wall:7.2f} "
                  f"{rss:12.0f}")


if __name__ == "__main__":
    main()
