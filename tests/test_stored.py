"""Arrays kept on disk (:class:`hodyn_cli.algorithms.limits.stored.Stored`): what a block
write puts is what a read of any slice across the blocks' seams gives back, bit for bit, and
nothing is left on disk."""

from __future__ import annotations

import os

import numpy as np
import pytest

from hodyn_cli.algorithms.limits.stored import Stored


def test_rows_written_a_block_at_a_time_read_back_across_the_seams():
    """Rows written in blocks of 7 (the last one short) read back as the whole array's
    slices, starting and ending inside blocks, by negative ends, and row by row."""
    rng = np.random.default_rng(3)
    whole = rng.standard_normal((50, 3))
    stored = Stored(50, (3,))
    for a in range(0, 50, 7):
        stored.write(a, whole[a : a + 7])
    for a, b in ((0, 50), (3, 18), (6, 8), (13, 14), (20, 20), (-5, None), (40, 99)):
        assert np.array_equal(stored[a:b], whole[a:b])
    assert all(np.array_equal(stored[i], whole[i]) for i in (0, 6, 7, 49, -1, -50))
    assert stored[-1:].shape == (1, 3) and stored[5:2].shape == (0, 3)
    with pytest.raises(IndexError):
        stored[50]


def test_a_rewritten_row_is_the_last_one_written_and_the_file_has_no_name():
    """A row written twice reads as the second write (the passes' pieces share their end
    point), a vector array reads as one; the file is unlinked from the start (gone on an
    error or Ctrl-C alike)."""
    stored = Stored(4)
    stored.write(0, np.array([1.0, 2.0, 3.0]))
    stored.write(2, np.array([5.0, 6.0]))
    assert stored[:].tolist() == [1.0, 2.0, 5.0, 6.0] and stored.shape == (4,)
    assert os.fstat(stored._file.fileno()).st_nlink == 0
