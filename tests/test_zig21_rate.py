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
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest
from test_base_parameters import public_robot

import hodyn_cli
from conftest import ROOT
from hodyn_cli.algorithms.limits import optimal
from hodyn_cli.core.trajectory import Trajectory
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


@pytest.mark.parametrize("raised, step", [
    (None, 0.005 * 0.05),  # (the plan's step is the input's mean step: kept)
    ((1.0, 0.05, 0.766, "law"), 1.0 * 0.05),  # (raised to 200 Hz from 1 Hz: the input's 1 s)
])
def test_the_uniform_scaling_at_the_inputs_samples_steps_as_the_input(monkeypatch, raised, step):
    """``Optimal._at_input_samples`` plays the uniform scaling (k = 0.05) at the input's
    samples: its step k times the input's mean step. Where the rate was raised (200 Hz from
    the input's 1 Hz) the plan's step is the raised one, and k times it fell 200 times between
    the input's samples: the iiwa's optimal cosine law played 20 times slower with --solver
    windows came out at 3957 Hz, 1.1 % slower than its uniform scaling; now at 20.67 Hz, as
    played at its own rate (the fit is stopped here: only the step is read)."""
    @dataclass(frozen=True)
    class Law:
        coefficients: np.ndarray

    class Fitted(Exception):
        pass

    opt = optimal.Optimal.__new__(optimal.Optimal)
    opt.path = optimal.Plan(Law(np.ones(3)), 0.0, 0.005, SimpleNamespace(x=20.0, k=0.05), 20.0, 9)
    opt.raised = raised
    steps = []

    def fitted(chunks):
        steps.append(opt.path.step)
        raise Fitted

    monkeypatch.setattr(opt, "_state", lambda: (np.inf,), raising=False)
    monkeypatch.setattr(opt, "_fitted", fitted, raising=False)
    with pytest.raises(Fitted):
        opt._at_input_samples(lambda: [])
    assert steps == [pytest.approx(step, rel=1e-15)]


@pytest.mark.slow
def test_the_windows_fallback_plays_the_inputs_samples_where_the_rate_was_raised(iiwa_cosine):
    """The iiwa cosine's optimal law (0.7657 s at 20 Hz) cut to its whole 50 ms steps and
    played twice slower: 16 samples at 10 Hz, a path its uniform scaling (k = 0.5, 0.75 s)
    already plays at its limits. Its law lasts 7.5 of the input's steps: the rate raised to
    200 Hz; the windows lose to the uniform scaling, played at the input's samples
    (``_at_input_samples``): 16 samples 50 ms apart, 0.75 s, within its limits exactly as the
    uniform scaling found them (before: k times the raised step, 396 Hz, 301 samples,
    0.757932 s, 1.06 % slower than the uniform scaling). ~6 s of CPU."""
    model = hodyn_cli.load_robot(ROOT / "urdf" / "iiwa14.urdf")
    law, _ = hodyn_cli.retime_optimal(model, read_trajectory(str(iiwa_cosine), model))
    scale = 2.0 ** np.arange(law.orders)[None, :, None]
    even = Trajectory(law.joint_names, law.derivatives[:-1] / scale, law.t[:-1] * 2.0)
    out, opt = hodyn_cli.retime_optimal(model, even, solver="windows")
    assert opt.used == "uniform" and out.t.size == 16
    assert np.allclose(np.diff(out.t), 0.05, rtol=1e-8, atol=0)
    assert opt.duration == pytest.approx(opt.uniform_duration, rel=1e-9)
    assert opt.rate_note is None  # (review45: it explained a raised rate the output has not)
