"""Many trajectory files: one output per input, on local threads or a Dask cluster.

Each file is streamed on its own (:func:`process_file`); a bad file is reported and the
others go on. On a cluster (the ``cluster`` extra) every task reads its input
and writes its output itself, so inputs and the output directory must be on a filesystem
all workers see under the same paths; the job (model included) is sent to the workers once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from hodyn_cli.errors import HodynError, install_hint
from hodyn_cli.io import file_format
from hodyn_cli.io.paths import refuse_inputs
from hodyn_cli.pipeline import stop, stream
from hodyn_cli.pipeline.files import run_file

__all__ = ["FileOutcome", "output_path", "plan_outputs", "process_file", "run_local",
           "run_on_cluster"]

EXTENSIONS = {"csv": ".csv", "hdf5": ".h5"}


@dataclass(frozen=True, eq=False, repr=False)
class FileOutcome:
    """What became of one input: ``status`` ok, skipped or failed (``message`` says why)."""

    source: str
    output: str
    status: str
    message: str = ""
    samples: int = 0


def output_path(source: str, out_dir: str, fmt: str | None) -> str:
    """``out_dir/<source stem>.<csv|h5>``; ``fmt`` None: the input's format."""
    kind = fmt or file_format(source)
    return str(Path(out_dir) / (Path(source).stem + EXTENSIONS[kind]))


def plan_outputs(sources: list[str], out_dir: str, fmt: str | None, inputs=()) -> list[str]:
    """Output paths for every input (``out_dir`` is created if missing); two inputs that would
    write the same file, or an output that is one of the inputs (``sources`` or the other
    files the run reads, ``inputs``), are an error before anything is written."""
    outputs: list[str] = []
    seen: dict[str, str] = {}  # output -> the input that writes it
    for src in sources:
        if src == "-":
            raise HodynError("'-' (stdin) cannot be one of many inputs")
        out = output_path(src, out_dir, fmt)
        if out in seen:
            raise HodynError(f"'{seen[out]}' and '{src}' would both write '{out}'")
        seen[out] = src
        outputs.append(out)
    for out in outputs:
        refuse_inputs(out, [*sources, *inputs])
    try:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise HodynError(f"cannot create the output directory: {e.strerror or e}", out_dir
                         ) from None
    return outputs


def process_file(job, source: str, output: str, *, attrs: dict | None = None,
                 skip_existing: bool = False) -> FileOutcome:
    """Stream one file through ``job``; errors become a failed outcome, never an exception."""
    if skip_existing and Path(output).exists():
        return FileOutcome(source, output, "skipped", "output exists")
    try:
        n = run_file(job, source, output, {**(attrs or {}), "trajectory": source})
        return FileOutcome(source, output, "ok", samples=n)
    except HodynError as e:
        return FileOutcome(source, output, "failed", str(e))
    except Exception as e:  # noqa: BLE001 - one bad file must not stop the others
        return FileOutcome(source, output, "failed", f"internal error: {type(e).__name__}: {e}")


def run_local(job, sources: list[str], outputs: list[str], *, attrs: dict | None = None,
              jobs: int = 1, skip_existing: bool = False,
              done: Callable[[FileOutcome], None] | None = None) -> list[FileOutcome]:
    """Every file on ``jobs`` threads; ``done(outcome)`` as each one finishes."""
    with stop.deferred(), ThreadPoolExecutor(max(1, jobs)) as pool:
        futures = [pool.submit(process_file, job, s, o, attrs=attrs, skip_existing=skip_existing)
                   for s, o in zip(sources, outputs, strict=True)]
        try:
            return _collect(futures, _finished(futures), done)
        except BaseException:  # Ctrl-C, a signal: the files not started are not started
            pool.shutdown(wait=True, cancel_futures=True)
            raise


def _finished(futures: list) -> Iterator:
    """The futures as they finish, looking for a signal (:mod:`~hodyn_cli.pipeline.stop`)
    while waiting."""
    left = set(futures)
    while left:
        ready, left = wait(left, timeout=stream.POLL, return_when=FIRST_COMPLETED)
        # the files finished before a signal count (their outputs are kept and named), those
        # it made their threads give up do not: the signal is raised, not their Abandoned
        yield from (f for f in ready if not f.cancelled() and f.exception() is None)
        stop.check()
        yield from (f for f in ready if f.cancelled() or f.exception() is not None)


def scheduler_address(text: str, wait: float = 0.0) -> str:
    """A scheduler address, or the ``address`` in a scheduler file (``dask scheduler
    --scheduler-file F``, a ``.json`` file), waiting up to ``wait`` seconds for the scheduler
    to write it (a scheduler started just before)."""
    path = Path(text)
    if path.suffix != ".json":
        return text
    deadline = time.monotonic() + wait
    while True:
        try:
            return json.loads(path.read_text())["address"]
        except (OSError, ValueError, KeyError) as e:
            if time.monotonic() >= deadline:
                what = ("no such file" if isinstance(e, FileNotFoundError)
                        else "not a Dask scheduler file (no 'address')")
                raise HodynError(f"{what} (waited {wait:g} s for the scheduler)", text) from None
        time.sleep(0.05)


def run_on_cluster(address: str, job, sources: list[str], outputs: list[str], *,
                   attrs: dict | None = None, skip_existing: bool = False,
                   done: Callable[[FileOutcome], None] | None = None) -> list[FileOutcome]:
    """Every file as a task on the Dask cluster at ``address`` (or scheduler file).

    The connection timeout is Dask's ``distributed.comm.timeouts.connect`` (30 s unless
    configured, e.g. ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=5s``).
    """
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise HodynError(f"--scheduler needs Dask: {install_hint('cluster')}") from None
    import dask

    timeout = dask.utils.parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"))
    address = scheduler_address(address, wait=timeout)
    try:
        client = Client(address)
    except (OSError, TimeoutError) as e:
        raise HodynError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    with client:
        shared = client.scatter(job, broadcast=True)
        futures = [client.submit(process_file, shared, s, o, attrs=attrs,
                                 skip_existing=skip_existing, pure=False, key=f"hodyn-{k}-{s}")
                   for k, (s, o) in enumerate(zip(sources, outputs, strict=True))]
        return _collect(futures, dask_completed(futures), done)


def _collect(futures: list, finished: Iterable, done) -> list[FileOutcome]:
    for future in finished:
        if done is not None:
            done(future.result())
    return [f.result() for f in futures]
