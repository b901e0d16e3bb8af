"""What a benchmark case reports: in process, the best of repeated calls per sample and the
peak RSS of the process it runs in (each case runs in a process of its own); a command as a
process, its wall time and peak RSS."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def best_per_sample(fn: Callable, repeat: int, samples: int) -> tuple[dict, object]:
    """``({"us": best microseconds per sample, "cpu_us": best CPU microseconds of this process
    per sample, "rss": peak RSS MiB so far}, fn's last result)``."""
    times, cpu, result = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"us": min(times) / samples * 1e6, "cpu_us": min(cpu) / samples * 1e6,
            "rss": peak_rss_mib()}, result


def peak_rss_mib() -> float:
    """This process's peak resident set (VmHWM), MiB."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024


def process(args: list, output: Path | None = None, ok: tuple[int, ...] = (0,)
            ) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MiB, stdout) of one subprocess run to its end (an exit status
    not in ``ok`` stops the benchmark).

    ``output``, the file the command writes, is removed first: every run writes a new file,
    as a first run does (replacing an existing file makes ext4 write the new one to disk
    before the rename returns, its safeguard for replace-by-rename: 0.6-2 s per GB, which
    hodyn keeps). The page cache is then synced (not timed): a run's output is not still
    being flushed while the next one writes, which made back-to-back runs of commands that
    write a gigabyte vary by 3x."""
    if output is not None:
        output.unlink(missing_ok=True)
    os.sync()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(args, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) not in ok:
            raise SystemExit(f"{' '.join(map(str, args))} failed: {err.read().decode()}")
        return wall, usage.ru_maxrss / 1024, out.read().decode()


def cases_in_processes(script: str, cases: dict[str, str | None],
                       argv: Callable[[str], list[str]]) -> dict[str, dict]:
    """Each case of ``cases`` (name -> its peer case, or None) run as ``script --case NAME``
    plus ``argv(NAME)`` in a process of its own (its peak RSS its own), its JSON row read
    back; the table of us/sample, the ratio to the peer's (the same run) and peak RSS
    printed. The rows, by name."""
    rows = {}
    for name in cases:
        out = subprocess.run([sys.executable, script, "--case", name, *argv(name)],
                             capture_output=True, text=True, check=True)
        rows[name] = json.loads(out.stdout)
    width = max(map(len, cases)) + 2
    print(f"{'case':<{width}} {'us/sample':>10} {'ratio':>7} {'peak RSS MiB':>13}")
    for name, r in rows.items():
        peer = cases[name]
        ratio = f"{r['us'] / rows[peer]['us']:>7.2f}" if peer else f"{'':>7}"
        print(f"{name:<{width}} {r['us']:>10.2f} {ratio} {r['rss']:>13.0f}")
    return rows
