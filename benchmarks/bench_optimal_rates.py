"""``retime --optimal`` with joint jerk, torque-rate and torque-acceleration limits (issue 37):
reachability with its smoothing widened where they need it (``rates.py``) against the
windows of linear programmes, the solver these inputs went to before, in the same run.

    python benchmarks/bench_optimal_rates.py                 # --only LABEL,... : those cases
    python benchmarks/bench_optimal_rates.py --long          # the long paths (LONG)

Each case: the input made by ``hodyn generate`` (Fourier paths of 5 s at 200 Hz, 1000
samples; point-to-point motions through waypoints, at rest at both ends and at each
waypoint), then ``hodyn retime --optimal -q`` file to file, a process each (wall time, CPU
time of the process, peak RSS), with ``--solver auto`` (reachability: the solver it used is
printed), ``--solver reachability`` (``-``: it does not apply, exit 2) and ``--solver windows``;
auto's output then through ``hodyn check`` with the same limits (exit 0: every limit kept at
every sample) and ``hodyn validate`` (exit 0). ``vs min``: auto's duration over the shorter of
reachability's and the windows'. ``both``: whether auto ran the windows after reachability
(``SLACK``), as its output records it (the HDF5 attribute ``solvers_run``; ``auto``: the
solver whose law it kept, ``solver``).
"""
from __future__ import annotations

import argparse
import csv
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import h5py
import numpy as np
from _measure import process

ROOT = Path(__file__).resolve().parents[1]
HODYN = [sys.executable, "-m", "hodyn_cli"]
PUBLIC = "cmeel.prefix/share/example-robot-data/robots"


def public(relative: str) -> str:
    import importlib.metadata

    return str(Path(importlib.metadata.distribution("example-robot-data").locate_file(PUBLIC))
               / relative)


def urdf(name: str) -> str:
    return str(ROOT / "urdf" / f"{name}.urdf")


#: waypoints as shares of each joint's position range about its middle (a row per waypoint)
TURNS = [[-0.3, 0.2, -0.2, 0.25, -0.2, 0.2, -0.1], [0.25, -0.15, 0.3, -0.2, 0.25, -0.2, 0.2],
         [-0.1, 0.25, -0.25, 0.1, -0.3, 0.1, -0.25], [0.2, -0.2, 0.15, -0.25, 0.2, -0.15, 0.3]]
#: a straight line with a stop in its middle (the path goes on: no corner)
LINE = [[-0.3] * 7, [0.0] * 7, [0.3] * 7]

#: label, robot URDF, generate's arguments, retime's limits arguments
CASES = [
    ("iiwa-fourier-q6", urdf("iiwa14"), ["--kind", "fourier", "--rate", "200", "--duration",
                                          "5", "--derivatives", "6"],
     ["--limits", str(ROOT / "urdf" / "iiwa14_limits.toml")]),
    ("iiwa-fourier", urdf("iiwa14"), ["--kind", "fourier", "--rate", "200", "--duration", "5"],
     ["--limits", str(ROOT / "urdf" / "iiwa14_limits.toml")]),
    ("panda-fourier", urdf("panda"), ["--kind", "fourier", "--rate", "200", "--duration", "5"],
     ["--limits", str(ROOT / "urdf" / "panda_limits.toml")]),
    ("panda-p2p", urdf("panda"), ["p2p", TURNS[:3], "0.6", "100"],
     ["--limits", str(ROOT / "urdf" / "panda_limits.toml")]),
    ("ur5-p2p", "ur5", ["p2p", TURNS, "2.5", "100"], ["--jerk", "1000"]),
    ("ur5-p2p-jerk200", "ur5", ["p2p", TURNS, "2.5", "100"], ["--jerk", "200"]),
    ("xarm7-stop", "xarm7", ["p2p", LINE, "5", "100"], ["--jerk", "200"]),
    ("xarm7-p2p-20Hz", "xarm7", ["p2p", TURNS, "2.5", "20"], ["--jerk", "500"]),
    ("ur5-p2p-1kHz", "ur5", ["p2p", TURNS[:3], "0.5", "1000"], ["--jerk", "500"]),
    # (review: arms and limits nobody tuned the rounds for)
    ("ur10-p2p", "ur10", ["p2p", TURNS[:3], "1.5", "100"], ["--jerk", "300"]),
    ("ur5-p2p-20Hz", "ur5", ["p2p", TURNS, "2.0", "20"], ["--jerk", "1000"]),
    ("ur5-p2p-loose", "ur5", ["p2p", TURNS[:3], "1.0", "100"], ["--jerk", "20000"]),
    ("ur5-p2p-tight", "ur5", ["p2p", TURNS[:3], "1.0", "100"], ["--jerk", "20"]),
    ("panda-fourier-50Hz", urdf("panda"), ["--kind", "fourier", "--rate", "200", "--duration",
                                           "3"],
     ["--limits", str(ROOT / "urdf" / "panda_limits.toml"), "--rate", "50"]),
    ("iiwa-fourier-1kHz", urdf("iiwa14"), ["--kind", "fourier", "--rate", "1000",
                                           "--duration", "1"],
     ["--limits", str(ROOT / "urdf" / "iiwa14_limits.toml")]),
    ("iiwa-fourier-jerk", urdf("iiwa14"), ["--kind", "fourier", "--rate", "200", "--duration",
                                           "3"], ["--jerk", "100"]),
    ("xarm7-stop-tight", "xarm7", ["p2p", LINE, "3", "100"], ["--jerk", "20"]),
    ("iiwa-p2p", urdf("iiwa14"), ["p2p", TURNS[:3], "1.0", "100"],
     ["--limits", str(ROOT / "urdf" / "iiwa14_limits.toml")]),
    ("ur10-fourier-jerk", "ur10", ["--kind", "fourier", "--rate", "200", "--duration", "3"],
     ["--jerk", "200"]),
    ("z1-p2p", "z1", ["p2p", TURNS[:3], "1.0", "100"], ["--jerk", "500"]),
    ("so101-fourier", "so101", ["--kind", "fourier", "--rate", "100", "--duration", "4"],
     ["--jerk", "50"]),
]
#: long paths (``--long``): the iiwa's Fourier path at 200 Hz with its limits file, samples;
#: the peer in the same run: the same path without the file's limits of higher orders (plain
#: reachability, the memory the rounds must stay near)
LONG = (10_000, 30_000, 100_000)
PUBLIC_ARMS = {"ur5": "ur_description/urdf/ur5_robot.urdf",
               "ur10": "ur_description/urdf/ur10_robot.urdf",
               "xarm7": "xarm_description/urdf/xarm7.urdf",
               "z1": "z1_description/urdf/z1.urdf",
               "so101": "so_arm_description/urdf/so101.urdf"}


def made(folder: Path, label: str, robot: str, args: list) -> Path:
    """The case's input file (``hodyn generate``)."""
    out = folder / f"{label}.h5"
    if args[0] != "p2p":
        process(HODYN + ["generate", robot, *args, "-o", str(out), "-q"], out)
        return out
    import hodyn_cli

    _, shares, segment, rate = args
    model = hodyn_cli.load_robot(robot)
    low, high = model.limits[:, 0], model.limits[:, 1]
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    points = folder / f"{label}.csv"
    with open(points, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(model.joint_names)
        for row in shares:
            writer.writerow(middle + half * np.array(row[: model.n]))
    process(HODYN + ["generate", robot, "--kind", "point-to-point", "--waypoints", str(points),
                     "--segment-duration", segment, "--rate", rate, "--allow-limit-violation",
                     "-o", str(out), "-q"], out)
    return out


def retimed(robot: str, src: Path, limits: list, solver: str, out: Path
            ) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one ``retime --optimal`` process (``--solver
    reachability`` may refuse the input: exit 2, no output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, rss, _ = process(HODYN + ["retime", robot, str(src), "--optimal", "-q", "--solver",
                                    solver, *limits, "-o", str(out)], out,
                           ok=(0, 2) if solver == "reachability" else (0,))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rss


def passes(args: list) -> str:
    return "ok" if subprocess.run(args, capture_output=True).returncode == 0 else "FAIL"


def long_paths() -> None:
    """The LONG cases: wall, CPU and peak RSS of ``retime --optimal`` with the iiwa's limits
    file and without it (the peer), the output checked with the file's limits and validated."""
    print("iiwa Fourier path, 200 Hz, retime --optimal -q file to file; peer: without "
          "urdf/iiwa14_limits.toml (no limits of higher orders)")
    print(f"{'samples':>8s} {'duration s':>11s} {'wall s':>7s} {'CPU s':>6s} {'RSS MiB':>7s} "
          f"{'peer wall s':>11s} {'CPU s':>6s} {'RSS MiB':>7s} {'check':>5s} {'validate':>8s}")
    robot, limits = urdf("iiwa14"), ["--limits", str(ROOT / "urdf" / "iiwa14_limits.toml")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for samples in LONG:
            src = made(folder, f"long{samples}", robot, [
                "--kind", "fourier", "--rate", "200", "--duration", str(samples / 200)])
            out, peer = folder / f"long{samples}_out.h5", folder / f"long{samples}_peer.h5"
            wall, cpu, rss = retimed(robot, src, limits, "auto", out)
            p_wall, p_cpu, p_rss = retimed(robot, src, [], "auto", peer)
            with h5py.File(out) as f:
                duration = float(f.attrs["duration"])
            check = passes(HODYN + ["check", robot, str(out), *limits, "-q"])
            valid = passes(HODYN + ["validate", robot, str(out), "-q"])
            print(f"{samples:8d} {duration:11.5f} {wall:7.2f} {cpu:6.2f} {rss:7.0f} "
                  f"{p_wall:11.2f} {p_cpu:6.2f} {p_rss:7.0f} {check:>5s} {valid:>8s}",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="", help="comma-separated case labels")
    parser.add_argument("--long", action="store_true", help="the long paths (LONG) alone")
    args = parser.parse_args()
    if args.long:
        long_paths()
        return
    only = set(filter(None, args.only.split(",")))
    print("retime --optimal -q file to file, a process each; check: hodyn check with the same "
          "limits, validate: hodyn validate (auto's output)")
    print(f"{'case':>18s} {'samples':>7s} {'auto':>12s} {'both':>4s} {'auto s':>9s} "
          f"{'reach s':>9s} {'windows s':>9s} {'vs min':>8s} {'wall s':>6s} {'CPU s':>6s} "
          f"{'RSS':>4s} {'r wall':>6s} {'CPU s':>6s} {'RSS':>4s} {'w wall':>6s} {'CPU s':>6s} "
          f"{'RSS':>4s} {'check':>5s} {'validate':>8s}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for label, robot, generate, limits in CASES:
            if only and label not in only:
                continue
            robot = public(PUBLIC_ARMS[robot]) if robot in PUBLIC_ARMS else robot
            src = made(folder, label, robot, generate)
            with h5py.File(src) as f:
                samples = len(f["t"]) if "t" in f else len(next(iter(f.values())))
            row = {}
            for solver in ("auto", "reachability", "windows"):
                out = folder / f"{label}_{solver}.h5"
                wall, cpu, rss = retimed(robot, src, limits, solver, out)
                used, duration, run = "-", float("nan"), []
                if out.exists():
                    with h5py.File(out) as f:
                        used, duration = str(f.attrs["solver"]), float(f.attrs["duration"])
                        run = list(f.attrs["solvers_run"])
                row[solver] = (used, duration, wall, cpu, rss, run)
            out = folder / f"{label}_auto.h5"
            limited = limits[: limits.index("--rate")] if "--rate" in limits else limits
            check = passes(HODYN + ["check", robot, str(out), *limited, "-q"])
            valid = passes(HODYN + ["validate", robot, str(out), "-q"])
            used, duration, wall, cpu, rss, run = row["auto"]
            _, reach, r_wall, r_cpu, r_rss, _ = row["reachability"]
            _, windows, w_wall, w_cpu, w_rss, _ = row["windows"]
            both = "yes" if run == ["reachability", "windows"] else "no"
            best = np.nanmin([reach, windows])
            print(f"{label:>18s} {samples:7d} {used:>12s} {both:>4s} {duration:9.5f} "
                  f"{reach:9.5f} {windows:9.5f} {duration / best - 1:+8.1e} {wall:6.2f} "
                  f"{cpu:6.2f} {rss:4.0f} {r_wall:6.2f} {r_cpu:6.2f} {r_rss:4.0f} {w_wall:6.2f} "
                  f"{w_cpu:6.2f} {w_rss:4.0f} {check:>5s} {valid:>8s}", flush=True)

if __name__ == "__main__":
    main()
