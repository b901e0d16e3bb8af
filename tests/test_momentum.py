"""Total mass, centre of mass and centroidal momentum: Pinocchio and finite differences."""

from dataclasses import replace

import numpy as np
import pytest

from conftest import (
    LINEAR_FIRST,
    URDF,
    assert_rates,
    floating_motion,
    free_flyer_q,
    free_flyer_rate,
    legged_urdf,
    pinocchio_free_flyer,
    random_cosine,
    stencil_times,
)
from hodyn_cli.algorithms.motion.momentum import centroidal
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import BaseMotion, Trajectory
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.modeling.urdf import load_model, parse_model

H = 0.01


def _legged(tmp_path, kind):
    path = tmp_path / f"{kind}.urdf"
    path.write_text(legged_urdf(kind, seed=3))
    return path, load_model(path)


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("robot_name", ["gripper_arm", "iiwa14", "solo"])
def test_matches_pinocchio(tmp_path, robot_name, floating):
    """Pinocchio's free-flyer model (root link included): mass, ``centerOfMass`` (c, c', c''),
    ``computeCentroidalMomentum`` (hg) and its ``TimeVariation`` (dhg). Fixed base: the free
    flyer at rest at the origin."""
    path, model = (_legged(tmp_path, robot_name) if robot_name == "solo"
                   else (URDF / f"{robot_name}.urdf", load_model(URDF / f"{robot_name}.urdf")))
    pin, pm, data, order = pinocchio_free_flyer(path, model)
    N = 6
    rng = np.random.default_rng(11)
    traj = random_cosine(model, np.linspace(0, 3, N), orders=3, seed=12)
    R = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                  for a in rng.normal(size=(N, 3))])
    base = BaseMotion(R, rng.normal(size=(N, 3)), rng.normal(size=(N, 2, 6)))
    if not floating:
        base = BaseMotion(np.broadcast_to(np.eye(3), (N, 3, 3)), np.zeros((N, 3)), np.zeros((N, 2, 6)))
    c = centroidal(model, replace(traj, base=base) if floating else traj, order=1)
    assert c.mass == pytest.approx(pin.computeTotalMass(pm), rel=1e-14)
    for s in range(N):
        Vb = base.Vb[s]
        q = free_flyer_q(pin, pm, order, base.R[s], base.p[s], traj.q[s])
        v, a = free_flyer_rate(order, Vb[0], traj.qd[s]), free_flyer_rate(order, Vb[1], traj.qdd[s])
        com = pin.centerOfMass(pm, data, q, v, a)
        dhg = pin.computeCentroidalMomentumTimeVariation(pm, data, q, v, a)
        for ours, ref in ((c.com[s, 0], com), (c.com[s, 1], data.vcom[0]), (c.com[s, 2], data.acom[0]),
                          (c.h[s, 0], data.hg.vector[LINEAR_FIRST]), (c.h[s, 1], dhg.vector[LINEAR_FIRST])):
            assert np.abs(ours - ref).max() <= 1e-12 * max(np.abs(ref).max(), 1.0), robot_name


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
def test_rates_match_finite_differences(floating):
    """c^(k), h^(k), k <= 3 (c to 4), against the difference of the order below; floating
    along an analytic base motion (a driven 6-joint chain under the root)."""
    path = URDF / "gripper_arm.urdf"
    model = load_model(path)
    t = stencil_times([0.6, 2.0], H)
    if floating:
        traj, _, _, _ = floating_motion(path.read_text(), model, t, 4, seed=2)
    else:
        traj = random_cosine(model, t, orders=5, seed=2)
    c = centroidal(model, traj, order=3)
    assert_rates(c.com, H, 1e-8, "com")
    assert_rates(c.h, H, 1e-8, "h")
    assert np.allclose(c.h[:, :, 3:], c.mass * c.com[:, 1:], rtol=0, atol=1e-12 * np.abs(c.h).max())


def test_api_names_every_rate():
    from hodyn_cli import api

    model = load_model(URDF / "planar_2r.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 3), orders=3)
    r = api.centre_of_mass(model, traj, order=1)
    assert list(r) == ["mass", "com", "comd", "comdd", "h", "hd"]
    assert r.hd.shape == (3, 6) and np.allclose(r.mass, 2.0)
    assert np.array_equal(r.comdd, centroidal(model, traj, order=1).com[:, 2])


def test_bad_input_is_a_one_line_error():
    model = load_model(URDF / "planar_2r.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 3), orders=2)
    with pytest.raises(TrajectoryError, match="momentum of order 2 needs qddd "):
        centroidal(model, traj, order=2)
    base = BaseMotion(np.broadcast_to(np.eye(3), (3, 3, 3)), np.zeros((3, 3)), np.zeros((3, 1, 6)))
    with pytest.raises(TrajectoryError, match="needs base_Vbd "):
        centroidal(model, replace(traj, base=base), order=1)
    with pytest.raises(TrajectoryError, match="base motion has 3 samples, the trajectory 2"):
        centroidal(model, Trajectory(traj.joint_names, traj.derivatives[:2], base=base), order=0)
    massless = parse_model(b'<robot name="ghost"><link name="a"/><link name="b"/><joint name="j" '
                           b'type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
                           b'<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')
    with pytest.raises(HodynError, match="'ghost' has no mass"):
        centroidal(massless, random_cosine(massless, [0.0], orders=2), order=0)
