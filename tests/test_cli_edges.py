"""The command line at its edges: option values typer rejects, closed pipes."""

import re
import subprocess
import sys

import pytest

from conftest import SAMPLES, URDF, assert_not_imported, hodyn_here

IIWA = str(URDF / "iiwa14.urdf")


def hodyn(*args, **kw):
    return subprocess.run([sys.executable, "-m", "hodyn_cli", *args], capture_output=True,
                          text=True, **kw)


@pytest.mark.parametrize("args, message", [
    (["compute", IIWA, "x.csv", "--order", "9"], "Invalid value for '--order'"),
    (["compute", IIWA, "x.csv", "--method", "foo"], "'foo' is not one of 'body-fixed'"),
    (["compute", IIWA, "x.csv", "--gravity", "1,2"], "--gravity: expected gx,gy,gz"),
    # click 8.1 (and typer's own copy of it): "No such option: --nope"; click >= 8.2 quotes it
    (["compute", IIWA, "x.csv", "--nope"], "No such option:? '?--nope"),
    (["elastic", IIWA], "Missing option '--drives'"),
    (["kinematics", IIWA, str(SAMPLES / "iiwa14_cosine.h5")], "give --link LINK, --com, or both"),
    (["compute", str(SAMPLES / "iiwa14_cosine.csv"), IIWA], "the robot comes first"),
])
def test_usage_errors_are_one_line_with_exit_2(args, message):
    """In this process (hodyn's own exit mapping, :func:`conftest.hodyn_here`); the unknown
    option in a real process too."""
    for result in [hodyn_here(*args)] + ([hodyn(*args)] if "--nope" in args else []):
        assert result.returncode == 2 and result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("hodyn: error: ") and \
            re.search(message, lines[0])


def test_help_names_values_not_python_types():
    for command in ("compute", "validate", "ik", "generate", "elastic", "regressor"):
        text = hodyn_here(command, "--help").stdout
        assert "ROBOT" in text and not any(t in text for t in ("<str>", "<int", "<float",
                                                               "list[", "{robot}")), command


def test_no_arguments_and_help_still_print_help():
    """In this process (tests/test_user_files.py reads the help of a real one)."""
    for args in ([], ["--help"], ["compute", "--help"]):
        result = hodyn_here(*args)
        assert result.returncode == 0 and "Usage: hodyn" in result.stdout, args


@pytest.mark.parametrize("runs", [2, pytest.param(2, marks=pytest.mark.slow)],
                         ids=["2", "2-more"])
@pytest.mark.parametrize("args", [
    ["info", IIWA, "--json"],
    ["compute", IIWA, str(SAMPLES / "iiwa14_cosine.csv")],
    ["kinematics", IIWA, str(SAMPLES / "iiwa14_cosine.h5"), "--link", "iiwa_link_ee"],
])
def test_a_closed_stdout_ends_quietly(args, runs):
    """`... | head -c 100`: never an internal error, nothing on stderr, 0 or SIGPIPE's 141;
    ``runs`` times (where the pipe closes in the run varies: twice by default, four times in
    all with the slow run)."""
    for _ in range(runs):
        proc = subprocess.Popen([sys.executable, "-m", "hodyn_cli", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert len(proc.stdout.read(100)) == 100
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(60) in (0, 141) and err == "", err


def test_bad_values_name_the_sample_and_the_line(tmp_path):
    """A value error in a CSV names both the sample (data row) and the line of the file
    (blank lines and the header counted), as the line-by-line parse errors do."""
    bad = tmp_path / "bad.csv"
    bad.write_text("t,q_joint1,q_joint2\n0,0,0\n\n0.1,0,0\n0.2,nan,0\n")
    r = hodyn_here("kinematics", str(URDF / "planar_2r.urdf"), str(bad), "--link", "tool0",
                   "--order", "0", "--estimate-derivatives")
    assert r.returncode == 2 and "column 'q_joint1', sample 2 (line 5)" in r.stderr, r.stderr
    bad.write_text("t,q_joint1,q_joint2,qd_joint1,qd_joint2\n0,0,0,0,0\n0.1,0,0,0,0\n"
                   "0.05,0,0,0,0\n")
    r = hodyn_here("kinematics", str(URDF / "planar_2r.urdf"), str(bad), "--link", "tool0",
                   "--order", "0")
    assert r.returncode == 2 and "not increasing at sample 2 (line 4)" in r.stderr, r.stderr


def test_the_backend_is_named_and_a_fallback_is_a_notice(tmp_path, fresh_backends):
    """hodyn --version says which backend runs; where the kernel cannot run (here: a kernel
    variant that does not exist) the numpy implementation runs with a notice, not silently;
    HODYN_NO_KERNEL (an explicit choice) and --quiet print none. The first in a real process,
    the others in this one, the backend chosen afresh from the environment for each."""
    import os

    # the numpy run of CI sets HODYN_NO_KERNEL: this test is about the kernel's own choice
    env = {k: v for k, v in os.environ.items() if k != "HODYN_NO_KERNEL"}
    version = hodyn("--version", env=env).stdout
    assert version.startswith("hodyn ") and ("compiled kernel" in version or "numpy:" in version)

    def here(*args, **env):
        fresh_backends.reset()  # (what a process starting with this environment chooses)
        return hodyn_here(*args, env={"HODYN_NO_KERNEL": None, "HODYN_KERNEL": None} | env)

    args = ["compute", IIWA, str(SAMPLES / "iiwa14_cosine.csv"), "-o", str(tmp_path / "t.csv")]
    bad = here(*args, HODYN_KERNEL="nope")
    assert bad.returncode == 0 and "notice: the compiled kernel does not run here" in bad.stderr
    assert "HODYN_KERNEL=nope names no kernel" in bad.stderr
    assert "numpy: HODYN_KERNEL=nope" in here("--version", HODYN_KERNEL="nope").stdout
    quiet = here(*args, "-q", HODYN_KERNEL="nope")
    chosen = here(*args, HODYN_NO_KERNEL="1")
    assert "compiled kernel" not in quiet.stderr + chosen.stderr


def test_every_command_takes_the_options_every_command_has():
    """docs/conventions.md: --strict, --debug, --xacro-arg, --repair-inertia (and --quiet) are
    on every command, declared once (cli/options.py EVERY)."""
    import typer

    from hodyn_cli.cli.app import app
    from hodyn_cli.cli.options import EVERY

    expected = {"--" + name.replace("_", "-") for name in EVERY}
    group = typer.main.get_command(app)
    assert len(group.commands) >= 14
    for name, command in group.commands.items():
        flags = {opt for param in command.params for opt in param.opts}
        assert expected <= flags, f"hodyn {name} lacks {sorted(expected - flags)}"


def test_every_option_of_every_command_parses():
    """Each option, as --help lists it, is accepted by its command (typer 0.27.0-0.27.3 turned
    options with a metavar into unknown ones: `kinematics --link X`: "No such option").
    Typer's own objects only: typer >= 0.26 carries its own copy of click, whose classes are
    not those of an installed click."""
    import typer

    from hodyn_cli.cli.app import app

    group = typer.main.get_command(app)
    options = [(name, command, param) for name, command in group.commands.items()
               for param in command.params if param.param_type_name == "option"]
    assert {name for name, _, _ in options} == set(group.commands)  # none walked past
    for name, command, param in options:
        flag = getattr(param, "is_flag", False) or getattr(param, "count", False)
        args = [param.opts[0]] if flag else [param.opts[0], "1"]
        with pytest.raises(typer.Exit) as done:  # --help: parsed, then help
            command.make_context(name, [*args, "--help"], resilient_parsing=False)
        assert done.value.exit_code == 0, (name, args)
        assert param.opts[0].startswith("--") and param.opts[0] == param.opts[0].lower()


def test_help_imports_nothing_heavy():
    """`hodyn --help` (and a command's --help) starts without numpy, rich, h5py or the
    library: what README.md's start-up figure rests on (rich only where typer itself
    imports it, as typer 0.15 does)."""
    import subprocess
    import sys

    heavy = ("numpy", "rich", "h5py", "scipy", "pyarrow", "hodyn_cli.api", "hodyn_cli.io")
    typer_own = subprocess.run([sys.executable, "-c", "import sys, typer; print(*sys.modules)"],
                               capture_output=True, text=True).stdout.split()
    for args in (["--help"], ["compute", "--help"]):
        code = ("import sys; from hodyn_cli.cli.app import main; sys.argv = ['hodyn', "
                f"*{args!r}]\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
                f"heavy = [m for m in {heavy!r} if m in sys.modules and m not in "
                f"{typer_own!r}]\nprint('HEAVY', heavy)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.stdout.strip().endswith("HEAVY []"), out.stdout[-300:] + out.stderr


def test_main_imports_the_module_of_its_command_only():
    """:data:`~hodyn_cli.cli.app.COMMANDS` names, in --help's order, the module registering
    each command (main imports that one only), and ``hodyn retime`` imports no other."""
    from hodyn_cli.cli import app as module

    assert [(c.name, c.callback.__module__) for c in module.app.registered_commands] == \
        [(name, f"hodyn_cli.cli.{m}") for name, m in module.COMMANDS.items()]
    others = [f"hodyn_cli.cli.{m}" for m in set(module.COMMANDS.values()) - {"feasibility"}]
    code = ("import sys; from hodyn_cli.cli.app import main; sys.argv = ['hodyn', 'retime', "
            f"'--help']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            f"print('OTHERS', [m for m in {others!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "--optimal" in out.stdout and out.stdout.strip().endswith("OTHERS []"), \
        out.stdout[-300:] + out.stderr


def test_reachability_retime_imports_no_solver_and_no_mjcf_reader(tmp_path):
    """``retime --optimal`` by reachability (the 1-second goal's path: the library call and
    the command) runs without scipy.optimize (only the windows' linear programmes need it),
    without numpy.ma (np.unique imports it: 12-14 ms of the command's start) and, for a URDF
    robot, without the MJCF reader (lxml stays: the URDF reader parses with it). A check of
    sys.modules, not a timing."""
    heavy = ("scipy.optimize", "numpy.ma", "hodyn_cli.modeling.mjcf")
    library = ("import numpy as np, hodyn_cli\n"
               f"model = hodyn_cli.load_robot({IIWA!r})\n"
               "t = np.linspace(0, 2, 200)\n"
               "k = np.arange(1, 8.0)\n"
               "q = [0.3 * k**j * np.sin(np.outer(t, k) + j * np.pi / 2) for j in range(4)]\n"
               "_, optimal = hodyn_cli.retime_optimal(model, *q, t=t)\n"
               "print('USED', optimal.used)\n")
    command = ("from hodyn_cli.cli.app import main\n"
               f"sys.argv = ['hodyn', 'retime', {IIWA!r}, {str(SAMPLES / 'iiwa14_cosine.h5')!r}, "
               f"'--optimal', '-q', '-o', {str(tmp_path / 'out.h5')!r}]\n"
               "try:\n    main()\nexcept SystemExit as e:\n    print('USED', e.code)\n")
    for code, used in ((library, "USED reachability"), (command, "USED 0")):
        # (what numpy itself imports aside: numpy 1.24, the lowest bound, imports numpy.ma)
        code = (f"import sys, numpy\nEAGER = set(sys.modules)\n{code}"
                f"print('HEAVY', [m for m in {heavy!r} if m in set(sys.modules) - EAGER])")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.stdout.strip().splitlines()[-2:] == [used, "HEAVY []"], \
            out.stdout[-300:] + out.stderr[-2000:]


def test_csv_to_csv_imports_no_masked_arrays_and_no_toml_parser(tmp_path):
    """``hodyn compute ROBOT traj.csv -o tau.csv`` (README's first command, and most of the
    documented ones) starts without numpy.ma (pyarrow's ``pa.array(ndarray)`` imported it
    looking for a mask: the CSV writer wraps each column's buffer instead, 10-15 ms of every
    start that writes CSV) and without tomllib (only a drives, limits, contacts or loops
    file needs it). A check of sys.modules, not a timing."""
    out = tmp_path / "tau.csv"
    assert_not_imported(["compute", IIWA, str(SAMPLES / "iiwa14_cosine.csv"), "-o", str(out)],
                        ("numpy.ma", "tomllib", "tomli"))
    rows = (SAMPLES / "iiwa14_cosine.csv").read_text().count("\n")
    assert out.read_text().count("\n") == rows  # the header and a row per sample


def test_the_gravity_the_help_names_is_the_apis():
    """``--gravity``'s help names the default without importing numpy; it is api.GRAVITY."""
    from hodyn_cli import api
    from hodyn_cli.cli import options

    assert [float(v) for v in options.GRAVITY.split(",")] == list(api.GRAVITY)
