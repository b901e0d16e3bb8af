"""The ramps at a rest sized by the played law's path acceleration there (issue 37, goals 1
and 4): ``rates.rise`` reads u at each ramped rest from the law as the rounds play it
(``rates._leaving``), which the ramp warps, not from the passes' law, whose u the rounds'
widened smoothing lowers there by far (29-33 against 202-277 on the iiwa's point-to-point
path with its limits file: ramps 4.5 times too long)."""

from dataclasses import replace
from pathlib import Path

import pytest
from test_rates import _ur5_corners

import hodyn_cli
from conftest import bench_p2p
from hodyn_cli.algorithms.limits import rates, reachability
from hodyn_cli.algorithms.limits.programme import path_limits
from hodyn_cli.algorithms.limits.ramps import FLAT
from hodyn_cli.core.trajectory import Trajectory

URDF = Path(__file__).resolve().parents[1] / "urdf"
#: the windows' law on bench_optimal_rates' ``iiwa-p2p`` (``--solver windows``: 2.6262881 s
#: before windows16 handed on only the binding rows, 2.6256687 s since, 2026-12-02;
#: reachability's was 2.66642 s before its ramps read the played law's u)
IIWA_P2P_WINDOWS = 2.6256687


def test_a_ramp_s_rise_follows_the_played_law_s_acceleration_at_its_rest():
    """On the UR5's corners with --jerk 500 (only jerk limits: the rise goes as u), the
    passes' laws played as they are and played at a quarter of their x (u a quarter at
    every rest): the rise a quarter (the old rise read the passes' u: the same for both)."""
    model, traj, limits = _ur5_corners()
    found = reachability.solve(model, traj, rates.affine(limits), 1500)
    assert found is not None and len(found) == 2

    def at(arc, a: int, b: int) -> list:
        sigma = arc.sigma[a:b]
        return path_limits(model, Trajectory(traj.joint_names, arc.jet(sigma, 5), sigma),
                           limits, 1)

    played = [(arc, replace(law, played=law.x)) for arc, law in found]
    quarter = [(arc, replace(law, played=law.x / 4)) for arc, law in found]
    full = rates.rise(played, at, 0.0, FLAT)
    assert rates.rise(quarter, at, 0.0, FLAT) == pytest.approx(full / 4, rel=1e-12)
    # (the played x is the passes' own here: u from its end slope as the spline takes it,
    # within 3e-5 of the passes' u on their first or last interval)
    u = max(abs(float(law.u[end])) for _, law in found for end in (0, -1))
    assert max(rates._leaving(law, end) for _, law in played for end in (0, -1)) == \
        pytest.approx(u, rel=1e-4)


def test_the_iiwa_s_point_to_point_law_by_reachability_is_shorter_than_the_windows():
    """bench_optimal_rates' ``iiwa-p2p`` (the iiwa through three waypoints from rest to
    rest, legs of 1 s at 100 Hz, its limits file: torque rates and accelerations) by
    reachability: shorter than the windows' law (2.62629 s), within every limit at every
    sample and passing validate. Its ramps read the passes' u before (202-277 at its rests,
    asking a rise of 0.49 s, cut to 0.148 s by the legs): 2.66642 s, 1.5 % longer than the
    windows'; now the played law's (29-33, a rise of 0.110 s): 2.59821 s."""
    model, limits, out, opt = bench_p2p("iiwa14", 1.0, "iiwa14_limits.toml")
    assert opt.duration < IIWA_P2P_WINDOWS * (1 - 5e-3), opt.duration
    assert hodyn_cli.check_limits(model, out, limits=limits).feasible
    assert hodyn_cli.validate_motion(model, out, samples=30).passed


def test_the_played_u_at_each_rest_is_over_that_ends_own_grid_step():
    """``rates._leaving`` on a grid denser at one end (reachability's grid where the path turns
    sharply: :func:`~hodyn_cli.algorithms.limits.reachability.end_steps`): x = 3 sigma
    played, u = x'/2 = 1.5 at both rests; over the first step at both ends the last one read
    1.5 x 0.01 / 0.1 = 0.15."""
    import numpy as np

    sigma = np.concatenate([np.arange(0.0, 1.0, 0.1), 1.0 + np.arange(0.0, 0.1, 0.01)])
    x = 3 * sigma
    law = reachability.Law(sigma, x, np.zeros(len(sigma) - 1), played=x)
    assert rates._leaving(law, 0) == pytest.approx(1.5, rel=1e-12)
    assert rates._leaving(law, -1) == pytest.approx(1.5, rel=1e-12)
