"""A small on-disk cache of built models, keyed by the URDF's sha256 and hodyn's version.

Building a model needs yourdfpy, whose import of trimesh costs about a second; the cache
keeps ``hodyn compute`` on a small file well under that after the first run. The key also
holds a hash of the model-building source files, so edited code never reads a stale entry.
Entries are plain ``.npz`` files (no pickle) in ``$HODYN_CACHE_DIR``, else
``$XDG_CACHE_HOME/hodyn``, else ``~/.cache/hodyn``; ``HODYN_NO_CACHE=1`` turns the cache off.
The cache is only an optimization: any failure to read or write it is ignored and the URDF
is parsed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

from hodyn_cli import __version__
from hodyn_cli.model import Diagnostic, LinkFrame, Model

__all__ = ["cache_dir", "load", "store"]

FORMAT = 5
BUILDERS = ("urdf.py", "model.py", "lie.py", "model_cache.py")  # sources the key depends on


def cache_dir() -> Path | None:
    """Where entries live, or None when the cache is turned off."""
    if os.environ.get("HODYN_NO_CACHE"):
        return None
    if os.environ.get("HODYN_CACHE_DIR"):
        return Path(os.environ["HODYN_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "hodyn"


@cache
def _builder_hash() -> str | None:
    """Hash of the code that builds models (None if unreadable: then no caching)."""
    h = hashlib.sha256()
    try:
        for name in BUILDERS:
            h.update((Path(__file__).parent / name).read_bytes())
    except OSError:
        return None
    return h.hexdigest()[:16]


def _entry(sha256: str) -> Path | None:
    d, code = cache_dir(), _builder_hash()
    if d is None or code is None:
        return None
    return d / f"model-{sha256}-{__version__}-{FORMAT}-{code}.npz"


def load(sha256: str) -> Model | None:
    """The cached model built from a URDF with this hash, or None."""
    path = _entry(sha256)
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            links = {name: LinkFrame(int(b), T.copy())
                     for name, b, T in zip(meta["links"], z["link_body"], z["link_T"], strict=True)}
            return Model(
                name=meta["name"], root_link=meta["root_link"],
                joint_names=tuple(meta["joint_names"]), joint_types=tuple(meta["joint_types"]),
                link_names=tuple(meta["link_names"]), parent=z["parent"].copy(), B=z["B"].copy(),
                X=z["X"].copy(), M=z["M"].copy(), limits=z["limits"].copy(), links=links,
                root_M=z["root_M"].copy(),
                parent_links=tuple(meta["parent_links"]), reductions=z["reductions"].copy(),
                velocity_limits=z["velocity_limits"].copy(), mimic=z["mimic"].copy(),
                diagnostics=tuple(Diagnostic(*d) for d in meta["diagnostics"]),
                source_sha256=sha256)
    except (OSError, KeyError, ValueError, TypeError):
        return None


def store(model: Model) -> None:
    """Save a model (best effort: errors are ignored)."""
    path = _entry(model.source_sha256)
    if path is None or not model.source_sha256:
        return
    meta = {"name": model.name, "root_link": model.root_link,
            "joint_names": list(model.joint_names), "joint_types": list(model.joint_types),
            "link_names": list(model.link_names), "links": list(model.links),
            "parent_links": list(model.parent_links),
            "diagnostics": [[d.level, d.message] for d in model.diagnostics]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz.tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, meta=np.array(json.dumps(meta)), parent=model.parent, B=model.B,
                     X=model.X, M=model.M, limits=model.limits, reductions=model.reductions,
                     root_M=model.root_M,
                     velocity_limits=model.velocity_limits, mimic=model.mimic,
                     link_body=np.array([lf.body for lf in model.links.values()], dtype=int),
                     link_T=np.array([lf.T for lf in model.links.values()]))
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
