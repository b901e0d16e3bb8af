"""Render a :class:`~hodyn_cli.algorithms.limits.feasibility.Check` (``hodyn check --report``) as JSON
(``hodyn_cli/schemas/check.schema.json``), Markdown or a self-contained HTML page whose plots
show each quantity against its limit band (matplotlib, PNG embedded as data URIs).
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli.pipeline.report import Canvases, _matplotlib, html_page

if TYPE_CHECKING:
    from hodyn_cli.api.limits import Check, Row

__all__ = ["Meta", "SCHEMA_PATH", "to_dict", "render"]

SCHEMA_PATH = Path(__file__).parents[1] / "schemas" / "check.schema.json"


@dataclass(frozen=True, eq=False, repr=False)
class Meta:
    """What was checked: robot, its URDF hash, trajectory, dynamics, files."""

    robot: str
    urdf_sha256: str
    trajectory: str
    dynamics: str = "rigid"
    limits_file: str | None = None
    drives_file: str | None = None


def _row(r: Row) -> dict:
    return {"quantity": r.quantity, "joint": r.joint, "unit": r.unit, "status": r.status,
            "lower": r.lower, "upper": r.upper, "limit_from": r.origin, "value": r.value,
            "limit": r.limit, "margin_percent": r.margin, "worst_sample": r.sample,
            "worst_time": r.time, "violations": r.violations, "reason": r.reason}


def _summary(check: Check) -> dict[str, int]:
    return {s: sum(r.status == s for r in check.rows) for s in ("ok", "violated", "unchecked")}


def to_dict(check: Check, meta: Meta) -> dict:
    """The report as plain data (the JSON schema's keys)."""
    return {"schema": "hodyn-check-report/1", "feasible": check.feasible,
            "summary": _summary(check), "robot": meta.robot, "urdf_sha256": meta.urdf_sha256,
            "trajectory": meta.trajectory, "n_samples": check.n_samples,
            "dynamics": meta.dynamics, "limits_file": meta.limits_file,
            "drives_file": meta.drives_file, "tolerance": check.tolerance,
            "rows": [_row(r) for r in check.rows]}


def _num(x, fmt: str = ".4g") -> str:
    return "" if x is None else format(x, fmt)


def _where(r: Row) -> str:
    if r.time is not None:
        return f"t = {r.time:.6g} s"
    return "" if r.sample is None else f"sample {r.sample}"


def verdict(check: Check) -> str:
    s = _summary(check)
    return (f"{'FEASIBLE' if check.feasible else 'NOT FEASIBLE'}: {s['violated']} of "
            f"{s['ok'] + s['violated']} limits violated, {s['unchecked']} not checked")


HEADER = ("quantity", "joint", "status", "peak", "limit", "margin %", "worst at", "violations",
          "unit")


def cells(r: Row) -> tuple[str, ...]:
    """The table cells of one row (all formats)."""
    return (r.label, r.joint, r.status.upper(), _num(r.value), _num(r.limit),
            _num(r.margin, ".3g"), _where(r), str(r.violations) if r.checked else "", r.unit)


def _markdown(check: Check, meta: Meta) -> str:
    lines = [f"# hodyn check: {meta.robot}", "", f"**{verdict(check)}**", "",
             f"- trajectory: `{meta.trajectory}` ({check.n_samples} samples); dynamics: "
             f"{meta.dynamics}", f"- limits: the URDF's, and `{meta.limits_file}`"
             if meta.limits_file else "- limits: the URDF's", f"- URDF sha256 `{meta.urdf_sha256}`",
             "", "| " + " | ".join(HEADER) + " |", "|" + " --- |" * len(HEADER)]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in check.rows]
    unchecked = [r for r in check.rows if not r.checked]
    if unchecked:
        lines += ["", "Not checked:", ""] + [f"- {r.label} of {r.joint}: {r.reason}"
                                              for r in unchecked]
    lines += ["", "peak: the value at the worst sample (largest distance from the middle of the "
              "limit band, relative to its half-width); margin: the room left there, % of the "
              f"half-width (negative: beyond). A value beyond its limit by more than "
              f"{check.tolerance:g} (relative) is a violation.", ""]
    return "\n".join(lines)


def _axes(rows: int):
    """A figure of ``rows`` axes sharing x, its margins fixed in inches."""
    import matplotlib.pyplot as plt

    height = 1.6 * rows + 0.7
    fig, axes = plt.subplots(rows, 1, figsize=(10, height), squeeze=False, sharex=True)
    fig.subplots_adjust(left=0.11, right=0.98, top=1 - 0.35 / height,
                        bottom=0.45 / height, hspace=0.12)  # (constrained layout: 2x slower)
    return fig, axes


def _figures(check: Check) -> list[tuple[str, str]]:
    """(caption, base64 PNG) per checked quantity: each joint's values (min/max envelope, at
    most 2 * ``Envelope.bins`` points however long the file) against its limit band."""
    _matplotlib()
    out = []
    canvases = Canvases()  # the quantities of a robot share a layout: its axes built once
    try:
        for quantity, rows, env in check.plotted():
            t, lo, hi = env.arrays()
            fig, axes = canvases.get(len(rows), partial(_axes, len(rows)))
            for c, (ax, r) in enumerate(zip(axes[:, 0], rows, strict=True)):
                ax.fill_between(t, lo[:, c], hi[:, c], step="post", lw=0.8, color="C0",
                                alpha=0.6, label=quantity.label)
                span = max(r.upper - r.lower, np.abs(hi[:, c]).max(), np.abs(lo[:, c]).max())
                top, bottom = max(r.upper, hi[:, c].max()) + 0.1 * span, \
                    min(r.lower, lo[:, c].min()) - 0.1 * span
                ax.axhspan(r.upper, top, color="C3", alpha=0.12, lw=0)
                ax.axhspan(bottom, r.lower, color="C3", alpha=0.12, lw=0)
                ax.axhline(r.upper, color="C3", lw=0.8, ls="--")
                ax.axhline(r.lower, color="C3", lw=0.8, ls="--")
                if r.value is not None:
                    when = r.time if r.time is not None else r.sample
                    ax.plot([when], [r.value], "o", ms=4, color="C3" if r.violations else "k")
                ax.set_ylim(bottom, top)
                ax.set_ylabel(f"{r.joint}\n[{r.unit}]", fontsize=7)
            axes[0, 0].set_title(f"{quantity.label} against its limits (dashed; beyond them: "
                                 "shaded)", fontsize=9)
            axes[-1, 0].set_xlabel("t [s]" if check.has_t else "sample")
            out.append((f"{quantity.label} per joint", canvases.png(fig, 80)))
    finally:
        canvases.close()
    return out


def _html(check: Check, meta: Meta) -> str:
    esc = html.escape
    head = "".join(f"<th>{esc(h)}</th>" for h in HEADER)
    rows = "".join(f"<tr class='{r.status}'>" + "".join(
        f"<td{' class=st' if i == 2 else ''}>{esc(c)}</td>" for i, c in enumerate(cells(r)))
        + "</tr>" for r in check.rows)
    notes = "".join(f"<li>{esc(r.label)} of {esc(r.joint)}: {esc(r.reason)}</li>"
                    for r in check.rows if not r.checked)
    files = esc(f"the URDF's and {meta.limits_file}" if meta.limits_file else "the URDF's")
    body = f"""<p class="verdict {'pass' if check.feasible else 'fail'}">{esc(verdict(check))}</p>
<ul>
<li>trajectory: <code>{esc(meta.trajectory)}</code>, {check.n_samples} samples; dynamics:
{esc(meta.dynamics)}</li>
<li>limits: {files}</li>
<li>URDF sha256 <code>{esc(meta.urdf_sha256)}</code></li>
</ul>
<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>
<p>peak: the value at the worst sample (largest distance from the middle of the limit band,
relative to its half-width); margin: the room left there, % of the half-width (negative:
beyond).</p>
{f"<p>Not checked:</p><ul>{notes}</ul>" if notes else ""}
<h2>Each quantity against its limits</h2>"""
    status = """tr.violated .st { background: #f4b4b4; } tr.ok .st { background: #c8eec8; }
tr.unchecked .st { background: #ddd; }"""
    return html_page(f"hodyn check: {meta.robot}", status, body, _figures(check))


def render(check: Check, meta: Meta, fmt: str) -> str:
    """The report as text in ``fmt`` ('json', 'markdown', 'html')."""
    if fmt == "json":
        return json.dumps(to_dict(check, meta), indent=2, allow_nan=False)
    return {"markdown": _markdown, "html": _html}[fmt](check, meta)
