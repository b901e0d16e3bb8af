"""The windows' output rate counted on their own law (issue 37, goal 1): where the output's
rate is raised for a path played many times faster than its input and no law is known yet
(``--solver windows``, or reachability refused before its passes), the rate came from the
uniform scaling's steps alone, and the windows' smoothness rows, bound to the output's
step, held a law several times faster than that scaling back (``Optimal._rate_up``). The
generic quadruped's leg along its Fourier path at 20 and 100 Hz (reachability refused):
+38 % and +14 % over toppra, now +8.1 % and +6.1 %."""

import dataclasses

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF
from hodyn_cli.algorithms.limits import optimal
from hodyn_cli.api import load_robot
from hodyn_cli.cli.app import app
from hodyn_cli.io import read_trajectory, write_trajectory

ROBOT = str(URDF / "planar_2r.urdf")


@pytest.fixture(scope="module")
def slowed(tmp_path_factory) -> str:
    """The 2R's 4 s Fourier path at 20 Hz played 10 times slower (40 s, 2 Hz): its uniform
    scaling 12.7 times faster than the input, the rate raised to 50 Hz."""
    folder = tmp_path_factory.mktemp("rateup")
    src, slow = folder / "fast.h5", folder / "slow.h5"
    res = CliRunner().invoke(app, ["generate", ROBOT, "--kind", "fourier", "--rate", "20",
                                   "--duration", "4", "--harmonics", "5", "--seed", "7",
                                   "-o", str(src), "-q"])
    assert res.exit_code == 0, res.output
    fast = read_trajectory(str(src), load_robot(ROBOT), need=3)
    k = 10.0 ** -np.arange(fast.orders)[None, :, None]
    write_trajectory(str(slow), dataclasses.replace(
        fast, derivatives=fast.derivatives * k, t=fast.t * 10.0))
    return str(slow)


def _retimed(src: str, out: str, *args: str) -> tuple[float, float, str]:
    res = CliRunner().invoke(app, ["retime", ROBOT, src, "--optimal", "-q", "-o", out, *args])
    assert res.exit_code == 0, res.output
    with h5py.File(out) as f:
        return float(f.attrs["duration"]), float(f.attrs["rate"]), str(f.attrs["solver"])


def test_the_windows_rate_is_raised_where_their_law_needs_it(slowed, tmp_path, monkeypatch):
    """Reachability's law 2.1418 s at 50 Hz (its passes chose the rate); the windows' at the
    uniform scaling's 50 Hz 2.3191 s (+8.3 %), at the 200 Hz their law's planning reached
    (50 -> 100 -> 200, 500 no shorter by RATE_GAIN) 2.1621 s (+0.95 %); validate passes."""
    reach, reach_rate, solver = _retimed(slowed, str(tmp_path / "r.h5"))
    assert solver == "reachability" and reach_rate == 50.0
    out = str(tmp_path / "w.h5")
    windows, rate, solver = _retimed(slowed, out, "--solver", "windows")
    assert solver == "windows" and rate == 200.0
    assert reach <= windows < 1.015 * reach
    res = CliRunner().invoke(app, ["validate", ROBOT, out, "--path", slowed, "-q"])
    assert res.exit_code == 0, res.output
    with h5py.File(out) as f:  # (its samples 1/rate apart, the last step shorter)
        step, note = np.diff(f["t"][:]), f.attrs["rate_note"]
    assert "; 200 Hz, not 50: the windows' law planned there 2.16" in note, note
    assert np.allclose(step[:-1], 1.0 / rate, rtol=0, atol=1e-12) and step[-1] <= 1.0 / rate
    monkeypatch.setattr(optimal, "RATE_UPS", 0)  # (as before: the uniform scaling's rate)
    before, rate, _ = _retimed(slowed, str(tmp_path / "w0.h5"), "--solver", "windows")
    assert rate == 50.0 and before > 1.05 * reach


def test_a_rate_given_is_the_rate(slowed, tmp_path):
    """``--rate`` given: no rate tried above it."""
    _, rate, _ = _retimed(slowed, str(tmp_path / "g.h5"), "--solver", "windows",
                          "--rate", "50")
    assert rate == 50.0


def test_no_rate_up_beyond_the_samples_a_played_law_may_have(slowed, tmp_path, monkeypatch):
    """A rate up whose output would have more samples than PER_SAMPLE x MOST_SAMPLES (here
    3 x 50: the law of ~2.3 s at 100 Hz has ~230) is not tried: the uniform scaling's rate."""
    from hodyn_cli.algorithms.limits import reachability

    monkeypatch.setattr(reachability, "MOST_SAMPLES", 50)
    _, rate, solver = _retimed(slowed, str(tmp_path / "w.h5"), "--solver", "windows")
    assert solver == "windows" and rate == 50.0
