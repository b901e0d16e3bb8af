"""The GPU backend (``--backend gpu``): inverse dynamics and the regressor on a device, with
JAX; every other operation on the CPU (the compiled kernel where it runs, else numpy).

``pip install -e ".[gpu]"`` (in hodyn's checkout) brings JAX with CUDA 12. :class:`GpuBackend` runs two
operations on the device, with the semantics of the numpy backend's of the same name:
:func:`inverse_dynamics_chunk` (tau and derivatives, external wrenches, a floating root's
jet and its wrench ``F_0``) and :func:`regressor_chunk` (``Y^(k)``, fixed or floating root).
The passes are the body-fixed recursion (40)-(42) and the regressor's Jacobian sums (13),
as JAX programs with the samples on the last axis (:mod:`.jax_passes` has the equations).

How a chunk runs (:func:`_stream`): its samples go through the device in **blocks** of a
fixed size (the last one padded): the power of two that holds the chunk, between a floor
and a ceiling that fits a byte budget (:data:`BLOCK_BYTES`), so a pipeline's chunks share
one program per (model, operation, order, options) and a few sizes, and the device holds
at most two blocks' inputs, intermediates and results, whatever the chunk's size. JAX
dispatches asynchronously: block b+1 is copied to the device while block b computes, and
b's results come back (``copy_to_host_async``) into arrays allocated once per chunk, in the
compiled kernel's layout. Everything is float64 (JAX's x64 mode, switched on for these
calls only).

Device: ``device="gpu"`` (the default) takes JAX's first GPU; without JAX or without a GPU
one line says so (:class:`HodynError`). ``device="cpu"`` runs the very same programs on
JAX's CPU backend: that is how the tests run them (CI has no GPU), and it works on any
machine (slower than the compiled kernel there).

>>> from pathlib import Path
>>> from hodyn_cli.modeling.urdf import load_model
>>> model = load_model(Path(__file__).parents[3] / "urdf" / "planar_2r.urdf")
>>> qs = np.zeros((3, 5, 2)); base = np.zeros((1, 4, 6)); base[0, 1, 5] = 9.81
>>> tau = inverse_dynamics_chunk(model, qs, base, {}, order=2, device="cpu", block=2)
>>> tau.shape, bool(np.all(tau[:, 1:] == 0))   # at rest: constant torques
((3, 3, 2), True)
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from hodyn_cli.algorithms.backends import free_root
from hodyn_cli.algorithms.backends.numpy.model_data import ModelData, model_data
from hodyn_cli.core.model import Model
from hodyn_cli.errors import HodynError, TrajectoryError, install_hint

if TYPE_CHECKING:  # JAX is optional: imported where a program runs (_jax)
    from jax import Array

__all__ = ["GpuBackend", "program_cache", "BLOCK_BYTES", "MIN_BLOCK", "MAX_BLOCK", "STREAMS", "device_of",
           "DeviceModel", "GpuData", "inverse_dynamics_chunk", "regressor_chunk"]

#: device bytes one block may take (its inputs, results and the passes' arrays; two blocks
#: are in flight), and the fewest and most samples in a block, per kind of device (a GPU is
#: busy long before 2**18 samples; on a CPU a block stays near the caches)
BLOCK_BYTES = {"gpu": 1 << 30, "cpu": 64 << 20}
MIN_BLOCK = {"gpu": 1 << 12, "cpu": 1 << 8}
MAX_BLOCK = {"gpu": 1 << 18, "cpu": 1 << 12}
#: chunks streamed through one device at once (the pipeline's other threads wait): two keep
#: a GPU busy, and its memory holds at most that many times two blocks
STREAMS = 2

_LOCK = threading.Lock()
#: the jitted programs of every model put on a device in this process, by (the model's
#: constants, the device, the program's key), the :data:`PROGRAMS` used last: a Data made per
#: request (an API call without ``data=`` makes one per call) puts the model on the device
#: again but compiles nothing again (equal constants: the same program)
_PROGRAMS: OrderedDict[tuple, Callable] = OrderedDict()
PROGRAMS = 256
_SLOTS: dict = {}   # device -> a semaphore of STREAMS


def _jax():
    try:
        import jax
    except ImportError:
        raise HodynError(f"--backend gpu needs JAX: {install_hint('gpu')}") from None
    _keep_programs(jax)
    return jax


def program_cache() -> Path:
    """Where JAX keeps the programs it compiled for hodyn, across runs, unless
    ``JAX_COMPILATION_CACHE_DIR`` names another place: ``$XDG_CACHE_HOME/hodyn/jax``
    (``~/.cache/hodyn/jax``)."""
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "hodyn" / "jax"


def _keep_programs(jax) -> None:
    """Compiling the order-2 passes takes seconds (8 s for the iiwa on a CPU, where the run
    of 500 samples then takes 1 s; 21 s end to end for 4M samples on an H200): each run
    would pay it again. JAX's persistent cache keeps every program that took more than a
    second to compile; a directory that cannot be made leaves the cache off."""
    if jax.config.jax_compilation_cache_dir:   # the user's own (JAX_COMPILATION_CACHE_DIR)
        return
    try:
        program_cache().mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    jax.config.update("jax_compilation_cache_dir", str(program_cache()))


def device_of(device: str = "gpu"):
    """JAX's first device of kind ``device`` ("gpu" or "cpu"), or a one-line HodynError."""
    jax = _jax()
    try:
        return jax.devices(device)[0]
    except RuntimeError:
        kinds = ", ".join(sorted({d.platform for d in jax.devices()}))
        if device == "gpu":
            raise HodynError(f"--backend gpu: no GPU found by JAX (jax.devices() lists only "
                             f"{kinds}); {install_hint('gpu')}, on a machine with an NVIDIA "
                             "GPU") from None
        raise HodynError(f"--backend gpu: JAX has no '{device}' device (it lists {kinds})"
                         ) from None


class GpuData(ModelData):
    """The GPU backend's Data for one model: the constants (:class:`ModelData`), the CPU
    backend's Data (``cpu``: the operations the device does not run use it) and the model on
    the device (:attr:`device_model`,
    :class:`DeviceModel`: its constants and programs), put there on first use and kept as
    long as this Data (one request: its chunks share the programs)."""

    def __init__(self, model: Model, cpu: ModelData, device: str):
        super().__init__(model)
        self.cpu = cpu
        self._model, self._device = model, device
        self._on_device: DeviceModel | None = None
        self._lock = threading.Lock()

    @property
    def device_model(self) -> DeviceModel:
        with self._lock:   # a pipeline's threads ask at once: one model on the device
            if self._on_device is None:
                self._on_device = DeviceModel(self._model, self._device, self)
            return self._on_device


class GpuBackend:
    """Inverse dynamics (without the forward pass's twists) and the regressor on ``device``
    ("gpu"; "cpu" runs the same programs on JAX's CPU: tests, machines without a GPU);
    every other operation the CPU backend's (:attr:`cpu`: compiled where it runs, else
    numpy), each by a method that says so. :class:`~hodyn_cli.algorithms.backends.Unavailable`
    without JAX or the device."""

    name = "gpu"
    #: on the device; every other operation by :attr:`cpu`
    runs = frozenset({"inverse_dynamics", "inverse_dynamics_probes", "regressor"})

    def __init__(self, device: str = "gpu"):
        from hodyn_cli.algorithms import backends

        try:
            self.jax_device = device_of(device)
        except HodynError as e:
            raise backends.Unavailable(e.message.removeprefix("--backend gpu: ")) from None
        self.device = device
        self.cpu: Any
        try:
            self.cpu = backends.load("compiled")
        except backends.Unavailable:
            self.cpu = backends.load("numpy")
        self.details = {"variant": self.jax_device.platform,
                        "isa": str(getattr(self.jax_device, "device_kind", self.jax_device)),
                        "lanes": None}

    def describe(self) -> str:
        return (f"gpu: JAX on {self.details['isa']} ({self.details['variant']}); other "
                f"operations: {self.cpu.describe()}")

    def data(self, model: Model) -> GpuData:
        """The CPU backend's Data and, on first use, the model on the device."""
        data = GpuData(model, self.cpu.data(model), self.device)
        data.made_by = self
        return data

    def rows(self, numpy_rows: int) -> int:
        """A chunk streams through the device in blocks of its own: one call per chunk."""
        return 1 << 40

    # -- on the device -------------------------------------------------------------------
    def inverse_dynamics(self, model: Model, data: GpuData, qs: np.ndarray, base: np.ndarray,
                         wrenches: dict[int, np.ndarray], *, order: int, twists: bool = False,
                         root: bool = False) -> np.ndarray | tuple[np.ndarray, ...]:
        # the forward pass's twists stay on the host, and so does a model without joints (a
        # single free body: its root's Newton-Euler equation, nothing for the device) or with
        # joints the device's passes do not run (helical, spherical, planar, free)
        if twists or model.n == 0 or not data.kernel_joints:
            carried = None if twists or root else _free_root(self, model, data, qs, base, order)
            if carried is not None:  # a floating base: the carried robot on the device
                robot, robot_data, jet = carried
                W, W0 = free_root.carried_wrenches(wrenches)
                tau, F0 = self.inverse_dynamics(robot, robot_data, qs[..., 6:], jet, W,
                                                order=order, root=True)
                if W0 is not None:
                    F0 += W0[:, : order + 1]
                return np.concatenate([F0, tau], axis=2)
            return self.cpu.inverse_dynamics(model, data.cpu, qs, base, wrenches, order=order,
                                             twists=twists, root=root)
        return inverse_dynamics_chunk(model, qs, base, wrenches, order=order, root=root,
                                      device=self.device, on_device=data.device_model)

    def inverse_dynamics_probes(self, model: Model, data: GpuData, probes: np.ndarray,
                                base: np.ndarray, *, order: int) -> np.ndarray:
        # (each probe as :meth:`inverse_dynamics` runs it, on the device: its numbers, not
        # the CPU kernels')
        out = np.empty(probes.shape[:2] + (order + 1, model.nv))
        for p, qs in enumerate(probes):
            out[p] = self.inverse_dynamics(model, data, qs, base, {}, order=order)
        return out

    def regressor(self, model: Model, data: GpuData, qs: np.ndarray, base: np.ndarray,
                  order: int, root: bool = False) -> np.ndarray:
        if model.n == 0 or not data.kernel_joints:  # a single free body, helical or
            # multi-DOF joints: on the host, as their inverse dynamics; a floating base: the
            # carried robot on the device
            carried = None if root else _free_root(self, model, data, qs, base, order)
            if carried is not None:
                robot, robot_data, jet = carried
                return self.regressor(robot, robot_data, qs[..., 6:], jet, order, root=True)
            return self.cpu.regressor(model, data.cpu, qs, base, order, root)
        return regressor_chunk(model, qs, base, order, root, device=self.device,
                               on_device=data.device_model)

    # -- on the CPU backend (:attr:`cpu`) ----------------------------------------------------
    def joint_wrenches(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                       ) -> np.ndarray:
        return self.cpu.joint_wrenches(model, data.cpu, *args, **kwargs)

    def spatial_inverse_dynamics(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                                 ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        return self.cpu.spatial_inverse_dynamics(model, data.cpu, *args, **kwargs)

    def spatial_kinematics(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                           ) -> Any:
        return self.cpu.spatial_kinematics(model, data.cpu, *args, **kwargs)

    def root_jet(self, R: np.ndarray, Vb: np.ndarray, g: np.ndarray, K: int) -> np.ndarray:
        return self.cpu.root_jet(R, Vb, g, K)

    def eom_matrices(self, model: Model, data: GpuData, *args: Any, **kwargs: Any) -> Any:
        return self.cpu.eom_matrices(model, data.cpu, *args, **kwargs)

    def sensitivities(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                      ) -> np.ndarray:
        return self.cpu.sensitivities(model, data.cpu, *args, **kwargs)

    def partials(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                 ) -> tuple[np.ndarray, ...]:
        return self.cpu.partials(model, data.cpu, *args, **kwargs)

    def spd_solve(self, M: np.ndarray, B: np.ndarray) -> np.ndarray:
        return self.cpu.spd_solve(M, B)

    def reach_controllable(self, *args: Any) -> None:
        return self.cpu.reach_controllable(*args)

    def reach_forward(self, *args: Any) -> None:
        return self.cpu.reach_forward(*args)

    def reach_bounds(self, *args: Any) -> None:
        return self.cpu.reach_bounds(*args)

    def banded_solve(self, band: np.ndarray, k: int, rhs: np.ndarray) -> None:
        return self.cpu.banded_solve(band, k, rhs)

    def bspline(self, *args: Any) -> np.ndarray:
        return self.cpu.bspline(*args)

    def bspline_jet(self, *args: Any) -> np.ndarray:
        return self.cpu.bspline_jet(*args)

    def elastic(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.cpu.elastic(model, data.cpu, *args, **kwargs)

    def contact_frames(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                       ) -> tuple[np.ndarray, np.ndarray]:
        return self.cpu.contact_frames(model, data.cpu, *args, **kwargs)

    def contact_share(self, *args: Any, **kwargs: Any
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.cpu.contact_share(*args, **kwargs)

    def ik_newton(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                  ) -> tuple[np.ndarray, np.ndarray]:
        return self.cpu.ik_newton(model, data.cpu, *args, **kwargs)

    def ik_rates(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.cpu.ik_rates(model, data.cpu, *args, **kwargs)

    def ik_integrate(self, model: Model, data: GpuData, *args: Any, **kwargs: Any
                     ) -> tuple[np.ndarray, np.ndarray]:
        return self.cpu.ik_integrate(model, data.cpu, *args, **kwargs)


class DeviceModel:
    """One model on one device: its constant arrays (as numbers for the programs that unroll
    the bodies, put on the device once for those that loop over them) and the programs
    compiled for it, one per (operation, order, options, block size), built on first use
    (or taken from :data:`_PROGRAMS`: another DeviceModel of the same constants built it)."""

    def __init__(self, model: Model, device: str = "gpu", data: ModelData | None = None):
        from hodyn_cli.algorithms.backends import jax_passes

        jax = _jax()
        self.device = device_of(device)
        constants = model_data(model, data)
        self.literals = jax_passes.constants(constants)           # unrolled programs' constants
        with jax.enable_x64(True):                                 # and the loops' arrays
            self.constants = jax.device_put(self.literals, self.device)
        self._programs: dict[tuple, Callable] = {}
        self._lock = threading.Lock()
        digest = hashlib.sha256()
        for name, value in sorted(self.literals.items()):
            value = np.ascontiguousarray(value)
            digest.update(f"{name}{value.dtype}{value.shape}".encode())
            digest.update(value.tobytes())
        self._shared = (digest.hexdigest(), str(self.device))

    def program(self, key: tuple, build: Callable[[], Callable]) -> Callable:
        """The jitted program for ``key``, built by ``build()`` once per process and model
        constants."""
        with self._lock:
            if key not in self._programs:
                shared = self._shared + (key,)
                with _LOCK:
                    program = _PROGRAMS.get(shared)
                    if program is None:
                        program = _PROGRAMS[shared] = _jax().jit(build())
                        while len(_PROGRAMS) > PROGRAMS:
                            _PROGRAMS.popitem(last=False)
                    _PROGRAMS.move_to_end(shared)
                self._programs[key] = program
            return self._programs[key]

    def block(self, N: int, doubles_per_sample: int, block: int | None) -> int:
        """Samples per block for a chunk of N: ``block`` if given, else the power of two
        that holds N (at least :data:`MIN_BLOCK`: chunks of any size share a few programs),
        at most :data:`MAX_BLOCK` and what fits :data:`BLOCK_BYTES`."""
        if block is not None:
            if block < 1:
                raise HodynError(f"--backend gpu: a block holds 1 sample or more, not {block}")
            return int(block)
        kind = "cpu" if self.device.platform == "cpu" else "gpu"
        fit = max(BLOCK_BYTES[kind] // (8 * doubles_per_sample), 1)
        top = min(MAX_BLOCK[kind], 1 << (fit.bit_length() - 1))
        return min(top, max(MIN_BLOCK[kind], 1 << max(N - 1, 0).bit_length()))


def inverse_dynamics_chunk(model: Model, qs: np.ndarray, base: np.ndarray,
                           wrenches: dict[int, np.ndarray], *, order: int, root: bool = False,
                           device: str = "gpu", block: int | None = None,
                           on_device: DeviceModel | None = None):
    """tau and derivatives (N, order+1, n) of one chunk on the device:
    :func:`hodyn_cli.algorithms.backends.compiled.inverse_dynamics_chunk` (``qs`` (N, >= order+3,
    n); ``base`` the root's twist jet (1 or N, >= order+2, 6); ``wrenches`` body -> (N,
    >= order+1, 6)); ``root``: also the root's wrench ``F_0`` (N, order+1, 6), returned as
    ``(tau, F_0)``. ``device``: "gpu", or "cpu" (tests, machines without a GPU); ``block``:
    samples per device block (default: :meth:`DeviceModel.block`); ``on_device``: the model
    already on the device (:attr:`GpuData.device_model`; default: put it there now)."""
    from hodyn_cli.algorithms.backends import jax_passes

    dm, qs, base, r1 = _prepare(model, qs, base, order, device, on_device)
    N, n = len(qs), model.n
    bodies = tuple(sorted(wrenches))
    W = np.stack([_wrench(wrenches[b], N, r1, b) for b in bodies], axis=1) if bodies else None
    inputs = _inputs(qs, base, W)
    # results, and the passes' twists and wrenches of every body
    size = dm.block(N, _doubles(inputs) + r1 * (n + 6) + 6 * (n + 1) * (2 * r1 + 1), block)

    def build():
        def run(q, jet, Wb=None):
            w = {b: Wb[:, k].transpose(2, 1, 0) for k, b in enumerate(bodies)}
            out = jax_passes.inverse_dynamics(dm.literals, q.transpose(1, 2, 0),
                                              jet.transpose(2, 1, 0), w, order, root)
            if root:   # to the host's layouts: (order+1, S, n) and (S, order+1, 6)
                return out[0].transpose(0, 2, 1), out[1].transpose(2, 1, 0)
            return (out.transpose(0, 2, 1),)
        return run

    program = dm.program(("tau", order, root, inputs[1][1], bodies, size), build)
    tau = np.empty((r1, N, n))   # each order one block, as the compiled kernel returns it
    F0 = np.empty((N, r1, 6)) if root else None
    _stream(dm, program, size, inputs, [(tau, 1)] + ([(F0, 0)] if F0 is not None else []))
    return (tau.transpose(1, 0, 2), F0) if root else tau.transpose(1, 0, 2)


def _free_root(backend: GpuBackend, model: Model, data: GpuData, qs: np.ndarray,
               base: np.ndarray, order: int) -> tuple[Model, GpuData, np.ndarray] | None:
    """For a robot under a free root joint whose carried robot the device runs (a floating
    base, :mod:`~hodyn_cli.algorithms.backends.free_root`): that robot, its Data and the root's
    twist jet to order + 1 from the free joint's columns of ``qs``; else None."""
    carried = free_root.carried(backend, model, data)
    g = None if carried is None else free_root.gravity_of(base)
    if carried is None or g is None or not carried[1].kernel_joints:
        return None
    return (*carried, free_root.root_jet(backend, qs, g, order + 1))


def regressor_chunk(model: Model, qs: np.ndarray, base: np.ndarray, order: int,
                    root: bool = False, *, device: str = "gpu", block: int | None = None,
                    on_device: DeviceModel | None = None) -> np.ndarray:
    """Y^(k) (N, order+1, n, 10 n) of one chunk on the device:
    :func:`hodyn_cli.algorithms.backends.compiled.regressor_chunk`; ``root``: of a floating root
    whose jet ``base`` is, (N, order+1, 6+n, 10 (n+1)), the rows of ``F_0`` and the root's
    parameters first. ``device``, ``block``, ``on_device``: as in
    :func:`inverse_dynamics_chunk`."""
    from hodyn_cli.algorithms.backends import jax_passes

    dm, qs, base, r1 = _prepare(model, qs, base, order, device, on_device)
    N, extra = len(qs), 1 if root else 0
    rows, cols = 6 * extra + model.n, 10 * (model.n + extra)
    inputs = _inputs(qs, base)
    # Y twice (the result, in the program and in the host's layout), every body's columns
    size = dm.block(N, _doubles(inputs) + 2 * r1 * rows * cols
                    + 6 * (model.n + 1) * r1 * rows, block)

    def build():
        def run(q, jet):
            Y = jax_passes.regressor(dm.constants, q.transpose(1, 2, 0), jet.transpose(2, 1, 0),
                                     order, root)
            return (Y.transpose(0, 3, 1, 2),)     # (order+1, S, rows, cols)
        return run

    program = dm.program(("regressor", order, root, inputs[1][1], size), build)
    Y = np.empty((r1, N, rows, cols))
    _stream(dm, program, size, inputs, [(Y, 1)])
    return np.swapaxes(Y, 0, 1)


def _prepare(model: Model, qs: np.ndarray, base: np.ndarray, order: int, device: str,
             on_device: DeviceModel | None):
    """(the model on the device, ``qs[:, :order+3]``, ``base[:, :order+2]``, order + 1) after
    checking the shapes: qs (N, >= order+3, n), base (1 or N, >= order+2, 6)."""
    if order < 0:
        raise HodynError(f"torque order {order}: must be 0 or more")
    need = order + 3
    if qs.ndim != 3 or qs.shape[2] != model.n or qs.shape[1] < need:
        raise TrajectoryError(f"joint derivatives of shape {qs.shape}: need (N, >= {need}, "
                              f"{model.n})")
    N = qs.shape[0]
    if base.ndim != 3 or len(base) not in (1, N) or base.shape[1] < order + 2 \
            or base.shape[2] != 6:
        raise TrajectoryError(f"base motion of shape {base.shape}: need (1 or {N}, >= "
                              f"{order + 2}, 6)")
    dm = DeviceModel(model, device) if on_device is None else on_device
    return dm, qs[:, :need], base[:, : order + 2], order + 1


def _wrench(w: np.ndarray, N: int, r1: int, body: int) -> np.ndarray:
    if w.ndim != 3 or w.shape[0] != N or w.shape[1] < r1 or w.shape[2] != 6:
        raise TrajectoryError(f"wrench on body {body} of shape {w.shape}: need ({N}, >= {r1}, 6)")
    return w[:, :r1]


def _inputs(qs: np.ndarray, base: np.ndarray, W: np.ndarray | None = None) -> list:
    """The program's inputs as (array, per sample?): qs and W per sample, the base's jet per
    sample when it has a row per sample (N > 1), else shared."""
    per_sample_base = len(base) == len(qs) > 1
    return [(qs, True), (base, per_sample_base)] + ([(W, True)] if W is not None else [])


def _doubles(inputs: list) -> int:
    """Doubles per sample of the inputs that come in blocks."""
    return sum(int(np.prod(a.shape[1:])) for a, per_sample in inputs if per_sample)


def _stream(dm: DeviceModel, program: Callable, size: int, inputs: list,
            outs: list[tuple[np.ndarray, int]]) -> None:
    """Run ``program`` over the samples in blocks of ``size``: each input (array, per
    sample?) per sample is cut into blocks (the last one padded with zeros), a shared one is
    put on the device once; result j of block b goes into ``outs[j][0]`` at b's rows along
    axis ``outs[j][1]``. Block b+1 is sent while b computes; b's results are fetched while
    b+1 computes. At most :data:`STREAMS` chunks stream through a device at once."""
    jax = _jax()
    N = len(inputs[0][0])
    with _LOCK:
        slots = _SLOTS.setdefault(dm.device, threading.Semaphore(STREAMS))
    with slots, jax.enable_x64(True):
        shared = {k: jax.device_put(np.asarray(a, dtype=np.float64), dm.device)
                  for k, (a, per_sample) in enumerate(inputs) if not per_sample}
        pending: deque[tuple[int, int, tuple[Array, ...]]] = deque()
        for s0 in range(0, N, size):
            m = min(size, N - s0)
            args = [shared[k] if k in shared else
                    jax.device_put(_block(a, s0, m, size), dm.device)
                    for k, (a, _) in enumerate(inputs)]
            results = program(*args)
            for res in results:
                res.copy_to_host_async()
            pending.append((s0, m, results))
            if len(pending) > 1:
                _fetch(*pending.popleft(), outs)
        while pending:
            _fetch(*pending.popleft(), outs)


def _block(a: np.ndarray, s0: int, m: int, size: int) -> np.ndarray:
    """Rows s0 .. s0+m of ``a`` as a contiguous float64 array of ``size`` rows (zeros after m)."""
    if m == size:
        return np.ascontiguousarray(a[s0 : s0 + m], dtype=np.float64)
    out = np.zeros((size,) + a.shape[1:])
    out[:m] = a[s0 : s0 + m]
    return out


def _fetch(s0: int, m: int, results: tuple[Array, ...], outs: list[tuple[np.ndarray, int]]) -> None:
    """A block's results (waiting for them) into the chunk's arrays, without the padding."""
    for (out, axis), res in zip(outs, results, strict=True):
        host = np.asarray(res)
        index = (slice(None),) * axis
        out[index + (slice(s0, s0 + m),)] = host[index + (slice(0, m),)]
