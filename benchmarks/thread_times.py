"""CPU seconds of each thread of one ``hodyn`` command: what runs serially and what in parallel.

    python benchmarks/thread_times.py compute urdf/iiwa14.urdf traj.h5 -o out.h5 --jobs 2

Runs the command in this process with every thread's CPU time (``time.thread_time``, which
counts the thread's own CPU use only, not the time it waited for a core or for the GIL)
taken when it ends: the main thread (start-up, the chunks' settling in order, writing a
stream), the read-ahead thread (taking the chunks' tasks: reading from a pipe, cutting CSV
pieces into chunks), and the workers (reading, checking, computing, encoding, writing at
offsets). A CPU time measure does not depend on how loaded the machine is, which a wall
time on a shared machine does; the stages that run one at a time are the main and the
read-ahead threads' shares.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import defaultdict

times: dict[str, float] = defaultdict(float)
_run = threading.Thread.run


def _timed_run(self) -> None:
    try:
        _run(self)
    finally:
        role = "worker" if self.name.startswith("ThreadPoolExecutor") else "read-ahead" \
            if "_fill" in self.name else self.name
        times[role] += time.thread_time()


def main() -> None:
    threading.Thread.run = _timed_run  # type: ignore[method-assign]
    from hodyn_cli.cli.app import app
    from hodyn_cli.cli.errors import run

    wall = time.perf_counter()
    process = time.process_time()
    code = run(app, sys.argv[1:])
    wall, process = time.perf_counter() - wall, time.process_time() - process
    times["main"] = time.thread_time()
    total = sum(times.values())
    print(f"exit {code}; wall {wall:.2f} s, CPU {process:.2f} s (process), load average "
          f"{os.getloadavg()[0]:.1f}", file=sys.stderr)
    for role, seconds in sorted(times.items(), key=lambda kv: -kv[1]):
        print(f"  {role:<12} {seconds:7.2f} s CPU  {100 * seconds / total:5.1f} %",
              file=sys.stderr)


if __name__ == "__main__":
    main()
