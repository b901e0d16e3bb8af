"""rates.kept's usage passes (issue 37, goal 4: a 10^5-sample path in 30 s): each pass makes
every limit at the grid points whose law changed (``_Kept.usage``; a full pass ~0.45 s of
CPU on the Panda's 10^5-sample Fourier path, whose rounds, lift and trim made 30), so
none is made twice for the same law, a lift whose tries get no nearer its limits ends,
and a pass's shares are argmax's to the bit."""

from dataclasses import replace

import numpy as np

from hodyn_cli.algorithms.limits import rates


def test_no_usage_pass_is_made_twice_for_the_same_law(monkeypatch):
    """rates.kept on the iiwa's Fourier path with its limits file (rounds, lift, trim): no
    two usage passes read the same law's derivatives (the lift took the last round's law
    and made its usage again: one pass of each lifted piece's, ~0.45 s on 10^5 samples)."""
    from test_rates import _iiwa_law

    seen: list[int] = []
    made = rates._made  # (what every pass goes through: the rounds', the lift's, the trim's)

    def counted(found, X, static_parts):
        seen.append(hash(X.tobytes()))
        return made(found, X, static_parts)

    arc, law, at, rows, reach = _iiwa_law()
    monkeypatch.setattr(rates, "_made", counted)
    kept = rates.kept(arc, law, at, rows, reach)
    assert kept is not None and kept.law.played is not None
    assert len(seen) >= 3  # (rounds, then the lift's tries)
    assert len(set(seen)) == len(seen), f"{len(seen) - len(set(seen))} of {len(seen)} made again"


def _stub(shares: list[float], M: int = 600) -> tuple[list[np.ndarray], object]:
    """A usage whose law x = 1 is at 0.3 of a velocity limit everywhere, and whose k-th lift
    try (the call after the law's own) is ``shares[k]`` times a limit of higher order at
    points 290-309 (within elsewhere: 0.3); the laws it was called with in the list."""
    calls: list[np.ndarray] = []

    def usage(x: np.ndarray) -> rates.Usage:
        calls.append(x)
        higher = np.full(M, 0.3)
        if len(calls) > 1:
            higher[290:310] = shares[min(len(calls) - 1, len(shares)) - 1]
        return rates.Usage(np.full(M, 0.3), higher, np.zeros(M), np.ones(M))

    return calls, usage


def test_a_lift_whose_try_is_no_nearer_its_limits_than_the_one_before_ends():
    """rates._lifted: a try beyond a limit is tried again with the room about it blocked;
    where that try is as far beyond or farther (the blocked places' edges put their
    neighbours beyond: the iiwa's 10^5-sample Fourier path, 1.056 then 1.855, 1.968, 1.674
    times a limit), the lift ends there, x as it was: the law's own usage and 2 tries, not
    TRIES."""
    M, x = 600, np.ones(600)
    calls, usage = _stub([1.056, 1.855, 1.968, 1.674], M)
    out = rates._lifted(x, np.full(M, 4.0), np.full(M, 2.0), usage)
    assert len(calls) == 3 < 1 + rates.TRIES, len(calls)
    assert np.array_equal(out, x)


def test_a_lift_whose_tries_get_nearer_its_limits_tries_on():
    """rates._lifted: tries nearer their limits each time (1.3, then 1.1, then within) go on
    to the one within, which is taken."""
    M, x = 600, np.ones(600)
    calls, usage = _stub([1.3, 1.1, 1.0], M)
    out = rates._lifted(x, np.full(M, 4.0), np.full(M, 2.0), usage)
    assert len(calls) >= 4
    assert np.all(out >= x) and out.max() > 1.5


def test_a_usage_pass_s_shares_are_argmax_s_to_the_bit():
    """rates._usage (a joint a row, the running largest): each point's largest share of
    every affine limit, its largest of a limit of higher order, that limit's static part at
    the first joint of the largest (argmax's) and its order, as ``PathLimit.values`` reduced
    by argmax along each point's joints gives them: to the bit, with two joints tied
    (equal coefficients and bands) and NaN at some points."""
    import hodyn_cli
    from conftest import URDF
    from hodyn_cli.algorithms.limits.programme import Derivatives, path_limits
    from hodyn_cli.algorithms.planning.generate import generate

    model = hodyn_cli.load_robot(str(URDF / "panda.urdf"))
    limits = hodyn_cli.joint_limits(model, str(URDF / "panda_limits.toml"))
    grid = generate(model, "fourier", duration=1.0, rate=100.0, derivatives=6)
    rng = np.random.default_rng(3)
    M = grid.n_samples
    X = np.column_stack([0.5 + rng.random(M), rng.normal(size=(M, 3))])
    X[5, 0] = X[40, 2] = np.nan  # (x: every limit's share NaN there; x'': some)
    found = []
    for limit in path_limits(model, grid, limits, 2):
        c = np.ascontiguousarray(limit.coefficients)  # (as rates._Kept reads them back)
        c[:, 1] = c[:, 0]  # (joints 0 and 1 tied at every point)
        lower, upper = limit.lower.copy(), limit.upper.copy()
        lower[1], upper[1] = lower[0], upper[0]
        found.append(replace(limit, coefficients=c, lower=lower, upper=upper))
    use = rates._usage(found, X)
    rows = np.arange(M)
    affine, higher, static, order = np.zeros(M), np.zeros(M), np.zeros(M), np.ones(M)
    for limit in found:
        centre, half = (limit.lower + limit.upper) / 2, (limit.upper - limit.lower) / 2
        share = np.abs(limit.values(X) - centre) / half
        j = np.argmax(share, axis=1)
        worst = share[rows, j]
        if limit.quantity.key not in rates.HIGHER:
            affine = np.maximum(affine, worst)
            continue
        still = np.abs(rates._static(limit, Derivatives(X), j) - centre[j]) / half[j]
        beyond = worst > higher
        higher, static = np.where(beyond, worst, higher), np.where(beyond, still, static)
        order[beyond] = rates._order(limit)
    assert np.isnan(use.affine[5]) and use.higher[5] == 0  # (NaN is beyond nothing)
    for made, expected in ((use.affine, affine), (use.higher, higher), (use.static, static),
                           (use.order, order)):
        assert np.array_equal(made, expected, equal_nan=True)


def test_a_tie_takes_the_first_joint_s_static_part_and_a_nan_share_is_beyond_nothing():
    """rates._usage's claims where they decide something: two joints tied in their share at
    every point whose static parts differ (joint 0: ``s3 s1`` + ``s1 s3``, its static part
    ``s3 s1``; joint 1: ``2 s3 s1`` all static: the same values to the bit, twice the static
    part) give joint 0's static share, the first of the equal largest ones (argmax's); and a
    NaN in one joint's column at one point (the others finite) leaves that point's largest
    share of a limit of higher order and its static part as the limits before it left them
    (NaN is beyond nothing), while an affine limit's largest there is NaN."""
    import hodyn_cli
    from conftest import URDF
    from hodyn_cli.algorithms.limits.programme import Derivatives, path_limits
    from hodyn_cli.algorithms.planning.generate import generate

    model = hodyn_cli.load_robot(str(URDF / "panda.urdf"))
    limits = hodyn_cli.joint_limits(model, str(URDF / "panda_limits.toml"))
    grid = generate(model, "fourier", duration=0.3, rate=100.0, derivatives=6)
    rng = np.random.default_rng(5)
    M = grid.n_samples
    X = np.column_stack([0.5 + rng.random(M), rng.normal(size=(M, 3))])
    found = path_limits(model, grid, limits, 2)
    affine = next(f for f in found if f.quantity.key not in rates.HIGHER)
    higher = next(f for f in found if f.quantity.key in rates.HIGHER)
    s = Derivatives(X).sigma
    m = len(higher.joints)
    c = np.zeros((M, m, 2))   # monomials s1 (static) and s3 (of higher order)
    c[:, 0] = np.column_stack([s[:, 2], s[:, 0]])
    c[:, 1, 0] = 2.0 * s[:, 2]
    c[:, 2:] = 0.1 * c[:, :1]                          # (the others well below the tie)
    c[7, 3] = np.nan                                   # (one joint's share NaN at point 7)
    band = np.full(m, 10.0)
    tied = replace(higher, monomials=((1,), (3,)), coefficients=c, lower=-band, upper=band,
                   friction=None)
    values = tied.values(X)
    assert np.array_equal(values[:, 0], values[:, 1])  # (the tie, to the bit)
    assert np.isnan(values[7, 3]) and np.isfinite(np.delete(values[7], 3)).all()
    first = np.abs(s[:, 0] * s[:, 2]) / 10.0   # joint 0's static share (joint 1's: twice it)
    assert (first > 0).all()

    use = rates._usage([tied], X)
    keep = np.arange(M) != 7
    assert np.array_equal(use.static[keep], first[keep])
    assert np.array_equal(use.higher[keep], np.abs(values[keep, 0]) / 10.0)
    assert use.higher[7] == 0 and use.static[7] == 0 and use.order[7] == 1  # (beyond nothing)
    assert (use.order[keep] == rates._order(tied)).all()
    # after a limit that set point 7: the NaN share leaves it as it was
    before = rates._usage([replace(tied, coefficients=np.nan_to_num(c))], X)
    both = rates._usage([replace(tied, coefficients=np.nan_to_num(c)), tied], X)
    assert both.higher[7] == before.higher[7] > 0 and both.static[7] == before.static[7]
    # an affine limit's largest share is NaN where one of its joints' is
    a = np.array(affine.coefficients, dtype=float)
    a[7, 1] = np.nan
    assert np.isnan(rates._usage([replace(affine, coefficients=a)], X).affine[7])
