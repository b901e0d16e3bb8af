"""The uniform scaling's earliest crossing (:func:`scaling.earliest`) with its arrays made in
place and a law constant in x (a position's) read at rest alone: the same crossings and
binding samples as before to the bit (the earlier code, below, against random laws of
every form a limited series has), and the laws' values (:func:`scaling._graded`) the same
products and sums as Horner's scheme made array by array."""

from __future__ import annotations

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import scaling
from hodyn_cli.algorithms.limits.scaling import ROUNDS, TOLERANCE, Law


def _old_graded(coefficients: np.ndarray, power: int, x) -> np.ndarray:
    y = x * x
    S = coefficients[..., -1]
    for p in range(coefficients.shape[-1] - 2, -1, -1):
        S = S * y + coefficients[..., p]
    return S * x**power


def _old_earliest(law: Law, lower: np.ndarray, upper: np.ndarray):
    """:func:`scaling.earliest` as it was (branch long16's base), friction aside."""
    c, power = law.coefficients, law.power
    N, m = c.shape[:2]
    x, row = np.full(m, np.inf), np.zeros(m, dtype=int)
    cols = np.flatnonzero(np.isfinite(lower) & np.isfinite(upper))
    if not cols.size or not N:
        return x, row
    c = c if len(cols) == m else c[:, cols]
    centre, half = (lower[cols] + upper[cols]) / 2, (upper[cols] - lower[cols]) / 2
    a0 = (c[..., 0] if power == 0 else np.zeros((N, len(cols)))) - centre
    beyond = np.abs(a0) > half * (1 + TOLERANCE)
    half = np.maximum(half, np.abs(a0))
    exact = np.where(beyond, 0.0, np.inf)
    solved = beyond.copy()
    every = np.arange(len(cols))

    def dense(rows, joints):
        a = np.zeros((len(rows), power + 2 * c.shape[-1] - 1))
        a[:, power::2] = c[rows, joints]
        a[:, 0] -= centre[joints]
        return a

    def solve(rows, joints):
        exact[rows, joints] = scaling._first_crossings(dense(rows, joints), half[rows, joints])
        solved[rows, joints] = True

    best, at = exact.min(axis=0), np.ones(len(cols))
    moves = scaling._with_terms(c, int(power == 0))
    active = moves.any(axis=0) & (best > 0)
    for _ in range(ROUNDS):
        if not active.any():
            break
        out = np.abs(_old_graded(c, power, at) - centre) / half
        seed = np.argmax(np.where(solved, -np.inf, out), axis=0)[active]
        solve(seed, every[active])
        before = best[active]
        best[active] = found = np.minimum(before, exact[seed, every[active]])
        active[active] = (found < before) | ~np.isfinite(found)
        at = np.where(np.isfinite(best), best, 2 * at)
    rising, falling = np.maximum(c, 0.0), np.minimum(c, 0.0)
    if power == 0:
        rising[..., 0] = falling[..., 0] = 0.0
    with np.errstate(invalid="ignore"):
        may = ((a0 + _old_graded(rising, power, best) >= half)
               | (a0 + _old_graded(falling, power, best) <= -half))
    rows, joints = np.nonzero(~solved & moves & may)
    if len(rows) > len(cols):
        keep = scaling._may_leave(dense(rows, joints), half[rows, joints], best[joints])
        rows, joints = rows[keep], joints[keep]
    solve(rows, joints)
    first = np.argmin(exact, axis=0)
    x[cols], row[cols] = exact[first, every], first
    return x, row


# (the forms of the limited series' laws: q, q', q'', q''' (one grade, x^0 .. x^3), tau,
# tau', tau'' (two grades), and elastic drives' of more)
FORMS = [(0, 1), (1, 1), (2, 1), (3, 1), (0, 2), (1, 2), (2, 2), (0, 4)]


@pytest.mark.parametrize("power, grades", FORMS)
def test_the_earliest_crossings_are_the_old_ones_to_the_bit(power, grades):
    """Random laws (samples near and beyond their bands, zero coefficients, a join's sample
    repeated, an unlimited joint): the crossings and the binding samples of the old code."""
    rng = np.random.default_rng(100 * power + grades)
    for trial in range(6):
        N, m = int(rng.integers(1, 400)), 5
        c = rng.normal(size=(N, m, grades)) * rng.uniform(0.1, 3.0, (1, m, 1))
        c[rng.uniform(size=c.shape) < 0.1] = 0.0
        c[rng.uniform(size=c.shape) < 0.02] = -0.0
        if N > 3:
            c[N // 2] = c[N // 3]  # (a repeated sample: the first binds)
        lower, upper = -rng.uniform(0.5, 4.0, m), rng.uniform(0.5, 4.0, m)
        if trial % 2:
            lower[1], upper[3] = -np.inf, np.inf  # (unlimited joints)
        law = Law(power, c, tuple(f"j{i}" for i in range(m)))
        want, got = _old_earliest(law, lower, upper), scaling.earliest(law, lower, upper)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_a_law_constant_in_x_is_read_at_rest_alone(monkeypatch):
    """A position's law (no term in x): no crossing is solved (none moves with x: the old
    code solved an empty set of samples after bounding every one), the samples beyond their
    band at rest bind at x = 0, the others nowhere."""
    solved: list[int] = []
    crossings = scaling._first_crossings

    def counted(a, half):
        solved.append(len(a))
        return crossings(a, half)

    monkeypatch.setattr(scaling, "_first_crossings", counted)
    c = np.array([[[0.5], [2.0]], [[0.1], [-0.3]], [[0.7], [3.5]]])
    law = Law(0, c, ("a", "b"))
    x, row = scaling.earliest(law, np.array([-1.0, -3.0]), np.array([1.0, 3.0]))
    assert solved == []
    assert x.tolist() == [np.inf, 0.0] and row[1] == 2


def test_the_graded_values_are_horner_s_to_the_bit():
    """``_graded`` in place against Horner's scheme array by array: every grade count, x a
    number, per joint, per sample or per value, 1, 0 and inf, signed zeros, NaN and inf
    coefficients."""
    rng = np.random.default_rng(7)
    for grades in (1, 2, 3, 5):
        c = rng.normal(size=(50, 4, grades)) * 10.0 ** rng.integers(-8, 8, (50, 4, grades))
        c[::5] = -0.0
        c[1::7, :, 0] = np.nan
        c[2::9, :, -1] = np.inf
        for power in (0, 1, 2, 3):
            for x in (1.0, np.asarray(1.0), 0.0, np.inf, np.asarray(0.7),
                      rng.uniform(0, 2, 4), rng.uniform(0, 2, (50, 1)),
                      rng.uniform(0, 2, (50, 4))):
                with np.errstate(invalid="ignore", over="ignore"):
                    want, got = _old_graded(c, power, x), scaling._graded(c, power, x)
                assert np.array_equal(got, want, equal_nan=True)
                assert np.array_equal(np.signbit(got), np.signbit(want))


def test_a_sample_that_leaves_and_reenters_its_band_before_the_best_is_found():
    """The final screen of :func:`scaling.earliest`: a sample out of its band only between
    x = 0.224 and 0.387 (``1 + 2 (y - 0.05)(y - 0.15)(y - 2)``, y = x^2), back inside at the
    x = 0.5 the rounds find (sample 0's ``4 x^2``; the filler's ``0.99 + 0.01 x^2`` is the
    farthest out there, so the rounds stop without it). Its terms of one sign reach the band
    by 0.5 only with its value at rest added (0.97 + 0.235): without it the screen missed the
    crossing at 0.224 (review40: dropping ``up += a0`` passed every other test)."""
    c = np.zeros((3, 1, 4))
    c[0, 0, 1] = 4.0
    c[1, 0] = [0.97, 0.815, -4.4, 2.0]
    c[2, 0, :2] = [0.99, 0.01]
    x, row = scaling.earliest(Law(0, c, ("j",)), np.array([-1.0]), np.array([1.0]))
    assert row[0] == 1 and x[0] == pytest.approx(np.sqrt(0.05), rel=1e-9), (x, row)
