"""Whether a robot file is MJCF (its root element ``<mujoco>``), without the MJCF reader:
every robot file is asked this, and a URDF's load should not import the reader
(:mod:`~hodyn_cli.modeling.mjcf`, ~20 ms of start-up) to answer no."""

from __future__ import annotations

import re

__all__ = ["MJCF_ROOT", "is_mjcf"]

MJCF_ROOT = "mujoco"


def is_mjcf(data: bytes) -> bool:
    """True when XML text's root element is ``<mujoco>`` (looked for in its first 64 kB,
    after the prolog and comments)."""
    head = re.sub(rb"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", b"", data[:65536], flags=re.S)
    match = re.search(rb"<\s*([A-Za-z_][\w.-]*)", head)
    return match is not None and match.group(1) == MJCF_ROOT.encode()
