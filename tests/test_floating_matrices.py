"""Floating-base EOM matrices (6 + n): Pinocchio's free-flyer model and finite differences."""

import numpy as np
import pytest

from conftest import (
    LINEAR_FIRST,
    assert_rates,
    floating_motion,
    free_flyer_q,
    free_flyer_rate,
    legged_urdf,
    pinocchio_free_flyer,
    stencil_times,
    wrench_motion,
)
from hodyn_cli.algorithms.dynamics.floating import matrices
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.modeling.urdf import load_model

H = 0.01


@pytest.fixture(scope="module", params=["solo", "talos"])
def legged(request, tmp_path_factory):
    text = legged_urdf(request.param, seed=2)
    path = tmp_path_factory.mktemp("legged") / f"{request.param}.urdf"
    path.write_text(text)
    return request.param, text, path, load_model(path)


def test_matrices_match_pinocchio_free_flyer(legged):
    """M = crba, g = computeGeneralizedGravity, with Pinocchio's coordinates (linear; angular;
    joints). Coriolis matrices are not unique: ours and computeCoriolisMatrix's give the same
    forces ``C nu`` and the same ``M' = Cbar + Cbar^T``."""
    name, text, path, model = legged
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    traj, base, _, _ = floating_motion(text, model, np.linspace(0, 3, 5), 3, seed=3)
    E = matrices(model, traj, order=1)
    perm = LINEAR_FIRST + [6 + k for k in order]  # ours at pin's positions
    ix = np.ix_(perm, perm)
    for s in range(traj.n_samples):
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], traj.q[s])
        v = free_flyer_rate(order, base.Vb[s, 0], traj.qd[s])
        M = pin.crba(pm, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        C = pin.computeCoriolisMatrix(pm, data, q, v)
        g = pin.computeGeneralizedGravity(pm, data, q)
        nu = np.concatenate([base.Vb[s, 0], traj.qd[s]])
        for ours, ref, what in ((E.M[s, 0][ix], M, "M"), (E.g[s, 0][perm], g, "g"),
                                (E.M[s, 1][ix], C + C.T, "M'"), ((E.C[s, 0] @ nu)[perm], C @ v, "C nu"),
                                ((E.Cbar[s, 0] @ nu)[perm], C @ v, "Cbar nu")):
            assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max(), f"{name} {what} {s}"


def test_rates_match_finite_differences_and_mdot_is_cbar_plus_transpose(legged):
    name, text, _, model = legged
    t = stencil_times([0.5, 1.4], H)
    traj, base, _, _ = floating_motion(text, model, t, 5, seed=4)
    foot = next(link for link in model.links if link.endswith("_end"))
    traj = Trajectory(traj.joint_names, traj.derivatives, t, Wrenches({foot: wrench_motion(t, 3)}),
                      base=base)
    E = matrices(model, traj, order=3)
    for field in ("M", "C", "Cbar", "g", "Q_ext"):
        assert_rates(getattr(E, field), H, 1e-8, f"{name} {field}")
    for k in range(3):
        Cb = E.Cbar[:, k]
        assert np.abs(E.M[:, k + 1] - Cb - np.swapaxes(Cb, 1, 2)).max() <= 1e-12 * np.abs(E.M[:, k + 1]).max()


def test_mimic_joints_project_the_joints_block_only(tmp_path):
    """A <mimic> joint follows its leader (``qd = G qd_c``): the API's floating matrices are
    over the root's twist and the independent joints, ``G'^T A G'`` with ``G' = diag(I_6,
    G)``, and with ``nu_c = (V_0; qd_c)`` give what the body-fixed recursion computes,
    ``M nu_c' + C nu_c + g = Cbar's = (-W_base; tau_c)``, and its first rate."""
    from dataclasses import replace

    from conftest import mimic_urdf, random_cosine
    from hodyn_cli import api
    from hodyn_cli.core import lie
    from hodyn_cli.core.trajectory import BaseMotion

    path = mimic_urdf(tmp_path, "gripper_arm", "finger_right_joint", "finger_left_joint", 0.5, 0.0)
    model = load_model(path)
    N, m = 5, len(model.coordinates)
    coords = random_cosine(model, np.linspace(0, 2, N), orders=4, seed=2)
    coords = Trajectory(model.coordinate_names, coords.derivatives[:, :, list(model.coordinates)],
                        coords.t)
    rng = np.random.default_rng(3)
    Rs = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                   for a in rng.normal(size=(N, 3))])
    traj = replace(coords, base=BaseMotion(Rs, rng.normal(size=(N, 3)), rng.normal(size=(N, 3, 6))))
    E = api.matrices(model, traj, order=1)
    ref = api.inverse_dynamics(model, traj, order=1, base_wrench=True)
    assert E.M.shape == (N, 6 + m, 6 + m) and E.joint_names[6:] == model.coordinate_names
    nu = np.concatenate([traj.base.Vb[:, :3], traj.derivatives[:, 1:4]], axis=2)  # nu_c, ', ''
    for k, (w, tau) in enumerate((("W", "tau"), ("Wd", "taud"))):
        expected = np.concatenate([-ref[w], ref[tau]], axis=1)
        scale = np.abs(expected).max()
        for C in ("C", "Cbar"):  # d/dt (M nu' + C nu) = M' nu' + C' nu + M nu'' + C nu'
            got = E["g_d" if k else "g"] + sum(
                (E[f"M{'_d' * j}"] @ nu[:, k - j + 1, :, None]
                 + E[f"{C}{'_d' * j}"] @ nu[:, k - j, :, None])[..., 0] for j in range(k + 1))
            assert np.abs(got - expected).max() <= 1e-10 * scale, (k, C)
