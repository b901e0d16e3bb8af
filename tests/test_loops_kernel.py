"""The compiled closed loops (csrc/loops.c) against the numpy code they stand for
(algorithms/motion/loops.py: Closed's gap, gap rates and Jacobian jets, Newton's starts
between the anchors, Newton, the implicit function theorem,
:func:`~hodyn_cli.algorithms.motion.loops.project`), at every lane width and
odd sample counts: the loops' kinematics at random configurations (not closed: the gap and
the rotation's log away from 0) on the three bundled mechanisms and on a frame closure
(orientation rows, redundant rows); the starts between the anchors across a gap in time;
the projection of random forces with several columns;
the anchors' continuation and halving levels, and the samples between them, each in one
call against the same steps call by call (bit for bit); and end to end, the passive joints
with their derivatives, the actuated torques and the constraint forces at orders 0..4. (The
numpy reference is held to Pinocchio, to differences and to the power balance in
test_loops.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import URDF, reference
from hodyn_cli import api
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.motion.loops import STEP, TAYLOR, TAYLOR_TOL, _hermite, project
from hodyn_cli.core.trajectory import cosine

pytestmark = pytest.mark.kernel

#: mechanism -> the actuated joints' cosine (offset, amplitude, omega per joint)
MECHANISMS = {"fourbar": ([0.3], [1.2], [3.0]),
              "fivebar": ([-2.0, -1.1], [0.3, 0.25], [2.0, 3.0]),
              "leg_fourbar_knee": ([0.0, -0.5], [0.3, 0.4], [2.0, 3.0])}


def close(ours: np.ndarray, ref: np.ndarray, axis: int, tol: float = 1e-12) -> None:
    """Equal to ``tol`` of each derivative order's largest value (orders along ``axis``),
    10 ``tol`` from the 3rd (sums of more and larger terms)."""
    assert ours.shape == ref.shape
    for k in range(ref.shape[axis]):
        a, b = ours.take(k, axis=axis), ref.take(k, axis=axis)
        bound = (tol if k <= 2 else 10 * tol) * max(np.abs(b).max(initial=0), 1e-300)
        assert np.abs(a - b).max(initial=0) <= bound, k


def welded(tmp_path):
    """The four-bar cut at a passive joint at the rocker's end, its tip welded to the
    coupler's end: a frame closure (6 rows, 3 independent)."""
    text = (URDF / "fourbar.urdf").read_text().replace("</robot>", (
        '<joint name="tip" type="revolute"><parent link="rocker_link"/><child link="tip_link"/>'
        '<origin xyz="0.3 0 0"/><axis xyz="0 1 0"/><limit lower="-10" upper="10" effort="1" '
        'velocity="20"/></joint><link name="tip_link"/></robot>'))
    (tmp_path / "tip.urdf").write_text(text)
    return api.close_loops(api.load_robot(tmp_path / "tip.urdf"), {
        "actuated": ["crank"], "guess": {"coupler": -1.0, "rocker": -1.8, "tip": 0.6},
        "loops": {"knee": {"type": "frame", "b": {"link": "tip_link"},
                           "a": {"link": "coupler_link", "xyz": [0.35, 0, 0]}}}})


@pytest.fixture(scope="module")
def closed_robots(tmp_path_factory):
    robots = {name: api.close_loops(api.load_robot(URDF / f"{name}.urdf"),
                                    URDF / f"{name}_loops.toml") for name in MECHANISMS}
    robots["welded"] = welded(tmp_path_factory.mktemp("welded"))
    return robots


@pytest.mark.parametrize("name", [*MECHANISMS, "welded"])
def test_the_kinematics_match_numpy(kernel, closed_robots, name):
    """c, its derivatives c^(k) (k = 1..4) and J's jets (to order 4) at random joint jets,
    the loops open (7 samples: a partial lane group)."""
    closed = closed_robots[name]
    c = closed.coupling
    rng = np.random.default_rng(len(name))
    qs = c.reference + rng.uniform(-0.4, 0.4, size=(7, 6, closed.n))
    qs[:, 1:] = rng.normal(size=(7, 5, closed.n))
    with backends.use("numpy"):
        R, p = c._follow(qs, 4, joints=True)
        J_ref = c._jacobian(R, p)
        rates_ref = [c._gap(R[:, :2 * len(c.rows), 0], p[:, :2 * len(c.rows), 0])] + \
            [c._gap_rate(R, p, k) for k in range(1, 5)]
    gap, J = kernel.loop_kinematics(closed, qs, c.cuts, 0, 4)
    close(J, J_ref, axis=1)
    close(np.stack([gap] + [kernel.loop_kinematics(closed, qs, c.cuts, k, 0, jacobian=False)[0]
                            for k in range(1, 5)], axis=1), np.stack(rates_ref, axis=1), axis=1)


def test_the_prediction_matches_numpy(kernel, closed_robots):
    """Newton's starts between the anchors (the Hermite polynomials), where they are too far
    and their anchors, on the leg along a motion with a gap in time (0.5 s after 20 samples
    10 ms apart: the samples across it are too far)."""
    closed = closed_robots["leg_fourbar_knee"]
    c = closed.coupling
    t = np.concatenate([np.arange(20) * 0.01, 0.7 + np.arange(17) * 0.01])
    offset, amplitude, omega = MECHANISMS["leg_fourbar_knee"]
    tr = cosine(closed.coordinate_names, t, amplitude=amplitude, omega=omega, offset=offset,
                orders=4)
    full = reference(c.expand, tr).derivatives
    samples = np.setdiff1d(np.arange(len(t)), np.union1d(np.arange(0, len(t), TAYLOR),
                                                         [len(t) - 1]))
    ours = kernel.loop_predict(full, t, samples, TAYLOR, c.a, c.cuts.closing, c.tol.unit, STEP,
                               TAYLOR_TOL, _hermite(5))
    with backends.use("numpy"):
        guess, far, anchor = c._prediction(full, samples, t)
    assert np.abs(ours[0] - guess).max() <= 1e-12 * np.abs(guess).max()
    assert np.array_equal(ours[1], far) and far.any() and not far.all()
    assert np.array_equal(ours[2], anchor)


@pytest.mark.parametrize("K1", [1, 3, 5])
def test_the_projection_matches_numpy(kernel, closed_robots, K1):
    """lambda_r and tau_a of random forces with 3 columns from random jets of P J (9
    samples), the forces given sample-major, order-major (as the tree's torques come: read
    where they lie) and with their columns apart (copied first)."""
    c = closed_robots["leg_fourbar_knee"].coupling
    rng = np.random.default_rng(K1)
    PJ = rng.normal(size=(9, K1, c.rank, c.n))
    f = rng.normal(size=(9, K1, 3, c.n))
    ref = project(PJ, f, c.a, c.p)
    by_order = np.ascontiguousarray(np.swapaxes(f, 0, 1)).swapaxes(0, 1)
    apart = np.ascontiguousarray(np.swapaxes(f, 2, 3)).swapaxes(2, 3)
    for given in (f, by_order, apart):
        for ours, expected in zip(kernel.loop_project(PJ, given, c.cuts.active,
                                                      c.cuts.passive), ref, strict=True):
            close(ours, expected, axis=1)


#: numpy's expansion and inverse dynamics of each mechanism's motion, by (name, order): ~0.4 s
#: of CPU each (all of the test's: the kernel takes 0.01 s)
_NUMPY: dict[tuple[str, int], tuple] = {}


@pytest.mark.parametrize("order", [0, pytest.param(1, marks=pytest.mark.slow), 2,
                                   pytest.param(3, marks=pytest.mark.slow), 4])
def test_the_closed_robots_match_numpy(kernel, closed_robots, order):
    """The passive joints and their derivatives (Newton from the anchors' Hermite
    polynomials, the implicit function theorem), the actuated torques and the constraint
    forces with their derivatives to ``order`` on the bundled mechanisms and the frame
    closure (45 samples 10 ms apart: anchors and samples between), to 1e-11: both keep J
    from the last step's start (a step up to 1e-13 from the solution), numpy's Newton when
    its whole batch has converged, the kernel's each sample on its own."""
    t = np.arange(45) * 0.01
    for name, closed in closed_robots.items():
        offset, amplitude, omega = MECHANISMS.get(name, MECHANISMS["fourbar"])
        tr = cosine(closed.coordinate_names, t, amplitude=amplitude, omega=omega,
                    offset=offset, orders=order + 2)
        c = closed.coupling
        if (name, order) not in _NUMPY:  # (the same for every kernel variant: once a worker)
            _NUMPY[name, order] = (reference(c.expand, tr).derivatives,
                                   reference(api.inverse_dynamics, closed, tr, order=order))
        expanded, ref = _NUMPY[name, order]
        close(c.expand(tr).derivatives, expanded, axis=1, tol=1e-11)
        ours = api.inverse_dynamics(closed, tr, order=order)
        for base in ("tau", "Fl"):
            close(np.stack([ours[api.derivative_name(base, k)] for k in range(order + 1)], 1),
                  np.stack([ref[api.derivative_name(base, k)] for k in range(order + 1)], 1),
                  axis=1, tol=1e-11)


@pytest.mark.parametrize("name", ["leg_fourbar_knee", "welded"])
def test_fewer_jacobian_jets_are_the_same_numbers(kernel, closed_robots, name):
    """``expand`` told the forces' order (the torques of order 1 read P J's jets 0..1) has
    the kernel's Newton and theorem pass stop P J's jets there: the positions, their
    derivatives and the jets it keeps are bit for bit those of the pass to order D - 2 (45
    samples 10 ms apart, q to order 4: anchors and samples between), and those jets are the
    numpy reference's to 1e-11; a projection of a higher order finds the jets anew (another
    kernel pass, its own rounding: to 1e-11)."""
    closed = closed_robots[name]
    c = closed.coupling
    offset, amplitude, omega = MECHANISMS.get(name, MECHANISMS["fourbar"])
    tr = cosine(closed.coordinate_names, np.arange(45) * 0.01, amplitude=amplitude,
                omega=omega, offset=offset, orders=4)
    every, fewer = c.expand(tr), c.expand(tr, forces_order=1)
    assert every.jacobians.PJ.shape[1] == 4 and fewer.jacobians.PJ.shape[1] == 2
    assert np.array_equal(fewer.derivatives, every.derivatives)
    assert np.array_equal(fewer.jacobians.PJ, every.jacobians.PJ[:, :2])
    with backends.use("numpy"):
        close(fewer.jacobians.PJ, c.jacobian_jets(fewer.derivatives, 1), axis=1, tol=1e-11)
    close(c._along(fewer, 3), every.jacobians.PJ, axis=1, tol=1e-11)


@pytest.mark.parametrize("name", ["fourbar", "leg_fourbar_knee"])
def test_the_solves_in_one_call_are_the_same_numbers(kernel, closed_robots, name,
                                                      monkeypatch):
    """The anchors' continuation from the assembly and their halving levels in one kernel
    call (``loop_closed``), and the samples between them (``loop_between``: the starts,
    Newton, and those too far continued from their anchor) in another, give bit for bit the
    positions, derivatives and P J's jets of the same steps call by call (``loop_predict``
    and a ``loop_newton`` call per step: what runs where P J_p is near singular), along 300
    samples 10 ms apart (the four-bar's crank turns 1.2 rad: several steps per level); each
    says it is incomplete where P J_p is near singular (every Hadamard ratio is below 2: the
    caller then goes call by call). A gap of 1 s after 150 samples: the first samples after it
    are continued from their anchor before it."""
    closed = closed_robots[name]
    c = closed.coupling
    offset, amplitude, omega = MECHANISMS[name]
    t = np.concatenate([np.arange(150), 250 + np.arange(150)]) * 0.01
    tr = cosine(closed.coordinate_names, t, amplitude=amplitude, omega=omega, offset=offset,
                orders=4)
    one_call = c.expand(tr)
    for entry in ("loop_closed", "loop_between"):
        monkeypatch.setattr(type(kernel), entry, lambda *args, **kw: None)
    stepwise = c.expand(tr)
    assert np.array_equal(one_call.derivatives, stepwise.derivatives)
    assert np.array_equal(one_call.jacobians.PJ, stepwise.jacobians.PJ)
    monkeypatch.undo()
    qa = one_call.derivatives[::8, 0][:, c.a]
    args = (closed, qa, c.cuts, c.reference, np.arange(len(qa)), None, 8, STEP, 30, 3, c.tol,
            1e-3)
    assert kernel.loop_closed(*args, 2.0, TAYLOR_TOL) is None
    q = kernel.loop_closed(*args, 1e-4, TAYLOR_TOL)[0]
    assert np.abs(q - one_call.derivatives[::8, 0]).max() < 1e-12
    full = one_call.derivatives.copy()
    between = np.flatnonzero(np.arange(300) % 8 > 0)[:-1]
    args = (closed, full, tr.t, between, c.cuts, TAYLOR, STEP, TAYLOR_TOL, _hermite(5), 30, 3,
            c.tol, 1e-3)
    assert kernel.loop_between(*args, 2.0, one_call.jacobians.PJ.copy()) is None
    assert kernel.loop_between(*args, 1e-4, one_call.jacobians.PJ.copy()) is not None
    assert np.abs(full - one_call.derivatives).max() < 1e-12


@pytest.mark.parametrize("at", [0.0, 0.04])
def test_a_real_incomplete_call_falls_back_to_the_same_numbers(kernel, closed_robots, at,
                                                               monkeypatch):
    """The five-bar's right arm passes 1e-4 rad from where its elbows meet (P J_p near
    singular: Hadamard ratio below 1e-4, condition ~1e4, not singular) at t = ``at``: an
    anchor (sample 0: ``loop_closed`` reports incomplete) or a sample between the anchors
    (sample 4: ``loop_between``, after it wrote part of the motion's block). The caller's
    fallback then gives bit for bit what the call-by-call path gives without the one-call
    entry points ever running."""
    closed = closed_robots["fivebar"]
    c = closed.coupling
    left, meet = -np.arccos(0.375), -(np.pi - np.arccos(0.375))
    tr = cosine(closed.coordinate_names, np.arange(300) * 0.01, amplitude=[0.0, -0.4],
                omega=[1.0, 2.0], phase=[0.0, -2 * at], offset=[left, meet + 1e-4 + 0.4],
                orders=4)
    K, incomplete = type(kernel), []

    def spied(entry):
        run = getattr(K, entry)

        def spy(*args, **kw):
            out = run(*args, **kw)
            if out is None:
                incomplete.append(entry)
            return out
        return spy

    for entry in ("loop_closed", "loop_between"):
        monkeypatch.setattr(K, entry, spied(entry))
    fallback = c.expand(tr)
    assert incomplete == ["loop_closed" if at == 0 else "loop_between"]
    for entry in ("loop_closed", "loop_between"):
        monkeypatch.setattr(K, entry, lambda *args, **kw: None)
    stepwise = c.expand(tr)
    assert np.array_equal(fallback.derivatives, stepwise.derivatives)
    assert np.array_equal(fallback.jacobians.PJ, stepwise.jacobians.PJ)


def test_a_sample_left_above_open_tol_is_continued_from_its_anchor(kernel, closed_robots):
    """``loop_between``'s own ``open_tol`` (``Tolerances.open``; review41's test holds numpy's
    to it): with one Newton iteration, from each sample's Hermite prediction the kept rows'
    residual is at rounding, from its anchor 1e-3 of the loops' length and more. With
    ``open_tol`` +inf no sample is continued (the residual at rounding), with -1 every one
    is (the residual of one step from its anchor); a kernel that ignored it (a constant of
    its own) would give both the same."""
    closed = closed_robots["fourbar"]
    c = closed.coupling
    offset, amplitude, omega = MECHANISMS["fourbar"]
    t = np.arange(200) * 0.01
    tr = cosine(closed.coordinate_names, t, amplitude=amplitude, omega=omega, offset=offset,
                orders=4)
    solved = c.expand(tr)
    between = np.flatnonzero(np.arange(200) % TAYLOR > 0)[:-1]   # (199: the last, an anchor)
    residual = {}
    for open_tol in (np.inf, -1.0):
        full = solved.derivatives.copy()
        found = kernel.loop_between(closed, full, t, between, c.cuts, TAYLOR, STEP, TAYLOR_TOL,
                                    _hermite(5), 1, 1, c.tol._replace(open=open_tol), 1e-3,
                                    1e-4, solved.jacobians.PJ.copy())
        assert found is not None
        residual[open_tol] = np.abs(found[0] @ c.P.T).max(axis=1) / c.length
    assert residual[np.inf].max() < 1e-12
    assert residual[-1.0].min() > 1e-9 and residual[-1.0].max() > 1e-6
