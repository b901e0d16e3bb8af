"""Link inertias: rounding accepted, impossible ones refused with a measure and repairable.

The proofs: the repaired inertia is that of a real body (its second moment of mass about the
COM is positive semi-definite) and no consistent inertia is nearer (checked against random
consistent candidates, independently of how the projection is computed); mass and COM stay;
every URDF of the public example-robot-data collection that Pinocchio loads loads here, or is
refused with a message offering --repair-inertia and then loads repaired.
"""

import importlib.metadata
from pathlib import Path

import numpy as np
import pytest

from conftest import hodyn_here
from hodyn_cli.core import lie
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.urdf import consistent_inertia, load_model, parse_model

ROBOT = """<robot name="r"><link name="base"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 1"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <link name="l1"><inertial><origin xyz="{com}" rpy="0.3 -0.2 0.1"/><mass value="{mass}"/>
    <inertia ixx="{i[0]}" ixy="{i[1]}" ixz="{i[2]}" iyy="{i[3]}" iyz="{i[4]}" izz="{i[5]}"/>
  </inertial></link></robot>"""
# iCub's l_ankle_2: a point mass whose inertia has one off-diagonal 1.35525e-20
ICUB = dict(com="0.008 0 0.0553", mass=0.2675, i=(0, 0, 1.35525e-20, 0, 0, 0))
# Tiago's base_antenna_left_link: principal moments -3.53e-08, 3.50e-08, 9.09e-08
TIAGO = dict(com="0 0 0", mass=1e-6, i=(2.371e-08, 6.119e-08, 1.179e-08, 2.833e-08, 7.74e-09,
                                        3.849e-08))


def robot(com, mass, i):
    return ROBOT.format(com=com, mass=mass, i=i).encode()


def second_moment(theta):
    """S = tr(Theta)/2 - Theta: int r r^T dm of a body with rotational inertia Theta (COM)."""
    return np.trace(theta) / 2 * np.eye(3) - theta


def com_inertia(M):
    """(mass, COM, rotational inertia about the COM) of a 6x6 spatial inertia."""
    m, mC = M[5, 5], M[:3, 3:]                            # m skew(c)
    c = np.array([mC[2, 1], mC[0, 2], mC[1, 0]]) / m if m > 0 else np.zeros(3)
    return m, c, M[:3, :3] + m * lie.skew(c) @ lie.skew(c)


def warnings(model):
    return [d.message for d in model.diagnostics if d.level == "warning"]


def test_moments_negative_by_rounding_are_zero_without_a_word():
    model = parse_model(robot(**ICUB), strict=True)
    assert warnings(model) == []
    m, c, theta = com_inertia(model.inertias[0])
    assert m == pytest.approx(0.2675) and np.allclose(c, [0.008, 0, 0.0553])
    assert np.abs(theta).max() < 1e-15 * m * c @ c          # the point mass it was meant to be


def test_impossible_inertia_is_refused_with_how_far_and_repaired_on_request():
    with pytest.raises(ModelError) as err:
        parse_model(robot(**TIAGO), source="tiago.urdf")
    message = str(err.value)
    assert message.startswith("tiago.urdf: link 'l1': rotational inertia is not positive "
                              "semi-definite (principal moments -3.53486e-08, 3.50085e-08, "
                              "9.08701e-08: the smallest is negative by 38.9% of the largest)")
    assert "--repair-inertia" in message and "\n" not in message
    model = parse_model(robot(**TIAGO), repair_inertia=True)
    [warning] = warnings(model)
    assert warning.startswith("link 'l1': principal moments -3.53486e-08, 3.50085e-08, "
                              "9.08701e-08 repaired to ")
    m, c, theta = com_inertia(model.inertias[0])
    assert m == pytest.approx(1e-6) and np.allclose(c, 0)
    assert np.linalg.eigvalsh(second_moment(theta)).min() > -1e-22
    with pytest.raises(ModelError, match=r"repaired to .* \(--repair-inertia\) \(--strict\)"):
        parse_model(robot(**TIAGO), repair_inertia=True, strict=True)


def test_negative_mass_and_triangle_violations_offer_the_repair():
    bad = robot(com="0 0 0.1", mass=-2.0, i=(0.1, 0, 0, 0.1, 0, 0.1))
    with pytest.raises(ModelError, match="'l1': negative mass -2; --repair-inertia makes the "
                                         "link massless"):
        parse_model(bad)
    model = parse_model(bad, repair_inertia=True)
    assert not model.inertias.any() and "massless" in warnings(model)[0]
    rod = robot(com="0 0 0.1", mass=1.0, i=(0, 0, 0, 0, 0, 3e-6))   # anymal's 'base'
    [warning] = warnings(parse_model(rod))
    assert "violate the triangle inequality by 3e-06 (100.0% of their sum" in warning
    assert warning.endswith("--repair-inertia projects it onto the nearest physically "
                            "consistent inertia")
    model = parse_model(rod, repair_inertia=True)
    assert np.allclose(np.linalg.eigvalsh(com_inertia(model.inertias[0])[2]), [1.5e-6, 1.5e-6, 3e-6])


def test_the_projection_is_the_nearest_consistent_inertia():
    """Consistent inputs stay; an inconsistent one goes to a consistent one that no random
    consistent inertia beats (distance: Frobenius norm of the second moments)."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        A = rng.normal(size=(3, 3))
        theta = A @ A.T + rng.normal(scale=0.5, size=(3, 3))
        theta = (theta + theta.T) / 2
        fixed = consistent_inertia(theta)
        S, S_fixed = second_moment(theta), second_moment(fixed)
        assert np.linalg.eigvalsh(S_fixed).min() > -1e-12
        np.testing.assert_allclose(consistent_inertia(fixed), fixed, atol=1e-12)
        best = np.linalg.norm(S_fixed - S)
        for _ in range(200):
            B = rng.normal(size=(3, 3))
            candidate = S_fixed + 0.3 * B @ B.T * rng.uniform() - 0.3 * rng.uniform() * S_fixed
            assert np.linalg.eigvalsh(candidate).min() >= -1e-12
            assert np.linalg.norm(candidate - S) >= best - 1e-12
        if np.linalg.eigvalsh(S).min() >= 0:
            np.testing.assert_allclose(fixed, theta, atol=1e-14)


def test_the_option_on_the_command_line(tmp_path):
    path = tmp_path / "tiago.urdf"
    path.write_bytes(robot(**TIAGO))
    r = hodyn_here("info", path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "--repair-inertia" in r.stderr
    r = hodyn_here("info", path, "--repair-inertia")
    assert r.returncode == 0, r.stderr
    assert "hodyn: warning: " in r.stderr and "repaired to" in r.stderr


def collection():
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return []
    root = Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots"))
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.urdf"))


ROBOTS = collection()
#: refused for reasons other than inertias, rightly: what hodyn says
REFUSED = {
    # its <mimic> tags name joints the file does not have (Pinocchio ignores <mimic>)
    "alex_description/urdf/alex_psyonic_hands.urdf":
        "<mimic joint='index_q1'> names a joint that does not exist",
}
#: genuinely impossible inertias: loaded with --repair-inertia only
REPAIRED = {"romeo_description/urdf/romeo_laas_small.urdf": "link 'body'",
            "tiago_description/robots/tiago.urdf": "link 'base_antenna_left_link'",
            "tiago_description/robots/tiago_dual.urdf": "link 'base_antenna_left_link'",
            "tiago_description/robots/tiago_no_hand.urdf": "link 'base_antenna_left_link'"}


@pytest.mark.slow
@pytest.mark.skipif(not ROBOTS, reason="example-robot-data is not installed (pip install "
                                       "example-robot-data: 130 MB)")
@pytest.mark.parametrize("name", ROBOTS or ["none"])
def test_every_robot_of_example_robot_data_that_pinocchio_loads(name):
    pin = pytest.importorskip("pinocchio")
    dist = importlib.metadata.distribution("example-robot-data")
    path = Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")) / name
    try:
        pin.buildModelFromUrdf(str(path))
    except (RuntimeError, ValueError):
        pytest.skip("Pinocchio does not load it either")
    if name in REFUSED:
        with pytest.raises(ModelError, match=REFUSED[name]):
            load_model(path)
        return
    if name in REPAIRED:
        with pytest.raises(ModelError, match=f"{REPAIRED[name]}: rotational inertia is not "
                                             "positive semi-definite .*--repair-inertia"):
            load_model(path)
        model = load_model(path, repair_inertia=True)
        assert any(REPAIRED[name] in w and "repaired to" in w for w in warnings(model))
    else:
        model = load_model(path)
    # every body (links lumped) is one a rigid body can be; a robot without joints (hector's
    # quadrotor_base, iris_simple) is one body, its root
    for M in model.inertias if model.n else model.root_inertia[None]:
        m, _, theta = com_inertia(M)
        assert m >= 0
        if not [w for w in warnings(model) if "triangle" in w]:
            scale = np.trace(M[:3, :3])   # about the body frame: the rounding of the COM shift
            assert np.linalg.eigvalsh(second_moment(theta)).min() >= -1e-9 * scale
