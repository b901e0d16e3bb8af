"""The one place where failures become exit statuses.

0 success; 1 a validation that ran and failed; 2 bad usage or bad input (one line on
stderr, no traceback unless ``--debug``, which prints it above that line and keeps the
status: a script's test of the status must not depend on ``--debug``); 3 an internal error
(a bug in hodyn); 141 the reader of our output went away (``| head``): quiet, the status a
shell gives a command ended by SIGPIPE; 130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: stopped, after
the same clean-up as an error (threads ended, no partial output file).
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer

from hodyn_cli.capabilities import Unsupported
from hodyn_cli.cli.flags import FLAGS
from hodyn_cli.errors import HodynError
from hodyn_cli.outputs import held_outputs
from hodyn_cli.pipeline import stop

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_PIPE = 0, 1, 2, 3, 141


def closed_pipe() -> int:
    """stdout's reader is gone: send what is still buffered nowhere, end quietly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return EXIT_PIPE


class Terminated(BaseException):
    """A termination signal arrived (not an Exception: no ``except Exception`` in the library
    swallows it; every ``finally`` on the way out runs). ``left``: what the stopped run
    leaves behind, where it leaves something (a batch's finished outputs)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum
        self.left = ""


def _terminate(signum: int, frame) -> None:
    stop.interrupt(Terminated(signum))


#: signals that end a run the way an error does, with the same clean-up (Python's default
#: would end the process at once: a temporary output file left behind, threads killed
#: mid-write; its KeyboardInterrupt could land inside a thread pool's lock)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run(app, args=None, *, last: bool = False) -> int:
    """Run the typer app; usage errors (bad option values, unknown options) become the same
    one line as every other error, a closed stdout a quiet exit, a termination signal an
    orderly stop. Its output files go into place as its last act (exit 0 or 1: finished),
    after which a signal changes nothing (:func:`_finish`); ``last``: the process ends with
    this run (``python -m hodyn_cli``): the signals stay ignored until it has exited (a
    SIGTERM there, with Python's default action back, ended a finished run with 143)."""
    main = threading.current_thread() is threading.main_thread()  # (signals go only there)
    previous = {sig: signal.signal(sig, _terminate) for sig in STOP_SIGNALS} if main else {}
    code = EXIT_INTERNAL
    try:
        with held_outputs() as commit:
            code = _run(app, args, lambda: _finish(commit, main))
        return code
    finally:
        if not (last and code in FINISHED):
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        stop.reset()


#: the exit statuses of a command that ran to its end: its outputs are kept
FINISHED = (EXIT_OK, EXIT_FAILED)


def _finish(commit: Callable[[], None], main: bool) -> None:
    """The command has finished: from here a signal is ignored (it came after the work, as
    if after the exit), then its outputs are renamed into place. A signal before this stops
    the command with every output discarded, an existing one untouched; after it, the
    status is the command's, its outputs complete (where the rename was the command's
    first act after writing, a signal in its remaining milliseconds, a notice's, left the
    output complete, over the previous one, with exit 143)."""
    if main:
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
    commit()


def _run(app, args, finish: Callable[[], None]) -> int:
    try:
        code = app(args=args, prog_name="hodyn", standalone_mode=False)
        sys.stdout.flush()  # inside the guard: the reader may go away during the last flush
        code = code if isinstance(code, int) else EXIT_OK
        if code in FINISHED:
            finish()
    except BrokenPipeError:
        return closed_pipe()
    except OSError as e:  # the last flush of stdout failed (a full disk, /dev/full)
        closed_pipe()
        print(f"hodyn: error: standard output: cannot write: {e.strerror or e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except typer.Abort:
        print("hodyn: aborted", file=sys.stderr)
        return 130
    except Terminated as e:
        left = f": {e.left}" if e.left else ""
        print(f"hodyn: stopped by {signal.Signals(e.signum).name}{left}", file=sys.stderr)
        return 128 + e.signum
    except HodynError as e:  # an output that cannot be renamed into place (finish)
        print(f"hodyn: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as e:
        # click's usage errors (typer may vendor its own click: known by behaviour, not class)
        if type(e).__name__ == "NoArgsIsHelpError" and getattr(e, "ctx", None) is not None:
            print(e.ctx.get_help())  # type: ignore[attr-defined]  # checked just above
            return EXIT_OK
        if getattr(e, "exit_code", None) == EXIT_BAD_INPUT and hasattr(e, "format_message"):
            print(f"hodyn: error: {e.format_message()}", file=sys.stderr)
            return EXIT_BAD_INPUT
        raise
    return code


#: what the system refuses because of the user's environment, never because of a bug:
#: permissions, a read-only or full file system, a quota, a file-size limit, open files
ENVIRONMENT = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EFBIG,
               errno.EMFILE, errno.ENFILE}


@contextmanager
def mapped_errors(debug: bool) -> Iterator[None]:
    """Turn library exceptions into one stderr line and an exit status."""
    try:
        yield
    except HodynError as e:
        _traceback(debug)
        if isinstance(e, Unsupported):  # said with the command line's options
            e = e.worded(FLAGS)
        if e.source == "standard output":  # what is still buffered cannot go out either
            closed_pipe()
        print(f"hodyn: error: {e}", file=sys.stderr)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except BrokenPipeError:
        raise typer.Exit(closed_pipe()) from None
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception as e:  # noqa: BLE001 - the last line of defence against tracebacks
        _traceback(debug)
        if isinstance(e, OSError) and e.errno in ENVIRONMENT:
            where = f"{e.filename}: " if e.filename else ""
            print(f"hodyn: error: {where}{e.strerror}", file=sys.stderr)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        hint = "" if debug else " (run with --debug for the traceback)"
        print(f"hodyn: internal error: {type(e).__name__}: {e}{hint}", file=sys.stderr)
        raise typer.Exit(EXIT_INTERNAL) from None


def _traceback(debug: bool) -> None:
    """``--debug``: the traceback of the exception being handled, on stderr, before its line."""
    if debug:
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()
