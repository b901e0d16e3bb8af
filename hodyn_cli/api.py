"""The Python API: the command line's capabilities on plain arrays (see docs/python.md).

Every function takes the robot (:func:`load_robot`) and the motion, either as a
:class:`~hodyn_cli.core.trajectory.Trajectory` or as q, qd, qdd, ... arrays: (N, m) or (m,) in
the order of ``robot.coordinate_names`` (the independent joints: a ``<mimic>`` joint follows
its leader and has no values of its own), or dicts keyed by joint name. Results are
:class:`Result` objects whose fields (``tau``, ``taud``, ...) are (N, ...) arrays, or one
sample's when the input was one sample; joint-indexed axes are in ``robot.coordinate_names``
order (``result.joint_names``).

This layer calls the algorithms (:mod:`hodyn_cli.algorithms`) and does what every caller
needs around them: checking and shaping the inputs, imposing mimic joints (the recursions run
on all joints; results are projected onto the independent ones) and naming the results. The
command line's jobs (:mod:`hodyn_cli.pipeline.jobs`) are built on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory, Wrenches, derivative_name, rate_name
from hodyn_cli.errors import HodynError

__all__ = ["Result", "use_backend", "backend", "backend_info", "load_robot", "joint_trajectory",
           "inverse_dynamics", "forward_kinematics",
           "centre_of_mass", "inverse_kinematics", "matrices", "validate_motion", "elastic_dynamics",
           "drive_dynamics", "dynamic_regressor", "regressor_parameters", "regressor_basis",
           "torque_sensitivities", "forward_dynamics", "simulate", "joint_limits",
           "scaling_laws", "check_limits", "retime", "retime_optimal", "contact_dynamics",
           "link_jacobian", "read_contacts", "contact_matrices"]


class Result(Mapping):
    """Named arrays: ``result.tau`` or ``result["tau"]``; ``list(result)`` gives the names.
    ``joint_names``: the order of the joint axes of the arrays."""

    def __init__(self, fields: dict[str, np.ndarray], joint_names: tuple[str, ...]):
        self._fields, self.joint_names = dict(fields), joint_names

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            return self.__dict__["_fields"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name: str) -> np.ndarray:
        return self._fields[name]

    def __iter__(self):
        return iter(self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __repr__(self) -> str:
        shapes = ", ".join(f"{k}{tuple(v.shape)}" for k, v in self._fields.items())
        return f"Result({shapes})"


def use_backend(name: str | None = None) -> str:
    """Choose who computes, for the rest of the process: ``numpy`` (the reference),
    ``compiled`` (the C kernels) or another registered backend (``None``: the default, the
    compiled kernel where it runs); returns the one line :func:`backend` gives. A backend that
    cannot run here is a one-line :class:`~hodyn_cli.errors.HodynError`."""
    from hodyn_cli.algorithms import backends

    backends.select(name)
    return backend()


def backend() -> str:
    """The backend that runs, in one line (e.g. ``compiled kernel avx512, AVX-512, 8 lanes``;
    numpy with why, where the compiled kernel does not run).

    >>> backend().startswith(("compiled kernel", "numpy"))
    True
    """
    from hodyn_cli.algorithms import backends

    return backends.describe()


def backend_info() -> dict:
    """The backend that runs, for reports: ``backend``, ``variant``, ``isa``, ``lanes`` and
    ``reason`` (why numpy runs, where nobody chose it; '' otherwise), and ``fallback``: that
    reason only where nobody asked for numpy (None otherwise)."""
    from hodyn_cli.algorithms import backends

    return backends.info() | {"fallback": backends.fallback()}


def load_robot(path: str | Path, *, strict: bool = False, xacro_args: dict | None = None,
               lock: dict[str, float] | None = None, repair_inertia: bool = False) -> Model:
    """The model of a URDF (or ``.xacro``) file, as the command line loads it: ``strict``
    (URDF warnings are errors), ``xacro_args`` (``{name: value}``), ``lock`` (``{joint:
    value}``: held fixed, see :mod:`hodyn_cli.modeling.locking`), ``repair_inertia``
    (impossible link inertias replaced by the nearest consistent ones, with a warning each)."""
    from hodyn_cli.modeling.locking import lock as lock_joints
    from hodyn_cli.modeling.urdf import load_model

    model = load_model(path, strict=strict, xacro_args=xacro_args, repair_inertia=repair_inertia)
    return lock_joints(model, lock or {})


# -- inputs ------------------------------------------------------------------------------


def _coordinates(robot: Model) -> tuple[str, ...]:
    """The names of the robot's independent coordinates (its coupling's)."""
    from hodyn_cli.modeling import coupling

    return tuple(coupling.of(robot).coordinate_names)


def _joint_array(robot: Model, name: str, value) -> np.ndarray:
    """(N, m) from (N, m), (m,) or {joint: values} (mimic joints' keys are ignored)."""
    names = _coordinates(robot)
    n = len(names)
    if isinstance(value, Mapping):
        unknown = [k for k in value if k not in robot.joint_names]
        if unknown:
            raise HodynError(f"{name}: the model has no joint '{unknown[0]}' (joints: "
                             f"{', '.join(names)})")
        missing = [j for j in names if j not in value]
        if missing:
            raise HodynError(f"{name}: no values for joint(s) {', '.join(missing)}")
        value = np.stack([np.atleast_1d(np.asarray(value[j], dtype=float))
                          for j in names], axis=-1)
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise HodynError(f"{name}: expected numbers, got {type(value).__name__}") from None
    if arr.ndim == 1:
        arr = arr[None]
    if arr.ndim != 2 or arr.shape[1] != n:
        raise HodynError(f"{name}: expected shape (N, {n}) or ({n},) in the model's joint order "
                         f"{names}, or a dict by joint name; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise HodynError(f"{name}: values must be finite")
    return arr


def joint_trajectory(robot: Model, *derivatives, t=None, wrenches: Mapping | None = None,
                     **named) -> Trajectory:
    """A :class:`Trajectory` from q, qd, qdd, ... given in order, or by name (``qddd=...``).

    ``wrenches``: ``{link: (N, D, 6) array}`` of W, Wd, ... exerted by the link on its
    environment, in the link frame (moment; force).
    """
    given = list(derivatives)
    for key in sorted(named, key=len):
        k = len(key) - 1
        if not (key.startswith("q") and set(key[1:]) <= {"d"}):
            raise HodynError(f"unknown argument '{key}' (q, qd, qdd, ... or t, wrenches)")
        if k < len(given):
            raise HodynError(f"'{key}' given twice")
        if k > len(given):
            raise HodynError(f"'{key}' given without {derivative_name('q', len(given))}")
        given.append(named[key])
    if not given:
        raise HodynError("no joint values: give q (and its derivatives)")
    arrays = [_joint_array(robot, derivative_name("q", k), v) for k, v in enumerate(given)]
    lengths = {a.shape[0] for a in arrays}
    if len(lengths) > 1:
        raise HodynError(f"q and its derivatives differ in length: {sorted(lengths)} samples")
    N = arrays[0].shape[0]
    tt = None if t is None else np.atleast_1d(np.asarray(t, dtype=float))
    if tt is not None and tt.shape != (N,):
        raise HodynError(f"t: expected {N} times, got shape {tt.shape}")
    return Trajectory(_coordinates(robot), np.stack(arrays, axis=1), tt,
                      _wrenches(robot, wrenches, N))


def _wrenches(robot: Model, wrenches: Mapping | None, N: int) -> Wrenches | None:
    if not wrenches:
        return None
    W = {}
    for link, w in wrenches.items():
        if link not in robot.links:
            raise HodynError(f"wrenches: the model has no link '{link}'")
        w = np.asarray(w, dtype=float)
        w = w.reshape(1, *w.shape) if w.ndim == 2 and N == 1 else w
        if w.ndim != 3 or w.shape[0] != N or w.shape[2] != 6:
            raise HodynError(f"wrenches['{link}']: expected shape ({N}, D, 6) (W, Wd, ...), "
                             f"got {w.shape}")
        W[link] = w
    return Wrenches(W)


class _Motion:
    """The motion an API function was given, over the independent joints (``coordinates``)
    and over all joints (``full``), and whether it was one sample: the one place the joints'
    coupling (:mod:`hodyn_cli.modeling.coupling`: mimic joints) is applied, on the way in
    (:attr:`full`) and out (:meth:`forces`, :meth:`matrices`, :meth:`tensor`)."""

    def __init__(self, robot: Model, derivatives, named, *, t=None, wrenches=None):
        from hodyn_cli.modeling import coupling

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
                self.single = np.ndim(first) == 1
        self.coupling = coupling.of(robot)
        if self.coordinates.joint_names != self.coupling.coordinate_names:
            raise HodynError(f"the trajectory's joints {self.coordinates.joint_names} are not the "
                             f"robot's {self.coupling.coordinate_names}")
        self.full = self.coupling.expand(self.coordinates)
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

    def result(self, fields: dict[str, np.ndarray], joint_names=None) -> Result:
        return Result({k: (v[0] if self.single else v) for k, v in fields.items()},
                      self.coupling.coordinate_names if joint_names is None else joint_names)


def _series(base: str, value: np.ndarray) -> dict[str, np.ndarray]:
    """(N, K+1, ...) -> ``{base: [:, 0], based: [:, 1], ...}``."""
    return {derivative_name(base, k): value[:, k] for k in range(value.shape[1])}


def _rates(base: str, value: np.ndarray) -> dict[str, np.ndarray]:
    """(N, K+1, ...) -> ``{base: [:, 0], base_d: [:, 1], ...}`` (matrix-valued quantities)."""
    return {rate_name(base, k): value[:, k] for k in range(value.shape[1])}


def _capable(command: str, robot: Model, **on) -> None:
    """The one-line refusal of :mod:`hodyn_cli.capabilities` unless ``command`` takes the
    features ``on`` (``floating_base=True``, ...) together with the robot's."""
    from hodyn_cli import capabilities
    from hodyn_cli.modeling import coupling

    features = {name for name, given in on.items() if given}
    if coupling.of(robot).active:
        features.add("mimic")
    capabilities.check(command, features & capabilities.COMMANDS[command])


# -- the capabilities ------------------------------------------------------------------------


def inverse_dynamics(robot: Model, *derivatives, order: int = 2, method: str = "body-fixed",
                     gravity=GRAVITY, t=None, wrenches: Mapping | None = None,
                     joint_wrenches: bool = False, base_wrench: bool = False, **named) -> Result:
    """tau and its first ``order`` time derivatives: fields ``tau, taud, ...``.

    Give q and its derivatives up to order + 2 (positionally or by name). With
    ``joint_wrenches``, also ``F`` (N, order+1, nb, 6): per moving body (``robot.link_names``)
    the wrench (moment; force) its parent exerts on it through its joint, in its frame, and
    the derivatives. With ``base_wrench``, also ``W``, ``Wd``, ... (N, 6): the wrench the root
    link exerts on its mount or supports, root link frame (docs/floating.md). A
    :class:`Trajectory` with a ``base`` (:class:`~hodyn_cli.core.trajectory.BaseMotion`) makes
    the root a free body moving so.
    """
    from hodyn_cli.algorithms.dynamics import floating, methods

    m = _Motion(robot, derivatives, named, t=t, wrenches=wrenches)
    _capable("compute", robot, floating_base=m.full.base is not None,
             joint_wrenches=joint_wrenches, method=method != "body-fixed")
    if base_wrench or m.full.base is not None:
        tau, W = floating.inverse_dynamics(robot, m.full, method=method, order=order,
                                           gravity=gravity)
    else:
        tau = methods.inverse_dynamics(robot, m.full, method=method, order=order, gravity=gravity)
    fields = _series("tau", m.forces(tau))
    if base_wrench:
        fields |= _series("W", W)
    if joint_wrenches:
        fields["F"] = methods.joint_wrenches(robot, m.full, method=method, order=order,
                                             gravity=gravity)
    return m.result(fields)


def forward_kinematics(robot: Model, link: str, *derivatives, order: int = 3, **named
                       ) -> Result:
    """One link's pose and motion: fields ``p`` (N, 3), ``R`` (N, 3, 3), the spatial twist
    ``Vs``, ``Vsd``, ... and the body-fixed ``Vb``, ... (N, 6) to ``order``, and the velocity,
    acceleration, ... of the link origin ``pd``, ``pdd``, ... (N, 3)."""
    from hodyn_cli.algorithms.motion.kinematics import link_kinematics

    m = _Motion(robot, derivatives, named)
    lk = link_kinematics(robot, m.full, link, order=order)
    fields = {"p": lk.p, "R": lk.R, **_series("Vs", lk.Vs), **_series("Vb", lk.Vb),
              **{derivative_name("p", k + 1): lk.pd[:, k] for k in range(lk.pd.shape[1])}}
    return m.result(fields)


def centre_of_mass(robot: Model, *derivatives, order: int = 1, **named) -> Result:
    """The whole robot's (root link included) ``mass`` (N,), centre of mass ``com``, ``comd``,
    ... (N, 3) to ``order + 1`` and centroidal momentum ``h``, ``hd``, ... (N, 6: angular about
    the centre of mass; linear) to ``order``: root frame, or the world's for a Trajectory with
    a floating ``base`` (:mod:`hodyn_cli.algorithms.motion.momentum`)."""
    from hodyn_cli.algorithms.motion.momentum import centroidal

    m = _Motion(robot, derivatives, named)
    c = centroidal(robot, m.full, order=order)
    return m.result({"mass": np.full(m.full.n_samples, c.mass), **_series("com", c.com),
                     **_series("h", c.h)})


def inverse_kinematics(robot: Model, link: str, motion, *, t=None, task: str = "pose",
                       q0=None, max_condition: float | None = None, on_singular: str = "error",
                       on_branch_jump: str = "error", posture_gain: float | None = None
                       ) -> Result:
    """Joint motion that moves ``link`` as ``motion`` prescribes (``hodyn ik``).

    ``motion``: a :class:`~hodyn_cli.core.motion.LinkMotion`, or the fields
    :func:`forward_kinematics` returns: ``p``, ``R``, the twist ``Vs``, ``Vsd``, ... (or
    body-fixed ``Vb``, ...) for a pose task, ``pd``, ``pdd``, ... for a position task. Fields:
    ``q``, ``qd``, ... (one more order than the twists given) and ``condition`` (the task
    Jacobian's condition number per sample); see :mod:`hodyn_cli.algorithms.motion.ik` for the scheme
    (spatial paper, Algorithm 2) and the options (``posture_gain``: redundant arms' pull
    towards the first sample's posture, 1/s).
    """
    from hodyn_cli.algorithms.motion.ik import MAX_CONDITION, POSTURE_GAIN
    from hodyn_cli.algorithms.motion.ik import inverse_kinematics as solve
    from hodyn_cli.core.motion import LinkMotion

    if not isinstance(motion, LinkMotion):
        motion = _link_motion(motion, t)
    res = solve(robot, motion, link, task=task, q0=q0,
                max_condition=MAX_CONDITION if max_condition is None else max_condition,
                on_singular=on_singular, on_branch_jump=on_branch_jump,
                posture_gain=POSTURE_GAIN if posture_gain is None else posture_gain)
    return Result({**_series("q", res.trajectory.derivatives), "condition": res.condition},
                  robot.joint_names)


def _link_motion(fields: Mapping, t):
    from hodyn_cli.core.motion import LinkMotion

    def stacked(base: str, first: int, width: int):
        rows, k = [], first
        while derivative_name(base, k) in fields:
            rows.append(np.asarray(fields[derivative_name(base, k)], dtype=float).reshape(-1, width))
            k += 1
        return np.stack(rows, axis=1) if rows else None

    if "p" not in fields:
        raise HodynError("motion: no field 'p' (the link origin, as forward_kinematics gives it)")
    p = np.asarray(fields["p"], dtype=float).reshape(-1, 3)
    R = np.asarray(fields["R"], dtype=float).reshape(-1, 3, 3) if "R" in fields else None
    t = None if t is None else np.atleast_1d(np.asarray(t, dtype=float))
    return LinkMotion(p, R, stacked("Vs", 0, 6), stacked("p", 1, 3), t, stacked("Vb", 0, 6))


def matrices(robot: Model, *derivatives, order: int = 0, gravity=GRAVITY,
             wrenches: Mapping | None = None, state_derivatives: bool = False,
             parameter_derivatives: bool = False, **named) -> Result:
    """M, C, Cbar, g (and Q_ext when wrenches are given) with their first ``order``
    derivatives: fields ``M``, ``M_d``, ..., ``C``, ..., ``Cbar``, ..., ``g``, ...; ``tau = M
    qdd + C qd + g + Q_ext`` (docs/conventions.md says which C is which). A Trajectory with a
    floating ``base``: size 6 + n, the root's body twist first (docs/floating.md).

    ``state_derivatives``: also ``dM_dq``, ``dC_dq``, ``dC_dqd``, ``dCbar_dq``, ``dCbar_dqd``
    (N, m, m, m: ``[s, a, b, h] = d A_ab / d q_h``), ``dg_dq`` (N, m, m) and, with wrenches,
    ``dQ_ext_dq``. ``parameter_derivatives``: ``dM_dpi``, ``dC_dpi``, ``dCbar_dpi`` (N, m, m,
    10 nb) and ``dg_dpi`` (N, m, 10 nb), parameters in the regressor's order
    (:mod:`hodyn_cli.algorithms.dynamics.matrix_derivatives`, docs/sensitivity.md).
    """
    from hodyn_cli.algorithms.dynamics import closed_form, floating, matrix_derivatives

    m = _Motion(robot, derivatives, named, wrenches=wrenches)
    _capable("matrices", robot, floating_base=m.full.base is not None,
             state_derivatives=state_derivatives, parameter_derivatives=parameter_derivatives)
    if m.full.base is not None:  # 6 + n: the root's body twist, then the joints
        E = floating.matrices(robot, m.full, order=order, gravity=gravity)
        names = ("M", "C", "Cbar", "g") + (("Q_ext",) if m.full.wrenches is not None else ())
        return m.result({k: v for name in names for k, v in _rates(name, getattr(E, name)).items()},
                        ("base_wx", "base_wy", "base_wz", "base_vx", "base_vy", "base_vz")
                        + robot.joint_names)
    E = closed_form.matrices(robot, m.full, order=order, gravity=gravity)
    fields: dict[str, np.ndarray] = {}
    for name in ("M", "C", "Cbar"):  # G^T A G over the independent coordinates
        fields |= _rates(name, m.matrices(getattr(E, name)))
    for name in ("g", "Q_ext") if m.full.wrenches is not None else ("g",):
        fields |= _rates(name, m.forces(getattr(E, name)))
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


def forward_dynamics(robot: Model, *derivatives, tau=None, gravity=GRAVITY, t=None,
                     wrenches: Mapping | None = None, partials: bool = False, **named) -> Result:
    """Forward dynamics: the joint accelerations ``qdd`` of the torques ``tau`` at the state q,
    qd, and as many time derivatives (``qddd``, ...) as torque derivatives are given
    (``taud=...``, ``taudd=...``: each needs the next). Fields ``qdd``, ``qddd``, ...; with
    ``partials`` also ``dqdd_dq``, ``dqdd_dqd``, ``dqdd_dtau`` (= M^-1) (N, m, m: ``[s, i, j]
    = d qdd_i / d x_j``). ``tau=None``: the Trajectory's ``series`` ``tau``, ``taud``, ... (a
    file read with those columns). External wrenches need W to the same order as tau
    (:mod:`hodyn_cli.algorithms.dynamics.forward`, docs/sensitivity.md).
    """
    from hodyn_cli.algorithms.dynamics.forward import forward_dynamics as solve

    rates = _torque_rates(robot, tau, named)
    m = _Motion(robot, derivatives, named, t=t, wrenches=wrenches)
    if not rates:
        series = m.coordinates.series or {}
        k = 0
        while derivative_name("tau", k) in series:
            rates.append(series[derivative_name("tau", k)])
            k += 1
        if not rates:
            raise HodynError("no torques: give tau (and taud, ... for qddd, ...)")
    _capable("forward", robot, floating_base=m.full.base is not None)
    N = m.full.n_samples
    if any(r.shape[0] != N for r in rates):
        raise HodynError(f"tau and its derivatives need {N} samples, like q")
    res = solve(robot, m.full, np.stack(rates, axis=1), gravity=gravity,
                coupling=m.coupling,
                derivatives=partials)
    fields = {derivative_name("q", k + 2): res.qs[:, k] for k in range(res.qs.shape[1])}
    return m.result(fields | res.partials)


def _torque_rates(robot: Model, tau, named: dict) -> list[np.ndarray]:
    """``[tau, taud, ...]`` as (N, m) arrays, taken out of ``named``."""
    rates = [] if tau is None else [_joint_array(robot, "tau", tau)]
    for key in sorted((k for k in named if k.startswith("tau")), key=len):
        if not set(key[3:]) <= {"d"}:
            raise HodynError(f"unknown argument '{key}' (tau, taud, taudd, ...)")
        if len(key) - 3 != len(rates):
            raise HodynError(f"'{key}' given without {derivative_name('tau', len(rates))}")
        rates.append(_joint_array(robot, key, named.pop(key)))
    return rates


def simulate(robot: Model, t, q0, qd0, *, tau, gravity=GRAVITY, wrenches: Mapping | None = None,
             **named) -> Result:
    """Integrate the forward dynamics from the state ``q0, qd0`` at ``t[0]`` driven by the
    torques ``tau`` (N, m) given at the times ``t`` (N,), with their derivatives ``taud=...``,
    ... if known (piecewise Hermite between the samples; DOP853 at tolerances 1e-12): fields
    ``q``, ``qd`` at ``t`` (:mod:`hodyn_cli.algorithms.verification.simulate`). ``wrenches``: ``{link: (N,
    D, 6)}`` external wrenches at ``t``, as for :func:`inverse_dynamics`."""
    from hodyn_cli.algorithms.verification.simulate import simulate as integrate
    from hodyn_cli.modeling import coupling

    rates = _torque_rates(robot, tau, named)
    if named:
        raise HodynError(f"unknown argument '{next(iter(named))}'")
    times = np.atleast_1d(np.asarray(t, dtype=float))
    if any(r.shape[0] != times.size for r in rates):
        raise HodynError(f"tau and its derivatives need one row per time ({times.size})")
    start = joint_trajectory(robot, q0, qd0)
    if start.n_samples != 1:
        raise HodynError("q0, qd0: one state (m,) or a dict by joint name")
    W = _wrenches(robot, wrenches, times.size)
    q, qd = integrate(robot, times, start.q, start.qd, np.stack(rates, axis=1), gravity=gravity,
                      wrenches=None if W is None else W.W,
                      coupling=coupling.of(robot))
    return Result({"q": q, "qd": qd}, _coordinates(robot))


def validate_motion(robot: Model, *derivatives, t=None, methods=None, gravity=GRAVITY,
                    wrenches: Mapping | None = None, samples: int | None = 1000,
                    tolerances=None, source: str = "", estimated: tuple[str, ...] = (),
                    warnings: tuple[str, ...] = (), chunks: Iterable[Trajectory] | None = None,
                    simulate: bool = False, drives=None, drive_model: str = "full", contacts=(),
                    **named):
    """The checks of ``hodyn validate``: a :class:`hodyn_cli.algorithms.verification.validate.Report`
    (``.passed``, ``.checks``). ``chunks``: the trajectory as consecutive chunks instead (one
    pass, memory bounded by a chunk and the ``samples`` checked). ``estimated``: derivative
    names that were estimated from the data (their consistency checks are reported as such);
    ``warnings``: what reading the input warned about (counted as ``warn`` checks).
    ``simulate``: also integrate the forward dynamics driven by the computed torques and
    compare with q, qd (needs ``t``). ``drives`` (rigid, as for :func:`drive_dynamics`;
    ``drive_model``): also check the drives' columns tau, taum, current. ``contacts`` (as
    :func:`read_contacts` takes them; a floating base on them): the torques and contact
    wrenches of :func:`contact_dynamics`, and the contacts' own checks."""
    from hodyn_cli.algorithms.verification.validate import Tolerances, validate
    from hodyn_cli.modeling import coupling

    motion: Trajectory | Iterable[Trajectory]
    if chunks is None:
        motion = _Motion(robot, derivatives, named, t=t, wrenches=wrenches).full
    else:
        motion = (coupling.of(robot).expand(chunk) for chunk in chunks)
    return validate(robot, motion, methods=methods, gravity=gravity, samples=samples,
                    tolerances=tolerances or Tolerances(), source=source, estimated=estimated,
                    warnings=tuple(warnings), simulate=simulate, drive_model=drive_model,
                    drives=None if drives is None else _drives(robot, drives, "validate"),
                    contacts=read_contacts(robot, contacts) if contacts else ())


def _drives(robot: Model, drives, command: str = "compute"):
    """A :class:`~hodyn_cli.modeling.drives.Drives` from one, a drives file or a table, for
    ``command`` (its capabilities: drives of a robot with mimic joints are refused; the
    regressor reads them for their friction and armature columns)."""
    from hodyn_cli.modeling.drives import Drives, drives_from_table, read_drives

    _capable(command, robot, drives=True, friction=command == "regressor")
    if isinstance(drives, Drives):
        return drives
    return (drives_from_table(robot, drives) if isinstance(drives, Mapping)
            else read_drives(drives, robot))


def elastic_dynamics(robot: Model, drives, *derivatives, order: int = 0, model: str = "full",
                     gravity=GRAVITY, wrenches: Mapping | None = None, known=None,
                     **named) -> Result:
    """Elastic joints: fields ``u, ud, ...``, ``theta, ...`` (to order + 2), ``taum, ...``.

    ``drives``: a :class:`~hodyn_cli.modeling.drives.Drives`, a drives file (TOML), or
    ``{joint: {"stiffness": ..., "gear_ratio": ..., "rotor_inertia": ...}}``. ``known``: the
    :func:`hodyn_cli.algorithms.actuation.elastic.requirements` of this robot, drives, order and model,
    if already found (they probe the model).
    """
    from hodyn_cli.algorithms.actuation import elastic

    drives = _drives(robot, drives, "elastic")
    m = _Motion(robot, derivatives, named, wrenches=wrenches)
    res = elastic.inverse_dynamics(robot, m.full, drives, order=order, kind=model,
                                   gravity=gravity, known=known)
    return m.result(_series("u", res.u) | _series("theta", res.theta) | _series("taum", res.taum))


def drive_dynamics(robot: Model, drives, *derivatives, order: int = 2, model: str = "full",
                   rigid: bool = False, gravity=GRAVITY, wrenches: Mapping | None = None,
                   known=None, **named) -> Result:
    """Rigid drives (docs/drives.md): fields ``tau, taud, ...`` (link-side joint torques, the
    rotors' reactions included), ``taum, ...`` (motor torques, friction included) and
    ``current, ...`` (NaN where a drive has no torque constant), to ``order``.

    ``drives`` as for :func:`elastic_dynamics`; ``rigid``: take series-elastic drives as rigid
    (else they are an error); ``model``: ``full`` (rotor gyroscopics) or ``reflected``
    (Pinocchio's armature); ``known``: :func:`hodyn_cli.algorithms.actuation.actuators.requirements` of
    this robot, drives, order and model, if already found.
    """
    from hodyn_cli.algorithms.actuation import actuators

    drives = _drives(robot, drives)
    m = _Motion(robot, derivatives, named, wrenches=wrenches)
    res = actuators.inverse_dynamics(robot, m.full, drives.made_rigid() if rigid else drives,
                                     order=order, kind=model, gravity=gravity, known=known)
    return m.result(_series("tau", res.tau) | _series("taum", res.taum)
                    | _series("current", res.current))


def dynamic_regressor(robot: Model, *derivatives, order: int = 0, gravity=GRAVITY, base=None,
                      qr_d=None, qr_dd=None, drives=None, friction: bool = False,
                      armature: bool = False, drive_model: str = "full", **named) -> Result:
    """The regressor: fields ``Y``, ``Y_d``, ... (n x 10 nb per sample) with
    ``tau^(k) = Y^(k) pi`` (pi: :func:`hodyn_cli.algorithms.dynamics.regressor.parameters`).

    ``base``: a :class:`~hodyn_cli.algorithms.dynamics.regressor.BaseParameters` (or True to find
    them) adds ``Y_base``, ... (``Y pi = Y_base pi_base``). ``qr_d``, ``qr_dd``: reference
    velocity and acceleration (N, m) add the Slotine-Li ``Y_r`` (``Y_r pi = M qr_dd + Cbar
    qr_d + g``). ``friction``, ``armature`` (with ``drives``, as for :func:`drive_dynamics`;
    ``drive_model`` full or reflected): Y gains the columns of each drive's friction
    parameters and rotor inertia (:func:`regressor_parameters`), and models the motor torque
    referred to the joint, ``r eta tau_m`` (docs/drives.md).

    A Trajectory with a floating ``base``: 6 + m rows, the base wrench ``W_<root>_mx, ...,
    _fz`` (as ``inverse_dynamics(..., base_wrench=True)`` gives it) then the joints
    (``result.joint_names``), and the root link's 10 parameters first
    (``regressor_parameters(robot, floating_base=True)``; docs/floating.md).
    """
    from hodyn_cli.algorithms.dynamics import regressor

    m = _Motion(robot, derivatives, named)
    floating = m.full.base is not None
    _capable("regressor", robot, floating_base=floating, slotine_li=qr_d is not None,
             friction=friction or armature, drives=friction or armature)
    Y = regressor.project_rows(robot, regressor.regressor(robot, m.full, order=order,
                                                          gravity=gravity))
    extra = _drive_columns(robot, drives, friction, armature, drive_model)
    if extra is not None:
        Y = np.concatenate([Y, extra[0](m.full, order)], axis=3)
    fields = _rates("Y", Y)
    if base is True:
        base = regressor_basis(robot, gravity=gravity, drives=drives, friction=friction,
                               armature=armature, drive_model=drive_model,
                               floating_base=floating)
    if base is not None:
        if base.base_map.shape[1] != Y.shape[-1]:
            raise HodynError(f"base parameters of {base.base_map.shape[1]} parameters for a "
                             f"regressor of {Y.shape[-1]}")
        fields |= _rates("Y_base", Y[..., base.independent])
    if (qr_d is None) != (qr_dd is None):
        raise HodynError("the Slotine-Li regressor needs both qr_d and qr_dd")
    if qr_d is not None:
        ref = [m.coupling.tangent(_joint_array(robot, name, v), m.coordinates.q)
               for name, v in (("qr_d", qr_d), ("qr_dd", qr_dd))]
        fields["Y_r"] = m.forces(regressor.slotine_li_regressor(robot, m.full, *ref,
                                                                gravity=gravity), axis=1)
    if floating:
        return m.result(fields, regressor.base_wrench_rows(robot) + m.coupling.coordinate_names)
    return m.result(fields)


def _drive_columns(robot: Model, drives, friction: bool, armature: bool, drive_model: str):
    """``(columns(trajectory, order), names)`` of the drive parameters, or None."""
    from hodyn_cli.algorithms.actuation import actuators

    if not (friction or armature):
        return None
    if drives is None:
        raise HodynError("friction and armature columns need the drives (--drives FILE)")
    drives = _drives(robot, drives, "regressor")
    unsmoothed = drives.driven & ~drives.friction.velocity_given
    if friction and unsmoothed.any():  # its Coulomb column would be tanh(v / (1 rad/s))
        names = [robot.joint_names[j] for j in np.flatnonzero(unsmoothed)]
        raise HodynError(f"joint '{names[0]}': the friction columns need its 'coulomb_velocity' "
                         "in the drives file (the speed that smooths its Coulomb column)"
                         + (f"; so do {', '.join(names[1:])}" if len(names) > 1 else ""),
                         drives.source)
    names, _ = actuators.regressor_parameters(robot, drives, with_armature=armature,
                                              with_friction=friction)

    def columns(trajectory: Trajectory, order: int) -> np.ndarray:
        return actuators.regressor_columns(robot, trajectory, drives, order=order,
                                           kind=drive_model, with_armature=armature,
                                           with_friction=friction)

    return columns, names


def regressor_parameters(robot: Model, *, drives=None, friction: bool = False,
                         armature: bool = False, floating_base: bool = False
                         ) -> tuple[list[str], np.ndarray]:
    """Names and values of the parameters of :func:`dynamic_regressor`'s columns: the 10 per
    body (``m_<link>``, ...; ``floating_base``: the root link's first), then with ``armature``
    ``rotor_inertia_<joint>`` per drive and with ``friction`` ``viscous_<joint>``,
    ``coulomb_<joint>``, ``offset_<joint>`` (the drives file's values)."""
    from hodyn_cli.algorithms.actuation import actuators
    from hodyn_cli.algorithms.dynamics import regressor

    names = regressor.parameter_names(robot, floating_base)
    values = regressor.parameters(robot, floating_base)
    if friction or armature:
        if drives is None:
            raise HodynError("friction and armature parameters need the drives (--drives FILE)")
        more, extra = actuators.regressor_parameters(robot, _drives(robot, drives, "regressor"),
                                                     with_armature=armature, with_friction=friction)
        names, values = names + more, np.concatenate([values, extra])
    return names, values


def regressor_basis(robot: Model, *, gravity=GRAVITY, drives=None, friction: bool = False,
                    armature: bool = False, drive_model: str = "full",
                    floating_base: bool = False):
    """The base parameters (:class:`~hodyn_cli.algorithms.dynamics.regressor.BaseParameters`) of
    :func:`dynamic_regressor`'s columns with these options (``floating_base``: of a floating
    base's regressor)."""
    from hodyn_cli.algorithms.dynamics import regressor

    _capable("regressor", robot, floating_base=floating_base, friction=friction or armature,
             drives=friction or armature)
    extra = _drive_columns(robot, drives, friction, armature, drive_model)
    return regressor.base_parameters(robot, gravity=gravity, extra=None if extra is None else (
        lambda trajectory: extra[0](trajectory, 0), extra[1]), floating_base=floating_base)


def torque_sensitivities(robot: Model, *derivatives, order: int = 0, gravity=GRAVITY,
                         wrenches: Mapping | None = None, **named) -> Result:
    """d tau^(k) / d q^(j): fields ``dtau_dq``, ``dtau_dqd``, ..., ``dtaud_dq``, ... (m x m
    per sample; entry ``[s, i, j]`` = d out_i / d in_j). A Trajectory with a floating
    ``base``: the joint torques' with the root moving as given."""
    from hodyn_cli.algorithms.dynamics import sensitivities

    m = _Motion(robot, derivatives, named, wrenches=wrenches)
    S = sensitivities.sensitivities(robot, m.full, order=order, gravity=gravity)
    return m.result({k: m.matrices(v) for k, v in S.items()})


# -- limits and time scaling (docs/feasibility.md) ------------------------------------------


def joint_limits(robot: Model, limits=None):
    """The robot's limits: its URDF's (position, velocity, effort as torque), overridden by
    ``limits``: a limits file (TOML), ``{joint: {key: value}}`` (keys:
    :data:`hodyn_cli.modeling.limits.KEYS`), or a :class:`~hodyn_cli.modeling.limits.Limits`."""
    from hodyn_cli.modeling.limits import Limits, read_limits
    from hodyn_cli.modeling.limits import joint_limits as table_limits

    if isinstance(limits, Limits):
        return limits
    if limits is None or isinstance(limits, Mapping):
        return table_limits(robot, limits)
    return read_limits(limits, robot)


def scaling_laws(robot: Model, *derivatives, order: int = 2, drives=None, model: str = "full",
                 gravity=GRAVITY, wrenches: Mapping | None = None, known=None, contacts=(),
                 **named) -> dict:
    """How every limited series changes when the motion is played k times slower: name ->
    :class:`~hodyn_cli.algorithms.limits.scaling.Law` (``law.at(1 / k)``: (N, m) values, joints
    ``law.joint_names``). Rigid: ``q``, ``qd`` (every joint), ``tau`` .. ``tau^(order)`` (order
    -1: none); with ``drives`` (as :func:`elastic_dynamics` takes them, ``model``, ``known``)
    ``u``, ``ud``, ``udd``, and ``thetad``, ``taum`` of the joints with a drive. A Trajectory
    with a floating ``base``: its torques, on ``contacts`` if given (as :func:`read_contacts`
    takes them; then also each contact's wrench, ``contact/<name>``; docs/contacts.md)."""
    from hodyn_cli.algorithms.limits.feasibility import series_laws

    m = _Motion(robot, derivatives, named, wrenches=wrenches)
    return series_laws(robot, m.full, order=order, gravity=gravity,
                       drives=None if drives is None else _drives(robot, drives, "check"), kind=model,
                       known=known, contacts=read_contacts(robot, contacts) if contacts else ())


def check_limits(robot: Model, *derivatives, limits=None, drives=None, model: str = "full",
                 gravity=GRAVITY, t=None, wrenches: Mapping | None = None, contacts=(),
                 **named):
    """``hodyn check``: every limited quantity against its limit at every sample, a
    :class:`~hodyn_cli.algorithms.limits.feasibility.Check` (``.feasible``, ``.rows``: per joint and
    quantity the worst sample, its value, the margin and the number of violations).
    ``limits``: as :func:`joint_limits` takes them; ``contacts`` (a floating base on them):
    also each contact's friction cone and sole."""
    from hodyn_cli.algorithms.limits.feasibility import Check, torque_order

    lim = joint_limits(robot, limits)
    m = _Motion(robot, derivatives, named, t=t, wrenches=wrenches)
    contacts = read_contacts(robot, contacts) if contacts else ()
    check = Check(robot, lim, contacts=contacts)
    check.add(scaling_laws(robot, m.coordinates, order=torque_order(lim), drives=drives,
                           model=model, gravity=gravity, contacts=contacts), m.coordinates.t)
    return check


def retime(robot: Model, *derivatives, limits=None, drives=None, model: str = "full",
           gravity=GRAVITY, factor: float | None = None, segments=(), t=None,
           wrenches: Mapping | None = None, contacts=(), **named):
    """``hodyn retime``: the motion played k times slower, ``t' = t0 + k (t - t0)``, with every
    derivative (and wrench rate) scaled exactly: ``(trajectory, retiming, bindings)``.

    k is ``factor``, or the smallest that keeps every limited quantity within ``limits`` (as
    :func:`joint_limits` takes them) for that and any slower playing; ``segments`` (times)
    scale the pieces between them independently. ``retiming``: a
    :class:`~hodyn_cli.algorithms.limits.feasibility.Retiming` (``.k`` per segment); ``bindings``:
    per segment the :class:`~hodyn_cli.algorithms.limits.feasibility.Binding` that set its k (its
    time in the retimed motion). ``contacts`` (a floating base on them): the torques on them,
    and each stays in its friction cone and on its sole.
    """
    from hodyn_cli.algorithms.limits.feasibility import Retiming, ScaleSearch, torque_order
    from hodyn_cli.algorithms.limits.scaling import scaled

    m = _Motion(robot, derivatives, named, t=t, wrenches=wrenches)
    traj = m.coordinates
    if factor is not None:
        if not factor > 0 or segments:
            raise HodynError(f"factor must be positive, without segments; got {factor}")
        t0 = 0.0 if traj.t is None else float(traj.t[0])
        retiming, bindings = Retiming((t0, t0), (float(factor),)), []
    else:
        lim = joint_limits(robot, limits)
        contacts = read_contacts(robot, contacts) if contacts else ()
        search = ScaleSearch(robot, lim, tuple(segments), contacts)
        search.add(scaling_laws(robot, traj, order=torque_order(lim), drives=drives, model=model,
                                gravity=gravity, contacts=contacts), traj)
        retiming = search.retiming()
        bindings = [retiming.played(b) for b in search.best]
    if traj.t is None:
        return scaled(traj, 1.0 / retiming.k[0]), retiming, bindings
    return scaled(traj, retiming.speedups(traj.t), retiming.times(traj.t)), retiming, bindings


# -- contacts and Jacobians (docs/contacts.md) ------------------------------------------------


def read_contacts(robot: Model, contacts):
    """The contacts (:class:`~hodyn_cli.modeling.contacts.Contact` tuple) of ``contacts``: a
    contacts file (TOML), ``{name: {key: value}}`` (its ``[contacts]`` table), or contacts."""
    from hodyn_cli.modeling.contacts import Contact, contacts_from_table
    from hodyn_cli.modeling.contacts import read_contacts as read_file

    if isinstance(contacts, tuple | list) and all(isinstance(c, Contact) for c in contacts):
        return tuple(contacts)
    if isinstance(contacts, Mapping):
        return contacts_from_table(robot, contacts)
    return read_file(contacts, robot)


def contact_dynamics(robot: Model, contacts, trajectory: Trajectory, *, order: int = 2,
                     method: str = "body-fixed", gravity=GRAVITY, active=None,
                     base_wrench: bool = False) -> Result:
    """A floating-base robot on its contacts (docs/contacts.md): fields ``tau, taud, ...``
    (the joint torques with the contact wrenches applied), per contact ``Fc_<name>``,
    ``Fcd_<name>``, ... (N, 3: a point's force, world axes) or ``Wc_<name>``, ... (N, 6: a
    surface's wrench, moment; force, its contact frame), ground reactions, and ``active``
    (N, m); with ``base_wrench`` ``W``, ``Wd``, ...: the base wrench left over (zero where
    the active contacts carry it all).

    ``contacts`` as :func:`read_contacts` takes them; ``trajectory`` a Trajectory with a
    floating ``base`` (and the flags ``contact_<name>`` in its ``series``, else ``active``
    (N, m) bool; a contact without either is always active).
    """
    from hodyn_cli.algorithms.contacts.dynamics import on_contacts

    contacts = read_contacts(robot, contacts)
    m = _Motion(robot, (trajectory,), {})
    r = on_contacts(robot, m.full, contacts, active=active, method=method, order=order,
                    gravity=gravity)
    fields = _series("tau", m.forces(r.tau))
    for c in contacts:
        fields |= {f"{derivative_name(c.prefix, k)}_{c.name}": r.wrenches[c.name][:, k]
                   for k in range(order + 1)}
    fields["active"] = r.active
    if base_wrench:
        fields |= _series("W", r.W)
    return m.result(fields)


def contact_matrices(robot: Model, contacts, trajectory: Trajectory, *, order: int = 0,
                     gravity=GRAVITY, active=None) -> Result:
    """The floating-base matrices of :func:`matrices` on contacts (docs/contacts.md): ``Q_ext``
    with the contact wrenches (``M nu' + C nu + g + Q_ext = (-W; tau)``, W the base wrench
    left over and tau the torques of :func:`contact_dynamics`), the contact Jacobian ``Jc``,
    ``Jc_d``, ... (N, k, 6 + n: each contact's rows in order, a point's velocity in world
    axes, a sole's body twist: ``Q_ext = Q_user - Jc^T Fc``) and the stacked ground reactions
    ``Fc``, ``Fc_d``, ... (N, k); ``result.joint_names`` names the columns."""
    from hodyn_cli.algorithms.contacts.dynamics import on_contacts, with_contacts
    from hodyn_cli.algorithms.contacts.jacobians import contact_jacobian
    from hodyn_cli.algorithms.dynamics import floating
    from hodyn_cli.algorithms.motion.jacobians import ROOT_COLUMNS

    contacts = read_contacts(robot, contacts)
    m = _Motion(robot, (trajectory,), {})
    _capable("matrices", robot, floating_base=True, contacts=True)
    r = on_contacts(robot, m.full, contacts, active=active, order=order, gravity=gravity)
    E = floating.matrices(robot, with_contacts(robot, m.full, contacts, r.wrenches, order),
                          order=order, gravity=gravity)
    fields = {k: v for name in ("M", "C", "Cbar", "g", "Q_ext")
              for k, v in _rates(name, getattr(E, name)).items()}
    Jc = np.concatenate([contact_jacobian(robot, m.full, c, order) for c in contacts], axis=2)
    Fc = np.concatenate([r.wrenches[c.name] for c in contacts], axis=2)
    return m.result(fields | _rates("Jc", Jc) | _rates("Fc", Fc), ROOT_COLUMNS + robot.joint_names)


def link_jacobian(robot: Model, link: str, *derivatives, order: int = 2, **named) -> Result:
    """A link's Jacobians and their derivatives (docs/contacts.md): fields ``Js``, ``Js_d``,
    ... (N, 6, m: ``V^s = Js nu``, root frame, world with a floating base) and ``Jb``, ...
    (``V^b = Jb nu``, link frame); ``result.joint_names`` names the columns (a floating
    root's body twist ``base_Vb_..`` first)."""
    from hodyn_cli.algorithms.motion.jacobians import ROOT_COLUMNS
    from hodyn_cli.algorithms.motion.jacobians import link_jacobian as jacobian

    m = _Motion(robot, derivatives, named)
    J = jacobian(robot, m.full, link, order=order)
    f = 6 if m.full.base is not None else 0

    def columns(A: np.ndarray) -> np.ndarray:
        return np.concatenate([A[..., :f], m.forces(A[..., f:])], axis=-1)

    names = (ROOT_COLUMNS if f else ()) + m.coupling.coordinate_names
    return m.result(_rates("Js", columns(J.Js)) | _rates("Jb", columns(J.Jb)), names)


def retime_optimal(robot: Model, *derivatives, limits=None, drives=None, model: str = "full",
                   gravity=GRAVITY, rate: float | None = None, grid: int | None = None, t=None,
                   **named):
    """``hodyn retime --optimal``: the motion along its own path with the fastest time law
    within every limit of ``limits`` (as :func:`joint_limits` takes them; torque rates and
    accelerations too) and, with rigid ``drives``, the motor limits: ``(trajectory,
    optimal)``.

    The input's times are the path parameter (``t`` is required); the output has every
    derivative the input has, exact by the chain rule, at ``rate`` Hz (default: the input's
    mean rate), and every limit holds at every sample, one on its limit. ``optimal``: an
    :class:`~hodyn_cli.algorithms.limits.optimal.Optimal` (``.duration``,
    ``.uniform_duration``: that of :func:`retime`'s uniform scaling, ``.bound.describe()``:
    where the limits bind); ``grid``: its grid's size (docs/feasibility.md).
    """
    from hodyn_cli.algorithms.limits.feasibility import torque_order
    from hodyn_cli.algorithms.limits.optimal import GRID, Optimal

    m = _Motion(robot, derivatives, named, t=t)
    lim = joint_limits(robot, limits)
    optimal = Optimal(robot, lim, torque_order(lim), rate=rate, grid=grid or GRID,
                      gravity=gravity, drives=None if drives is None else _drives(robot, drives, "retime"),
                      kind=model)
    optimal.fit(lambda: [m.coordinates])
    pieces = list(optimal.retimed([m.coordinates]))
    return Trajectory(robot.coordinate_names, np.concatenate([p.derivatives for p in pieces]),
                      np.concatenate([p.t for p in pieces])), optimal
