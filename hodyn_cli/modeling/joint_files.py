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
>>> _ = path.write_text("[joints.joint1]\\ngear_ratio = 1\\ngear_ratio = 2\\n")
>>> joint_sections(path, "drives")
Traceback (most recent call last):
hodyn_cli.errors.HodynError: ...: not valid TOML: Cannot overwrite a value (... 'gear_ratio = 2')
>>> in_range(1e30), in_range(0.0), in_range(1e31), in_range(1e-31)
(True, True, False, False)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType

from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError

__all__ = ["joint_sections", "joint_entries", "sections", "in_range", "out_of_range",
           "LARGEST", "SMALLEST", "toml_parser"]

#: the magnitudes a number in a drives, limits or contacts file (and an option such as
#: ``retime --factor``) may have, 0 aside. The higher-order terms multiply up to about ten
#: such numbers (rotor inertia, gear ratio squared, velocities, ...), and 1e30**10 = 1e300 is
#: still a float64 (at most 1.8e308): beyond, a result overflows to inf (and inf - inf to
#: NaN). A value outside is refused where it is read, naming it, instead.
LARGEST, SMALLEST = 1e30, 1e-30


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
    except OSError as e:
        raise HodynError(f"cannot read {what} file: {e.strerror or e}", source) from None
    except UnicodeDecodeError as e:
        line = Path(path).read_bytes()[: e.start].count(b"\n") + 1
        raise HodynError(f"line {line} is not UTF-8 text", source) from None
    tomllib = toml_parser()
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise HodynError(f"not valid TOML: {_quoted(str(e), text)}", source) from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise HodynError("not valid TOML for hodyn: arrays or tables nested too deeply",
                         source) from None
    unknown = sorted(set(doc) - {key})
    if unknown:
        raise HodynError(f"unknown top-level key '{unknown[0]}' (expected [{key}.<name>] "
                         "sections)", source)
    if not doc.get(key):
        raise HodynError(f"no {what}: expected [{key}.<name>] sections", source)
    return doc[key]


def toml_parser() -> ModuleType:
    """tomllib (tomli before Python 3.11), imported where a TOML file is read: at the top of
    this module, every command that reads none paid for it (~4 ms of each start)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


def _quoted(message: str, text: str) -> str:
    """tomllib's message with the line it names quoted (it names no key)."""
    found = re.search(r"\(at line (\d+), column \d+\)$", message)
    lines = text.splitlines()
    if not found or not 0 < int(found.group(1)) <= len(lines):
        return message
    line = lines[int(found.group(1)) - 1].strip()
    return f"{message[:-1]}: {line[:60]!r})" if line else message


def in_range(value: float) -> bool:
    """``value`` is 0 or its magnitude lies in [:data:`SMALLEST`, :data:`LARGEST`]."""
    return value == 0 or SMALLEST <= abs(value) <= LARGEST


def out_of_range(what: str, value: float, source: str | None) -> HodynError:
    """The error for a number outside :func:`in_range` (``what``: where it is, e.g. "joint
    'j1': 'gear_ratio'")."""
    if value != value:  # NaN
        return HodynError(f"{what} = nan is not a number", source)
    return HodynError(f"{what} = {value!r} is beyond the magnitudes hodyn computes with, "
                      f"{SMALLEST:g} .. {LARGEST:g} (or 0): float64 would overflow"
                      .replace("e+", "e"), source)


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
