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
from pathlib import Path

from hodyn_cli.errors import HodynError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["joint_sections"]


def joint_sections(path: str | Path, what: str) -> dict:
    """The ``[joints.<name>]`` sections of the ``what`` file at ``path`` (``drives``,
    ``limits``): its only top-level table, not empty."""
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
    unknown = sorted(set(doc) - {"joints"})
    if unknown:
        raise HodynError(f"unknown top-level key '{unknown[0]}' (expected [joints.<name>] "
                         "sections)", source)
    if not doc.get("joints"):
        raise HodynError(f"no {what}: expected [joints.<name>] sections", source)
    return doc["joints"]
