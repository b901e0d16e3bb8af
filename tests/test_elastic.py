"""Elastic-joint inverse dynamics (``hodyn elastic``) against physics built a second way.

* Rotors as bodies: a rigid Pinocchio model with one extra body per rotor (inertia
  ``I n n^T`` on a revolute joint about n on its carrier, taken off the carrier's inertia).
  With hodyn's theta as the rotor coordinates, ``pin.rnea`` gives u at the link joints and
  ``tau_m - u/r`` at the rotor joints.
* Every derivative column against finite differences along an analytic motion.
* Forward simulation of that Pinocchio model driven by hodyn's tau_m recovers q(t).
"""

import numpy as np
import pytest

from conftest import SAMPLES, URDF, random_cosine, stencil_derivative, wrench_motion
from hodyn_cli.algorithms.actuation import elastic
from hodyn_cli.algorithms.backends.numpy import elastic as numpy_elastic
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import Trajectory, Wrenches, cosine
from hodyn_cli.errors import HodynError
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.drives import drives_from_table, read_drives
from hodyn_cli.modeling.urdf import load_model, parse_model

pin = pytest.importorskip("pinocchio")

#: a spatial 3R arm (yaw, pitch, pitch) with real link inertias, for the simulation
ARM3 = """<robot name="arm3">
  <link name="base"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="l1"><inertial><origin xyz="0.01 0 0.05"/><mass value="3"/>
    <inertia ixx="0.02" ixy="0.001" ixz="0" iyy="0.02" iyz="0" izz="0.01"/></inertial></link>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0.05 0.1" rpy="0.1 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="l2"><inertial><origin xyz="0.15 0 0.01" rpy="0 0.2 0"/><mass value="2"/>
    <inertia ixx="0.005" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.3 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="l3"><inertial><origin xyz="0.12 0.01 0"/><mass value="1.2"/>
    <inertia ixx="0.002" ixy="0" ixz="0.0005" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
</robot>"""


def random_drives(model, seed=0, oblique=(), inertia=None):
    """Drives on every joint with random data; ``oblique`` joints get a tilted rotor axis."""
    rng = np.random.default_rng(seed)
    table = {}
    for j, name in enumerate(model.joint_names):
        entry = {"stiffness": float(rng.uniform(2e3, 8e3)),
                 "gear_ratio": float(rng.choice([-1, 1]) * rng.uniform(50, 160)),
                 "rotor_inertia": float(rng.uniform(2e-5, 1e-4) if inertia is None else inertia)}
        if j in oblique:
            entry["rotor_axis"] = rng.normal(size=3).tolist()
        table[name] = entry
    return drives_from_table(model, table)


def rotor_model(model, drives, urdf_text):
    """Pinocchio model of links + rotors as bodies; (pm, data, link order)."""
    pm = pin.buildModelFromXML(urdf_text)
    order = [model.joint_index(pm.names[j]) for j in range(1, pm.njoints)]
    pin_id = {model.joint_names[k]: j for j, k in zip(range(1, pm.njoints), order, strict=True)}
    for c in np.flatnonzero(drives.driven):
        p = model.parent[c]
        parent = 0 if p < 0 else pin_id[model.joint_names[p]]
        n = drives.rotor_axis[c]
        In = drives.rotor_inertia[c] * np.outer(n, n)
        jid = pm.addJoint(parent, pin.JointModelRevoluteUnaligned(n), pin.SE3.Identity(),
                          f"rotor_{model.joint_names[c]}")
        pm.appendBodyToJoint(jid, pin.Inertia(0.0, np.zeros(3), In), pin.SE3.Identity())
        if parent > 0:  # the URDF inertia of the carrier includes the rotor: take it off
            par = pm.inertias[parent].toDynamicParameters()
            par[4:] -= [In[0, 0], In[0, 1], In[1, 1], In[0, 2], In[1, 2], In[2, 2]]
            pm.inertias[parent] = pin.Inertia.FromDynamicParameters(par)
    return pm, pm.createData(), order


def pin_q(pm, values):
    """Pinocchio configuration from joint angles in pin's joint order (continuous: cos, sin)."""
    q = []
    for j, v in zip(range(1, pm.njoints), values, strict=True):
        q += [np.cos(v), np.sin(v)] if pm.joints[j].nq == 2 else [v]
    return np.array(q)


def rotor_rnea(pm, data, order, drives, traj, res, s, fext=None):
    """pin.rnea of the rotors-as-bodies model: (u, tau_m - u/r) in hodyn's joint order."""
    nl, rotors = len(order), np.flatnonzero(drives.driven)
    theta = [res.theta[s, k, rotors] for k in range(3)]
    qs = [np.concatenate([traj.derivatives[s, k, order], theta[k]]) for k in range(3)]
    args = (pm, data, pin_q(pm, qs[0]), qs[1], qs[2]) + (() if fext is None else (fext,))
    tau = pin.rnea(*args)
    u = np.empty(len(order))
    u[order] = tau[:nl]
    motor = np.full(len(order), np.nan)
    motor[rotors] = tau[nl:]
    return u, motor


CASES = {
    # chain, oblique rotor on joint 3, alternating gear signs; gravity along a tilted axis
    "iiwa14": (URDF / "iiwa14.urdf", lambda m: random_drives(m, 1, oblique=(2,)), (1.0, -2.0, -9.0)),
    # tree, prismatic stage, rotor axis given in a link merged by a fixed joint, a rigid joint
    "gripper_arm": (URDF / "gripper_arm.urdf",
                    lambda m: read_drives(URDF / "gripper_arm_drives.toml", m), (0, 0, -9.81)),
    "planar_2r": (URDF / "planar_2r.urdf",
                  lambda m: read_drives(URDF / "planar_2r_drives.toml", m), (0, 0, -9.81)),
}


@pytest.mark.parametrize("case", CASES)
def test_rotors_as_bodies_in_pinocchio(case):
    path, make_drives, gravity = CASES[case]
    model = load_model(path)
    drives = make_drives(model)
    req = elastic.requirements(model, drives, 0)
    # exactly the orders the analysis asks for: a too optimistic analysis fails here
    traj = random_cosine(model, np.linspace(0, 3, 9), orders=req.q_order, seed=4)
    res = elastic.inverse_dynamics(model, traj, drives, order=0, gravity=gravity)
    pm, data, order = rotor_model(model, drives, path.read_text())
    pm.gravity = pin.Motion(np.array(gravity, dtype=float), np.zeros(3))
    r = np.where(drives.driven, drives.gear_ratio, np.nan)
    for s in range(traj.n_samples):
        u, motor = rotor_rnea(pm, data, order, drives, traj, res, s)
        ours_motor = res.taum[s, 0] - res.u[s, 0] / r
        assert np.allclose(res.u[s, 0], u, rtol=0, atol=1e-10 * np.abs(u).max()), (case, s)
        d = drives.driven
        scale = np.abs(res.taum[:, 0, d]).max()
        assert np.allclose(ours_motor[d], motor[d], rtol=0, atol=1e-10 * scale), (case, s)
    undriven = ~drives.driven
    assert np.array_equal(res.taum[:, 0, undriven], res.u[:, 0, undriven])
    assert np.array_equal(res.theta[:, :, undriven], traj.derivatives[:, :3, undriven])


@pytest.mark.parametrize("case, link", [("iiwa14", "iiwa_link_ee"), ("gripper_arm", "tool0")])
def test_external_wrench_in_the_rotor_model(case, link):
    path, make_drives, gravity = CASES[case]
    model = load_model(path)
    drives = make_drives(model)
    req = elastic.requirements(model, drives, 0)
    t = np.linspace(0, 3, 7)
    base = random_cosine(model, t, orders=req.q_order, seed=8)
    W = wrench_motion(t, req.q_order - 2)  # the rigid part runs to order q_order - 2
    traj = Trajectory(base.joint_names, base.derivatives, t, Wrenches({link: W}))
    res = elastic.inverse_dynamics(model, traj, drives, order=0, gravity=gravity)
    pm, data, order = rotor_model(model, drives, path.read_text())
    pm.gravity = pin.Motion(np.array(gravity, dtype=float), np.zeros(3))
    frame = model.links[link]
    Wb = W[:, 0] @ lie.Ad_inv(frame.T[:3, :3], frame.T[:3, 3])  # in the body (joint) frame
    jid = pm.getJointId(model.joint_names[frame.body])
    for s in range(len(t)):
        forces = [pin.Force.Zero() for _ in range(pm.njoints)]
        forces[jid] = pin.Force(-Wb[s, 3:], -Wb[s, :3])  # fext acts ON the body: -W
        u, motor = rotor_rnea(pm, data, order, drives, traj, res, s, forces)
        assert np.allclose(res.u[s, 0], u, rtol=0, atol=1e-10 * np.abs(u).max()), s
        d = drives.driven
        ours = (res.taum[s, 0] - res.u[s, 0] / np.where(d, drives.gear_ratio, 1.0))[d]
        assert np.allclose(ours, motor[d], rtol=0, atol=1e-10 * np.abs(res.taum[:, 0, d]).max())
    plain = elastic.inverse_dynamics(model, base, drives, order=0, gravity=gravity)
    assert np.abs(plain.taum - res.taum).max() > 1e-3  # the wrench did something



@pytest.mark.parametrize("case", ["iiwa14", "gripper_arm"])
@pytest.mark.parametrize("kind", elastic.MODELS)
def test_every_derivative_by_finite_differences(case, kind):
    path, make_drives, gravity = CASES[case]
    model = load_model(path)
    drives = make_drives(model)
    K = 2
    req = elastic.requirements(model, drives, K, kind)
    h = 2e-3
    for t0 in (0.3, 1.7):
        t = t0 + h * np.arange(-4, 5)
        traj = random_cosine(model, t, orders=req.q_order, seed=7)
        res = elastic.inverse_dynamics(model, traj, drives, order=K, kind=kind, gravity=gravity)
        for name in ("u", "theta", "taum"):
            value = getattr(res, name)
            for k in range(1, value.shape[1]):
                fd = stencil_derivative(value[:, k - 1], h)
                exact = value[4, k]
                scale = np.abs(value[:, k]).max() + 1e-300
                err = np.abs(fd - exact).max() / scale
                assert err < 1e-7, f"{case} {kind} {name} order {k}: {err:.2e}"


def test_reflected_is_the_rigid_torque_of_an_independent_method():
    model = load_model(URDF / "iiwa14.urdf")
    drives = read_drives(URDF / "iiwa14_drives.toml", model)
    traj = random_cosine(model, np.linspace(0, 2, 11), orders=6, seed=2)
    res = elastic.inverse_dynamics(model, traj, drives, order=2, kind="reflected")
    tau = inverse_dynamics(model, traj, method="spatial", order=4)
    assert np.allclose(res.u, tau, rtol=0, atol=1e-10 * np.abs(tau).max())
    theta_dd = drives.gear_ratio * (traj.derivatives[:, 2:5] + tau[:, 2:5] / drives.stiffness)
    taum = tau[:, :3] / drives.gear_ratio + drives.rotor_inertia * theta_dd
    assert np.allclose(res.taum, taum, rtol=1e-12, atol=1e-12)


def test_full_differs_from_reflected_only_through_the_rotors():
    model = load_model(URDF / "iiwa14.urdf")
    drives = read_drives(URDF / "iiwa14_drives.toml", model)
    req = elastic.requirements(model, drives, 0)
    traj = random_cosine(model, np.linspace(0, 2, 11), orders=req.q_order, seed=3)
    full = elastic.inverse_dynamics(model, traj, drives, order=0)
    refl = elastic.inverse_dynamics(model, traj, drives, order=0, kind="reflected")
    diff = np.abs(full.taum[:, 0] - refl.taum[:, 0]).max(axis=0)
    coupled = req.accel.any(axis=1) | req.speed.any(axis=1)
    assert coupled[:5].all()
    assert (diff[coupled] > 1e-4 * np.abs(refl.taum).max()).all(), diff
    massless = drives_from_table(model, {
        j: {"stiffness": float(drives.stiffness[i]), "gear_ratio": float(drives.gear_ratio[i]),
            "rotor_inertia": 0.0} for i, j in enumerate(model.joint_names)})
    full0 = elastic.inverse_dynamics(model, traj, massless, order=0)
    refl0 = elastic.inverse_dynamics(model, traj, massless, order=0, kind="reflected")
    for name in ("u", "theta", "taum"):
        a, b = getattr(full0, name), getattr(refl0, name)
        assert np.allclose(a, b, rtol=0, atol=1e-11 * np.abs(b).max()), name


def chain_urdf(axes):
    """A serial chain whose joint k turns about ``axes[k]`` (in its parent's frame)."""
    parts = ['<robot name="chain"><link name="l0"/>']
    for k, axis in enumerate(axes, start=1):
        parts.append(
            f'<joint name="j{k}" type="revolute"><parent link="l{k - 1}"/><child link="l{k}"/>'
            f'<origin xyz="0 0.1 0.2"/><axis xyz="{axis}"/>'
            '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>'
            f'<link name="l{k}"><inertial><origin xyz="0.02 0.05 0.1"/><mass value="1"/>'
            '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.005"/></inertial></link>')
    parts.append("</robot>")
    return "\n".join(parts)


def test_required_orders_follow_the_axes():
    parallel = parse_model(chain_urdf(["0 0 1"] * 7).encode())
    orthogonal = parse_model(chain_urdf(["0 0 1", "0 1 0"] * 3 + ["0 0 1"]).encode())
    for model in (parallel, orthogonal):
        drives = random_drives(model)
        for K in (0, 2):
            req = elastic.requirements(model, drives, K)
            if model is parallel:  # the general case: 2N + 2 derivatives of q (sec. III)
                assert req.q_order == K + 2 * model.n + 2
                assert req.u_orders.tolist() == [K + 2 + 2 * k for k in range(model.n)]
                assert not req.speed.any()  # parallel axes: no gyroscopic coupling
            else:
                assert req.q_order < K + 2 * model.n + 2
    iiwa = load_model(URDF / "iiwa14.urdf")
    req = elastic.requirements(iiwa, read_drives(URDF / "iiwa14_drives.toml", iiwa), 0)
    assert req.q_order == 10 and req.u_orders.tolist() == [2, 2, 4, 5, 6, 7, 8]
    assert not req.accel[np.arange(6), np.arange(1, 7)].any()  # consecutive axes orthogonal
    assert req.speed[2, 3] and not req.accel[2, 3]  # ... but the gyroscopic term remains
    reflected = elastic.requirements(iiwa, read_drives(URDF / "iiwa14_drives.toml", iiwa), 0,
                                     "reflected")
    assert reflected.q_order == 4


def test_missing_derivatives_are_named():
    model = load_model(URDF / "iiwa14.urdf")
    drives = read_drives(URDF / "iiwa14_drives.toml", model)
    traj = random_cosine(model, np.linspace(0, 1, 3), orders=9)
    with pytest.raises(HodynError, match="needs q up to qdddddddddd, the trajectory has up to "
                                         "qddddddddd"):
        elastic.inverse_dynamics(model, traj, drives)


def _interpolant(f, a, b, n=48):
    """Chebyshev interpolant of f: (times) -> (len, m) on [a, b] (spectral accuracy)."""
    from scipy.interpolate import BarycentricInterpolator

    x = np.cos(np.pi * (2 * np.arange(n) + 1) / (2 * n))
    t = a + (b - a) * (x + 1) / 2
    return BarycentricInterpolator(t, f(t))


ARM3_DRIVES = {
    "j1": {"stiffness": 3000.0, "gear_ratio": 100.0, "rotor_inertia": 1e-4},
    "j2": {"stiffness": 3000.0, "gear_ratio": -80.0, "rotor_inertia": 1e-4},
    "j3": {"stiffness": 1500.0, "gear_ratio": 60.0, "rotor_inertia": 2e-4,
           "rotor_axis": [0.3, 0.6, 0.74]}}
ARM3_MOTION = dict(amplitude=[0.8, 0.5, 0.7], omega=[2.0, 3.0, 2.5], phase=[0.1, 0.7, 1.3],
                   offset=[0.0, 0.3, -0.4])


def simulate(kind="full", scale=1.0, T=1.0):
    """Integrate the rotors-as-bodies model of ARM3 driven by hodyn's tau_m (of ``kind``,
    times ``scale``) from the consistent initial state; (max q error, max theta error)."""
    from scipy.integrate import solve_ivp

    model = parse_model(ARM3.encode())
    drives = drives_from_table(model, ARM3_DRIVES)
    req = elastic.requirements(model, drives, 0)
    assert req.accel.any() and req.speed.any()

    def solve(t, kind="full"):
        traj = cosine(model.joint_names, np.atleast_1d(t), orders=req.q_order, **ARM3_MOTION)
        return traj, elastic.inverse_dynamics(model, traj, drives, order=0, kind=kind)

    taum = _interpolant(lambda t: scale * solve(t, kind)[1].taum[:, 0], 0.0, T)
    check = np.linspace(0, T, 37)
    exact = scale * solve(check, kind)[1].taum[:, 0]
    assert np.abs(taum(check) - exact).max() < 1e-9  # the interpolated input is exact

    pm, data, order = rotor_model(model, drives, ARM3)
    assert order == [0, 1, 2]
    r, Ks = drives.gear_ratio, drives.stiffness

    def rhs(t, x):
        q, theta, v = x[:3], x[3:6], x[6:]
        u = Ks * (theta / r - q)
        tau = np.concatenate([u, taum(t) - u / r])
        return np.concatenate([v, pin.aba(pm, data, x[:6], v, tau)])

    traj0, res0 = solve(0.0)
    x0 = np.concatenate([traj0.q[0], res0.theta[0, 0], traj0.qd[0], res0.theta[0, 1]])
    sol = solve_ivp(rhs, (0, T), x0, method="DOP853", rtol=1e-12, atol=1e-12, dense_output=True)
    assert sol.success
    t = np.linspace(0, T, 101)
    traj, res = solve(t)
    x = sol.sol(t)
    return (np.abs(x[:3].T - traj.q).max(),
            np.abs(x[3:6].T - res.theta[:, 0]).max() / np.abs(r).max())


def test_forward_simulation_recovers_the_motion():
    q_err, theta_err = simulate()
    assert q_err < 1e-6 and theta_err < 1e-6, (q_err, theta_err)


@pytest.mark.parametrize("kind, scale", [("reflected", 1.0), ("full", 1 + 1e-5)])
def test_forward_simulation_notices_a_wrong_motor_torque(kind, scale):
    q_err, _ = simulate(kind, scale)
    assert q_err > 1e-5, q_err


def test_compact_high_order_samples_match_the_cosine_files():
    model = load_model(URDF / "iiwa14.urdf")
    high = read_trajectory(str(SAMPLES / "iiwa14_cosine_high.h5"), model, need=17)
    low = read_trajectory(str(SAMPLES / "iiwa14_cosine.csv"), model, need=7)
    assert isinstance(high, Trajectory) and high.orders == 17
    assert np.allclose(high.derivatives[:, :7], low.derivatives, rtol=0, atol=1e-12)
    assert np.array_equal(high.t, low.t)


@pytest.mark.kernel
@pytest.mark.parametrize("case", CASES)
def test_elastic_kernel_equals_numpy_reference(case, lanes):
    """The compiled full model against numpy_elastic.solve_full at every lane width, an odd sample
    count, with wrenches and a root moving per sample, torque orders 0 and 1."""
    from hodyn_cli.algorithms import backends

    path, make_drives, _ = CASES[case]
    model = load_model(path)
    drives = make_drives(model)
    t = np.linspace(0, 2, 9)
    for order in (0, 1):
        req = elastic.requirements(model, drives, order)
        R = int(req.u_orders.max())
        qs = random_cosine(model, t, orders=R + 2, seed=4).derivatives
        W = {model.n - 1: wrench_motion(t, R)}
        base = np.random.default_rng(5).normal(size=(len(t), R + 2, 6))
        backend, data = backends.prepare(model)
        ours = backend.elastic(model, data, drives, req, qs, base, W, order)
        ref = numpy_elastic.solve_full(model, drives, req, qs, base, W, order)
        for a, b, what in zip(ours, ref, ("u", "theta", "taum"), strict=True):
            assert a.shape == b.shape, what
            assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max(), (case, order, what, lanes)


def test_a_job_probes_the_robot_once_for_all_its_chunks(monkeypatch):
    """The requirements probe the robot: the job's Data keeps them (found on its first ask:
    the job's input needs), so its chunks find none again; the chunks give the numbers of one
    call on the whole motion."""
    from hodyn_cli.core.trajectory import derivative_name
    from hodyn_cli.pipeline.jobs import ElasticJob

    model = load_model(URDF / "iiwa14.urdf")
    drives = read_drives(URDF / "iiwa14_drives.toml", model)
    traj = random_cosine(model, np.linspace(0, 2, 30), orders=14, seed=3)
    whole = elastic.inverse_dynamics(model, traj, drives, order=1)
    found = []
    probe = elastic.requirements
    monkeypatch.setattr(elastic, "requirements", lambda *a: found.append(a[2:]) or probe(*a))
    job = ElasticJob(model, drives, order=1)
    assert job.need == whole.requirements.q_order + 1
    for rows in (slice(0, 12), slice(12, 30)):
        out = job(Trajectory(traj.joint_names, traj.derivatives[rows]))
        assert np.array_equal(out[derivative_name("taum", 1)], whole.taum[rows, 1])
    assert found == [(1, "full")]
