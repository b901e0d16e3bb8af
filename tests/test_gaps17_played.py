"""``retime --optimal``'s played law against its passes' law where the grid is coarse in time
(issue 37, goal 1; branch gaps17, the gaps sweep17 found on example-robot-data's arms):

* at a rest that is an end of the motion, on an output coarser than the kernel's floor, the
  rest's warp lasts a quarter of a step (2.5 ms at 100 Hz), and the first grid interval may
  last far longer (25 ms on the simple humanoid's right arm, whose wrist holds most of its
  8 N m against gravity): its played points now resolve the warp (reachability.NEAR of them,
  as at a corner), where the output sampled between them by Hermite interpolation carried
  the warp's jerk at the rest over the whole interval, its q'' up to 90 % off, and the
  fit slowed the motion 15.9 % (16 % over toppra);
* where the smoothing's floor of reachability.SMOOTH grid intervals lasts longer than the
  kernel's reach and the smoothed, lowered law costs more than optimal.REFINE, the passes
  run again on a grid that many times finer (optimal.refined)."""

from types import SimpleNamespace

import numpy as np
import pytest
from test_base_parameters import public_robot
from test_reachability import _kept_and_consistent

import hodyn_cli
from hodyn_cli.algorithms.limits import optimal, reachability
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory

#: a rest-to-rest time law on [0, 1] (p and its first four derivatives 0 at both ends)
REST_TO_REST = np.polynomial.Polynomial([0, 0, 0, 0, 0, 126, -420, 540, -315, 70])


def _arm(relative: str, moving: list[str]):
    """The robot with only ``moving`` free, the others held where ``--lock-missing`` holds
    them."""
    whole = hodyn_cli.load_robot(public_robot(relative))
    return hodyn_cli.api.lock_joints(whole, {j: hodyn_cli.api.lock_value(whole, j)
                                            for j in whole.joint_names if j not in moving})


def _lissajous(model, seconds: float = 1.0, rate: float = 100.0) -> Trajectory:
    """Each joint ``a + b sin(w p + j)`` (a: its range's middle, b: 0.3 of its half-range,
    w = pi (1 + j % 3)), p from rest to rest over ``seconds`` (:data:`REST_TO_REST`): q ..
    q'''' exact by the chain rule (sweep17's ``lissa``)."""
    low, high = model.limits[:, 0], model.limits[:, 1]
    a, b = (low + high) / 2, 0.3 * np.minimum((high - low) / 2, np.pi)
    j = np.arange(model.n)
    w = np.pi * (1 + j % 3)
    t = np.arange(round(seconds * rate) + 1) / rate
    p = [REST_TO_REST.deriv(r)(t / seconds) / seconds**r if r else REST_TO_REST(t / seconds)
         for r in range(5)]
    angle = w * p[0][:, None] + j
    f = [b * w**r * np.sin(angle + r * np.pi / 2) for r in range(5)]  # (d^r/dp^r)
    p1, p2, p3, p4 = (v[:, None] for v in p[1:])
    q = np.stack([f[0], f[1] * p1, f[2] * p1**2 + f[1] * p2,
                  f[3] * p1**3 + 3 * f[2] * p1 * p2 + f[1] * p3,
                  f[4] * p1**4 + 6 * f[3] * p1**2 * p2 + f[2] * (3 * p2**2 + 4 * p1 * p3)
                  + f[1] * p4], axis=1) + np.stack([a] + [0 * a] * 4)[None]
    return Trajectory(model.joint_names, q, t)


HUMANOID_ARM = [f"RARM_{j}" for j in ("SHOULDER_P", "SHOULDER_R", "SHOULDER_Y", "ELBOW",
                                      "WRIST_Y", "WRIST_P", "WRIST_R")]


def test_a_rests_warp_is_played_within_a_long_first_grid_interval():
    """The simple humanoid's right arm on a Lissajous path from rest to rest (1 s at 100 Hz,
    101 samples; its output at 100 Hz, coarser than the kernel's 200 Hz floor: its rests
    warped): the played law within 0.5 % of its passes' law (0.11 %; 15.9 % before, the
    warp's jerk carried over a 25 ms grid interval), within its limits, passing validate."""
    model = _arm("simple_humanoid_description/urdf/simple_humanoid.urdf", HUMANOID_ARM)
    out, opt = hodyn_cli.retime_optimal(model, _lissajous(model))
    _kept_and_consistent(model, out, 20)
    assert opt.used == "reachability" and opt.smoothed is not None
    assert opt.duration < 1.005 * opt.smoothed.law, (opt.duration, opt.smoothed.law)


def _dipping(intervals: int, dips: int = 40) -> list:
    """One arc of ``intervals`` over sigma in [0, 1] and its law: x = 1 but at ``dips``
    narrow V-shaped dips to 0.5 (a law braking into a ceiling of its own and speeding up
    out of it, |u| = 25 there), a rest at neither end."""
    sigma = np.linspace(0.0, 1.0, intervals + 1)
    at = (np.arange(dips) + 0.5) / dips
    x = np.minimum(1.0, 0.5 + 50 * np.abs(sigma[:, None] - at).min(axis=1))
    law = reachability.Law(sigma, x, np.diff(x) / (2 * np.diff(sigma)))
    return [(SimpleNamespace(sigma=sigma), law)]


def test_a_grid_whose_smoothing_floor_costs_is_refined_until_the_floor_fits_the_reach():
    """:func:`optimal.refined`: on 4000 intervals of a 1.137 s law (0.28 ms each at its mean
    pace) the floor of SMOOTH intervals is 2.27 ms, 2.3 times a 1 ms reach, and the smoothed
    and lowered law at its 40 dips is 0.38 % longer, more than REFINE: three times as fine
    (the floor then 0.76 ms, and the lowered law 0.09 % longer); not where the floor fits
    the reach (a 2.5 ms one, or 12 000 intervals), nor where the smoothing costs less than
    REFINE (4 dips: 0.04 %)."""
    found = _dipping(4000)
    law = found[0][1]
    assert 2 < reachability.SMOOTH * law.duration / (4000 * 1e-3) < 3
    assert reachability.lowered_duration(law, 1e-3) > (1 + optimal.REFINE) * law.duration
    assert optimal.refined(found, 1e-3) == 12_000
    assert optimal.refined(found, 2.5e-3) is None
    assert optimal.refined(_dipping(12_000), 1e-3) is None
    assert optimal.refined(_dipping(4000, dips=4), 1e-3) is None


@pytest.mark.slow  # (~4 s of CPU: the passes again on a grid three times as fine)
def test_a_fourier_path_whose_smoothing_floor_costs_is_within_half_a_percent_of_toppra():
    """human.urdf's right arm on a 20 s Fourier path (9 harmonics) at 100 Hz: its law of
    11.1 s on 6003 intervals, the smoothing's floor 14.8 ms against a 5 ms reach, touching
    its velocity limits 30-odd times, was 1.07 % slower than toppra (11.0773 s, sweep17's,
    on hodyn's path to its end speeds); on 18 009 intervals 0.05 %."""
    moving = ["right_clavicle_joint_X", "right_shoulder_Z", "right_shoulder_X",
              "right_shoulder_Y", "right_elbow_Z", "right_elbow_Y", "right_wrist_Z",
              "right_wrist_X"]
    model = _arm("human_description/robots/human.urdf", moving)
    traj = generate(model, "fourier", duration=20.0, rate=100.0, harmonics=9,
                    base_frequency=0.25, seed=7, derivatives=4)
    out, opt = hodyn_cli.retime_optimal(model, traj)
    _kept_and_consistent(model, out, 20)
    assert opt.used == "reachability"
    assert opt.path is not None and opt.path.grid > 18_000
    assert opt.duration < 1.005 * 11.0773, opt.duration
