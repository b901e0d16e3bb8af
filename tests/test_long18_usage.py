"""rates.kept's usage passes made again only where the law changed (issue 37, goal 4: the
Panda's 10^5-sample path within 30 s): a lift's try after one beyond a limit and the trim's
later steps change x near a few places, so a pass remakes the shares of the grid points whose
X changed since the last pass alone (rates._Kept.usage), the same numbers as made whole."""

import numpy as np
from test_rates import _iiwa_law

from hodyn_cli.algorithms.limits import rates

#: rates._made as imported (rates._usage's and rates._shares'), not a test's counting one
_MADE = rates._made


def _whole(kept: rates._Kept, X: np.ndarray, static: bool = True) -> rates.Usage:
    """The usage of X made chunk by chunk, every point (as before rates._Kept.usage;
    ``static``: rates._usage's, else rates._shares')."""
    parts = [_MADE(kept.limits(a, b), X[a:b], static) for a, b in kept._chunks]
    return rates.Usage(*(None if parts[0].__getattribute__(f) is None else
                         np.concatenate([getattr(p, f) for p in parts])
                         for f in rates._USAGE_FIELDS))


def _same(a: rates.Usage, b: rates.Usage) -> None:
    """Every field of a and b equal to the bit (NaN where NaN; None where None)."""
    for f in rates._USAGE_FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        assert (x is None) == (y is None), f
        assert x is None or np.array_equal(x, y, equal_nan=True), f


def test_a_pass_remakes_the_changed_points_alone_the_same_numbers(monkeypatch):
    """rates.kept on the iiwa's Fourier path with its limits file (rounds, lift, trim), the
    parts 16 points: every pass's shares equal to the bit to those made at every point, some
    pass made on fewer points than the grid, and the kept law the one every pass made whole
    gives."""
    arc, law, at, rows, reach = _iiwa_law()
    M = len(law.x)
    made: list[int] = []  # (per pass, the points _usage or _shares was made on)
    incremental = rates._Kept.usage

    def counted(found, X, static_parts):
        made[-1] += len(X)
        return _MADE(found, X, static_parts)

    def checked(self, X, static=True):
        made.append(0)
        out = incremental(self, X, static)
        _same(out, _whole(self, X, static))
        return out

    monkeypatch.setattr(rates, "PART", 16)
    monkeypatch.setattr(rates, "_made", counted)
    monkeypatch.setattr(rates._Kept, "usage", checked)
    kept = rates.kept(arc, law, at, rows, reach)
    assert kept is not None and kept.law.played is not None
    assert len(made) >= 3 and made[0] == M, made
    assert min(made) < M, made  # (a pass that read the last one's shares back)

    # (every pass made whole, with its static parts)
    monkeypatch.setattr(rates._Kept, "usage", lambda self, X, static=True: _whole(self, X))
    whole = rates.kept(arc, law, at, rows, reach)
    assert whole is not None and whole.law.played is not None
    assert np.array_equal(kept.law.played, whole.law.played)
    assert kept.duration == whole.duration


def test_a_pass_after_a_change_at_one_place_remakes_its_parts_alone(monkeypatch):
    """rates._Kept.usage: X changed at grid points 700-709 of 1200 after a pass (parts of 256
    points): the next pass remakes points 512-767 alone, the rest read back, every share as
    made whole; the same X again remakes none."""
    arc, law, at, _, _ = _iiwa_law()
    M = len(law.x)
    kept = rates._Kept(at, [(0, M)], M)
    X = np.abs(np.random.default_rng(3).normal(1.0, 0.1, (M, 4)))
    kept.usage(X)
    Y = X.copy()
    Y[700:710] *= 1.01
    seen: list[int] = []
    monkeypatch.setattr(rates, "_made", lambda found, X, static_parts: seen.append(len(X))
                        or _MADE(found, X, static_parts))
    out = kept.usage(Y)
    assert seen == [rates.PART] == [256]
    again = kept.usage(Y)
    assert seen == [256]
    whole = _whole(kept, Y)
    for f in rates._USAGE_FIELDS:
        assert np.array_equal(getattr(out, f), getattr(whole, f), equal_nan=True), f
        assert np.array_equal(getattr(again, f), getattr(whole, f), equal_nan=True), f
