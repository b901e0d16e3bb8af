"""The dynamics of a prescribed motion: joint torques and their time derivatives (three
methods, a floating root), the equations of motion and their derivatives, the torques'
sensitivities, the forward dynamics and its simulation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hodyn_cli.api.results import MATRIX_AXES, Motion, Result, capable, rates, series
from hodyn_cli.api.robots import coordinates, joint_array, joint_trajectory, wrenches_of
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import derivative_name
from hodyn_cli.errors import HodynError

__all__ = ["required_orders", "inverse_dynamics", "matrices", "forward_dynamics",
           "simulate", "torque_sensitivities", "torque_rates"]

def required_orders(order: int) -> int:
    """How many q derivative orders torque order ``order`` needs (q .. q^(order+2)).

    >>> required_orders(2)  # q, qd, qdd, qddd, qdddd
    5
    """
    from hodyn_cli.algorithms.dynamics.common import required_orders as needed

    return needed(order)


def inverse_dynamics(robot: Model, *derivatives: Any, order: int = 2, method: str = "body-fixed",
                     gravity: Any = GRAVITY, t: Any = None, wrenches: Mapping | None = None,
                     joint_wrenches: bool = False, base_wrench: bool = False, data: Any = None,
                     **named: Any) -> Result:
    """tau and its first ``order`` time derivatives: fields ``tau, taud, ...``.

    Give q and its derivatives up to order + 2 (positionally or by name). With
    ``joint_wrenches``, also ``F`` (N, order+1, nb, 6): per moving body (``robot.link_names``)
    the wrench (moment; force) its parent exerts on it through its joint, in its frame, and
    the derivatives. With ``base_wrench``, also ``W``, ``Wd``, ... (N, 6): the wrench the root
    link exerts on its mount or supports, root link frame (docs/floating.md). A
    :class:`Trajectory` with a ``base`` (:class:`~hodyn_cli.core.trajectory.BaseMotion`) makes
    the root a free body moving so. A robot with closed loops (:func:`close_loops`): the
    actuated joints' torques, and the constraint forces ``Fl``, ``Fld``, ... (N, R): columns
    :func:`~hodyn_cli.api.loops.loop_components` (docs/loops.md). ``data``:
    :func:`~hodyn_cli.api.backends.backend_data` of the robot, made once per request (a
    pipeline's job) and given to every call (None: made for this call).
    """
    from hodyn_cli.algorithms.dynamics import floating, methods
    from hodyn_cli.algorithms.motion.loops import Closed

    m = Motion(robot, derivatives, named, t=t, wrenches=wrenches, forces_order=order)
    capable("compute", robot, floating_base=m.full.base is not None,
            joint_wrenches=joint_wrenches, method=method != "body-fixed")
    if base_wrench or m.full.base is not None:
        tau, W = floating.inverse_dynamics(robot, m.full, method=method, order=order,
                                           gravity=gravity, data=data)
    else:
        tau = methods.inverse_dynamics(robot, m.full, method=method, order=order, gravity=gravity,
                                       data=data)
    if isinstance(m.coupling, Closed):   # closed loops: their constraint forces too
        tau_a, Fl = m.coupling.split(tau, m.full)   # (one projection gives both)
        fields = series("tau", tau_a) | series("Fl", Fl)
    else:
        fields = series("tau", m.forces(tau))
    if base_wrench:
        fields |= series("W", W)
    if joint_wrenches:
        joint_wrenches_of = methods.joint_wrenches if m.full.base is None \
            else floating.joint_wrenches
        fields["F"] = joint_wrenches_of(robot, m.full, method=method, order=order,
                                        gravity=gravity, data=data)
    return m.result(fields)


def matrices(robot: Model, *derivatives: Any, order: int = 0, gravity: Any = GRAVITY,
             wrenches: Mapping | None = None, state_derivatives: bool = False,
             parameter_derivatives: bool = False, data: Any = None, **named: Any) -> Result:
    """M, C, Cbar, g (and Q_ext when wrenches are given) with their first ``order``
    derivatives: fields ``M``, ``M_d``, ..., ``C``, ..., ``Cbar``, ..., ``g``, ...; ``tau = M
    qdd + C qd + g + Q_ext`` (docs/conventions.md says which C is which). A Trajectory with a
    floating ``base``: size 6 + n, the root's body twist first (docs/floating.md).

    ``state_derivatives``: also ``dM_dq``, ``dC_dq``, ``dC_dqd``, ``dCbar_dq``, ``dCbar_dqd``
    (N, m, m, m: ``[s, a, b, h] = d A_ab / d q_h``), ``dg_dq`` (N, m, m) and, with wrenches,
    ``dQ_ext_dq``. ``parameter_derivatives``: ``dM_dpi``, ``dC_dpi``, ``dCbar_dpi`` (N, m, m,
    10 nb) and ``dg_dpi`` (N, m, 10 nb), parameters in the regressor's order
    (:mod:`hodyn_cli.algorithms.dynamics.matrix_derivatives`, docs/sensitivity.md).
    A robot with closed loops: the reduced system's M, C, Cbar, g over the actuated joints
    (:meth:`hodyn_cli.algorithms.motion.loops.Closed.reduced`, docs/loops.md). ``data``: as
    for :func:`inverse_dynamics`.
    """
    from hodyn_cli.algorithms.dynamics import closed_form, floating, matrix_derivatives
    from hodyn_cli.algorithms.motion.loops import Closed

    m = Motion(robot, derivatives, named, wrenches=wrenches)
    capable("matrices", robot, floating_base=m.full.base is not None,
            state_derivatives=state_derivatives, parameter_derivatives=parameter_derivatives)
    if m.full.base is not None:  # 6 + n: the root's body twist, then the joints
        F = floating.matrices(robot, m.full, order=order, gravity=gravity, data=data)
        names = ("M", "C", "Cbar", "g") + (("Q_ext",) if m.full.wrenches is not None else ())
        return m.result({k: v for name in names for k, v in
                         rates(name, m.past_the_root(getattr(F, name), MATRIX_AXES[name])).items()},
                        ("base_wx", "base_wy", "base_wz", "base_vx", "base_vy", "base_vz")
                        + robot.coordinate_names)
    E = closed_form.matrices(robot, m.full, order=order, gravity=gravity, data=data)
    fields: dict[str, np.ndarray] = {}
    if isinstance(m.coupling, Closed):  # closed loops: the reduced system's (needs G')
        reduced = m.coupling.reduced(E.M, E.C, E.Cbar, E.g, m.full)
        return m.result({k: v for name in ("M", "C", "Cbar", "g")
                         for k, v in rates(name, reduced[name]).items()})
    for name in ("M", "C", "Cbar"):  # G^T A G over the independent coordinates
        fields |= rates(name, m.matrices(getattr(E, name)))
    for name in ("g", "Q_ext") if m.full.wrenches is not None else ("g",):
        fields |= rates(name, m.forces(getattr(E, name)))
    if state_derivatives:
        S = matrix_derivatives.state_derivatives(robot, m.full, gravity=gravity)
        for name in ("dM_dq", "dC_dq", "dC_dqd", "dCbar_dq", "dCbar_dqd"):
            fields[name] = m.tensor(getattr(S, name))
        for name in ("dg_dq", "dQ_ext_dq") if m.full.wrenches is not None else ("dg_dq",):
            fields[name] = m.matrices(getattr(S, name))
    if parameter_derivatives:
        P = matrix_derivatives.parameter_derivatives(robot, m.full, gravity=gravity)
        for name in ("dM_dpi", "dC_dpi", "dCbar_dpi"):  # G^T A G on the joint axes
            fields[name] = np.moveaxis(m.matrices(np.moveaxis(getattr(P, name), -1, 1)), 1, -1)
        fields["dg_dpi"] = m.forces(P.dg_dpi, axis=1)
    return m.result(fields)


def forward_dynamics(robot: Model, *derivatives: Any, tau: Any = None, gravity: Any = GRAVITY,
                     t: Any = None, wrenches: Mapping | None = None, partials: bool = False,
                     data: Any = None, **named: Any) -> Result:
    """Forward dynamics: the joint accelerations ``qdd`` of the torques ``tau`` at the state q,
    qd, and as many time derivatives (``qddd``, ...) as torque derivatives are given
    (``taud=...``, ``taudd=...``: each needs the next). Fields ``qdd``, ``qddd``, ...; with
    ``partials`` also ``dqdd_dq``, ``dqdd_dqd``, ``dqdd_dtau`` (= M^-1) (N, m, m: ``[s, i, j]
    = d qdd_i / d x_j``). ``tau=None``: the Trajectory's ``series`` ``tau``, ``taud``, ... (a
    file read with those columns). External wrenches need W to the same order as tau
    (:mod:`hodyn_cli.algorithms.dynamics.forward`, docs/sensitivity.md). ``data``: as for
    :func:`inverse_dynamics`. A Trajectory with a floating ``base`` (its pose and body twist
    ``Vb``): the root is a free body that no torque drives (a wrench on the root link is its
    own external wrench: :func:`inverse_dynamics`' base wrench ``W`` there gives back the
    motion it was computed for), and fields ``base_Vbd``, ``base_Vbdd``, ... (N, 6) are its
    body twist's rates (docs/floating.md).
    """
    from hodyn_cli.algorithms.dynamics.forward import forward_dynamics as solve

    torques = torque_rates(robot, tau, named)
    m = Motion(robot, derivatives, named, t=t, wrenches=wrenches)
    if not torques:
        given = m.coordinates.series or {}
        k = 0
        while derivative_name("tau", k) in given:
            torques.append(given[derivative_name("tau", k)])
            k += 1
        if not torques:
            raise HodynError("no torques: give tau (and taud, ... for qddd, ...)")
    capable("forward", robot, floating_base=m.full.base is not None, partials=partials)
    N = m.full.n_samples
    if any(r.shape[0] != N for r in torques):
        raise HodynError(f"tau and its derivatives need {N} samples, like q")
    res = solve(robot, m.full, np.stack(torques, axis=1), gravity=gravity,
                coupling=m.coupling,
                derivatives=partials, data=data)
    fields = {derivative_name("q", k + 2): res.qs[:, k] for k in range(res.qs.shape[1])}
    if res.root is not None:  # a floating root's body-twist rates
        fields |= {f"base_{derivative_name('Vb', k + 1)}": res.root[:, k]
                   for k in range(res.root.shape[1])}
    return m.result(fields | res.partials)


def torque_rates(robot: Model, tau: Any, named: dict[str, Any]) -> list[np.ndarray]:
    """``[tau, taud, ...]`` as (N, m) arrays, taken out of ``named``."""
    torques = [] if tau is None else [joint_array(robot, "tau", tau)]
    for key in sorted((k for k in named if k.startswith("tau")), key=len):
        if not set(key[3:]) <= {"d"}:
            raise HodynError(f"unknown argument '{key}' (tau, taud, taudd, ...)")
        if len(key) - 3 != len(torques):
            raise HodynError(f"'{key}' given without {derivative_name('tau', len(torques))}")
        torques.append(joint_array(robot, key, named.pop(key)))
    return torques


def simulate(robot: Model, t: Any, q0: Any, qd0: Any, *, tau: Any, gravity: Any = GRAVITY,
             wrenches: Mapping | None = None, **named: Any) -> Result:
    """Integrate the forward dynamics from the state ``q0, qd0`` at ``t[0]`` driven by the
    torques ``tau`` (N, m) given at the times ``t`` (N,), with their derivatives ``taud=...``,
    ... if known (piecewise Hermite between the samples; DOP853 at tolerances 1e-12): fields
    ``q``, ``qd`` at ``t`` (:mod:`hodyn_cli.algorithms.verification.simulate`). ``wrenches``:
    ``{link: (N, D, 6)}`` external wrenches at ``t``, as for :func:`inverse_dynamics`."""
    from hodyn_cli.algorithms.verification.simulate import simulate as integrate

    torques = torque_rates(robot, tau, named)
    if named:
        raise HodynError(f"unknown argument '{next(iter(named))}'")
    times = np.atleast_1d(np.asarray(t, dtype=float))
    if any(r.shape[0] != times.size for r in torques):
        raise HodynError(f"tau and its derivatives need one row per time ({times.size})")
    start = joint_trajectory(robot, q0, qd0)
    if start.n_samples != 1:
        raise HodynError("q0, qd0: one state (m,) or a dict by joint name")
    W = wrenches_of(robot, wrenches, times.size)
    q, qd = integrate(robot, times, start.q, start.qd, np.stack(torques, axis=1), gravity=gravity,
                      wrenches=None if W is None else W.W,
                      coupling=robot.coupling)
    return Result({"q": q, "qd": qd}, coordinates(robot))


def torque_sensitivities(robot: Model, *derivatives: Any, order: int = 0, gravity: Any = GRAVITY,
                         wrenches: Mapping | None = None, data: Any = None, **named: Any
                         ) -> Result:
    """d tau^(k) / d q^(j): fields ``dtau_dq``, ``dtau_dqd``, ..., ``dtaud_dq``, ... (m x m
    per sample; entry ``[s, i, j]`` = d out_i / d in_j). A Trajectory with a floating
    ``base``: the joint torques' with the root moving as given. ``data``: as for
    :func:`inverse_dynamics`."""
    from hodyn_cli.algorithms.dynamics import sensitivities

    m = Motion(robot, derivatives, named, wrenches=wrenches)
    capable("sensitivities", robot, floating_base=m.full.base is not None)
    S = sensitivities.sensitivities(robot, m.full, order=order, gravity=gravity, data=data)
    return m.result({k: m.matrices(v) for k, v in S.items()})
