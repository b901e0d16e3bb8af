"""MJCF ``<equality connect|weld>`` as closed loops (hodyn_cli.modeling.mjcf_loops): MuJoCo's own
constraint residual is zero on hodyn's closed motion, and MuJoCo's constrained dynamics (its mass
matrix, bias forces and equality Jacobian ``efc_J``), driven by hodyn's actuated torques alone,
give hodyn's accelerations of every joint; mjcf/fourbar.xml gives the numbers of
urdf/fourbar.urdf with its loops file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from hodyn_cli import api
from hodyn_cli.cli.app import app
from hodyn_cli.errors import HodynError
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.urdf import load_model

mjr = pytest.importorskip("mjcf_reference")  # skips where mujoco is not installed
mujoco = mjr.mujoco

ROOT = Path(__file__).parents[1]
FOURBAR = ROOT / "mjcf" / "fourbar.xml"
CRANK = str(ROOT / "sample_trajectories" / "fourbar_crank.csv")
TEXT = FOURBAR.read_text()
KNEE = '<connect name="knee" body1="coupler_link" body2="rocker_link" anchor="0.35 0 0"/>'

ROCKER = TEXT[TEXT.index('    <body name="rocker_link"'):TEXT.index("  </worldbody>")]
#: the coupler cut in two and welded: its far end rides on a hinge at the rocker's tip, turned
#: (the weld keeps the relative pose of qpos0, as MuJoCo computes it there)
WELD = TEXT.replace(
    '<inertial pos="0.15 0 0" mass="0.6" diaginertia="6e-05 0.0045 0.0045"/>',
    '<inertial pos="0.15 0 0" mass="0.6" diaginertia="6e-05 0.0045 0.0045"/>\n'
    '      <body name="tip" pos="0.3 0 0" euler="0 0.5 0">\n'
    '        <joint name="knee" type="hinge" axis="0 1 0"/>\n'
    '        <geom type="box" size="0.02 0.01 0.03" pos="0.01 0 0"/>\n      </body>').replace(
    KNEE, '<weld name="cut" body1="coupler_link" body2="tip"/>')
VARIANTS = {
    "connect": TEXT,
    "weld": WELD,
    # no orientation rows: a weld at the rocker's end is the connect there
    "weld-torquescale-0": TEXT.replace(KNEE, '<weld name="knee" body1="coupler_link" '
                                             'body2="rocker_link" anchor="0.3 0 0" torquescale="0"/>'),
    # the weld between two sites' frames (which coincide at qpos0: the tip's frame)
    "site-weld": WELD.replace(
        '<inertial pos="0.175', '<site name="s1" pos="0.35 0 0" euler="0 -0.1068849106766953 0"/>'
        '<inertial pos="0.175').replace(
        '<joint name="knee"', '<site name="s2"/><joint name="knee"').replace(
        '<weld name="cut" body1="coupler_link" body2="tip"/>', '<weld site1="s1" site2="s2"/>'),
    "site-connect": TEXT.replace(
        '<inertial pos="0.175', '<site name="a" pos="0.35 0 0"/><inertial pos="0.175').replace(
        '<inertial pos="0.15', '<site name="b" pos="0.3 0 0"/><inertial pos="0.15').replace(
        KNEE, '<connect name="knee" site1="a" site2="b"/>'),
    # the rocker on the coupler's end, its far end connected to a point of the world
    "world": TEXT.replace(KNEE, '<connect name="ground" body1="rocker_link" anchor="0.3 0 0"/>')
    .replace(ROCKER, "").replace("</body>\n    </body>", ROCKER.replace(
        'pos="0.3 0 0" euler="0 -1.633337088591388 0"', 'pos="0.35 0 0" euler="0 2.5347077429130977 0"'
    ).replace('ref="-1.633337088591388"', 'ref="2.5347077429130977"') + "</body>\n    </body>"),
}


def write(tmp_path, text: str, name: str = "closed.xml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_fourbar_is_the_urdf_with_its_loops_file():
    urdf = api.close_loops(load_model(ROOT / "urdf" / "fourbar.urdf"),
                           ROOT / "urdf" / "fourbar_loops.toml")
    mjcf = api.close_loops(load_model(FOURBAR))
    assert mjcf.coordinate_names == ("crank",) and api.loop_components(mjcf) == (
        "knee_fx", "knee_fy", "knee_fz")
    motion = read_trajectory(CRANK, mjcf, need=5)
    ours, theirs = (api.inverse_dynamics(r, motion, order=2) for r in (mjcf, urdf))
    for a, b in ((ours.tau, theirs.tau), (ours.taudd, theirs.taudd), (ours.Fl, theirs.Fl),
                 (ours.Fldd, theirs.Fldd)):
        assert np.abs(a - b).max() < 1e-12 * np.abs(b).max()


def _mujoco_accelerations(m, q, qd, tau):
    """MuJoCo's exact constrained accelerations: ``[M J^T; J 0] [qdd; -lambda] = [tau - bias;
    -J' qd]`` with its mass matrix, ``qfrc_bias`` and equality rows ``efc_J`` (``J' qd`` by 4th-order
    differences of efc_J along qd, h = 1e-3); and the rows' residual ``efc_pos``."""
    d = mujoco.MjData(m)

    def rows(x):
        d.qpos[:], d.qvel[:] = x, qd
        mujoco.mj_forward(m, d)
        eq = d.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        return d.efc_J.reshape(-1, m.nv)[eq].copy(), d.efc_pos[eq].copy()

    h = 1e-3
    Jd = (8 * (rows(q + h * qd)[0] - rows(q - h * qd)[0])
          - (rows(q + 2 * h * qd)[0] - rows(q - 2 * h * qd)[0])) / (12 * h)
    J, residual = rows(q)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    K = np.block([[M, J.T], [J, np.zeros((len(J), len(J)))]])
    rhs = np.concatenate([tau - d.qfrc_bias, -Jd @ qd])
    return np.linalg.lstsq(K, rhs, rcond=1e-12)[0][:m.nv], residual


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_mujoco_moves_as_hodyn_says(tmp_path, variant):
    path = write(tmp_path, VARIANTS[variant])
    robot = api.close_loops(load_model(path))
    motion = read_trajectory(CRANK, robot, need=3)
    motion = type(motion)(motion.joint_names, motion.derivatives[::25], motion.t[::25])
    tau = api.inverse_dynamics(robot, motion, order=0, gravity=mjr.GRAVITY).tau
    full = robot.coupling.expand(motion).derivatives
    m = mjr.rigid_body_only(path)
    m.opt.disableflags &= ~int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    m.opt.jacobian = mujoco.mjtJacobian.mjJAC_DENSE
    S = np.zeros((robot.n, 1))
    S[robot.actuated, 0] = 1
    for k in range(len(full)):
        qdd, residual = _mujoco_accelerations(m, full[k, 0], full[k, 1], S @ tau[k])
        assert np.abs(residual).max() < 1e-12
        assert np.abs(qdd - full[k, 2]).max() < 1e-8 * np.abs(full[k, 2]).max()


def test_weld_relpose_is_mujocos(tmp_path):
    """A weld's relpose given as MuJoCo computes it from qpos0 (``eq_data``, anchor moved)
    is the weld without it."""
    moved = WELD.replace('body2="tip"/>', 'body2="tip" anchor="0.01 0.02 -0.03"/>')
    m = mujoco.MjModel.from_xml_path(str(write(tmp_path, moved)))
    relpose = " ".join(repr(float(v)) for v in m.eq_data[0, 3:10])
    given = moved.replace('anchor="0.01', f'relpose="{relpose}" anchor="0.01')
    tables = [load_model(write(tmp_path, text)).loop_tables["loops"]["cut"]
              for text in (moved, given)]
    for end in ("a", "b"):
        for key in ("xyz", "rpy"):
            assert np.abs(np.subtract(tables[0][end][key], tables[1][end][key])).max() < 1e-12


def test_compute_closes_the_model_loops(tmp_path):
    out = tmp_path / "tau.csv"
    result = CliRunner().invoke(app, ["compute", str(FOURBAR), CRANK, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "fourbar.xml: 1 loop(s): 3 constraint rows, 2 independent" in result.output
    assert out.read_text().splitlines()[0].startswith("t,tau_crank,taud_crank,taudd_crank,Fl_knee")


def test_without_an_actuator_a_loops_file_says_which(tmp_path):
    path = write(tmp_path, TEXT.replace('<motor name="crank" joint="crank"/>', ""))
    model = load_model(path)
    with pytest.raises(HodynError, match="do not say which joints are driven"):
        api.close_loops(model)
    result = CliRunner().invoke(app, ["compute", str(path), CRANK, "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert f"{path}: the robot's closed loops" in result.output
    (tmp_path / "a.toml").write_text('actuated = ["crank"]\n')
    result = CliRunner().invoke(app, ["compute", str(path), CRANK, "--loops",
                                      str(tmp_path / "a.toml"), "-o", str(tmp_path / "o.csv")])
    assert result.exit_code == 0, result.output
    closed = api.close_loops(model, {"actuated": ["crank"]})
    assert api.loop_components(closed) == ("knee_fx", "knee_fy", "knee_fz")


BAD = {
    "unknown body": (KNEE.replace('body2="rocker_link"', 'body2="nope"'),
                     "<equality> connect 'knee': no body 'nope'"),
    "no anchor": ('<connect name="c" body1="coupler_link"/>',
                  "<equality> connect 'c': needs body1 and anchor, or site1 and site2"),
    "unknown site": ('<connect name="s" site1="x" site2="y"/>', "<equality> connect 's': no site 'x'"),
    "one body": ('<weld name="w" body1="crank_link" body2="crank_link"/>',
                 "<equality> weld 'w': both ends on body 'crank_link'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_closures_are_one_line(tmp_path, case):
    element, message = BAD[case]
    mjr.assert_refused(write(tmp_path, TEXT.replace(KNEE, element)), message)


def test_inactive_closures_are_skipped(tmp_path):
    model = load_model(write(tmp_path, TEXT.replace('anchor="0.35 0 0"/>',
                                                    'anchor="0.35 0 0" active="false"/>')))
    assert model.loop_tables is None


def test_what_does_not_close_the_loops_refuses_the_model(tmp_path):
    """The commands and API calls that would see the open tree of an MJCF with loops (retime,
    sensitivities, generate) refuse it in one line; the API asks to close it first where the
    operation can."""
    for args in (["retime", FOURBAR, CRANK, "--factor", "2", "-o", tmp_path / "r.csv"],
                 ["sensitivities", FOURBAR, CRANK, "-o", tmp_path / "s.h5"],
                 ["generate", FOURBAR, "--kind", "cosine", "-o", tmp_path / "g.csv"]):
        result = CliRunner().invoke(app, [str(a) for a in args])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert "--loops (or an MJCF <equality connect|weld>) is not supported" in result.stderr
        assert not list(tmp_path.iterdir())
    robot = api.load_robot(FOURBAR)
    state = {"q": np.zeros(3), "qd": np.zeros(3), "qdd": np.zeros(3)}
    with pytest.raises(HodynError, match="closed loops are not supported"):
        api.retime(robot, factor=2.0, **state)
    with pytest.raises(HodynError, match=r"open: close them first, api.close_loops\(robot\)"):
        api.inverse_dynamics(robot, **state, order=0)
    assert api.inverse_dynamics(api.close_loops(robot), q=np.zeros(1), qd=np.zeros(1),
                                qdd=np.zeros(1), order=0).tau.shape == (1,)  # (one sample)
