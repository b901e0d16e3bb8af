"""`hodyn ik` between samples: convergence at the sampling the file has, continuity, start
poses inside the limits.

The proofs: a non-redundant arm's joint motion comes back as the motion the flange motion
was made from, at every sample (so no sample on another branch); a redundant arm's result
moves the flange as prescribed (forward kinematics, an independent computation) and the
same motion sampled at 100 Hz and 1 kHz gives the same self-motion; a motion file with a
discontinuity is refused naming its time; the issue's UR5 case (elbow mirrored at
t = 7.53 s, a start pose a turn outside the limits) reproduced on a UR5-like URDF.
"""

import re

import numpy as np
import pytest

from conftest import SAMPLES, URDF
from conftest import hodyn_here as hodyn
from hodyn_cli.algorithms.motion.ik import (
    InverseKinematics,
    hermite_steps,
    inverse_kinematics,
    quadrature_error,
    reliable_orders,
)
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.core.motion import LinkMotion
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.locking import lock
from hodyn_cli.modeling.urdf import load_model, parse_model

IIWA = URDF / "iiwa14.urdf"
EE = "iiwa_link_ee"
OFFSET7 = np.array([0.2, 0.9, 0.3, -1.3, 0.3, 1.1, 0.1])   # elbow, wrist, shoulder bent

# the UR5's kinematics (ur_description), its limits: +-2 pi, the elbow +-pi
TURN, HALF = 2 * np.pi, np.pi / 2
UR5 = [("shoulder_pan_joint", "0 0 0.089159", "0 0 0", "0 0 1", TURN),
       ("shoulder_lift_joint", "0 0.13585 0", f"0 {HALF} 0", "0 1 0", TURN),
       ("elbow_joint", "0 -0.1197 0.425", "0 0 0", "0 1 0", np.pi),
       ("wrist_1_joint", "0 0 0.39225", f"0 {HALF} 0", "0 1 0", TURN),
       ("wrist_2_joint", "0 0.093 0", "0 0 0", "0 0 1", TURN),
       ("wrist_3_joint", "0 0 0.09465", "0 0 0", "0 1 0", TURN)]


def ur5_like() -> bytes:
    parts, parent = ['<robot name="ur5_like"><link name="base_link"/>'], "base_link"
    for k, (name, xyz, rpy, axis, limit) in enumerate(UR5):
        child = f"link{k + 1}"
        parts.append(
            f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
            f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/><limit lower="{-limit!r}" '
            f'upper="{limit!r}" effort="150" velocity="3.15"/></joint><link name="{child}">'
            '<inertial><origin xyz="0 0 0.1"/><mass value="1"/><inertia ixx="0.01" ixy="0" '
            'ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>')
        parent = child
    parts.append(f'<joint name="tool0_fixed_joint" type="fixed"><parent link="{parent}"/>'
                 f'<child link="tool0"/><origin xyz="0 0.0823 0" rpy="-{HALF} 0 0"/></joint>'
                 '<link name="tool0"/></robot>')
    return "".join(parts).encode()


@pytest.fixture(scope="module")
def iiwa():
    return load_model(IIWA)


def motion_at(model, rate: float, duration: float, offset, seed: int = 0, order: int = 3):
    rng = np.random.default_rng(seed)
    t = np.arange(0, duration, 1 / rate)
    traj = cosine(model.joint_names, t, amplitude=0.4 * rng.uniform(0.6, 1.0, model.n),
                  omega=rng.uniform(1.0, 2.5, model.n), phase=rng.uniform(0, 2 * np.pi, model.n),
                  offset=offset, orders=order + 2)
    return traj, LinkMotion.of(link_kinematics(model, traj, EE, order=order), t)


def test_helpers_quadrature_error_and_reliable_orders():
    """The error estimate is the size of the quadrature's actual error on cosines sampled
    2 to 3.3 rad per sample (within a factor 10), at 100 Hz and 1 kHz; derivative orders
    drop as the condition grows."""
    for h, w in ((0.01, 30.0), (0.01, 50.0), (0.001, 500.0), (0.001, 300.0)):
        t = np.array([0.3, 0.3 + h])
        qs = np.stack([np.cos(w * t + k * HALF) * w**k for k in range(5)], 1)[..., None]
        error = abs(hermite_steps(qs, np.array([[h]]))[0, 0] - (qs[1, 0, 0] - qs[0, 0, 0]))
        estimate = quadrature_error(qs, np.array([[h]]))
        assert estimate / 10 < error < 10 * estimate, (h, w, error, estimate)
    assert reliable_orders(np.array([1.0, 100.0, 1e4, 1e6, 1e12]), 4).tolist() == [4, 4, 2, 1, 0]


@pytest.mark.parametrize("rate", [100, 1000])
def test_six_dof_comes_back_at_100_hz_and_1_khz(iiwa, rate):
    six = lock(iiwa, {"iiwa_joint_3": 0.0})
    traj, motion = motion_at(six, rate, 2.0, np.delete(OFFSET7, 2), seed=1)
    qs = inverse_kinematics(six, motion, EE, q0=traj.q[0] + 0.1).trajectory.derivatives
    for k in range(5):
        scale = np.abs(traj.derivatives[:, k]).max()
        assert np.abs(qs[:, k] - traj.derivatives[:, k]).max() < 1e-9 * scale, k


def test_redundant_converges_at_100_hz_and_1_khz_to_the_same_self_motion(iiwa):
    """Before: 'the integrated positions still change by 8.5e-11 after 12 passes' at
    100 Hz. Now both rates converge; the flange moves as prescribed; the self-motions agree
    to far below the motion's size (the quadrature's error at 100 Hz, h^9)."""
    results = {}
    for rate in (100, 1000):
        traj, motion = motion_at(iiwa, rate, 1.0, OFFSET7, seed=2)
        res = inverse_kinematics(iiwa, motion, EE, q0=traj.q[0])
        back = link_kinematics(iiwa, res.trajectory, EE, order=3)
        assert np.abs(back.p - motion.p).max() < 1e-10
        assert np.abs(back.R - motion.R).max() < 1e-10
        for k in range(4):
            assert np.abs(back.Vs[:, k] - motion.Vs[:, k]).max() < 1e-8 * np.abs(motion.Vs[:, k]).max()
        results[rate] = res.trajectory.derivatives
    a, b = results[100], results[1000][::10]
    assert np.abs(a[:, :4] - b[:, :4]).max() < 1e-11   # measured 6e-14
    assert np.abs(a[:, 0] - a[0, 0]).max() > 0.1     # it did move in the null space


@pytest.mark.slow
def test_the_shipped_sample_at_its_own_100_hz(tmp_path):
    """The README's pair of commands on the shipped 100 Hz sample. The sample passes its
    elbow singularity (iiwa_joint_4 through 0 near t = 3.63 s: condition number 1.6e4 on the
    motion it was made from, so on any joint motion giving that flange motion), hence
    --on-singular warn; no convergence failure, no branch jump, and the result moves the
    flange as prescribed."""
    ee, out = tmp_path / "ee.csv", tmp_path / "joints.csv"
    r = hodyn("kinematics", IIWA, SAMPLES / "iiwa14_cosine.h5", "--link", EE, "-o", ee)
    assert r.returncode == 0, r.stderr
    r = hodyn("ik", IIWA, ee, "--link", EE, "-o", out)
    assert r.returncode == 2 and "near-singular at t = 3.63 s" in r.stderr, r.stderr
    r = hodyn("ik", IIWA, ee, "--link", EE, "--on-singular", "warn", "-o", out)
    assert r.returncode == 0, r.stderr
    assert "jumps" not in r.stderr and "outside its URDF limits" not in r.stderr
    model = load_model(IIWA)
    back = link_kinematics(model, read_trajectory(str(out), model, need=5), EE, order=3)
    with open(ee) as f:
        names = f.readline().strip().split(",")
    data = np.loadtxt(ee, delimiter=",", skiprows=1)
    p = data[:, [names.index(f"p_{a}") for a in "xyz"]]
    Vs = data[:, [names.index(f"Vs_{a}") for a in ("wx", "wy", "wz", "vx", "vy", "vz")]]
    assert np.abs(back.p - p).max() < 1e-10
    assert np.abs(back.Vs[:, 0] - Vs).max() < 1e-8 * np.abs(Vs).max()


@pytest.mark.slow
def test_ur5_elbow_through_its_singularity_stays_on_its_branch(tmp_path):
    """The issue's case: `hodyn generate --kind cosine` on a UR5 (elbow through 0 at
    1.58 rad/s at t = 7.53 s), `--on-singular warn`. Before, the elbow came back mirrored at
    7.53 s (q -0.0025 instead of +0.0025), exit 0, and from the default start pose the wrist
    sat a turn outside its limits ("the values look like degrees"). Now every sample is the
    motion's, and the default start is inside the limits."""
    robot = tmp_path / "ur5.urdf"
    robot.write_bytes(ur5_like())
    q, ee, out = tmp_path / "q.h5", tmp_path / "ee.csv", tmp_path / "ik.csv"
    assert hodyn("generate", robot, "--kind", "cosine", "-o", q).returncode == 0
    assert hodyn("kinematics", robot, q, "--link", "tool0", "-o", ee).returncode == 0
    model = load_model(robot)
    traj = read_trajectory(str(q), model, need=5)
    q0 = ",".join(f"{v:.2f}" for v in traj.q[0])
    r = hodyn("ik", robot, ee, "--link", "tool0", "--on-singular", "warn", "--q0", q0, "-o", out)
    assert r.returncode == 0, r.stderr
    back = read_trajectory(str(out), model, need=5)
    crossing = np.argmin(np.abs(traj.q[:, 2]))
    assert traj.t[crossing] == pytest.approx(7.53) and abs(traj.q[crossing, 2]) < 0.003
    for k in range(2):
        assert np.abs(back.derivatives[:, k] - traj.derivatives[:, k]).max() < 1e-8, k
    r = hodyn("ik", robot, ee, "--link", "tool0", "--on-singular", "warn", "-o", out)
    assert r.returncode == 0, r.stderr
    assert "outside its URDF limits" not in r.stderr and "degrees" not in r.stderr
    assert "jumps" not in r.stderr
    back = read_trajectory(str(out), model, need=1)
    assert np.all(np.abs(back.q) <= model.limits[:, 1])


def test_start_pose_is_turned_into_the_limits_nearest_q0():
    """q0 a turn outside the limits (elbow: +-pi, wrist 3: +-2 pi): the search ends there,
    the same pose a turn back is inside. Limits wider than a turn: of the two turns that
    fit, the one nearest q0."""
    model = parse_model(ur5_like())
    t = np.arange(0, 0.05, 0.01)
    traj = cosine(model.joint_names, t, amplitude=0.1, omega=1.0,
                  offset=[0.3, -1.2, 1.0, -1.0, 1.2, 0.2], orders=3)
    motion = LinkMotion.of(link_kinematics(model, traj, "tool0", order=1), t)
    turns = np.array([0, 0, -1, 0, 0, 1]) * 2 * np.pi
    assert np.all(np.abs(traj.q[0] + turns)[[2, 5]] > model.limits[[2, 5], 1])
    qs = inverse_kinematics(model, motion, "tool0", q0=traj.q[0] + turns + 0.05).trajectory.q
    assert np.abs(qs - traj.q).max() < 1e-9
    turns = np.array([0, 0, 0, 1, 0, 0]) * 2 * np.pi          # wrist 1 at -0.9 + 2 pi: inside
    qs = inverse_kinematics(model, motion, "tool0", q0=traj.q[0] + turns + 0.05).trajectory.q
    assert np.abs(qs - traj.q - turns).max() < 1e-9


@pytest.mark.slow
def test_a_jump_in_the_motion_is_refused_naming_its_time_or_warned(tmp_path, iiwa):
    """A flange path that steps by 5 mm between two samples while its twist says otherwise:
    no joint motion explains it. One line, exit 2, output untouched; with
    --on-branch-jump warn: written, one warning with the count, first and largest."""
    six = lock(iiwa, {"iiwa_joint_3": 0.0})
    traj, _ = motion_at(six, 200, 0.5, np.delete(OFFSET7, 2), seed=3, order=2)
    write_trajectory(str(tmp_path / "q.csv"), traj)
    ee = tmp_path / "ee.csv"
    assert hodyn("kinematics", IIWA, tmp_path / "q.csv", "--link", EE, "--order", 2,
                 "--lock", "iiwa_joint_3=0", "-o", ee).returncode == 0
    header, *rows = ee.read_text().splitlines()
    table = np.array([[float(v) for v in row.split(",")] for row in rows])
    table[60:, header.split(",").index("p_x")] += 0.005
    np.savetxt(ee, table, delimiter=",", header=header, comments="", fmt="%.17g")
    out = tmp_path / "ik.csv"
    out.write_text("precious")
    q0 = ",".join(f"{v:.3f}" for v in traj.q[0])
    args = ("ik", IIWA, ee, "--link", EE, "--lock", "iiwa_joint_3=0", "--q0", q0, "-o", out)
    r = hodyn(*args)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "the joint motion jumps to another branch at t = 0.3 s (sample 60)" in r.stderr
    assert "--on-branch-jump warn goes on" in r.stderr
    assert out.read_text() == "precious"
    r = hodyn(*args, "--on-branch-jump", "warn")
    assert r.returncode == 0, r.stderr
    assert "jumps to another branch at 1 sample(s)" in r.stderr and "first at t = 0.3 s" in r.stderr
    solver = InverseKinematics(six, EE, q0=traj.q[0], on_branch_jump="warn")
    solver(_read(ee))
    assert [(s, t) for s, t, *_ in solver.jumps] == [(60, 0.3)]


def _read(path):
    from hodyn_cli.io.motion import MotionReader

    with MotionReader(str(path)) as reader:
        return next(iter(reader))


def test_the_command_line_defaults_are_the_solvers():
    """cli/motion.py repeats them (the command line starts without numpy)."""
    from hodyn_cli.algorithms.motion import ik
    from hodyn_cli.cli import motion

    assert (motion.MAX_CONDITION, motion.POSTURE_GAIN) == (ik.MAX_CONDITION, ik.POSTURE_GAIN)


def test_every_branch_of_a_ur5_pose_is_found_and_the_start_is_the_nearest_q0():
    """Issue 28.8: a 6-joint arm's first pose has finitely many joint solutions. Every one
    the search finds reaches the pose, they are distinct, the motion's own is among them (8
    at this pose: shoulder, elbow and wrist each two ways), and the start is the one whose
    largest joint difference from --q0 is smallest: q0 near the motion's first sample
    gives the motion back; q0 near another branch gives that branch, to rounding."""
    model = parse_model(ur5_like())
    t = np.arange(0, 0.05, 0.01)
    traj = cosine(model.joint_names, t, amplitude=0.1, omega=1.0,
                  offset=[0.3, -1.2, 1.0, -1.0, 1.2, 0.2], orders=4)
    motion = LinkMotion.of(link_kinematics(model, traj, "tool0", order=2), t)
    solver = InverseKinematics(model, "tool0")
    found = solver._solutions(motion, 0, solver.q0)
    assert found.shape == (8, 6)
    assert min(np.abs(found[i] - found[j]).max() for i in range(8) for j in range(i)) > 0.1
    assert np.abs(found - traj.q[0]).max(axis=1).min() < 1e-9
    at_rest = np.stack([found, np.zeros_like(found)], axis=1)
    pose = link_kinematics(model, Trajectory(model.joint_names, at_rest), "tool0", order=0)
    assert np.abs(pose.p - motion.p[0]).max() < 1e-10
    assert np.abs(pose.R - motion.R[0]).max() < 1e-10
    near = [solver.distance(q) for q in found]
    assert near[0] == min(near)
    qs, _ = solver(motion)          # the default q0: the start is the nearest of them all
    assert np.array_equal(solver.branches, found) and np.abs(qs[0, 0] - found[0]).max() < 1e-12
    for start in (traj.q[0], found[3]):
        back = inverse_kinematics(model, motion, "tool0", q0=start + 0.2)
        assert np.abs(back.trajectory.q[0] - start).max() < 1e-9
    back = inverse_kinematics(model, motion, "tool0", q0=traj.q[0] + 0.2).trajectory
    assert np.abs(back.derivatives - traj.derivatives[:, :4]).max() < 1e-9


def test_the_start_branch_is_named_and_a_branch_that_ends_is_told(tmp_path):
    """The issue's UR5 motions (generate --kind cosine --rate 1000 --seed 1): the notice
    names the first pose's solutions and the one the motion starts on; started on a branch
    that does not reach the pose at t = 0.529 s, the error says that the pose has joint
    solutions, none near the branch followed, and that --q0 picks the motion's own, not
    'out of reach, or too fast'."""
    robot = tmp_path / "ur5.urdf"
    robot.write_bytes(ur5_like())
    q, ee, out = tmp_path / "q.h5", tmp_path / "ee.h5", tmp_path / "ik.h5"
    assert hodyn("generate", robot, "--kind", "cosine", "--rate", 1000, "--duration", 0.6,
                 "--seed", 1, "-o", q).returncode == 0
    assert hodyn("kinematics", robot, q, "--link", "tool0", "-o", ee).returncode == 0
    r = hodyn("ik", robot, ee, "--link", "tool0", "-o", out)
    assert r.returncode == 0, r.stderr
    notice = [line for line in r.stderr.splitlines() if "joint solutions" in line]
    assert len(notice) == 1 and "the first pose has 8 joint solutions (branches); the motion " \
        "starts on the one nearest --q0" in notice[0], r.stderr
    model = load_model(robot)
    started = notice[0].split("): ")[1].split(";")[0]
    back = read_trajectory(str(out), model, need=1)
    assert np.abs(back.q[0] - [float(v) for v in started.split(",")]).max() < 1e-3
    r = hodyn("ik", robot, ee, "--link", "tool0", "--on-singular", "warn", "--q0",
              "0.677,-2,1.557,2.255,-0.039,1.595", "-o", out)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "inverse kinematics did not converge at t = 0.529 s (sample 529)" in r.stderr
    assert re.search(r"the pose has 6 joint solution\(s\), the nearest [0-9.]+ from where the "
                     "motion was heading: the branch followed since the first sample does not "
                     "reach it", r.stderr), r.stderr
    assert "start on it with --q0" in r.stderr and "out of reach" not in r.stderr
