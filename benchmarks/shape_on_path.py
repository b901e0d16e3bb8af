"""How far reachability's shape of the path lies off the input's path, on inputs nobody tuned
it for: the first shape's largest share of a joint's travel (``reachability.off_path``, what
``retime --optimal`` holds to ``reachability.ON_PATH``), the shape with its ends' points
doubled where it was checked again, and whether reachability refuses it.

    python benchmarks/shape_on_path.py [--keep DIR] [--quick]

Inputs: the 21 of ``bench_optimal_rates.py``; ``generate --kind fourier --harmonics 9``
(20 s, seed 7) on the 16 limbs of ``stranger_sweep17.py`` and ``stranger_sweep22.py`` at
20, 100 and 1000 Hz; sweep17's loop, line5, lissa, dwell, zig and tiny paths on its limbs at
20 Hz, 100 Hz and 10 kHz (``--quick``: the fourier9 rows alone). In-process, the shape alone
(``reachability.arcs``), no law: ~2 minutes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_optimal_rates as bench  # noqa: E402
import stranger_sweep17 as s17  # noqa: E402
import stranger_sweep22 as s22  # noqa: E402

import hodyn_cli  # noqa: E402
from hodyn_cli.algorithms.limits import reachability  # noqa: E402
from hodyn_cli.algorithms.planning.generate import generate  # noqa: E402
from hodyn_cli.core.trajectory import Trajectory  # noqa: E402
from hodyn_cli.io import read_trajectory  # noqa: E402


def measured(model, traj: Trajectory) -> tuple[list, str]:
    """The :class:`reachability.OffPath` of each shape ``arcs`` made, and its refusal."""
    seen: list = []
    off_path = reachability.off_path

    def spy(*args):
        seen.append(off_path(*args))
        return seen[-1]

    reachability.off_path = spy
    try:
        reachability.arcs(traj, 3 * traj.n_samples)
        return seen, ""
    except reachability.Inapplicable as e:
        return seen, f"refused: {e}"
    finally:
        reachability.off_path = off_path


def limb(label: str):
    if label in s17.ROBOTS:
        return s17.robot_of(label)[:2]
    relative, moving, _ = s22.ROBOTS[label]
    robot = s17.public(relative)
    whole = hodyn_cli.load_robot(robot)
    if moving is None:
        return robot, whole
    return robot, hodyn_cli.api.lock_joints(whole, {j: hodyn_cli.api.lock_value(whole, j) for j
                                                    in whole.joint_names if j not in moving})


def report(label: str, model, traj: Trajectory) -> None:
    seen, refused = measured(model, traj)
    shares = " -> ".join(f"{o.share:.2e} ({model.joint_names[o.joint]}, t {o.t:.4g} s)"
                         for o in seen)
    print(f"| {label} | {traj.n_samples} | {shares} | {refused[:120]} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", default="/tmp/shape_on_path")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    folder = Path(args.keep)
    folder.mkdir(parents=True, exist_ok=True)
    print("| input | samples | largest share off the path (first shape -> ends doubled) | |")
    print("|---|---|---|---|")
    for label in [*s17.ROBOTS, *s22.ROBOTS]:
        _, model = limb(label)
        for rate in (20.0, 100.0, 1000.0):
            traj = generate(model, "fourier", rate=rate, duration=min(20.0, 1e4 / rate),
                            harmonics=9, base_frequency=0.25, seed=7)
            report(f"{label} fourier9 {rate:g} Hz", model, traj)
    if args.quick:
        return
    for label, robot, made, _ in bench.CASES:
        robot = bench.public(bench.PUBLIC_ARMS[robot]) if robot in bench.PUBLIC_ARMS else robot
        src = folder / f"{label}.h5"
        if not src.exists():
            bench.made(folder, label, robot, made)
        model = hodyn_cli.load_robot(robot)
        report(f"bench {label}", model, read_trajectory(str(src), model, need=2))
    for label in s17.ROBOTS:
        robot, model, _ = s17.robot_of(label)
        for path in ("loop", "line5", "lissa", "dwell", "zig", "tiny"):
            for rate in (20.0, 100.0, 1e4):
                src, _ = s17.design(folder, robot, model, path, rate, s17.SHIFT.get(label))
                report(f"{label} {path} {rate:g} Hz", model,
                       read_trajectory(str(src), model, need=2))


if __name__ == "__main__":
    main()
