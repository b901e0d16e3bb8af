"""``.xacro`` robots expanded into URDF text by the ``xacro`` package, in a child process
bounded in time and memory.

A xacro file is a program: a macro that calls another twice, a few dozen deep, expands
exponentially, and an expression such as ``${9**9**9**9}`` never ends. Neither can be
stopped from inside the process that runs it (a big-integer power holds the interpreter), so
the expansion runs in a child Python process that is killed after :data:`SECONDS` seconds,
may use at most :data:`MEMORY` bytes, and whose expanded text may be at most :data:`LARGEST`
bytes (docs/conventions.md). Real robots expand in well under a second.

What xacro prints (its warnings, and the location lines it adds to an error) is caught
there: an error becomes one line, the warnings come back as text.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from hodyn_cli.errors import ModelError

__all__ = ["expand", "SECONDS", "MEMORY", "LARGEST"]

#: the longest an expansion may take (s); the robots of ROS packages take < 1 s
SECONDS = 20.0
#: the address space of the child process (bytes)
MEMORY = 2 << 30
#: the largest expanded URDF text (bytes): ~100x a humanoid's
LARGEST = 64 << 20


def expand(path: Path, args: dict[str, str]) -> tuple[bytes, list[str]]:
    """The URDF text of the xacro file at ``path`` (``args``: its ``name:=value``
    arguments) and xacro's warnings, one line each; a :class:`ModelError` naming the file if
    it cannot be expanded, or not within the bounds."""
    source = str(path)
    if not path.is_file():
        raise ModelError("cannot read xacro: no such file", source)
    request = json.dumps({"path": source, "args": args, "memory": MEMORY, "largest": LARGEST})
    package = str(Path(__file__).resolve().parents[2])  # hodyn_cli's folder, also uninstalled
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))}
    try:
        done = subprocess.run([sys.executable, "-m", __name__], input=request.encode(),
                              capture_output=True, timeout=SECONDS, env=env, check=False)
    except subprocess.TimeoutExpired:
        raise ModelError(f"xacro expansion stopped after {SECONDS:g} s (the bound; a macro "
                         "that expands exponentially, or an expression that does not end?)",
                         source) from None
    try:
        reply = json.loads(done.stdout)
    except ValueError:  # killed (out of memory beyond the bound), or xacro broke its child
        why = " ".join(done.stderr.decode(errors="replace").split()[-30:]) or \
            f"exit status {done.returncode}"
        raise ModelError(f"xacro expansion failed: {why}", source) from None
    if "error" in reply:
        raise ModelError(f"xacro expansion failed: {reply['error']}", source)
    return reply["urdf"].encode(), reply["warnings"]


def message(e: BaseException) -> str:
    """One line from an exception xacro raised: its message, the message of what it wraps
    and its context (``when evaluating expression ...``), each once.

    >>> import xacro
    >>> inner = NameError("name 'x' is not defined")
    >>> message(xacro.XacroException(f"{type(inner)}: {inner}", exc=inner,
    ...                              suffix="\\nwhen evaluating expression 'x'"))
    "name 'x' is not defined when evaluating expression 'x'"
    """
    parts: list[str] = []
    suffixes: list[str] = []
    for x in _chain(e):
        text = " ".join(str(x.args[0] if x.args else "").split()) if _wraps(x) else \
            " ".join(str(x).split())
        if text and text != "None":
            parts.append(text)
        if getattr(x, "suffix", None):
            suffixes.insert(0, " ".join(str(getattr(x, "suffix", "")).split()))
    # a wrapper that repeats what it wraps ("<class ...>: text" around "text") adds nothing,
    # nor does a part said before (an OSError's "[Errno 2] No such file or directory: 'f'"
    # inside "No such file or directory: f")
    bare = [re.sub(r"\[Errno \d+\] |'", "", p) for p in parts]
    kept = [p for k, p in enumerate(parts)
            if not any(bare[j] in bare[k] != bare[j] for j in range(k + 1, len(parts)))
            and bare[k] not in bare[:k]]
    return " ".join(kept + suffixes) or "xacro failed"


def _wraps(e: BaseException) -> bool:
    """An exception of xacro's that carries another (its ``exc``)."""
    return hasattr(e, "exc") and hasattr(e, "suffix")


def _chain(e: BaseException | None) -> Iterator[BaseException]:
    """``e`` and what it wraps, outermost first."""
    while e is not None:
        yield e
        e = getattr(e, "exc", None) if _wraps(e) else None


def warnings(printed: str) -> list[str]:
    """xacro's warnings, one line each, from what it printed (``warning: ...`` followed by
    lines of context: where it was, which macro).

    >>> warnings("warning: redefining global symbol: len\\nwhen processing file: r.xacro\\n")
    ['redefining global symbol: len (when processing file: r.xacro)']
    """
    out: list[list[str]] = []
    for line in printed.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("warning:") or not out:
            out.append([line.removeprefix("warning:").strip()])
        else:
            out[-1].append(line)
    return [w[0] + (f" ({'; '.join(w[1:])})" if w[1:] else "") for w in out]


def _child() -> None:
    """The child process: the request on stdin, the reply (JSON) on stdout."""
    import io
    import resource
    import signal
    from contextlib import redirect_stderr, redirect_stdout

    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the child quietly
    request = json.loads(sys.stdin.read())
    resource.setrlimit(resource.RLIMIT_AS, (request["memory"], request["memory"]))
    printed = io.StringIO()
    reply: dict
    try:
        import xacro

        _name_substitutions(xacro)
        with redirect_stderr(printed), redirect_stdout(printed):
            text = xacro.process_file(request["path"], mappings=request["args"]).toxml()
        if len(text) > request["largest"]:
            reply = {"error": f"the expanded URDF has {len(text):,} bytes, more than the "
                              f"bound of {request['largest']:,}"}
        else:
            reply = {"urdf": text, "warnings": warnings(printed.getvalue())}
    except Exception as e:  # noqa: BLE001 - xacro raises many kinds; all mean a bad file
        kinds = {type(x) for x in _chain(e)}  # (xacro wraps what an expression raised)
        reply = {"error": f"out of memory (the bound is {request['memory'] / 2**30:g} GB)"
                 if MemoryError in kinds else "maximum recursion depth exceeded (a macro that "
                 "calls itself?)" if RecursionError in kinds else message(e)}
    sys.stdout.write(json.dumps(reply))


def _name_substitutions(xacro) -> None:
    """Make xacro say which ``$(...)`` needs ROS (``$(find pkg)``: a ROS workspace's package
    paths, which xacro looks up with ROS's own Python packages); it says only which Python
    package it could not import."""
    original = xacro.eval_extension

    def eval_extension(text):
        try:
            return original(text)
        except xacro.XacroException as e:
            if not isinstance(e.exc, ImportError):
                raise
            raise xacro.XacroException(
                f"{text} needs a ROS workspace (ROS's package paths), which hodyn does not "
                "use: expand the robot there (xacro robot.xacro > robot.urdf) and give hodyn "
                "the URDF") from None

    xacro.eval_extension = eval_extension


if __name__ == "__main__":
    _child()
