"""``retime --optimal``'s "on its limits" notice says how long each limit binds as a user
reads it: a limit met at single samples only (the iiwa's torque acceleration with
urdf/iiwa14_limits.toml, at 4.63 s and 6.93 s) is said as instants, not "(0 % of the time)";
a share too small for three digits is "< 0.01 %"; never "0 %" for a limit that binds."""

from types import SimpleNamespace

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import optimal


class _Law:
    """A law whose value at speed-up 1 is given (the only call :class:`optimal.Bound` makes)."""

    joint_names = ("a", "b")

    def __init__(self, value: np.ndarray):
        self.value = value

    def at(self, x: float) -> np.ndarray:
        return self.value


def _bound(monkeypatch, usage: np.ndarray, t: np.ndarray, chunk: int) -> list[str]:
    """Bound's description of a motion whose two joints use ``usage`` of a unit band at ``t``,
    fed ``chunk`` samples at a time."""
    quantity = SimpleNamespace(label="torque acceleration")
    monkeypatch.setattr(optimal, "limited_series", lambda model, limits, laws: [
        (quantity, "tau", [0, 1], -np.ones(2), np.ones(2))])
    bound = optimal.Bound(None, None)  # type: ignore[arg-type]
    for a in range(0, len(t), chunk):
        bound.add({"tau": _Law(usage[a:a + chunk])}, t[a:a + chunk])
    return bound.describe()


@pytest.mark.parametrize("chunk", [7, 20_001])
def test_instants_are_said_as_instants_and_small_shares_never_as_zero(monkeypatch, chunk):
    t = np.linspace(0.0, 10.0, 20_001)  # 5e-4 s apart
    usage = np.zeros((t.size, 2))
    usage[[9_260, 13_860], 0] = 1.0  # joint a: two single samples
    usage[4_000:4_002, 1] = 1.0  # joint b: 5e-4 s of 10 s (0.005 %)
    usage[10_000, 1] = 1.0  # and an instant
    lines = _bound(monkeypatch, usage, t, chunk)
    assert lines == ["torque acceleration of b: 2-2.001 s, 5 s (< 0.01 % of the time)",
                     "torque acceleration of a: 4.63 s, 6.93 s (2 instants)"]
    usage[13_860, 0] = 0.0
    usage[4_000:6_001, 1] = 1.0  # 1 s of 10
    assert _bound(monkeypatch, usage, t, chunk) == [
        "torque acceleration of b: 2-3 s, 5 s (10 % of the time)",
        "torque acceleration of a: 4.63 s (an instant)"]


def test_an_interval_shorter_than_four_digits_tell_keeps_its_ends_apart():
    assert optimal._span(2.0, 2.0002) == "2-2.0002 s"  # (was "2-2 s")
    assert optimal._span(1.5, 2.25) == "1.5-2.25 s" and optimal._span(3.0, 3.0) == "3 s"
