"""``retime --optimal`` on robots and paths nobody tuned it on (benchmarks/stranger_optimal.py,
``--only fresh``, branch stranger5): the failures the sweep found, each its smallest case,
marked ``xfail(strict=True)`` until the law in hodyn_cli/algorithms/limits/ was fixed; toppra
0.6's durations (4000 intervals, the URDF's velocity and torque limits, the end speeds of
hodyn's output) as the sweep printed them. All three were the played law beyond a limit at
a few places and a remedy that slowed far more than those (5.8-12 % from toppra): now the
law where its smoothing is beyond the passes' own rows is planned again under a ceiling and
smoothed again (``reachability.within``, branch fresh6a; benchmarks/README.md)."""

import numpy as np
import pytest
from test_base_parameters import public_robot
from test_reachability import _kept_and_consistent

import hodyn_cli
from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.algorithms.planning.generate import generate

G1_ARM = [f"left_{j}_joint" for j in ("shoulder_pitch", "shoulder_roll", "shoulder_yaw",
                                      "elbow", "wrist_roll", "wrist_pitch", "wrist_yaw")]
ICUB_ARM = [f"l_{j}" for j in ("shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow",
                               "wrist_prosup", "wrist_pitch", "wrist_yaw")]


def _arm(relative: str, moving: list[str]):
    """The robot of example-robot-data with only ``moving`` free, the others held where
    ``--lock-missing`` holds them (the sweep's :func:`robot_of`)."""
    whole = hodyn_cli.load_robot(public_robot(relative))
    return hodyn_cli.api.lock_joints(whole, {j: hodyn_cli.api.lock_value(whole, j)
                                            for j in whole.joint_names if j not in moving})


#: the G1's left arm (the other 22 joints held), ``generate --kind filtered-step`` at 100 Hz
#: (2.5 s, 251 samples): a line from rest, its speed rising as t^15, still moving (slowly) at
#: its end; the Go2's front left leg on a fixed trunk (the other legs held), ``generate --kind
#: cosine`` at 100 Hz (10 s, 1001 samples; ~0.5 s retimed). Each: the robot, the motion,
#: toppra's duration (the sweep's, to the end speeds of fresh6a's outputs: 0.17424 and
#: 0.47232 s to those of the slower outputs before). (Before: the G1's 12 % slower than
#: toppra, its played law's end 3.6 % lower over its last 5 ms, reachability.lowered's
#: factor at a rest taken at a moving end; the Go2's 5.8 %, its hip's zero-inertia point,
#: where the smoothing rose 35 % beyond the hip's torque row and the factor field lowering
#: it put u 33 % beyond on its sides)
REACHABILITY_CASES = [
    pytest.param("g1_description/urdf/g1_29dof_rev_1_0.urdf", G1_ARM,
                 dict(kind="filtered-step", duration=2.5), 0.16966, id="g1-arm-filtered-step"),
    pytest.param("go2_description/urdf/go2.urdf",
                 ["FL_hip_joint", "FL_thigh_joint", "FL_calf_joint"],
                 dict(kind="cosine", duration=10.0), 0.47190, id="go2-leg-cosine"),
]


@pytest.mark.parametrize("rate", [None, 1000.0, pytest.param(1e4, marks=pytest.mark.slow)])
@pytest.mark.parametrize("relative, moving, motion, toppra", REACHABILITY_CASES)
def test_reachabilitys_law_is_within_half_a_percent_of_toppra(relative, moving, motion, toppra,
                                                           rate):
    """At the input's 100 Hz, and resampled at 1 and 10 kHz (the kernel's reach 5, 1 and 0.1
    ms): once the played law was beyond a limit at one place, and the remedy slowed far more
    than that place (reachability.within)."""
    model = _arm(relative, moving)
    traj = generate(model, motion["kind"], duration=motion["duration"], rate=100.0,
                    derivatives=4)
    out, opt = hodyn_cli.retime_optimal(model, traj, rate=rate)
    _kept_and_consistent(model, out, 20)
    assert opt.used == "reachability"
    assert opt.duration < 1.005 * toppra, opt.duration


#: arms whose torque rows' u coefficient crosses 0 along ``generate --kind cosine`` at 100 Hz
#: (10 s, 1001 samples; zero-inertia points, where such a row bounds x alone): the robot,
#: its moving joints, toppra's duration (the sweep's, 4000 intervals, hodyn's end speeds)
ZERO_INERTIA = [
    pytest.param("g1_description/urdf/g1_29dof_rev_1_0.urdf", G1_ARM, 1.2828, id="g1-arm"),
    pytest.param("icub_description/robots/icub_reduced.urdf", ICUB_ARM, 1.1593, id="icub-arm")]


@pytest.mark.parametrize("relative, moving, toppra", ZERO_INERTIA)
def test_zero_inertia_points_are_passed_within_half_a_percent_of_toppra(relative, moving,
                                                                        toppra):
    """Reachability's passes bound each interval's u by the rows of both its ends
    (toppra's interpolation): with each point's rows alone, u jumped onto and off a
    zero-inertia point's x at one grid point, which the smoothed played law could not
    follow, and the fit slowed it: 1.48 % (G1) and 1.44 % (iCub) slower than toppra,
    0.06 % each with both ends' rows (fresh6b), 0.03 % and 0.02 % with reachability.within
    too (review30)."""
    model = _arm(relative, moving)
    traj = generate(model, "cosine", duration=10.0, rate=100.0, derivatives=4)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    _kept_and_consistent(model, out, 20)
    assert opt.used == "reachability"
    assert opt.duration < 1.005 * toppra, opt.duration


def test_the_hextilt_arms_cosine_is_within_half_a_percent_of_toppra():
    """The Hextilt's five-joint flying arm (10^4 rad/s, 0.3-1 N m), ``generate --kind
    cosine`` at 100 Hz (10 s, 1001 samples; ~1.5 s retimed). Toppra to the output's end
    speeds, its velocities capped at 50 rad/s (with the URDF's 10^4 it finds no law): 1.45468
    s (1.46104 s to those of the windows' 1.5477 s output before fresh6a)."""
    model = hodyn_cli.load_robot(public_robot(
        "hextilt_description/urdf/hextilt_flying_arm_5.urdf"))
    traj = generate(model, "cosine", duration=10.0, rate=100.0, derivatives=4)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    _kept_and_consistent(model, out, 20)
    assert opt.duration < 1.005 * 1.45468, opt.duration


@pytest.mark.slow  # (~10 s: toppra's and the benchmarks' imports, toppra's own loop)
def test_the_fresh_groups_peer_is_toppras_own_loop():
    """The sweep's batched toppra (its torque constraint's parameters in three inverse
    dynamics calls, not three a grid point: 25 s a leg on the loaded VM otherwise) gives
    toppra's own duration, to the bit, on a G1 arm's curve."""
    import sys

    from conftest import ROOT

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_optimal import Curve, toppra_curve
    from stranger_optimal import toppra_batched

    model = _arm("g1_description/urdf/g1_29dof_rev_1_0.urdf", G1_ARM)
    a, b = np.full(model.n, -0.3), np.full(model.n, 0.3)
    curve = Curve(a, b, (b - a)[::-1] / 4)
    assert toppra_batched(model, curve, 0.0, 1.0, 100) == toppra_curve(model, curve, 0.0, 1.0,
                                                                       100)[0].duration


ALLEGRO_FINGER = [f"joint_{k}.0" for k in range(4)]
#: the sweep's waypoints of ``back`` (its TURNS[0] and TURNS[1], four joints): shares of each
#: joint's half range about its middle
TURNS = np.array([[-0.3, 0.2, -0.2, 0.25], [0.25, -0.15, 0.3, -0.2]])


def _allegro_path(model, path: str):
    """The Allegro hand's index finger (the other joints held) on the sweep's ``back`` (A, B,
    A, B at 1 s a leg: doubling back at each rest) or ``fstep`` (``generate --kind
    filtered-step``, 2.5 s), at 100 Hz."""
    if path == "fstep":
        return generate(model, "filtered-step", duration=2.5, rate=100.0, derivatives=4)
    low, high = model.limits[:, 0], model.limits[:, 1]
    waypoints = (low + high) / 2 + (high - low) / 2 * TURNS[[0, 1, 0, 1]]
    return generate(model, "point-to-point", waypoints=waypoints, segment_duration=[1.0],
                    rate=100.0, derivatives=4)


#: the Allegro finger's paths, the output's rate (None: the input's 100 Hz) and toppra's
#: duration (0.6, 4000 intervals: along the three legs; along the filtered step's line to the
#: output's end speed), as benchmarks/stranger_optimal.py --only fresh,allegro gave them
SHORT_LEGS = [
    pytest.param("back", None, 0.2020212, id="back-100Hz"),
    pytest.param("back", 1e3, 0.2020212, id="back-1kHz", marks=pytest.mark.slow),
    pytest.param("back", 1e4, 0.2020212, id="back-10kHz", marks=pytest.mark.slow),
    pytest.param("fstep", None, 0.0807955, id="fstep-100Hz"),
]


@pytest.mark.parametrize("path, rate, toppra", SHORT_LEGS)
def test_short_legs_at_a_coarse_output_are_within_half_a_percent_of_toppra(path, rate, toppra):
    """The finger reaches its velocity limit 0.1 ms after each rest of its ~67 ms legs: the
    kernel of its own time scale (3.37 ms either side at 100 Hz) and the corners' ramps
    (0.337 ms) cost ~0.9 ms at each rest, 3.0 % over toppra on ``back`` (1.0 % at 1 kHz,
    0.62 % at 10 kHz) and 1.2 % on ``fstep``; a time scale ten times shorter's kernel and
    ramps (optimal.FINER) 0.32 % and 0.02 %, the output within its limits and passing
    validate."""
    model = _arm("allegro_hand_description/urdf/allegro_left_hand.urdf", ALLEGRO_FINGER)
    out, opt = hodyn_cli.retime_optimal(model, _allegro_path(model, path), rate=rate)
    _kept_and_consistent(model, out, 20)
    assert opt.used == "reachability"
    assert opt.duration < 1.005 * toppra, opt.duration


#: the sweep's waypoints (its TURNS, the first three joints' shares of each joint's half
#: range about its middle) on the TriFinger's finger_edu (1000 rad/s, 1000 N m)
FINGER_TURNS = np.array([[-0.3, 0.2, -0.2], [0.25, -0.15, 0.3], [-0.1, 0.25, -0.25],
                         [0.2, -0.2, 0.15]])


def _finger_path(model, path: str, rate: float):
    """benchmarks/stranger_optimal.py's ``curve`` (``a + (b - a) p + bend sin(pi p)`` from
    rest to rest, a rest in its middle, 1 s a half: toppra passes it moving) or ``p2p``
    (``generate --kind point-to-point`` through four waypoints, 1 s legs: two corners) on the
    finger_edu at ``rate``."""
    import sys

    from conftest import ROOT

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_optimal import Curve

    low, high = model.limits[:, 0], model.limits[:, 1]
    points = (low + high) / 2 + (high - low) / 2 * FINGER_TURNS
    if path == "curve":
        a, b = points[0], points[1]
        return Curve(a, b, (b - a)[::-1] / 4).played(model.joint_names, 2, 2.0, rate)
    return generate(model, "point-to-point", waypoints=points, segment_duration=[1.0],
                    rate=rate, derivatives=4)


@pytest.mark.parametrize("path, rate, toppra", [
    pytest.param("curve", 100.0, 0.005055996, id="curve-100Hz"),
    pytest.param("p2p", 20.0, 0.009996081, id="p2p-20Hz")])
def test_a_law_shorter_than_an_output_step_is_within_half_a_percent_of_toppra(path, rate,
                                                                            toppra):
    """The finger_edu crosses the sweep's curve in 5.06 ms (toppra, 4000 intervals, along the
    whole curve) and its three legs in 10.0 ms: the output at 100 (20) Hz samples its two
    rests alone, q' = 0 at both, and validate judges q' against the difference of q over that
    one step by the jerk at the rests (the trapezoid rule's error, ``h^2 / 12 |q'''|``). The
    rests' warps (reachability._start) gave that jerk for the output's step, not for the
    shorter step the samples are apart (the whole motion): a quarter (a 25th) of what it
    needs there: ``hodyn retime`` kept the windows' 12.9 ms on the curve (validate failed
    reachability's law at every smoothing; in process a slower smoothing's 6.32 ms passed),
    the uniform scaling's 18.5 ms on the legs. Each joint's error within half its own
    allowance, the warps' margin (reachability.MARGIN; 0.46 on the curve, 0.18 on the legs),
    not only the ratio of both to q''s rounding at the rests (validate's scales)."""
    model = hodyn_cli.load_robot(public_robot("finger_edu_description/robots/finger_edu.urdf"))
    # (the rate asked: by default such a law is sampled finer, optimal.output_rate)
    out, opt = hodyn_cli.retime_optimal(model, _finger_path(model, path, rate), rate=rate)
    assert opt.used == "reachability"
    assert opt.duration < 1.005 * toppra, opt.duration
    _kept_and_consistent(model, out, 2)
    assert out.n_samples == 2  # (the rests alone)
    (q, qd, _, jerk, _), h = out.derivatives.transpose(1, 0, 2), out.t[1] - out.t[0]
    assert np.abs(qd).max() < 1e-9
    allowance = 10 * h**2 / 12 * np.abs(jerk).max(axis=0)
    assert np.all(np.abs(q[1] - q[0]) / h < allowance / reachability.MARGIN)
