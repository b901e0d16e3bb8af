"""Closed loops whose passive joints mix revolute and prismatic ones, at any size: Newton
measures each passive joint's step in its own unit (rad; the loops' length where it is
prismatic, ``loops.Tolerances``), and the loops' length is the lever of the joints that turn
alone (``loops._length``). A slider-crank scaled by 2**-15 (31 um) then closes in the 1 m
one's Newton steps, to its positions times the scale. Before, one step tolerance times the
length served both joints, and the length counted the slider's column (1 m per m whatever
the size), so it was 1 m at every size: the 31 um linkage's Newton stopped on its slider's
step of 1e-13 m (3e-9 of its size) and its positions were 1e-9 rad off the 1 m one's."""
from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import pytest

from conftest import scaled_urdf
from hodyn_cli import api
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.motion.loops import Closed

SMALL = 2.0 ** -15   # (a power of two: every length scales exactly)


def _slider_crank(folder: Path, size: float, crank: float = 0.1, driven: str = "crank"
                  ) -> Closed:
    """A slider-crank in the xz plane (crank 0.1 m driven, rod 0.3 m, a slider along x on
    the ground pinned to the rod's end: the rod's joint revolute, the slider prismatic, both
    passive), every length times ``size``; ``crank``: its length, ``driven`` "slider": the
    slider actuated instead (the crank and the rod passive, assembled at the crank's 0.6
    rad)."""
    def link(name: str, length: float, mass: float) -> str:
        i = mass * length**2 / 12 + 1e-4
        return (f'<link name="{name}"><inertial><origin xyz="{length / 2} 0 0"/><mass '
                f'value="{mass}"/><inertia ixx="1e-4" ixy="0" ixz="0" iyy="{i}" iyz="0" '
                f'izz="{i}"/></inertial></link>')

    def joint(name: str, kind: str, parent: str, child: str, x: float, axis: str) -> str:
        return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child '
                f'link="{child}"/><origin xyz="{x} 0 0"/><axis xyz="{axis}"/><limit '
                f'lower="-10" upper="10" effort="100" velocity="20"/></joint>')

    (folder / "s.urdf").write_text(
        '<robot name="slider"><link name="ground"/>'
        + joint("crank", "revolute", "ground", "crank_link", 0, "0 1 0")
        + link("crank_link", crank, 1.0)
        + joint("rod", "revolute", "crank_link", "rod_link", crank, "0 1 0")
        + link("rod_link", 0.3, 0.5)
        + joint("slider", "prismatic", "ground", "slider_link", 0, "1 0 0")
        + link("slider_link", 0.05, 2.0) + "</robot>")
    urdf = scaled_urdf(folder / "s.urdf", folder, size, size ** 3)
    # (the crank at 0.6 rad: the rod's end at z = 0 and the slider's x there)
    rod = -0.6 - np.arcsin(crank * np.sin(0.6) / 0.3)
    guess = {"rod": -0.4, "slider": 0.38 * size} if driven == "crank" else \
        {"crank": 0.6, "rod": rod, "slider": (crank * np.cos(0.6) + 0.3 * np.cos(0.6 + rod)) * size}
    return api.close_loops(api.load_robot(urdf), {
        "actuated": [driven], "guess": guess,
        "loops": {"pin": {"type": "point", "a": {"link": "rod_link", "xyz": [0.3 * size, 0, 0]},
                          "b": {"link": "slider_link"}, "components": ["x", "z"]}}}).coupling


@pytest.mark.parametrize("backend", [None, "numpy"])   # (None: the default, the kernel's)
def test_a_31_micrometre_slider_crank_closes_as_the_1_m_one(tmp_path, backend, monkeypatch):
    """The same Newton evaluations along a crank's turn, the revolute rod's positions and
    rates equal to rounding and the slider's times the scale (the kept rows P come from an
    SVD of J, whose slider column does not scale with the others: equal to rounding, not
    bit for bit)."""
    t = np.linspace(0.0, 1.0, 201)
    qs = np.stack([0.3 + np.sin(3.0 * t), 3.0 * np.cos(3.0 * t), -9.0 * np.sin(3.0 * t)],
                  axis=1)[..., None]
    evaluations: list[int] = []
    residual = Closed.residual
    monkeypatch.setattr(Closed, "residual",
                        lambda self, q: evaluations.append(len(q)) or residual(self, q))
    found, counts, lengths = [], [], []
    with backends.use(backend) if backend else contextlib.nullcontext():
        for size in (1.0, SMALL):
            closed = _slider_crank(tmp_path, size)
            lengths.append(closed.length)
            evaluations.clear()
            q = closed.positions(qs[:, 0])
            counts.append(len(evaluations))
            full = closed.joint_rates(qs, t)
            unit = np.where(closed.prismatic, size, 1.0)
            found.append((q / unit, full / unit))
            # the slider's step in m times the length, the crank's and the rod's in rad
            assert closed.tol.unit.tolist() == [1.0, 1.0, closed.length]
    assert lengths[1] == pytest.approx(SMALL * lengths[0], rel=1e-12) and lengths[0] < 1.0
    assert counts[0] == counts[1]
    for a, b in zip(*found, strict=True):
        err = np.abs(b - a).max(axis=(0, 1)) / np.abs(a).max(axis=(0, 1))
        assert err.max() < 1e-12, err


def _driven_slider(folder: Path) -> tuple[Closed, Closed]:
    """The slider-crank with a 0.2 m crank driven by its slider (from 0.443 m at the
    assembly: the slider's moves count in the continuation's steps and the predictions'
    checks), at 1 m and 31 um."""
    return tuple(_slider_crank(folder / f"{size}", size, crank=0.2, driven="slider")
                 for size in (1.0, SMALL))


@pytest.mark.parametrize("backend", [None, "numpy"])   # (None: the default, the kernel's)
def test_a_31_micrometre_slider_takes_the_1_m_ones_continuation_steps(tmp_path, backend,
                                                                    monkeypatch):
    """The driven slider continued from the assembly 0.26 m away (0.5 of the loops' length:
    3 steps of STEP) with one Newton iteration per step and no check: the positions found
    (one iteration from each step's start: they depend on the steps' number) are the 1 m
    one's times the scale, to rounding, both backends (the kernel's ``loop_closed``). On
    main the continuation counted the slider's moves in m: 2 steps at 1 m, 1 at 31 um (1e-3
    of the positions apart)."""
    from hodyn_cli.algorithms.motion import loops

    for size in (1.0, SMALL):
        (tmp_path / f"{size}").mkdir()
    closed = _driven_slider(tmp_path)
    target = np.linspace(0.443, 0.18, 65)[:, None]   # (the 65th: from the assembly)
    converged = closed[0].positions(target)
    monkeypatch.setattr(loops, "ITERATIONS", 1)
    monkeypatch.setattr(loops, "STEP_ITERATIONS", 1)
    monkeypatch.setattr(Closed, "_checked", lambda self, c, PJ, off, t, s: PJ[:, :, self.p])
    found = []
    with backends.use(backend) if backend else contextlib.nullcontext():
        for c, size in zip(closed, (1.0, SMALL), strict=True):
            assert c.tol.unit.tolist() == [1.0, 1.0, c.length]
            found.append(c.positions(target * size) / np.where(c.prismatic, size, 1.0))
    assert np.abs(found[0] - converged).max() > 1e-6   # (one iteration per step: not there)
    assert np.abs(found[1] - found[0]).max() < 1e-12, np.abs(found[1] - found[0]).max()


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
def test_a_31_micrometre_sliders_predictions_are_judged_as_the_1_m_ones(tmp_path, backend):
    """Newton's starts between the anchors (``Closed._prediction``, the kernel's
    ``loop_predict``) of a motion of the driven slider alone, the other joints still: 0.25
    or 0.05 of the loops' length from its anchor, and a Taylor term of 0.1 of it at some
    anchors. The same samples are too far at 31 um as at 1 m (some, not all). On main the
    slider's moves and terms were judged in m against STEP and TAYLOR_TOL: at 1 m some
    (above 0.2 m or 0.05 m), at 31 um none."""
    from hodyn_cli.algorithms.motion.loops import STEP, TAYLOR, TAYLOR_TOL, _hermite

    for size in (1.0, SMALL):
        (tmp_path / f"{size}").mkdir()
    closed = _driven_slider(tmp_path)
    N, D, t = 41, 3, np.arange(41) * 0.01
    verdicts = []
    for c, size in zip(closed, (1.0, SMALL), strict=True):
        full = np.zeros((N, D, c.n))
        full[:, 0] = c.reference
        slider = int(np.flatnonzero(c.prismatic)[0])
        full[1::2, 0, slider] += np.where(np.arange(1, N, 2) % 3, 0.05, 0.25) * closed[0].length \
            * size
        full[16::TAYLOR, D - 1, slider] = 2 * 0.1 * closed[0].length * size / 0.01 ** 2
        samples = np.flatnonzero(np.arange(N) % TAYLOR)   # (40, the last: an anchor)
        if backend == "numpy":
            with backends.use("numpy"):
                far = c._prediction(full, samples, t)[1]
        else:
            with backends.use("compiled") as kernel:
                far = kernel.loop_predict(full, t, samples, TAYLOR, c.a, c.cuts.closing,
                                          c.tol.unit, STEP, TAYLOR_TOL, _hermite(D))[1]
        verdicts.append(far)
    assert verdicts[0].any() and not verdicts[0].all()
    assert np.array_equal(verdicts[1], verdicts[0]), (verdicts[0].sum(), verdicts[1].sum())


def test_a_31_micrometre_sliders_random_positions_are_the_1_m_ones_scaled(tmp_path):
    """``Closed.random_coordinates`` (the base parameters' samples) spread the driven slider
    by SPREAD times the loops' length: the 31 um one's are the 1 m one's times the scale (on
    main 0.5 m either way: 16 000 times the 31 um linkage's size)."""
    from hodyn_cli.algorithms.motion.loops import SPREAD

    for size in (1.0, SMALL):
        (tmp_path / f"{size}").mkdir()
    closed = _driven_slider(tmp_path)
    q = [c.random_coordinates(np.random.default_rng(7), 200) for c in closed]
    assert np.abs(q[1] - q[0] * SMALL).max() <= 1e-15 * SMALL
    spread = np.abs(q[0] - closed[0].reference[closed[0].a])
    assert spread.max() <= SPREAD * closed[0].length and spread.max() > 0.8 * SPREAD * closed[0].length
