"""The local slowing's bisection made at the (sample, joint) pairs that may reach their limits
alone (``bounded.near``, ``bounded.fit``, in ``local.speedups``): the verdicts and speed-ups
of making every law at every pair, to the bit."""
from __future__ import annotations

import numpy as np
from test_local_bisection import with_nan

from hodyn_cli.algorithms.limits import bounded, local
from hodyn_cli.algorithms.limits.scaling import TOLERANCE, Law


def _taken(rng: np.random.Generator, n: int) -> list[local.Taken]:
    """A torque-rate law with friction and an acceleration law on three joints: joint a may
    reach its limits, b stays far within, c's bound lies about :data:`bounded.SURE` (half
    its pairs kept)."""
    names = ("a", "b", "c")
    tau = rng.normal(0.0, 0.6, (n, 3, 2))
    tau[:, 1] *= 0.05
    tau[:, 2] *= rng.uniform(0.9, 1.1, (n, 1)) / np.abs(tau[:, 2]).sum(axis=-1)[:, None]
    friction = np.abs(rng.normal(0.0, 0.1, (n, 3, 3)))
    friction[:, 1:, :2] = 0.0
    qdd = rng.normal(0.0, 0.8, (n, 3, 1))
    qdd[:, 1:] *= 0.1
    return [(Law(1, tau, names, friction), np.array([0.1, 0.0, 0.0]),
             np.array([1.3, 1.0, 1.0])),
            (Law(2, qdd, names), np.zeros(3), np.ones(3))]


def _old_speedups(taken: list[local.Taken]) -> np.ndarray:
    """The bisection on every law at every pair (``local._fit``)."""
    size = len(taken[0][0].coefficients)
    lo, hi = np.full(size, local.SLOWEST), np.ones(size)
    for _ in range(local.BISECTIONS):
        mid = (lo + hi) / 2
        fits = local._fit(taken, mid)
        lo, hi = np.where(fits, mid, lo), np.where(fits, hi, mid)
    return lo


def test_the_bisection_makes_the_laws_at_the_pairs_that_may_reach_alone(monkeypatch):
    """Joint b never nears its limits: the bisection does not make its laws there (the old
    one made every law at every joint of every sample still in: ~3 N per law and step)."""
    n = 500
    taken = _taken(np.random.default_rng(11), n)
    made: list[int] = []
    at = Law.at

    def spy(self: Law, x=1.0) -> np.ndarray:
        made.append(self.coefficients.shape[0] * self.coefficients.shape[1])
        return at(self, x)

    monkeypatch.setattr(Law, "at", spy)
    local.speedups(taken)
    monkeypatch.undo()
    pairs = bounded.near(taken)
    kept = sum(len(p[0]) for p in pairs)
    assert n < kept < 3 * n  # (joint a everywhere, some of c's, none of b's)
    assert sum(made) == local.BISECTIONS * kept


def test_the_speedups_and_verdicts_are_every_pairs_to_the_bit_nan_beyond():
    """``speedups`` against the bisection on every pair, and ``bounded.fit`` against
    ``local._fit`` at speed-ups across [0, 1]: equal to the bit; a NaN coefficient, on a joint
    that would otherwise be dropped, makes its sample fit at no speed-up."""
    rng = np.random.default_rng(5)
    taken = with_nan(_taken(rng, 400))
    found = local.speedups(taken)
    assert np.array_equal(found, _old_speedups(taken)) and found[7] == local.SLOWEST
    assert np.any((found > local.SLOWEST) & (found < 0.99))
    pairs = bounded.near(taken)
    for y in (rng.uniform(0.0, 1.0, 400), np.ones(400), np.zeros(400)):
        fits = bounded.fit(pairs, y)
        assert np.array_equal(fits, local._fit(taken, y))
        assert np.array_equal(fits, local._worst(taken, y) <= 1 + TOLERANCE / 10)
    assert 0 < bounded.fit(pairs, np.full(400, 0.75)).sum() < 400


def test_a_friction_law_whose_coulomb_or_viscous_term_reaches_is_kept():
    """A law whose graded part stays far within (0.1 of its band) but whose Coulomb term
    ``c tanh(b y)`` (samples 0-24, joint a) or viscous term ``a y`` (25-49, joint b) takes it
    beyond at full speed: each kept by ``near`` (its bound counts both terms), so that
    ``fit``'s verdicts are ``local._fit``'s, failing at y = 1 and fitting slowly."""
    n = 50
    coefficients = np.full((n, 2, 1), 0.1)
    friction = np.zeros((n, 2, 3))  # (a, c, b)
    friction[:25, 0] = 0.0, 1.0, 20.0
    friction[25:, 1] = 0.95, 0.0, 0.0
    taken = [(Law(0, coefficients, ("a", "b"), friction), np.zeros(2), np.ones(2))]
    pairs = bounded.near(taken)
    assert np.array_equal(np.sort(pairs[0][0]), np.arange(n))  # (one pair each: its own)
    for y in (np.ones(n), np.full(n, 0.01), np.random.default_rng(3).uniform(0.0, 1.0, n)):
        assert np.array_equal(bounded.fit(pairs, y), local._fit(taken, y))
    assert not bounded.fit(pairs, np.ones(n)).any()
    assert bounded.fit(pairs, np.full(n, 0.01)).all()
