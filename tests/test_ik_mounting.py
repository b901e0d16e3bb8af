"""Inverse kinematics on a mounted robot: a pose task's condition number takes the
Jacobian's translational rows at the robot's base (``ik.base_point``: the link that carries
the path's first joint) and measures its length unit from there, so that the iiwa mounted
3 m up (and turned) follows a motion with the verdicts, condition numbers and joint motion
it has on the ground. Before, the rows were the velocity of the root's origin, 3 m below
the base: this motion's largest condition number, 10.3 on the ground, was 105 mounted, and
its length unit 10 m (the reach counted the mounting)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_ik_scale import _solved

from hodyn_cli.errors import HodynError

ROOT = Path(__file__).resolve().parents[1]
EE = "iiwa_link_ee"


def _mounted(folder: Path) -> Path:
    """urdf/iiwa14.urdf on a world link, its base 3 m up and turned."""
    text = (ROOT / "urdf" / "iiwa14.urdf").read_text().replace(
        '<link name="iiwa_link_0"/>',
        '<link name="world"/><joint name="mount" type="fixed"><parent link="world"/>'
        '<child link="iiwa_link_0"/><origin xyz="0.5 -0.2 3.0" rpy="0.3 0 1.0"/></joint>'
        '<link name="iiwa_link_0"/>')
    (folder / "mounted.urdf").write_text(text)
    return folder / "mounted.urdf"


def test_a_mounted_arm_has_the_condition_numbers_and_joint_motion_it_has_on_the_ground(
        tmp_path):
    qs, cond, unit = _solved(ROOT / "urdf" / "iiwa14.urdf")
    mounted = _mounted(tmp_path)
    mq, mcond, munit = _solved(mounted)
    assert unit == munit == 1.0
    assert 10.0 < cond.max() < 11.0
    np.testing.assert_allclose(mcond, cond, rtol=1e-9)
    err = [float(np.abs(mq[:, k] - qs[:, k]).max() / np.abs(qs[:, k]).max()) for k in range(4)]
    assert max(err) < 1e-9, err
    # the same verdict: refused on the ground and mounted alike, just under the largest
    limit = 0.999 * cond.max()
    for path in (ROOT / "urdf" / "iiwa14.urdf", mounted):
        with pytest.raises(HodynError, match="condition number"):
            _solved(path, limit)
        assert _solved(path, 1.001 * cond.max())[1].max() == pytest.approx(cond.max())
