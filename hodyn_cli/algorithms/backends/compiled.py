"""The compiled backend: the C kernels of ``csrc/`` through ctypes.

setup.py builds the C sources once per instruction set (``portable``: 2 lanes, SSE2/NEON;
``avx2``: 4 lanes, AVX2 + FMA; ``avx512``: 8 lanes), each as its own library. The widest one
this CPU runs is used (``HODYN_KERNEL=<variant>``, or ``variant=``, picks one). The entry
points' argument types, the constants and the status codes are those ``csrc/hodyn.h``
declares (:mod:`.abi`); a library built from another header (its ABI number differs) is
refused as stale. Every operation computes what the numpy backend's method of the same name
computes (tests hold the two to rounding at every lane width) and leaves to it what the
kernels do not cover: orders above MAXK - 2, a model without joints, a model with
spherical, planar or free joints but in the inverse dynamics, an IK path shorter than
its task, a contact phase where an inverse meets a matrix exactly singular (numpy's LU says
so, or not, as the reference does).
"""

from __future__ import annotations

import ctypes
import os
from functools import cache, partial, wraps
from importlib import import_module

import numpy as np

from hodyn_cli.algorithms.backends import OPERATIONS, Unavailable, abi, free_root
from hodyn_cli.algorithms.backends.numpy import NumpyBackend
from hodyn_cli.algorithms.backends.numpy.closed_form import EOMMatrices
from hodyn_cli.algorithms.backends.numpy.contacts import RANKS
from hodyn_cli.algorithms.backends.numpy.ik import Task
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData
from hodyn_cli.core import lie
from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError, ModelError, TrajectoryError

__all__ = ["CompiledBackend", "CompiledData", "VARIANTS", "variants", "abi_of"]

#: variant -> (module, CPU level it needs: 0 baseline, 1 AVX2 + FMA, 2 AVX-512F), widest first
VARIANTS = {"avx512": ("_kernel_avx512", 2), "avx2": ("_kernel_avx2", 1),
            "portable": ("_kernel", 0)}

ABI = abi.read()


def abi_of(lib) -> int | None:
    """The ABI number a loaded kernel library reports (None: too old to report one)."""
    try:
        fn = lib.hodyn_kernel_abi
    except AttributeError:
        return None
    fn.restype, fn.argtypes = ctypes.c_int, []
    return fn()


def _load(variant: str):
    """The variant's library with typed entry points, or a string saying why not."""
    module = VARIANTS[variant][0]
    try:
        path = import_module(f"hodyn_cli.algorithms.backends.{module}").__file__
    except ImportError:
        return f"the {variant} kernel is not built"
    lib = ctypes.CDLL(path)
    if abi_of(lib) != ABI.version:  # built from other sources: its entry points may not match
        return f"the {variant} kernel is stale (built from other sources: reinstall hodyn)"
    for name, (restype, argtypes) in ABI.entry_points.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


@cache
def _cpu_level() -> int:
    """What this CPU runs (the portable library asks it; 0 without one)."""
    lib = _load("portable")
    if isinstance(lib, str):
        return 0
    return lib.hodyn_cpu_level()


def variants() -> list[str]:
    """The kernel variants that are built and run on this CPU, widest first."""
    return [v for v, (_, level) in VARIANTS.items()
            if level <= _cpu_level() and not isinstance(_load(v), str)]


class CompiledData(ModelData):
    """The compiled backend's Data: the model's constants (:class:`ModelData`), the HModel
    struct the kernels read (``struct``, over :func:`_kernel_arrays`; None for a model without
    joints) and the IK tasks' paths as the kernels read them (``paths``, filled as tasks
    come, for as long as the Data lives: one request)."""

    def __init__(self, model: Model):
        super().__init__(model)
        self.kernel_joints = True  # the inverse dynamics' kernel dispatches on every kind
        self.struct = None
        if model.n:
            arrays = _kernel_arrays(model, self)
            self.struct = ABI.model(model.n, *(a.ctypes.data for a in arrays))
            self.struct.arrays = arrays  # alive as long as the struct
        self.paths: dict[Task, tuple[np.ndarray, np.ndarray]] = {}


def _numpy_without_joints(operation=None, *, multi_dof: bool = False, free_root_path=None):
    """``operation`` as the numpy backend's for a model with no joint (a single free body,
    ``model.n == 0``) or with joints its kernel does not run (spherical, planar, free:
    ``Model.multi_dof``, unless ``multi_dof``: the inverse dynamics' kernel runs them; every
    kernel runs every 1-DOF kind, :func:`_kernel_arrays`): the one place the compiled
    backend sends such models to numpy. The kernels number bodies 1..n and allocate per body
    (``hk_check`` refuses n < 1); a single body is only the root's Newton-Euler equation, a
    few dozen operations per sample that numpy's passes do over the whole chunk at once, so
    a kernel would gain nothing. ``free_root_path(self, model, data, *args, **kwargs)``: the
    operation on a robot under a free root joint by the floating-base kernels, or None where
    they do not run it (:mod:`~hodyn_cli.algorithms.backends.free_root`)."""

    def decorate(operation):
        @wraps(operation)
        def run(self, model, data, *args, **kwargs):
            if free_root_path is not None and model.n > 1 and model.joint_types[0] == "free":
                out = free_root_path(self, model, data, *args, **kwargs)
                if out is not None:
                    return out
            if model.n == 0 or (model.multi_dof and not multi_dof):
                numpy_operation = getattr(NumpyBackend, operation.__name__)
                return numpy_operation(self, model, data, *args, **kwargs)
            return operation(self, model, data, *args, **kwargs)

        return run

    return decorate(operation) if operation else decorate


def _free_root_eom(self, model, data, qs, r, base, wrenches, with_cbar=True, root_twist=None):
    """The EOM matrices (6 + nv) of a robot under a free root joint: the floating-base
    kernel's, with the root's body twist jet and gravity ``u_0 = (0; -R^T g)`` in its frame
    (:mod:`~hodyn_cli.algorithms.backends.free_root`)."""
    carried = free_root.carried(self, model, data)
    g = None if carried is None else free_root.gravity_of(base)
    if carried is None or g is None or root_twist is not None or r > self.max_order:
        return None
    robot, robot_data = carried
    R = lie.rotation_vector_exp(qs[:, 0, :3])
    u0 = np.zeros((len(R), 2, 6))
    u0[:, 1, 3:] = -np.einsum("nji,j->ni", R, g)
    W, W0 = free_root.carried_wrenches(wrenches)
    E = self.eom_matrices(robot, robot_data, qs[..., 6:], r, u0, W, with_cbar,
                          root_twist=qs[:, 1:, :6])
    if W0 is not None:
        E.Q_ext[..., :6] += W0[:, : r + 1]
    return E


def _free_root_mass(self, model, data, qs, base, wrenches, *, partials=True, mass=False):
    """M (N, 6 + nv, 6 + nv) and ``C nu + g + Q_ext`` at zero acceleration (the forward
    dynamics' operands) of a robot under a free root joint, from the floating-base kernel's
    closed form (:func:`_free_root_eom`); None (numpy's passes) for the partials."""
    if partials or not mass:
        return None
    E = _free_root_eom(self, model, data, qs, 0, base,
                       {b: w[:, None] for b, w in (wrenches or {}).items()}, with_cbar=False)
    if E is None:
        return None
    bias = (E.C[:, 0] @ qs[:, 1, :, None])[..., 0] + E.g[:, 0] + E.Q_ext[:, 0]
    return E.M[:, 0], bias


def _free_root_regressor(self, model, data, qs, base, order, root=False):
    """The regressor (N, order+1, 6 + nv, 10 (n+1)) of a robot under a free root joint: the
    floating-base kernel's (:mod:`~hodyn_cli.algorithms.backends.free_root`); its first 6
    rows the free joint's, ``F_0``."""
    carried = free_root.carried(self, model, data)
    g = None if carried is None else free_root.gravity_of(base)
    if carried is None or g is None or root or order > self.max_order:
        return None
    robot, robot_data = carried
    return self.regressor(robot, robot_data, qs[..., 6:],
                          free_root.root_jet(self, qs, g, order + 1), order, root=True)


def _free_root_sensitivities(self, model, data, qs, base, wrenches, order, held=0):
    """The joints' sensitivities (S, N, n, n) of a robot under a free root joint held
    (``held`` 6): the carried robot's by the forward-mode kernel, driven by the root's twist
    jet (:mod:`~hodyn_cli.algorithms.backends.free_root`); its body wrenches on the root
    reach no joint."""
    carried = free_root.carried(self, model, data)
    g = None if carried is None else free_root.gravity_of(base)
    if carried is None or g is None or held != 6 or order > self.max_order:
        return None
    robot, robot_data = carried
    return self.sensitivities(robot, robot_data, qs[..., 6:],
                              free_root.root_jet(self, qs, g, order + 1),
                              free_root.carried_wrenches(wrenches)[0], order)


def _struct(backend: CompiledBackend, model: Model, data: CompiledData | None):
    """The HModel struct of ``data`` (the caller's Data for ``model``), else of a Data made now."""
    if data is None or data.made_by is not backend or data.model is not model:
        data = backend.data(model)
    return data.struct


def _kernel_arrays(model: Model, data: ModelData) -> tuple[np.ndarray, ...]:
    """The arrays of the model's HModel struct (hodyn.h), in its order after n: each joint's
    kind (a continuous joint is revolute), where its velocity coordinates start
    (``Model.dof_offsets``) and its pitch ``h = w . v`` (helical ``X = (w; h w)``; 0 for the
    others), and the adjoint constants A1, A2 of the screw without its pitch ``Y = (w; 0)``
    for a helical joint (ModelData's are those of X, which for a revolute or prismatic
    joint is Y; a multi-DOF joint's are not read), from the model's constants ``data``."""
    kind = np.array([ABI.joint_kinds["revolute" if t == "continuous" else t]
                     for t in model.joint_types], dtype=np.int32)
    helical = kind == ABI.joint_kinds["helical"]
    pitch = np.where(helical, np.einsum("ij,ij->i", model.X[:, :3], model.X[:, 3:]), 0.0)
    A0, A1, A2 = data.adjoints
    if helical.any():
        Y = model.X[helical].copy()
        Y[:, 3:] = 0.0
        A1, A2 = A1.copy(), A2.copy()
        A1[helical] = lie.ad(Y) @ A0[helical]
        A2[helical] = lie.ad(Y) @ A1[helical]
    dof = np.ascontiguousarray(model.dof_offsets, dtype=np.int32)
    return (data.parent, kind, dof, np.ascontiguousarray(pitch), data.X, data.M, A0, A1, A2,
            data.ancestors, data.root_M)


class CompiledBackend(NumpyBackend):
    """The C kernels, ``variant`` (default: ``HODYN_KERNEL``, else the widest this CPU runs);
    :class:`~hodyn_cli.algorithms.backends.Unavailable` where none is built or runs."""

    name = "compiled"
    max_order = ABI.max_order
    #: the operations with an entry point in csrc/ (each method below); a model or an order
    #: the kernels do not run goes to numpy's, as each method says; the joint wrenches, the
    #: spatial method and the spatial kinematics have no entry point: numpy's (inherited)
    runs = frozenset(OPERATIONS) - {"joint_wrenches", "spatial_inverse_dynamics",
                                    "spatial_kinematics"}

    def __init__(self, variant: str | None = None):
        wanted = variant or os.environ.get("HODYN_KERNEL")
        if wanted and wanted not in VARIANTS:
            raise Unavailable(f"HODYN_KERNEL={wanted} names no kernel (choose from "
                              f"{', '.join(VARIANTS)})")
        reasons = []
        for name, (_, level) in VARIANTS.items():
            if (wanted and name != wanted) or level > _cpu_level():
                continue
            lib = _load(name)
            if not isinstance(lib, str):
                self.lib, self.variant = lib, name
                break
            reasons.append(lib)
        else:
            raise Unavailable("; ".join(reasons) or f"this CPU does not run the {wanted} kernel")
        self.details = {"variant": self.variant, "isa": self.lib.hodyn_kernel_isa().decode(),
                        "lanes": self.lib.hodyn_kernel_lanes()}

    def describe(self) -> str:
        d = self.details
        return f"compiled kernel {d['variant']}, {d['isa']}, {d['lanes']} lanes"

    def rows(self, numpy_rows: int) -> int:
        """The kernels' memory is per lane group: one call for every sample given."""
        return 1 << 40

    def data(self, model: Model) -> CompiledData:
        """The model as the kernels read it (:class:`CompiledData`), built now: the caller
        makes it once per request."""
        data = CompiledData(model)
        data.made_by = self
        return data

    # -- dynamics ----------------------------------------------------------------------
    @_numpy_without_joints(multi_dof=True)
    def inverse_dynamics(self, model, data, qs, base, wrenches, *, order, twists=False, root=False):
        if order > self.max_order:
            return super().inverse_dynamics(model, data, qs, base, wrenches, order=order,
                                             twists=twists, root=root)
        N, D, jets = _samples(model, qs, order + 3)
        n = model.n
        base = _base(base, N, order)
        W = _dense_wrenches(wrenches, N, n, order)
        out = np.empty((order + 1, N, model.nv))   # each order one block: tau[:, k] contiguous
        V = np.empty((N, n, order + 2, 6)) if twists else None
        F0 = np.empty((N, order + 1, 6)) if root else None
        _check(self.lib.hodyn_body_fixed(data.struct, N, D, *jets, order, base, len(base),
                                         _ptr(W), out, _ptr(V), _ptr(F0)))
        tau = out.transpose(1, 0, 2)
        extras = tuple(a for a in (V, F0) if a is not None)
        return (tau, *extras) if extras else tau

    @_numpy_without_joints
    def inverse_dynamics_probes(self, model, data, probes, base, *, order):
        # (hodyn_body_fixed_probes: the joint adjoints once per sample for all the probes)
        if order > self.max_order:
            return super().inverse_dynamics_probes(model, data, probes, base, order=order)
        probes = np.ascontiguousarray(probes, dtype=np.float64)  # (probe p: p blocks on)
        P, N = probes.shape[:2]
        _, D, (qs, qstride) = _samples(model, probes[0], order + 3)
        out = np.empty((P, order + 1, N, model.nv))   # each probe's orders blocks, as above
        _check(self.lib.hodyn_body_fixed_probes(data.struct, N, D, qs, qstride, P,
                                                probes[0].size, order, _base(base, 1, order),
                                                out))
        return out.transpose(0, 2, 1, 3)

    def root_jet(self, R, Vb, g, K):
        N = R.shape[0]
        if R.shape != (N, 3, 3) or Vb.ndim != 3 or Vb.shape[0] != N or Vb.shape[2] != 6 \
                or Vb.shape[1] < K + 1 or np.shape(g) != (3,):
            raise TrajectoryError(f"base motion: R {R.shape}, Vb {Vb.shape}, gravity "
                                  f"{np.shape(g)}: need (N, 3, 3), (N, >= {K + 1}, 6), (3,)")
        out = np.empty((N, K + 1, 6))
        f64 = partial(np.ascontiguousarray, dtype=np.float64)
        _check(self.lib.hodyn_root_jet(N, K + 1, Vb.shape[1], f64(R), f64(Vb), f64(g), out))
        return out

    @_numpy_without_joints
    def contact_frames(self, model, data, qs, contacts, K):
        if K > self.max_order:
            return super().contact_frames(model, data, qs, contacts, K)
        N, D, jets = _samples(model, qs, max(K, 1) + 1)
        C = len(contacts)
        body = np.array([model.links[c.link].body for c in contacts], dtype=np.int32)
        T = np.array([model.links[c.link].T @ c.T for c in contacts], dtype=np.float64)
        R, p = np.empty((N, C, K + 1, 3, 3)), np.empty((N, C, K + 1, 3))
        _check(self.lib.hodyn_contact_frames(data.struct, N, D, *jets, K, C, body,
                                             T.reshape(C, 4, 4), R, p))
        return R, p

    def contact_share(self, R, p, R0, point, on, rows, Hinv, b, rank):
        """Phase by phase in C; a phase where an inverse meets a determinant exactly zero
        (HK_SINGULAR) as numpy's (which raises or not, as its LU finds it)."""
        N, C, K1 = R.shape[:3]
        if K1 > self.max_order + 1:
            return super().contact_share(R, p, R0, point, on, rows, Hinv, b, rank)
        f64 = partial(np.ascontiguousarray, dtype=np.float64)
        R0c = None if R0 is None else f64(R0[:, :K1])   # alive in the call
        k = Hinv.shape[0]
        F, left, Fc = (np.empty((len(rows), K1, size)) for size in (k, 6, k))
        status = self.lib.hodyn_contact_share(
            N, K1, C, f64(R), f64(p), _ptr(R0c), np.ascontiguousarray(point, dtype=np.uint8),
            len(rows), np.ascontiguousarray(rows, dtype=np.int32), len(on),
            np.ascontiguousarray(on, dtype=np.int32), f64(Hinv), RANKS.index(rank), f64(b),
            F, _ptr(left), _ptr(Fc))
        if ABI.status.get(status) == "HK_SINGULAR":
            return super().contact_share(R, p, R0, point, on, rows, Hinv, b, rank)
        _check(status)
        return F, left, Fc

    @_numpy_without_joints(free_root_path=_free_root_eom)
    def eom_matrices(self, model, data, qs, r, base, wrenches, with_cbar=True, root_twist=None):
        if r > self.max_order:
            return super().eom_matrices(model, data, qs, r, base, wrenches, with_cbar, root_twist)
        N, D, jets = _samples(model, qs, r + 3)
        n = model.n
        u_root = _rows(base[:, 1], N)
        nu0 = None
        if root_twist is not None:
            if root_twist.ndim != 3 or root_twist.shape[0] != N or root_twist.shape[1] < r + 2 \
                    or root_twist.shape[2] != 6:
                raise TrajectoryError(f"root twist of shape {root_twist.shape}: need "
                                      f"({N}, >= {r + 2}, 6)")
            nu0 = np.ascontiguousarray(root_twist[:, : r + 2], dtype=np.float64)
        m = n if nu0 is None else n + 6
        W = _dense_wrenches(wrenches, N, n, r)
        # each derivative order in one block of all samples: [:, k] of the result contiguous
        M, C, Cbar = (np.empty((r + 1, N, m, m)) for _ in range(3))
        if not with_cbar:
            Cbar = np.zeros_like(Cbar)
        g, Q = np.empty((r + 1, N, m)), np.empty((r + 1, N, m))
        _check(self.lib.hodyn_closed_form(data.struct, N, D, *jets, r, u_root,
                                          len(u_root), _ptr(nu0), _ptr(W), M, C,
                                          _ptr(Cbar) if with_cbar else None, g, Q))
        return EOMMatrices(*(np.swapaxes(a, 0, 1) for a in (M, C, Cbar, g, Q)))

    @_numpy_without_joints(free_root_path=_free_root_regressor)
    def regressor(self, model, data, qs, base, order, root=False):
        if order > self.max_order:
            return super().regressor(model, data, qs, base, order, root)
        N, D, jets = _samples(model, qs, order + 3)
        base = _base(base, N, order)
        extra = 1 if root else 0
        out = np.empty((order + 1, N, 6 * extra + model.n, 10 * (model.n + extra)))
        _check(self.lib.hodyn_regressor(data.struct, N, D, *jets, order, base, len(base),
                                        extra, out))
        return np.swapaxes(out, 0, 1)

    @_numpy_without_joints(free_root_path=_free_root_sensitivities)
    def sensitivities(self, model, data, qs, base, wrenches, order, held=0):
        if order > self.max_order or held:
            return super().sensitivities(model, data, qs, base, wrenches, order, held)
        N, D, jets = _samples(model, qs, order + 3)
        n = model.n
        base = _base(base, N, order)
        W = _dense_wrenches(wrenches, N, n, order)
        out = np.empty(((order + 1) * (order + 6) // 2, N, n, n))
        _check(self.lib.hodyn_sensitivities(data.struct, N, D, *jets, order, base,
                                            len(base), _ptr(W), out))
        return out

    @_numpy_without_joints(free_root_path=_free_root_mass)
    def partials(self, model, data, qs, base, wrenches, *, partials=True, mass=False):
        N, D, jets = _samples(model, qs, 3)
        n = model.n
        base = _rows(base[:, :2], N)
        W = None
        if wrenches:
            W = np.zeros((N, n, 6))
            for body, w in wrenches.items():
                W[:, body] = w
        dq, dqd = (np.empty((N, n, n)) for _ in range(2)) if partials else (None, None)
        M, tau = (np.empty((N, n, n)), np.empty((N, n))) if mass else (None, None)
        _check(self.lib.hodyn_partials(data.struct, N, D, *jets, base, len(base), _ptr(W),
                                       _ptr(dq), _ptr(dqd), _ptr(M), _ptr(tau)))
        return tuple(a for a in (dq, dqd, M, tau) if a is not None)

    def spd_solve(self, M, B):
        """By Cholesky, ~10x faster than LU on small matrices; LU (numpy's) where a matrix
        is not positive definite."""
        N, n = M.shape[:2]
        k = B.shape[2]
        if M.shape != (N, n, n) or B.shape[:2] != (N, n):
            raise HodynError(f"spd_solve: M {M.shape} and B {B.shape} do not fit (N, n, n), "
                             "(N, n, k)")
        X = np.empty((N, n, k))
        status = self.lib.hodyn_spd_solve(N, n, np.ascontiguousarray(M, dtype=np.float64), k,
                                          np.ascontiguousarray(B, dtype=np.float64), X)
        if ABI.status.get(status) == "HK_SINGULAR":
            return super().spd_solve(M, B)
        _check(status)
        return X

    def reach_controllable(self, alpha, beta, gamma, delta, tiny, lo_s, hi_s, K):
        _check(self.lib.hodyn_reach_controllable(len(K), alpha.shape[1], *_contiguous(
            alpha, beta, gamma, delta), float(tiny), *_contiguous(lo_s, hi_s), K))

    def reach_forward(self, alpha, beta, gamma, up, down, delta, K, x, u):
        _check(self.lib.hodyn_reach_forward(len(x), alpha.shape[1], *_contiguous(
            alpha, beta, gamma), *_bytes(up, down), *_contiguous(delta, K), x, u))

    def reach_bounds(self, alpha, beta, gamma, up, down, lo, hi, pairs):
        # (``pairs``: the numpy reference's block; the kernel takes a pair at a time)
        _check(self.lib.hodyn_reach_bounds(len(lo), alpha.shape[1], *_contiguous(
            alpha, beta, gamma), *_bytes(up, down), lo, hi))

    def banded_solve(self, band, k, rhs):
        _check(self.lib.hodyn_banded_solve(len(band), k, band, rhs.shape[1], rhs))

    def bspline(self, t, k, c, x, extrapolate):
        (t, c, x), E = _contiguous(t, c, x), len(x)
        out = np.empty((E, c.shape[1]))
        _check(self.lib.hodyn_bspline(len(t), t, k, c.shape[1], c, E, x, int(extrapolate), out))
        return out

    def bspline_jet(self, t, k, c, x, extrapolate):
        (t, c, x), E = _contiguous(t, c, x), len(x)
        R, n, r = c.shape
        out = np.empty((E, R, r))
        _check(self.lib.hodyn_bspline_jet(len(t), t, k, R, r, c, n * r, E, x, int(extrapolate),
                                          out))
        return out

    @_numpy_without_joints
    def elastic(self, model, data, drives, req, qs, base, wrenches, order, extra=None):
        R = int(req.u_orders.max())
        if R > self.max_order:
            return super().elastic(model, data, drives, req, qs, base, wrenches, order, extra)
        N, D, jets = _samples(model, qs, R + 3)
        n = model.n
        base = _base(base, N, R)
        W = _dense_wrenches(wrenches, N, n, R)
        if extra is not None:
            extra = np.ascontiguousarray(extra[:, : R + 1], dtype=np.float64)
            if extra.shape != (N, R + 1, n):
                raise TrajectoryError(f"joint torques of shape {extra.shape}: need ({N}, "
                                      f"{R + 1}, {n})")
        pairs = np.argwhere(req.accel | req.speed).astype(np.int32)  # (i, c), sorted by i
        driven = drives.driven
        u, theta = np.empty((N, R + 1, n)), np.empty((N, R + 3, n))
        taum = np.empty((N, order + 1, n))
        f64 = partial(np.ascontiguousarray, dtype=np.float64)
        _check(self.lib.hodyn_elastic(
            data.struct, N, D, *jets, R, base, len(base), _ptr(W), _ptr(extra),
            driven.astype(np.uint8), np.where(driven, drives.gear_ratio, 1.0),
            np.where(driven, drives.gear_efficiency, 1.0), np.where(driven, drives.stiffness, 1.0),
            f64(drives.inertia), f64(drives.rotor_axis),
            np.ascontiguousarray(req.u_orders, dtype=np.int32), len(pairs),
            np.ascontiguousarray(pairs), req.accel[tuple(pairs.T)].astype(np.uint8),
            req.speed[tuple(pairs.T)].astype(np.uint8), order, u, theta, taum))
        return u, theta, taum

    # -- closed loops (the numpy reference: algorithms/motion/loops.py) ---------------------
    def loops_run(self, model: Model, order: int = 0) -> bool:
        """Whether the loop entry points run this model at derivative order ``order``."""
        return model.n > 0 and not model.has_joint_models and order <= self.max_order

    def loop_kinematics(self, model, qs, cuts, rate, order, gap=True, jacobian=True, data=None):
        """The cuts' gap c (N, R) (``rate`` > 0: its derivative c^(rate) with the passive
        joints' q^(rate) as given) and J's jets (N, order+1, R, n): ``Closed.residual``,
        ``_gap_rate`` and ``_jacobian``. ``data``: this backend's Data for the model (None:
        made now), as for every loop entry point below."""
        need = max(rate, order, 1) + 1   # (the pass wants q' even for poses alone: 0)
        if qs.shape[1] < need:
            qs = np.concatenate([qs, np.zeros((qs.shape[0], need - qs.shape[1], model.n))], 1)
        N, D, jets = _samples(model, qs, need)
        R = len(cuts.row_loop)
        c = np.empty((N, R)) if gap else None
        J = np.empty((N, order + 1, R, model.n)) if jacobian else None
        _check(self.lib.hodyn_loop_kinematics(_struct(self, model, data), N, D, *jets, *_cuts(cuts),
                                              rate, order, _ptr(c), _ptr(J)))
        return c, J

    def loop_newton(self, model, q, cuts, iterations, tol, quadratic, near, rates=None,
                    data=None):
        """Newton on the kept rows from q (N, n) (in place where it is C-contiguous float64):
        the positions, and there the residual c (N, R), P J (N, r, n) and how far J's rows
        leave P's span (N,) (``Closed._kept``), and where P J_p was not near singular (N,)
        bool (elsewhere ``Closed._newton`` decides). ``tol``: ``loops.Tolerances`` (its step's,
        in the joints' units, and residual's are Newton's). ``rates`` (full, rows, PJ): the samples
        are ``full``'s rows ``rows`` (N,), and where P J_p was not near singular
        :meth:`loop_rates` follows there in the same pass (the positions too; P J's jets to
        the orders PJ holds)."""
        N, n, R, r = q.shape[0], model.n, len(cuts.row_loop), len(cuts.P)
        q = np.ascontiguousarray(q, dtype=np.float64)
        c, PJ, off = np.empty((N, R)), np.empty((N, r, n)), np.empty(N)
        ok = np.empty(N, dtype=np.uint8)
        full, rows, jets = (None, None, None) if rates is None else rates
        if full is not None:
            self._rates_arrays(model, cuts, full, jets)
            rows = np.ascontiguousarray(rows, dtype=np.int32)
        _check(self.lib.hodyn_loop_newton(
            _struct(self, model, data), N, q, *_cuts(cuts), r, cuts.P, cuts.passive, iterations,
            tol.step, tol.unit, tol.residual, quadratic, near, c, PJ, off, ok,
            0 if full is None else full.shape[1],
            0 if jets is None else jets.shape[1], 0 if full is None else full.shape[0],
            _ptr(full), _ptr(rows), _ptr(jets)))
        return q, c, PJ, off, ok.astype(bool)

    def loop_closed(self, model, qa, cuts, reference, ids, t, coarse, step, iterations,
                    between, tol, quadratic, near, taylor_tol, rates=None, data=None):
        """``Closed._closed`` in one call: the positions (N, n) at the actuated ones qa (N,
        m), continued from ``reference`` (n,) by halving (the samples ``ids`` (N,) of the file,
        times t or None), with Newton's residual, P J, J's rows off its span and where the
        derivatives were found (N,) bool, as :meth:`loop_newton`'s (``tol`` too); ``rates``
        (full, PJ): as
        there, the samples ``full``'s rows ``ids``. None where some step's P J_p was near
        singular (the caller goes step by step)."""
        N, n, R, r = qa.shape[0], model.n, len(cuts.row_loop), len(cuts.P)
        q, c, PJ, off = np.empty((N, n)), np.empty((N, R)), np.empty((N, r, n)), np.empty(N)
        rated, complete = np.empty(N, dtype=np.uint8), ctypes.c_int64(0)
        full, jets = (None, None) if rates is None else rates
        if full is not None:
            self._rates_arrays(model, cuts, full, jets)
        if t is not None:
            t = np.ascontiguousarray(t, dtype=np.float64)
        _check(self.lib.hodyn_loop_closed(
            _struct(self, model, data), N, np.ascontiguousarray(qa, dtype=np.float64),
            qa.shape[1], cuts.active, cuts.closing,
            np.ascontiguousarray(reference, dtype=np.float64), coarse,
            step, *_cuts(cuts), r, cuts.P, cuts.passive, iterations, between, tol.step,
            tol.unit, tol.residual, quadratic, near, taylor_tol, _ptr(t),
            np.ascontiguousarray(ids, dtype=np.int32), q, c, PJ, off, rated,
            0 if full is None else full.shape[1], 0 if jets is None else jets.shape[1],
            0 if full is None else full.shape[0], _ptr(full), _ptr(jets),
            ctypes.byref(complete)))
        return (q, c, PJ, off, rated.astype(bool)) if complete.value else None

    def loop_between(self, model, full, t, samples, cuts, taylor, step, taylor_tol, W,
                     iterations, between, tol, quadratic, near, PJ=None, data=None):
        """``Closed._predicted`` in one call: the samples ``samples`` (M,) of ``full`` (N, D,
        n: in place) between the anchors (every ``taylor``-th and the last, solved with their
        derivatives) by Newton from :meth:`loop_predict`'s starts (``W``: the Hermite
        matrix), or continued from their anchor where that start, or Newton's move from it,
        is too far, or Newton left the residual above ``tol.open``; with their derivatives
        and P J's jets in PJ (N, KJ, r, n) as :meth:`loop_newton`'s. Newton's residual (M,
        R), P J (M, r, n) and J's rows off its span (M,); None where some P J_p was near
        singular (the caller goes step by step)."""
        self._rates_arrays(model, cuts, full, PJ)
        (N, D, n), M = full.shape, len(samples)
        R, r = len(cuts.row_loop), len(cuts.P)
        c, PJ_kept, off = np.empty((M, R)), np.empty((M, r, n)), np.empty(M)
        complete = ctypes.c_int64(0)
        _check(self.lib.hodyn_loop_between(
            _struct(self, model, data), N, D, full, np.ascontiguousarray(t, dtype=np.float64),
            M, np.ascontiguousarray(samples, dtype=np.int32), taylor, step, taylor_tol,
            np.ascontiguousarray(W, dtype=np.float64), *_cuts(cuts), r, cuts.P, cuts.passive,
            len(cuts.active), cuts.active, cuts.closing, iterations, between, tol.step,
            tol.unit, tol.residual, tol.open, quadratic, near, c,
            PJ_kept, off, 0 if PJ is None else PJ.shape[1], _ptr(PJ), ctypes.byref(complete)))
        return (c, PJ_kept, off) if complete.value else None

    @staticmethod
    def _rates_arrays(model, cuts, full, PJ) -> None:
        """Refuses what :meth:`loop_rates` cannot write in place: ``full`` (N, D, n) and P J's
        jets PJ (N, KJ, r, n), 1 <= KJ <= D - 1 (the orders wanted), or None, C-contiguous
        float64."""
        N, D, n = full.shape
        if not (full.flags.c_contiguous and full.dtype == np.float64) or n != model.n or \
                (PJ is not None and (PJ.shape[::2] != (N, len(cuts.P)) or PJ.shape[3:] != (n,)
                                     or not 1 <= PJ.shape[1] <= D - 1
                                     or not PJ.flags.c_contiguous)):
            raise TrajectoryError(f"joint derivatives {full.shape}, P J's jets "
                                  f"{None if PJ is None else PJ.shape}: need a C-contiguous "
                                  f"(N, D, {model.n}) and (N, 1..D-1, {len(cuts.P)}, {model.n})")
        if N >= 2**31:
            raise TrajectoryError(f"{N} samples in one chunk: at most 2**31 - 1")

    def loop_rates(self, model, full, cuts, Jp, rows, PJ=None, data=None):
        """The passive joints' derivatives by the implicit function theorem at the samples
        ``rows`` (M,) of ``full`` (N, D, n, C-contiguous float64: in place) from ``P J_p``
        there (M, r, r) (``Closed._derivatives``); with PJ (N, KJ, r, n, C-contiguous; KJ <=
        D - 1), P J's jets to order KJ - 1 there too."""
        self._rates_arrays(model, cuts, full, PJ)
        N, D = full.shape[:2]
        rows = np.ascontiguousarray(rows, dtype=np.int32)
        _check(self.lib.hodyn_loop_rates(_struct(self, model, data), N, D, full, len(rows), rows,
                                         *_cuts(cuts), len(cuts.P), cuts.P, cuts.passive,
                                         np.ascontiguousarray(Jp, dtype=np.float64),
                                         0 if PJ is None else PJ.shape[1], _ptr(PJ)))

    def loop_predict(self, full, t, samples, taylor, active, closing, unit, step, tol, W):
        """Newton's starts between the anchors (``Closed._prediction``): the guesses (M, n),
        where they are too far (M,) bool, and the anchors (M,); ``closing`` (uint8, one per
        ``active``): the actuated joints whose moves count against ``step``; ``unit`` (n,):
        each joint's (``loops.Tolerances.unit``), the moves and terms judged in it."""
        N, D, n = full.shape
        if N >= 2**31:
            raise TrajectoryError(f"{N} samples in one chunk: at most 2**31 - 1")
        M = len(samples)
        guess, far, anchor = np.empty((M, n)), np.empty(M, dtype=np.uint8), np.empty(M, np.int32)
        f64 = partial(np.ascontiguousarray, dtype=np.float64)
        _check(self.lib.hodyn_loop_predict(
            N, D, n, f64(full), f64(t), M, np.ascontiguousarray(samples, dtype=np.int32), taylor,
            len(active), np.ascontiguousarray(active, dtype=np.int32),
            np.ascontiguousarray(closing, dtype=np.uint8), f64(unit), step, tol, f64(W), guess,
            far, anchor))
        return guess, far.astype(bool), anchor.astype(np.intp)

    def loop_project(self, PJ, f, active, passive):
        """lambda_r (N, K+1, C, r) and tau_a (N, K+1, C, m) of f (N, K+1, C, n) from P J's
        jets (N, K+1, r, n): ``loops.project``. f is read where it lies when each sample's
        and order's (C, n) are contiguous (the tree's torques: (K+1, N, n) transposed; a
        copy of them cost as much as the projection)."""
        N, K1, C, n = f.shape
        r = len(passive)
        if PJ.shape[0] != N or PJ.shape[1] < K1 or PJ.shape[2:] != (r, n):
            raise TrajectoryError(f"P J's jets of shape {PJ.shape}: need ({N}, >= {K1}, {r}, "
                                  f"{n})")
        lam, tau = np.empty((N, K1, C, r)), np.empty((N, K1, C, len(active)))
        f64 = partial(np.ascontiguousarray, dtype=np.float64)
        if f.dtype != np.float64 or f.strides[3] != 8 or (C > 1 and f.strides[2] != 8 * n) \
                or min(f.strides[:2]) < 0 or not f.flags.aligned:
            f = f64(f)
        _check(self.lib.hodyn_loop_project(N, K1, n, C, r, PJ.shape[1], f64(PJ), f.ctypes.data,
                                           f.strides[0] // 8, f.strides[1] // 8, len(active),
                                           active, passive, lam, tau))
        return lam, tau

    # -- inverse kinematics --------------------------------------------------------------
    def ik_newton(self, model, data, task, q, R, p, steps):
        """Each lane group iterates on its own (its steps: the SVD's pseudo-inverse, by the
        normal equations where J_t is well conditioned)."""
        N, q = _positions(task, q)
        r, m = len(task.path), task.m
        if (R is None) != (m == 3) or p.shape != (N, 3) or \
                (R is not None and R.shape != (N, 3, 3)):
            raise TrajectoryError(f"IK targets R {None if R is None else R.shape}, p {p.shape} "
                                  f"for {N} samples of a {'pose' if m == 6 else 'position'} task")
        out, err = np.empty_like(q), np.empty(N)
        Rc = None if R is None else np.ascontiguousarray(R, dtype=np.float64)  # alive in the call
        path, T = _path(task, data)
        _check(self.lib.hodyn_ik_newton(data.struct, N, q, r, path, T, m, _ptr(Rc),
                                        np.ascontiguousarray(p, dtype=np.float64), steps, out,
                                        err))
        return out, err

    def ik_rates(self, model, data, task, q, y, q_ref, gain):
        r, m, n = len(task.path), task.m, model.n
        if r < m:  # least squares, and the check that it is exact: numpy's
            return super().ik_rates(model, data, task, q, y, q_ref, gain)
        N, q = _positions(task, q)
        D = y.shape[1]
        if y.shape != (N, D, m) or (r > m and q_ref is None):
            raise TrajectoryError(f"task rates of shape {y.shape} for {N} samples, {r} joints "
                                  f"and {m} task coordinates")
        qs, cond = np.empty((N, D + 1, n)), np.empty(N)
        ref = None if q_ref is None else np.ascontiguousarray(q_ref, dtype=np.float64)
        rates = np.ascontiguousarray(y, dtype=np.float64) if D else None   # alive in the call
        path, T = _path(task, data)
        _check(self.lib.hodyn_ik_rates(data.struct, N, q, r, path, T, m, *_balance(task), D,
                                       _ptr(rates), _ptr(ref), float(gain), qs, cond))
        return qs, cond, np.zeros((N, D))

    def ik_integrate(self, model, data, task, y, R, p, t, q_ref, gain, last, before, weights, err_const, *,
                     newton_steps, passes, tolerance, jump):
        """A redundant arm's samples integrated from their rates, lane group by lane group, as
        far as the kernel gets: q and rates (k, D+1, n) and condition numbers (k,) of the first
        k <= N samples (:meth:`hodyn_cli.algorithms.motion.ik.InverseKinematics._integrate`
        is the reference; it goes on where the kernel stops). ``y`` (N, D, m) task rates,
        ``R`` (N, 3, 3) or None and ``p`` (N, 3) the targets, ``t`` (N,); ``last`` = (t, q and
        rates (D+1, n), condition) of the sample solved before, ``before`` the one before it
        (or None); ``weights`` (D+1, D): row d the Hermite weights of d derivatives;
        ``err_const`` (D+1,) the quadrature error constants."""
        N, m, n = len(t), task.m, model.n
        D = y.shape[1]
        if y.shape != (N, D, m) or p.shape != (N, 3) or (R is None) != (m == 3) or \
                (R is not None and R.shape != (N, 3, 3)) or t.shape != (N,) or \
                q_ref.shape != (n,) or last[1].shape != (D + 1, n) or \
                (before is not None and before[1].shape != (D + 1, n)) or \
                weights.shape != (D + 1, D) or err_const.shape[0] < D + 1 or len(task.path) <= m:
            raise TrajectoryError(f"IK integration of {N} samples: task rates {y.shape}, targets "
                                  f"R {None if R is None else R.shape}, p {p.shape}, t {t.shape}, "
                                  f"last sample {last[1].shape}, weights {weights.shape}")
        qs, cond, done = np.empty((N, D + 1, n)), np.empty(N), ctypes.c_int64(0)
        f64 = partial(np.ascontiguousarray, dtype=np.float64)
        Rc = None if R is None else f64(R)                          # alive in the call
        prev = None if before is None else f64(before[1])
        path, T = _path(task, data)
        _check(self.lib.hodyn_ik_integrate(
            data.struct, N, len(task.path), path, T, m, *_balance(task), D, f64(y), _ptr(Rc),
            f64(p),
            f64(t), f64(q_ref), float(gain), f64(last[1]), float(last[0]), float(last[2]),
            _ptr(prev), float(before[0]) if before is not None else 0.0, f64(weights),
            f64(err_const), newton_steps, passes, tolerance, jump, qs, cond,
            ctypes.byref(done)))
        return qs[: done.value], cond[: done.value]


def _balance(task) -> tuple[np.ndarray, float]:
    """Where a pose task's condition number takes its translational rows (the robot's base
    point, the arm's length unit: ``ik.Task``), as ``hodyn_ik_rates`` and
    ``hodyn_ik_integrate`` read them."""
    return np.ascontiguousarray(task.base, dtype=np.float64), float(task.unit)


def _check(status: int) -> None:
    """The entry point's status (named in hodyn.h) as an exception, or nothing for HK_OK."""
    name = ABI.status.get(status, "unknown")
    if name == "HK_OK":
        return
    if name == "HK_NOMEM":
        raise MemoryError("hodyn kernel: out of memory")
    if name == "HK_ORDER":
        raise HodynError(f"the compiled kernel computes orders up to {ABI.max_order}")
    if name == "HK_MODEL":
        raise ModelError("the compiled kernel refused the model (parents must come first)")
    raise HodynError(f"the compiled kernel refused the array sizes it was given ({name})")


def _samples(model: Model, qs: np.ndarray, need: int) -> tuple[int, int, tuple]:
    """(N, D, the kernels' jet arguments) after checking ``qs`` is (N, D >= need, nv): the
    kernels read sample s's (D, nv) values at the address plus s times the stride (doubles),
    of ``qs`` itself where each sample's values are contiguous (a view of a reader's chunk,
    whose rows hold t too), else of a contiguous float64 copy. The address is the array's
    ``ctypes`` object, which keeps the array alive as long as the arguments are."""
    N, D, n = qs.shape[0], qs.shape[1] if qs.ndim == 3 else 0, model.nv
    if qs.ndim != 3 or qs.shape[2] != n or D < need:
        raise TrajectoryError(f"joint derivatives of shape {qs.shape}: need (N, >= {need}, "
                              f"{n})")
    if qs.dtype != np.float64 or not qs.flags.aligned or qs.strides[1:] != (8 * n, 8) or \
            (N > 1 and (qs.strides[0] < 8 * D * n or qs.strides[0] % 8)):
        qs = np.ascontiguousarray(qs, dtype=np.float64)
    stride = qs.strides[0] // 8 if N > 1 else D * n
    return N, D, (qs.ctypes, stride)


def _rows(a: np.ndarray, N: int) -> np.ndarray:
    """``a`` as a contiguous float array of 1 row (shared by all samples) or N rows."""
    if len(a) not in (1, N):
        raise TrajectoryError(f"base motion has {len(a)} rows for {N} samples")
    return np.ascontiguousarray(a, dtype=np.float64)


def _base(base: np.ndarray, N: int, order: int) -> np.ndarray:
    """The root's twist jet for torque order ``order``: (1 or N, order + 2, 6), contiguous."""
    base = _rows(base[:, : order + 2], N)
    if base.shape[1:] != (order + 2, 6):
        raise TrajectoryError(f"base motion of shape {base.shape}: need (N or 1, {order + 2}, 6)")
    return base


def _cuts(cuts) -> tuple:
    """The loops' cuts as the loop entry points take them (``loops.Cuts``)."""
    return (len(cuts.side_body), cuts.side_body, cuts.T, len(cuts.path), cuts.path, cuts.moves,
            len(cuts.row_loop), cuts.row_loop, cuts.row_axis)


def _contiguous(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(np.ascontiguousarray(a, dtype=np.float64) for a in arrays)


def _bytes(*masks: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(np.ascontiguousarray(a, dtype=np.uint8) for a in masks)


def _ptr(a: np.ndarray | None):
    return None if a is None else a.ctypes.data


def _dense_wrenches(wrenches: dict[int, np.ndarray] | None, N: int, n: int, order: int):
    if not wrenches:
        return None
    W = np.zeros((N, n, order + 1, 6))
    for body, w in wrenches.items():
        W[:, body] = w[:, : order + 1]
    return W


def _positions(task, q: np.ndarray) -> tuple[int, np.ndarray]:
    if q.ndim != 2 or q.shape[1] != task.model.n:
        raise TrajectoryError(f"joint positions of shape {q.shape}: need (N, {task.model.n})")
    return q.shape[0], np.ascontiguousarray(q, dtype=np.float64)


def _path(task: Task, data: CompiledData) -> tuple[np.ndarray, np.ndarray]:
    """The task's path (int32) and link frame T (4, 4) as the IK kernels read them, once per
    task and request (kept in ``data.paths``; ``setdefault`` is atomic: threads that ask at
    once all get the one stored)."""
    found = data.paths.get(task)
    if found is None:
        found = data.paths.setdefault(task, (np.ascontiguousarray(task.path, dtype=np.int32),
                                             np.ascontiguousarray(task.frame.T,
                                                                  dtype=np.float64)))
    return found
