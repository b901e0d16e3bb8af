"""``validate``'s loops closure check at any size: its tolerance is ``CLOSURE_TOL`` times the
loops' length where it is below 1 m (``Closed.length``), as Newton's are
(tests/test_loops_scale.py). With the absolute 1e-10 m, a linkage of a few micrometres
passed loops 1.7e-5 of its own size apart (1e-10 m against 5.9e-6 m); now the four-bar scaled by
1e-5 is held to 5.9e-16 m, as the 0.59 m one is to 5.9e-11 m (the kernel closes both to rounding)."""
from __future__ import annotations

import numpy as np
import pytest
from test_loops import crank
from test_loops_scale import ROOT, _scaled

from hodyn_cli import api
from hodyn_cli.algorithms.verification.validate_loops import CLOSURE_TOL


@pytest.mark.parametrize("scale", [1.0, 1e-5])
def test_the_closure_check_is_relative_to_the_loops_length(tmp_path, scale):
    urdf, loops = ((str(ROOT / "urdf" / "fourbar.urdf"), str(ROOT / "urdf" / "fourbar_loops.toml"))
                   if scale == 1.0 else _scaled(tmp_path, scale, scale ** 3))
    closed = api.close_loops(api.load_robot(urdf), loops)
    report = api.validate_motion(closed, crank(np.linspace(0.0, 2.0, 41), 5), samples=5,
                                 methods=["body-fixed"])
    check = next(c for c in report.checks if c.group == "loops" and "closure" in c.name)
    length = closed.coupling.length
    assert length == pytest.approx(0.587 * scale, rel=1e-3)
    assert check.tolerance == CLOSURE_TOL * length and check.status == "pass"
    assert check.max_abs <= 1e-4 * check.tolerance   # (closed to rounding: 2e-6 of it)
    assert report.passed
