"""What every API function does around the algorithms: take the motion it was given over the
independent joints (:class:`Motion`: the joints' coupling applied on the way in and out, in
this one place), refuse what does not combine (:func:`capable`), and name the results
(:class:`Result`, :func:`series`, :func:`rates`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from hodyn_cli.api.robots import joint_trajectory
from hodyn_cli.core.coupling import FreeRooted
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, derivative_name, free_body, rate_name
from hodyn_cli.errors import HodynError

__all__ = ["Result", "Motion", "series", "rates", "capable", "MATRIX_AXES"]

#: the axes of each equation-of-motion quantity that run over the generalized velocities (a
#: matrix's two, a generalized force's one): what :meth:`Motion.past_the_root` projects
MATRIX_AXES = {"M": (-2, -1), "C": (-2, -1), "Cbar": (-2, -1), "g": (-1,), "Q_ext": (-1,)}


class Result(Mapping):
    """Named arrays: ``result.tau`` or ``result["tau"]``; ``list(result)`` gives the names.
    ``joint_names``: the order of the joint axes of the arrays.

    >>> r = Result({"tau": np.zeros((3, 2))}, ("j1", "j2"))
    >>> r.tau.shape, list(r), r
    ((3, 2), ['tau'], Result(tau(3, 2)))
    """

    def __init__(self, fields: dict[str, np.ndarray], joint_names: tuple[str, ...]):
        self._fields, self.joint_names = dict(fields), joint_names

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["_fields"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name: str) -> np.ndarray:
        return self._fields[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k}{tuple(v.shape)}" for k, v in self._fields.items())
        return f"Result({shapes})"


class Motion:
    """The motion an API function was given, over the independent joints (``coordinates``)
    and over all joints (``full``), and whether it was one sample: the one place the joints'
    coupling (:mod:`hodyn_cli.core.coupling`: mimic joints) is applied, on the way in
    (:attr:`full`) and out (:meth:`forces`, :meth:`matrices`, :meth:`tensor`).
    ``forces_order``: the highest derivative of the forces projected (None: any;
    :meth:`~hodyn_cli.core.coupling.Coupling.expand`)."""

    def __init__(self, robot: Model, derivatives: Sequence[Any], named: dict[str, Any], *,
                 t: Any = None, wrenches: Mapping | None = None,
                 forces_order: int | None = None):

        if derivatives and isinstance(derivatives[0], Trajectory):
            if len(derivatives) > 1 or named or t is not None or wrenches:
                raise HodynError("give a Trajectory alone, or q, qd, ... arrays")
            self.coordinates, self.single = derivatives[0], False
        else:
            self.coordinates = joint_trajectory(robot, *derivatives, t=t, wrenches=wrenches,
                                                **named)
            first = derivatives[0] if derivatives else named.get("q")
            if isinstance(first, Mapping):
                self.single = np.ndim(next(iter(first.values()), 0.0)) == 0
            else:
                self.single = first is not None and np.ndim(first) == 1
        self.coupling = robot.coupling
        if self.coordinates.joint_names != self.coupling.coordinate_names:
            raise HodynError(f"the trajectory's joints {self.coordinates.joint_names} are not the "
                             f"robot's {self.coupling.coordinate_names}")
        # (a robot without joints: as many empty joint derivatives as its root's motion allows)
        self.full = free_body(self.coupling.expand(self.coordinates, forces_order))
        self.robot = robot

    def forces(self, f: np.ndarray, axis: int = -1) -> np.ndarray:
        """Generalized forces over the joints (``axis``; their time derivatives on axis 1)
        over the coordinates."""
        return self.coupling.forces(f, self.full, axis)

    def matrices(self, A: np.ndarray) -> np.ndarray:
        """(..., n, n) over the joints -> (..., m, m) over the coordinates."""
        return self.coupling.matrices(A, self.full)

    def tensor(self, A: np.ndarray) -> np.ndarray:
        """A matrix's derivatives by the joints (..., n, n, n) -> by the coordinates."""
        return self.coupling.tensor(A, self.full)

    def past_the_root(self, A: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        """A floating base's matrix (``axes`` -2, -1), force or Jacobian (-1) over ``nu =
        (V_0; qd)``, 6 + n, over ``(V_0; qd_c)``: ``G'^T`` on each axis, ``G' = diag(I_6,
        G)`` (mimic joints' ``qd = G qd_c``, G constant: the rates project alike;
        :class:`~hodyn_cli.core.coupling.FreeRooted`)."""
        if not self.coupling.active:
            return A
        rooted = FreeRooted(self.robot.free_rooted, self.coupling)
        for axis in axes:
            A = rooted.forces(A, axis=axis)
        return A

    def result(self, fields: dict[str, np.ndarray],
               joint_names: tuple[str, ...] | None = None) -> Result:
        return Result({k: (v[0] if self.single else v) for k, v in fields.items()},
                      self.coupling.coordinate_names if joint_names is None else joint_names)


def series(base: str, value: np.ndarray) -> dict[str, np.ndarray]:
    """(N, K+1, ...) -> ``{base: [:, 0], based: [:, 1], ...}``.

    >>> sorted(series("tau", np.zeros((4, 3, 2))))
    ['tau', 'taud', 'taudd']
    """
    return {derivative_name(base, k): value[:, k] for k in range(value.shape[1])}


def rates(base: str, value: np.ndarray) -> dict[str, np.ndarray]:
    """(N, K+1, ...) -> ``{base: [:, 0], base_d: [:, 1], ...}`` (matrix-valued quantities).

    >>> sorted(rates("M", np.zeros((4, 2, 3, 3))))
    ['M', 'M_d']
    """
    return {rate_name(base, k): value[:, k] for k in range(value.shape[1])}


def capable(command: str, robot: Model, **on: object) -> None:
    """The one-line refusal of :mod:`hodyn_cli.capabilities` unless ``command`` takes the
    features ``on`` (``floating_base=True``, ...) together with the robot's."""
    from hodyn_cli import capabilities

    features = {name for name, given in on.items() if given}
    if robot.actuated is not None or robot.loop_tables is not None:
        if robot.actuated is None and "loops" in capabilities.COMMANDS[command]:
            raise HodynError("the robot's closed loops (its MJCF <equality connect|weld>) are "
                             "open: close them first, api.close_loops(robot)")
        features.add("loops")
    elif robot.coupling.active:
        features.add("mimic")
    if robot.n == 0:
        features.add("no_joints")
    if robot.has_joint_models:
        features.add("joint_models")
    capabilities.check(command, features)
