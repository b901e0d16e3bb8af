"""Arrays kept on disk (:class:`hodyn_cli.algorithms.limits.stored.Stored`): what a block
write puts is what a read of any slice across the blocks' seams gives back, bit for bit, and
nothing is left on disk."""

from __future__ import annotations

import os

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import stored as stored_module
from hodyn_cli.algorithms.limits.stored import Stored


@pytest.mark.parametrize("on_disk", [0, stored_module.ON_DISK])
def test_rows_written_a_block_at_a_time_read_back_across_the_seams(monkeypatch, on_disk):
    """Rows written in blocks of 7 (the last one short) read back as the whole array's
    slices, starting and ending inside blocks, by negative ends, and row by row: on disk,
    and in memory (an array below ON_DISK bytes)."""
    monkeypatch.setattr(stored_module, "ON_DISK", on_disk)
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
    assert (stored._file is None) == (on_disk > 0)
    stored[0:1][0, 0] = 1e9  # (a read is a copy: the array is not changed through it)
    assert stored[0][0] == whole[0, 0]


def test_a_rewritten_row_is_the_last_one_written_and_the_file_has_no_name(monkeypatch):
    """A row written twice reads as the second write (the passes' pieces share their end
    point), a vector array reads as one; the file is unlinked from the start (gone on an
    error or Ctrl-C alike)."""
    monkeypatch.setattr(stored_module, "ON_DISK", 0)
    stored = Stored(4)
    stored.write(0, np.array([1.0, 2.0, 3.0]))
    stored.write(2, np.array([5.0, 6.0]))
    assert stored[:].tolist() == [1.0, 2.0, 5.0, 6.0] and stored.shape == (4,)
    assert os.fstat(stored._file.fileno()).st_nlink == 0
