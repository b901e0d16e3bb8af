"""issue 37: the sequential programmes' trust region (hodyn_cli/algorithms/limits/
sequential.py, ``refined``): widened when a step kept whole filled it, its lower side held at
TRUST, and a step cut short is no sign of convergence."""

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import rates, reachability, sequential


def _refined(sigma, x, limits, monkeypatch) -> tuple[np.ndarray, list]:
    """sequential.refined's law and, per programme, (trust, x0, the change of x it found)."""
    calls, real = [], sequential._programme

    def recorded(models, D, free, x0, sigma, trust, previous=None, played=None):
        delta, rows = real(models, D, free, x0, sigma, trust, previous, played)
        calls.append((trust, x0, None if delta is None else D.at(delta)[:, 0]))
        return delta, rows

    monkeypatch.setattr(sequential, "_programme", recorded)
    out = sequential.refined(sigma, x, lambda a, b: limits, [(0, len(x))], rates.TOLERANCE)
    monkeypatch.undo()
    return out, calls


def test_a_region_the_steps_fill_widens_and_fewer_programmes_reach_the_law(iiwa_played, monkeypatch):
    """From a tenth of the rounds' x (3.2 times its duration), each step held by the region
    widens it (GROW times, up to WIDEST): fewer programmes than with a fixed region (GROW 1:
    14 against 11) to the same law (1e-4); no change of x ever beyond the region's upper
    side, nor below its lower one, at most TRUST of x whatever the upper."""
    sigma, x, limits = iiwa_played
    out, calls = _refined(sigma, 0.1 * x, limits, monkeypatch)
    monkeypatch.setattr(sequential, "GROW", 1.0)
    fixed, fixed_calls = _refined(sigma, 0.1 * x, limits, monkeypatch)
    trusts = [trust for trust, _, _ in calls]
    assert max(trusts) == sequential.WIDEST and max(t for t, _, _ in fixed_calls) == sequential.TRUST
    assert len(calls) < len(fixed_calls)
    assert reachability.law_duration(sigma, out) == pytest.approx(
        reachability.law_duration(sigma, fixed), rel=1e-4)
    assert reachability.law_duration(sigma, out) < 0.35 * reachability.law_duration(sigma, 0.1 * x)
    for trust, x0, change in calls:
        if change is not None:
            slack = 1e-3 * x0 + 1e-12 * x0.max()
            assert np.all(change <= trust * x0 + slack)
            assert np.all(change >= -min(trust, sequential.TRUST) * x0 - slack)


def test_a_step_cut_short_is_no_sign_of_convergence(iiwa_played, monkeypatch):
    """CONVERGED so large that any step kept whole ends the programmes, and the first step's
    whole made to fail (its duration infinite): its half is kept, the region narrows to it,
    and the programmes go on (a cut step's small gain is its whole's fault, not the law's
    nearness to the optimum)."""
    sigma, x, limits = iiwa_played
    monkeypatch.setattr(sequential, "CONVERGED", 1.0)
    durations, real = [], reachability.law_duration

    def first_whole_fails(sigma, x):
        durations.append(1)  # (the law's and the start's, then the first step's trials)
        return np.inf if len(durations) == 3 else real(sigma, x)

    monkeypatch.setattr(reachability, "law_duration", first_whole_fails)
    _, calls = _refined(sigma, x, limits, monkeypatch)
    assert [trust for trust, _, _ in calls][:2] == [sequential.TRUST, sequential.TRUST / 2]
