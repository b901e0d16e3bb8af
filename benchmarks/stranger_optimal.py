"""``hodyn retime --optimal`` tried as a newcomer would (issue 37): public arms nobody tuned
it on, paths of every class at every input rate, each command a process of its own.

    python benchmarks/stranger_optimal.py [--quick] [--only ARM,ARM:PATH,PATH@RATE,MODE]
                                          [--json rows.json] [--no-peer]

Arms: example-robot-data's UR3, UR10, Kinova Jaco (j2s6s200, continuous joints), Unitree Z1,
SO-101, Talos's left arm and the ASR two-link arm (not the bundled iiwa, Panda, UR5 or xArm7
the solver was tuned on), their URDF's velocity and torque limits; the group ``new``
(``--only new``): eight more, one arm of a whole robot where it is one (the other joints held
by ``--lock-missing`` on every command, the inputs having no columns for them): Baxter's left
arm, PR2's right arm (two continuous joints), TIAGo's arm (``--repair-inertia``: its
antenna's inertia), Romeo's left arm, the Z1 on the B1's trunk (its legs held), the SO-100,
the TriFinger's finger_edu (1000 rad/s, 1000 N m: motions of ~10 ms) and the continuous
double pendulum (no limits at all), every path class at every rate. Paths (``path``):

* ``p2p``: ``hodyn generate --kind point-to-point`` (in process: the same call) through
  four waypoints (at rest at both ends and at each waypoint: two corners inside); peer:
  toppra from rest to rest along each straight leg;
* ``stop``: the same through three waypoints on one line (a rest inside where the path goes
  on); peer: toppra along the whole line (the time-optimal law passes the rest moving), and
  from rest to rest on each half (``rests s``);
* ``curve``: the curve ``a + (b - a) p + bend sin(pi p)`` from rest to rest with a rest in
  its middle (bench_optimal.py's); peer: toppra along the whole curve (and on each half);
* ``fourier``: ``hodyn generate --kind fourier`` (no rest; free end speeds; on an arm of
  ``LOWER``, in the part of each joint's range its waypoints are moved to); peer: toppra on
  hodyn's own path with the end speeds of hodyn's output.

The group ``fresh`` (``--only fresh``; branch stranger5): ten more robots (``FRESH``: the
G1's, TIAGo Pro's, Centauro's, iCub's and Alex's arms, Talos's leg, the UR5 with its limited
URDF, an Allegro finger, the Hextilt's flying arm, a Go2 leg), on paths no group had
(``FRESH_PATHS``: doubling back, eight waypoints, a joint still, through the stretched pose,
``generate``'s cosine, excitation and filtered step), the modes ``lim`` (a limits file),
``trate`` (torque rates), ``up`` (``--rate 1000`` on 100 Hz) and ``r333``, and 10^5 samples
once; its peer is toppra with its torque constraint batched (:func:`toppra_batched`, the same
numbers ~50 times faster) and velocity limits capped at 50 rad/s (:data:`VELOCITY_CAP`), the
filtered step's along its line to hodyn's end speed; where toppra finds no law (nan) on a
piece, it is tried again in :data:`RETRIES`' order (:func:`toppra_retried`: the path
parameter rescaled to [0, 0.1], then the end speeds x 0.99), and the column ``retry`` says
which one gave the peer (these rows' toppra is approximate). ~20 min on the loaded 2-core VM.

Each input goes through ``hodyn retime ROBOT in --optimal -o out`` (mode ``vt``: the URDF's
velocity and torque limits, all toppra takes; ``r500``: with ``--rate 500``, whose steps
must be exactly 2 ms; ``jerk``: with ``--jerk 100``), then ``hodyn check`` with the same
limits (exit 0: every limit kept at every sample, to 1e-9 relative) and ``hodyn validate``
(exit 0). Columns: samples of the input, the solver the output records, its duration, the
fastest uniform scaling's, toppra's (4000 grid intervals a piece), the difference in %, the
retry that gave toppra's law (``-``: the first attempt, or no retry tried; ``span`` or
``ends.99``, and ``:1/7`` where one of seven legs needed it), wall and CPU seconds and peak
RSS of the retime process, the verdicts, and what is wrong
(``notes``: a notice that ends empty, a traceback, a step that is not 1 / rate, a nonzero
exit with its message).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_optimal import Curve, toppra_curve, toppra_path, toppra_run  # noqa: E402

import hodyn_cli  # noqa: E402
from hodyn_cli.algorithms.limits import programme  # noqa: E402
from hodyn_cli.io import read_trajectory, write_trajectory  # noqa: E402
from hodyn_cli.pipeline.trajectories import generate_file  # noqa: E402

HODYN = [sys.executable, "-m", "hodyn_cli"]
PUBLIC = "cmeel.prefix/share/example-robot-data/robots"
#: label -> the arm's URDF in example-robot-data
ARMS = {"ur3": "ur_description/urdf/ur3_robot.urdf",
        "ur10": "ur_description/urdf/ur10_robot.urdf",
        "kinova": "kinova_description/robots/kinova.urdf",
        "z1": "z1_description/urdf/z1.urdf",
        "so101": "so_arm_description/urdf/so101.urdf",
        "talos-arm": "talos_data/robots/talos_left_arm.urdf",
        "twodof": "asr_twodof_description/urdf/TwoDofs.urdf"}
#: the group ``new`` (``--only new``): label -> (URDF in example-robot-data, the joints that
#: move or None: all; the others held where ``--lock-missing`` holds them, 0 or the middle of
#: their range, the input files having no columns for them; extra flags of every command)
NEW = {"baxter": ("baxter_description/urdf/baxter.urdf",
                  [f"left_{j}" for j in ("s0", "s1", "e0", "e1", "w0", "w1", "w2")], []),
       "pr2": ("pr2_description/urdf/pr2.urdf",
               [f"r_{j}_joint" for j in ("shoulder_pan", "shoulder_lift", "upper_arm_roll",
                                         "elbow_flex", "forearm_roll", "wrist_flex",
                                         "wrist_roll")], []),
       "tiago": ("tiago_description/robots/tiago_no_hand.urdf",
                 [f"arm_{k}_joint" for k in range(1, 8)], ["--repair-inertia"]),
       "romeo": ("romeo_description/urdf/romeo_small.urdf",
                 ["LShoulderPitch", "LShoulderYaw", "LElbowRoll", "LElbowYaw", "LWristRoll",
                  "LWristYaw", "LWristPitch"], []),
       "b1-z1": ("b1_description/urdf/b1-z1.urdf", [f"joint{k}" for k in range(1, 7)], []),
       "so100": ("so_arm_description/urdf/so100.urdf", None, []),
       "finger": ("finger_edu_description/robots/finger_edu.urdf", None, []),
       "dpend": ("double_pendulum_description/urdf/double_pendulum_continuous.urdf", None, [])}
#: the group ``fresh`` (``--only fresh``, branch stranger5): ten more robots nobody tuned on,
#: as ``NEW`` (label -> URDF, the joints that move or None, extra flags), each through the
#: path classes of ``FRESH_PATHS`` (paths no group had: below)
FRESH = {"g1-arm": ("g1_description/urdf/g1_29dof_rev_1_0.urdf",
                    [f"left_{j}_joint" for j in ("shoulder_pitch", "shoulder_roll",
                                                 "shoulder_yaw", "elbow", "wrist_roll",
                                                 "wrist_pitch", "wrist_yaw")], []),
         "tiago-pro": ("tiago_pro_description/robots/tiago_pro.urdf",
                       [f"arm_left_{k}_joint" for k in range(1, 8)], []),
         "centauro": ("centauro_description/urdf/centauro.urdf",
                      [f"j_arm1_{k}" for k in range(1, 7)], []),
         "icub": ("icub_description/robots/icub_reduced.urdf",
                  [f"l_{j}" for j in ("shoulder_pitch", "shoulder_roll", "shoulder_yaw",
                                      "elbow", "wrist_prosup", "wrist_pitch", "wrist_yaw")],
                  []),
         "alex": ("alex_description/urdf/alex_nub_hands.urdf",
                  [f"Left{j}" for j in ("ShoulderPitch", "ShoulderRoll", "ShoulderYaw",
                                        "ElbowPitch", "WristYaw", "WristRoll")], []),
         "talos-leg": ("talos_data/robots/talos_reduced.urdf",
                       [f"leg_left_{k}_joint" for k in range(1, 7)], []),
         "ur5-lim": ("ur_description/urdf/ur5_joint_limited_robot.urdf", None, []),
         "allegro": ("allegro_hand_description/urdf/allegro_left_hand.urdf",
                     [f"joint_{k}.0" for k in range(4)], []),
         "hextilt": ("hextilt_description/urdf/hextilt_flying_arm_5.urdf", None, []),
         "go2-leg": ("go2_description/urdf/go2.urdf",
                     ["FL_hip_joint", "FL_thigh_joint", "FL_calf_joint"], [])}
#: the fresh group's paths: ``back`` (point-to-point A, B, A, B: the path doubles back on
#: itself at each rest), ``many`` (eight waypoints, 0.4 s legs), ``still`` (``p2p``'s
#: waypoints with the second joint the same at every one: it never moves), ``sing`` (through
#: q = 0 where the range has it, the arm stretched: UR's, Talos's leg's singular pose, the
#: largest gravity torque), ``cosine``, ``excite`` and ``fstep`` (``hodyn generate --kind
#: cosine``, ``excitation`` and ``filtered-step``: every joint's own cosine, no rest; the
#: identification's excitation; a step through a 16th-order filter, from rest to rest along
#: a line, its speed rising as t^15)
FRESH_PATHS = ("back", "many", "still", "sing", "cosine", "excite", "fstep")
#: waypoints as shares of each joint's half range about its middle (a row per waypoint)
TURNS = [[-0.3, 0.2, -0.2, 0.25, -0.2, 0.2, -0.1], [0.25, -0.15, 0.3, -0.2, 0.25, -0.2, 0.2],
         [-0.1, 0.25, -0.25, 0.1, -0.3, 0.1, -0.25], [0.2, -0.2, 0.15, -0.25, 0.2, -0.15, 0.3]]
LINE = [[-0.3, -0.2, 0.25, -0.3, 0.2, -0.25, 0.3], [0.0] * 7,
        [0.3, 0.2, -0.25, 0.3, -0.2, 0.25, -0.3]]
#: shares added to every waypoint's, per arm (and the Fourier path's range moved as much:
#: :func:`lowered`): Talos's shoulder (arm_left_2_joint, 22.32 N m) cannot hold the arm out
#: level against gravity at any speed (exit 1; the Fourier path over the whole range held up
#: to 26.8 N m at rest), so it hangs lower;
LOWER = {"talos-arm": [-0.6, 0, 0, 0, 0, 0, 0],
         # PR2's shoulder lift (30 N m; the real arm has a counterbalance spring the URDF
         # has not) holds 41.7 N m with the arm out: down, the upper arm rolled, elbow bent
         "pr2": [0, 0.65, -0.6, -0.6, 0, 0, 0]}
#: mode -> retime's (and check's) extra arguments
MODES = {"vt": [], "r500": ["--rate", "500"], "jerk": ["--jerk", "100"],
         # (the fresh group's) a limits file (``limits_file``: velocity 0.7 and torque 0.8
         # of the URDF's, acceleration 4 s^-1 times the velocity limit), one with torque
         # rates (10 s^-1 times the torque limit: the linear programmes), a finer output
         # than the input (1 kHz from 100 Hz), a rate whose step is no whole number of ms
         "lim": ["--limits", "{limits}"], "trate": ["--limits", "{trates}"],
         "up": ["--rate", "1000"], "r333": ["--rate", "333"]}
#: input rate (Hz) -> (seconds a p2p segment, seconds of a Fourier path): ~10^3 .. 10^4
#: samples, 61 at 20 Hz for the point-to-point paths
TIMING = {20.0: (1.0, 50.0), 100.0: (1.0, 10.0), 1e3: (1.0, 2.0), 1e4: (0.5, 1.0)}


def cases(quick: bool) -> list[tuple[str, str, float, str]]:
    """(arm, path, input rate, mode) of every run."""
    if quick:
        return [("ur10", "p2p", 100.0, "vt"), ("ur10", "p2p", 100.0, "r500"),
                ("kinova", "p2p", 100.0, "jerk"), ("kinova", "stop", 100.0, "vt"),
                ("z1", "fourier", 100.0, "vt"), ("ur3", "p2p", 1e4, "vt")]
    rows = []
    for arm in ARMS:
        rows += [(arm, "p2p", 100.0, mode) for mode in MODES]
        rows += [(arm, path, 100.0, "vt") for path in ("stop", "curve", "fourier")]
        rows += [(arm, "fourier", 100.0, "jerk")]
        rows += [(arm, "p2p", rate, "vt") for rate in (20.0, 1e3, 1e4)]
        rows += [(arm, "fourier", rate, "vt") for rate in (20.0, 1e4)]
    rows += [("ur10", "p2p-long", 1e4, "vt")]
    for arm in NEW:  # every path class at every rate, then a few more modes
        rows += [(arm, path, rate, "vt") for path in ("p2p", "stop", "curve", "fourier")
                 for rate in TIMING]
    rows += [("baxter", "p2p-long", 1e4, "vt")]
    rows += [(arm, path, 100.0, mode) for arm in NEW for path, mode in (
        ("p2p", "r500"), ("p2p", "jerk"), ("fourier", "jerk"))]
    return rows + fresh_cases()


def fresh_cases() -> list[tuple[str, str, float, str]]:
    """The fresh group's runs: four path classes on every robot at 100 Hz, the others on
    four, two robots at every rate, the modes on two, 10^5 samples once."""
    rows = [(arm, path, 100.0, "vt") for arm in FRESH
            for path in ("back", "many", "cosine", "fstep")]
    rows += [(arm, path, 100.0, "vt") for arm in ("g1-arm", "icub", "ur5-lim", "hextilt")
             for path in ("still", "sing", "excite")]
    rows += [(arm, path, rate, "vt") for arm in ("ur5-lim", "g1-arm")
             for path in ("back", "cosine") for rate in (20.0, 1e3, 1e4)]
    rows += [(arm, "back", 100.0, mode) for arm in ("ur5-lim", "tiago-pro")
             for mode in ("jerk", "lim", "trate", "up", "r333")]
    return rows + [("ur5-lim", "cosine-long", 1e4, "vt")]


def robot_of(arm: str) -> tuple[Path, object, list[str]]:
    """The arm's URDF, its model (the joints not moving held) and the flags every command on
    it takes."""
    if arm in ARMS:
        robot = public(ARMS[arm])
        return robot, hodyn_cli.load_robot(robot), []
    relative, moving, flags = NEW[arm] if arm in NEW else FRESH[arm]
    robot = public(relative)
    whole = hodyn_cli.load_robot(robot, repair_inertia="--repair-inertia" in flags)
    held = {} if moving is None else {j: hodyn_cli.api.lock_value(whole, j)
                                      for j in whole.joint_names if j not in moving}
    return (robot, hodyn_cli.api.lock_joints(whole, held),
            flags + (["--lock-missing"] if held else []))


def public(relative: str) -> Path:
    import importlib.metadata

    return Path(importlib.metadata.distribution("example-robot-data").locate_file(PUBLIC)
                ) / relative


def waypoints(model, shares: list[list[float]], shift: list[float] | None = None
              ) -> np.ndarray:
    """Rows of joint positions: the shares (plus ``shift``) of each joint's half range about
    its middle (a continuous joint: of pi about 0)."""
    low, high = model.limits[:, 0], model.limits[:, 1]
    finite = np.isfinite(low) & np.isfinite(high)
    low, high = np.where(finite, low, -np.pi), np.where(finite, high, np.pi)
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    shares = np.array(shares) + (0 if shift is None else np.array(shift))
    return middle + half * shares[:, np.arange(model.n) % 7]


def lowered(model, shift: list[float] | None):
    """The model with the range of each joint ``shift`` moves (shares of its half range, as
    :func:`waypoints` takes them) narrowed to its part from the moved middle to the end the
    shift points to (shares [-1, -0.6] of Talos's shoulder): ``generate --kind fourier``
    fills 80 % of a range about its middle, so its path moves as the waypoints do. (The
    moved middle +- what remains of the range, [-1, -0.2], was not enough: the Fourier path
    moves every joint through 80 % of its range, the waypoints through 30 %, and Talos's
    shoulder held 1.042 times its limit at rest: exit 1.)"""
    if shift is None:
        return model
    shares = np.array(shift)[np.arange(model.n) % 7]
    moved = np.flatnonzero(shares)
    low, high = model.limits[moved, 0], model.limits[moved, 1]
    middle = (low + high) / 2 + shares[moved] * (high - low) / 2
    limits = model.limits.copy()
    limits[moved] = np.sort(np.column_stack([middle, np.where(shares[moved] < 0, low, high)]))
    return dataclasses.replace(model, limits=limits)


def design(folder: Path, robot: Path, model, path: str, rate: float, shift=None
           ) -> tuple[Path, object]:
    """The input file and its peer: a function giving toppra's (duration through, duration
    with the rests, seconds, retry), or ``"own"`` (toppra on hodyn's path, its end speeds)."""
    src = folder / f"{path}_{rate:g}.h5"
    segment, seconds = TIMING[rate]
    if path == "fourier":
        generate(lowered(model, shift), robot, src, "fourier", rate=rate, duration=seconds)
        return src, "own"
    if path == "curve":
        a, b = waypoints(model, [TURNS[0], TURNS[1]], shift)
        curve = Curve(a, b, (b - a)[::-1] / 4)
        write_trajectory(str(src), curve.played(model.joint_names, 2, 2 * segment, rate))
        return src, lambda: _peer(model, [(curve, 0.0, 1.0)],
                                  [(curve, 0.0, 0.5), (curve, 0.5, 1.0)])
    points = waypoints(model, LINE if path == "stop" else TURNS, shift)
    if path == "p2p-long":  # 10^5 samples: three legs of 3.33 s
        segment = 1e5 / rate / 3
    generate(model, robot, src, "point-to-point", waypoints=points,
             segment_duration=[float(f"{segment:.6f}")], rate=rate)
    legs = [(Curve(p, r, 0 * p), 0.0, 1.0) for p, r in zip(points[:-1], points[1:],
                                                         strict=True)]
    if path == "stop":
        return src, lambda: _peer(model, [(Curve(points[0], points[-1], 0 * points[0]), 0.0,
                                           1.0)], legs)
    return src, lambda: _peer(model, legs, legs)


def design_fresh(folder: Path, robot: Path, model, path: str, rate: float, shift=None
                 ) -> tuple[Path, object]:
    """The fresh group's input (``FRESH_PATHS``; ``cosine-long``: 10 s at 10 kHz, 10^5
    samples) and its peer, as :func:`design`'s."""
    src = folder / f"{path}_{rate:g}.h5"
    seconds = TIMING[rate][1]
    if path in ("cosine", "cosine-long", "excite"):
        kind = "excitation" if path == "excite" else "cosine"
        generate(model, robot, src, kind, rate=rate,
                 duration=10.0 if path == "cosine-long" else seconds)
        return src, "own"
    if path == "fstep":  # (a line from its rest, still moving at its end: its peer, the
        # line at the end speed of hodyn's output, is run in :func:`one`)
        generate(model, robot, src, "filtered-step", rate=rate, duration=2.5)
        return src, "line"
    shares = {"back": [TURNS[0], TURNS[1], TURNS[0], TURNS[1]],
              "many": TURNS + [[-0.8 * x for x in row] for row in TURNS],
              "still": [row[:1] + [0.1] + row[2:] for row in TURNS],
              "sing": [TURNS[0], None, TURNS[1]]}[path]
    if path == "sing":  # q = 0 where the range has it (its share of the half range)
        low, high = model.limits[:, 0], model.limits[:, 1]
        finite = np.isfinite(low) & np.isfinite(high)
        middle = np.where(finite, (low + high) / 2, 0.0)
        half = np.where(finite, np.minimum((high - low) / 2, np.pi), np.pi)
        zero = np.clip(-middle / half - (0 if shift is None else np.array(shift)[
            np.arange(model.n) % 7]), -0.95, 0.95)
        shares[1] = list(np.resize(zero, 7)) if model.n <= 7 else None
    points = waypoints(model, [s for s in shares if s is not None], shift)
    segment = 0.4 if path == "many" else 1.0
    generate(model, robot, src, "point-to-point", waypoints=points,
             segment_duration=[segment], rate=rate)
    legs = [(Curve(p, r, 0 * p), 0.0, 1.0) for p, r in zip(points[:-1], points[1:],
                                                         strict=True)]
    return src, lambda: _legs_peer(model, legs)


#: toppra's velocity limits at most this (rad/s): with the iCub's 100 rad/s and the
#: Hextilt's 10^4 it found no law on any grid (nan), with 50 it does (1.4610 s on the
#: Hextilt's cosine); where an output peaks above half of it (the notes say), RAISED times
#: its peak: the Hextilt's excitation peaks at 53.5 rad/s, toppra there 0.849778 s at 50,
#: 0.842393 s at 60 and at 80 (the cap not binding its law), nan at 100 and above
VELOCITY_CAP = 50.0
RAISED = 1.5


def toppra_batched(model, path, a: float, b: float, points: int, ends=(0.0, 0.0),
                   cap: float = VELOCITY_CAP) -> float:
    """toppra (0.6, interpolation, the URDF's velocity and torque limits) along ``path`` (a
    callable ``(p, order)`` of arrays) from ``a`` to ``b`` on ``points`` intervals, its
    torque constraint's parameters made in three batched inverse dynamics calls instead of
    three calls per grid point (toppra's own loop: ~25 s a 4000-point leg on the loaded VM,
    the fresh group's peers would have taken ~40 min; the same numbers: the test
    ``test_the_batched_toppra_peer_is_toppra``), its velocity limits at most ``cap``: the
    duration (nan where toppra gives none)."""
    import toppra as ta
    import toppra.algorithm as algo
    import toppra.constraint as constraint
    from toppra.constraint.linear_constraint import canlinear_colloc_to_interpolate

    ta.setup_logging("CRITICAL")

    def dynamics(q, qd, qdd):
        return hodyn_cli.inverse_dynamics(model, q, qd, qdd, order=0).tau

    class Batched(constraint.JointTorqueConstraint):  # (its loop, batched; no friction)
        def compute_constraint_params(self, along, grid):
            q, qs, qss = along.eval(grid), along.evald(grid), along.evaldd(grid)
            c = dynamics(q, 0 * q, 0 * q)
            eye = np.eye(model.n)
            F = np.vstack([eye, -eye])
            g = np.concatenate([self.tau_lim[:, 1], -self.tau_lim[:, 0]])
            return canlinear_colloc_to_interpolate(dynamics(q, 0 * q, qs) - c,
                                                   dynamics(q, qs, qss) - c, c, F, g,
                                                   None, None, grid, identical=True)

    v, e = np.minimum(model.velocity_limits, cap), model.effort_limits
    cs = [constraint.JointVelocityConstraint(np.column_stack([-v, v])),
          Batched(dynamics, np.column_stack([-e, e]), np.zeros(model.n),
                  constraint.DiscretizationType.Interpolation)]
    along = toppra_path(lambda p, order: path(np.atleast_1d(np.asarray(p, dtype=float)), order),
                        model.n, a, b)
    result = algo.TOPPRA(cs, along, gridpoints=np.linspace(a, b, points + 1),
                         parametrizer="ParametrizeConstAccel").compute_trajectory(*ends)
    return np.nan if result is None else result.duration


#: the path parameter's span of the retry ``span`` (:data:`RETRIES`)
SPAN = 0.1
#: where toppra finds no law (nan) on a piece, the retries in this order, the first that finds
#: one the peer (label: the column ``retry``'s, the parameter's span or None: as given, the
#: end speeds' factor): ``span``, the path parameter rescaled to [0, SPAN] (the end speeds
#: with it): the same problem, its squared path speeds smaller (the Allegro's and the
#: Hextilt's 0.05-0.08 rad leg found no law on any grid, even uncapped; with it toppra's
#: peer of the iCub's filtered step and ``still``, Allegro's and Hextilt's ``many``: diff
#: +0.11, +0.05, +0.40, +0.03 %); ``ends.99``, the end speeds x 0.99 (where one moves), the
#: parameter as given: hodyn's end speeds are its optimum's, on the edge of what the limits
#: allow, past it by toppra's rounding (the G1's excitation, its cosine at 1 and 10 kHz:
#: +0.10, -0.008, -0.008 %; x 0.95 found a law on none that x 0.99 did not): toppra's law a
#: little slower than at the exact end speeds, the row's diff a little low
RETRIES = (("span", SPAN, 1.0), ("ends.99", None, 0.99))


def toppra_retried(model, path, a: float, b: float, ends=(0.0, 0.0),
                   cap: float = VELOCITY_CAP) -> tuple[float, str]:
    """:func:`toppra_batched` on 4000 intervals, and where it finds no law the
    :data:`RETRIES` in order: the duration and the retry that found it (``-``: the first
    attempt; ``none``: no retry did, the duration nan)."""
    duration = toppra_batched(model, path, a, b, 4000, ends, cap)
    if np.isfinite(duration):
        return duration, "-"
    for label, span, shade in RETRIES:
        if shade != 1.0 and not any(ends):  # (a rest shaded is the same rest)
            continue
        along, k = (path, 1.0) if span is None else rescaled(path, a, b, span)
        lo, hi = (a, b) if span is None else (0.0, span)
        duration = toppra_batched(model, along, lo, hi, 4000, [k * shade * e for e in ends],
                                  cap)
        if np.isfinite(duration):
            return duration, label
    return np.nan, "none"


#: :func:`toppra_uncapped` stops raising the cap where the law changes by this share or less
UNCAPPED = 1e-9


def toppra_uncapped(limits: np.ndarray, run) -> tuple[float, str]:
    """``run(cap)`` (:func:`toppra_retried` with its velocity limits capped at ``cap``: the
    duration and its retry) from :data:`VELOCITY_CAP` up, the cap doubled (at most the
    largest of ``limits``, the URDF's) while the law still changes with it by more than
    :data:`UNCAPPED`: the first law the cap no longer binds, its retry with ``@CAP`` where
    the cap was raised. Why: a cap that binds makes the peer slower than toppra's own law,
    and the row's difference too low: the Borinot's 10^4 rad/s flying arm along the sweep's
    Lissajous curve peaks at 66 rad/s at 1 kHz, and toppra's law capped at 50 was 0.150504 s,
    at 100 or 200 0.148859 s (the same bits; its hodyn rows 1.1 % closer to toppra than they
    are). Where a raised cap finds no law (nan), the last law found, its retry
    ``capped@CAP`` (a peer slower than toppra's law, by the cap: said)."""
    cap, top = VELOCITY_CAP, float(np.max(limits))
    duration, retry = run(cap)
    while top > cap and np.isfinite(duration):
        wider = min(2 * cap, top)
        again, how = run(wider)
        if not np.isfinite(again):
            return duration, f"capped@{cap:g}"
        if abs(again - duration) <= UNCAPPED * duration:
            break
        duration, retry, cap = again, how, wider
    return duration, retry if cap == VELOCITY_CAP else f"{retry}@{cap:g}"


def rescaled(path, a: float, b: float, span: float):
    """``path`` (``(p, order)``) over [a, b] in the parameter u = k (p - a) over [0, span], k =
    span / (b - a): the same path, its derivatives d^r q / du^r = k^-r d^r q / dp^r; and k
    (its speeds du/dt = k dp/dt)."""
    k = span / (b - a)
    return (lambda u, order: path(a + u / k, order) * k ** -float(order)), k


def _summed(pieces: list[tuple[float, str]]) -> tuple[float, str]:
    """The pieces' (duration, retry) as a row's: the durations' sum, the retries some used
    (``+`` between) and with several pieces how many used one (``span:1/7``)."""
    retried = [label for _, label in pieces if label != "-"]
    total = sum(duration for duration, _ in pieces)
    if not retried:
        return total, "-"
    used = "+".join(dict.fromkeys(retried))
    return total, used if len(pieces) == 1 else f"{used}:{len(retried)}/{len(pieces)}"


def limits_files(folder: Path, model) -> dict[str, Path]:
    """The modes ``lim`` and ``trate``'s limits files for the model's joints."""
    files = {}
    for key, rows in (("limits", lambda v, e: {"velocity": 0.7 * v, "acceleration": 4 * v,
                                               "torque": 0.8 * e}),
                      ("trates", lambda v, e: {"torque_rate": 10 * e})):
        text = []
        for name, v, e in zip(model.joint_names, model.velocity_limits, model.effort_limits,
                              strict=True):
            limits = {k: x for k, x in rows(v, e).items() if np.isfinite(x)}
            text += [f'[joints."{name}"]'] + [f"{k} = {x:.6g}" for k, x in limits.items()]
        files[key] = folder / f"{key}.toml"
        files[key].write_text("\n".join(text) + "\n")
    return files


def generate(model, robot: Path, src: Path, kind: str, **options) -> None:
    """``hodyn generate ROBOT --kind KIND --allow-limit-violation -o SRC`` in process, on the
    model with its held joints (``generate`` takes no ``--lock``): the same library call."""
    generate_file(model, kind, str(src), {"kind": kind, "urdf": str(robot)}, check=False,
                  **options)


def _peer(model, through, rests) -> tuple[float, float, float, str]:
    """toppra from rest to rest along the pieces ``through`` and ``rests`` (curve, from, to):
    (the first's duration, the second's, seconds, ``-``: no retry)."""
    t0 = time.perf_counter()
    # (nan where toppra returns no law: on the finger_edu's whole line through its middle
    # rest it did, and the run stopped there)
    durations = [sum(np.nan if r is None else r.duration
                     for r in (toppra_curve(model, c, lo, hi)[0] for c, lo, hi in pieces))
                 for pieces in (through, rests)]
    return durations[0], durations[1], time.perf_counter() - t0, "-"


def _legs_peer(model, legs) -> tuple[float, float, float, str]:
    """The fresh group's peer of a waypoint path: toppra (:func:`toppra_retried`) from rest
    to rest along each of its ``legs`` (curve, from, to): (the durations' sum, through and
    with the rests alike, seconds, the retries)."""
    t0 = time.perf_counter()
    duration, retry = _summed([toppra_retried(model, c, lo, hi) for c, lo, hi in legs])
    return duration, duration, time.perf_counter() - t0, retry


#: a small process between this one and the command: a child forked from this process
#: (toppra and hodyn imported, ~150 MiB) starts with its high-water mark, which exec keeps,
#: so the command's own peak RSS is read by a parent of its own size
_WAIT = ("import json, os, subprocess, sys, time\n"
         "t0 = time.perf_counter()\n"
         "proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
         "_, status, usage = os.wait4(proc.pid, 0)\n"
         "print(json.dumps([os.waitstatus_to_exitcode(status), time.perf_counter() - t0,\n"
         "                  usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024]))\n")


def run(args: list) -> tuple[int, float, float, float, str]:
    """(exit status, wall s, CPU s, peak RSS MiB, stderr) of one process."""
    done = subprocess.run([sys.executable, "-c", _WAIT, *map(str, args)], capture_output=True,
                          text=True, errors="replace")
    status, wall, cpu, rss = json.loads(done.stdout)
    return status, wall, cpu, rss, done.stderr


def problems(stderr: str, out: Path, extra: list[str]) -> list[str]:
    """What is wrong with a run that exited 0: notices that end empty, tracebacks, steps that
    are not 1 / rate."""
    notes = []
    for line in stderr.splitlines():
        if line.rstrip().endswith((":", ",", "(")) and line.startswith("hodyn:"):
            notes.append(f"empty: {line[-60:]!r}")
        if "Traceback" in line:
            notes.append("traceback")
    if not stderr.strip():
        notes.append("no notice")
    if "--rate" in extra:
        rate = float(extra[extra.index("--rate") + 1])
        with h5py.File(out) as f:
            t = f["t"][:]
        step = np.diff(t)
        # sample i at exactly t0 + i / rate (the last one at the end, its step shorter)
        wrong = np.abs(t[:-1] - t[0] - np.arange(t.size - 1) / rate) > 1e-9 * t[-1]
        if wrong.any() or step[-1] > 1 / rate * (1 + 1e-3):
            notes.append(f"steps {step.min():.9g}..{step.max():.9g} s")
    return notes


def checked(row: dict, robot: str, out: Path, extra: list, flags: list, stderr: str) -> bool:
    """``row`` (its ``exit`` the retime's status) with the output's solver, duration and
    uniform scaling's, ``hodyn check``'s and ``validate``'s exit statuses and :func:`problems`'
    notes; False (the row's note the error's last line) where the retime failed."""
    if row["exit"] != 0:
        row["notes"] = [f"exit {row['exit']}: {stderr.strip().splitlines()[-1][:160]}"]
        return False
    with h5py.File(out) as f:
        row.update(solver=str(f.attrs["solver"]), duration=float(f.attrs["duration"]),
                   uniform=float(f.attrs["uniform_duration"]))
    limits = [] if "--rate" in extra else extra
    row["check"] = run(HODYN + ["check", robot, out, *limits, *flags, "-q"])[0]
    row["validate"] = run(HODYN + ["validate", robot, out, *flags, "-q"])[0]
    row["notes"] = problems(stderr, out, extra)
    return True


def one(folder: Path, arm: str, path: str, rate: float, mode: str, peer_too: bool = True
        ) -> dict:
    robot, model, flags = robot_of(arm)
    src, peer = (design_fresh if arm in FRESH else design)(folder, robot, model, path, rate,
                                                           LOWER.get(arm))
    out = folder / "out.h5"
    out.unlink(missing_ok=True)
    extra = [a.format(**limits_files(folder, model)) for a in MODES[mode]]
    status, wall, cpu, rss, stderr = run(HODYN + ["retime", robot, src, "--optimal",
                                                  *extra, *flags, "-o", out])
    with h5py.File(src) as f:
        samples = len(f["t"])
    row = {"arm": arm, "path": path, "rate": rate, "mode": mode, "samples": samples,
           "wall": wall, "cpu": cpu, "rss": rss, "exit": status}
    if not checked(row, robot, out, extra, flags, stderr):
        return row
    cap = VELOCITY_CAP  # (toppra's, raised where the output comes near it)
    if arm in FRESH:
        with h5py.File(out) as f:
            peak = float(np.abs(f["qd"][:]).max()) if "qd" in f else 0.0
        if peak > VELOCITY_CAP / 2 and np.any(model.velocity_limits > VELOCITY_CAP):
            cap = max(VELOCITY_CAP, RAISED * peak)
            row["notes"].append(f"peak |qd| {peak:.3g} rad/s: toppra's cap {cap:.3g}")
    if mode == "vt" and peer_too:
        if peer == "line":  # toppra along the line from its rest to hodyn's end speed
            traj = read_trajectory(str(src), model, need=2)
            played = read_trajectory(str(out), model, need=2)
            a, b = traj.derivatives[0, 0], traj.derivatives[-1, 0]
            end = np.linalg.norm(played.derivatives[-1, 1]) / np.linalg.norm(b - a)
            t0 = time.perf_counter()
            through, retry = toppra_retried(model, Curve(a, b, 0 * a), 0.0, 1.0, (0.0, end),
                                            cap)
            rests = through
            seconds = time.perf_counter() - t0
        elif peer == "own":
            traj = read_trajectory(str(src), model, need=5)
            played = read_trajectory(str(out), model, need=2)
            ends = [np.linalg.norm(played.derivatives[i, 1]) / np.linalg.norm(
                traj.derivatives[i, 1]) for i in (0, -1)]
            if arm in FRESH:
                t0 = time.perf_counter()
                through, retry = toppra_retried(
                    model, lambda p, order: programme.between(traj, p)[:, order],
                    traj.t[0], traj.t[-1], ends, cap)
                seconds = time.perf_counter() - t0
            else:
                through, seconds, _ = toppra_run(model, traj, model.velocity_limits,
                                                 model.effort_limits, ends, 4000)
                retry = "-"
            rests = through
        else:  # (the curves' peer is the same at every rate: run once per arm and path)
            key = (arm, "p2p" if path == "p2p-long" else path)
            through, rests, seconds, retry = PEERS[key] if key in PEERS else (
                PEERS.setdefault(key, peer()))
        row.update(toppra=through, toppra_rests=rests, toppra_wall=seconds, retry=retry,
                   percent=100 * (row["duration"] / through - 1))
    return row


#: (arm, path) -> toppra's durations and seconds on the path's curves (not hodyn's path)
PEERS: dict[tuple[str, str], tuple[float, float, float, str]] = {}


def show(row: dict) -> None:
    cells = [f"{row['arm']:13s}", f"{row['path']:8s}", f"{row['rate']:6g}",
             f"{row['mode']:5s}", f"{row['samples']:7d}", f"{row.get('solver', '-'):>12s}",
             f"{row.get('duration', np.nan):8.4f}", f"{row.get('uniform', np.nan):8.4f}",
             f"{row.get('toppra', np.nan):8.4f}", f"{row.get('toppra_rests', np.nan):8.4f}",
             f"{row.get('percent', np.nan):7.2f}", f"{row.get('retry', '-'):>10s}",
             f"{row['wall']:6.1f}", f"{row['cpu']:6.1f}",
             f"{row['rss']:5.0f}", f"{_verdict(row.get('check')):>5s}",
             f"{_verdict(row.get('validate')):>8s}", "; ".join(row.get("notes", []))]
    print(" ".join(cells), flush=True)


def _verdict(status: int | None) -> str:
    return "-" if status is None else "ok" if status == 0 else "FAIL"


def chosen(only: set[str], arm: str, path: str, rate: float, mode: str) -> bool:
    """Whether ``--only``'s items take the run: a group (``first``, ``new``, ``fresh``) picks
    its runs, which the other items narrow to those matching any; without a group the first
    group's runs that match any (another group's where its arm is named)."""
    group = "new" if arm in NEW else "fresh" if arm in FRESH else "first"
    groups, items = only & {"first", "new", "fresh"}, only - {"first", "new", "fresh"}
    named = {arm, f"{arm}:{path}"} & items
    if groups and group not in groups or not groups and group != "first" and not named:
        return False
    return not items or bool(items & {arm, f"{arm}:{path}", f"{path}@{rate:g}", mode})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small subset (6 runs)")
    parser.add_argument("--only", default="",
                        help="comma-separated: ARM, ARM:PATH, PATH@RATE (e.g. fourier@20) or "
                             "MODE (vt, r500, jerk, lim, trate, up, r333): the runs that "
                             "match any; a group, first (the seven arms), new (eight more, "
                             "NEW) or fresh (ten more, FRESH), narrows them to its runs "
                             "(default: the first group's)")
    parser.add_argument("--json", type=Path, help="also write the rows here (JSON)")
    parser.add_argument("--no-peer", action="store_true",
                        help="hodyn's side alone, toppra not run (its durations do not change "
                             "with hodyn's: two branches against one peer run)")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    print(f"{'arm':13s} {'path':8s} {'rate':>6s} {'mode':5s} {'samples':>7s} {'solver':>12s} "
          f"{'hodyn s':>8s} {'uniform':>8s} {'toppra s':>8s} {'rests s':>8s} {'diff %':>7s} "
          f"{'retry':>10s} {'wall s':>6s} {'CPU s':>6s} {'RSS':>5s} {'check':>5s} {'validate':>8s} notes")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for arm, path, rate, mode in cases(args.quick):
            if not chosen(only, arm, path, rate, mode):
                continue
            rows.append(one(Path(tmp), arm, path, rate, mode, not args.no_peer))
            show(rows[-1])
            if args.json:
                args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
