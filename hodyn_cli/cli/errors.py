"""The one place where failures become exit statuses (SPEC.md, "Command line").

0 success; 1 a validation that ran and failed; 2 bad usage or bad input (one line on
stderr, no traceback unless ``--debug``); 3 an internal error (a bug in hodyn).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from hodyn_cli.errors import HodynError

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


@contextmanager
def mapped_errors(debug: bool) -> Iterator[None]:
    """Turn library exceptions into one stderr line and an exit status."""
    try:
        yield
    except HodynError as e:
        if debug:
            raise
        print(f"hodyn: error: {e}", file=sys.stderr)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception as e:  # noqa: BLE001 - the last line of defence against tracebacks
        if debug:
            raise
        print(f"hodyn: internal error: {type(e).__name__}: {e} (run with --debug for the "
              "traceback)", file=sys.stderr)
        raise typer.Exit(EXIT_INTERNAL) from None
