"""local.tops at a range's ends: a use still rising to its first or last sample (0.97 then
0.99) may top out above 1 just beyond it, between the samplings (a peak narrower than their
spacing); the end sample is judged by its one neighbour, as an interior one by the lower of
its two (before, only interior samples were, and such a peak was never looked at)."""

import numpy as np

from hodyn_cli.algorithms.limits.local import tops


def test_a_use_rising_to_the_last_or_first_sample_is_a_top():
    s = np.arange(8) * 0.25
    rising = np.array([0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99])
    assert tops(s, rising).tolist() == [s[-1]]
    assert tops(s, rising[::-1]).tolist() == [s[0]]
    # (in any order, as several samplings' samples come)
    shuffled = np.random.default_rng(1).permutation(8)
    assert tops(s[shuffled], rising[shuffled]).tolist() == [s[-1]]


def test_an_end_sample_is_judged_as_an_interior_one():
    """Not a top where it falls away from its neighbour, nor where it rises less than it
    lies below 1; two samples: each the other's neighbour; one: beyond or not."""
    s = np.arange(4.0)
    assert tops(s, np.array([0.99, 0.995, 0.98, 0.9])).tolist() == [1.0]  # (interior)
    assert tops(s, np.array([0.5, 0.6, 0.7, 0.8])).size == 0  # (2 0.8 - 0.7 < 1)
    assert tops(s, np.array([0.5, 0.6, 0.7, 0.86])).tolist() == [3.0]
    assert tops(s[:2], np.array([0.95, 0.99])).tolist() == [1.0]
    assert tops(s[:1], np.array([0.99])).size == 0
    assert tops(s[:1], np.array([1.01])).tolist() == [0.0]


def test_tops_fed_range_by_range_are_the_tops_of_the_whole():
    """``local.Tops``: the samples fed in ranges of any lengths (several samplings'
    together, in any order within a range) give ``tops`` of all of them at once, each
    sample judged by its neighbours across the ranges' ends, the whole's ends by one."""
    from hodyn_cli.algorithms.limits.local import Tops

    rng = np.random.default_rng(5)
    s = np.sort(rng.uniform(0.0, 10.0, 400))
    use = 0.97 + 0.05 * np.sin(7 * s) + 0.02 * rng.standard_normal(400)
    use[100:110] = 1.01 + 1e-4 * np.arange(10)  # (a plateau beyond)
    whole = tops(s, use)
    for cuts in ([], [1, 2, 3], [57, 58, 200, 399], sorted(rng.choice(399, 30, replace=False))):
        judged, found = Tops(), []
        for a, b in zip([0, *cuts], [*cuts, 400], strict=True):
            mixed = a + rng.permutation(b - a)
            found.append(judged.add(s[mixed], use[mixed]))
        found.append(judged.end())
        assert np.array_equal(np.concatenate(found), whole)
    # (one sample: beyond or not; two fed apart: each the other's neighbour)
    one = Tops()
    assert one.add(s[:1], np.array([1.01])).size == 0 and one.end().tolist() == [s[0]]
    two = Tops()
    assert two.add(s[:1], np.array([0.95])).size == 0
    assert two.add(s[1:2], np.array([0.99])).size == 0 and two.end().tolist() == [s[1]]
