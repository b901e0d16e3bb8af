"""Limits of higher orders on long and finely sampled inputs (``retime --optimal``, auto):
where reachability's one piece has more grid points than the sequential programmes take
(``sequential.MOST``), its rounds' law is all there is, and beyond ``optimal.SLACK`` times
its passes' law auto goes to the windows after the first kernel's rounds, at 1 kHz or
finer before them (on the UR5's 30 s and 100 s Fourier paths at 1 and 10 kHz with --jerk
100 that law was 2.4-3.0 times the passes' and slower than the uniform scaling);
an output finer than ``optimal.HIGHER_RATE`` has the programmes run at any slack (the
Panda's 10 kHz Fourier path with --jerk 500: the rounds' law 1.026 times the passes', 2.0 %
longer than the windows'; benchmarks/README.md, 2026-11-30, long10k). Through the real
command line on the iiwa's cosine, each run stopped where what is tested is decided."""

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF
from hodyn_cli.algorithms.limits import optimal, rates, sequential
from hodyn_cli.cli.app import app
from hodyn_cli.errors import HodynError

IIWA = URDF / "iiwa14.urdf"
#: torque rates below gravity's own rate along the cosine: the rounds' law far beyond SLACK
#: times the passes' (the programmes' 3.16 times: test_optimal_rates_auto.py)
RATES_25 = "".join(f"[joints.iiwa_joint_{i}]\ntorque_rate = 25.0\n" for i in range(1, 8))


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def generated(tmp_path, rate: float, seconds: float):
    path = tmp_path / f"cosine{rate:g}.h5"
    res = run("generate", IIWA, "--kind", "cosine", "--duration", seconds, "--rate", rate,
              "-o", path)
    assert res.exit_code == 0, res.output
    return path


def test_beyond_the_programmes_grid_a_far_rounds_law_goes_to_the_windows_at_once(
        tmp_path, monkeypatch):
    """The programmes' limit set below a 401-point grid of the 1 s cosine at 20 Hz: the
    first kernel's rounds (beyond SLACK) send auto to the windows, no second kernel, no fit
    of reachability's law; ``--solver reachability`` still plays and fits it."""
    monkeypatch.setattr(sequential, "MOST", 100)
    limits = tmp_path / "rates.toml"
    limits.write_text(RATES_25)
    src = generated(tmp_path, 20, 1)
    rounds, fits, why = [], [], []
    kept = rates.kept

    def counted(*args, **kw):
        rounds.append(len(args[1].x))
        return kept(*args, **kw)

    def fit(self, chunks, from_rest=False):  # (an inner uniform fit of reachability's played motion)
        fits.append(1)
        raise HodynError("stopped at a fit")

    def windows(self, chunks):
        why.append(self.why_windows)
        raise HodynError("stopped at the windows")

    monkeypatch.setattr(rates, "kept", counted)
    monkeypatch.setattr(optimal.Optimal, "_resampled", fit)
    monkeypatch.setattr(optimal.Optimal, "_windows", windows)
    res = run("retime", IIWA, src, "--optimal", "--limits", limits, "--arc-grid", 400,
              "-o", tmp_path / "a.h5")
    assert res.exit_code == 2 and "stopped at the windows" in res.output, res.output
    assert rounds == [401] and not fits
    assert why[0].endswith("on 401 grid points, more than the 100 its programmes take")
    assert "times its passes' law" in why[0]
    res = run("retime", IIWA, src, "--optimal", "--limits", limits, "--arc-grid", 400,
              "--solver", "reachability", "-o", tmp_path / "r.h5")
    assert res.exit_code == 2 and "stopped at a fit" in res.output, res.output


def test_beyond_the_programmes_grid_an_output_of_1khz_or_finer_goes_to_the_windows(
        tmp_path, monkeypatch):
    """At 1 kHz or finer a grid the programmes cannot take sends auto to the windows before
    the rounds (a rounds' law within SLACK was 2.0 % longer than the windows' on the Panda
    at 10 kHz, 2.4-3.0 times the passes' on the UR5 at 1 kHz); at 500 Hz the rounds run."""
    monkeypatch.setattr(sequential, "MOST", 100)
    rounds, why = [], []

    def kept(*args, **kw):
        rounds.append(1)
        raise HodynError("stopped at the rounds")

    def windows(self, chunks):
        why.append(self.why_windows)
        raise HodynError("stopped at the windows")

    monkeypatch.setattr(rates, "kept", kept)
    monkeypatch.setattr(optimal.Optimal, "_windows", windows)
    for rate, stop in ((1000, "windows"), (500, "rounds")):
        src = generated(tmp_path, rate, 0.5)
        res = run("retime", IIWA, src, "--optimal", "--jerk", 500, "--arc-grid", 400,
                  "-o", tmp_path / "out.h5")
        assert res.exit_code == 2 and f"stopped at the {stop}" in res.output, res.output
    assert rounds == [1] and why == ["the command line's jerk limits: an output at 1000 Hz "
                                     "or finer on 401 grid points, more than the 100 "
                                     "reachability's programmes take"]


def test_a_rounds_law_slower_than_the_uniform_scaling_goes_to_the_windows_at_once(
        tmp_path, monkeypatch):
    """A rounds' law beyond SLACK and more than FIT slower than the uniform scaling (made so:
    its duration reported 50 times as long) is not fitted: auto goes to the windows."""
    src = generated(tmp_path, 20, 1)
    why = []
    kept = rates.kept

    def slow(*args, **kw):
        rated = kept(*args, **kw)
        return rated._replace(duration=50 * rated.duration)

    def windows(self, chunks):
        why.append(self.why_windows)
        raise HodynError("stopped at the windows")

    monkeypatch.setattr(rates, "kept", slow)
    monkeypatch.setattr(optimal.Optimal, "_windows", windows)
    res = run("retime", IIWA, src, "--optimal", "--jerk", 500, "--arc-grid", 400,
              "-o", tmp_path / "out.h5")
    assert res.exit_code == 2 and "stopped at the windows" in res.output, res.output
    assert why[0].startswith("the command line's jerk limits: keeping them made "
                             "reachability's law ")
    assert why[0].endswith("times the uniform scaling's")


@pytest.mark.parametrize(("rate", "options", "refine", "auto"), [
    (2000, (), 1.0, True), (2000, ("--rate", 1000), optimal.SLACK, False),
    (2000, ("--solver", "reachability"), 1.0, False)])
def test_an_output_finer_than_1khz_has_the_programmes_run_at_any_slack(
        tmp_path, monkeypatch, rate, options, refine, auto):
    """What the rounds are asked to refine beyond: 1 (always) for a 2 kHz output, SLACK
    times the passes' law for a 1 kHz one, whatever the input's rate; and with auto on an
    output finer than HIGHER_RATE, not beyond UNREACHED times the uniform scaling's duration
    (the windows run then); at 1 kHz or coarser, at any (``auto`` False here)."""
    src = generated(tmp_path, rate, 0.5)
    asked = []

    def kept(*args, **kw):
        asked.append((kw["refine"], kw["unreached"]))
        raise HodynError("stopped at the rounds")

    monkeypatch.setattr(rates, "kept", kept)
    res = run("retime", IIWA, src, "--optimal", "--jerk", 500, *options,
              "-o", tmp_path / "out.h5")
    assert res.exit_code == 2 and "stopped at the rounds" in res.output, res.output
    [(refined, unreached)] = asked
    assert refined == refine
    # (the cosine's uniform scaling lasts about its 0.5 s)
    assert 0.2 * optimal.UNREACHED < unreached < 2 * optimal.UNREACHED if auto else (
        unreached == np.inf)
