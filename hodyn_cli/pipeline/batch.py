"""Many trajectory files: one output per input, on local threads or a Dask cluster.

Each file is streamed on its own (:func:`process_file`); a bad file is reported and the
others go on. On a cluster (``pip install "hodyn[cluster]"``) every task reads its input
and writes its output itself, so inputs and the output directory must be on a filesystem
all workers see under the same paths; the job (model included) is sent to the workers once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from hodyn_cli.errors import HodynError
from hodyn_cli.io import TrajectoryReader, file_format, open_sink
from hodyn_cli.pipeline import stream

__all__ = ["FileOutcome", "output_path", "plan_outputs", "process_file", "run_local",
           "run_on_cluster"]

EXTENSIONS = {"csv": ".csv", "hdf5": ".h5"}


@dataclass(frozen=True)
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


def plan_outputs(sources: list[str], out_dir: str, fmt: str | None) -> list[str]:
    """Output paths for every input; two inputs that would write the same file are an error."""
    if not Path(out_dir).is_dir():
        raise HodynError(f"output directory '{out_dir}' does not exist")
    outputs, seen = [], {}
    for src in sources:
        if src == "-":
            raise HodynError("'-' (stdin) cannot be one of many inputs")
        out = output_path(src, out_dir, fmt)
        if out in seen:
            raise HodynError(f"'{seen[out]}' and '{src}' would both write '{out}'")
        seen[out] = src
        outputs.append(out)
    return outputs


def process_file(job, source: str, output: str, *, attrs: dict | None = None,
                 skip_existing: bool = False) -> FileOutcome:
    """Stream one file through ``job``; errors become a failed outcome, never an exception."""
    if skip_existing and Path(output).exists():
        return FileOutcome(source, output, "skipped", "output exists")
    try:
        with TrajectoryReader(source, job.model, job.need) as reader:
            with open_sink(output, job.columns(reader.has_t),
                           {"joint_names": list(job.model.joint_names), **(attrs or {}),
                            "trajectory": source}) as sink:
                n = stream.run(reader, job, sink)
        return FileOutcome(source, output, "ok", samples=n)
    except HodynError as e:
        return FileOutcome(source, output, "failed", str(e))
    except Exception as e:  # noqa: BLE001 - one bad file must not stop the others
        return FileOutcome(source, output, "failed", f"internal error: {type(e).__name__}: {e}")


def run_local(job, sources: list[str], outputs: list[str], *, attrs: dict | None = None,
              jobs: int = 1, skip_existing: bool = False,
              done: Callable[[FileOutcome], None] | None = None) -> list[FileOutcome]:
    """Every file on ``jobs`` threads; ``done(outcome)`` as each one finishes."""
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        futures = [pool.submit(process_file, job, s, o, attrs=attrs, skip_existing=skip_existing)
                   for s, o in zip(sources, outputs, strict=True)]
        return _collect(futures, as_completed(futures), done)


def scheduler_address(text: str) -> str:
    """A scheduler address, or the ``address`` in a scheduler file (``dask scheduler
    --scheduler-file F``)."""
    path = Path(text)
    if path.suffix == ".json" and path.is_file():
        try:
            return json.loads(path.read_text())["address"]
        except (OSError, ValueError, KeyError):
            raise HodynError("not a Dask scheduler file (no 'address')", text) from None
    return text


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
        raise HodynError('--scheduler needs Dask: pip install "hodyn[cluster]"') from None
    address = scheduler_address(address)
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
