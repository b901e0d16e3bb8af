"""The local slowing looks finer only about peaks, not along a plateau of samples beyond a limit
(``local.tops``, ``local.FLAT``; issue 37 goal 4: cost linear in the length). The Z1's mid
curve given at 10 kHz sits on joint6's velocity limit 88 % of its time: the second round of
its local slowing found 115 421 of its samplings' 275 269 samples beyond by 6e-8 .. 2e-5 and
played 30 more about each, 13.7 of its 14 s of CPU; the output is the same to the bit
without them."""

from pathlib import Path

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import local
from hodyn_cli.algorithms.limits.scaling import TOLERANCE


def test_a_plateau_beyond_is_no_peak_and_a_bend_in_it_is():
    s = np.linspace(0.0, 1.0, 101)
    use = 1 + 1e-7 * (1 + 1e-3 * np.sin(7 * s))  # (beyond, flat: bends by 1e-3 of its excess)
    assert local.tops(s, use).size == 0
    bent = use.copy()
    bent[50] += 1e-7  # (a peak between samples may top out beyond the sample)
    assert 0.5 in local.tops(s, bent)
    below = 1 - 1e-3 * (s - 0.5) ** 2  # (a top just inside whose peak may reach beyond:
    below[50] = 1 - TOLERANCE  # 2u - min(a, c) = 1 + 9.8e-8)
    assert local.tops(s, below).tolist() == [0.5]


@pytest.mark.slow
def test_the_z1s_plateau_at_10khz_is_not_looked_at_finer(tmp_path, monkeypatch):
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
    import stranger_sweep17 as s17
    import stranger_sweep22 as s22

    import hodyn_cli
    from hodyn_cli.io import read_trajectory

    robot = s17.public(s22.ROBOTS["z1-g"][0])
    model = hodyn_cli.load_robot(robot)
    src, _ = s22.design(tmp_path, robot, model, "mid", 1e4)
    played = []
    finer = local.finer
    monkeypatch.setattr(local, "finer", lambda *a: played.append(finer(*a)) or played[-1])
    _, opt = hodyn_cli.retime_optimal(model, read_trajectory(str(src), model, need=5))
    assert opt.duration == pytest.approx(1.7208120659371156, rel=1e-12)
    assert sum(map(len, played)) < 10**5, sum(map(len, played))  # (3.4 x 10^6 before)
