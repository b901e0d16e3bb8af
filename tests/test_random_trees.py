"""Random kinematic trees beyond the bundled robots: every joint type, fixed joints in
chains and at branches, tilted axes, offset inertias. All methods agree with each other and
with Pinocchio; each order matches finite differences."""

import numpy as np
import pytest

from conftest import pinocchio_reference, random_cosine, random_urdf
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.modeling.urdf import parse_model


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_tree(tmp_path, seed):
    text = random_urdf(seed)
    path = tmp_path / "random.urdf"
    path.write_text(text)
    model = parse_model(text.encode())
    assert model.n >= 6 and len(set(model.parent.tolist())) > 2, "want a branching tree"
    assert set(model.joint_types) == {"revolute", "continuous", "prismatic"}
    assert len(model.links) > model.n + 1, "want fixed joints"
    t = np.linspace(0, 2, 12)
    traj = random_cosine(model, t, orders=6, seed=seed)
    results = {m: inverse_dynamics(model, traj, method=m, order=3)
               for m in ("body-fixed", "spatial", "closed-form")}
    ref = results["body-fixed"]
    for m, res in results.items():
        for k in range(4):
            scale = np.abs(ref[:, k]).max()
            assert np.abs(res[:, k] - ref[:, k]).max() <= 1e-10 * scale, f"{m} order {k}"
    tau, taud = pinocchio_reference(path, model, traj)
    for k, pin_ref in ((0, tau), (1, taud)):
        scale = np.abs(pin_ref).max()
        assert np.abs(ref[:, k] - pin_ref).max() <= 1e-10 * scale, f"pinocchio order {k}"
    # each order against the 8th-order central difference of the order below, in time
    h, stencil = 1e-3, np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0, 4 / 5, -1 / 5, 4 / 105,
                                 -1 / 280])
    around = random_cosine(model, 1.1 + h * np.arange(-4, 5), orders=6, seed=seed)
    tau4 = inverse_dynamics(model, around, order=3)
    for k in range(1, 4):
        fd = stencil @ tau4[:, k - 1] / h
        assert np.abs(fd - tau4[4, k]).max() <= 1e-7 * np.abs(tau4[:, k]).max(), f"FD order {k}"
