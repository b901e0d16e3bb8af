"""How a robot's joints are coupled: the kind the model holds, ``model.coupling`` (built with
the model: :class:`hodyn_cli.core.model.Model`), that the API goes through on the way in and
out.

The motion is given in the independent coordinates q (``model.coordinate_names``); the
joints follow, ``q_full = phi(q)`` with the Jacobian ``G = d phi / d q`` (n x m). The
recursions run on all joints; what they give goes back by virtual work::

    tau = G^T tau_full                     generalized forces (and their time derivatives)
    M = G^T M_full G, g = G^T g_full       the matrices
    dA/dq = G^T (dA_full/dq_full G) G      a matrix's derivative by the joints

Kinds (a new kind is one class, given to the model as its ``coupling_kind``; nothing above
changes):

- :class:`Coupling`, the identity: no coupled joints;
- :class:`Linear`, URDF ``<mimic>`` (and MJCF ``<equality joint>``): ``q_f = multiplier
  q_leader + offset``, a constant G (every derivative ``q_full^(k) = G q^(k)``, the dependent
  joint's torque carried by its leader); the model's own where it has mimic joints;
- closed loops (``--loops``): a configuration-dependent phi by Newton and the implicit
  function theorem, :class:`hodyn_cli.algorithms.motion.loops.Closed`, which needs the
  kinematics and so is defined there and set as the closed model's ``coupling_kind`` by
  :func:`hodyn_cli.algorithms.motion.loops.close` (``api.close_loops``).

The methods take the trajectory they map (or the joint positions) so that a
configuration-dependent phi (closed loops: four-bar knees and ankles) can compute G(q) and its
time derivatives from it; ``tests/test_coupling.py`` builds such a kind, gives it to a model
and holds the API's inverse dynamics to virtual power with it.

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
>>> model.coupling.active, model.coupling.G.tolist()       # no mimic joints: the identity
(False, [[1.0, 0.0], [0.0, 1.0]])
"""

from __future__ import annotations

from math import comb
from typing import TYPE_CHECKING

import numpy as np

from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError

if TYPE_CHECKING:
    from hodyn_cli.core.model import Model

__all__ = ["Coupling", "Linear", "FreeRooted", "leibniz"]


class Coupling:
    """The identity: every joint is a coordinate. Subclasses override :meth:`phi` (and
    :meth:`jacobian`, :meth:`expand`, :meth:`forces` where G depends on q); the rest follows."""

    #: True when some joint follows others
    active = False

    def __init__(self, model: Model):
        # counted in velocity coordinates: a multi-DOF joint (never coupled) has nv_i of them
        self.n, self.m = model.nv, len(model.coordinate_names)
        self.joint_names, self.coordinate_names = model.joint_names, model.coordinate_names
        #: the Jacobian at q = 0, which is G everywhere for a linear coupling (n, m)
        self.G = np.eye(self.n, self.m)

    # -- the way in: coordinates -> joints --------------------------------------------------
    def phi(self, q: np.ndarray) -> np.ndarray:
        """Joint positions (..., n) of the coordinates q (..., m)."""
        return q

    def jacobian(self, q: np.ndarray) -> np.ndarray:
        """``G(q) = d phi / d q`` (..., n, m) at the coordinates q (..., m)."""
        return np.broadcast_to(self.G, q.shape[:-1] + self.G.shape)

    def expand(self, trajectory: Trajectory, forces_order: int | None = None) -> Trajectory:
        """The trajectory over all joints: q_full and its derivatives from the coordinates'.
        ``forces_order``: the highest time derivative of the forces the caller will project
        along it (:meth:`forces`; None: any its derivatives allow), for a coupling that keeps
        what the projection needs with the motion (closed loops: ``P J``'s jets)."""
        if not self.active or trajectory.joint_names == self.joint_names:
            return trajectory
        if trajectory.joint_names != self.coordinate_names:
            raise HodynError(f"the trajectory's joints {trajectory.joint_names} are not the "
                             f"coordinates {self.coordinate_names}")
        return Trajectory(self.joint_names, self._rates(trajectory.derivatives), trajectory.t,
                          trajectory.wrenches, trajectory.series, trajectory.base)

    def _rates(self, qs: np.ndarray) -> np.ndarray:
        """q_full and derivatives (N, D, n) of q and derivatives (N, D, m)."""
        return qs

    def random_coordinates(self, rng: np.random.Generator, samples: int) -> np.ndarray:
        """Coordinates (samples, m) drawn where phi is defined (what the base parameters'
        random states are made of): any angle."""
        # one per coordinate name: a multi-DOF joint's nv_i (rotation vectors: any values)
        return rng.uniform(-np.pi, np.pi, size=(samples, len(self.coordinate_names)))

    def tangent(self, v: np.ndarray, q: np.ndarray | None = None) -> np.ndarray:
        """Joint rates (N, n) of coordinate rates v (N, m) at the coordinates q (N, m): G v
        (q may be left out where G is constant)."""
        if q is None:
            return v @ self.G.T
        return (self.jacobian(q) @ v[..., None])[..., 0]

    # -- the way out: joints -> coordinates -------------------------------------------------
    def forces(self, f: np.ndarray, trajectory: Trajectory | None = None, axis: int = -1
               ) -> np.ndarray:
        """Generalized forces over the joints (``axis`` of length n) over the coordinates,
        ``G^T f``; ``f`` (N, K+1, ...) are the forces and their first K time derivatives
        along ``trajectory`` (the coordinates' or the joints'), where G varies with q."""
        if not self.active:
            return f
        return np.moveaxis(np.moveaxis(f, axis, -1) @ self.G, -1, axis)

    def matrices(self, A: np.ndarray, trajectory: Trajectory | None = None) -> np.ndarray:
        """(..., n, n) -> (..., m, m): ``G^T A G``."""
        if not self.active:
            return A
        return self.G.T @ A @ self.G

    def tensor(self, A: np.ndarray, trajectory: Trajectory | None = None) -> np.ndarray:
        """(..., n, n, n) -> (..., m, m, m): a matrix's derivative by the joints (last axis)
        over the coordinates, ``G^T (dA/dq_full G) G`` (the chain rule, then the matrix's
        own projection)."""
        if not self.active:
            return A
        return np.moveaxis(self.matrices(np.moveaxis(A @ self.G, -1, -3)), -3, -1)

    def limits(self, model: Model, source: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Position limits (n, 2) and velocity limits (n,) of the joints such that a motion
        of the coordinates inside them keeps every joint inside its own."""
        return (np.array(model.limits, dtype=float), np.array(model.velocity_limits, dtype=float))


class Linear(Coupling):
    """URDF ``<mimic>``: ``q_full = G q + o`` with a constant G (a follower's row: its
    multiplier in its leader's column) and o (the followers' offsets)."""

    active = True

    def __init__(self, model: Model):
        super().__init__(model)
        # over 1-DOF joints (a mimic of or by a multi-DOF joint is refused, and the table
        # refuses mimic joints on a robot that has one)
        self.n, self.m = model.n, len(model.coordinates)
        column = {j: c for c, j in enumerate(model.coordinates)}
        self.G = np.zeros((self.n, self.m))
        self.o = np.zeros(self.n)
        for i in range(self.n):
            leader, gain, offset = model.mimic[i]
            if leader < 0:
                self.G[i, column[i]] = 1.0
            else:
                self.G[i, column[int(leader)]] = gain
                self.o[i] = offset
        self._mimic = np.array(model.mimic)

    def phi(self, q: np.ndarray) -> np.ndarray:
        return q @ self.G.T + self.o

    def _rates(self, qs: np.ndarray) -> np.ndarray:
        d = qs @ self.G.T       # every derivative: G q^(k) (G constant)
        d[:, 0] += self.o
        return d

    def limits(self, model: Model, source: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """A leader's limits intersected with each follower's mapped back through ``q_f = g
        q_l + o``, i.e. ``q_l`` within ``(lower_f - o) / g .. (upper_f - o) / g`` (the ends
        swapped for g < 0) and ``|qd_l| <= velocity_f / |g|``; a follower keeps its own. An
        empty range is an error (``source``: the robot's file, named in it).

        >>> from pathlib import Path
        >>> from dataclasses import replace
        >>> from hodyn_cli.modeling.urdf import load_model
        >>> model = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
        >>> model = replace(model, limits=np.array([[-1.0, 2.0], [0.0, 1.0]]),
        ...                 velocity_limits=np.array([3.0, 1.0]),
        ...                 mimic=np.array([[-1, 1, 0], [0, -2.0, 0.5]]))   # q2 = 0.5 - 2 q1
        >>> position, velocity = Linear(model).limits(model)
        >>> position.tolist(), velocity.tolist()
        ([[-0.25, 0.25], [0.0, 1.0]], [0.5, 1.0])
        """
        position, velocity = super().limits(model)
        for f in np.flatnonzero(self._mimic[:, 0] >= 0):
            leader, gain, offset = int(self._mimic[f, 0]), *map(float, self._mimic[f, 1:])
            lo, hi = map(float, model.limits[f])
            if gain == 0:
                if not lo <= offset <= hi:
                    raise HodynError(f"joint '{model.joint_names[f]}' mimics with multiplier 0 "
                                     f"at {offset!r}, outside its limits [{lo!r}, {hi!r}]", source)
                continue
            ends = sorted(((lo - offset) / gain, (hi - offset) / gain))
            position[leader] = (max(position[leader, 0], ends[0]),
                                min(position[leader, 1], ends[1]))
            velocity[leader] = min(velocity[leader], model.velocity_limits[f] / abs(gain))
            if position[leader, 0] > position[leader, 1]:
                a, b = map(float, model.limits[leader])
                raise HodynError(
                    f"joint '{model.joint_names[f]}' (q = {gain!r} q_{model.joint_names[leader]}"
                    f" + {offset!r}) within its limits [{lo!r}, {hi!r}] leaves its leader "
                    f"'{model.joint_names[leader]}' no position within [{a!r}, {b!r}] and the "
                    "other followers' limits", source)
        return position, velocity


class FreeRooted(Coupling):
    """A robot's constant-G ``coupling`` behind its free root joint (``free``:
    :func:`~hodyn_cli.core.model.with_free_root` of the robot): the root's six twist
    coordinates as they are, the joints coupled as before, ``G' = diag(I_6, G)`` (a floating
    base's matrices and forward dynamics over the root's twist and the independent joints).

    >>> from pathlib import Path
    >>> from hodyn_cli.core.model import with_free_root
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> robot = load_model(Path(__file__).parents[2] / "urdf" / "planar_2r.urdf")
    >>> rooted = FreeRooted(with_free_root(robot), robot.coupling)
    >>> rooted.G.shape, rooted.coordinate_names[5:], rooted.active
    ((8, 8), ('base_vz', 'joint1', 'joint2'), False)
    """

    def __init__(self, free: Model, coupling: Coupling):
        super().__init__(free)
        self.active, self.m = coupling.active, 6 + coupling.m
        self.coordinate_names = free.dof_names[:6] + coupling.coordinate_names
        self.G = np.zeros((self.n, self.m))
        self.G[:6, :6], self.G[6:, 6:] = np.eye(6), coupling.G


def leibniz(G: list[np.ndarray], f: np.ndarray) -> np.ndarray:
    """``d^k (G^T f)`` for k = 0..K from the time derivatives of G, ``G[j]`` (N, n, m), and of
    f (N, K+1, ..., n): ``sum_j C(k, j) G^(j)T f^(k-j)`` (N, K+1, ..., m), what a
    configuration-dependent coupling's :meth:`Coupling.forces` computes."""
    K = f.shape[1] - 1
    return np.stack([sum(comb(k, j) * np.einsum("snm,s...n->s...m", G[j], f[:, k - j])
                         for j in range(k + 1)) for k in range(K + 1)], axis=1)
