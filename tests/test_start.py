"""A command's start and its input (issue 37, goal 4: a 1000-sample path retimed in 1 s end
to end): the trajectory file opened once however many passes read it, and the one
command's app (:func:`hodyn_cli.cli.app.only`) saying what the whole app says. Counts and
texts, not timings."""

from __future__ import annotations

import h5py
import numpy as np
import pytest

import hodyn_cli
from conftest import URDF, assert_not_imported, hodyn_here, imported_by
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.io import tables
from hodyn_cli.io.results import write_trajectory

ROBOT = str(URDF / "planar_2r.urdf")


@pytest.fixture(scope="module")
def p2p(tmp_path_factory):
    """A point-to-point path of the planar 2R arm (q..qdddd, 100 Hz, 101 samples)."""
    model = hodyn_cli.load_robot(ROBOT)
    low, high = model.limits[:, 0], model.limits[:, 1]
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    traj = generate(model, "point-to-point", waypoints=middle + half * np.array([[-0.3], [0.3]]),
                    derivatives=4, segment_duration=[1.0], rate=100.0)
    path = tmp_path_factory.mktemp("start") / "p2p.h5"
    write_trajectory(str(path), traj)
    return path


@pytest.fixture(scope="module")
def retime_imports(p2p, tmp_path_factory) -> set[str]:
    """The modules ``retime --optimal`` of :func:`p2p` imports in a process of its own: one
    run for the two tests of what it imports (each ran its own, ~0.5 s of CPU)."""
    out = tmp_path_factory.mktemp("imports") / "out.h5"
    return imported_by(["retime", ROBOT, str(p2p), "--optimal", "-q", "-o", str(out)])


def _opens(monkeypatch, source) -> list[str]:
    """The files h5py opens meanwhile (each a ``File`` made), the input's name for each of
    its own."""
    seen: list[str] = []
    made = h5py.File

    class Counted(made):
        def __init__(self, name, *args, **kwargs):
            seen.append("input" if str(name) == str(source) else "other")
            super().__init__(name, *args, **kwargs)

    monkeypatch.setattr(h5py, "File", Counted)
    return seen


@pytest.mark.parametrize("how", [["--optimal"], ["--to-limits"], ["--to-limits", "--rate", "50"]])
def test_retime_opens_its_input_once(p2p, tmp_path, monkeypatch, how):
    """``retime`` reads its input in passes (its root columns; the time law's survey and
    reachability's two, or the scaling's search; the output's), each of which had opened
    the file afresh: 5 opens of ``--optimal``, 3 of ``--to-limits``. Now the one table,
    held for the command (:func:`hodyn_cli.io.tables.held`), and closed at its end."""
    seen = _opens(monkeypatch, p2p)
    done = hodyn_here("retime", ROBOT, p2p, *how, "-q", "-o", tmp_path / "out.h5")
    assert done.returncode == 0, done.stderr
    assert seen.count("input") == 1, seen
    assert not tables._held()  # (let go at the end)
    with h5py.File(p2p, "a"):  # closed: HDF5 opens it for writing again
        pass


def test_a_held_table_is_one_table_closed_on_leaving(p2p):
    """Within :func:`~hodyn_cli.io.tables.held` every ``open_table`` of the file hands out
    one table (each caller's block size; ``close()`` leaves it open); nested holds are the
    outermost's; a CSV path held opens nothing."""
    path = str(p2p)
    with tables.held(path):
        first = tables.open_table(path)
        with tables.held(path):
            second = tables.open_table(path, rows=7)
        second.close()
        assert second is first and first.block_rows == 7
        blocks = list(first.blocks(["t"]))
        assert [len(b) for b in blocks] == [7] * 14 + [3]
        assert np.array_equal(np.concatenate(blocks)[:, 0], h5py.File(path)["t"][()])
    assert first._fd is None and not first._file  # closed
    with tables.held("elsewhere.csv"):
        assert tables._held() == {"elsewhere.csv": None}
    assert not tables._held()


def test_each_thread_holds_its_own_table(p2p):
    """Two threads holding one file each read their own table: the first to leave closed the
    table the other was reading when they shared it (review40: h5py's "unable to get
    dataspace")."""
    import threading

    path, read = str(p2p), {}
    first_left, second_in = threading.Event(), threading.Event()

    def first():
        with tables.held(path):
            tables.open_table(path).close()
            second_in.wait(5)
        first_left.set()

    def second():
        with tables.held(path):
            table = tables.open_table(path)
            second_in.set()
            first_left.wait(5)
            read["rows"] = len(np.concatenate(list(table.blocks(["t"]))))

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert read == {"rows": 101}


def test_a_file_longer_than_a_block_is_not_held(p2p, monkeypatch):
    """A file of more than ``BLOCK_ROWS`` rows is opened afresh by each pass, as without
    :func:`~hodyn_cli.io.tables.held` (its passes are long, and held open it peaked higher)."""
    path = str(p2p)
    monkeypatch.setattr(tables, "BLOCK_ROWS", 100)  # (the file: 101 rows)
    with tables.held(path):
        first, second = tables.open_table(path, rows=50), tables.open_table(path, rows=50)
        assert first is not second and not first.held and tables._held() == {path: None}
        first.close()
        second.close()


def test_each_commands_help_is_the_whole_apps():
    """``hodyn COMMAND ...`` builds the app of that one command (:func:`only`): its
    ``--help`` is, to the character, the one the whole app prints, for every command."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import COMMANDS, app, only

    runner = CliRunner()
    for name in COMMANDS:
        whole = runner.invoke(app, [name, "--help"], prog_name="hodyn")
        alone = runner.invoke(only([name]), [name, "--help"], prog_name="hodyn")
        assert whole.exit_code == alone.exit_code == 0, name
        assert alone.output == whole.output and f"Usage: hodyn {name} " in alone.output, name
    assert only(["--help"]) is app


def test_check_and_retime_make_no_other_commands_job(p2p, retime_imports):
    """``check`` and ``retime`` import their jobs' module (:mod:`hodyn_cli.pipeline.laws`),
    not :mod:`hodyn_cli.pipeline.jobs`, whose eight other job classes (frozen dataclasses,
    ~1 ms each as they are made) no such command runs. A check of sys.modules."""
    assert "hodyn_cli.pipeline.laws" in retime_imports
    assert "hodyn_cli.pipeline.jobs" not in retime_imports
    assert_not_imported(["check", ROBOT, str(p2p), "-q"], ("hodyn_cli.pipeline.jobs",))


def test_the_apis_names_are_imported_where_first_used(retime_imports):
    """:mod:`hodyn_cli.api` imports a name's module on first use (``HOMES``): every name of
    its ``__all__`` is found where its type-checking imports say, and nothing else is;
    ``retime --optimal`` imports none of the topics it does not call."""
    import ast
    import inspect

    from hodyn_cli import api

    checked = {alias.name: node.module
               for node in ast.walk(ast.parse(inspect.getsource(api)))
               if isinstance(node, ast.ImportFrom) and node.module != "__future__"
               and node.module != "typing" for alias in node.names}
    homes = {name: module for module, names in api.HOMES.items() for name in names}
    assert homes == checked and set(homes) == set(api.__all__)
    for name, module in homes.items():
        assert getattr(api, name) is getattr(__import__(module, fromlist=[name]), name)
    assert set(api.__all__) <= set(dir(api))
    with pytest.raises(AttributeError, match="no attribute 'load_robots'"):
        api.load_robots  # noqa: B018 - the attribute's lookup is the test
    untouched = tuple(f"hodyn_cli.api.{topic}" for topic in (
        "identification", "planning", "regressor", "motion", "validation", "loops",
        "estimation"))
    assert not [m for m in untouched if m in retime_imports]
