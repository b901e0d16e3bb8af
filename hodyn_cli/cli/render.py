"""Rendering for humans (rich, on stderr or stdout) and machines (JSON). One-line messages
are plain text (no rich needed); tables and the progress bar use rich, imported when one is
drawn."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from hodyn_cli.api import Model
    from hodyn_cli.api.limits import Check
    from hodyn_cli.api.validation import Report


def console(err: bool = False) -> Console:
    """A rich console on stdout (tables are wide: when it is not a terminal, 200 columns) or
    on stderr."""
    from rich.console import Console

    stream = sys.stderr if err else sys.stdout
    return Console(stderr=err, highlight=False,
                   width=None if stream.isatty() else 160 if err else 200)


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def table(title: str, **options) -> Table:
    from rich.table import Table

    return Table(title=title, **options)


def diagnostics(model: Model, *, show_info: bool = False,
                open_options: Collection[str] | None = None, quiet: bool = False) -> None:
    """Print the model's warnings and notices (and infos if asked) on stderr; ``quiet``:
    warnings only. ``open_options``: the options the command takes and was not given; a
    message suggesting another one is not said (None: every message, as ``info`` describes
    the robot)."""
    for d in model.diagnostics:
        if d.suggests and open_options is not None and d.suggests not in open_options:
            continue
        if d.level == "warning" or (d.level == "notice" and not quiet) or show_info:
            _line(f"hodyn: {d.level}: {d.message}")


def _line(text: str) -> None:
    """One message, one line: never wrapped at the console width (scripts grep for them)."""
    print(text, file=sys.stderr, flush=True)


def warning(message: str) -> None:
    _line(f"hodyn: warning: {message}")


def notice(message: str) -> None:
    _line(f"hodyn: notice: {message}")


def error(message: str) -> None:
    _line(f"hodyn: error: {message}")


def fail(message: str) -> None:
    _line(f"hodyn: fail: {message}")


@contextmanager
def progress(total: int | None, unit: str, quiet: bool) -> Iterator[Callable[..., None]]:
    """A progress bar on stderr (only when it is a terminal and not ``quiet``); yields the
    callback ``update(done, total=None)`` (``total``, once known, sets the bar's end)."""
    if quiet or not sys.stderr.isatty():
        yield lambda done, total=None: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = [TextColumn(f"hodyn {unit}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn()]
    with Progress(*columns, console=console(err=True), transient=True) as bar:
        task = bar.add_task(unit, total=total, rate="")
        start = time.perf_counter()

        def update(done: int, total: int | None = None) -> None:
            rate = done / max(time.perf_counter() - start, 1e-9)
            bar.update(task, completed=done, total=total,  # None: the total stays
                       rate=f"{rate:,.0f} {unit}/s")

        yield update


def _vec(v) -> str:
    import numpy as np

    return " ".join(f"{x:.3g}" for x in np.asarray(v) + 0.0)


def _limits(lim) -> str:
    import numpy as np

    return "-" if not np.isfinite(lim).all() else f"{lim[0]:.4g}..{lim[1]:.4g}"


def root_body(model: Model) -> tuple[float, list[float], list[list[float]]]:
    """The root link and the links welded to it as one body: mass, centre of mass and
    rotational inertia about it, in the root link frame."""
    import numpy as np

    M = model.root_inertia
    m = float(M[3, 3])
    c = np.array([M[2, 4], M[0, 5], M[1, 3]]) / m if m > 0 else np.zeros(3)
    C = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
    about = M[:3, :3] + m * C @ C
    return m, c.tolist(), ((about + about.T) / 2).tolist()  # (symmetric: the product rounds)


def model_table(model: Model) -> Table:
    """The parsed model as a rich table: joints, screws, reference poses, masses, COMs (a
    robot without joints: its one rigid body)."""
    if model.n == 0:
        return _single_body_table(model)
    out = table(f"{model.name}: {model.n} joints, root link '{model.root_link}'")
    for col in ("#", "joint", "type", "parent", "link", "X (body)", "Y (spatial)",
                "A position", "limits", "mass", "COM (body)"):
        out.add_column(col, justify="right" if col in ("#", "mass") else "left",
                         no_wrap=col in ("joint", "type", "parent", "link"))
    A, Y, mass, com = model.A, model.spatial_screws, model.mass, model.com
    for i in range(model.n):
        p = model.parent[i]
        out.add_row(str(i), model.joint_names[i], model.joint_types[i],
                      model.link_names[p] if p >= 0 else model.root_link, model.link_names[i],
                      _vec(model.X[i]), "-" if model.dofs[i] > 1 else _vec(Y[i]),
                      _vec(A[i, :3, 3]), _limits(model.limits[i]),
                      f"{mass[i]:.5g}",
                      _vec(com[i]))
    return out


def _single_body_table(model: Model) -> Table:
    """A robot without joints: a single rigid body, moving only as a free body."""
    m, c, theta = root_body(model)
    out = table(f"{model.name}: no joint: a single rigid body, root link '{model.root_link}'",
                caption="it moves only as a free body: --floating-base, with the trajectory's "
                        "base_ columns (docs/floating.md)")
    for col in ("links", "mass", "COM (root frame)", "inertia about the COM: xx yy zz xy xz yz"):
        out.add_column(col, justify="right" if col == "mass" else "left")
    welded = [name for name, frame in model.links.items() if frame.body < 0]
    out.add_row(", ".join(welded), f"{m:.6g}", _vec(c),
                _vec([theta[0][0], theta[1][1], theta[2][2], theta[0][1], theta[0][2],
                      theta[1][2]]))
    return out


def model_json(model: Model) -> str:
    """Everything ``hodyn info`` knows about a model, as stable-keyed JSON."""
    import numpy as np

    from hodyn_cli import __version__, api

    A, Y = model.A, model.spatial_screws
    data = {
        "hodyn_version": __version__,
        "backend": {k: v for k, v in api.backend_info().items() if k != "fallback"},
        "name": model.name,
        "root_link": model.root_link,
        "urdf_sha256": model.source_sha256,
        "joints": [
            {
                "index": i,
                "name": model.joint_names[i],
                "type": model.joint_types[i],
                "parent": int(model.parent[i]),
                "link": model.link_names[i],
                "B": model.B[i].tolist(),
                "A": A[i].tolist(),
                "X": model.X[i].tolist(),
                "Y": None if model.dofs[i] > 1 else Y[i].tolist(),
                "coordinates": list(model.dof_names[model.dof_offsets[i]:model.dof_offsets[i + 1]]),
                "mass": float(model.mass[i]),
                "com": model.com[i].tolist(),
                "inertia": model.inertias[i].tolist(),
                "limits": [None if not np.isfinite(v) else float(v) for v in model.limits[i]],
            }
            for i in range(model.n)
        ],
        "root": dict(zip(("mass", "com", "inertia_about_com"), root_body(model), strict=True),
                     inertia=model.root_inertia.tolist()),
        "links": {name: {"body": f.body, "T": f.T.tolist()} for name, f in model.links.items()},
        "diagnostics": [{"level": d.level, "message": d.message} for d in model.diagnostics],
    }
    return json.dumps(data, indent=2)


def elastic_explanation(model: Model, rows: list[dict], req, kind: str, order: int) -> Table:
    """``hodyn elastic --explain``: per joint, the order of u needed and why."""
    from hodyn_cli.api import derivative_name

    out = table(f"{model.name}, --model {kind} --order {order}: every joint needs q up to "
                        f"{derivative_name('q', req.q_order)} (derivative {req.q_order}; "
                        f"the reflected model: {order + 4})",
                  caption="u_J of order m needs q to order m+2; thetadd of a drive enters u_i "
                          "when its rotor axis is not perpendicular to joint i's axis in every "
                          "configuration, thetad alone through the gyroscopic term")
    for col in ("joint", "drive", "u to order", "because", "thetadd in u of", "thetad only"):
        out.add_column(col)
    for r in rows:
        out.add_row(r["joint"], r["drive"], str(r["u_order"]),
                      escape(r["because"]), ", ".join(r["thetadd_in_u"]) or "-",
                      ", ".join(r["thetad_only_in_u"]) or "-")
    return out


def parameters_table(model: Model) -> Table:
    """``hodyn info --parameters``: 10 dynamic parameters per moving body."""
    from hodyn_cli import api

    names, values = api.body_parameters(model)
    out = table(f"{model.name}: dynamic parameters (body frame, about its origin; "
                        "Pinocchio's order)")
    out.add_column("body (link)")
    for p in names:
        out.add_column(p, justify="right")
    links = model.link_names
    if model.n == 0:  # a single rigid body: the root, which moves as a free body
        links, values = (model.root_link,), api.regressor_parameters(
            model, floating_base=True)[1].reshape(1, -1)
    for b, row in enumerate(values):
        out.add_row(links[b], *(f"{v:.6g}" for v in row + 0.0))
    return out


def parameters_json(model: Model) -> str:
    """The dynamic parameters as JSON: names (``<param>_<link>``) and values, body order."""
    from hodyn_cli import api

    floating = model.n == 0  # a single rigid body: the root, which moves as a free body
    names, values = api.regressor_parameters(model, floating_base=floating)
    bodies = [model.root_link] if floating else list(model.link_names)
    return json.dumps({"name": model.name, "parameters": list(api.body_parameters(model)[0]),
                       "bodies": bodies, "names": names, "values": values.tolist()}, indent=2)


STATUS_STYLE = {"pass": "green", "fail": "bold red", "warn": "yellow", "skip": "dim",
                "estimated": "cyan"}


def _g(x) -> str:
    return "" if x is None else f"{x:.3g}"


def validation_table(report: Report) -> Table:
    """One row per check: errors, tolerance, verdict, worst joint and sample."""
    s = report.summary()
    out = table(f"hodyn validate {report.robot}: {'PASSED' if report.passed else 'FAILED'} "
                        f"({s['pass']} passed, {s['fail']} failed, {s['warn']} warnings, "
                        f"{s['skip']} skipped, {s['estimated']} estimated)")
    for col in ("group", "check", "status", "max abs", "max rel", "tol", "expected", "worst at"):
        out.add_column(col, justify="right" if col in ("max abs", "max rel", "tol", "expected")
                         else "left")
    for c in report.checks:
        name = c.name + (f" [{c.method}]" if c.method and c.group == "finite differences" else "")
        where = ", ".join(x for x in (c.worst_joint, None if c.worst_sample is None else
                                      f"sample {c.worst_sample}") if x)
        out.add_row(escape(c.group), escape(name), f"[{STATUS_STYLE[c.status]}]{c.status.upper()}[/]",
                      _g(c.max_abs), _g(c.max_rel), _g(c.tolerance), _g(c.expected), escape(where))
    return out


def validation(report: Report, *, brief: bool = False) -> None:
    """The summary table (or with ``brief`` one line) and the details of failures and
    warnings, on stderr."""
    if brief:
        s = report.summary()
        _line(f"hodyn: validation {'passed' if report.passed else 'FAILED'}: {s['pass']} "
              f"passed, {s['fail']} failed, {s['warn']} warnings")
    else:
        console(err=True).print(validation_table(report))
    for c in report.checks:
        if c.detail and c.status in ("fail", "warn"):
            method = f" [{c.method}]" if c.method else ""
            _line(f"hodyn: {c.status}: {c.name}{method}: {c.detail}")


CHECK_STYLE = {"ok": "green", "violated": "bold red", "unchecked": "dim"}


def feasibility(check: Check) -> None:
    """``hodyn check``'s table on stderr, then one ``fail`` line per violated limit and one
    warning per limit that could not be checked."""
    from hodyn_cli.pipeline.check_report import HEADER, cells, verdict

    out = table(f"hodyn check: {verdict(check)}")
    for col in HEADER:
        out.add_column(col, justify="right" if col in ("peak", "limit", "margin %",
                                                       "violations") else "left")
    for r in check.rows:
        row = [escape(c) for c in cells(r)]
        row[2] = f"[{CHECK_STYLE[r.status]}]{row[2]}[/]"
        out.add_row(*row)
    console(err=True).print(out)
    unchecked: dict[tuple[str, str], list[str]] = {}
    for r in check.rows:
        at = f"t = {r.time:.6g} s" if r.time is not None else f"sample {r.sample}"
        if r.status == "violated" and r.quantity == "rest_acceleration":
            ends = "both ends at rest" if r.violations == 2 else "an end at rest"
            fail(f"{r.label} of {r.joint} not 0 at {ends}; worst {r.value:.6g} {r.unit} at "
                 f"{at}: a held robot's acceleration steps there (jerk, torque rates "
                 "unbounded)")
        elif r.status == "violated":
            fail(f"{r.label} of {r.joint} beyond its limit at {r.violations} "
                 f"sample(s); worst {r.value:.6g} {r.unit} (limit {r.limit:.6g}) at {at}")
        elif r.status == "unchecked":
            unchecked.setdefault((r.label, r.reason), []).append(r.joint)
    for (label, reason), joints in unchecked.items():
        warning(f"{label} limits not checked ({', '.join(joints)}): {reason}")
