"""The ramps' polynomials evaluated from coefficients made once (hodyn_cli/algorithms/limits/
ramps.py, ``_derived`` and ``_shape``): the same bits as numpy's Polynomial objects called
and derived at every evaluation, which cost ~20 us a call in checks of their series (the
ramps of the xArm7's point-to-point path at 20 Hz: 0.11-0.125 s of CPU, 0.07-0.086 s so)."""
from math import factorial

import numpy as np
import pytest
from numpy.polynomial import Polynomial

from hodyn_cli.algorithms.limits import ramps
from hodyn_cli.algorithms.limits.jets import product, square_root
from hodyn_cli.algorithms.limits.ramps import FLAT, FLATS, Ramp, Start


def _warped(ramp: Ramp, tau: np.ndarray, orders: int) -> np.ndarray:
    """Ramp.warp as it was written first: each piece's Polynomial called, its derivatives
    made by Polynomial.deriv, at every call."""
    out = np.zeros((len(tau), orders))
    after = tau >= ramp.tail
    out[after, 0] = tau[after] - ramp.delay
    out[after, 1:2] = 1.0
    fact = np.array([factorial(j) for j in range(orders)])
    piece = np.where(after, -1, np.searchsorted(ramp._starts, tau, side="right") - 1)
    for i, poly in enumerate(ramp._polys):
        mask = piece == i
        t = tau[mask] - ramp._starts[i]
        F = square_root(np.stack([poly.deriv(j)(t) if j else poly(t) for j in range(orders)],
                                 axis=1) / fact)
        if i == 0:
            F = product(np.stack([t**3, 3 * t**2, 3 * t, np.ones_like(t)], axis=1), F,
                        orders - 1)
        out[mask] = F * fact
    return out


@pytest.mark.parametrize("flat", [0.0, FLAT, max(FLATS)], ids=["single step", "flat", "flat over none"])
def test_a_ramps_warp_is_its_polynomials_called_and_derived_once(flat, monkeypatch):
    """Ramp.warp at every order asked (1, 5 and 8: its pieces' derivatives beyond their
    degree too) bit for bit Polynomial's own evaluation, sign of zero included, and
    Ramp.inverse the same taus; a second warp derives nothing again (each piece's
    derivatives made at the first: Polynomial.deriv was called at every warp)."""
    ramp = Ramp(0.05, flat=flat)
    tau = np.concatenate([np.linspace(0.0, 1.1 * ramp.tail, 2001), ramp.joins])
    for orders in (1, 5, 8):
        got, want = ramp.warp(tau, orders), _warped(ramp, tau, orders)
        assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want))
    derived = []
    deriv = Polynomial.deriv

    def counted(self, *args, **kwargs):
        derived.append(args)
        return deriv(self, *args, **kwargs)

    monkeypatch.setattr(Polynomial, "deriv", counted)
    again = ramp.warp(tau, 8)
    assert not derived and np.array_equal(again, _warped(ramp, tau, 8))
    t0 = ramp.warp(tau, 1)[:, 0]
    assert np.array_equal(ramp.inverse(t0), Ramp(0.05, flat=flat).inverse(t0))


def test_a_starts_warp_is_its_polynomials_called_and_derived_once(monkeypatch):
    """Start.warp bit for bit G and its derivatives called as Polynomials (made by
    Polynomial.deriv, one after the other, at every call), and derives nothing once they
    are made."""
    start = Start(0.05, 0.5)
    tau = np.linspace(0.0, 0.06, 1001)
    got = start.warp(tau, 9)
    want = np.zeros_like(got)
    want[:, 0], want[:, 1] = tau, 1.0
    inside = tau < start.tail
    want[~inside, 0] -= start.delay
    poly = ramps._G
    for k in range(9):
        want[inside, k] -= start.epsilon * start.tail ** (1 - k) * poly(tau[inside] /
                                                                         start.tail)
        poly = poly.deriv()
    assert np.array_equal(got, want)
    monkeypatch.setattr(Polynomial, "deriv", None)  # (any derivation now fails)
    assert np.array_equal(start.warp(tau, 9), want)


def test_a_ramps_step_and_its_integrals_are_made_once_per_step(monkeypatch):
    """Every ramp of a step (single or flat) shares its pieces and integrals (_shape): a
    ramp made after the first of its step makes no polynomial of it again, and is the
    ramp made from scratch (its delay, overshoot and warp the same bits)."""
    ramps._shape.cache_clear()
    first = Ramp(0.03, flat=FLAT)
    made = []
    flat_step = ramps._flat_step
    monkeypatch.setattr(ramps, "_flat_step", lambda a: made.append(a) or flat_step(a))
    second = Ramp(0.07, 12.0, flat=FLAT)
    assert not made
    ramps._shape.cache_clear()
    fresh = Ramp(0.07, 12.0, flat=FLAT)
    assert made == [FLAT]
    tau = np.linspace(0.0, second.tail, 501)
    assert (second.delay, second.overshoot) == (fresh.delay, fresh.overshoot)
    assert np.array_equal(second.warp(tau), fresh.warp(tau))
    assert first.delay != second.delay


def test_a_composition_is_polynomials_own_to_the_bit():
    """ramps._composed(p, q) is Polynomial's call p(Q) (Q of the coefficients q): the same
    coefficients to the bit, their count and the sign of each zero too, for the ramps' own
    shapes (the single step, the bump, the flat step's pieces, the flatter turn of the step
    flat over none of its rise, a constant) composed with a rise's and a tail's map at
    random starts; a ramp made from it is the ramp made from
    Polynomial's calls (its pieces, delay and warp). Without a Polynomial at each step of
    Horner's scheme: a flat ramp 3.6 -> 0.9 ms."""
    rng = np.random.default_rng(0)
    shapes = [ramps._STEP, ramps._BUMP, Polynomial([1.0])] + [
        poly for _, poly in ramps._flat_step(FLAT)] + [ramps._flat_step(max(FLATS))[0][1]]
    for _ in range(200):
        rise = float(10 ** rng.uniform(-3, 0))
        lo = float(rng.choice([0.0, rng.uniform(0.0, 1.0)])) * rise
        for shape in shapes:
            for span in (rise, rise * float(rng.uniform(4.0, 25.0))):
                v = Polynomial([lo, 1]) / span
                want, got = shape(v).coef, ramps._composed(shape, v.coef).coef
                assert np.array_equal(want, got) and np.array_equal(np.signbit(want),
                                                                    np.signbit(got))
    ramp = Ramp(0.05, flat=FLAT)
    composed = ramps._composed
    with pytest.MonkeyPatch.context() as patch:  # (Polynomial's own call, as first written)
        patch.setattr(ramps, "_composed", lambda p, q: p(Polynomial(q)))
        called = Ramp(0.05, flat=FLAT)
    assert ramps._composed is composed
    assert (ramp.delay, ramp.overshoot) == (called.delay, called.overshoot)
    assert all(np.array_equal(a.coef, b.coef) for a, b in zip(ramp._polys, called._polys,
                                                             strict=True))
    tau = np.linspace(0.0, 1.1 * ramp.tail, 1001)
    assert np.array_equal(ramp.warp(tau, 7), called.warp(tau, 7))
