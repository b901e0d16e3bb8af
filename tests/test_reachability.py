"""``retime --optimal`` by reachability along the path's arc length (``--solver auto``,
hodyn_cli/algorithms/limits/reachability.py): its controllable sets against toppra's own on
the same path, its durations against toppra's from rest to rest, its output within the
limits and passing ``hodyn validate``, and where it does not apply."""
import h5py
import numpy as np
import pytest
from test_base_parameters import public_robot
from test_optimal import IIWA, IIWA_REST, _toppra_lines, run

import hodyn_cli
from conftest import URDF, peak_rss_mib, toppra_torque
from hodyn_cli import api
from hodyn_cli.algorithms.limits import bsplines, reachability, stored
from hodyn_cli.algorithms.limits.programme import path_limits
from hodyn_cli.algorithms.limits.stored import Stored
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.limits import joint_limits


def _through(model, waypoints, seconds=3.0, rate=100.0):
    """``generate --kind point-to-point``: from rest to rest through the waypoints (q' ~ s^4
    at each)."""
    return generate(model, "point-to-point", waypoints=np.stack(waypoints), derivatives=4,
                    segment_duration=[seconds] * (len(waypoints) - 1), rate=rate)


def test_controllable_sets_match_toppra():
    """The backward pass's controllable sets K_i on a straight line of the iiwa from rest to
    rest (in its arc length, 200 grid intervals) are toppra's own on the same path, grid,
    limits and discretisation (collocation), to 1e-6 of their largest value."""
    ta = pytest.importorskip("toppra")
    import toppra.algorithm as algo
    import toppra.constraint as constraint

    model = hodyn_cli.load_robot(IIWA)
    traj = _through(model, IIWA_REST)
    (arc,) = reachability.arcs(traj, 200, 100)
    assert arc.rest == (True, True)
    rows = reachability.rows(path_limits(model, arc.trajectory(model.joint_names),
                                         joint_limits(model), 0))
    K = reachability.controllable(rows, np.diff(arc.sigma), (0.0, 0.0))

    class Along(ta.interpolator.AbstractGeometricPath):
        def __call__(self, s, order=0):
            return arc.shape(np.atleast_1d(np.asarray(s, dtype=float)), order)

        @property
        def dof(self):
            return model.n

        @property
        def path_interval(self):
            return arc.sigma[[0, -1]]

    ta.setup_logging("WARNING")
    vel, eff = model.velocity_limits, model.effort_limits
    cs = [constraint.JointVelocityConstraint(np.column_stack([-vel, vel])),
          toppra_torque(model, np.column_stack([-eff, eff]), "Collocation")]
    peer = algo.TOPPRA(cs, Along(), gridpoints=arc.sigma).compute_controllable_sets(0.0, 0.0)
    assert np.abs(K - peer).max() <= 1e-6 * np.nanmax(peer), np.abs(K - peer).max()
    law = reachability.greedy(rows, np.diff(arc.sigma), K, 0.0, arc.sigma)
    assert np.all(law.x >= K[:, 0] - 1e-9) and np.all(law.x <= K[:, 1] + 1e-9)


def test_interpolated_rows_give_toppras_interpolation_sets():
    """Each interval's u within the rows of both its ends (:func:`reachability.interpolated`,
    as ``retime --optimal`` passes velocity and torque limits): the controllable sets on the
    iCub's left arm's cosine (free ends, 200 grid intervals, the others held) are toppra's
    own with its interpolation discretisation, to 1e-6 of their largest value; its
    collocation's (each point's rows alone) are up to 50 % of it larger there."""
    ta = pytest.importorskip("toppra")
    import toppra.algorithm as algo
    import toppra.constraint as constraint
    from test_optimal_fresh_robots import ICUB_ARM, _arm

    from hodyn_cli.algorithms.planning.generate import generate

    model = _arm("icub_description/robots/icub_reduced.urdf", ICUB_ARM)
    (arc,) = reachability.arcs(generate(model, "cosine", duration=10.0, rate=100.0,
                                        derivatives=3), 200, 200)
    assert arc.rest == (False, False)
    rows = reachability.rows(path_limits(model, arc.trajectory(model.joint_names),
                                         joint_limits(model), 0))
    delta, end = np.diff(arc.sigma), 30.0  # (the last point's x within 0 .. end^2)
    K = reachability.controllable(reachability.interpolated(rows, delta), delta,
                                  (0.0, end**2))
    ta.setup_logging("WARNING")
    vel, eff = model.velocity_limits, model.effort_limits
    peers = {}
    for scheme in ("Interpolation", "Collocation"):
        cs = [constraint.JointVelocityConstraint(np.column_stack([-vel, vel])),
              toppra_torque(model, np.column_stack([-eff, eff]), scheme)]
        peers[scheme] = algo.TOPPRA(cs, _Along(arc, model.n), gridpoints=arc.sigma
                                    ).compute_controllable_sets(0.0, end)
    # (toppra's last set is the end's range as given; ours within the limits there too)
    peer, K = peers["Interpolation"][:-1], K[:-1]
    assert np.abs(K - peer).max() <= 1e-6 * np.nanmax(peer), np.abs(K - peer).max()
    assert np.abs(peers["Collocation"][:-1] - peer).max() > 0.2 * np.nanmax(peer)


def _Along(arc, dof):  # noqa: N802 - toppra's geometric path of an arc (made on use)
    import toppra as ta

    class Along(ta.interpolator.AbstractGeometricPath):
        def __call__(self, s, order=0):
            return arc.shape(np.atleast_1d(np.asarray(s, dtype=float)), order)

        @property
        def dof(self):
            return dof

        @property
        def path_interval(self):
            return arc.sigma[[0, -1]]

    return Along()


def test_a_straight_line_from_rest_to_rest_is_within_half_a_percent_of_toppra():
    """The iiwa's 3 s line from rest to rest (velocity and torque limits, the URDF's): within
    0.5 % of toppra's duration on the line parametrised by its length (the linear
    programmes in the input's time: 6.9 %, their law held near the rests), the output within
    its limits, at exactly 1/rate, and passing hodyn validate at 1 kHz (100 Hz: the next
    test; 10 kHz: the slow sweep)."""
    model = hodyn_cli.load_robot(IIWA)
    traj = _through(model, IIWA_REST)
    peer = _toppra_lines(model, np.stack(IIWA_REST))
    out, opt = hodyn_cli.retime_optimal(model, traj, rate=1e3)
    assert opt.used == "reachability"
    assert abs(opt.duration / peer - 1) < 0.005, (opt.duration, peer)
    assert hodyn_cli.check_limits(model, out).feasible
    report = hodyn_cli.validate_motion(model, out, samples=50)
    assert report.passed, [c for c in report.checks if c.status == "fail"]
    assert np.abs(np.diff(out.t)[:-1] - 1e-3).max() < 1e-9
    assert np.abs(out.derivatives[[0, -1], 1]).max() < 1e-12  # from rest, to rest


def test_a_rest_where_the_path_goes_on_is_passed_not_stopped_at():
    """Through a waypoint at rest halfway along the line (the path goes on in the same
    direction): one piece, and the law passes the waypoint moving, within 0.5 % of toppra's
    along the line without it (at 100 Hz: within its limits, passing validate); a
    waypoint off the line is a corner: two pieces, each from rest to rest (the next
    test)."""
    model = hodyn_cli.load_robot(IIWA)
    a, b = IIWA_REST
    stop = _through(model, [a, (a + b) / 2, b])
    assert len(reachability.arcs(stop, 400, 200)) == 1
    out, through = hodyn_cli.retime_optimal(model, stop)
    assert through.used == "reachability"
    peer = _toppra_lines(model, np.stack(IIWA_REST))
    assert abs(through.duration / peer - 1) < 0.005, (through.duration, peer)
    _kept_and_consistent(model, out, 50)
    middle = np.argmin(np.abs(out.t - out.t[-1] / 2))
    assert np.linalg.norm(out.derivatives[middle, 1]) > 0.5 * np.abs(
        out.derivatives[:, 1]).max()
    corner = _through(model, [a, (a + b) / 2 + (b - a)[::-1] / 4, b])
    pieces = reachability.arcs(corner, 400, 200)
    assert [p.rest for p in pieces] == [(True, True), (True, True)]


def test_a_corner_is_within_half_a_percent_of_toppra_and_smooth_through_it():
    """Through a waypoint off the line, at rest (the path turns there: a corner; the bench's
    part 4): by reachability, each leg from rest to rest, within 0.5 % of toppra's two lines
    (0.14 %, 0.3 % with a ramp of 2.5 ms; the windows of linear programmes took 20 %), within
    its limits, passing
    validate at 100 Hz. At the corner the played motion's q' .. q^(4) are 0, and near it,
    on both sides, q^(k) ~ |t - t_c|^(6 - k) (sigma ~ tau^6: the ramp; without it q'' jumps
    from one leg's deceleration to the other's acceleration)."""
    model = hodyn_cli.load_robot(IIWA)
    a, b = IIWA_REST
    waypoints = [a, (a + b) / 2 + (b - a)[::-1] / 4, b]
    traj = _through(model, waypoints)
    out, opt = hodyn_cli.retime_optimal(model, traj, solver="reachability")
    peer = _toppra_lines(model, np.stack(waypoints))
    assert abs(opt.duration / peer - 1) < 0.005, (opt.duration, peer)
    _kept_and_consistent(model, out, 50)
    found = reachability.solve(model, traj, joint_limits(model), 400)
    rise = 2e-2
    motion = _whole(reachability.played(found, traj.orders, traj.joint_names, rise=rise))
    d, t = motion.derivatives, motion.t
    speed = np.linalg.norm(d[:, 1], axis=1)
    inside = np.flatnonzero(speed[1:-1] == 0) + 1
    assert len(inside) == 1  # the corner, a point of the motion
    c = inside[0]
    top = np.abs(d[:, 1:]).max(axis=(0, 2))
    assert np.all(np.abs(d[c, 1:]).max(axis=1) < 1e-15 * top)
    for near, next_ in ((c - 1, c - 2), (c + 1, c + 2)):  # q^(k) ~ |t - t_c|^(6 - k)
        assert abs(t[near] - t[c]) < rise / 10
        power = np.log(np.linalg.norm(d[next_, 1:], axis=1) / np.linalg.norm(
            d[near, 1:], axis=1)) / np.log((t[next_] - t[c]) / (t[near] - t[c]))
        assert np.allclose(power, [5, 4, 3, 2], atol=0.5), power  # (no ramp: 1, 0, 0, 0)


def _kept_and_consistent(model, out: Trajectory, samples) -> None:
    """The output within every limit (recomputed by ``check``) and passing ``validate``
    (``samples`` of its samples judged)."""
    assert hodyn_cli.check_limits(model, out).feasible
    assert hodyn_cli.validate_motion(model, out, samples=samples).passed


def _whole(played: reachability.Played | None) -> Trajectory:
    """The motion a :class:`reachability.Played` makes, its chunks joined."""
    assert played is not None
    chunks = list(played)
    return Trajectory(played.names, np.concatenate([c.derivatives for c in chunks]),
                      np.concatenate([c.t for c in chunks]))


def test_a_corner_at_20_hz_is_within_half_a_percent_of_toppra_and_its_ramp_is_short():
    """issue 37: the Panda's corner (0.75 s legs) given and retimed at 20 Hz: within 0.5 % of
    toppra's two lines (0.27 %; 1.32 % when the ramp rose over a quarter of the smoothing's
    reach and that reach was a 50 ms step: 12.5 ms of ramp, 3.7 ms of smoothing), within its
    limits, passing validate. The ramp rises over :data:`reachability.RAMP` at every rate:
    the played motion's q''' and q'''' within it are at most 2.19 |q''| / rise and 7.52
    |q''| / rise^2 (the step's largest r_0' and |r_0''|, :data:`reachability.RAMP`; 2.18 and
    7.50 here), and the corner costs about the rise (half of it on each side,
    :class:`~hodyn_cli.algorithms.limits.ramps.Ramp`)."""
    model = hodyn_cli.load_robot(URDF / "panda.urdf")
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
    waypoints = [a, (a + b) / 2 + (b - a)[::-1] / 4, b]
    traj = _through(model, waypoints, 0.75, 20.0)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    peer = _toppra_lines(model, np.stack(waypoints))
    assert opt.used == "reachability"
    assert abs(opt.duration / peer - 1) < 0.005, (opt.duration, peer)
    _kept_and_consistent(model, out, 20)
    reach, rise = reachability.kernel(1, 20.0)
    found = reachability.solve(model, traj, joint_limits(model), reachability.POINTS)
    sharp, smooth = (_whole(reachability.played(found, traj.orders, traj.joint_names, 0.0,
                                                reach, r)) for r in (rise, 1e-3 * rise))
    assert 0.9 * rise < sharp.t[-1] - smooth.t[-1] < 1.1 * rise
    d = sharp.derivatives
    corner = sharp.t[np.flatnonzero(np.abs(d[1:-1, 1]).max(axis=1) == 0)[0] + 1]
    near = np.abs(sharp.t - corner) < rise
    top = np.abs(d[near, 2]).max()
    assert np.abs(d[near, 3]).max() <= 2.19 * top / rise
    assert np.abs(d[near, 4]).max() <= 7.52 * top / rise**2


def test_a_path_longer_than_it_holds_goes_to_the_windows(monkeypatch):
    """Reachability holds the whole path (~1-1.9 kB a sample): an input longer than
    MOST_SAMPLES goes to the windows of linear programmes, which hold a chunk (auto), or
    is refused in one line (--solver reachability)."""
    model = hodyn_cli.load_robot(IIWA)
    traj = _through(model, IIWA_REST, seconds=1.0, rate=20.0)
    monkeypatch.setattr(reachability, "MOST_SAMPLES", traj.n_samples - 1)
    reason = api.time_optimal(model)._reachability(lambda: [traj])  # (auto: the windows)
    assert reason == f"{traj.n_samples} samples, more than the {traj.n_samples - 1} reachability takes"
    with pytest.raises(HodynError, match=reason):
        hodyn_cli.retime_optimal(model, traj, solver="reachability")


def test_smoothing_keeps_rests_and_straight_laws():
    """The kernel keeps a law linear in sigma as it is (x = 0 at a rest stays 0: the ends are
    reflected through their value) and smooths a kink over SMOOTH intervals either side
    (rounded up to PASSES box filters), and over ``reach`` seconds at the law's speed."""
    sigma = np.linspace(0.0, 1.0, 101)
    linear = reachability.Law(sigma, 3 * sigma, np.full(100, 1.5))
    assert np.allclose(reachability.smoothed(linear), 3 * sigma, atol=1e-14)
    tent = reachability.Law(sigma, np.minimum(sigma, 1 - sigma), np.zeros(100))
    x = reachability.smoothed(tent)
    assert x[0] == 0 and abs(x[-1]) < 1e-14
    reach = reachability.PASSES * -(-reachability.SMOOTH // reachability.PASSES)
    changed = np.flatnonzero(np.abs(x - tent.x) > 1e-14)
    assert 50 - reach <= changed.min() < 50 - reach // 2 and 50 + reach // 2 < changed.max() <= 50 + reach
    flat = reachability.Law(sigma, np.full(101, 0.25), np.zeros(100))  # sqrt(x) = 0.5
    bump = reachability.Law(sigma, flat.x + (np.arange(101) == 50), np.zeros(100))
    x = reachability.smoothed(bump, reach=0.4)  # 0.4 s at 0.5 /s: 0.2, 20 intervals
    changed = np.flatnonzero(np.abs(x - flat.x) > 1e-14)
    assert 50 - changed.min() <= 20 + reachability.PASSES and changed.max() - 50 >= 16


def test_cli_solver(tmp_path):
    """--solver: the HDF5 output records which solver made it; one line and exit 2 for a
    solver that does not exist and for --solver without --optimal."""
    model = hodyn_cli.load_robot(IIWA)
    src = tmp_path / "line.h5"
    write_trajectory(str(src), _through(model, IIWA_REST))
    out = tmp_path / "fast.h5"
    res = run("retime", IIWA, src, "--optimal", "-o", out, "-q")
    assert res.exit_code == 0, res.output
    with h5py.File(out) as f:
        assert f.attrs["solver"] == "reachability"
    for args, words in ((["--optimal", "--solver", "simplex"], "--solver must be one of"),
                        (["--to-limits", "--solver", "auto"], "--solver goes with --optimal")):
        res = run("retime", IIWA, src, *args, "-o", tmp_path / "x.h5")
        assert res.exit_code == 2 and words in res.output
        assert len(res.output.strip().splitlines()) == 1, res.output
        assert not (tmp_path / "x.h5").exists()


#: the public arms of benchmarks/bench_optimal.py part 4 and their rests (None: a third into
#: each joint's range from its ends)
ARMS = [("iiwa14", IIWA_REST), ("panda", None), ("ur_description/urdf/ur5_robot.urdf", None),
        ("xarm_description/urdf/xarm7.urdf", None)]


@pytest.mark.slow
@pytest.mark.parametrize("robot, rests", ARMS)
def test_rest_paths_of_public_arms_within_half_a_percent_of_toppra(robot, rests):
    """From rest to rest along a straight line (3 s and 10 s designs, 100 Hz; the 3 s one
    played at 10 kHz too), along the line with a rest halfway, and through a corner (a
    waypoint off the line, at rest: toppra's two lines its peer): within 0.5 % of toppra
    (4000 grid intervals), by reachability, within the limits and passing hodyn validate."""
    model = hodyn_cli.load_robot(public_robot(robot) if "/" in robot else URDF / f"{robot}.urdf")
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    a, b = rests or (lo + (hi - lo) / 3, hi - (hi - lo) / 3)
    corner = (a + b) / 2 + (b - a)[::-1] / 4
    line = _toppra_lines(model, np.stack([a, b]), 4000)
    legs = _toppra_lines(model, np.stack([a, corner, b]), 4000)
    cases = [([a, b], 3.0, None, line), ([a, b], 10.0, None, line),
             ([a, (a + b) / 2, b], 3.0, None, line), ([a, b], 3.0, 1e4, line),
             ([a, corner, b], 3.0, None, legs)]
    for waypoints, seconds, rate, peer in cases:
        out, opt = hodyn_cli.retime_optimal(model, _through(model, waypoints, seconds),
                                            rate=rate)
        assert opt.used == "reachability"
        assert abs(opt.duration / peer - 1) < 0.005, (waypoints, seconds, opt.duration, peer)
        _kept_and_consistent(model, out, 50)


@pytest.mark.slow
@pytest.mark.parametrize("robot", ["panda", "ur_description/urdf/ur5_robot.urdf"])
@pytest.mark.parametrize("rate", [20.0, 100.0, 1e3, 1e4])
def test_outputs_pass_validate_at_every_input_rate(robot, rate):
    """A line (1.5 s design) and a corner (0.75 s legs) given at 20 Hz .. 10 kHz, retimed at
    the input's rate: by reachability, within the limits, passing hodyn validate, within
    0.5 % of toppra (at 20 Hz the Panda's corner was 1.4 % when the smoothing reached a
    step of 50 ms and the corner's ramp a quarter of it)."""
    model = hodyn_cli.load_robot(public_robot(robot) if "/" in robot else URDF / f"{robot}.urdf")
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
    corner = (a + b) / 2 + (b - a)[::-1] / 4
    for waypoints, seconds in (([a, b], 1.5), ([a, corner, b], 0.75)):
        out, opt = hodyn_cli.retime_optimal(model, _through(model, waypoints, seconds, rate))
        assert opt.used == "reachability"
        _kept_and_consistent(model, out, 50)
        peer = _toppra_lines(model, np.stack(waypoints))  # (1000 intervals: 0.01 % off)
        assert abs(opt.duration / peer - 1) < 0.005, (opt.duration, peer)


def test_a_turn_back_between_samples_is_a_corner():
    """review4: a path that doubles back (180 degrees) at a momentary rest that falls between
    the input's samples (q = a (1 - cos wt) at 20 Hz, its top between two samples, and
    between two of the table's points, 5 ms apart: at a period of 2.03 s its top, 1.015 s, is
    one of them, at rest, and the path is cut there): no point of the arc-length table is at
    rest, but the direction reverses, so it is a corner (two
    pieces), and ``--optimal`` leaves it to the linear programmes. Before, it was taken as
    one smooth piece: the 20 Hz output reversed from +4.6 to -3.4 rad/s in one step with
    qdd ~ -60 (qdddd 1.4e9), 0.445 s where the same law at 1 kHz takes 0.565 s."""
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    w = 2 * np.pi / 2.031
    t = np.arange(41) / 20.0
    d = np.stack([0.5 * (1 - np.cos(w * t)), 0.5 * w * np.sin(w * t),
                  0.5 * w**2 * np.cos(w * t), -0.5 * w**3 * np.sin(w * t),
                  -0.5 * w**4 * np.cos(w * t)], axis=1)
    cusp = Trajectory(("joint1", "joint2"), np.stack([d, 0.5 * d], axis=2), t)
    assert len(reachability.arcs(cusp, 400, 200)) == 2
    assert api.time_optimal(model)._reachability(lambda: [cusp]) == (  # (auto: the windows)
        "the path turns back between samples, not at a rest")


def test_a_played_law_that_is_refused_falls_back_to_the_windows():
    """review4: the gripper arm's Fourier motion (generate, 2 s at 20 Hz, seed 0) retimed
    at --rate 1000: the reachability law played at 1 ms steps is not consistent enough, and
    its inner fit refused it as if it were the input ("qdddd_shoulder_pitch does not follow
    from qddd_shoulder_pitch ... near t = 0.553171 s", exit 2; the input passes validate).
    That smoothing is one that does not pass: the next, wider one does (1.117 s, within the
    limits, passing validate), never slower than the windows (1.1255 s)."""
    model = hodyn_cli.load_robot(URDF / "gripper_arm.urdf")
    traj = generate(model, "fourier", duration=2.0, rate=20.0, derivatives=4)
    out, through = hodyn_cli.retime_optimal(model, traj, rate=1000.0)
    assert through.used == "reachability"
    assert through.duration < 1.1255
    _kept_and_consistent(model, out, 50)



def _zigzag(model, legs=30):
    """From rest to rest through 31 waypoints drawn in the middle third of the joints' range
    (seed 1), legs of 0.3 s at 100 Hz: a corner at each."""
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    rng = np.random.default_rng(1)
    waypoints = [lo + (hi - lo) * (0.35 + 0.3 * rng.random(model.n)) for _ in range(legs + 1)]
    return waypoints, _through(model, waypoints, 0.3)


def test_each_leg_between_corners_has_a_fine_grid():
    """review6: the default grid (4000 intervals) was shared among the pieces in proportion
    to their length: the 30 legs of a zigzag had ~133 each, and the smoothing, which reaches
    SMOOTH intervals at least, took ~6 % of each leg (the next test); each has PIECE at
    least now, a single piece the grid asked for."""
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    _, traj = _zigzag(model)
    pieces = reachability.arcs(traj, reachability.POINTS)
    assert len(pieces) == 30
    assert min(len(arc.sigma) - 1 for arc in pieces) == reachability.PIECE
    (line,) = reachability.arcs(_through(model, [np.zeros(2), np.ones(2)]), 200)
    assert len(line.sigma) == 201


@pytest.mark.slow
def test_a_zigzag_of_many_corners_is_within_a_margin_of_half_a_percent_of_toppra():
    """review6, issue 37: the iiwa's zigzag through 31 waypoints (30 corners, 100 Hz): within
    0.35 % of toppra's 30 lines (1000 intervals each; 0.25 %, 0.10 % with the kernels of a
    time scale ten times shorter tried too: optimal.FINER), within its limits and passing
    validate: it was 3.8 % slower with ~133 grid intervals a leg, 0.73 % with 1000 and ramps
    of 2.5 ms (72 ms in all; 0.5 ms now), 0.45 % while the final fit's one scaling paid for
    the kernel's average u at a rest above the u allowed there (0.5 % of a torque limit:
    :func:`reachability.lowered` keeps each end's slope at most the law's now). What is
    left: the smoothing of each leg's switches (a leg reaches its velocity limit within ~4 ms
    of its rests: the played motion 0.22 % beyond toppra) and the final fit."""
    model = hodyn_cli.load_robot(IIWA)
    waypoints, traj = _zigzag(model)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    assert opt.used == "reachability"
    peer = _toppra_lines(model, np.stack(waypoints))
    assert abs(opt.duration / peer - 1) < 0.0035, (opt.duration, peer)
    _kept_and_consistent(model, out, 50)


def _cosine(model, samples):
    """``generate --kind cosine`` of the iiwa at 100 Hz, q .. qdddd."""
    return generate(model, "cosine", duration=samples / 100.0, rate=100.0, derivatives=4)


def test_a_cosine_is_within_four_hundredths_of_a_percent_of_toppra():
    """issue 37: the smoothed law above the law where it turns from braking to speeding up
    is lowered there only (:func:`reachability.lowered`), not the whole law by the final
    fit's one scaling: the iiwa's cosine over 1000 samples is within 0.04 % of toppra on
    the same path, grid and end speeds (0.012 %; it was 0.075 % off, 0.12 % at 3000
    samples, 0.33 % at 10^4, 2.1 % at 10^5), within its limits and passing validate."""
    _cosine_against_toppra(1000, validated=20, within=4e-4)


def _cosine_against_toppra(samples: int, validated: int, within: float) -> None:
    """The iiwa's cosine of ``samples`` retimed by reachability: within its limits, passing
    validate (on ``validated`` samples), its final scaling within 1e-4 of 1 (the law lowered
    locally, not scaled as a whole: docs/feasibility.md) and ``within`` (relative) of
    toppra's duration on the same path, grid and end speeds."""
    from test_optimal import toppra_duration
    model = hodyn_cli.load_robot(IIWA)
    traj = _cosine(model, samples)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    assert opt.used == "reachability"
    _kept_and_consistent(model, out, validated)
    assert abs(opt.scale * opt.final.k - 1) < 1e-4, (opt.scale, opt.final.k)
    sd = (traj.t[-1] - traj.t[0]) / opt.uniform_duration
    vel = model.velocity_limits
    _, peer = toppra_duration(model, traj, np.column_stack([-vel, vel]),
                              np.column_stack([-model.effort_limits, model.effort_limits]),
                              sd, sd, grid=opt.path.grid - 1)
    assert abs(opt.duration / peer.duration - 1) < within, (opt.duration, peer.duration)


def test_the_lowering_is_local_smooth_and_below_the_law():
    """The factor field f of :func:`reachability.lowered` on a law with a valley (x = |sigma
    - 1/2| + 0.1, smoothed: above it near 1/2): f <= x / smooth where smooth > x, f = 1
    beyond twice the reach from there, and its k-th differences within ``2^(k-1) d / n^k``
    (d: its depth, n: the moving averages' width; each average's difference is a
    difference of two values over n) for k = 1 .. PASSES: as smooth as the kernel."""
    sigma = np.linspace(0.0, 1.0, 1001)
    law = reachability.Law(sigma, np.abs(sigma - 0.5) + 0.1, np.zeros(1000))
    smooth = reachability.smoothed(law, reach=0.0)
    reach = 40
    low = reachability.lowered(law.x, smooth, reach)
    f = low / smooth
    above = smooth > law.x
    assert above.any() and np.all(low[above] <= law.x[above] * (1 + 1e-12))
    near = np.flatnonzero(above)
    far = (np.arange(1001) < near.min() - 2 * reach) | (np.arange(1001) > near.max() + 2 * reach)
    assert np.all(f[far] == 1.0) and np.all(f <= 1.0)
    depth, n = 1 - f.min(), 2 * (reach // reachability.PASSES) + 1
    assert depth > 1e-3
    for k in range(1, reachability.PASSES + 1):
        assert np.abs(np.diff(f, k)).max() <= 2 ** (k - 1) * depth / n**k * (1 + 1e-9), k
    flat = reachability.lowered(law.x, np.minimum(smooth, law.x), reach)
    assert np.array_equal(flat, np.minimum(smooth, law.x))  # (nothing above: as it was)


def test_a_leg_shorter_than_the_kernel_is_smoothed_within_it():
    """review: a piece shorter than the kernel (a 0.1 s leg at 100 Hz) was left unsmoothed,
    its kinks in the output; the kernel is clipped to the piece: the kink smoothed, the ends
    (a rest's x = 0) kept."""
    sigma = np.linspace(0.0, 1.0, 21)
    tent = reachability.Law(sigma, np.minimum(sigma, 1 - sigma), np.zeros(20))
    x = reachability.smoothed(tent, reach=10.0)  # 10 s at the law's speed: far beyond it
    assert x[0] == 0 and abs(x[-1]) < 1e-14
    assert x[10] < tent.x[10] - 0.05  # the kink's top rounded off
    assert np.all(reachability.widths(tent, 10.0) * reachability.PASSES + 2 < len(sigma))


@pytest.mark.slow
def test_ten_thousand_samples_of_a_cosine_are_within_a_twentieth_of_a_percent_of_toppra():
    """issue 37: the iiwa's cosine over 10^4 samples (30 004 grid points) within 0.05 % of
    toppra on the same path, grid and end speeds (0.014 %; 0.33 % with the final fit's one
    scaling of the whole law), within its limits and passing validate. (10^5 samples:
    0.015 %, benchmarks/README.md; toppra takes ~9 minutes there.)"""
    _cosine_against_toppra(10_000, validated=50, within=5e-4)


def test_the_played_motion_is_made_chunk_by_chunk_and_not_held(monkeypatch):
    """issue 37 item 4 (memory bounded): the reachability law's motion, which the final fits
    and the output play, is made afresh chunk by chunk of at most PLAYED grid points at each
    pass (:class:`reachability.Played`), the same to the last bit however it is cut (its
    times too, summed BLOCK intervals at a time); it holds nothing a grid point in memory
    beyond its arc's grid (the smoothed law's spline: its coefficients, sigma and t on disk,
    its knots the arc's grid; its time derivatives made chunk by chunk), not the
    motion's orders times joints (35 here: 84 MB at 10^5 samples): within KEPT bytes the
    whole motion is kept read-only as its first pass made it, a longer one is written to
    disk by its first whole pass and read back at the next ones (``stored``); either way the
    next passes make nothing (no jet composed again) and are the same numbers as made
    afresh; the result keeps it as its source, not a list of its chunks."""
    monkeypatch.setattr(stored, "ON_DISK", 0)  # (every array on disk, as a long path's)
    model = hodyn_cli.load_robot(IIWA)
    traj = _cosine(model, 100)
    found = reachability.solve(model, traj, joint_limits(model), 500)
    whole = list(reachability.played(found, traj.orders, traj.joint_names, 0.0, 0.01))
    block, chunk = reachability.BLOCK, reachability.PLAYED
    monkeypatch.setattr(reachability, "BLOCK", 64)
    monkeypatch.setattr(reachability, "PLAYED", 64)  # (the played motion's own chunks)
    size = sum(c.derivatives.nbytes + c.t.nbytes for c in whole)
    composed = [0]
    compose = reachability.compose

    def counted(*args):
        composed[0] += 1
        return compose(*args)

    monkeypatch.setattr(reachability, "compose", counted)
    for kept in (False, True):  # KEPT: a byte short of the motion, then all of it
        monkeypatch.setattr(reachability, "KEPT", size - (not kept))
        played = reachability.played(found, traj.orders, traj.joint_names, 0.0, 0.01)
        assert played is not None
        composed[0] = 0
        first = list(played)
        made = composed[0]
        again = list(played)  # (iterated twice: read from disk, or kept)
        assert composed[0] == made == len(first)  # (the second pass made nothing)
        assert len(first) > 5 and max(c.n_samples for c in first) <= 64
        assert all((a is b) == kept for a, b in zip(first, again, strict=True))
        assert len(played.kept) == kept * len(first) and not any(
            c.derivatives.flags.writeable or c.t.flags.writeable for c in played.kept)
        assert len(played.stored) == (not kept)
        for chunks in (first, again):
            assert np.array_equal(np.concatenate([c.derivatives for c in chunks]),
                                  np.concatenate([c.derivatives for c in whole]))
            assert np.array_equal(np.concatenate([c.t for c in chunks]),
                                  np.concatenate([c.t for c in whole]))
    assert all(isinstance(a, Stored) and a._memory is None for _, warped, _ in played.laws
               for a in (warped.sigma, warped.t, warped.x.coefficients))  # (on disk)
    assert all(warped.x.sigma is arc.sigma for arc, warped, _ in played.laws)
    # (its own BLOCK: chunks of 64 make the whole retime's passes 14 times as costly, 4 s)
    monkeypatch.setattr(reachability, "BLOCK", block)
    monkeypatch.setattr(reachability, "PLAYED", chunk)
    _, opt = hodyn_cli.retime_optimal(model, traj)
    assert opt.used == "reachability" and isinstance(opt.source, reachability.Played)


def test_the_passes_rows_are_made_once_a_piece_and_read_back_from_disk(monkeypatch):
    """issue 37 item 4 (a 10^5-sample path in <= 30 s): :func:`reachability.along` makes
    each piece's rows once, in the backward pass, and the forward pass reads them back from
    disk (made again there, they were a tenth of a 10^5-sample path's CPU with limits of
    higher orders): on a grid of several pieces (BLOCK 64) ``rows_at`` is called once a
    piece, and the law is the same to the bit as where the forward pass makes them again."""
    monkeypatch.setattr(stored, "ON_DISK", 0)  # (the rows on disk, as a long path's)
    monkeypatch.setattr(reachability, "BLOCK", 64)
    model = hodyn_cli.load_robot(IIWA)
    traj = _cosine(model, 100)
    limits = joint_limits(model)
    [arc] = reachability.arcs(traj, 500)
    calls: list[tuple[int, int]] = []

    def rows_at(a: int, b: int) -> reachability.Rows:
        calls.append((a, b))
        return reachability.arc_rows(model, arc, traj.joint_names, a, b, limits)

    law = reachability.along(arc, rows_at)
    pieces = -(-(len(arc.sigma) - 1) // 64)
    assert pieces > 5 and len(calls) == len(set(calls)) == pieces

    class Again(reachability._RowsOnDisk):  # (the forward pass makes them again)
        def write(self, at: int, r: reachability.Rows) -> None:
            self.whole = False

    monkeypatch.setattr(reachability, "_RowsOnDisk", Again)
    calls.clear()
    again = reachability.along(arc, rows_at)
    assert len(calls) == 2 * pieces
    assert law is not None and again is not None
    for mine, theirs in ((law.x, again.x), (law.u, again.u)):
        assert np.array_equal(np.asarray(mine[:]), np.asarray(theirs[:]))


def test_the_velocity_bound_halfway_is_made_without_the_dynamics(monkeypatch):
    """reachability._midway (the velocity rows halfway between grid points, made at every
    piece of every pass) takes no inverse dynamics (torque order -1): the same bound to the
    bit as path_limits to torque order 0 gives there."""
    from dataclasses import replace

    from hodyn_cli.algorithms.dynamics import body_fixed

    model = hodyn_cli.load_robot(IIWA)
    traj = _cosine(model, 100)
    limits = joint_limits(model)
    [arc] = reachability.arcs(traj, 500)
    a, b = 0, len(arc.sigma)
    mid = (arc.sigma[a : b - 1] + arc.sigma[a + 1 : b]) / 2
    free = np.array([-np.inf, np.inf])
    speeds = replace(limits, bands={k: band if k == "velocity" else np.broadcast_to(
        free, band.shape) for k, band in limits.bands.items()})
    full = reachability.rows(path_limits(model, Trajectory(traj.joint_names, arc.jet(mid, 3),
                                                           mid), speeds, 0)).top
    calls = []
    dynamics = body_fixed.inverse_dynamics

    def counted(*args, **kwargs):
        calls.append(1)
        return dynamics(*args, **kwargs)

    monkeypatch.setattr(body_fixed, "inverse_dynamics", counted)
    top = reachability._midway(model, arc, traj.joint_names, a, b, limits,
                               reachability.GRAVITY)
    assert not calls and np.isfinite(top).all()
    assert np.array_equal(top, full)


def test_a_pass_made_while_another_is_made_keeps_the_motion_once():
    """A played motion within KEPT whose first pass is still being made when a whole second
    pass is made (a consumer that reads the whole motion inside its own loop over it): the
    motion is kept once, and the next pass is the motion, not it twice (each pass had added
    its chunks to the kept list: twice as many chunks, the times running back to 0)."""
    model = hodyn_cli.load_robot(IIWA)
    traj = _cosine(model, 100)
    found = reachability.solve(model, traj, joint_limits(model), 500)
    played = reachability.played(found, traj.orders, traj.joint_names, 0.0, 0.01)
    assert played is not None
    outer = iter(played)
    first = [next(outer)]
    inner = list(played)  # (a whole pass while the first is under way: kept)
    first += list(outer)
    again = list(played)
    assert len(first) == len(inner) == len(again)
    assert all(a is b for a, b in zip(inner, again, strict=True))
    assert np.all(np.diff(np.concatenate([c.t for c in again])) >= 0)


@pytest.mark.slow
def test_ten_to_the_fifth_samples_are_within_three_hundredths_of_a_percent_of_toppra(tmp_path):
    """issue 37 item 4: the iiwa's cosine over 10^5 samples at 100 Hz, file to file (~15 s
    of CPU, 193 MB; 253 MB holding the input path, 35 s and 536 MB before the chunked
    playing), by reachability on its
    300 004 grid points, within 0.03 % of toppra's 767.155 s on the same grid
    (benchmarks/README.md; toppra takes ~13 minutes: its number is fixed here; 767.244 s,
    0.012 %, measured), within its limits (recomputed by check) and passing validate."""
    src, out = tmp_path / "in.h5", tmp_path / "out.h5"
    for args in (("generate", IIWA, "--kind", "cosine", "--duration", 1000, "-o", src),
                 ("retime", IIWA, src, "--optimal", "-o", out)):
        res = run(*args, "-q")
        assert res.exit_code == 0, res.output
    with h5py.File(out) as f:
        # (3 grid points a sample, and a point every 0.005 rad where the cosine turns by more
        # than 8 times that within a uniform interval, borinot19: 300 663)
        assert f.attrs["solver"] == "reachability"
        assert 300_004 <= f.attrs["grid_points"] <= 1.01 * 300_004
        assert 0 <= f.attrs["duration"] / 767.155 - 1 < 3e-4, f.attrs["duration"]
    for command in ("check", "validate"):  # (exit 1: beyond a limit, or inconsistent)
        res = run(command, IIWA, out)
        assert res.exit_code == 0, res.output


@pytest.mark.slow
def test_the_memory_of_a_long_path_levels_off(tmp_path):
    """issue 37 item 4 (memory bounded): ``retime --optimal`` by reachability on the iiwa's
    cosine (100 Hz, q..qdddd) in a process of its own: its peak RSS at 3 x 10^5 samples
    within 150 MiB of that at 3 x 10^4 (the input read chunk by chunk, the played law 4
    numbers a grid point, the splines solved in blocks: 176-180 and 240 MiB measured; 575
    MiB at 3 x 10^5 when reachability held the whole path and the law's time derivatives),
    the law's grid 3 points a sample at both (and 0.2 % more where the path turns sharply)."""
    rss = []
    for samples in (30_000, 300_000):
        src, out = tmp_path / f"in{samples}.h5", tmp_path / f"out{samples}.h5"
        res = run("generate", IIWA, "--kind", "cosine", "--duration", samples // 100, "-o",
                  src, "-q")
        assert res.exit_code == 0, res.output
        rss.append(peak_rss_mib(["retime", str(IIWA), str(src), "--optimal", "-q", "-o",
                                 str(out)]))
        with h5py.File(out) as f:
            assert f.attrs["solver"] == "reachability"
            # (and where the cosine turns sharply, a point every 0.005 rad: borinot19)
            assert 3 * samples + 4 <= f.attrs["grid_points"] <= 1.01 * (3 * samples + 4)
    assert rss[1] < rss[0] + 150, rss


def test_a_one_point_dip_of_the_law_is_not_a_ceiling():
    """review9: the forward pass's u is bound at its interval's left point only, so at a
    sharp turn of the limits it can brake onto the next grid point and speed up again (x
    4.08, 0, 2.82 on a 12-harmonic Fourier path of the iiwa); :func:`reachability.lowered`
    took that point as a ceiling and stopped the played law there (1e145 s), so
    ``--solver reachability`` refused the path and auto fell back to the windows (7.25 s,
    17 % slower than the 6.19 s before the lowering). Such a dip is filled as the kernel
    fills it (a point below half its neighbours: :data:`reachability.DIP`): the law
    lowered to its neighbours' level there, not to 0."""
    sigma = np.linspace(0.0, 1.0, 201)
    x = 1.0 + 0.5 * np.sin(3 * sigma)
    x[100] = 0.0
    law = reachability.Law(sigma, x, np.zeros(200))
    smooth = reachability.smoothed(law, reach=0.0)
    low = reachability.lowered(x, smooth, 16)
    assert low[100] > 0.5 and np.all(low > 0.5)
    model = hodyn_cli.load_robot(IIWA)
    traj = generate(model, "fourier", duration=10.0, rate=100.0, derivatives=4, harmonics=12,
                    base_frequency=0.3)
    out, opt = hodyn_cli.retime_optimal(model, traj, solver="reachability")
    assert opt.used == "reachability" and opt.duration < 6.19, opt.duration
    _kept_and_consistent(model, out, 20)


def test_the_smoothed_law_has_no_spikes_where_its_kernel_narrows():
    """issue 37: the kernel's half-widths were whole numbers of grid intervals, stepping by
    one where the law's speed (and with it the reach in sigma) changes, most near the ends
    of legs (from ~12 to 1): each step a jump of the smoothed x, and the played motion's
    q'''' up to 7e7 rad/s^4 on the iiwa's corner at 100 Hz (60 and 330 times ``|q''| /
    reach^2`` at a reach of 1 and 2 steps; the Panda's 875 times at 2). Now a smooth field
    of fractional widths (:func:`reachability.widths`): outside the corner's ramps q''''
    within 10 times that scale (4.6-4.9 here)."""
    model = hodyn_cli.load_robot(IIWA)
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    a, b = lo + (hi - lo) / 3, hi - (hi - lo) / 3
    traj = _through(model, [a, (a + b) / 2 + (b - a)[::-1] / 4, b], 0.75)
    found = reachability.solve(model, traj, joint_limits(model), reachability.POINTS)
    for steps in (1, 2):
        reach, rise = reachability.kernel(steps, 100.0)
        motion = _whole(reachability.played(found, traj.orders, traj.joint_names, 0.0, reach,
                                             rise))
        d = motion.derivatives
        corner = motion.t[np.flatnonzero(np.abs(d[1:-1, 1]).max(axis=1) == 0) + 1]
        assert len(corner) == 1
        ramps = np.abs(motion.t - corner[0]) < 20 * rise  # (the ramp's tail: ramps.TAIL)
        scale = np.abs(d[:, 2]).max() / reach**2
        assert np.abs(d[~ramps, 4]).max() <= 10 * scale, (steps, np.abs(d[~ramps, 4]).max()
                                                           / scale)


def test_the_smoothed_law_leaves_a_rest_no_faster_than_the_law():
    """issue 37: at a rest x = 0, so the limits bound u alone, and the kernel's average of the
    u near it was above the u allowed at the rest where that grows along the path (the
    iiwa's zigzag: 254.9 where 253.7 was the torque limit, which the final fit paid with
    0.21 % of the whole motion). The lowered law's slope at each end (the cubic's through
    its four points there, as its spline takes it) is at most the law's: at the start its
    first u (bound there), at the end its last u carried on to the end point (the forward
    pass binds u at an interval's first point)."""
    sigma = np.linspace(0.0, 1.0, 201)
    h = sigma[1]
    limit = 2 + 40 * sigma[:-1]  # |u| allowed at each interval's first point, from the rest
    x = np.concatenate([[0.0], np.minimum(np.cumsum(2 * h * limit), 0.1)])
    x = np.minimum(x, x[::-1])  # the end the start's mirror: |u| allowed falls to 2 there
    # (the factor's own slope over the cubic's points: within 1e-4 of the bound)
    law = reachability.Law(sigma, x, np.diff(x) / (2 * h))
    smooth = reachability.smoothed(law)
    low = reachability.lowered(x, smooth, reachability.PASSES * 2)
    # the end's own slope: 4 at the start; at the far end its last u carried on, 3.6 (review14:
    # 4 there, as before, passed without the end slopes too: the ceiling's lowering gave 3.996)
    tail = x[::-1]
    carried = min(tail[1] - tail[0], 2 * (tail[1] - tail[0]) - (tail[2] - tail[1])) / h
    for ends, bound in ((slice(None, 4), 4.0), (slice(None, -5, -1), carried)):
        assert reachability.end_slope(smooth[ends]) / h > 4 * 1.05  # (the kernel's: 4.24)
        assert reachability.end_slope(low[ends]) / h <= bound * (1 + 1e-4), (bound, low[ends])
    assert abs(carried - 3.6) < 1e-9


def test_the_arcs_of_a_path_read_chunk_by_chunk_are_those_of_the_whole_path(monkeypatch):
    """issue 37 item 4 (memory bounded): the arcs (the arc-length table, the corners, the
    shape's points) are made from the input read chunk by chunk, each chunk joined to the
    last sample of the one before, never the whole path: the same to the bit as from the
    path whole, however it is cut (chunks of one sample and empty ones too), read four
    times at most on a path with corners (the table; the directions about its rests; the
    shape's points; the shape held to the path), its :class:`reachability.Table`, shape
    points and shape coefficients on disk (ON_DISK 0), read in blocks of 70 points (BLOCK),
    each shape fitted in blocks of 20 points (SOLVE_BLOCK) from the points on disk: in memory
    the table holds the points where the direction reverses alone."""
    monkeypatch.setattr(bsplines, "SOLVE_BLOCK", 20)
    monkeypatch.setattr(bsplines, "OVERLAP", 20)
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    _, traj = _zigzag(model, legs=4)
    whole = reachability.arcs(traj, 400)
    n = traj.n_samples
    cuts = [0, 1, 1, 2, 37, 38, n // 2, n // 2 + 1, n - 1, n, n]
    passes = []

    def chunks():
        passes.append(1)
        return [traj.rows(slice(a, b)) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]

    monkeypatch.setattr(reachability, "BLOCK", 70)
    monkeypatch.setattr(stored, "ON_DISK", 0)
    monkeypatch.setattr(stored, "TAKEN", 5)
    pieces = reachability.arcs(chunks, 400)
    assert len(passes) == 4 and len(pieces) == len(whole) == 4
    for mine, theirs in zip(pieces, whole, strict=True):
        assert mine.rest == theirs.rest == (True, True)
        assert np.array_equal(mine.sigma, theirs.sigma)
        assert np.array_equal(mine.shape.c, theirs.shape.c)
        assert np.array_equal(mine.shape.t, theirs.shape.t)
    assert all(arc.coefficients._memory is None for arc in pieces)
    table = reachability.lengths(chunks)
    assert table.points._memory is None and table.points.shape == (2 * n - 1, 4)
    assert table.reverses.nbytes < 8 * 8 * (len(pieces) - 1)  # (a corner's point or two)


def test_the_splines_solved_block_by_block_are_the_whole_solution(monkeypatch):
    """issue 37 item 4 (memory bounded): the smoothed law's quintic spline (its ends' slope
    and curvature) and the shape's spline of degree 7 (not-a-knot, a curve) are solved in
    blocks of SOLVE_BLOCK points overlapping by OVERLAP (their banded systems over the whole
    grid or path were a long path's peaks of memory, ~100 bytes a point): the same knots,
    and coefficients and derivatives those of the whole system's solution to rounding
    (found equal to the bit), on 5003 points cut into blocks of 700, and where the last
    block would be shorter than the overlap."""
    rng = np.random.default_rng(3)
    for n in (5003, 5003 - 700 + 100):
        sigma = np.linspace(0.0, 7.0, n)
        x = 2 + np.sin(3 * sigma) + 0.3 * np.cos(17 * sigma) + 1e-3 * rng.standard_normal(n)
        curve = np.stack([x, np.cos(sigma) + 1e-3 * rng.standard_normal(n)], axis=1)
        at = np.sort(rng.uniform(0.0, 7.0, 2000))
        for make, args in ((reachability.law_spline, (sigma, x)),
                           (bsplines.in_blocks, (sigma, curve, 7))):
            whole = make(*args)
            monkeypatch.setattr(bsplines, "SOLVE_BLOCK", 700)
            blocked = make(*args)
            monkeypatch.undo()
            assert np.array_equal(blocked.t, whole.t) and blocked.c.shape == whole.c.shape
            assert np.abs(blocked.c - whole.c).max() <= 1e-12 * np.abs(whole.c).max()
            for nu in range(5):
                assert np.allclose(blocked(at, nu), whole(at, nu), rtol=0, atol=1e-10 * np.abs(
                    whole(at, nu)).max())


def test_the_windows_motion_is_played_to_its_end_however_the_input_is_cut():
    """The windows' motion (``Plan.played``) reads the input's chunks joined by the helper
    reachability's readers use (:func:`reachability.overlapping`): an empty chunk or one of
    a single sample, last or inside, changes nothing: the same times to the bit, the same
    values within 1e-14 of each order's largest (an empty last chunk lost the output's last
    sample). (Not to the bit: numpy's vectorized functions round a chunk's tail as its scalar
    loop does, 1 ulp apart; a C-ordered input meets it where a transposed view did not.)"""
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    traj = generate(model, "cosine", duration=1.0, rate=20.0, derivatives=4)
    out, opt = hodyn_cli.retime_optimal(model, traj, solver="windows")
    n = traj.n_samples
    for cuts in ([0, n, n], [0, 1, 1, 9, 10, n - 1, n, n]):
        pieces = list(opt.retimed([traj.rows(slice(a, b))
                                   for a, b in zip(cuts[:-1], cuts[1:], strict=True)]))
        assert np.array_equal(np.concatenate([p.t for p in pieces]), out.t), cuts
        joined = np.concatenate([p.derivatives for p in pieces])
        scale = np.abs(out.derivatives).max(axis=(0, 2), keepdims=True)
        assert np.all(np.abs(joined - out.derivatives) <= 1e-14 * scale), cuts


def _reflected(x, pad, odd):
    """x reflected through its ends, ``pad`` points either side (the whole array's)."""
    a, b = x[pad:0:-1], x[-2:-pad - 2:-1]
    if odd:
        a, b = 2 * x[0] - a, 2 * x[-1] - b
    return np.concatenate([a, x, b])


def _swept_whole(x, half, odd=True):
    """The moving average of x's interpolant over ``half`` intervals either side, from the
    whole reflection's running integral (the formula before it was made block-wise)."""
    pad = int(np.ceil(half.max())) + 1
    v = _reflected(x, pad, odd)
    total = np.concatenate([[0.0], np.cumsum((v[:-1] + v[1:]) / 2)])

    def integral(y):
        k = np.minimum(np.floor(y).astype(int), len(v) - 2)
        f = y - k
        return total[k] + v[k] * f + (v[k + 1] - v[k]) * f * f / 2

    centre = np.arange(len(x)) + float(pad)
    return (integral(centre + half) - integral(centre - half)) / (2 * half)


def _averaged_whole(x, width, odd=True):
    """One moving average over ``width`` points either side, the whole reflection's."""
    total = np.concatenate([[0.0], np.cumsum(_reflected(x, width + 1, odd))])
    i = np.arange(len(x)) + width + 1
    return (total[i + width + 1] - total[i - width]) / (2 * width + 1)


@pytest.mark.parametrize("on_disk", [0, stored.ON_DISK])
def test_the_smoothing_made_block_by_block_is_the_same_to_the_bit(monkeypatch, on_disk):
    """issue 37 item 4 (memory bounded): the moving averages (:func:`reachability.swept`,
    the factor field's in :func:`reachability.lowered` and :func:`reachability.beneath`, the
    half-widths of :func:`reachability.widths`) and the smoothed law made a block at a time,
    each average from the one before it on disk (or in memory below ON_DISK), its running
    integral carried across the blocks, are the whole reflection's to the bit (its running
    sum made at once, the formulas before), in blocks of 7 and 70 (every seam inside the
    kernel's reach, and one block), on random laws with a rest and a dip."""
    monkeypatch.setattr(stored, "ON_DISK", on_disk)
    rng = np.random.default_rng(5)
    sigma = np.linspace(0.0, 2.0, 301)
    x = np.abs(np.cumsum(rng.standard_normal(301))) + 0.1
    x[[0, 150]] = 0.0, 0.2 * x[149]  # (a rest and a dip: lowered's ceilings)
    law = reachability.Law(sigma, x, np.diff(x) / (2 * np.diff(sigma)))
    half = 1.0 + 6.0 * rng.random(301)
    passes = reachability.PASSES

    def smoothing():
        smooth = reachability.smoothed(law, 0.05)
        return (reachability.swept(x, half), reachability.swept(x, half, odd=False), smooth,
                reachability.lowered(x, smooth, 24), reachability.widths(law, 0.05),
                reachability.beneath(x, 3))

    theirs = _swept_whole(x, half), _swept_whole(x, half, odd=False)
    factor = x
    for _ in range(passes):
        factor = _averaged_whole(factor, 3, odd=False)
    whole = smoothing()
    assert np.array_equal(whole[0], theirs[0]) and np.array_equal(whole[1], theirs[1])
    assert np.array_equal(whole[5], reachability.beneath(x, 3))
    least = reachability.least(x, 3 * passes)
    for _ in range(passes):
        least = _averaged_whole(least, 3, odd=False)
    assert np.array_equal(whole[5], least)
    for block in (7, 70):
        monkeypatch.setattr(reachability, "BLOCK", block)
        for mine, theirs in zip(smoothing(), whole, strict=True):
            assert np.array_equal(mine, theirs)
    assert not np.array_equal(whole[3], whole[2])  # (lowered somewhere: its averages ran)


def test_the_law_s_spline_on_disk_is_the_whole_one_to_the_bit(monkeypatch):
    """issue 37 item 4: the played law's spline keeps its coefficients on disk and takes its
    knots from the law's grid (:class:`reachability.LawSpline`): its window over any span
    (within a piece, across pieces, at the ends) has the whole spline's knots and
    coefficients, so the same numbers, solved in blocks of SOLVE_BLOCK points or at once."""
    monkeypatch.setattr(stored, "ON_DISK", 0)
    rng = np.random.default_rng(7)
    sigma = np.linspace(0.0, 3.0, 2001)
    x = 2 + np.sin(3 * sigma) + 1e-3 * rng.standard_normal(len(sigma))
    for block in (bsplines.SOLVE_BLOCK, 700):
        monkeypatch.setattr(bsplines, "SOLVE_BLOCK", block)
        whole = reachability.law_spline(sigma, x)
        mine = reachability._law_spline(sigma, stored.Stored.of(x))
        assert mine.coefficients._memory is None
        assert np.array_equal(mine.coefficients[:], whole.c)
        for lo, hi in ((0.0, 3.0), (0.0, 0.0), (3.0, 3.0), (sigma[5], sigma[5]),
                       (0.1234, 0.1301), (sigma[700], sigma[1500]), (2.99, 3.0)):
            window, theirs = mine.window(lo, hi), whole.window(lo, hi)
            assert np.array_equal(window.t, theirs.t) and np.array_equal(window.c, theirs.c)
            at = np.linspace(lo, hi, 7)
            for nu in range(6):
                assert np.array_equal(window(at, nu), whole(at, nu))


def test_a_path_with_corners_is_played_with_the_kernels_ramp_by_default():
    """review22: :func:`reachability.played`'s default rise was 0, and a path with a corner
    played with it divided by zero (``reachability._ramp``: ZeroDivisionError); the default
    is :func:`reachability.kernel`'s rise, the motion that rise gives to the bit."""
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    _, traj = _zigzag(model, legs=2)
    found = reachability.solve(model, traj, joint_limits(model), 200)
    assert found is not None and len(found) == 2
    _, rise = reachability.kernel(2, 100.0)
    given = _whole(reachability.played(found, traj.orders, traj.joint_names, 0.0, 0.01, rise))
    default = _whole(reachability.played(found, traj.orders, traj.joint_names, 0.0, 0.01))
    assert np.array_equal(default.derivatives, given.derivatives)
    assert np.array_equal(default.t, given.t)


def _static_a_row_at_a_time(r):
    """reachability._static before long7: each row of alpha > 0 with every row, over the whole
    grid (the reference of the blocks' pairs)."""
    lo, hi = np.zeros(len(r.top)), r.top.copy()
    tiny = 1e-12 * np.abs(r.alpha).max(initial=1.0)
    free = np.abs(r.alpha) <= tiny
    with np.errstate(divide="ignore", invalid="ignore"):
        single = r.gamma / r.beta
    hi = np.minimum(hi, np.where(free & (r.beta > 0), single, np.inf).min(axis=1, initial=np.inf))
    lo = np.maximum(lo, np.where(free & (r.beta < 0), single, -np.inf).max(axis=1,
                                                                           initial=-np.inf))
    for i in range(r.alpha.shape[1]):
        ai, bi, gi = r.alpha[:, i : i + 1], r.beta[:, i : i + 1], r.gamma[:, i : i + 1]
        pair = (ai > tiny) & (r.alpha < -tiny)
        e = -r.alpha * bi + ai * r.beta
        f = -r.alpha * gi + ai * r.gamma
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = f / e
        hi = np.minimum(hi, np.where(pair & (e > 0), bound, np.inf).min(axis=1))
        lo = np.maximum(lo, np.where(pair & (e < 0), bound, -np.inf).max(axis=1))
    return lo, hi


@pytest.mark.parametrize("pairs", [reachability.PAIRS, 7 * 14 * 14, 1])
def test_the_static_bounds_by_blocks_of_pairs_are_the_row_at_a_time_ones_and_feasible(
        monkeypatch, pairs):
    """reachability._static's pairs a block of points at a time, among the rows of either
    sign in the block, are the bounds of each row with every row over the whole grid to the
    bit (rows whose u coefficient's sign changes inside a block, rows without u, a block
    with no pair, a denominator 0), and they are the x for which some u keeps every row: an x
    a little inside has a u, one a little outside none."""
    monkeypatch.setattr(reachability, "PAIRS", pairs)
    rng = np.random.default_rng(7)
    M, m = 1000, 14
    a = rng.normal(size=(M, m // 2)) * np.where(rng.random((M, m // 2)) < 0.1, 0.0, 1.0)
    alpha = np.concatenate([a, -a], axis=1)
    alpha[200:260] = np.abs(alpha[200:260])  # (no pair there)
    beta = rng.normal(size=(M, m)) + np.where(alpha == 0, 1.0, 0.0)
    beta[300, :2], alpha[300, :2] = [1.0, 2.0], [1.0, 2.0]  # (e = 0 for that pair)
    gamma = rng.uniform(0.5, 2.0, size=(M, m))
    r = reachability.Rows(alpha, beta, gamma, rng.uniform(1.0, 5.0, M))
    lo, hi = reachability._static(r)
    old = _static_a_row_at_a_time(r)
    for new, ref in zip((lo, hi), old, strict=True):
        assert np.array_equal(new, ref) and np.array_equal(np.signbit(new), np.signbit(ref))

    def some_u(x):  # each point's rows in u alone: alpha u <= gamma - beta x
        right = gamma - beta * x[:, None]
        with np.errstate(divide="ignore"):
            top = np.where(alpha > 0, right / alpha, np.inf).min(axis=1)
            bottom = np.where(alpha < 0, right / alpha, -np.inf).max(axis=1)
        still = np.where(alpha == 0, right >= 0, True).all(axis=1)
        return (bottom <= top) & still & (x <= r.top) & (x >= 0)

    fine = np.isfinite(hi) & (hi > lo + 1e-6)
    assert fine.sum() > M // 2
    assert some_u(lo + 1e-9 * (hi - lo))[fine].all() and some_u(hi - 1e-9 * (hi - lo))[fine].all()
    assert not some_u(hi * (1 + 1e-6) + 1e-9)[fine].any()
