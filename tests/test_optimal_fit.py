"""The final fit's search for the largest uniform speed-up (:class:`optimal.Fit`): its samples
kept per bracket of SPEEDUPS, merged for every bracket at once, are the KEEP that leave
first over the whole motion however it is cut into chunks and blocks, and its speed-up is
the boundary that bisection on every sample finds."""
import numpy as np
import pytest

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import optimal
from hodyn_cli.algorithms.limits.feasibility import limited_series
from hodyn_cli.algorithms.limits.scaling import TOLERANCE
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
    the same to the bit; with every sample kept, it is the boundary bisection on all of
    them finds (every sample within its band there, one on it)."""
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
    groups = [_group(laws, limited) for laws, limited, _ in pieces]
    monkeypatch.setattr(optimal, "KEEP", sum(len(g[0]) for g in groups))  # every sample kept
    found = _fed(pieces, 10**6).solve()
    assert found is not None and 1 - optimal.FIT < found.k < 1 + optimal.FIT

    def worst(x: float) -> float:
        return max(float(optimal._usage(g, np.array([x])).max()) for g in groups)

    lo, hi = optimal.SPEEDUPS[-1], optimal.SPEEDUPS[0]
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if worst(mid) <= 1 + TOLERANCE / 10 else (lo, mid)
    assert found.x == pytest.approx(lo, rel=1e-12)
    assert worst(found.x) <= 1 + TOLERANCE / 10 < worst(found.x * (1 + 1e-9))


def _group(laws, limited) -> tuple:
    """Every limited sample's (dense polynomial, friction, centre, half-width), as
    :class:`optimal.Fit` takes them (independently: a row per sample and joint)."""
    out = []
    for _, series, cols, lower, upper in limited:
        law = laws[series].take(slice(None), cols)
        c = law.coefficients
        dense = np.zeros(c.shape[:2] + (law.power + 2 * c.shape[-1] - 1,))
        dense[..., law.power::2] = c
        f = law.friction if law.friction is not None else np.zeros(c.shape[:2] + (3,))
        n = c.shape[0]
        out.append((dense.reshape(n * len(cols), -1), f.reshape(-1, 3),
                    np.tile((lower + upper) / 2, n), np.tile((upper - lower) / 2, n)))
    width = max(g[0].shape[1] for g in out)
    return (np.concatenate([np.pad(g[0], ((0, 0), (0, width - g[0].shape[1]))) for g in out]),
            *(np.concatenate([g[i] for g in out]) for i in (1, 2, 3)))
