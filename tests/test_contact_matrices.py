"""The equations of motion on contacts: the contact Jacobian and Q_ext with the contacts.

``Jc nu`` is each contact's velocity (a point's in world axes from the link's twist and
pose, a sole's body twist); its derivatives by finite differences; ``M nu' + C nu + g + Q_ext
= (-W; tau)`` at every order with the contact torques and base wrench left over of
:func:`on_contacts`; ``Q_ext`` with the contacts minus without them is ``-Jc^T Fc`` at every
order (Leibniz).
"""

from math import comb

import numpy as np

from conftest import assert_rates, floating_motion, legged_urdf, stencil_times
from hodyn_cli import api
from hodyn_cli.algorithms.contacts.dynamics import on_contacts, with_contacts
from hodyn_cli.algorithms.contacts.jacobians import contact_jacobian
from hodyn_cli.algorithms.dynamics import closed_form, floating
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.core import lie
from hodyn_cli.modeling.contacts import contacts_from_table
from hodyn_cli.modeling.urdf import load_model

H = 0.0025


def setup(tmp_path, seed=1):
    text = legged_urdf("talos", seed=seed)
    path = tmp_path / "talos.urdf"
    path.write_text(text)
    model = load_model(path)
    contacts = contacts_from_table(model, {
        "left": {"link": "limb0_end", "type": "surface", "sole": [0.2, 0.1], "friction": 0.7,
                 "rpy": [0.2, 0.0, -0.4], "position": [0.01, 0.0, -0.02]},
        "hand": {"link": "limb3_end", "type": "point", "friction": 0.5,
                 "position": [0.0, 0.02, -0.05], "normal": [0.0, 1.0, 1.0]}})
    return text, model, contacts


def test_the_contact_jacobian_gives_the_contact_velocities(tmp_path):
    text, model, contacts = setup(tmp_path)
    traj = floating_motion(text, model, np.linspace(0, 1, 6), 4, seed=3)[0]
    nu = np.concatenate([traj.base.Vb[:, 0], traj.qd], axis=1)
    for c in contacts:
        J = contact_jacobian(model, traj, c, order=0)[:, 0]
        lk = link_kinematics(model, traj, c.link, order=0)
        if c.kind == "point":
            r = lk.R @ c.T[:3, 3]
            ref = lk.pd[:, 0] + np.cross(lk.Vs[:, 0, :3], r)   # the point's velocity, world
        else:
            ref = lk.Vb[:, 0] @ lie.Ad_inv(c.T[:3, :3], c.T[:3, 3]).T   # the sole's body twist
        ours = np.einsum("nij,nj->ni", J, nu)
        assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max(), c.name


def test_its_derivatives_by_finite_differences(tmp_path):
    text, model, contacts = setup(tmp_path, seed=2)
    traj = floating_motion(text, model, stencil_times([0.3, 0.8], H), 5, seed=4)[0]
    for c in contacts:
        J = contact_jacobian(model, traj, c, order=3)
        assert_rates(J.reshape(*J.shape[:2], -1), H, 1e-8, c.name)


def test_the_equations_of_motion_on_contacts(tmp_path):
    """``M nu' + C nu + g + Q_ext = (-W; tau)`` at orders 0-2, and ``Q_ext`` gains ``-Jc^T
    Fc``; the API's fields are these."""
    text, model, contacts = setup(tmp_path, seed=3)
    traj = floating_motion(text, model, np.linspace(0, 1, 5), 5, seed=5)[0]
    K = 2
    r = on_contacts(model, traj, contacts, order=K)
    E = floating.matrices(model, with_contacts(model, traj, contacts, r.wrenches, K), order=K)
    nu = np.concatenate([traj.base.Vb[:, : K + 2], traj.derivatives[:, 1 : K + 3]], axis=2)
    out = closed_form.generalized_forces(E, nu)
    scale = np.abs(r.tau).max()
    assert np.abs(out[..., 6:] - r.tau).max() <= 1e-10 * scale
    assert np.abs(out[..., :6] + r.W).max() <= 1e-10 * scale
    assert np.abs(r.W).max() <= 1e-10 * scale          # a sole carries it all
    Jc = np.concatenate([contact_jacobian(model, traj, c, K) for c in contacts], axis=2)
    Fc = np.concatenate([r.wrenches[c.name] for c in contacts], axis=2)
    for k in range(K + 1):
        JtF = sum(comb(k, j) * np.einsum("nij,ni->nj", Jc[:, j], Fc[:, k - j]) for j in range(k + 1))
        assert np.abs(E.Q_ext[:, k] + JtF).max() <= 1e-10 * np.abs(JtF).max(), k
    res = api.contact_matrices(model, contacts, traj, order=K)
    assert np.array_equal(res.Q_ext_dd, E.Q_ext[:, 2]) and np.array_equal(res.Jc_d, Jc[:, 1])
    assert np.array_equal(res.Fc, Fc[:, 0]) and res.joint_names[:6] == ("base_wx", "base_wy",
                                                                          "base_wz", "base_vx",
                                                                          "base_vy", "base_vz")


def test_matrices_chunks_are_sized_by_their_output_width(tmp_path):
    """``hodyn matrices``' chunk holds what its job writes per sample (M, C, Cbar, g, Q_ext;
    on a floating base 6 + nv wide; on contacts Jc and Fc too) within CHUNK_BYTES and not
    under 90 % of it: a floating base and then its contacts shrink the chunk (the fixed
    base's rows for them held 2-3 times the bytes)."""
    from dataclasses import replace

    from hodyn_cli.pipeline.jobs import CHUNK_BYTES, MatricesJob

    text, model, contacts = setup(tmp_path, seed=5)
    traj = floating_motion(text, model, np.linspace(0, 1, 3), 4, seed=6)[0]
    jobs = [(MatricesJob(model, order=2), replace(traj, base=None)),
            (MatricesJob(model, order=2, floating_base=True), traj),
            (MatricesJob(model, order=2, floating_base=True, contacts=contacts), traj)]
    for job, chunk in jobs:
        out = job(chunk)
        width = sum(v.size for name, v in out.items() if name != "t") / chunk.n_samples
        assert 0.9 * CHUNK_BYTES <= job.chunk_rows * 8 * width <= CHUNK_BYTES, (job, width)
    rows = [job.chunk_rows for job, _ in jobs]
    assert rows[0] > rows[1] > rows[2], rows
