"""MJCF models (hodyn_cli.modeling.mjcf): masses and inertias equal MuJoCo's compiled ones,
tau equals MuJoCo's mj_inverse, its rates the time differences of MuJoCo's, Pinocchio's
MJCF reader agrees where it reads the model; bad files are one line and exit 2.

The corpus of dm_control's models is swept in tests/test_mjcf_corpus.py (slow)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import ROOT, STENCIL, STENCIL2
from hodyn_cli import api
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.modeling.urdf import load_model

mjr = pytest.importorskip("mjcf_reference")  # skips where mujoco is not installed
ACROBOT = ROOT / "mjcf" / "acrobot.xml"

DEFAULTS = """<mujoco>
  <default>
    <geom density="800"/>
    <default class="arm">
      <joint type="hinge" axis="0 1 1" range="-1 1"/>
      <geom size="0.02 0.1"/>
      <default class="heavy"><geom mass="0.7"/></default>
    </default>
  </default>
</mujoco>"""

#: every feature the reader has, in one model MuJoCo compiles (COMPILER varies it)
FEATURES = """<mujoco model="features">
  <compiler angle="radian" eulerseq="zyX" inertiagrouprange="0 3" {compiler}/>
  <option gravity="0.5 -0.3 -9.0"/>
  <include file="defaults.xml"/>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <site name="world_site" pos="0 0 1"/>
    <body name="base" pos="0.1 0.2 0.3" euler="0.1 0.2 0.3">
      <geom type="box" size="0.1 0.2 0.3"/>
      <body name="link1" pos="0 0 0.5" axisangle="1 1 0 0.4" childclass="arm">
        <joint name="j1" pos="0.01 0.02 0.03" ref="0.2"/>
        <joint name="j1b" type="slide" axis="1 0 0" ref="0.05" pos="0 0.1 0"/>
        <joint name="j1c" pos="0 0 0.04" axis="1 0 0" ref="-0.3"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <geom type="sphere" size="0.05" pos="0.3 0 0" class="heavy"/>
        <geom type="cylinder" size="0.03 0.1" pos="0.1 0 0.05" zaxis="1 0 0" shellinertia="true"/>
        <geom type="box" size="0.2 0.2 0.2" group="4"/>
        <geom type="box" fromto="0 0 0 0 0.2 0.1" size="0.03" quat="1 0 0 0"/>
        <site name="tool" pos="0.3 0 0" xyaxes="0 1 0 -1 0 0"/>
        <frame pos="0.1 0 0" euler="0 0 0.5">
          <body name="link2" pos="0.2 0 0">
            <joint name="j2" axis="0 0 1" pos="0 0.01 0"/>
            <inertial pos="0.1 0 0" mass="0.5" fullinertia="0.01 0.02 0.025 0.001 0.0005 -0.002"/>
            <geom type="ellipsoid" size="0.05 0.04 0.03"/>
            <body name="tool_mount" pos="0.2 0 0" quat="0.9 0.1 0 0.1">
              <inertial pos="0 0 0.02" quat="1 0 0 0.2" mass="0.3" diaginertia="0.001 0.002 0.0025"/>
              <site name="tcp" pos="0 0 0.1"/>
            </body>
          </body>
        </frame>
      </body>
    </body>
    <body name="slider_arm" pos="1 0 0">
      <joint name="s1" type="slide" axis="0 0 1" range="-0.5 0.5"/>
      <geom type="ellipsoid" size="0.1 0.05 0.02" density="500" shellinertia="true"/>
      <geom type="capsule" size="0.02 0.1" pos="0 0 0.1" shellinertia="true"/>
      <geom type="box" size="0.02 0.03 0.04" pos="0 0.1 0" shellinertia="true"/>
      <geom type="sphere" size="0.03" pos="0.1 0 0" shellinertia="true"/>
      <body name="light" pos="0 0 0.1">
        <joint name="s2" axis="1 0 0"/>
        <inertial pos="0 0 0" mass="{light_mass}" diaginertia="{light_inertia}"/>
      </body>
    </body>
    <body name="target" mocap="true" pos="0 1 0"><geom type="sphere" size="0.05"/></body>
  </worldbody>
</mujoco>"""


def features(tmp_path: Path, compiler: str = "", light_mass: str = "0.1",
             light_inertia: str = "1e-3 1e-3 1e-3") -> Path:
    (tmp_path / "defaults.xml").write_text(DEFAULTS)
    path = tmp_path / "features.xml"
    path.write_text(FEATURES.format(compiler=compiler, light_mass=light_mass,
                                    light_inertia=light_inertia))
    return path


@pytest.mark.parametrize("compiler, light", [
    ("", ("0.1", "1e-3 1e-3 1e-3")),
    ('settotalmass="7.5"', ("0.1", "1e-3 1e-3 1e-3")),
    ('boundmass="0.01" boundinertia="1e-4"', ("0", "0 0 0")),
    ('balanceinertia="true"', ("0.1", "1e-3 1e-3 3e-3")),
    ('inertiafromgeom="true"', ("0.1", "1e-3 1e-3 1e-3")),
    ('fusestatic="true" settotalmass="3"', ("0.1", "1e-3 1e-3 1e-3")),
])
def test_features_equal_mujoco(tmp_path, compiler, light):
    """Includes, nested defaults and childclass, frames, every orientation, three joints in
    one body with pos and ref, static and mocap bodies, every primitive geom solid and shell,
    fromto, an excluded group, <inertial> full and diagonal, and the compiler's mass rules."""
    path = features(tmp_path, compiler, *light)
    errors = mjr.inertia_errors(path)
    if "fusestatic" in compiler:  # MuJoCo's link2 holds tool_mount now (same dynamics)
        errors.pop("link2")
    assert max(max(e[:2]) for e in errors.values()) < 1e-12, errors
    model = load_model(path)
    assert model.joint_names == ("j1", "j1b", "j1c", "j2", "s1", "s2")
    assert mjr.torque_error(path, model) < 1e-9
    assert model.gravity == (0.5, -0.3, -9.0)


def test_sites_and_bodies_are_frames(tmp_path):
    """A site's pose from hodyn's kinematics equals MuJoCo's site_xpos/xmat (the world
    body is the root frame)."""
    path = features(tmp_path)
    model = load_model(path)
    m = mjr.mujoco.MjModel.from_xml_path(str(path))
    d = mjr.mujoco.MjData(m)
    q = np.random.default_rng(1).normal(size=model.n)
    d.qpos[:] = q
    mjr.mujoco.mj_kinematics(m, d)
    for site in ("tcp", "tool"):
        res = api.forward_kinematics(model, site, q[None], np.zeros((1, model.n)), order=0)
        k = mjr.mujoco.mj_name2id(m, mjr.mujoco.mjtObj.mjOBJ_SITE, site)
        assert np.allclose(res.p[0], d.site_xpos[k], atol=1e-12)
        assert np.allclose(res.R[0], d.site_xmat[k].reshape(3, 3), atol=1e-12)


MESHES = """<mujoco model="meshes">
  <compiler meshdir="shapes"/>
  <asset>
    <mesh name="stl" file="hull.stl" scale="1 2 0.5"/>
    <mesh name="obj" file="hull.obj" refpos="0.1 0 0" refquat="0.9 0.1 0.2 0.3" inertia="exact"/>
    <mesh name="msh" file="hull.msh" inertia="shell"/>
  </asset>
  <worldbody>
    <body name="a"><joint axis="1 0 0"/><geom type="mesh" mesh="stl" density="500" euler="10 20 30"/>
      <body name="b" pos="0.3 0 0"><joint/>
        <geom type="mesh" mesh="obj" mass="0.8" pos="0 0.1 0"/><geom type="capsule" size="0.02 0.1"/>
        <body name="c" pos="0 0 0.3"><joint type="slide"/><geom type="mesh" mesh="msh"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def write_hull(folder: Path, seed: int = 3) -> None:
    """An irregular convex solid (the hull of random points, faces turned outwards) as a
    binary STL, an OBJ and a MuJoCo MSH file."""
    from scipy.spatial import ConvexHull

    rng = np.random.default_rng(seed)
    points = (rng.normal(size=(30, 3)) * [0.1, 0.05, 0.2] + [0.3, 0.1, -0.2]).astype(np.float32)
    hull = ConvexHull(points)
    points = points[hull.vertices]  # only the corners: MuJoCo's hull refuses inner points
    renumber = np.zeros(hull.vertices.max() + 1, dtype=int)
    renumber[hull.vertices] = np.arange(len(hull.vertices))
    faces = renumber[hull.simplices]
    a, b, c = (points[faces[:, k]].astype(float) for k in range(3))
    inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), a - points.mean(0)) < 0
    faces[inward] = faces[inward][:, [0, 2, 1]]
    folder.mkdir()
    rows = np.zeros(len(faces), np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
    rows["v"] = points[faces]
    (folder / "hull.stl").write_bytes(bytes(80) + np.uint32(len(faces)).tobytes() + rows.tobytes())
    (folder / "hull.obj").write_text("".join(f"v {x!r} {y!r} {z!r}\n" for x, y, z in
                                             points.astype(float).tolist())
                                     + "".join(f"f {i + 1} {j + 1} {k + 1}\n" for i, j, k in faces))
    (folder / "hull.msh").write_bytes(np.array([len(points), 0, 0, len(faces)], "<i4").tobytes()
                                      + points.astype("<f4").tobytes() + faces.astype("<i4").tobytes())


def test_meshes_equal_mujoco(tmp_path):
    """Mesh inertias (STL, OBJ, MSH; scale, refpos, refquat; legacy, exact and shell; density
    and mass) as MuJoCo compiles them: masses, COMs and inertias to 1e-12, tau to 1e-9."""
    write_hull(tmp_path / "shapes")
    path = tmp_path / "meshes.xml"
    path.write_text(MESHES)
    plain, meshes = mjr.assert_inertias(path)
    assert meshes > 0 or plain == 0  # the bodies are compared (and have meshes)
    assert mjr.torque_error(path, load_model(path)) < 1e-9


def _obj(path: Path, vertices, faces) -> None:
    path.write_text("".join(f"v {x} {y} {z}\n" for x, y, z in vertices)
                    + "".join("f " + " ".join(str(i + 1) for i in f) + "\n" for f in faces))


def write_polygons(folder: Path) -> None:
    """OBJ files of polygons: an L-shaped prism of quads (not convex), a box whose top corner
    is raised (quads that are not plane: the diagonal they are split along matters, and both
    are taken), a pentagonal prism (two pentagons)."""
    folder.mkdir()
    ell = [(0, 0, 0), (2, 0, 0), (2, 1, 0), (1, 1, 0), (1, 2, 0), (0, 2, 0)]
    _obj(folder / "ell.obj", ell + [(x, y, 1) for x, y, _ in ell],
         [(0, 5, 4, 3), (0, 3, 2, 1), (6, 7, 8, 9), (6, 9, 10, 11)]
         + [(k, (k + 1) % 6, (k + 1) % 6 + 6, k + 6) for k in range(6)])
    box = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1.4),
           (0, 1, 1)]
    _obj(folder / "twist.obj", box, [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5),
                                     (2, 3, 7, 6), (3, 0, 4, 7)])
    ring = [(np.cos(a), np.sin(a)) for a in np.arange(5) * 2 * np.pi / 5]
    _obj(folder / "penta.obj", [(x, y, 0.0) for x, y in ring] + [(x, y, 0.5) for x, y in ring],
         [(4, 3, 2, 1, 0), (5, 6, 7, 8, 9)] + [(k, (k + 1) % 5, (k + 1) % 5 + 5, k + 5)
                                                for k in range(5)])


POLYGONS = """<mujoco model="polygons">
  <compiler meshdir="polygons"/>
  <asset>
    <mesh name="ell" file="ell.obj"/>
    <mesh name="ell_convex" file="ell.obj" inertia="convex" scale="0.1 0.2 0.1"/>
    <mesh name="ell_exact" file="ell.obj" inertia="exact" refpos="0.5 0.5 0"/>
    <mesh name="twist" file="twist.obj" scale="0.2 0.2 0.2"/>
    <mesh name="twist_shell" file="twist.obj" inertia="shell"/>
    <mesh name="penta" file="penta.obj" refquat="0.9 0.1 0.2 0.3"/>
    <mesh name="points" vertex="0 0 0  1 0 0  0 1 0  0 0 1  0.2 0.2 0.2  1 1 1"/>
  </asset>
  <worldbody>
    <body name="a"><joint axis="1 0 0"/><geom type="mesh" mesh="ell" density="50"/>
      <body name="b" pos="0.3 0 0"><joint/><geom type="mesh" mesh="ell_convex" euler="10 20 30"/>
        <geom type="mesh" mesh="ell_exact" mass="0.3"/>
        <body name="c" pos="0 0 0.3"><joint type="slide"/><geom type="mesh" mesh="twist"/>
          <body name="d"><joint axis="0 1 0"/><geom type="mesh" mesh="twist_shell" density="3"/>
            <body name="e"><joint axis="0 0 1"/><geom type="mesh" mesh="penta"/>
              <body name="f"><joint/><geom type="mesh" mesh="points" pos="0.1 0 0"/></body>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


def test_polygons_and_hulls_equal_mujoco(tmp_path):
    """OBJ quads and pentagons, inertia="convex" (qhull's hull of a mesh that is not convex)
    and a mesh of vertices alone (its hull's faces) as MuJoCo compiles them: masses, COMs and
    inertias to 1e-12, tau to 1e-9."""
    write_polygons(tmp_path / "polygons")
    path = tmp_path / "polygons.xml"
    path.write_text(POLYGONS)
    plain, meshes = mjr.assert_inertias(path)
    assert meshes > 0 or plain == 0
    assert mjr.torque_error(path, load_model(path)) < 1e-9


@pytest.mark.parametrize("name", ["cartpole", "finger", "fish", "humanoid"])
def test_dm_control_models(name):
    """A handful of dm_control's models: a slide, a hinge with ref (finger), a free root with
    two joints per body (fish), a humanoid with a free root."""
    suite = pytest.importorskip("dm_control.suite")
    path = Path(suite.__file__).parent / f"{name}.xml"
    mjr.assert_inertias(path)
    assert mjr.torque_error(path, load_model(path)) < 1e-9


def test_cli_floating_base_is_mujocos_free_joint(tmp_path):
    """compute --floating-base --base-wrench on fish.xml (a free root, two joints in a body)
    from a file of MuJoCo's states converted as docs/mjcf.md says: the torques and the base
    wrench equal mj_inverse's generalized forces."""
    suite = pytest.importorskip("dm_control.suite")
    path = Path(suite.__file__).parent / "fish.xml"
    model = load_model(path)
    m = mjr.rigid_body_only(path)
    rng = np.random.default_rng(4)
    header, rows, refs = None, [], []
    for k in range(3):
        (qpos, qvel, qacc), traj = mjr.random_state(model, rng)
        refs.append(mjr.mj_inverse(m, qpos, qvel, qacc))
        base = traj.base
        cols = {"t": [0.01 * k]}
        for d, prefix in enumerate(("q", "qd", "qdd")):
            cols |= {f"{prefix}_{j}": [traj.derivatives[0, d, i]]
                     for i, j in enumerate(model.joint_names)}
        cols |= {f"base_p_{a}": [base.p[0, i]] for i, a in enumerate("xyz")}
        cols |= {f"base_R_{r + 1}{c + 1}": [base.R[0, r, c]] for r in range(3) for c in range(3)}
        for d, name in enumerate(("Vb", "Vbd")):
            cols |= {f"base_{name}_{a}": [base.Vb[0, d, i]]
                     for i, a in enumerate(("wx", "wy", "wz", "vx", "vy", "vz"))}
        header = list(cols)
        rows.append([repr(float(v[0])) for v in cols.values()])
    (tmp_path / "states.csv").write_text(",".join(header) + "\n"
                                         + "".join(",".join(r) + "\n" for r in rows))
    g = ",".join(repr(float(v)) for v in mjr.GRAVITY)
    result = CliRunner().invoke(app, ["compute", str(path), str(tmp_path / "states.csv"),
                                      "--floating-base", "--base-wrench", "--order", "0",
                                      "--gravity", g, "-o", str(tmp_path / "out.csv")])
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "out.csv").read_text().splitlines()
    names = lines[0].split(",")
    out = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    for k, ref in enumerate(refs):
        R = np.array(rows[k][header.index("base_R_11"):header.index("base_R_33") + 1],
                     dtype=float).reshape(3, 3)
        W = np.array([out[k, names.index(f"W_torso_{a}")]
                      for a in ("mx", "my", "mz", "fx", "fy", "fz")])
        tau = np.array([out[k, names.index(f"tau_{j}")] for j in model.joint_names])
        ours = np.concatenate([-R @ W[3:], -W[:3], tau])
        assert np.abs(ours - ref).max() < 1e-9 * np.abs(ref).max()


def test_rates_are_mujocos_time_differences():
    """taud, taudd of hodyn along an analytic motion equal the 8th-order central differences
    of MuJoCo's tau (mj_inverse at the stencil's times)."""
    model = load_model(ACROBOT)
    m = mjr.rigid_body_only(ACROBOT)
    t0, h = np.array([0.3, 1.1]), 1e-3
    t = (t0[:, None] + np.arange(-4, 5) * h).ravel()
    traj = cosine(model.joint_names, t, amplitude=[0.8, 1.2], omega=[1.3, 2.1],
                  phase=[0.2, 1.0], offset=[0.1, -0.4], orders=5)
    ours = api.inverse_dynamics(model, traj, order=2, gravity=mjr.GRAVITY)
    ref = np.array([mjr.mj_inverse(m, *traj.derivatives[s, :3]) for s in range(len(t))])
    ref = ref.reshape(len(t0), 9, -1)
    mid = slice(4, None, 9)
    assert np.abs(ours.tau[mid] - ref[:, 4]).max() < 1e-9 * np.abs(ref).max()
    for field, stencil, power, rtol in (("taud", STENCIL, 1, 1e-9), ("taudd", STENCIL2, 2, 1e-7)):
        numeric = np.tensordot(stencil, ref, axes=(0, 1)) / h ** power
        got = getattr(ours, field)[mid]
        assert np.abs(got - numeric).max() < rtol * np.abs(got).max(), field


@pytest.mark.parametrize("name", ["suite/pendulum.xml", "suite/reacher.xml",
                                  "mujoco/testing/assets/cartpole.xml"])
def test_pinocchio_mjcf_agrees(name):
    """Pinocchio's buildModelFromMJCF gives the same tau on models it reads as MuJoCo does
    (on others, e.g. acrobot's masses from a default class, it does not: docs/mjcf.md)."""
    dm = pytest.importorskip("dm_control")
    path = Path(dm.__file__).parent / name
    error = mjr.pinocchio_error(path, load_model(path))
    assert error is not None and error < 1e-12


BAD = {
    "deep free": ('<body name="a"><joint/><geom size="0.1"/><body name="b"><freejoint '
                  'name="f"/><geom size="0.1"/></body></body>', "joint 'f': a free joint below"),
    "unknown type": ('<body name="b"><joint name="j" type="spiral"/><geom size="0.1"/></body>',
                     "joint 'j' of body 'b': unknown joint type 'spiral'"),
    "zero axis": ('<body name="b"><joint name="j" axis="0 0 0"/><geom size="0.1"/></body>',
                  "joint 'j' of body 'b': axis is zero"),
    "massless": ('<body name="b"><joint name="j"/></body>', "body 'b' moves (joint 'j') but has "
                                                            "no mass"),
    "include": ('</worldbody><include file="nowhere.xml"/><worldbody>',
                "<include file='nowhere.xml'> (line 1): no such file"),
    "mesh file": ('</worldbody><asset><mesh name="m" file="gone.stl"/></asset><worldbody>',
                  "mesh 'm': file 'gone.stl' not found"),
    "flat mesh": ('</worldbody><asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/></asset>'
                  '<worldbody><body name="b"><joint/><geom type="mesh" mesh="m"/></body>',
                  "mesh 'm': no convex hull of its vertices"),
    "equality": ('<body name="b"><joint name="j"/><geom size="0.1"/></body></worldbody><equality>'
                 '<connect name="e" body1="b"/></equality><worldbody>',
                 "<equality> connect 'e': needs body1 and anchor, or site1 and site2"),
    "two free": ('<body name="a"><freejoint/><geom size="0.1"/></body><body name="b"><freejoint/>'
                 '<geom size="0.1"/></body>', "several free bodies ('a', 'b')"),
    "aligned": ('<body name="b"><freejoint name="f" align="true"/><geom size="0.1"/></body>',
                "joint 'f': a free body aligned to its inertial frame"),
    "xml": ('<body name="b">', "not well-formed XML"),
    "twice": ('<body name="b"><joint name="j"/><geom size="0.1"/><body name="c"><joint name="j"/>'
              '<geom size="0.1"/></body></body>', "joint name 'j' is used twice"),
    "class": ('<body name="b"><joint class="nope"/><geom size="0.1"/></body>',
              "unknown default class 'nope'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_files_are_one_line(tmp_path, case):
    body, message = BAD[case]
    (tmp_path / "t.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n"
                                    "f 1 3 4\nf 2 3 4\n")
    path = tmp_path / "bad.xml"
    path.write_text(f'<mujoco model="bad"><worldbody>{body}</worldbody></mujoco>')
    mjr.assert_refused(path, message)


def test_cli_gravity_from_the_model(tmp_path):
    """compute takes <option gravity> unless --gravity is given, and says so."""
    path = features(tmp_path)
    model = load_model(path)
    traj = tmp_path / "traj.csv"
    runner = CliRunner()
    assert runner.invoke(app, ["generate", str(path), "--kind", "cosine", "--duration", "0.05",
                               "-o", str(traj)]).exit_code == 0
    out = {}
    for name, extra in (("model", []), ("given", ["--gravity", "0.5,-0.3,-9.0"]),
                        ("other", ["--gravity", "0,0,-9.81"])):
        result = runner.invoke(app, ["compute", str(path), str(traj), "--order", "0", "-o",
                                     str(tmp_path / f"{name}.csv"), *extra])
        assert result.exit_code == 0, result.output
        assert "from <option gravity>" in result.output
        out[name] = np.loadtxt(tmp_path / f"{name}.csv", delimiter=",", skiprows=1)
    assert np.array_equal(out["model"], out["given"])
    assert not np.allclose(out["model"], out["other"])
    assert model.n == 6
