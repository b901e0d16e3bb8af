"""How closed loops find their passive joints (docs/loops.md): the compiled kernel's frame
jets give numpy's numbers; Newton started from the Taylor polynomials of every 8th sample
converges in two steps to the positions the halving continuation finds, and a sample far from
its anchor (a gap in time) is continued instead, on the same branch."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import URDF, reference
from hodyn_cli import api
from hodyn_cli.algorithms.motion.loops import TAYLOR, Closed
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.modeling import coupling


def leg():
    closed = api.close_loops(api.load_robot(URDF / "leg_fourbar_knee.urdf"),
                             URDF / "leg_fourbar_knee_loops.toml")
    return closed, coupling.of(closed)


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


def test_taylor_started_newton_takes_two_steps(monkeypatch):
    """400 samples 10 ms apart: the samples between every 8th are solved together in two
    Newton steps (one residual evaluation each), and their positions are the halving
    continuation's (no times given: every sample from a solved neighbour)."""
    closed, c = leg()
    tr = motion(closed, np.arange(400) * 0.01)
    batches: list[int] = []
    evaluate = Closed.residual

    def counted(self, q):
        batches.append(q.shape[0])
        return evaluate(self, q)

    monkeypatch.setattr(Closed, "residual", counted)
    full = c.expand(tr)
    between = 400 - len(range(0, 400, TAYLOR))
    assert batches.count(between) == 2
    monkeypatch.undo()
    halving = c.positions(tr.q)
    assert np.abs(full.q - halving).max() <= 1e-12


def test_a_gap_in_time_is_continued_on_the_branch(monkeypatch):
    """Two bursts of samples 1.6 s apart: the first samples of the second burst have their
    anchor (sample 8) in the first, whose Taylor polynomial across the gap is useless; they
    are continued from it, to the halving continuation's positions, and the derivatives are
    the implicit function theorem's at each burst alone."""
    closed, c = leg()
    t = np.concatenate([np.arange(10) * 0.01, 1.7 + np.arange(14) * 0.01])
    tr = motion(closed, t)
    continued: list[int] = []
    original = Closed._continued

    def recorded(self, q0, qa, times, samples):
        continued.extend(samples.tolist())
        return original(self, q0, qa, times, samples)

    monkeypatch.setattr(Closed, "_continued", recorded)
    full = c.expand(tr)
    assert {10, 11} <= set(continued)
    assert np.abs(full.q - c.positions(tr.q)).max() <= 1e-12
    for burst in (slice(0, 10), slice(10, 24)):
        alone = c.expand(motion(closed, t[burst]))
        assert np.abs(full.derivatives[burst] - alone.derivatives).max() <= 1e-10
