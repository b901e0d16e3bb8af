"""With limits of higher orders (jerk, torque rate, torque acceleration), ``retime --optimal``
starts and ends a motion at rest without a jump of acceleration (issue 37): a robot held
before the motion has q'' = 0, and the law's path acceleration at the rest (reachability's
fastest law from rest accelerates at once) would make its first sample's q'' a step from 0,
an infinite jerk, what Franka's controller refuses. Reachability's law is ramped at the
motion's own rests as at its corners (``reachability.played``'s ``ramped``; the ramp's rise
from ``rates.rise``, its ceiling from ``rates.cornered``)."""

from pathlib import Path

import numpy as np
import pytest

import hodyn_cli
from conftest import bench_p2p, hodyn_here
from hodyn_cli.algorithms.planning.generate import generate

URDF = Path(__file__).resolve().parents[1] / "urdf"


def _held(out, jerk: np.ndarray, scale: np.ndarray) -> None:
    """At both ends the motion is at rest with q'' and q''' at 0 (against ``scale``, the
    largest |q''| of the motion), and the jerk a held robot needs to follow its first and
    last output steps, ``|q''| / h`` there, is within the limits (1 % for the sampled
    ramp's own rise over a step)."""
    D, t = out.derivatives, out.t
    speed = np.abs(D[:, 1]).max(axis=0)
    for end, step in ((0, t[1] - t[0]), (-1, t[-1] - t[-2])):
        assert np.all(np.abs(D[end, 1]) <= 1e-12 * speed), (end, D[end, 1])
        assert np.all(np.abs(D[end, 2]) <= 1e-9 * scale), (end, D[end, 2])
        assert np.all(np.abs(D[end, 3]) <= 1e-6 * jerk), (end, D[end, 3])
        neighbour = 1 if end == 0 else -2
        assert np.all(np.abs(D[neighbour, 2]) / step <= 1.01 * jerk), (end, D[neighbour, 2])


def test_the_panda_leaves_and_reaches_its_rests_without_a_step_of_acceleration():
    """The Panda's point-to-point motion through a corner (100 Hz) with its published limits
    (urdf/panda_limits.toml: jerk and torque rates among them), by reachability: q'' and
    q''' vanish at its start and end (q'' was 4.3-11 rad/s^2 there before: the law's own
    acceleration), the law within every limit at every sample and passing validate; its
    corner's and its ends' ramps (their step flat over all but a sixth of its rise at each
    end, rates.shape: the jerk binds them) cost ~21 ms each: 1.9711 s (1.9935 s with the
    step flat over its middle third, 1.9555 s with the steps from rest; 2.0447 s with the
    single step's ramps, 40 ms each)."""
    model, limits, out, opt = bench_p2p("panda", 0.6, "panda_limits.toml")
    jerk = limits.bands["jerk"][:, 1]
    _held(out, jerk, np.abs(out.derivatives[:, 2]).max(axis=0))
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    assert hodyn_cli.validate_motion(model, out, samples=30).passed
    assert opt.duration == pytest.approx(1.9711, rel=2e-3)


def test_a_two_link_leg_from_rest_starts_at_rest_in_acceleration_too(tmp_path):
    """The command line on a 2R leg from rest to rest (1 kHz) with --jerk 50: the output's
    first and last samples have q'' = 0 (the law kept before, 0.666 s, started at q'' = 8.93
    rad/s^2: a held robot's infinite jerk; auto now keeps the windows' 0.868 s, which
    reachability's ramped law, 5.45 times its passes' law, does not beat). In this process
    (hodyn_here: three Python starts and imports were ~0.8 s of the test's CPU)."""
    points = tmp_path / "waypoints.csv"
    points.write_text("joint1,joint2\n0,0\n1.0,0.3\n")
    leg, out = tmp_path / "leg.csv", tmp_path / "out.csv"
    robot = str(URDF / "planar_2r.urdf")
    for args in (["generate", robot, "--kind", "point-to-point", "--waypoints", str(points),
                  "--segment-duration", "0.3", "--rate", "1000", "--allow-limit-violation",
                  "-o", str(leg)],
                 ["retime", robot, str(leg), "--optimal", "--jerk", "50", "-o", str(out)],
                 ["validate", robot, str(out)]):
        run = hodyn_here(*args, "-q")
        assert run.returncode == 0, (args[0], run.stderr)
    data = np.genfromtxt(out, delimiter=",", names=True)
    t = data["t"]
    for joint in ("joint1", "joint2"):
        qd, qdd = data[f"qd_{joint}"], data[f"qdd_{joint}"]
        assert abs(qd[0]) <= 1e-12 * np.abs(qd).max() and abs(qd[-1]) <= 1e-12 * np.abs(qd).max()
        assert abs(qdd[0]) <= 1e-9 * np.abs(qdd).max() and abs(qdd[-1]) <= 1e-9 * np.abs(qdd).max()
        assert abs(qdd[1]) / (t[1] - t[0]) <= 50 * 1.01 and abs(qdd[-2]) / (t[-1] - t[-2]) <= 50.5
    assert t[-1] == pytest.approx(0.86763, rel=1e-4)  # (the windows' law; 0.87061 before test_wingap18)


def _passes(model, traj, limits, grid: int) -> tuple:
    """Reachability's passes' laws on ``traj`` played as they are, and the limits at an
    arc's grid points (as ``optimal._rated`` gives :mod:`rates`)."""
    from dataclasses import replace

    from hodyn_cli.algorithms.limits import rates, reachability
    from hodyn_cli.algorithms.limits.programme import path_limits
    from hodyn_cli.core.trajectory import Trajectory

    found = reachability.solve(model, traj, rates.affine(limits), grid)
    assert found is not None

    def at(arc, a: int, b: int) -> list:
        sigma = arc.sigma[a:b]
        return path_limits(model, Trajectory(traj.joint_names, arc.jet(sigma, 6), sigma),
                           limits, 2)

    return [(arc, replace(law, played=law.x)) for arc, law in found], at


def _iiwa_p2p_passes() -> tuple:
    """:func:`_passes` of the iiwa's point-to-point motion through three waypoints (legs of
    0.8 s at 50 Hz) with its limits file, on 400 intervals."""
    model = hodyn_cli.load_robot(str(URDF / "iiwa14.urdf"))
    waypoints = np.array([[0, 0.3, 0, -1.2, 0, 0.8, 0], [1.0, 0.8, 0.5, -0.6, 0.4, 1.2, 0.6],
                          [0.2, 0.1, -0.3, -1.5, -0.2, 0.5, -0.4]])
    traj = generate(model, "point-to-point", waypoints=waypoints, derivatives=4,
                    segment_duration=0.8, rate=50.0)
    return _passes(model, traj, hodyn_cli.joint_limits(model, URDF / "iiwa14_limits.toml"), 400)


def test_the_ramps_step_is_flat_where_jerk_binds_them_least_curved_where_cut_ones_hold_torque_accelerations():
    """rates.shape: on the UR5's corner with --jerk 500 the flattest-topped step (1/6 of the
    rise to turn at each end; its rise 0.224 s, the 1/3 one's 0.280 s, the single step's
    0.408 s: the jerk binds); on the iiwa's point-to-point motion with its limits file the
    least curved, flat over none of its rise (its ramps cut short to fit legs of ~0.85 s,
    and torque accelerations limited there: retimed at 1 kHz, 1.7716 s with the single step
    against 1.9764 s with the 1/3 flat one, though the flat one's rise, 0.356 s against 0.519
    s, is the shorter)."""
    from test_rates import _ur5_corners

    from hodyn_cli.algorithms.limits import rates
    from hodyn_cli.algorithms.limits.ramps import FLAT, FLATS

    model, traj, limits = _ur5_corners()
    pieces, at = _passes(model, traj, limits, 1500)
    assert rates.rise(pieces, at, 0.0, FLAT) < 0.7 * rates.rise(pieces, at, 0.0, 0.0)
    assert rates.shape(pieces, at) == min(FLATS)
    pieces, at = _iiwa_p2p_passes()
    assert rates.rise(pieces, at, 0.0, FLAT) < rates.rise(pieces, at, 0.0, 0.0)
    assert rates.cornered(pieces, at, FLAT)[1] > 1  # (cut short)
    assert rates.shape(pieces, at) == max(FLATS)


@pytest.mark.slow
@pytest.mark.parametrize("rate", [5000.0, 10_000.0])
def test_on_5_and_10_khz_outputs_the_ramps_are_the_single_step_s_and_pass_validate(rate):
    """The Panda's point-to-point motion with its limits file at 5 and 10 kHz, by
    reachability: its ramps the single step's (optimal._rated: the flat one only at 1 kHz
    or coarser), q'' = 0 at both ends, the output within its limits and passing validate
    (1.594 s; 1.5174 s with the steps of acceleration at its ends). At 5 kHz it failed,
    1.2 times validate's tolerance for q^(4), the rounds' averages rippling it
    (tests/test_rates_swept.py), and reachability refused the input."""
    model = hodyn_cli.load_robot(str(URDF / "panda.urdf"))
    waypoints = np.array([[0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785],
                          [1.0, -0.3, 0.5, -1.8, 0.4, 2.0, 1.2],
                          [-0.5, 0.2, -0.4, -2.2, -0.3, 1.2, 0.3]])
    traj = generate(model, "point-to-point", waypoints=waypoints, derivatives=4,
                    segment_duration=0.6, rate=rate)
    limits = hodyn_cli.joint_limits(model, URDF / "panda_limits.toml")
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
    assert all(len(ramp.joins) == 2 for _, warped, _ in opt.source.laws
               for ramp in warped.warps)  # (the single step's: its rise and its tail)
    _held(out, limits.bands["jerk"][:, 1], np.abs(out.derivatives[:, 2]).max(axis=0))
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    assert hodyn_cli.validate_motion(model, out, samples=30).passed
    assert opt.duration == pytest.approx(1.594, rel=2e-3)
