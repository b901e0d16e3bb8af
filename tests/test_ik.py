"""Higher-order inverse kinematics (spatial paper, Algorithm 2) and `hodyn ik`.

The proofs: an analytic joint motion -> `hodyn kinematics` -> `hodyn ik` gives the motion
back (non-redundant), or one whose forward kinematics is the prescribed motion and whose
derivatives are derivatives of each other (redundant); Pinocchio checks the pose, twist and
acceleration of the result independently.
"""

import subprocess
import sys

import h5py
import numpy as np
import pytest

import hodyn_cli
from conftest import URDF
from conftest import hodyn_here as hodyn
from hodyn_cli.algorithms.motion.ik import InverseKinematics, inverse_kinematics
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.core.motion import LinkMotion
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.errors import HodynError
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.io.motion import MotionReader
from hodyn_cli.io.results import motion_columns
from hodyn_cli.modeling.locking import lock
from hodyn_cli.modeling.urdf import load_model

IIWA = URDF / "iiwa14.urdf"
EE = "iiwa_link_ee"
LOCK = ("--lock", "iiwa_joint_3=0")
# well inside the workspace: shoulder, elbow and wrist singularities far away
OFFSET6 = np.array([0.2, 0.6, -1.2, 0.3, 1.0, 0.1])
OFFSET7 = np.array([0.2, 0.6, 0.3, -1.2, 0.3, 1.0, 0.1])


@pytest.fixture(scope="module")
def iiwa():
    return load_model(IIWA)


@pytest.fixture(scope="module")
def iiwa6(iiwa):
    return lock(iiwa, {"iiwa_joint_3": 0.0})


def motion_of(model, names_offset, t, orders=5, amplitude=0.35, seed=0):
    rng = np.random.default_rng(seed)
    return cosine(model.joint_names, t, amplitude=amplitude * rng.uniform(0.6, 1.0, model.n),
                  omega=rng.uniform(1.0, 2.5, model.n), phase=rng.uniform(0, 2 * np.pi, model.n),
                  offset=names_offset, orders=orders)


def relative(a, b):
    """Largest error of each derivative order relative to that order's largest value."""
    return [float(np.abs(a[:, k] - b[:, k]).max() / np.abs(b[:, k]).max()) for k in range(a.shape[1])]


def test_six_dof_round_trip_through_the_cli(tmp_path, iiwa6):
    """q..q'''' -> kinematics --order 3 -> ik == q..q'''' to 1e-9; compute on both agree."""
    t = np.arange(0, 1.0, 0.002)
    traj = motion_of(iiwa6, OFFSET6, t)
    write_trajectory(str(tmp_path / "q.csv"), traj)
    r = hodyn("kinematics", IIWA, tmp_path / "q.csv", "--link", EE, "--order", 3, *LOCK,
              "-o", tmp_path / "ee.csv")
    assert r.returncode == 0, r.stderr
    q0 = ",".join(f"{v:.3f}" for v in traj.q[0] + 0.15)   # a guess near the branch
    r = hodyn("ik", IIWA, tmp_path / "ee.csv", "--link", EE, *LOCK, "--q0", q0,
              "-o", tmp_path / "ik.csv")
    assert r.returncode == 0, r.stderr
    assert "largest Jacobian condition number" in r.stderr
    back = read_trajectory(str(tmp_path / "ik.csv"), iiwa6, need=5)
    assert back.orders == 5
    assert max(relative(back.derivatives, traj.derivatives)) < 1e-9
    np.testing.assert_allclose(back.t, t, rtol=0, atol=0)
    # the pipeline of the issue: ik | compute
    ik = subprocess.Popen([sys.executable, "-m", "hodyn_cli", "ik", IIWA, tmp_path / "ee.csv",
                           "--link", EE, *LOCK, "--q0", q0, "-q"], stdout=subprocess.PIPE)
    piped = subprocess.run([sys.executable, "-m", "hodyn_cli", "compute", IIWA, "-", *LOCK,
                            "-o", tmp_path / "tau_ik.csv"], stdin=ik.stdout, capture_output=True)
    ik.stdout.close()
    assert ik.wait() == 0 and piped.returncode == 0, piped.stderr
    r = hodyn("compute", IIWA, tmp_path / "q.csv", *LOCK, "-o", tmp_path / "tau.csv")
    assert r.returncode == 0, r.stderr
    a = np.loadtxt(tmp_path / "tau_ik.csv", delimiter=",", skiprows=1)
    b = np.loadtxt(tmp_path / "tau.csv", delimiter=",", skiprows=1)
    assert max(relative(a[:, None], b[:, None])) < 1e-9 or np.abs(a - b).max() < 1e-9 * np.abs(b).max()


def test_hdf5_and_body_twists_give_the_same_joint_motion(tmp_path, iiwa6):
    t = np.arange(0, 0.4, 0.002)
    traj = motion_of(iiwa6, OFFSET6, t, seed=1)
    data = dict(hodyn_cli.forward_kinematics(iiwa6, EE, traj, order=3))
    suffixes = {key: [c.split("_", 1)[1] for c in cols]
                for key, cols in motion_columns(data).items()}
    with h5py.File(tmp_path / "ee.h5", "w") as f:
        f["t"] = t
        for key, value in data.items():
            f[key] = value
        f.attrs["link"] = EE
    # CSV with body-fixed twists only (as another tool might write them)
    cols, values = ["t"], [t[:, None]]
    for key, value in data.items():
        if not key.startswith("Vs"):
            cols += [f"{key}_{s}" for s in suffixes[key]]
            values.append(value.reshape(len(t), -1))
    np.savetxt(tmp_path / "ee_body.csv", np.hstack(values), delimiter=",",
               header=",".join(cols), comments="", fmt="%.17g")
    q0 = traj.q[0] + 0.1
    results = []
    for name in ("ee.h5", "ee_body.csv"):
        with MotionReader(str(tmp_path / name)) as reader:
            assert reader.layout.K == 4
            solver = InverseKinematics(iiwa6, EE, q0=q0)
            results.append(np.concatenate([solver(chunk)[0] for chunk in reader]))
    for qs in results:
        assert max(relative(qs, traj.derivatives)) < 1e-9
    r = hodyn("ik", IIWA, tmp_path / "ee.h5", "--link", "iiwa_link_7", *LOCK)
    assert r.returncode == 2 and "describes link 'iiwa_link_ee', not 'iiwa_link_7'" in r.stderr


def test_chunks_continue_where_the_last_one_ended(iiwa, iiwa6):
    """Streaming: any chunking gives the whole-file result (the state carries over)."""
    t = np.arange(0, 0.3, 0.002)
    for model, offset in ((iiwa6, OFFSET6), (iiwa, OFFSET7)):
        traj = motion_of(model, offset, t, seed=2)
        motion = LinkMotion.of(link_kinematics(model, traj, EE, order=2), t)
        whole = InverseKinematics(model, EE, q0=traj.q[0])(motion)[0]
        solver, parts = InverseKinematics(model, EE, q0=traj.q[0]), []
        for a, b in ((0, 1), (1, 64), (64, 65), (65, 150)):
            rows = slice(a, b)
            parts.append(solver(LinkMotion(motion.p[rows], motion.R[rows], motion.Vs[rows],
                                           motion.pd[rows], t[rows]))[0])
        np.testing.assert_allclose(np.concatenate(parts), whole, rtol=0, atol=1e-11)


def test_redundant_iiwa_reproduces_the_motion_and_validates(tmp_path, iiwa):
    t = np.arange(0, 1.0, 0.002)
    traj = motion_of(iiwa, OFFSET7, t, seed=3)
    write_trajectory(str(tmp_path / "q.csv"), traj)
    assert hodyn("kinematics", IIWA, tmp_path / "q.csv", "--link", EE, "--order", 3,
                 "-o", tmp_path / "ee.h5").returncode == 0
    q0 = ",".join(f"{v:.3f}" for v in traj.q[0] - 0.1)
    r = hodyn("ik", IIWA, tmp_path / "ee.h5", "--link", EE, "--q0", q0, "-o", tmp_path / "ik.h5")
    assert r.returncode == 0, r.stderr
    assert hodyn("kinematics", IIWA, tmp_path / "ik.h5", "--link", EE, "--order", 3,
                 "-o", tmp_path / "back.h5").returncode == 0
    with h5py.File(tmp_path / "ee.h5") as a, h5py.File(tmp_path / "back.h5") as b:
        for key in a:
            if key != "t":
                scale = max(1.0, np.abs(a[key][()]).max())
                assert np.abs(a[key][()] - b[key][()]).max() < 1e-8 * scale, key
    back = read_trajectory(str(tmp_path / "ik.h5"), iiwa, need=5)
    assert np.abs(back.q - traj.q).max() > 1e-3   # a different self-motion than the original
    r = hodyn("validate", IIWA, tmp_path / "ik.h5")
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("gain", [0.0, 2.0])
def test_redundant_rates_are_minimum_norm_and_exact_derivatives(iiwa, gain):
    """q' - K (q(0) - q) lies in the row space of J (the rates nearest the posture term;
    minimum norm for K = 0); q'' is the derivative of q', which J^+ (V' - J' q') is not."""
    t = np.arange(0, 0.2, 0.0005)
    traj = motion_of(iiwa, OFFSET7, t, seed=4)
    motion = LinkMotion.of(link_kinematics(iiwa, traj, EE, order=2), t)
    qs = inverse_kinematics(iiwa, motion, EE, q0=traj.q[0],
                            posture_gain=gain).trajectory.derivatives
    solver = InverseKinematics(iiwa, EE)
    J = solver._pose_error(qs[:, 0], motion, slice(None))[2]
    Jp = np.linalg.pinv(J)
    null = np.eye(7) - Jp @ J
    posture = gain * (qs[0, 0] - qs[:, 0])
    assert np.abs((null @ (qs[:, 1] - posture)[..., None])[..., 0]).max() < 1e-12
    if gain:
        assert np.abs((null @ qs[:, 1, :, None])[..., 0]).max() > 1e-4
    # central differences of q' (O(h^2) ~ 1e-8 here) against q''
    fd = (qs[2:, 1] - qs[:-2, 1]) / (2 * 0.0005)
    assert np.abs(fd - qs[1:-1, 2]).max() < 1e-6
    naive = (Jp @ (motion.Vs[:, 1] - link_kinematics(
        iiwa, type(traj)(traj.joint_names, np.stack([qs[:, 0], qs[:, 1], 0 * qs[:, 1]], 1)),
        EE, order=1).Vs[:, 1])[..., None])[..., 0]
    assert np.abs(naive - qs[:, 2]).max() > 1e-3                # the null-space part it misses


def test_position_task(tmp_path, iiwa):
    """Fewer joints than coordinates (planar 2R: exact) and redundant (iiwa: 7 for 3)."""
    planar = load_model(URDF / "planar_2r.urdf")
    t = np.arange(0, 1.0, 0.005)
    traj = cosine(planar.joint_names, t, amplitude=[0.4, 0.5], omega=[1.5, 2.0],
                  offset=[0.3, 1.0], orders=6)
    motion = LinkMotion.of(link_kinematics(planar, traj, "tool0", order=3), t)
    res = inverse_kinematics(planar, motion, "tool0", task="position", q0=[0.5, 0.8])
    assert max(relative(res.trajectory.derivatives, traj.derivatives[:, :5])) < 1e-9
    # a motion out of the plane cannot be followed
    lifted = LinkMotion(motion.p + [0, 0.1, 0], None, None, motion.pd, t)   # the arm moves in x-z
    with pytest.raises(HodynError, match="no joint configuration reaches"):
        inverse_kinematics(planar, lifted, "tool0", task="position", q0=[0.5, 0.8])
    tilted = motion.pd.copy()
    tilted[:, 1, 1] = 0.5
    with pytest.raises(HodynError, match="cannot follow its velocity derivative 1"):
        inverse_kinematics(planar, LinkMotion(motion.p, None, None, tilted, t), "tool0",
                           task="position", q0=[0.5, 0.8])
    # redundant position task through the CLI: the point moves as prescribed
    traj7 = motion_of(iiwa, OFFSET7, np.arange(0, 0.5, 0.002), seed=5)
    write_trajectory(str(tmp_path / "q.csv"), traj7)
    assert hodyn("kinematics", IIWA, tmp_path / "q.csv", "--link", EE, "--order", 2,
                 "-o", tmp_path / "ee.csv").returncode == 0
    r = hodyn("ik", IIWA, tmp_path / "ee.csv", "--link", EE, "--task", "position",
              "-o", tmp_path / "ik.csv")
    assert r.returncode == 0, r.stderr
    back = read_trajectory(str(tmp_path / "ik.csv"), iiwa, need=4)
    lk = link_kinematics(iiwa, back, EE, order=2)
    ref = link_kinematics(iiwa, traj7, EE, order=2)
    assert np.abs(lk.p - ref.p).max() < 1e-9
    assert np.abs(lk.pd[:, :3] - ref.pd[:, :3]).max() < 1e-8 * np.abs(ref.pd[:, :3]).max()


def test_pinocchio_sees_the_prescribed_pose_twist_and_acceleration(iiwa):
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromUrdf(str(IIWA))
    data = pm.createData()
    frame = pm.getFrameId(EE)
    t = np.arange(0, 0.2, 0.01)
    traj = motion_of(iiwa, OFFSET7, t, seed=6)
    lk = link_kinematics(iiwa, traj, EE, order=2)
    qs = inverse_kinematics(iiwa, LinkMotion.of(lk, t), EE, q0=traj.q[0]).trajectory.derivatives
    order = [iiwa.joint_index(pm.names[j]) for j in range(1, pm.njoints)]
    for s in range(len(t)):
        q, v, a = (qs[s, k, order] for k in range(3))
        pin.forwardKinematics(pm, data, q, v, a)
        pin.updateFramePlacements(pm, data)
        M = data.oMf[frame]
        np.testing.assert_allclose(M.rotation, lk.R[s], atol=1e-12)
        np.testing.assert_allclose(M.translation, lk.p[s], atol=1e-12)
        Vw = pin.getFrameVelocity(pm, data, frame, pin.ReferenceFrame.WORLD)
        Aw = pin.getFrameAcceleration(pm, data, frame, pin.ReferenceFrame.WORLD)
        # pinocchio: (linear; angular) of the spatial twist at the world origin
        np.testing.assert_allclose(np.r_[Vw.angular, Vw.linear], lk.Vs[s, 0], atol=1e-10)
        np.testing.assert_allclose(np.r_[Aw.angular, Aw.linear], lk.Vs[s, 1], atol=1e-9)


def singular_motion(tmp_path, iiwa6):
    """The wrist (iiwa_joint_6) passes 2e-6 rad from its stretched, singular position."""
    t = np.arange(0, 0.5, 0.005)
    offset = OFFSET6.copy()
    offset[4] = 0.0
    traj = cosine(iiwa6.joint_names, t, amplitude=[0.2, 0.2, 0.2, 0.2, 0.5, 0.2],
                  omega=2 * np.pi, phase=[0, 0, 0, 0, 4e-6, 0], offset=offset,
                  orders=4)
    write_trajectory(str(tmp_path / "q.csv"), traj)
    assert hodyn("kinematics", IIWA, tmp_path / "q.csv", "--link", EE, "--order", 2, *LOCK,
                 "-o", tmp_path / "ee.csv").returncode == 0
    return traj


def test_near_a_singular_pose_it_stops_or_warns(tmp_path, iiwa6):
    traj = singular_motion(tmp_path, iiwa6)
    q0 = ",".join(f"{v:.3f}" for v in traj.q[0])
    (tmp_path / "ik.csv").write_text("precious")
    r = hodyn("ik", IIWA, tmp_path / "ee.csv", "--link", EE, *LOCK, "--q0", q0,
              "-o", tmp_path / "ik.csv")
    assert r.returncode == 2
    line = r.stderr.strip()
    assert "\n" not in line and "near-singular at t = 0.25 s (sample 50)" in line
    assert "condition number" in line and "Traceback" not in line
    assert (tmp_path / "ik.csv").read_text() == "precious"
    r = hodyn("ik", IIWA, tmp_path / "ee.csv", "--link", EE, *LOCK, "--q0", q0,
              "--on-singular", "warn", "-o", tmp_path / "ik.csv")
    assert r.returncode == 0, r.stderr
    assert "near-singular at 1 sample(s)" in r.stderr and "t = 0.25 s" in r.stderr
    r = hodyn("ik", IIWA, tmp_path / "ee.csv", "--link", EE, *LOCK, "--q0", q0,
              "--max-condition", "1e9", "-o", tmp_path / "ik.csv")
    assert r.returncode == 0 and "warning" not in r.stderr
    # through the singular pose on the motion's own branch (it once flipped the wrist there:
    # q5 and q7 a turn and a half away, q6 mirrored, silently)
    back = read_trajectory(str(tmp_path / "ik.csv"), iiwa6, need=1)
    assert np.abs(back.q - traj.q).max() < 1e-6


def test_joint_limits_are_warned_about(tmp_path, iiwa6):
    t = np.arange(0, 0.5, 0.005)
    offset = OFFSET6.copy()
    offset[5] = 2.9   # iiwa_joint_7 goes past its limit 3.05
    traj = cosine(iiwa6.joint_names, t, amplitude=0.2, omega=2.0, offset=offset, orders=3)
    write_trajectory(str(tmp_path / "q.csv"), traj)
    assert hodyn("kinematics", IIWA, tmp_path / "q.csv", "--link", EE, "--order", 1, *LOCK,
                 "-o", tmp_path / "ee.csv").returncode == 0
    q0 = ",".join(f"{v:.3f}" for v in traj.q[0])
    r = hodyn("ik", IIWA, tmp_path / "ee.csv", "--link", EE, *LOCK, "--q0", q0, "-o",
              tmp_path / "ik.csv")
    assert r.returncode == 0
    assert "q_iiwa_joint_7 = 3.1 at t = 0 s is outside its URDF limits" in r.stderr
    r = hodyn("ik", IIWA, tmp_path / "ee.csv", "--link", EE, *LOCK, "--q0", q0, "--strict",
              "-o", tmp_path / "strict.csv")
    assert r.returncode == 2 and not (tmp_path / "strict.csv").exists()


@pytest.fixture(scope="module")
def flange_csv(tmp_path_factory, iiwa6) -> str:
    """The flange's motion as ``hodyn kinematics`` writes it (made once for the cases)."""
    folder = tmp_path_factory.mktemp("flange")
    traj = motion_of(iiwa6, OFFSET6, np.arange(0, 0.05, 0.005), orders=3)
    write_trajectory(str(folder / "q.csv"), traj)
    assert hodyn("kinematics", IIWA, folder / "q.csv", "--link", EE, "--order", 1, *LOCK,
                 "-o", folder / "ee.csv").returncode == 0
    return (folder / "ee.csv").read_text()


def _cells(header: str, row: str, change) -> tuple[str, str]:
    """``row`` with ``change(name, value)`` applied to each of its cells."""
    names, cells = header.split(","), row.split(",")
    return header, ",".join(change(n, c) for n, c in zip(names, cells, strict=True))


def _mirrored(h, r):  # the pose's third axis flipped: orthonormal, det -1
    return _cells(h, r, lambda n, c: repr(-float(c)) if n in ("R_13", "R_23", "R_33") else c)


def _huge(h, r):  # finite, but |R^T R - I| overflows
    return _cells(h, r, lambda n, c: "1e308" if n in ("R_11", "R_12") else c)


@pytest.mark.parametrize("edit, args, message", [
    (lambda h, r: (h.replace("R_11,", "R_1l,"), r), (), "missing column(s) R_11: the link pose"),
    (_mirrored, (), "R at sample 0 is a reflection, not a rotation (det R = -1: a left-handed"),
    (_huge, (), "R at sample 0 is not a rotation (|R^T R - I| = inf)"),
    (lambda h, r: (h, r), ("--link", "nope"), "the model has no link 'nope'"),
    (lambda h, r: (h, r), ("--q0", "1,2"), "--q0 has 2 values, the robot 6 joints"),
    (lambda h, r: (h, r), ("--q0", "1,a,2"), "--q0: expected numbers"),
    (lambda h, r: (h.replace("Vsd_wx", "Vsx_wx"), r), (),
     "missing column(s) Vsd_wx (the rest of 'Vsd' is there)"),
    (lambda h, r: (h, r.replace(r.split(",")[4], "2.0", 1)), (), "R at sample 0 is not a rotation"),
    (lambda h, r: (h, r.replace(r.split(",")[1], "9.0", 1)), (),
     "no joint configuration reaches the pose of 'iiwa_link_ee' at t = 0 s"),
    (lambda h, r: (h, r), ("--task", "joint"), "'joint' is not one of"),
])
def test_bad_input_one_line_exit_2_output_untouched(tmp_path, flange_csv, edit, args, message):
    header, first, *rest = flange_csv.splitlines()
    header, first = edit(header, first)
    (tmp_path / "bad.csv").write_text("\n".join([header, first, *rest]) + "\n")
    (tmp_path / "out.csv").write_text("precious")
    link = () if "--link" in args else ("--link", EE)
    r = hodyn("ik", IIWA, tmp_path / "bad.csv", *link, *LOCK, *args, "-o", tmp_path / "out.csv")
    assert r.returncode == 2, r.stderr
    assert message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert (tmp_path / "out.csv").read_text() == "precious"


def test_redundant_needs_time_and_rates(iiwa):
    t = np.arange(0, 0.05, 0.01)
    lk = link_kinematics(iiwa, motion_of(iiwa, OFFSET7, t, orders=3), EE, order=1)
    with pytest.raises(HodynError, match="needs t and the twist"):
        inverse_kinematics(iiwa, LinkMotion(lk.p, lk.R, lk.Vs), EE)
