"""What each command computes per trajectory chunk, as plain picklable objects built on the
Python API (:mod:`hodyn_cli.api`).

A job (:class:`~hodyn_cli.pipeline.protocols.Job`) knows how many q derivative orders it needs
(``need``) and wrench orders (``wrench_need``), the CSV columns of its output (``columns``),
and maps a chunk to named datasets (``__call__``): the API's result fields, plus ``t``. What
every job shares: :mod:`~hodyn_cli.pipeline.job`; ``check``'s and ``retime``'s jobs:
:mod:`~hodyn_cli.pipeline.laws`.
:func:`hodyn_cli.pipeline.stream.run` runs one over a file; a Dask worker gets the same object
(:mod:`hodyn_cli.pipeline.batch`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli import api
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Diagnostic, Model
from hodyn_cli.core.motion import LinkMotion
from hodyn_cli.core.trajectory import Trajectory, derivative_name
from hodyn_cli.errors import HodynError
from hodyn_cli.io.reader import CHUNK_ROWS
from hodyn_cli.io.results import (
    DERIVATIVE_NOTES,
    MATRIX_NOTES,
    centroidal_columns,
    contact_datasets,
    derivative_columns,
    joint_wrench_datasets,
    motion_columns,
    timed_columns,
    with_t,
    wrench_datasets,
)
from hodyn_cli.modeling.contacts import Contact
from hodyn_cli.modeling.limits import beyond_limits
from hodyn_cli.pipeline.contacts import ContactTally
from hodyn_cli.pipeline.job import _Job, contact_flags

if TYPE_CHECKING:
    from hodyn_cli.api.regressor import BaseParameters
    from hodyn_cli.modeling.drives import Drives

__all__ = ["TorqueJob", "ElasticJob", "KinematicsJob", "MatricesJob", "RegressorJob",
           "SensitivityJob", "IkJob", "ForwardJob"]


#: bytes of output per chunk for the jobs with big outputs per sample: big enough that the
#: per-chunk costs (h5py calls, thread hand-offs) are small against the work, small enough
#: that the ``jobs + 3`` chunks in flight stay far below the memory budget
CHUNK_BYTES = 8 << 20


def rows_for(numbers_per_sample: int) -> int:
    """Samples per chunk when each sample yields ``numbers_per_sample`` float64 numbers.

    >>> rows_for(490), rows_for(10**6)
    (2139, 16)
    """
    return max(16, min(CHUNK_ROWS, CHUNK_BYTES // (8 * max(1, numbers_per_sample))))


@dataclass(frozen=True, eq=False, repr=False)
class _RigidJob(_Job):
    """A rigid-body computation of derivative order ``order``."""

    order: int = 2
    gravity: tuple = GRAVITY

    @property
    def need(self) -> int:
        return api.required_orders(self.order)

    @property
    def wrench_need(self) -> int:
        return self.order + 1

    @property
    def base_need(self) -> int:  # type: ignore[override]
        return self.order + 2  # the root's twist to V^(order+1), like q to q^(order+2)


@dataclass(frozen=True, eq=False, repr=False)
class TorqueJob(_RigidJob):
    """``hodyn compute``: tau and its derivatives (and joint wrenches, HDF5 only; the base
    wrench ``W_<root>``, fixed or floating base (``chunk.base``)); with rigid ``drives``
    (model ``drive_model``) also the motor torques and, where a drive has a torque constant,
    the currents (``api.drive_dynamics``)."""

    method: str = "body-fixed"
    joint_wrenches: bool = False
    base_wrench: bool = False
    drives: Drives | None = None
    drive_model: str = "full"
    #: a floating base on these contacts (docs/contacts.md): the contact wrenches too, and
    #: the torques with them; ``tally`` gathers what to tell at the end
    contacts: tuple[Contact, ...] = ()
    tally: ContactTally | None = None

    @property
    def flags(self) -> tuple[str, ...] | None:  # type: ignore[override]
        return contact_flags(self.contacts)

    @property
    def chunk_rows(self) -> int:  # type: ignore[override]
        # on contacts: the frames' forward pass and the distribution's jets hold ~25 kB per
        # sample for a humanoid at order 2 (peak RSS ~440 MB at the reader's chunk, ~250 MB here)
        return CHUNK_ROWS // 4 if self.contacts else CHUNK_ROWS

    @property
    def current_joints(self) -> list[str]:
        """The joints whose drive has a torque constant (they get current columns)."""
        names = self.model.joint_names
        return [] if self.drives is None else [names[j] for j in np.flatnonzero(
            self.drives.current)]

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        columns = derivative_columns("tau", self.order, self.model.coordinate_names)
        if self.model.actuated is not None:
            columns |= derivative_columns("Fl", self.order, api.loop_components(self.model))
        for c in self.contacts:
            columns |= contact_datasets(c.name, c.prefix, c.components,
                                        np.zeros((0, self.order + 1, c.size)))[1]
        if self.base_wrench:
            columns |= wrench_datasets(self.model.root_link, np.zeros((0, self.order + 1, 6)))[1]
        if self.drives is not None:
            columns |= derivative_columns("taum", self.order, self.model.joint_names)
            if self.current_joints:
                columns |= derivative_columns("current", self.order, self.current_joints)
        return timed_columns(columns, has_t)

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        if self.drives is not None:
            r = api.drive_dynamics(self.model, self.drives, chunk, order=self.order,
                                   model=self.drive_model, gravity=self.gravity,
                                   data=self.data)
            current = [derivative_name("current", k) for k in range(self.order + 1)]
            data = {name: r[name] for name in r if name not in current}
            if self.current_joints:
                data |= {name: r[name][:, self.drives.current] for name in current}
            return with_t(data, chunk.t)
        if self.contacts:
            return self._on_contacts(chunk)
        r = api.inverse_dynamics(self.model, chunk, order=self.order, method=self.method,
                                 gravity=self.gravity, joint_wrenches=self.joint_wrenches,
                                 base_wrench=self.base_wrench, data=self.data)
        W = [derivative_name("W", k) for k in range(self.order + 1)] if self.base_wrench else []
        data = {name: r[name] for name in r if name != "F" and name not in W}
        if self.joint_wrenches:
            data |= joint_wrench_datasets(r.F, self.model.link_names)
        if W:
            data |= wrench_datasets(self.model.root_link, np.stack([r[w] for w in W], axis=1))[0]
        return with_t(data, chunk.t)

    def _on_contacts(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        r = api.contact_dynamics(self.model, self.contacts, chunk, order=self.order,
                                 method=self.method, gravity=self.gravity, base_wrench=True,
                                 data=self.data)
        K = range(self.order + 1)
        data = {derivative_name("tau", k): r[derivative_name("tau", k)] for k in K}
        wrenches = {}
        for c in self.contacts:
            F = np.stack([r[f"{derivative_name(c.prefix, k)}_{c.name}"] for k in K], axis=1)
            data |= contact_datasets(c.name, c.prefix, c.components, F)[0]
            wrenches[c.name] = F[:, 0]
        W = np.stack([r[derivative_name("W", k)] for k in K], axis=1)
        if self.base_wrench:
            data |= wrench_datasets(self.model.root_link, W)[0]
        if self.tally is not None:
            self.tally.add(W[:, 0], wrenches, chunk.t)
        return with_t(data, chunk.t)


@dataclass(frozen=True, eq=False, repr=False)
class ElasticJob(_Job):
    """``hodyn elastic``: u, theta and tau_m of an elastic-joint robot."""

    drives: Drives
    order: int = 0
    kind: str = "full"
    gravity: tuple = GRAVITY

    @cached_property  # probes the model: once per job, not per chunk
    def requirements(self):
        return api.elastic_requirements(self.model, self.drives, self.order, self.kind,
                                        self.data)

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
        r = api.elastic_dynamics(self.model, self.drives, chunk, order=self.order,
                                 model=self.kind, gravity=self.gravity, data=self.data)
        return self._datasets(r, chunk)


@dataclass(frozen=True, eq=False, repr=False)
class KinematicsJob(_Job):
    """``hodyn kinematics``: one link's pose, twists and point derivatives; with ``com`` the
    total mass, centre of mass and centroidal momentum (``api.centre_of_mass``); with
    ``jacobian`` its Jacobians and their derivatives (``api.link_jacobian``, HDF5 only)."""

    link: str | None
    order: int = 3
    com: bool = False
    jacobian: bool = False

    @property
    def chunk_rows(self) -> int:  # type: ignore[override]
        # Js and Jb: 2 x 6 x (6 + n) numbers per order and sample (6 kB for a quadruped at
        # order 3)
        return rows_for(12 * (6 + self.model.n) * (self.order + 1)) if self.jacobian else CHUNK_ROWS

    @property
    def need(self) -> int:
        return self.order + 2

    @property
    def base_need(self) -> int:  # type: ignore[override]
        return self.order + 1

    wrench_need = 0

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        columns = {}
        if self.link is not None:
            keys = ["p", "R"] + [derivative_name(b, k) for b in ("Vs", "Vb")
                                 for k in range(self.order + 1)]
            keys += [derivative_name("p", k + 1) for k in range(self.order + 1)]
            columns = motion_columns(keys)
        if self.com:
            columns |= centroidal_columns(self.order)
        return timed_columns(columns, has_t)

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        out = {} if self.link is None else dict(api.forward_kinematics(
            self.model, self.link, chunk, order=self.order, data=self.data))
        if self.com:
            out |= dict(api.centre_of_mass(self.model, chunk, order=self.order, data=self.data))
        if self.jacobian:
            assert self.link is not None  # --jacobian takes --link (capabilities)
            out |= dict(api.link_jacobian(self.model, self.link, chunk, order=self.order,
                                          data=self.data))
        return with_t(out, chunk.t)


@dataclass(frozen=True, eq=False, repr=False)
class MatricesJob(_RigidJob):
    """``hodyn matrices``: M, C, Cbar, g (and Q_ext) with derivatives (HDF5 only); with
    ``state`` / ``parameters`` their derivatives by q, qd / by the dynamic parameters."""

    state: bool = False
    parameters: bool = False
    #: a floating base on these contacts: Q_ext with them, Jc, Fc (``api.contact_matrices``)
    contacts: tuple[Contact, ...] = ()
    #: the chunks carry a floating root's motion: the matrices are (6 + nv) x (6 + nv)
    floating_base: bool = False

    @property
    def flags(self) -> tuple[str, ...] | None:  # type: ignore[override]
        return contact_flags(self.contacts)

    @property
    def chunk_rows(self) -> int:  # type: ignore[override]
        # M, C, Cbar, g, Q_ext: (3 n^2 + 2 n) numbers per order and sample (3.8 kB at order 2
        # for the iiwa; Q_ext only with wrenches or contacts: counted always); on k contact
        # rows Jc and Fc, (n + 1) k more (a quadruped's 4 feet on a floating base: 2.8 times
        # its fixed base's width at order 2); d/dq: 5 n^3 + 2 n^2 (15 kB), d/dpi: (3 n^2 + n)
        # 10 nb (86 kB); n counts the coordinates (nv; 6 + nv on a floating base), nb the
        # bodies
        n, nb = self.model.nv + 6 * (self.floating_base or bool(self.contacts)), self.model.n
        k = sum(c.size for c in self.contacts)
        return rows_for((3 * n**2 + 2 * n + (n + 1) * k) * (self.order + 1)
                        + (5 * n**3 + 2 * n**2) * self.state
                        + (3 * n**2 + n) * 10 * nb * self.parameters)

    def notes(self) -> dict[str, str]:
        """HDF5 attributes ``about_<dataset>``: what each of its datasets is."""
        notes = {f"about_{name}": text for name, text in MATRIX_NOTES.items()}
        ends = (("_dq", "_dqd") if self.state else ()) + (("_dpi",) if self.parameters else ())
        return notes | {f"about_{name}": text for name, text in DERIVATIVE_NOTES.items()
                        if ends and name.endswith(ends)}

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        if self.contacts:
            r = api.contact_matrices(self.model, self.contacts, chunk, order=self.order,
                                     gravity=self.gravity)
        else:
            r = api.matrices(self.model, chunk, order=self.order, gravity=self.gravity,
                             state_derivatives=self.state, parameter_derivatives=self.parameters,
                             data=self.data)
        return self._datasets(r, chunk)


@dataclass(frozen=True, eq=False, repr=False)
class RegressorJob(_RigidJob):
    """``hodyn regressor``: Y and its derivatives (``Y_d``, ...), the base-parameter columns
    (``Y_base``, ...) and the Slotine-Li ``Y_r`` (HDF5 only); with ``drives`` the columns of
    their ``friction`` and rotor inertia (``armature``); a floating base's with the base
    wrench rows (``chunk.base``)."""

    base: BaseParameters | None = None
    slotine_li: bool = False
    drives: Drives | None = None
    friction: bool = False
    armature: bool = False
    drive_model: str = "full"
    #: the chunks carry a floating root's motion: Y is (6 + n) x 10 (nb + 1)
    floating_base: bool = False

    @property
    def chunk_rows(self) -> int:  # type: ignore[override]
        # Y is n x 10 nb per order and sample (3.9 kB for the iiwa at order 0), 6 more rows
        # and 10 more columns with a floating root, up to 4 per drive (rotor inertia,
        # friction); Y_base (--base) and Y_r (--slotine-li) at most as much again
        n, f = self.model.n, int(self.floating_base)
        drives = 0 if self.drives is None else 4 * int(self.drives.driven.sum())
        copies = 1 + (self.base is not None) + self.slotine_li
        return rows_for((self.model.nv + 6 * f) * (10 * (n + f) + drives) * (self.order + 1)
                        * copies)

    @property
    def series(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("qr_d", "qr_dd") if self.slotine_li else ()

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        series = chunk.series or {}  # the reader gives what :attr:`series` names
        ref = {k: series[k] for k in self.series}
        r = api.dynamic_regressor(self.model, chunk, order=self.order, gravity=self.gravity,
                                  base=self.base, drives=self.drives, friction=self.friction,
                                  armature=self.armature, drive_model=self.drive_model,
                                  data=self.data, **ref)
        return self._datasets(r, chunk)


@dataclass(frozen=True, eq=False, repr=False)
class SensitivityJob(_RigidJob):
    """``hodyn sensitivities``: d tau^(k) / d q^(j) (HDF5 only)."""

    @property
    def chunk_rows(self) -> int:  # type: ignore[override]
        # d tau^(k) / d q^(j), j <= k + 2: nv^2 (k + 3) numbers per order k and sample
        return rows_for(self.model.nv**2 * sum(k + 3 for k in range(self.order + 1)))

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        r = api.torque_sensitivities(self.model, chunk, order=self.order, gravity=self.gravity,
                                     data=self.data)
        return self._datasets(r, chunk)


@dataclass(frozen=True, eq=False, repr=False)
class ForwardJob(_Job):
    """``hodyn forward``: qdd and its first ``order`` time derivatives from q, qd and the
    torque columns tau, taud, ... (and with ``partials`` d qdd / d (q, qd, tau), HDF5 only);
    with ``floating_base`` the root's body-twist rates ``base_Vbd``, ... too."""

    order: int = 0
    gravity: tuple = GRAVITY
    partials: bool = False
    #: the chunks carry a floating root's pose and body twist (``chunk.base``)
    floating_base: bool = False

    need = 2  # q, qd: the state

    @property
    def base_need(self) -> int:  # type: ignore[override]
        return int(self.floating_base)  # base_Vb: the root's share of the state

    @property
    def chunk_rows(self) -> int:  # type: ignore[override]
        return 4096 if self.partials else CHUNK_ROWS

    @property
    def wrench_need(self) -> int:
        return self.order + 1

    @property
    def series(self) -> tuple[str, ...]:  # type: ignore[override]
        return tuple(derivative_name("tau", k) for k in range(self.order + 1))

    def columns(self, has_t: bool) -> dict[str, list[str]]:
        names = self.model.coordinate_names
        columns = {derivative_name("q", k): [f"{derivative_name('q', k)}_{j}" for j in names]
                   for k in range(2, self.order + 3)}
        if self.floating_base:
            columns |= motion_columns([f"base_{derivative_name('Vb', k)}"
                                       for k in range(1, self.order + 2)])
        return timed_columns(columns, has_t)

    def __call__(self, chunk: Trajectory) -> dict[str, np.ndarray]:
        r = api.forward_dynamics(self.model, chunk, gravity=self.gravity, partials=self.partials,
                                 data=self.data)
        return self._datasets(r, chunk)


class IkJob:
    """``hodyn ik``: joint motion from a link's motion. Unlike the others this job has a
    state (each chunk continues from the last sample of the one before), so it runs on
    one thread, chunks in order, on the streaming solver :func:`hodyn_cli.api.ik_solver`."""

    def __init__(self, model: Model, link: str, *, task: str = "pose", q0=None,
                 max_condition: float | None = None, on_singular: str = "error",
                 strict: bool = False, source: str | None = None, **options):
        self.model, self.strict, self.source = model, strict, source
        self.link, self.task = link, task
        self.solver = api.ik_solver(model, link, task=task, q0=q0, on_singular=on_singular,
                                    max_condition=max_condition, **options)
        self.max_condition = self.solver.max_condition
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
        return with_t({derivative_name("q", k): qs[:, k] for k in range(qs.shape[1])}, motion.t)

    def end_notes(self) -> list[Diagnostic]:
        """What is known once every chunk was solved: a warning per joint whose positions
        left its URDF limits, where the Jacobian was near-singular and where the solution
        jumped to another branch; notices of the first pose's branches and of the largest
        condition number."""
        source, solver = self.source, self.solver
        notes = [Diagnostic("warning", f"{source}: {text}") for text in self.beyond_limits.values()]
        if solver.singular:
            first, worst = solver.singular[0], max(solver.singular, key=lambda x: x[2])
            notes.append(Diagnostic("warning", (
                f"{source}: the Jacobian of '{self.link}' is near-singular at "
                f"{len(solver.singular)} sample(s) (condition number > {self.max_condition:g}): "
                f"first {_at(first[0], first[1])} ({first[2]:.3g}), largest {worst[2]:.3g} "
                f"{_at(worst[0], worst[1])}")))
        if solver.jumps:
            jump, largest = solver.jumps[0], max(solver.jumps, key=lambda x: abs(x[3]))
            notes.append(Diagnostic("warning", (
                f"{source}: the joint motion jumps to another branch at {len(solver.jumps)} "
                f"sample(s) (position steps the rates do not explain): first "
                f"{_at(jump[0], jump[1])} (q_{jump[2]} off by {jump[3]:.3g}), largest "
                f"{_at(largest[0], largest[1])} (q_{largest[2]} off by {largest[3]:.3g})")))
        if solver.branches is not None and len(solver.branches) > 1:
            notes.append(Diagnostic("notice", f"{source}: {self._branches(solver.branches)}"))
        c, t, sample = solver.condition_max
        notes.append(Diagnostic("notice", f"{source}: {solver.done} samples; largest Jacobian "
                                          f"condition number {c:.3g} {_at(sample, t)}"))
        return notes

    def _branches(self, found: np.ndarray) -> str:
        """The first pose's joint solutions (``found``): which one the motion starts on, and
        the next."""
        def joints(q) -> str:
            return ",".join(f"{v:.4g}" for v in q)

        solver = self.solver
        far = [solver.distance(q) for q in found[:2]]
        return (f"the first pose has {len(found)} joint solutions (branches); the motion starts "
                f"on the one nearest --q0 (largest joint difference, modulo turns, "
                f"{far[0]:.3g}): {joints(found[0])}; the next nearest ({far[1]:.3g}): "
                f"{joints(found[1])}; --q0 near another starts there")


def _at(sample: int, t: float | None) -> str:
    return f"at sample {sample}" if t is None else f"at t = {t:.6g} s"
