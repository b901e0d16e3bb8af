"""A command's output files, held under their temporary names until the command ends.

A command's run (:func:`hodyn_cli.cli.errors.run`) holds the outputs its main thread
finishes (:func:`hodyn_cli.io.paths.atomic_path`) until its last act, the ``commit()`` of
:func:`held_outputs`, renames them all into place; left without it (an error, a signal)
they are removed, every existing output untouched. An output renamed as soon as it was
written, with the command still running, was left complete over the previous one by a
signal that stopped the command after it (exit 143: the status said stopped, the output
said finished). A batch's outputs, finished on its threads, are renamed as each finishes:
kept when a signal stops the batch, and named (docs/scale.md). Outside a command (the
library called directly), every output is renamed when finished.

Imports no numpy: the command line's start (``hodyn --help``) imports it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hodyn_cli.errors import cannot_write

__all__ = ["hold", "rename", "held_outputs"]

#: the finished outputs of the command being run, ``(temporary, path)``, not yet in place;
#: None: no command is running (:func:`held_outputs`)
_held: list[tuple[str, str]] | None = None


def hold(tmp: str, path: str) -> bool:
    """Keep the finished temporary file ``tmp`` of ``path`` for the command's end: True
    where a command runs and this is its main thread (the caller leaves ``tmp`` alone),
    False elsewhere (the caller renames it now)."""
    if _held is None or threading.current_thread() is not threading.main_thread():
        return False
    _held.append((tmp, path))
    return True


def rename(tmp: str, path: str) -> None:
    """The finished temporary file ``tmp`` in place at ``path``, with a new file's
    permissions whatever created it (0666 less the umask)."""
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as e:
        raise cannot_write(path, e) from None


@contextmanager
def held_outputs() -> Iterator[Callable[[], None]]:
    """A command's run: the outputs finished inside it are held (:func:`hold`) until the
    ``commit()`` it yields renames them into place; those left when it ends are removed.
    On the main thread only (where the signals land): a command run on another thread
    holds nothing, or the main thread's own outputs, an application's through the library
    meanwhile, were held for that command and removed when it failed."""
    global _held
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return
    outer, _held = _held, []
    held = _held

    def commit() -> None:
        # several outputs (identify's URDF, drives and report) have no atomic rename together:
        # one that fails (exit 2) leaves those renamed before it in place, the rest removed
        while held:
            rename(*held.pop(0))

    try:
        yield commit
    finally:
        _held = outer
        for tmp, _ in held:
            if os.path.exists(tmp):
                os.unlink(tmp)
