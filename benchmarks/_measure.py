"""What an in-process benchmark case reports: the best of repeated calls per sample, and the
peak RSS of the process it runs in (each case runs in a process of its own)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_per_sample(fn: Callable, repeat: int, samples: int) -> tuple[dict, object]:
    """``({"us": best microseconds per sample, "rss": peak RSS MiB so far}, fn's last result)``."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return {"us": min(times) / samples * 1e6, "rss": peak_rss_mib()}, result


def peak_rss_mib() -> float:
    """This process's peak resident set (VmHWM), MiB."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024
