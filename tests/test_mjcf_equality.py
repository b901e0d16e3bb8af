"""MJCF ``<equality joint>`` with a linear polycoef as a mimic coupling (hodyn_cli.modeling.mjcf):
MuJoCo's own constraint residual is zero on the coupled motion (the reading of polycoef and
ref is MuJoCo's), and tau equals MuJoCo's mj_inverse projected by virtual work, ``G^T
qfrc_inverse``; other equalities are one line and exit 2 (connect and weld: tests/test_mjcf_loops.py)."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from hodyn_cli import api
from hodyn_cli.cli.app import app
from hodyn_cli.modeling.urdf import load_model

mjr = pytest.importorskip("mjcf_reference")  # skips where mujoco is not installed
mujoco = mjr.mujoco

#: hinges in degrees with refs, a slide, two couplings (a hinge on a hinge, a slide on a hinge)
COUPLED = """<mujoco model="coupled">
  <compiler angle="degree"/>
  <worldbody>
    <body name="l1">
      <joint name="a" axis="0 1 0" ref="10"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body name="l2" pos="0.3 0 0">
        <joint name="b" axis="0 0 1" ref="-20"/>
        <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
        <body name="l3" pos="0.25 0 0">
          <joint name="c" axis="1 0 0" ref="5"/>
          <joint name="s" type="slide" axis="1 0 0" ref="0.01"/>
          <geom type="box" size="0.05 0.03 0.02" pos="0.05 0.01 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality>
    <joint name="e1" joint1="c" joint2="a" polycoef="0.1 -0.7"/>
    <joint name="e2" joint1="s" joint2="b" polycoef="0.02 0.3 0 0 0"/>
    <joint name="off" joint1="c" joint2="b" active="false"/>
  </equality>
</mujoco>"""


def coupled(tmp_path, text: str = COUPLED):
    path = tmp_path / "coupled.xml"
    path.write_text(text)
    return path


def test_linear_joint_equality_is_mujocos(tmp_path):
    path = coupled(tmp_path)
    model = load_model(path)
    assert model.coordinate_names == ("a", "b")
    assert any("joint 'c' follows 'a' (<equality> joint 'e1')" in d.message
               for d in model.diagnostics)
    coupling = model.coupling
    G = coupling.G
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.normal(size=(3, 4, 2))
    full = [np.stack([coupling.phi(q[k]) if d == 0 else G @ x[k] for k in range(4)])
            for d, x in enumerate((q, qd, qdd))]
    # MuJoCo's own equality residual is zero there: polycoef and ref read as MuJoCo does
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    for k in range(4):
        d.qpos[:], d.qvel[:] = full[0][k], full[1][k]
        mujoco.mj_forward(m, d)
        eq = d.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        assert eq.sum() == 2 and np.abs(d.efc_pos[eq]).max() < 1e-12
    rigid = mjr.rigid_body_only(path)
    ref = np.array([G.T @ mjr.mj_inverse(rigid, *(f[k] for f in full)) for k in range(4)])
    # with its (soft) constraints on, MuJoCo puts no force on a motion that keeps them: its
    # qfrc_inverse is the unconstrained one, and G^T of it what drives the leaders alone
    constrained = mjr.rigid_body_only(path)
    constrained.opt.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    with_constraints = np.array([G.T @ mjr.mj_inverse(constrained, *(f[k] for f in full))
                                 for k in range(4)])
    assert np.abs(with_constraints - ref).max() < 1e-12 * np.abs(ref).max()
    ours = api.inverse_dynamics(model, q, qd, qdd, order=0, gravity=mjr.GRAVITY).tau
    assert np.abs(ours - ref).max() < 1e-9 * np.abs(ref).max()


def test_import_drops_the_followers(tmp_path):
    """A MuJoCo log of the coupled model (nq = 4) imports as the two coordinates."""
    path = coupled(tmp_path)
    np.savez(tmp_path / "log.npz", qpos=np.arange(8.0).reshape(2, 4))
    result = CliRunner().invoke(app, ["import", str(tmp_path / "log.npz"), "--urdf", str(path),
                                      "-o", str(tmp_path / "q.csv")])
    assert result.exit_code == 0, result.output
    assert "mimic joint(s) c, s dropped" in result.output
    assert (tmp_path / "q.csv").read_text().splitlines()[1:] == ["0,1", "4,5"]


BAD = {
    "nonlinear": ('<joint name="n" joint1="c" joint2="a" polycoef="0 1 0.2"/>',
                  "<equality> joint 'n': polycoef 0 1 0.2 0 0 is not linear"),
    "alone": ('<joint name="h" joint1="c"/>', "<equality> joint 'h': joint 'c' alone"),
    "unknown": ('<joint name="u" joint1="c" joint2="zz"/>',
                "<equality> joint 'u': joint 'zz' is not a hinge or slide"),
    "twice": ('<joint joint1="c" joint2="a"/><joint name="t" joint1="c" joint2="b"/>',
              "<equality> joint 't': joint 'c' is coupled twice"),
    "chain": ('<joint joint1="c" joint2="b"/><joint joint1="b" joint2="a"/>',
              "joint 'c' follows 'b', which follows another joint"),
    "tendon": ('<tendon name="td" tendon1="x"/>',
               "<equality> tendon 'td': tendon equality constraints are not supported"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_other_equalities_are_one_line(tmp_path, case):
    element, message = BAD[case]
    start = COUPLED.index("  <equality>")
    path = coupled(tmp_path, COUPLED[:start] + f"  <equality>{element}</equality>\n</mujoco>")
    mjr.assert_refused(path, message)
