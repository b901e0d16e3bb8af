"""The layers of the package import one way (README, "How it is built"): every import of every
module, also those inside functions, checked against the rules below, each with a test that
shows it catches a violation:

1. a layer imports only the layers below it (:data:`ALLOWED`): the pipeline reaches the
   algorithms only through the API, the command line only the API, the pipeline, the errors
   and the table of capabilities (and the package's ``__version__``);
2. no module imports a private module (``_name``) of another package;
3. the imports between the package's modules have no cycle (those for type checkers only,
   under ``if TYPE_CHECKING:``, never run and may name each other);
4. inside the algorithms, a subpackage imports only the others its docstring names
   (:data:`ALGORITHMS`).
"""

from __future__ import annotations

import ast
import functools
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hodyn_cli"

#: layer -> the layers it may import (besides itself)
ALLOWED = {
    "errors": set(),
    "capabilities": {"errors"},  # the table of what combines: asked by every layer above
    # a command's outputs held until it ends: io holds them, the command line's run renames
    "outputs": {"errors"},
    "core": {"errors"},
    "io": {"core", "errors", "outputs"},
    "modeling": {"core", "errors"},
    "algorithms": {"core", "modeling", "errors"},  # the table is asked by the API
    "api": {"core", "modeling", "algorithms", "errors", "capabilities"},
    # the algorithms only through the API
    "pipeline": {"core", "modeling", "api", "io", "errors", "capabilities"},
    # parse, call the library, render: the API and the pipeline, nothing below them
    "cli": {"api", "pipeline", "errors", "capabilities", "outputs", "package"},
    "package": {"api"},  # hodyn_cli/__init__.py: the API at the top, imported on first use
    "main": {"cli"},
}
#: what the command line takes from the package itself (hodyn_cli/__init__.py)
PACKAGE_NAMES = {"cli": {"__version__"}}

#: algorithms' subpackage -> the other subpackages it may import, as its docstring says
ALGORITHMS = {
    "backends": set(),  # the reference passes are its own (backends/numpy/): one way
    "dynamics": {"backends"},
    "motion": {"backends", "dynamics"},
    "actuation": {"backends", "dynamics"},
    "contacts": {"backends", "dynamics", "motion"},
    "limits": {"backends", "dynamics", "motion", "actuation", "contacts"},
    "identification": set(),
    "planning": {"backends", "dynamics", "motion", "actuation", "limits", "identification"},
    "verification": {"backends", "dynamics", "motion", "actuation", "contacts", "limits",
                     "identification", "planning"},  # "every other subpackage"
}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "hodyn_cli":
        raise ValueError(module)
    if len(parts) == 1:
        return "package"
    return {"__main__": "main", "__init__": "package"}.get(parts[1], parts[1])


def modules(root: Path = PACKAGE) -> Iterator[tuple[str, Path]]:
    """``(dotted name, path)`` of every module of the package at ``root``."""
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).with_suffix("")
        name = ".".join(rel.parts)
        yield (name[: -len(".__init__")] if name.endswith(".__init__") else name), path


def imported(path: Path, module: str, root: Path = PACKAGE, typing: bool = True
             ) -> Iterator[tuple[str, str | None]]:
    """``(module, name)`` for every import of the package's modules in ``path`` (absolute or
    relative, anywhere in the file): ``from a.b import c`` gives ``("a.b.c", None)`` if c is
    a module, else ``("a.b", "c")``. ``typing=False`` leaves out the imports made for type
    checkers only (under ``if TYPE_CHECKING:``)."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    top = root.name
    for node, checkers_only in _import_nodes(path.read_text()):
        if not typing and checkers_only:
            continue
        if isinstance(node, ast.Import):
            yield from ((a.name, None) for a in node.names if a.name.split(".")[0] == top)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] != top:
                continue
            folder = root.parent.joinpath(*base.split("."))
            for a in node.names:
                if (folder / f"{a.name}.py").exists() or (folder / a.name).is_dir():
                    yield f"{base}.{a.name}", None
                else:
                    yield base, a.name


#: the fields of a statement that hold statements (an import is a statement, so it is
#: found by walking these alone, not the expressions: most of a module's nodes)
BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _for_type_checkers(node: ast.AST, field: str) -> bool:
    """Whether ``field`` of ``node`` is the body of ``if TYPE_CHECKING:`` (or of
    ``if typing.TYPE_CHECKING:``)."""
    if not isinstance(node, ast.If) or field != "body":
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        and isinstance(test.value, ast.Name) and test.value.id == "typing")


@functools.cache
def _import_nodes(text: str) -> tuple[tuple[ast.Import | ast.ImportFrom, bool], ...]:
    """The import statements of a module's source ``text``, each with whether it is made for
    type checkers only (under ``if TYPE_CHECKING:``), in ``ast.walk``'s order (breadth
    first). Parsed once per text: the rules' tests walk every module, each rule again. Only
    the statements are walked: walking every node, with ``ast.unparse`` of each ``if``'s
    test, cost twice the parse (1.8 s a worker for the package's 185 modules, 0.6 now)."""
    found = []
    queue = deque([(ast.parse(text), False)])
    while queue:
        node, checkers_only = queue.popleft()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append((node, checkers_only))
        queue.extend((child, checkers_only or _for_type_checkers(node, field))
                     for field in BODIES for child in getattr(node, field, ()))
    return tuple(found)


def imports(path: Path, module: str, root: Path = PACKAGE, typing: bool = True
            ) -> Iterator[str]:
    """Every module of the package ``path`` imports (``typing``: see :func:`imported`)."""
    yield from (target for target, _ in imported(path, module, root, typing))


@pytest.mark.parametrize("module, path", list(modules()), ids=lambda x: str(x))
def test_imports_point_one_way(module, path):
    own = layer_of(module)
    wrong = [f"{target} ({layer_of(target)})" for target in imports(path, module)
             if layer_of(target) != own and layer_of(target) not in ALLOWED[own]]
    assert not wrong, f"{module} ({own}) imports {', '.join(wrong)}"


def package_names_taken(path: Path, module: str) -> list[str]:
    """The names ``module`` takes from the package itself that its layer may not."""
    own = layer_of(module)
    return [name or "*" for target, name in imported(path, module)
            if target == "hodyn_cli" and own in PACKAGE_NAMES
            and name not in PACKAGE_NAMES[own]]


@pytest.mark.parametrize("module, path", [(m, p) for m, p in modules()
                                          if layer_of(m) in PACKAGE_NAMES], ids=str)
def test_the_command_line_takes_only_the_version_from_the_package(module, path):
    wrong = package_names_taken(path, module)
    assert not wrong, f"{module} imports {', '.join(wrong)} from hodyn_cli (the API: hodyn_cli.api)"


def private_imports(path: Path, module: str, root: Path = PACKAGE) -> list[str]:
    """The private modules and names (``_x``) of other packages that ``module`` imports: what
    is private is its own package's (and that package's subpackages')."""
    wrong = []
    for target, name in imported(path, module, root):
        parts = target.split(".") + ([name] if name else [])
        for i, part in enumerate(parts):
            if part.startswith("_") and not part.startswith("__"):
                owner = ".".join(parts[:i])
                if i == len(parts) - 1 and name and not root.parent.joinpath(*parts[:i]).is_dir():
                    owner = owner.rsplit(".", 1)[0]  # a name of a module: its package's
                if module != owner and not module.startswith(owner + "."):
                    wrong.append(".".join(parts))
                break
    return wrong


@pytest.mark.parametrize("module, path", list(modules()), ids=lambda x: str(x))
def test_no_private_module_of_another_package(module, path):
    wrong = private_imports(path, module)
    assert not wrong, f"{module} imports private module(s) {', '.join(wrong)}"


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """module -> the modules of the package it imports when it runs (the static graph, also
    the imports inside functions; not those for type checkers only, which never run: a
    reader and the tasks that read its chunks name each other's types)."""
    return {m: set(imports(p, m, root, typing=False)) - {m} for m, p in modules(root)}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` (``[a, b, ..., a]``), or None (depth first).

    >>> cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    True
    >>> cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    ['a', 'b', 'c', 'a']
    """
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path, todo = [start], [iter(sorted(graph[start]))]
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                done.add(path.pop())
                todo.pop()
            elif nxt in path:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in done:
                path.append(nxt)
                todo.append(iter(sorted(graph.get(nxt, ()))))
    return None


def test_the_imports_have_no_cycle():
    found = cycle(import_graph())
    assert found is None, "import cycle: " + " -> ".join(found)


def test_the_rules_cover_every_layer():
    assert {layer_of(m) for m, _ in modules()} <= set(ALLOWED)


def part_of(module: str) -> str | None:
    """The subpackage of the algorithms ``module`` is in (None: outside them)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "algorithms" else None


def parts_imported(path: Path, module: str) -> set[str]:
    """The other subpackages of the algorithms that ``module`` imports."""
    own = part_of(module)
    return {p for p in map(part_of, imports(path, module)) if p is not None and p != own}


@pytest.mark.parametrize("module, path", [(m, p) for m, p in modules() if part_of(m)], ids=str)
def test_the_algorithms_parts_import_as_their_docstrings_say(module, path):
    wrong = parts_imported(path, module) - ALGORITHMS[part_of(module)]
    assert not wrong, f"{module} imports algorithms.{', algorithms.'.join(sorted(wrong))}"


@pytest.mark.parametrize("part", sorted(ALGORITHMS))
def test_each_part_says_what_it_may_import(part):
    doc = ast.get_docstring(ast.parse((PACKAGE / "algorithms" / part / "__init__.py").read_text()))
    says = doc.split("Imports:", 1)[1]
    every = "every other subpackage" in says
    assert every or all(other in says for other in ALGORITHMS[part]), (part, says)
    assert {p.name for p in (PACKAGE / "algorithms").iterdir()
            if (p / "__init__.py").exists()} == set(ALGORITHMS)


# -- each rule catches a violation -----------------------------------------------------------


def test_a_wrong_import_is_found(tmp_path):
    bad = tmp_path / "reader.py"
    bad.write_text("def f():\n    from hodyn_cli.algorithms import ik\n")
    assert list(imports(bad, "hodyn_cli.io.reader")) == ["hodyn_cli.algorithms"]
    assert "algorithms" not in ALLOWED[layer_of("hodyn_cli.io.reader")]


def test_the_pipeline_reaching_past_the_api_is_found(tmp_path):
    bad = tmp_path / "jobs.py"
    bad.write_text("from hodyn_cli.algorithms.motion import ik\nfrom hodyn_cli import api\n")
    layers = [layer_of(t) for t in imports(bad, "hodyn_cli.pipeline.jobs")]
    assert layers == ["algorithms", "api"]
    assert [x in ALLOWED["pipeline"] for x in layers] == [False, True]


def test_an_algorithm_asking_the_table_of_capabilities_is_found(tmp_path):
    """The API asks the table for the algorithms it calls (the refusals in its words)."""
    bad = tmp_path / "optimal.py"
    bad.write_text("def plan():\n    from hodyn_cli import capabilities\n"
                   "from hodyn_cli.core import coupling\n")
    layers = [layer_of(t) for t in imports(bad, "hodyn_cli.algorithms.limits.optimal")]
    assert layers == ["core", "capabilities"]    # (the module's own lines first)
    assert [x in ALLOWED["algorithms"] for x in layers] == [True, False]


def test_the_command_line_reaching_below_the_library_is_found(tmp_path):
    bad = tmp_path / "data.py"
    bad.write_text("from hodyn_cli import __version__, load_robot\n"
                   "def f():\n    from hodyn_cli.io import open_sink\n"
                   "    from hodyn_cli.modeling.urdf import load_model\n")
    layers = {layer_of(t) for t in imports(bad, "hodyn_cli.cli.data")}
    assert layers - ALLOWED["cli"] == {"io", "modeling"}
    assert package_names_taken(bad, "hodyn_cli.cli.data") == ["load_robot"]


def test_a_private_module_of_another_package_is_found(tmp_path):
    bad = tmp_path / "x.py"
    bad.write_text("from hodyn_cli.algorithms.backends import _table\n"
                   "import hodyn_cli.algorithms.backends._abi\n"
                   "from hodyn_cli.pipeline.report import _matplotlib\n")
    assert private_imports(bad, "hodyn_cli.api.x") == [
        "hodyn_cli.algorithms.backends._table", "hodyn_cli.algorithms.backends._abi",
        "hodyn_cli.pipeline.report._matplotlib"]
    assert private_imports(bad, "hodyn_cli.algorithms.backends.compiled") == [
        "hodyn_cli.pipeline.report._matplotlib"]
    assert private_imports(bad, "hodyn_cli.pipeline.check_report") == [
        "hodyn_cli.algorithms.backends._table", "hodyn_cli.algorithms.backends._abi"]


def test_a_part_of_the_algorithms_reaching_above_its_docstring_is_found(tmp_path):
    bad = tmp_path / "methods.py"
    bad.write_text("from hodyn_cli.algorithms.backends import numpy\n"
                   "def f():\n    from hodyn_cli.algorithms.limits import scaling\n")
    found = parts_imported(bad, "hodyn_cli.algorithms.dynamics.methods")
    assert found - ALGORITHMS["dynamics"] == {"limits"}


def test_a_backend_reaching_back_into_the_algorithms_is_found(tmp_path):
    """The seam runs one way: a backend that takes a pass from an algorithm module (as the
    numpy backend once took ``body_fixed.chunk``) is a violation."""
    bad = tmp_path / "numpy.py"
    bad.write_text("from hodyn_cli.algorithms.dynamics import body_fixed\n"
                   "from hodyn_cli.algorithms.backends.numpy import closed_form\n")
    assert parts_imported(bad, "hodyn_cli.algorithms.backends.numpy") == {"dynamics"}
    assert "dynamics" not in ALGORITHMS["backends"]


def test_a_cycle_is_found(tmp_path):
    root = tmp_path / "hodyn_cli"
    (root / "core").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "core" / "__init__.py").write_text("from hodyn_cli.core.a import x\n")
    (root / "core" / "a.py").write_text("x = 1\ndef f():\n    from hodyn_cli.core import b\n")
    (root / "core" / "b.py").write_text("from . import a\n")
    assert cycle(import_graph(root)) == ["hodyn_cli.core.a", "hodyn_cli.core.b",
                                         "hodyn_cli.core.a"]


def test_imports_for_type_checkers_only_make_no_cycle(tmp_path):
    """b names a's type for mypy alone: no cycle at run time; the same import made when b
    runs is one."""
    root = tmp_path / "hodyn_cli"
    (root / "io").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "io" / "__init__.py").write_text("")
    (root / "io" / "a.py").write_text("from hodyn_cli.io import b\n")
    (root / "io" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from hodyn_cli.io.a import A\n")
    assert cycle(import_graph(root)) is None
    (root / "io" / "b.py").write_text("from hodyn_cli.io.a import A\n")
    assert cycle(import_graph(root)) == ["hodyn_cli.io.a", "hodyn_cli.io.b", "hodyn_cli.io.a"]


def test_an_import_in_any_block_is_found_and_only_the_type_checkers_are_marked():
    """The statement walk of :func:`_import_nodes` reaches every block a statement may hold
    (a function's, a class's, try's four, with, for and while with their else, match's cases,
    an ``if``'s else), and marks only what ``if TYPE_CHECKING:`` and
    ``if typing.TYPE_CHECKING:`` hold: what a walk of every node finds."""
    text = ("import a0\nclass C:\n    import a1\n    def f(self):\n        import a2\n"
            "async def g():\n    async with x:\n        import a3\n"
            "try:\n    import a4\nexcept E:\n    import a5\nelse:\n    import a6\n"
            "finally:\n    import a7\n"
            "for i in x:\n    import a8\nelse:\n    import a9\n"
            "while x:\n    import b0\nelse:\n    import b1\n"
            "match x:\n    case 1:\n        import b2\n"
            "with x:\n    if y:\n        import b3\n    else:\n        import b4\n"
            "if TYPE_CHECKING:\n    import t0\n    if z:\n        import t1\nelse:\n    import b5\n"
            "if typing.TYPE_CHECKING:\n    from t2 import n\n"
            "if not TYPE_CHECKING:\n    import b6\n")
    found = {(node.names[0].name if isinstance(node, ast.Import) else node.module, marked)
             for node, marked in _import_nodes(text)}
    every = set("a0 a1 a2 a3 a4 a5 a6 a7 a8 a9 b0 b1 b2 b3 b4 b5 b6".split())
    assert found == {(a, False) for a in every} | {("t0", True), ("t1", True), ("t2", True)}
    assert len(found) == sum(isinstance(n, ast.Import | ast.ImportFrom)
                             for n in ast.walk(ast.parse(text)))
