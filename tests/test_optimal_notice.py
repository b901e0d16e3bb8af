"""``retime --optimal``'s end-of-run notice and the output's attributes tell the truth about
where the output is on its limits, and never end empty: where the final scaling slowed the
law and the output is then on no limit (a resampling that put a sample on a peak between the
output's samples: 3 x 10^4 samples of the iiwa's Fourier path with urdf/iiwa14_limits.toml,
``final_scale`` 1.056 with an empty ``binding``), the notice and the file say which sample
set the slowing and which limit is nearest. Through the real command line, on the iiwa's
cosine path, 1 s at 20 Hz."""

from dataclasses import replace

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF
from conftest import optimal_notice as notice
from hodyn_cli.cli.app import app

IIWA = URDF / "iiwa14.urdf"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.mark.parametrize("how", [["--optimal"], ["--to-limits", "--rate", 20]])
def test_a_slowing_set_by_an_earlier_sampling_is_said_and_recorded(iiwa_cosine, tmp_path,
                                                                    monkeypatch, how):
    """The first resampling of reachability's played law finds a sample 1.2 % beyond its limit
    (forced: as the 3 x 10^4-sample path's hit a narrow peak of a torque acceleration that
    the next sampling missed); the next and last (RESAMPLES 2 here; the long path's was its
    third), played 1.012^2 times slower, fits with room and is the output: on no limit
    within 1 %. The notice and the file name the nearest limit and
    the sample that set the slowing, and the final scale is the one the file records. So
    with ``--to-limits --rate`` (the uniform scaling resampled: its notice named the final
    fit's binding, a sample that the output no longer has on its limit)."""
    from hodyn_cli.algorithms.limits import optimal

    fitted, calls = optimal.Optimal._fitted, {}

    def one_beyond(self, chunks):
        fit, found, lag = fitted(self, chunks)
        if self.uniform:  # (reachability's played law at each smoothing, or --to-limits
            # --rate's uniform scaling, fitted from rest)
            # (each fit held, not only its id: a freed fit's id is reused by the next one,
            # whose first fit would then count as a resampling)
            held, count = calls.get(id(self), (self, 0))
            calls[id(self)] = (held, count + 1)
            if count + 1 == 2:  # its first resampling
                found = replace(found, x=found.x / 1.012)
        return fit, found, lag

    monkeypatch.setattr(optimal.Optimal, "_fitted", one_beyond)
    monkeypatch.setattr(optimal, "RESAMPLES", 2)  # (the last resampling: the next one)
    out = tmp_path / "fast.h5"
    res = run("retime", IIWA, iiwa_cosine, *how, "-o", out)
    assert res.exit_code == 0, res.output
    line = next(line for line in res.output.splitlines()
                if line.startswith(f"hodyn: notice: {iiwa_cosine}:"))
    with h5py.File(out) as f:
        attrs = dict(f.attrs)
    assert attrs.get("solver", "reachability") == "reachability"
    assert list(attrs["binding"]) == [] and "binding:" not in line
    assert attrs["final_scale"] == pytest.approx(1.012**2, rel=1e-3)
    assert "; on no limit within 1 % (nearest: " in line
    assert line.endswith(f"; {attrs['final_scale_by']}")
    assert attrs["final_scale_by"].startswith(
        f"played {attrs['final_scale']:.6g} times slower than its law: at a sampling ")
    assert "was beyond it (1.01" in attrs["final_scale_by"]
    assert f"(nearest: {attrs['nearest_limit']})" in line


def test_an_output_on_its_limits_records_no_nearest_and_no_slowing(iiwa_cosine, tmp_path):
    out = tmp_path / "fast.h5"
    line = notice(run("retime", IIWA, iiwa_cosine, "--optimal", "-o", out), iiwa_cosine)
    with h5py.File(out) as f:
        assert len(f.attrs["binding"]) and "nearest_limit" not in f.attrs
        assert "final_scale_by" not in f.attrs
    assert "; on its limits: " in line and "times slower than its law" not in line


RATES = [(how, rate, ()) for how in (["--optimal"], ["--to-limits"]) for rate in (20, 500)] + [
    (["--optimal", "--limits", URDF / "iiwa14_limits.toml"], 20, ())] + [
    (how, rate, pytest.mark.slow) for how, rate in (  # (2-8 s each)
        (["--optimal"], 10_000), (["--to-limits"], 10_000),
        (["--optimal", "--limits", URDF / "iiwa14_limits.toml"], 500),
        (["--optimal", "--limits", URDF / "iiwa14_limits.toml"], 10_000))]


@pytest.mark.parametrize("how, rate", [pytest.param(how, rate, marks=marks)
                                       for how, rate, marks in RATES])
def test_rate_steps_are_exact_and_the_notice_never_ends_empty(iiwa_cosine, tmp_path, rate, how):
    """--rate R: the output's samples i / R from its start (to rounding), the last step
    shorter (or, where that would be under 0.1 % of a step, longer by as much: time
    differences over a sliver of a step would be rounding; `--rate 500` sampled at
    0.00200225 s once); the notice ends with words, never with an empty list ("on its
    limits: ")."""
    out = tmp_path / "out.h5"
    res = run("retime", IIWA, iiwa_cosine, *how, "--rate", rate, "-o", out)
    assert res.exit_code == 0, res.output
    line = next(line for line in res.output.splitlines() if line.startswith(
        f"hodyn: notice: {iiwa_cosine}:"))
    assert not line.rstrip().endswith((":", ";", ",")) and line == line.rstrip(), line
    assert "on its limits: ;" not in line and "binding: ;" not in line
    with h5py.File(out) as f:
        t = f["t"][()]
    i = np.arange(len(t) - 1)
    assert np.abs(t[:-1] - t[0] - i / rate).max() <= 1e-12 * max(1.0, t[-1])
    assert 0 < t[-1] - t[-2] <= 1.001 / rate
