"""The compiled kernels (``csrc/*.c``) via ctypes, and the one place that chooses a backend.

setup.py builds the C sources once per instruction set (``portable``: 2 lanes, SSE2/NEON;
``avx2``: 4 lanes, AVX2 + FMA; ``avx512``: 8 lanes), each as its own library. The widest one
this CPU runs is used; :func:`backend` says which (and why numpy runs instead when no kernel
can). Setting ``HODYN_NO_KERNEL=1`` forces the numpy implementations, ``HODYN_KERNEL=<variant>``
one variant. Every ``*_chunk`` function stands for a numpy reference on one chunk of
samples (named in its docstring); tests hold the two to rounding at every lane width.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache, partial
from importlib import import_module

import numpy as np

from hodyn_cli.algorithms.dynamics.model_data import model_data
from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError, ModelError, TrajectoryError

__all__ = ["MAX_ORDER", "ABI", "VARIANTS", "available", "backend", "variants", "use",
           "inverse_dynamics_chunk", "eom_matrices_chunk", "regressor_chunk",
           "sensitivities_chunk", "elastic_chunk", "root_jet", "partials_chunk", "spd_solve",
           "IkTask", "ik_newton", "ik_rates", "ik_integrate"]

MAX_ORDER = 22  # MAXK - 2 in kernel.h
ABI = 9  # HODYN_KERNEL_ABI in kernel.h: the argument lists below

#: variant -> (module, CPU level it needs: 0 baseline, 1 AVX2 + FMA, 2 AVX-512F), widest first
VARIANTS = {"avx512": ("_kernel_avx512", 2), "avx2": ("_kernel_avx2", 1),
            "portable": ("_kernel", 0)}

_dbl = np.ctypeslib.ndpointer(dtype=np.float64, flags="C_CONTIGUOUS")
_i32 = np.ctypeslib.ndpointer(dtype=np.int32, flags="C_CONTIGUOUS")
_u8 = np.ctypeslib.ndpointer(dtype=np.uint8, flags="C_CONTIGUOUS")
_opt = ctypes.c_void_p  # a float64 array or None
_i64, _int = ctypes.c_int64, ctypes.c_int
#: the joints' jets: where sample 0's (D, n) values start, and the doubles between samples
_JETS = (ctypes.c_void_p, _i64)


class ModelStruct(ctypes.Structure):
    """``HModel`` of kernel.h: the model's constant arrays (owned by its ModelData)."""

    _fields_ = [("n", ctypes.c_int32)] + [
        (name, ctypes.c_void_p) for name in ("parent", "revolute", "X", "M", "A0", "A1", "A2",
                                             "anc", "M0")]


_model = ctypes.POINTER(ModelStruct)

#: entry points that take no model -> their argument types
PLAIN = {"hodyn_root_jet": [_i64, _int, _int, _dbl, _dbl, _dbl, _dbl],
         "hodyn_spd_solve": [_i64, _int, _dbl, _int, _dbl, _dbl]}

#: entry point -> argument types after the model
SIGNATURES = {
    "hodyn_body_fixed": [_i64, _int, *_JETS, _int, _dbl, _i64, _opt, _dbl, _opt, _opt],
    "hodyn_closed_form": [_i64, _int, *_JETS, _int, _dbl, _i64, _opt, _opt, _dbl, _dbl, _opt,
                          _dbl, _dbl],
    "hodyn_regressor": [_i64, _int, *_JETS, _int, _dbl, _i64, _int, _dbl],
    "hodyn_partials": [_i64, _int, *_JETS, _dbl, _i64, _opt, _opt, _opt, _opt, _opt],
    "hodyn_ik_newton": [_i64, _dbl, _int, _i32, _dbl, _int, _opt, _dbl, _int, _dbl, _dbl],
    "hodyn_ik_rates": [_i64, _dbl, _int, _i32, _dbl, _int, _int, _opt, _opt, ctypes.c_double,
                       _dbl, _dbl],
    "hodyn_ik_integrate": [_i64, _int, _i32, _dbl, _int, _int, _dbl, _opt, _dbl, _dbl, _dbl,
                           ctypes.c_double, _dbl, ctypes.c_double, ctypes.c_double, _opt,
                           ctypes.c_double, _dbl, _dbl, _int, _int, ctypes.c_double,
                           ctypes.c_double, _dbl, _dbl, ctypes.POINTER(ctypes.c_int64)],
    "hodyn_sensitivities": [_i64, _int, *_JETS, _int, _dbl, _i64, _opt, _dbl],
    "hodyn_elastic": [_i64, _int, *_JETS, _int, _dbl, _i64, _opt, _opt, _u8, _dbl, _dbl, _dbl,
                      _dbl, _dbl, _i32, _int, _i32, _u8, _u8, _int, _dbl, _dbl, _dbl],
}

_forced: str | None = None  # set by use()
_STRUCT_LOCK = threading.Lock()


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
    if abi_of(lib) != ABI:  # built from other sources: its entry points may not match
        return f"the {variant} kernel is stale (built from other sources: reinstall hodyn)"
    for name, args in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = ctypes.c_int, [_model, *args]
    for name, args in PLAIN.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = ctypes.c_int, args
    lib.hodyn_kernel_isa.restype = ctypes.c_char_p
    return lib


@cache
def _cpu_level() -> int:
    """What this CPU runs (the portable library asks it; 0 without one)."""
    lib = _load("portable")
    if isinstance(lib, str):
        return 0
    return lib.hodyn_cpu_level()


@cache
def _choice() -> tuple[object | None, str, str]:
    """(library or None, variant, why): the backend, chosen once."""
    if os.environ.get("HODYN_NO_KERNEL"):
        return None, "", "HODYN_NO_KERNEL is set"
    wanted = _forced or os.environ.get("HODYN_KERNEL")
    if wanted and wanted not in VARIANTS:
        return None, "", f"HODYN_KERNEL={wanted} names no kernel (choose from {', '.join(VARIANTS)})"
    reasons = []
    for variant, (_, level) in VARIANTS.items():
        if (wanted and variant != wanted) or level > _cpu_level():
            continue
        lib = _load(variant)
        if not isinstance(lib, str):
            return lib, variant, ""
        reasons.append(lib)
    return None, "", "; ".join(reasons) or f"this CPU does not run the {wanted} kernel"


def _library():
    return _choice()[0]


def available() -> bool:
    """True when a compiled kernel is built, runs on this CPU and is not disabled."""
    return _library() is not None


def backend() -> dict:
    """Which backend runs: ``{"backend": "compiled" or "numpy", "variant", "isa", "lanes",
    "reason"}`` (``reason``: why numpy runs, '' with a kernel).

    >>> sorted(backend())
    ['backend', 'isa', 'lanes', 'reason', 'variant']
    """
    lib, variant, why = _choice()
    if lib is None:
        return {"backend": "numpy", "variant": None, "isa": None, "lanes": None, "reason": why}
    return {"backend": "compiled", "variant": variant, "isa": lib.hodyn_kernel_isa().decode(),
            "lanes": lib.hodyn_kernel_lanes(), "reason": ""}


def describe() -> str:
    """One line: the backend that runs (``hodyn --version``).

    >>> describe().startswith(("compiled kernel", "numpy"))
    True
    """
    b = backend()
    if b["backend"] == "numpy":
        return f"numpy: {b['reason']}"
    return f"compiled kernel {b['variant']}, {b['isa']}, {b['lanes']} lanes"


def fallback() -> str | None:
    """Why numpy runs although nobody asked for it (the kernel is missing, stale or does not
    run here), or None: the kernel runs, or ``HODYN_NO_KERNEL`` chose numpy."""
    b = backend()
    if b["backend"] == "numpy" and not os.environ.get("HODYN_NO_KERNEL"):
        return b["reason"]
    return None


def variants() -> list[str]:
    """The kernel variants that are built and run on this CPU, widest first."""
    return [v for v, (_, level) in VARIANTS.items()
            if level <= _cpu_level() and not isinstance(_load(v), str)]


@contextmanager
def use(variant: str | None) -> Iterator[None]:
    """Run one kernel variant (None: the default choice) inside the ``with`` block (tests,
    benchmarks)."""
    global _forced
    previous, _forced = _forced, variant
    _choice.cache_clear()
    try:
        yield
    finally:
        _forced = previous
        _choice.cache_clear()


def _model_struct(model: Model) -> ModelStruct:
    """The model as the kernels read it, built once per model and kept with its data; the
    struct holds the arrays its pointers point into (a caller keeps them alive with it)."""
    data = model_data(model)
    with _STRUCT_LOCK:
        if data.kernel is None:
            arrays = (data.parent, data.revolute, data.X, data.M, *data.adjoints,
                      data.ancestors, data.root_M)
            struct = ModelStruct(model.n, *(a.ctypes.data for a in arrays))
            struct.arrays = arrays
            data.kernel = struct
    return data.kernel


def _check(status: int) -> None:
    if status == 1:
        raise MemoryError("hodyn kernel: out of memory")
    if status == 2:
        raise HodynError(f"the compiled kernel computes orders up to {MAX_ORDER}")
    if status == 3:
        raise ModelError("the compiled kernel refused the model (parents must come first)")
    if status != 0:
        raise HodynError("the compiled kernel refused the array sizes it was given")


def _samples(model: Model, qs: np.ndarray, need: int) -> tuple[int, int, tuple]:
    """(N, D, the kernels' jet arguments) after checking ``qs`` is (N, D >= need, n): the
    kernels read sample s's (D, n) values at the address plus s times the stride (doubles),
    of ``qs`` itself where each sample's values are contiguous (a view of a reader's chunk,
    whose rows hold t too), else of a contiguous float64 copy. The address is the array's
    ``ctypes`` object, which keeps the array alive as long as the arguments are."""
    N, D, n = qs.shape[0], qs.shape[1] if qs.ndim == 3 else 0, model.n
    if qs.ndim != 3 or qs.shape[2] != n or D < need:
        raise TrajectoryError(f"joint derivatives of shape {qs.shape}: need (N, >= {need}, "
                              f"{model.n})")
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


def _ptr(a: np.ndarray | None):
    return None if a is None else a.ctypes.data


def inverse_dynamics_chunk(model: Model, qs: np.ndarray, base: np.ndarray,
                           wrenches: dict[int, np.ndarray], *, order: int, twists: bool = False,
                           root: bool = False):
    """tau and derivatives (N, order+1, n) for one chunk: the numpy passes of
    :mod:`hodyn_cli.algorithms.dynamics.body_fixed` (``base``: the root's twist jet, (1, >= order+2, 6)
    shared or (N, >= order+2, 6) per sample).

    ``twists``: also return the body-fixed twists and derivatives (N, n, order+2, 6) of
    the forward pass; ``root``: also the root's Newton-Euler wrench ``F_0`` and derivatives
    (N, order+1, 6): the momentum rates of the root body (``model.root_inertia``) with the jet
    ``base`` plus its children's joint wrenches transported to it, as
    :mod:`hodyn_cli.algorithms.dynamics.floating` sums them in numpy. Returns tau, or the
    tuple ``(tau, V)``, ``(tau, F_0)``, ``(tau, V, F_0)``.
    """
    N, D, jets = _samples(model, qs, order + 3)
    n = model.n
    base = _base(base, N, order)
    W = _dense_wrenches(wrenches, N, n, order)
    out = np.empty((order + 1, N, n))   # each order one block: tau[:, k] contiguous
    V = np.empty((N, n, order + 2, 6)) if twists else None
    F0 = np.empty((N, order + 1, 6)) if root else None
    _check(_library().hodyn_body_fixed(_model_struct(model), N, D, *jets, order, base, len(base),
                                       _ptr(W), out, _ptr(V), _ptr(F0)))
    tau = out.transpose(1, 0, 2)
    extras = tuple(a for a in (V, F0) if a is not None)
    return (tau, *extras) if extras else tau


def _base(base: np.ndarray, N: int, order: int) -> np.ndarray:
    """The root's twist jet for torque order ``order``: (1 or N, order + 2, 6), contiguous."""
    base = _rows(base[:, : order + 2], N)
    if base.shape[1:] != (order + 2, 6):
        raise TrajectoryError(f"base motion of shape {base.shape}: need (N or 1, {order + 2}, 6)")
    return base


def root_jet(R: np.ndarray, Vb: np.ndarray, g: np.ndarray, K: int) -> np.ndarray:
    """The root's twist jet (N, K+1, 6) in the free-falling frame from its orientation R
    (N, 3, 3), body twist derivatives Vb (N, >= K+1, 6) and gravity g (3,) in the world:
    :func:`hodyn_cli.algorithms.dynamics.floating.root_jet`."""
    N = R.shape[0]
    if R.shape != (N, 3, 3) or Vb.ndim != 3 or Vb.shape[0] != N or Vb.shape[2] != 6 \
            or Vb.shape[1] < K + 1 or np.shape(g) != (3,):
        raise TrajectoryError(f"base motion: R {R.shape}, Vb {Vb.shape}, gravity "
                              f"{np.shape(g)}: need (N, 3, 3), (N, >= {K + 1}, 6), (3,)")
    out = np.empty((N, K + 1, 6))
    _check(_library().hodyn_root_jet(N, K + 1, Vb.shape[1], np.ascontiguousarray(R, dtype=np.float64),
                                     np.ascontiguousarray(Vb, dtype=np.float64),
                                     np.ascontiguousarray(g, dtype=np.float64), out))
    return out


def spd_solve(M: np.ndarray, B: np.ndarray) -> np.ndarray | None:
    """``M^-1 B`` (N, n, k) for symmetric positive definite M (N, n, n) and B (N, n, k), by
    Cholesky: what ``numpy.linalg.solve`` gives, ~10x faster on small matrices; None when a
    matrix is not positive definite (the caller solves another way)."""
    N, n = M.shape[:2]
    k = B.shape[2]
    if M.shape != (N, n, n) or B.shape[:2] != (N, n):
        raise HodynError(f"spd_solve: M {M.shape} and B {B.shape} do not fit (N, n, n), (N, n, k)")
    X = np.empty((N, n, k))
    status = _library().hodyn_spd_solve(N, n, np.ascontiguousarray(M, dtype=np.float64), k,
                                        np.ascontiguousarray(B, dtype=np.float64), X)
    if status == 5:
        return None
    _check(status)
    return X


def partials_chunk(model: Model, qs: np.ndarray, base: np.ndarray,
                   wrenches: dict[int, np.ndarray], *, partials: bool = True,
                   mass: bool = False) -> tuple[np.ndarray, ...]:
    """``d tau / d q`` and ``d tau / d qd`` (N, n, n) of one chunk (``base``: the root's twist
    and its rate, (1 or N, >= 2, 6); ``wrenches``: body -> (N, 6)):
    :func:`hodyn_cli.algorithms.dynamics.partials.partials_numpy`. ``mass``: also (or with
    ``partials=False`` only) the mass matrix (N, n, n) and the torques tau (N, n) from the same
    sums (the closed-form M, the inverse dynamics)."""
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
    _check(_library().hodyn_partials(_model_struct(model), N, D, *jets, base, len(base), _ptr(W),
                                     _ptr(dq), _ptr(dqd), _ptr(M), _ptr(tau)))
    return tuple(a for a in (dq, dqd, M, tau) if a is not None)


class IkTask:
    """What the IK kernels need of one inverse-kinematics task, built once: the path (bodies
    from the root to the link's, int32), the link frame T (4, 4) in its body, m = 6 (pose) or
    3 (position)."""

    def __init__(self, model: Model, path: np.ndarray, T: np.ndarray, m: int):
        self.model, self.m = model, m
        self.path = np.ascontiguousarray(path, dtype=np.int32)
        self.T = np.ascontiguousarray(T, dtype=np.float64)


def _positions(task: IkTask, q: np.ndarray) -> tuple[int, np.ndarray]:
    if q.ndim != 2 or q.shape[1] != task.model.n:
        raise TrajectoryError(f"joint positions of shape {q.shape}: need (N, {task.model.n})")
    return q.shape[0], np.ascontiguousarray(q, dtype=np.float64)


def ik_newton(task: IkTask, q: np.ndarray, R: np.ndarray | None, p: np.ndarray, steps: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """Newton from positions q (N, n) towards the link targets R (N, 3, 3; pose task) and p
    (N, 3), at most ``steps`` minimum-norm steps: the positions (N, n) and the largest pose
    error (N,) there, as :meth:`hodyn_cli.algorithms.motion.ik.InverseKinematics._newton` finds
    them in numpy (which stops when the whole block's steps are small, the kernel when each
    lockstep group's are)."""
    N, q = _positions(task, q)
    r, m = len(task.path), task.m
    if (R is None) != (m == 3) or p.shape != (N, 3) or (R is not None and R.shape != (N, 3, 3)):
        raise TrajectoryError(f"IK targets R {None if R is None else R.shape}, p {p.shape} for "
                              f"{N} samples of a {'pose' if m == 6 else 'position'} task")
    out, err = np.empty_like(q), np.empty(N)
    Rc = None if R is None else np.ascontiguousarray(R, dtype=np.float64)  # alive in the call
    _check(_library().hodyn_ik_newton(
        _model_struct(task.model), N, q, r, task.path, task.T, m, _ptr(Rc),
        np.ascontiguousarray(p, dtype=np.float64), steps, out, err))
    return out, err


def ik_rates(task: IkTask, q: np.ndarray, y: np.ndarray, q_ref: np.ndarray | None,
             gain: float) -> tuple[np.ndarray, np.ndarray]:
    """q and its rates (N, D+1, n) at positions q (N, n) for the task rates y (N, D, m), and
    the condition numbers of J_t (N,): Algorithm 2 as
    :meth:`hodyn_cli.algorithms.motion.ik.InverseKinematics._rates` computes it (``q_ref``, ``gain``:
    a redundant arm's posture term; the path must have at least m joints)."""
    N, q = _positions(task, q)
    r, m, n = len(task.path), task.m, task.model.n
    D = y.shape[1]
    if y.shape != (N, D, m) or r < m or (r > m and q_ref is None):
        raise TrajectoryError(f"task rates of shape {y.shape} for {N} samples, {r} joints "
                              f"and {m} task coordinates")
    qs, cond = np.empty((N, D + 1, n)), np.empty(N)
    ref = None if q_ref is None else np.ascontiguousarray(q_ref, dtype=np.float64)
    rates = np.ascontiguousarray(y, dtype=np.float64) if D else None   # alive in the call
    _check(_library().hodyn_ik_rates(
        _model_struct(task.model), N, q, r, task.path, task.T, m, D, _ptr(rates), _ptr(ref),
        float(gain), qs, cond))
    return qs, cond


def ik_integrate(task: IkTask, y: np.ndarray, R: np.ndarray | None, p: np.ndarray,
                 t: np.ndarray, q_ref: np.ndarray, gain: float, last: tuple[float, np.ndarray, float],
                 before: tuple[float, np.ndarray] | None, weights: np.ndarray,
                 err_const: np.ndarray, *, newton_steps: int, passes: int, tolerance: float,
                 jump: float) -> tuple[np.ndarray, np.ndarray]:
    """A redundant arm's samples integrated from their rates, lane group by lane group, as
    far as the kernel gets: q and rates (k, D+1, n) and condition numbers (k,) of the first
    k <= N samples (:meth:`hodyn_cli.algorithms.motion.ik.InverseKinematics._integrate` is the
    reference; it goes on where the kernel stops). ``y`` (N, D, m) task rates, ``R``
    (N, 3, 3) or None and ``p`` (N, 3) the targets, ``t`` (N,); ``last`` = (t, q and rates
    (D+1, n), condition) of the sample solved before, ``before`` the one before it (or
    None); ``weights`` (D+1, D): row d the Hermite weights of d derivatives; ``err_const``
    (D+1,) the quadrature error constants."""
    N, m, n = len(t), task.m, task.model.n
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
    _check(_library().hodyn_ik_integrate(
        _model_struct(task.model), N, len(task.path), task.path, task.T, m, D, f64(y),
        _ptr(Rc), f64(p), f64(t), f64(q_ref), float(gain), f64(last[1]), float(last[0]),
        float(last[2]), _ptr(prev), float(before[0]) if before is not None else 0.0,
        f64(weights), f64(err_const), newton_steps, passes, tolerance, jump, qs, cond,
        ctypes.byref(done)))
    return qs[: done.value], cond[: done.value]


def regressor_chunk(model: Model, qs: np.ndarray, base: np.ndarray, order: int,
                    root: bool = False) -> np.ndarray:
    """Y^(k) (N, order+1, n, 10 n) of one chunk:
    :func:`hodyn_cli.algorithms.dynamics.regressor.regressor_numpy`; ``root``: of a floating root whose
    jet ``base`` is, (N, order+1, 6+n, 10 (n+1)), the root's generalized force ``F_0`` first
    (:func:`hodyn_cli.algorithms.dynamics.regressor.floating_regressor_numpy` without the sign)."""
    N, D, jets = _samples(model, qs, order + 3)
    base = _base(base, N, order)
    extra = 1 if root else 0
    out = np.empty((order + 1, N, 6 * extra + model.n, 10 * (model.n + extra)))
    _check(_library().hodyn_regressor(_model_struct(model), N, D, *jets, order, base, len(base),
                                      extra, out))
    return np.swapaxes(out, 0, 1)


def sensitivities_chunk(model: Model, qs: np.ndarray, base: np.ndarray,
                        wrenches: dict[int, np.ndarray], order: int) -> np.ndarray:
    """``d tau^(k)/d q^(j)`` of one chunk, (S, N, n, n) with the S = (order+1)(order+6)/2 pairs
    (k, j) in the order of :func:`hodyn_cli.algorithms.dynamics.sensitivities.dataset_names`:
    :func:`hodyn_cli.algorithms.dynamics.sensitivities.complex_step`."""
    N, D, jets = _samples(model, qs, order + 3)
    n = model.n
    base = _base(base, N, order)
    W = _dense_wrenches(wrenches, N, n, order)
    out = np.empty(((order + 1) * (order + 6) // 2, N, n, n))
    _check(_library().hodyn_sensitivities(_model_struct(model), N, D, *jets, order, base, len(base),
                                          _ptr(W), out))
    return out


def elastic_chunk(model: Model, drives, req, qs: np.ndarray, base: np.ndarray,
                  wrenches: dict[int, np.ndarray], order: int, extra: np.ndarray | None = None):
    """u (N, R+1, n), theta (N, R+3, n) and tau_m (N, order+1, n) of the full elastic model on
    one chunk (R = ``max(req.u_orders)``): :func:`hodyn_cli.algorithms.actuation.elastic.solve_full`
    (``drives``: :class:`hodyn_cli.modeling.drives.Drives`, ``req``:
    :class:`hodyn_cli.algorithms.actuation.elastic.Requirements`, ``extra``: joint torques (N, R+1, n)
    added to the rigid ones, or None)."""
    R = int(req.u_orders.max())
    N, D, jets = _samples(model, qs, R + 3)
    n = model.n
    base = _base(base, N, R)
    W = _dense_wrenches(wrenches, N, n, R)
    if extra is not None:
        extra = np.ascontiguousarray(extra[:, : R + 1], dtype=np.float64)
        if extra.shape != (N, R + 1, n):
            raise TrajectoryError(f"joint torques of shape {extra.shape}: need ({N}, {R + 1}, {n})")
    pairs = np.argwhere(req.accel | req.speed).astype(np.int32)  # (i, c), sorted by i
    driven = drives.driven
    u, theta = np.empty((N, R + 1, n)), np.empty((N, R + 3, n))
    taum = np.empty((N, order + 1, n))
    _check(_library().hodyn_elastic(
        _model_struct(model), N, D, *jets, R, base, len(base), _ptr(W), _ptr(extra),
        driven.astype(np.uint8), np.where(driven, drives.gear_ratio, 1.0),
        np.where(driven, drives.gear_efficiency, 1.0), np.where(driven, drives.stiffness, 1.0),
        np.ascontiguousarray(drives.inertia, dtype=np.float64),
        np.ascontiguousarray(drives.rotor_axis, dtype=np.float64),
        np.ascontiguousarray(req.u_orders, dtype=np.int32), len(pairs), np.ascontiguousarray(pairs),
        req.accel[tuple(pairs.T)].astype(np.uint8), req.speed[tuple(pairs.T)].astype(np.uint8),
        order, u, theta, taum))
    return u, theta, taum


def _dense_wrenches(wrenches: dict[int, np.ndarray] | None, N: int, n: int, order: int):
    if not wrenches:
        return None
    W = np.zeros((N, n, order + 1, 6))
    for body, w in wrenches.items():
        W[:, body] = w[:, : order + 1]
    return W


def eom_matrices_chunk(model: Model, qs: np.ndarray, r: int, base: np.ndarray,
                       wrenches: dict[int, np.ndarray] | None, with_cbar: bool,
                       root_twist: np.ndarray | None = None):
    """The closed-form matrices of one chunk: same inputs and result as
    :func:`hodyn_cli.algorithms.dynamics.closed_form.eom_matrices_numpy`.

    ``root_twist``: a floating root's body twist and derivatives (N, >= r+2, 6); then the
    matrices are (6 + n) square, the root's twist first (``base[:, 1]``: its gravity
    acceleration ``(0; -R^T g)``, 1 or N rows), as :mod:`hodyn_cli.algorithms.dynamics.floating`
    assembles them in numpy (without the root's own external wrench: the caller adds it to
    ``Q_ext[..., :6]``).
    """
    from hodyn_cli.algorithms.dynamics.closed_form import EOMMatrices

    N, D, jets = _samples(model, qs, r + 3)
    n = model.n
    u_root = _rows(base[:, 1], N)
    nu0 = None
    if root_twist is not None:
        if root_twist.ndim != 3 or root_twist.shape[0] != N or root_twist.shape[1] < r + 2 \
                or root_twist.shape[2] != 6:
            raise TrajectoryError(f"root twist of shape {root_twist.shape}: need ({N}, >= {r + 2}, 6)")
        nu0 = np.ascontiguousarray(root_twist[:, : r + 2], dtype=np.float64)
    m = n if nu0 is None else n + 6
    W = _dense_wrenches(wrenches, N, n, r)
    # each derivative order in one block of all samples: [:, k] of the result is contiguous
    M, C, Cbar = (np.empty((r + 1, N, m, m)) for _ in range(3))
    if not with_cbar:
        Cbar = np.zeros_like(Cbar)
    g, Q = np.empty((r + 1, N, m)), np.empty((r + 1, N, m))
    _check(_library().hodyn_closed_form(_model_struct(model), N, D, *jets, r, u_root, len(u_root),
                                        _ptr(nu0), _ptr(W), M, C,
                                        _ptr(Cbar) if with_cbar else None, g, Q))
    return EOMMatrices(*(np.swapaxes(a, 0, 1) for a in (M, C, Cbar, g, Q)))
