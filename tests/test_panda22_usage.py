"""rates.kept's lift and trim make their usage passes without the static parts (issue 37,
goal 4: the Panda's 10^5-sample path within 30 s): they read each point's shares and time
order alone, and each point's worst joint and its static part there were 16 % of a pass;
the rounds, which read the static parts, make them (rates._shares, rates._Kept.usage)."""

import numpy as np
from test_rates import _iiwa_law

from hodyn_cli.algorithms.limits import rates, reachability


def _law_X(law) -> np.ndarray:
    """(M, 4) x .. x''' of the passes' law at its grid points (some beyond their limits of
    higher orders, of both time orders: the rounds' start)."""
    return reachability.law_spline(law.sigma, np.asarray(law.x[:])).jet(np.asarray(law.sigma), 4)


def _equal_but_static(a: rates.Usage, b: rates.Usage) -> None:
    for f in ("affine", "higher", "order"):
        assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True), f


def test_shares_are_usage_without_its_static_parts():
    """rates._shares: the affine and higher shares and the time order to the bit as
    rates._usage makes them, no static parts."""
    arc, law, at, _, _ = _iiwa_law()
    M = len(law.x)
    X = _law_X(law)
    whole, shares = rates._usage(at(0, M), X), rates._shares(at(0, M), X)
    assert shares.static is None and whole.static is not None
    _equal_but_static(shares, whole)
    assert (whole.higher > 1).any() and set(whole.order) == {1.0, 2.0}  # (orders read)


def test_the_lift_and_trim_passes_have_no_static_parts_and_keep_the_law(monkeypatch):
    """rates.kept on the iiwa's Fourier path with its limits file: the rounds' passes made
    with the static parts, every later one (the lift's, the trim's) without; the kept law
    to the bit the one whose every pass makes them."""
    arc, law, at, rows, reach = _iiwa_law()
    flags: list[bool] = []
    incremental = rates._Kept.usage

    def recorded(self, X, static=True):
        flags.append(static)
        return incremental(self, X, static)

    monkeypatch.setattr(rates._Kept, "usage", recorded)
    kept = rates.kept(arc, law, at, rows, reach)
    assert kept is not None and kept.law.played is not None
    rounds = flags.index(False)
    assert rounds >= 1 and not any(flags[rounds:]), flags  # (rounds first, then the lift)
    assert len(flags) - rounds >= 2, flags

    monkeypatch.setattr(rates._Kept, "usage",
                        lambda self, X, static=True: incremental(self, X, True))
    every = rates.kept(arc, law, at, rows, reach)
    assert every is not None and every.law.played is not None
    assert np.array_equal(kept.law.played, every.law.played)
    assert kept.duration == every.duration


def test_a_pass_with_static_parts_after_one_without_makes_them_everywhere(monkeypatch):
    """rates._Kept.usage: after a pass without static parts, a pass that asks for them
    (the same X, nothing changed) makes them at every point, as a first pass does; the
    shares the same numbers throughout."""
    arc, law, at, _, _ = _iiwa_law()
    M = len(law.x)
    kept = rates._Kept(at, [(0, M)], M)
    X = _law_X(law)
    first = kept.usage(X, static=False)
    assert first.static is None
    seen: list[int] = []
    made = rates._made
    monkeypatch.setattr(rates, "_made", lambda found, X, static_parts: seen.append(len(X))
                        or made(found, X, static_parts))
    again = kept.usage(X)
    assert seen == [M]
    whole = made(kept.limits(0, M), X, True)  # (the limits as kept: read back)
    assert again.static is not None and np.array_equal(again.static, whole.static,
                                                       equal_nan=True)
    _equal_but_static(again, whole)
    _equal_but_static(first, whole)
    assert kept.usage(X, static=False).static is None and seen == [M]  # (read back)
