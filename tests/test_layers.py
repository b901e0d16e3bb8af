"""The layers of the package import one way (README, "How it is built"): every import of every
module, also those inside functions, checked against the rules below."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hodyn_cli"

#: layer -> the layers it may import (besides itself)
ALLOWED = {
    "errors": set(),
    "capabilities": {"errors"},  # the table of what combines: asked by every layer above
    "core": {"errors"},
    "io": {"core", "errors"},
    "modeling": {"core", "errors"},
    "algorithms": {"core", "modeling", "errors", "capabilities"},
    "api": {"core", "modeling", "algorithms", "errors", "capabilities"},
    "pipeline": {"core", "modeling", "algorithms", "api", "io", "errors", "capabilities"},
    "cli": {"core", "modeling", "algorithms", "api", "io", "pipeline", "errors", "package",
            "capabilities"},
    "package": {"api"},  # hodyn_cli/__init__.py: the API at the top, imported on first use
    "main": {"cli"},
}


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "hodyn_cli":
        raise ValueError(module)
    if len(parts) == 1:
        return "package"
    return {"__main__": "main", "__init__": "package"}.get(parts[1], parts[1])


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(rel.parts)
        yield (name[: -len(".__init__")] if name.endswith(".__init__") else name), path


def imports(path: Path, module: str):
    """Every hodyn_cli module ``path`` imports (absolute or relative, anywhere in the file)."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("hodyn_cli"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            if base == "hodyn_cli":  # from hodyn_cli import api, __version__
                yield from (f"hodyn_cli.{a.name}" if (PACKAGE / f"{a.name}.py").exists()
                            or (PACKAGE / a.name).is_dir() else base for a in node.names)
            elif base.startswith("hodyn_cli"):
                yield base


@pytest.mark.parametrize("module, path", list(modules()), ids=lambda x: str(x))
def test_imports_point_one_way(module, path):
    own = layer_of(module)
    wrong = [f"{target} ({layer_of(target)})" for target in imports(path, module)
             if layer_of(target) != own and layer_of(target) not in ALLOWED[own]]
    assert not wrong, f"{module} ({own}) imports {', '.join(wrong)}"


def test_the_rules_cover_every_layer():
    assert {layer_of(m) for m, _ in modules()} <= set(ALLOWED)


def test_a_wrong_import_is_found(tmp_path):
    bad = tmp_path / "reader.py"
    bad.write_text("def f():\n    from hodyn_cli.algorithms import ik\n")
    assert list(imports(bad, "hodyn_cli.io.reader")) == ["hodyn_cli.algorithms"]
    assert "algorithms" not in ALLOWED[layer_of("hodyn_cli.io.reader")]
