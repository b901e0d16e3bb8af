"""How far a motion retimed along a path may stray from it, and the foot of the perpendicular.

A retiming changes the time law along a path, never the path. The windows' law and the
uniform scaling play the input's own interpolant, so they cannot leave it; reachability plays
a spline of the path in its arc length (its *shape*, :mod:`~hodyn_cli.algorithms.limits.
reachability`), which lies off the path between its points by the spline's error. The
distance of a point ``q`` from the path is measured at the path point nearest to it, the foot
of the perpendicular: where ``f(s) = (q_in(s) - q) . q_in'(s) = 0``, ``f' = |q_in'|^2 +
(q_in - q) . q_in''``. Each joint's distance there, over that joint's travel along the input
(:func:`travel`), is held to :data:`STRAY` by ``hodyn validate --path`` (whose search for the
nearest point is :mod:`hodyn_cli.algorithms.verification.stray`'s) and by the retiming itself
(reachability's shape, :func:`reachability.arcs`).

>>> d = np.array([[0.0, 1e-3]])                      # q off q_in(s) = (s, 0) at s = 0.5
>>> off(d + [[1e-4, 0.0]], np.array([[1.0, 0.0]]), np.zeros((1, 2)))  # (and along it)
array([[0.   , 0.001]])
"""

from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.limits.programme import between
from hodyn_cli.core.trajectory import Trajectory

#: the largest distance from the path, per joint, as a share of the joint's travel along the
#: input (:func:`travel`) that an output may have.
#: Measured (retime --optimal's outputs, reachability's): the 21 inputs of
#: benchmarks/bench_optimal_rates.py 1e-16 .. 3e-6 of it (3e-6 near a waypoint's rest, where
#: the projection's steps are bisections); the generic quadruped's leg along Fourier paths
#: with hairpin turns at 100 Hz - 1 kHz 2e-6 .. 7e-5 (the shape's spline between its knots:
#: 1e-4 rad of the knee at 100 Hz), and 0.16 (0.227 rad of the knee's 1.43 rad) before its
#: shape points were graded
STRAY = 2e-4
#: Newton steps of :func:`projected` for every point (quadratic convergence from within half a
#: dense spacing: 4 reach rounding on every path tried) ...
NEWTON = 6
#: ... and at most this many for a point still moving after them: where ``f'`` is not
#: positive the steps are bisections, each halving the bracket (at a hairpin turn sharper
#: than the seeds' spacing: a narrow loop's tip, its radius 4e-6 of a spacing of 1e-2, was
#: left 5e-6 off after 6, tests/test_stray22.py)
BISECTIONS = 60


#: a joint's travel, as :data:`STRAY` reads it, is this share of the largest joint's at least:
#: a joint that barely moves is held to the motion's scale (a planar arm's line of 1 rad with
#: a bump of 1e-4 rad in its other joint: the shape's 1.2e-8 rad there was 1.2e-4 of that
#: joint's own travel)
LEAST_TRAVEL = 1e-2


def travel(q: np.ndarray) -> np.ndarray:
    """(m,) each joint's largest position less its smallest among the rows ``q`` (N, m), or
    the rows (2, m) ``[lowest, highest]``: :data:`LEAST_TRAVEL` of the largest one's at
    least (and 1e-9).

    >>> travel(np.array([[0.0, 0.0, 5.0], [2.0, 1e-4, 5.0]])).tolist()
    [2.0, 0.02, 0.02]
    """
    span = q.max(axis=0) - q.min(axis=0)
    return np.maximum(span, max(LEAST_TRAVEL * float(span.max()), 1e-9))


def off(d: np.ndarray, d1: np.ndarray, d2: np.ndarray) -> np.ndarray:
    """(E, m) each point ``q`` off the path at its foot, from ``d = q - q_in(s)`` and the
    path's ``q_in'(s)``, ``q_in''(s)`` (E, m) at a nearby ``s``: one Newton step towards the
    foot, the path there from its Taylor series (its error: ``q_in''' ds^3 / 6``, ds the step;
    ``d`` itself where the step does not shorten it, as near a rest: the distance to a path
    point bounds the nearest's)."""
    slope = np.einsum("ij,ij->i", d1, d1) - np.einsum("ij,ij->i", d, d2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ds = np.where(slope > 0, np.einsum("ij,ij->i", d, d1) / slope, 0.0)
    stepped = d - d1 * ds[:, None] - d2 * (ds**2 / 2)[:, None]
    shorter = np.linalg.norm(stepped, axis=1) < np.linalg.norm(d, axis=1)
    return np.where(shorter[:, None], stepped, d)


def projected(path: Trajectory, q: np.ndarray, lo: np.ndarray, hi: np.ndarray,
              s: np.ndarray) -> np.ndarray:
    """The input times in [lo, hi] of the path points nearest to ``q`` (the perpendiculars'
    feet): Newton's method on ``(q_in(s) - q) . q_in'(s)`` from ``s``, clipped to the
    bracket (where it leaves it, or ``f'`` is not positive, the bracket's bisection):
    :data:`NEWTON` steps, then up to :data:`BISECTIONS` for the points whose foot still
    moves."""
    s, lo, hi = (np.array(x, dtype=float) for x in (s, lo, hi))
    moving = np.arange(len(s))
    for step in range(NEWTON + BISECTIONS):
        jet = between(path, s[moving])
        d, d1 = jet[:, 0] - q[moving], jet[:, 1]
        d2 = jet[:, 2] if jet.shape[1] > 2 else np.zeros_like(d1)
        f = np.einsum("ij,ij->i", d, d1)
        slope = np.einsum("ij,ij->i", d1, d1) + np.einsum("ij,ij->i", d, d2)
        a, b, now = lo[moving], hi[moving], s[moving]
        a, b = np.where(f > 0, a, now), np.where(f > 0, now, b)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = now - f / slope
        new = np.where((slope > 0) & (newton >= a) & (newton <= b), newton, (a + b) / 2)
        lo[moving], hi[moving], s[moving] = a, b, new
        if step >= NEWTON - 1:  # (a foot that moved by rounding alone: found)
            moving = moving[(np.abs(new - now) > 1e-15 * (1 + np.abs(now))) & (b - a > 0)]
            if not len(moving):
                break
    return s
