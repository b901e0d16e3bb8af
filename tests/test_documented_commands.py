"""Every command in README.md and docs/*.md runs as written: each file's fenced ``bash`` blocks,
in order, in a scratch directory that has the repository's robots and sample trajectories
(files a command needs are shipped, or made by an earlier command of the same file).

A file's commands are split into runs, each its own test (so that ``pytest -n`` spreads one
long file over its workers): a run ends in a command whose output no later command reads,
after the earlier commands that made the files it reads, and theirs (:func:`runs`). Those
set-ups run once per test run, command by command, in scratch directories that each run
using them copies before its last command (:func:`prepared`); a file whose commands share
the shell itself (background jobs, ``cd``) is one run (:func:`cases`). Every command runs,
after every command whose files it reads.

A command that is ``hodyn`` and its arguments alone (:func:`in_process`: ~115 of ~135) runs
in the test's own process (:func:`conftest.hodyn_here`: the app and exit statuses of the
installed script, no process: ~0.15 s of CPU a command less than through a fork); the others
(pipes, redirections, the docs' scripts) run in bash, where ``hodyn`` is
tests/forked_hodyn.py's client: each command a fork of a server that imported the library once
(~0.3 s of CPU a command saved), but in the runs of :data:`REAL` (README.md's first command,
scale.md's shell session), which run the installed ``hodyn`` script itself: the process, its
exit status and its streams; so is ``python`` for the docs' scripts (``python SCRIPT.py
ARGS``: ~0.2 s of CPU a script saved, 8 runs).

Skipped lines, and why: the install and the test run themselves (``python3 -m venv``, ``pip
install``, ``.venv/bin/pytest``: this is that test run) and ``source .venv/bin/activate``
(the scratch shell has the installed ``hodyn`` on its PATH already)."""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import forked_hodyn
import pytest

from conftest import hodyn_here, made_once

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP = re.compile(r"^\s*(python3 -m venv|\.venv/bin/pytest|(\.venv/bin/)?pip install|source )")
#: what a fresh clone has: files there are inputs of every group alike
SHIPPED = ("urdf/", "mjcf/", "sample_trajectories/", "docs/")
#: a file or folder a command names: a word with an extension or a trailing slash
FILE = re.compile(r"^[\w*][\w./*-]*(\.[A-Za-z]\w*|/)$")
#: options whose value a command writes (and the shell's redirections)
WRITES = ("-o", "--output", "--report", ">", ">>")
#: what makes a file's commands one shell session: jobs, a working directory, variables
SESSION = re.compile(r"(&\s*(#.*)?$|\bkill\b|\bwait\b|(^|\s)cd\s|\bexport\b)", re.M)


def shell_blocks(path: Path) -> list[str]:
    """The file's ```bash blocks, in order."""
    return re.findall(r"^```(?:bash|sh|shell)\n(.*?)^```", path.read_text(), re.M | re.S)


def script(blocks: list[str]) -> str:
    lines = [line for block in blocks for line in block.splitlines() if not SKIP.match(line)]
    # README lines start with .venv/bin/hodyn for a newcomer without the venv activated
    return "\n".join(line.replace(".venv/bin/hodyn", "hodyn") for line in lines)


def commands(text: str) -> list[str]:
    """The script's commands: lines joined where they end in a backslash, a here-document
    with its body.

    >>> commands("a \\\\\\n  b\\ncat > x.toml <<'EOF'\\n[j]\\nEOF\\nc")
    ['a \\\\\\n  b', "cat > x.toml <<'EOF'\\n[j]\\nEOF", 'c']
    """
    out: list[str] = []
    lines = iter(text.splitlines())
    for line in lines:
        command = [line]
        while command[-1].rstrip().endswith("\\"):
            command.append(next(lines))
        heredoc = re.search(r"<<-?\s*['\"]?(\w+)", command[-1])
        if heredoc:
            for body in lines:
                command.append(body)
                if body.strip() == heredoc.group(1):
                    break
        if re.sub(r"(^|\s)#[^\n]*", "", "\n".join(command)).strip():  # not a comment alone
            out.append("\n".join(command))
    return out


def files(command: str) -> tuple[set[str], set[str]]:
    """(read, written): the scratch files a command names (not the shipped ones), those it
    writes (an option's value, a redirection) apart. Comments and a here-document's body
    are not read."""
    head = command.split("<<")[0]
    words = re.split(r"[\s|;()'\"]+|(?=>)|(?<=>)", re.sub(r"(^|\s)#[^\n]*", " ", head))
    words = [w for w in words if w]
    written = {w for flag, w in zip(words, words[1:], strict=False) if flag in WRITES}
    named = {w for w in words if FILE.match(w) and not w.startswith(SHIPPED)}
    # an --output-dir is read too: a later command resumes into it (--skip-existing)
    return named - written, written & named


def runs(text: str) -> list[list[str]]:
    """The commands of a script as runs that need no other: per command that no later one
    depends on, the commands it depends on (the last earlier writer of each file it reads,
    or where none wrote it with an option, the first that named it: a script that writes
    its positional arguments), theirs, and itself, in script order.

    >>> [len(r) for r in runs("hodyn a -o x.csv\\nhodyn b x.csv -o z.csv\\nhodyn c x.csv")]
    [2, 2]
    """
    cmds = commands(text)
    needs: list[set[int]] = []
    writer: dict[str, int] = {}  # file -> the last command that wrote it
    named: dict[str, int] = {}  # file -> the first command that named it
    for j, command in enumerate(cmds):
        read, written = files(command)
        needs.append({writer.get(f, named.get(f)) for f in read if f in named})
        writer |= dict.fromkeys(written, j)
        named = dict.fromkeys(read | written, j) | named
    ends = set(range(len(cmds))) - set().union(*needs)

    def closure(j: int) -> set[int]:
        return {j}.union(*(closure(i) for i in needs[j]))

    return [[cmds[i] for i in sorted(closure(j))] for j in sorted(ends)]


def _installed(distribution: str) -> bool:
    try:
        importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


#: runs left to the slow tests (``-m slow``, which .ci/run runs too) whose behaviour a cheaper
#: test of the default run proves, the cost being the example itself, not what it shows:
#: (file, a piece of its last command) -> those tests. The iiwa's HTML reports draw their
#: figures with matplotlib (~2 s of CPU a run); scale.md's session starts a Dask scheduler
#: and two workers (~3.5 s of CPU, a few seconds more of waiting for them)
SLOW_RUNS = {
    ("README.md", "--report report.html"): (
        "test_validate.py::test_html_report_renders_in_headless_chromium",  # the same command
        "test_simulate.py::test_reports_carry_the_simulation"),  # (where Chromium is absent)
    ("feasibility.md", "--report check.html"): (
        "test_feasibility_cli.py::test_html_report_plots_each_quantity",
        "test_drives.py::test_check_command_with_rigid_drives"),  # (the motor limits checked)
    ("scale.md", "--scheduler scheduler.json"): (
        "test_many_files.py::test_dask_command_line_cluster",
        "test_many_files.py::test_from_list_with_hundreds_of_files",
        "test_many_files.py::test_output_dir_continues_past_a_bad_file"),
}


def slow_run(path: Path, commands: tuple[str, ...]) -> tuple[str, ...]:
    """The tests that prove what the run shows, where it is one of :data:`SLOW_RUNS`."""
    last = plain(commands[-1]) if commands else ""
    return next((tests for (name, piece), tests in SLOW_RUNS.items()
                 if name == path.name and piece in last), ())


def marks(path: Path, commands: tuple[str, ...] = ()):
    """scale.md starts Dask clusters; contacts.md's Talos comes from example-robot-data, and
    a run that simulates with MuJoCo (docs/examples/mujoco_log.py) needs mujoco (both in the
    test extra, not in CI's lowest-bounds environment); a run that designs a time-optimal
    motion within rate limits (``generate --respect-limits ... --optimal``) is one of the
    slow tests, as the other rate-limited time-optimal designs are, and so are the runs of
    :data:`SLOW_RUNS`."""
    slow = [pytest.mark.slow] if slow_run(path, commands) else []
    if path.name == "scale.md":
        return [pytest.mark.cluster, *slow]
    if slow:
        return slow
    if any("--optimal" in command and "--respect-limits" in command for command in commands):
        return [pytest.mark.slow]
    if path.name == "contacts.md":
        return [pytest.mark.skipif(not _installed("example-robot-data"),
                                   reason="contacts.md walks Talos of example-robot-data")]
    if any("mujoco_log.py" in command for command in commands):
        return [pytest.mark.skipif(not _installed("mujoco"),
                                   reason="the run simulates with MuJoCo (the test extra)")]
    return []


def cases(doc: Path) -> list[tuple[tuple[str, ...], str]]:
    """``(set_up, command)`` per run of the file (a shell session's file: all in one)."""
    text = script(shell_blocks(doc))
    if SESSION.search(text):
        return [((), "\n".join(commands(text)))] if text.strip() else []
    return [(tuple(run[:-1]), run[-1]) for run in runs(text)]


def plain(command: str) -> str:
    """A command without its comments and with single spaces: what it runs.

    >>> plain("hodyn a   -o x.csv   # a comment")
    'hodyn a -o x.csv'
    """
    return " ".join(re.sub(r"(^|\s)#[^\n]*", " ", command).split())


def distinct() -> list[tuple[Path, int, tuple[str, ...], str]]:
    """``(doc, k, set_up, command)`` of every run of every file but those whose commands
    another run (of any file) starts with: README.md's examples repeat the guides' (a
    retime --optimal of 7 s, ...), and the longer run proves the shorter one."""
    out = [(doc, k, set_up, command) for doc in DOCS
           for k, (set_up, command) in enumerate(cases(doc))]
    keys = [tuple(plain(c) for c in (*set_up, command)) for _, _, set_up, command in out]
    return [case for i, (case, key) in enumerate(zip(out, keys, strict=True))
            if not any(j != i and other[:len(key)] == key and (len(other) > len(key) or j < i)
                       for j, other in enumerate(keys))]


CASES = [pytest.param(doc, set_up, command, id=f"{doc.name}-{k}",
                      marks=marks(doc, (*set_up, command)))
         for doc, k, set_up, command in distinct()]


#: ``(file name, command)`` of the runs whose last command runs the installed ``hodyn``
#: script, not the forked server's client: README.md's first (a newcomer's first command,
#: :data:`FIRST`: the script's own start) and those of a file that is one shell session
#: (scale.md's jobs, stopped by ``kill``: the signals reach the real process)
FIRST = ("README.md", "hodyn info urdf/gripper_arm.urdf")
REAL = {(doc.name, command) for doc, _, command in (p.values for p in CASES)
        if (doc.name, plain(command)) == FIRST or SESSION.search(command)}


def environment() -> dict[str, str]:
    """The documentation's reader's: the installed ``hodyn`` on the PATH."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


@pytest.fixture(scope="session")
def forked():
    """The folder of tests/forked_hodyn.py's clients ``hodyn`` and ``python``, its server
    started (one per pytest worker, ~2 s of CPU of imports, stopped at the session's end)."""
    folder = Path(tempfile.mkdtemp(prefix="hodyn-forks-"))  # (short: a socket's path is)
    server, shim = forked_hodyn.start(folder, environment())
    try:
        yield shim
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)


def bash(text: str, folder: Path, doc: Path, shim: Path | None = None) -> None:
    """Run ``text`` in ``folder`` as the documentation's reader would: every line must
    succeed, and every documented check or retime (of the iiwa with urdf/iiwa14_limits.toml,
    whose motor limits need the drives it was written for) checks every limit of its file.
    ``shim``: a folder put first on the PATH (the forked server's ``hodyn`` and
    ``python``)."""
    env = environment()
    if shim is not None:
        env["PATH"] = f"{shim}{os.pathsep}{env['PATH']}"
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=folder, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{doc.name}:\n{text}\n--- stderr:\n{result.stderr[-3000:]}"
    every_limit_checked(result.stderr, doc)


def every_limit_checked(stderr: str, doc: Path) -> None:
    unchecked = [line for line in stderr.splitlines() if "limits not checked" in line]
    assert not unchecked, f"{doc.name}: {unchecked}"


#: what the shell adds to a command that may fail: ``|| test $? -eq 1`` (a check that finds
#: an excess exits 1, a failure of another kind stops the script)
MAY_FAIL = re.compile(r"\s*\|\|\s*test \$\? -eq 1\s*$")
#: what only a shell runs: pipes, redirections, lists, jobs, variables, globs, quotes, lines
SHELL = re.compile(r"[|&;<>*?$`(){}\[\]~'\"\\\n]")


def in_process(command: str) -> tuple[list[str], tuple[int, ...]] | None:
    """``(hodyn's arguments, the exit statuses that pass)`` of a command that is ``hodyn``
    and its arguments alone (and perhaps :data:`MAY_FAIL`), which :func:`run` runs in this
    process; None for one that needs a shell.

    >>> in_process("hodyn check a.urdf x.h5 \\\\\\n  --jerk 2 || test $? -eq 1  # (may fail)")
    (['check', 'a.urdf', 'x.h5', '--jerk', '2'], (0, 1))
    >>> [in_process(c) for c in ("cat x.csv | hodyn compute a.urdf -", "hodyn a x_*.h5")]
    [None, None]
    """
    text = re.sub(r"(^|\s)#[^\n]*", " ", command).replace("\\\n", " ")
    may_fail = MAY_FAIL.search(text) is not None
    text = MAY_FAIL.sub("", text).strip()
    if text.split()[:1] != ["hodyn"] or SHELL.search(text):
        return None
    return text.split()[1:], (0, 1) if may_fail else (0,)


def run(command: str, folder: Path, doc: Path, shim: Callable[[], Path]) -> None:
    """``command`` in ``folder``, as :func:`bash` runs it: in this process where it is
    hodyn's alone (:func:`in_process`: what it proves is the command's work, its exit
    status and what it says, not a process's start, which :data:`REAL`'s runs and
    test_exits.py prove), else in bash with ``shim()`` (the forked server's folder, started
    on first use) first on the PATH."""
    inline = in_process(command)
    if inline is None:
        bash(command, folder, doc, shim())
        return
    args, passing = inline
    back = os.getcwd()
    os.chdir(folder)
    try:
        result = hodyn_here(*args)
    finally:
        os.chdir(back)
    assert result.returncode in passing, \
        f"{doc.name}:\n{command}\n--- status {result.returncode}, stderr:\n{result.stderr[-3000:]}"
    every_limit_checked(result.stderr, doc)


@pytest.fixture(scope="session")
def prepared(tmp_path_factory):
    """``prepare(doc, set_up, shim)``: a scratch directory as a fresh clone has it (robots, sample
    trajectories, docs) after the commands ``set_up``, made once per test run (the workers
    of ``pytest -n`` share it: :func:`conftest.made_once`), from a copy of the one after all
    but its last command (made once too): runs whose set-ups begin alike (ik.md's motion and
    its end effector's, before an ik or a kinematics run) run those commands once, not once
    per set-up (10 of the 52 set-up commands were such repeats, ~4 s of CPU). Each command
    by :func:`run` (``shim``: its folder of the forked server's clients)."""
    made: dict[tuple, Path] = {}

    def prepare(doc: Path, set_up: tuple[str, ...], shim: Callable[[], Path]) -> Path:
        key = tuple(plain(c) for c in set_up)  # the same set-up of another file: shared
        if key not in made:
            before = prepare(doc, set_up[:-1], shim) if set_up else None

            def make(folder: Path) -> None:
                if before is None:
                    for name in (folder_name.rstrip("/") for folder_name in SHIPPED):
                        shutil.copytree(ROOT / name, folder / name)
                else:
                    shutil.copytree(before, folder, dirs_exist_ok=True)
                    run(set_up[-1], folder, doc, shim)

            made[key] = made_once(tmp_path_factory, "\n".join(("documented", *key)), make)
        return made[key]

    return prepare


@pytest.mark.parametrize("doc, set_up, command", CASES)
def test_every_documented_command_runs(tmp_path, prepared, request, doc, set_up, command):
    def shim() -> Path:   # (the server's start, ~2 s of CPU, where a worker's runs need it)
        return request.getfixturevalue("forked")

    shutil.copytree(prepared(doc, set_up, shim), tmp_path, dirs_exist_ok=True)
    if (doc.name, command) in REAL:
        bash(command, tmp_path, doc)
    else:
        run(command, tmp_path, doc, shim)


def test_every_command_runs_after_what_it_reads():
    """Every command of a file is in a run, in the file's order within it; a command that
    reads a file runs after the one that wrote it (README: compute, then cut | paste, then
    forward on what they made)."""
    for doc in DOCS:
        text = script(shell_blocks(doc))
        cmds, parts = commands(text), runs(text)
        assert {c for r in parts for c in r} == set(cmds), doc.name
        for r in parts:
            assert [cmds.index(c) for c in r] == sorted(cmds.index(c) for c in r), doc.name
    readme = runs(script(shell_blocks(ROOT / "README.md")))
    chain = next(r for r in readme if any("hodyn forward" in c for c in r))
    assert [c.split()[0:2] for c in chain] == [["hodyn", "compute"], ["cut", "-d,"],
                                               ["hodyn", "forward"]]
    assert len(readme) > 20  # spread over the workers


def test_every_run_left_out_is_the_start_of_one_that_runs():
    """A run of a file is left out only where a run that the suite does run begins with the
    same commands (README.md's retime --optimal: feasibility.md's retime, check, validate)."""
    kept = [tuple(plain(c) for c in p.values[1]) + (plain(p.values[2]),) for p in CASES]
    left_out = 0
    for doc in DOCS:
        for set_up, command in cases(doc):
            key = tuple(plain(c) for c in (*set_up, command))
            assert any(k[:len(key)] == key for k in kept), (doc.name, command)
            left_out += key not in kept
    assert left_out >= 1  # README's optimal retime is feasibility.md's


def test_each_slow_run_is_one_and_names_tests_that_exist():
    """Every entry of SLOW_RUNS marks one run of its file slow, and the tests it names as
    proving the same behaviour in the default run exist (and are not slow themselves)."""
    import ast

    for (name, piece), tests in SLOW_RUNS.items():
        doc = ROOT / name if name == "README.md" else ROOT / "docs" / name
        hits = [command for set_up, command in cases(doc) if piece in plain(command)]
        assert len(hits) == 1, (name, piece, hits)
        for test in tests:
            module, function = test.split("::")
            tree = ast.parse((ROOT / "tests" / module).read_text())
            found = [node for node in tree.body
                     if isinstance(node, ast.FunctionDef) and node.name == function]
            assert found, test
            assert "slow" not in ast.unparse(found[0].decorator_list), test


def test_the_readme_main_job_is_among_them():
    assert "hodyn compute urdf/iiwa14.urdf sample_trajectories/iiwa14_cosine.csv -o tau.csv" \
        in script(shell_blocks(ROOT / "README.md"))


def test_the_installed_script_runs_readmes_first_command():
    """README.md's first command (:data:`FIRST`) is the last of one run of the default
    run: there the installed ``hodyn`` script runs a documented command."""
    ran = [(p.values[0].name, p.values[2]) for p in CASES
           if not any(mark.name == "slow" for mark in p.marks)]
    assert [run for run in ran if run in REAL and (run[0], plain(run[1])) == FIRST], ran


#: (shell line, what the forked hodyn must give as the installed one does): the output's
#: bytes, an error's line and status, standard input, a pipe, a job stopped by SIGTERM while
#: it waits for its input (its status and what it leaves: no output file; its stderr depends
#: on whether the signal came before its handler, which a loaded machine's start can delay)
SAME = [
    "hodyn compute urdf/planar_2r.urdf sample_trajectories/planar_2r_cosine.csv --order 1",
    "hodyn compute urdf/nope.urdf x.csv; echo status $?",
    "head -5 sample_trajectories/planar_2r_cosine.csv | hodyn compute urdf/planar_2r.urdf - | wc -c",
    # (its input a FIFO held open until the job has ended: it is still running at the kill,
    # however fast, and a signal the forked client hands on late cannot lose to the input's
    # end, which gave status 2 (an empty input) once on a loaded machine)
    "mkfifo in.fifo; hodyn compute urdf/planar_2r.urdf - -o out.csv < in.fifo 2>/dev/null & "
    "exec 3>in.fifo; sleep 0.3; kill $!; wait $! || echo status $?; exec 3>&-; rm in.fifo; ls",
    # the docs' Python scripts: a script's arguments, folder on sys.path, __file__ and
    # __name__, an exception's traceback and status; what is no script runs the interpreter
    "mkdir -p sub; printf 'import sys, os\\nprint(sys.argv, sys.path[0] == os.path.abspath(\"sub\"), "
    "__file__ == os.path.abspath(\"sub/boom.py\"), __name__)\\nraise ValueError(1)\\n' "
    "> sub/boom.py; python sub/boom.py a -b; echo status $?",
    "python -c 'import sys; print(sys.argv)'; echo status $?",
]


def test_the_forked_hodyn_gives_what_the_installed_one_does(tmp_path, forked):
    """Each line of :data:`SAME` through tests/forked_hodyn.py's client writes what it
    writes through the installed script: stdout, stderr and statuses alike."""
    env = environment()
    for name in ("urdf", "sample_trajectories"):
        (tmp_path / name).symlink_to(ROOT / name)
    for line in SAME:
        got = [_ran(line, tmp_path, env | {"PATH": f"{forked}{os.pathsep}{env['PATH']}"},
                    forked.parent), _ran(line, tmp_path, env)]
        assert (got[0].returncode, got[0].stdout, got[0].stderr) == \
            (got[1].returncode, got[1].stdout, got[1].stderr), line
        assert got[0].stdout, line


#: seconds a line of :data:`SAME` may run (each takes ~1 s)
HUNG = 60


def _ran(line: str, cwd: Path, env: dict[str, str], server: Path | None = None
         ) -> subprocess.CompletedProcess:
    """``bash -c line`` in its own session, its output captured; past :data:`HUNG` s it fails
    with the states of the session's processes and those of the forked server whose folder
    is ``server`` (None: the installed ``hodyn``), then kills the session's (the SIGTERM
    line hung once for 120 s under a full suite's load, with nothing said of which process
    held it)."""
    proc = subprocess.Popen(["bash", "-c", line], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=HUNG)
    except subprocess.TimeoutExpired:
        # (the session's, and the server's: its forks, the commands, show its socket's path)
        ps = "\n".join(row for row in subprocess.run(
            ["ps", "-eo", "pid,ppid,sid,stat,wchan:24,args"], capture_output=True,
            text=True).stdout.splitlines() if row.split()[2] in ("SID", str(proc.pid))
            or server is not None and str(server) in row)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=10)
        which = "installed" if server is None else "forked"
        pytest.fail(f"{line!r} ({which} hodyn) ran past {HUNG} s; its processes then:\n{ps}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


# -- the forked hodyn as the real process, in what a shell can see -------------------------------


def test_a_signal_before_the_client_knows_its_command_reaches_the_command(tmp_path):
    """A SIGTERM that reaches the client after its request, before the server told it the
    command's process, is sent on to the command once it is known (it ended the client
    alone: the command ran on). The server is the test's: the command a ``sleep``."""
    import signal
    import socket

    sock = tmp_path / "s.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(sock))
    listener.listen(1)
    client = tmp_path / "hodyn"
    client.write_text(forked_hodyn.client_text(sock, Path("/nonexistent")))
    command = subprocess.Popen(["sleep", "60"])
    proc = subprocess.Popen([sys.executable, "-IS", str(client)], stdin=subprocess.DEVNULL)
    try:
        conn, _ = listener.accept()
        header, fds, _, _ = socket.recv_fds(conn, 8, 3)
        for fd in fds:
            os.close(fd)
        size, got = int.from_bytes(header, "little"), 0
        while got < size:  # (the whole request: the client waits for the pid now)
            got += len(conn.recv(size - got))
        proc.send_signal(signal.SIGTERM)
        conn.sendall(f"pid {command.pid}\n".encode())
        assert command.wait(10) == -signal.SIGTERM
        conn.sendall(f"status {-signal.SIGTERM}\n".encode())
        assert proc.wait(10) == -signal.SIGTERM
    finally:
        for p in (command, proc):
            p.kill()
            p.wait()
        listener.close()


def test_a_killed_clients_command_ends_with_it(tmp_path, forked):
    """A client killed by SIGKILL (which it cannot send on) takes its command with it, as
    the real ``hodyn`` dies (it ran on in the server, here reading its FIFO input for
    ever): the FIFO's reader is gone (POLLERR on its writing end)."""
    import select

    fifo = tmp_path / "in.csv"
    os.mkfifo(fifo)
    proc = subprocess.Popen([str(forked / "hodyn"), "compute", str(ROOT / "urdf/planar_2r.urdf"),
                             str(fifo), "-o", str(tmp_path / "out.csv")], env=environment(),
                            stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fd = None
    try:
        while fd is None and proc.poll() is None:  # (ENXIO until the command opens it)
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.01)
        assert fd is not None, "the command ended before it read its input"
        proc.kill()
        proc.wait()
        poll = select.poll()
        poll.register(fd, 0)  # (POLLERR, POLLHUP: always reported)
        assert poll.poll(10_000), "the command still reads its input"
    finally:
        if fd is not None:
            os.close(fd)
        proc.kill()
        proc.wait()


def test_a_client_gone_mid_request_leaves_no_process_holding_its_output(forked):
    """A client killed between handing its files over and the end of its request (here: the
    request cut short) lets them go: its output's reader sees the end (the server's
    process for it spun for ever on the closed connection, holding them open)."""
    import select

    read, write = os.pipe()
    conn = socket.socket(socket.AF_UNIX)
    try:
        conn.connect(str(forked.parent / "hodyn.sock"))
        socket.send_fds(conn, [(100).to_bytes(8, "little")], [write, write, write])
        conn.sendall(b"[")
        conn.close()
        os.close(write)
        assert select.select([read], [], [], 10.0)[0], "the output still held open"
        assert os.read(read, 1) == b""
    finally:
        os.close(read)
        # (where it failed: the server's process for it, spinning, ended; none otherwise)
        for server in _children(os.getpid(), "forked_hodyn"):
            for stuck in _children(server, "forked_hodyn"):
                os.kill(stuck, signal.SIGKILL)


def _children(parent: int, named: str) -> list[int]:
    """The process ids of ``parent``'s children whose command line holds ``named``."""
    rows = subprocess.run(["ps", "--ppid", str(parent), "-o", "pid=,args="],
                          capture_output=True, text=True).stdout.splitlines()
    return [int(row.split()[0]) for row in rows if named in row]


def test_a_forks_exit_flushes_the_files_left_open(tmp_path):
    """forked_hodyn.exit_as_python ends a process as an interpreter's exit does, with the
    files it never closed flushed (``os._exit`` dropped their buffers)."""
    out = tmp_path / "left_open.txt"
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); import forked_hodyn\n"
            f"kept = open({str(out)!r}, 'w'); kept.write('written')\n"
            "forked_hodyn.exit_as_python(3)\n")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 3
    assert out.read_text() == "written"


def test_each_fork_draws_afresh_what_a_new_process_would():
    """forked_hodyn.reseed: numpy's global generator drawn afresh in each fork, also where
    the server drew from it before forking (seeded at its first draw, it was then copied:
    two forks drew the same numbers)."""
    code = (f"import os, sys; sys.path.insert(0, {str(ROOT / 'tests')!r})\n"
            "import numpy as np, forked_hodyn\n"
            "np.random.random()\n"
            "drawn = []\n"
            "for _ in range(2):\n"
            "    r, w = os.pipe()\n"
            "    if os.fork() == 0:\n"
            "        forked_hodyn.reseed()\n"
            "        os.write(w, repr(np.random.random()).encode())\n"
            "        os._exit(0)\n"
            "    os.close(w)\n"
            "    drawn.append(os.read(r, 64))\n"
            "    os.wait()\n"
            "print(drawn[0] != drawn[1])\n")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True
                          ).stdout == "True\n"
