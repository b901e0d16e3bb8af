"""Microseconds per sample of closed loops (docs/loops.md) next to the open tree's torques.

    python benchmarks/bench_loops.py [--samples 20000] [--repeat 3] [--orders 0 2 4]
    python benchmarks/bench_loops.py --interleaved --repeat 10 [--cpu]
    python benchmarks/bench_loops.py --far-hip [--samples 2000] [--repeat 5]

The four-bar of urdf/fourbar.urdf, the five-bar of urdf/fivebar.urdf and the leg of
urdf/leg_fourbar_knee.urdf (each with its ``_loops.toml``) along cosines of their actuated
joints with exact derivatives, per torque order. Cases, each in its own process (the peak RSS
printed is that case's, the motion included): the open tree's torques and their derivatives
along the closed motion (all joints given; the compiled kernel, the peer, and the numpy
reference), the closed robot's (the passive joints by Newton and the implicit function
theorem, the projection, the constraint forces: ``api.inverse_dynamics`` on the actuated
joints alone), its passive joints alone (positions and derivatives: the coupling's
``expand``), and Pinocchio's ``rnea`` on the tree looped from Python over the same samples
(torques only; Pinocchio has no inverse dynamics of closed loops, ``constraintDynamics``
solves the forward problem). ``--interleaved``: the closed robot and the tree's kernel timed
in turn in one process, their ratio (no RSS); with ``--cpu`` in the process's CPU time
(``time.process_time``: other processes' load moves it less than the wall time).
``--far-hip``: the leg with its hip (off the knee's loop: it turns the linkage whole) at 1e3
and 1e6 rad at one sample of the file, the torques at order 2 in CPU time against the same
file with the hip there at 0.1 rad (the peer), and with every actuated joint counting
continuation steps (the rule before: 0.2 rad a step, 5 000 steps at 1e3 rad; 1e6 rad, 5
million, is not run), in one process, its peak RSS.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as bench_inverse_dynamics.py

import argparse
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import best_per_sample  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CASES = ("tree (compiled)", "tree (numpy)", "closed", "closed: passive joints",
         "pin.rnea loop (tree)")
#: robot -> the actuated joints' cosine (offset, amplitude, omega per joint)
ROBOTS = {"fourbar": ([0.3], [1.2], [3.0]),
          "fivebar": ([-2.0, -1.1], [0.3, 0.25], [2.0, 3.0]),
          "leg_fourbar_knee": ([0.0, -0.5], [0.3, 0.4], [2.0, 3.0])}


def measure(robot: str, case: str, samples: int, repeat: int, order: int) -> dict:
    from hodyn_cli import api
    from hodyn_cli.core.trajectory import cosine

    tree = api.load_robot(ROOT / "urdf" / f"{robot}.urdf")
    closed = api.close_loops(tree, ROOT / "urdf" / f"{robot}_loops.toml")
    offset, amplitude, omega = ROBOTS[robot]
    crank = cosine(closed.coordinate_names, np.linspace(0.0, samples / 100, samples),
                   amplitude=amplitude, omega=omega, offset=offset, orders=order + 2)
    full = closed.coupling.expand(crank)
    if case == "tree (numpy)":
        api.use_backend("numpy")
    if case.startswith("tree"):
        def run():
            return api.inverse_dynamics(tree, full, order=order)
    elif case == "closed":
        def run():
            return api.inverse_dynamics(closed, crank, order=order)
    elif case == "closed: passive joints":
        def run():
            return closed.coupling.expand(crank)
    else:
        import pinocchio as pin

        pm = pin.buildModelFromUrdf(str(ROOT / "urdf" / f"{robot}.urdf"))
        data = pm.createData()
        order = [tree.joint_index(pm.names[j]) for j in range(1, pm.njoints)]
        q, v, a = (np.ascontiguousarray(x[:, order]) for x in (full.q, full.qd, full.qdd))

        def run():
            for s in range(samples):
                pin.rnea(pm, data, q[s], v[s], a[s])
    result, _ = best_per_sample(run, repeat, samples)
    return result


def interleaved(samples: int, repeat: int, orders: list[int], cpu: bool = False) -> None:
    """The closed robot's cost over the open tree's kernel, the two timed in turn in one
    process (best of ``repeat`` each; ``cpu``: CPU time): a ratio that the machine's load
    moves less than that of cases run minutes apart."""
    from time import perf_counter, process_time

    clock = process_time if cpu else perf_counter

    from hodyn_cli import api
    from hodyn_cli.core.trajectory import cosine

    print(f"{'interleaved' + (' CPU' if cpu else '') + ', ' + str(samples) + ' samples':30s} "
          f"{'tree us':>8s} {'closed us':>10s} "
          f"{'x tree':>7s}")
    for robot, (offset, amplitude, omega) in ROBOTS.items():
        tree = api.load_robot(ROOT / "urdf" / f"{robot}.urdf")
        closed = api.close_loops(tree, ROOT / "urdf" / f"{robot}_loops.toml")
        for order in orders:
            crank = cosine(closed.coordinate_names, np.linspace(0.0, samples / 100, samples),
                           amplitude=amplitude, omega=omega, offset=offset, orders=order + 2)
            full = closed.coupling.expand(crank)
            best = {"tree": np.inf, "closed": np.inf}
            for _ in range(repeat):
                for name, robot_, motion in (("tree", tree, full), ("closed", closed, crank)):
                    t0 = clock()
                    api.inverse_dynamics(robot_, motion, order=order)
                    best[name] = min(best[name], (clock() - t0) / samples * 1e6)
            print(f"{robot + f', order {order}':30s} {best['tree']:8.2f} {best['closed']:10.2f} "
                  f"{best['closed'] / best['tree']:7.2f}")


def far_hip(samples: int, repeat: int) -> None:
    """``--far-hip`` (module docstring): ms per call, best of ``repeat`` in CPU time."""
    import copy
    from time import process_time

    from _measure import peak_rss_mib

    from hodyn_cli import api
    from hodyn_cli.core.trajectory import cosine

    closed = api.close_loops(api.load_robot(ROOT / "urdf" / "leg_fourbar_knee.urdf"),
                             ROOT / "urdf" / "leg_fourbar_knee_loops.toml")
    before = copy.copy(closed.coupling)   # every actuated joint counted, as before
    before.closing = np.ones_like(before.closing)
    before.cuts = before._cuts()
    offset, amplitude, omega = ROBOTS["leg_fourbar_knee"]
    print(f"leg, order 2, {samples} samples, one with the hip at   ms (CPU)  RSS MiB")
    for hip, rule in ((0.1, "now"), (1e3, "now"), (1e6, "now"), (0.1, "before"),
                      (1e3, "before")):
        motion = cosine(closed.coordinate_names, np.arange(samples) * 0.01,
                        amplitude=amplitude, omega=omega, offset=offset, orders=4)
        motion.derivatives[samples // 2, 0, 0] = hip
        robot = closed if rule == "now" else replace(closed, coupling_kind=lambda _: before)
        best = np.inf
        for _ in range(repeat):
            t0 = process_time()
            api.inverse_dynamics(robot, motion, order=2)
            best = min(best, process_time() - t0)
        print(f"{f'{hip:g} rad ({rule})':47s} {best * 1e3:9.2f} {peak_rss_mib():8.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--orders", type=int, nargs="+", default=[0, 2, 4])
    parser.add_argument("--interleaved", action="store_true",
                        help="only the closed robot over the tree, timed in turn in one process")
    parser.add_argument("--cpu", action="store_true",
                        help="with --interleaved: CPU time (time.process_time), not wall time")
    parser.add_argument("--far-hip", action="store_true",
                        help="the leg's hip far off at one sample, against at 0.1 rad")
    parser.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)
    parser.add_argument("--robot", choices=ROBOTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(measure(args.robot, args.case, args.samples, args.repeat,
                                 args.orders[0])))
        return
    if args.interleaved:
        interleaved(args.samples, args.repeat, args.orders, args.cpu)
        return
    if args.far_hip:
        far_hip(args.samples, args.repeat)
        return
    print(f"{args.samples} samples, best of {args.repeat}")
    for robot in ROBOTS:
        for order in args.orders:
            rows = {}
            for case in CASES:
                out = subprocess.run(
                    [sys.executable, __file__, "--robot", robot, "--case", case, "--samples",
                     str(args.samples), "--repeat", str(args.repeat), "--orders", str(order)],
                    capture_output=True, text=True, check=True).stdout
                rows[case] = json.loads(out)
            base = rows["tree (compiled)"]["us"]
            print(f"\n{robot + f', order {order}':30s} {'us/sample':>10s} {'x tree':>8s} "
                  f"{'RSS MiB':>8s}")
            for case, r in rows.items():
                print(f"{case:30s} {r['us']:10.2f} {r['us'] / base:8.1f} {r['rss']:8.0f}")


if __name__ == "__main__":
    main()
