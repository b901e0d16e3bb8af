"""Closed loops at any size: Newton's tolerances are relative to the loops' length
(``loops._length``), so a linkage of a few micrometres closes as precisely, in its angles,
as the same linkage of a metre. Before, the residual's tolerance was 1e-13 m: the four-bar
scaled to 1e-5 stopped Newton ~1e-9 rad from the loop and its passive joints' derivatives
were off by 1e-10 (kernel) to 1e-9 (numpy) of their size, which failed ``validate``'s
differences (35 um: 1.4e-8 against 1e-8)."""
from __future__ import annotations

import contextlib
import re
from pathlib import Path

import numpy as np
import pytest

from conftest import scaled_urdf
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.motion.loops import Closed
from hodyn_cli.api import close_loops, load_robot

ROOT = Path(__file__).resolve().parents[1]


def _scaled(folder: Path, length: float, mass: float) -> tuple[str, str]:
    """urdf/fourbar.urdf and its loops file in other units (:func:`conftest.scaled_urdf`):
    the same motion in angles."""
    loops = re.sub(r"xyz = \[([^\]]+)\]", lambda m: "xyz = [{}]".format(
        ", ".join(repr(float(v) * length) for v in m.group(1).split(","))),
        (ROOT / "urdf" / "fourbar_loops.toml").read_text())
    (folder / "f_loops.toml").write_text(loops)
    return (str(scaled_urdf(ROOT / "urdf" / "fourbar.urdf", folder, length, mass)),
            str(folder / "f_loops.toml"))


@pytest.fixture(scope="module")
def crank() -> tuple[np.ndarray, np.ndarray]:
    rows = np.loadtxt(ROOT / "sample_trajectories" / "fourbar_crank.csv", delimiter=",",
                      skiprows=1)
    return rows[:, 0], rows[:, 1:].reshape(len(rows), -1, 1)


@pytest.mark.parametrize("backend", [None, "numpy"])   # (None: the default, the kernel's)
def test_a_micrometre_linkage_closes_as_precisely_as_a_metre_one(tmp_path, crank, backend):
    t, qs = crank
    with backends.use(backend) if backend else contextlib.nullcontext():
        one = close_loops(load_robot(str(ROOT / "urdf" / "fourbar.urdf")),
                          str(ROOT / "urdf" / "fourbar_loops.toml"))
        tiny = close_loops(load_robot(_scaled(tmp_path, 1e-5, 1e-15)[0]),
                           _scaled(tmp_path, 1e-5, 1e-15)[1])
        # the lever of the joints on the cut (m per rad) scales with the linkage
        assert tiny.coupling.length == pytest.approx(1e-5 * one.coupling.length, rel=1e-9)
        assert one.coupling.length < 1.0
        a, b = one.coupling.joint_rates(qs, t), tiny.coupling.joint_rates(qs, t)
    err = np.abs(b - a).max(axis=(0, 2)) / np.abs(a).max(axis=(0, 2))
    assert err.max() < 1e-12, err


@pytest.mark.parametrize("backend", [None, "numpy"])
def test_newton_stops_on_a_36_micrometre_linkage_where_it_does_on_the_0_59_m_one(
        tmp_path, crank, backend, monkeypatch):
    """Newton's step tolerance is in joint units (rad), its residual's times the loops'
    length (``loops.Tolerances``): the four-bar scaled by 2**-14 (36 um: every length and
    every gap times a power of two, exactly) takes the 0.59 m one's steps in rad and stops
    where it does, its positions and derivatives the same bit for bit. With one tolerance
    for both, times the length (3.6e-18 rad for the small one: below the angles'
    rounding), its step test never fired: numpy's Newton evaluated the loops 130 times
    along the crank's file against 82, and the positions (numpy) or the derivatives (the
    kernel's) differed by 4e-16 and 3e-13 relative."""
    t, qs = crank
    evaluations: list[int] = []
    residual = Closed.residual
    monkeypatch.setattr(Closed, "residual",
                        lambda self, q: evaluations.append(len(q)) or residual(self, q))
    robots = ((str(ROOT / "urdf" / "fourbar.urdf"), str(ROOT / "urdf" / "fourbar_loops.toml")),
              _scaled(tmp_path, 2.0 ** -14, 2.0 ** -42))
    found, counts = [], []
    with backends.use(backend) if backend else contextlib.nullcontext():
        for urdf, loops in robots:
            closed = close_loops(load_robot(urdf), loops).coupling
            evaluations.clear()
            positions = closed.positions(qs[:, 0])
            counts.append(len(evaluations))
            found.append((positions, closed.joint_rates(qs, t)))
    assert closed.tol.step == 1e-13 and closed.tol.residual < 4e-18
    for a, b in zip(*found, strict=True):
        assert np.array_equal(a, b)
    assert counts[0] == counts[1]


@pytest.mark.parametrize("size", [1.0, 2.0 ** -14])
@pytest.mark.parametrize(("error", "continued"), [(3e-6, True), (1e-10, False)])
def test_newton_from_a_prediction_is_judged_converged_in_joint_units(
        tmp_path, crank, size, error, continued, monkeypatch):
    """Newton from a sample's prediction (``Closed._predicted``) that leaves the kept rows'
    residual at ``error`` rad (times the loops' length, m) did not converge above
    ``loops.OPEN_TOL`` (3.2e-7 rad) and the sample is continued from its anchor instead, at
    any size: the four-bar and the same one scaled by 2**-14 (36 um) alike. (Judged against
    ``sqrt`` of Newton's residual tolerance, 1e-13 m times the length, as before, the 36 um
    one's bound was 1.9e-9 m, 5e-5 rad: 3e-6 rad of it was taken as converged; review41.)"""
    t, qs = crank
    urdf, loops = ((str(ROOT / "urdf" / "fourbar.urdf"), str(ROOT / "urdf" / "fourbar_loops.toml"))
                   if size == 1.0 else _scaled(tmp_path, size, size ** 3))

    class Continued(Exception):
        pass

    predicting = [False]
    newton, predicted, continuing = Closed._newton, Closed._predicted, Closed._continued

    def unconverged(self, *args, **kwargs):   # (the residual of a Newton that stopped short)
        c, *rest = newton(self, *args, **kwargs)
        return (c + error * self.length if predicting[0] else c, *rest)

    def within(self, *args, **kwargs):
        predicting[0] = True
        try:
            return predicted(self, *args, **kwargs)
        finally:
            predicting[0] = False

    def refused(self, *args, **kwargs):
        if predicting[0]:
            raise Continued
        return continuing(self, *args, **kwargs)

    with backends.use("numpy"):
        closed = close_loops(load_robot(urdf), loops).coupling
        monkeypatch.setattr(Closed, "_newton", unconverged)
        monkeypatch.setattr(Closed, "_predicted", within)
        monkeypatch.setattr(Closed, "_continued", refused)
        with pytest.raises(Continued) if continued else contextlib.nullcontext():
            closed.joint_rates(qs, t)
