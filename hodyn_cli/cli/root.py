"""The ``hodyn`` command group the commands register on (:mod:`hodyn_cli.cli.app` assembles
them): its help and ``--version``."""

from __future__ import annotations

from typing import Annotated

import typer

from hodyn_cli import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  pretty_exceptions_enable=False,
                  help="Joint torques of a prescribed motion and their time derivatives.")


def version_callback(value: bool) -> None:
    if value:
        from hodyn_cli import api

        print(f"hodyn {__version__} ({api.backend()})")
        raise typer.Exit()


@app.callback()
def main_callback(
    version: Annotated[bool, typer.Option("--version", callback=version_callback,
                                          is_eager=True, help="Print the version.")] = False,
) -> None:
    """hodyn: higher-order inverse dynamics (tau, taud, taudd, ...) from URDF + trajectory."""
