"""The local slowing's finer samples about the samples beyond (``Optimal._beyond``'s
``peaks``) made a range at a time (issue 37, goal 4: memory bounded by a chunk): the Z1's
mid curve at 10 kHz (5001 samples) flagged 84 % of its samples in its second round and made
2.3 x 10^6 finer samples' dynamics at once, 2.14 GB of peak RSS; a range at a time, 287 MB
and the same output to the bit."""

import numpy as np
from test_optimal_local import _bumped, iiwa_path

import hodyn_cli
from hodyn_cli.algorithms.limits import local, optimal, reachability


def _retimed(monkeypatch, rows: int) -> tuple[np.ndarray, float, list[int]]:
    """The iiwa's 1 s cosine with its law 10 % too fast over ~2 grid intervals (slowed
    locally: test_optimal_local's) retimed with every sample taken for a top whose peak may
    reach beyond a limit (as the Z1's second round had 84 % of them), ``local.ROWS``
    ``rows``: the output, its duration and the sizes ``peaks`` made at once."""
    sizes: list[int] = []
    moved, finer = optimal._moved, local.finer
    left = [0]  # (of the finer samples peaks made last: those _moved reads next)

    def counted(path, s, *a, **k):
        if left[0] > 0:
            sizes.append(len(s))
            left[0] -= len(s)
        return moved(path, s, *a, **k)

    def flagged(*a, **k):
        out = finer(*a, **k)
        left[0] = out.size
        return out

    with monkeypatch.context() as m:
        model, traj, _ = iiwa_path(1.0, 100.0, orders=5)
        m.setattr(reachability, "STEPS", (2,))
        _bumped(m, 0.1, width=2.0)
        m.setattr(local, "ROWS", rows)
        m.setattr(local, "_judged", lambda u: np.ones(len(u), bool))
        m.setattr(local, "finer", flagged)
        m.setattr(optimal, "_moved", counted)
        out, opt = hodyn_cli.retime_optimal(model, traj)
    return out.derivatives, opt.duration, sizes


def test_the_finer_samples_about_those_beyond_are_made_a_range_at_a_time(monkeypatch):
    """Every sample a top: ``peaks`` makes its finer samples' motion and dynamics 2 x
    local.ROWS at a time (before, all of a chunk's at once: memory by the samples beyond,
    not by a range), and the output is the same to the bit whatever ROWS is."""
    small, duration, sizes = _retimed(monkeypatch, 64)
    assert sizes and max(sizes) <= 128 and sum(sizes) > 1000
    whole, same, _ = _retimed(monkeypatch, local.ROWS)
    assert duration == same and np.array_equal(small, whole)
