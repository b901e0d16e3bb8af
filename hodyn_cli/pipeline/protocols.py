"""What the pipeline's parts promise each other: a Reader of trajectory chunks, a Job that
maps a chunk to named datasets, a Sink that writes them (:func:`hodyn_cli.pipeline.stream.run`
connects the three)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

import numpy as np

from hodyn_cli.core.model import Diagnostic, Model
from hodyn_cli.core.trajectory import Trajectory

__all__ = ["Reader", "Job", "Sink", "Notify", "tell"]

#: who hears a run's notes and warnings (the command line prints them), or None: nobody
Notify = Callable[[Diagnostic], None] | None


def tell(notify: Notify, notes: Iterable[Diagnostic]) -> None:
    """Pass each of ``notes`` to ``notify`` (if someone listens)."""
    if notify is not None:
        for note in notes:
            notify(note)


class Reader(Protocol):
    """Trajectory chunks in order (a context manager that closes its files)."""

    has_t: bool
    n_samples: int | None  # None: not known before the end (CSV)

    def __iter__(self) -> Iterator[Trajectory]: ...
    def cancel(self) -> None: ...  # end the chunks early; thread-safe (unblocks a pipe read)
    def __enter__(self) -> Reader: ...
    def __exit__(self, *exc) -> None: ...


class Job(Protocol):
    """One command's computation per chunk; picklable (it also runs on Dask workers)."""

    model: Model
    need: int  # q derivative orders it reads (5: q..qdddd)
    wrench_need: int  # wrench derivative orders it reads
    chunk_rows: int  # samples per chunk
    series: tuple[str, ...]  # other per-joint columns it reads (e.g. qr_d)
    flags: tuple[str, ...] | None  # contact columns it reads where present (None: none)
    base_need: int  # a floating root's twist derivative orders it reads (Vb, Vbd, ...)
    base_most: int  # ... and reads up to where the file has them (a retimed file keeps them)

    def columns(self, has_t: bool) -> dict[str, list[str]]: ...
    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]: ...


class Sink(Protocol):
    """Named datasets written chunk by chunk; ``encode`` is thread-safe (workers call it)."""

    attrs: dict

    def encode(self, data: dict[str, np.ndarray]) -> Any: ...
    def write_encoded(self, payload: Any) -> None: ...
    def write(self, data: dict[str, np.ndarray]) -> None: ...
    def close(self) -> None: ...
