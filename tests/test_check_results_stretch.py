"""trajectory.check_results: results that are views of one block (a probe's orders, a law's
grades) checked by one sum over the stretch of the block they span, with the verdicts and
the messages of each result checked alone."""

import numpy as np
import pytest

from hodyn_cli.core import trajectory
from hodyn_cli.core.trajectory import Trajectory, check_results
from hodyn_cli.errors import TrajectoryError


def _laws(block: np.ndarray) -> dict[str, np.ndarray]:
    """series_laws' joint laws: orders 0..3 of a (N, 5, m) motion, each (N, m, 1)."""
    return {f"q{j}": block[:, j, :, None] for j in range(4)}


def _message(results: dict[str, np.ndarray], motion: Trajectory) -> str | None:
    try:
        check_results(results, motion)
    except TrajectoryError as e:
        return str(e)
    return None


def _each_alone(results: dict[str, np.ndarray], motion: Trajectory) -> str | None:
    """The verdict of each result checked on its own (a copy: no block shared)."""
    return _message({name: value.copy() for name, value in results.items()}, motion)


def test_the_views_of_one_block_are_summed_as_one_stretch():
    """A probe's 4 orders of 5 (N, 5, 7): the block's first 4 orders' stretch, one sum; a
    view of a small corner of a large block is summed alone; other layouts alone."""
    block = np.ones((50, 5, 7))
    laws = list(_laws(block).values())
    stretch = trajectory._stretch(block, laws)
    assert stretch is not None and np.shares_memory(stretch, block)
    assert stretch.size == 49 * 35 + 4 * 7  # from q0 of sample 0 to q3 of the last one
    assert trajectory._stretch(np.ones((1000, 7)), [np.ones((1000, 7))[:3]]) is not None
    big = np.ones((1000, 7))
    assert trajectory._stretch(big, [big[::100]]) is None  # (10 rows of 1000)
    assert trajectory._stretch(big.T.copy(order="F"), [big]) is None  # not C-contiguous
    assert trajectory._finite(laws)


@pytest.mark.parametrize("where", [(7, 2, 2), (0, 0, 0), (49, 3, 6), (20, 1, 3)])
def test_a_non_finite_value_of_a_result_is_named_as_before(where):
    """An inf in one of the orders the laws read: the same message as each result checked
    alone (the first result and sample with it, the motion's largest value there)."""
    block = np.random.default_rng(3).uniform(-1, 1, (50, 5, 7))
    block[where] = np.inf
    motion = Trajectory(tuple(f"j{i}" for i in range(7)), block, np.arange(50) / 10)
    got = _message(_laws(block), motion)
    assert got is not None and got == _each_alone(_laws(block), motion)
    assert f"result 'q{where[1]}'" in got


def test_a_non_finite_value_outside_every_result_passes_as_before():
    """An inf in the block's fifth order, which no law reads (nor the stretch: it ends at
    the last sample's fourth), and a NaN in a row between the views of a strided result:
    no error, as each alone."""
    block = np.random.default_rng(4).uniform(-1, 1, (50, 5, 7))
    block[10, 4, 2] = np.inf  # inside the stretch: its one sum is not finite, then each
    motion = Trajectory(tuple(f"j{i}" for i in range(7)), block, np.arange(50) / 10)
    assert _message(_laws(block), motion) is None
    every_other = np.ones((40, 3))
    every_other[1::2] = np.nan
    assert _message({"tau": every_other[::2]}, motion) is None


def test_views_with_backward_strides_and_empty_ones():
    """A reversed view's stretch is its memory's lowest to highest address; an empty view
    adds nothing."""
    block = np.ones((30, 4))
    assert trajectory._finite([block[::-1], block[:0]])
    block[0, 3] = np.nan
    assert not trajectory._finite([block[::-1, 1:], block[:0]])
    assert trajectory._stretch(block, [block[::-1, :2]]).size == 29 * 4 + 2
