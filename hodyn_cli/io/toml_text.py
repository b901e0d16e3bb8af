"""TOML text of the tables hodyn writes (drives and limits files: ``identify``'s drives,
``info --drives-toml/--limits-toml``): the standard library reads TOML but does not write it.

>>> print(to_toml({"joints": {"j1": {"gear_ratio": 100, "viscous": 0.5, "name": "a b"}}},
...               "# a header"), end="")
# a header
<BLANKLINE>
[joints.j1]
gear_ratio = 100
viscous = 0.5
name = "a b"
"""

from __future__ import annotations

import json
from typing import Any

from hodyn_cli.errors import HodynError

__all__ = ["to_toml"]


def to_toml(table: dict, header: str = "") -> str:
    """A TOML document of nested tables of numbers, strings, booleans and lists of them (what
    drives and limits files hold)."""
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(float(v)) if isinstance(v, float) else str(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list | tuple):
            return "[" + ", ".join(value(x) for x in v) + "]"
        raise HodynError(f"cannot write {type(v).__name__} to TOML")

    def key(k: str) -> str:
        return k if k.replace("_", "").replace("-", "").isalnum() else json.dumps(k)

    lines = [header] if header else []

    def table_lines(path: list[str], t: dict) -> None:
        plain = {k: v for k, v in t.items() if not isinstance(v, dict)}
        if plain or not path:
            if path:
                lines.append(f"\n[{'.'.join(key(p) for p in path)}]")
            lines.extend(f"{key(k)} = {value(v)}" for k, v in plain.items())
        for k, v in t.items():
            if isinstance(v, dict):
                table_lines([*path, k], v)

    table_lines([], table)
    return "\n".join(lines).lstrip("\n") + "\n"
