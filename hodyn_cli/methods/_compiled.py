"""The compiled kernels (``_kernel.c``: body-fixed passes, closed-form matrices) via ctypes.

:func:`available` says whether they were built; :func:`inverse_dynamics_chunk` stands for
the numpy passes of :mod:`hodyn_cli.methods.body_fixed` on one chunk, and
:func:`eom_matrices_chunk` for :func:`hodyn_cli.methods.closed_form.eom_matrices_numpy`.
Setting the environment variable ``HODYN_NO_KERNEL=1`` forces the numpy implementations.
"""

from __future__ import annotations

import ctypes
import os
from functools import cache

import numpy as np

from hodyn_cli.errors import TrajectoryError
from hodyn_cli.methods.common import joint_adjoint_constants
from hodyn_cli.model import Model

MAX_ORDER = 22  # MAXK - 2 in _kernel.c
ABI = 3  # HODYN_KERNEL_ABI in _kernel.c: the argument lists below

_dbl = np.ctypeslib.ndpointer(dtype=np.float64, flags="C_CONTIGUOUS")
_int = np.ctypeslib.ndpointer(dtype=np.int32, flags="C_CONTIGUOUS")
_u8 = np.ctypeslib.ndpointer(dtype=np.uint8, flags="C_CONTIGUOUS")


@cache
def _library():
    """The loaded shared library with typed entry points, or None (not built / disabled)."""
    if os.environ.get("HODYN_NO_KERNEL"):
        return None
    try:
        from hodyn_cli.methods import _kernel
    except ImportError:
        return None
    lib = ctypes.CDLL(_kernel.__file__)
    if abi_of(lib) != ABI:  # built from other sources: its entry points may not match
        return None
    model_args = [ctypes.c_int, _int, _int, _dbl, _dbl, _dbl, _dbl, _dbl]
    lib.hodyn_body_fixed.restype = ctypes.c_int
    lib.hodyn_body_fixed.argtypes = model_args + [ctypes.c_int64, ctypes.c_int, _dbl, ctypes.c_int,
                                                  _dbl, ctypes.c_int64, ctypes.c_void_p, _dbl,
                                                  ctypes.c_void_p]
    lib.hodyn_closed_form.restype = ctypes.c_int
    lib.hodyn_closed_form.argtypes = model_args + [_u8, ctypes.c_int64, ctypes.c_int, _dbl,
                                                   ctypes.c_int, _dbl, ctypes.c_int64,
                                                   ctypes.c_void_p, _dbl, _dbl, ctypes.c_void_p,
                                                   _dbl, _dbl]
    return lib


def abi_of(lib) -> int | None:
    """The ABI number a loaded kernel library reports (None: too old to report one)."""
    try:
        fn = lib.hodyn_kernel_abi
    except AttributeError:
        return None
    fn.restype, fn.argtypes = ctypes.c_int, []
    return fn()


def available() -> bool:
    """True when the compiled kernel is built and not disabled."""
    return _library() is not None


@cache
def _constants(model: Model) -> tuple[np.ndarray, ...]:
    """Per-joint constants: parent, revolute flag, X, M and the joint adjoint constants."""
    revolute = model.X[:, :3].any(axis=1).astype(np.int32)
    return (model.parent.astype(np.int32), revolute, np.ascontiguousarray(model.X),
            np.ascontiguousarray(model.M), *joint_adjoint_constants(model))


def inverse_dynamics_chunk(model: Model, qs: np.ndarray, base: np.ndarray,
                           wrenches: dict[int, np.ndarray], *, order: int, twists: bool = False):
    """tau and derivatives (N, order+1, n) for one chunk; same inputs as the numpy passes
    (``base``: the root's twist jet, (1, >= order+2, 6) shared or (N, >= order+2, 6) per sample).

    ``twists``: also return the body-fixed twists and derivatives (N, n, order+2, 6) of
    the forward pass, ``(tau, V)``.
    """
    fn = _library().hodyn_body_fixed
    N, D, n = qs.shape
    qs = np.ascontiguousarray(qs, dtype=np.float64)
    base = _rows(base[:, : order + 2], N)
    W = _dense_wrenches(wrenches, N, n, order)
    out = np.empty((N, order + 1, n))
    V = np.empty((N, n, order + 2, 6)) if twists else None
    _check(fn(n, *_constants(model), N, D, qs, order, base, len(base),
              None if W is None else W.ctypes.data, out, None if V is None else V.ctypes.data))
    return (out, V) if twists else out


def _rows(a: np.ndarray, N: int) -> np.ndarray:
    """``a`` as a contiguous float array of 1 row (shared by all samples) or N rows."""
    if len(a) not in (1, N):
        raise TrajectoryError(f"base motion has {len(a)} rows for {N} samples")
    return np.ascontiguousarray(a, dtype=np.float64)


def _dense_wrenches(wrenches: dict[int, np.ndarray], N: int, n: int, order: int):
    if not wrenches:
        return None
    W = np.zeros((N, n, order + 1, 6))
    for body, w in wrenches.items():
        W[:, body] = w[:, : order + 1]
    return W


def _check(status: int) -> None:
    if status != 0:
        raise MemoryError("hodyn kernel: out of memory or order too high")


@cache
def _ancestors(model: Model) -> np.ndarray:
    """(n, n) uint8: [i, c] = 1 if body c is body i or one of its ancestors (the kernel's
    layout of :attr:`Model.ancestry`)."""
    return np.ascontiguousarray(model.ancestry.T, dtype=np.uint8)


def eom_matrices_chunk(model: Model, qs: np.ndarray, r: int, base: np.ndarray,
                       wrenches: dict[int, np.ndarray] | None, with_cbar: bool):
    """The closed-form matrices of one chunk; same inputs and result as
    :func:`hodyn_cli.methods.closed_form.eom_matrices`."""
    from hodyn_cli.methods.closed_form import EOMMatrices

    fn = _library().hodyn_closed_form
    N, D, n = qs.shape
    qs = np.ascontiguousarray(qs, dtype=np.float64)
    u_root = _rows(base[:, 1], N)
    W = _dense_wrenches(wrenches or {}, N, n, r)
    M, C = np.empty((N, r + 1, n, n)), np.empty((N, r + 1, n, n))
    Cbar = np.zeros((N, r + 1, n, n))
    g, Q = np.empty((N, r + 1, n)), np.empty((N, r + 1, n))
    _check(fn(n, *_constants(model), _ancestors(model), N, D, qs, r, u_root, len(u_root),
              None if W is None else W.ctypes.data, M, C, Cbar.ctypes.data if with_cbar else None,
              g, Q))
    return EOMMatrices(M, C, Cbar, g, Q)
