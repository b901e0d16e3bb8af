"""``hodyn``: the typer application. Each command parses its arguments, calls the library,
renders (commands in :mod:`hodyn_cli.cli.dynamics`, :mod:`~hodyn_cli.cli.motion`,
:mod:`~hodyn_cli.cli.data`, :mod:`~hodyn_cli.cli.checks`; shared options and the preamble in
:mod:`~hodyn_cli.cli.options` and :mod:`~hodyn_cli.cli.session`; exit codes in
:mod:`~hodyn_cli.cli.errors`). Importing it imports no numpy: ``hodyn --help`` stays fast."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from hodyn_cli import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  pretty_exceptions_enable=False,
                  help="Joint torques of a prescribed motion and their time derivatives.")


def version_callback(value: bool) -> None:
    if value:
        from hodyn_cli.algorithms.methods import _compiled

        print(f"hodyn {__version__} ({_compiled.describe()})")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[bool, typer.Option("--version", callback=version_callback,
                                          is_eager=True, help="Print the version.")] = False,
) -> None:
    """hodyn: higher-order inverse dynamics (tau, taud, taudd, ...) from URDF + trajectory."""


def main() -> None:
    from hodyn_cli.cli.errors import run

    sys.exit(run(app))


# the commands register themselves on ``app``
from hodyn_cli.cli import checks, data, dynamics, feasibility, motion  # noqa: E402, F401
