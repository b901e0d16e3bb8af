"""How closed loops find their passive joints (docs/loops.md): the compiled kernel's frame
jets give numpy's numbers; Newton started from the Hermite polynomials of the anchors (every
8th sample and the last) converges in one or two steps to the positions the halving continuation
finds, and a sample far from its anchor (a gap in time) is continued instead, on the same
branch; errors name the sample by its index in the file."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import URDF, reference
from hodyn_cli import api
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.motion.loops import TAYLOR, Closed
from hodyn_cli.core.trajectory import cosine


def leg():
    closed = api.close_loops(api.load_robot(URDF / "leg_fourbar_knee.urdf"),
                             URDF / "leg_fourbar_knee_loops.toml")
    return closed, closed.coupling


def motion(closed, t):
    return cosine(closed.coordinate_names, t, amplitude=[0.3, 0.4], omega=[2.0, 3.0],
                  offset=[0.0, -0.5], phase=[0.0, 0.5], orders=5)


@pytest.mark.kernel
def test_the_loops_kinematics_match_numpy(kernel):
    """Every kernel variant: the passive joints and their derivatives, J's jets, the
    torques and constraint forces equal the numpy backend's (the reference)."""
    closed, c = leg()
    tr = motion(closed, np.linspace(0.0, 1.0, 37))
    full = c.expand(tr)
    ref = reference(c.expand, tr)
    assert np.abs(full.derivatives - ref.derivatives).max() <= 1e-12 * np.abs(ref.derivatives).max()
    J, J_ref = c.jacobian_jets(full.derivatives, 3), reference(c.jacobian_jets, ref.derivatives, 3)
    assert np.abs(J - J_ref).max() <= 1e-12 * np.abs(J_ref).max()
    r, r_ref = api.inverse_dynamics(closed, tr, order=2), reference(api.inverse_dynamics, closed,
                                                                    tr, order=2)
    for name in ("tau", "taudd", "Fl", "Fldd"):
        assert np.abs(r[name] - r_ref[name]).max() <= 1e-10 * np.abs(r_ref[name]).max()


def test_newton_between_the_anchors_takes_one_or_two_steps(monkeypatch):
    """400 samples 10 ms apart: the samples between the anchors (every 8th and the last) are
    solved together in one or two Newton steps (a residual evaluation each) from the anchors'
    Hermite polynomials, and their positions are the halving continuation's (no times given:
    every sample from a solved neighbour). The numpy reference's steps (the compiled
    kernel's Newton evaluates the residual in C)."""
    closed, c = leg()
    tr = motion(closed, np.arange(400) * 0.01)
    batches: list[int] = []
    evaluate = Closed.residual

    def counted(self, q):
        batches.append(q.shape[0])
        return evaluate(self, q)

    monkeypatch.setattr(Closed, "residual", counted)
    with backends.use("numpy"):
        full = c.expand(tr)
    between = 400 - len(set(range(0, 400, TAYLOR)) | {399})
    assert batches.count(between) in (1, 2)
    monkeypatch.undo()
    halving = c.positions(tr.q)
    assert np.abs(full.q - halving).max() <= 1e-12


def test_a_gap_in_time_is_continued_on_the_branch(monkeypatch):
    """Two bursts of samples 1.6 s apart: the first samples of the second burst have their
    nearest anchor (sample 8) in the first, whose Taylor polynomial across the gap is useless;
    they are continued from it, to the halving continuation's positions, and the derivatives are
    the implicit function theorem's at each burst alone."""
    closed, c = leg()
    t = np.concatenate([np.arange(10) * 0.01, 1.7 + np.arange(14) * 0.01])
    tr = motion(closed, t)
    continued: list[int] = []
    original = Closed._continued

    def recorded(self, q0, qa, times, samples, rates=None):
        continued.extend(samples.tolist())
        return original(self, q0, qa, times, samples, rates)

    monkeypatch.setattr(Closed, "_continued", recorded)
    with backends.use("numpy"):   # (the kernel continues them inside one call, loop_between:
        full = c.expand(tr)       # the same steps, test_loops_kernel.py)
    assert {10, 11} <= set(continued)
    assert np.abs(c.expand(tr).derivatives - full.derivatives).max() <= 1e-10
    assert np.abs(full.q - c.positions(tr.q)).max() <= 1e-12
    # (1e-11 of the largest derivative: Newton stops within 1e-13 of the loop, and since
    # the loops' continuation counts the closing joints alone the numpy passes differ by
    # 1.5e-10 on fourth derivatives of ~31)
    for burst in (slice(0, 10), slice(10, 24)):
        alone = c.expand(motion(closed, t[burst]))
        largest = max(1.0, np.abs(alone.derivatives).max())
        assert np.abs(full.derivatives[burst] - alone.derivatives).max() <= 1e-11 * largest


def slider_crank(tmp_path):
    """A slider-crank in the xz plane: the crank (0.1 m, driven) on the ground, the rod
    (0.3 m) on its end, a slider moving along x on the ground (a prismatic joint: its screw
    has a linear part), the rod's end pinned to the slider."""
    def link(name, length, mass):
        i = mass * length**2 / 12 + 1e-4
        return (f'<link name="{name}"><inertial><origin xyz="{length / 2} 0 0"/><mass '
                f'value="{mass}"/><inertia ixx="1e-4" ixy="0" ixz="0" iyy="{i}" iyz="0" '
                f'izz="{i}"/></inertial></link>')

    def joint(name, kind, parent, child, x, axis):
        return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child '
                f'link="{child}"/><origin xyz="{x} 0 0"/><axis xyz="{axis}"/><limit '
                f'lower="-10" upper="10" effort="100" velocity="20"/></joint>')

    (tmp_path / "s.urdf").write_text(
        '<robot name="slider"><link name="ground"/>'
        + joint("crank", "revolute", "ground", "crank_link", 0, "0 1 0") + link("crank_link", 0.1, 1.0)
        + joint("rod", "revolute", "crank_link", "rod_link", 0.1, "0 1 0") + link("rod_link", 0.3, 0.5)
        + joint("slider", "prismatic", "ground", "slider_link", 0, "1 0 0")
        + link("slider_link", 0.05, 2.0) + "</robot>")
    return api.close_loops(api.load_robot(tmp_path / "s.urdf"), {
        "actuated": ["crank"], "guess": {"rod": -0.4, "slider": 0.38},
        "loops": {"pin": {"type": "point", "a": {"link": "rod_link", "xyz": [0.3, 0, 0]},
                          "b": {"link": "slider_link"}, "components": ["x", "z"]}}})


def test_a_slider_crank_validates(tmp_path):
    """A prismatic passive joint (J's columns from a screw with a linear part): every loops
    check passes (closure, G, virtual power, the derivatives by differences)."""
    closed = slider_crank(tmp_path)
    tr = cosine(closed.coordinate_names, np.linspace(0.0, 2.0, 41), amplitude=[1.0],
                omega=[2.0], offset=[0.2], orders=5)
    report = api.validate_motion(closed, tr, samples=5, methods=["body-fixed"])
    loops = [c for c in report.checks if c.group == "loops"]
    assert report.passed and len(loops) > 5 and all(c.status == "pass" for c in loops)


@pytest.mark.parametrize("sample", [16, 20])
def test_a_singular_sample_is_named_by_its_index_in_the_file(tmp_path, sample):
    """A parallelogram folds flat where the crank is 0: at sample 16 of 41 (an anchor, found
    by continuation) or 20 (Newton from the anchors' Taylor polynomial), named with its index
    in the file and its time."""
    from test_loops import fourbar_urdf

    from hodyn_cli.core.trajectory import Trajectory
    from hodyn_cli.errors import HodynError

    (tmp_path / "p.urdf").write_text(fourbar_urdf(0.2, 0.4, 0.2, 0.4))
    folding = api.close_loops(api.load_robot(tmp_path / "p.urdf"), {
        "actuated": ["crank"], "guess": {"crank": 1.0, "coupler": -1.0, "rocker": 1.0},
        "loops": {"p": {"type": "point", "a": {"link": "coupler_link", "xyz": [0.4, 0, 0]},
                        "b": {"link": "rocker_link", "xyz": [0.2, 0, 0]}}}})
    t, w = np.linspace(0.0, 2.0, 41), np.pi / 2   # q_crank = sin(w (t - t_s)): 0 at t_s
    qs = np.stack([w**k * np.sin(w * (t - t[sample]) + k * np.pi / 2) for k in range(3)],
                  1)[..., None]
    with pytest.raises(HodynError, match=rf"^sample {sample} \(t = {t[sample]:g} s\): a "
                                         "singular configuration"):
        folding.coupling.expand(Trajectory(("crank",), qs, t))
