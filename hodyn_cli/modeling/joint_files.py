"""The TOML files that say something per joint (drives files, limits files): read once, the
same one-line errors for both.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "drives.toml"
>>> _ = path.write_text("[joints.joint1]\\ngear_ratio = 100\\n")
>>> joint_sections(path, "drives")
{'joint1': {'gear_ratio': 100}}
>>> _ = path.write_text("[joint.joint1]\\ngear_ratio = 100\\n")
>>> joint_sections(path, "drives")
Traceback (most recent call last):
hodyn_cli.errors.HodynError: ...: unknown top-level key 'joint' (expected [joints.<name>] sections)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["joint_sections", "joint_entries", "sections"]


def joint_sections(path: str | Path, what: str) -> dict:
    """The ``[joints.<name>]`` sections of the ``what`` file at ``path`` (``drives``,
    ``limits``): its only top-level table, not empty."""
    return sections(path, what, "joints")


def sections(path: str | Path, what: str, key: str) -> dict:
    """The ``[<key>.<name>]`` sections of the ``what`` file at ``path``: its only top-level
    table, not empty (``[joints.<name>]`` of drives and limits files, ``[contacts.<name>]``)."""
    source = str(path)
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise HodynError(f"cannot read {what} file: {getattr(e, 'strerror', None) or e}",
                         source) from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise HodynError(f"not valid TOML: {e}", source) from None
    unknown = sorted(set(doc) - {key})
    if unknown:
        raise HodynError(f"unknown top-level key '{unknown[0]}' (expected [{key}.<name>] "
                         "sections)", source)
    if not doc.get(key):
        raise HodynError(f"no {what}: expected [{key}.<name>] sections", source)
    return doc[key]


def joint_entries(model: Model, table, keys: Sequence[str], what: str, source: str | None
                  ) -> Iterator[tuple[int, str, Mapping]]:
    """``(joint index, "joint '<name>'", entry)`` of every section of ``table`` (``{joint:
    {key: value}}``), each checked: a joint of the model (a locked one is named as such), a
    table of ``keys`` only."""
    if not isinstance(table if table is not None else {}, Mapping):
        raise HodynError("'joints' must be a table of [joints.<name>] sections", source)
    for name, entry in (table or {}).items():
        if name in model.locked:
            raise HodynError(f"joint '{name}': it is locked (--lock), so its {what} does "
                             "nothing: leave the joint free or its section out", source)
        if name not in model.joint_names:
            raise HodynError(f"joint '{name}': the model has no such joint (joints: "
                             f"{', '.join(model.joint_names)})", source)
        label = f"joint '{name}'"
        if not isinstance(entry, Mapping):
            raise HodynError(f"{label}: expected a table of {', '.join(keys)}", source)
        unknown = sorted(set(entry) - set(keys))
        if unknown:
            raise HodynError(f"{label}: unknown key '{unknown[0]}' (keys: {', '.join(keys)})",
                             source)
        yield model.joint_index(name), label, entry
