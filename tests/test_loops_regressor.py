"""The regressor of closed loops (docs/loops.md): ``Y_a = G^T Y`` and its derivatives give the
actuated joints' torques of ``compute --loops`` (the tree's RNEA projected, not the
regressor), its rates are the 8th-order differences of the order below (the Leibniz sums over
G's derivatives), the base parameters reproduce it, and the command line writes it."""

from __future__ import annotations

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import SAMPLES, URDF, assert_rates, stencil_times, without_G_rates
from hodyn_cli import api
from hodyn_cli.algorithms.dynamics.regressor import parameters
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import cosine

#: robot -> the actuated joints' cosine (offset, amplitude, omega per joint), as test_loops.py
MECHANISMS = {"fourbar": ([0.3], [1.2], [2.0]),
              "fivebar": ([-2.0, -1.1], [0.3, 0.25], [2.0, 3.0]),
              "leg_fourbar_knee": ([0.0, -0.5], [0.3, 0.4], [2.0, 3.0])}


def closed_robot(robot: str):
    tree = api.load_robot(URDF / f"{robot}.urdf")
    return tree, api.close_loops(tree, URDF / f"{robot}_loops.toml")


def motion(closed, robot: str, t: np.ndarray):
    offset, amplitude, omega = MECHANISMS[robot]
    return cosine(closed.coordinate_names, t, amplitude=amplitude, omega=omega, offset=offset,
                  phase=[0.0, 0.5][: len(offset)], orders=5)


@pytest.mark.parametrize("robot", list(MECHANISMS))
def test_the_regressor_gives_the_actuated_torques(robot):
    """``Y_a^(k) pi = tau_a^(k)`` (k = 0..2) to 1e-10, the tree's parameters pi; the base
    parameters' columns give the same (``Y_base pi_base``), are fewer than the tree's (the
    loop ties its bodies' motions) and independent along the motion."""
    tree, closed = closed_robot(robot)
    tr = motion(closed, robot, np.linspace(0.0, 3.0, 13))
    tau = api.inverse_dynamics(closed, tr, order=2)
    Y = api.dynamic_regressor(closed, tr, order=2, base=True)
    assert Y.joint_names == closed.coordinate_names
    pi = parameters(tree)
    basis = api.regressor_basis(closed)
    for k in range(3):
        torque = tau[api.derivative_name("tau", k)]
        scale = np.abs(torque).max()
        suffix = "_" + "d" * k if k else ""
        assert np.abs(Y["Y" + suffix] @ pi - torque).max() <= 1e-10 * scale
        assert np.abs(Y["Y_base" + suffix] @ (basis.base_map @ pi) - torque).max() <= 1e-10 * scale
    assert len(basis.names) < len(api.regressor_basis(tree).names)
    W = Y["Y_base"].reshape(-1, len(basis.names))
    assert np.linalg.matrix_rank(W) == len(basis.names)


def test_the_regressor_rates_are_differences(monkeypatch):
    """On the leg (G 4 x 2): Y_a' and Y_a'' against the 8th-order differences of Y_a and
    Y_a' along the motion; without G' and G'' in the Leibniz sums they are not."""

    _, closed = closed_robot("leg_fourbar_knee")
    h = 1e-3
    tr = motion(closed, "leg_fourbar_knee", stencil_times([0.4, 1.3], h))

    def rates():
        Y = api.dynamic_regressor(closed, tr, order=2)
        assert_rates(np.stack([Y.Y, Y.Y_d, Y.Y_dd], axis=1), h, 1e-8, "Y_a")

    rates()
    without_G_rates(monkeypatch)
    with pytest.raises(AssertionError, match="Y_a order 1"):
        rates()


def test_regressor_loops_on_the_command_line(tmp_path):
    """``hodyn regressor --loops --base``: the actuated joints' rows, ``Y pi`` is the
    ``tau_crank`` of ``compute --loops``; --slotine-li with --loops is refused in one line
    before anything is written."""
    csv, loops = SAMPLES / "fourbar_crank.csv", URDF / "fourbar_loops.toml"
    urdf = URDF / "fourbar.urdf"
    runner = CliRunner()
    result = runner.invoke(app, ["regressor", str(urdf), str(csv), "--loops", str(loops),
                                 "--base", "--order", "1", "-o", str(tmp_path / "y.h5")])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["compute", str(urdf), str(csv), "--loops", str(loops),
                                 "--order", "1", "-o", str(tmp_path / "tau.csv")])
    assert result.exit_code == 0, result.output
    tau = np.loadtxt(tmp_path / "tau.csv", delimiter=",", skiprows=1)[:, 1:3]
    with h5py.File(tmp_path / "y.h5") as f:
        assert list(f.attrs["joint_names"]) == ["crank"] and "loops" in f.attrs
        for k, name in enumerate(("Y", "Y_d")):
            assert np.allclose(f[name][:, 0] @ f.attrs["parameters"], tau[:, k],
                               rtol=1e-10, atol=1e-10 * np.abs(tau[:, k]).max())
        base = f["Y_base"][:, 0] @ (f.attrs["base_map"] @ f.attrs["parameters"])
        assert np.allclose(base, tau[:, 0], rtol=1e-10, atol=1e-10 * np.abs(tau[:, 0]).max())
    out = tmp_path / "r.h5"
    result = runner.invoke(app, ["regressor", str(urdf), str(csv), "--loops", str(loops),
                                 "--slotine-li", "-o", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert result.stderr == ("hodyn: error: --loops (or an MJCF <equality connect|weld>) does "
                             "not go with --slotine-li yet (Y_r of the reduced system needs G' "
                             "in its reference terms)\n")
