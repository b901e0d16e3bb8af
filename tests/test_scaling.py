"""The time-scaling laws (hodyn_cli.algorithms.limits.scaling) against the dynamics of the scaled
motion computed afresh, their earliest crossing against a dense scan, and the retiming they
give against the check of its result."""

import numpy as np
import pytest

import hodyn_cli
from conftest import SAMPLES, URDF, random_cosine, wrench_motion
from hodyn_cli import api
from hodyn_cli.algorithms.actuation import elastic
from hodyn_cli.algorithms.limits.scaling import TOLERANCE, Law, earliest
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.io import read_trajectory
from hodyn_cli.modeling.drives import read_drives

RNG = np.random.default_rng(23)


def played(traj: Trajectory, k: float) -> Trajectory:
    """The motion k times slower, built here by hand: q_k^(j)(k t) = q^(j)(t) / k^j."""
    factor = k ** -np.arange(traj.orders)
    W = traj.wrenches
    return Trajectory(traj.joint_names, traj.derivatives * factor[:, None], k * traj.t,
                      None if W is None else Wrenches(
                          {link: w * (k ** -np.arange(w.shape[1]))[:, None]
                           for link, w in W.W.items()}))


@pytest.mark.parametrize("gravity", [(0.0, 0.0, -9.81), (0.0, 0.0, 0.0), (1.0, -2.0, -9.0)])
def test_torque_laws_equal_the_torques_of_the_scaled_motion(robot, gravity):
    """tau_k^(j) = x^j s^(j) + x^(j+2) d^(j) against the spatial method on the motion played
    k times slower, for random k (both sides of 1), orders 0..2, with external wrenches."""
    name, path, model = robot
    t = np.linspace(0, 2, 41)
    traj = random_cosine(model, t, 4, seed=3)
    link = model.link_names[-1]
    traj = Trajectory(traj.joint_names, traj.derivatives, t, Wrenches({link: wrench_motion(t, 2)}))
    laws = api.scaling_laws(model, traj, order=2, gravity=gravity)
    for k in RNG.uniform(0.2, 5.0, 4):
        ref = api.inverse_dynamics(model, played(traj, k), order=2, gravity=gravity,
                                   method="spatial")
        for name_ in ("tau", "taud", "taudd"):
            got = laws[name_].at(1 / k)
            scale = np.abs(ref[name_]).max()
            assert np.abs(got - ref[name_]).max() <= 1e-10 * scale, (name, k, name_)
        assert np.allclose(laws["qd"].at(1 / k), traj.qd / k, rtol=0, atol=1e-15)


def test_the_split_matters():
    """Scaling the whole torque by 1/k^2 (ignoring gravity's own law) is measurably wrong."""
    model = hodyn_cli.load_robot(URDF / "iiwa14.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 11), 4)
    laws = api.scaling_laws(model, traj, order=0)
    ref = api.inverse_dynamics(model, played(traj, 2.0), order=0).tau
    naive = laws["tau"].at(1.0) / 4
    assert np.abs(naive - ref).max() > 1.0
    assert np.abs(laws["tau"].at(0.5) - ref).max() < 1e-10 * np.abs(ref).max()


@pytest.mark.parametrize("kind", ["full", "reflected"])
def test_elastic_laws_equal_the_elastic_model_of_the_scaled_motion(kind):
    """u, ud, udd, thetad and taum (grades up to x^16 for the iiwa's full model) against
    elastic.inverse_dynamics on the motion played k times slower."""
    model = hodyn_cli.load_robot(URDF / "iiwa14.urdf")
    drives = read_drives(URDF / "iiwa14_drives.toml", model)
    req = elastic.requirements(model, drives, 0, kind)
    full = read_trajectory(str(SAMPLES / "iiwa14_cosine_high.h5"), model, need=req.q_order + 1)
    traj = Trajectory(full.joint_names, full.derivatives[::25], full.t[::25])
    laws = api.scaling_laws(model, traj, drives=drives, model=kind)
    if kind == "full":
        assert laws["taum"].coefficients.shape[-1] > 3  # the coupling raises the degree
    for k in (0.3, 0.9, 1.7, 4.0):
        ref = elastic.inverse_dynamics(model, played(traj, k), drives, order=0, kind=kind)
        for name, value in (("u", ref.u[:, 0]), ("ud", ref.u[:, 1]), ("udd", ref.u[:, 2]),
                            ("thetad", ref.theta[:, 1]), ("taum", ref.taum[:, 0])):
            got = laws[name].at(1 / k)
            assert np.abs(got - value).max() <= 1e-9 * np.abs(value).max(), (kind, k, name)


def dense_first_crossing(law: Law, lower, upper, xs, until=None):
    """Per joint the first scanned x where some sample leaves [lower, upper]; with ``until``
    (per joint), of the xs up to it only (inf where none leaves there): the first crossing
    whenever it is at most ``until``."""
    c = law.coefficients
    a = np.zeros(c.shape[:2] + (law.power + 2 * c.shape[-1] - 1,))  # in x, lowest first
    a[..., law.power :: 2] = c
    out = []
    for j in range(a.shape[1]):
        some = xs if until is None else xs[xs <= until[j]]
        v = np.polynomial.polynomial.polyval(some, a[:, j].T)  # (N, len(some))
        bad = ((v < lower[j]) | (v > upper[j])).any(axis=0)
        out.append(some[np.argmax(bad)] if bad.any() else np.inf)
    return np.array(out)


def test_earliest_crossing_against_a_dense_scan():
    """Random laws (mixed signs, gaps, both band sides, degree up to 8): the earliest crossing
    equals the first violation of a scan with step 1e-4 (to that step). The scan stops two
    steps past the crossing found (a crossing found late is still caught by an earlier
    violation, one found early by none before it): the scan past it was most of the test."""
    xs = np.linspace(0, 10, 100001)[1:]
    for trial in range(20):
        N, P, power = int(RNG.integers(1, 25)), int(RNG.integers(1, 4)), int(RNG.integers(0, 3))
        c = RNG.normal(size=(N, 3, P + 1)) * (RNG.uniform(size=(N, 3, P + 1)) > 0.2)
        c[..., 0] *= 0.3  # mostly inside the band at rest
        law = Law(power, c, ("a", "b", "c"))
        lower, upper = -RNG.uniform(0.5, 3, 3), RNG.uniform(0.5, 3, 3)
        x, row = earliest(law, lower, upper)
        scan = dense_first_crossing(law, lower, upper, xs, until=x + 2e-4)
        at_rest = law.coefficients[..., 0] if power == 0 else np.zeros((N, 3))
        beyond = ((at_rest < lower) | (at_rest > upper)).any(axis=0)
        expect = np.where(beyond, 0.0, scan)
        finite = np.isfinite(expect)
        assert np.all(np.abs(x[finite] - expect[finite]) <= 1.1e-4), (trial, x, expect)
        assert np.all(x[~finite] > 9.9999), (trial, x, expect)


def test_earliest_crossing_is_exact_and_binding():
    """At the crossing the binding sample sits on its limit to rounding; 1e-6 beyond it, it
    is outside by the law's slope."""
    c = RNG.normal(size=(200, 2, 3))
    law = Law(1, c, ("a", "b"))
    lower, upper = np.array([-2.0, -1.0]), np.array([3.0, 1.0])
    x, row = earliest(law, lower, upper)
    for j in range(2):
        centre, half = (lower[j] + upper[j]) / 2, (upper[j] - lower[j]) / 2
        usage = np.abs(law.at(x[j])[:, j] - centre) / half
        assert abs(usage.max() - 1) < 1e-12 and usage.argmax() == row[j]
        assert np.abs(law.at(x[j] * (1 + 1e-6))[row[j], j] - centre) / half > 1 + 1e-8


def test_which_samples_have_terms_is_any_over_the_coefficients():
    """``scaling._with_terms`` (earliest's samples that have a law: a coefficient at a time)
    is ``(c[..., first:] != 0).any(axis=-1)``: one coefficient and several, from the first
    or the second, a NaN (not 0: a term), -0.0 (0), no samples."""
    from hodyn_cli.algorithms.limits.scaling import _with_terms

    rng = np.random.default_rng(4)
    for shape in [(40, 3, 1), (40, 3, 2), (40, 2, 3), (0, 3, 2)]:
        c = rng.normal(size=shape)
        c[::2, :, -1] = 0.0
        c[::3, :, 0] = -0.0
        if len(c):
            c[1, 0, -1] = np.nan
        for first in (0, 1):
            want = (c[..., first:] != 0).any(axis=-1)
            assert np.array_equal(_with_terms(c, first), want)
        assert not _with_terms(c, c.shape[-1]).any()


def test_earliest_crossing_edges():
    law = Law(0, np.array([[[5.0, 1.0]], [[0.0, 0.0]]]), ("a",))  # beyond at rest
    assert earliest(law, np.array([-4.0]), np.array([4.0]))[0][0] == 0.0
    position = Law(0, np.array([[[0.0]], [[-5.0]], [[1.0]]]), ("a",))  # never moves
    x, row = earliest(position, np.array([-4.0]), np.array([4.0]))
    assert (x[0], row[0]) == (0.0, 1)
    assert np.isinf(earliest(position, np.array([-6.0]), np.array([4.0]))[0][0])
    still = Law(1, np.zeros((3, 1, 2)), ("a",))  # never moves: nothing binds
    assert np.isinf(earliest(still, np.array([-1.0]), np.array([1.0]))[0][0])
    on_limit = Law(0, np.array([[[4.0 * (1 + TOLERANCE / 2), -1.0]]]), ("a",))  # moves inward
    x = earliest(on_limit, np.array([-4.0]), np.array([4.0]))[0][0]
    assert abs(x - np.sqrt(8.0)) < 1e-8  # 4 - x^2 = -4
    unlimited = Law(0, np.ones((2, 1, 2)), ("a",))
    assert np.isinf(earliest(unlimited, np.array([-np.inf]), np.array([np.inf]))[0][0])


@pytest.mark.parametrize("key, value, drives", [
    ("torque_rate", 40.0, None), ("torque_acceleration", 150.0, None),
    ("motor_torque", 0.6, URDF / "iiwa14_drives.toml"),
    ("motor_speed", 200.0, URDF / "iiwa14_drives.toml")])
def test_retimed_motion_is_feasible_and_minimal(key, value, drives):
    """The retimed motion passes the check with its binding quantity on its limit; played
    1e-6 faster than that it fails on exactly that quantity and joint."""
    model = hodyn_cli.load_robot(URDF / "iiwa14.urdf")
    need = 17 if drives else 5
    full = read_trajectory(str(SAMPLES / "iiwa14_cosine_high.h5"), model, need=need)
    traj = Trajectory(full.joint_names, full.derivatives[::5], full.t[::5])
    limits = {j: {"velocity": np.inf, key: value} for j in model.joint_names}
    new, retiming, (binding,) = api.retime(model, traj, limits=limits, drives=drives)
    assert binding.quantity == key.replace("_", " ")
    check = api.check_limits(model, new, limits=limits, drives=drives)
    assert check.feasible
    worst = max((r for r in check.rows if r.checked), key=lambda r: r.usage)
    assert abs(worst.usage - 1) < 1e-9
    assert (worst.quantity, worst.joint, worst.sample) == (key, binding.joint, binding.sample)
    faster, _, _ = api.retime(model, traj, factor=retiming.k[0] * (1 - 1e-6))
    check = api.check_limits(model, faster, limits=limits, drives=drives)
    assert [(r.quantity, r.joint) for r in check.rows if r.status == "violated"] == \
        [(key, binding.joint)]


def test_a_slow_motion_is_sped_up():
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    traj = random_cosine(model, np.linspace(0, 20, 201), 4)
    slow, _, _ = api.retime(model, traj, factor=10.0)
    new, retiming, _ = api.retime(model, slow, limits={"joint1": {"torque_rate": 50.0}})
    assert retiming.k[0] < 1
    assert api.check_limits(model, new, limits={"joint1": {"torque_rate": 50.0}}).feasible
