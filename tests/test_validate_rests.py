"""``hodyn validate``'s data consistency where columns rest (issue 37 goal 2). A column whose
x^(k) is rounding at every sample (q' ~ 1e-30 .. 1e-13 where a retimed motion stops) was
judged relative to that rounding: on a motion shorter than one step (its two samples at
rests, q' ~ 0 and q moving by the whole motion) its error and the sampling's expected error
were ratios to noise (relative errors 3e14 .. 3e301, tolerances up to 1e64), the data's
time scale a ratio of rounding; on a motion at constant speed the whole of its higher
orders was rounding and failed against itself. Now a column whose x^(k) is rounding at
every sample is judged against what its own differences imply, at least what the data makes
rounding (:meth:`Differences.sizes`; a moving column against its largest |x^(k)|, as
before); the retiming judges its output by the same code (:meth:`Differences.share`)."""

import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.motion.differences import RTOL, Differences
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import write_trajectory

IIWA = URDF / "iiwa14.urdf"
RNG = np.random.default_rng(37)


@pytest.fixture(scope="module")
def iiwa():
    return hodyn_cli.load_robot(IIWA)


def _consistency(model, traj: Trajectory) -> list[tuple[str, str, float, float, str]]:
    """validate's data-consistency checks of ``traj`` (those with a tolerance): name,
    status, relative error, tolerance, worst joint."""
    report = hodyn_cli.validate_motion(model, traj, samples=2)
    return [(c.name, c.status, c.max_rel, c.tolerance, c.worst_joint) for c in report.checks
            if c.group == "data consistency" and c.tolerance]


def _failed(model, traj: Trajectory) -> list[tuple[str, str]]:
    """validate's failed data-consistency checks: name, worst joint."""
    return [(name, joint) for name, status, _, _, joint in _consistency(model, traj)
            if status == "fail"]


def _share(traj: Trajectory) -> float:
    """The retiming's own check of ``traj`` (:meth:`Differences.share`): beyond 1 where
    validate fails it."""
    differences = Differences()
    differences.add(traj.derivatives, traj.t, 0)
    return differences.share(RTOL)


def _held(iiwa, joint: int, rounding: float) -> Trajectory:
    """The iiwa's cosine at 100 Hz (q .. q''''), joint ``joint`` held at 0.3 rad: its q
    constant, its derivatives ``rounding`` times each order's largest, at random (0: exact
    zeros)."""
    traj = generate(iiwa, "cosine", derivatives=4, rate=100.0, duration=2.0)
    d = traj.derivatives.copy()
    d[:, 0, joint] = 0.3
    for k in range(1, d.shape[1]):
        d[:, k, joint] = rounding * np.abs(d[:, k]).max() * RNG.uniform(-1, 1, len(d))
    return Trajectory(traj.joint_names, d, traj.t)


@pytest.mark.parametrize("rounding", [0.0, 1e-16, 1e-30])
def test_a_joint_resting_throughout_passes_and_an_inconsistent_speed_there_fails(iiwa,
                                                                               rounding):
    """The other joints move (up to ~1 rad/s); the held joint's q' carrying 1e-3 rad/s
    while its q stays put fails, named, in validate and in the retiming's own check."""
    traj = _held(iiwa, 3, rounding)
    assert _failed(iiwa, traj) == [] and _share(traj) < 0.1
    traj.derivatives[:, 1, 3] = 1e-3
    assert _failed(iiwa, traj) == [("qd vs time differences of q", "iiwa_joint_4")]
    assert _share(traj) > 100


def _one_step(iiwa, rounding: np.ndarray, stretch: float = 1.0) -> Trajectory:
    """A motion shorter than one output step, from rest to rest: ``smoothstep`` (3 u^2 -
    2 u^3 over the step h = 10 ms) of the joints by up to 0.03 rad (the last one rests),
    sampled at its two rests (q' = 0 there, q'' = +-6 dq / h^2, q''' = -12 dq / h^3, q'''' =
    0); q' at the rests ``rounding`` (per joint) instead of 0. The trapezoid rule's error on
    the step, |dq| / h, is a tenth of validate's allowance 10 h^2 / 12 |q'''|. ``stretch``:
    every joint's end moved that many times as far, their derivatives left."""
    h = 0.01
    a = (iiwa.limits[:, 0] + iiwa.limits[:, 1]) / 2
    dq = 0.03 * np.array([1.0, 0.75, -0.5, 0.2, -0.7, 0.4, 0.0])
    d = np.zeros((2, 5, iiwa.n))
    d[:, 0] = a, a + stretch * dq
    d[:, 1] = rounding
    d[:, 2] = 6 * dq / h**2, -6 * dq / h**2
    d[:, 3] = -12 * dq / h**3
    return Trajectory(iiwa.joint_names, d, np.array([0.0, h]))


#: q' at the two rests: exact zeros, and rounding as a retimed motion's law leaves it there
#: (1e-13 .. 1e-30), smallest on one joint or another
ROUNDINGS = [np.zeros(7), np.full(7, 1e-13), np.r_[1e-30, np.full(6, 1e-13)],
             np.r_[np.full(6, 1e-13), 1e-30], RNG.uniform(-1e-13, 1e-13, 7)]


def test_a_motion_shorter_than_a_step_is_judged_the_same_whatever_its_rounding(iiwa):
    """Every joint's error over the step is a tenth of its own allowance (the resting one's
    none): the motion passes, its share 0.1, and each check's relative error and tolerance
    are the data's whatever rounding q' carries at the rests: q' against the difference of
    q over the step 1 (q' = 0 against the speed that implies), its tolerance 10; the top
    orders' tolerance 30 (the motion's time scale is a sixth of the step: the samples do
    not resolve it). Before: 3e14 .. 3e301 against 3e15 .. 3e302 for q', 3.3 .. 2.7e64 for
    the top orders, by the rounding alone (the verdict right only because every joint's
    share of its own allowance is the same here)."""
    want = _consistency(iiwa, _one_step(iiwa, ROUNDINGS[0]))
    assert [(name.split()[0], status) for name, status, *_ in want] == [
        ("qd", "pass"), ("qdd", "pass"), ("qddd", "pass"), ("qdddd", "pass")]
    assert want[0][2:4] == pytest.approx((1.0, 10.0), rel=1e-9)
    assert [check[3] for check in want[2:]] == pytest.approx([30.0, 30.0], rel=1e-9)
    for rounding in ROUNDINGS[1:]:
        traj = _one_step(iiwa, rounding)
        got = _consistency(iiwa, traj)
        assert [c[:2] for c in got] == [c[:2] for c in want]
        assert [x for c in got for x in c[2:4]] == pytest.approx(
            [x for c in want for x in c[2:4]], rel=1e-9, abs=1e-12), rounding
        assert _share(traj) == pytest.approx(0.1, rel=1e-9), rounding


def test_a_motion_shorter_than_a_step_fails_where_its_joints_move_beyond_their_allowance(
        iiwa, tmp_path):
    """Every joint's end 20 times as far as its derivatives carry it (twice its allowance):
    validate, on the command line too (the file written as CSV and read back), and the
    retiming's own check fail it at every rounding, naming q'."""
    for rounding in ROUNDINGS:
        traj = _one_step(iiwa, rounding, stretch=20.0)
        assert [name for name, _ in _failed(iiwa, traj)] == ["qd vs time differences of q"]
        assert _share(traj) == pytest.approx(2.0, rel=1e-9), rounding
    for stretch, code in ((1.0, 0), (20.0, 1)):
        out = tmp_path / f"step{stretch}.csv"
        write_trajectory(str(out), _one_step(iiwa, ROUNDINGS[2], stretch))
        result = CliRunner().invoke(app, ["validate", str(IIWA), str(out), "--samples", "2"])
        assert result.exit_code == code, result.stderr
        failed = [line for line in result.stderr.splitlines()
                  if "FAIL" in line and "vs time differences" in line]
        assert [("qd vs time differences of q " in line) for line in failed] == [True] * code


@pytest.mark.parametrize("rounding", [0.0, 1e-16])
def test_a_motion_at_constant_speed_passes_and_an_inconsistent_acceleration_fails(iiwa,
                                                                                rounding):
    """Every joint at its own constant speed (a line through joint space, 2 s at 100 Hz),
    q'' ``rounding`` and q''' 100 times that at random: a whole order rests, so no column
    sets its scale; what would move q' by 1e-9 of its largest over the motion does
    (:meth:`Differences.floors`). Before: rounding of 1e-16 failed it (share 2.9, each
    column against the others' rounding). A q'' of 1e-3 rad/s^2 on one joint fails, named."""
    t = np.arange(201) / 100.0
    speed = 0.4 * np.linspace(1.0, -0.5, iiwa.n)
    d = np.zeros((len(t), 4, iiwa.n))
    d[:, 0] = (iiwa.limits[:, 0] + iiwa.limits[:, 1]) / 2 + speed * t[:, None]
    d[:, 1] = speed
    d[:, 2] = rounding * RNG.uniform(-1, 1, d[:, 2].shape)
    d[:, 3] = 100 * rounding * RNG.uniform(-1, 1, d[:, 3].shape)
    traj = Trajectory(iiwa.joint_names, d, t)
    assert _failed(iiwa, traj) == [] and _share(traj) < 0.5
    d[:, 2, 2] = 1e-3
    assert _failed(iiwa, traj) == [("qdd vs time differences of qd", "iiwa_joint_3")]
    assert _share(traj) > 100


def test_a_motion_without_columns_has_nothing_to_judge():
    """A single free body's joints: no column (its base is judged apart). The floors of
    its orders are zero and its time scale none (the floors' largest over no column raised
    "zero-size array" from validate on docs/floating.md's tumbling body)."""
    differences = Differences()
    differences.add(np.zeros((5, 3, 0)), np.arange(5) * 0.01, 0)
    assert differences.frequency() == 0.0 and differences.judged(RTOL) == []
    assert differences.floors(np.zeros((3, 0))).tolist() == [[0.0], [0.0], [0.0]]


def test_a_value_that_is_not_a_number_fails_its_column(iiwa):
    """A library caller's motion with NaN in one q' (the readers refuse such files): its
    column fails, named, instead of passing (a NaN error compared False with every other)."""
    path = generate(iiwa, "cosine", duration=1.0, rate=100.0)
    d = path.derivatives.copy()
    d[40, 1, 2] = np.nan
    report = hodyn_cli.validate_motion(iiwa, Trajectory(path.joint_names, d, path.t),
                                       samples=20)
    assert not report.passed
    failed = [(c.name, c.worst_joint) for c in report.checks if c.status == "fail"]
    assert ("qd vs time differences of q", "iiwa_joint_3") in failed, failed
