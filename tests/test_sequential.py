"""issue 37: the rounds' law raised by sequential linear programmes on the arc grid
(hodyn_cli/algorithms/limits/sequential.py): its rows against the limits' own values of a
law changed along its correction (finite differences), the tangent rows of the sqrt(x) form
conservative, and the pass never worse than the law it starts from. End to end (durations
against the windows, hodyn check and validate): tests/test_rates.py, test_rates_lift.py."""

from dataclasses import replace

import highspy
import numpy as np
import pytest
from test_rates import _iiwa_law

from hodyn_cli.algorithms.limits import rates, reachability, sequential


@pytest.fixture(scope="module")
def iiwa():
    """The iiwa's Fourier path with its limits file (velocity, torque, torque rate and
    torque acceleration; 0.5 s, 200 grid points): the rounds' played law, its limits at the
    grid points and their jets there."""
    arc, law, at, rows, reach = _iiwa_law(seconds=0.5, points=200)
    kept = rates.kept(arc, law, at, rows, reach, lift=False)
    assert kept is not None and kept[0].played is not None
    x = kept[0].played
    return arc.sigma, x, at(0, len(x)), sequential._jets(arc.sigma, x)


def _correction(sigma: np.ndarray, x: np.ndarray) -> tuple[sequential._Basis, np.ndarray]:
    """The correction's basis and a smooth change of x along it (a few per cent of x)."""
    D = sequential._basis(sigma, x)
    n = D.n
    coefficients = np.sin(np.linspace(0, 3 * np.pi, n)) * 0.05 * x.max()
    coefficients[: sequential.FROZEN] = coefficients[-sequential.FROZEN :] = 0
    return D, coefficients


def test_the_rows_are_the_limits_first_order_change_along_the_correction(iiwa):
    """Each limit's rows (both forms) predict its values for the law changed by eps times
    a correction to second order in eps: the error of a linearised row (a torque
    acceleration) falls ~4 times when eps halves; a torque's and a sqrt(x) form's
    (velocity, torque rate: g(X) = value / sqrt(x)) are exact to rounding."""
    sigma, x, limits, X = iiwa
    D, c = _correction(sigma, x)
    forms = {}
    for limit in limits:
        model = sequential._Model.of(limit, X, 0)
        forms[limit.quantity.key] = model.x0 is not None
        errors = []
        for eps in (0.2, 0.1):
            dX = D.at(eps * c)
            Y = sequential._jets(sigma, x + dX[:, 0])
            # (the played spline of x + dx is the correction's to rounding but at the ends)
            inner = slice(20, -20)
            predicted = model.base + np.einsum("pjd,pd->pj", model.grad, Y - X)
            actual = limit.values(Y)
            if model.x0 is not None:
                actual = actual / np.sqrt(Y[:, :1])
            scale = np.abs(actual[inner]).max()
            errors.append(np.abs(predicted - actual)[inner].max() / scale)
        # (exact where the limit is affine in X: a sqrt(x) form's g, a torque)
        assert errors[1] < 1e-8 or (errors[0] < 0.05 and 2.5 < errors[0] / errors[1] < 6), (
            limit.quantity.key, errors)
        forms[limit.quantity.key] = (forms[limit.quantity.key], errors[1] < 1e-8)
    assert forms == {"velocity": (True, True), "torque": (False, True),
                     "torque_rate": (True, True), "torque_acceleration": (False, False)}


def test_a_tangent_row_kept_keeps_its_limit(iiwa):
    """A sqrt(x) form's rows (the tangent of bound / sqrt(x)): wherever a changed law keeps
    them, the limit itself is kept (their right side below the true one, its convex
    curve), for changes of x up to 60 % either way."""
    sigma, x, limits, X = iiwa
    [limit] = [lim for lim in limits if lim.quantity.key == "torque_rate"]
    model = sequential._Model.of(limit, X, 0)
    rest = sequential.REST * x.max()
    for factor in (0.4, 0.8, 1.3, 1.6):
        Y = X * [factor, factor, factor, factor]
        dX = Y - X
        g = limit.values(Y) / np.sqrt(Y[:, :1])
        P, m = X.shape[0], limit.coefficients.shape[1]
        p, j = np.divmod(np.arange(P * m), m)
        for side, bound in zip(model.sides(rest), (limit.upper, limit.lower), strict=True):
            rhs, sign = side.rhs, side.sign
            row = np.einsum("rd,rd->r", side.at(p, j), dX[p]).reshape(P, m)
            # (the row's slack below the true slack: the row kept, the limit is)
            assert np.all(sign * (rhs - row) <= sign * (bound / np.sqrt(Y[:, :1]) - g) + 1e-9
                          * np.abs(bound / np.sqrt(Y[:, :1])))


def test_the_pass_is_never_worse_than_the_law_it_starts_from(iiwa, monkeypatch):
    """sequential.refined on the rounds' law: within every limit at every grid point
    (TOLERANCE), shorter by 1 % or more; a grid beyond MOST, or steps that find nothing
    shorter, leave the law as it is (the same array)."""
    sigma, x, limits, _ = iiwa
    M = len(x)
    out = sequential.refined(sigma, x, lambda a, b: limits, [(0, M)], rates.TOLERANCE)
    Y = sequential._jets(sigma, out)
    assert max(limit.usage(Y) for limit in limits) <= 1 + rates.TOLERANCE
    assert reachability.law_duration(sigma, out) < 0.99 * reachability.law_duration(sigma, x)
    monkeypatch.setattr(sequential, "MOST", M - 1)
    assert sequential.refined(sigma, x, lambda a, b: limits, [(0, M)], rates.TOLERANCE) is x
    monkeypatch.setattr(sequential, "MOST", M)
    monkeypatch.setattr(sequential, "TRUST", 0.0)  # (no room: no step shortens it)
    assert sequential.refined(sigma, x, lambda a, b: limits, [(0, M)], rates.TOLERANCE) is x


def _slower_by_search(limit, X):
    """The largest share of its limit ``limit`` takes played s times as fast, s on a fine
    grid of (0, 1] (x .. x''' scale as s^2: the brute force sequential._slower is)."""
    return max(limit.usage(s * s * X) for s in np.linspace(1e-3, 1.0, 2001))


def test_the_share_played_slower_is_the_largest_over_every_slower_playing(iiwa):
    """sequential._slower against a search over s: exact for the torque rates and torque
    accelerations (two grades, a band about 0; to the search grid's resolution) and the
    velocities (one grade: the share at s = 1); where the torque rate's inertial part (s^3)
    runs against gravity's rate along the path (s), a limit the law is on at s = 1 is left
    by a slower playing (9.2 times at its worst point here), as the final fit's scaling
    search finds it."""
    sigma, x, limits, X = iiwa
    for limit in limits:
        if limit.quantity.key == "torque":  # (gravity's own part: none of the law's)
            continue
        exact, search = sequential._slower(limit, X), _slower_by_search(limit, X)
        assert search - 1e-6 <= exact <= search + 1e-4, (limit.quantity.key, exact, search)
        assert exact >= limit.usage(X) * (1 - 4 * np.finfo(float).eps)  # (to rounding)
    [rate] = [lim for lim in limits if lim.quantity.key == "torque_rate"]
    f = np.stack([rate.values(s * s * X) for s in np.linspace(1e-3, 1.0, 2001)])
    ratio = np.abs(f).max(axis=0) / np.abs(f[-1])  # (played slower against s = 1)
    p, j = np.unravel_index(ratio.argmax(), ratio.shape)
    assert ratio[p, j] > 2  # (9.2: the inertial part against gravity's rate)
    bound = np.abs(f[-1, p, j : j + 1])  # (a limit the law is on at s = 1 there)
    one = replace(rate, coefficients=rate.coefficients[p : p + 1, j : j + 1],
                  lower=-bound, upper=bound)
    assert one.usage(X[p : p + 1]) == pytest.approx(1.0)
    assert sequential._slower(one, X[p : p + 1]) == pytest.approx(ratio[p, j], rel=1e-5)


def test_a_limits_gradient_is_its_values_stepped_in_complex_numbers(iiwa):
    """PathLimit.gradient (the monomials' complex steps through the coefficients once)
    against the whole limit's values stepped in complex numbers, direction by direction, for
    every limit of the iiwa's file and a torque rate with friction (a, c, b per point and
    joint): the same to rounding; its values are :meth:`values`' own."""
    sigma, x, limits, X = iiwa
    rng = np.random.default_rng(5)
    [rate] = [lim for lim in limits if lim.quantity.key == "torque_rate"]
    rubbing = replace(rate, friction=rng.uniform(0.1, 2.0, rate.coefficients.shape[:2] + (3,)))
    step = 1e-30
    for limit in [*limits, rubbing]:
        V, G = limit.gradient(X)
        assert np.array_equal(V, limit.values(X))
        stepped = np.stack([limit.values(X + 1j * step * np.eye(4)[d]).imag / step
                            for d in range(4)], axis=-1)
        scale = np.abs(stepped).max(axis=(0, 1))
        assert np.all(np.abs(G - stepped).max(axis=(0, 1)) <= 1e-12 * scale), (
            limit.quantity.key, limit.friction is not None)


def test_a_chunks_limits_share_their_derivatives_to_the_bit(iiwa, monkeypatch):
    """programme.Derivatives: the time law's derivatives at X, at its four complex steps and
    each limit's monomials, made once for every limit of a chunk (each had made its own at
    every step): every limit's values and gradient (and a torque rate's with friction, the
    steps read again) from one shared object are those made alone, to the bit, and the
    derivatives are made twice for all of them (X, and its four steps stacked in one call),
    not 5 times a limit; the monomials' gradients from the steps stacked are those of each
    step on its own (a monomial's complex step, step by step), to the bit."""
    from hodyn_cli.algorithms.limits import programme

    sigma, x, limits, X = iiwa
    rng = np.random.default_rng(7)
    [rate] = [lim for lim in limits if lim.quantity.key == "torque_rate"]
    rubbing = replace(rate, friction=rng.uniform(0.1, 2.0, rate.coefficients.shape[:2] + (3,)))
    every = [*limits, rubbing] + [part for lim in limits
                                  if (part := sequential._slowest(lim)) is not None]
    alone = [lim.gradient(X) for lim in every]
    made = []
    derivatives = programme.time_derivatives

    def counted(Y):
        made.append(Y.dtype)
        return derivatives(Y)

    monkeypatch.setattr(programme, "time_derivatives", counted)
    at = programme.Derivatives(X)
    for lim, (V, G) in zip(every, alone, strict=True):
        shared = lim.gradient(X, at)
        assert np.array_equal(shared[0], V) and np.array_equal(shared[1], G)
        assert np.array_equal(lim.values(X, at), V)
    assert len(made) == 2, made
    for lim in every:  # (each monomial factor by factor, as it was made before it shared)
        one_by_one = np.stack([_factor_by_factor(s, lim.monomials).imag
                               / programme._COMPLEX_STEP for s in at.stepped()], axis=-1)
        assert np.array_equal(at.jacobian(lim.monomials), one_by_one)
        assert np.array_equal(at.monomials(lim.monomials),
                              _factor_by_factor(at.sigma, lim.monomials))


def _factor_by_factor(sigma: np.ndarray, monomials) -> np.ndarray:
    """(E, n) each monomial of sigma's columns multiplied out on its own, from ones."""
    out = np.ones((len(sigma), len(monomials)), dtype=sigma.dtype)
    for i, parts in enumerate(monomials):
        for k in parts:
            out[:, i] = out[:, i] * sigma[:, k - 1]
    return out


def test_the_first_programme_starts_from_the_nearest_row_of_each_group():
    """sequential._near: of a side's rows within NEAR of their bound (the room left, in
    units of the bound's scale), the nearest per joint and quarter of a knot interval
    (KNOTS // 4 grid points, as the broken rows are taken): all of them, 2 396 on the
    xArm7's stop with --jerk 20, cost HiGHS at each of the first programme's re-solves."""
    group = sequential.KNOTS // 4
    room = np.full((3 * group, 2), 0.5)
    room[[3, 5, 2 * group + 4], 0] = [0.01, 0.02, 0.02]
    room[group + 2, 0] = 0.001
    room[group + 1, 1] = 0.025
    size = np.ones_like(room)
    expected = {(3, 0), (group + 2, 0), (2 * group + 4, 0), (group + 1, 1)}
    for sign in (1.0, -1.0):
        p, j = sequential._near(sign * room, size, sign)
        assert set(zip(p.tolist(), j.tolist(), strict=True)) == expected
    # (the room in units of each row's own scale: 0.02 of 0.5 is 0.04, beyond NEAR)
    size[5, 0], size[3, 0] = 10.0, 0.5
    p, j = sequential._near(room, size, 1.0)
    assert (5, 0) in set(zip(p.tolist(), j.tolist(), strict=True))


def test_the_trust_regions_rows_come_in_the_farthest_out_of_each_group():
    """sequential._left: the grid points the change of x leaves the trust region at (by more
    than VIOLATED of it), the farthest out per quarter knot interval (every one left, 3 949
    of the xArm7's 4 001 after its first solve, held as many rows again as its limits');
    at rest (a region of width 0) any change leaves it."""
    group = sequential.KNOTS // 4
    span, down = np.ones(3 * group), np.full(3 * group, 0.5)
    dx = np.zeros(3 * group)
    dx[[2, 4]] = [1.5, 2.0]
    dx[group + 3], dx[group + 5] = -0.7, 0.9
    dx[2 * group + 1] = 1 + sequential.VIOLATED / 2  # (within its tolerance)
    x0 = np.ones(3 * group)

    def left() -> list:
        return sequential._left(dx, span, down, span * (1 + sequential.VIOLATED), x0).tolist()

    assert left() == [4, group + 3]
    span[2 * group + 6] = down[2 * group + 6] = x0[2 * group + 6] = 0.0
    dx[2 * group + 6] = 1e-9
    assert left() == [4, group + 3, 2 * group + 6]
    # (a folded velocity's ceiling below the region's: the point within the region is left
    # past the velocity's own tolerance alone, and ranked by its distance beyond its side)
    ceiling = span * (1 + sequential.VIOLATED)
    ceiling[group + 5] = 0.5
    assert sequential._left(dx, span, down, ceiling, x0).tolist() == [4, group + 3,
                                                                       2 * group + 6]
    ceiling[group + 5], span[group + 5] = 0.3, 0.29
    assert sequential._left(dx, span, down, ceiling, x0).tolist() == [4, group + 5,
                                                                       2 * group + 6]


def test_the_rows_found_and_least_are_numpys_nonzero_and_min():
    """sequential._where and _least (their docstrings: numpy's ``nonzero`` and ``min(axis=1)``
    made cheaper on (P, m) of a few joints) give the same (points, joints) in the same order
    and the same numbers: ties, infinities, NaN (it wins, as in ``min``), no row, one joint,
    nothing or everything found."""
    rng = np.random.default_rng(11)
    a = rng.integers(-3, 4, (60, 7)).astype(float)
    a[5, 2], a[9] = np.nan, np.inf  # (a NaN beside smaller numbers; a row of inf)
    a[17, [0, 6]] = np.nan, -np.inf
    for x in (a, a[:, :1], a[:0], np.zeros((4, 3)), -np.ones((4, 3))):
        assert np.array_equal(sequential._least(x), x.min(axis=1), equal_nan=True)
        for mask in (x < 0, x == 1, np.isnan(x), x == x):
            p, j = sequential._where(mask)
            want = np.nonzero(mask)
            assert np.array_equal(p, want[0]) and np.array_equal(j, want[1])


def test_a_limits_two_shares_come_from_one_evaluation_of_its_values(iiwa, monkeypatch):
    """sequential._shares: the share at the law's pace is PathLimit.usage's and the share
    played slower _slower's, to the bit, from the limit's values made once (and its slowest
    part's once): a trial step's check had made them two or three times a limit."""
    sigma, x, limits, X = iiwa
    made = []
    values = sequential.PathLimit.values

    def counted(self, Y, at=None):
        made.append(self.quantity.key)
        return values(self, Y, at)

    for limit in limits:
        part = sequential._slowest(limit)
        pace, slower = limit.usage(X), sequential._slower(limit, X)
        monkeypatch.setattr(sequential.PathLimit, "values", counted)
        made.clear()
        assert sequential._shares(limit, part, X) == (pace, slower)
        assert len(made) == (1 if part is None else 2), limit.quantity.key
        monkeypatch.setattr(sequential.PathLimit, "values", values)


def test_a_limits_slower_share_lets_no_other_limit_past_its_own_at_the_laws_pace(
        iiwa, monkeypatch):
    """A torque rate whose inertial part runs against gravity's (here made so: V1 = -0.9
    V0 at every point) takes 4.06 times its limit played slower, while the law keeps it and
    the velocity limit (both on the limit at s = 1): the steps may keep that slower share,
    not take it as a bound on the velocity at the law's own pace. Steps that raise x by 10 %
    (shorter; the velocity 1.049 times its limit) are refused; they had been kept, twice:
    the velocity 1.21 times its limit, the torque rate 3.84 times its own."""
    sigma, x, limits, X = iiwa
    [velocity] = [lim for lim in limits if lim.quantity.key == "velocity"]
    [rate] = [lim for lim in limits if lim.quantity.key == "torque_rate"]
    top = np.abs(velocity.values(X)).max(axis=0)
    velocity = replace(velocity, lower=-top, upper=top)
    c = np.zeros_like(rate.coefficients)
    c[..., rate.monomials.index((1,))] = 1.0
    c[..., rate.monomials.index((1, 1, 1))] = -0.9 / x[:, None]
    opposed = replace(rate, coefficients=c)
    top = np.abs(opposed.values(X)).max(axis=0)
    opposed = replace(opposed, lower=-top, upper=top)
    both = [velocity, opposed]
    assert max(lim.usage(X) for lim in both) == pytest.approx(1.0)
    assert sequential._slower(opposed, X) > 4

    def raising(models, D, free, x0, sigma, trust, previous, played):  # (x 1.1: shorter)
        return np.linalg.lstsq(_matrix(D, 0), 0.1 * x0, rcond=None)[0], None

    monkeypatch.setattr(sequential, "_programme", raising)
    out = sequential.refined(sigma, x, lambda a, b: both, [(0, len(x))], rates.TOLERANCE)
    Y = sequential._jets(sigma, out)
    assert max(lim.usage(Y) for lim in both) <= 1 + rates.TOLERANCE
    assert sequential._slower(opposed, Y) <= sequential._slower(opposed, X) + 1e-9


def test_a_grid_beyond_most_is_left_before_its_basis_is_made(monkeypatch):
    """A grid of more than MOST points is returned as it is without the correction's basis
    being made (its values at every point, once four sparse matrices: a peak RSS of 540 MiB
    against 100 MiB on 1.2 x 10^6 points, for a programme never run)."""
    def made(sigma, *_):
        raise AssertionError(f"the basis of {len(sigma)} points was made")

    monkeypatch.setattr(sequential, "_basis", made)
    sigma = np.linspace(0.0, 1.0, sequential.MOST + 1)
    x = np.ones_like(sigma)
    assert sequential.refined(sigma, x, lambda a, b: [], [(0, len(x))], rates.TOLERANCE) is x


def test_free_ends_are_raised_where_the_rounds_left_them(iiwa):
    """Neither end of the iiwa's Fourier path is a rest (x > 0 there): the correction is free
    up to them (sequential._smoothed's projection first), so the programmes raise the path
    speed at both ends above the rounds' (2.227 -> 2.41 and 2.387 -> 2.59 on this fixture;
    with the ends frozen, as before, they stayed the rounds' to the bit) within every limit."""
    sigma, x, limits, _ = iiwa
    M = len(x)
    out = sequential.refined(sigma, x, lambda a, b: limits, [(0, M)], rates.TOLERANCE)
    Y = sequential._jets(sigma, out)
    assert max(limit.usage(Y) for limit in limits) <= 1 + rates.TOLERANCE
    assert out[0] > 1.1 * x[0] and out[-1] > 1.1 * x[-1], (out[[0, -1]], x[[0, -1]])


def test_the_projection_takes_out_a_kink_and_leaves_a_rest_alone(iiwa):
    """sequential._smoothed: a dent 8 grid intervals wide and 1e-4 of x deep in the rounds'
    law (its kinks' 4th differences 400 times the law's own; the torque acceleration, which
    reads x''', at 1.46 of its limit against 0.42) is gone from the projection (4th
    differences under a fifteenth of the dent's, 39 times under; the torque acceleration the
    law's), which moves x by less than the dent is deep; a piece with an end at rest is not
    projected (None: its ends stay frozen). (Judged against the law's own 4th differences
    before the rounds averaged the Catmull-Rom interpolant, reachability.swept: those were
    the linear one's ripple, ~20 times smaller than the dent's, twice the projection's.)"""
    sigma, x, limits, _ = iiwa
    M = len(x)
    base = 0.97 * x
    dent = 1e-4 * np.maximum(0.0, 1 - np.abs(np.arange(M) - M // 2) / 8)
    kinked = base * (1 - dent)
    [acceleration] = [lim for lim in limits if lim.quantity.key == "torque_acceleration"]

    def used(v):
        return acceleration.usage(sequential._jets(sigma, v))

    assert used(kinked) > 1.2 > 0.5 > used(base)
    def within(X):
        return max(limit.usage(X) for limit in limits) <= 1 + rates.TOLERANCE

    out = sequential._smoothed(sigma, kinked, within)
    assert out is not None
    assert np.abs(out / kinked - 1).max() < 1e-4
    own = np.abs(np.diff(base, 4)).max()
    assert np.abs(np.diff(kinked, 4)).max() > 15 * max(own, np.abs(np.diff(out, 4)).max())
    assert used(out) < 1.01 * used(base)
    ramp = np.minimum(np.arange(M) / 20, 1.0) ** 2
    assert sequential._smoothed(sigma, base * ramp, within) is None


@pytest.mark.slow
def test_the_programmes_reach_the_windows_on_the_iiwa_s_fourier_path_with_jerk_limits():
    """benchmarks' ``iiwa-fourier-jerk`` (3 s at 200 Hz, ``--jerk 100``): reachability's law
    (the programmes' from free ends) within 0.3 % of the windows' (2.0557 s against 2.0568 s
    measured; 2.080 s with the ends frozen), every limit kept at every sample, the output
    passing validate (~15 s of CPU)."""
    import hodyn_cli
    from conftest import URDF
    from hodyn_cli.algorithms.planning.generate import generate

    model = hodyn_cli.load_robot(str(URDF / "iiwa14.urdf"))
    traj = generate(model, "fourier", duration=3.0, rate=200.0, derivatives=4)
    limits = hodyn_cli.joint_limits(model, jerk=100.0)
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
    _, windows = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="windows")
    assert opt.duration < 1.003 * windows.duration, (opt.duration, windows.duration)
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    assert hodyn_cli.validate_motion(model, out, samples=30).passed


def test_a_programme_out_of_its_budget_leaves_the_law_so_far(iiwa, monkeypatch):
    """Each programme's solve has the windows' budget (programme.SIMPLEX_ITERATIONS a
    column, then the interior point for programme.IPM_ITERATIONS): where both run out (here
    none at all), the steps end and the law so far is the answer (the law itself, before
    any step), not a solve without end on a degenerate programme."""
    from hodyn_cli.algorithms.limits import programme

    sigma, x, limits, _ = iiwa
    M = len(x)
    monkeypatch.setattr(programme, "SIMPLEX_ITERATIONS", 0)
    monkeypatch.setattr(programme, "IPM_ITERATIONS", 0)
    assert sequential.refined(sigma, x, lambda a, b: limits, [(0, M)], rates.TOLERANCE) is x


def _matrix(D: sequential._Basis, nu: int) -> np.ndarray:
    """(M, n) the basis's nu-th derivatives at the grid points, as a dense matrix."""
    out = np.zeros((len(D.values), D.n))
    np.put_along_axis(out, D.columns, D.values[:, nu], axis=1)
    return out


def _dense(sigma: np.ndarray, t: np.ndarray, k: int, nu: int) -> np.ndarray:
    """(M, n) the nu-th derivatives of the B-spline basis on t at sigma, by scipy (a peer)."""
    from scipy.interpolate import BSpline

    n = len(t) - k - 1
    return BSpline(t, np.eye(n), k)(sigma, nu)


def test_the_basis_made_once_gives_every_programmes_rows_as_built_afresh():
    """The correction's basis, made once per pass (its values at the grid points and their
    columns), against scipy's basis functions and their derivatives made afresh: the basis
    itself, a programme's rows (the sum over nu of the limits' coefficients times the
    scaled basis, frozen coefficients left out) for two steps' scales from the same basis
    (a cache the first step's scaling changed would fail the second), its solution's dX,
    and the projection's least-squares spline (scipy's make_lsq_spline)."""
    from scipy.interpolate import make_lsq_spline

    rng = np.random.default_rng(5)
    sigma = np.cumsum(np.r_[0.0, rng.uniform(0.5, 1.5, 199)])
    x = 1 - 0.9 * np.exp(-((np.arange(200) - 120) / 8.0) ** 2)  # (knots closer in its dip)
    D = sequential._basis(sigma, x)
    k, M = reachability.LAW, len(sigma)
    inner = sigma[sequential._knots(x)]
    assert np.diff(sequential._knots(x)).min() < sequential.KNOTS / 2
    t = np.concatenate([np.full(k + 1, sigma[0]), inner, np.full(k + 1, sigma[-1])])
    dense = [_dense(sigma, t, k, nu) for nu in range(4)]
    assert D.n == dense[0].shape[1]
    for nu in range(4):
        made = _matrix(D, nu)
        assert np.allclose(made, dense[nu], rtol=0, atol=1e-12 * np.abs(dense[nu]).max())
    free = np.zeros(D.n, dtype=bool)
    free[sequential.FROZEN : D.n - sequential.FROZEN] = True
    points = rng.integers(0, M, 40)
    c = rng.standard_normal((40, 4))
    for scale in (rng.uniform(0.5, 2.0, free.sum()), rng.uniform(10.0, 20.0, free.sum())):
        columns = sequential._Columns.of(D, free, scale)
        indptr, indices, data = columns.rows(points, c)
        rows = np.zeros((len(points), free.sum()))
        for r in range(len(points)):
            rows[r, indices[indptr[r] : indptr[r + 1]]] = data[indptr[r] : indptr[r + 1]]
        afresh = sum(c[:, nu, None] * dense[nu][points] for nu in range(4))[:, free] * scale
        assert np.allclose(rows, afresh, rtol=0, atol=1e-12 * np.abs(afresh).max())
        delta = rng.standard_normal(free.sum())
        dX = np.stack([dense[nu][:, free] @ (scale * delta) for nu in range(4)], axis=1)
        assert np.allclose(columns.at(delta), dX, rtol=0, atol=1e-12 * np.abs(dX).max())
    x = 1 + 0.3 * np.sin(sigma / 20) + 1e-3 * rng.standard_normal(M)
    t4 = np.concatenate([np.full(k + 1, sigma[0]), sigma[4 : M - 4 : 4], np.full(k + 1, sigma[-1])])
    projected = sequential._least_squares(sequential._Basis.of(sigma, t4, k, 1), x)
    assert np.allclose(projected, make_lsq_spline(sigma, x, t4, k)(sigma), rtol=0, atol=1e-12)


@pytest.mark.slow
def test_a_retime_through_the_sequential_programmes_imports_no_scipy():
    """The reachability solver with a rate limit (its rounds through :func:`raised`: the
    basis by Cox-de Boor, the projection by a banded solve, the rows as CSR arrays) imports
    no scipy (benchmarks/README.md, seqbuild: its import alone 0.3-0.45 s of CPU and ~45 MiB
    of peak RSS on every such retime); a fresh process, as the command line's (1.7 s CPU)."""
    import subprocess
    import sys

    from conftest import URDF

    code = f"""
import sys
import hodyn_cli
from hodyn_cli.algorithms.limits import sequential
from hodyn_cli.algorithms.planning.generate import generate
model = hodyn_cli.load_robot({str(URDF / "iiwa14.urdf")!r})
traj = generate(model, "fourier", duration=1.0, rate=50.0, derivatives=4)
ran, real = [], sequential.raised
sequential.raised = lambda *a: ran.append(1) or real(*a)
limits = {{j: {{"jerk": 100.0}} for j in model.joint_names}}
_, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
print(opt.used, len(ran), sorted(m for m in sys.modules if m.split(".")[0] == "scipy")[:3])
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split("\n")[0] == "reachability 1 []", done.stdout + done.stderr


def _run_programme(models, D, free, X, sigma, previous, monkeypatch):
    """sequential._programme's (delta, rows) and the simplex iterations of each solve."""
    from hodyn_cli.algorithms.limits import highs

    iterations = []
    solve = highs.LP.solve

    def counted(self, *args):
        out = solve(self, *args)
        iterations.append(self.iterations)
        return out

    monkeypatch.setattr(highs.LP, "solve", counted)
    delta, rows = sequential._programme(models, D, free, X[:, 0], sigma, sequential.TRUST,
                                        previous)
    monkeypatch.undo()
    return delta, rows, iterations


def _worst_row(models, X, dX):
    """The largest share beyond its bound of any row of ``models`` (all of them) for dX."""
    rest = sequential.REST * X[:, 0].max()
    worst = -np.inf
    for model in models:
        for side, change in zip(model.sides(rest), model.changes(dX, rest), strict=True):
            bound, size, sign = side.rhs, side.scale, side.sign
            with np.errstate(invalid="ignore", divide="ignore"):
                over = sign * (change - bound) / size
            worst = max(worst, float(np.where(np.isfinite(over), over, -np.inf).max()))
    return worst


def _worst_played(models, sigma, x, dX):
    """_worst_row's share for the shipped programme, whose second-order corrections
    (sequential._errors) move the rows' bounds by each linearised limit's error at the
    step: such a limit's rows on its change at the step's played law (the quintic spline
    through x + dX[:, 0]), a sqrt(x) form's on its rows' (its tangent keeps the limit)."""
    rest = sequential.REST * x.max()
    X = sequential._jets(sigma, np.maximum(x + dX[:, 0], 0.0))
    worst = -np.inf
    for model in models:
        true = None if model.limit is None else model.limit.values(
            X[model.a : model.a + len(model.base)]) - model.base
        for side, change in zip(model.sides(rest), model.changes(dX, rest), strict=True):
            with np.errstate(invalid="ignore", divide="ignore"):
                over = side.sign * ((change if true is None else true) - side.rhs) / side.scale
            worst = max(worst, float(np.where(np.isfinite(over), over, -np.inf).max()))
    return worst


def _first_programme(iiwa, monkeypatch):
    """The iiwa's first programme (its inner coefficients free): (the basis D, which are
    free, the limits' models at the law, the step found, the rows handed on)."""
    sigma, x, limits, X = iiwa
    D = sequential._basis(sigma, x)
    free = np.zeros(D.n, dtype=bool)
    free[sequential.FROZEN : D.n - sequential.FROZEN] = True
    models = [sequential._Model.of(limit, X, 0) for limit in limits]
    first, rows, _ = _run_programme(models, D, free, X, sigma, None, monkeypatch)
    return D, free, models, first, rows


def test_a_programme_from_the_last_ones_rows_and_basis_reaches_the_optimum_of_all_rows(
        iiwa, monkeypatch):
    """A step's programme starts from the last one's active rows (those not basic in its
    final basis) and that basis (sequential._Rows): the same programme again is optimal at
    once (0 simplex iterations: the rows kept and their statuses in the order HiGHS holds
    them), and the next step's reaches the optimum of every row imposed at once (NEAR
    infinite) as the programme built afresh does, to 1e-6 of the law's duration, every row
    kept to VIOLATED at the step's played law (the shipped programme, with its second-order
    corrections: _worst_played), in fewer simplex iterations than afresh."""
    sigma, x, limits, X = iiwa
    D, free, models, first, rows = _first_programme(iiwa, monkeypatch)
    assert first is not None and rows.basis is not None
    assert 0 < len(rows.side) < sum(2 * m.base.size for m in models)
    # (the active rows alone: none basic in the basis handed on, a status kept per row)
    assert len(rows.basis.row_status) == len(rows.side)
    assert highspy.HighsBasisStatus.kBasic not in rows.basis.row_status
    again, _, iterations = _run_programme(models, D, free, X, sigma, rows, monkeypatch)
    assert iterations[0] == 0
    assert np.allclose(again, first, rtol=0, atol=1e-9 * np.abs(first).max())

    x1 = x + D.at(first)[:, 0]
    X1 = sequential._jets(sigma, x1)
    models = [sequential._Model.of(limit, X1, 0) for limit in limits]
    carried, _, warm = _run_programme(models, D, free, X1, sigma, rows, monkeypatch)
    afresh, _, cold = _run_programme(models, D, free, X1, sigma, None, monkeypatch)
    monkeypatch.setattr(sequential, "NEAR", np.inf)
    every, _, _ = _run_programme(models, D, free, X1, sigma, None, monkeypatch)
    best = reachability.law_duration(sigma, x1 + D.at(every)[:, 0])
    for delta in (carried, afresh):
        dX = D.at(delta)
        assert _worst_played(models, sigma, x1, dX) <= sequential.VIOLATED * (1 + 1e-6)
        assert reachability.law_duration(sigma, x1 + dX[:, 0]) == pytest.approx(best, rel=1e-6)
    assert sum(warm) < sum(cold), (warm, cold)


def _carried_on(iiwa, monkeypatch):
    """The iiwa's first programme, then the next step's from its rows and basis: (the rows
    HiGHS held at the next one's first solve, the rows handed on, the largest share beyond
    its bound of any row of every limit for the next one's law)."""
    from hodyn_cli.algorithms.limits import highs

    sigma, x, limits, X = iiwa
    D, free, models, first, rows = _first_programme(iiwa, monkeypatch)
    X1 = sequential._jets(sigma, x + D.at(first)[:, 0])
    models = [sequential._Model.of(limit, X1, 0) for limit in limits]
    held = []
    solve = highs.LP.solve

    def counted(self, *args):
        held.append(self.rows)
        return solve(self, *args)

    monkeypatch.setattr(highs.LP, "solve", counted)
    delta, _ = sequential._programme(models, D, free, X1[:, 0], sigma, sequential.TRUST, rows)
    monkeypatch.undo()
    return held[0], len(rows.side), _worst_played(models, sigma, X1[:, 0], D.at(delta))


def test_a_carried_programme_starts_from_the_last_ones_active_rows_alone(iiwa, monkeypatch):
    """A step's programme holds the last one's active rows alone at its first solve (rows
    merely near their bounds, ~3 times as many, each cost HiGHS ~1 us at every re-solve),
    adds those its solutions break, and its law keeps every row of every limit to 1e-5 of
    its bound at its played law (VIOLATED: the final fit slows the whole motion for what it is beyond; at
    1e-4 this one was 5.3e-5 beyond)."""
    first_solve, carried, worst = _carried_on(iiwa, monkeypatch)
    assert first_solve == carried
    assert worst <= 1e-5


def test_the_first_programme_re_solves_rows_that_outnumber_its_own_from_scratch(
        iiwa, monkeypatch):
    """The first programme (no basis carried) solves on the rows near their bounds, then
    adds those its solution breaks: where they outnumber the rows it held, from scratch
    (LP.afresh), not from the basis of the few, which ran out of highs.FROM_BASIS first on
    every such input (20-50 ms of HiGHS's CPU each); the law the same."""
    from hodyn_cli.algorithms.limits import highs

    sigma, x, limits, X = iiwa
    D = sequential._basis(sigma, x)
    free = np.zeros(D.n, dtype=bool)
    free[sequential.FROZEN : D.n - sequential.FROZEN] = True
    models = [sequential._Model.of(limit, X, 0) for limit in limits]
    runs = []
    run = highs.LP._run

    def logged(self, solver, iterations):
        runs.append((self._highs.getBasis().valid, self.rows))
        return run(self, solver, iterations)

    monkeypatch.setattr(highs.LP, "_run", logged)
    delta, _ = sequential._programme(models, D, free, X[:, 0], sigma, sequential.TRUST)
    assert delta is not None and len(runs) > 2
    for (_, before), (warm, rows) in zip(runs[:-1], runs[1:], strict=True):
        assert not (warm and rows > 2 * before), runs


def test_the_changes_checked_are_each_sides_rows_times_the_change(iiwa):
    """_Model.changes (the violation check's, the gradient's product once per limit): each
    side's coefficients (sides) times dX, for both forms, at rest too."""
    sigma, x, limits, X = iiwa
    rng = np.random.default_rng(2)
    dX = rng.standard_normal(X.shape) * np.abs(X).max(axis=0)
    for rest in (sequential.REST * x.max(), 0.5 * x.max()):
        for limit in limits:
            model = sequential._Model.of(limit, X, 0)
            P, m = model.base.shape
            p, j = np.divmod(np.arange(P * m), m)  # (every row's coefficients: Side.at)
            for side, change in zip(model.sides(rest), model.changes(dX, rest), strict=True):
                row = np.einsum("pjd,pd->pj", side.at(p, j).reshape(P, m, 4), dX)
                assert np.allclose(change, row, rtol=1e-12, atol=1e-12 * np.abs(row).max())


@pytest.mark.slow
def test_the_corrections_knots_keep_to_the_grid_where_the_output_is_finer(tmp_path,
                                                                          monkeypatch):
    """The two-link arm's Fourier path with --jerk 100 (stranger_optimal.py's): at its own
    100 Hz the smoothing spans ~16 grid intervals at the passes' law's mean pace and the
    correction's knots are over the law's time too; at --rate 1000, ~1.6, and the grid's
    alone (with the time's its law was 5.8726 s there, 5.3129 s without:
    sequential._knots)."""
    from test_base_parameters import public_robot
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    robot = str(public_robot("asr_twodof_description/urdf/TwoDofs.urdf"))
    src = tmp_path / "in.h5"
    made = CliRunner().invoke(app, ["generate", robot, "--kind", "fourier", "--rate", "100",
                                    "--duration", "10", "-o", str(src), "-q"])
    assert made.exit_code == 0, made.output
    asked = []

    def raised(sigma, x, limits, chunks, tolerance, timed=True):
        asked.append(timed)
        raise RuntimeError("asked")  # (the rounds' decision is all this asks)

    monkeypatch.setattr(sequential, "raised", raised)
    for rate in ([], ["--rate", "1000"]):
        CliRunner().invoke(app, ["retime", robot, str(src), "--optimal", "-q", "--solver",
                                 "reachability", "--jerk", "100", *rate, "-o",
                                 str(tmp_path / "out.h5")])
    assert asked == [True, False]


def test_a_local_optimum_is_said_where_the_steps_converged_on_limits_of_one_grade(
        iiwa, monkeypatch):
    """sequential.raised's ``local`` (auto then runs no windows, optimal.Optimal.local): on
    the limits of one grade alone (the fixture's without its torque rates and accelerations,
    which hold each grade's part apart, _slowest) the steps converge and it is True, the same
    x as refined's; with those limits, converged or not, False; out of steps (one step, from
    a law far below its optimum), False."""
    sigma, x, limits, _ = iiwa
    M = len(x)
    one = [limit for limit in limits if sequential._slowest(limit) is None]
    assert 0 < len(one) < len(limits)
    found = sequential.raised(sigma, x, lambda a, b: one, [(0, M)], rates.TOLERANCE)
    assert found.local and np.array_equal(
        found.x, sequential.refined(sigma, x, lambda a, b: one, [(0, M)], rates.TOLERANCE))
    assert not sequential.raised(sigma, x, lambda a, b: limits, [(0, M)],
                                 rates.TOLERANCE).local
    monkeypatch.setattr(sequential, "STEPS", 1)
    assert not sequential.raised(sigma, x, lambda a, b: one, [(0, M)], rates.TOLERANCE).local


def test_a_velocitys_rows_are_folded_into_the_trust_region(iiwa, monkeypatch):
    """sequential._Fold: a velocity's tangent rows bound x's change alone (``sqrt(x)`` times
    a constant), so they are folded into the trust region's upper side, the tightest per
    grid point, each with its own tolerance (VIOLATED of its scale), and held as no rows of
    their own (half of the ~4 000 rows the SO-101's programmes 4 and 5 added at their first
    re-solve). The velocity here on its limit at the law (the rows near their bounds held
    from the start): no velocity row is imposed, the region's upper side is below TRUST of
    x where the velocity binds, the step keeps every velocity row to VIOLATED of its own
    scale, and the law's duration is that of the programme with the velocity's rows held as
    rows (main's) to 1e-6."""
    sigma, x, limits, X = iiwa
    [velocity] = [lim for lim in limits if lim.quantity.key == "velocity"]
    top = np.abs(velocity.values(X)).max(axis=0)
    limits = [replace(lim, lower=-top, upper=top) if lim is velocity else lim for lim in limits]
    D = sequential._basis(sigma, x)
    free = np.zeros(D.n, dtype=bool)
    free[sequential.FROZEN : D.n - sequential.FROZEN] = True
    models = [sequential._Model.of(limit, X, 0) for limit in limits]
    assert [m.x_only for m in models] == [lim.quantity.key == "velocity" for lim in limits]
    [folded] = [m for m in models if m.x_only]
    imposed, region = set(), []
    impose = sequential._impose

    def recorded(lp, basis, sides, rows, span, down):
        imposed.update(id(sides[s][0]) for s in set(rows.side[rows.side >= 0].tolist()))
        region.append(span[rows.point[rows.side < 0]] / (sequential.TRUST * X[rows.point[
            rows.side < 0], 0]))
        impose(lp, basis, sides, rows, span, down)

    monkeypatch.setattr(sequential, "_impose", recorded)
    delta, _ = sequential._programme(models, D, free, X[:, 0], sigma, sequential.TRUST)
    assert delta is not None and imposed and id(folded) not in imposed
    assert np.concatenate(region).min() < 0.5  # (rows of the region that the velocity set)
    dX = D.at(delta)
    assert _worst_row([folded], X, dX) <= sequential.VIOLATED * (1 + 1e-6)
    assert _worst_played(models, sigma, x, dX) <= sequential.VIOLATED * (1 + 1e-6)
    monkeypatch.undo()
    monkeypatch.setattr(sequential._Model, "x_only", property(lambda self: False))
    rowed, _ = sequential._programme(models, D, free, X[:, 0], sigma, sequential.TRUST)
    assert reachability.law_duration(sigma, x + dX[:, 0]) == pytest.approx(
        reachability.law_duration(sigma, x + D.at(rowed)[:, 0]), rel=1e-6)


def test_a_kept_steps_models_read_the_values_its_check_made(iiwa, monkeypatch):
    """sequential.raised: a trial step's check and, where the step is kept, the next step's
    models read each limit's values at the same X: made once (programme.Derivatives keeps
    them, read-only), not again; the law the same to the bit as with every value made
    afresh (the check and the models had each made their own)."""
    from hodyn_cli.algorithms.limits import programme

    sigma, x, limits, _ = iiwa
    M = len(x)
    made: list[tuple[int, bytes]] = []
    values = sequential.PathLimit.values

    def counted(self, Y, at=None):
        if at is None or self not in getattr(at, "_values", {}):
            made.append((id(self), (Y if at is None else at.X).tobytes()))
        return values(self, Y, at)

    monkeypatch.setattr(sequential.PathLimit, "values", counted)
    out = sequential.raised(sigma, x, lambda a, b: limits, [(0, M)], rates.TOLERANCE)
    twice = len(made) - len(set(made))
    assert twice == 0, twice

    def afresh(self, Y, at=None):  # (no value kept: the law as before)
        return values(self, Y, None if at is None else programme.Derivatives(at.X))

    monkeypatch.setattr(sequential.PathLimit, "values", afresh)
    again = sequential.raised(sigma, x, lambda a, b: limits, [(0, M)], rates.TOLERANCE)
    assert np.array_equal(out.x, again.x) and out.local == again.local
    V = values(limits[0], None, at := programme.Derivatives(sequential._jets(sigma, out.x)))
    assert values(limits[0], None, at) is V and not V.flags.writeable


def test_a_programmes_last_generations_drop_rows_slack_at_its_solution(iiwa, monkeypatch):
    """Where a generation adds fewer rows than TAIL of those held, the rows basic at the last
    solve and beyond SLACK of their scale from their bound are dropped first
    (sequential._slack_dropped): the programme's last solve holds fewer rows than with none
    dropped, in no more runs, and its step keeps every row of every limit to VIOLATED at
    its played law and shortens the law as much, to 1e-9 (no dropped row is broken again here: that one comes
    back, test_a_row_dropped_and_broken_again_comes_back). (TAIL 0.1 here: this
    fixture's 200 grid points add 3-6 rows to ~150 in its last generations, above the
    default's 2 %.)"""
    from hodyn_cli.algorithms.limits import highs

    sigma, x, limits, X = iiwa
    D = sequential._basis(sigma, x)
    free = np.zeros(D.n, dtype=bool)
    free[sequential.FROZEN : D.n - sequential.FROZEN] = True
    models = [sequential._Model.of(limit, X, 0) for limit in limits]
    run = highs.LP._run
    found = {}
    for tail in (0.1, 0.0):
        held = []

        def logged(self, solver, iterations, held=held):
            held.append(self.rows)
            return run(self, solver, iterations)

        monkeypatch.setattr(highs.LP, "_run", logged)
        monkeypatch.setattr(sequential, "TAIL", tail)
        delta, _ = sequential._programme(models, D, free, X[:, 0], sigma, sequential.TRUST)
        assert delta is not None
        dX = D.at(delta)
        assert _worst_played(models, sigma, x, dX) <= sequential.VIOLATED * (1 + 1e-6)
        found[tail] = held, reachability.law_duration(sigma, x + dX[:, 0])
    (dropped, duration), (every, whole) = found[0.1], found[0.0]
    assert dropped[-1] < every[-1] and len(dropped) <= len(every), (dropped, every)
    assert duration == pytest.approx(whole, rel=1e-9)


def test_a_row_dropped_and_broken_again_comes_back(iiwa, monkeypatch):
    """A row dropped as slack (sequential._slack_dropped) is no longer held, so that a later
    solution that breaks it adds it again: dropped at every generation (TAIL 1, SLACK 0:
    every basic row), some rows come back, and the programme's step keeps every row of every
    limit to VIOLATED; the rows it hands on are those it holds. (At the defaults no
    dropped row of this fixture is broken again:
    test_a_programmes_last_generations_drop_rows_slack_at_its_solution cannot see it.)"""
    sigma, x, limits, X = iiwa
    D = sequential._basis(sigma, x)
    free = np.zeros(D.n, dtype=bool)
    free[sequential.FROZEN : D.n - sequential.FROZEN] = True
    models = [sequential._Model.of(limit, X, 0) for limit in limits]
    dropped, back = set(), set()
    drop, impose = sequential._slack_dropped, sequential._impose

    def keys(rows) -> set:
        return set(zip(rows.side.tolist(), rows.point.tolist(), rows.joint.tolist(), strict=True))

    def dropping(lp, rows, *args):
        kept = drop(lp, rows, *args)
        assert len(kept.side) == lp.rows  # (the rows handed on are the programme's, in order)
        dropped.update(keys(rows) - keys(kept))
        return kept

    def imposed(lp, basis, sides, rows, *args):
        back.update(keys(rows) & dropped)
        return impose(lp, basis, sides, rows, *args)

    monkeypatch.setattr(sequential, "_slack_dropped", dropping)
    monkeypatch.setattr(sequential, "_impose", imposed)
    monkeypatch.setattr(sequential, "TAIL", 1.0)
    monkeypatch.setattr(sequential, "SLACK", 0.0)
    # (the first-order rows' programme: with every row dropped at every generation the
    # second-order corrections, tests/test_sequential_correction.py, end with its played
    # law 8.9e-5 of a row's scale beyond it, not VIOLATED; what this asks is the rows')
    monkeypatch.setattr(sequential, "CORRECTIONS", 0)
    delta, _ = sequential._programme(models, D, free, X[:, 0], sigma, sequential.TRUST)
    # (a limit's rows and the trust region's, each kind: held masks of their own)
    assert delta is not None and {side >= 0 for side, _, _ in back} == {True, False}, back
    assert _worst_row(models, X, D.at(delta)) <= sequential.VIOLATED * (1 + 1e-6)


def test_a_programme_cut_at_its_last_generation_leaves_no_limit_broken(iiwa, monkeypatch):
    """A programme stops at its last generation (GENERATIONS) with rows its solution still
    breaks: its step is then no solution of the whole programme, and is kept only where the
    law it makes is within every limit at the grid points, at its own pace and played slower
    (raised's check, as any step's). With one generation (every programme cut after its
    first solve; here its step breaks rows beyond VIOLATED) the law handed back keeps every
    limit to TOLERANCE and is no longer than the law it started from (the first cut step
    breaks rows by 26 times their scale, its law 57 times its limits; refused, as the
    steps after it until one is within them)."""
    sigma, x, limits, X = iiwa
    M = len(x)
    monkeypatch.setattr(sequential, "GENERATIONS", 1)
    cut = []
    programme = sequential._programme

    def logged(models, D, free, x0, sigma, trust, previous=None, played=None):
        delta, rows = programme(models, D, free, x0, sigma, trust, previous, played)
        if delta is not None:
            X0 = sequential._jets(sigma, x0)
            cut.append(_worst_row(models, X0, D.at(delta)))
        return delta, rows

    monkeypatch.setattr(sequential, "_programme", logged)
    out = sequential.raised(sigma, x, lambda a, b: limits, [(0, M)], rates.TOLERANCE).x
    assert cut and max(cut) > sequential.VIOLATED, cut  # (some step broke its rows)
    Y = sequential._jets(sigma, out)
    assert max(limit.usage(Y) for limit in limits) <= 1 + rates.TOLERANCE
    assert max(sequential._slower(limit, Y) for limit in limits) <= max(
        1 + rates.TOLERANCE, max(sequential._slower(limit, X) for limit in limits)) + 1e-12
    assert reachability.law_duration(sigma, out) <= reachability.law_duration(sigma, x)
