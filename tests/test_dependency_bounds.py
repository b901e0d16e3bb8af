"""The lowest versions CI installs (.ci/lowest.txt) are exactly the lower bounds pyproject.toml
declares, for every direct dependency and the extras "all" names (plots, ros, cluster) (and the two test
tools the lowest run uses): the two files cannot drift apart."""

from __future__ import annotations

import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT, LOWEST = ROOT / "pyproject.toml", ROOT / ".ci" / "lowest.txt"
#: of the test extra, what the lowest run installs besides hodyn[all] (.ci/run)
TEST_TOOLS = {"pytest", "pytest-xdist"}


def declared(pyproject: str) -> dict[str, Requirement]:
    """name -> requirement, of the requirements the lowest run installs."""
    project = tomllib.loads(pyproject)["project"]
    extras = project["optional-dependencies"]
    # the extras "all" names (hodyn[plots,ros,cluster]): what the lowest run installs; gpu and
    # test are not among them
    (everything,) = (Requirement(r) for r in extras["all"])
    texts = project["dependencies"] + [r for name in sorted(everything.extras)
                                       for r in extras[name]]
    texts += [r for r in extras["test"] if canonicalize_name(Requirement(r).name) in TEST_TOOLS]
    requirements = [Requirement(t) for t in texts]
    return {canonicalize_name(r.name): r for r in requirements}


def pinned(constraints: str) -> dict[str, Requirement]:
    """name -> requirement, of a constraints file's lines (comments and blank lines left out)."""
    lines = [line.split("#")[0].strip() for line in constraints.splitlines()]
    return {canonicalize_name(r.name): r for r in map(Requirement, filter(None, lines))}


def drift(constraints: str, pyproject: str) -> list[str]:
    """What keeps the constraints from pinning each declared requirement at its lower bound
    (its one ``>=`` clause), under the same environment marker; [] where nothing does."""
    pins, bounds = pinned(constraints), declared(pyproject)
    problems = [f"{name}: pinned, not declared" for name in sorted(pins.keys() - bounds.keys())]
    for name, requirement in bounds.items():
        lower = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
        pin = pins.get(name)
        clauses = [] if pin is None else list(pin.specifier)
        version = Version(clauses[0].version) if len(clauses) == 1 else None
        if len(lower) != 1:
            problems.append(f"{requirement}: no single lower bound (>=)")
        elif pin is None or not (len(clauses) == 1 and clauses[0].operator == "=="):
            problems.append(f"{name}: declared >={lower[0]}, not pinned as {name}=={lower[0]}")
        elif version != lower[0] or pin.marker != requirement.marker:
            problems.append(f"{name}: pinned {pin}, declared {requirement}")
        elif version not in requirement.specifier:
            problems.append(f"{name}: the lower bound {version} is excluded by {requirement}")
    return problems


def test_the_lowest_pins_are_the_declared_lower_bounds():
    assert drift(LOWEST.read_text(), PYPROJECT.read_text()) == []


def test_drift_is_caught():
    """A pin a patch off, a missing and an undeclared pin, a bound raised in pyproject.toml
    alone, a marker lost, a lower bound excluded: each is named."""
    constraints, pyproject = LOWEST.read_text(), PYPROJECT.read_text()
    numpy = next(line for line in constraints.splitlines() if line.startswith("numpy=="))
    tomli = next(line for line in constraints.splitlines() if line.startswith("tomli=="))
    cases = [
        ("numpy", drift(constraints.replace(numpy, "numpy==1.24.1"), pyproject)),
        ("numpy", drift(constraints.replace(numpy, ""), pyproject)),
        ("click", drift(constraints + "click==8.0.0\n", pyproject)),
        ("h5py", drift(constraints, pyproject.replace('"h5py>=3.8"', '"h5py>=3.9"'))),
        ("tomli", drift(constraints.replace(tomli, "tomli==1.1.0"), pyproject)),
        ("rich", drift(constraints, pyproject.replace('"rich>=13"', '"rich>=13,!=13.0.0"'))),
    ]
    for name, problems in cases:
        assert len(problems) == 1 and problems[0].startswith(name + ":"), (name, problems)
