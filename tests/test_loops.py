"""Closed loops (docs/loops.md) on the planar four-bar: Pinocchio's constraint dynamics driven
by hodyn's actuated torque reproduces the motion and hodyn's constraint force; the passive
joints' derivatives are the differences of Newton's positions; the power balance; the
torques' and forces' derivatives by 8th-order differences; a parallelogram is its mimic
coupling; the one-line errors and the command line."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import (
    SAMPLES,
    STENCIL,
    STENCIL2,
    URDF,
    assert_rates,
    stencil_derivative,
    stencil_times,
    without_G_rates,
)
from hodyn_cli import api
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError

LOOPS = URDF / "fourbar_loops.toml"
H = 1e-3


def fourbar_urdf(a, b, c, d, mimic=False) -> str:
    """A planar four-bar (xz plane, axes y) as an open tree: crank (length a) and rocker (c)
    on the ground at x = 0 and x = d, the coupler (b) on the crank's end; with ``mimic`` the
    coupler and rocker follow the crank as a parallelogram's do (q_coupler = -q_crank,
    q_rocker = q_crank)."""
    def link(name, length, mass):
        i = mass * length**2 / 12
        return (f'<link name="{name}"><inertial><origin xyz="{length / 2} 0 0"/><mass '
                f'value="{mass}"/><inertia ixx="{mass * 1e-4}" ixy="0" ixz="0" iyy="{i}" '
                f'iyz="0" izz="{i}"/></inertial></link>')

    def joint(name, parent, child, x, follow=None):
        tag = "" if follow is None else f'<mimic joint="crank" multiplier="{follow}"/>'
        return (f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child '
                f'link="{child}"/><origin xyz="{x} 0 0"/><axis xyz="0 1 0"/><limit lower="-10" '
                f'upper="10" effort="100" velocity="20"/>{tag}</joint>')

    return ('<robot name="fourbar"><link name="ground"/>'
            + joint("crank", "ground", "crank_link", 0) + link("crank_link", a, 1.0)
            + joint("coupler", "crank_link", "coupler_link", a, -1 if mimic else None)
            + link("coupler_link", b, 0.8)
            + joint("rocker", "ground", "rocker_link", d, 1 if mimic else None)
            + link("rocker_link", c, 0.6) + "</robot>")


def crank(t: np.ndarray, orders: int, amplitude=1.2, w=2.0, offset=0.3) -> Trajectory:
    """q_crank = offset + amplitude sin(w t) and its derivatives."""
    qs = np.stack([amplitude * w**k * np.sin(w * t + k * np.pi / 2) + (offset if k == 0 else 0)
                   for k in range(orders)], axis=1)[:, :, None]
    return Trajectory(("crank",), qs, t)


@pytest.fixture(scope="module")
def fourbar():
    tree = api.load_robot(URDF / "fourbar.urdf")
    return tree, api.close_loops(tree, LOOPS)


#: the bundled mechanisms: robot (and its loops file), the cut's two points (link, position
#: in it), and a motion of the actuated joints (cosine: offset, amplitude, omega per joint)
MECHANISMS = {
    "four-bar": ("fourbar", ("coupler_link", [0.35, 0, 0]), ("rocker_link", [0.3, 0, 0]),
                 ([0.3], [1.2], [2.0])),
    "five-bar": ("fivebar", ("left_distal", [0.3, 0, 0]), ("right_distal", [0.3, 0, 0]),
                 ([-2.0, -1.1], [0.3, 0.25], [2.0, 3.0])),
    "leg with a four-bar knee": ("leg_fourbar_knee", ("knee_rod_link", [0, 0, -0.3]),
                                 ("shank", [0.06, 0, 0]), ([0.0, -0.5], [0.3, 0.4], [2.0, 3.0])),
}


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_pinocchio_constraint_dynamics_reproduces_the_motion_and_the_force(name):
    """pin.constraintDynamics (a CONTACT_3D between the same two points) with hodyn's
    actuated torques and no passive torque: every joint's acceleration, and its contact force
    (frame 1's axes) turned to the root's is hodyn's Fl (unique in the plane; the out-of-plane
    row is the redundant one: 0 at minimum norm, as Pinocchio's proximal solution)."""
    from hodyn_cli.core.trajectory import cosine

    pin = pytest.importorskip("pinocchio")
    robot, (link_a, xa), (link_b, xb), (offset, amplitude, omega) = MECHANISMS[name]
    tree = api.load_robot(URDF / f"{robot}.urdf")
    closed = api.close_loops(tree, URDF / f"{robot}_loops.toml")
    tr = cosine(closed.coordinate_names, np.linspace(0.0, 3.0, 7), amplitude=amplitude,
                omega=omega, offset=offset, phase=[0.0, 0.5][: len(offset)], orders=4)
    r = api.inverse_dynamics(closed, tr, order=0)
    full = closed.coupling.expand(tr)
    pm = pin.buildModelFromUrdf(str(URDF / f"{robot}.urdf"))
    order = [tree.joint_index(pm.names[j]) for j in range(1, pm.njoints)]
    data = pm.createData()
    fa, fb = pm.frames[pm.getFrameId(link_a)], pm.frames[pm.getFrameId(link_b)]
    pa = fa.placement * pin.SE3(np.eye(3), np.array(xa, dtype=float))
    pb = fb.placement * pin.SE3(np.eye(3), np.array(xb, dtype=float))
    models, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    models.append(pin.RigidConstraintModel(pin.ContactType.CONTACT_3D, pm, fa.parentJoint, pa,
                                           fb.parentJoint, pb, pin.ReferenceFrame.LOCAL))
    datas.append(models[0].createData())
    pin.initConstraintDynamics(pm, data, models, datas)
    prox = pin.ProximalSettings(1e-14, 1e-12, 100)
    actuated = list(closed.actuated)
    for s in range(tr.n_samples):
        q, v = full.q[s, order], full.qd[s, order]
        tau = np.zeros(tree.n)
        tau[actuated] = r.tau[s]
        a = pin.constraintDynamics(pm, data, q, v, tau[order], models, datas, prox)
        assert np.abs(a - full.qdd[s, order]).max() <= 1e-9 * np.abs(full.qdd[s]).max()
        pin.forwardKinematics(pm, data, q)
        force = (data.oMi[fa.parentJoint] * pa).rotation @ data.lambda_c
        assert np.abs(force - r.Fl[s]).max() <= 1e-9 * np.abs(r.Fl[s]).max()
    assert len(api.loop_components(closed)) == 3
    assert np.abs(r.Fl[:, 1]).max() == 0.0 and np.abs(r.Fl).max() > 1.0


def test_passive_derivatives_are_the_differences_of_newton_positions(fourbar):
    """q_p' and q_p'' at the stencil's centre against the 8th-order differences of the
    positions Newton finds at nearby times; every order against the differences of the one
    below (the implicit function theorem, order by order)."""
    _, closed = fourbar
    t = stencil_times([0.2, 1.4, 2.5], H)
    c = closed.coupling
    full = c.expand(crank(t, 6))
    newton = c.phi(full.q[:, :1]).reshape(3, 9, 3)
    assert np.abs(newton.reshape(-1, 3) - full.q).max() <= 1e-12
    q1 = np.tensordot(STENCIL, newton, axes=(0, 1)) / H
    q2 = np.tensordot(STENCIL2, newton, axes=(0, 1)) / H**2
    centre = full.derivatives.reshape(3, 9, 6, 3)[:, 4]
    assert np.abs(q1 - centre[:, 1]).max() <= 1e-9 * np.abs(centre[:, 1]).max()
    assert np.abs(q2 - centre[:, 2]).max() <= 1e-6 * np.abs(centre[:, 2]).max()
    assert_rates(full.derivatives, H, 1e-8, "q_full")
    G = c.jacobian(full.q[:, :1])      # G q_a' = q_full'
    assert np.abs((G @ full.qd[:, :1, None])[..., 0] - full.qd).max() <= 1e-12


def test_power_balance_and_the_derivatives_by_differences(fourbar):
    """tau_a qd_a = d/dt (kinetic + potential energy) of the closed motion (M and the centre
    of mass of the tree, no loop machinery), and tau_a', tau_a'', Fl', Fl'' against the
    8th-order differences of the order below."""
    from hodyn_cli.algorithms.dynamics.closed_form import matrices
    from hodyn_cli.algorithms.motion.momentum import centroidal

    tree, closed = fourbar
    t = stencil_times([0.3, 1.1, 2.0], H)
    tr = crank(t, 5)
    r = api.inverse_dynamics(closed, tr, order=2)
    full = closed.coupling.expand(tr)
    joints = Trajectory(tree.joint_names, full.derivatives[:, :3], t)
    M = matrices(tree, joints, order=0).M[:, 0]
    kinetic = 0.5 * np.einsum("si,sij,sj->s", full.qd, M, full.qd)
    com = centroidal(tree, Trajectory(tree.joint_names, full.derivatives[:, :2], t), order=0)
    energy = (kinetic + com.mass * 9.81 * com.com[:, 0, 2]).reshape(3, 9)
    power = (r.tau[:, 0] * tr.qd[:, 0]).reshape(3, 9)[:, 4]
    dE = stencil_derivative(energy.T, H)
    assert np.abs(power - dE).max() <= 1e-10 * np.abs(dE).max()
    assert_rates(np.stack([r.tau, r.taud, r.taudd], axis=1), H, 1e-8, "tau_a")
    assert_rates(np.stack([r.Fl, r.Fld, r.Fldd], axis=1)[..., ::2], H, 1e-8, "Fl")


def test_a_parallelogram_is_its_mimic_coupling(tmp_path):
    """Crank and rocker of equal length, coupler as long as the ground: the rocker turns with
    the crank and the coupler against it, the mimic coupling q = (s, -s, s); the loop's
    torques (order 2) are the mimic robot's."""
    (tmp_path / "p.urdf").write_text(fourbar_urdf(0.2, 0.4, 0.2, 0.4))
    (tmp_path / "m.urdf").write_text(fourbar_urdf(0.2, 0.4, 0.2, 0.4, mimic=True))
    closed = api.close_loops(api.load_robot(tmp_path / "p.urdf"), {
        "actuated": ["crank"], "guess": {"crank": 1.0, "coupler": -1.0, "rocker": 1.0},
        "loops": {"p": {"type": "point", "a": {"link": "coupler_link", "xyz": [0.4, 0, 0]},
                        "b": {"link": "rocker_link", "xyz": [0.2, 0, 0]},
                        "components": ["x", "z"]}}})
    mimic = api.load_robot(tmp_path / "m.urdf")
    tr = crank(np.linspace(0.0, 2.0, 11), 5, amplitude=0.5, offset=1.0)
    ours, theirs = (api.inverse_dynamics(m, tr, order=2) for m in (closed, mimic))
    for name in ("tau", "taud", "taudd"):
        assert np.abs(ours[name] - theirs[name]).max() <= 1e-10 * np.abs(theirs[name]).max()
    assert "2 constraint rows, 2 independent;" in api.loop_summary(closed)


def test_a_singular_sample_is_named(tmp_path):
    """The parallelogram folds flat at q_crank = 0: the passive joints' Jacobian loses rank."""
    (tmp_path / "p.urdf").write_text(fourbar_urdf(0.2, 0.4, 0.2, 0.4))
    closed = api.close_loops(api.load_robot(tmp_path / "p.urdf"), {
        "actuated": ["crank"], "guess": {"crank": 1.0, "coupler": -1.0, "rocker": 1.0},
        "loops": {"p": {"type": "point", "a": {"link": "coupler_link", "xyz": [0.4, 0, 0]},
                        "b": {"link": "rocker_link", "xyz": [0.2, 0, 0]}}}})
    tr = crank(np.linspace(0.0, 1.0, 11), 3, amplitude=1.0, offset=0.0, w=np.pi / 2)
    with pytest.raises(HodynError, match=r"^sample 0 \(t = 0 s\): a singular configuration"):
        api.inverse_dynamics(closed, tr, order=0)


@pytest.mark.parametrize("text, change, message", [
    ('actuated = ["crank"]\n', ("type", 'components = ["x"]\ntype'), "the loops leave 2 "
     "independent coordinate(s) (1 constraint rows, 1 independent) but 'actuated' names 1 "
     "joint(s)"),
    ('actuated = ["knee"]\n', ("", ""), "'actuated': the model has no moving joint 'knee'"),
    ('actuated = ["crank"]\n', ("[0.3, 0.0, 0.0]", "[3.0, 0.0, 0.0]"),
     "the loops do not close from [guess]"),
    ('actuated = ["crank"]\nspeed = 1\n', ("", ""), "unknown top-level key 'speed'"),
    ('actuated = ["crank"]\n', ("point", "line"), "loop 'knee': 'type' must be point or frame"),
])
def test_mistakes_are_one_line_naming_the_file(tmp_path, text, change, message):
    body = LOOPS.read_text().split("[loops.knee]")[1].replace(*change)
    text += "[guess]\ncoupler = -1.0\nrocker = -1.8\n"
    path = tmp_path / "l.toml"
    path.write_text(text + "[loops.knee]" + body)
    result = CliRunner().invoke(app, ["compute", str(URDF / "fourbar.urdf"),
                                      str(SAMPLES / "fourbar_crank.csv"), "--loops", str(path),
                                      "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"hodyn: error: {path}: {message}")
    assert result.stderr.count("\n") == 1 and not (tmp_path / "o.csv").exists()


def test_compute_writes_the_actuated_torques_and_the_constraint_forces(tmp_path, fourbar):
    out = tmp_path / "o.csv"
    result = CliRunner().invoke(app, ["compute", str(URDF / "fourbar.urdf"),
                                      str(SAMPLES / "fourbar_crank.csv"), "--loops", str(LOOPS),
                                      "--order", "1", "-o", str(out)])
    assert result.exit_code == 0, result.output
    header = out.read_text().splitlines()[0].split(",")
    assert header == ["t", "tau_crank", "taud_crank", "Fl_knee_fx", "Fl_knee_fy", "Fl_knee_fz",
                      "Fld_knee_fx", "Fld_knee_fy", "Fld_knee_fz"]
    _, closed = fourbar
    from hodyn_cli.io import read_trajectory

    tr = read_trajectory(str(SAMPLES / "fourbar_crank.csv"), closed, need=3)
    r = api.inverse_dynamics(closed, tr, order=1)
    written = np.loadtxt(out, delimiter=",", skiprows=1)
    assert np.allclose(written[:, 1], r.tau[:, 0], rtol=1e-12, atol=1e-12)
    assert np.allclose(written[:, 3:6], r.Fl, rtol=1e-12, atol=1e-12)
    h5 = tmp_path / "o.h5"   # its provenance names the loops file (and says nothing of a Y)
    result = CliRunner().invoke(app, ["compute", str(URDF / "fourbar.urdf"),
                                      str(SAMPLES / "fourbar_crank.csv"), "--loops", str(LOOPS),
                                      "-o", str(h5)])
    assert result.exit_code == 0, result.output
    import h5py

    with h5py.File(h5) as f:
        assert f.attrs["loops"] == str(LOOPS) and "about_Y" not in f.attrs


def test_a_frame_closure_at_a_passive_cut_joint_is_the_point_closure(tmp_path, fourbar):
    """The rocker's end carries a passive revolute joint and a massless tip; welding the tip
    to the coupler's end (a frame closure: 6 rows of which the plane's 3 are independent)
    is the point closure of the four-bar: the same crank torque and force, no moment about
    the cut joint's axis, the redundant rows' share 0 (minimum norm)."""
    text = (URDF / "fourbar.urdf").read_text().replace("</robot>", (
        '<joint name="tip" type="revolute"><parent link="rocker_link"/><child link="tip_link"/>'
        '<origin xyz="0.3 0 0"/><axis xyz="0 1 0"/><limit lower="-10" upper="10" effort="1" '
        'velocity="20"/></joint><link name="tip_link"/></robot>'))
    (tmp_path / "tip.urdf").write_text(text)
    welded = api.close_loops(api.load_robot(tmp_path / "tip.urdf"), {
        "actuated": ["crank"], "guess": {"coupler": -1.0, "rocker": -1.8, "tip": 0.6},
        "loops": {"knee": {"type": "frame", "b": {"link": "tip_link"},
                           "a": {"link": "coupler_link", "xyz": [0.35, 0, 0]}}}})
    assert "6 constraint rows, 3 independent (3 redundant, dropped)" in api.loop_summary(welded)
    _, closed = fourbar
    tr = crank(np.linspace(0.0, 3.0, 13), 5)
    ours, point = (api.inverse_dynamics(m, tr, order=2) for m in (welded, closed))
    names = api.loop_components(welded)
    assert names == tuple(f"knee_{x}" for x in ("mx", "my", "mz", "fx", "fy", "fz"))
    for k, name in enumerate(("tau", "taud", "taudd")):
        assert np.abs(ours[name] - point[name]).max() <= 1e-10 * np.abs(point[name]).max()
        Fl = ours[api.derivative_name("Fl", k)]
        scale = np.abs(Fl).max()
        assert np.abs(Fl[:, 3:] - point[api.derivative_name("Fl", k)]).max() <= 1e-10 * scale
        assert np.abs(Fl[:, :3]).max() <= 1e-10 * scale


def test_validate_proves_the_loops_and_fails_a_wrong_projection(fourbar, monkeypatch):
    """hodyn validate --loops: the loops group (closure, G, virtual power, the actuated
    torques', constraint forces' and passive joints' derivatives by differences along the
    actuated joints' local motion) passes; with J' and J'' dropped (so G' and G'' from the
    projection) the torques' and the constraint forces' rates fail."""

    result = CliRunner().invoke(app, ["validate", str(URDF / "fourbar.urdf"),
                                      str(SAMPLES / "fourbar_crank.csv"), "--loops", str(LOOPS),
                                      "--samples", "5", "--method", "body-fixed"])
    assert result.exit_code == 0, result.output
    _, closed = fourbar
    tr = crank(np.linspace(0.0, 2.0, 41), 5)
    report = api.validate_motion(closed, tr, samples=5, methods=["body-fixed"])
    loops = {c.name: c.status for c in report.checks if c.group == "loops"}
    assert report.passed and len(loops) == 11 and set(loops.values()) == {"pass"}
    without_G_rates(monkeypatch)
    report = api.validate_motion(closed, tr, samples=5, methods=["body-fixed"])
    failed = {(c.group, c.name) for c in report.checks if c.status == "fail"}
    assert failed == {("loops", f"{x}d vs d/dt {x}") for x in ("tau", "Fl")} | \
        {("loops", f"{x}dd vs d/dt {x}d") for x in ("tau", "Fl")}


def test_the_five_bar_validates():
    """Two actuated joints (G is 4 x 2): every loops check passes on the five-bar."""
    from hodyn_cli.core.trajectory import cosine

    closed = api.close_loops(api.load_robot(URDF / "fivebar.urdf"), URDF / "fivebar_loops.toml")
    tr = cosine(closed.coordinate_names, np.linspace(0.0, 2.0, 41), amplitude=[0.3, 0.25],
                omega=[2.0, 3.0], offset=[-2.0, -1.1], phase=[0.0, 0.5], orders=5)
    report = api.validate_motion(closed, tr, samples=5, methods=["body-fixed"])
    loops = [c for c in report.checks if c.group == "loops"]
    assert report.passed and len(loops) == 12 and all(c.status == "pass" for c in loops)


def test_what_is_not_built_is_refused_in_one_line(fourbar, tmp_path):
    """The API's other commands on a closed robot, and the options compute does not take
    with --loops (the capability table)."""
    _, closed = fourbar
    state = {"q": np.array([0.1]), "qd": np.array([0.2]), "qdd": np.array([0.3])}
    for call in (api.torque_sensitivities, lambda robot, **x: api.retime(robot, factor=2, **x),
                 lambda robot, **x: api.time_optimal(robot, {})):
        with pytest.raises(HodynError, match=r"^closed loops are not supported"):
            call(closed, **state)
    result = CliRunner().invoke(app, ["compute", str(URDF / "fourbar.urdf"),
                                      str(SAMPLES / "fourbar_crank.csv"), "--loops", str(LOOPS),
                                      "--base-wrench", "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 2
    assert result.stderr == ("hodyn: error: --loops (or an MJCF <equality connect|weld>) does not "
                             "go with --base-wrench yet\n")


def test_the_reduced_matrices_give_the_torques_and_their_rates(tmp_path):
    """On the leg (two actuated joints): tau_a^(k) = d^k/dt^k (M_a qdd_a + C_a qd_a + g_a)
    (Leibniz over the matrices' derivatives), M_a' = Cbar_a + Cbar_a^T, M_a' by 8th-order
    differences; and a parallelogram's are its mimic robot's (constant G, no G' term)."""
    from hodyn_cli.core import jets
    from hodyn_cli.core.trajectory import cosine

    closed = api.close_loops(api.load_robot(URDF / "leg_fourbar_knee.urdf"),
                             URDF / "leg_fourbar_knee_loops.toml")
    t = stencil_times([0.4, 1.3], H)
    tr = cosine(closed.coordinate_names, t, amplitude=[0.3, 0.4], omega=[2.0, 3.0],
                offset=[0.0, -0.5], phase=[0.0, 0.5], orders=4)
    E = api.matrices(closed, tr, order=2)
    tau = api.inverse_dynamics(closed, tr, order=2)
    stack = {name: np.stack([E[name if k == 0 else f"{name}_{'d' * k}"] for k in range(3)], 1)
             for name in ("M", "C", "Cbar", "g")}
    qd, qdd = tr.derivatives[:, 1:4, :, None], tr.derivatives[:, 2:5, :, None]
    model = (jets.product(stack["M"], qdd) + jets.product(stack["C"], qd))[..., 0] + stack["g"]
    torques = np.stack([tau.tau, tau.taud, tau.taudd], axis=1)
    assert np.abs(model - torques).max() <= 1e-10 * np.abs(torques).max()
    M, Cbar = stack["M"], stack["Cbar"]
    assert np.abs(M[:, 1] - Cbar[:, 0] - np.swapaxes(Cbar[:, 0], 1, 2)).max() <= 1e-12
    assert_rates(M, H, 1e-8, "M_a")
    (tmp_path / "p.urdf").write_text(fourbar_urdf(0.2, 0.4, 0.2, 0.4))
    (tmp_path / "m.urdf").write_text(fourbar_urdf(0.2, 0.4, 0.2, 0.4, mimic=True))
    parallelogram = api.close_loops(api.load_robot(tmp_path / "p.urdf"), {
        "actuated": ["crank"], "guess": {"crank": 1.0, "coupler": -1.0, "rocker": 1.0},
        "loops": {"p": {"type": "point", "a": {"link": "coupler_link", "xyz": [0.4, 0, 0]},
                        "b": {"link": "rocker_link", "xyz": [0.2, 0, 0]}}}})
    motion = crank(np.linspace(0.0, 2.0, 5), 4, amplitude=0.5, offset=1.0)
    ours, theirs = (api.matrices(m, motion, order=1)
                    for m in (parallelogram, api.load_robot(tmp_path / "m.urdf")))
    scale = max(np.abs(theirs[name]).max() for name in theirs)   # (C: 0, M_a is constant)
    assert scale > 0.01 and list(ours) == list(theirs)
    for name in theirs:
        assert np.abs(ours[name] - theirs[name]).max() <= 1e-10 * scale


def test_forces_follow_the_motion_they_are_given(fourbar):
    """A motion made from an expanded one with other derivatives (``dataclasses.replace``)
    projects with its own P J, not the jets the expanded one carries; forces with a column
    axis after the joints' are the columns' forces; the joints on the time derivatives' axis
    are refused."""
    from dataclasses import replace

    from hodyn_cli.algorithms.motion.loops import KnownJacobians

    c = fourbar[1].coupling
    t = np.linspace(0.0, 0.5, 40)
    first, other = c.expand(crank(t, 5)), c.expand(crank(t, 5, offset=0.9))
    # (the jets it carries, where numpy's expand found none)
    first = replace(first, jacobians=KnownJacobians(first.derivatives,
                                                    c.jacobian_jets(first.derivatives, 3)))
    f = np.random.default_rng(0).normal(size=(40, 3, c.n, 2))
    moved = replace(first, derivatives=other.derivatives)
    for col in range(2):
        assert np.allclose(c.forces(f, moved, axis=2)[..., col], c.forces(f[..., col], other),
                           rtol=1e-12, atol=1e-12)
    assert not np.allclose(c.forces(f[..., 0], first), c.forces(f[..., 0], other))
    with pytest.raises(HodynError, match="axis 1"):
        c.forces(f[:, 0], first, axis=1)
