"""The ramp into and out of a corner (hodyn_cli/algorithms/limits/ramps.py): its warp's
derivatives against finite differences, where it starts (w ~ tau^3) and ends (the law itself,
d later), within the acceleration and speed of the law it warps, and the law it makes from
the fastest law from rest: its time derivatives to the fifth vanish at the rest."""
import numpy as np
import pytest

from hodyn_cli.algorithms.limits.jets import compose
from hodyn_cli.algorithms.limits.ramps import FLAT, FLATS, TAIL, Ramp


@pytest.fixture(scope="module", params=[0.0, FLAT, min(FLATS), max(FLATS)],
                ids=["single step", "flat", "flattest", "flat over none"])
def ramp(request):
    """The single polynomial step's ramp (corners without limits of higher orders) and
    flat-topped ones (Ramp.flat: with them): the 1/3, the flattest-topped (a jerk's) and
    the one flat over none of its rise, turned by the flatter curve (a torque
    acceleration's)."""
    return Ramp(0.01, flat=request.param)


def test_the_warps_derivatives_are_its_own(ramp):
    """w' .. w'''' against central differences of the order below, on both sides of the
    rise and the tail (where it is pieced together; the flat steps' turns too, their w^(6)
    ~40 times the single step's at 1/3, larger at 1/6: central differences err by
    h^2/6 of it, 2.9e-6 of w''''), to 4e-6 of each order's largest."""
    tau = np.linspace(0.0, 1.2 * ramp.tail, 240001)
    h = tau[1] - tau[0]
    w = ramp.warp(tau)
    for k in range(1, 5):
        numeric = (w[2:, k - 1] - w[:-2, k - 1]) / (2 * h)
        assert np.abs(numeric - w[1:-1, k]).max() <= 4e-6 * np.abs(w[:, k]).max(), k


def test_it_starts_as_a_cube_and_ends_as_the_law_later(ramp):
    """w = w' = w'' = 0 at the rest (w''' > 0), w = tau - d with w' = 1 from the tail on,
    its value and first five derivatives continuous there; d about half the rise."""
    w0 = ramp.warp(np.array([0.0]))[0]
    assert np.all(w0[:3] == 0) and w0[3] > 0
    after = ramp.warp(np.array([ramp.tail, 2 * ramp.tail]))
    assert np.allclose(after[:, 0], [ramp.tail - ramp.delay, 2 * ramp.tail - ramp.delay],
                       rtol=0, atol=1e-12)
    assert np.allclose(after[:, 1:], [[1, 0, 0, 0]] * 2, atol=1e-9)
    just = ramp.warp(ramp.tail * np.array([1 - 1e-9, 1 + 1e-9]))
    assert np.allclose(just[0], just[1], atol=1e-5 * np.abs(ramp.warp(
        np.linspace(0, ramp.tail, 1001))).max(axis=0))
    assert 0.49 < ramp.delay / ramp.rise < 0.5
    assert ramp.tail == TAIL * ramp.rise


def test_it_stays_within_the_laws_acceleration_and_speed(ramp):
    """Warping the fastest law from rest (sigma = u t^2 / 2): its acceleration u (w^2/2)''
    is at most u (1 + overshoot), overshoot ~1.8e-4 (2.1e-4 .. 3.8e-4 flat), and its speed
    w' times the law's at the same point, w' <= 1; inverse(w(tau)) = tau."""
    tau = np.linspace(0.0, ramp.tail, 20001)
    w = ramp.warp(tau)
    accel = w[:, 1] ** 2 + w[:, 0] * w[:, 2]
    assert accel.max() <= 1 + ramp.overshoot + 1e-9 and ramp.overshoot < 4e-4
    assert np.all(w[:, 1] >= 0) and w[:, 1].max() <= 1 + 1e-12
    assert np.abs(ramp.inverse(w[:, 0]) - tau).max() < 1e-12


def test_the_warped_law_is_at_rest_to_its_fifth_derivative(ramp):
    """sigma(tau) = sigma_0(w(tau)) with sigma_0 = u t^2/2 + c t^3 (the chain rule on the
    series, as reachability.played composes them): sigma' .. sigma^(5) vanish at the rest
    (sigma ~ u a^2 tau^6 / 2) and sigma^(6) does not; by finite differences of sigma^(4)."""
    u, c = 3.0, 0.7
    tau = np.array([0.0, 1e-6, 2e-6])
    w = ramp.warp(tau)
    t0 = w[:, 0]
    law = np.stack([u * t0**2 / 2 + c * t0**3, u * t0 + 3 * c * t0**2, u + 6 * c * t0,
                    6 * c + 0 * t0, 0 * t0], axis=1)[:, :, None]
    sigma = compose(law, w[:, 1:])[:, :, 0]
    assert np.all(sigma[0, 1:] == 0)
    # sigma^(4) ~ 180 u a^2 tau^2: its second difference / h^2 is sigma^(6) = 360 u a^2
    a = w[0, 3] / 6
    sixth = (sigma[2, 4] - 2 * sigma[1, 4] + sigma[0, 4]) / 1e-6**2
    assert sixth == pytest.approx(360 * u * a**2, rel=5e-3)  # (w'''': 1e-3 at 2 us)


@pytest.mark.parametrize("rise, tail, flat", [
    (1e-5, TAIL, 0.0), (0.004, 4, 0.0), (0.05, 7.3, 0.0), (0.67, 4, 0.0), (3.0, 10, 0.0),
    (0.004, 4, FLAT), (0.3, TAIL, FLAT)])
def test_inverse_is_the_warps_to_rounding_and_each_points_own(rise, tail, flat):
    """Ramp.inverse (Newton's steps on w from its table's guess) on ramps of rises from 10 us
    to 3 s and tails of 4 to 20 rises: w(inverse(t0)) = t0 to a few units in the last place
    from 1e-200 of the tail up to its end (the table's nodes and the points just past them,
    where the guess changes its piece, among them), t0 + d beyond; and each point's tau is
    its own, whatever batch it is in (alone, or cut in two: the played motion's chunks; a
    point that had converged stepped on with the rest of its batch, 17 % of them moved by a
    unit in the last place); the flat step's too (its pieces' joints among the table's
    nodes)."""
    ramp = Ramp(rise, tail, flat)
    end = ramp.tail - ramp.delay
    nodes = ramp._table[1]
    rng = np.random.default_rng(3)
    t0 = np.concatenate([rng.uniform(0.0, end, 300), end * np.logspace(-200, 0, 60), nodes,
                         np.nextafter(nodes, np.inf), [0.0, np.nextafter(end, 0.0), end,
                                                       1.5 * end]])
    tau = ramp.inverse(t0)
    back = ramp.warp(tau, 1)[:, 0]
    assert np.all(np.abs(back - t0) <= 8 * np.spacing(np.maximum(t0, 1e-300))), \
        np.max(np.abs(back - t0) / np.maximum(t0, 1e-300))
    assert tau[-1] == 1.5 * end + ramp.delay and tau[-4] == 0.0
    alone = np.array([ramp.inverse(t0[i : i + 1])[0] for i in range(len(t0))])
    cut = np.concatenate([ramp.inverse(t0[:101]), ramp.inverse(t0[101:])])
    assert np.array_equal(alone, tau) and np.array_equal(cut, tau)



@pytest.mark.parametrize("rise, tail", [(0.67, 4), (3.0, 10)])
def test_inverse_stops_where_rounding_decides_its_steps(rise, tail, monkeypatch):
    """Just below the rise, rounding in tau^3 sqrt(P) swings Newton's step by a few units in
    the last place (of 20k points over the last tenth of the rise, 7 on the 3 s ramp and 1
    on the 0.67 s one ran to the cap of 40 steps): a point stops where its step stops
    shrinking. Every point then takes at most 8 steps, and its tau is bisection's (64
    halvings of w's interval on the warp's own series) to a few units in the last place."""
    ramp = Ramp(rise, tail)
    t0 = np.random.default_rng(0).uniform(*ramp.warp(np.array([0.9 * rise, rise]), 1)[:, 0],
                                          20000)
    calls = []
    real = ramp._w
    monkeypatch.setattr(ramp, "_w", lambda tau: calls.append(len(tau)) or real(tau))
    tau = ramp.inverse(t0)
    assert len(calls) <= 8, calls
    lo, hi = np.zeros_like(t0), np.full_like(t0, ramp.tail)
    for _ in range(64):
        mid = (lo + hi) / 2
        below = ramp.warp(mid, 1)[:, 0] < t0
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    # (w's two series round apart: up to 7 units, as the steps run to the cap were too)
    assert np.all(np.abs(tau - lo) <= 8 * np.spacing(lo)), np.max(np.abs(tau - lo) / np.spacing(lo))
