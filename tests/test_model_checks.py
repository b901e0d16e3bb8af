"""Model checks its invariants when built: a hand-built model that breaks one is refused
with a message naming the joint, before any algorithm (or the compiled kernel, which reads
the arrays without bounds checks) sees it."""

import dataclasses
import gc
import weakref

import numpy as np
import pytest

from conftest import URDF, random_cosine
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.core.model import LinkFrame
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.urdf import load_model


@pytest.fixture(scope="module")
def gripper():
    return load_model(URDF / "gripper_arm.urdf")  # a tree with a prismatic joint


def changed(model, field, fn):
    value = getattr(model, field)
    value = value.copy() if isinstance(value, np.ndarray) else value
    return {field: fn(value)}


def _set(a, index, value):
    a[index] = value
    return a


BROKEN = {
    "a child before its parent": ("parent", lambda p: _set(p, 1, 3), "parents first"),
    "a parent out of range": ("parent", lambda p: _set(p, 0, -2), "parents first"),
    "parents as floats": ("parent", lambda p: p.astype(float), "integers"),
    "a missing body": ("inertias", lambda M: M[:-1], "shape"),
    "a NaN in B": ("B", lambda B: _set(B, (2, 0, 3), np.nan), "not finite"),
    "an infinite inertia": ("inertias", lambda M: _set(M, (1, 3, 3), np.inf), "not finite"),
    "a screw that is not a unit": ("X", lambda X: X * 2, "screw X"),
    "a revolute screw with a linear part": ("X", lambda X: _set(X, (0, 4), 0.1), "screw X"),
    "a rotation that is not one": ("B", lambda B: _set(B, (1, 0, 1), 0.3), "rigid transformation"),
    "an asymmetric inertia": ("inertias", lambda M: _set(M, (0, 0, 1), M[0, 0, 1] + 1e-3), "symmetric"),
    "a microgram body's asymmetric inertia": (
        "inertias", lambda M: _set(M * 1e-9, (1, 0, 1), M[1, 0, 1] * 1e-9 + 1e-15), "symmetric"),
    "an inertia that is not a rigid body's": ("inertias", lambda M: _set(M, (0, 4, 4), M[0, 3, 3] + 1),
                                              "rigid-body inertia"),
    "a joint mimicking itself": ("mimic", lambda m: _set(m, (2, 0), 2), "mimic leader"),
    "a link on no body": ("links", lambda links: {**links, "ghost": LinkFrame(9, np.eye(4))},
                          "ghost"),
    "an unknown joint type": ("joint_types", lambda t: ("ball",) + t[1:], "type 'ball'"),
    "a name too few": ("joint_names", lambda t: t[:-1], "entries"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_model_is_refused(gripper, case):
    field, fn, message = BROKEN[case]
    with pytest.raises(ModelError, match=message) as info:
        dataclasses.replace(gripper, **changed(gripper, field, fn))
    assert "\n" not in str(info.value) and "gripper" in str(info.value)


def test_bundled_robots_pass(robot):
    name, _, model = robot
    dataclasses.replace(model)  # the checks run again on a copy: no error


def test_nothing_keeps_a_model_or_its_data():
    """The per-model precomputation (a backend's Data: joint adjoints, the kernel's view) is
    made by the caller and lives as long as the caller holds it: no cache keeps the model or
    its data after the computation."""
    model = load_model(URDF / "iiwa14.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 5), orders=5)
    backend, data = backends.prepare(model)
    for method in ("body-fixed", "closed-form"):
        inverse_dynamics(model, traj, method=method, order=2)
    gone_model, gone_data = weakref.ref(model), weakref.ref(data)
    del model, traj, data
    gc.collect()
    assert gone_model() is None and gone_data() is None


def test_prepare_takes_the_callers_data_if_its_backend_made_it():
    """:func:`backends.prepare` hands back the caller's Data where the backend that runs made
    it, and makes one of its own otherwise (inside a ``use`` block of another backend)."""
    model = load_model(URDF / "gripper_arm.urdf")
    backend, data = backends.prepare(model)
    assert data.made_by is backend and backends.prepare(model, data) == (backend, data)
    with backends.use("numpy") as numpy_backend:
        _, there = backends.prepare(model, data)
    assert there.made_by is numpy_backend and (there is data) == (backend is numpy_backend)
    assert isinstance(there, ModelData) and isinstance(data, ModelData)
