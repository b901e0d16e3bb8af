"""conftest.made_once: a set-up made once per test run, shared by its pytest-xdist workers."""

from __future__ import annotations

import pytest

from conftest import made_once

pytest.importorskip("fcntl")


class _Factory:
    """tmp_path_factory as made_once uses it: the worker's base folder."""

    def __init__(self, base):
        self.base = base

    def getbasetemp(self):
        return self.base


def test_made_once_is_shared_by_a_runs_workers_and_remade_after_a_failure(tmp_path,
                                                                          monkeypatch):
    """xdist's popen workers (RUN/popen-gw3, RUN/popen-gw4) share one folder under RUN; a
    maker that fails leaves nothing a later call trusts (the next call makes it anew)."""
    run, made = tmp_path / "pytest-6", []

    def failing(folder):
        (folder / "half").write_text("")
        raise RuntimeError("the set-up failed")

    def make(folder):
        made.append(folder)
        (folder / "whole").write_text("")

    for worker in ("gw3", "gw4"):
        (run / f"popen-{worker}").mkdir(parents=True)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    with pytest.raises(RuntimeError):
        made_once(_Factory(run / "popen-gw3"), "key", failing)
    folder = made_once(_Factory(run / "popen-gw3"), "key", make)
    assert folder.parent == run and [p.name for p in folder.iterdir()] == ["whole"]
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw4")
    assert made_once(_Factory(run / "popen-gw4"), "key", make) == folder and made == [folder]


def test_made_once_trusts_nothing_of_an_earlier_run(tmp_path, monkeypatch):
    """A worker whose base folder is not its run's popen-<id> (xdist's remote workers: a
    numbered folder of their own, pytest-of-USER/pytest-N) keeps the folder in its base: the
    parent, pytest-of-USER, outlives the run, and a set-up made there by an earlier run (of
    older code) was taken as made."""
    made = []

    def make(folder):
        made.append(folder)

    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    for run in ("pytest-6", "pytest-7"):  # two runs, one after the other
        base = tmp_path / "pytest-of-me" / run
        base.mkdir(parents=True)
        assert made_once(_Factory(base), "key", make).parent == base
    assert len(made) == 2
