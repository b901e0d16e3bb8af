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


@pytest.mark.kernel
def test_the_kernel_takes_the_condition_number_at_the_base_as_numpy_does(kernel, tmp_path):
    """The compiled kernel's own condition numbers (``ik_rates``; ``ik_integrate``'s, which
    also set its integration's tolerance and the derivatives it trusts) on the iiwa mounted
    3 m up: those of the iiwa on the ground and numpy's, and the whole solve's verdict and
    joint motion too. Before, the kernel took them at the root's origin (105 mounted,
    10.3 on the ground) and only ik.py's verdict moved them to the base."""
    from conftest import reference
    from hodyn_cli.algorithms import backends
    from hodyn_cli.algorithms.motion.ik import InverseKinematics
    from hodyn_cli.modeling.urdf import load_model

    qs = _solved(ROOT / "urdf" / "iiwa14.urdf")[0]   # (a motion's positions and rates)
    found = {}
    for name, path in (("ground", ROOT / "urdf" / "iiwa14.urdf"), ("mounted", _mounted(tmp_path))):
        model = load_model(path)
        spec = InverseKinematics(model, EE).spec
        y = np.random.default_rng(1).normal(size=(len(qs), 2, 6))

        def rates(model=model, spec=spec, y=y):
            backend, data = backends.prepare(model, None)
            return backend.ik_rates(model, data, spec, qs[:, 0], y, qs[0, 0], 1.0)[1]

        found[name], found[name + " numpy"] = rates(), reference(rates)
    assert 10.0 < found["ground"].max() < 11.0
    for name in ("mounted", "mounted numpy", "ground numpy"):
        np.testing.assert_allclose(found[name], found["ground"], rtol=1e-9, err_msg=name)
    # the whole solve (the kernel integrates the redundant arm's positions): its verdicts
    # and motion as on the ground, and as numpy's
    mq, mcond = _solved(_mounted(tmp_path))[:2]
    nq, ncond = reference(_solved, _mounted(tmp_path))[:2]
    gq, gcond = _solved(ROOT / "urdf" / "iiwa14.urdf")[:2]
    np.testing.assert_allclose(mcond, gcond, rtol=1e-9)
    np.testing.assert_allclose(ncond, gcond, rtol=1e-9)
    for q in (mq, nq):
        err = [float(np.abs(q[:, k] - gq[:, k]).max() / np.abs(gq[:, k]).max()) for k in range(4)]
        assert max(err) < 1e-9, err
