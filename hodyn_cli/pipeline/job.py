"""What every job shares (:class:`_Job`), apart from the jobs: ``check`` and ``retime``
import theirs (:mod:`~hodyn_cli.pipeline.laws`) without the other commands'
(:mod:`~hodyn_cli.pipeline.jobs`). Each job class costs its command's start ~1 ms as it is
made (a frozen dataclass: its ``__init__``, ``__setattr__`` and ``__delattr__`` compiled by
``exec``), and a command runs one job.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from hodyn_cli import api
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io.reader import CHUNK_ROWS
from hodyn_cli.io.results import with_t
from hodyn_cli.modeling.contacts import Contact, flag_column

__all__ = ["contact_flags"]  # (and _Job: the base of the jobs of this package)


def contact_flags(contacts: tuple[Contact, ...]) -> tuple[str, ...] | None:
    """The trajectory columns that say which of ``contacts`` are active (None: no contacts)."""
    return tuple(flag_column(c.name) for c in contacts) if contacts else None


@dataclass(frozen=True, eq=False, repr=False)
class _Job:
    """What every job shares: the model, the chunk size, no extra per-joint series."""

    model: Model

    #: samples per chunk: the reader's default; jobs with big outputs per sample use fewer
    chunk_rows: ClassVar[int] = CHUNK_ROWS
    #: other per-joint columns the job reads
    series: ClassVar[tuple[str, ...]] = ()
    #: the contact columns ``contact_<name>`` it reads where present (None: none)
    flags: ClassVar[tuple[str, ...] | None] = None
    #: twist derivative orders of a floating root it reads (none: it takes no floating root)
    base_need: ClassVar[int] = 0

    @property
    def base_most(self) -> int:
        """The twist orders it reads where the file has them: what it needs."""
        return self.base_need

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        return {}  # HDF5 only, unless a job says otherwise

    def _datasets(self, result: api.Result, chunk: Trajectory) -> dict[str, np.ndarray]:
        return with_t(dict(result), chunk.t)

    @cached_property  # once per job (the request), on its first chunk: every chunk shares it
    def data(self) -> Any:
        """What the backend derives from the model (:func:`~hodyn_cli.api.backend_data`)."""
        return api.backend_data(self.model)

    def __getstate__(self) -> dict:
        """Pickled (to a Dask worker) without the Data: it is this process's (the compiled
        kernel's struct holds pointers, its backend a loaded library); the worker makes its
        own on its first chunk."""
        state = self.__dict__.copy()
        state.pop("data", None)
        return state
