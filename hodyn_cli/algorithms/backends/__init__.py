"""Who computes the per-chunk operations: a backend, an object chosen once.

A :class:`Backend` has one method per operation the algorithms run on a chunk of samples
(:data:`OPERATIONS`: inverse dynamics of any order (of several motions through the same
positions too) and its joint wrenches, by the spatial method too, the spatial kinematics of
every body, the closed-form matrices, the regressor, the sensitivities, the partials, dense
solves, the elastic joints, the floating root's jet, the contact frames' jets and the
contacts' share of the base wrench, the inverse kinematics' Newton steps, rates and
integration; the sequential passes of the optimal retiming's reachability, a banded solve
and a B-spline's values take arrays alone), each
taking the model, its Data (:meth:`Backend.data`: what the backend derives per model, made
once per request by the caller) and the chunk's arrays. The algorithms take the backend and the caller's Data
from :func:`prepare` and never ask which backend it is. Implementations, each a module of
this package and a line of :data:`REGISTRY`:

- ``numpy`` (:mod:`.numpy`): the readable reference of every operation;
- ``compiled`` (:mod:`.compiled`): the C kernels of ``csrc/`` (declared in ``csrc/hodyn.h``),
  built by ``pip install`` once per instruction set; what they do not cover runs as numpy's;
- ``gpu`` (:mod:`.gpu`, ``pip install -e ".[gpu]"``): inverse dynamics and the regressor
  on a GPU with JAX, the rest on the CPU; chosen only when asked for.

Chosen once per process (:func:`current`): ``HODYN_BACKEND`` names one (``HODYN_NO_KERNEL=1``
means numpy), else the compiled kernel where it is built and runs on this CPU, else numpy
(:func:`fallback` says why). :func:`select` chooses for the rest of the process (``hodyn
--backend``), :func:`use` inside a ``with`` block (tests, benchmarks).

Imports: core, modeling, errors, and no other subpackage of the algorithms: the numpy
reference passes live here (:mod:`.numpy`, a package), so the algorithms import backends and
never the reverse.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.drives import Drives

if TYPE_CHECKING:  # the numpy backend's types (it imports this module)
    from hodyn_cli.algorithms.backends.numpy.closed_form import EOMMatrices
    from hodyn_cli.algorithms.backends.numpy.elastic import Requirements
    from hodyn_cli.algorithms.backends.numpy.ik import Task
    from hodyn_cli.algorithms.backends.numpy.spatial import SpatialKinematics

__all__ = ["Backend", "Data", "Unavailable", "REGISTRY", "OPERATIONS", "current", "prepare",
           "select", "use", "load", "describe", "fallback", "info", "runs", "names", "reset"]

#: backend name -> "module:class" (imported when first chosen)
REGISTRY = {"numpy": "hodyn_cli.algorithms.backends.numpy:NumpyBackend",
            "compiled": "hodyn_cli.algorithms.backends.compiled:CompiledBackend",
            "gpu": "hodyn_cli.algorithms.backends.gpu:GpuBackend"}
#: what runs when nobody chose, in order of preference
DEFAULTS = ("compiled", "numpy")


class Unavailable(Exception):
    """A backend that cannot run here; the message says why (one line)."""


#: a backend's Data for one model (:meth:`Backend.data`): what it derives per model, of the
#: backend's own type (numpy: :class:`~.numpy.model_data.ModelData`; compiled:
#: :class:`~.compiled.CompiledData`; gpu: :class:`~.gpu.GpuData`), made once per request by
#: the caller and passed to every operation on that model
Data = Any


class FrameOnLink(Protocol):
    """A frame whose jets ``contact_frames`` follows: a link and a pose ``T`` (4 x 4) in it (a
    :class:`~hodyn_cli.modeling.contacts.Contact`, a closed loop's cut)."""

    @property
    def link(self) -> str: ...
    @property
    def T(self) -> np.ndarray: ...


#: the operations every backend offers (the :class:`Backend` methods on a chunk)
OPERATIONS = ("inverse_dynamics", "inverse_dynamics_probes", "joint_wrenches", "spatial_inverse_dynamics",
              "spatial_kinematics", "root_jet",
              "eom_matrices", "regressor", "sensitivities", "partials", "spd_solve", "elastic",
              "contact_frames", "contact_share", "ik_newton", "ik_rates", "ik_integrate",
              "reach_controllable", "reach_forward", "reach_bounds", "banded_solve",
              "bspline")


class Backend(Protocol):
    """The operations on a chunk of samples every backend computes (the numpy backend's
    methods document their arguments and results: it is the reference). Each operation on a
    model takes ``(model, data, chunk arrays)``, ``data`` what :meth:`data` made for it.
    ``runs``: the operations (of :data:`OPERATIONS`) it computes itself; it hands the others
    to ``cpu`` where it has one (the GPU backend), else to numpy's (it inherits them)."""

    name: str
    runs: frozenset[str]

    def describe(self) -> str: ...
    def data(self, model: Model) -> Data: ...
    def rows(self, numpy_rows: int) -> int: ...
    def inverse_dynamics(self, model: Model, data: Data, qs: np.ndarray, base: np.ndarray,
                         wrenches: dict[int, np.ndarray], *, order: int, twists: bool = False,
                         root: bool = False) -> np.ndarray | tuple[np.ndarray, ...]: ...
    def inverse_dynamics_probes(self, model: Model, data: Data, probes: np.ndarray,
                                base: np.ndarray, *, order: int) -> np.ndarray: ...
    def joint_wrenches(self, model: Model, data: Data, qs: np.ndarray, base: np.ndarray,
                       wrenches: dict[int, np.ndarray], *, order: int) -> np.ndarray: ...
    def spatial_inverse_dynamics(self, model: Model, data: Data, qs: np.ndarray,
                                 base: np.ndarray, wrenches: dict[int, np.ndarray], *,
                                 order: int, joint_wrenches: bool = False, root: bool = False,
                                 root_wrench: np.ndarray | None = None
                                 ) -> np.ndarray | tuple[np.ndarray, np.ndarray]: ...
    def spatial_kinematics(self, model: Model, data: Data, qs: np.ndarray, K: int,
                           base: np.ndarray | None = None) -> SpatialKinematics: ...
    def root_jet(self, R: np.ndarray, Vb: np.ndarray, g: np.ndarray, K: int) -> np.ndarray: ...
    def eom_matrices(self, model: Model, data: Data, qs: np.ndarray, r: int, base: np.ndarray,
                     wrenches: dict[int, np.ndarray] | None, with_cbar: bool = True,
                     root_twist: np.ndarray | None = None) -> EOMMatrices: ...
    def regressor(self, model: Model, data: Data, qs: np.ndarray, base: np.ndarray,
                  order: int, root: bool = False) -> np.ndarray: ...
    def sensitivities(self, model: Model, data: Data, qs: np.ndarray, base: np.ndarray,
                      wrenches: dict[int, np.ndarray], order: int, held: int = 0
                      ) -> np.ndarray: ...
    def partials(self, model: Model, data: Data, qs: np.ndarray, base: np.ndarray,
                 wrenches: dict[int, np.ndarray], *, partials: bool = True,
                 mass: bool = False) -> tuple[np.ndarray, ...]: ...
    def spd_solve(self, M: np.ndarray, B: np.ndarray) -> np.ndarray: ...
    def reach_controllable(self, alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray,
                           delta: np.ndarray, tiny: float, lo_s: np.ndarray,
                           hi_s: np.ndarray, K: np.ndarray) -> None: ...
    def reach_forward(self, alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray,
                      up: np.ndarray, down: np.ndarray, delta: np.ndarray, K: np.ndarray,
                      x: np.ndarray, u: np.ndarray) -> None: ...
    def reach_bounds(self, alpha: np.ndarray, beta: np.ndarray, gamma: np.ndarray,
                     up: np.ndarray, down: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                     pairs: int) -> None: ...
    def banded_solve(self, band: np.ndarray, k: int, rhs: np.ndarray) -> None: ...
    def bspline(self, t: np.ndarray, k: int, c: np.ndarray, x: np.ndarray, extrapolate: bool
                ) -> np.ndarray: ...
    def bspline_jet(self, t: np.ndarray, k: int, c: np.ndarray, x: np.ndarray,
                    extrapolate: bool) -> np.ndarray: ...
    def elastic(self, model: Model, data: Data, drives: Drives, req: Requirements,
                qs: np.ndarray, base: np.ndarray, wrenches: dict[int, np.ndarray], order: int,
                extra: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def contact_frames(self, model: Model, data: Data, qs: np.ndarray,
                       contacts: tuple[FrameOnLink, ...], K: int
                       ) -> tuple[np.ndarray, np.ndarray]: ...
    def contact_share(self, R: np.ndarray, p: np.ndarray, R0: np.ndarray | None,
                      point: np.ndarray, on: np.ndarray, rows: np.ndarray, Hinv: np.ndarray,
                      b: np.ndarray, rank: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def ik_newton(self, model: Model, data: Data, task: Task, q: np.ndarray,
                  R: np.ndarray | None, p: np.ndarray, steps: int
                  ) -> tuple[np.ndarray, np.ndarray]: ...
    def ik_rates(self, model: Model, data: Data, task: Task, q: np.ndarray, y: np.ndarray,
                 q_ref: np.ndarray | None, gain: float
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    def ik_integrate(self, model: Model, data: Data, task: Task, y: np.ndarray, *args: Any,
                     **kwargs: Any) -> tuple[np.ndarray, np.ndarray]: ...


def prepare(model: Model, data: Data | None = None) -> tuple[Backend, Data]:
    """The backend that runs (:func:`current`) and its Data for ``model``: ``data`` where the
    caller made it with that backend for that model (once per request: the API entry, a job),
    else made now (a call on its own, inside a :func:`use` block of another backend, or given
    a Data of another model: a replaced, locked or closed one)."""
    backend = current()
    if data is None or data.made_by is not backend or data.model is not model:
        data = backend.data(model)
    return backend, data


_LOCK, _CHOOSING = threading.RLock(), threading.Lock()  # (a backend may load another)
_LOADED: dict[tuple, Backend] = {}
_selected: list = []  # [(backend, why the preferred one does not run)] once chosen
_used: list[Backend] = []  # the innermost use() block's


def load(name: str, **options) -> Backend:
    """The backend ``name`` (one instance per name and options), or :class:`Unavailable`
    saying why it cannot run here; an unknown name is a one-line :class:`HodynError`."""
    if name not in REGISTRY:
        raise HodynError(f"unknown backend '{name}' (choose from {', '.join(names())})")
    key = (name, tuple(sorted(options.items())))
    with _LOCK:
        if key not in _LOADED:
            module, cls = REGISTRY[name].split(":")
            _LOADED[key] = getattr(import_module(module), cls)(**options)
        return _LOADED[key]


def names() -> list[str]:
    """Every registered backend's name."""
    return list(REGISTRY)


def _default() -> tuple[Backend, str]:
    """The environment's choice, else the first of :data:`DEFAULTS` that runs (and why the
    ones before it do not)."""
    wanted = os.environ.get("HODYN_BACKEND") or ("numpy" if os.environ.get("HODYN_NO_KERNEL")
                                                 else None)
    if wanted:
        try:
            return load(wanted), ("HODYN_NO_KERNEL is set" if os.environ.get("HODYN_NO_KERNEL")
                                  else f"HODYN_BACKEND={wanted}")
        except Unavailable as e:
            raise HodynError(f"HODYN_BACKEND={wanted}: {e}") from None
    reasons: list[str] = []
    for name in DEFAULTS:
        try:
            return load(name), "; ".join(reasons)
        except Unavailable as e:
            reasons.append(str(e))
    raise AssertionError("the numpy backend always runs")  # pragma: no cover


def current() -> Backend:
    """The backend that runs: the innermost :func:`use` block's, else the one chosen for the
    process (:func:`select`, or the default on first use)."""
    if _used:
        return _used[-1]
    if not _selected:
        with _CHOOSING:  # threads that ask at once get one choice
            if not _selected:
                _selected.append(_default())
    return _selected[0][0]


def select(name: str | None) -> Backend:
    """Choose the backend for the rest of the process (None: the default); a backend that
    cannot run here is a one-line error."""
    if name is None:
        _selected[:] = [_default()]
    else:
        try:
            _selected[:] = [(load(name), "")]
        except Unavailable as e:
            raise HodynError(f"--backend {name}: {e}") from None
    return _selected[0][0]


@contextmanager
def use(name: str, **options) -> Iterator[Backend]:
    """Run backend ``name`` inside the ``with`` block (``options``: e.g. the compiled
    kernel's ``variant``); :class:`Unavailable` if it cannot run here."""
    backend = load(name, **options)
    _used.append(backend)
    try:
        yield backend
    finally:
        _used.pop()


def reset() -> None:
    """Forget the choice and the backends loaded: the next use reads the environment
    (``HODYN_BACKEND``, ``HODYN_KERNEL``) and loads them again."""
    with _LOCK:
        _LOADED.clear()
        _selected.clear()


def describe() -> str:
    """One line: the backend that runs (``hodyn --version``).

    >>> describe().startswith(("compiled kernel", "numpy"))
    True
    """
    backend = current()
    why = "" if _used else _selected[0][1]
    return backend.describe() + (f": {why}" if backend.name == "numpy" and why else "")


def fallback() -> str | None:
    """Why numpy runs although nobody asked for it (the compiled kernel is missing, stale or
    does not run here), or None."""
    current()
    backend, why = _selected[0]
    if backend.name == "numpy" and why and not os.environ.get("HODYN_NO_KERNEL") \
            and not os.environ.get("HODYN_BACKEND"):
        return why
    return None


def info() -> dict:
    """The backend that runs, for reports: ``{"backend", "variant", "isa", "lanes",
    "reason"}`` (``reason``: why numpy runs; '' otherwise).

    >>> sorted(info())
    ['backend', 'isa', 'lanes', 'reason', 'variant']
    """
    backend = current()
    details = {"variant": None, "isa": None, "lanes": None} | getattr(backend, "details", {})
    reason = "" if _used or backend.name != "numpy" else _selected[0][1]
    return {"backend": backend.name, **details, "reason": reason}


def runs() -> dict[str, str]:
    """Operation -> the name of the backend that computes it, for the backend that runs
    (its :attr:`Backend.runs`, else its CPU backend's, else numpy's).

    >>> sorted(runs()) == sorted(OPERATIONS)
    True
    """
    backend = current()
    out = {}
    for operation in OPERATIONS:
        who = backend
        while operation not in who.runs:
            who = getattr(who, "cpu", None) or load("numpy")
        out[operation] = who.name
    return out
