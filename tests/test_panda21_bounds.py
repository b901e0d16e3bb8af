"""The pairs' bounds on x (reachability._bounds) by the compiled kernel, a pair at a time
(issue 37, goal 4: numpy's blocks of pairs were 1.2 s of the Panda's 10^5-sample Fourier
path): the numpy reference's numbers to the bit, and so the passes' laws."""

import numpy as np
import pytest

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends import compiled
from hodyn_cli.algorithms.limits import reachability


def _rows(seed: int, M: int = 300, m: int = 12) -> reachability.Rows:
    """Random rows with every case the bounds meet: rows free of u (alpha 0), a point whose
    every pair has e = 0, points with no pair (every alpha of one sign), NaN and infinite
    gammas, and pairs whose bound is exactly +-0."""
    rng = np.random.default_rng(seed)
    half = rng.normal(size=(M, m // 2)) * np.where(rng.random((M, m // 2)) < 0.1, 0.0, 1.0)
    alpha = np.concatenate([half, -half], axis=1)
    alpha[40:50] = np.abs(alpha[40:50])  # (no pair)
    beta = rng.normal(size=(M, m))
    beta[7] = 2 * alpha[7]  # (e = 0 for every pair at point 7)
    gamma = rng.uniform(-0.5, 2.0, size=(M, m))
    gamma[11], gamma[12, 3], gamma[13, 1] = np.nan, np.inf, -np.inf
    gamma[20] = 0.0  # (bounds of 0: their sign as numpy's)
    return reachability.Rows(alpha, beta, gamma, np.full(M, np.inf))


@pytest.mark.skipif(not compiled.variants(), reason="no compiled kernels")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_kernels_pair_bounds_are_numpys_to_the_bit(seed):
    """Each compiled variant's reach_bounds (the wider ones built with fused multiply-adds
    allowed: the kernel's file turns them off) and numpy's on the same rows: the same
    (lower, upper) at every point, NaN where numpy's is and the sign of a 0 as numpy's
    (fails on the old kernels: they have no reach_bounds)."""
    r = _rows(seed)
    with backends.use("numpy") as numpy_backend:
        reference = _pairs(numpy_backend, r)
        whole = reachability._bounds(r)
    lo, hi = reference
    assert np.isnan(hi[11]) and lo[20] == hi[20] == 0 and np.isfinite(hi).sum() > 250
    for variant in compiled.variants():
        with backends.use("compiled", variant=variant) as kernel_backend:
            kernels = [_pairs(kernel_backend, r), reachability._bounds(r)]
        for kernel, want in zip(kernels, [reference, whole], strict=True):
            for ours, theirs in zip(kernel, want, strict=True):
                assert np.array_equal(ours, theirs, equal_nan=True), variant
                assert np.array_equal(np.signbit(ours), np.signbit(theirs)), variant


def _pairs(backend: backends.Backend, r: reachability.Rows) -> reachability.Bounds:
    """The pairs' bounds alone, from x in [0, inf), by ``backend``."""
    tiny = 1e-12 * np.abs(r.alpha).max()
    lo, hi = np.zeros(len(r.top)), np.full(len(r.top), np.inf)
    backend.reach_bounds(r.alpha, r.beta, r.gamma, r.alpha > tiny, r.alpha < -tiny, lo, hi,
                         reachability.PAIRS)
    return lo, hi


@pytest.mark.skipif(not compiled.variants(), reason="no compiled kernels")
@pytest.mark.parametrize("end", [(0.0, 0.0), (0.0, np.inf), (0.0, 0.2), (0.5, 0.6)])
def test_the_kernels_backward_pass_from_the_rows_is_numpys_to_the_bit(end):
    """reachability.controllable by each compiled variant's reach_controllable (the pairs
    with K_{i+1}'s rows made a row at a time) and by numpy's reference (their arrays, then
    its backward pass): the same K at every point, NaN where numpy's is (an empty set ends
    the pass; a NaN gamma; a row whose e is 0; rows free of u); fails on main (no
    reach_controllable)."""
    r = _rows(3)
    r = reachability.Rows(r.alpha, r.beta, np.abs(r.gamma) + 0.1, r.top)
    r.gamma[150, 2] = np.nan
    r.beta[90, 0] = r.alpha[90, 0] / (2 * 0.01)  # (e = 2 delta beta - alpha = 0)
    delta = np.full(len(r.top) - 1, 0.01)
    with backends.use("numpy") as numpy_backend:
        want = reachability.controllable(r, delta, end)
        direct = np.full_like(want, np.nan)
        direct[-1] = want[-1]
        lo, hi = reachability._static(r)
        numpy_backend.reach_controllable(r.alpha, r.beta, r.gamma, delta, 1e-12, lo, hi, direct)
    assert np.isfinite(want).sum() > 100 or end == (0.5, 0.6)  # (the last: empty at once)
    for variant in compiled.variants():
        with backends.use("compiled", variant=variant) as kernel_backend:
            K = reachability.controllable(r, delta, end)
            again = np.full_like(want, np.nan)
            again[-1] = want[-1]
            kernel_backend.reach_controllable(r.alpha, r.beta, r.gamma, delta, 1e-12, lo, hi,
                                              again)
        assert np.array_equal(K, want, equal_nan=True), variant
        assert np.array_equal(np.signbit(K), np.signbit(want)), variant
        assert np.array_equal(again, direct, equal_nan=True), variant
