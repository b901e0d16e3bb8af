"""``retime --optimal``'s played law on an output finer than its grid (issue 37, goal 2: the
output passes validate at every rate from 20 Hz to 10 kHz; branch loop18).

The output's samples are resampled between the played law's points
(:func:`~hodyn_cli.algorithms.limits.programme.between`), its top order as the derivative of
a Hermite interpolant whose error is fixed by the points' spacing, while ``hodyn validate``'s
tolerance shrinks as the square of the output's step. The Kinova arm on ANYmal along the
sweep's closed ellipse (benchmarks/stranger_sweep17.py, ``loop``) at 10 kHz: its grid's
1.1-4.5 ms intervals as the law stops at the end put q'''' at 1.46 times validate's
tolerance at every smoothing tried (each narrower than an interval), and the windows' law,
19 % longer, was the output. The played points are now at most
:data:`~hodyn_cli.algorithms.limits.reachability.OUTPUT_STEPS` output steps apart."""

import numpy as np
from test_gaps17_played import REST_TO_REST, _arm

import hodyn_cli
from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.core.trajectory import Trajectory

KINOVA = [f"j2s6s200_joint_{k}" for k in range(1, 7)]
#: the sweep's waypoints A, B, C (shares of each joint's half range about its middle)
A = np.array([-0.3, 0.2, -0.2, 0.25, -0.2, 0.2])
B = np.array([0.25, -0.15, 0.3, -0.2, 0.25, -0.2])
C = np.array([-0.1, 0.3, 0.1, -0.3, -0.1, 0.25])


def _last_third_of_the_loop(model) -> Trajectory:
    """The sweep's ``loop`` ``a + bend (1 - cos 2 pi p) + side sin 2 pi p`` (``bend = (c -
    a) / 2``, ``side = (b - a) / 2``; a, b, c: its waypoints) over its last third, p from 2/3
    to 1 from rest to rest in 1 s at 100 Hz (:data:`REST_TO_REST`), q .. q^(4) by the chain
    rule."""
    low, high = model.limits[:, 0], model.limits[:, 1]
    finite = np.isfinite(low) & np.isfinite(high)  # (a continuous joint: pi about 0)
    low, high = np.where(finite, low, -np.pi), np.where(finite, high, np.pi)
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    a, b, c = (middle + half * w for w in (A, B, C))
    bend, side = 0.5 * (c - a), 0.5 * (b - a)
    t = np.arange(101) / 100
    p = [REST_TO_REST.deriv(r)(t) / 3 if r else 2 / 3 + REST_TO_REST(t) / 3 for r in range(5)]
    w = 2 * np.pi
    # (d^r/dp^r of the curve)
    f = [(a + bend if r == 0 else 0) + w**r * (side * np.sin(w * p[0][:, None] + r * np.pi / 2)
                                               - bend * np.cos(w * p[0][:, None] + r * np.pi / 2))
         for r in range(5)]
    p1, p2, p3, p4 = (v[:, None] for v in p[1:])
    q = np.stack([f[0], f[1] * p1, f[2] * p1**2 + f[1] * p2,
                  f[3] * p1**3 + 3 * f[2] * p1 * p2 + f[1] * p3,
                  f[4] * p1**4 + 6 * f[3] * p1**2 * p2 + f[2] * (3 * p2**2 + 4 * p1 * p3)
                  + f[1] * p4], axis=1)
    return Trajectory(model.joint_names, q, t)


def test_a_law_stopping_within_coarse_grid_intervals_passes_validate_at_10_khz():
    """The loop's last third on a grid of 1000 intervals (the whole loop's spacing, ~1 ms),
    retimed at 10 kHz: reachability's law, as long as its 1 kHz output (2.01485 s; before:
    every smoothing failed validate, q^(3) there at 1.46 times its tolerance as the law
    stops, and the windows' law, 2.10614 s, +4.5 %, took 9.6 s of CPU), its played points at
    most OUTPUT_STEPS output steps apart (0.3 of the tolerance; 1.0 with each new point timed
    by one integral from its interval's nearer end, near the start's rest), within its
    limits, passing validate."""
    model = _arm("anymal_b_simple_description/robots/anymal-kinova.urdf", KINOVA)
    out, opt = hodyn_cli.retime_optimal(model, _last_third_of_the_loop(model), rate=10_000,
                                        arc_grid=1000)
    assert opt.used == "reachability", opt.why_windows
    assert abs(opt.duration / 2.0148491304 - 1) < 1e-6, opt.duration
    steps = np.concatenate([np.diff(chunk.t) for chunk in opt.source])
    assert steps.max() <= reachability.OUTPUT_STEPS * 1e-4 * (1 + 1e-9), steps.max()
    assert hodyn_cli.check_limits(model, out).feasible
    assert hodyn_cli.validate_motion(model, out).passed
