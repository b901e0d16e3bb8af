"""``--solver auto``'s windows after reachability (limits of higher orders, the slack beyond
``optimal.SLACK``) stop where their law cannot be the shorter (:meth:`Optimal._hopeless`: a
plan more than ``FIT`` longer than reachability's law is not followed by the replans more
constrained than it; their last resort, the uniform scaling, is not made): the output is
then reachability's, and ``--solver windows`` alone is indeed not shorter. Where the windows'
law is shorter, nothing stops them. Through the real command line, on the iiwa's 1 s cosine
path at 20 Hz (21 samples) and the UR10's point-to-point path (slow)."""

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF
from conftest import optimal_notice as notice
from hodyn_cli.algorithms.limits import optimal
from hodyn_cli.cli.app import app

IIWA = URDF / "iiwa14.urdf"
#: torque rates below gravity's own rate along the cosine: the windows' law 1.3 % shorter
#: (2.397 s against reachability's 2.428 s, the sequential programmes' raise of the rounds')
RATES_25 = "".join(f"[joints.iiwa_joint_{i}]\ntorque_rate = 25.0\n" for i in range(1, 8))


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def attrs(out) -> dict:
    with h5py.File(out) as f:
        return dict(f.attrs)


@pytest.fixture(scope="module")
def cosine(tmp_path_factory):
    path = tmp_path_factory.mktemp("paths") / "q4.h5"
    res = run("generate", IIWA, "--kind", "cosine", "--duration", 1, "--rate", 20, "-o", path)
    assert res.exit_code == 0, res.output
    return path


@pytest.fixture
def stops(monkeypatch):
    """The windows' solves that auto stopped (each: the duration to beat)."""
    stopped: list[float] = []
    windows = optimal.Optimal._windows

    def spied(self, chunks):
        try:
            return windows(self, chunks)
        except optimal._Longer:
            stopped.append(self.beat)
            raise

    monkeypatch.setattr(optimal.Optimal, "_windows", spied)
    return stopped


def test_a_plan_more_than_fit_longer_than_the_law_to_beat_is_hopeless():
    """The rule's direction: past ``beat / (1 - FIT)`` the windows stop, short of it they go
    on, and with nothing to beat (``--solver windows``) never."""
    import hodyn_cli
    from hodyn_cli.modeling.limits import joint_limits

    model = hodyn_cli.load_robot(str(IIWA))
    solver = optimal.Optimal(model, joint_limits(model), 2)
    edge = 2.0 / (1 - optimal.FIT)
    solver._hopeless(1e9)  # (nothing to beat)
    solver.beat = 2.0
    solver._hopeless(edge * (1 - 1e-9))
    with pytest.raises(optimal._Longer):
        solver._hopeless(edge * (1 + 1e-9))


#: the UR10's point-to-point path through three waypoints (shares of each joint's range
#: about its middle), 1.5 s a leg at 100 Hz, as benchmarks/bench_optimal_rates.py's ur10-p2p
TURNS = [[-0.3, 0.2, -0.2, 0.25, -0.2, 0.2], [0.25, -0.15, 0.3, -0.2, 0.25, -0.2],
         [-0.1, 0.25, -0.25, 0.1, -0.3, 0.1]]


@pytest.mark.slow
def test_where_the_windows_lose_auto_keeps_reachabilitys_law_bit_for_bit(
        tmp_path, stops, monkeypatch):
    """The UR10's point-to-point path with a jerk of 300 rad/s^3: auto runs the windows after
    reachability's law (1.81678 s) and writes what ``--solver reachability`` writes, bit for
    bit; ``--solver windows`` alone is longer (1.90363 s). (FIT at 1 %; the windows run as on
    a path without corners: ``SLACK``, its slack 1.26 within ``CORNERED_SLACK``, where auto
    runs none now.) Before each stretch between rests had its own cap (windows19) the first
    plan, at the whole path's cap of 8, was 1.907 s as planned, more than FIT longer than
    reachability's law, and auto stopped the windows there (``_hopeless``); at the stretches'
    caps it is 1.581 s as planned, nothing stops it, and its fit comes out longer
    (tests/test_windows18.py has the windows given up)."""
    monkeypatch.setattr(optimal, "FIT", 0.01)
    monkeypatch.setattr(optimal, "CORNERED_SLACK", optimal.SLACK)
    import csv

    from test_base_parameters import public_robot

    import hodyn_cli

    robot = public_robot("ur_description/urdf/ur10_robot.urdf")
    model = hodyn_cli.load_robot(str(robot))
    low, high = model.limits[:, 0], model.limits[:, 1]
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    points, path = tmp_path / "points.csv", tmp_path / "p2p.h5"
    with open(points, "w", newline="") as f:
        csv.writer(f).writerows([model.joint_names, *(middle + half * np.array(TURNS))])
    res = run("generate", robot, "--kind", "point-to-point", "--waypoints", points,
              "--segment-duration", 1.5, "--rate", 100, "--allow-limit-violation", "-o", path)
    assert res.exit_code == 0, res.output
    outs = {s: tmp_path / f"{s}.h5" for s in ("auto", "reachability", "windows")}
    for s, out in outs.items():
        notice(run("retime", robot, path, "--optimal", "--jerk", 300, "--solver", s, "-o",
                   out), path)
    auto, alone, windows = (attrs(outs[s]) for s in ("auto", "reachability", "windows"))
    assert stops == [] and list(auto["solvers_run"]) == ["reachability", "windows"]
    assert windows["duration"] > auto["duration"] == alone["duration"]
    with h5py.File(outs["auto"]) as f, h5py.File(outs["reachability"]) as g:
        assert all(np.array_equal(f[k][()], g[k][()]) for k in g)


@pytest.mark.slow
def test_where_the_windows_law_is_shorter_nothing_stops_them(cosine, tmp_path, stops):
    """Torque rates of 25 N m/s: the programmes' law 3.16 times its passes', the windows'
    0.8 % shorter than reachability's (2.397 s against 2.416 s: 2.673 s before the
    programmes kept every slower playing within the limits, sequential._slower); auto runs
    them to their law (none stopped) and keeps it, what ``--solver windows`` alone writes."""
    limits = tmp_path / "rates.toml"
    limits.write_text(RATES_25)
    outs = {s: tmp_path / f"{s}.h5" for s in ("auto", "reachability", "windows")}
    for s, out in outs.items():
        notice(run("retime", IIWA, cosine, "--optimal", "--limits", limits, "--solver", s,
                   "-o", out), cosine)
    auto, alone, windows = (attrs(outs[s]) for s in ("auto", "reachability", "windows"))
    assert not stops and auto["solver"] == "windows"
    assert auto["duration"] == windows["duration"] < alone["duration"]


def test_on_a_path_with_corners_and_jerks_alone_a_slack_within_cornered_runs_no_windows(
        tmp_path):
    """The two-link arm's point-to-point path through three waypoints (two legs of 0.5 s at
    20 Hz) with a jerk of 2000 rad/s^3: reachability's law 1.37 times its passes' (beyond
    SLACK, within CORNERED_SLACK), a corner at its middle rest, jerks alone, a coarse output:
    auto runs no windows after it (main ran them, 0.7 s of CPU, for a law 94 % longer:
    the windows' are held by their kink ceiling at the corner, 1.692 s against 0.874 s)."""
    import csv

    import hodyn_cli
    from hodyn_cli.io import read_trajectory

    robot = URDF / "planar_2r.urdf"
    model = hodyn_cli.load_robot(str(robot))
    low, high = model.limits[:, 0], model.limits[:, 1]
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    points, path = tmp_path / "points.csv", tmp_path / "p2p.h5"
    with open(points, "w", newline="") as f:
        csv.writer(f).writerows([model.joint_names,
                                 *(middle + half * np.array(TURNS)[:, :model.n])])
    res = run("generate", robot, "--kind", "point-to-point", "--waypoints", points,
              "--segment-duration", 0.5, "--rate", 20, "--allow-limit-violation", "-o", path)
    assert res.exit_code == 0, res.output
    motion, limits = read_trajectory(str(path), model), {j: {"jerk": 2000.0}
                                                         for j in model.joint_names}
    _, auto = hodyn_cli.retime_optimal(model, motion, limits=limits)
    assert auto.ran == ("reachability",) and auto.needed == optimal.CORNERED_SLACK
    assert optimal.SLACK < auto.slack <= optimal.CORNERED_SLACK
    _, windows = hodyn_cli.retime_optimal(model, motion, limits=limits, solver="windows")
    assert windows.used == "windows" and windows.duration > 1.5 * auto.duration


def test_the_slack_needed_is_cornered_with_corners_jerks_alone_and_a_coarse_output():
    """CORNERED_SLACK only where all three hold; a torque rate, one piece or a 1 kHz
    output: SLACK."""
    import hodyn_cli

    model = hodyn_cli.load_robot(str(URDF / "planar_2r.urdf"))
    jerk = hodyn_cli.joint_limits(model, {j: {"jerk": 50.0} for j in model.joint_names})
    rate = hodyn_cli.joint_limits(model, {"joint1": {"jerk": 50.0, "torque_rate": 100.0}})
    needed = optimal._needed_slack
    assert needed(2, 100.0, jerk) == optimal.CORNERED_SLACK > optimal.SLACK
    assert needed(1, 100.0, jerk) == needed(2, 1000.0, jerk) == needed(2, 100.0, rate) == \
        optimal.SLACK
