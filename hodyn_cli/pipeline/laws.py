"""The jobs of ``hodyn check`` and ``retime`` (:class:`LawsJob`: a chunk's time-scaling
laws; :class:`RetimeJob`: a chunk played slower or faster), in a module of their own: their
commands' start makes no other job class (:mod:`~hodyn_cli.pipeline.job`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli import api
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io.results import base_datasets, joint_datasets
from hodyn_cli.modeling.contacts import Contact
from hodyn_cli.pipeline.job import _Job, contact_flags

if TYPE_CHECKING:
    from hodyn_cli.api.limits import Retiming
    from hodyn_cli.modeling.drives import Drives

__all__ = ["LawsJob", "RetimeJob"]


@dataclass(frozen=True, eq=False, repr=False)
class LawsJob(_Job):
    """``hodyn check`` and ``retime``: the time-scaling laws of every limited series of a chunk
    (:func:`hodyn_cli.api.scaling_laws`): rigid to torque order ``order`` (-1: positions and
    velocities only), with ``drives`` elastic or rigid. A reduction: its laws feed a
    :class:`~hodyn_cli.algorithms.limits.feasibility.Check` or ``ScaleSearch``, not a sink."""

    order: int = 2
    drives: Drives | None = None
    kind: str = "full"
    gravity: tuple = GRAVITY
    #: a floating base on these contacts: the torques on them, their wrenches' laws
    contacts: tuple[Contact, ...] = ()

    @property
    def flags(self) -> tuple[str, ...] | None:  # type: ignore[override]
        return contact_flags(self.contacts)

    @cached_property  # probes the model: once per job, not per chunk
    def requirements(self):
        return api.scaling_requirements(self.model, self.drives, self.order, self.kind,
                                        self.data)

    @property
    def need(self) -> int:
        req = self.requirements
        if req is not None:
            return req.q_order + 1
        # contacts: their wrenches need the dynamics (order 0) even without torque limits
        return max(2, api.required_orders(self.order if not self.contacts else max(self.order, 0)))

    @property
    def chunk_rows(self) -> int:  # type: ignore[override]
        # elastic laws: ~P+1 grades of u, theta, taum per sample (~2 kB for the iiwa)
        return _Job.chunk_rows if self.drives is None else _Job.chunk_rows // 4

    @property
    def wrench_need(self) -> int:
        req = self.requirements
        return self.order + 1 if req is None else req.q_order - 1

    @property
    def base_need(self) -> int:  # type: ignore[override]
        return max(self.order, 0) + 2

    @property
    def base_most(self) -> int:
        return 16  # every order the file has: a retimed file keeps them

    def __call__(self, chunk: Trajectory) -> dict:
        return api.scaling_laws(self.model, chunk, order=self.order, drives=self.drives,
                                model=self.kind, gravity=self.gravity, data=self.data,
                                contacts=self.contacts)


@dataclass(frozen=True, eq=False, repr=False)
class RetimeJob(_Job):
    """``hodyn retime``: a chunk played as ``retiming`` says, every column of ``template`` (a
    chunk of the input with no samples: its derivative orders, wrenches, t, a floating root's
    motion, contact flags) scaled exactly; ``compact``: HDF5's ``q_derivatives``. The file
    ``output`` is written for: a model's multi-DOF joints as their poses' columns, CSV only
    (:func:`~hodyn_cli.io.results.joint_datasets`; their rows, nu's derivatives, scale by the
    chain rule as any joint's)."""

    retiming: Retiming
    template: Trajectory
    compact: bool = False
    output: str = "-"

    @property
    def need(self) -> int:
        return self.template.orders

    @property
    def wrench_need(self) -> int:
        W = self.template.wrenches
        return 0 if W is None else W.orders

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        return joint_datasets(self.output, self.template, self.model, self.compact)[1] | \
            base_datasets(self.template)[1]

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        played = api.played(chunk, self.retiming)
        return joint_datasets(self.output, played, self.model, self.compact)[0] | \
            base_datasets(played)[0]
