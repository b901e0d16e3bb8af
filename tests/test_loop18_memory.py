"""The local slowing's samples interpolated a bounded number at a time (issue 37, goal 4:
memory bounded; branch loop18): ``optimal._moved`` made the Hermite interpolants of all its
samples at once, ~1.8 kB each, and the finer samples about the peaks of Talos's right arm
on the sweep's loop at 1 kHz (3001 samples) came to 172,000 in one call: 305 MiB, the run's
peak RSS 437 MB (237 MB now, the same output to the bit)."""

import tracemalloc

import numpy as np

from hodyn_cli.algorithms.limits import optimal
from hodyn_cli.algorithms.limits.jets import compose
from hodyn_cli.algorithms.limits.programme import between
from hodyn_cli.core.trajectory import Trajectory


def test_moved_interpolates_a_bounded_number_of_samples_at_a_time():
    """50,000 samples along a 7-joint path (q .. q''''): the same numbers as interpolated
    and composed at once, its traced memory within its output and 24 MiB more (~120 MiB
    more at once)."""
    rng = np.random.default_rng(3)
    t = np.linspace(0.0, 1.0, 41)
    path = Trajectory([f"j{k}" for k in range(7)], rng.normal(size=(41, 5, 7)), t)
    s = np.sort(rng.uniform(0.0, 1.0, 50_000))
    law = rng.normal(size=(len(s), 4))
    tracemalloc.start()
    try:
        moved = optimal._moved(path, s, s, lambda K: law[:, :K])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(moved.derivatives, compose(between(path, s), law))
    assert peak < moved.derivatives.nbytes + (24 << 20), peak / 2**20
