"""``retime --optimal``'s reachability where its narrow smoothings fail ``hodyn validate``
(optimal.Optimal._reachability): a wider kernel, and the notice's words for it; at the
motion's own time scale none passing, the arms' kernels (reachability.scale_of: 1), and the
reason the user is given where those fail too. The planar 2R's point-to-point motion between
two rests, played k times faster than the arms' (limits of velocity 50 k rad/s and torque
300 k^2 N m, no gravity: legs of ~80 / k ms), as in tests/test_fast_legs.py."""

import numpy as np
import pytest

import hodyn_cli
from conftest import URDF
from hodyn_cli.algorithms.limits import reachability
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.errors import HodynError

ROBOT = URDF / "planar_2r.urdf"
NO_GRAVITY = (0.0, 0.0, 0.0)


@pytest.fixture
def played(monkeypatch) -> list[tuple[int, float]]:
    """The kernels reachability plays, (steps, scale) in order."""
    seen, kernel = [], reachability.kernel

    def spied(steps, rate, floor=reachability.FLOOR, scale=1.0):
        seen.append((steps, scale))
        return kernel(steps, rate, floor, scale)

    monkeypatch.setattr(reachability, "kernel", spied)
    return seen


def retimed(k: float, rate: float, solver: str = "auto"):
    """(model, output, optimal) of the motion k times faster, output at ``rate``."""
    model = hodyn_cli.load_robot(ROBOT)
    path = generate(model, "point-to-point", waypoints=np.array([[-0.6, 0.4], [0.5, -0.3]]),
                    segment_duration=[1.0], rate=100.0)
    limits = {j: {"velocity": 50.0 * k, "torque": 300.0 * k * k} for j in model.joint_names}
    out, opt = hodyn_cli.retime_optimal(model, path, limits=limits, gravity=NO_GRAVITY,
                                        rate=rate, arc_grid=100, solver=solver)
    return model, out, opt


def test_a_wider_kernel_is_played_where_the_narrower_fail_and_the_notice_says_why(played):
    """At 300 Hz the motion 10 times faster (8.3 ms) has its kernel's steps at 2397 Hz (its
    own time scale, 0.083 of the arms'): 1, 2 and 3 steps fail validate (the kernels after
    the first TRIED are played only then), 4 pass; the notice names the 4 steps and says
    that validate needs the law's turns at its rests to span more of a step."""
    model, out, opt = retimed(10.0, 300.0)
    scale = played[0][1]
    assert 0.05 < scale < 0.1
    assert played == [(1, scale), (2, scale), (3, scale), (4, scale), (4, scale)]  # (made again)
    assert opt.used == "reachability" and opt.smoothed is not None and opt.smoothed.steps == 4
    note = opt.smoothing_note
    assert note is not None and note.startswith(
        "its smoothing (1.67 ms either side: 4 steps of 0.417 ms, as on an output at 2397 Hz: "
        "validate needs the law's turns at its rests to span more of a step of a coarser "
        "one) and final fit cost "), note
    assert note.endswith("; a --rate above 2397 Hz smooths it over the output's own steps")
    assert hodyn_cli.validate_motion(model, out, gravity=NO_GRAVITY).passed


def test_where_the_motions_own_kernels_all_fail_the_arms_are_tried_then_the_reason(played,
                                                                                  monkeypatch):
    """The motion 120 times faster lasts 0.7 ms, 0.35 of a 500 Hz output's steps, sampled at
    its rests alone; its rests' warps giving a quarter of the jerk that validate needs there
    (reachability.MARGIN 0.5, not 2: with 2 its own narrowest kernel passes), every kernel
    at its own time scale fails validate, then every one at the arms' (the fallback), and
    the user is told why reachability does not apply and that a finer --rate would."""
    monkeypatch.setattr(reachability, "MARGIN", 0.5)
    with pytest.raises(HodynError) as e:
        retimed(120.0, 500.0, solver="reachability")
    assert str(e.value) == (
        "--solver reachability: it does not apply (reachability's law fails hodyn validate "
        "at every smoothing tried: its law lasts 0.000695 s, 0.35 of the output's steps at "
        "500 Hz (a finer --rate)): use --solver auto")
    scale = played[0][1]
    assert scale < 0.01
    assert played == [(steps, scale) for steps in reachability.STEPS] + [
        (steps, 1.0) for steps in reachability.STEPS]
    played.clear()
    _, _, opt = retimed(120.0, 2000.0)  # (a finer --rate: its own narrowest kernel)
    assert opt.used == "reachability" and played[0] == (1, scale)
