"""issue 37: the sequential programmes' second-order correction (hodyn_cli/algorithms/limits/
sequential.py, ``_errors``): a step whose rows hold but whose played law breaks a linearised
limit (a torque acceleration, quadratic in the law's derivatives) is solved again with the
rows' bounds less its error, so that the step is kept whole: fewer programmes to the same
law."""

import numpy as np
import pytest

from hodyn_cli.algorithms.limits import rates, reachability, sequential
from hodyn_cli.algorithms.limits.highs import LP


def _raised(sigma, x, limits, monkeypatch) -> tuple[np.ndarray, list]:
    """sequential.raised's law (the grid's knots alone, as on a 1 kHz output) and, per
    programme, (its trust, the change of x it found)."""
    calls, real = [], sequential._programme

    def recorded(models, D, free, x0, sigma, trust, previous=None, played=None):
        delta, rows = real(models, D, free, x0, sigma, trust, previous, played)
        calls.append((trust, None if delta is None else D.at(delta)[:, 0]))
        return delta, rows

    monkeypatch.setattr(sequential, "_programme", recorded)
    out = sequential.raised(sigma, x, lambda a, b: limits, [(0, len(x))], rates.TOLERANCE,
                            False)
    monkeypatch.undo()
    return out.x, calls


def _largest_share(sigma, x, limits) -> float:
    """The largest share of its limit any limit takes at the played law of x."""
    X = sequential._jets(sigma, x)
    return max(sequential._shares(limit, sequential._slowest(limit), X)[0]
               for limit in limits)


def test_the_first_step_keeps_the_torque_acceleration_at_its_played_law(iiwa_played, monkeypatch):
    """The first programme's step, played whole, keeps every limit (to 1e-4 of it: the
    corrections end where no row is beyond its bound by VIOLATED). Uncorrected
    (CORRECTIONS 0, the programmes before) it broke a torque acceleration by more than
    rates.TOLERANCE and was cut to half, its trust region halved."""
    sigma, x, limits = iiwa_played
    _, calls = _raised(sigma, x, limits, monkeypatch)
    trust, change = calls[0]
    assert _largest_share(sigma, np.maximum(x + change, 0.0), limits) <= 1 + 1e-4
    monkeypatch.setattr(sequential, "CORRECTIONS", 0)
    _, plain = _raised(sigma, x, limits, monkeypatch)
    assert _largest_share(sigma, np.maximum(x + plain[0][1], 0.0), limits) > 1 + rates.TOLERANCE
    assert plain[1][0] == trust / 2


def test_the_corrected_steps_reach_the_law_in_fewer_programmes(iiwa_played, monkeypatch):
    """With the corrections, 3 programmes (every step kept whole, the region never
    narrowed) against 8 without (the region halved four times), to the same law (1e-5 of
    its duration: 5.8e-6 longer, where the steps' CONVERGED of 1e-3 stops them), within
    every limit at its played law."""
    sigma, x, limits = iiwa_played
    out, calls = _raised(sigma, x, limits, monkeypatch)
    assert len(calls) <= 3
    assert min(trust for trust, _ in calls) == sequential.TRUST
    monkeypatch.setattr(sequential, "CORRECTIONS", 0)
    plain, plain_calls = _raised(sigma, x, limits, monkeypatch)
    assert len(plain_calls) >= 6
    assert reachability.law_duration(sigma, out) == pytest.approx(
        reachability.law_duration(sigma, plain), rel=1e-5)
    assert reachability.law_duration(sigma, out) < 0.9 * reachability.law_duration(sigma, x)
    assert _largest_share(sigma, out, limits) <= 1 + rates.TOLERANCE


def test_a_rows_bound_moved_moves_the_solution_from_the_last_basis():
    """LP.bound sets every row's upper bound (the lower ones kept) and the next solve
    answers for them."""
    lp = LP(np.array([-1.0, -1.0]), np.full(2, -10.0), np.full(2, 10.0))
    lp.add_rows(np.array([0, 1, 3]), np.array([0, 0, 1]), np.array([1.0, 1.0, 1.0]),
                np.array([-np.inf, -5.0]), np.array([1.0, 3.0]))
    assert np.allclose(lp.solve(), [1.0, 2.0])
    lp.bound(np.array([2.0, 2.5]))
    assert np.allclose(lp.solve(), [2.0, 0.5])
    assert lp.slack()[1] == pytest.approx([0.0, 0.0], abs=1e-12)


def test_a_correction_that_leaves_no_step_hands_back_the_step_before_it(iiwa_played, monkeypatch):
    """Where the bounds less the step's error leave the programme infeasible (here every
    row's upper bound pushed far below, LP.bound), the programme hands back the step it had
    found before that correction (the first-order one: the same as with CORRECTIONS 0) and
    no basis (the next programme starts from the rows near their bounds)."""
    from hodyn_cli.algorithms.limits import highs

    sigma, x, limits = iiwa_played
    X = sequential._jets(sigma, x)
    D = sequential._basis(sigma, x, False)
    free = np.zeros(D.n, dtype=bool)
    free[sequential.FROZEN : D.n - sequential.FROZEN] = True
    models = [sequential._Model.of(limit, X, 0) for limit in limits]
    bound = highs.LP.bound
    monkeypatch.setattr(highs.LP, "bound", lambda self, upper: bound(self, upper - 1e9))
    delta, rows = sequential._programme(models, D, free, X[:, 0], sigma, sequential.TRUST)
    assert delta is not None and rows.basis is None
    monkeypatch.setattr(sequential, "CORRECTIONS", 0)
    plain, _ = sequential._programme(models, D, free, X[:, 0], sigma, sequential.TRUST)
    assert np.array_equal(delta, plain)


def test_a_correction_reads_the_change_of_x_its_rows_were_checked_on(iiwa_played, monkeypatch):
    """_errors takes the step's change of x as the solution's own dX (_Columns.at's, which
    its rows were just checked on), not made again from the coefficients (D.at: the same
    to rounding, one product more, sequential._programme's before)."""
    sigma, x, limits = iiwa_played
    made, given = [], []
    at, errors = sequential._Columns.at, sequential._errors

    def spied_at(self, delta):
        made.append(at(self, delta))
        return made[-1]

    def spied_errors(sigma, x0, change, *args):
        given.append(np.shares_memory(change, made[-1])
                     and np.array_equal(change, made[-1][:, 0]))
        return errors(sigma, x0, change, *args)

    monkeypatch.setattr(sequential._Columns, "at", spied_at)
    monkeypatch.setattr(sequential, "_errors", spied_errors)
    sequential.raised(sigma, x, lambda a, b: limits, [(0, len(x))], rates.TOLERANCE, False)
    assert given and all(given), given
