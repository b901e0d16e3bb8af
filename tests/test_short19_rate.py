"""``retime --optimal``'s default output rate (issue 37, goals 2 and 6): the input's mean rate,
raised where the law plays the path more than ``optimal.FASTER`` times faster than the input
or lasts a few of its steps (``optimal.output_rate``), so that a law of a few output steps is
not slowed to pass ``hodyn validate``; ``--rate`` given is honoured exactly. On the iiwa's
cosine path (1 s at 20 Hz, its law 0.766 s) played 20 times slower: 20 s at 1 Hz, the same
path."""

import sys

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import URDF
from conftest import optimal_notice as notice
from hodyn_cli.algorithms.limits import optimal
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import read_trajectory, write_trajectory

IIWA = URDF / "iiwa14.urdf"
SLOWER = 20.0


@pytest.fixture(scope="module")
def slow_cosine(iiwa_cosine, tmp_path_factory):
    """The cosine played 20 times slower (q^(j) / 20^j): 21 samples over 20 s, 1 Hz."""
    traj = read_trajectory(str(iiwa_cosine), hodyn_cli.load_robot(IIWA))
    scale = SLOWER ** np.arange(traj.orders)[None, :, None]
    path = tmp_path_factory.mktemp("slow") / "slow.h5"
    write_trajectory(str(path), Trajectory(traj.joint_names, traj.derivatives / scale,
                                           traj.t * SLOWER))
    return path


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.mark.parametrize("samples, span, seconds, law, rate", [
    (1001, 5.0, 4.0, 3.3, 200.0),  # (not 10 times faster: the input's rate)
    (1001, 10.0, 1.0, 0.9, 100.0),  # (exactly 10 times: still the input's)
    (2001, 20.0, 0.311752, 0.225574, 10_000.0),  # (2000 steps over the law: 8866 Hz)
    (101, 1.0, 0.0246503, 0.0106387, 10_000.0),  # (100 steps: 9400 Hz)
    (41, 2.0, 0.0231508, 0.0091609, 20_000.0),  # (LEAST_STEPS, not the input's 40: 10916 Hz)
    (21, 20.0, 0.8, 0.7656, 200.0),  # (130.6 Hz)
    (201, 100.0, 2.0, 2.0, 100.0),  # (100 Hz exactly: not rounded up)
    (21, 1.0, 0.341366, 0.149182, 1000.0),  # (6.8 of the input's steps: 670 Hz)
    (121, 6.0, 4.0497, 2.0363, 20.0),  # (81 of them, 0.67 times the input: kept)
    (21, 1.0, 0.8, 0.7657, 20.0),  # (16 of them: kept)
])
def test_the_default_rate_is_the_inputs_unless_the_law_is_ten_times_faster(
        samples, span, seconds, law, rate):
    """The input's mean rate, or, where the uniform scaling lasts under a tenth of the input
    or fewer than SHORT_STEPS of its steps, the first of 1, 2, 5 times a power of ten at
    which the law has as many steps as the input and at least LEAST_STEPS."""
    assert optimal.output_rate(samples, span, seconds, law) == rate


def test_a_law_ten_times_faster_than_its_input_is_sampled_finer(slow_cosine, tmp_path):
    """The slow cosine's law (0.766 s, its uniform scaling 0.8 s: 25 times faster than the
    input) at the input's 1 Hz was two samples, at its rests (the old default); now at 200 Hz,
    the first round rate giving it LEAST_STEPS steps: samples exactly 5 ms apart, the file's
    ``rate`` attribute and the notice say so and why, and check and validate pass."""
    out = tmp_path / "fast.h5"
    line = notice(run("retime", IIWA, slow_cosine, "--optimal", "-o", out), slow_cosine)
    assert "sampled at 200 Hz, not at the input's 1 Hz" in line
    with h5py.File(out) as f:
        t, rate, note = f["t"][:], f.attrs["rate"], f.attrs["rate_note"]
    assert rate == 200.0 and "25 times faster" in note
    assert t.size == 155 and np.allclose(np.diff(t[:-1]), 0.005, rtol=0, atol=1e-12)
    assert run("check", IIWA, out).exit_code == 0
    assert run("validate", IIWA, out).exit_code == 0


def test_a_rate_given_is_honoured_exactly_even_where_the_default_is_raised(slow_cosine):
    """--rate 1 on the slow cosine (the input's own rate, where the default is 200 Hz): the
    output at 1 Hz, a sample at 0 and at the law's end, no rate note."""
    model = hodyn_cli.load_robot(IIWA)
    traj = read_trajectory(str(slow_cosine), model)
    out, opt = hodyn_cli.retime_optimal(model, traj, rate=1.0)
    assert opt.rate_note is None and opt.attributes["rate"] == 1.0
    assert out.t.size == 2 and out.t[1] - out.t[0] == pytest.approx(opt.duration, rel=1e-12)


def test_a_law_not_ten_times_faster_keeps_the_inputs_rate(iiwa_cosine):
    """The cosine as generated (1 s at 20 Hz, its uniform scaling 0.8 s): 20 Hz, no note."""
    model = hodyn_cli.load_robot(IIWA)
    out, opt = hodyn_cli.retime_optimal(model, read_trajectory(str(iiwa_cosine), model))
    assert opt.rate_note is None and opt.attributes["rate"] == 20.0
    assert np.allclose(np.diff(out.t[:-1]), 0.05, rtol=0, atol=1e-12)


def test_a_law_of_a_few_of_the_inputs_steps_is_sampled_finer(tmp_path):
    """Borinot's arm (example-robot-data) on sweep17's ``lissa`` at 20 Hz (21 samples over 1
    s): its uniform scaling 6.8 of the input's steps, its law 3 (0.15413 s at the old
    default, smoothed at the kernel's floor and warped at its rests for a 50 ms step); now at
    1 kHz (SHORT_STEPS, LEAST_STEPS): 0.14924 s, 3.2 % shorter."""
    from test_base_parameters import public_robot

    public_robot("")  # (skips without example-robot-data)
    from conftest import ROOT

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import stranger_sweep17 as sweep

    robot, model, _ = sweep.robot_of("borinot")
    src, _ = sweep.design(tmp_path, robot, model, "lissa", 20.0, None)
    _, opt = hodyn_cli.retime_optimal(model, read_trajectory(str(src), model, need=5))
    assert opt.attributes["rate"] == 1000.0 and "fewer than 15" in opt.rate_note
    assert opt.duration < 0.1495, opt.duration
