"""The local slowing's bisection (``local.speedups``, ``local.candidates``): each limited law
made only at the samples that the laws before it keep within their limits, the verdicts
``local._worst``'s to the bit, NaN beyond as its maximum makes it."""
from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.limits import local
from hodyn_cli.algorithms.limits.scaling import TOLERANCE, Law


def _taken(rng: np.random.Generator, n: int) -> list[local.Taken]:
    names = ("a", "b", "c")
    tau = Law(1, rng.normal(0.0, 0.6, (n, 3, 2)), names, np.abs(rng.normal(0.0, 0.1, (n, 3, 3))))
    qdd = Law(2, rng.normal(0.0, 0.8, (n, 3, 1)), names)
    return [(tau, np.full(3, 0.1), np.full(3, 1.3)), (qdd, np.zeros(3), np.ones(3))]


def test_a_law_is_made_only_where_the_laws_before_keep_their_limits(monkeypatch):
    """Played at y, the second law is made at the samples the first keeps alone (the
    old bisection made every law at every sample), and the verdicts are ``_worst``'s."""
    rng = np.random.default_rng(3)
    taken = _taken(rng, 400)
    y = rng.uniform(local.SLOWEST, 1.0, 400)
    first, _, _ = taken[0]
    sizes: list[tuple[bool, int]] = []
    at = Law.at

    def spy(self: Law, x=1.0) -> np.ndarray:
        sizes.append((self.coefficients.shape[-1] == first.coefficients.shape[-1],
                      np.size(x)))
        return at(self, x)

    monkeypatch.setattr(Law, "at", spy)
    fits = local._fit(taken, y)
    monkeypatch.undo()
    law, centre, half = taken[0]
    kept = (np.abs(law.at(y) - centre) / half).max(axis=1) <= 1 + TOLERANCE / 10
    assert 0 < kept.sum() < 400  # (the first law puts some samples beyond)
    assert sizes == [(True, 400), (False, int(kept.sum()))]
    assert np.array_equal(fits, local._worst(taken, y) <= 1 + TOLERANCE / 10)


def with_nan(taken: list[local.Taken]) -> list[local.Taken]:
    """``taken`` with sample 7's first law's coefficient of joint b at grade 0 NaN."""
    tau, centre, half = taken[0]
    coefficients = tau.coefficients.copy()
    coefficients[7, 1, 0] = np.nan
    return [(Law(tau.power, coefficients, tau.joint_names, tau.friction), centre, half),
            *taken[1:]]


def test_the_bisection_is_the_worst_uses_to_the_bit_nan_beyond():
    """``speedups`` against the bisection on ``_worst`` (the formulation before): the same
    speed-ups to the bit; a sample whose law is NaN fits at no speed-up (SLOWEST), as a NaN
    maximum is beyond, and ``candidates`` drops it."""
    rng = np.random.default_rng(5)
    taken = with_nan(_taken(rng, 300))
    _, centre, half = taken[0]
    lo, hi = np.full(300, local.SLOWEST), np.ones(300)
    for _ in range(local.BISECTIONS):
        mid = (lo + hi) / 2
        fits = local._worst(taken, mid) <= 1 + TOLERANCE / 10
        lo, hi = np.where(fits, mid, lo), np.where(fits, hi, mid)
    found = local.speedups(taken)
    assert np.array_equal(found, lo) and found[7] == local.SLOWEST
    assert np.any((found > local.SLOWEST) & (found < 0.99))
    laws = {"tau": taken[0][0], "qdd": taken[1][0]}
    limited = [(None, "tau", np.arange(3), centre - half, centre + half),
               (None, "qdd", np.arange(3), -np.ones(3), np.ones(3))]
    rows, _ = local.candidates(laws, limited)
    assert 7 not in rows and rows.size
