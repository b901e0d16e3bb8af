"""panda20 (issue 37, goal 4: a 10^5-sample path in <= 30 s): reachability's passes over rows
kept already (:class:`~hodyn_cli.algorithms.limits.reachability.ArcRows`: the first passes',
and rates.kept's under the rounds' ceilings) read them again in the forward pass rather than
write a copy of their own to disk (~0.7 s of the Panda's 10^5-sample Fourier path), and the
pairs' bounds and the controllable sets made in place: the same laws to the bit."""
from __future__ import annotations

import numpy as np

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import rates, reachability, stored
from hodyn_cli.algorithms.planning.generate import generate

IIWA = URDF / "iiwa14.urdf"
IIWA_LIMITS = URDF / "iiwa14_limits.toml"


def test_passes_over_kept_rows_write_no_copy_of_them(monkeypatch):
    """On a grid of 3 pieces (BLOCK 512, on disk): the first passes with ``kept`` make one
    store of rows (ArcRows'; before, along wrote a second, 2 stores) and rates.kept's passes
    given the passes' bounds none, though they run; the laws are those of rows made afresh
    and copied by each pass, to the bit."""
    from hodyn_cli.algorithms.limits.programme import path_limits
    from hodyn_cli.core.trajectory import Trajectory

    monkeypatch.setattr(reachability, "BLOCK", 512)
    monkeypatch.setattr(stored, "ON_DISK", 0)  # (on disk, as a long path's)
    model = hodyn_cli.load_robot(str(IIWA))
    limits = hodyn_cli.joint_limits(model, str(IIWA_LIMITS))
    traj = generate(model, "fourier", duration=2.0, rate=200.0, derivatives=4)
    stores: list[int] = []
    made_store = reachability._RowsOnDisk.__init__

    def counted(self, n: int) -> None:
        stores.append(n)
        made_store(self, n)

    monkeypatch.setattr(reachability._RowsOnDisk, "__init__", counted)
    arc_rows: list = []
    [(arc, law)] = reachability.solve(model, traj, rates.affine(limits), 1200, kept=arc_rows)
    assert len(arc_rows[0].pieces) == 3 and len(stores) == 1
    stores.clear()
    [(_, fresh)] = reachability.solve(model, traj, rates.affine(limits), 1200)
    assert len(stores) == 1  # (rows made afresh: each pass keeps its own copy, as before)
    assert np.array_equal(law.x[:], fresh.x[:]) and np.array_equal(law.u[:], fresh.u[:])

    def at(a: int, b: int) -> list:
        sigma = arc.sigma[a:b]
        return path_limits(model, Trajectory(traj.joint_names, arc.jet(sigma, 5), sigma),
                           limits, 2)

    passes: list[int] = []
    along = reachability.along

    def counting(*args, **kwargs):
        passes.append(1)
        return along(*args, **kwargs)

    monkeypatch.setattr(reachability, "along", counting)
    reach = reachability.kernel(2, 200.0)[0]
    stores.clear()
    read = rates.kept(arc, law, at, arc_rows[0], reach, bounds=arc_rows[0].bounds)
    assert passes and stores == []  # (the passes ran again, their rows read, not copied)
    passes.clear()
    again = rates.kept(arc, law, at, lambda a, b: reachability.arc_rows(
        model, arc, traj.joint_names, a, b, rates.affine(limits)), reach)
    assert len(stores) == len(passes) > 0  # (made afresh: copied by each pass)
    assert read is not None and again is not None
    assert read.duration == again.duration
    assert np.array_equal(read.law.played, again.law.played)


def _bounds_point_by_point(r: reachability.Rows) -> tuple[np.ndarray, np.ndarray]:
    """_bounds' definition, a point and a pair at a time (the test's reference)."""
    M, m = r.alpha.shape
    lo, hi = np.zeros(M), np.full(M, np.inf)
    tiny = 1e-12 * np.abs(r.alpha).max(initial=1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        for g in range(M):
            a, b, c = r.alpha[g], r.beta[g], r.gamma[g]
            for k in range(m):
                if abs(a[k]) <= tiny:
                    single = c[k] / b[k]
                    hi[g] = min(hi[g], single) if b[k] > 0 else hi[g]
                    lo[g] = max(lo[g], single) if b[k] < 0 else lo[g]
            for i in np.flatnonzero(a > tiny):
                for j in np.flatnonzero(a < -tiny):
                    e = -a[j] * b[i] + a[i] * b[j]
                    f = -a[j] * c[i] + a[i] * c[j]
                    if e > 0:
                        hi[g] = np.minimum(hi[g], f / e)
                    elif e < 0:
                        lo[g] = np.maximum(lo[g], f / e)
    return lo, hi


def test_the_pairs_bounds_are_each_pair_s_to_the_bit(monkeypatch):
    """_bounds (the pairs a block at a time, made in place and reduced where a pair bounds)
    against its definition a point and a pair at a time, on random rows with rows free of u,
    pairs whose denominator is 0 and rows changing sign within a block: the same numbers
    (a min or a max in any order)."""
    monkeypatch.setattr(reachability, "PAIRS", 8 * 36)  # (blocks of 8 points of 6 rows)
    rng = np.random.default_rng(20)
    M, m = 50, 6
    alpha = rng.normal(size=(M, m))
    alpha[::7, 2] = 0.0  # (free of u: a bound on x alone by beta's sign)
    beta, gamma = rng.normal(size=(M, m)), rng.normal(size=(M, m)) + 1.0
    beta[5] = 2 * alpha[5]  # (e = 0 for every pair at point 5, exactly: no bound)
    r = reachability.Rows(alpha, beta, gamma, np.full(M, np.inf))
    lo, hi = reachability._bounds(r)
    want_lo, want_hi = _bounds_point_by_point(r)
    assert np.array_equal(lo, want_lo) and np.array_equal(hi, want_hi)
