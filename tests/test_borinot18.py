"""The peer of benchmarks/stranger_sweep17.py on a robot whose velocity limits are far above
toppra's cap (the Borinot's flying arm: 10^4 rad/s): the cap raised until it no longer binds
(:func:`stranger_optimal.toppra_uncapped`; toppra itself is not run here)."""

import sys

import numpy as np

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from stranger_optimal import VELOCITY_CAP, toppra_uncapped  # noqa: E402


def _toppra(peak: float, calls: list[float]):
    """A stand-in for toppra_retried at a cap: a law whose speed would peak at ``peak`` rad/s,
    slower where the cap is below it (its duration peak / cap, else 1; its caps recorded)."""
    def run(cap: float) -> tuple[float, str]:
        calls.append(cap)
        return max(1.0, peak / cap), "-"
    return run


def test_the_peers_cap_is_raised_until_it_no_longer_binds():
    """The Borinot's Lissajous law peaks at ~66 rad/s: toppra capped at 50 was 1.1 % slower
    than its own law; the cap is doubled until the law no longer changes."""
    calls: list[float] = []
    duration, retry = toppra_uncapped(np.array([1e4, 1e4]), _toppra(66.0, calls))
    assert duration == 1.0 and retry == "-@100"
    assert calls == [VELOCITY_CAP, 100.0, 200.0]


def test_a_cap_that_does_not_bind_is_run_once_more_and_kept():
    """A law below the cap keeps it (the row's retry as before); limits at or below the cap
    run toppra once, as before."""
    calls: list[float] = []
    assert toppra_uncapped(np.array([1e4]), _toppra(20.0, calls)) == (1.0, "-")
    assert calls == [VELOCITY_CAP, 100.0]
    calls.clear()
    assert toppra_uncapped(np.array([12.0, 40.0]), _toppra(20.0, calls)) == (1.0, "-")
    assert calls == [VELOCITY_CAP]


def test_the_raised_cap_stops_at_the_urdfs_limit_and_says_where_toppra_fails():
    """The cap never goes beyond the URDF's own limit (Laikago's 52.4 rad/s); where a raised
    cap finds no law (toppra's nan at 10^4 on the Hextilt), the last law found is kept and
    its retry says it is capped."""
    calls: list[float] = []
    assert toppra_uncapped(np.array([52.4]), _toppra(60.0, calls)) == (60.0 / 52.4, "-@52.4")
    assert calls == [VELOCITY_CAP, 52.4]

    def failing(cap: float) -> tuple[float, str]:
        return (1.2, "-") if cap <= VELOCITY_CAP else (np.nan, "none")

    assert toppra_uncapped(np.array([1e4]), failing) == (1.2, "capped@50")
