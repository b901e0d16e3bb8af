"""Every command in README.md and docs/*.md runs as written: each file's fenced ``bash`` blocks,
in order, in a scratch directory that has the repository's robots and sample trajectories
(files a command needs are shipped, or made by an earlier command of the same file).

Skipped lines, and why: the install and the test run themselves (``python3 -m venv``, ``pip
install``, ``.venv/bin/pytest``: this is that test run) and ``source .venv/bin/activate``
(the scratch shell has the installed ``hodyn`` on its PATH already)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP = re.compile(r"^\s*(python3 -m venv|\.venv/bin/pytest|(\.venv/bin/)?pip install|source )")


def shell_blocks(path: Path) -> list[str]:
    """The file's ```bash blocks, in order."""
    return re.findall(r"^```(?:bash|sh|shell)\n(.*?)^```", path.read_text(), re.M | re.S)


def script(blocks: list[str]) -> str:
    lines = [line for block in blocks for line in block.splitlines() if not SKIP.match(line)]
    # README lines start with .venv/bin/hodyn for a newcomer without the venv activated
    return "\n".join(line.replace(".venv/bin/hodyn", "hodyn") for line in lines)


def marks(path: Path):
    return [pytest.mark.cluster] if path.name == "scale.md" else []


@pytest.mark.parametrize("doc", [pytest.param(p, id=p.name, marks=marks(p)) for p in DOCS
                                 if shell_blocks(p)])
def test_every_documented_command_runs(tmp_path, doc):
    for name in ("urdf", "sample_trajectories", "docs"):  # as a fresh clone has them
        shutil.copytree(ROOT / name, tmp_path / name)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    text = script(shell_blocks(doc))
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{doc.name}:\n{text}\n--- stderr:\n{result.stderr[-3000:]}"
    # the shipped files and the examples agree: every documented check or retime (of the
    # iiwa with urdf/iiwa14_limits.toml, whose motor limits need the drives it was written
    # for) checks every limit of its file
    unchecked = [line for line in result.stderr.splitlines() if "limits not checked" in line]
    assert not unchecked, f"{doc.name}: {unchecked}"


def test_the_readme_main_job_is_among_them():
    assert "hodyn compute urdf/iiwa14.urdf sample_trajectories/iiwa14_cosine.csv -o tau.csv" \
        in script(shell_blocks(ROOT / "README.md"))
