"""``hodyn check``: a motion's ends at rest against jerk and torque-rate limits. A held robot
has q'' = 0; a motion that leaves (or comes to) a rest with q'' != 0 steps its acceleration
there (unbounded jerk and torque rates) however smooth its samples are: a row per joint
(``rest_acceleration``), violated at each such end (:mod:`hodyn_cli.algorithms.limits.rests`).

The half cosine ``q = c + a cos(pi t / T)`` goes rest to rest with q'' = -+a (pi/T)^2 at
both ends and its jerk 0 there (at most a (pi/T)^3 inside); the quintic step
``10 s^3 - 15 s^4 + 6 s^5`` goes rest to rest with q'' = 0 at both."""

import json

import numpy as np
import pytest

from conftest import URDF, hodyn_here
from hodyn_cli import api
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.urdf import load_model
from hodyn_cli.pipeline.check_report import SCHEMA_PATH

TWO_R = URDF / "planar_2r.urdf"
MODEL = load_model(TWO_R)
T = np.linspace(0.0, 1.0, 201)
A = np.array([0.5, -0.3])


def _half_cosine() -> Trajectory:
    return cosine(MODEL.joint_names, T, amplitude=A, omega=np.pi, offset=[0.1, 0.2], orders=4)


def _quintic() -> Trajectory:
    """The quintic step of 2 A (the half cosine's travel): q'' = 0 at its rests."""
    s = T[:, None]
    powers = [s ** 3 * (10 - 15 * s + 6 * s ** 2), 30 * s ** 2 * (1 - s) ** 2,
              60 * s * (1 - s) * (1 - 2 * s), 60 * (1 - 6 * s + 6 * s ** 2), 720 * s - 360]
    return Trajectory(MODEL.joint_names, np.stack([2 * A * p for p in powers], axis=1), T)


def _check(tmp_path, motion: Trajectory, *options):
    path = tmp_path / "m.h5"
    write_trajectory(str(path), motion)
    run = hodyn_here("check", str(TWO_R), str(path), *options, "--report",
                     str(tmp_path / "r.json"))
    return run, json.loads((tmp_path / "r.json").read_text())


def _rests(report: dict) -> dict[str, dict]:
    return {r["joint"]: r for r in report["rows"] if r["quantity"] == "rest_acceleration"}


def test_a_step_of_acceleration_at_both_rests_is_violated_at_both(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    run, report = _check(tmp_path, _half_cosine(), "--jerk", "1000")
    assert run.returncode == 1
    jsonschema.validate(report, json.loads(SCHEMA_PATH.read_text()))
    rests = _rests(report)
    assert set(rests) == set(MODEL.joint_names)
    for j, name in enumerate(MODEL.joint_names):
        row = rests[name]
        assert row["status"] == "violated" and row["violations"] == 2
        assert abs(abs(row["value"]) - abs(A[j]) * np.pi ** 2) <= 1e-9 * np.pi ** 2
        assert row["margin_percent"] is None and row["limit"] == 0
        assert row["worst_sample"] in (0, len(T) - 1)
        assert row["limit_from"] == "option"
    # the samples' own jerk is within its limit: only the rests fail
    jerks = [r for r in report["rows"] if r["quantity"] == "jerk"]
    assert jerks and all(r["status"] == "ok" for r in jerks)
    fails = [line for line in run.stderr.splitlines() if line.startswith("hodyn: fail:")]
    assert len(fails) == 2 and all("not 0 at both ends at rest" in f and
                                   "steps there" in f for f in fails)


def test_rests_with_no_acceleration_pass(tmp_path):
    run, report = _check(tmp_path, _quintic(), "--jerk", "1000")
    assert run.returncode == 0, run.stderr
    rests = _rests(report)
    assert set(rests) == set(MODEL.joint_names)
    assert all(r["status"] == "ok" and r["value"] == 0 for r in rests.values())


def test_without_limits_of_higher_orders_rests_are_not_judged(tmp_path):
    """Velocity and torque limits alone: a step of acceleration breaks none of them."""
    run, report = _check(tmp_path, _half_cosine())
    assert run.returncode == 0, run.stderr
    assert not _rests(report)


def test_a_torque_rate_limit_judges_every_joints_rests(tmp_path):
    """A torque-rate limit on the first joint alone: every joint's q'' moves its torque."""
    limits = tmp_path / "l.toml"
    limits.write_text(f"[joints.{MODEL.joint_names[0]}]\ntorque_rate = 1e6\n")
    run, report = _check(tmp_path, _half_cosine(), "--limits", str(limits))
    assert run.returncode == 1
    rests = _rests(report)
    assert set(rests) == set(MODEL.joint_names)
    assert all(r["status"] == "violated" and r["limit_from"] == "file"
               for r in rests.values())


def test_a_motion_moving_at_its_ends_has_no_rest_rows(tmp_path):
    moving = cosine(MODEL.joint_names, T, amplitude=A, omega=np.pi, phase=0.3, orders=4)
    run, report = _check(tmp_path, moving, "--jerk", "1000")
    assert run.returncode == 0, run.stderr
    assert not _rests(report)


@pytest.mark.parametrize("cut", [1, 7, 100, 199])
def test_the_ends_are_found_across_chunks(cut):
    """The check fed in two chunks split anywhere (a one-sample chunk at either end too)
    finds the rests of the whole: the first chunk's first sample, the last one's last."""
    limits = api.joint_limits(MODEL, jerk=1000.0)
    motion = _half_cosine()
    whole, parts = api.limit_check(MODEL, limits), api.limit_check(MODEL, limits)
    order = api.torque_order(limits)
    whole.add(api.scaling_laws(MODEL, motion, order=order), motion.t)
    for rows in (slice(0, cut), slice(cut, None)):
        part = motion.rows(rows)
        parts.add(api.scaling_laws(MODEL, part, order=order), part.t)
    one, two = (_rests_of(c) for c in (whole, parts))
    assert one == two and len(one) == 2
    assert all(row[1] == "violated" and row[2] == 2 for row in one)


def _rests_of(check) -> list[tuple]:
    return [(r.joint, r.status, r.violations, r.value, r.sample) for r in check.rows
            if r.quantity == "rest_acceleration"]


@pytest.mark.parametrize("options, warned", [(["--jerk", "1000"], True), ([], False)],
                         ids=["jerk", "velocity-torque"])
def test_retime_to_limits_warns_of_steps_it_cannot_remove(tmp_path, options, warned):
    """A uniform scaling scales q'' by 1/k^2: the half cosine's steps stay, said once per end
    (where a limit of higher order makes them matter)."""
    path = tmp_path / "m.h5"
    write_trajectory(str(path), _half_cosine())
    run = hodyn_here("retime", str(TWO_R), str(path), "--to-limits", *options,
                     "-o", str(tmp_path / "out.h5"))
    assert run.returncode == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if "a step of acceleration" in line]
    if not warned:
        assert not warnings
        return
    assert len(warnings) == 2
    assert "leaves its rest at t = 0 s" in warnings[0] and "from a robot held" in warnings[0]
    assert "comes to rest at t = 1 s" in warnings[1] and "to a robot held" in warnings[1]
    assert all(line.startswith(f"hodyn: warning: {path}: ") for line in warnings)
