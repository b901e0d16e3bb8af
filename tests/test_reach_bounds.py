"""reachability.along's ``bounds`` (issue 37, goal 4): each piece's bounds on x from its rows'
pairs (reachability._bounds) made at the first call and read by the next ones, whose rows
differ in their top alone (rates.kept's rounds under their ceilings): the same laws."""
import numpy as np
from test_rates import PANDA, PANDA_LIMITS, _fourier

import hodyn_cli
from hodyn_cli.algorithms.limits import rates, reachability


def test_the_rows_bounds_are_made_once_for_every_ceiling(monkeypatch):
    """The Panda's Fourier path (2 s at 200 Hz, its limits file's affine limits: 28 rows of
    acceleration and torque a point) on a grid of 3 pieces (BLOCK made 512): the passes
    under two ceilings (x at 0.8, then 0.9 of the law over a stretch: the looser second, so
    that bounds kept with the first's top in them would hold the second's law under it) give
    the same laws to the bit with the bounds kept as without, and each piece's bounds are
    made once."""
    from dataclasses import replace

    monkeypatch.setattr(reachability, "BLOCK", 512)
    model = hodyn_cli.load_robot(str(PANDA))
    limits = rates.affine(hodyn_cli.joint_limits(model, str(PANDA_LIMITS)))
    traj = _fourier(model, seconds=2.0)
    [(arc, law)] = reachability.solve(model, traj, limits, 1200)
    M = len(arc.sigma)

    def rows(a: int, b: int) -> reachability.Rows:
        return reachability.arc_rows(model, arc, traj.joint_names, a, b, limits)

    made = []
    bounds_of = reachability._bounds

    def counted(r):
        made.append(len(r.top))
        return bounds_of(r)

    kept: dict = {}
    for share in (0.8, 0.9):
        ceiling = np.where((np.arange(M) > 300) & (np.arange(M) < 900), share * law.x[:],
                           np.inf)

        def ceiled(a: int, b: int, ceiling=ceiling) -> reachability.Rows:
            r = rows(a, b)
            return replace(r, top=np.minimum(r.top, ceiling[a:b]))

        monkeypatch.setattr(reachability, "_bounds", bounds_of)
        fresh = reachability.along(arc, ceiled)
        monkeypatch.setattr(reachability, "_bounds", counted)
        again = reachability.along(arc, ceiled, bounds=kept)
        assert fresh is not None and again is not None
        assert np.array_equal(fresh.x[:], again.x[:]) and np.array_equal(fresh.u[:],
                                                                          again.u[:])
        assert fresh.x[600] < share * law.x[600] * (1 + 1e-12)  # (under the ceiling)
    pieces = reachability._pieces(M)
    assert len(pieces) == 3 and sorted(kept) == [a for a, _ in pieces]
    assert len(made) == len(pieces)  # (made at the first ceiling's passes alone)
