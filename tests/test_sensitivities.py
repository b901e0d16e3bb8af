"""The compiled sensitivities against the complex-step reference (an independent method:
the whole recursion in complex arithmetic, one direction per input q^(j)_m)."""

import numpy as np
import pytest

from conftest import random_cosine, wrench_motion
from hodyn_cli.algorithms.backends import compiled as _compiled
from hodyn_cli.algorithms.dynamics import sensitivities as S
from hodyn_cli.algorithms.dynamics.common import base_motion


@pytest.mark.kernel
@pytest.mark.parametrize("order", [0, 1, 2, 4])
def test_sensitivities_kernel_equals_the_complex_step(robot, lanes, order):
    """At every lane width, odd sample counts, with wrenches and with a root moving per
    sample: every d tau^(k)/d q^(j), including j > 2 (from the time-derivative relation)."""
    name, _, model = robot
    t = np.linspace(0, 3, 7)
    qs = random_cosine(model, t, orders=order + 3, seed=2).derivatives
    W = {model.n - 1: wrench_motion(t, order), 0: wrench_motion(t + 1, order)}
    for base in (base_motion((0.3, -0.2, -9.81), order + 1),
                 np.random.default_rng(1).normal(size=(len(t), order + 2, 6))):
        ours = _compiled.sensitivities_chunk(model, qs, base, W, order)
        ref = S.complex_step(model, qs, base, W, order)
        assert len(ours) == len(ref)
        for got, key in zip(ours, S.dataset_names(order), strict=True):
            scale = np.abs(ref[key]).max()
            assert np.abs(got - ref[key]).max() <= 1e-12 * scale, (name, lanes, key)


@pytest.mark.kernel
def test_sensitivities_with_and_without_the_kernel(robot, monkeypatch):
    """The public function on either backend gives the same datasets."""
    name, _, model = robot
    traj = random_cosine(model, np.linspace(0, 2, 5), orders=5, seed=3)
    fast = S.sensitivities(model, traj, order=2)
    monkeypatch.setenv("HODYN_NO_KERNEL", "1")
    with _compiled.use(None):
        slow = S.sensitivities(model, traj, order=2)
    assert list(fast) == list(slow) == S.dataset_names(2)
    for key in slow:
        assert np.abs(fast[key] - slow[key]).max() <= 1e-12 * np.abs(slow[key]).max(), name
