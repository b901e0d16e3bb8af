"""The default output rate counts the law's steps, not the uniform scaling's (issue 37, goal
1; ``optimal.output_rate``, ``optimal.SHORT_STEPS``). The Borinot's flying arm
(example-robot-data) along stranger_sweep17's ``zig`` given at 20 Hz (84 samples, five legs of
0.15 to 2 s from rest to rest): its uniform scaling, held by the shortest leg, lasts 2.1448 s
(43 of the input's steps), its law 0.3133 s (6.3). At the input's 20 Hz the output had 8
samples and its smoothing the floor of a coarse output (20 ms either side of each of its six
rests): 0.319140 s, 1.86 % over toppra's 0.313311 s on the same straight legs, though
reachability's own law was 0.313321 s (the same at 20 and 100 Hz: the same legs, arcs and
grid). Now at 500 Hz: 0.313930 s, +0.20 %."""

import sys

import pytest
from test_base_parameters import public_robot

import hodyn_cli
from conftest import ROOT
from hodyn_cli.algorithms.limits import optimal
from hodyn_cli.io import read_trajectory

#: toppra 0.6's duration along the zig's five legs, 4000 grid intervals each, summed
#: (stranger_sweep17's peer, not run here)
TOPPRA = 0.31331054557209764


@pytest.mark.parametrize("law, rate", [
    (0.313321, 500.0),  # (the zig's law: 6.3 of the input's steps; at 20 Hz before)
    (0.76, 20.0),  # (a law of 15.2 steps: the input's rate kept)
])
def test_the_default_rate_counts_the_laws_steps(law, rate):
    """84 samples over 4.15 s, the uniform scaling 2.1448 s (43 steps, 1.9 times faster than
    the input): the law decides, raised to as many steps as the input's and LEAST_STEPS."""
    assert optimal.output_rate(84, 4.15, 2.1448, law) == rate


def test_the_borinot_zig_at_20_hz_is_within_half_a_percent_of_toppra(tmp_path):
    """The zig at 20 Hz sampled at 500 Hz, the notice says why, within 0.5 % of toppra."""
    public_robot("")  # (skips without example-robot-data)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import stranger_sweep17 as sweep

    robot, model, _ = sweep.robot_of("borinot")
    src, _ = sweep.design(tmp_path, robot, model, "zig", 20.0, None)
    _, opt = hodyn_cli.retime_optimal(model, read_trajectory(str(src), model, need=5))
    assert opt.attributes["rate"] == 500.0
    assert "law lasts 6.27 of the input's steps, fewer than 15" in opt.rate_note
    assert opt.duration <= TOPPRA * 1.005, opt.duration / TOPPRA - 1
