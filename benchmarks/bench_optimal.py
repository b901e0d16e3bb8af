"""``hodyn retime --optimal`` against its peer and against the uniform scaling, and how its
cost grows with the path.

    python benchmarks/bench_optimal.py [--long] [--grid 1000] [--only PART] [--repeat 5]

1. **Peer** (velocity and torque limits only, what toppra takes): the duration on the same
   path (toppra is handed hodyn's path between the samples, the same limits and end speeds)
   next to toppra's on grids of 1000 and 4000 points, and the run times (hodyn: plan, fit and
   retimed motion; toppra: its parametrisation).
2. **Torque rates** (limited to half the input's peak |taud| per joint, so they bind; the
   URDF's velocity and torque limits too) on the bundled motions and on point-to-point
   motions (``generate --kind point-to-point``): the duration next to the fastest uniform
   scaling's (``--to-limits``), and how far toppra's solution on the same path with the
   velocity and torque limits (all it takes) exceeds the torque-rate limit, as a controller
   sampling it at 100 Hz sees it (differences of its torques: they jump at its switches).
3. **Scaling**: ``hodyn retime --optimal`` file to file (HDF5, q..qdddd, the iiwa along a
   cosine motion at 100 Hz) for 10^3, 10^4 and 10^5 samples (``--long``: 10^6 too) on the
   default grid, with the URDF's velocity and torque limits and with
   urdf/iiwa14_limits.toml, as a process: the duration next to the uniform scaling's, the
   grid, wall time and peak RSS; and toppra on the same path (the URDF's limits) on as many
   grid points, as a process too: its duration, wall time, the seconds of its
   parametrisation and peak RSS (``--only 3``: this part alone).
4. **Every path class** on four arms (the iiwa, the Panda, and example-robot-data's UR5 and
   xArm7 where installed), velocity and torque limits (the URDF's), the default grid, with
   ``--solver windows`` (old: the linear programmes in the input's time) and ``auto`` (new:
   reachability along the arc length where it applies, which solver it took shown): a
   cosine (no rest: toppra on hodyn's path, with its end speeds); from rest to rest along a
   straight line (designs of 3 s and 10 s), along a curve, along the curve with a stop in
   its middle, and through three waypoints with a rest at the corner between two lines:
   toppra from rest to rest on each piece, parametrised regularly (on hodyn's path, whose
   q' vanishes at the rests, toppra fails). Every output is checked within its limits and
   by ``hodyn validate``.
5. **Speed** (issue 37: 1000 samples in <= 1 s end to end, 10^5 in <= 30 s): ``hodyn retime
   --optimal -q`` file to file (the iiwa's cosine at 100 Hz, q..qdddd, the URDF's velocity
   and torque limits: the reachability solver), as a process, ``--repeat`` times (the
   spread: the machine is shared), wall time and peak RSS, next to toppra on the same path
   and as many grid points in the same run (a process too: its wall time, the seconds of
   its parametrisation, its duration).
6. **Corners at every rate** (issue 37): a line and a corner (the path turning at a rest)
   on the four arms, designed and retimed at 20 Hz, 100 Hz, 1 kHz and 10 kHz, against
   toppra's lines in the same run; every output checked within its limits and by ``hodyn
   validate``; and the iiwa's zigzag through 31 waypoints (30 corners) at 100 Hz.
7. **Memory against the length** (issue 37 item 4: memory bounded): ``hodyn retime --optimal
   -q`` file to file (the iiwa's cosine at 100 Hz, q..qdddd, the URDF's limits: the
   reachability solver) at 3 x 10^4, 10^5 and 3 x 10^5 samples (``--long``: 10^6 and 2 x
   10^6 too), as a process each: wall time, peak RSS and what it grew by per sample from the
   first size; the same command with ``--solver windows`` (a chunk's memory by design) at
   the first size as the peer.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import sys
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _measure import peak_rss_mib, process  # noqa: E402

import hodyn_cli  # noqa: E402
from hodyn_cli.algorithms.limits import optimal, programme  # noqa: E402
from hodyn_cli.algorithms.limits.jets import compose  # noqa: E402
from hodyn_cli.algorithms.planning.generate import generate  # noqa: E402
from hodyn_cli.core.trajectory import Trajectory  # noqa: E402
from hodyn_cli.io import read_trajectory  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_trajectories"


def toppra_run(model, traj, velocity, torque, ends, grid, gravity=(0.0, 0.0, -9.81)):
    """toppra (TOPPRA, interpolation discretisation) on hodyn's path: (duration, seconds,
    the result's trajectory)."""
    import toppra as ta
    import toppra.algorithm as algo
    import toppra.constraint as constraint

    ta.setup_logging("CRITICAL")

    path = toppra_path(lambda s, order: programme.between(
        traj, np.atleast_1d(np.asarray(s, dtype=float)))[:, order], model.n, traj.t[0], traj.t[-1])
    def inverse_dynamics(q, qd, qdd):
        return hodyn_cli.inverse_dynamics(model, q, qd, qdd, order=0, gravity=gravity).tau

    cs = [constraint.JointVelocityConstraint(np.column_stack([-velocity, velocity])),
          constraint.JointTorqueConstraint(inverse_dynamics, np.column_stack([-torque, torque]),
                                           np.zeros(model.n),
                                           constraint.DiscretizationType.Interpolation)]
    t0 = time.perf_counter()
    inst = algo.TOPPRA(cs, path, gridpoints=np.linspace(traj.t[0], traj.t[-1], grid + 1),
                       parametrizer="ParametrizeConstAccel")
    result = inst.compute_trajectory(*ends)
    return (np.nan if result is None else result.duration), time.perf_counter() - t0, inst


def toppra_torque_rates(model, inst, rate: float = 100.0) -> np.ndarray:
    """(n,) the peak torque rate of toppra's solution as a controller sampling it at ``rate``
    sees it: the torques' differences over the sampling interval (toppra's time law has
    piecewise constant sddot: its torques jump, their rate itself is unbounded)."""
    result = inst.compute_trajectory(*inst.problem_data.sd_vec[[0, -1]])
    t = np.arange(0, result.duration, 1 / rate)
    tau = hodyn_cli.inverse_dynamics(model, result(t), result(t, 1), result(t, 2), order=0).tau
    return np.abs(np.diff(tau, axis=0) * rate).max(axis=0)


def hodyn_run(model, traj, limits, grid, gravity=(0.0, 0.0, -9.81), solver="windows"):
    """hodyn --optimal (``solver``): (optimal, output, seconds, the output's end speeds along
    the input's path parameter: toppra's end conditions)."""
    t0 = time.perf_counter()
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=grid, gravity=gravity,
                                        solver=solver)
    seconds = time.perf_counter() - t0
    ends = np.array([np.linalg.norm(out.derivatives[i, 1]) / max(
        np.linalg.norm(traj.derivatives[i, 1]), 1e-300) for i in (0, -1)])
    return opt, out, seconds, ends


def peer(grid: int) -> None:
    print("1. velocity and torque limits: hodyn --optimal against toppra on the same path")
    print(f"{'case':46s} {'hodyn s':>9s} {'toppra 1000':>12s} {'toppra 4000':>12s} "
          f"{'diff %':>7s} {'hodyn run s':>11s} {'toppra run s':>12s}")
    model = hodyn_cli.load_robot(ROOT / "urdf" / "iiwa14.urdf")
    traj = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), model, need=5)
    zero = (0.0, 0.0, 0.0)
    tau = hodyn_cli.inverse_dynamics(model, traj, order=0, gravity=zero).tau
    half = 0.5 * np.abs(tau).max(axis=0)
    for label, limits, torque, gravity in (
            ("iiwa14_cosine, URDF limits", None, model.effort_limits, (0.0, 0.0, -9.81)),
            ("iiwa14_cosine, no gravity, torque 1/2 peak", {
                j: {"torque": float(half[i])} for i, j in enumerate(model.joint_names)},
             half, zero)):
        opt, _, run_h, ends = hodyn_run(model, traj, limits, grid, gravity)
        t1, _, _ = toppra_run(model, traj, model.velocity_limits, torque, ends, 1000, gravity)
        t4, run_t, _ = toppra_run(model, traj, model.velocity_limits, torque, ends, 4000,
                                  gravity)
        print(f"{label:46s} {opt.duration:9.4f} {t1:12.4f} {t4:12.4f} "
              f"{100 * (opt.duration / t4 - 1):7.3f} {run_h:11.2f} {run_t:12.2f}")


#: the arms of part 4: robot (bundled, or example-robot-data's), the two rests (None: the
#: robot's own, a third of the way into each joint's range from its lower and upper ends)
ARMS = (("iiwa14", (np.zeros(7), np.array([1.0, 0.8, -0.7, -1.2, 0.9, 1.1, -1.3]))),
        ("panda", None), ("ur_description/urdf/ur5_robot.urdf", None),
        ("xarm_description/urdf/xarm7.urdf", None))
#: p(u), 0 <= u <= 1: from rest to rest with its first four derivatives zero at both ends
#: (as ``generate --kind point-to-point`` moves: q' ~ s^4 at its rests)
REST_TO_REST = np.polynomial.Polynomial([0, 0, 0, 0, 0, 126, -420, 540, -315, 70])


def _rest_robot(name: str):
    """A bundled robot by name, or example-robot-data's by its path there (None: absent)."""
    if "/" not in name:
        return hodyn_cli.load_robot(ROOT / "urdf" / f"{name}.urdf")
    try:
        from importlib.metadata import distribution

        root = Path(distribution("example-robot-data").locate_file(
            "cmeel.prefix/share/example-robot-data/robots"))
    except Exception:  # noqa: BLE001 - not installed: the row is left out
        return None
    return hodyn_cli.load_robot(root / name) if (root / name).exists() else None


class Curve:
    """The curve ``c(p) = a + (b - a) p + bend sin(pi p)``, 0 <= p <= 1, in its own regular
    parameter p (at p = 0 and 1 it is at a and b; bend 0: the straight line)."""

    def __init__(self, a: np.ndarray, b: np.ndarray, bend: np.ndarray):
        self.a, self.b, self.bend = a, b, bend

    def __call__(self, p: np.ndarray, order: int = 0) -> np.ndarray:
        """(len(p), n) ``d^order c / dp^order``."""
        p = np.atleast_1d(np.asarray(p, dtype=float))[:, None]
        wave = np.pi**order * np.sin(np.pi * p + order * np.pi / 2) * self.bend
        line = {0: self.a + (self.b - self.a) * p, 1: (self.b - self.a) + 0 * p}
        return line.get(order, 0 * p) + wave

    def played(self, names, stops: int, segment: float, rate: float = 100.0) -> Trajectory:
        """The curve from rest to rest in ``stops`` equal parts of p, each in ``segment``
        seconds along :data:`REST_TO_REST` (q .. q^(4), exact by the chain rule)."""
        n = round(segment * rate)
        u = np.arange(n + 1) / n
        parts = []
        for k in range(stops):
            rates = np.stack([REST_TO_REST.deriv(r)(u) / segment**r / stops for r in range(1, 5)],
                             axis=1)
            p = (k + REST_TO_REST(u)) / stops
            rows = np.stack([self(p, r) for r in range(5)], axis=1)
            parts.append(compose(rows, rates)[(k > 0):])
        t = np.arange(stops * n + 1) / rate
        return Trajectory(names, np.concatenate(parts), t)


def toppra_path(path, dof: int, a: float, b: float):
    """``path(p, order)`` (its q, q' or q'' at the parameters p) as toppra's geometric path
    over [a, b]."""
    import toppra as ta

    class Along(ta.interpolator.AbstractGeometricPath):
        def __call__(self, p, order=0):
            return path(p, order)

        @property
        def dof(self):
            return dof

        @property
        def path_interval(self):
            return np.array([a, b])

    return Along()


def toppra_curve(model, curve, a: float = 0.0, b: float = 1.0, points: int = 4000):
    """toppra from rest to rest along ``curve`` (a callable ``(p, order)``, regular) from p = a
    to b, the URDF's velocity and torque limits, ``points`` grid intervals: (result,
    seconds). (On hodyn's own path, whose q' vanishes at the rests, toppra's controllable
    sets come out NaN there.)"""
    import toppra.algorithm as algo
    import toppra.constraint as constraint

    def inverse_dynamics(q, qd, qdd):
        return hodyn_cli.inverse_dynamics(model, q, qd, qdd, order=0).tau

    v, e = model.velocity_limits, model.effort_limits
    cs = [constraint.JointVelocityConstraint(np.column_stack([-v, v])),
          constraint.JointTorqueConstraint(inverse_dynamics, np.column_stack([-e, e]),
                                           np.zeros(model.n),
                                           constraint.DiscretizationType.Interpolation)]
    t0 = time.perf_counter()
    result = algo.TOPPRA(cs, toppra_path(curve, model.n, a, b),
                         gridpoints=np.linspace(a, b, points + 1),
                         parametrizer="ParametrizeConstAccel").compute_trajectory(0.0, 0.0)
    return result, time.perf_counter() - t0


def path_classes(model, a: np.ndarray, b: np.ndarray):
    """Part 4's paths of a robot between its rests a and b: (label, the motion, its peer: a
    function giving toppra's (duration, seconds), or None: toppra on hodyn's path with its end
    speeds)."""
    bend = (b - a)[::-1] / 4  # off the line: a curve, and a corner
    line, curve = Curve(a, b, 0 * a), Curve(a, b, bend)
    corner = (a + b) / 2 + bend

    def rests(pieces):  # toppra on each piece, at rest at both its ends
        runs = [toppra_curve(model, c, lo, hi) for c, lo, hi in pieces]
        return sum(r.duration for r, _ in runs), sum(sec for _, sec in runs)

    names = model.joint_names
    yield "cosine", generate(model, "cosine", derivatives=4), None
    for segment in (3.0, 10.0):
        yield f"line {segment:g} s", line.played(names, 1, segment), lambda: rests(
            [(line, 0.0, 1.0)])
    yield "curve 3 s", curve.played(names, 1, 3.0), lambda: rests([(curve, 0.0, 1.0)])
    yield "stop inside", curve.played(names, 2, 3.0), lambda: rests(
        [(curve, 0.0, 0.5), (curve, 0.5, 1.0)])
    legs = [Curve(p, r, 0 * a) for p, r in ((a, corner), (corner, b))]
    yield "corner", generate(model, "point-to-point", waypoints=np.stack([a, corner, b]),
                             derivatives=4, segment_duration=[3.0, 3.0]), lambda: rests(
        [(leg, 0.0, 1.0) for leg in legs])


def classes() -> None:
    print("\n4. every path class, velocity and torque limits (the URDF's): hodyn --optimal "
          "(default grid) against toppra (4000 grid intervals)")
    print(f"{'robot':8s} {'path':12s} {'old s':>8s} {'new s':>8s} {'solver':>12s} "
          f"{'toppra s':>8s} {'old %':>6s} {'new %':>6s} {'old run s':>9s} {'new run s':>9s} "
          f"{'toppra run s':>12s} {'validate':>8s}")
    import toppra as ta

    ta.setup_logging("CRITICAL")
    for name, ends in ARMS:
        model = _rest_robot(name)
        if model is None:
            continue
        if ends is None:
            lo, hi = model.limits[:, 0], model.limits[:, 1]
            ends = (lo + (hi - lo) / 3, hi - (hi - lo) / 3)
        label = Path(name).stem.replace("_robot", "")
        for kind, traj, peer in path_classes(model, *ends):
            old, old_out, run_old, _ = hodyn_run(model, traj, None, None)
            new, new_out, run_new, speeds = hodyn_run(model, traj, None, None, solver="auto")
            if peer is None:  # (the new law's end speeds: its ends are free)
                duration, run_t, _ = toppra_run(model, traj, model.velocity_limits,
                                                model.effort_limits, speeds, 4000)
            else:
                duration, run_t = peer()
            valid = True
            for out in (old_out, new_out):
                assert hodyn_cli.check_limits(model, out).feasible
                valid &= hodyn_cli.validate_motion(model, out, samples=50).passed
            print(f"{label:8s} {kind:12s} {old.duration:8.4f} {new.duration:8.4f} "
                  f"{new.used:>12s} {duration:8.4f} {100 * (old.duration / duration - 1):6.2f} "
                  f"{100 * (new.duration / duration - 1):6.2f} {run_old:9.2f} {run_new:9.2f} "
                  f"{run_t:12.2f} {'passes' if valid else 'FAILS':>8s}")


def motions():
    for name in ("iiwa14", "planar_2r", "gripper_arm"):
        model = hodyn_cli.load_robot(ROOT / "urdf" / f"{name}.urdf")
        yield f"{name}_cosine.h5", model, read_trajectory(
            str(SAMPLES / f"{name}_cosine.h5"), model, need=5)
    for name in ("iiwa14", "planar_2r"):
        model = hodyn_cli.load_robot(ROOT / "urdf" / f"{name}.urdf")
        yield f"{name} point-to-point", model, generate(model, "point-to-point",
                                                        derivatives=4)


def rates(grid: int) -> None:
    print("\n2. torque rates limited to half the input's peak |taud| (and the URDF's limits)")
    print(f"{'motion':24s} {'optimal s':>9s} {'uniform s':>9s} {'shorter %':>9s} "
          f"{'binds':>28s} {'toppra rate/limit':>18s} {'run s':>6s}")
    for label, model, traj in motions():
        taud = hodyn_cli.inverse_dynamics(model, traj, order=1).taud
        rate = 0.5 * np.abs(taud).max(axis=0)
        limits = {j: {"torque_rate": float(rate[i])} for i, j in enumerate(model.joint_names)}
        opt, out, run_h, ends = hodyn_run(model, traj, limits, grid)
        assert hodyn_cli.check_limits(model, out, limits=limits).feasible
        duration, _, inst = toppra_run(model, traj, model.velocity_limits,
                                       model.effort_limits, ends, 2000)
        over = (toppra_torque_rates(model, inst) / rate).max() if duration > 0 \
            else np.nan  # (nan: toppra fails on this path)
        binds = opt.bound.describe(most=1)[0].split(":")[0] if opt.bound.describe() else ""
        print(f"{label:24s} {opt.duration:9.3f} {opt.uniform_duration:9.3f} "
              f"{100 * (1 - opt.duration / opt.uniform_duration):9.1f} {binds[:28]:>28s} "
              f"{over:18.2f} {run_h:6.1f}")


def scaling(long: bool) -> None:
    print("\n3. retime --optimal file to file (iiwa14, cosine at 100 Hz, q..qdddd), a process "
          "each, default grid; toppra on the same path and as many grid points")
    print(f"{'samples':>9s} {'limits':>8s} {'grid':>7s} {'optimal s':>10s} {'uniform s':>10s} "
          f"{'toppra s':>9s} {'wall s':>7s} {'peak RSS MiB':>12s} {'toppra wall s':>13s} "
          f"{'solve s':>8s} {'RSS MiB':>8s}")
    hodyn = [sys.executable, "-m", "hodyn_cli"]
    robot = str(ROOT / "urdf" / "iiwa14.urdf")
    sizes = [1_000, 10_000, 100_000] + ([1_000_000] if long else [])
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            src = Path(tmp) / f"in{n}.h5"
            process(hodyn + ["generate", robot, "--kind", "cosine", "--duration", str(n / 100),
                             "-o", str(src), "-q"], src)
            for label, extra in (("URDF", []), ("toml", [
                    "--limits", str(ROOT / "urdf" / "iiwa14_limits.toml")])):
                out = Path(tmp) / "out.h5"
                wall, rss, _ = process(hodyn + ["retime", robot, str(src), "--optimal", "-q",
                                                "-o", str(out)] + extra, out)
                with h5py.File(out) as f:
                    optimal_s, uniform_s = f.attrs["duration"], f.attrs["uniform_duration"]
                    points = int(f.attrs["grid_points"])
                peer = ("", "", "", "")
                if label == "URDF":  # toppra takes velocity and torque limits only
                    t_wall, t_rss, printed = process([sys.executable, __file__, "--toppra",
                                                      str(src), str(points),
                                                      str(n / 100 / uniform_s)])
                    duration, solve = printed.split()
                    peer = (f"{float(duration):9.2f}", f"{t_wall:13.1f}", f"{float(solve):8.1f}",
                            f"{t_rss:8.0f}")
                print(f"{n:9d} {label:>8s} {points:7d} {optimal_s:10.2f} {uniform_s:10.2f} "
                      f"{peer[0]:>9s} {wall:7.1f} {rss:12.0f} {peer[1]:>13s} {peer[2]:>8s} "
                      f"{peer[3]:>8s}")


def speed(repeat: int, sizes: tuple[int, ...] = (1_000, 100_000)) -> None:
    print(f"\n5. speed: retime --optimal -q file to file (iiwa14, cosine at 100 Hz, q..qdddd, "
          f"URDF limits), a process each, {repeat} runs (min-max); toppra on the same path "
          "and grid points")
    print(f"{'samples':>9s} {'grid':>7s} {'optimal s':>10s} {'toppra s':>9s} "
          f"{'wall s':>12s} {'peak RSS MiB':>12s} {'toppra wall s':>13s} {'solve s':>8s} "
          f"{'toppra RSS MiB':>14s}")
    hodyn = [sys.executable, "-m", "hodyn_cli"]
    robot = str(ROOT / "urdf" / "iiwa14.urdf")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            src, out = Path(tmp) / f"in{n}.h5", Path(tmp) / "out.h5"
            process(hodyn + ["generate", robot, "--kind", "cosine", "--duration", str(n / 100),
                             "-o", str(src), "-q"], src)
            runs = [process(hodyn + ["retime", robot, str(src), "--optimal", "-q", "-o",
                                     str(out)], out)[:2] for _ in range(repeat)]
            walls, rss = [w for w, _ in runs], max(r for _, r in runs)
            with h5py.File(out) as f:
                optimal_s, uniform_s = f.attrs["duration"], f.attrs["uniform_duration"]
                points = int(f.attrs["grid_points"])
            t_wall, t_rss, printed = process([sys.executable, __file__, "--toppra", str(src),
                                              str(points), str(n / 100 / uniform_s)])
            duration, solve = printed.split()
            print(f"{n:9d} {points:7d} {optimal_s:10.3f} {float(duration):9.3f} "
                  f"{min(walls):5.2f}-{max(walls):<6.2f} {rss:12.0f} {t_wall:13.2f} "
                  f"{float(solve):8.2f} {t_rss:14.0f}")


def memory(long: bool) -> None:
    print("\n7. memory: retime --optimal -q file to file (iiwa14, cosine at 100 Hz, q..qdddd, "
          "URDF limits), a process each")
    print(f"{'samples':>9s} {'solver':>13s} {'grid':>8s} {'optimal s':>11s} {'wall s':>8s} "
          f"{'peak RSS MiB':>12s} {'bytes/sample':>12s}")
    hodyn = [sys.executable, "-m", "hodyn_cli"]
    robot = str(ROOT / "urdf" / "iiwa14.urdf")
    sizes = [30_000, 100_000, 300_000] + ([1_000_000, 2_000_000] if long else [])
    first = None
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            src, out = Path(tmp) / "in.h5", Path(tmp) / "out.h5"
            process(hodyn + ["generate", robot, "--kind", "cosine", "--duration",
                             str((n - 1) / 100), "-o", str(src), "-q"], src)
            for solver in ("auto", "windows") if first is None else ("auto",):
                wall, rss, _ = process(hodyn + ["retime", robot, str(src), "--optimal", "-q",
                                                "--solver", solver, "-o", str(out)], out)
                with h5py.File(out) as f:
                    used, seconds = f.attrs["solver"], f.attrs["duration"]
                    points = int(f.attrs["grid_points"])
                first = first or (n, rss)
                grew = (rss - first[1]) * 2**20 / (n - first[0]) if n > first[0] else 0.0
                print(f"{n:9d} {used:>13s} {points:8d} {seconds:11.3f} {wall:8.1f} "
                      f"{rss:12.0f} {grew:12.0f}")


#: part 6's rates (Hz): each design sampled at the rate and retimed at it
RATES = (20.0, 100.0, 1e3, 1e4)


def zigzag(model, legs: int = 30, seed: int = 1) -> list[np.ndarray]:
    """``legs + 1`` waypoints drawn in the middle third of the joints' range (tests'
    ``_zigzag``): a corner at each waypoint inside."""
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    rng = np.random.default_rng(seed)
    return [lo + (hi - lo) * (0.35 + 0.3 * rng.random(model.n)) for _ in range(legs + 1)]


def corners(rates: tuple[float, ...] = RATES) -> None:
    print("\n6. corners at every rate: a line (1.5 s) and a corner (0.75 s legs) between "
          "points a third into each joint's range, designed at the rate and retimed at it "
          "(auto: reachability), velocity and torque limits (the URDF's); % from toppra's "
          "lines (4000 grid intervals each), hodyn's run s; the iiwa's zigzag of 30 corners "
          "at 100 Hz against toppra's 30 lines (1000 each)")
    print(f"{'robot':8s} {'path':7s} {'toppra s':>8s} " + " ".join(
        f"{f'{rate:g} Hz %':>10s} {'run s':>6s}" for rate in rates) + f" {'validate':>8s}")
    import toppra as ta

    ta.setup_logging("CRITICAL")
    for name, _ in ARMS:
        model = _rest_robot(name)
        if model is None:
            continue
        lo, hi = model.limits[:, 0], model.limits[:, 1]
        a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        corner = (a + b) / 2 + (b - a)[::-1] / 4
        for label, waypoints, seconds in (("line", [a, b], 1.5),
                                          ("corner", [a, corner, b], 0.75)):
            peer = sum(toppra_curve(model, Curve(p, r, 0 * a))[0].duration
                       for p, r in zip(waypoints[:-1], waypoints[1:], strict=True))
            cells, valid = [], True
            for rate in rates:
                out, opt, seconds_run = _at_rate(model, waypoints, seconds, rate)
                valid &= _keeps(model, out)
                cells.append(f"{100 * (opt.duration / peer - 1):10.3f} {seconds_run:6.2f}")
            print(f"{Path(name).stem.replace('_robot', ''):8s} {label:7s} {peer:8.4f} "
                  + " ".join(cells) + f" {'passes' if valid else 'FAILS':>8s}")
    model = _rest_robot("iiwa14")
    waypoints = zigzag(model)
    peer = sum(toppra_curve(model, Curve(p, r, 0 * p), points=1000)[0].duration
               for p, r in zip(waypoints[:-1], waypoints[1:], strict=True))
    out, opt, seconds_run = _at_rate(model, waypoints, 0.3, 100.0)
    print(f"iiwa14 zigzag of 30 corners at 100 Hz: {opt.duration:.4f} s, toppra {peer:.4f} s: "
          f"{100 * (opt.duration / peer - 1):.3f} % in {seconds_run:.1f} s "
          f"({'passes' if _keeps(model, out) else 'FAILS'}); peak RSS {peak_rss_mib():.0f} MiB")


def _at_rate(model, waypoints: list[np.ndarray], seconds: float, rate: float):
    """hodyn --optimal (auto) on the point-to-point design through ``waypoints`` (``seconds``
    a leg) sampled at ``rate``: (output, optimal, run seconds)."""
    traj = generate(model, "point-to-point", waypoints=np.stack(waypoints), derivatives=4,
                    segment_duration=[seconds] * (len(waypoints) - 1), rate=rate)
    opt, out, seconds_run, _ = hodyn_run(model, traj, None, None, solver="auto")
    assert opt.used == "reachability"
    return out, opt, seconds_run


def _keeps(model, out: Trajectory) -> bool:
    """Whether the output is within its limits (recomputed) and passes hodyn validate."""
    return hodyn_cli.check_limits(model, out).feasible and hodyn_cli.validate_motion(
        model, out, samples=50).passed


def toppra_file(source: str, points: int, sd: float) -> None:
    """toppra on the path of the motion at ``source`` (velocity and torque limits of the
    URDF) on ``points`` grid points, from and to path speed ``sd`` (the uniform scaling's:
    the path is at rest at its ends): prints its duration and its seconds."""
    model = hodyn_cli.load_robot(ROOT / "urdf" / "iiwa14.urdf")
    traj = read_trajectory(source, model, need=5)
    duration, seconds, _ = toppra_run(model, traj, model.velocity_limits, model.effort_limits,
                                      (sd, sd), points - 1)
    print(duration, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true",
                        help="also a path of 10^6 samples (part 7: 2 x 10^6 too)")
    parser.add_argument("--grid", type=int, default=optimal.GRID)
    parser.add_argument("--toppra", nargs=3, metavar=("FILE", "POINTS", "SD"),
                        help="(part 3's peer, as a process of its own)")
    parser.add_argument("--only", type=int, choices=(1, 2, 3, 4, 5, 6, 7),
                        help="one part only")
    parser.add_argument("--repeat", type=int, default=5, help="part 5's runs per size")
    args = parser.parse_args()
    if args.toppra:
        toppra_file(args.toppra[0], int(args.toppra[1]), float(args.toppra[2]))
        return
    if args.only:
        {1: lambda: peer(args.grid), 2: lambda: rates(args.grid), 3: lambda: scaling(args.long),
         4: classes, 5: lambda: speed(args.repeat), 6: corners,
         7: lambda: memory(args.long)}[args.only]()
        return
    peer(args.grid)
    rates(args.grid)
    scaling(args.long)
    classes()
    speed(args.repeat)
    corners()
    memory(args.long)


if __name__ == "__main__":
    main()
