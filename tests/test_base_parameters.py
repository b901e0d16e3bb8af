"""The number of base parameters is the rank of the regressor, against an independent rank.

The reference: Pinocchio's ``computeJointTorqueRegressor`` (a free-flyer root for a floating
base; ``<mimic>`` joints, which Pinocchio ignores, imposed on its states and rows here)
stacked over random states, its rank by the SVD of the unscaled matrix. On every robot below
the singular values fall from >= 1e-6 of the largest (so100's smallest real one) to <= 1e-12
(rounding), so a threshold of 1e-10 sits in a gap of six orders and more. hodyn once kept a
column of rounding noise (``mcz`` of the iiwa's second link, ~2e-17 of the largest column
norm) because it scaled the columns before its pivoted QR: 44 base parameters for a rank of
43, one or two too many on the gripper arm, z1, xarm7, kinova, allegro and panda.
"""

import dataclasses
import importlib.metadata
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from conftest import URDF
from hodyn_cli.algorithms.dynamics import regressor as R
from hodyn_cli.modeling.urdf import load_model

pin = pytest.importorskip("pinocchio")

#: singular values below this fraction of the largest are rounding (see the module's text)
RANK_RTOL = 1e-10

BUNDLED = [("planar_2r", False), ("iiwa14", False), ("gripper_arm", False),
           ("quadruped", False), ("quadruped", True)]
#: example-robot-data: arms, a hand, legs, with mimic fingers (panda), a real singular value
#: of ~3e-6 (so100), two columns of ~1e-13 of the largest (kinova: its first axis tilted by
#: 2e-13 rad, pi written with 12 digits; 7e-17 with pi in full), a floating base (solo12)
PUBLIC = [("ur_description/urdf/ur5_robot.urdf", False),
          ("panda_description/urdf/panda.urdf", False),
          ("kinova_description/robots/kinova.urdf", False),
          ("z1_description/urdf/z1.urdf", False),
          ("xarm_description/urdf/xarm7.urdf", False),
          ("so_arm_description/urdf/so100.urdf", False),
          ("talos_data/robots/talos_left_arm.urdf", False),
          ("allegro_hand_description/urdf/allegro_right_hand.urdf", False),
          ("solo_description/robots/solo12.urdf", True)]


def public_robot(relative: str) -> Path:
    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    return Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")) / relative


def mimics(path: Path) -> list[tuple[str, str, float, float]]:
    """(follower, leader, multiplier, offset) of each ``<mimic>`` tag of a moving joint of
    the URDF (Talos's grippers have them on fixed joints too)."""
    return [(joint.get("name"), m.get("joint"), float(m.get("multiplier", 1.0)),
             float(m.get("offset", 0.0)))
            for joint in ET.parse(path).getroot().iter("joint")
            if (m := joint.find("mimic")) is not None and joint.get("type") != "fixed"]


def pinocchio_rank(path: Path, floating_base: bool, states: int = 200) -> int:
    """The rank of Pinocchio's regressor stacked over random (q, v, a), by the SVD of the
    unscaled matrix; asserts that the threshold falls in a clear gap."""
    pm = pin.buildModelFromUrdf(str(path), *([pin.JointModelFreeFlyer()] if floating_base else []))
    data = pm.createData()
    rng = np.random.default_rng(3)
    coupled = [(pm.joints[pm.getJointId(f)], pm.joints[pm.getJointId(lead)], a, b)
               for f, lead, a, b in mimics(path)]
    followers = [f.idx_v for f, _, _, _ in coupled]
    rows = []
    for _ in range(states):
        q = pin.randomConfiguration(pm, -np.pi * np.ones(pm.nq), np.pi * np.ones(pm.nq))
        v, a = rng.normal(size=(2, pm.nv))
        for f, lead, k, b in coupled:  # a follower moves with its leader
            assert f.nq == lead.nq == 1
            q[f.idx_q] = k * q[lead.idx_q] + b
            v[f.idx_v], a[f.idx_v] = k * v[lead.idx_v], k * a[lead.idx_v]
        Y = pin.computeJointTorqueRegressor(pm, data, q, v, a).copy()
        for f, lead, k, _ in coupled:  # the leader's drive supplies the follower's force
            Y[lead.idx_v] += k * Y[f.idx_v]
        rows.append(np.delete(Y, followers, axis=0))
    sv = np.linalg.svd(np.concatenate(rows), compute_uv=False)
    sv /= sv[0]
    rank = int((sv > RANK_RTOL).sum())
    assert sv[rank - 1] > 1e-7 and (rank == sv.size or sv[rank] < 1e-12), sv[rank - 2:rank + 2]
    return rank


def base_count(path: Path, floating_base: bool) -> int:
    return len(R.base_parameters(load_model(path), floating_base=floating_base).independent)


@pytest.mark.parametrize(("name", "floating_base"), BUNDLED)
def test_base_count_is_the_rank_on_every_bundled_robot(name, floating_base):
    path = URDF / f"{name}.urdf"
    assert base_count(path, floating_base) == pinocchio_rank(path, floating_base)


@pytest.mark.parametrize(("relative", "floating_base"), PUBLIC)
def test_base_count_is_the_rank_on_public_robots(relative, floating_base):
    path = public_robot(relative)
    assert base_count(path, floating_base) == pinocchio_rank(path, floating_base)


def test_a_column_of_rounding_noise_is_no_base_parameter():
    """The iiwa's mcz of link 2 is zero in exact arithmetic (its moment is along joint 2's
    axis and about joint 1's axis through the shoulder, where gravity has none): it is in no
    base parameter (its column of base_map is rounding)."""
    model = load_model(URDF / "iiwa14.urdf")
    base = R.base_parameters(model)
    j = R.parameter_names(model).index("mcz_iiwa_link_2")
    assert len(base.independent) == 43
    assert j not in base.independent and np.abs(base.base_map[:, j]).max() < 1e-12
    assert not [name for name in base.names if "mcz_iiwa_link_2" in name]


def shrunk(model, factor: float):
    """The model with every link offset times ``factor`` (inertias as they are)."""
    B = model.B.copy()
    B[:, :3, 3] *= factor
    return dataclasses.replace(model, B=B)


def test_small_real_columns_stay():
    """An iiwa of micrometres, without gravity: the columns of the first moments
    (accelerations times a length) that carry base parameters fall to ~1e-7 of the largest
    column. Far above rounding, all 39 stay (a threshold of 1e-6 would leave 31)."""
    model = load_model(URDF / "iiwa14.urdf")
    assert len(R.base_parameters(shrunk(model, 1e-6), gravity=(0, 0, 0)).independent) == 39


def test_a_free_body_without_joints_has_its_ten_parameters():
    """A robot of one free body (no joints: no screw to stack) floating: its ten inertial
    parameters are all identifiable from the root's wrench (docs/floating.md's ``hodyn
    regressor urdf/free_body.urdf ... --floating-base --base``; it raised, exit 3)."""
    from hodyn_cli.algorithms.dynamics.regressor import base_parameters
    from hodyn_cli.modeling.urdf import load_model

    base = base_parameters(load_model(URDF / "free_body.urdf"), floating_base=True)
    assert base.independent.tolist() == list(range(10))
    assert base.names[0] == "m_hull"
