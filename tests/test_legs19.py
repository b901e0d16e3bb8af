"""issue 37 goal 1 (legs19): fast legs whose law is played at the finer time scale's kernel
(:data:`~hodyn_cli.algorithms.limits.optimal.FINER`). Solo 12's and Bolt's front left legs
(1000 rad/s, 1000 N m) cross sweep17's 20 s ``fourier9`` path in ~0.6 s: the passes brake
into valleys of the torque bound so deep and narrow (x 4.5e5 -> 7.2e3 -> 5.0e5 over 20 grid
intervals) that the lowered law's DIP rule takes their bottoms for the passes' glitches,
its ceiling there the neighbours' level, ~5 times what the rows allow at rest; the third
candidate (its dips filled to :func:`reachability.still_bound`, lowered by its deficit) was
tried at the own scale's 5 ms kernel alone, twice as long as the law there."""

import sys

import pytest
from test_base_parameters import public_robot

import hodyn_cli
from conftest import ROOT
from hodyn_cli.io import read_trajectory

sys.path.insert(0, str(ROOT / "benchmarks"))

#: toppra 0.6 on 4000 intervals, the robot's real limits (benchmarks/stranger_sweep18.py)
TOPPRA = {"solo-leg": 0.5761}


@pytest.mark.slow  # (~3 s: the default suite's budget)
def test_solos_leg_on_a_nine_harmonic_fourier_path_tries_the_third_candidate_finer(tmp_path):
    """Solo 12's front left leg on sweep17's ``fourier9`` (2001 samples at 100 Hz): 0.8708 s
    before, 51 % over toppra's 0.5761 s (its law played with the 0.5 ms kernel of the finer
    scale, the fit 2.24 times slower than it, the local slowing to 0.8708); with the third
    candidate at that kernel too 0.6185 s (+7.4 %: the passes' law 0.5818 s)."""
    public_robot("")  # (skips without example-robot-data)
    import stranger_sweep18 as sweep

    robot, model, _ = sweep.robot_of("solo-leg")
    src, _ = sweep.design(tmp_path, robot, model, "fourier9", 100.0, sweep.SHIFT.get("solo-leg"))
    _, opt = hodyn_cli.retime_optimal(model, read_trajectory(str(src), model, need=5))
    assert opt.used == "reachability"
    # (0.574395 s with the grid denser at sharp turns, borinot19, and the output at 5 kHz,
    # short19)
    assert opt.duration < 1.005 * TOPPRA["solo-leg"], opt.duration


@pytest.mark.slow
def test_bolts_leg_on_a_nine_harmonic_fourier_path_tries_the_third_candidate_finer(tmp_path):
    """Bolt's front left leg, the same path: 1.0790 s before (toppra 0.6952 s, +52.6 %);
    0.7670 s now (+10.3 %)."""
    public_robot("")
    import stranger_sweep18 as sweep

    robot, model, _ = sweep.robot_of("bolt-leg")
    src, _ = sweep.design(tmp_path, robot, model, "fourier9", 100.0, sweep.SHIFT.get("bolt-leg"))
    _, opt = hodyn_cli.retime_optimal(model, read_trajectory(str(src), model, need=5))
    assert opt.used == "reachability"
    # (0.703863 s with the grid denser at sharp turns, borinot19, and the output at 5 kHz,
    # short19: +1.25 %)
    assert opt.duration < 1.015 * 0.6952, opt.duration
