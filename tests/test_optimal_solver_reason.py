"""``retime --optimal``'s end-of-run notice says which solver made the result and why, where
the windows of linear programmes did (reachability does not apply): the first reason, from
where :meth:`Optimal._reachability` decides; nothing of the solver where reachability made
it. Through the real command line, on a 1 s iiwa cosine path at 20 Hz (21 samples)."""

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF, made_once
from conftest import optimal_notice as notice
from hodyn_cli.cli.app import app
from hodyn_cli.errors import HodynError

IIWA = URDF / "iiwa14.urdf"
WINDOWS = "by the windows solver: "


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def cosine(tmp_path_factory):
    """The iiwa's cosine path, 1 s at 20 Hz: (q .. q^(4) file, q .. q^(7) file)."""
    folder = tmp_path_factory.mktemp("paths")
    paths = folder / "q4.h5", folder / "q7.h5"
    for path, derivatives in zip(paths, (4, 7), strict=True):
        res = run("generate", IIWA, "--kind", "cosine", "--duration", 1, "--rate", 20,
                  "--derivatives", derivatives, "-o", path)
        assert res.exit_code == 0, res.output
    return paths


def solver(out):
    with h5py.File(out) as f:
        return f.attrs["solver"]


def solvers_run(out):
    """The output's record of the solvers that made a law, in turn."""
    with h5py.File(out) as f:
        return list(f.attrs["solvers_run"])


def test_reachability_says_nothing_of_the_solver(cosine, tmp_path):
    out = tmp_path / "fast.h5"
    line = notice(run("retime", IIWA, cosine[0], "--optimal", "-o", out), cosine[0])
    assert solver(out) == "reachability" and solvers_run(out) == ["reachability"]
    assert "solver" not in line and "reachability" not in line
    with h5py.File(out) as f:
        assert "solver_note" not in f.attrs


def test_torque_rate_limits_are_kept_by_reachability_and_say_nothing_of_the_solver(
        cosine, tmp_path):
    """Torque rates and accelerations (the limits file's) go to reachability too
    (algorithms/limits/rates.py); the notice names no solver."""
    out = tmp_path / "fast.h5"
    line = notice(run("retime", IIWA, cosine[0], "--optimal", "--limits",
                      URDF / "iiwa14_limits.toml", "-o", out), cosine[0])
    assert solver(out) == "reachability"
    assert "solver" not in line and "reachability" not in line


def test_limits_of_higher_orders_not_kept_go_to_the_windows_and_say_so(cosine, tmp_path,
                                                                        monkeypatch):
    """Where the rounds that widen reachability's smoothing for the limits of higher orders
    do not get there (none here), the windows solve it and the notice names the limits."""
    from hodyn_cli.algorithms.limits import rates

    monkeypatch.setattr(rates, "ROUNDS", 0)
    out = tmp_path / "fast.h5"
    line = notice(run("retime", IIWA, cosine[0], "--optimal", "--jerk", 500, "-o", out),
                  cosine[0])
    assert solver(out) == "windows" and solvers_run(out) == ["windows"]
    assert line.endswith(f"; {WINDOWS}the command line's jerk limits: reachability's law does "
                         "not keep them within 0 rounds of widening its smoothing"), line
    with h5py.File(out) as f:  # (the notice's words, recorded)
        assert line.endswith(f"; {f.attrs['solver_note']}")


def test_q7_columns_go_to_the_windows_and_say_so(cosine, tmp_path):
    out = tmp_path / "fast.h5"
    line = notice(run("retime", IIWA, cosine[1], "--optimal", "-o", out), cosine[1])
    # (the windows' law at 20 Hz with q^(7), 3.7 % shorter than the uniform scaling; it gave
    # way to the uniform scaling while scipy's HiGHS, re-solving each programme from scratch,
    # found three of its four programmes infeasible: the notice of that case,
    # test_the_windows_falling_back_to_the_uniform_scaling_say_so)
    assert solver(out) == "windows"
    assert line.endswith(f"; {WINDOWS}qddddddd columns, beyond the qdddddd reachability "
                         "plays"), line


def test_solver_reachability_refuses_with_the_same_reason(cosine, tmp_path):
    """--solver reachability: exit 2, one line with the reason (the drives' motor limits
    here), and no output written."""
    out = tmp_path / "fast.h5"
    res = run("retime", IIWA, cosine[0], "--optimal", "--drives", URDF / "iiwa14_motors.toml",
              "--solver", "reachability", "-o", out)
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [
        f"hodyn: error: {cosine[0]}: --solver reachability: it does not apply (reachability "
        "does not take the drives' motor limits (--drives)): use --solver auto"]
    assert not out.exists()


def test_the_reason_of_limits_made_in_python_names_no_source():
    """A Limits built in Python carries no origin: the reason names the limit alone (it
    looked for a file, URDF or option among the origins and stopped with StopIteration)."""
    from dataclasses import replace

    import hodyn_cli
    from hodyn_cli.algorithms.limits.optimal import _higher_named
    from hodyn_cli.modeling.limits import read_limits

    model = hodyn_cli.load_robot(str(URDF / "iiwa14.urdf"))
    limits = read_limits(str(URDF / "iiwa14_limits.toml"), model)
    assert _higher_named(limits) == "the limits file's torque-rate limits"
    assert _higher_named(replace(limits, origin={})) == "the torque-rate limits"


def test_the_windows_falling_back_to_the_uniform_scaling_say_so(cosine, tmp_path, monkeypatch):
    """Where the windows' programmes give no law (HiGHS out of its iterations, here forced) the
    result is the uniform scaling: the notice names it, not the windows solver, and still
    says why the windows ran; the HDF5 attribute ``solver`` is ``uniform``."""
    from hodyn_cli.algorithms.limits import programme
    monkeypatch.setattr(programme, "SIMPLEX_ITERATIONS", 0)
    monkeypatch.setattr(programme, "IPM_ITERATIONS", 0)
    out = tmp_path / "slow.h5"
    line = notice(run("retime", IIWA, cosine[0], "--optimal", "--solver", "windows", "-o", out),
                  cosine[0])
    assert solver(out) == "uniform"
    assert line.endswith("; by the uniform scaling, the windows solver finding no faster "
                         "law (the windows: as --solver windows asks)"), line
    assert WINDOWS not in line


RATES_25 = "".join(f"[joints.iiwa_joint_{i}]\ntorque_rate = 25.0\n" for i in range(1, 8))


def duration(out):
    with h5py.File(out) as f:
        return f.attrs["duration"]


def test_where_reachability_kept_rates_far_from_its_passes_the_shorter_windows_law_is_taken(
        cosine, rates_25_alone, tmp_path):
    """Torque rates of 25 N m/s, below gravity's own rate along the path: keeping them made
    the programmes' law 3.16 times its passes' (optimal.SLACK), reachability's law (the
    sequential programmes raised the rounds') longer than the windows' (2.416 s against
    2.397 s); auto runs both and keeps the windows' law, saying why."""
    limits, outs = rates_25_alone[0], {"reachability": rates_25_alone[1]}
    outs |= {s: tmp_path / f"{s}.h5" for s in ("auto", "windows")}
    lines = {s: notice(run("retime", IIWA, cosine[0], "--optimal", "--limits", limits,
                           "--solver", s, "-o", outs[s]), cosine[0]) for s in ("auto", "windows")}
    assert duration(outs["windows"]) < duration(outs["reachability"])
    # (within 1 % of it: the programmes keep every slower playing within the limits, which
    # the final fit's scaling search asks; judged at the law's own pace alone, 2.673 s
    # against the windows' 2.397 s, the law on the grid 2.288 s: sequential._slower)
    assert duration(outs["reachability"]) < 1.01 * duration(outs["windows"])
    assert duration(outs["auto"]) == duration(outs["windows"]) and solver(outs["auto"]) == \
        "windows"
    assert solvers_run(outs["auto"]) == ["reachability", "windows"]
    assert solvers_run(outs["reachability"]) == ["reachability"]
    assert solvers_run(outs["windows"]) == ["windows"]
    assert (WINDOWS + "the limits file's torque-rate limits: the windows' law is shorter than "
            "reachability's") in lines["auto"]


def test_where_the_windows_law_is_not_shorter_reachabilitys_is_kept(cosine, tmp_path,
                                                                    monkeypatch):
    """With the windows run whatever the slack (SLACK 1, the programmes' law taken as no
    local optimum), a jerk of 50 rad/s^3: the windows' law (0.7936 s, the uniform scaling's
    pace) is longer than reachability's (0.7799 s), which stays, its notice naming no
    solver."""
    from hodyn_cli.algorithms.limits import optimal, rates
    ran = []
    windows, kept = optimal.Optimal._windows, rates.kept
    monkeypatch.setattr(optimal, "SLACK", 1.0)
    monkeypatch.setattr(rates, "kept", lambda *a, **k: (lambda r: r and r._replace(
        local=False))(kept(*a, **k)))
    monkeypatch.setattr(optimal.Optimal, "_windows",
                        lambda self, chunks: ran.append(1) or windows(self, chunks))
    out, alone = tmp_path / "auto.h5", tmp_path / "reachability.h5"
    line = notice(run("retime", IIWA, cosine[0], "--optimal", "--jerk", 50, "-o", out),
                  cosine[0])
    assert ran and solver(out) == "reachability" and "solver" not in line
    # (the output records that auto ran the windows too, and kept reachability's law)
    assert solvers_run(out) == ["reachability", "windows"]
    notice(run("retime", IIWA, cosine[0], "--optimal", "--jerk", 50, "--solver",
               "reachability", "-o", alone), cosine[0])
    assert duration(out) == duration(alone)
    # (the state restored after the windows' solve plays reachability's motion as it alone
    # does: every sample of every column the same bits, the attributes the same)
    with h5py.File(out) as f, h5py.File(alone) as g:
        assert sorted(f) == sorted(g) and all(np.array_equal(f[k][()], g[k][()]) for k in f)
        assert {k: str(v) for k, v in f.attrs.items() if k != "solvers_run"} == {
            k: str(v) for k, v in g.attrs.items() if k != "solvers_run"}


def test_where_the_programmes_law_is_a_local_optimum_no_windows_run(cosine, tmp_path,
                                                                   monkeypatch):
    """The same path and jerk, the windows due by the slack (SLACK 1): the sequential
    programmes' law on the one piece converged, every limit of one grade (a joint jerk's),
    a local optimum of the windows' own problem, so auto runs no windows after it (on main
    it ran them, 0.7936 s against 0.7799 s) and its output is reachability's alone, to the
    bit."""
    from hodyn_cli.algorithms.limits import optimal, rates
    ran, local = [], []
    windows, kept = optimal.Optimal._windows, rates.kept
    monkeypatch.setattr(optimal, "SLACK", 1.0)
    monkeypatch.setattr(optimal.Optimal, "_windows",
                        lambda self, chunks: ran.append(1) or windows(self, chunks))
    monkeypatch.setattr(rates, "kept", lambda *a, **k: (lambda r: local.append(
        r.local) or r)(kept(*a, **k)))
    out, alone = tmp_path / "auto.h5", tmp_path / "reachability.h5"
    notice(run("retime", IIWA, cosine[0], "--optimal", "--jerk", 50, "-o", out), cosine[0])
    assert local == [True] and not ran and solvers_run(out) == ["reachability"]
    notice(run("retime", IIWA, cosine[0], "--optimal", "--jerk", 50, "--solver",
               "reachability", "-o", alone), cosine[0])
    assert duration(out) == duration(alone) and solver(out) == "reachability"


def test_where_the_windows_end_at_the_uniform_scaling_reachabilitys_law_stays(
        cosine, rates_25_alone, tmp_path, monkeypatch):
    """Where the windows' own solve ends at their last resort, the uniform scaling (forced
    here after the real solve, as HiGHS running out of time would), reachability's law stays
    however short the other: the uniform scaling is never shorter than it (checked against
    it) and may be one that validate fails; the output is the one --solver reachability
    writes."""
    from hodyn_cli.algorithms.limits import optimal
    windows = optimal.Optimal._windows

    def ending_uniform(self, chunks):
        final = windows(self, chunks)
        self.used = "uniform"
        return final

    monkeypatch.setattr(optimal.Optimal, "_windows", ending_uniform)
    (limits, alone), out = rates_25_alone, tmp_path / "auto.h5"
    line = notice(run("retime", IIWA, cosine[0], "--optimal", "--limits", limits, "-o", out),
                  cosine[0])
    assert solver(out) == "reachability" and "solver" not in line, line
    assert duration(out) == duration(alone) > 2.4  # (the windows' law: 2.397 s)


@pytest.fixture(scope="module")
def rates_25_alone(cosine, tmp_path_factory):
    """(limits file, --solver reachability's output) with the 25 N m/s torque rates: made
    once per test run (the workers of ``pytest -n`` share it), ~3 s of CPU that three tests
    (four with the slow ones) compare auto's output with (the rounds and the sequential programmes)."""
    def make(folder):
        (folder / "rates.toml").write_text(RATES_25)
        notice(run("retime", IIWA, cosine[0], "--optimal", "--limits", folder / "rates.toml",
                   "--solver", "reachability", "-o", folder / "alone.h5"), cosine[0])

    folder = made_once(tmp_path_factory, "solver_reason rates_25_alone", make)
    return folder / "rates.toml", folder / "alone.h5"


# (both failures take the same except clause of Optimal._or_windows: the second, ~10 s of CPU,
# runs with the slow tests)
@pytest.mark.parametrize("failure", [
    HodynError("no law in the window at 0.5 s"),
    pytest.param(np.linalg.LinAlgError("singular matrix"), marks=pytest.mark.slow)])
def test_where_the_windows_second_solve_fails_reachabilitys_law_is_kept_and_said(
        cosine, rates_25_alone, tmp_path, monkeypatch, failure):
    """auto's second solve, the windows after reachability (its slack beyond SLACK: the 25
    N m/s torque rates), raising (an internal failure, forced here): reachability's
    validated law stays, the output the one --solver reachability writes, and the notice
    and the file say that the windows failed and why."""
    from hodyn_cli.algorithms.limits import optimal

    def failing(self, chunks):
        raise failure

    (limits, alone), out = rates_25_alone, tmp_path / "auto.h5"
    monkeypatch.setattr(optimal.Optimal, "_windows", failing)
    line = notice(run("retime", IIWA, cosine[0], "--optimal", "--limits", limits, "-o", out),
                  cosine[0])
    said = ("the limits file's torque-rate limits: the windows solver, run too as keeping "
            "them made reachability's law 3.16 times its passes' law, failed "
            f"({failure}): reachability's law kept")
    assert line.endswith(f"; {said}"), line
    assert solver(out) == "reachability" and solvers_run(out) == ["reachability", "windows"]
    assert duration(out) == duration(alone)
    with h5py.File(out) as f, h5py.File(alone) as g:
        assert f.attrs["solver_note"] == said and "solver_note" not in g.attrs
        assert all(np.array_equal(f[k][()], g[k][()]) for k in g)
