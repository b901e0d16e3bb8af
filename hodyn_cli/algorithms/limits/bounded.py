"""The (sample, joint) pairs of limited laws that may reach their limits when played at a
speed-up ``0 <= y <= 1`` (the local slowing's bisection,
:func:`~hodyn_cli.algorithms.limits.local.speedups`, plays them at 30 speed-ups each): the
others stay within at every such y, so the bisection makes the laws at the pairs that may
alone, with the verdicts of making them everywhere, to the bit.

A law ``v(y) = y^power sum_p c_p y^(2p) (+ a y + c tanh(b y))``
(:class:`~hodyn_cli.algorithms.limits.scaling.Law`) has ``|v(y)| <= sum_p |c_p| (+ |a| +
|c|)`` for ``0 <= y <= 1`` (each power of y at most 1, ``|tanh| <= 1``), so a pair whose
``(that bound + |centre|) / half`` is at most :data:`SURE` is within its band
(``|v - centre| / half <= 1 + TOLERANCE / 10``) at every such y: the rounding of v's few
terms (~1e-15 of the bound) is far below the margin. On the Panda's 1000-sample
point-to-point path, 7 % of the 10^4 samplings' pairs may (a joint's acceleration, two
positions near their ends): the bisection's CPU 0.13 -> 0.02 s.
"""
from __future__ import annotations

import numpy as np

from hodyn_cli.algorithms.limits.scaling import TOLERANCE, Law

#: a pair whose bound on its use over ``0 <= y <= 1`` is at most this is within at every y
#: (the margin to 1 dwarfs the rounding of a law's few terms)
SURE = 1 - 1e-6

#: a limited law with its bands' centres and half-widths (per joint), as
#: :data:`~hodyn_cli.algorithms.limits.local.Taken`
Taken = tuple[Law, np.ndarray, np.ndarray]
#: the samples of the pairs that may reach, the law at those pairs (a joint per pair), and
#: each pair's band centre and half-width
Near = tuple[np.ndarray, Law, np.ndarray, np.ndarray]


def near(taken: list[Taken]) -> list[Near]:
    """Per ``taken`` law, the pairs whose use may exceed :data:`SURE` at some ``0 <= y <= 1``
    (module doc), each its own row of a law of one joint (NaN or inf coefficients: kept, as
    the comparison with a NaN bound is false)."""
    out = []
    for law, centre, half in taken:
        c, f = law.coefficients, law.friction
        bound = np.abs(c).sum(axis=-1) + np.abs(centre)
        if f is not None:
            bound = bound + np.abs(f[..., 0]) + np.abs(f[..., 1])
        rows, cols = np.nonzero(~(bound / half <= SURE))
        out.append((rows, Law(law.power, c[rows, cols][:, None], law.joint_names[:1],
                              None if f is None else f[rows, cols][:, None]),
                    centre[cols], half[cols]))
    return out


def fit(pairs: list[Near], y: np.ndarray) -> np.ndarray:
    """Whether each sample played ``y`` (per sample, ``0 <= y <= 1``) times faster is within
    every limit: :func:`~hodyn_cli.algorithms.limits.local._fit`'s verdicts to the bit (the
    same quotients, each compared, NaN beyond), the laws made at the :func:`near` pairs
    alone."""
    out = np.ones(len(y), dtype=bool)
    for rows, law, centre, half in pairs:
        use = np.abs(law.at(y[rows])[:, 0] - centre) / half
        out[rows[~(use <= 1 + TOLERANCE / 10)]] = False
    return out
