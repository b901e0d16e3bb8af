"""``scaling._first_crossings``: the roots of ``a - half`` and ``a + half`` found in one call
of ``_smallest_positive_root`` (the roots are found row by row), the old two calls' crossings
to the bit."""
from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.limits import scaling


def _two_calls(a: np.ndarray, half: np.ndarray) -> np.ndarray:
    """The crossings as found before: a call per sign."""
    out = np.full(a.shape[0], np.inf)
    for sign in (1.0, -1.0):
        p = a.copy()
        p[:, 0] -= sign * half
        out = np.minimum(out, scaling._smallest_positive_root(p))
    return out


def test_one_call_finds_the_two_calls_crossings_to_the_bit(monkeypatch):
    """Rigid laws (two terms) and higher ones, a row on its band at rest (a root at 0 divided
    out), rows that never cross: the same crossings, from one call (two before)."""
    rng = np.random.default_rng(2)
    a = np.zeros((300, 7))
    a[:, 0] = rng.uniform(-0.5, 0.5, 300)
    a[:100, 2] = rng.normal(0.0, 2.0, 100)  # a0 + a2 x^2: a rigid torque's law
    a[100:, 1:] = rng.normal(0.0, 1.0, (200, 6))
    a[100:150, 1::2] = 0.0  # even laws of degree 6
    half = np.ones(300)
    a[5, 0] = 1.0  # on its band at rest: the root at 0 of a - half divided out
    a[6, 1:] = 0.0  # never moves: no crossing
    calls = []
    smallest = scaling._smallest_positive_root

    def spy(p: np.ndarray) -> np.ndarray:
        calls.append(len(p))
        return smallest(p)

    monkeypatch.setattr(scaling, "_smallest_positive_root", spy)
    found = scaling._first_crossings(a, half)
    monkeypatch.undo()
    assert calls == [600]
    assert np.array_equal(found, _two_calls(a, half))
    assert np.isinf(found[6]) and np.isfinite(found[:100]).sum() > 10
