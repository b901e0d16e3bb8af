"""A trajectory file proven (``hodyn validate``): its chunks read once through the checks of
:func:`hodyn_cli.api.validate_motion` (memory bounded by a chunk and the samples checked)."""

from __future__ import annotations

from contextlib import closing
from typing import TYPE_CHECKING, Any

import numpy as np

from hodyn_cli import api
from hodyn_cli.core.model import Model
from hodyn_cli.modeling.contacts import Contact
from hodyn_cli.pipeline.inputs import open_input
from hodyn_cli.pipeline.jobs import contact_flags
from hodyn_cli.pipeline.parallel import prefetched
from hodyn_cli.pipeline.protocols import Notify, tell
from hodyn_cli.pipeline.stream import default_jobs

if TYPE_CHECKING:
    from hodyn_cli.api.streaming import Report

__all__ = ["validate_file"]

#: q derivative orders the checks read (q..qdddd: tau to taudd, and their differences)
NEED = 4


def validate_file(model: Model, source: str, *, notify: Notify = None,
                  wrench: str | None = None, estimate: bool = False, cutoff: float | None = None,
                  strict: bool = False, floating: bool = False, base_motion: str | None = None,
                  contacts: tuple[Contact, ...] = (), jobs: int | None = None,
                  **checks: Any) -> Report:
    """The checks of :func:`hodyn_cli.api.validate_motion` (``checks``: its options) on the
    trajectory at ``source``, read chunk by chunk as :func:`~hodyn_cli.pipeline.inputs.open_input`
    reads it (``wrench``, ``estimate``, ``cutoff``, ``strict``; a floating root's twist to
    Vbdd, Vbddd where the file has it; the flags of ``contacts``), its chunks read ahead on
``jobs`` threads (default: every core). What reading it warned about
    counts as ``warn`` checks; ``notify`` hears the input's notes. An overflow is an error
    (the torques) or fails its check (NaN): no numpy warnings."""
    with open_input(source, model, NEED, wrench=wrench, wrench_need=NEED - 1, cutoff=cutoff,
                    estimate=estimate, strict=strict, floating=floating,
                    base_motion=base_motion, base_orders=NEED - 1, base_most=NEED,
                    flags=contact_flags(contacts)) as reader:
        tell(notify, reader.notes)
        # read ahead on the threads; closed (its threads ended) however the pass ends
        with closing(prefetched(reader, jobs or default_jobs(), reader.cancel)) as chunks, \
                np.errstate(over="ignore", invalid="ignore"):
            report = api.validate_motion(
                model, chunks=chunks, source=source, estimated=reader.estimated,
                warnings=[n.message for n in reader.notes if n.level == "warning"],
                contacts=contacts, **checks)
    tell(notify, reader.end_notes())
    return report
