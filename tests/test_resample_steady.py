"""issue 37: the final fit's resamplings from rest (optimal.Optimal._resampled: reachability's
played motion, the uniform scaling) slow a law whose output samples land beyond a limit by a
hair by about that much, not by optimal.CLOSE / 4 at once:
the jump made the duration of ``retime --optimal`` move by 5e-5 with any change of the law
(the SO-101's Fourier path with --jerk 50: a sample 1.2e-7 beyond, the law 1e-7 shorter, the
output 5.0e-5 longer; benchmarks/README.md, jerk1s). A long motion's samples, beyond afresh
at every fit, are still slowed by CLOSE / 4 from the second time on; the windows' fits by
CLOSE / 4 at once, as before. The fit is a stub here:
its samples fit from a slowing ``need`` on, each as far beyond as ``need`` is above the
slowing tried (no dynamics)."""

from dataclasses import dataclass

import pytest

from hodyn_cli.algorithms.limits import optimal
from hodyn_cli.algorithms.limits.feasibility import Binding


@dataclass
class _Path:
    scale: float = 1.0

    def slower(self, k: float) -> "_Path":
        return _Path(self.scale * k)


class _Fit:
    reached = True  # (samples at their limits, beyond them at every speed-up within FIT)

    def solve(self):
        return None


def _resampled(needs: list[float], from_rest: bool = True) -> tuple[bool, float, list[float]]:
    """_resampled of a law fitted at speed-up 1 whose i-th resampling needs the slowing
    ``needs[i]`` (the last one's from then on): (its verdict, its scale, the scales tried)."""
    tried: list[float] = []

    class Stub:
        uniform, used = False, "reachability"
        path: _Path = _Path()
        final = Binding(1.0, "jerk", "j1", 0, 0.0, 50.0, 50.0)
        _resampled = optimal.Optimal._resampled

        def _fitted(self, _chunks):
            scale = self.path.scale
            need = needs[min(len(tried), len(needs) - 1)]
            tried.append(scale)
            return _Fit(), Binding(scale / need, "jerk", "j1", 0, 0.0, 50.0, 50.0), 0.0

    stub = Stub()
    done = stub._resampled(lambda: [], from_rest=from_rest)
    return done, stub.scale, tried


def test_a_sample_beyond_by_a_hair_slows_the_law_by_about_that_much():
    """Beyond by 1e-7 at the first resampling: slowed 2e-7 (as far again inside), where
    CLOSE / 4 slowed it 5e-5."""
    done, scale, tried = _resampled([1 + 1e-7])
    assert done
    assert scale == pytest.approx((1 + 1e-7) ** 2, rel=1e-12)
    assert scale - 1 < optimal.CLOSE / 100
    assert tried == [1.0, pytest.approx(scale, rel=1e-12)]


def test_samples_beyond_afresh_at_every_fit_are_slowed_by_close_over_4_the_second_time():
    """A long motion's samples, moved along the path, beyond by ~1e-5 afresh at each fit:
    the first time as far again, from the second on by CLOSE / 4 at least, which fits."""
    done, scale, tried = _resampled([1 + 1e-5, 1 + 3e-5, 1 + 4e-5])
    assert done
    assert len(tried) == 3 <= optimal.RESAMPLES
    assert tried[1] == pytest.approx((1 + 1e-5) ** 2, rel=1e-12)
    assert scale == pytest.approx(tried[1] * (1 + optimal.CLOSE / 4), rel=1e-12)


def test_the_windows_fits_slow_a_sample_beyond_by_close_over_4_at_once():
    """Not from rest (the windows' law): CLOSE / 4 at the first resampling beyond, as before
    (where HiGHS gives the windows no law, their start gives way to the uniform scaling by
    it: tests/test_optimal_solver_reason.py)."""
    done, scale, tried = _resampled([1 + 1e-7], from_rest=False)
    assert done
    assert scale == pytest.approx(1 + optimal.CLOSE / 4, rel=1e-12)
    assert len(tried) == 2
