"""The HTML reports' figures (validate's, check's): drawn from a bounded number of points
however long the file, every peak kept, and pixel for pixel what fresh figures draw although
their axes are reused across a report's plots."""

import base64
import io
import re
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from hodyn_cli.algorithms.limits.feasibility import QUANTITIES, Envelope, Row  # noqa: E402
from hodyn_cli.algorithms.verification.validate import Report, Tolerances  # noqa: E402
from hodyn_cli.pipeline import check_report, report  # noqa: E402
from hodyn_cli.pipeline.report import COLUMNS, Canvases, decimate, thin  # noqa: E402


def test_decimate_keeps_each_columns_min_and_max():
    rng = np.random.default_rng(1)
    n, columns = 100_003, 500
    x = np.cumsum(rng.uniform(0.5, 1.5, n))  # uneven spacing
    y = rng.normal(size=n)
    y[71_234] = 40.0  # a one-sample spike (a limit violation) ...
    y[5] = -40.0      # ... and a dip
    xd, yd = decimate(x, y, columns)
    assert len(xd) <= 2 * columns + 2 and np.all(np.diff(xd) > 0)  # a subset, in order
    assert xd[0] == x[0] and xd[-1] == x[-1]  # the axis' range unchanged
    assert 40.0 in yd and -40.0 in yd
    b = np.minimum(((x - x[0]) * (columns / (x[-1] - x[0]))).astype(int), columns - 1)
    bd = np.minimum(((xd - x[0]) * (columns / (x[-1] - x[0]))).astype(int), columns - 1)
    starts, starts_d = np.flatnonzero(np.diff(b, prepend=-1)), np.flatnonzero(np.diff(bd, prepend=-1))
    assert np.array_equal(b[starts], bd[starts_d])  # every column still has points
    np.testing.assert_array_equal(np.minimum.reduceat(yd, starts_d), np.minimum.reduceat(y, starts))
    np.testing.assert_array_equal(np.maximum.reduceat(yd, starts_d), np.maximum.reduceat(y, starts))
    short = np.arange(2.0 * columns)
    assert decimate(short, short, columns)[0] is not None
    np.testing.assert_array_equal(decimate(short, -short, columns)[1], -short)  # kept whole


def test_thin_keeps_every_cell_a_scatter_covers():
    rng = np.random.default_rng(2)
    n, columns, rows = 50_001, 300, 100
    x = np.linspace(0.0, 1.0, n)
    y = np.sin(20 * x) + 0.05 * rng.normal(size=n)
    y[30_000] = 9.0  # a one-sample outlier
    y[40_000] = np.nan  # a gap
    xt, yt = thin(x, y, columns, rows)
    assert np.all(np.diff(xt) > 0) and xt[0] == x[0] and xt[-1] == x[-1] and len(xt) < n / 10

    def cells(x_, y_):
        lo, hi = np.nanmin(y), np.nanmax(y)
        bx = np.minimum((x_ * columns).astype(int), columns - 1)
        by = np.where(np.isnan(y_), rows,
                      np.minimum(((np.nan_to_num(y_, nan=lo) - lo) * rows / (hi - lo)).astype(int),
                                 rows - 1))
        return set(zip(bx.tolist(), by.tolist(), strict=True))

    assert cells(xt, yt) == cells(x, y)
    assert 9.0 in yt and np.isnan(yt).any()


def _report(n: int, spike: int | None = None) -> Report:
    t = np.linspace(0.0, 5.0, n)
    a = np.stack([np.sin(t), 3 * np.cos(2 * t)], axis=1)
    if spike is not None:
        a[spike, 1] = 50.0
    num = a + 1e-9 * np.sin(40 * t)[:, None]
    series = {"t": t, "joint_names": ["j1", "j2"],
              "body-fixed": {"taud": {"analytic": a, "numeric": num},
                             "taudd": {"analytic": -a, "numeric": -num}},
              "sampled": {"taud": {"t": t[1:-1], "numeric": a[1:-1] * 1.001}}}
    return Report("r", "0" * 64, "x.h5", n, list(range(n)), 2, ["body-fixed"], 1e-3,
                  Tolerances(), series=series)


def _images(page: str) -> list[tuple[str, np.ndarray]]:
    import matplotlib.image

    return [(alt, matplotlib.image.imread(io.BytesIO(base64.b64decode(png))))
            for alt, png in re.findall(r"<img alt='([^']*)' src='data:image/png;base64,([^']*)'",
                                       page)]


def _fresh(monkeypatch):
    """Every plot on new axes (the reports before their axes were reused)."""
    import matplotlib.pyplot as plt

    made = []

    def get(self, key, make):
        made.append(make())
        return made[-1]

    monkeypatch.setattr(Canvases, "get", get)
    return lambda: [plt.close(fig) for fig, _ in made]


def test_reused_axes_draw_what_fresh_ones_do(monkeypatch):
    # the second figure of each report is drawn on the first one's axes: same titles, same
    # pixels (colours, autoscaled limits, log axes) as on fresh axes
    validation = _report(300)
    env = Envelope()
    t = np.linspace(0, 2, 400)
    env.add(t, np.stack([np.sin(3 * t)], axis=1))
    rows = [Row(q.key, "j1", "u", -0.8, 0.9, "file", value=1.0, time=0.5, violations=3)
            for q in QUANTITIES[:2]]
    check = SimpleNamespace(has_t=True, plotted=lambda: [(q, [r], env) for q, r in
                                                         zip(QUANTITIES[:2], rows, strict=True)])
    reused = [_images(report.to_html(validation)),
              _images(check_report.html_page("c", "", "", check_report._figures(check)))]
    close = _fresh(monkeypatch)
    fresh = [_images(report.to_html(validation)),
             _images(check_report.html_page("c", "", "", check_report._figures(check)))]
    close()
    assert [alt for alt, _ in reused[0]] == ["taud per joint (body-fixed)",
                                             "taudd per joint (body-fixed)"]
    assert [alt for alt, _ in reused[1]] == ["position per joint", "velocity per joint"]
    for new, old in zip(reused, fresh, strict=True):
        assert [alt for alt, _ in new] == [alt for alt, _ in old]
        for (_, a), (_, b) in zip(new, old, strict=True):
            np.testing.assert_array_equal(a, b)


def test_long_inputs_hand_matplotlib_a_bounded_number_of_points(monkeypatch):
    # 2e5 samples: each line gets <= 2 COLUMNS + 2 points (markers: one per occupied cell,
    # a few per column), the check's band <= 2 bins, and a one-sample spike is still drawn
    # (images not encoded: only what matplotlib was handed)
    n, spike = 200_000, 154_321
    seen: list[tuple[int, float]] = []

    def png(self, fig, dpi):
        for ax in fig.axes:
            for line in ax.lines:
                k = len(line.get_xdata())
                seen.append((k if line.get_marker() != "." else k // 4,
                             float(np.nanmax(line.get_ydata()))))
            for coll in ax.collections:
                path = coll.get_paths()[0]
                seen.append((len(path.vertices) // 4, float(path.vertices[:, 1].max())))
        return ""

    monkeypatch.setattr(Canvases, "png", png)
    report._figures(_report(n, spike))
    assert max(k for k, _ in seen) <= 2 * COLUMNS + 2
    assert 50.0 in [top for _, top in seen]  # the analytic line's spike

    seen.clear()
    env, t = Envelope(), np.linspace(0, 100, n)
    values = np.sin(t)[:, None]
    values[spike] = 7.0
    for chunk in range(0, n, 30_000):
        env.add(t[chunk:chunk + 30_000], values[chunk:chunk + 30_000])
    row = Row("torque", "j1", "N m", -2.0, 2.0, "file", value=7.0, time=float(t[spike]))
    check_report._figures(SimpleNamespace(has_t=True,
                                          plotted=lambda: [(QUANTITIES[4], [row], env)]))
    assert max(k for k, _ in seen) <= 2 * env.bins
    assert max(top for _, top in seen) == 7.0
