"""The GPU backend (JAX) against the numpy references of the compiled kernel's operations, on
JAX's CPU device (the same programs a GPU runs; CI has no GPU): every bundled robot (chains,
trees, prismatic joints, a floating root), orders 0..4, external wrenches; its streaming in
blocks, and its one-line errors."""

from __future__ import annotations

import doctest
import importlib.util
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from conftest import URDF, pinocchio_reference, random_cosine, wrench_motion
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends import gpu
from hodyn_cli.algorithms.backends.numpy import body_fixed as numpy_body_fixed
from hodyn_cli.algorithms.backends.numpy import regressor as numpy_regressor
from hodyn_cli.algorithms.dynamics import regressor
from hodyn_cli.algorithms.dynamics.common import base_motion
from hodyn_cli.errors import HodynError, TrajectoryError
from hodyn_cli.modeling.urdf import load_model

# JAX is in the test extra (hodyn itself runs without it), imported by the tests as they
# run, not at collection: each worker of ``pytest -n`` collects this module, and JAX's
# import costs ~1 s of CPU where none of these tests runs
if importlib.util.find_spec("jax") is None:
    pytest.skip("JAX is not installed (the gpu extra)", allow_module_level=True)

# chains (planar_2r, iiwa14), prismatic joints (gripper_arm's fingers), a tree (quadruped): the
# structures the device's passes branch on. The other bundled robots add none (panda is a
# chain, the loops' robots are trees of revolute joints) and each costs its programs' compile
ALL_ROBOTS = ["gripper_arm", "iiwa14", "planar_2r", "quadruped"]
GRAVITY = (0.3, -0.2, -9.81)
BLOCK = 16  # samples per device block in these tests: several blocks, the last one padded


@pytest.fixture(scope="module", autouse=True)
def compilation_cache(request):
    """Compiled programs kept in pytest's cache directory: a second run (CI's second pass,
    a developer's rerun) loads them instead of compiling ~50 programs again."""
    import jax

    before = jax.config.jax_compilation_cache_dir
    if getattr(request.config, "cache", None) is not None:   # not with -p no:cacheprovider
        jax.config.update("jax_compilation_cache_dir", str(request.config.cache.mkdir("jax")))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    yield
    jax.config.update("jax_compilation_cache_dir", before)
    jax.clear_caches()


def models():
    return {name: load_model(URDF / f"{name}.urdf") for name in ALL_ROBOTS}


MODELS = models()


def motion(model, N: int, order: int, seed: int):
    """qs (N, order+3, n), a floating root's random twist jet (N, order+2, 6) and wrenches
    on a leaf and on a child of the root (N, order+1, 6)."""
    t = np.linspace(0, 4, N)
    qs = random_cosine(model, t, orders=order + 3, seed=seed).derivatives
    jet = np.random.default_rng(seed).normal(size=(N, order + 2, 6))
    child = int(np.flatnonzero(model.parent < 0)[-1])
    W = {model.n - 1: wrench_motion(t, order), child: wrench_motion(t + 1, order)}
    return qs, jet, W


def assert_close(ours: np.ndarray, ref: np.ndarray, label, rtol: float = 1e-12) -> None:
    """Equal to rounding, per derivative order (axis 1), relative to that order's largest."""
    assert ours.shape == ref.shape, (label, ours.shape, ref.shape)
    for k in range(ref.shape[1]):
        scale = max(np.abs(ref[:, k]).max(), 1e-300)
        err = np.abs(ours[:, k] - ref[:, k]).max()
        assert err <= rtol * scale, f"{label} order {k}: {err:.3g} vs {scale:.3g}"


#: the programs that take longest to compile (seconds each on JAX's CPU), in the slow run
#: (``-m slow``, also in CI): the default run keeps a tree with prismatic joints (the gripper
#: arm), a 3D chain (the iiwa) and the 2R's lowest and highest orders for every kind of
#: program (the middle ones, which the highest's output holds, in the slow run)
SLOW = {("test_inverse_dynamics", "iiwa14", 2), ("test_inverse_dynamics", "quadruped", 2),
        ("test_floating_regressor", "planar_2r", 6), ("test_floating_regressor", "iiwa14", 4),
        ("test_fixed_base", "quadruped", 1), ("test_fixed_base", "gripper_arm", 1),
        # the 2R's middle orders: order 4's output holds orders 0..4, checked by default
        ("test_inverse_dynamics", "planar_2r", 3), ("test_floating_regressor", "planar_2r", 2),
        ("test_floating_regressor", "planar_2r", 3)}


def cases(test: str, order: int, planar: tuple[int, ...], more=()):
    """(name, order) pairs: every robot at ``order`` (a program per robot and order takes
    seconds to compile), and the 2R, whose programs compile fast, at the orders ``planar``.
    Order k's output holds orders 0..k: every robot is checked to ``order``, the 2R beyond.
    The pairs of :data:`SLOW` are marked slow."""
    pairs = [(name, order) for name in ALL_ROBOTS] + [("planar_2r", k) for k in planar]
    return [pytest.param(*pair, marks=[pytest.mark.slow] if (test, *pair) in SLOW else [])
            for pair in [*pairs, *more]]


@pytest.mark.parametrize("name, order", cases("test_inverse_dynamics", 2, planar=(0, 1, 3, 4)))
def test_inverse_dynamics_with_a_floating_root_and_wrenches(name, order):
    """tau and the root's wrench F_0 for a moving root (a jet per sample) with wrenches on a
    leaf and a root child: :func:`numpy_body_fixed.chunk` with ``root``, the reference."""
    model = MODELS[name]
    qs, jet, W = motion(model, 37, order, seed=order)
    tau, F0 = gpu.inverse_dynamics_chunk(model, qs, jet, W, order=order, root=True,
                                         device="cpu", block=BLOCK)
    ref_tau, ref_F0 = numpy_body_fixed.chunk(model, qs, jet, W, order, root=True)
    assert_close(tau, ref_tau, (name, "tau"))
    assert_close(F0, ref_F0, (name, "F_0"))


@pytest.mark.parametrize("name, order", cases("test_floating_regressor", 1,
                                                planar=(0, 2, 3, 4, 6), more=[("iiwa14", 4)]))
def test_floating_regressor(name, order):
    """Y^(k) of a floating root (its 6 rows and 10 parameters first):
    :func:`numpy_regressor.floating_regressor_numpy`."""
    model = MODELS[name]
    qs, jet, _ = motion(model, 21, order, seed=10 + order)
    Y = gpu.regressor_chunk(model, qs, jet, order, root=True, device="cpu", block=BLOCK)
    assert_close(Y, numpy_regressor.floating_regressor_numpy(model, qs, jet, order), name)


@pytest.mark.parametrize("name, order", cases("test_fixed_base", 1, planar=()))
def test_fixed_base_with_gravity(name, order):
    """A fixed base (the gravity jet, one row shared by every sample), no wrenches: tau as
    the numpy passes, the compiled kernel and, for taud, Pinocchio compute it; the
    fixed-base regressor as :func:`numpy_regressor.regressor_numpy`, and Y pi = tau."""
    model = MODELS[name]
    traj = random_cosine(model, np.linspace(0, 3, 23), orders=order + 3, seed=5)
    qs, base = traj.derivatives, base_motion(GRAVITY, order + 1)
    tau = gpu.inverse_dynamics_chunk(model, qs, base, {}, order=order, device="cpu", block=BLOCK)
    ref = numpy_body_fixed.backward_pass(model, qs, numpy_body_fixed.forward_pass(model, qs, order + 1, base),
                                   order)[0]
    assert_close(tau, ref, name)
    if "compiled" in backends.current().describe():
        backend, data = backends.prepare(model)
        assert_close(tau, backend.inverse_dynamics(model, data, qs, base, {}, order=order),
                     name)
    Y = gpu.regressor_chunk(model, qs, base, order, device="cpu", block=BLOCK)
    assert_close(Y, numpy_regressor.regressor_numpy(model, qs, base, order), name)
    assert_close(Y @ regressor.parameters(model), tau, (name, "Y pi"), rtol=1e-11)
    if name == "iiwa14":  # an independent library (Pinocchio's gravity is -z: 9.81 down)
        base = base_motion((0.0, 0.0, -9.81), order + 1)
        tau = gpu.inverse_dynamics_chunk(model, qs, base, {}, order=order, device="cpu",
                                         block=BLOCK)
        pin_tau, pin_taud = pinocchio_reference(URDF / f"{name}.urdf", model, traj)
        assert_close(tau[:, :2], np.stack([pin_tau, pin_taud], axis=1), "pinocchio", 1e-10)


def planar(N: int, order: int = 1, seed: int = 3):
    model = MODELS["planar_2r"]
    traj = random_cosine(model, np.linspace(0, 2, N), orders=order + 3, seed=seed)
    return model, traj.derivatives, base_motion(GRAVITY, order + 1)


@pytest.mark.parametrize("N", [0, 1, 4, 9, *(pytest.param(N, marks=pytest.mark.slow)
                                             for N in (3, 8, 30))])
def test_blocks_partial_full_and_many(N):
    """Any number of samples in blocks of 4 (none, one, fewer than a block, a block, whole
    blocks, a padded last one): the numbers of one pass over all samples, and one program
    (each N compiles a program of its own for the one-block pass: 3, 8 and 30, more of the
    same kinds, in the slow run)."""
    model, qs, base = planar(N)
    tau = gpu.inverse_dynamics_chunk(model, qs, base, {}, order=1, device="cpu", block=4)
    assert tau.shape == (N, 2, 2)
    if N:
        kin = numpy_body_fixed.forward_pass(model, qs, 2, base)
        ref = numpy_body_fixed.backward_pass(model, qs, kin, 1)[0]
        assert_close(tau, ref, N)
        # block by block or all at once in one block: bit for bit the same
        one = gpu.inverse_dynamics_chunk(model, qs, base, {}, order=1, device="cpu", block=N)
        assert np.array_equal(tau, one)


def test_one_compiled_program_serves_every_chunk():
    """Chunks of any size reuse the program of their (model, operation, order, options,
    block): no recompilation per chunk. (Order 1 in blocks of 8: the program the threads'
    tests below use, compiled once for the three.)"""
    model, qs, base = planar(50, order=1)
    dm = gpu.DeviceModel(model, "cpu")
    before = set(dm._programs)
    for N in (5, 50, 13):
        gpu.inverse_dynamics_chunk(model, qs[:N], base, {}, order=1, device="cpu", block=8,
                                   on_device=dm)
    new = [p for key, p in dm._programs.items() if key not in before]
    assert len(new) == 1 and new[0]._cache_size() == 1


def test_a_data_per_call_compiles_nothing_again():
    """Each API call without ``data=`` makes its own Data and so puts the model on the device
    again: the programs are those the first one compiled (equal constants), not compiled
    again per call (that made a call on iiwa14 30 times slower); another model's are its own."""
    model, qs, base = planar(9, order=1)
    tau, programs = [], []
    with backends.use("gpu", device="cpu") as backend:
        for _ in range(2):
            data = backend.data(model)
            tau.append(backend.inverse_dynamics(model, data, qs, base, {}, order=1))
            programs.append(set(map(id, data.device_model._programs.values())))
        other = MODELS["iiwa14"]
        data = backend.data(other)
        backend.inverse_dynamics(other, data, random_cosine(other, np.linspace(0, 1, 9),
                                                            orders=4).derivatives,
                                 base, {}, order=1)
    assert np.array_equal(tau[0], tau[1])
    assert programs[0] == programs[1] and len(programs[0]) == 1
    assert not programs[0] & set(map(id, data.device_model._programs.values()))


def test_block_sizes_follow_the_chunk_between_a_floor_and_a_ceiling():
    """Without ``block``: the power of two that holds the chunk, at least MIN_BLOCK samples
    and at most MAX_BLOCK (on the CPU device); a chunk beyond it runs in several blocks."""
    model = MODELS["planar_2r"]
    dm = gpu.DeviceModel(model, "cpu")
    low, high = gpu.MIN_BLOCK["cpu"], gpu.MAX_BLOCK["cpu"]
    sizes = {N: dm.block(N, 20, None) for N in (1, 5, low + 1, high - 1, 3 * high)}
    assert sizes == {1: low, 5: low, low + 1: 2 * low, high - 1: high, 3 * high: high}
    assert dm.block(5, gpu.BLOCK_BYTES["cpu"] // 8 // 3, None) == 2   # 3 samples would not fit
    model, qs, base = planar(low + 3, order=0)
    tau = gpu.inverse_dynamics_chunk(model, qs, base, {}, order=0, device="cpu", on_device=dm)
    ref = numpy_body_fixed.backward_pass(model, qs, numpy_body_fixed.forward_pass(model, qs, 1, base), 0)[0]
    assert_close(tau, ref, "default block")
    assert ("tau", 0, False, False, (), 2 * low) in dm._programs


def test_results_come_back_in_the_compiled_kernels_layout():
    """Each torque order one contiguous block (writers take tau[:, k] as it is), float64; a
    reader's chunk (t before each sample's values: a strided view) gives the numbers of a
    contiguous copy."""
    model, qs, base = planar(13, order=2)
    tau = gpu.inverse_dynamics_chunk(model, qs, base, {}, order=2, device="cpu", block=4)
    assert tau.dtype == np.float64 and all(tau[:, k].flags.c_contiguous for k in range(3))
    N, D, n = qs.shape
    rows = np.empty((N, 1 + D * n))
    rows[:, 0], rows[:, 1:] = np.arange(N), qs.reshape(N, -1)
    view = rows[:, 1:].reshape(N, D, n)
    assert not view.flags.c_contiguous
    again = gpu.inverse_dynamics_chunk(model, view, base, {}, order=2, device="cpu", block=4)
    assert np.array_equal(tau, again)


def test_threads_share_a_model_and_its_programs():
    """The pipeline's worker threads call at once: each gets its own chunk's numbers."""
    model, qs, base = planar(40, order=1)
    ref = gpu.inverse_dynamics_chunk(model, qs, base, {}, order=1, device="cpu", block=8)
    out: dict[int, np.ndarray] = {}

    def work(k: int) -> None:
        out[k] = gpu.inverse_dynamics_chunk(model, qs[k:], base, {}, order=1, device="cpu",
                                            block=8)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        assert np.array_equal(out[k], ref[k:])


def test_at_most_streams_chunks_use_a_device_at_once(monkeypatch):
    """Eight threads with a chunk each: at most STREAMS of them stream blocks through the
    device at a time (its memory holds STREAMS x 2 blocks), and every chunk is done. The
    first ones in hold the device until STREAMS are there at once (not a sleep that threads
    started late on a loaded machine may never overlap)."""
    model, qs, base = planar(24, order=1)
    gpu.inverse_dynamics_chunk(model, qs, base, {}, order=1, device="cpu", block=8)  # compiles
    busy, most, lock, block = [0], [0], threading.Lock(), gpu._block
    full = threading.Event()

    def slow_block(*args):   # inside the stream: count the threads there at once
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
            if busy[0] == gpu.STREAMS:
                full.set()
        if not full.wait(60):  # fewer let in at once: the test fails (most < STREAMS)
            full.set()
        time.sleep(0.01)  # more let in at once: they would meet here
        with lock:
            busy[0] -= 1
        return block(*args)

    monkeypatch.setattr(gpu, "_block", slow_block)
    threads = [threading.Thread(target=gpu.inverse_dynamics_chunk, args=(model, qs, base, {}),
                                kwargs={"order": 1, "device": "cpu", "block": 8})
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most[0] == gpu.STREAMS


def test_without_a_gpu_one_line_says_so():
    import jax

    if any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("this machine has a GPU")
    model, qs, base = planar(3)
    with pytest.raises(HodynError) as err:
        gpu.inverse_dynamics_chunk(model, qs, base, {}, order=1)
    assert str(err.value) == ("--backend gpu: no GPU found by JAX (jax.devices() lists only "
                              "cpu); pip install -e \".[gpu]\" in hodyn's checkout, on a "
                              "machine with an NVIDIA GPU")


def test_without_jax_one_line_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)   # import jax raises ImportError
    model, qs, base = planar(3)
    with pytest.raises(HodynError, match=r"^--backend gpu needs JAX: pip install -e "
                                         r"\"\.\[gpu\]\" in hodyn's checkout$"):
        gpu.regressor_chunk(model, qs, base, 1, device="cpu")


@pytest.mark.parametrize("call, error, message", [
    (lambda m, qs, b: gpu.inverse_dynamics_chunk(m, qs[:, :3], b, {}, order=1, device="cpu"),
     TrajectoryError, r"joint derivatives of shape \(5, 3, 2\): need \(N, >= 4, 2\)"),
    (lambda m, qs, b: gpu.inverse_dynamics_chunk(m, qs, np.zeros((2, 3, 6)), {}, order=1,
                                                 device="cpu"),
     TrajectoryError, r"base motion of shape \(2, 3, 6\): need \(1 or 5, >= 3, 6\)"),
    (lambda m, qs, b: gpu.inverse_dynamics_chunk(m, qs, b, {1: np.zeros((5, 1, 6))}, order=1,
                                                 device="cpu"),
     TrajectoryError, r"wrench on body 1 of shape \(5, 1, 6\): need \(5, >= 2, 6\)"),
    (lambda m, qs, b: gpu.regressor_chunk(m, qs, b, -1, device="cpu"),
     HodynError, r"torque order -1: must be 0 or more"),
    (lambda m, qs, b: gpu.regressor_chunk(m, qs, b, 1, device="cpu", block=0),
     HodynError, r"--backend gpu: a block holds 1 sample or more, not 0"),
])
def test_bad_input_is_one_line(call, error, message):
    model, qs, base = planar(5)
    with pytest.raises(error, match=f"^{message}$"):
        call(model, qs, base)


def test_the_passes_slice_each_row_once():
    """The programs' cost before XLA's is tracing them an operation at a time (most of these
    tests' CPU): a screw's row that several terms use is sliced once, by lax, not by jnp's
    parsed index (``mat``'s rows took x's row again per term, the cross products theirs:
    8 193 operations for the gripper arm's inverse dynamics at order 2, 5 057 now, and half
    the CPU of tracing and lowering it; the same numbers, checked by the tests above)."""
    import jax

    from hodyn_cli.algorithms.backends import jax_passes

    def slices(f, *args) -> int:
        return sum(e.primitive.name == "slice" for e in jax.make_jaxpr(f)(*args).jaxpr.eqns)

    dense = np.arange(1.0, 37.0).reshape(6, 6)
    x = np.ones((6, 3, 4))
    assert slices(lambda x: jax_passes.mat(dense, x), x) == 6
    assert slices(lambda A, x: jax_passes.mat(A, x), dense, x) == 12   # (A's columns too)
    assert slices(jax_passes.coad, x, x) == 12


def test_the_gpu_modules_doctests_pass():
    """The doctests of gpu.py and jax_passes.py (left out of the collection by the root
    conftest.py: jax_passes imports JAX), run here where JAX is."""
    from hodyn_cli.algorithms.backends import jax_passes

    for module in (gpu, jax_passes):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, (module.__name__, result)


def test_importing_the_backend_does_not_import_jax():
    """``hodyn --help`` and every command that does not run on the GPU never load JAX."""
    code = ("import sys; import hodyn_cli.algorithms.backends.gpu; "
            "from hodyn_cli.cli.app import app; assert 'jax' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


PROGRAM = ("import numpy as np; from hodyn_cli.algorithms.backends import gpu; "
           "from hodyn_cli.algorithms.dynamics.common import base_motion; "
           "from hodyn_cli.modeling.urdf import load_model; "
           f"m = load_model({str(URDF / 'planar_2r.urdf')!r}); "
           "gpu.inverse_dynamics_chunk(m, np.zeros((3, 3, 2)), base_motion((0, 0, -9.81), 1), "
           "{}, order=0, device='cpu', block=4); import jax; "
           "print(jax.config.jax_compilation_cache_dir)")


# in a JAX process of its own: slow, a second JAX import and compile (~2.4 s of CPU) for what
# test_a_folder_jax_was_given_is_kept (the user's folder) and
# test_programs_are_kept_in_hodyns_folder_where_jax_names_none (hodyn's) prove in this process
@pytest.mark.slow
@pytest.mark.parametrize("own", [False, True], ids=["hodyn's", "the user's"])
def test_compiled_programs_are_kept_across_runs(tmp_path, own):
    """Each run compiles its programs once: JAX keeps them under $XDG_CACHE_HOME/hodyn/jax,
    or where the user's JAX_COMPILATION_CACHE_DIR says (then hodyn's folder is not made)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0"}   # keep even quick programs
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    if own:
        env["JAX_COMPILATION_CACHE_DIR"] = str(tmp_path / "mine")
    out = subprocess.run([sys.executable, "-c", PROGRAM], env=env, check=True,
                         capture_output=True, text=True).stdout.strip()
    where = tmp_path / ("mine" if own else "cache/hodyn/jax")
    assert out == str(where) and any(where.iterdir())
    assert (tmp_path / "cache").exists() is not own


def test_programs_are_kept_in_hodyns_folder_where_jax_names_none(tmp_path, monkeypatch):
    """Where JAX's configuration names no folder for its programs, the backend's first use
    names $XDG_CACHE_HOME/hodyn/jax and JAX writes there the programs it compiles: the case
    "hodyn's" of test_compiled_programs_are_kept_across_runs in this process (JAX's folder
    unset meanwhile and its cache reset to read it afresh; a program of its own, block=5,
    which no other test compiles, and JAX's caches in memory cleared: nothing taken from
    memory)."""
    import jax
    from jax.experimental.compilation_cache import compilation_cache

    from hodyn_cli.algorithms.dynamics.common import base_motion

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    where = tmp_path / "cache" / "hodyn" / "jax"
    before = jax.config.jax_compilation_cache_dir
    jax.config.update("jax_compilation_cache_dir", None)
    compilation_cache.reset_cache()
    jax.clear_caches()  # (compiled in memory by an earlier test, it would not be written)
    try:
        gpu.inverse_dynamics_chunk(MODELS["planar_2r"], np.zeros((3, 3, 2)),
                                   base_motion((0, 0, -9.81), 1), {}, order=0, device="cpu",
                                   block=5)
        assert jax.config.jax_compilation_cache_dir == str(where)
        assert any(where.iterdir())
    finally:
        jax.config.update("jax_compilation_cache_dir", before)
        compilation_cache.reset_cache()


def test_a_folder_jax_was_given_is_kept(tmp_path, monkeypatch):
    """Where JAX's configuration names a folder for its programs (JAX reads the user's
    JAX_COMPILATION_CACHE_DIR into it at import), hodyn keeps it and makes no folder of its
    own; where it names none, hodyn makes $XDG_CACHE_HOME/hodyn/jax and names it: the
    choice of test_compiled_programs_are_kept_across_runs, without a JAX process (a stand-in
    for JAX's configuration)."""
    class Config:
        def __init__(self, folder: str | None):
            self.jax_compilation_cache_dir = folder

        def update(self, name: str, value) -> None:
            setattr(self, name, value)

    class Jax:
        def __init__(self, folder: str | None):
            self.config = Config(folder)

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    users = Jax(str(tmp_path / "mine"))
    gpu._keep_programs(users)
    assert users.config.jax_compilation_cache_dir == str(tmp_path / "mine")
    assert not (tmp_path / "cache").exists()
    none = Jax(None)
    gpu._keep_programs(none)
    assert none.config.jax_compilation_cache_dir == str(tmp_path / "cache" / "hodyn" / "jax")
    assert (tmp_path / "cache" / "hodyn" / "jax").is_dir()
