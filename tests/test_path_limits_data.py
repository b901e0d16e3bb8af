"""programme.path_limits' probes share one backend Data: the kernels' model struct made once
per call, not once per probe (1.5 ms each: 0.8 s of a 10^5-sample path's ~7.5 s there)."""

import numpy as np
import pytest
from test_optimal import iiwa_path

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.limits import programme
from hodyn_cli.algorithms.limits.feasibility import torque_order
from hodyn_cli.core.trajectory import Trajectory


def _made(monkeypatch, backend: backends.Backend) -> list:
    """The list each Data ``backend`` makes from now on is appended to."""
    made, data = [], type(backend).data

    def counted(self, model):
        made.append(model)
        return data(self, model)

    monkeypatch.setattr(type(backend), "data", counted)
    return made


@pytest.mark.parametrize("name", ["compiled", "numpy"])
def test_the_probes_share_one_data(monkeypatch, name):
    """Rigid torques to order 2 take 7 probes (the most monomials of their series): one Data
    a call, under the kernels and numpy's fallback alike, drives' laws too (the old probes
    made one each: 7); the laws those probes fit are still the dynamics of the motion at
    speed-up 1 (x = 1, its derivatives 0)."""
    model, traj, _ = iiwa_path(T=1.0, rate=20.0)
    torques = hodyn_cli.joint_limits(model, {j: {"torque_rate": 100.0,
                                                 "torque_acceleration": 1e3}
                                             for j in model.joint_names})
    drives = hodyn_cli.api.read_drives(model, URDF / "iiwa14_motors.toml")
    motors = hodyn_cli.joint_limits(model, {"iiwa_joint_1": {"current": 5.0}})
    with backends.use(name) as backend:
        made = _made(monkeypatch, backend)
        rigid = programme.path_limits(model, traj, torques, torque_order(torques))
        assert len(made) == 1
        programme.path_limits(model, traj, motors, 0, drives=drives)
        assert len(made) == 2
        # the joints' own speeds alone (order -1, no drives): no dynamics, no Data
        programme.path_limits(model, traj, hodyn_cli.joint_limits(
            model, {"iiwa_joint_1": {"velocity": 1.0}}), -1)
        assert len(made) == 2
    X = np.column_stack([np.ones(traj.n_samples), np.zeros((traj.n_samples, 3))])
    want = hodyn_cli.inverse_dynamics(model, Trajectory(model.joint_names, traj.derivatives),
                                      order=2)
    for lim in rigid:
        if lim.series == "tau":
            assert np.abs(lim.values(X) - want["tau"]).max() <= 1e-9 * np.abs(want["tau"]).max()
