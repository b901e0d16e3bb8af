"""The same bad file through the real command line, hundreds of times, several at a time:
every run must exit 2 with the file's one-line error, and leave no output behind.

    python benchmarks/stress_exits.py [--runs 300] [--parallel 4]

A CSV with an empty cell used to end, now and then, in SIGABRT (exit 134: the CSV parser's
thread pool was still alive at interpreter exit; 7 of 160 runs, four at a time on 2 cores).
Prints the exit codes counted and exits 1 if any run did not exit 2 with one line naming the
line and column, or left a file. tests/test_exits.py runs a short version of it (slow).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IIWA = ROOT / "urdf" / "iiwa14.urdf"
COSINE_CSV = ROOT / "sample_trajectories" / "iiwa14_cosine.csv"


def bad_csv(folder: Path, line: int = 5) -> Path:
    """The iiwa's cosine motion with an empty cell on ``line`` (1 = the header)."""
    rows = COSINE_CSV.read_text().splitlines()
    cells = rows[line - 1].split(",")
    cells[3] = ""
    rows[line - 1] = ",".join(cells)
    path = folder / "bad.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def stress(runs: int, parallel: int) -> list[str]:
    """What went wrong in ``runs`` runs, ``parallel`` at a time: [] where every run exited 2
    with its one line and left nothing."""
    with tempfile.TemporaryDirectory() as folder:
        bad = bad_csv(Path(folder))

        def one(k: int) -> subprocess.CompletedProcess:
            return subprocess.run([sys.executable, "-m", "hodyn_cli", "compute", str(IIWA),
                                   str(bad), "-o", str(Path(folder) / f"out{k}.csv")],
                                  capture_output=True, text=True)

        with ThreadPoolExecutor(parallel) as pool:
            results = list(pool.map(one, range(runs)))
        left = sorted(p.name for p in Path(folder).iterdir() if p != bad)
    codes = Counter(p.returncode for p in results)
    problems = [f"exit codes {dict(codes)}"] if set(codes) != {2} else []
    problems += [f"run {k}: stderr {p.stderr!r}" for k, p in enumerate(results)
                 if not (p.stderr.count("\n") == 1 and "line 5, column" in p.stderr)][:3]
    return problems + ([f"left behind: {left}"] if left else [])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--parallel", type=int, default=4)
    args = parser.parse_args()
    problems = stress(args.runs, args.parallel)
    print(f"{args.runs} runs, {args.parallel} at a time: "
          + ("every one exit 2, one line, nothing left" if not problems else "; ".join(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
