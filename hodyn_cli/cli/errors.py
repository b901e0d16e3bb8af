"""The one place where failures become exit statuses.

0 success; 1 a validation that ran and failed; 2 bad usage or bad input (one line on
stderr, no traceback unless ``--debug``); 3 an internal error (a bug in hodyn); 141 the
reader of our output went away (``| head``): quiet, the status a shell gives a command
ended by SIGPIPE.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from hodyn_cli.errors import HodynError

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_PIPE = 0, 1, 2, 3, 141


def closed_pipe() -> int:
    """stdout's reader is gone: send what is still buffered nowhere, end quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_PIPE


def run(app, args=None) -> int:
    """Run the typer app; usage errors (bad option values, unknown options) become the same
    one line as every other error, a closed stdout a quiet exit."""
    try:
        code = app(args=args, prog_name="hodyn", standalone_mode=False)
        sys.stdout.flush()  # inside the guard: the reader may go away during the last flush
    except BrokenPipeError:
        return closed_pipe()
    except typer.Abort:
        print("hodyn: aborted", file=sys.stderr)
        return 130
    except Exception as e:
        # click's usage errors (typer may vendor its own click: known by behaviour, not class)
        if type(e).__name__ == "NoArgsIsHelpError" and getattr(e, "ctx", None) is not None:
            print(e.ctx.get_help())
            return EXIT_OK
        if getattr(e, "exit_code", None) == EXIT_BAD_INPUT and hasattr(e, "format_message"):
            print(f"hodyn: error: {e.format_message()}", file=sys.stderr)
            return EXIT_BAD_INPUT
        raise
    return code if isinstance(code, int) else EXIT_OK


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
    except BrokenPipeError:
        raise typer.Exit(closed_pipe()) from None
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception as e:  # noqa: BLE001 - the last line of defence against tracebacks
        if debug:
            raise
        print(f"hodyn: internal error: {type(e).__name__}: {e} (run with --debug for the "
              "traceback)", file=sys.stderr)
        raise typer.Exit(EXIT_INTERNAL) from None
