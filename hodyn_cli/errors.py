"""Errors the library raises for bad input.

Every one carries a single line of text that names the file, the joint, link or
column, and what is wrong; the command line prints it and exits with status 2.
"""

from __future__ import annotations

import os
import re


class HodynError(Exception):
    """Bad input: a one-line, user-facing description of what is wrong."""

    def __init__(self, message: str, source: str | None = None):
        self.message, self.source = message, source
        super().__init__(f"{source}: {message}" if source else message)


def install_hint(extra: str) -> str:
    """How to install one of hodyn's extras: from its checkout (hodyn is not on PyPI, so
    ``pip install "hodyn[extra]"`` finds nothing).

    >>> print(install_hint("ros"))
    pip install -e ".[ros]" in hodyn's checkout
    """
    return f'pip install -e ".[{extra}]" in hodyn\'s checkout'


class ModelError(HodynError):
    """The robot description (URDF) cannot be turned into a model."""


class TrajectoryError(HodynError):
    """A trajectory or wrench file is malformed or does not fit the model."""


class Infeasible(HodynError):
    """No time scaling makes the motion feasible (a limit it exceeds at any speed): a verdict
    on the motion (``hodyn check``/``retime`` print it as a failed check), not bad input."""


class MissingDerivatives(TrajectoryError):
    """A trajectory file has every joint's position but not the derivatives a command needs
    (what ``--estimate-derivatives`` can supply; a missing position it cannot)."""


def os_reason(e: OSError) -> str:
    """What the system said, in its words: ``strerror``, or the errno named in an HDF5
    library message (h5py raises OSError with the whole HDF5 error stack as text).

    >>> import errno
    >>> os_reason(OSError(errno.ENOSPC, "No space left on device"))
    'No space left on device'
    >>> os_reason(OSError("Can't write data (file write failed: errno = 27, error message = ...)"))
    'File too large'
    """
    if e.strerror:
        return e.strerror
    found = re.search(r"errno = (\d+)", str(e))
    if found:
        return os.strerror(int(found.group(1)))
    return str(e).split("\n")[0]


def cannot_write(path: str, e: OSError) -> HodynError:
    """The one line for an output the system refused (permissions, a full disk, a file-size
    limit, a read-only file system): the user's environment, not a bug."""
    return HodynError(f"cannot write: {os_reason(e)}", "standard output" if path == "-" else path)
