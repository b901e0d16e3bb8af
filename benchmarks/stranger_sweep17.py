"""``hodyn retime --optimal`` on robots and paths neither stranger_optimal.py nor
bench_optimal_rates.py uses (issue 37's hidden checks run on cases nobody tuned for).

    python benchmarks/stranger_sweep17.py [--only ROBOT,PATH,PATH@RATE,MODE] [--json rows.json]
                                          [--keep DIR] [--no-peer]

Robots (example-robot-data; one limb of a whole robot where it is one, the other joints held by
``--lock-missing``): the human model's right arm (8 joints, 15 N m elbow), the simple
humanoid's right arm, the Kinova arm on ANYmal (legs held), Talos's right arm (the mirror of
the tuned left arm, in the full model), the Borinot's two-joint flying arm (1e4 rad/s, 2.5 N m),
HyQ's and Laikago's front left legs as three-joint arms. Paths (all new here):

* ``loop``: a closed ellipse in joint space, a + r1 (1 - cos 2 pi p) + r2 sin 2 pi p, from rest
  to rest with two rests inside where the path goes on; peer: toppra along the whole loop;
* ``line5``: a straight line with four rests inside; peer: toppra along the whole line;
* ``lissa``: a Lissajous curve (each joint its own frequency and phase), rest to rest; peer:
  toppra along it;
* ``dwell``: two straight legs meeting at a corner, the input holding still 0.5 s there
  (repeated samples); peer: toppra from rest to rest on each leg;
* ``zig``: ``generate --kind point-to-point`` through six waypoints, legs of 0.15 to 2 s;
  peer: toppra from rest to rest on each leg;
* ``tiny``: a straight line of 1e-3 of each joint's half range; peer: toppra along it;
* ``fourier9``: ``generate --kind fourier --harmonics 9 --base-frequency 0.25 --seed 7``;
  peer: toppra on hodyn's own path with the end speeds of hodyn's output.

Every peer's velocity limits are capped at 50 rad/s where that cap does not bind, else raised
until it does not (``toppra_uncapped``; its retry then ends ``@CAP``): the Borinot's are 10^4.

Modes: ``vt`` (the URDF's velocity and torque limits: toppra's problem), ``r30`` and ``r10k``
(``--rate 30`` / ``--rate 10000``: steps must be exactly 1/R), ``jerk`` (``--jerk`` 20 s^-2
times each joint's velocity limit), ``trate`` (torque rates 10 s^-1 times the torque limit).
Each output goes through ``hodyn check`` (same limits) and ``hodyn validate``, and its
velocities and torques are recomputed with pinocchio's RNEA (an independent model of the same
URDF, the held joints locked at the same values): ``over`` is the largest |qd| / v and
|tau| / e (and |q'''| / jerk) over the samples, a failure above 1 + 1e-6. ``hold``: the largest
gravity torque at rest along the input over the torque limit (above 1 no time law exists: exit
1 expected). Inputs stay in ``--keep`` (default /tmp/sweep17/in) for the reproducers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_optimal import Curve  # noqa: E402
from stranger_optimal import (  # noqa: E402
    HODYN,
    checked,
    generate,
    limits_files,
    public,
    run,
    toppra_retried,
    toppra_uncapped,
    waypoints,
)

import hodyn_cli  # noqa: E402
from hodyn_cli.algorithms.limits import programme  # noqa: E402
from hodyn_cli.core.trajectory import Trajectory  # noqa: E402
from hodyn_cli.io import read_trajectory, write_trajectory  # noqa: E402

#: label -> (URDF in example-robot-data, the joints that move or None: all)
ROBOTS = {
    "human-arm": ("human_description/robots/human.urdf",
                  ["right_clavicle_joint_X", "right_shoulder_Z", "right_shoulder_X",
                   "right_shoulder_Y", "right_elbow_Z", "right_elbow_Y", "right_wrist_Z",
                   "right_wrist_X"]),
    "humanoid-arm": ("simple_humanoid_description/urdf/simple_humanoid.urdf",
                     [f"RARM_{j}" for j in ("SHOULDER_P", "SHOULDER_R", "SHOULDER_Y", "ELBOW",
                                            "WRIST_Y", "WRIST_P", "WRIST_R")]),
    "anymal-kinova": ("anymal_b_simple_description/robots/anymal-kinova.urdf",
                      [f"j2s6s200_joint_{k}" for k in range(1, 7)]),
    "talos-rarm": ("talos_data/robots/talos_full_v2.urdf",
                   [f"arm_right_{k}_joint" for k in range(1, 8)]),
    "borinot": ("borinot_description/urdf/borinot_flying_arm_2.urdf", None),
    "hyq-leg": ("hyq_description/robots/hyq_no_sensors.urdf",
                ["lf_haa_joint", "lf_hfe_joint", "lf_kfe_joint"]),
    "laikago-leg": ("laikago_description/urdf/laikago.urdf",
                    ["FL_hip_joint", "FL_thigh_joint", "FL_calf_joint"]),
}
PATHS = ("loop", "line5", "lissa", "dwell", "zig", "tiny", "fourier9")
#: input rate (Hz) -> seconds of one rest-to-rest piece: ~10^2 samples at 20 Hz (six pieces
#: of 1 s: ~120), ~10^4 at 10 kHz
PIECE = {20.0: 1.0, 100.0: 1.0, 1e3: 1.0, 1e4: 0.25}
MODES = {"vt": [], "r30": ["--rate", "30"], "r10k": ["--rate", "10000"],
         "jerk": ["--jerk", "{jerk}"], "trate": ["--limits", "{trates}"]}
#: waypoints as shares of each joint's half range about its middle
A, B, C = ([-0.3, 0.2, -0.2, 0.25, -0.2, 0.2, -0.1, 0.15],
           [0.25, -0.15, 0.3, -0.2, 0.25, -0.2, 0.2, -0.1],
           [-0.1, 0.3, 0.1, -0.3, -0.1, 0.25, -0.25, 0.2])
#: Talos's and the humanoid's shoulders cannot hold the arm out level (stranger_optimal's
#: LOWER): the right arm hangs (arm_right_2 / RARM_SHOULDER_R toward the body); Talos's by
#: 0.5 (0.6 put the loop's ellipse past arm_right_2's range at 1.66 s: exit 1)
SHIFT = {"talos-rarm": [0, 0.5, 0, 0, 0, 0, 0, 0], "humanoid-arm": [0, -0.6, 0, 0, 0, 0, 0, 0]}


def cases() -> list[tuple[str, str, float, str]]:
    """(robot, path, rate, mode): every path on every robot at 100 Hz, all but the simple
    humanoid's arm at every rate on four paths, every mode on the loop, jerk and torque rates
    on ``zig`` too."""
    rows = [(r, p, 100.0, "vt") for r in ROBOTS for p in PATHS]
    rows += [(r, p, rate, "vt") for r in ROBOTS if r != "humanoid-arm"
             for p in ("loop", "lissa", "zig", "fourier9") for rate in (20.0, 1e3, 1e4)]
    rows += [(r, "loop", 100.0, m) for r in ROBOTS for m in ("r30", "r10k", "jerk", "trate")]
    return rows + [(r, "zig", 100.0, m) for r in ROBOTS for m in ("jerk", "trate")]


def robot_of(label: str) -> tuple[Path, object, list[str]]:
    """The URDF, its model (the joints not moving held) and the flags every command takes."""
    relative, moving = ROBOTS[label]
    robot = public(relative)
    whole = hodyn_cli.load_robot(robot)
    held = {} if moving is None else {j: hodyn_cli.api.lock_value(whole, j)
                                      for j in whole.joint_names if j not in moving}
    return robot, hodyn_cli.api.lock_joints(whole, held), ["--lock-missing"] if held else []


class Loop(Curve):
    """``a + bend (1 - cos 2 pi p) + b sin 2 pi p``: a closed ellipse through a at p = 0, 1."""

    def __call__(self, p: np.ndarray, order: int = 0) -> np.ndarray:
        p = np.atleast_1d(np.asarray(p, dtype=float))[:, None]
        w, phase = 2 * np.pi, order * np.pi / 2
        wave = w**order * (self.b * np.sin(w * p + phase) - self.bend * np.cos(w * p + phase))
        return wave + (self.a + self.bend if order == 0 else 0 * p)


class Lissajous(Curve):
    """``a + b sin(pi f p + phi)``, joint j's frequency f = 1 + j % 3 and phase phi = j."""

    def __call__(self, p: np.ndarray, order: int = 0) -> np.ndarray:
        p = np.atleast_1d(np.asarray(p, dtype=float))[:, None]
        j = np.arange(self.a.size)
        w = np.pi * (1 + j % 3)
        return (self.a if order == 0 else 0) + self.b * w**order * np.sin(
            w * p + j + order * np.pi / 2)


def design(folder: Path, robot: Path, model, path: str, rate: float, shift) -> tuple[Path, object]:
    """The input file and its peer: ``(pieces)`` (toppra from rest to rest along each,
    summed) or ``"own"`` (toppra on hodyn's path, its end speeds)."""
    src = folder / f"{path}_{rate:g}.h5"
    seconds = PIECE[rate]
    names = model.joint_names
    a, b, c = waypoints(model, [A, B, C], shift)
    half = waypoints(model, [[1.0] * 8], None)[0] - waypoints(model, [[0.0] * 8], None)[0]
    if path == "fourier9":
        generate(model, robot, src, "fourier", rate=rate, duration=min(20.0, 1e4 / rate),
                 harmonics=9, base_frequency=0.25, seed=7)
        return src, "own"
    if path == "zig":
        rng = np.random.default_rng(17)
        points = waypoints(model, list(rng.uniform(-0.3, 0.3, (6, 8))), shift)
        legs = [0.15, 2.0, 0.3, 1.2, 0.5]
        generate(model, robot, src, "point-to-point", waypoints=points,
                 segment_duration=[s * seconds for s in legs], rate=rate)
        return src, [Curve(p, q, 0 * p) for p, q in zip(points[:-1], points[1:], strict=True)]
    if path == "dwell":
        first, second = Curve(a, b, 0 * a), Curve(b, c, 0 * a)
        one = first.played(names, 1, 2 * seconds, rate)
        hold = round(0.5 * rate)
        still = np.zeros((hold, *one.derivatives.shape[1:]))
        still[:, 0] = b
        two = second.played(names, 1, 2 * seconds, rate)
        n = len(one.t)
        write_trajectory(str(src), Trajectory(names, np.concatenate(
            [one.derivatives, still, two.derivatives[1:]]),
            np.arange(2 * n - 1 + hold) / rate))
        return src, [first, second]
    curve, stops = {"loop": (Loop(a, 0.5 * (b - a), 0.5 * (c - a)), 3),
                    "line5": (Curve(a, b, 0 * a), 5),
                    "lissa": (Lissajous((a + b) / 2, 0.3 * half[: model.n] + 0 * a, 0 * a), 1),
                    "tiny": (Curve(a, a + 1e-3 * half[: model.n], 0 * a), 1)}[path]
    write_trajectory(str(src), curve.played(names, stops, seconds, rate))
    return src, [curve]


def holding(model, src: Path) -> float:
    """The largest gravity torque at rest along the input over the torque limit."""
    q = read_trajectory(str(src), model, need=1).derivatives[:, 0]
    tau = hodyn_cli.inverse_dynamics(model, q, 0 * q, 0 * q, order=0).tau
    return float(np.max(np.abs(tau) / model.effort_limits))


def pinocchio_over(robot: Path, model, out: Path, jerk: np.ndarray | None) -> float:
    """The largest |qd| / v, |tau| / e (pinocchio's RNEA) and |q'''| / jerk over the output's
    samples: an independent recomputation of the limits the output must keep."""
    import pinocchio as pin

    whole, ours = pin.buildModelFromUrdf(str(robot)), hodyn_cli.load_robot(robot)
    q0 = pin.neutral(whole)
    locked = [jid for jid in range(1, whole.njoints) if whole.names[jid] not in model.joint_names]
    for jid in locked:  # (held where --lock-missing holds it)
        q0[whole.joints[jid].idx_q] = hodyn_cli.api.lock_value(ours, whole.names[jid])
    reduced = pin.buildReducedModel(whole, locked, q0) if locked else whole
    data = reduced.createData()
    joints = [reduced.joints[reduced.getJointId(n)] for n in model.joint_names]
    index = [joint.idx_v for joint in joints]
    # (a continuous joint's configuration in pinocchio is (cos, sin) of its angle: nq 2)
    turns = np.array([joint.nq == 2 for joint in joints])
    at = np.array([joint.idx_q for joint in joints])
    played = read_trajectory(str(out), model, need=4 if jerk is not None else 3).derivatives
    worst = np.max(np.abs(played[:, 1]) / model.velocity_limits)
    q = pin.neutral(reduced)
    for row in played:  # (a check, not a hot path: pinocchio has no batched RNEA)
        q[at[~turns]] = row[0][~turns]
        q[at[turns]], q[at[turns] + 1] = np.cos(row[0][turns]), np.sin(row[0][turns])
        v, a = np.zeros(reduced.nv), np.zeros(reduced.nv)
        v[index], a[index] = row[1], row[2]
        tau = pin.rnea(reduced, data, q, v, a)[index]
        worst = max(worst, np.max(np.abs(tau) / model.effort_limits))
    if jerk is not None:
        worst = max(worst, np.max(np.abs(played[:, 3]) / jerk))
    return float(worst)


def peer(model, src: Path, out: Path, pieces) -> tuple[float, str]:
    """toppra's duration (and the retry that gave it) for the input's path, its velocity
    limits capped where the cap does not bind (:func:`~stranger_optimal.toppra_uncapped`)."""
    if pieces == "own":
        traj = read_trajectory(str(src), model, need=5)
        played = read_trajectory(str(out), model, need=2)
        ends = [np.linalg.norm(played.derivatives[i, 1]) / np.linalg.norm(traj.derivatives[i, 1])
                for i in (0, -1)]
        return toppra_uncapped(model.velocity_limits, lambda cap: toppra_retried(
            model, lambda p, order: programme.between(traj, p)[:, order], traj.t[0], traj.t[-1],
            ends, cap))
    found = [toppra_uncapped(model.velocity_limits, lambda cap, c=c: toppra_retried(
        model, c, 0.0, 1.0, cap=cap)) for c in pieces]
    retried = "+".join(sorted({r for _, r in found if r != "-"})) or "-"
    return sum(d for d, _ in found), retried


#: (robot, path) -> toppra's (duration, retry) on the path's curves (the same at every rate)
PEERS: dict[tuple[str, str], tuple[float, str]] = {}


def one(folder: Path, label: str, path: str, rate: float, mode: str, peer_too: bool) -> dict:
    robot, model, flags = robot_of(label)
    src, pieces = design(folder, robot, model, path, rate, SHIFT.get(label))
    named = folder / f"{label}_{src.name}"
    src.rename(named)
    out = folder / f"out_{label}_{path}_{rate:g}_{mode}.h5"
    out.unlink(missing_ok=True)
    jerk = 20 * model.velocity_limits
    formats = {"jerk": ",".join(f"{x:.6g}" for x in jerk),
               "trates": limits_files(folder, model)["trates"]}
    extra = [a.format(**formats) for a in MODES[mode]]
    command = HODYN + ["retime", robot, named, "--optimal", *extra, *flags, "-o", out]
    status, wall, cpu, rss, stderr = run(command)
    with h5py.File(named) as f:
        samples = len(f["t"])
    row = {"robot": label, "path": path, "rate": rate, "mode": mode, "samples": samples,
           "wall": wall, "cpu": cpu, "rss": rss, "exit": status,
           "hold": holding(model, named),
           "command": " ".join(map(str, ["hodyn", *command[3:]]))}
    if not checked(row, robot, out, extra, flags, stderr):
        return row
    row["over"] = pinocchio_over(robot, model, out, jerk if mode == "jerk" else None)
    if row["over"] > 1 + 1e-6:
        row["notes"].append(f"pinocchio: a limit x{row['over']:.9g}")
    if mode == "vt" and peer_too:
        t0 = time.perf_counter()
        key = (label, path)
        through, retry = PEERS.get(key) or peer(model, named, out, pieces)
        if pieces != "own":
            PEERS[key] = (through, retry)
        row.update(toppra=through, retry=retry, toppra_wall=time.perf_counter() - t0,
                   percent=100 * (row["duration"] / through - 1))
    return row


def show(row: dict) -> None:
    def verdict(status: int | None) -> str:
        return "-" if status is None else "ok" if status == 0 else "FAIL"

    cells = [f"{row['robot']:13s}", f"{row['path']:8s}", f"{row['rate']:6g}",
             f"{row['mode']:5s}", f"{row['samples']:6d}", f"{row['hold']:5.2f}",
             f"{row.get('solver', '-'):>12s}", f"{row.get('duration', np.nan):9.4f}",
             f"{row.get('toppra', np.nan):9.4f}", f"{row.get('percent', np.nan):7.2f}",
             f"{row.get('retry', '-'):>7s}", f"{row['wall']:5.1f}", f"{row['cpu']:5.1f}",
             f"{row['rss']:4.0f}", f"{verdict(row.get('check')):>5s}",
             f"{verdict(row.get('validate')):>5s}", f"{row.get('over', np.nan):9.6f}",
             "; ".join(row.get("notes", []))]
    print(" ".join(cells), flush=True)


def summary(rows: list[dict]) -> None:
    """Per path class: the spread of the difference to toppra (%), the runs above 0.5 %, and
    every run whose exit, check, validate, pinocchio recomputation or notes failed."""
    print("\npath      runs  diff % min / median / max   > 0.5 %")
    for path in PATHS:
        gaps = [r["percent"] for r in rows if r["path"] == path and np.isfinite(
            r.get("percent", np.nan))]
        if gaps:
            print(f"{path:8s} {len(gaps):5d}  {min(gaps):7.2f} / {np.median(gaps):6.2f} / "
                  f"{max(gaps):6.2f}   {sum(g > 0.5 for g in gaps):5d}")
    for r in rows:
        if r["exit"] or r.get("check") or r.get("validate") or r.get("notes"):
            print(f"FAILED {r['robot']} {r['path']} {r['rate']:g} {r['mode']}: "
                  f"{'; '.join(r.get('notes', []))} ({r['command']})")


def arguments(description: str, keep: Path) -> argparse.ArgumentParser:
    """The sweeps' command line (``keep``: the inputs' folder by default)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--only", default="",
                        help="comma-separated ROBOT, PATH, PATH@RATE or MODE: the runs that "
                             "match every kind given (robots among robots, and so on)")
    parser.add_argument("--json", type=Path, help="also write the rows here (JSON)")
    parser.add_argument("--keep", type=Path, default=keep,
                        help="folder of the inputs and outputs (kept for reproducers)")
    parser.add_argument("--no-peer", action="store_true", help="toppra not run")
    parser.add_argument("--summary", type=Path, help="only summarise this --json's rows")
    return parser


def swept(args, cases, one, show, summary, robots, modes) -> None:
    """Each of ``cases`` (label, path, rate, mode) that ``args.only`` names run by ``one``,
    shown by ``show`` as it ends and kept in ``args.json``, then ``summary`` of them: the
    sweeps' common loop (sweep17, 18 and 22 differ in their robots, paths and modes)."""
    only = set(filter(None, args.only.split(",")))
    args.keep.mkdir(parents=True, exist_ok=True)
    rows = []
    for label, path, rate, mode in cases:
        # (each kind named narrows the runs to those matching one of its items)
        paths = only - set(robots) - set(modes)
        if (only & set(robots) and label not in only or only & set(modes) and mode not in only
                or paths and not paths & {path, f"{path}@{rate:g}"}):
            continue
        rows.append(one(args.keep, label, path, rate, mode, not args.no_peer))
        show(rows[-1])
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    summary(rows)


def main() -> None:
    args = arguments(__doc__.splitlines()[0], Path("/tmp/sweep17/in")).parse_args()
    if args.summary:
        summary(json.loads(args.summary.read_text()))
        return
    print(f"{'robot':13s} {'path':8s} {'rate':>6s} {'mode':5s} {'N':>6s} {'hold':>5s} "
          f"{'solver':>12s} {'hodyn s':>9s} {'toppra s':>9s} {'diff %':>7s} {'retry':>7s} "
          f"{'wall':>5s} {'CPU':>5s} {'RSS':>4s} {'check':>5s} {'valid':>5s} {'over':>9s} notes")
    swept(args, cases(), one, show, summary, ROBOTS, MODES)

if __name__ == "__main__":
    main()
