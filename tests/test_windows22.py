"""The windows' restarts (``programme.eased``): a stretch of a sample or two, lowered alone,
is eased back to the law beside it over :func:`~hodyn_cli.algorithms.limits.programme.
ease_floor` knot intervals at least (half its length, shorter than one, left x a step)."""

from math import comb

import numpy as np

from hodyn_cli.algorithms.limits import programme


def test_the_ramp_beside_a_short_stretch_spans_its_floor():
    """A stretch of a quarter knot interval, eased over half its length (an eighth of one):
    before, only the coefficient whose Greville abscissa lies on it was scaled, its
    neighbours kept (a step of x); now every coefficient within ease_floor knot intervals
    of it is between f and 1, rising with the distance, and x'' of the eased law is below a
    third of the step's."""
    degree, f = 5, 0.25
    law = programme.TimeLaw(np.linspace(0.0, 20.0, 21), np.full(20 + degree, 4.0), degree)
    out = programme.eased(law, 10.0, 10.25, f, 0.125)
    ratio, greville = out.coefficients / law.coefficients, law.greville
    distance = np.maximum(10.0 - greville, greville - 10.25)
    floor = programme.ease_floor(degree)
    assert 4.4 < floor < 4.5  # (degree 5: the smoothstep's 5th derivative binds)
    ramp = (distance > 0) & (distance < floor)
    assert np.all((ratio[ramp] > f) & (ratio[ramp] < 1.0)) and ramp.sum() == 8
    assert np.all(ratio[distance >= floor] == 1.0) and np.all(ratio[distance <= 0] == f)
    left, right = ratio[greville < 10.0], ratio[greville > 10.25]
    assert np.all(np.diff(left) <= 0) and np.all(np.diff(right) >= 0)
    # (the step before: the one coefficient on the stretch scaled, x'' 3.0 against 0.92)
    dip = programme.TimeLaw(law.breaks, np.where(distance <= 0, f, 1.0) * 4.0, degree)
    s = np.linspace(0.0, 20.0, 4001)
    assert np.abs(out.spline.derivative(2)(s)).max() < np.abs(
        dip.spline.derivative(2)(s)).max() / 3


def test_the_floor_leaves_a_long_ramp_as_it_was():
    """A ramp longer than the floor: the same coefficients as before (the xArm7's corner and
    the 2R's legs restart as they did)."""
    degree, f = 5, 0.25
    law = programme.TimeLaw(np.linspace(0.0, 10.0, 41), np.linspace(1.0, 3.0, 40 + degree),
                            degree)
    out = programme.eased(law, 6.0, 10.0, f, 2.0)
    u = np.clip((6.0 - law.greville) / 2.0, 0.0, 1.0)
    smooth = sum(comb(11, j) * u**j * (1 - u) ** (11 - j) for j in range(6, 12))
    assert np.array_equal(out.coefficients, law.coefficients * (f + (1 - f) * smooth))


def test_the_floor_reads_the_knot_intervals_outside_the_stretch():
    """On uneven knots the floor is read from the intervals the ramps lie in, left of the
    stretch's start and right of its end (it read the one inside the stretch at its start):
    a stretch 4 .. 5 whose inner interval is 1 long and outer ones 0.1 keeps a ramp of
    ease_floor x 0.1 (asked 0.05): the coefficients farther from it are the law's own (the
    old reading ramped over ease_floor x 1, to 4.44 before the stretch)."""
    degree, f = 5, 0.25
    breaks = np.r_[np.linspace(0.0, 4.0, 41), 5.0, np.linspace(5.1, 9.0, 40)]
    law = programme.TimeLaw(breaks, np.full(len(breaks) - 1 + degree, 4.0), degree)
    out = programme.eased(law, 4.0, 5.0, f, 0.05)
    ratio, greville = out.coefficients / law.coefficients, law.greville
    far = (greville < 4.0 - 0.1 * programme.ease_floor(degree)) | (
        greville > 5.0 + 0.1 * programme.ease_floor(degree))
    assert np.all(ratio[far] == 1.0) and np.any(ratio[(greville > 3.0) & (greville < 4.0)] < 1)
