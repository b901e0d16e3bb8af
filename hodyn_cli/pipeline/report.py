"""Render a validation :class:`~hodyn_cli.algorithms.verification.validate.Report` as JSON, Markdown or HTML.

The JSON follows ``hodyn_cli/schemas/report.schema.json`` (stable keys). The HTML page is
self-contained: its plots (matplotlib, PNG embedded as data URIs) show, per joint, taud
and taudd analytic against numerical differentiation and the error over time, as in the
closed-form paper's Figs. 3-4, and with ``--simulate`` the error of the simulated q and qd.
"""

from __future__ import annotations

import base64
import html
import io
import json
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli.errors import HodynError, install_hint

if TYPE_CHECKING:
    from hodyn_cli.api.validation import Report, ValidationCheck

__all__ = ["to_json", "to_markdown", "to_html", "report_format", "SCHEMA_PATH", "decimate",
           "thin", "Canvases"]

SCHEMA_PATH = Path(__file__).parents[1] / "schemas" / "report.schema.json"
FORMATS = {".json": "json", ".md": "markdown", ".markdown": "markdown", ".html": "html",
           ".htm": "html"}


def report_format(path: str) -> str:
    """'json', 'markdown' or 'html' from a file name (html: only where matplotlib, which draws
    its plots, is installed)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise HodynError(f"unknown report type '{suffix or path}' (use .json, .md or .html)", path)
    if FORMATS[suffix] == "html":
        _matplotlib(path)
    return FORMATS[suffix]


def _matplotlib(source: str | None = None):
    """The matplotlib module (Agg backend), or the error that says how to get it."""
    try:
        import matplotlib
    except ImportError:
        raise HodynError(f"the HTML report's plots need matplotlib: {install_hint('plots')} "
                         "(or write the report as .json or .md)", source) from None
    matplotlib.use("Agg")
    return matplotlib


#: equal bins across a plot's x range: a longer line is drawn through each bin's minimum and
#: maximum only, >= 2 bins per pixel column of these figures (<= 800 px wide axes), so every
#: peak stays drawn while matplotlib's cost and memory no longer grow with the file
COLUMNS = 1000
#: the same for y where markers are thinned (>= 2 rows per pixel: axes <= 200 px tall)
ROWS = 400


def decimate(x: np.ndarray, y: np.ndarray, columns: int = COLUMNS) -> tuple[np.ndarray, np.ndarray]:
    """The samples of a line over increasing ``x`` that hold the minimum or the maximum of
    ``y`` in one of ``columns`` equal x-bins (one of each per bin), plus the first and last
    sample (they set the axis' range), in order; all of them where there are at most
    ``2 * columns``."""
    x, y = np.asarray(x), np.asarray(y)
    if len(x) <= 2 * columns:
        return x, y
    span = float(x[-1] - x[0])
    b = (np.minimum(((x - x[0]) * (columns / span)).astype(np.int64), columns - 1) if span > 0
         else np.zeros(len(x), np.int64))
    order = np.lexsort((y, b))  # by bin, then value: each bin's run starts at its min
    sb = b[order]
    edge = sb[1:] != sb[:-1]
    ends = order[np.concatenate([[True], edge]) | np.concatenate([edge, [True]])]
    keep = np.unique(np.concatenate([ends, [0, len(x) - 1]]))
    return x[keep], y[keep]


def thin(x: np.ndarray, y: np.ndarray, columns: int = COLUMNS,
         rows: int = ROWS) -> tuple[np.ndarray, np.ndarray]:
    """Markers: the first sample in each occupied cell of a ``columns`` x ``rows`` grid over
    the points' range (the cells a scatter covers are what a reader sees; min and max per
    column alone would leave the line between them bare), plus the first and last sample, in
    order; all of them where there are at most ``2 * columns``."""
    x, y = np.asarray(x), np.asarray(y)
    if len(x) <= 2 * columns:
        return x, y
    finite = np.isfinite(y)
    lo, hi = (float(y[finite].min()), float(y[finite].max())) if finite.any() else (0.0, 0.0)
    bx = np.minimum(((x - x[0]) * (columns / max(float(x[-1] - x[0]), 1e-300))).astype(np.int64),
                    columns - 1)
    by = np.where(finite, np.minimum(((np.where(finite, y, lo) - lo)
                                      * (rows / max(hi - lo, 1e-300))).astype(np.int64), rows - 1),
                  rows)  # a non-finite y: a cell of its own
    _, first = np.unique(bx * (rows + 1) + by, return_index=True)
    keep = np.unique(np.concatenate([first, [0, len(x) - 1]]))
    return x[keep], y[keep]


class Canvases:
    """Figures reused across a report's plots of the same layout: building a figure's axes
    and drawing their ticks for the first time is most of matplotlib's cost, so a figure is
    built once per ``key`` and, between plots, only its data artists go (its data limits
    and colour cycle reset: the new plot is drawn as on fresh axes)."""

    def __init__(self) -> None:
        self._figs: dict = {}

    def get(self, key, make):
        """The figure and axes for ``key``, from ``make()`` the first time, emptied after."""
        if key not in self._figs:
            self._figs[key] = make()
            return self._figs[key]
        fig, axes = self._figs[key]
        for ax in fig.axes:
            for artist in [*ax.lines, *ax.collections, *ax.patches]:
                artist.remove()
            if ax.legend_ is not None:
                ax.legend_.remove()
            ax.relim()  # no artists left: the data limits (and log scales' minpos) reset
            ax.set_prop_cycle(None)  # the next line is C0 again
        return fig, axes

    def png(self, fig, dpi: int) -> str:
        """``fig`` as a base64 PNG."""
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi)
        return base64.b64encode(buf.getvalue()).decode()

    def close(self) -> None:
        import matplotlib.pyplot as plt

        for fig, _ in self._figs.values():
            plt.close(fig)
        self._figs.clear()


def _num(x: float | None, fmt: str = ".3g") -> str:
    return "" if x is None else format(x, fmt)


def _where(c: ValidationCheck) -> str:
    parts = []
    if c.worst_joint:
        parts.append(c.worst_joint)
    if c.worst_sample is not None:
        parts.append(f"sample {c.worst_sample}" + ("" if c.worst_time is None else
                                                  f" (t = {c.worst_time:.4g} s)"))
    return ", ".join(parts)


def to_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, allow_nan=False)


def _verdict_line(report: Report) -> str:
    s = report.summary()
    word = "PASSED" if report.passed else "FAILED"
    return (f"{word}: {s['pass']} passed, {s['fail']} failed, {s['warn']} warnings, "
            f"{s['skip']} skipped")


def to_markdown(report: Report) -> str:
    lines = [f"# hodyn validation: {report.robot}", "", f"**{_verdict_line(report)}**", "",
             f"- trajectory: `{report.trajectory}` ({report.n_samples} samples, "
             f"{len(report.checked_samples)} checked for torques)",
             f"- methods: {', '.join(report.methods)}; torque orders 0..{report.order}",
             f"- finite-difference step: {report.step:.3g} s; URDF sha256 `{report.urdf_sha256}`",
             "", "| group | check | status | max abs | max rel | tolerance | expected | worst at |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in report.checks:
        name = c.name + (f" [{c.method}]" if c.method and c.group == "finite differences" else "")
        lines.append(f"| {c.group} | {name} | {c.status.upper()} | {_num(c.max_abs)} | "
                     f"{_num(c.max_rel)} | {_num(c.tolerance)} | {_num(c.expected)} | {_where(c)} |")
    details = [c for c in report.checks if c.detail and c.status in ("fail", "warn", "skip")]
    if details:
        lines += ["", "## Details", ""] + [f"- **{c.status}** {c.name}: {c.detail}" for c in details]
    lines += ["", "Relative errors are taken against the largest magnitude of the checked quantity. "
              "'expected' is the estimated error of the numerical reference itself (Richardson "
              "estimate plus rounding for finite differences; trapezoid/central-difference "
              "truncation for sampled data; for the cross-method checks, the rounding the "
              "methods' summed terms may leave at the sample shown, whose error passes its "
              "own allowance by the most).", ""]
    return "\n".join(lines)


def _figures(report: Report) -> list[tuple[str, str]]:
    """(caption, base64 PNG) per derivative order."""
    _matplotlib()
    method = report.methods[0]
    data = [(method, name, d) for name, d in report.series.get(method, {}).items()]
    data += [("drives", name, d) for name, d in report.series.get("drives", {}).items()]
    sampled = report.series.get("sampled", {})
    t = report.series.get("t")
    timed = report.series.get("timed", t is not None)
    out = []
    canvases = Canvases()
    try:
        for source, name, d in data:
            x = t if t is not None or "columns" in d else np.asarray(report.checked_samples)
            columns = _columns(d, x)
            n = len(columns)
            fig, axes = canvases.get(("derivatives", n), partial(_grid, n))
            for j, (xj, a, num) in enumerate(columns):
                ax, ex = axes[j]
                ax.plot(*decimate(xj, a), lw=1.4, label=f"{name} analytic ({source})")
                ax.plot(*thin(xj, num), ".", ms=3, label="finite differences (Taylor motion)")
                if name in sampled and source == method:
                    d_s = sampled[name]
                    ts, _, numeric = d_s["columns"][j] if "columns" in d_s else \
                        (d_s["t"], None, d_s["numeric"][:, j])
                    ax.plot(*decimate(ts, numeric), lw=0.8, ls="--",
                            label="time differences of the samples")
                ax.set_ylabel(report.series["joint_names"][j], fontsize=8)
                xe, err = decimate(xj, np.abs(a - num))
                ex.semilogy(xe, np.where(err > 0, err, np.nan), lw=0.9, color="C3")  # exact: gap
                if j == 0:
                    ax.legend(fontsize=7, loc="upper right")
                    ax.set_title(f"{name}: analytic vs numerical", fontsize=9)
                    ex.set_title(f"|{name} analytic - finite differences|", fontsize=9)
            axes[-1][0].set_xlabel("t [s]" if timed else "sample")
            axes[-1][1].set_xlabel("t [s]" if timed else "sample")
            out.append((f"{name} per joint ({source})", canvases.png(fig, 90)))
        if "simulation" in report.series:
            out.append(_simulation_figure(report.series["simulation"], canvases))
    finally:
        canvases.close()
    return out


def _columns(d: dict, x) -> list[tuple]:
    """A plotted pair's (x, analytic, numeric) per column: its rows against ``x``, or the
    rows a long file's plot keeps of each column (``columns``: every sample checked, read a
    chunk at a time: :class:`~hodyn_cli.algorithms.verification.blocks.Plot`)."""
    if "columns" in d:
        return d["columns"]
    a, num = d["analytic"], d["numeric"]
    return [(x, a[:, j], num[:, j]) for j in range(a.shape[1])]


def _grid(rows: int):
    """A figure of ``rows`` x 2 axes sharing x, a joint per row, its margins fixed in inches
    (matplotlib's constrained layout measured every tick label: most of a report's time)."""
    import matplotlib.pyplot as plt

    height = 1.9 * rows + 0.6
    fig, axes = plt.subplots(rows, 2, figsize=(11, height), squeeze=False, sharex=True)
    fig.subplots_adjust(left=0.08, right=0.99, wspace=0.16, hspace=0.3,
                        top=1 - 0.3 / height, bottom=0.45 / height)
    return fig, axes


def _simulation_figure(sim: dict, canvases: Canvases) -> tuple[str, str]:
    """Per window (per ``width`` consecutive windows on a long file), the largest
    |q simulated - q| and |qd simulated - qd| per joint (q, qd of what the simulation is
    compared with: the local Taylor motion of the window's first sample, or with given
    torques the file's samples), over the time the (first) window starts."""
    t, names = sim["starts"], sim["joint_names"]
    width = sim["width"]
    per = "per window" if width == 1 else f"per {width} windows"
    fig, axes = canvases.get(("simulation", len(names)), partial(_grid, len(names)))
    for j, name in enumerate(names):
        for ax, key in zip(axes[j], ("q", "qd"), strict=True):
            te, err = thin(t, sim[key][:, j])  # a line with markers
            ax.semilogy(te, np.where(err > 0, err, np.nan), ".-", lw=0.9, ms=2, color="C3")
            if j == 0:
                ax.set_title(f"largest |{key} simulated - {key}| {per} ({key} of "
                             f"{sim['against']})", fontsize=9)
        axes[j][0].set_ylabel(name, fontsize=8)
    axes[-1][0].set_xlabel("t [s] at which the window starts from the file's state")
    axes[-1][1].set_xlabel("t [s]")
    return f"simulation: forward dynamics driven by {sim['driven']}", canvases.png(fig, 90)


def to_html(report: Report) -> str:
    esc = html.escape
    rows = []
    for c in report.checks:
        name = c.name + (f" [{c.method}]" if c.method and c.group == "finite differences" else "")
        rows.append(
            f"<tr class='{c.status}'><td>{esc(c.group)}</td><td>{esc(name)}</td>"
            f"<td class='st'>{c.status.upper()}</td><td>{_num(c.max_abs)}</td><td>{_num(c.max_rel)}</td>"
            f"<td>{_num(c.tolerance)}</td><td>{_num(c.expected)}</td><td>{esc(_where(c))}</td>"
            f"<td>{esc(c.detail)}</td></tr>")
    verdict = "pass" if report.passed else "fail"
    body = f"""<p class="verdict {verdict}">{esc(_verdict_line(report))}</p>
<ul>
<li>trajectory: <code>{esc(report.trajectory)}</code>, {report.n_samples} samples
({len(report.checked_samples)} checked for torques)</li>
<li>methods: {esc(', '.join(report.methods))}; torque orders 0..{report.order};
finite-difference step {report.step:.3g} s</li>
<li>URDF sha256 <code>{esc(report.urdf_sha256)}</code></li>
</ul>
<h2>Checks</h2>
<table><thead><tr><th>group</th><th>check</th><th>status</th><th>max abs</th><th>max rel</th>
<th>tolerance</th><th>expected</th><th>worst at</th><th>detail</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table>
<p>Relative errors are against the largest magnitude of the checked quantity; "expected" is
the estimated error of the numerical reference itself (for the cross-method checks, the
rounding the methods' summed terms may leave at the sample shown, whose error passes its own
allowance by the most).</p>
<h2>Analytic against numerical derivatives{', simulation' if 'simulation' in report.series else ''}</h2>"""
    status = """tr.fail .st { background: #f4b4b4; } tr.warn .st { background: #f6e2a6; }
tr.pass .st { background: #c8eec8; } tr.skip .st { background: #ddd; }"""
    return html_page(f"hodyn validation: {report.robot}", status, body, _figures(report))


def html_page(title: str, status_css: str, body: str, figures: list[tuple[str, str]]) -> str:
    """A self-contained HTML report (validate's, check's): ``title``, the rows' status
    colours, ``body`` (HTML), then the ``(caption, base64 PNG)`` figures; ``data-plots`` and,
    once loaded, ``data-plots-rendered`` count them (tests/test_validate.py opens the page in
    headless Chromium)."""
    esc = html.escape
    images = "\n".join(
        f"<figure><img alt='{esc(cap)}' src='data:image/png;base64,{png}'>"
        f"<figcaption>{esc(cap)}</figcaption></figure>" for cap, png in figures)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{esc(title)}</title>
<style>
body {{ font: 14px/1.4 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }}
h1 {{ font-size: 1.5em; }} .verdict {{ font-size: 1.2em; font-weight: bold; padding: .4em .8em; }}
.verdict.pass {{ background: #e3f6e3; }} .verdict.fail {{ background: #fbe3e3; }}
table {{ border-collapse: collapse; font-size: 12px; width: 100%; }}
td, th {{ border: 1px solid #ccc; padding: 3px 6px; text-align: left; vertical-align: top; }}
{status_css}
figure {{ margin: 1.5em 0; }} img {{ max-width: 100%; }}
</style></head>
<body data-plots="{len(figures)}">
<h1>{esc(title)}</h1>
{body}
{images}
<script>
window.addEventListener("load", function () {{
  var ok = Array.prototype.filter.call(document.images,
    function (im) {{ return im.complete && im.naturalWidth > 0; }}).length;
  document.body.setAttribute("data-plots-rendered", String(ok));
}});
</script>
</body></html>
"""


def render(report: Report, fmt: str) -> str:
    """The report as text in ``fmt`` ('json', 'markdown', 'html')."""
    return {"json": to_json, "markdown": to_markdown, "html": to_html}[fmt](report)
