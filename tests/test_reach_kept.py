"""reachability._kept: the passes' columns of a grid of one block (a 1000-sample path's: at
most ``BLOCK`` points) held as the arrays the passes make, not copied into and out of a
:class:`~hodyn_cli.algorithms.limits.stored.Stored` (issue 37, goal 4); a longer grid's on
disk as before; the same numbers either way."""

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.algorithms.limits.stored import Stored


def _law(M: int = 1201) -> reachability.Law:
    """A law of the rounds' kind: x > 0 with a few dips (the lowering's), two rests' worth
    of slow ends."""
    s = np.linspace(0.0, 1.5, M)
    x = (1.2 + 0.6 * np.sin(7 * s) + 0.2 * np.cos(23 * s)) * np.minimum(1.0, 20 * s) * \
        np.minimum(1.0, 20 * (s[-1] - s))
    x[[M // 5, M // 2, 4 * M // 5]] *= 0.3
    return reachability.Law(s, x, np.diff(x) / (2 * np.diff(s)))


def test_a_grid_of_one_block_is_kept_as_its_array():
    block = np.linspace(0.0, 1.0, 50)
    kept = reachability._kept(50, iter([(0, block)]))
    assert kept is block  # (neither a Stored nor a copy)
    n = reachability.BLOCK + 3
    parts = [(0, np.ones(reachability.BLOCK)), (reachability.BLOCK, np.full(3, 2.0))]
    longer = reachability._kept(n, iter(parts))
    assert isinstance(longer, Stored) and longer[n - 4 : n].tolist() == [1.0, 2.0, 2.0, 2.0]
    assert isinstance(reachability._stored(50, iter([(0, block)])), Stored)
    assert isinstance(reachability._kept(0, iter([])), Stored)  # (no block: as before)


def test_the_smoothings_are_arrays_and_the_numbers_a_stored_column_gave(monkeypatch):
    """smoothed, widths, lowered, beneath and swept on a grid of one block: their columns
    arrays throughout, each output the very numbers of the columns kept in a Stored (the
    code before: the same operations on the same values)."""
    law = _law()
    half = reachability.widths(law, 0.05)

    def outputs() -> dict[str, np.ndarray]:
        smooth = reachability.smoothed(law, half=half, cubic=True)
        return {"widths": reachability.widths(law, 0.05),
                "smoothed": smooth,
                "plain": reachability.smoothed(law, reach=0.05),
                "lowered": reachability.lowered(law.x, smooth, 24),
                "beneath": reachability.beneath(law.x, 3),
                "swept": reachability.swept(law.x, half, odd=False),
                "ceiling": reachability._ceiling(law.x, np.minimum(1.0, 2 * law.x), half)[:]}

    assert isinstance(reachability._smoothed(law.x, half), np.ndarray)
    assert isinstance(reachability._beneath(law.x, 3), np.ndarray)
    held = outputs()
    monkeypatch.setattr(reachability, "_kept", reachability._stored)
    stored = outputs()
    for name, values in held.items():
        assert values.tobytes() == stored[name].tobytes(), name


@pytest.mark.parametrize("n", [reachability.PASSES + 3, 4001])
def test_field_stays_a_stored_column(n):
    """:func:`reachability.field` (the local rounds' factor fields, kept per arc) is a
    Stored column at every length, as its callers take it."""
    v = np.ones(n)
    v[n // 2] = 0.5
    out = reachability.field(n, iter([(0, v)]), 2)
    assert isinstance(out, Stored) and out[n // 2] <= 0.5 + 1e-12
