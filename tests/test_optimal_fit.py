"""The final fit's search for the largest uniform speed-up (:class:`optimal.Fit`): its samples
kept per bracket of SPEEDUPS, merged for every bracket at once, are the KEEP that leave
first over the whole motion however it is cut into chunks and blocks."""
import numpy as np
import pytest

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import optimal
from hodyn_cli.algorithms.limits.feasibility import limited_series
from hodyn_cli.algorithms.planning.generate import generate


@pytest.fixture(scope="module")
def played():
    """The iiwa's cosine retimed by reachability, played at its output's samples (one of
    them on its limit): (the result, its pieces' laws, their limited series, times)."""
    model = hodyn_cli.load_robot(URDF / "iiwa14.urdf")
    traj = generate(model, "cosine", duration=1.0, rate=100.0, derivatives=4)
    _, opt = hodyn_cli.retime_optimal(model, traj)
    pieces = []
    for piece in opt.path.played(opt.source or [traj]):
        laws = opt._laws(piece)
        pieces.append((laws, limited_series(model, opt.limits, laws), piece.t))
    return opt, pieces


def _fed(pieces, cut: int) -> optimal.Fit:
    """A Fit fed the pieces' laws ``cut`` samples at a time."""
    fit, count = optimal.Fit(), 0
    for laws, limited, t in pieces:
        for a in range(0, len(t), cut):
            rows = slice(a, a + cut)
            part = {k: law.take(rows, slice(None)) for k, law in laws.items()}
            fit.add(part, limited, t[rows], count + a)
        count += len(t)
    return fit


def test_the_kept_samples_are_the_first_to_leave_however_the_motion_is_cut(played,
                                                                           monkeypatch):
    """KEEP of them per bracket over chunks of 7 samples in blocks of 5 (every merge) are
    the KEEP smallest keys of all of them at once, and the speed-up solved from them is
    the same to the bit (that it is the boundary of every sample's band:
    tests/test_optimal.py's test_the_final_fit_keeps_a_bounded_number_of_samples)."""
    _, pieces = played
    monkeypatch.setattr(optimal, "KEEP", 3)
    monkeypatch.setattr(optimal, "BLOCK", 5)
    cut, whole = _fed(pieces, 7), _fed(pieces, 10**6)
    monkeypatch.setattr(optimal, "BLOCK", 10**6)
    alone = _fed(pieces, 10**6)  # (one block: nothing merged but into the empty slots)
    for fit in (cut, whole):
        assert np.array_equal(np.sort(fit.keys, axis=1), np.sort(alone.keys, axis=1))
        assert fit.solve() == alone.solve()
    assert np.isfinite(alone.keys).sum() > len(optimal.SPEEDUPS)  # (more than bracket 0's)
