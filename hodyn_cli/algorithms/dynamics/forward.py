"""Forward (direct) dynamics and its derivatives: qdd from q, qd and tau, and its time rates.

The EOM ``tau = M(q) qdd + C(q, qd) qd + g(q) + Q_ext`` (Mueller & Kumar eq. (1); Garofalo
eq. (5)) solved for the acceleration::

    qdd = M^-1 (tau - C qd - g - Q_ext)

Time derivatives, order by order: ``tau^(k)`` is affine in the highest derivative of q it
involves, ``tau^(k) = M q^(k+2) + r_k(q, ..., q^(k+1))``, and ``r_k`` is the inverse dynamics
of order k with ``q^(k+2) = 0`` (any method: the body-fixed recursion here). With q, qd given
and qdd, ..., q^(k+1) found before, ``q^(k+2) = M^-1 (tau^(k) - r_k)``: the same M serves
every order.

Partial derivatives (Garofalo sec. I: "from the derivatives of the single matrices it is
possible to recover the derivatives of the direct ... dynamic functions"): differentiating
``M qdd + C qd + g + Q_ext = tau`` at fixed tau::

    d qdd / d q = -M^-1 d tau_ID / d q,   d qdd / d qd = -M^-1 d tau_ID / d qd,
    d qdd / d tau = M^-1

with the inverse dynamics' derivatives evaluated at the computed qdd
(:func:`hodyn_cli.algorithms.dynamics.partials.torque_partials`, O(n^2) per sample).

Coupled joints (mimic): with ``q_full = G q + o`` (:mod:`hodyn_cli.core.coupling`) the
independent coordinates obey ``G^T M G qdd + G^T r = tau``: pass the model's ``coupling``.

A floating base (a trajectory with a ``base``) is the robot under its free root joint
(:func:`~hodyn_cli.algorithms.dynamics.floating.free_root_model`, as for the inverse
dynamics): the same equations over ``nu = (V_0; qd)``, the joint unactuated (its torque, the
wrench the supports exert on the root, zero: a wrench on the root link is the root's own
external wrench), so ``nu' = (V_0'; qdd)`` comes out with the root's body-twist rate ``V_0'``
(``base_Vbd``) first; mimic joints through ``G' = diag(I_6, G)``
(:class:`~hodyn_cli.core.coupling.FreeRooted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends.numpy.common import CHUNK
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.dynamics.common import GRAVITY, chunks
from hodyn_cli.algorithms.dynamics.floating import check_base_motion, free_root_model
from hodyn_cli.algorithms.dynamics.partials import torque_partials
from hodyn_cli.core.coupling import Coupling, FreeRooted
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches, derivative_name, free_root_motion
from hodyn_cli.errors import HodynError, ModelError, TrajectoryError

__all__ = ["Forward", "forward_dynamics", "check_regular", "inert_coordinates", "no_inertia",
           "unit_scales"]


@dataclass(frozen=True)
class Forward:
    """The result of :func:`forward_dynamics` over the independent coordinates (m of them).

    Attributes:
        qs: (N, K+1, m) ``qdd, qddd, ..., q^(K+2)``.
        partials: ``dqdd_dq``, ``dqdd_dqd``, ``dqdd_dtau`` (N, m, m), ``[s, i, j] = d qdd_i /
            d x_j``, when asked for (else empty).
        root: (N, K+1, 6) ``V_0', ..., V_0^(K+1)``: a floating root's body-twist rates
            (``base_Vbd``, ...; None: a fixed root).
    """

    qs: np.ndarray
    partials: dict[str, np.ndarray] = field(default_factory=dict)
    root: np.ndarray | None = None


def forward_dynamics(model: Model, trajectory: Trajectory, tau: np.ndarray, *, gravity=GRAVITY,
                     coupling: Coupling | None = None, derivatives: bool = False,
                     data: backends.Data | None = None) -> Forward:
    """``qdd`` and its first K time derivatives from q, qd (``trajectory``, all joints; its
    wrenches need W..W^(K)) and ``tau`` (N, K+1, m): tau and its first K derivatives in the
    coordinates of ``coupling`` (a :class:`~hodyn_cli.core.coupling.Coupling` with a
    constant G; None: the joints themselves). ``derivatives``: also ``d qdd / d (q, qd,
    tau)`` (a fixed root's). ``data``: the backend's Data for the model
    (:func:`~hodyn_cli.algorithms.backends.prepare`). A ``trajectory.base``: the root floats
    (module docstring), its rates in :attr:`Forward.root`."""
    N = trajectory.n_samples
    m = model.nv if coupling is None else coupling.m
    tau = np.asarray(tau, dtype=float)
    if tau.ndim != 3 or tau.shape[0] != N or tau.shape[2] != m:
        raise TrajectoryError(f"tau: expected shape ({N}, K+1, {m}), got {tau.shape}")
    if trajectory.base is not None:
        if derivatives:  # (the API's capability table says so first)
            raise HodynError("d qdd / d (q, qd, tau) are computed for a fixed root only")
        return _floating(model, trajectory, tau, gravity, coupling, data)
    _, data = backends.prepare(model, data)
    if trajectory.orders < 2:
        raise TrajectoryError("forward dynamics needs q and qd")
    K = tau.shape[1] - 1
    W = trajectory.wrenches
    if W is not None and W.W and W.orders < K + 1:
        missing = ", ".join(derivative_name("W", k) for k in range(W.orders, K + 1))
        raise TrajectoryError(f"{derivative_name('qdd', K)} needs wrench derivatives {missing}")
    qs = np.empty((N, K + 1, m))
    parts = {name: np.empty((N, m, m)) for name in ("dqdd_dq", "dqdd_dqd", "dqdd_dtau")} \
        if derivatives else {}
    for s in range(0, N, CHUNK):
        sl = slice(s, s + CHUNK)
        chunk = _rows(trajectory, sl, K)
        qs[sl], more = _chunk(model, data, chunk, tau[sl], coupling, gravity, derivatives)
        for name, value in more.items():
            parts[name][sl] = value
    return Forward(qs, parts)


def _floating(model: Model, trajectory: Trajectory, tau: np.ndarray, gravity,
              coupling: Coupling | None, data: backends.Data | None) -> Forward:
    """:func:`forward_dynamics` of a floating root: the robot under its free root joint, that
    joint's torque zero."""
    check_base_motion(trajectory, 1, "forward dynamics")  # the state: its pose and twist
    free, free_data = free_root_model(model, data)
    unactuated = np.zeros(tau.shape[:-1] + (6,))
    rooted = FreeRooted(free, coupling) if coupling is not None and coupling.active else None
    motion = free_root_motion(trajectory, free.dof_names)
    _check_regular(model, free, free_data, motion, rooted, gravity)
    out = forward_dynamics(free, motion, np.concatenate([unactuated, tau], axis=-1),
                           gravity=gravity, coupling=rooted, data=free_data).qs
    return Forward(out[..., 6:], root=out[..., :6])


def _check_regular(model: Model, free: Model, data: backends.Data, motion: Trajectory,
                   rooted: Coupling | None, gravity) -> None:
    """:func:`check_regular` of the floating robot's mass matrix (6 + m) at the first sample,
    before anything is solved. A root link without mass on a single joint (an arm's
    ``link_0``) turns about that joint's axis at no cost: the matrix is singular at every
    state, and no joint is named (each diagonal entry has the robot's inertia in it)."""
    first = Trajectory(motion.joint_names, np.concatenate(
        [motion.derivatives[:1, :2], np.zeros((1, 1, free.nv))], axis=1))
    M, _ = _mass_and_bias(free, data, first, gravity)
    names = free.dof_names if rooted is None else rooted.coordinate_names
    why = (f"the root link '{model.root_link}' has no mass (give it an <inertial>)"
           if model.root_inertia[3, 3] <= 0 else "")
    check_regular(M[0] if rooted is None else rooted.matrices(M)[0], free, names,
                  "of a floating base (the robot under its free root joint)", why)


def check_regular(M: np.ndarray, model: Model, names: Sequence[str], whose: str = "",
                  why: str = "") -> None:
    """A one-line ModelError (the robot's inertias are at fault) unless the mass matrix M
    (m, m) of one sample, over the coordinates ``names`` (``model``'s velocity coordinates),
    is regular: every coordinate moves some inertia (:func:`inert_coordinates`, judged
    against the inertia of the coordinates of its unit, :func:`unit_scales`) and its
    Jacobi-scaled matrix has ``lambda_min > 1e-12 lambda_max``
    (:func:`_jacobi_regular`). A singular M has no unique ``qdd = M^-1 (...)``: Cholesky through a zero
    pivot gives numbers of the size 1 / rounding (qdd ~1e30) and LU raises. The cause
    named: the coordinates that move no inertia (:func:`no_inertia`), else ``why``;
    ``whose``: which robot's M (a floating base's). A massless moving subtree makes M
    singular at every state, so one sample per chunk finds it, for an O(m^3) that the
    chunk's solve dwarfs."""
    lam = np.linalg.eigvalsh(M)
    inert = inert_coordinates(M, names, unit_scales(M, model, names))
    if not inert and _jacobi_regular(M):
        return
    cause = no_inertia(inert) or why or "a part of it moves with no inertia"
    raise ModelError(f"forward dynamics{' ' + whose if whose else ''}: the mass matrix is "
                     f"singular (eigenvalues {lam[0]:.3g} .. {lam[-1]:.3g}): {cause}")


def _jacobi_regular(M: np.ndarray) -> bool:
    """``lambda_min > 1e-12 lambda_max`` of ``D^-1/2 M D^-1/2``, D = diag(M) > 0: M's
    regularity in units of each coordinate's own inertia. M's own eigenvalues mix kg m^2
    (revolute, a floating base's turning) with kg (prismatic, its moving), so their ratio
    falls with the robot's size squared: the gripper arm scaled to 1e-5 (eigenvalues 3.4e-14
    .. 1.6) was refused by ``validate --simulate`` as singular, its Jacobi-scaled matrix
    regular as at 1 m. Cholesky's accuracy is that scaled matrix's condition, whatever the
    units (van der Sluis 1969: Jacobi scaling is within a factor m of the best diagonal one).

    >>> _jacobi_regular(np.diag([3.4e-14, 1.6])), _jacobi_regular(np.array([[1e-14, 1e-7], [1e-7, 1.0]]))
    (True, False)
    """
    scale = 1.0 / np.sqrt(np.diagonal(M))
    lam = np.linalg.eigvalsh(M * scale[:, None] * scale[None, :])
    return bool(lam[0] > 1e-12 * lam[-1])


def inert_coordinates(M: np.ndarray, names: Sequence[str], scale: float | np.ndarray
                      ) -> list[str]:
    """The coordinates j of a mass matrix M (m, m) with ``M_jj = S_j^T I_j^c S_j <= 1e-15
    scale_j``: the composite inertia of the subtree they move does not resist their screw
    (published URDFs move massless links on joints of their own, e.g. Romeo's hands), so M
    is singular (``M_ij = S_i^T I_i^c S_j``: Featherstone, Rigid Body Dynamics
    Algorithms, sec. 6.2). ``scale``: one for all (M's largest eigenvalue: every coordinate
    of one unit) or each coordinate's (m,) (:func:`unit_scales`)."""
    return [names[int(j)] for j in np.flatnonzero(np.diagonal(M) <= 1e-15 * scale)]


def unit_scales(M: np.ndarray, model: Model, names: Sequence[str]) -> np.ndarray:
    """Each coordinate's inertia scale (m,) for :func:`inert_coordinates`: the largest
    eigenvalue of M's block over the coordinates of its unit, those that turn a joint (M_jj
    in kg m^2: revolute, helical, a floating base's turning) or those that move one along an
    axis without turning it (kg: prismatic, a floating base's or a planar joint's moving),
    ``names`` the model's velocity coordinates. Judged against M's largest eigenvalue, kg m^2
    and kg alike, the wrist of the gripper arm scaled to 0.1 um (M_jj 1.6e-17 kg m^2 against
    the elbow slide's 1.6 kg) was named as moving no inertia, and forward dynamics refused;
    a robot of one unit keeps that eigenvalue. (The unit of a coupled robot's coordinate is its own joint's: a
    passive joint it turns adds rad per its unit.)

    >>> from pathlib import Path
    >>> from hodyn_cli.modeling.urdf import load_model
    >>> model = load_model(Path(__file__).parents[3] / "urdf" / "gripper_arm.urdf")
    >>> model.joint_types[2], model.joint_types[4:]
    ('prismatic', ('prismatic', 'prismatic'))
    >>> unit_scales(np.diag(np.arange(1.0, 7.0)), model, model.dof_names).tolist()
    [4.0, 4.0, 6.0, 4.0, 6.0, 6.0]
    """
    screws = np.concatenate(model.subspaces, axis=1)
    dof = {name: d for d, name in enumerate(model.dof_names)}
    moving = np.array([not screws[:3, dof[name]].any() for name in names])
    scale = np.empty(len(names))
    for group in (moving, ~moving):
        if group.any():
            scale[group] = np.linalg.eigvalsh(M[np.ix_(group, group)])[-1]
    return scale


def no_inertia(inert: Sequence[str]) -> str:
    """'a, b move no inertia (M_jj = 0)' for :func:`inert_coordinates` (the first four
    named), '' for none."""
    if not inert:
        return ""
    more = f" and {len(inert) - 4} more" if len(inert) > 4 else ""
    return f"{', '.join(inert[:4])}{more} {'moves' if len(inert) == 1 else 'move'} no " \
        "inertia (M_jj = 0)"


def _rows(trajectory: Trajectory, sl: slice, K: int) -> Trajectory:
    """Samples ``sl``: q, qd and the wrenches to order K."""
    W = trajectory.wrenches
    return Trajectory(trajectory.joint_names, trajectory.derivatives[sl, :2], None,
                      None if W is None else Wrenches({k: w[sl, : K + 1] for k, w in W.W.items()}))


def _with(chunk: Trajectory, qs: np.ndarray) -> Trajectory:
    return Trajectory(chunk.joint_names, qs, None, chunk.wrenches)


def _chunk(model: Model, data: backends.Data, chunk: Trajectory, tau: np.ndarray,
           coupling: Coupling | None, gravity, derivatives: bool) -> tuple[np.ndarray, dict]:
    N, (K, m) = chunk.n_samples, (tau.shape[1] - 1, tau.shape[2])
    c = coupling or Coupling(model)

    def coords(A: np.ndarray) -> np.ndarray:  # G^T A G (a matrix) or G^T a (a force)
        return c.matrices(A) if A.ndim == 3 else c.forces(A)

    full = np.zeros((N, K + 3, model.nv))       # q, qd, then the accelerations as they are found
    full[:, :2] = chunk.derivatives
    first = _with(chunk, full[:, :3])
    M, r = _mass_and_bias(model, data, first, gravity)
    Mc = coords(M)
    check_regular(Mc[0], model, c.coordinate_names)
    out = np.empty((N, K + 1, m))
    for k in range(K + 1):
        if k:
            r = body_fixed.inverse_dynamics(model, _with(chunk, full[:, : k + 3]), order=k,
                                            gravity=gravity, data=data)[:, k]          # q^(k+2) = 0
        out[:, k] = _solve(Mc, (tau[:, k] - coords(r))[..., None])[..., 0]
        full[:, k + 2] = c.tangent(out[:, k])   # G constant: q_full^(k+2) = G q^(k+2)
    if not derivatives:
        return out, {}
    dq, dqd = (coords(d) for d in torque_partials(model, _with(chunk, full[:, :3]),
                                                  gravity=gravity, data=data))
    X = _solve(Mc, np.concatenate([-dq, -dqd, np.broadcast_to(np.eye(m), dq.shape)], 2))
    return out, {"dqdd_dq": X[..., :m], "dqdd_dqd": X[..., m : 2 * m], "dqdd_dtau": X[..., 2 * m :]}


def _mass_and_bias(model: Model, data: backends.Data, chunk: Trajectory, gravity
                   ) -> tuple[np.ndarray, np.ndarray]:
    """M (N, n, n) and ``C qd + g + Q_ext`` (N, n) of a chunk whose qdd is zero (the
    backend's partials operation: the closed-form M and the inverse dynamics in numpy, the
    composite inertias in the compiled kernel)."""
    (_, qs, base, W), = chunks(model, chunk, 0, gravity, size=chunk.n_samples,
                               joint_models=True)
    backend, data = backends.prepare(model, data)
    M, bias = backend.partials(model, data, qs, base, {b: w[:, 0] for b, w in W.items()},
                               partials=False, mass=True)
    return M, bias


def _solve(M: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``M^-1 B`` for the mass matrices M (N, m, m) and B (N, m, k), by the backend that runs."""
    return backends.current().spd_solve(M, B)
