"""Every backend against the numpy reference, one parametrization (the ``backend`` fixture:
each compiled kernel variant, and any other backend that runs here); how the backend is
chosen, refused and reported; the compiled kernels' own checks."""

import ctypes
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from conftest import URDF, random_cosine, reference, wrench_motion
from hodyn_cli.algorithms import backends
from hodyn_cli.algorithms.backends import compiled
from hodyn_cli.algorithms.backends.numpy import body_fixed as numpy_body_fixed
from hodyn_cli.algorithms.backends.numpy import closed_form as numpy_closed_form
from hodyn_cli.algorithms.backends.numpy import floating as numpy_floating
from hodyn_cli.algorithms.dynamics import body_fixed
from hodyn_cli.algorithms.dynamics.common import solve_in_chunks
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.core.trajectory import Trajectory, Wrenches
from hodyn_cli.errors import HodynError
from hodyn_cli.modeling.urdf import load_model

pytestmark = pytest.mark.kernel  # the backends besides numpy: nothing to test without them


def numpy_reference(model, traj, order):
    def per_chunk(qs, base, wrenches):
        kin = numpy_body_fixed.forward_pass(model, qs, order + 1, base)
        return numpy_body_fixed.backward_pass(model, qs, kin, order, wrenches)[0]

    return solve_in_chunks(model, traj, order, (0.0, 0.0, -9.81), per_chunk)


#: numpy's results of the tests swept over the kernel variants, by (test, robot, case...):
#: the same for every variant, computed once a worker (the reference is most of such a test's
#: CPU; each variant still computes and compares its own)
_NUMPY: dict[tuple, object] = {}


def numpy_once(key: tuple, fn, *args):
    """``fn(*args)`` for ``key``, computed on the first call of a worker."""
    if key not in _NUMPY:
        _NUMPY[key] = fn(*args)
    return _NUMPY[key]


def close(ours, ref, rtol=1e-12):
    """Equal to rounding, relative to the reference's largest entry."""
    ours, ref = np.asarray(ours), np.asarray(ref)
    return ours.shape == ref.shape and np.abs(ours - ref).max(initial=0.0) <= \
        rtol * max(np.abs(ref).max(initial=0.0), 1e-300)


def test_kernel_is_built_where_a_compiler_exists():
    if not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler: hodyn runs on its numpy implementation")
    if os.environ.get("HODYN_NO_KERNEL") or os.environ.get("HODYN_KERNEL"):
        pytest.skip("the backend is forced by the environment in this run")
    from hodyn_cli.algorithms.backends import _kernel

    lib = ctypes.CDLL(_kernel.__file__)
    assert compiled.abi_of(lib) == compiled.ABI.version
    # the widest variant this CPU runs is built and chosen
    widest = next(v for v, (_, level) in compiled.VARIANTS.items()
                  if level <= compiled._cpu_level())
    backends.reset()
    info = backends.info()
    assert info["backend"] == "compiled", "the C kernel did not build or is stale (pip's output)"
    assert info["variant"] == widest, info
    assert info["lanes"] == {"avx512": 8, "avx2": 4, "portable": 2}[widest]


def test_an_unknown_variant_is_reported(monkeypatch, fresh_backends):
    monkeypatch.delenv("HODYN_NO_KERNEL", raising=False)
    monkeypatch.setenv("HODYN_KERNEL", "sse9")
    info = backends.info()
    assert info["backend"] == "numpy" and "HODYN_KERNEL=sse9 names no kernel" in info["reason"]
    assert backends.fallback() == info["reason"]


def build_library(tmp_path, name: str, source: str) -> str:
    """A shared library compiled from ``source`` (skips without a C compiler)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    (tmp_path / f"{name}.c").write_text(source)
    path = tmp_path / f"{name}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(path), str(tmp_path / f"{name}.c")],
                   check=True)
    return str(path)


@pytest.mark.parametrize("source, why", [
    ("int hodyn_kernel_abi(void) { return 1; }\n", "stale"),  # another ABI
    ("int something_else(void) { return 0; }\n", "stale"),   # too old to report one
])
def test_a_stale_kernel_is_refused_and_numpy_takes_over(tmp_path, monkeypatch, source, why,
                                                        fresh_backends):
    """A library built from other sources (no entry points hodyn could call) in place of the
    kernel: it is not used, the backend says so, and every method still computes."""
    path = build_library(tmp_path, "stale", source)
    fake = types.ModuleType("hodyn_cli.algorithms.backends._stale")
    fake.__file__ = path
    monkeypatch.setitem(sys.modules, "hodyn_cli.algorithms.backends._stale", fake)
    monkeypatch.setattr(compiled, "VARIANTS", {"portable": ("_stale", 0)})
    monkeypatch.setattr(compiled, "_cpu_level", lambda: 0)
    monkeypatch.delenv("HODYN_NO_KERNEL", raising=False)
    monkeypatch.delenv("HODYN_KERNEL", raising=False)
    info = backends.info()
    assert info["backend"] == "numpy" and why in info["reason"], info
    model = load_model(URDF / "iiwa14.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 5), orders=5, seed=1)
    ref = numpy_reference(model, traj, 2)
    for method in ("body-fixed", "closed-form"):
        ours = inverse_dynamics(model, traj, method=method, order=2)
        assert np.abs(ours - ref).max() <= 1e-10 * np.abs(ref).max(), method


def test_environment_switch_selects_numpy(monkeypatch, fresh_backends):
    monkeypatch.setenv("HODYN_NO_KERNEL", "1")
    assert backends.info() == {"backend": "numpy", "variant": None, "isa": None,
                               "lanes": None, "reason": "HODYN_NO_KERNEL is set"}
    assert backends.fallback() is None  # asked for: no notice
    monkeypatch.delenv("HODYN_NO_KERNEL")
    monkeypatch.setenv("HODYN_BACKEND", "numpy")
    backends.reset()
    assert backends.current().name == "numpy" and backends.fallback() is None


def test_an_unknown_or_unavailable_backend_is_one_line(fresh_backends):
    with pytest.raises(HodynError, match="unknown backend 'gpx' \\(choose from numpy, compiled"):
        backends.select("gpx")
    backends.select("numpy")
    assert backends.describe() == "numpy" and backends.current().name == "numpy"


@pytest.mark.parametrize("order", [0, 1, 2, 3, 4, 9])  # 9: elastic-joint orders
def test_inverse_dynamics_matches_numpy_reference(robot, kernel, order):
    name, _, model = robot
    t = np.linspace(0, 4, 301)  # odd: the kernel's last lockstep group is partly filled
    traj = random_cosine(model, t, orders=order + 3, seed=31)
    links = {model.link_names[-1]: wrench_motion(t, order), model.link_names[0]: wrench_motion(t + 2, order)}
    for W in (None, Wrenches(links)):
        tr = Trajectory(traj.joint_names, traj.derivatives, t, W)
        ours = body_fixed.inverse_dynamics(model, tr, order=order)
        ref = numpy_once(("body-fixed", name, order, W is None), numpy_reference, model, tr,
                         order)
        for k in range(order + 1):
            scale = np.abs(ref[:, k]).max()
            assert np.abs(ours[:, k] - ref[:, k]).max() <= 1e-12 * scale, (name, k, kernel)


@pytest.mark.parametrize("order", [0, 1, 2, 4])
def test_closed_form_matches_numpy_reference(robot, kernel, order):
    from hodyn_cli.algorithms.dynamics import closed_form
    from hodyn_cli.algorithms.dynamics.common import base_motion

    name, _, model = robot
    t = np.linspace(0, 4, 201)  # odd: the kernel's last lockstep group is partly filled
    qs = random_cosine(model, t, orders=order + 3, seed=37).derivatives
    W = {model.n - 1: wrench_motion(t, order), 0: wrench_motion(t + 2, order)}
    base = base_motion((0.3, -0.2, -9.81), order + 1)
    for wrenches, with_cbar in ((W, True), ({}, False)):
        ours = closed_form.eom_matrices(model, qs, order, base, wrenches, with_cbar)
        ref = numpy_once(("closed-form", name, order, with_cbar),
                         numpy_closed_form.eom_matrices_numpy, model, qs, order, base,
                         wrenches, with_cbar)
        for field in ("M", "C", "Cbar", "g", "Q_ext"):
            assert close(getattr(ours, field), getattr(ref, field)), (name, field, kernel)


@pytest.mark.parametrize("n_samples", [1, 2, 3, 5, 2049])
def test_sample_counts(robot, kernel, n_samples):
    """Single samples, partial lockstep groups and chunk boundaries give the same numbers."""
    from hodyn_cli.algorithms.dynamics import closed_form

    name, _, model = robot
    traj = random_cosine(model, np.linspace(0, 4, n_samples), orders=5, seed=41)
    ref = numpy_once(("counts", name, n_samples), numpy_reference, model, traj, 2)
    for ours in (body_fixed.inverse_dynamics(model, traj, order=2),
                 closed_form.inverse_dynamics(model, traj, order=2)):
        assert np.abs(ours - ref).max() <= 1e-12 * np.abs(ref).max(), kernel


def test_twists_match_the_numpy_forward_pass(robot, kernel):
    name, _, model = robot
    order = 7
    traj = random_cosine(model, np.linspace(0, 2, 33), orders=order + 3, seed=5)
    base = np.zeros((1, order + 2, 6))
    base[0, 1, 3:] = (0.5, -1.0, 9.81)
    backend, data = backends.prepare(model)
    tau, V = backend.inverse_dynamics(model, data, traj.derivatives, base, {}, order=order,
                                              twists=True)
    ref = np.stack(numpy_body_fixed.forward_pass(model, traj.derivatives, order + 1, base).V, axis=1)
    assert V.shape == ref.shape
    assert np.abs(V - ref).max() <= 1e-12 * np.abs(ref).max(), (name, kernel)


def test_orders_beyond_the_kernels_tables_run_as_numpys(lanes):
    """Above MAXK - 2 the compiled backend computes what numpy does (its tables end)."""
    model = load_model(URDF / "planar_2r.urdf")
    order = compiled.ABI.max_order + 1
    traj = random_cosine(model, np.linspace(0, 1, 3), orders=order + 3)
    base = np.zeros((1, order + 2, 6))
    base[0, 1, 5] = 9.81
    backend, data = backends.prepare(model)
    ours = backend.inverse_dynamics(model, data, traj.derivatives, base, {}, order=order)
    assert close(ours, reference(lambda: backends.current().inverse_dynamics(
        model, backends.current().data(model), traj.derivatives, base, {}, order=order)))


@pytest.mark.slow
def test_the_sources_at_a_lane_width_this_cpu_has_no_variant_for(tmp_path, monkeypatch):
    """8 lanes built without AVX-512 (the compiler splits the vectors): every kernel still
    equals its numpy reference, so the lane logic does not depend on the width."""
    import sysconfig

    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    sources = sorted((Path(compiled.__file__).parent / "csrc").glob("*.c"))
    path = tmp_path / "wide.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-DLANES=8", "-DHODYN_MODULE=_wide",
                    f"-I{sysconfig.get_paths()['include']}", "-o", str(path), *map(str, sources)],
                   check=True)
    fake = types.ModuleType("hodyn_cli.algorithms.backends._wide")
    fake.__file__ = str(path)
    monkeypatch.setitem(sys.modules, "hodyn_cli.algorithms.backends._wide", fake)
    monkeypatch.setattr(compiled, "VARIANTS", {"wide": ("_wide", 0)})
    monkeypatch.setattr(compiled, "_cpu_level", lambda: 0)
    model = load_model(URDF / "gripper_arm.urdf")  # a tree with a prismatic joint
    t = np.linspace(0, 2, 11)  # 11 = 8 + 3: a partial group
    with backends.use("compiled", variant="wide") as wide:
        assert wide.details["lanes"] == 8
        check_every_operation(model, t)


def check_every_operation(model, t, orders: tuple[int, ...] = (0, 2)) -> None:
    """Every operation of the current backend against the numpy reference on ``model`` at
    the times ``t`` (at each of ``orders``: wrenches, a floating root; elastic drives, IK)."""
    from hodyn_cli.algorithms.actuation import elastic
    from hodyn_cli.algorithms.dynamics.common import base_motion
    from hodyn_cli.modeling.drives import read_drives

    ours, ref = backends.current(), backends.load("numpy")
    for order in orders:
        qs = random_cosine(model, t, orders=order + 3, seed=3).derivatives
        base = np.random.default_rng(4).normal(size=(len(t), order + 2, 6))
        W = {model.n - 1: wrench_motion(t, order)}
        W0 = {b: w[:, 0] for b, w in W.items()}
        accel = base_motion((0.1, 0.2, -9.81), order + 1)
        rows, g = random_base(len(t), order + 2, seed=6), np.array([0.1, 0.2, -9.81])
        jet = numpy_floating.root_jet_numpy(rows.R, rows.Vb, g, order + 1)

        def results(b, qs=qs, base=base, W=W, W0=W0, accel=accel, rows=rows, g=g, jet=jet,
                    order=order):
            d = b.data(model)
            return [b.inverse_dynamics(model, d, qs, base, W, order=order),
                    *b.inverse_dynamics(model, d, qs, jet, W, order=order, twists=True, root=True),
                    b.root_jet(rows.R, rows.Vb, g, order + 1),
                    b.regressor(model, d, qs, base, order),
                    b.regressor(model, d, qs, jet, order, root=True),
                    b.sensitivities(model, d, qs, base, W, order),
                    *b.partials(model, d, qs, base, W0, mass=True),
                    *vars(b.eom_matrices(model, d, qs, order, accel, W)).values(),
                    *vars(b.eom_matrices(model, d, qs, order, accel, W, True,
                                         root_twist=rows.Vb)).values()]

        for x, y in zip(results(ours), results(ref), strict=True):
            assert close(x, y), order
        M = ref.eom_matrices(model, ref.data(model), qs, order, accel, W, True,
                             root_twist=rows.Vb).M[:, 0]
        rhs = np.concatenate([base[:, :2].swapaxes(1, 2), qs[:, :2].swapaxes(1, 2)], axis=1)
        assert close(ours.spd_solve(M, rhs), ref.spd_solve(M, rhs))
    drives = read_drives(URDF / "gripper_arm_drives.toml", model)
    req = elastic.requirements(model, drives, 0)
    R = int(req.u_orders.max())
    qs = random_cosine(model, t, orders=R + 2, seed=5).derivatives
    base = base_motion((0, 0, -9.81), R + 1)
    for x, y in zip(ours.elastic(model, ours.data(model), drives, req, qs, base, {}, 0),
                    ref.elastic(model, ref.data(model), drives, req, qs, base, {}, 0), strict=True):
        assert close(x, y)
    # inverse kinematics: a redundant arm's rates and Newton (tests/test_ik_kernel.py)
    from test_ik_kernel import setup

    solver, motion, traj = setup("7 dof pose", len(t))
    rows, start = slice(0, len(t)), traj.q + 0.01
    mine = [*solver._rates(start, motion, rows), *solver._newton(start, motion, rows)]
    with backends.use("numpy"):
        refs = [*solver._rates(start, motion, rows), *solver._newton(start, motion, rows)]
    for x, y, tol in zip(mine[:3], refs[:3], (1e-11, 1e-11, 1e-10), strict=True):
        assert close(x, y, tol)
    assert max(mine[3].max(), refs[3].max()) < 1e-12   # both on the pose


def test_every_operation_of_every_backend(backend):
    """Orders 0 and 2; the GPU backend at order 2 only (its order 0 in the slow run, below):
    each order is a program of its own that JAX traces and lowers at every run (~1.3 s of
    CPU for order 0's, the compiled programs kept), and order 2's output holds order 0's
    numbers (tests/test_gpu_backend.py checks its order-0 programs on the 2R by default)."""
    model = load_model(URDF / "gripper_arm.urdf")
    check_every_operation(model, np.linspace(0, 2, 11), (2,) if backend.name == "gpu" else (0, 2))


@pytest.mark.slow
def test_every_operation_of_the_gpu_backend_at_order_0():
    pytest.importorskip("jax")
    model = load_model(URDF / "gripper_arm.urdf")
    with backends.use("gpu", device="cpu"):
        check_every_operation(model, np.linspace(0, 2, 11), (0,))


def test_entry_points_check_the_model_and_sizes_they_are_given(lanes):
    """Called past the Python wrappers, the kernels refuse what would read out of bounds or
    mean nothing: a parent after its child, a joint kind that is none of hodyn.h's, a pitch
    on a joint that is not helical, too few derivative orders, samples closer than their values,
    an order beyond the tables, a base with neither 1 nor N rows; and N arrives as a 64-bit
    count."""
    model = load_model(URDF / "iiwa14.urdf")
    lib = backends.current().lib
    good = backends.current().data(model).struct
    qs = np.ascontiguousarray(random_cosine(model, np.linspace(0, 1, 2), orders=5).derivatives)
    base, out = np.zeros((1, 4, 6)), np.empty((2, 3, model.n))

    def call(struct=good, N=2, D=5, order=2, base=base, rows=1, stride=5 * model.n):
        return lib.hodyn_body_fixed(struct, N, D, qs.ctypes.data, stride, order, base, rows,
                                    None, out, None, None)

    assert call() == 0 and call(stride=6 * model.n) == 0  # samples further apart: fine
    assert call(stride=5 * model.n - 1) == 4   # samples overlapping: refused
    fields = [f for f, _ in compiled.ABI.model._fields_]

    def bad(field, values):  # the model with one of its arrays replaced
        return compiled.ABI.model(model.n, *(values.ctypes.data if f == field else
                                             getattr(good, f) for f in fields[1:]))

    parent = np.array(model.parent, dtype=np.int32)
    parent[3] = 5  # body 3's parent after it
    kind = np.full(model.n, compiled.ABI.joint_kinds["revolute"], dtype=np.int32)
    pitch = np.zeros(model.n)
    assert call(struct=bad("kind", kind)) == 0 and call(struct=bad("pitch", pitch)) == 0
    pitch[4] = 0.1  # a pitch of a revolute joint
    assert call(struct=bad("parent", parent)) == 3 and call(struct=bad("pitch", pitch)) == 3
    kind[2] = max(compiled.ABI.joint_kinds.values()) + 1  # a kind that is none
    assert call(struct=bad("kind", kind)) == 3
    kind[2] = compiled.ABI.joint_kinds["spherical"]  # 3 velocity coordinates where dof has 1
    assert call(struct=bad("kind", kind)) == 3
    assert call(D=4) == 4 and call(N=-1) == 4 and call(rows=3) == 4
    assert call(order=compiled.ABI.max_order + 1) == 2 and call(order=-1) == 2
    # rows = 2 matches N only if N were cut to 32 bits: 2**32 + 2 samples is refused
    assert call(N=2**32 + 2, rows=2) == 4


@pytest.fixture(scope="module", params=["solo", "random2"])
def floating_tree(request, tmp_path_factory):
    """A Solo-like legged robot (4 limbs on the root) and a random tree with a massive root."""
    from conftest import legged_urdf, random_urdf

    text = random_urdf(2) if request.param == "random2" else legged_urdf("solo", seed=1)
    path = tmp_path_factory.mktemp("floating") / f"{request.param}.urdf"
    path.write_text(text)
    return request.param, load_model(path)


def random_base(N: int, orders: int, seed: int):
    """A floating root's rows: random rotations ``R`` and body twist derivatives ``Vb``."""
    from types import SimpleNamespace

    from hodyn_cli.core import lie

    rng = np.random.default_rng(seed)
    axes = rng.normal(size=(N, 3))
    R = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a)) for a in axes])
    return SimpleNamespace(R=R, Vb=rng.normal(size=(N, orders, 6)))


def _root_jet(base, g, K: int) -> np.ndarray:
    """The root's twist jet in the free-falling frame by the running backend."""
    return backends.current().root_jet(base.R, base.Vb, np.asarray(g, dtype=float), K)


def _root_body_fixed(model, qs, base, g, W, W0, order):
    """(tau, F_0) of the running backend's body-fixed pass driven by a floating root's jet
    (the compiled backend's floating-base kernel: the free root joint's matrices)."""
    backend = backends.current()
    tau, F0 = backend.inverse_dynamics(model, backend.data(model), qs,
                                       _root_jet(base, g, order + 1), W, order=order,
                                       root=True)
    return tau, F0 + W0


def _root_eom(model, qs, base, g, W, W0, order, with_cbar):
    """The running backend's (6 + n) closed-form matrices of a floating root (rotation R, body
    twist jet Vb), its own wrench W0 in Q_ext."""
    backend = backends.current()
    accel = np.zeros((len(base.R), 2, 6))
    accel[:, 1] = numpy_floating.gravity_in_root(base.R, g)
    E = backend.eom_matrices(model, backend.data(model), qs, order, accel, W, with_cbar,
                             root_twist=base.Vb[:, : order + 2])
    E.Q_ext[..., :6] += W0
    return E


# (order 4's output holds orders 0..4: the middle orders, which it checks, in the slow run)
@pytest.mark.parametrize("order", [0, pytest.param(1, marks=pytest.mark.slow),
                                   pytest.param(2, marks=pytest.mark.slow), 4])
# partial lockstep groups at every width: 17 is 8 groups of 2 + 1, 4 of 4 + 1, 2 of 8 + 1
# (the kernels run every sample alike; 201 cost the numpy reference ~2.5 s of CPU at order 4)
@pytest.mark.parametrize("n_samples", [1, 5, 17])
def test_floating_base_matches_numpy_reference(floating_tree, kernel, order, n_samples):
    """The root's jet, the body-fixed pass with the root's wrench and the (6 + n) closed-form
    matrices of a floating base against numpy, with wrenches on a leaf, a root child and the
    root."""

    name, model = floating_tree
    t = np.linspace(0, 4, n_samples)
    qs = random_cosine(model, t, orders=order + 3, seed=43).derivatives
    base = random_base(n_samples, order + 2, seed=order)
    g = (0.4, -0.3, -9.81)
    jet = _root_jet(base, g, order + 1)
    key = (name, order, n_samples)

    def numpy(*what, fn, args):  # the same for every kernel variant: computed once a worker
        if key + what not in _NUMPY:
            _NUMPY[key + what] = reference(fn, *args)
        return _NUMPY[key + what]

    assert close(jet, numpy("jet", fn=_root_jet, args=(base, g, order + 1))), (name, kernel)
    child = int(np.flatnonzero(model.parent < 0)[-1])
    W = {model.n - 1: wrench_motion(t, order), child: wrench_motion(t + 1, order)}
    W0 = wrench_motion(t + 2, order)
    for wrenches in ({}, W):
        ours = _root_body_fixed(model, qs, base, g, wrenches, W0, order)
        ref = numpy("body-fixed", bool(wrenches), fn=_root_body_fixed,
                    args=(model, qs, base, g, wrenches, W0, order))
        for x, y in zip(ours, ref, strict=True):
            assert close(x, y), (name, kernel)
        for with_cbar in (True, False):
            E = _root_eom(model, qs, base, g, wrenches, W0, order, with_cbar)
            E_ref = numpy("eom", bool(wrenches), with_cbar, fn=_root_eom,
                          args=(model, qs, base, g, wrenches, W0, order, with_cbar))
            for field in ("M", "C", "Cbar", "g", "Q_ext"):
                a, b = getattr(E, field), getattr(E_ref, field)
                assert a.shape == b.shape == (n_samples, order + 1, model.n + 6, model.n + 6)[
                    : b.ndim]
                assert close(a, b), (name, field, kernel)


def test_kernels_read_the_samples_of_a_readers_chunk_in_place(lanes):
    """A reader's chunk holds t before each sample's derivatives: the kernels read the view
    (no copy: the wrapper passes its address and row stride) and give bit for bit what they
    give on a contiguous copy, on an odd sample count."""
    model = load_model(URDF / "iiwa14.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 13), orders=5)
    N, D, n = traj.derivatives.shape
    block = np.empty((N, 1 + D * n))
    block[:, 0] = traj.t
    block[:, 1:] = traj.derivatives.reshape(N, -1)
    view = block[:, 1:].reshape(N, D, n)
    assert not view.flags.c_contiguous and np.shares_memory(view, block)
    assert compiled._samples(model, view, 5)[2][1] == 1 + D * n  # the chunk's own rows
    base = np.zeros((1, 5, 6))
    base[0, 1, 5] = 9.81
    b = backends.current()
    calls = [
        lambda qs: b.inverse_dynamics(model, b.data(model), qs, base, {}, order=2),
        lambda qs: b.regressor(model, b.data(model), qs, base, 1),
        lambda qs: b.sensitivities(model, b.data(model), qs, base, {}, 1),
        lambda qs: b.partials(model, b.data(model), qs, base, {}, mass=True)[0],
        lambda qs: b.eom_matrices(model, b.data(model), qs, 1, base, {}, True).M,
    ]
    for call in calls:
        assert np.array_equal(call(view), call(np.ascontiguousarray(view)))
    # and each torque order comes back in one block (written as it is, without a copy)
    assert all(calls[0](view)[:, k].flags.c_contiguous for k in range(3))


def test_the_header_declares_every_entry_point_the_sources_define():
    """csrc/hodyn.h is the one declaration Python reads (backends/abi.py): every exported
    hodyn_* function the C sources define is declared there, and nothing else is."""
    import re

    csrc = Path(compiled.__file__).parent / "csrc"
    defined = {name for f in csrc.glob("*.c")
               for name in re.findall(r"^(?:int|const char \*)\s*(hodyn_\w+)\(", f.read_text(),
                                      re.M)}
    assert defined == set(compiled.ABI.entry_points), defined ^ set(compiled.ABI.entry_points)
    assert compiled.ABI.status[0] == "HK_OK" and compiled.ABI.max_order >= 4


# -- who runs what, and who makes the Data ---------------------------------------------------


def test_each_backend_says_which_operations_it_runs_itself():
    """``runs``: numpy's every operation; an operation the compiled backend lists is its own
    method (an entry point of csrc/), one it does not list numpy's, inherited; a GPU's those
    on the device. :func:`backends.runs` names who computes each for the backend that runs."""
    from hodyn_cli.algorithms.backends.gpu import GpuBackend
    from hodyn_cli.algorithms.backends.numpy import NumpyBackend

    assert NumpyBackend.runs == set(backends.OPERATIONS)
    for operation in backends.OPERATIONS:
        assert (operation in vars(compiled.CompiledBackend)) == \
            (operation in compiled.CompiledBackend.runs), operation
    assert GpuBackend.runs == {"inverse_dynamics", "inverse_dynamics_probes", "regressor"}
    with backends.use("numpy"):
        assert set(backends.runs().values()) == {"numpy"}
        assert sorted(backends.runs()) == sorted(backends.OPERATIONS)


def test_the_gpu_backend_hands_the_rest_to_its_cpu_backend_with_the_cpus_data():
    """Every operation the GPU backend does not run itself reaches its CPU backend, with the
    CPU backend's Data where it takes one (no ``__getattr__``: each a method that says so)."""
    from hodyn_cli.algorithms.backends.gpu import GpuBackend, GpuData

    calls = []

    class Recorder:
        def __getattr__(self, operation):
            return lambda *args, **kwargs: calls.append((operation, args)) or operation

    gpu_backend = GpuBackend.__new__(GpuBackend)   # no JAX needed: nothing reaches a device
    gpu_backend.cpu = Recorder()
    model = load_model(URDF / "planar_2r.urdf")
    data = GpuData(model, cpu=backends.load("numpy").data(model), device="cpu")
    without_model = {"root_jet": 4, "spd_solve": 2, "contact_share": 9,   # their arguments
                     "reach_controllable": 8, "reach_forward": 9, "reach_bounds": 8,
                     "banded_solve": 3,
                     "bspline": 5}
    for operation in sorted(set(backends.OPERATIONS) - GpuBackend.runs):
        chunk = tuple(range(without_model.get(operation, 1)))
        args = chunk if operation in without_model else (model, data, *chunk)
        assert getattr(gpu_backend, operation)(*args) == operation
        assert calls[-1] == (operation, chunk if operation in without_model
                             else (model, data.cpu, *chunk))


def test_a_job_makes_the_backends_data_once_for_all_its_chunks(monkeypatch):
    """The Data is made per request, not per chunk (and not kept by any cache): a job makes
    it on its first chunk and hands it to every one."""
    from hodyn_cli.pipeline.jobs import TorqueJob

    model = load_model(URDF / "planar_2r.urdf")
    traj = random_cosine(model, np.linspace(0, 1, 30), orders=4)
    whole = inverse_dynamics(model, traj, order=1)
    backend = backends.current()
    made = []
    make = type(backend).data
    monkeypatch.setattr(type(backend), "data", lambda self, m: made.append(m) or make(self, m))
    job = TorqueJob(model, order=1)
    for rows in (slice(0, 10), slice(10, 30)):
        out = job(Trajectory(traj.joint_names, traj.derivatives[rows]))
        assert np.array_equal(out["taud"], whole[rows, 1])
    assert made == [model]
