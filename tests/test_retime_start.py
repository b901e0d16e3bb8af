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
    assert np.array_equal(jets.hermite(left, right, h, u, orders=tuple(range(D))),
                          jets.hermite(left, right, h, u))


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
