"""What each command computes per trajectory chunk, as plain picklable objects.

A job knows how many q derivative orders it needs (``need``) and wrench orders
(``wrench_need``), the CSV columns of its output (``columns``), and maps a chunk to named
datasets (``__call__``). :func:`hodyn_cli.pipeline.stream.run` runs one over a file; a Dask worker
gets the same object (:mod:`hodyn_cli.pipeline.batch`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from hodyn_cli.algorithms import elastic, methods, regressor, sensitivities
from hodyn_cli.algorithms.ik import MAX_CONDITION, InverseKinematics, LinkMotion
from hodyn_cli.algorithms.kinematics import link_kinematics
from hodyn_cli.algorithms.methods import closed_form, required_orders
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError
from hodyn_cli.io.reader import CHUNK_ROWS, beyond_limits
from hodyn_cli.io.results import (
    derivative_columns,
    derivative_datasets,
    elastic_datasets,
    joint_wrench_datasets,
    matrix_datasets,
    rate_name,
    timed_columns,
    torque_datasets,
    with_t,
)
from hodyn_cli.modeling import mimic
from hodyn_cli.modeling.drives import Drives

__all__ = ["TorqueJob", "ElasticJob", "KinematicsJob", "MatricesJob", "RegressorJob",
           "SensitivityJob", "IkJob"]


class _RigidOrders:
    """Inputs of a rigid-body computation of derivative order ``order``."""

    order: int
    #: samples per chunk: the reader's default; jobs with big outputs per sample use fewer
    chunk_rows: int = CHUNK_ROWS

    @property
    def need(self) -> int:
        return required_orders(self.order)

    @property
    def wrench_need(self) -> int:
        return self.order + 1


@dataclass(frozen=True, eq=False)
class TorqueJob(_RigidOrders):
    """``hodyn compute``: tau and its derivatives (and joint wrenches, HDF5 only)."""

    model: Model
    method: str = "body-fixed"
    order: int = 2
    gravity: tuple = methods.GRAVITY
    joint_wrenches: bool = False

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        return timed_columns(derivative_columns("tau", self.order, self.model.coordinate_names), has_t)

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        full = mimic.expand(self.model, chunk)
        tau = methods.inverse_dynamics(self.model, full, method=self.method, order=self.order,
                                       gravity=self.gravity)
        data = torque_datasets(mimic.project(self.model, tau), self.model.coordinate_names)[0]
        if self.joint_wrenches:
            F = methods.joint_wrenches(self.model, full, method=self.method, order=self.order,
                                       gravity=self.gravity)
            data |= joint_wrench_datasets(F, self.model.link_names)
        return with_t(data, chunk.t)


@dataclass(frozen=True, eq=False)
class ElasticJob:
    """``hodyn elastic``: u, theta and tau_m of an elastic-joint robot."""

    model: Model
    drives: Drives
    order: int = 0
    kind: str = "full"
    gravity: tuple = methods.GRAVITY

    def __post_init__(self):
        if mimic.active(self.model):
            raise HodynError("hodyn elastic does not support <mimic> joints yet")

    @cached_property  # probes the model: once per job, not per chunk
    def requirements(self) -> elastic.Requirements:
        return elastic.requirements(self.model, self.drives, self.order, self.kind)

    @property
    def need(self) -> int:
        return self.requirements.q_order + 1

    @property
    def wrench_need(self) -> int:
        return self.requirements.q_order - 1

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        names = self.model.joint_names
        return timed_columns({**derivative_columns("u", self.order + 2, names),
                       **derivative_columns("theta", self.order + 2, names),
                       **derivative_columns("taum", self.order, names)}, has_t)

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        res = elastic.inverse_dynamics(self.model, chunk, self.drives, order=self.order,
                                       kind=self.kind, gravity=self.gravity,
                                       known=self.requirements)
        return with_t(elastic_datasets(res, self.model.joint_names)[0], chunk.t)


@dataclass(frozen=True, eq=False)
class KinematicsJob:
    """``hodyn kinematics``: one link's pose, twists and point derivatives."""

    model: Model
    link: str
    order: int = 3

    @property
    def need(self) -> int:
        return self.order + 2

    wrench_need = 0

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        probe = Trajectory(self.model.joint_names, np.zeros((1, self.need, self.model.n)))
        data, suffixes = link_kinematics(self.model, probe, self.link, order=self.order).datasets()
        return timed_columns({key: [f"{key}_{s}" for s in suffixes[key]] for key in data}, has_t)

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        full = mimic.expand(self.model, chunk)
        data = link_kinematics(self.model, full, self.link, order=self.order).datasets()[0]
        return with_t(data, chunk.t)


@dataclass(frozen=True, eq=False)
class MatricesJob(_RigidOrders):
    """``hodyn matrices``: M, C, Cbar, g (and Q_ext) with derivatives (HDF5 only)."""

    model: Model
    order: int = 2
    gravity: tuple = methods.GRAVITY

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        return {}  # HDF5 only

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        E = closed_form.matrices(self.model, mimic.expand(self.model, chunk), order=self.order,
                                 gravity=self.gravity)
        if mimic.active(self.model):  # G^T A G, G^T v: the independent coordinates
            E = closed_form.EOMMatrices(*(mimic.project_matrices(self.model, A)
                                          for A in (E.M, E.C, E.Cbar)),
                                        *(mimic.project(self.model, v) for v in (E.g, E.Q_ext)))
        return with_t(matrix_datasets(E, chunk.wrenches is not None), chunk.t)


@dataclass(frozen=True, eq=False)
class RegressorJob(_RigidOrders):
    """``hodyn regressor``: Y and its derivatives (``Y_d``, ...), the base-parameter columns
    (``Y_base``, ...) and the Slotine-Li ``Y_r`` (HDF5 only)."""

    model: Model
    order: int = 2
    gravity: tuple = methods.GRAVITY
    base: regressor.BaseParameters | None = None
    slotine_li: bool = False

    @property
    def series(self) -> tuple[str, ...]:
        return ("qr_d", "qr_dd") if self.slotine_li else ()

    @property
    def chunk_rows(self) -> int:  # Y is n x 10 nb per order and sample: ~12 kB for the iiwa
        return 1024

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        return {}  # HDF5 only

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        full = mimic.expand(self.model, chunk)
        Y = mimic.project(self.model, regressor.regressor(self.model, full, order=self.order,
                                                          gravity=self.gravity), axis=2)
        data = {rate_name("Y", k): Y[:, k] for k in range(self.order + 1)}
        if self.base is not None:
            data |= {rate_name("Y_base", k): Y[:, k][..., self.base.independent]
                     for k in range(self.order + 1)}
        if self.slotine_li:
            G, _ = mimic.coupling(self.model)
            data["Y_r"] = mimic.project(self.model, regressor.slotine_li_regressor(
                self.model, full, chunk.series["qr_d"] @ G.T, chunk.series["qr_dd"] @ G.T,
                gravity=self.gravity), axis=1)
        return with_t(data, chunk.t)


@dataclass(frozen=True, eq=False)
class SensitivityJob(_RigidOrders):
    """``hodyn sensitivities``: d tau^(k) / d q^(j) (HDF5 only)."""

    model: Model
    order: int = 2
    gravity: tuple = methods.GRAVITY

    @property
    def chunk_rows(self) -> int:  # n (K+3) complex directions per sample in flight
        return 1024

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        return {}  # HDF5 only

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        S = sensitivities.sensitivities(self.model, mimic.expand(self.model, chunk),
                                        order=self.order, gravity=self.gravity)
        return with_t({k: mimic.project_matrices(self.model, v) for k, v in S.items()},
                       chunk.t)


class IkJob:
    """``hodyn ik``: joint motion from a link's motion. Unlike the others this job has a
    state (each chunk continues from the last sample of the one before), so it runs on
    one thread, chunks in order."""

    def __init__(self, model: Model, link: str, *, task: str = "pose", q0=None,
                 max_condition: float = MAX_CONDITION, on_singular: str = "error",
                 strict: bool = False, source: str | None = None):
        self.model, self.strict, self.source = model, strict, source
        self.solver = InverseKinematics(model, link, task=task, q0=q0,
                                        max_condition=max_condition, on_singular=on_singular)
        #: joint -> where q first leaves its URDF limits (warnings; errors with ``strict``)
        self.beyond_limits: dict[str, str] = {}

    def columns(self, orders: int, has_t: bool) -> dict[str, list[str]]:
        """Columns of q and its first ``orders`` derivatives."""
        return timed_columns(derivative_columns("q", orders, self.model.joint_names), has_t)

    def __call__(self, motion: LinkMotion) -> dict[str, np.ndarray]:
        start = self.solver.done
        try:
            qs, _ = self.solver(motion)
        except HodynError as e:
            raise HodynError(e.message, e.source or self.source) from None
        for joint, text in beyond_limits(self.model, qs[:, 0], motion.t, start).items():
            if self.strict:
                raise HodynError(f"{text} (--strict)", self.source)
            self.beyond_limits.setdefault(joint, text)
        return with_t(derivative_datasets("q", qs, self.model.joint_names)[0], motion.t)
