"""The compiled inverse-kinematics kernels (Newton on the pose, Algorithm 2's rates) against the
numpy code of ik.py they stand for, at every lane width and odd sample counts: pose and
position tasks, square (6 DOF) and redundant (7 DOF), well and badly conditioned. (The numpy
code and the kernels together are held to the motion they came from in test_ik.py.)"""

from dataclasses import fields

import numpy as np
import pytest

from conftest import URDF, reference
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.motion.ik import NEWTON_STEPS, InverseKinematics, spatial_motion
from hodyn_cli.algorithms.motion.kinematics import link_kinematics
from hodyn_cli.core.motion import LinkMotion
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.modeling.locking import lock
from hodyn_cli.modeling.urdf import load_model

pytestmark = pytest.mark.kernel
EE = "iiwa_link_ee"
CASES = {  # name -> (locked joints, offsets, task)
    "6 dof pose": ({"iiwa_joint_3": 0.0}, [0.2, 0.6, -1.2, 0.3, 1.0, 0.1], "pose"),
    "7 dof pose": ({}, [0.2, 0.6, 0.3, -1.2, 0.3, 1.0, 0.1], "pose"),
    "7 dof position": ({}, [0.2, 0.6, 0.3, -1.2, 0.3, 1.0, 0.1], "position"),
}


def setup(case: str, n_samples: int, elbow: float | None = None):
    """(solver, motion of the flange (spatial twists), the joint motion it came from)."""
    locked, offset, task = CASES[case]
    model = load_model(URDF / "iiwa14.urdf")
    model = lock(model, locked) if locked else model
    offset = np.array(offset)
    if elbow is not None:   # iiwa_joint_4 near 0: the arm stretched out, near-singular
        offset[model.joint_index("iiwa_joint_4")] = elbow
    t = np.linspace(0, 0.4, n_samples)
    traj = cosine(model.joint_names, t, amplitude=0.0 if elbow is not None else 0.3,
                  omega=np.linspace(1.0, 2.0, model.n), phase=np.arange(model.n),
                  offset=offset, orders=5)
    motion = spatial_motion(LinkMotion.of(link_kinematics(model, traj, EE, order=3), t))
    solver = InverseKinematics(model, EE, task=task)
    solver.q_ref = traj.q[0] + 0.05
    return solver, motion, traj


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("n_samples", [1, 5, 33])
def test_rates_kernel_matches_numpy(case, n_samples, lanes):
    solver, motion, traj = setup(case, n_samples)
    rows = slice(0, n_samples)
    q = traj.q + 1e-3 * np.sin(np.arange(traj.q.size)).reshape(traj.q.shape)  # off the motion
    ours, cond = solver._rates(q, motion, rows)
    ref, ref_cond = reference(solver._rates, q, motion, rows)
    assert ours.shape == ref.shape == (n_samples, 5, q.shape[1])
    for k in range(5):
        scale = np.abs(ref[:, k]).max()
        assert np.abs(ours[:, k] - ref[:, k]).max() <= 1e-11 * scale, (case, k, lanes)
    assert np.abs(cond / ref_cond - 1).max() <= 1e-11, (case, lanes)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("n_samples", [1, 7])
def test_newton_kernel_matches_numpy(case, n_samples, lanes):
    """From positions 0.05 rad off, both converge (minimum-norm steps: the same point of a
    redundant arm's self-motion)."""
    solver, motion, traj = setup(case, n_samples)
    rows = slice(0, n_samples)
    start = traj.q + 0.05 * np.cos(np.arange(traj.q.size)).reshape(traj.q.shape)
    q, err = solver._newton(start, motion, rows)
    ref, ref_err = reference(solver._newton, start, motion, rows)
    assert err.max() < 1e-12 and ref_err.max() < 1e-12
    assert np.abs(q - ref).max() < 1e-10, (case, lanes)
    if case == "6 dof pose":   # a unique solution: the motion's
        assert np.abs(q - traj.q).max() < 1e-10


def test_newton_near_a_singular_pose_takes_the_svd(lanes):
    """Stretched out (condition number ~1e8, beyond the Cholesky of J_t J_t^T): one step
    solves J_t dq = e to rounding, and equals the numpy step (LU) to the digits that the
    conditioning leaves (cond x eps)."""
    solver, motion, traj = setup("6 dof pose", 5, elbow=1e-8)
    rows = slice(0, 5)
    start = traj.q + 1e-6
    task = solver.spec
    backend, data = backends.prepare(task.model)
    q1, _ = backend.ik_newton(task.model, data, task, start, motion.R, motion.p, 1)
    cond = reference(solver._rates, start, motion, rows)[1]
    assert cond.min() > 1e7
    _, _, _, Jt, e = solver._pose_error(start, motion, rows)
    ours = (q1 - start)[:, solver.path]
    residual = (Jt @ ours[..., None])[..., 0] - e
    assert np.abs(residual).max() <= 1e-9 * np.abs(e).max()
    ref = np.linalg.solve(Jt, e[..., None])[..., 0]
    assert np.abs(ours - ref).max() <= cond.max() * 1e-15 * (1 + np.abs(start).max())


def test_kernel_iterates_at_most_the_steps_it_is_given(lanes):
    solver, motion, traj = setup("7 dof pose", 3)
    start = traj.q + 0.2
    task = solver.spec
    backend, data = backends.prepare(task.model)
    unchanged, err0 = backend.ik_newton(task.model, data, task, start, motion.R, motion.p, 0)
    assert np.array_equal(unchanged, start) and err0.min() > 1e-3
    backend, data = backends.prepare(task.model)
    q, err = backend.ik_newton(task.model, data, task, start, motion.R, motion.p, NEWTON_STEPS)
    assert err.max() < 1e-12


def whole_motion(case: str, t: np.ndarray):
    """(model, flange motion, joint motion) of a cosine over the times t."""
    locked, offset, task = CASES[case]
    model = load_model(URDF / "iiwa14.urdf")
    traj = cosine(model.joint_names, t, amplitude=0.3, omega=np.linspace(1.0, 2.0, model.n),
                  phase=np.arange(model.n), offset=offset, orders=5)
    return model, LinkMotion.of(link_kinematics(model, traj, EE, order=3), t), traj


def solve(model, motion, task, q0, python_only=False):
    """q..q'''' of the whole motion, and how many samples the compiled integration took."""
    solver = InverseKinematics(model, EE, task=task, q0=q0)
    taken = []
    compiled = solver._integrate_ahead
    solver._integrate_ahead = (lambda *a: 0) if python_only else \
        (lambda *a: taken.append(compiled(*a)) or taken[-1])
    q, _ = solver(motion)
    return q, sum(taken)


@pytest.mark.parametrize("case", ["7 dof pose", "7 dof position"])
@pytest.mark.parametrize("rate, n_samples", [(1000.0, 301), (100.0, 67)])
def test_redundant_integration_kernel_matches_the_python_blocks(case, rate, n_samples, lanes):
    """A redundant arm's positions integrated lane group by lane group in the kernel equal
    the Python blocks' fixed point (ik.py's reference) to the convergence tolerance, at every
    lane width, on odd sample counts, at 1 kHz and 100 Hz, and the kernel solves all but the
    first sample (the Python path solves nothing of it)."""
    model, motion, traj = whole_motion(case, np.arange(n_samples) / rate)
    ours, taken = solve(model, motion, CASES[case][2], traj.q[0])
    ref, _ = solve(model, motion, CASES[case][2], traj.q[0], python_only=True)
    assert taken == n_samples - 1
    for k in range(5):
        scale = np.abs(ref[:, k]).max()
        assert np.abs(ours[:, k] - ref[:, k]).max() <= 1e-9 * scale, (case, rate, k, lanes)
    if case == "7 dof pose":   # the Python blocks and the kernel both integrate the rates
        h = 1 / rate
        step = np.diff(ours[:, 0], axis=0)
        mid = (ours[1:, 1] + ours[:-1, 1]) / 2 + h / 12 * (ours[:-1, 2] - ours[1:, 2])
        assert np.abs(step - h * mid).max() <= 1e-6 * h * np.abs(ours[:, 1]).max()


def part(motion: LinkMotion, rows: slice, **changed) -> LinkMotion:
    """The samples ``rows`` of a motion (fields given in ``changed`` replaced)."""
    sliced = {f.name: None if getattr(motion, f.name) is None else getattr(motion, f.name)[rows]
              for f in fields(motion)}
    return LinkMotion(**(sliced | changed))


def test_redundant_integration_kernel_stops_where_it_cannot_go_on(lanes):
    """Samples the kernel cannot solve (here: the target 0.3 m off from sample 20 on, which
    its rates do not say) are left to the Python blocks: the kernel returns the samples
    before them, solved, not a wrong answer."""
    model, motion, traj = whole_motion("7 dof pose", np.arange(40) / 1000.0)
    motion = spatial_motion(motion)
    solver = InverseKinematics(model, EE, q0=traj.q[0])
    solver(part(motion, slice(0, 1)))
    far = motion.p[1:].copy()
    far[19:] += 0.3
    out, cond = np.empty((39, 5, model.n)), np.empty(39)
    k = solver._integrate_ahead(out, cond, part(motion, slice(1, 40), p=far), 0)
    assert 0 < k <= 19 and solver.done == 1
    error = solver._pose_error(out[:k, 0], part(motion, slice(1, 40), p=far), slice(0, k))[-1]
    assert np.abs(error).max() < 1e-10


def test_redundant_integration_kernel_checks_its_sizes(lanes):
    """An orientation with fewer rows than the positions is an error naming the shapes, not
    a read past the end of the array (the kernel gathers R per sample)."""
    from hodyn_cli.errors import TrajectoryError

    model, motion, traj = whole_motion("7 dof pose", np.arange(40) / 1000.0)
    short = part(motion, slice(0, 40), R=motion.R[:3].copy())
    with pytest.raises(TrajectoryError, match=r"39 samples: .* R \(2, 3, 3\), p \(39, 3\)"):
        InverseKinematics(model, EE, q0=traj.q[0])(short)


def test_a_branch_jump_in_the_kernels_samples_is_left_to_the_python_blocks(lanes):
    """Where the branch-jump check finds a jump among the samples the kernel solved, only
    those before it are accepted, and the solver goes on from the flagged sample (a real
    jump is flagged again there, at once, and goes to the Python blocks): here a false
    alarm, once, so the kernel solves the rest, and the motion is the one without it."""
    model, motion, traj = whole_motion("7 dof pose", np.arange(60) / 1000.0)
    solver = InverseKinematics(model, EE, q0=traj.q[0])
    check, taken, alarms = solver._branch_jump, [], []

    def once(qs, cond, motion, rows):
        if not alarms and rows.stop - rows.start > 5:
            alarms.append(rows.start)
            return 5, 0, 0.0, 0.0
        return check(qs, cond, motion, rows)

    compiled = solver._integrate_ahead
    solver._branch_jump = once
    solver._integrate_ahead = lambda *a: taken.append(compiled(*a)) or taken[-1]
    ours, _ = solver(motion)
    ref, _ = solve(model, motion, "pose", traj.q[0], python_only=True)
    assert alarms == [1] and taken[:2] == [5, 54]
    assert np.abs(ours - ref).max() <= 1e-9 * np.abs(ref).max()
