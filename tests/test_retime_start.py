"""What ``retime --optimal`` does besides its solve, made cheaper with its results the same to
the bit (benchmarks/README.md, "retime --optimal end to end"): the rates' median without
numpy.ma, the Hermite interpolants between the path's samples made once for all the orders
asked of them."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import jets
from hodyn_cli.algorithms.limits.programme import FINE, _interpolated, _low
from hodyn_cli.algorithms.limits.rates import _median


def test_median_is_numpys_without_importing_numpy_ma():
    rng = np.random.default_rng(3)
    for n in range(1, 12):
        for x in (rng.random(n) * 7, np.round(rng.random(n) * 7)):
            assert _median(x) == np.median(x)
    # (a process of its own: numpy.ma is only imported where something asks for it)
    code = ("import sys, numpy as np\n"
            "from hodyn_cli.algorithms.limits.rates import _median\n"
            "_median(np.array([3.0, 1.0, 2.0, 5.0]))\n"
            "assert 'numpy.ma' not in sys.modules, 'numpy.ma imported'\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("D", [1, 2, 4, 7])
def test_hermite_orders_each_as_alone(D):
    rng = np.random.default_rng(D)
    left, right = rng.normal(size=(2, 40, D, 3))
    h, u = rng.random(40) * 0.01 + 1e-3, rng.random(40)
    orders = tuple(range(2 * D - 1, -1, -2))  # (some above D - 1, out of order)
    together = jets.hermite(left, right, h, u, orders=orders)
    for j, order in enumerate(orders):
        assert np.array_equal(together[:, j], jets.hermite(left, right, h, u, order))
    # (every order at once is one product of all rows, whose rounding depends on numpy's
    # matmul loop for the CPU: the same bits with AVX-512, not with AVX2 + FMA)
    alone, whole = jets.hermite(left, right, h, u, orders=tuple(range(D))), jets.hermite(
        left, right, h, u)
    scale = np.abs(whole).max(axis=(0, 2), keepdims=True)
    assert (np.abs(alone - whole) <= 1e-13 * scale).all()


def test_interpolated_as_one_order_at_a_time():
    """Between the samples, each order r from its own interpolant (orders _low(r) .. D-1), as
    before the interpolants were shared: steps either side of FINE, the same to the bit."""
    rng = np.random.default_rng(7)
    D, E = 5, 60
    left, right = rng.normal(size=(2, E, D, 4))
    h = np.where(np.arange(E) % 3 == 0, FINE / 4, FINE * 3)
    u = rng.random(E)
    out = _interpolated(left, right, h, u)
    for fine in (h < FINE, h >= FINE):
        lows = _low(D, bool(h[fine][0] < FINE))
        alone = np.stack([jets.hermite(left[fine][:, a:], right[fine][:, a:], h[fine],
                                       u[fine], r - a) for r, a in enumerate(lows)], axis=1)
        assert np.array_equal(out[fine], alone)
    for r in range(D):
        assert np.array_equal(_interpolated(left, right, h, u, order=r), out[:, r])
    top = _interpolated(left, right, h, u, top=True)[:, 0]
    coarse, a = h >= FINE, _low(D, False)[-1]
    assert np.array_equal(top[coarse], jets.hermite(left[coarse][:, a:], right[coarse][:, a:],
                                                    h[coarse], u[coarse], D - a))


def test_probes_are_the_seeded_draws_and_retimes_modules_import_none_it_does_not_use():
    """retime --optimal's modules (the command line's, the pipeline's, the solvers') import
    neither numpy.random (PROBES written out), numpy.ma nor concurrent.futures (the streaming
    commands' threads, imported where they run)."""
    from hodyn_cli.algorithms.limits.programme import PROBES

    assert np.array_equal(PROBES[1:], np.random.default_rng(31).uniform(-1.5, 1.5, (15, 4)))
    assert np.array_equal(PROBES[0], [1.0, 0.0, 0.0, 0.0])
    code = ("import sys\n"
            "import hodyn_cli.cli.app, hodyn_cli.cli.feasibility, hodyn_cli.pipeline.files\n"
            "import hodyn_cli.pipeline.feasibility, hodyn_cli.algorithms.limits.optimal\n"
            "late = {'numpy.random', 'numpy.ma', 'concurrent.futures'} & set(sys.modules)\n"
            "assert not late, late\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("D", [4, 5, 6])
def test_between_makes_each_interval_once_for_its_points_the_same_to_the_bit(D, monkeypatch):
    """programme.between with several points to an interval (the local slowing's 16
    samplings, out of order: a sampling after another) makes each interval's control points
    once and gathers them (jets.hermite's ``at``): the same numbers to the bit as each
    point's interval taken for it, on steps either side of FINE, every order and each alone;
    and it does take the shared road there (hermite's ``at`` given)."""
    from hodyn_cli.algorithms.limits import programme
    from hodyn_cli.core.trajectory import Trajectory

    rng = np.random.default_rng(D)
    N = 400
    t = np.cumsum(np.concatenate([[0.0], rng.uniform(FINE / 4, FINE * 2, N - 1)]))
    derivatives = rng.normal(size=(N, D, 7))
    path = Trajectory(tuple(f"j{k}" for k in range(7)), derivatives, t)
    s = np.concatenate([np.sort(rng.uniform(t[0], t[-1], 3 * N)) for _ in range(4)]
                       + [t[:5], t[-1:]])
    i = np.clip(np.searchsorted(t, s, side="right") - 1, 0, N - 2)
    h = t[i + 1] - t[i]
    u = (s - t[i]) / h
    shared = []
    hermite = programme.hermite

    def spied(*args, **kwargs):
        shared.append(kwargs.get("at") is not None)
        return hermite(*args, **kwargs)

    monkeypatch.setattr(programme, "hermite", spied)
    assert np.array_equal(programme.between(path, s),
                          _interpolated(derivatives[i], derivatives[i + 1], h, u))
    assert shared and shared[0]
    for r in range(D):
        assert np.array_equal(programme.between(path, s, order=r),
                              _interpolated(derivatives[i], derivatives[i + 1], h, u, order=r))
