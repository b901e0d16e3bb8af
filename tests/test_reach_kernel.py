"""The sequential parts of ``retime --optimal``'s reachability solver: the B-splines in numpy
(hodyn_cli/algorithms/limits/bsplines.py) against scipy's, and the compiled passes and banded
solve (csrc/reach.c) against their numpy reference (backends/numpy/reach.py) on a real
path's rows."""
import h5py
import numpy as np
import pytest
from scipy.interpolate import BSpline as ScipyBSpline
from scipy.interpolate import make_interp_spline
from test_optimal import IIWA, IIWA_REST, run
from test_reachability import _through

import hodyn_cli
from conftest import kernel_variants, reference
from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.algorithms.limits.bsplines import BSpline, interpolating
from hodyn_cli.algorithms.limits.programme import path_limits
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.limits import joint_limits


@pytest.mark.parametrize("k, n, joints", [(7, 300, 3), (5, 41, None), (7, 9, 2)])
def test_interpolating_spline_is_scipys(k, n, joints):
    """The not-a-knot interpolant of odd degree has scipy's knots and coefficients, and its
    values and derivatives (those of scipy's ``derivative``) to their rounding on its base
    interval, its values beyond it (the end pieces' polynomials), NaN outside where it does
    not extrapolate."""
    rng = np.random.default_rng(k + n)
    x = np.cumsum(rng.uniform(0.5, 1.5, n)) / n
    x -= x[0]
    y = np.sin(3 * x)[:, None] * np.arange(1, joints + 1) if joints else np.cos(2 * x) + 2
    ours, theirs = interpolating(x, y, k), make_interp_spline(x, y, k=k)
    assert np.array_equal(ours.t, theirs.t)
    assert np.allclose(ours.c, theirs.c, rtol=0, atol=1e-12 * np.abs(theirs.c).max())
    at = np.linspace(0, x[-1], 777)
    for nu in range(k):
        want = theirs.derivative(nu)(at) if nu else theirs(at)
        got = ours(at, nu)
        assert got.shape == want.shape
        # (the coefficients' rounding, ~1e-15, times (k / h)^nu: h the points' spacing)
        scale = (k / np.diff(x).min()) ** nu * np.abs(theirs.c).max()
        assert np.allclose(got, want, rtol=0, atol=1e-13 * scale), nu
    step = np.diff(x).min()
    at = np.linspace(-step, x[-1] + step, 777)  # (further out, rounding grows as its ^k)
    assert np.allclose(ours(at), theirs(at), rtol=0, atol=1e-12 * np.abs(theirs.c).max())
    inside = BSpline(ours.t, ours.c, k, extrapolate=False)(at)
    want = ScipyBSpline(theirs.t, theirs.c, k, extrapolate=False)(at)
    assert np.array_equal(np.isnan(inside), np.isnan(want)) and np.isnan(want).any()


@pytest.mark.parametrize("n", [12, 400])
def test_interpolating_spline_with_end_derivatives_is_scipys(n):
    """The quintic through the points with first and second derivatives given at both ends
    (the law's x next to corners, reachability.law_spline): scipy's ``bc_type`` spline, its
    knots and coefficients to rounding, and it takes the derivatives given."""
    x = np.linspace(0, 2, n)
    y = np.cos(3 * x) + 2 + 0.01 * np.random.default_rng(n).standard_normal(n)
    ends = ([(1, 0.3), (2, -1.0)], [(2, 2.0), (1, -0.2)])
    ours, theirs = interpolating(x, y, 5, ends), make_interp_spline(x, y, k=5, bc_type=ends)
    assert np.array_equal(ours.t, theirs.t)
    assert np.allclose(ours.c, theirs.c, rtol=0, atol=1e-13 * np.abs(theirs.c).max())
    for at, given in ((x[0], ends[0]), (x[-1], ends[1])):
        for nu, value in given:
            assert ours(np.array([at]), nu)[0] == pytest.approx(value, rel=1e-9, abs=1e-9)


@pytest.fixture(scope="module")
def line_rows():
    """The rows of the iiwa's limits on a straight line from rest to rest (300 intervals)."""
    model = hodyn_cli.load_robot(IIWA)
    (arc,) = reachability.arcs(_through(model, IIWA_REST), 300, 100)
    return arc, reachability.rows(path_limits(model, arc.trajectory(model.joint_names),
                                              joint_limits(model), 0))


@pytest.mark.kernel
@pytest.mark.parametrize("end", [0.0, np.inf])
def test_compiled_passes_are_the_numpy_reference(kernel, line_rows, end):
    """The backward pass's controllable sets and the forward pass's law of the compiled
    kernel are the numpy reference's to 1e-12 (the same operations in the same order), from
    rest to rest and to a free end speed (an infinite upper end: its weight-0 terms left
    out), and the law is within its sets."""
    arc, rows = line_rows
    delta = np.diff(arc.sigma)
    K = reachability.controllable(rows, delta, (0.0, end))
    K_ref = reference(reachability.controllable, rows, delta, (0.0, end))
    assert np.isfinite(K[:-1]).all()
    assert np.allclose(K, K_ref, rtol=1e-12, atol=0, equal_nan=True)
    law = reachability.greedy(rows, delta, K, 0.0, arc.sigma)
    ref = reference(reachability.greedy, rows, delta, K, 0.0, arc.sigma)
    assert np.allclose(law.x, ref.x, rtol=1e-12, atol=1e-15)
    assert np.allclose(law.u, ref.u, rtol=1e-12, atol=1e-12 * np.abs(ref.u).max())
    assert np.all((law.x >= K[:, 0] - 1e-12) & (law.x <= K[:, 1] + 1e-12))
    assert law.x.max() > 0


@pytest.mark.kernel
def test_compiled_banded_solve_is_the_numpy_reference(kernel):
    """A B-spline collocation system (degree 7, 200 points, 3 right-hand sides) solved by the
    compiled kernel and by the numpy reference: the same solution to 1e-12, and it solves
    the dense system."""
    x = np.linspace(0, 1, 200) ** 1.3
    y = np.stack([np.sin(4 * x), x**3, np.exp(x)], axis=1)
    spline = interpolating(x, y, 7)
    want = reference(interpolating, x, y, 7)
    assert np.allclose(spline.c, want.c, rtol=0, atol=1e-12 * np.abs(want.c).max())
    assert np.allclose(spline(x), y, rtol=0, atol=1e-12)


@pytest.mark.kernel
@pytest.mark.parametrize("extrapolate", [True, False])
def test_compiled_bspline_values_are_the_numpy_reference(kernel, extrapolate):
    """A curve's values (degree 7, 3 coordinates) at points inside, on the knots and beyond
    its ends, by the compiled kernel and by the numpy reference: the same to 1e-14 of its
    largest (NaN beyond where it does not extrapolate)."""
    x = np.linspace(0, 1, 60) ** 1.3
    spline = interpolating(x, np.stack([np.sin(4 * x), x**3, np.exp(x)], axis=1), 7)
    curve = BSpline(spline.t, spline.c, 7, extrapolate)
    at = np.concatenate([np.linspace(-0.1, 1.1, 301), x])
    got, want = curve(at), reference(curve, at)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got).any() != extrapolate
    assert np.allclose(got, want, rtol=0, atol=1e-14 * np.nanmax(np.abs(want)), equal_nan=True)


def test_the_passes_in_pieces_are_the_whole_grids_numpy_law(monkeypatch, line_rows):
    """The law along a path in pieces of 37 grid intervals (the backward pass keeping K and
    each piece's rows on disk, the forward pass reading them back: each piece's rows asked
    once; compiled where built) is the law of the whole grid's passes at once by the numpy
    reference, to 1e-12."""
    arc, rows = line_rows
    delta = np.diff(arc.sigma)
    whole = reference(lambda: reachability.greedy(
        rows, delta, reachability.controllable(rows, delta, (0.0, 0.0)), 0.0, arc.sigma))
    monkeypatch.setattr(reachability, "BLOCK", 37)
    asked = []

    def rows_at(a, b):
        asked.append((a, b))
        return reachability.Rows(rows.alpha[a:b], rows.beta[a:b], rows.gamma[a:b],
                                 rows.top[a:b])

    law = reachability.along(arc, rows_at)
    assert len(asked) == len(set(asked)) == -(-300 // 37) and asked[0][1] == 301
    assert np.allclose(law.x, whole.x, rtol=1e-12, atol=1e-15)
    assert np.allclose(law.u[:], whole.u, rtol=1e-12, atol=1e-12 * np.abs(whole.u).max())


def test_a_path_in_several_pieces_retimes_as_in_one_and_passes_check_and_validate(
        tmp_path, monkeypatch):
    """``retime --optimal`` with the passes in pieces of 1000 grid intervals (the default
    grid's 4000: four pieces, each piece's limits evaluated once): the output's duration is
    the one-piece run's to 1e-9, and it passes ``check`` (within its limits) and ``validate``."""
    model = hodyn_cli.load_robot(IIWA)
    src = tmp_path / "line.h5"
    write_trajectory(str(src), _through(model, IIWA_REST))
    durations = []
    for block in (reachability.BLOCK, 1000):
        monkeypatch.setattr(reachability, "BLOCK", block)
        out = tmp_path / f"fast{block}.h5"
        res = run("retime", IIWA, src, "--optimal", "-o", out, "-q")
        assert res.exit_code == 0, res.output
        with h5py.File(out) as f:
            assert f.attrs["solver"] == "reachability" and f.attrs["grid_points"] == 4001
            durations.append(float(f.attrs["duration"]))
    assert durations[1] == pytest.approx(durations[0], rel=1e-9)
    assert run("check", IIWA, out).exit_code == 0
    res = run("validate", IIWA, out)
    assert res.exit_code == 0 and "PASSED" in res.output, res.output


@pytest.mark.kernel
def test_compiled_spline_solve_and_values_are_the_numpy_reference_bit_for_bit(kernel):
    """The banded solve and a spline's values by the compiled kernel and by the numpy
    reference are the same to the last bit (the same operations in the same order: no BLAS
    dot, no einsum), so that ``HODYN_NO_KERNEL=1`` retimes as the kernel does (the quintic
    law's x on 2000 points: its 4th derivative turns 1e-15 in the coefficients into 1e-9)."""
    x = np.linspace(0, 1, 2000) ** 1.3
    y = np.stack([np.sin(4 * x), x**3, np.exp(x)], axis=1)
    spline, want = interpolating(x, y, 5), reference(interpolating, x, y, 5)
    assert np.array_equal(spline.c, want.c)
    at = np.linspace(-0.1, 1.1, 3001)
    for nu in (0, 3):
        assert np.array_equal(want(at, nu), reference(want, at, nu)), nu
    scalar = BSpline(want.t, want.c[:, 0], 5)
    assert np.array_equal(scalar(at), reference(scalar, at))


@pytest.mark.kernel
def test_compiled_bspline_finds_each_point_s_interval_in_any_order(kernel):
    """The kernel's interval of each point galloped from the previous point's where the
    points go forwards (csrc/reach.c, GALLOP), bisected over the whole knot vector where they
    do not: the values to the bit the numpy reference's (which searches every point afresh)
    for points in order with repeats and on the knots, jumps farther than GALLOP knots,
    backwards, shuffled, beyond both ends and NaN, on knots repeated at the ends and inside."""

    x = np.linspace(0, 1, 3000) ** 1.3
    spline = interpolating(x, np.stack([np.sin(4 * x), x**3], axis=1), 5)
    inner = np.concatenate([spline.t[:1000], np.repeat(spline.t[1000], 3), spline.t[1001:]])
    rng = np.random.default_rng(3)
    ordered = np.sort(np.concatenate([x, x[::7], rng.uniform(-0.1, 1.1, 500)]))
    jumps = np.concatenate([x[::400], x[5::900], [0.5, 0.5, np.nan, 0.2, 2.0, -1.0, 0.3]])
    for t, c in ((spline.t, spline.c), (inner, np.vstack([spline.c, spline.c[-2:]]))):
        curve = BSpline(t, c, 5)
        for at in (ordered, ordered[::-1], rng.permutation(ordered), jumps):
            got, want = curve(at), reference(curve, at)
            assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.kernel
def test_a_spline_s_jet_is_each_derivative_s_values_to_the_bit(kernel):
    """``BSpline.jet`` (one kernel call: each point's interval found and its Cox-de Boor
    triangle made once, each derivative's basis functions read off it a few steps short) is
    the spline and its derivatives evaluated one at a time to the bit, and the numpy
    reference's too: degrees 0-7, clamped knots (some repeated inside) and unclamped ones,
    one coordinate and three, points in order, on every knot, shuffled and beyond both
    ends, extrapolated or NaN there (signs of zeros and NaNs included)."""
    rng = np.random.default_rng(5)
    for trial in range(16):
        k, n = trial % 8, int(rng.integers(trial % 8 + 1, trial % 8 + 20))
        if trial % 2:
            inner = np.sort(rng.uniform(0, 10, n - k + 1))
            if len(inner) > 3:
                inner[2] = inner[1]  # (a knot repeated inside)
            t = np.concatenate([np.full(k, inner[0]), inner, np.full(k, inner[-1])])
        else:
            t = np.sort(rng.uniform(-1, 11, n + k + 1))
        spline = BSpline(t, rng.normal(size=(n, 3) if trial % 3 else n), k, bool(trial % 5))
        x = np.sort(rng.uniform(t[0] - 1, t[-1] + 1, 40))
        x = np.concatenate([x, t, rng.permutation(x)])
        for count in range(1, k + 2):
            got = spline.jet(x, count)
            for want in (np.stack([spline(x, nu) for nu in range(count)], axis=1),
                         reference(spline.jet, x, count)):
                assert got.shape == want.shape
                assert np.array_equal(got, want, equal_nan=True)
                assert np.array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.kernel
@pytest.mark.skipif(not kernel_variants(), reason="no compiled kernel")
@pytest.mark.parametrize("arc_grid", [pytest.param(None, marks=pytest.mark.slow), 1000],
                         ids=["default-grid", "grid-1000"])
def test_retime_optimal_without_the_kernel_is_the_kernels_output(tmp_path, arc_grid):
    """``retime --optimal`` by the numpy reference (``HODYN_NO_KERNEL=1``) writes what the
    compiled kernel writes, every derivative to 1e-10 of its largest (with an acceleration
    limit and a joint without torque or speed limits: the kernel's banded solve and spline
    values against BLAS's dot and einsum's sums differed by 1e-8 in the 4th derivative).
    The default set's on 1000 arc-length intervals (the numpy reference's passes over the
    default 4000 were 2.6 of the test's 4.6 s of CPU; the outputs the same to the bit on
    both grids); the default grid's among the slow tests. The line given at 50 Hz, not 100
    (3.4 s of CPU, not 4.9): the same passes, smoothing and final fit, the outputs the same
    to the bit, and the reference's banded solve off by 1e-8 fails it (2e-10 in q); at 25
    Hz the law is not smoothed."""
    grid = [] if arc_grid is None else ["--arc-grid", str(arc_grid)]
    model = hodyn_cli.load_robot(IIWA)
    src, limits = tmp_path / "line.h5", tmp_path / "limits.toml"
    write_trajectory(str(src), _through(model, IIWA_REST, rate=50.0))
    limits.write_text("[joints.iiwa_joint_2]\ntorque = inf\nvelocity = inf\n"
                      "[joints.iiwa_joint_4]\nacceleration = 5.0\n")
    outs = [tmp_path / "compiled.h5", tmp_path / "numpy.h5"]
    for out, how in zip(outs, (lambda f, *a: f(*a), reference), strict=True):
        res = how(run, "retime", IIWA, src, "--optimal", "--limits", limits, "-o", out, "-q",
                  *grid)
        assert res.exit_code == 0, res.output
    with h5py.File(outs[0]) as got, h5py.File(outs[1]) as want:
        assert got.attrs["solver"] == "reachability"
        for key in ("t", "q", "qd", "qdd", "qddd", "qdddd"):
            a, b = got[key][()], want[key][()]
            assert a.shape == b.shape
            assert np.abs(a - b).max() <= 1e-10 * np.abs(b).max(), key


@pytest.mark.kernel
def test_compiled_passes_leave_out_a_nan_bound_as_the_numpy_reference_does(kernel):
    """A row whose bound is NaN (an infinite limit's inf - inf) is left out by both passes,
    compiled and numpy alike (the reference's min and max took the NaN: every other row of
    the point was then dropped with it, the kernel's comparisons skip it), bit for bit. The
    backward pass: the numpy reference's here, the compiled one's from the rows against it,
    a NaN gamma among them, in tests/test_panda21_bounds.py."""
    from hodyn_cli.algorithms.backends.numpy import reach

    M = 4
    p = np.array([[1.0, np.nan, -3.0], [np.nan, 0.5, -1.0], [2.0, 1.5, np.nan]])
    w_hi, w_lo = np.full((M - 1, 3), 0.25), np.zeros((M - 1, 3))
    upper = np.array([[True, True, False], [True, True, False], [True, False, True]])
    lower = np.array([[False, False, True], [False, False, True], [False, True, False]])
    lo_s, hi_s = np.zeros(M), np.full(M, 10.0)
    want = np.full((M, 2), np.nan)
    want[-1] = (0.0, 4.0)
    reach.backward(p, w_hi, w_lo, upper, lower, lo_s, hi_s, want)
    assert want[:-1].tolist() == [[0.0, 1.3125], [0.0, 1.25], [2.5, 3.0]]  # the other rows
    alpha = np.array([[1.0, 2.0, -1.0]] * M)
    beta = np.array([[0.0, 1.0, 0.5]] * M)
    gamma = np.array([[np.nan, 4.0, 1.0], [1.0, np.nan, 1.0], [2.0, 3.0, np.nan], [1, 1, 1]])
    up, down = alpha > 0, alpha < 0
    delta, K = np.full(M - 1, 0.1), np.tile([0.0, 5.0], (M, 1))
    xs, us = [np.zeros(M), np.zeros(M)], [np.empty(M - 1), np.empty(M - 1)]
    kernel.reach_forward(alpha, beta, gamma, up, down, delta, K, xs[0], us[0])
    reach.forward(alpha, beta, gamma, up, down, delta, K, xs[1], us[1])
    assert np.array_equal(xs[0], xs[1]) and np.array_equal(us[0], us[1])
    assert us[1][0] == 2.0  # row 1 binds u at the first point (row 0's bound is NaN)
