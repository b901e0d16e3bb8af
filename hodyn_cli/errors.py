"""Errors the library raises for bad input.

Every one carries a single line of text that names the file, the joint, link or
column, and what is wrong; the command line prints it and exits with status 2.
"""


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
