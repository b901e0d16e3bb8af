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


def _slider_crank(folder: Path, size: float) -> Closed:
    """A slider-crank in the xz plane (crank 0.1 m driven, rod 0.3 m, a slider along x on
    the ground pinned to the rod's end: the rod's joint revolute, the slider prismatic, both
    passive), every length times ``size``."""
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
        + link("crank_link", 0.1, 1.0)
        + joint("rod", "revolute", "crank_link", "rod_link", 0.1, "0 1 0")
        + link("rod_link", 0.3, 0.5)
        + joint("slider", "prismatic", "ground", "slider_link", 0, "1 0 0")
        + link("slider_link", 0.05, 2.0) + "</robot>")
    urdf = scaled_urdf(folder / "s.urdf", folder, size, size ** 3)
    return api.close_loops(api.load_robot(urdf), {
        "actuated": ["crank"], "guess": {"rod": -0.4, "slider": 0.38 * size},
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
            # the slider's step in m times the length, the rod's in rad
            assert closed.tol.unit.tolist() == [1.0, closed.length]
    assert lengths[1] == pytest.approx(SMALL * lengths[0], rel=1e-12) and lengths[0] < 1.0
    assert counts[0] == counts[1]
    for a, b in zip(*found, strict=True):
        err = np.abs(b - a).max(axis=(0, 1)) / np.abs(a).max(axis=(0, 1))
        assert err.max() < 1e-12, err
