"""The windows' programmes weigh the spline's roughness against the time gained where the law
runs, not at its slowest point (``programme._roughness``): one weight for the whole grid, in
the uniform scaling's units against T's gradient normalised at its largest, outweighed the
time gained wherever the law ran fast (T's gradient falls as x^(-3/2)) and the programmes
stopped far below every limit on paths whose legs the input times unevenly."""

import csv

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import programme
from hodyn_cli.cli.app import app

IIWA = URDF / "iiwa14.urdf"
#: waypoints as shares of each joint's range about its middle: a zigzag through five rests
ZIG = [[-0.3, 0.2, -0.2, 0.25, -0.2, 0.2, -0.1], [0.25, -0.15, 0.3, -0.2, 0.25, -0.2, 0.2],
       [-0.1, 0.25, -0.25, 0.1, -0.3, 0.1, -0.25], [0.2, -0.2, 0.15, -0.25, 0.2, -0.15, 0.3],
       [-0.3, 0.2, -0.2, 0.25, -0.2, 0.2, -0.1]]


def test_each_third_difference_is_weighed_by_the_time_gradient_at_its_coefficients():
    """Where T's gradient is 1000 times smaller, so is the roughness's weight; at the uniform
    law (one gradient) every weight is ROUGH / x0, as before."""
    gradient = np.array([1.0] * 4 + [1e-3] * 6)
    weights = programme._roughness(gradient, 0.5)
    assert weights.shape == (7,)
    assert weights[:4] == pytest.approx(2 * programme.ROUGH)
    assert weights[4:] == pytest.approx(2e-3 * programme.ROUGH)
    assert (programme._roughness(np.ones(9), 0.5) == 2 * programme.ROUGH).all()
    assert programme._roughness(np.ones(3), 1.0).shape == (0,)


@pytest.mark.slow
def test_the_windows_rise_on_the_slow_legs_of_an_unevenly_timed_zigzag(tmp_path):
    """The iiwa's zigzag through five rests, legs of 0.15, 2, 0.3 and 2 s at 100 Hz
    (reachability: 4.33 s): the windows' law was 18.35 s, its programmes stopped with the
    limits slack on the slow legs; then 16.10 s (the rest of the gap: the path-speed cap,
    CAP times the uniform scaling that the 0.15 s leg sets); 7.75 s since each leg is capped
    at CAP times its own (test_windows19). Check and validate pass."""
    model = hodyn_cli.load_robot(str(IIWA))
    low, high = model.limits[:, 0], model.limits[:, 1]
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    points, src, out = tmp_path / "zig.csv", tmp_path / "zig.h5", tmp_path / "out.h5"
    with open(points, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(model.joint_names)
        writer.writerows(middle + half * np.array(row) for row in ZIG)
    runner = CliRunner()
    res = runner.invoke(app, ["generate", str(IIWA), "--kind", "point-to-point", "--waypoints",
                              str(points), "--segment-duration", "0.15,2,0.3,2", "--rate",
                              "100", "--allow-limit-violation", "-o", str(src), "-q"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["retime", str(IIWA), str(src), "--optimal", "--solver",
                              "windows", "-q", "-o", str(out)])
    assert res.exit_code == 0, res.output
    with h5py.File(out) as f:
        duration = float(f.attrs["duration"])
    assert duration < 8.0, duration  # (18.35 s, then 16.10 s before)
    for command in (["check", str(IIWA), str(out), "-q"], ["validate", str(IIWA), str(out), "-q"]):
        res = runner.invoke(app, command)
        assert res.exit_code == 0, res.output
