"""Rendering for humans (rich, on stderr or stdout) and machines (JSON)."""

from __future__ import annotations

import json
import sys

import numpy as np
from rich.console import Console
from rich.table import Table

from hodyn_cli.model import Model

stderr = Console(stderr=True, highlight=False)
# tables are wide: when stdout is not a terminal, do not squeeze them into 80 columns
stdout = Console(highlight=False, width=None if sys.stdout.isatty() else 200)


def diagnostics(model: Model, *, show_info: bool = False) -> None:
    """Print the model's warnings (and infos if asked) on stderr."""
    for d in model.diagnostics:
        if d.level == "warning" or show_info:
            stderr.print(f"hodyn: {d.level}: {d.message}", markup=False)


def _vec(v) -> str:
    return " ".join(f"{x:.3g}" for x in np.asarray(v) + 0.0)


def model_table(model: Model) -> Table:
    """The parsed model as a rich table: joints, screws, reference poses, masses, COMs."""
    table = Table(title=f"{model.name}: {model.n} joints, root link '{model.root_link}'")
    for col in ("#", "joint", "type", "parent", "link", "X (body)", "Y (spatial)",
                "A position", "mass", "COM (body)"):
        table.add_column(col, justify="right" if col in ("#", "mass") else "left",
                         no_wrap=col in ("joint", "type", "parent", "link"))
    A, Y, mass, com = model.A, model.Y, model.mass, model.com
    for i in range(model.n):
        p = model.parent[i]
        table.add_row(str(i), model.joint_names[i], model.joint_types[i],
                      model.link_names[p] if p >= 0 else model.root_link, model.link_names[i],
                      _vec(model.X[i]), _vec(Y[i]), _vec(A[i, :3, 3]), f"{mass[i]:.5g}",
                      _vec(com[i]))
    return table


def model_json(model: Model) -> str:
    """Everything ``hodyn info`` knows about a model, as stable-keyed JSON."""
    A, Y = model.A, model.Y
    data = {
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
                "Y": Y[i].tolist(),
                "mass": float(model.mass[i]),
                "com": model.com[i].tolist(),
                "inertia": model.M[i].tolist(),
            }
            for i in range(model.n)
        ],
        "links": {name: {"body": f.body, "T": f.T.tolist()} for name, f in model.links.items()},
        "diagnostics": [{"level": d.level, "message": d.message} for d in model.diagnostics],
    }
    return json.dumps(data, indent=2)
