"""Time-optimal retiming along the path (hodyn_cli.algorithms.limits: optimal, programme,
jets): the chain rule and the path against sympy and exact polynomials, the limits as
polynomials in the time law against the dynamics computed afresh (another method; rigid
drives with friction), the retimed motion against finite differences along an analytic path,
its limits recomputed by Pinocchio, toppra's durations where toppra applies, and the command
line."""

import json
from math import factorial

import h5py
import numpy as np
import pytest
from test_base_parameters import public_robot
from typer.testing import CliRunner

import hodyn_cli
from conftest import (
    ROOT,
    SAMPLES,
    URDF,
    assert_rates,
    optimal_notice,
    pin_configuration,
    pinocchio_model,
    stencil_times,
    toppra_torque,
)
from hodyn_cli.algorithms.limits import feasibility, optimal, programme, scaling
from hodyn_cli.algorithms.limits.feasibility import torque_order
from hodyn_cli.algorithms.limits.jets import compose, hermite, hermite_at, time_rates
from hodyn_cli.algorithms.limits.scaling import Law, scaled
from hodyn_cli.algorithms.motion.differences import RTOL, Differences
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.io import read_trajectory

RNG = np.random.default_rng(31)
IIWA = URDF / "iiwa14.urdf"
#: two rests of the iiwa
IIWA_REST = (np.zeros(7), np.array([1.0, 0.8, -0.7, -1.2, 0.9, 1.1, -1.3]))


def iiwa_path(T: float = 3.0, rate: float = 100.0, orders: int = 7):
    """The iiwa on a cosine path with exact derivatives: (model, trajectory, the path q(s))."""
    model = hodyn_cli.load_robot(IIWA)
    amp = np.array([0.8, 0.6, 0.7, 0.9, 1.0, 0.8, 1.2])
    omega = np.array([1.1, 1.7, 1.3, 2.0, 1.5, 2.3, 1.9])
    phase = np.linspace(0.2, 2.0, 7)

    def path(s, k_max=orders - 1):
        return cosine(model.joint_names, np.atleast_1d(s), amplitude=amp, omega=omega,
                      phase=phase, offset=np.zeros(7), orders=k_max).derivatives

    t = np.arange(round(T * rate) + 1) / rate
    return model, Trajectory(model.joint_names, path(t), t), path


# -- the chain rule and the path ----------------------------------------------------------


def test_time_rates_and_compose_against_sympy():
    """s^(k) from x(s) = sdot^2, and q(s(t))^(k) by the chain rule, against sympy's
    derivatives of closed forms (orders 0..6)."""
    sp = pytest.importorskip("sympy")
    s, t = sp.symbols("s t")
    x = 1 + s**2 + sp.sin(s) / 2
    f, g, want = sp.sqrt(x), sp.sqrt(x), []
    for _ in range(6):  # d/dt = f d/ds
        want.append(float(g.subs(s, 0.3)))
        g = f * sp.diff(g, s)
    xs = np.array([[float(sp.diff(x, s, j).subs(s, 0.3)) for j in range(6)]])
    assert np.allclose(time_rates(xs)[0], want, rtol=1e-13, atol=0)
    law = 0.2 + t + t**2 / 3 + sp.sin(t) / 5
    rates = [float(sp.diff(law, t, k).subs(t, 0.5)) for k in range(1, 7)]
    q = [float(sp.diff(sp.sin(s), s, m).subs(s, law.subs(t, 0.5))) for m in range(7)]
    ref = [float(sp.diff(sp.sin(law), t, k).subs(t, 0.5)) for k in range(7)]
    got = compose(np.array(q)[None, :, None], np.array(rates)[None])[0, :, 0]
    assert np.allclose(got, ref, rtol=0, atol=1e-13 * np.abs(ref).max())


def test_compose_of_no_points_and_of_a_single_series():
    """review13: compose's batched product keeps the shapes acd9558's broadcast sum took: no
    points (E = 0: reshaping the empty path to (0, K+1, -1) raised), and a path without a
    joint axis (E, K+1)."""
    for shape in ((0, 5, 7), (0, 5), (3, 5)):
        path = np.arange(np.prod(shape), dtype=float).reshape(shape)
        rates = np.ones((shape[0], 4))
        got = compose(path, rates)
        assert got.shape == shape
        if shape[0]:
            assert np.allclose(got, compose(path[:, :, None], rates)[:, :, 0], rtol=1e-15)


def test_compose_of_one_law_broadcast_is_each_point_s_to_the_bit():
    """The probes' time law, one row broadcast over every point (programme.path_limits):
    compose makes its chain matrix once, and gives each point what the law written out
    point by point gives, to the bit (orders 3 to 6, a joint axis and none, 1 and 500
    points)."""
    for K, shape in ((3, (500, 4, 7)), (6, (500, 7)), (4, (1, 5, 2))):
        path = RNG.normal(size=shape)
        law = RNG.normal(size=K)
        broadcast = np.broadcast_to(law, (shape[0], K))
        assert np.array_equal(compose(path, broadcast), compose(path, np.tile(law, (shape[0], 1))))


@pytest.mark.parametrize("D", [3, 5, 7, 12])
def test_hermite_reproduces_polynomials_of_its_degree(D):
    """The path between two samples is the polynomial of degree 2D-1 with their D
    derivatives: one of that degree comes back exactly (every derivative, inside too)."""
    n = 2 * D - 1
    c = RNG.normal(size=(n + 1, 2))

    def der(s, k):
        return sum(c[j] * factorial(j) / factorial(j - k) * s ** (j - k) for j in range(k, n + 1))

    s0, h, u = 0.3, 0.45, np.array([0.0, 0.21, 0.5, 0.93, 1.0])
    left = np.array([[der(s0, k) for k in range(D)]] * 5)
    right = np.array([[der(s0 + h, k) for k in range(D)]] * 5)
    got = hermite(left, right, np.full(5, h), u)
    ref = np.array([[der(s0 + v * h, k) for k in range(D)] for v in u])
    assert np.abs(got - ref).max() <= 1e-9 * np.abs(ref).max()
    for k in range(D, min(n, D + 2) + 1):  # above the samples' (what kinks are made of)
        got = hermite(left, right, np.full(5, h), u, k)
        ref = np.array([der(s0 + v * h, k) for v in u])
        assert np.abs(got - ref).max() <= 1e-6 * np.abs(ref).max(), k


@pytest.mark.parametrize("D", [2, 5, 7])
def test_hermite_at_fixed_nodes_is_hermite_at_those_points(D):
    """:func:`~jets.hermite_at` (q^[k] at the same nodes of every interval, its Bernstein
    control points made once an interval: the arc-length table's quadrature) is
    :func:`~jets.hermite` at each point, to rounding, for every order it takes; on a
    polynomial of the interpolant's degree it is exact."""
    n, E = 2 * D - 1, 6
    left, right = RNG.normal(size=(E, D, 3)), RNG.normal(size=(E, D, 3))
    h = RNG.uniform(1e-3, 0.5, size=E)
    nodes = np.array([0.0, 0.047, 0.5, 0.77, 1.0])
    for order in range(1, D):
        got = hermite_at(left, right, h, nodes, order)
        ref = hermite(np.repeat(left, 5, axis=0), np.repeat(right, 5, axis=0), np.repeat(h, 5),
                      np.tile(nodes, E), order).reshape(E, 5, 3)
        assert np.abs(got - ref).max() <= 1e-12 * np.abs(ref).max(), order
    c = RNG.normal(size=(n + 1, 2))

    def der(s, k):
        return sum(c[j] * factorial(j) / factorial(j - k) * s ** (j - k) for j in range(k, n + 1))

    s0, step = 0.3, 0.45
    ends = [np.array([[der(s, k) for k in range(D)]]) for s in (s0, s0 + step)]
    got = hermite_at(*ends, np.array([step]), nodes, 1)[0]
    ref = np.array([der(s0 + v * step, 1) for v in nodes])
    assert np.abs(got - ref).max() <= 1e-9 * np.abs(ref).max()


def test_probes_determine_every_monomial():
    """The probes' monomial matrix for grades 0..4 (sigma_1..sigma_4) has full rank, well
    conditioned: the fitted coefficients are exact to rounding."""
    monomials = [m for g in range(5) for m in programme._partitions(g)]
    A = programme._monomials(programme.PROBES, monomials)
    assert len(monomials) == 12 and np.linalg.matrix_rank(A) == 12
    assert np.linalg.cond(A) < 1e3
    # path_limits probes as many as a series has monomials, the first PROBES: they determine
    # the monomials of every grade a law's coefficients carry (3 of them for torques)
    for power in range(4):
        for count in range(1, 4):
            law = Law(power, np.zeros((1, 1, count)), ("j",))
            graded = programme._monomials_of(law)
            if len(graded) <= len(programme.PROBES):
                square = programme._monomials(programme.PROBES[: len(graded)], graded)
                assert np.linalg.cond(square) < 1e3, (power, count)


def test_path_grid_keeps_a_bounded_number_of_samples():
    """However long the path, the grid keeps between target and 2 target samples, evenly
    spaced, and the last one."""
    model, traj, _ = iiwa_path(T=40.0)
    grid = programme.PathGrid(target=100)
    for start in range(0, traj.n_samples, 333):
        grid.add(Trajectory(traj.joint_names, traj.derivatives[start:start + 333],
                            traj.t[start:start + 333]))
    path = grid.path()
    assert 100 <= path.n_samples <= 201 and path.t[-1] == traj.t[-1]
    assert np.unique(np.round(np.diff(path.t[:-1]), 9)).size == 1


def _kinked_path(J: float) -> Trajectory:
    """q(s) = sin s + J (s - 1/2)_+^3 / 6 on 101 samples of 0..1 (q, q', q'': D = 3): its
    third derivative jumps by J at s = 1/2, the 51st sample."""
    s = np.linspace(0.0, 1.0, 101)
    r = np.maximum(s - 0.5, 0.0)
    q = np.stack([np.sin(s) + J * r**3 / 6, np.cos(s) + J * r**2 / 2, -np.sin(s) + J * r],
                 axis=1)
    return Trajectory(("j",), q[..., None], s)


@pytest.mark.parametrize("target, sizes", [(10, [101]), (10, [1, 7, 13, 80]),
                                           (1000, [101]), (1000, [50, 1, 1, 49])])
def test_path_grid_finds_the_kinks_of_the_path(target, sizes):
    """The jump of the path's q^[D] (the Hermite interpolants' one above the samples' orders)
    at a sample where the path is only C^(D-1), found in whichever chunks the path comes
    and kept in the interval of the grid that holds it; elsewhere the interpolants' own
    jumps are small; peak: the largest |q^[D-1]|."""
    J, path = 7.0, _kinked_path(7.0)
    grid, start = programme.PathGrid(target), 0
    for n in sizes:
        grid.add(Trajectory(("j",), path.derivatives[start:start + n], path.t[start:start + n]))
        start += n
    on, kinks = grid.grid()
    kinks, t = kinks[:, 0], on.t
    g = np.searchsorted(t, 0.5, side="right") - 1  # the grid interval that holds s = 1/2
    assert kinks[g] == pytest.approx(J, rel=1e-3)
    assert np.delete(kinks, g).max() < 1e-3 * J
    assert grid.peak == pytest.approx(np.abs(path.derivatives[:, 2]).max())


@pytest.mark.parametrize("speedup", [1.0, 3.0])
def test_kinks_bound_the_path_speed_next_to_them(speedup):
    """x at the grid points next to a kink is at most the ceiling's for the law planned: the
    played motion's q^(D) jumps there by J x^(D/2), which the trapezoid rule at the output's
    rate misses by up to that over 8 rate: half of validate's 1e-3 of the played motion's
    own largest q^(D-1) (a law 3 times the uniform speed: 3^(D-1) times the uniform one's,
    the ceiling 3^(2 (D-1) / D) times higher)."""
    J, path = 7.0, _kinked_path(7.0)
    grid = programme.PathGrid(100)
    grid.add(path)
    D, x0, rate = 3, 0.01, 1000.0
    on, kinks = grid.grid()
    x = np.full(on.n_samples, speedup**2 * x0)
    ceiling = programme.KinkCeiling.of(on, kinks, grid.peak, x0, rate).at(x)
    g = np.searchsorted(on.t, 0.5, side="right") - 1
    near = np.isin(np.arange(len(ceiling)), [g, g + 1])  # the ends of the kink's interval
    assert ceiling[near].min() >= x0 and ceiling[~near].min() > 100 * ceiling[near].max()
    miss = J * ceiling[near] ** (D / 2) / (8 * rate)
    played = compose(on.derivatives, time_rates(np.column_stack([x, np.zeros((len(x), 3))])))
    top = np.abs(played[:, D - 1]).max()
    assert miss == pytest.approx(programme.KINK_SHARE * programme.RTOL * top, rel=1e-2)



def test_a_windows_programmes_keep_their_kink_rows_and_start_from_the_last_basis(monkeypatch):
    """Every grid point next to a kink has its row in every programme (unbounded where the
    law's cap holds x), so the programmes of a window have the same rows and each after the
    first starts from the last one's basis: here the kink's ceiling holds x at first and the
    cap at the end (no limits: x rises to the cap), and with a row only where the ceiling
    held, the row count changed and a programme started from scratch."""
    from scipy import sparse

    path = _kinked_path(7.0)
    grid = programme.PathGrid(100)
    grid.add(path)
    on, kinks = grid.grid()
    x0, rate = 0.01, 1000.0
    ceiling = programme.KinkCeiling.of(on, kinks, grid.peak, x0, rate)
    cap = x0 * programme.CAP**2
    assert (ceiling.at(np.full(on.n_samples, x0)) < cap).sum() == 2  # (held at first)
    starts = []
    solve = programme._linear_programme

    def spied(objective, bounds, A, lb, ub, now, previous=None):
        starts.append((A.shape[0], previous is not None and previous.basis is not None
                       and len(previous.rows) == A.shape[0]))  # (else from scratch)
        return solve(objective, bounds, A, lb, ub, now, previous)

    monkeypatch.setattr(programme, "_linear_programme", spied)
    monkeypatch.setattr(programme, "_programme", lambda limits, X, D: (
        sparse.csr_matrix((0, D[0].shape[1])), np.zeros(0), np.zeros(0)))
    law = programme.solve(on.t, [], x0, 3, rate, ceiling=ceiling)
    x = law.spline(on.t)
    assert (np.maximum(ceiling.at(x), x) >= cap).all() and x.max() == pytest.approx(cap)
    assert len(starts) > 2 and len({rows for rows, _ in starts}) == 1
    assert [warm for _, warm in starts] == [False] + [True] * (len(starts) - 1), starts

# -- the limits along the path ------------------------------------------------------------


def _played_at(path_rows: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The jets of the motions that leave path samples with x, x', x'', x''' = X."""
    return compose(path_rows[:, :5], time_rates(X))


def test_path_limits_equal_the_dynamics_of_the_played_motion():
    """tau, taud, taudd and qd as polynomials in the time law (fitted from probes by the
    body-fixed method) equal the spatial method run on the motion played with random x, x',
    x'', x''' (1e-9)."""
    model, traj, _ = iiwa_path(T=1.0, rate=20.0)
    lim = hodyn_cli.joint_limits(model, {j: {"torque_rate": 100.0, "torque_acceleration": 1e3}
                                         for j in model.joint_names})
    limits = programme.path_limits(model, traj, lim, torque_order(lim))
    X = np.column_stack([RNG.uniform(0.2, 3.0, traj.n_samples),
                         RNG.normal(size=(traj.n_samples, 3)) * [2.0, 10.0, 50.0]])
    jet = Trajectory(model.joint_names, _played_at(traj.derivatives, X))
    ref = hodyn_cli.inverse_dynamics(model, jet, order=2, method="spatial")
    ref = dict(ref) | {"qd": jet.qd}
    assert {lim.series for lim in limits} == {"qd", "tau", "taud", "taudd"}
    for lim in limits:
        got = lim.values(X)
        want = ref[lim.series]
        assert np.abs(got - want).max() <= 1e-9 * np.abs(want).max(), lim.series
    kinds = {lim.series: lim.kind for lim in limits}
    assert kinds == {"qd": "rate", "tau": "affine", "taud": "rate", "taudd": "linear"}


def test_path_limits_of_rigid_drives_with_friction():
    """Motor torque and current with friction (tanh) along the path equal the drive model of
    the played motion (1e-9)."""
    model, traj, _ = iiwa_path(T=1.0, rate=20.0)
    drives = hodyn_cli.api.read_drives(model, URDF / "iiwa14_motors.toml")
    lim = hodyn_cli.joint_limits(model, {"iiwa_joint_1": {"current": 5.0, "motor_torque": 3.0,
                                                          "motor_speed": 300.0}})
    limits = programme.path_limits(model, traj, lim, 0, drives=drives)
    X = np.column_stack([RNG.uniform(0.2, 3.0, traj.n_samples),
                         RNG.normal(size=(traj.n_samples, 3)) * [2.0, 10.0, 50.0]])
    jet = Trajectory(model.joint_names, _played_at(traj.derivatives, X)[:, :3])
    ref = hodyn_cli.drive_dynamics(model, drives, jet, order=0)
    checked = set()
    for lim in limits:
        if lim.series in ("taum", "current"):
            j = model.joint_index(lim.joints[0])
            want = ref[lim.series][:, j]
            assert lim.friction is not None and lim.kind == "linear"
            assert np.abs(lim.values(X)[:, 0] - want).max() <= 1e-9 * np.abs(want).max()
            checked.add(lim.series)
    assert checked == {"taum", "current"}


def test_path_limits_of_rigid_drives_whose_motor_torque_alone_is_limited():
    """A motor torque limited where no joint torque is (torque order -1: an MJCF model's
    exported limits are its actuators' alone) still reads the rigid drives' torques, q to
    q'' (feasibility.requirements): the probes carry x' (they carried x alone and the drive
    laws refused them for want of qdd), and the motor torque equals the drive model of the
    played motion (1e-9)."""
    model, traj, _ = iiwa_path(T=1.0, rate=20.0)
    drives = hodyn_cli.api.read_drives(model, URDF / "iiwa14_motors.toml")
    lim = hodyn_cli.joint_limits(model, {j: {"torque": np.inf} for j in model.joint_names}
                                 | {"iiwa_joint_2": {"torque": np.inf, "motor_torque": 3.0}})
    assert torque_order(lim) == -1
    limits = programme.path_limits(model, traj, lim, torque_order(lim), drives=drives)
    X = np.column_stack([RNG.uniform(0.2, 3.0, traj.n_samples),
                         RNG.normal(size=(traj.n_samples, 3)) * [2.0, 10.0, 50.0]])
    jet = Trajectory(model.joint_names, _played_at(traj.derivatives, X)[:, :3])
    want = hodyn_cli.drive_dynamics(model, drives, jet, order=0)["taum"][:, 1]
    (taum,) = [lim for lim in limits if lim.series == "taum"]
    assert np.abs(taum.values(X)[:, 0] - want).max() <= 1e-9 * np.abs(want).max()


def test_the_probes_torques_whole_are_the_full_laws_at_speed_up_one(monkeypatch):
    """path_limits reads its probes' laws at speed-up 1 alone, so their rigid torques come
    from one inverse dynamics (``rigid_laws(whole=True)``: the motion's torques in the first
    grade, zeros in the others, as many grades): there they are the full laws' values (to
    rounding: ``(tau - d) + d`` against ``tau``), and the limits fitted from them are those
    fitted from the full laws (1e-12), with half the inverse dynamics."""
    model, traj, _ = iiwa_path(T=1.0, rate=20.0, orders=6)
    full = scaling.rigid_laws(model, traj, 2)
    whole = scaling.rigid_laws(model, traj, 2, whole=True)
    assert full.keys() == whole.keys()
    for name in ("tau", "taud", "taudd"):
        a, b = full[name], whole[name]
        assert b.power == a.power and b.coefficients.shape == a.coefficients.shape
        assert not b.coefficients[..., 1:].any()
        assert np.abs(b.at(1.0) - a.at(1.0)).max() <= 1e-12 * np.abs(a.at(1.0)).max(), name
    lim = hodyn_cli.joint_limits(model, {j: {"torque_rate": 100.0, "torque_acceleration": 1e3}
                                         for j in model.joint_names})
    calls, dynamics = [], scaling.body_fixed.inverse_dynamics
    together = scaling.body_fixed.inverse_dynamics_probes

    def counted(*args, **kwargs):
        calls.append(1)
        return dynamics(*args, **kwargs)

    def counted_together(model, names, probes, **kwargs):  # (one per motion; a single
        calls.extend([1] * len(probes) if len(probes) > 1 else [])  # one: inverse_dynamics)
        return together(model, names, probes, **kwargs)

    monkeypatch.setattr(scaling.body_fixed, "inverse_dynamics", counted)
    monkeypatch.setattr(scaling.body_fixed, "inverse_dynamics_probes", counted_together)
    got = programme.path_limits(model, traj, lim, 2)
    probes = len(calls)  # (the first probe's form at one point, then the 7 probes)
    series_laws = feasibility.series_laws
    monkeypatch.setattr(programme, "probe_laws", lambda model, names, probes, **k: [
        series_laws(model, Trajectory(names, qs), **k, whole=False) for qs in probes])
    want = programme.path_limits(model, traj, lim, 2)
    assert len(calls) == 3 * probes  # (each probe two inverse dynamics without ``whole``)
    assert [lim.series for lim in got] == [lim.series for lim in want]
    for a, b in zip(got, want, strict=True):
        assert a.monomials == b.monomials
        scale = np.abs(b.coefficients).max()
        assert np.abs(a.coefficients - b.coefficients).max() <= 1e-12 * scale, a.series


def test_an_mjcf_model_within_its_actuators_limits_alone_is_retimed(tmp_path):
    """dm_control's acrobot as ``hodyn info`` exports it: a motor torque on the elbow, no
    joint torque limit. ``retime --optimal --drives --limits`` (exit 2, "order 0 needs qdd",
    before) gives a law that ``check`` passes with the elbow's motor torque on its limit,
    faster than the uniform scaling (without gravity: the elbow cannot hold the arm)."""
    model = ROOT / "mjcf" / "acrobot.xml"
    drives, limits = tmp_path / "d.toml", tmp_path / "l.toml"
    src, out = tmp_path / "in.h5", tmp_path / "out.h5"
    zero = ("--gravity", "0,0,0")
    for args in (("info", model, "--drives-toml", drives, "--limits-toml", limits),
                 ("generate", model, "--kind", "cosine", "--duration", 1, "--rate", 40,
                  "-o", src)):
        res = CliRunner().invoke(app, [str(a) for a in args])
        assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, [str(a) for a in ("retime", model, src, "--optimal",
                                                    "--drives", drives, "--limits", limits,
                                                    "-o", out, *zero)])
    line = optimal_notice(res, src)
    assert "on its limits: motor torque of elbow" in line, line
    with h5py.File(out) as f:
        duration = float(f["t"][-1])
    assert duration < float(line.split("the fastest uniform scaling: ")[1].split(" s")[0])
    res = CliRunner().invoke(app, [str(a) for a in ("check", model, out, "--drives", drives,
                                                    "--limits", limits, *zero)])
    assert res.exit_code == 0, res.output


# -- the retimed motion -------------------------------------------------------------------


@pytest.fixture(scope="module")
def rate_limited():
    """The iiwa path retimed within the URDF's limits and a torque rate of 60 N m/s by the
    windows of linear programmes (reachability's law, its smoothing widened and lowered for
    these rates, tests/test_rates.py: 4.38 s on this grid, 4.20 s on its own, where the
    programmes find 3.72 s: gravity's rate alone is up to 4.5 times the limit here)."""
    model, traj, path = iiwa_path()
    limits = {j: {"torque_rate": 60.0} for j in model.joint_names}
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=400, solver="windows")
    return model, traj, path, limits, out, opt


def test_retimed_motion_is_within_every_limit_and_on_one(rate_limited):
    """check passes; with every limit 1e-3 tighter it fails; shorter than the uniform
    scaling; where the limits bind is named."""
    model, traj, _, limits, out, opt = rate_limited
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    tighter = {j: {"torque_rate": 60.0 * (1 - 1e-3), "velocity": 1.5 * (1 - 1e-3),
                   "torque": float(model.effort_limits[model.joint_index(j)]) * (1 - 1e-3)}
               for j in model.joint_names}
    assert not hodyn_cli.check_limits(model, out, limits=tighter).feasible
    _, retiming, _ = hodyn_cli.retime(model, traj, limits=limits)
    assert opt.duration < 0.95 * retiming.k[0] * traj.t[-1]
    assert abs(opt.uniform_duration - retiming.k[0] * traj.t[-1]) < 1e-9
    assert out.t[0] == 0 and abs(out.t[-1] - opt.duration) < 1e-9
    assert any("torque rate" in b for b in opt.bound.describe())


def test_the_final_fit_keeps_a_bounded_number_of_samples(rate_limited, monkeypatch):
    """The final fit in chunks of 7 samples with at most 3 kept per bracket finds the same
    speed-up as all samples by bisection: the played motion's usage over every sample, at
    the speed-up found, is within its band and one sample is on it."""
    model, traj, _, limits, _, opt = rate_limited
    monkeypatch.setattr(optimal, "KEEP", 3)
    chunks = [Trajectory(traj.joint_names, traj.derivatives[a:a + 7], traj.t[a:a + 7])
              for a in range(0, traj.n_samples, 7)]
    fit, _, _ = opt._fitted(chunks)
    assert fit.keys.shape == (len(optimal.SPEEDUPS), 3) and fit.rows is not None
    assert all(v.shape[:2] == fit.keys.shape for v in fit.rows)
    found = fit.solve()
    worst = []
    for piece in opt.path.played(chunks):
        laws = opt._laws(piece)
        for _, series, cols, lower, upper in feasibility.limited_series(model, opt.limits,
                                                                         laws):
            value = laws[series].at(found.x)[:, cols]
            worst.append((np.abs(value - (lower + upper) / 2) / ((upper - lower) / 2)).max())
    assert 1 - 1e-6 <= max(worst) <= 1 + 1e-6


def test_bound_keeps_the_first_intervals_and_counts_the_rest(rate_limited, monkeypatch):
    """Where a limit binds, fed in chunks of 7 samples keeping 2 intervals per limit: the
    same description (the first intervals, how many more, the share of the time of all)
    as from the motion in one piece with every interval kept."""
    model, traj, _, _, _, opt = rate_limited
    chunks = [Trajectory(traj.joint_names, traj.derivatives[a:a + 7], traj.t[a:a + 7])
              for a in range(0, traj.n_samples, 7)]
    pieces = list(opt.path.played(chunks))
    whole = Trajectory(traj.joint_names, np.concatenate([p.derivatives for p in pieces]),
                       np.concatenate([p.t for p in pieces]))
    every = optimal.Bound(model, opt.limits)
    every.add(opt._laws(whole), whole.t)
    monkeypatch.setattr(optimal, "SPANS", 2)
    kept = optimal.Bound(model, opt.limits)
    for piece in pieces:
        kept.add(opt._laws(piece), piece.t)
    assert kept.describe(most=2) == every.describe(most=2)
    assert any(" more (" in line for line in kept.describe(most=2))
    assert max(len(v) for v in kept.first.values()) == 2


def test_retimed_motion_keeps_the_path_and_its_derivatives_are_exact(rate_limited):
    """Every output q lies on the path at its s (1e-9), and the output's derivatives match
    8th-order differences of the retimed motion between its samples (orders 1..5 to 1e-6;
    the highest, q^(6), to 1e-3: the derivative above it, which no file carries, jumps at
    the time law's knots)."""
    model, traj, path, _, out, opt = rate_limited
    law, k = opt.path.law, opt.final.k
    times = law.times
    s = law.s_at((out.t - out.t[0]) / k, times)
    assert np.abs(out.q - path(s)[:, 0]).max() < 1e-9
    t0 = out.t[::97][1:-1]
    h = 2e-3
    jets = _output_at(opt, traj, stencil_times(t0, h))
    assert_rates(jets[:, :-1], h, 1e-6, "retimed motion")  # q .. q^(5)
    assert_rates(jets[:, -2:], h, 1e-3, "retimed motion, top order")  # q^(7) jumps at knots
    rows = np.searchsorted(out.t, t0)
    assert np.allclose(out.derivatives[rows], jets.reshape(-1, 9, *jets.shape[1:])[:, 4],
                       rtol=0, atol=1e-9 * np.abs(out.derivatives).max())


def _output_at(opt, traj, t):
    """The retimed motion at any times t (the plan's pieces there, scaled as the output)."""
    from hodyn_cli.algorithms.limits.scaling import scaled

    p, final = opt.path, opt.final
    s = p.law.s_at((t - p.t0) / final.k)
    piece = p._piece(traj, s, (t - p.t0) / final.k)
    return scaled(piece, final.x).derivatives


def test_limits_hold_on_torques_recomputed_by_pinocchio(rate_limited):
    """tau (pin.rnea) and taud (Pinocchio's RNEA derivatives) of the retimed motion are
    within the limits to 1e-6 relative, and one of them is on its limit."""
    model, _, _, _, out, _ = rate_limited
    pin, pm, data, order = pinocchio_model(IIWA, model)
    tau, taud = [], []
    for i in range(0, out.n_samples, 3):
        q = pin_configuration(pm, order, out.q[i])
        v, a, j = out.qd[i, order], out.qdd[i, order], out.qddd[i, order]
        tau.append(pin.rnea(pm, data, q, v, a)[np.argsort(order)])
        pin.computeRNEADerivatives(pm, data, q, v, a)
        M = np.triu(data.M) + np.triu(data.M, 1).T
        taud.append((data.dtau_dq @ v + data.dtau_dv @ a + M @ j)[np.argsort(order)])
    assert np.abs(taud).max() <= 60.0 * (1 + 1e-6)
    assert np.abs(taud).max() >= 60.0 * (1 - 1e-2)
    assert (np.abs(tau) <= model.effort_limits * (1 + 1e-6)).all()
    assert np.abs(out.qd).max() <= 1.5 * (1 + 1e-9)


def test_retimed_motion_validates(rate_limited):
    model, _, _, _, out, _ = rate_limited
    report = hodyn_cli.validate_motion(model, out, samples=200)
    assert report.passed, [c for c in report.checks if c.status == "fail"]


def test_torque_acceleration_limits_hold():
    """With torque accelerations limited too (linearised in the programme), every limit
    holds at every output sample and one is on its limit."""
    model, traj, _ = iiwa_path(T=2.0)
    limits = {j: {"torque_rate": 80.0, "torque_acceleration": 300.0} for j in model.joint_names}
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=300)
    check = hodyn_cli.check_limits(model, out, limits=limits)
    assert check.feasible
    # on it as sampled at the rate asked for, within optimal.CLOSE of its speed
    assert max(r.usage for r in check.rows) > 1 - 1e-3
    _, retiming, _ = hodyn_cli.retime(model, traj, limits=limits)
    assert opt.duration < retiming.k[0] * traj.t[-1]


# -- the peer: toppra ---------------------------------------------------------------------


class _Path:
    """The same path for toppra: the input's samples, joined as hodyn joins them."""

    def __init__(self, traj):
        self.traj = traj

    def __call__(self, s, order=0):
        s = np.atleast_1d(np.asarray(s, dtype=float))
        return programme.between(self.traj, s)[:, order]

    @property
    def dof(self):
        return self.traj.derivatives.shape[2]

    @property
    def path_interval(self):
        return np.array([self.traj.t[0], self.traj.t[-1]])


def toppra_duration(model, traj, velocity, torque, sd_start, sd_end, grid=2000, gravity=None):
    """toppra's duration on the same path within velocity and torque bands (n, 2)."""
    ta = pytest.importorskip("toppra")
    import toppra.algorithm as algo
    import toppra.constraint as constraint

    ta.setup_logging("WARNING")
    path = type("Path", (ta.interpolator.AbstractGeometricPath,), dict(vars(_Path)))(traj)
    kw = {} if gravity is None else {"gravity": gravity}
    cs = [constraint.JointVelocityConstraint(velocity), toppra_torque(model, torque, **kw)]
    inst = algo.TOPPRA(cs, path, gridpoints=np.linspace(traj.t[0], traj.t[-1], grid + 1),
                       parametrizer="ParametrizeConstAccel")
    return inst, inst.compute_trajectory(sd_start, sd_end)


def test_velocity_and_torque_limits_match_toppra():
    """With velocity and torque limits only, the duration is within 0.5 % of toppra's on the
    same path, limits and end speeds (toppra on a 1000-point grid: 0.23 % off, 0.24 % on
    2000 points, which took 2.0 s of CPU to its 0.8)."""
    model, traj, _ = iiwa_path(T=3.0)
    gravity = (0.0, 0.0, 0.0)
    tau = hodyn_cli.inverse_dynamics(model, traj, order=0, gravity=gravity).tau
    torque = 0.5 * np.abs(tau).max(axis=0)
    limits = {j: {"torque": float(torque[i])} for i, j in enumerate(model.joint_names)}
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, gravity=gravity, grid=600,
                                        solver="windows")
    assert hodyn_cli.check_limits(model, out, limits=limits, gravity=gravity).feasible
    sdot = np.sqrt(opt.path.law.spline(opt.path.law.breaks[[0, -1]])) / opt.final.k
    band = np.column_stack([-torque, torque])
    vel = model.velocity_limits
    _, result = toppra_duration(model, traj, np.column_stack([-vel, vel]), band, *sdot,
                                grid=1000, gravity=gravity)
    assert abs(opt.duration - result.duration) <= 0.005 * result.duration, (
        opt.duration, result.duration)


def test_rest_to_rest_near_toppra():
    """From rest to rest along a straight line of joint space (a point-to-point design: q' ~
    s^4 at the rests, where no limit bounds the path speed), velocity and torque limits:
    within 7.5 % of toppra on the line parametrised by its length (6.8 % here: the law on
    its first cap of 8 times the uniform speed, 8.6 %, is consistent enough that the cap is
    raised to 10.6; 30 % with the path speed capped at 3 times the uniform one and its
    derivatives bounded relative to the uniform x alone), the law leaving the rests faster
    than the first cap, the output within its limits and passing hodyn validate."""
    model = hodyn_cli.load_robot(IIWA)
    ends = np.stack(IIWA_REST)
    traj = generate(model, "point-to-point", waypoints=ends, derivatives=4,
                    segment_duration=[3.0])
    out, opt = hodyn_cli.retime_optimal(model, traj, grid=300, solver="windows")
    assert opt.peak > programme.CAP
    assert hodyn_cli.check_limits(model, out).feasible
    report = hodyn_cli.validate_motion(model, out, samples=50)
    assert report.passed, [c for c in report.checks if c.status == "fail"]
    peer = _toppra_lines(model, ends, 500)  # (6e-5 from 1000 points, at half the cost)
    assert peer < opt.duration <= 1.075 * peer, (opt.duration, peer)


def _toppra_lines(model, waypoints: np.ndarray, points: int = 1000) -> float:
    """toppra's duration from rest to rest along the straight lines between the waypoints
    (each parametrised by its length), velocity and torque limits (the URDF's)."""
    ta = pytest.importorskip("toppra")
    import toppra.algorithm as algo
    import toppra.constraint as constraint

    ta.setup_logging("WARNING")
    vel, eff = model.velocity_limits, model.effort_limits
    cs = [constraint.JointVelocityConstraint(np.column_stack([-vel, vel])),
          toppra_torque(model, np.column_stack([-eff, eff]))]
    return sum(algo.TOPPRA(cs, ta.SplineInterpolator([0.0, 1.0], np.stack([a, b])),
                           gridpoints=np.linspace(0.0, 1.0, points + 1),
                           parametrizer="ParametrizeConstAccel").compute_trajectory(0.0, 0.0)
               .duration for a, b in zip(waypoints[:-1], waypoints[1:], strict=True))


def test_a_rest_at_a_corner_near_toppra():
    """Through three waypoints at rest (the path's q^[5] jumps at the corner): within 25 % of
    toppra's two lines (21 % here; 36 % when the ceiling next to the corner took validate's
    tolerance from the uniform scaling's largest q^(4) and not the law's, and 32 % when a
    law within validate's tolerance but beyond 0.8 of it was planned again at half its
    path-speed cap), the output within its limits and passing hodyn validate."""
    model = hodyn_cli.load_robot(IIWA)
    a, b = IIWA_REST
    waypoints = np.stack([a, (a + b) / 2 + (b - a)[::-1] / 4, b])
    traj = generate(model, "point-to-point", waypoints=waypoints, derivatives=4,
                    segment_duration=[3.0, 3.0])
    out, opt = hodyn_cli.retime_optimal(model, traj, grid=300, solver="windows")
    assert hodyn_cli.check_limits(model, out).feasible
    report = hodyn_cli.validate_motion(model, out, samples=50)
    assert report.passed, [c for c in report.checks if c.status == "fail"]
    peer = _toppra_lines(model, waypoints, 500)  # (4e-5 from 1000 points, half the cost)
    assert peer < opt.duration <= 1.25 * peer, (opt.duration, peer)


def test_a_law_barely_inconsistent_is_planned_again_with_a_cap_near_its_peak(monkeypatch):
    """A law at its path-speed cap whose output is a little beyond validate's tolerance (1.07
    of it, as the xArm7's curve with a stop inside was at the cap of 8) is planned again with
    its cap where the inconsistency, taken to grow as the speed's STEEP-th power, would be
    CALM: 7.1 times the uniform speed, not half its peak (4: 1.98 s there against 1.69 s)."""
    model = hodyn_cli.load_robot(IIWA)
    ends = np.stack(IIWA_REST)
    traj = generate(model, "point-to-point", waypoints=ends, derivatives=4,
                    segment_duration=[3.0])
    caps, fitted, plan = [], optimal.Optimal._fitted, optimal.Optimal.plan

    def planned(self, chunks, limits=None, pace=programme.PACE, cap=programme.CAP, start=None):
        caps.append(cap)
        return plan(self, chunks, limits, pace, cap, start)

    def first_inconsistent(self, chunks):
        fit, search, lag = fitted(self, chunks)
        return fit, search, 1.07 if len(caps) == 1 else lag

    monkeypatch.setattr(optimal.Optimal, "plan", planned)
    monkeypatch.setattr(optimal.Optimal, "_fitted", first_inconsistent)
    # (grid 150: the caps 300 gives, 8 then 7.12, at ~75 % of its CPU)
    out, opt = hodyn_cli.retime_optimal(model, traj, grid=150, solver="windows")
    assert caps[0] == programme.CAP and len(caps) == 2
    assert caps[1] == pytest.approx(programme.CAP * (optimal.CALM / 1.07) ** (1 / programme.STEEP))
    assert hodyn_cli.validate_motion(model, out, samples=50).passed


def test_lowering_the_cap_ends_when_the_law_stays_barely_inconsistent(monkeypatch):
    """A law whose output stays a little beyond CALM of validate's tolerance however low its
    cap (0.81 of it, and not consistent once resampled at the rate: each cap is the one
    before times (CALM / 0.81)^(1 / STEEP), 0.995) is
    planned again a bounded number of times, not once per half a per cent of cap down to
    CAP_LEAST (about 140 programmes)."""
    model = hodyn_cli.load_robot(IIWA)
    traj = generate(model, "point-to-point", waypoints=np.stack(IIWA_REST), derivatives=4,
                    segment_duration=[3.0])
    caps, fitted, plan = [], optimal.Optimal._fitted, optimal.Optimal.plan
    resampled = optimal.Optimal._resampled

    def planned(self, chunks, limits=None, pace=programme.PACE, cap=programme.CAP, start=None):
        caps.append(cap)
        assert len(caps) <= 1 + optimal.LOWERINGS + optimal.CALMER, caps
        return plan(self, chunks, limits, pace, cap, start)

    def barely_inconsistent(self, chunks):
        fit, search, _ = fitted(self, chunks)
        return fit, search, 0.81

    def not_once_resampled(self, chunks, from_rest=False):
        resampled(self, chunks, from_rest)
        return False

    monkeypatch.setattr(optimal.Optimal, "plan", planned)
    monkeypatch.setattr(optimal.Optimal, "_fitted", barely_inconsistent)
    monkeypatch.setattr(optimal.Optimal, "_resampled", not_once_resampled)
    # (their re-planning; grid 150: the six caps 300 gives, 8 down to 7.88, at ~55 % of its CPU)
    hodyn_cli.retime_optimal(model, traj, grid=150, solver="windows")
    assert caps[0] == programme.CAP and min(caps) < programme.CAP


#: rest-to-rest paths of public arms (bundled, or example-robot-data's), how much longer than
#: toppra's the law may be along a straight line and through a corner at rest (per cent;
#: benchmarks/bench_optimal.py part 4: 6.9 and 20.0, 4.2 and 21.1, 5.0 and 10.5, 4.3 and 14.6;
#: the UR5's corner 12.2 since validate's top orders expect their error from the top order's
#: own differences: the windows' consistency check, the same, plans it at a calmer pace; the
#: xArm7's corner 12.3 since the stretch between rests where a law is inconsistent has its
#: cap lowered alone (windows20: its second leg's, the first's kept at 8, 1.68103 s; every
#: stretch's together, windows19, 1.74530 s, 16.6; the whole path's cap, 1.71544 s))
PUBLIC_ARMS = [("iiwa14", 8.0, 21.0), ("panda", 5.0, 22.5),
               ("ur_description/urdf/ur5_robot.urdf", 6.0, 13.0),
               ("xarm_description/urdf/xarm7.urdf", 5.5, 13.0)]


@pytest.mark.slow
@pytest.mark.parametrize("robot, line, corner", PUBLIC_ARMS)
def test_rest_paths_of_public_arms_near_toppra(robot, line, corner):
    """From rest to rest along a straight line of 3 s, and through three waypoints at rest,
    between the points a third into each joint's range from its ends (the iiwa's: IIWA_REST),
    the default grid:
    within its limits, passing hodyn validate, and at most ``line`` and ``corner`` per cent
    longer than toppra from rest to rest along each line (the loss is near the rests: the
    law's parameter is the input's time, in which the path stops there)."""
    model = hodyn_cli.load_robot(public_robot(robot) if "/" in robot else URDF / f"{robot}.urdf")
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    a, b = (lo + (hi - lo) / 3, hi - (hi - lo) / 3) if robot != "iiwa14" else IIWA_REST
    for waypoints, most in ((np.stack([a, b]), line),
                            (np.stack([a, (a + b) / 2 + (b - a)[::-1] / 4, b]), corner)):
        traj = generate(model, "point-to-point", waypoints=waypoints, derivatives=4,
                        segment_duration=[3.0] * (len(waypoints) - 1))
        out, opt = hodyn_cli.retime_optimal(model, traj, solver="windows")
        assert hodyn_cli.check_limits(model, out).feasible
        assert hodyn_cli.validate_motion(model, out, samples=50).passed
        peer = _toppra_lines(model, waypoints, 4000)
        assert peer < opt.duration <= (1 + most / 100) * peer, (opt.duration, peer)


def test_toppra_ignores_torque_rates(rate_limited):
    """toppra's solution on the same path within velocity and torque limits (all it takes),
    sampled at 100 Hz as a controller would: its torques' differences exceed the torque
    rate limit that hodyn's holds (its sddot is piecewise constant: the torques jump)."""
    model, traj, _, _, out, opt = rate_limited
    vel, eff = model.velocity_limits, model.effort_limits
    _, result = toppra_duration(model, traj, np.column_stack([-vel, vel]),
                                np.column_stack([-eff, eff]), 0.0, 0.0, grid=1000)
    t = np.arange(0, result.duration, 0.01)
    tau = hodyn_cli.inverse_dynamics(model, result(t), result(t, 1), result(t, 2), order=0).tau
    assert np.abs(np.diff(tau, axis=0) / 0.01).max() > 1.5 * 60.0
    assert result.duration < opt.duration


# -- the command line ---------------------------------------------------------------------


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_cli_retime_optimal_then_check(tmp_path):
    """The windows' programmes from the command line (auto takes reachability, whose law
    for a torque rate of 40 N m/s, below gravity's own rate along much of the path, is 10.74
    s where the programmes find 9.33 s: docs/feasibility.md), the torque rates binding."""
    out = tmp_path / "fast.h5"
    limits = tmp_path / "rates.toml"
    limits.write_text("".join(f"[joints.iiwa_joint_{i}]\ntorque_rate = 40.0\n"
                              for i in range(1, 8)))
    res = run("retime", IIWA, SAMPLES / "iiwa14_cosine.h5", "--optimal", "--limits", limits,
              "--grid", 300, "--solver", "windows", "-o", out)
    assert res.exit_code == 0, res.output
    assert "along its path" in res.output and "torque rate of" in res.output
    with h5py.File(out) as f:
        assert f.attrs["duration"] < f.attrs["uniform_duration"]
        assert f["q"].shape[0] == f["t"].shape[0] and f["qdddddd"].shape[1] == 7
        assert any("torque rate" in b for b in f.attrs["binding"])
    assert run("check", IIWA, out, "--limits", limits).exit_code == 0
    tight = tmp_path / "tight.toml"
    tight.write_text("".join(f"[joints.iiwa_joint_{i}]\ntorque_rate = {40 * (1 - 1e-3)}\n"
                             f"velocity = {1.5 * (1 - 1e-3)}\n" for i in range(1, 8)))
    assert run("check", IIWA, out, "--limits", tight).exit_code == 1


def test_cli_retime_optimal_with_drives(tmp_path):
    """Rigid drives with friction: a current limit binds; check with the drives passes."""
    out = tmp_path / "fast.csv"
    limits = tmp_path / "current.toml"
    limits.write_text("[joints.iiwa_joint_1]\ncurrent = 0.4\n")
    drives = URDF / "iiwa14_motors.toml"
    res = run("retime", IIWA, SAMPLES / "iiwa14_cosine.h5", "--optimal", "--limits", limits,
              "--drives", drives, "--grid", 300, "--rate", 50, "-o", out)
    assert res.exit_code == 0, res.output
    assert run("check", IIWA, out, "--limits", limits, "--drives", drives).exit_code == 0
    model = hodyn_cli.load_robot(IIWA)
    back = read_trajectory(str(out), model, need=7)
    steps = np.diff(back.t)  # exactly 1/50 s apart from the start, the last step shorter
    assert np.abs(steps[:-1] - 0.02).max() < 1e-12 and 0.02 * optimal.SLIVER < steps[-1] <= 0.02


@pytest.mark.parametrize("args, words", [
    (["--optimal", "--factor", "2"], "--optimal does not go with --factor (it finds its own time law)"),
    (["--optimal", "--to-limits"], "--optimal does not go with --to-limits (it finds its own time law)"),
    (["--factor", "2", "--rate", "50"], "--rate goes with --optimal or --to-limits"),
    (["--to-limits", "--grid", "50"], "--grid goes with --optimal"),
    (["--to-limits", "--rate", "50", "--segments", "2"], "--to-limits --rate resamples the "
     "path as --optimal plays it: not with --segments, --floating-base, --wrench"),
    (["--optimal", "--drives", URDF / "iiwa14_drives.toml"],
     "--optimal does not go with series-elastic --drives yet"),
])
def test_cli_refusals_are_one_line(tmp_path, args, words):
    out = tmp_path / "x.h5"
    res = run("retime", IIWA, SAMPLES / "iiwa14_cosine.h5", *args, "-o", out)
    assert res.exit_code == 2 and words in res.output, res.output
    assert "Traceback" not in res.output and not out.exists()


def test_a_floating_base_is_refused_not_dropped():
    """The API as the command line: a motion with a floating root was retimed as its joints
    alone, the base's motion dropped and its contacts' cones ignored; now refused."""
    from conftest import floating_motion, legged_urdf
    from hodyn_cli.errors import HodynError
    from hodyn_cli.modeling.urdf import parse_model

    text = legged_urdf("solo", seed=2)
    model = parse_model(text.encode())
    traj = floating_motion(text, model, np.linspace(0, 1, 21), 3, seed=3)[0]
    with pytest.raises(HodynError, match="the time-optimal law does not go with a floating base"):
        hodyn_cli.retime_optimal(model, traj, limits={j: {"velocity": 1.0}
                                                      for j in model.joint_names})


def test_cli_refuses_a_motion_without_times(tmp_path):
    src = tmp_path / "no_t.csv"
    lines = (SAMPLES / "iiwa14_cosine.csv").read_text().splitlines()
    src.write_text("\n".join(",".join(row.split(",")[1:]) for row in lines[:60]) + "\n")
    res = run("retime", IIWA, src, "--optimal", "-o", tmp_path / "x.csv")
    assert res.exit_code == 2 and "needs a motion with times" in res.output, res.output


def _disagreeing(tmp_path):
    """The iiwa path with 1 mrad of noise on its positions only (as raw positions with
    filtered derivatives are), in an HDF5 file."""
    model, traj, _ = iiwa_path(T=3.0)
    d = traj.derivatives.copy()
    d[:, 0] += 1e-3 * np.random.default_rng(3).standard_normal(d[:, 0].shape)
    src = tmp_path / "noisy.h5"
    with h5py.File(src, "w") as f:
        f["t"] = traj.t
        for k, name in enumerate(("q", "qd", "qdd", "qddd", "qdddd")):
            f[name] = d[:, k]
        f.attrs["joint_names"] = list(model.joint_names)
    return model, Trajectory(traj.joint_names, d[:, :5], traj.t), src


def test_cli_refuses_a_path_whose_derivatives_disagree(tmp_path):
    """Played between its samples, such a path is beyond its limits everywhere: exit 2, one
    line naming the file and the column, nothing written."""
    _, _, src = _disagreeing(tmp_path)
    out = tmp_path / "fast.h5"
    res = run("retime", IIWA, src, "--optimal", "-o", out)
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and "noisy.h5: qd_iiwa_joint_" in res.output
    assert "does not follow from q_iiwa_joint_" in res.output and not out.exists()
    assert "--optimal plays the path" in res.output


def test_cli_names_the_resampling_that_refuses_a_path_whose_derivatives_disagree(tmp_path):
    """``--to-limits --rate`` resamples the path between its samples too: refused alike, the
    message naming that option, not --optimal."""
    _, _, src = _disagreeing(tmp_path)
    out = tmp_path / "slow.h5"
    res = run("retime", IIWA, src, "--to-limits", "--rate", "100", "-o", out)
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and "--to-limits --rate resamples the path" in res.output
    assert "--optimal" not in res.output and not out.exists()


def test_a_path_far_off_its_grid_falls_back_to_the_uniform_scaling(tmp_path, monkeypatch):
    """Were it not refused: limits that would have to be tightened by half or more are not
    planned for (they turned inside out: 'beyond its limit at any speed'); the uniform
    scaling, fitted from rest, is the result, within every limit."""
    monkeypatch.setattr(optimal, "APART", np.inf)
    model, traj, _ = _disagreeing(tmp_path)
    out, opt = hodyn_cli.retime_optimal(model, traj, grid=300, solver="windows")
    assert hodyn_cli.check_limits(model, out).feasible
    assert np.ptp(opt.path.law.coefficients) == 0

def test_cli_generate_optimal(tmp_path):
    """generate --respect-limits --optimal: the designed path played within the limits,
    faster than uniformly slower, at rest at its ends; check passes. (One leg, between
    IIWA_REST: the default waypoints' two legs through a rest cost 1.5 times its CPU;
    docs/feasibility.md's design of them runs among the slow tests, a rest at a corner in
    test_a_rest_at_a_corner_near_toppra.)"""
    limits = tmp_path / "tight.toml"
    limits.write_text("[joints.iiwa_joint_2]\ntorque_rate = 25.0\n")
    waypoints = tmp_path / "rests.csv"
    names = hodyn_cli.load_robot(IIWA).joint_names
    waypoints.write_text(",".join(names) + "\n"
                         + "".join(",".join(map(str, q)) + "\n" for q in IIWA_REST))
    out = tmp_path / "p2p.h5"
    res = run("generate", IIWA, "--kind", "point-to-point", "--segment-duration", "3",
              "--waypoints", waypoints, "--respect-limits", limits, "--optimal", "-o", out)
    assert res.exit_code == 0, res.output
    with h5py.File(out) as f:
        assert f.attrs["duration"] < f.attrs["uniform_duration"]
        assert np.abs(f["qd"][0]).max() == 0 and np.abs(f["qd"][-1]).max() < 1e-12
    assert run("check", IIWA, out, "--limits", limits).exit_code == 0
    res = run("generate", IIWA, "--kind", "cosine", "--optimal", "-o", tmp_path / "y.h5")
    assert res.exit_code == 2 and "--optimal goes with --respect-limits" in res.output


ALL_RATES = "".join(f"[joints.iiwa_joint_{i}]\ntorque_rate = 25.0\n" for i in range(1, 8))
JOINT_2 = "[joints.iiwa_joint_2]\ntorque_rate = 25.0\ntorque_acceleration = 60.0\n"


@pytest.mark.parametrize("args, limits, shorter", [
    # 0.26 (0.39 with the path speed capped at 3 times the uniform one and the law's
    # derivatives bounded on the uniform x alone: programme.slowness)
    pytest.param(["generate", "--kind", "point-to-point"], ALL_RATES, 0.3,
                 marks=pytest.mark.slow),  # (8.5 s: the rate-limited designs are slow tests)
    # docs/feasibility.md's design (validated there too): waypoints where the path is C^4
    # only (its q^[5] jumps), a law planned again at a calmer pace
    pytest.param(["generate", "--kind", "point-to-point", "--segment-duration", 3], JOINT_2,
                 0.6, marks=pytest.mark.slow),
    pytest.param(["generate", "--kind", "fourier"], ALL_RATES, 0.5, marks=pytest.mark.slow),
    # q .. q^(6): the spline's degree is 7, so the played q^(7) is continuous
    pytest.param(["retime", SAMPLES / "iiwa14_cosine.h5"], ALL_RATES, 0.75,
                 marks=pytest.mark.slow),
])
def test_cli_optimal_outputs_validate(tmp_path, args, limits, shorter):
    """Rate-limited designs and retimings, whose time laws pass rest points and free ends
    several times faster than elsewhere: the output's top derivative is consistent with the
    one below it (hodyn validate: the trapezoid rule, whose error is the order two above,
    which holds the time law's top derivative, and at the path's kinks the jump of the order
    above), as the law's derivatives are bounded to the path's time scale up to the
    spline's degree, its speed next to a kink by programme.kink_ceiling, and, where the
    played motion is less consistent than that all the same, at a calmer pace."""
    path = tmp_path / "limits.toml"
    path.write_text(limits)
    out = tmp_path / "fast.h5"
    command, *rest = args
    res = run(command, IIWA, *rest, "--respect-limits" if command == "generate" else "--limits",
              path, "--optimal", "-o", out)
    assert res.exit_code == 0, res.output
    with h5py.File(out) as f:
        assert f.attrs["duration"] < shorter * f.attrs["uniform_duration"]
    res = run("validate", IIWA, out)
    assert res.exit_code == 0, res.output


def test_a_long_grid_is_solved_window_by_window(monkeypatch):
    """A grid longer than a window: each programme changes the coefficients within its
    window only (the others held), the law stays within every limit at every grid point,
    and it comes within 3 % of the one programme over the whole grid (windows of 150
    points: each one's law returns to x0 at its end, which the next one's 50 points of
    overlap take up again)."""
    from hodyn_cli.api.limits import scale_search, scaling_laws

    model, traj, _ = iiwa_path(T=3.0)
    limits = hodyn_cli.joint_limits(model, {j: {"torque_rate": 60.0} for j in model.joint_names})
    # x0: the uniform scaling's, as retime_optimal's survey finds it (the same bits; its
    # whole retiming, ~0.6 s of CPU, is not what this test is about)
    search = scale_search(model, limits)
    search.add(scaling_laws(model, traj, order=1), traj)
    search.retiming()
    path, x0 = traj, search.best[0].x ** 2
    limited = programme.path_limits(model, path, limits, order=1)
    whole = programme.solve_windows(path.t, lambda a, b: programme.path_limits(
        model, Trajectory(path.joint_names, path.derivatives[a:b], path.t[a:b]), limits,
        order=1), x0, 5, 100.0, programme.time_scale(path))
    monkeypatch.setattr(programme, "WINDOW", 150)
    monkeypatch.setattr(programme, "OVERLAP", 50)
    seen = []

    def window(a, b):
        seen.append((a, b))
        return programme.path_limits(model, Trajectory(path.joint_names, path.derivatives[a:b],
                                                       path.t[a:b]), limits, order=1)

    law = programme.solve_windows(path.t, window, x0, 5, 100.0, programme.time_scale(path))
    assert len(seen) >= 3 and all(b - a <= 150 + 50 for a, b in seen)
    assert all(b1 - a2 == 50 for (_, b1), (a2, _) in zip(seen[:-1], seen[1:], strict=True))
    D = [programme._design(law.knots, 5, path.t, nu) for nu in range(4)]
    X = np.stack([Dn @ law.coefficients for Dn in D], axis=1)
    assert all(lim.usage(X) <= 1 + programme.FEASIBLE for lim in limited if lim.kind != "linear")
    assert law.duration < 0.9 * traj.t[-1] / np.sqrt(x0)
    assert whole.duration <= law.duration < 1.03 * whole.duration, (law.duration,
                                                                    whole.duration)


def test_a_window_changes_only_the_coefficients_within_it():
    """TimeLaw.inside: the B-splines whose support lies within a .. b."""
    law = programme.TimeLaw(np.linspace(0.0, 10.0, 11), np.ones(15), 5)
    free = law.inside(2.0, 7.0)
    t = law.knots
    assert free.tolist() == [j for j in range(15) if t[j] >= 2.0 and t[j + 6] <= 7.0]
    assert law.inside(0.0, 10.0).tolist() == list(range(15))


def test_the_time_law_rates_are_exact_on_a_fine_grid():
    """A constant law on 40 001 breaks: every derivative of x is 0 to rounding (the
    derivative splines of its coefficients' differences; the basis functions' own
    derivatives summed leave 1e-16 x / h^k, beyond 1e-3 in x^(5) here)."""
    law = programme.TimeLaw(np.linspace(0.0, 10.0, 40001), np.full(40001 + 6, 0.16), 7)
    rates = law.rates(np.linspace(0.0, 10.0, 1001), 7)
    assert np.all(rates[:, 0] == pytest.approx(0.4)) and np.abs(rates[:, 1:]).max() < 1e-12


def test_a_stalled_simplex_hands_over_to_the_interior_point(monkeypatch):
    """HiGHS's simplex out of iterations on every programme: its interior-point method solves
    them, and the law is as short as the simplex's."""
    model, traj, _ = iiwa_path(T=3.0)
    limits = {j: {"torque_rate": 60.0} for j in model.joint_names}
    _, simplex = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=300, solver="windows")
    monkeypatch.setattr(programme, "SIMPLEX_ITERATIONS", 0)
    out, interior = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=300, solver="windows")
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    assert interior.duration == pytest.approx(simplex.duration, rel=2e-3)
    assert interior.duration < 0.9 * interior.uniform_duration


def _random_programme(seed: int, m: int, n: int = 40):
    """(objective, bounds, A, lb, ub): a programme like the windows', many rows ``A c <= ub``
    near a box, few columns."""
    from scipy import sparse
    from scipy.optimize import Bounds

    rng = np.random.default_rng(seed)
    A = sparse.csr_matrix(rng.normal(size=(m, n)))
    lb, ub = np.full(m, -np.inf), 1.0 + rng.uniform(size=m)
    return rng.normal(size=n), Bounds(np.full(n, -5.0), np.full(n, 5.0)), A, lb, ub


def _spied(monkeypatch, attribute: str) -> list:
    """The list every highs.LP.solve from now on appends its LP's ``attribute`` to."""
    from hodyn_cli.algorithms.limits import highs

    seen, solve = [], highs.LP.solve

    def spied(lp, *args):
        x = solve(lp, *args)
        seen.append(getattr(lp, attribute))
        return x

    monkeypatch.setattr(highs.LP, "solve", spied)
    return seen


def test_the_simplex_hands_over_after_its_iterations_not_the_wall_clock(monkeypatch):
    """The simplex's budget is an iteration count per column (the same programme takes the
    same solver whatever the load): out of iterations, the interior point solves it to the
    simplex's optimum, and nothing of HiGHS's reaches the user."""
    import warnings

    objective, bounds, A, lb, ub = _random_programme(7, 400)
    m = len(lb)
    methods = _spied(monkeypatch, "method")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simplex, _ = programme._linear_programme(objective, bounds, A, lb, ub, np.zeros(m))
        assert set(methods) == {"simplex"}
        methods.clear()
        monkeypatch.setattr(programme, "SIMPLEX_ITERATIONS", 0)
        handed, _ = programme._linear_programme(objective, bounds, A, lb, ub, np.zeros(m))
    # (the first solve has no rows, none near its bounds at c = 0: no iteration; the rows
    # added after the interior point's may be within HiGHS's tolerance at its basis)
    assert "ipm" in methods
    assert simplex is not None and handed is not None
    assert objective @ handed == pytest.approx(objective @ simplex, rel=1e-6)
    assert (A @ handed <= ub + 1e-7).all()


def test_a_programme_out_of_rounds_hands_on_the_basis_of_its_last_solve(monkeypatch):
    """A programme whose broken rows take more rounds than ROUNDS is given up (no step), but
    its last solve's basis, optimal on the rows it had, starts the next programme (the trust
    region's smaller step: the same rows): that one needs fewer simplex iterations than from
    scratch, and has the optimum all the same (scipy's HiGHS, an independent build)."""
    from scipy.optimize import LinearConstraint, milp

    # (no row near its bound at c = 0: every one comes in a round)
    objective, bounds, A, lb, ub = _random_programme(11, 600)
    m = len(lb)
    iterations = _spied(monkeypatch, "iterations")
    monkeypatch.setattr(programme, "ROUNDS", 2)
    given_up, active = programme._linear_programme(objective, bounds, A, lb, ub, np.zeros(m))
    assert given_up is None and active.basis is not None and active.rows.sum() > 0
    monkeypatch.setattr(programme, "ROUNDS", 8)
    iterations.clear()
    warm, _ = programme._linear_programme(objective, bounds, A, lb, ub, np.zeros(m), active)
    from_basis = sum(iterations)
    iterations.clear()
    cold, _ = programme._linear_programme(objective, bounds, A, lb, ub, np.zeros(m),
                                          programme._Active(active.rows, active.order, None))
    assert warm is not None and cold is not None and from_basis < sum(iterations)
    best = milp(objective, bounds=bounds, constraints=LinearConstraint(A, lb, ub)).x
    assert objective @ warm == pytest.approx(objective @ best, rel=1e-9)


def test_a_short_grid_is_filled_no_finer_than_the_path_needs():
    """A path of 21 samples is filled with points between them up to FILL per unit of its
    time scale (a 0.2 s fourier motion of the iiwa: its programmes stalled HiGHS on 1281
    points), or up to the target."""
    model = hodyn_cli.load_robot(IIWA)
    fast = generate(model, "fourier", duration=0.2, derivatives=4)
    grid = programme.PathGrid()
    grid.add(fast)
    h = np.diff(grid.path().t).max()
    finest = 1 / (programme.FILL * programme.time_scale(fast))
    assert finest <= h < 2 * finest and grid.path().n_samples < 400
    _, slow, _ = iiwa_path(T=3.0)
    grid = programme.PathGrid()
    grid.add(slow)
    filled = grid.path()
    finest = 1 / (programme.FILL * programme.time_scale(slow))
    assert filled.n_samples == 2 * slow.n_samples - 1 and np.diff(filled.t).max() < 2 * finest

def test_time_law_varies_no_faster_than_the_path():
    """Every derivative of x(s) up to the spline's degree within 2 x0 nu^k, nu at most
    PACE times the path's time scale times sqrt(x0 / x) (imposed at the previous programme's
    x: within its trust region of it, checked here at the final x with 10 % on nu)."""
    model, traj, _ = iiwa_path(T=3.0)
    limits = {j: {"torque_rate": 60.0} for j in model.joint_names}
    _, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=300, solver="windows")
    law, x0 = opt.path.law, opt.path.uniform.x ** 2
    s = np.linspace(law.breaks[0], law.breaks[-1], 20001)
    nu = 1.1 * programme.PACE * programme.time_scale(traj) * np.sqrt(x0 / law.spline(s))
    for k in range(2, law.degree + 1):
        assert (np.abs(law.spline(s, k)) <= 2 * x0 * nu**k).all(), k
    assert opt.duration < 0.9 * opt.uniform_duration


def test_api_reports_json_friendly_attributes(rate_limited):
    *_, opt = rate_limited
    attrs = opt.attributes
    json.dumps(attrs)
    assert attrs["duration"] == opt.duration and attrs["grid_points"] > 0


def test_never_slower_than_the_uniform_scaling():
    """On a grid far too coarse for the path, the result falls back to the uniform scaling
    (played at the output's rate, fitted onto its limits): within every limit, and no slower
    than retime --to-limits (but for its samples falling elsewhere on the path: 1e-4)."""
    model, traj, _ = iiwa_path(T=3.0)
    limits = {j: {"torque_rate": 60.0} for j in model.joint_names}
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=8, solver="windows")
    # (the fallback itself: without this the test stopped reaching it unnoticed once auto
    # took reachability's law, which ignores the grid)
    assert opt.used == "uniform"
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    assert opt.duration <= opt.uniform_duration * (1 + 1e-4)


def test_mimic_joints(tmp_path):
    """A <mimic> joint follows its leader: the path is over the independent joints, the
    limits over all of them; the retimed motion passes check."""
    from conftest import MIMIC_CASES, mimic_urdf

    model = hodyn_cli.load_robot(mimic_urdf(tmp_path, *MIMIC_CASES["iiwa 3 follows 1"]))
    names = model.coordinate_names
    t = np.arange(151) / 100  # (1.5 s: bound by its torque rates as over 3 s, half the cost)
    traj = cosine(names, t, amplitude=np.full(len(names), 0.5),
                  omega=np.linspace(1, 2, len(names)), phase=np.zeros(len(names)),
                  offset=np.zeros(len(names)), orders=5)
    limits = {j: {"torque_rate": 40.0} for j in model.joint_names}
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=300)
    assert out.joint_names == names
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    assert opt.duration < 0.9 * opt.uniform_duration


def test_a_stalled_programme_ends_with_the_law_so_far(monkeypatch):
    """HiGHS out of its iterations on every programme (as it was, for ever, on a 0.2 s fourier path
    of the iiwa): the result comes back at once, the uniform scaling, within every limit."""
    model, traj, _ = iiwa_path(T=3.0)
    limits = {j: {"torque_rate": 60.0} for j in model.joint_names}
    monkeypatch.setattr(programme, "SIMPLEX_ITERATIONS", 0)
    monkeypatch.setattr(programme, "IPM_ITERATIONS", 0)
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=300, solver="windows")
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    assert abs(opt.duration / opt.uniform_duration - 1) < 1e-3


# -- the output's sampling and what it reports -------------------------------------------


def test_output_samples_are_exactly_one_over_the_rate_apart():
    """--rate R: the output's samples are k/R from its start (to rounding), the last step
    shorter; every limit holds there, one on it, and hodyn validate passes it."""
    model, traj, _ = iiwa_path(T=1.0)
    limits = {j: {"torque_rate": 60.0} for j in model.joint_names}
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, grid=100, rate=37.3,
                                        solver="windows")
    k = np.arange(out.n_samples - 1)
    assert np.abs(out.t[:-1] - k / 37.3).max() < 1e-13
    assert 0 < out.t[-1] - out.t[-2] <= 1 / 37.3 and out.t[-1] == pytest.approx(opt.duration)
    check = hodyn_cli.check_limits(model, out, limits=limits)
    assert check.feasible and max(r.usage for r in check.rows) > 1 - 1e-3
    assert hodyn_cli.validate_motion(model, out, samples=50).passed


def test_a_sliver_of_a_last_step_is_taken_by_the_one_before():
    """A duration a hair (less than SLIVER of a step) beyond a whole number of steps ends
    with one step that much longer, not with a sliver; otherwise the last step is shorter."""
    law = programme.TimeLaw(np.linspace(0.0, 1.0, 5), np.full(10, 1.0), 5)  # 1 s at x = 1
    uniform = feasibility.Binding(1.0, "velocity", "j", 0, 0.0, 1.0, 1.0)
    for step, last in ((0.1 / (1 + 1e-5), 0.1 / (1 + 1e-5) * (1 + 1e-5 * 10)),
                       (0.3, 0.1)):
        plan = optimal.Plan(law, 0.0, step, uniform, 1.0, 5)
        t = plan.at(np.arange(plan.samples + 1))
        assert np.allclose(np.diff(t)[:-1], step, rtol=0, atol=1e-15)
        assert np.diff(t)[-1] == pytest.approx(last, rel=1e-9) and t[-1] == pytest.approx(1.0)


def test_where_limits_bind_is_the_output_s_and_never_empty(rate_limited):
    """The report of where the output is on its limits is the output's own: its nearest
    limit is check's largest usage; played 10 % slower it is on none, and the summary names
    the nearest instead of ending empty."""
    model, _, _, limits, out, opt = rate_limited
    check = hodyn_cli.check_limits(model, out, limits=limits)
    assert opt.bound.peak[0] == pytest.approx(max(r.usage for r in check.rows), rel=1e-12)
    assert opt.bound.summary().startswith("on its limits: torque rate of iiwa_joint_")
    slow = scaled(out, 1 / 1.1, out.t * 1.1)
    bound = optimal.Bound(model, opt.limits)
    bound.add(opt._laws(slow), slow.t)
    text = bound.summary()
    assert text.startswith("on no limit within 1 % (nearest: ") and text.endswith(
        "% of its limit)"), text


@pytest.mark.parametrize("rate, T", [(20.0, 2.0), (500.0, 0.6), (10_000.0, 0.25),
                                     pytest.param(10_000.0, 0.5, marks=pytest.mark.slow)])
def test_outputs_validate_at_every_input_rate(rate, T):
    """Retimed from 20 Hz to 10 kHz, the output passes hodyn validate, and the retiming's
    own consistency check (the code validate runs) finds it well inside its tolerance: at 10
    kHz the rounding of the input's positions, 0.1 ms apart, must not reach q'' (from two
    orders down it made the output's qddd a quarter of its tolerance on 0.5 s of this path,
    and 20 times beyond it on a point-to-point path). (The linear programmes: reachability's
    output of the 10 kHz case passes validate at 0.55 of its tolerance.)"""
    model, traj, _ = iiwa_path(T=T, rate=rate, orders=5)
    out, opt = hodyn_cli.retime_optimal(model, traj, solver="windows")
    assert opt.duration < 0.9 * opt.uniform_duration
    report = hodyn_cli.validate_motion(model, out, samples=50)
    assert report.passed, [c for c in report.checks if c.status == "fail"]
    differences = Differences()
    differences.add(out.derivatives, out.t, 0)
    assert differences.share(RTOL) < (0.1 if rate > 1000 else 0.5)


def test_the_path_between_fine_samples_keeps_rounding_out_of_its_derivatives():
    """Positions exact to 1e-13 (as files are), 0.1 ms apart: q'' between the samples is
    within 1e-8 of the path's (taken from q, q' .. over h^2 it would be 1e-5 off)."""
    model, traj, path = iiwa_path(T=0.01, rate=10_000.0, orders=5)
    noisy = traj.derivatives.copy()
    noisy[:, 0] += RNG.uniform(-1e-13, 1e-13, noisy[:, 0].shape)
    s = np.linspace(0.0, 0.01, 77)
    got = programme.between(Trajectory(traj.joint_names, noisy, traj.t), s)
    want = path(s)
    assert np.abs(got[:, 2] - want[:, 2]).max() < 1e-8 * np.abs(want[:, 2]).max()
    assert np.abs(got[:, :5] - want[:, :5]).max() < 1e-6


def test_the_retiming_checks_consistency_as_validate_does():
    """Differences.share (what --optimal judges its output by) is beyond 1 exactly where
    hodyn validate fails a motion's data consistency: qdd with noise of 1e-6 at 10 kHz."""
    model, traj, _ = iiwa_path(T=0.1, rate=10_000.0, orders=5)
    for noise, fails in ((0.0, False), (1e-6, True)):
        d = traj.derivatives.copy()
        d[:, 2] *= 1 + RNG.uniform(-noise, noise, d[:, 2].shape)
        motion = Trajectory(traj.joint_names, d, traj.t)
        differences = Differences()
        differences.add(d, traj.t, 0)
        report = hodyn_cli.validate_motion(model, motion, samples=20)
        consistency = [c for c in report.checks if c.group == "data consistency"
                       and c.tolerance]
        assert any(c.status == "fail" for c in consistency) == fails
        assert (differences.share(RTOL) > 1) == fails


def test_a_cornered_path_whose_windows_lose_keeps_reachabilitys_law(tmp_path):
    """The two-link arm's point-to-point path through three waypoints (0.5 s legs at 20 Hz)
    with a jerk of 900 rad/s^3 (at 1200, 1.52 with the ramps' 1/3 step; 1.43 with their 1/6
    one, ramps17, and the windows not run): reachability's law 1.53 times its passes' (beyond
    CORNERED_SLACK, 1.5), a corner at its middle rest, jerks alone, a coarse output: auto
    runs the windows after it, and their law, far longer (held at the corner by their kink
    ceiling), is not kept (at 1200 with the 1/3 step: 1.17 s of CPU for reachability's 0.97 s
    law, 0.31 s without the windows: the price of CORNERED_SLACK below the 1.50-1.59 where
    the windows won on other arms' paths)."""
    import csv

    robot = URDF / "planar_2r.urdf"
    model = hodyn_cli.load_robot(str(robot))
    low, high = model.limits[:, 0], model.limits[:, 1]
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    turns = [[-0.3, 0.2], [0.25, -0.15], [-0.1, 0.25]]
    points, path = tmp_path / "points.csv", tmp_path / "p2p.h5"
    with open(points, "w", newline="") as f:
        csv.writer(f).writerows([model.joint_names, *(middle + half * np.array(turns))])
    res = CliRunner().invoke(app, ["generate", str(robot), "--kind", "point-to-point",
                                   "--waypoints", str(points), "--segment-duration", "0.5",
                                   "--rate", "20", "--allow-limit-violation", "-o", str(path)])
    assert res.exit_code == 0, res.output
    motion = read_trajectory(str(path), model)
    limits = {j: {"jerk": 900.0} for j in model.joint_names}
    _, auto = hodyn_cli.retime_optimal(model, motion, limits=limits)
    assert auto.ran == ("reachability", "windows") and auto.used == "reachability"
    assert auto.needed == optimal.CORNERED_SLACK < auto.slack < 1.59, auto.slack
    _, windows = hodyn_cli.retime_optimal(model, motion, limits=limits, solver="windows")
    assert windows.used == "windows" and windows.duration > 1.2 * auto.duration
