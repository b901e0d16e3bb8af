"""``hodyn`` for the documented commands' shells without a Python start and the library's
imports per command: a server that imported them once forks a process per command.

The documented commands (tests/test_documented_commands.py) run ~125 ``hodyn`` commands in
bash; each started Python and imported typer, numpy, h5py, scipy's modules and hodyn's own
(~0.25-1.3 s of CPU a command, most of the cheap ones' cost). What those tests prove is what
the commands do, not Python's start, so there ``hodyn`` on the PATH is :data:`CLIENT`: a
small stdlib-only Python (``-I -S``: no site-packages, ~15 ms) that hands the server its
arguments, working directory, environment and its standard input, output and error (the file
descriptors themselves, so pipes, redirections and terminals are the shell's own), and exits
with the status of the process the server forked for it (a signal's death as that signal).

The server forks once per command (an intermediate that waits for it and reports), so each
command runs in a fresh copy of a process that has only imported modules: no state of an
earlier command reaches it. Where the command's environment differs from the server's in a
variable read at import time (:data:`WATCHED`: ``HODYN_KERNEL=...``, the BLAS threads) the
client runs the real ``hodyn`` instead. Tests of the process itself (its start, imports,
signals, tracebacks) run ``sys.executable -m hodyn_cli`` or the installed script, as before.

The documentation's Python scripts (``python docs/examples/SCRIPT.py ARGS``: a log simulated,
a figure drawn; ~0.3 s of CPU each for Python's start and the numpy and hodyn imports) run
the same way: ``python`` there is the client too (:data:`PROGRAMS`), and the fork runs the
script as ``python SCRIPT.py`` would (:func:`_run_script`). Anything else given to that
``python`` (an option such as ``-c`` or ``-m``, no script) runs the real interpreter.

As the real process, in what a shell can see: the client holds SIGINT, SIGTERM and SIGHUP
from before its request until it knows the command's process, then sends them on (one that
came between ended the client alone, the command running on); a client that is killed
(SIGKILL) takes its command with it (:func:`_waited`); a fork ends as an interpreter's exit
ends a process (:func:`exit_as_python`: files left open flushed) and draws afresh what a
new process would (:func:`reseed`), but the hash seed of str and bytes, which every fork
shares with the server.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

#: the environment variables a module reads when it is imported (numpy's BLAS threads,
#: Python's own, hodyn's backend choice, JAX's): a command whose value differs runs the
#: real ``hodyn``
WATCHED = ("HODYN_", "OPENBLAS_", "OMP_", "MKL_", "PYTHON", "JAX_", "XLA_", "MALLOC_", "LC_",
           "LANG")

#: the server's environment as it started (the modules it imports set some variables:
#: hodyn_cli.cli sets the BLAS threads where the environment does not)
STARTED = dict(os.environ)

#: imported by the server, before any fork: the command line's app with every command
#: registered (in ``hodyn --help``'s order) and what commands import when they run; and
#: every module of hodyn's own (:func:`_library`), which the commands import as they run
#: (the URDF reader, the backends, the pipeline: ~130 modules a documented command, most of
#: a cheap one's cost through the server: 0.07 -> 0.015 s of CPU for ``compute`` of a
#: missing file, 0.14 -> 0.035 s for the 2R arm's; branch suite9)
PRELOAD = ("hodyn_cli.cli.app", "numpy", "h5py", "scipy.linalg", "scipy.optimize",
           "scipy.signal", "scipy.interpolate", "scipy.integrate", "scipy.sparse",
           "hodyn_cli.pipeline.files", "hodyn_cli.cli.session", "lxml.etree", "rich.console",
           "rich.table", "tomllib", "gzip", "concurrent.futures.thread")

#: hodyn's modules the server leaves to the commands: the GPU backend's (JAX: a command
#: chooses it), the compiled kernels (the one a command's CPU runs is chosen as it loads:
#: an AVX-512 build is not to be loaded where the CPU has none) and ``python -m``'s entry
LEFT = re.compile(r"(^|\.)(gpu|jax_passes|_kernel\w*|__main__)$")

#: the programs the client stands in for (each put first on the PATH) and the real one each
#: falls back to: the installed script, the interpreter itself
PROGRAMS = {"hodyn": Path(sys.executable).parent / "hodyn", "python": Path(sys.executable)}

#: the client put first on the PATH: {python}, {socket}, {real}, {program} filled in by
#: :func:`start`
CLIENT = r'''#!{python} -IS
"""{program} through tests/forked_hodyn.py's server (see there)."""
import json, os, signal, socket, sys

# the stop signals held from before the request until the command's pid is known, then
# sent on to it (one that came between ended only this client: the command ran on)
STOP = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
signal.pthread_sigmask(signal.SIG_BLOCK, STOP)
conn = socket.socket(socket.AF_UNIX)
conn.connect({socket!r})
message = json.dumps([{program!r}, sys.argv[1:], os.getcwd(), dict(os.environ)]).encode()
socket.send_fds(conn, [len(message).to_bytes(8, "little")], [0, 1, 2])
conn.sendall(message)
replies = conn.makefile("r")
first = replies.readline().split()
if first == ["fallback"]:  # (no command started: one held ends this client, as it would the real one)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP)  # (else kept across exec)
    os.execv({real!r}, [{real!r}, *sys.argv[1:]])
pid = int(first[1])


def forward(sig, _):
    try:
        os.kill(pid, sig)
    except ProcessLookupError:  # (it has ended: its status follows)
        pass


for sig in STOP:
    signal.signal(sig, forward)
signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP)
code = int(replies.readline().split()[1])
if code < 0:  # the command died of a signal: so does this process
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
'''


def client_text(sock: Path, real: Path, program: str = "hodyn") -> str:
    """:data:`CLIENT` of ``program`` (of :data:`PROGRAMS`) for the server listening at
    ``sock``, ``real`` the program it falls back to."""
    return (CLIENT.replace("{python}", sys.executable).replace("{socket!r}", repr(str(sock)))
            .replace("{real!r}", repr(str(real))).replace("{program!r}", repr(program))
            .replace("{program}", program))


def start(folder: Path, env: dict[str, str]) -> tuple[subprocess.Popen, Path]:
    """The server, started with ``env`` and ready, and a folder holding the client as
    ``hodyn`` and ``python`` (to put first on the PATH). Stop the server with
    ``terminate()``."""
    sock, shim = folder / "hodyn.sock", folder / "bin"
    shim.mkdir()
    for program, real in PROGRAMS.items():
        client = shim / program
        client.write_text(client_text(sock, real, program))
        client.chmod(0o755)
    server = subprocess.Popen([sys.executable, __file__, str(sock)], env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    while not sock.exists():  # (bound once its imports are done: ~2 s of CPU)
        if server.poll() is not None:
            raise RuntimeError(f"the hodyn server ended at its start ({server.returncode})")
        time.sleep(0.05)
    return server, shim


def _preload() -> None:
    """The modules of :data:`PRELOAD`, and a check that nothing a fork cannot copy started
    (a thread: a fork copies only the calling one) nor anything a command chooses once per
    process (the backend) was chosen."""
    import importlib
    import threading

    for name in PRELOAD:  # (the app first: it sets the BLAS threads before numpy loads)
        importlib.import_module(name)
    for name in _library():
        importlib.import_module(name)
    from hodyn_cli.algorithms import backends

    assert threading.active_count() == 1, threading.enumerate()
    if os.path.isdir("/proc/self/task"):  # (a library's own threads too: pyarrow starts two)
        assert len(os.listdir("/proc/self/task")) == 1, os.listdir("/proc/self/task")
    assert not backends._selected and not backends._LOADED, "a backend was chosen at import"
    assert "jax" not in sys.modules


def _library() -> list[str]:
    """The names of hodyn's modules but those of :data:`LEFT`."""
    import pkgutil

    import hodyn_cli

    return [info.name for info in pkgutil.walk_packages(hodyn_cli.__path__, "hodyn_cli.")
            if not LEFT.search(info.name)]


def is_script(argv: list[str], cwd: str) -> bool:
    """Whether ``python argv`` runs a script file with its arguments (what the server runs
    in a fork), not an option of the interpreter's (``-c``, ``-m``, ``-X``, ...) or nothing.

    >>> is_script([__file__, "-c"], "/"), is_script(["-c", "print()"], "/")
    (True, False)
    """
    return bool(argv) and argv[0].endswith(".py") and os.path.isfile(os.path.join(cwd, argv[0]))


def _run_command(fds: list[int], program: str, argv: list[str], cwd: str,
                 env: dict[str, str]) -> None:
    """In the forked process: the client's standard streams, directory and environment,
    then ``hodyn argv`` as its console script runs it (or ``python argv``'s script:
    :func:`_run_script`), and the exit a Python process makes (:func:`exit_as_python`; an
    exception that escapes: its traceback, status 1)."""
    import traceback

    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    reseed()
    code: int = 0
    try:
        if program == "python":
            _run_script(argv)
        else:
            sys.argv = [str(PROGRAMS["hodyn"]), *argv]
            from hodyn_cli.cli.app import main

            main()
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException as e:
        tb = e.__traceback__
        if program == "python":  # (from the script's frame on, as the interpreter prints it)
            while tb is not None and tb.tb_frame.f_code.co_filename != os.path.abspath(argv[0]):
                tb = tb.tb_next
        traceback.print_exception(type(e), e, tb)
        code = 1
    exit_as_python(code)


def _run_script(argv: list[str]) -> None:
    """``python SCRIPT ARGS`` in this process, as the interpreter runs it: the script's code
    as a fresh ``__main__`` (its ``__file__`` and code's file name absolute), ``sys.argv``
    the arguments as given and ``sys.path[0]`` the script's folder (the server's, the
    console script's folder, replaced). (Not ``runpy.run_path``: it sets ``sys.argv[0]`` to
    the path it runs.)"""
    import builtins
    import importlib.machinery
    import types

    path = os.path.abspath(argv[0])
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(path)
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __cached__=None, __builtins__=builtins,
                         __loader__=importlib.machinery.SourceFileLoader("__main__", path))
    sys.modules["__main__"] = main
    with open(path, "rb") as source:
        code = compile(source.read(), path, "exec")
    exec(code, main.__dict__)


def reseed() -> None:
    """What a new process draws afresh and a fork copies: numpy's global generator (seeded
    from the system's entropy at its first draw: once the server has drawn, every fork
    would draw the server's next numbers; Python's ``random`` re-seeds itself in a fork).
    The hash seed of str and bytes (set iteration order) cannot be: it is fixed when an
    interpreter starts, so every fork shares the server's (one random seed per server,
    where each real ``hodyn`` has its own). A test that needs another runs the real
    ``hodyn``: a PYTHONHASHSEED in the command's environment (:data:`WATCHED`) does."""
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed()


def exit_as_python(code: int) -> None:
    """End this fork as an interpreter's exit ends a process, but for the server's own
    clean-up (``os._exit``): the command's threads joined, its exit handlers run, and the
    files it left open flushed (an interpreter's exit finalizes them; ``os._exit`` alone
    dropped what a file never closed held in its buffer)."""
    import atexit
    import gc
    import io
    import threading

    try:
        threading._shutdown()  # type: ignore[attr-defined]  # (what an interpreter's exit does)
        atexit._run_exitfuncs()
        gc.collect()  # (a file only a cycle holds: its finaliser closes it)
        # (the command's objects: the server's were frozen before the fork, gc.freeze(), and
        # are not among them)
        for obj in gc.get_objects():
            if isinstance(obj, io.IOBase) and not obj.closed:
                try:
                    obj.flush()
                except (OSError, ValueError):  # (as a finaliser's: one file's failure alone)
                    pass
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    os._exit(code)


def _serve(conn: socket.socket) -> None:
    """In the intermediate process: read the request, fork the command, tell the client its
    process id, wait for it, tell its status (``os.waitstatus_to_exitcode``)."""
    header, fds, _, _ = socket.recv_fds(conn, 8, 3)
    size, data = int.from_bytes(header, "little"), b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:  # (its client gone mid-request: recv gave b'' for ever, this process
            os._exit(1)  # spun holding the client's stdout and stderr open, no EOF to read)
        data += chunk
    program, argv, cwd, env = json.loads(data)
    differs = [k for k in set(env) | set(STARTED) if k.startswith(WATCHED)
               and env.get(k) != STARTED.get(k)]
    if differs or (program == "python" and not is_script(argv, cwd)):
        conn.sendall(b"fallback\n")
        os._exit(0)
    pid = os.fork()
    if pid == 0:
        conn.close()
        _run_command(fds, program, argv, cwd, env)
    for fd in fds:  # (the command's only: a pipe's reader sees its end when the command exits)
        os.close(fd)
    conn.sendall(f"pid {pid}\n".encode())
    status = _waited(pid, conn)
    conn.sendall(f"status {os.waitstatus_to_exitcode(status)}\n".encode())
    os._exit(0)


def _waited(pid: int, conn: socket.socket) -> int:
    """The command's wait status, killed (SIGKILL) if its client goes first: a client killed
    (SIGKILL, which it cannot forward) left its command running in the server, where the
    real ``hodyn`` would have died with it. The client sends nothing after its request: its
    end of the connection readable is its end."""
    import select

    pidfd = os.pidfd_open(pid)
    try:
        while True:
            ready, _, _ = select.select([conn, pidfd], [], [])
            if pidfd in ready:
                break
            if not conn.recv(1):
                os.kill(pid, signal.SIGKILL)
                break
    finally:
        os.close(pidfd)
    return os.waitpid(pid, 0)[1]


def _reap(*_) -> None:
    """The intermediates that ended, waited for: their CPU (and their command's) counts as
    this server's children's, and so as the test run's (the kernel reaping them where
    SIGCHLD is ignored would drop it from every account)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def main(path: str) -> None:
    import gc

    _preload()
    # what the imports made kept out of the collector's sweeps: a child's collections
    # otherwise write to (and so copy) nearly every page of the heap it shares with the
    # server (branch suite4: 0.16-0.19 s of CPU a start through a server, 0.09-0.12 s so)
    gc.collect()
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)  # (the client connects to it once it accepts)
    signal.signal(signal.SIGCHLD, _reap)
    parent = os.getppid()
    listener.settimeout(5.0)  # (to notice, while idle, that the pytest worker is gone)
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            if os.getppid() != parent:  # the worker ended without stopping it (killed)
                os._exit(0)
            continue
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # (the command waits for its own)
            _serve(conn)
        conn.close()


if __name__ == "__main__":
    # (the console script's folder first on sys.path, as where ``hodyn`` runs: not tests/)
    sys.path[0] = str(Path(sys.executable).parent)
    main(sys.argv[1])
