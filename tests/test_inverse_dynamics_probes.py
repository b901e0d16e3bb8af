"""body_fixed.inverse_dynamics_probes: the inverse dynamics of motions through the same
positions (programme.path_limits' probes) with the positions' work (the joint adjoints) made
once, the same numbers to the bit as each motion's own inverse dynamics, under every kernel
variant and numpy's fallback; and path_limits' laws the same as from its probes one by one."""

import numpy as np
import pytest
from test_joint_models import random_model
from test_optimal import iiwa_path

import hodyn_cli
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.limits import programme
from hodyn_cli.core.trajectory import Trajectory


def _probes(model, P: int, N: int, D: int, seed: int = 5) -> np.ndarray:
    """(P, N, D, nv) random motions whose positions (row 0) are the same."""
    probes = np.random.default_rng(seed).uniform(-2.0, 2.0, (P, N, D, model.nv))
    probes[:, :, 0] = probes[0, :, 0]
    return probes


def _one_by_one(model, probes: np.ndarray, order: int) -> np.ndarray:
    return np.stack([body_fixed.inverse_dynamics(model, Trajectory(model.dof_names, qs),
                                                 order=order) for qs in probes])


@pytest.mark.parametrize("kinds", [None, ("helical", "revolute", "prismatic", "helical")])
def test_the_shared_positions_give_each_probes_own_torques_to_the_bit(lanes, kinds):
    """The iiwa and a tree of helical, revolute and prismatic joints, orders 0..3, 37
    samples (a partial lane group at the end), under every kernel variant."""
    model = iiwa_path()[0] if kinds is None else random_model(2, kinds)
    for order in range(4):
        probes = _probes(model, 4, 37, order + 3)
        got = body_fixed.inverse_dynamics_probes(model, model.dof_names, probes, order=order)
        assert got.shape == (4, 37, order + 1, model.nv)
        assert np.array_equal(got, _one_by_one(model, probes, order)), (lanes, order)


def test_numpys_fallback_is_each_probes_own_inverse_dynamics():
    """HODYN_NO_KERNEL's numpy: the same numbers as one by one, chunk by chunk too (more
    samples than its chunk), and not the kernel's (rounding apart: it ran numpy's)."""
    model = iiwa_path()[0]
    probes = _probes(model, 3, 11, 4)
    with backends.use("numpy"):
        got = body_fixed.inverse_dynamics_probes(model, model.dof_names, probes, order=1)
        assert np.array_equal(got, _one_by_one(model, probes, 1))
        many = _probes(model, 2, CHUNK + 3, 3)
        assert np.array_equal(
            body_fixed.inverse_dynamics_probes(model, model.dof_names, many, order=0),
            _one_by_one(model, many, 0))
    if backends.current().name == "compiled":
        assert not np.array_equal(got, body_fixed.inverse_dynamics_probes(
            model, model.dof_names, probes, order=1))


def test_probes_through_other_positions_run_one_by_one():
    """Rows 0 that differ (not the path's probes): each motion's own dynamics, never the
    first one's adjoints."""
    model = iiwa_path()[0]
    probes = _probes(model, 3, 9, 4)
    probes[2, 4, 0, 3] += 0.5
    got = body_fixed.inverse_dynamics_probes(model, model.dof_names, probes, order=1)
    assert np.array_equal(got, _one_by_one(model, probes, 1))


@pytest.mark.parametrize("name", ["compiled", "numpy"])
def test_path_limits_laws_equal_those_of_the_probes_one_by_one(monkeypatch, name):
    """path_limits with its probes' dynamics together (and the first probe's form from one
    point) gives the coefficients, to the bit, of every probe's own inverse dynamics (the
    old path, forced here), at torque order 2 (7 probes) and 0 (3)."""
    model, traj, _ = iiwa_path(T=1.0, rate=40.0)
    limits = hodyn_cli.joint_limits(model, {j: {"torque_rate": 100.0,
                                                "torque_acceleration": 1e3}
                                            for j in model.joint_names})
    with backends.use(name):
        for order in (2, 0):
            together = programme.path_limits(model, traj, limits, order)
            with monkeypatch.context() as m:
                m.setattr(body_fixed, "inverse_dynamics_probes",
                          lambda model, names, probes, order, gravity, data:
                          _one_by_one(model, probes, order))
                alone = programme.path_limits(model, traj, limits, order)
            assert [lim.series for lim in together] == [lim.series for lim in alone]
            assert "tau" in {lim.series for lim in together}
            for a, b in zip(together, alone, strict=True):
                assert np.array_equal(a.coefficients, b.coefficients), (order, a.series)


def test_the_probes_composed_into_one_block_are_composes_own():
    """path_limits composes its probes into one block (``out``): the same numbers as each
    composed alone, every probe's positions (row 0) the path's."""
    from hodyn_cli.algorithms.limits.jets import compose

    _, traj, _ = iiwa_path(T=1.0, rate=30.0)
    q = traj.derivatives[:, :5]
    block = np.empty((4,) + q.shape)
    for sigma, jet in zip(programme.PROBES[:4], block, strict=True):
        rates = np.broadcast_to(sigma, (len(q), 4))
        assert compose(q, rates, out=jet) is not None
        assert np.array_equal(jet, compose(q, rates))
        assert np.array_equal(jet[:, 0], q[:, 0])


def test_the_gpu_backend_runs_each_probe_as_its_own_inverse_dynamics():
    """On a GPU each probe is its :meth:`inverse_dynamics` (the device's numbers, not the
    CPU kernels'), in order (no JAX needed: a recorder stands for the device)."""
    from hodyn_cli.algorithms.backends.gpu import GpuBackend

    gpu_backend = GpuBackend.__new__(GpuBackend)
    calls = []

    def recorded(model, data, qs, base, wrenches, *, order):
        calls.append((qs, wrenches))
        return np.full((len(qs), order + 1, model.nv), float(len(calls)))

    gpu_backend.inverse_dynamics = recorded  # type: ignore[method-assign]
    model = iiwa_path()[0]
    probes = _probes(model, 3, 5, 3)
    out = gpu_backend.inverse_dynamics_probes(model, None, probes, np.zeros((1, 2, 6)),
                                              order=0)
    assert out.shape == (3, 5, 1, 7) and out[:, 0, 0, 0].tolist() == [1.0, 2.0, 3.0]
    assert all(np.array_equal(qs, p) and w == {}
               for (qs, w), p in zip(calls, probes, strict=True))
