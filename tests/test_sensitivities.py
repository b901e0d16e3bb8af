"""The compiled sensitivities against the complex-step reference (an independent method:
the whole recursion in complex arithmetic, one direction per input q^(j)_m)."""

import numpy as np
import pytest

from conftest import random_cosine, reference, wrench_motion
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.sensitivities import complex_step
from hodyn_cli.algorithms.dynamics import sensitivities as S
from hodyn_cli.algorithms.dynamics.common import base_motion

#: the complex step's derivatives by (robot, order, base): the same for every lane width,
#: computed once a worker (most of the test's CPU; each width computes its own)
_COMPLEX_STEP: dict[tuple, list] = {}


@pytest.mark.kernel
@pytest.mark.parametrize("order", [0, 1, 2, 4])
def test_sensitivities_kernel_equals_the_complex_step(robot, lanes, order):
    """At every lane width, odd sample counts, with wrenches and with a root moving per
    sample: every d tau^(k)/d q^(j), including j > 2 (from the time-derivative relation)."""
    name, _, model = robot
    t = np.linspace(0, 3, 7)
    qs = random_cosine(model, t, orders=order + 3, seed=2).derivatives
    W = {model.n - 1: wrench_motion(t, order), 0: wrench_motion(t + 1, order)}
    for moving, base in enumerate((base_motion((0.3, -0.2, -9.81), order + 1),
                                   np.random.default_rng(1).normal(size=(len(t), order + 2, 6)))):
        backend, data = backends.prepare(model)
        ours = backend.sensitivities(model, data, qs, base, W, order)
        if (name, order, moving) not in _COMPLEX_STEP:
            _COMPLEX_STEP[name, order, moving] = complex_step(model, qs, base, W, order)
        ref = _COMPLEX_STEP[name, order, moving]
        assert len(ours) == len(ref) == len(S.dataset_names(order))
        for got, want, key in zip(ours, ref, S.dataset_names(order), strict=True):
            assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max(), (name, lanes, key)


@pytest.mark.kernel
def test_sensitivities_with_and_without_the_kernel(robot, lanes):
    """The public function on either backend gives the same datasets."""
    name, _, model = robot
    traj = random_cosine(model, np.linspace(0, 2, 5), orders=5, seed=3)
    fast = S.sensitivities(model, traj, order=2)
    slow = reference(S.sensitivities, model, traj, order=2)
    assert list(fast) == list(slow) == S.dataset_names(2)
    for key in slow:
        assert np.abs(fast[key] - slow[key]).max() <= 1e-12 * np.abs(slow[key]).max(), name
