"""The continuation between samples of a closed robot (docs/loops.md) counts its steps from
the actuated joints that move the loops' closure alone: a joint above the loops (the leg's
hip) moves them rigidly and takes no step however far it goes (a hip at 1e6 rad took 5
million). The passive joints are the same numbers as when every actuated joint counted: bit
for bit where the steps did not change, within 1e-12 where the hip's moves set them; and a
hip at 1e6 rad is the hip at 0.1 rad's loop (numpy's reference and the compiled kernel)."""

from __future__ import annotations

import copy
import time

import numpy as np
import pytest

from conftest import URDF, kernel_variants
from hodyn_cli import api
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.motion.loops import Closed
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.errors import HodynError

#: mechanism -> the actuated joints' cosine (offset, amplitude, omega per joint) and the
#: actuated joints that move its loop (the leg's hip carries the whole knee linkage)
MECHANISMS = {"fourbar": (([0.3], [1.2], [3.0]), ["crank"]),
              "fivebar": (([-2.0, -1.1], [0.3, 0.25], [2.0, 3.0]), ["left", "right"]),
              "leg_fourbar_knee": (([0.0, -0.5], [0.3, 0.4], [2.0, 3.0]), ["knee_motor"])}
BACKENDS = ["numpy", pytest.param("compiled", marks=[
    pytest.mark.kernel, pytest.mark.skipif(not kernel_variants(), reason="no compiled kernel")])]


def closed(name: str):
    return api.close_loops(api.load_robot(URDF / f"{name}.urdf"), URDF / f"{name}_loops.toml")


def every_joint_counted(c: Closed) -> Closed:
    """The coupling as it was before: every actuated joint's move counted in the steps."""
    old = copy.copy(c)
    old.closing = np.ones_like(c.closing)
    old.cuts = old._cuts()
    return old


@pytest.mark.parametrize("name", list(MECHANISMS))
def test_the_joints_that_move_a_loop_are_those_between_its_cut_and_their_common_body(name):
    robot = closed(name)
    c = robot.coupling
    assert [robot.coordinate_names[i] for i in np.flatnonzero(c.closing)] == MECHANISMS[name][1]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name, hip", [("fourbar", None), ("fivebar", None),
                                       ("leg_fourbar_knee", None), ("leg_fourbar_knee", 3.0)])
def test_the_passive_joints_are_those_every_joint_counted_gave(backend, name, hip):
    """Along 300 samples 10 ms apart (anchors, halving levels, samples between them) with
    their derivatives, and at the same positions without times (every sample continued):
    the four-bar's, the five-bar's and the leg's steps are as before (every actuated joint
    moves its loop, or the knee motor moves farther than the hip), so the numbers are bit
    for bit. With the hip swinging 3 rad (``3 sin t``) its moves set the steps before (15
    from the assembly), not now (5): other paths to the same positions, within 1e-12 rad;
    their derivatives (the implicit function theorem's there) within 1e-11 of each order's
    largest, the rounding the numpy reference and the kernel differ by along this motion
    (Newton stops within 1e-13 of the loop: the derivatives' terms in root axes, where the
    hip turns the whole linkage, cancel to ~1e-12)."""
    robot = closed(name)
    c = robot.coupling
    (offset, amplitude, omega), _ = MECHANISMS[name]
    phase = [0.0] * len(offset)
    if hip is not None:
        amplitude, omega, phase = [hip, *amplitude[1:]], [1.0, *omega[1:]], [-np.pi / 2, 0.0]
    tr = cosine(robot.coordinate_names, np.arange(300) * 0.01, amplitude=amplitude,
                omega=omega, offset=offset, phase=phase, orders=4)
    with backends.use(backend):
        now, before = c.expand(tr).derivatives, every_joint_counted(c).expand(tr).derivatives
        positions = c.positions(tr.q), every_joint_counted(c).positions(tr.q)
    if hip is None:
        assert np.array_equal(now, before)
        assert np.array_equal(*positions)
        return
    assert not np.array_equal(now, before)   # (the paths did change)
    assert np.abs(positions[0] - positions[1]).max() <= 1e-12
    assert np.abs(now[:, 0] - before[:, 0]).max() <= 1e-12
    for k in range(1, now.shape[1]):
        assert np.abs(now[:, k] - before[:, k]).max() <= 1e-11 * np.abs(before[:, k]).max(), k


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_hip_at_a_million_radians_takes_one_step(backend, monkeypatch):
    """The leg with its hip at 1e6 rad and the knee motor 0.1 rad from the assembly: the
    knee linkage's passive joints are those of the hip at 0.1 rad (the hip turns the loop
    whole), found in one continuation step (numpy's Newton is called once; every
    actuated joint counted, it was 5 million steps, ~18 CPU-s with the kernel), and a
    file with such a sample computes its torques in well under a second."""
    robot = closed("leg_fourbar_knee")
    c = robot.coupling
    steps: list[int] = []
    newton = Closed._newton

    def counted(self, q, *args, **kwargs):
        steps.append(len(q))
        assert len(steps) < 100, "a step per 0.2 rad of the hip"
        return newton(self, q, *args, **kwargs)

    knee = c.reference[c.a[1]] + 0.1
    with backends.use(backend):
        if backend == "numpy":
            monkeypatch.setattr(Closed, "_newton", counted)
        far = c.positions(np.array([[1e6, knee]]))
        monkeypatch.undo()
        near = c.positions(np.array([[0.1, knee]]))
        assert np.abs(far[:, c.p] - near[:, c.p]).max() <= 1e-12
        assert backend != "numpy" or steps == [1]
        tr = cosine(robot.coordinate_names, np.arange(40) * 0.01, amplitude=[0.3, 0.4],
                    omega=[2.0, 3.0], offset=[0.0, -0.5], orders=4)
        tr.derivatives[17, 0, 0] = 1e6
        start = time.process_time()
        out = api.inverse_dynamics(robot, tr, order=2)
        assert time.process_time() - start < 1.0
    assert np.isfinite(out["tau"]).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_hip_off_the_loop_that_swings_fast_sends_no_sample_back_to_its_anchor(backend):
    """The leg's hip (above the knee linkage: it moves no closure) swinging at 80 rad/s
    (``0.3 sin 80 t``: its Taylor polynomial's last term over 10-40 ms is up to ~1 rad, far
    beyond TAYLOR_TOL) while the knee motor moves slowly, 300 samples 10 ms apart: no sample
    between the anchors is too far (156 of 261 were: Newton's start is the passive joints'
    prediction, the actuated joints start at their own positions, so only the joints on
    the loops count), in numpy's prediction and the compiled kernel's, and the passive
    joints are those of the hip held still (the knee linkage's motion is the knee motor's
    alone), within 1e-12 of each order's largest (the hip's: their terms in root axes,
    where the hip turns the linkage, cancel to its rounding)."""
    from hodyn_cli.algorithms.motion.loops import STEP, TAYLOR, TAYLOR_TOL, _hermite

    robot = closed("leg_fourbar_knee")
    c = robot.coupling
    t = np.arange(300) * 0.01
    fast, still = (cosine(robot.coordinate_names, t, amplitude=[hip, 0.4], omega=[80.0, 3.0],
                          offset=[0.0, -0.5], orders=4) for hip in (0.3, 0.0))
    samples = np.setdiff1d(np.arange(len(t)), np.union1d(np.arange(0, len(t), TAYLOR),
                                                         [len(t) - 1]))
    with backends.use(backend) as b:
        full, ref = c.expand(fast).derivatives, c.expand(still).derivatives
        far = c._prediction(full, samples, t)[1] if backend == "numpy" else \
            b.loop_predict(full, t, samples, TAYLOR, c.a, c.cuts.closing, c.tol.unit, STEP,
                           TAYLOR_TOL, _hermite(full.shape[1]))[1]
    assert not far.any(), f"{far.sum()} of {len(samples)} samples too far"
    for k in range(full.shape[1]):
        assert np.abs(full[:, k, c.p] - ref[:, k, c.p]).max() <= \
            1e-12 * np.abs(full[:, k]).max(), k


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loop_no_actuated_joint_moves_takes_one_step(backend, tmp_path):
    """The four-bar with its crank fixed at 0 (a rigid triangle: the coupler and the rocker
    passive, no actuated joint on the loop) on a base turning about the loop's normal, the
    one actuated joint: the base at 1e6 rad closes it in one step, to the four-bar's
    coupler and rocker at crank 0, and along a motion of the base (the samples between the
    anchors too) the coupler and the rocker stand still there."""
    text = (URDF / "fourbar.urdf").read_text()
    text = text.replace('<parent link="ground"/>', '<parent link="frame"/>').replace(
        '<joint name="crank" type="revolute">', '<joint name="crank" type="fixed">').replace(
        '<link name="ground"/>', '<link name="ground"/><joint name="base" type="revolute">'
        '<parent link="ground"/><child link="frame"/><axis xyz="0 1 0"/><limit lower="-1e7" '
        'upper="1e7" effort="100" velocity="20"/></joint><link name="frame"/>')
    (tmp_path / "triangle.urdf").write_text(text)
    triangle = api.close_loops(api.load_robot(tmp_path / "triangle.urdf"), {
        "actuated": ["base"], "guess": {"coupler": -1.0, "rocker": -1.8},
        "loops": {"knee": {"type": "point", "a": {"link": "coupler_link", "xyz": [0.35, 0, 0]},
                           "b": {"link": "rocker_link", "xyz": [0.3, 0, 0]}}}})
    c = triangle.coupling
    assert not c.closing.any()
    fourbar = closed("fourbar")
    with backends.use(backend):
        q = c.positions(np.array([[1e6], [-3.0]]))
        expected = fourbar.coupling.positions(np.zeros((1, 1)))
        turning = c.expand(cosine(("base",), np.arange(40) * 0.01, amplitude=[3.0],
                                  omega=[2.0], offset=[1e6], orders=4)).derivatives
    names = list(triangle.joint_names)
    for joint in ("coupler", "rocker"):
        column = fourbar.joint_names.index(joint)
        assert np.abs(q[:, names.index(joint)] - expected[0, column]).max() <= 1e-12, joint
        still = turning[:, :, names.index(joint)]
        assert np.abs(still[:, 0] - expected[0, column]).max() <= 1e-12, joint
        assert np.abs(still[:, 1:]).max() <= 1e-9, joint


def _above_the_hip(name: str, kind: str, axis: str) -> str:
    """The leg with a joint ``name`` between its pelvis and its hip."""
    text = (URDF / "leg_fourbar_knee.urdf").read_text()
    text = text.replace('<parent link="pelvis"/>\n    <child link="thigh"/>',
                        f'<parent link="{name}_link"/>\n    <child link="thigh"/>')
    return text.replace('<link name="pelvis"/>', (
        f'<link name="pelvis"/><joint name="{name}" type="{kind}"><parent link="pelvis"/>'
        f'<child link="{name}_link"/><axis xyz="{axis}"/><limit lower="-100" upper="100" '
        f'effort="100" velocity="20"/></joint><link name="{name}_link"><inertial><mass '
        'value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>'
        '</inertial></link>'))


def _two_fourbars() -> str:
    """The four-bar with a second one hung on its rocker's end by a joint ``mid`` (axis y):
    ``mid`` moves both sides of the second loop and is off the first one's paths."""
    text = (URDF / "fourbar.urdf").read_text()
    body = text.split('<link name="ground"/>')[1].split("</robot>")[0]
    for word in ("crank", "coupler", "rocker"):
        body = body.replace(f'"{word}_link"', f'"{word}_link2"').replace(
            f'name="{word}"', f'name="{word}2"')
    body = body.replace('<parent link="ground"/>', '<parent link="ground2"/>')
    return text.replace("</robot>", (
        '<joint name="mid" type="revolute"><parent link="rocker_link"/><child link="ground2"/>'
        '<origin xyz="0.3 0 0"/><axis xyz="0 1 0"/><limit lower="-100" upper="100" '
        'effort="100" velocity="20"/></joint><link name="ground2"/>') + body + "</robot>")


LEG_LOOP = {"knee": {"type": "point", "a": {"link": "knee_rod_link", "xyz": [0, 0, -0.3]},
                     "b": {"link": "shank", "xyz": [0.06, 0, 0]}}}
FOURBAR_LOOP = {"type": "point", "a": {"link": "coupler_link", "xyz": [0.35, 0, 0]},
                "b": {"link": "rocker_link", "xyz": [0.3, 0, 0]}}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["slider above the hip", "a joint between two loops"])
def test_joints_off_the_loops_leave_the_numbers_of_every_joint_counted(backend, name,
                                                                       tmp_path):
    """A prismatic joint above the leg's hip swinging 2 m (it takes no step now, 10 before)
    and, on two four-bars in series, the joint between them swinging 3 rad (above the
    second loop, off the first one's paths): the passive joints within 1e-12 rad of every
    actuated joint counted, their derivatives within 1e-11 of each order's largest, along
    100 samples 10 ms apart and 20 samples 0.3 s apart (continued from the anchors)."""
    if name == "slider above the hip":
        text = _above_the_hip("slide", "prismatic", "0 0 1")
        loops = {"actuated": ["slide", "hip", "knee_motor"], "loops": LEG_LOOP}
        motion, closing = ([0.0, 0.0, -0.5], [2.0, 0.3, 0.4], [1.0, 2.0, 3.0]), ["knee_motor"]
    else:
        text = _two_fourbars()
        loops = {"actuated": ["crank", "mid", "crank2"], "guess": {
            "coupler": -1.0, "rocker": -1.8, "coupler2": -1.0, "rocker2": -1.8},
            "loops": {"first": FOURBAR_LOOP, "second": {
                "type": "point", "a": {"link": "coupler_link2", "xyz": [0.35, 0, 0]},
                "b": {"link": "rocker_link2", "xyz": [0.3, 0, 0]}}}}
        motion, closing = ([0.3, 0.0, 0.3], [1.2, 3.0, 1.0], [3.0, 1.0, 2.0]), \
            ["crank", "crank2"]
    (tmp_path / "robot.urdf").write_text(text)
    robot = api.close_loops(api.load_robot(tmp_path / "robot.urdf"), loops)
    c = robot.coupling
    assert [robot.coordinate_names[i] for i in np.flatnonzero(c.closing)] == closing
    offset, amplitude, omega = motion
    for dt, N in ((0.01, 100), (0.3, 20)):
        tr = cosine(robot.coordinate_names, np.arange(N) * dt, amplitude=amplitude,
                    omega=omega, offset=offset, orders=4)
        with backends.use(backend):
            now, before = c.expand(tr).derivatives, every_joint_counted(c).expand(tr).derivatives
        assert np.abs(now[:, 0] - before[:, 0]).max() <= 1e-12, dt
        for k in range(1, now.shape[1]):
            assert np.abs(now[:, k] - before[:, k]).max() <= 1e-11 * np.abs(before[:, k]).max()


@pytest.mark.parametrize("joint, axis", [("abduction", "1 0 0"), ("yaw", "0 0 1")])
def test_a_joint_above_that_turns_a_planar_loops_plane_is_refused_as_before(joint, axis,
                                                                            tmp_path):
    """A joint above the leg's hip that turns the knee linkage's plane (its point loop's
    kept rows, root axes, fixed at the assembly) takes no continuation step now, but the
    loop's redundant row comes alive as before: the same one-line refusal at the same
    sample, whether its moves count or not."""
    (tmp_path / "leg.urdf").write_text(_above_the_hip(joint, "revolute", axis))
    robot = api.close_loops(api.load_robot(tmp_path / "leg.urdf"),
                            {"actuated": [joint, "hip", "knee_motor"], "loops": LEG_LOOP})
    c = robot.coupling
    tr = cosine(robot.coordinate_names, np.arange(40) * 0.01, amplitude=[3.0, 0.3, 0.4],
                omega=[1.0, 2.0, 3.0], offset=[0.0, 0.0, -0.5], orders=4)
    errors = []
    for coupling in (c, every_joint_counted(c)):
        with pytest.raises(HodynError, match="redundant rows change") as raised:
            coupling.expand(tr)
        errors.append(str(raised.value))
    assert errors[0] == errors[1]
