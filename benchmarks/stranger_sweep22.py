"""``hodyn retime --optimal`` on a third set of limbs nobody tuned it for, on paths that end
moving, long paths, rests inside at 20 Hz and 10 kHz, and a torque limit that binds (issue
37's goals 1 and 2 on cases nobody tuned for).

    python benchmarks/stranger_sweep22.py [--only ROBOT,PATH,PATH@RATE,MODE] [--json rows.json]
                                          [--keep DIR] [--no-peer] [--summary rows.json]

Robots (example-robot-data; none in stranger_optimal.py's, stranger_sweep17.py's or
stranger_sweep18.py's tables as the same limb of the same URDF): example-robot-data's xArm7,
the UR10 with its limited URDF, the Z1 with its gripper joint moving, Unitree A1's, ANYmal B's,
Solo 8's and the generic quadruped's front left legs (the last two 2 joints; the quadruped's
knee unbounded, 10^4 rad/s), Alexander's right leg (6 joints). Paths: stranger_sweep18.design's
nine (sweep17's seven, ``p2p``, ``mid``) and

* ``endmove``: ``mid``'s Lissajous curve (a rest at its middle sample) cut at 3/4 of its
  samples: from rest, a rest inside, ending moving; peer: toppra along the curve from p = 0
  to 0.75, its end speed free (:func:`toppra_free`);
* ``bothmove``: the same cut to its samples from 1/4 to 3/4: starting and ending moving, a
  rest inside; peer: toppra along p = 0.25 .. 0.75, both end speeds free;
* ``long``: sweep17's loop (two rests inside) played in 10^4 / rate seconds a piece: 3 x 10^4
  samples at any rate; peer: the loop's;
* ``fourier5s``: ``fourier9``'s generator over 5 s (on the quadruped's leg at 200 Hz its
  output strayed 0.23 rad off the path at the hip's turns); peer: as ``fourier9``'s.

``fourier9``'s peer here is toppra on hodyn's path with both end speeds free (sweep17 gave it
hodyn's end speeds: a hodyn end speed below the optimum's was not seen there).

Modes: ``vt`` (the URDF's velocity and torque limits) and ``tbind``: a limits file whose
torque limit is max(1.5 x the joint's largest gravity torque at rest along the input, 0.1 x
the URDF's) (the URDF's where lower): torque binds; its peer is toppra with those limits.
Each output goes through ``hodyn check`` (the same limits) and ``hodyn validate``, and its
velocities and torques are recomputed with pinocchio (stranger_sweep17.pinocchio_over:
``over``, a failure above 1 + 1e-6); ``tau``: the torques' share of it alone (1: torque binds);
``stray``: how far (rad) the output's samples lie from the input's path (:func:`strayed`), a
note above :data:`~hodyn_cli.algorithms.limits.strays.STRAY` of the joint's travel.
Inputs and outputs stay in ``--keep`` (default /tmp/sweep22/in) for the reproducers.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path
from unittest import mock

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import stranger_optimal as so  # noqa: E402
import stranger_sweep17 as s17  # noqa: E402
import stranger_sweep18 as s18  # noqa: E402

import hodyn_cli  # noqa: E402
from hodyn_cli.algorithms.limits import programme  # noqa: E402
from hodyn_cli.algorithms.limits.strays import STRAY  # noqa: E402
from hodyn_cli.api import path_check  # noqa: E402
from hodyn_cli.core.trajectory import Trajectory  # noqa: E402
from hodyn_cli.io import read_trajectory, write_trajectory  # noqa: E402

#: label -> (URDF in example-robot-data, the joints that move or None: all, extra flags)
ROBOTS = {
    "xarm7": ("xarm_description/urdf/xarm7.urdf", None, []),
    "ur10-lim": ("ur_description/urdf/ur10_joint_limited_robot.urdf", None, []),
    "z1-g": ("z1_description/urdf/z1.urdf", None, []),
    "a1-leg": ("a1_description/urdf/a1.urdf", ["FL_hip_joint", "FL_thigh_joint",
                                               "FL_calf_joint"], []),
    "anymalb-leg": ("anymal_b_simple_description/robots/anymal.urdf",
                    ["LF_HAA", "LF_HFE", "LF_KFE"], []),
    "solo8-leg": ("solo_description/robots/solo.urdf", ["FL_HFE", "FL_KFE"], []),
    "quad-leg": ("quadruped_description/urdf/quadruped.urdf", ["FL_HFE", "FL_KFE"], []),
    "alex-rleg": ("alexander_description/urdf/alexander_v1.lowerBodyOnly.urdf",
                  [f"RIGHT_{j}" for j in ("HIP_X", "HIP_Z", "HIP_Y", "KNEE_Y", "ANKLE_Y",
                                          "ANKLE_X")], []),
}
NEW_PATHS = ("endmove", "bothmove", "long", "fourier5s")
PATHS = (*s18.PATHS, *NEW_PATHS)
MODES = ("vt", "tbind")
#: the shares of ``mid``'s curve (p in [0, 1], its rest at 0.5) each cut keeps
CUTS = {"endmove": (0.0, 0.75), "bothmove": (0.25, 0.75)}


def cases() -> list[tuple[str, str, float, str]]:
    """(robot, path, rate, mode): every path on every robot at 100 Hz; the rests inside and
    the moving ends at 20 Hz and 10 kHz; a torque that binds on five paths."""
    rows = [(r, p, 100.0, "vt") for r in ROBOTS for p in PATHS]
    rows += [(r, p, rate, "vt") for r in ROBOTS
             for p in ("loop", "line5", "mid", "dwell", "endmove", "bothmove")
             for rate in (20.0, 1e4)]
    rows += [(r, p, 100.0, "tbind") for r in ROBOTS
             for p in ("zig", "loop", "endmove", "fourier9", "long")]
    # (the generic quadruped's and Solo 8's +-10 rad hips: the Fourier path's turns)
    return rows + [(r, p, rate, "vt") for r in ("quad-leg", "solo8-leg")
                   for p, rate in (("fourier9", 20.0), ("fourier9", 1e3), ("fourier5s", 200.0))]


def robot_of(label: str):
    """stranger_sweep18.robot_of on this sweep's table."""
    with mock.patch.dict(so.FRESH, {label: ROBOTS[label]}):
        return so.robot_of(label)


def design(folder: Path, robot: Path, model, path: str, rate: float):
    """The input file and its peer: stranger_sweep18.design's, or for :data:`NEW_PATHS` a
    list of (curve, from, to, free start, free end) pieces."""
    if path not in NEW_PATHS:
        src, pieces = s18.design(folder, robot, model, path, rate, None)
        if pieces == "own":
            return src, "own"
        return src, [(c, 0.0, 1.0, False, False) for c in pieces]
    src = folder / f"{path}_{rate:g}.h5"
    if path == "fourier5s":
        so.generate(model, robot, src, "fourier", rate=rate, duration=5.0, harmonics=9,
                    base_frequency=0.25, seed=7)
        return src, "own"
    a, b, c = so.waypoints(model, [s17.A, s17.B, s17.C])
    if path == "long":
        curve = s17.Loop(a, 0.5 * (b - a), 0.5 * (c - a))
        write_trajectory(str(src), curve.played(model.joint_names, 3, 1e4 / rate, rate))
        return src, [(curve, 0.0, 1.0, False, False)]
    half = so.waypoints(model, [[1.0] * 8])[0] - so.waypoints(model, [[0.0] * 8])[0]
    curve = s17.Lissajous((a + b) / 2, 0.3 * half, 0 * a)
    whole = curve.played(model.joint_names, 2, s17.PIECE[rate], rate)
    lo, hi = CUTS[path]
    n = len(whole.t) - 1
    # (each half of p is played by a symmetric rest-to-rest law: the sample at 1/4 or 3/4
    # of them is at p = 0.25 or 0.75 exactly)
    keep = slice(round(lo * n), round(hi * n) + 1)
    write_trajectory(str(src), Trajectory(model.joint_names, whole.derivatives[keep],
                                          whole.t[keep] - whole.t[keep][0]))
    return src, [(curve, lo, hi, lo > 0, True)]


def toppra_free(model, path, a: float, b: float, free_start: bool, free_end: bool,
                cap: float) -> tuple[float, str]:
    """stranger_optimal.toppra_retried along ``path`` from a to b, each end at rest or free
    (toppra 0.6 takes fixed end speeds: its controllable sets are started from [0, top] at a
    free end, ``top`` the velocity limits' largest path speed there, and a free start speed
    is the largest its controllable set at a allows, less 1e-9)."""
    from toppra.algorithm.reachabilitybased.reachability_algorithm import (
        ReachabilityAlgorithm as Reach,
    )

    def top(along) -> float:  # (the path toppra is given: a retry rescales it)
        slope = np.abs(np.atleast_2d(along(along.path_interval[1], 1))[0])
        v = np.minimum(model.velocity_limits, cap)
        return float(np.min(np.where(slope > 0, v / np.maximum(slope, 1e-300), np.inf)))

    sets, parameterization = Reach.compute_controllable_sets, Reach.compute_parameterization

    def controllable(self, low, high):
        return sets(self, 0.0, top(self.path)) if free_end else sets(self, low, high)

    def parameterized(self, start, end, return_data=False):
        if free_start:
            first = controllable(self, end, end)[0, 1]
            start = np.sqrt(first) * (1 - 1e-9) if np.isfinite(first) else start
        return parameterization(self, start, end, return_data)

    with mock.patch.object(Reach, "compute_controllable_sets", controllable), \
            mock.patch.object(Reach, "compute_parameterization", parameterized):
        return so.toppra_retried(model, path, a, b, (0.0, 0.0), cap)


def peer(model, src: Path, pieces) -> tuple[float, str]:
    """toppra's duration (and its retries) along the pieces (:func:`toppra_free`), its velocity
    limits capped where the cap does not bind (stranger_optimal.toppra_uncapped); ``own``:
    along the input's path (its time the parameter), both ends free."""
    if pieces == "own":
        traj = read_trajectory(str(src), model, need=5)
        pieces = [(lambda p, order: programme.between(traj, p)[:, order], traj.t[0],
                   traj.t[-1], True, True)]
    return so._summed([so.toppra_uncapped(model.velocity_limits, lambda cap, c=c: toppra_free(
        model, c[0], c[1], c[2], c[3], c[4], cap)) for c in pieces])


def strayed(model, src: Path, out: Path) -> tuple[float, float]:
    """The output's largest distance from the input's path (rad or m, its joint's) and its
    share of that joint's travel: ``hodyn validate --path``'s check
    (:func:`hodyn_cli.api.path_check`; a k-d tree of 4 x 10^5 path points, before, could
    not see below ~5e-4 rad)."""
    check = path_check(model, read_trajectory(str(out), model, need=2),
                       read_trajectory(str(src), model, need=2))
    return check.max_abs, check.max_rel


def binding(folder: Path, model, src: Path) -> tuple[Path, object]:
    """The mode ``tbind``'s limits file and the model with its torque limits."""
    q = read_trajectory(str(src), model, need=1).derivatives[:, 0]
    hold = np.max(np.abs(hodyn_cli.inverse_dynamics(model, q, 0 * q, 0 * q, order=0).tau), 0)
    e = np.minimum(model.effort_limits, np.maximum(1.5 * hold, 0.1 * model.effort_limits))
    target = folder / f"tbind_{src.stem}.toml"
    target.write_text("".join(f'[joints."{n}"]\ntorque = {x:.9g}\n'
                              for n, x in zip(model.joint_names, e, strict=True)))
    return target, dataclasses.replace(model, effort_limits=e)


#: (robot, path, mode) -> toppra's (duration, retry) on the path's curves
PEERS: dict[tuple[str, str, str], tuple[float, str]] = {}


def one(folder: Path, label: str, path: str, rate: float, mode: str, peer_too: bool) -> dict:
    robot, model, flags = robot_of(label)
    src, pieces = design(folder, robot, model, path, rate)
    named = folder / f"{label}_{src.name}"
    src.rename(named)
    extra = []
    if mode == "tbind":
        limits, model = binding(folder, model, named)
        extra = ["--limits", str(limits)]
    out = folder / f"out_{label}_{path}_{rate:g}_{mode}.h5"
    out.unlink(missing_ok=True)
    command = so.HODYN + ["retime", robot, named, "--optimal", *extra, *flags, "-o", out]
    status, wall, cpu, rss, stderr = so.run(command)
    with h5py.File(named) as f:
        samples = len(f["t"])
    row = {"robot": label, "path": path, "rate": rate, "mode": mode, "samples": samples,
           "wall": wall, "cpu": cpu, "rss": rss, "exit": status,
           "hold": s17.holding(model, named),
           "command": " ".join(map(str, ["hodyn", *command[3:]]))}
    if not so.checked(row, robot, out, extra, flags, stderr):
        return row
    row["over"] = s17.pinocchio_over(robot, model, out, None)
    free = dataclasses.replace(model, velocity_limits=np.full(model.n, np.inf))
    row["tau"] = s17.pinocchio_over(robot, free, out, None)
    if row["over"] > 1 + 1e-6:
        row["notes"].append(f"pinocchio: a limit x{row['over']:.9g}")
    row["stray"], share = strayed(model, named, out)
    if share > STRAY:
        row["notes"].append(f"off the path by {row['stray']:.3g} ({share:.2g} of its travel)")
    if peer_too:
        t0 = time.perf_counter()
        key = (label, "loop" if path == "long" else path, mode)
        through, retry = PEERS.get(key) or peer(model, named, pieces)
        if pieces != "own":
            PEERS[key] = (through, retry)
        row.update(toppra=through, retry=retry, toppra_wall=time.perf_counter() - t0,
                   percent=100 * (row["duration"] / through - 1))
    return row


def show(row: dict) -> None:
    """stranger_sweep17.show's line, the torques' share and :func:`strayed`'s before it."""
    print(f"{row.get('tau', np.nan):6.4f} {row.get('stray', np.nan):8.2g}", end=" ")
    s17.show(row)


def summary(rows: list[dict]) -> None:
    """stranger_sweep17.summary over this sweep's path classes, per mode."""
    s17.PATHS = PATHS
    for mode in MODES:
        mine = [r for r in rows if r["mode"] == mode]
        if mine:
            print(f"\nmode {mode}:", end="")
            s17.summary(mine)


def main() -> None:
    args = s17.arguments(__doc__.splitlines()[0], Path("/tmp/sweep22/in")).parse_args()
    if args.summary:
        summary(json.loads(args.summary.read_text()))
        return
    s17.swept(args, cases(), one, show, summary, ROBOTS, MODES)

if __name__ == "__main__":
    main()
