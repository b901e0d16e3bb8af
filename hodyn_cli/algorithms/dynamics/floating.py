"""Floating-base inverse dynamics and the base wrench, for every method.

A floating root link is the root body of the robot under a free joint
(:func:`~hodyn_cli.core.model.with_free_root`): its pose ``C_0 = (R, p)`` in the world is the
joint's configuration ``(r; p)``, ``R = exp(skew(r))``, its body twist ``V_0 = (omega; v)``
(root frame) and derivatives (:class:`BaseMotion`) the joint's velocity coordinates
(:func:`~hodyn_cli.core.trajectory.free_root_motion`). Every method runs that fixed-base
model through the joint-model code it has for a free joint anywhere in a tree (the torques
and matrices, numpy's passes and the compiled kernel's); the free joint's tau ``S^T F = F_0``
is the wrench the supports exert on the root (root frame, moment about its origin), and the
base wrench ``W_base = -F_0`` the wrench the root exerts on its supports: the sign of
external wrenches (docs/conventions.md). It vanishes for a motion feasible without support
(free flight). Closed form: ``nu = (V_0; qd)`` (6 + nv), the free joint's columns first.

A fixed base: the root welded to the world, at rest at its origin; ``F_0`` is what its
mount carries, the root's Newton-Euler equation after the joints' backward pass::

    F_0 = M_0 V_0' - ad_{V_0}^T M_0 V_0 + sum_{c child of root} Ad_{C_{c,0}}^T F_c + W_0   (42)

with ``V_0 = 0``, ``V_0' = (0; -g)`` (gravity as the root's motion, :func:`common.base_motion`)
and its derivatives by the Leibniz rules (25); closed form: the root one more body with
``J_0 = [I 0]`` in the sums (20)-(27), ``(F_0; tau) = M nu' + C nu + g + Q_ext``.

Gravity as base motion (the root's jet: the backends' ``root_jet``; the compiled backend's
floating-base kernels run a free root joint's matrices, regressor and sensitivities with it,
:mod:`hodyn_cli.algorithms.backends.free_root`). In the frame that falls freely with
gravity and is at rest in the world at the instant t0 there is no gravity, and the root's
position there is ``p(t) - g (t - t0)^2 / 2``: its body twist is ``V_0 - (0; R^T g) (t - t0)``.
By Leibniz at t0, with ``u = (0; -R^T g)`` and ``u' = -ad_{V_0} u`` (``R' = R skew(omega)``)::

    V_eff = V_0,   V_eff^(k) = V_0^(k) + k u^(k-1)   (k >= 1)
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy import spatial
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.backends.numpy.floating import gravity_in_root
from hodyn_cli.algorithms.dynamics import closed_form, methods
from hodyn_cli.algorithms.dynamics.common import (
    GRAVITY,
    base_motion,
    body_wrenches,
    check_inputs,
)
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import (
    BaseMotion,
    Trajectory,
    derivative_name,
    free_body,
    free_root_motion,
)
from hodyn_cli.errors import HodynError, TrajectoryError

__all__ = ["BaseMotion", "base_from_spatial", "inverse_dynamics", "joint_wrenches", "matrices",
           "floating_chunks", "check_base_motion", "free_root", "free_root_model"]

def base_from_spatial(R: np.ndarray, p: np.ndarray, Vs: np.ndarray) -> BaseMotion:
    """A base motion from the root's spatial twist ``V^s = Ad_{C_0} V_0`` (world frame) and its
    derivatives, (N, D, 6) (:func:`spatial.body_fixed_twists`)."""
    return BaseMotion(R, p, spatial.body_fixed_twists(R, p, Vs))


def _body_fixed(model, qs, gravity, W, W0, r, data=None):
    """(tau, F_0) of one chunk of a fixed base by the body-fixed recursion, eqs. (40)-(42)."""
    jet = base_motion(gravity, r + 1)
    backend, data = backends.prepare(model, data)
    tau, F0 = backend.inverse_dynamics(model, data, qs, jet, W, order=r, root=True)
    if W0 is not None:
        F0 += W0
    return tau, F0


def _spatial(model, qs, gravity, W, W0, r, data=None):
    """(tau, F_0) of one chunk of a fixed base by the spatial recursion, by the backend that
    runs (its ``spatial_inverse_dynamics`` with ``root``)."""
    jet = base_motion(gravity, r + 1)
    backend, data = backends.prepare(model, data)
    return backend.spatial_inverse_dynamics(model, data, qs, jet, W, order=r, root=True,
                                            root_wrench=W0)


def _eom(model, qs, gravity, W, W0, r, with_cbar, data=None):
    """Closed-form matrices (N, r+1, 6+n, 6+n) of one chunk of a fixed base (the root at
    rest: ``V_0 = 0``) and ``nu = (V_0; qd)`` (N, r+2, 6+n), by the backend that runs."""
    N = qs.shape[0]
    Vb = np.zeros((N, r + 2, 6))
    nu = np.concatenate([Vb, qs[:, 1 : r + 3]], axis=2)
    u0 = gravity_in_root(None, gravity)
    accel = np.zeros((len(u0), 2, 6))
    accel[:, 1] = u0
    backend, data = backends.prepare(model, data)
    E = backend.eom_matrices(model, data, qs, r, accel, W, with_cbar, root_twist=Vb)
    if W0 is not None:
        E.Q_ext[..., :6] += W0
    return E, nu


def _closed_form(model, qs, gravity, W, W0, r, data=None):
    """(tau, F_0) of one chunk: ``(F_0; tau) = M nu' + C nu + g + Q_ext``, eqs. (1), (28), (38)."""
    E, nu = _eom(model, qs, gravity, W, W0, r, False, data)
    out = closed_form.generalized_forces(E, nu)
    return out[..., 6:], out[..., :6]


_CHUNK_SOLVERS = {"body-fixed": _body_fixed, "spatial": _spatial, "closed-form": _closed_form}
MAX_ORDER = 4


def check_base_motion(trajectory: Trajectory, twists: int, what: str) -> None:
    """A one-line error unless ``trajectory.base`` (if any) has the trajectory's samples and
    ``twists`` orders of its body twist (``base_Vb`` to ``twists - 1`` d's: torque order K
    needs K + 2), saying ``what`` needs them."""
    base = trajectory.base
    if base is None:
        return
    if base.n_samples != trajectory.n_samples:
        raise TrajectoryError(f"the base motion has {base.n_samples} samples, the "
                              f"trajectory {trajectory.n_samples}")
    if base.orders < twists:
        missing = ", ".join(f"base_{derivative_name('Vb', k)}"
                            for k in range(base.orders, twists))
        raise TrajectoryError(f"{what} needs {missing} (not in the base motion)")


def check_floating(model: Model, trajectory: Trajectory, order: int) -> Trajectory:
    """The trajectory (:func:`~hodyn_cli.core.trajectory.free_body`'s) once its inputs fit torque
    order ``order`` of the base wrench (a one-line error naming what is missing otherwise;
    helical, spherical, planar and free joints run: under the free root, as every joint)."""
    trajectory = free_body(trajectory)
    check_inputs(model, trajectory, order, joint_models=True)
    if not 0 <= order <= MAX_ORDER:
        raise HodynError(f"the base wrench is computed for orders 0..{MAX_ORDER}, not {order}")
    check_base_motion(trajectory, order + 2, f"order {order}")
    return trajectory


def floating_chunks(model: Model, trajectory: Trajectory, order: int, size: int = CHUNK
                    ) -> Iterator[tuple[slice, np.ndarray, dict, np.ndarray | None]]:
    """``(samples, qs, body wrenches, root wrench or None)`` per chunk of a fixed base's root
    wrench, inputs checked (:func:`check_floating`)."""
    trajectory = check_floating(model, trajectory, order)
    W = body_wrenches(model, trajectory, order, root=True)
    W0 = W.pop(-1, None)
    qs = trajectory.derivatives
    for s in range(0, trajectory.n_samples, max(size, 1)):
        sl = slice(s, s + size)
        yield sl, qs[sl], {b: w[sl] for b, w in W.items()}, None if W0 is None else W0[sl]


def _free_root_data(model: Model) -> tuple[Model, backends.Data]:
    return model.free_rooted, backends.current().data(model.free_rooted)


def free_root_model(model: Model, data: backends.Data | None = None
                    ) -> tuple[Model, backends.Data]:
    """The robot under its free root joint (:attr:`~hodyn_cli.core.model.Model.free_rooted`,
    built once per robot) and the running backend's Data for it, made once per request: kept
    in the robot's ``data`` (None: made now, for this call)."""
    if data is None:
        return _free_root_data(model)
    _, data = backends.prepare(model, data)
    return data.derived(_free_root_data, model)


def free_root(model: Model, trajectory: Trajectory, order: int,
              data: backends.Data | None = None
              ) -> tuple[Model, Trajectory, backends.Data]:
    """A floating-base problem as a fixed-base one: the robot under its free root joint
    (:func:`~hodyn_cli.core.model.with_free_root`, made once per request: kept in ``data``),
    the trajectory with the base's columns as that joint's
    (:func:`~hodyn_cli.core.trajectory.free_root_motion`), and its Data; the inputs checked
    first in the floating base's words (``base_Vb``, the base wrench's orders)."""
    check_floating(model, trajectory, order)
    free, free_data = free_root_model(model, data)
    return free, free_root_motion(trajectory, free.dof_names), free_data


def inverse_dynamics(model: Model, trajectory: Trajectory, *, method: str = "body-fixed",
                     order: int = 2, gravity=GRAVITY, data: backends.Data | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Joint torques (N, order+1, n) and the base wrench (N, order+1, 6), with derivatives.

    The base wrench is the wrench (moment; force) the root link exerts on its supports, in
    the root link frame, moment about its origin, gravity included (also the root link's
    own weight). The root floats with ``trajectory.base``; without one it is welded to the
    world (then tau is the fixed-base tau and the base wrench what the mount carries).
    ``gravity`` is in the world frame.

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> from hodyn_cli.core.trajectory import cosine
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
    >>> traj = cosine(model.joint_names, [0.0], amplitude=0, omega=1, offset=0, orders=4)
    >>> tau, W = inverse_dynamics(model, traj, order=0)
    >>> W[0, 0].round(4) + 0.0   # at rest: 2 kg pressing down, moment about the root origin
    array([  0.    ,  10.2024,   0.    ,   0.    ,   0.    , -19.62  ])
    """
    if method not in _CHUNK_SOLVERS:
        raise HodynError(f"unknown method '{method}' (choose from {', '.join(_CHUNK_SOLVERS)})")
    if trajectory.base is not None:  # the free root joint's tau is the supports' wrench F_0
        free, motion, free_data = free_root(model, trajectory, order, data)
        out = methods.inverse_dynamics(free, motion, method=method, order=order,
                                       gravity=gravity, data=free_data)
        return out[..., 6:], np.negative(out[..., :6])
    solve = _CHUNK_SOLVERS[method]
    N = trajectory.n_samples
    backend, data = backends.prepare(model, data)
    kernels = method != "spatial" and not model.has_joint_models
    size = backend.rows(CHUNK) if kernels else CHUNK
    if N <= size:
        for _, qs, W, W0 in floating_chunks(model, trajectory, order, max(size, 1)):
            tau, F0 = solve(model, qs, gravity, W, W0, order, data)
            return tau, np.negative(F0, out=F0)
    tau, F0 = np.empty((N, order + 1, model.nv)), np.empty((N, order + 1, 6))
    for sl, qs, W, W0 in floating_chunks(model, trajectory, order, size):
        tau[sl], F0[sl] = solve(model, qs, gravity, W, W0, order, data)
    return tau, np.negative(F0, out=F0)


def joint_wrenches(model: Model, trajectory: Trajectory, *, method: str = "body-fixed",
                   order: int = 2, gravity=GRAVITY, data: backends.Data | None = None
                   ) -> np.ndarray:
    """The wrench each joint's parent exerts on its body (N, order+1, n, 6), in the body's
    frame, and derivatives, the root floating with ``trajectory.base``: the joints' of the
    robot under its free root joint (:func:`free_root`; the free joint's own is ``F_0``, minus
    the base wrench: :func:`inverse_dynamics`)."""
    free, motion, free_data = free_root(model, trajectory, order, data)
    F = methods.joint_wrenches(free, motion, method=method, order=order, gravity=gravity,
                               data=free_data)
    return F[:, :, 1:]


def matrices(model: Model, trajectory: Trajectory, *, order: int = 2, gravity=GRAVITY,
             data: backends.Data | None = None) -> closed_form.EOMMatrices:
    """Floating-base EOM matrices (6 + nv) and their first ``order`` derivatives.

    Generalized velocities ``nu = (V_0; qd)``: the root's body twist (wx, wy, wz, vx, vy, vz,
    root frame), then the joints' velocity coordinates; ``(F_0; tau) = M nu' + C nu + g + Q_ext`` where
    ``F_0 = -W_base`` is the wrench the supports exert on the root. M depends on q only;
    C and Cbar on ``nu``; g on q and the root's orientation (gravity in the world frame).
    Without ``trajectory.base`` the root is at rest at the world origin; with one, the
    fixed-base matrices of the robot under its free root joint (:func:`free_root`).
    """
    if trajectory.base is not None:
        free, motion, free_data = free_root(model, trajectory, order, data)
        return closed_form.matrices(free, motion, order=order, gravity=gravity, data=free_data)
    backend, data = backends.prepare(model, data)
    size = backend.rows(CHUNK)
    parts = [_eom(model, qs, gravity, W, W0, order, True, data)[0]
             for _, qs, W, W0 in floating_chunks(model, trajectory, order, max(size, 1))]
    if len(parts) == 1:
        return parts[0]
    return closed_form.EOMMatrices(*(np.concatenate([getattr(e, f) for e in parts]) for f in
                                     ("M", "C", "Cbar", "g", "Q_ext")))
