"""Shared fixtures: the bundled robots, analytic trajectories, a Pinocchio bridge."""

from __future__ import annotations

import getpass
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.modeling.urdf import load_model

# JAX's CPU backend (tests/test_gpu_backend.py runs the GPU backend's programs on it) compiles
# them 5-8x faster with its older fusion code and without LLVM's optimizations; the tests'
# blocks are tiny, so the slower code costs nothing. Read when JAX starts its backend. Each
# flag added once: an xdist worker inherits the controller's XLA_FLAGS and imports this file
# again, and the flags' text is part of a stored program's key, so doubled flags in the
# workers kept `-n auto` and `-n 0` runs from loading each other's programs
# (test_gpu_backend.py with test_backends' GPU case, -n 0 after a -n 2 run: 49 s of CPU,
# 15.7 s once a -n 0 run had stored its own)
_XLA = os.environ.get("XLA_FLAGS", "").split()
os.environ["XLA_FLAGS"] = " ".join(_XLA + [flag for flag in (
    "--xla_cpu_use_fusion_emitters=false", "--xla_backend_optimization_level=0")
    if flag not in _XLA])

# JAX's compiled programs (the GPU backend's, run on JAX's CPU device) in the temporary
# directory, not in ~/.cache/hodyn/jax, hodyn's place for a user's: the tests write nowhere
# else. Set on import, before the collection loads the backend (backend_params) and before
# any worker or command the tests start (they inherit it); one place for every run, so a
# rerun loads what the last one compiled (~18 s of CPU of the GPU tests' 42 s cold), as
# ~/.cache did (tests/test_gpu_backend.py keeps its own in pytest's cache where the
# cacheprovider runs). Every program kept, not only those that took over a second (JAX's
# default, hodyn's for a user): at the tests' optimization level most compile in less, and
# a rerun compiled them again (tests/test_gpu_backend.py without the cacheprovider: 21 s of
# CPU a rerun, 11 s with them kept).
JAX_PROGRAMS = Path(tempfile.gettempdir()) / f"hodyn-tests-jax-{getpass.getuser()}"
JAX_PROGRAMS.mkdir(mode=0o700, exist_ok=True)
os.environ["JAX_COMPILATION_CACHE_DIR"] = str(JAX_PROGRAMS)
os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"


def _click_command_once_per_app() -> None:
    """typer turns every command's signature into click's parameters each time an app is
    called or given to its CliRunner (``typer.main.get_command``: ~30 ms of CPU for hodyn's
    whole app, most of an in-process test's quick command), and the tests call the command
    line in process ~2000 times. Here it is made once per app: an app is known by what
    typer reads of it (its attributes, its registered commands and groups with their
    callbacks), and a click command holds nothing of a run (each run gets its own context),
    as in ``hodyn``, which makes it once per process too."""
    import typer.main
    import typer.testing

    made: dict[tuple, tuple] = {}
    build = typer.main.get_command

    def get_command(typer_instance):
        parts = sorted(vars(typer_instance).items())
        key = tuple((name, tuple((id(item), id(getattr(item, "callback", None)))
                                 for item in value) if isinstance(value, list) else id(value))
                    for name, value in parts)
        if key not in made:   # (parts kept: the objects whose ids make the key stay alive)
            made[key] = ([value for _, value in parts], build(typer_instance))
        return made[key][1]

    typer.main.get_command = get_command   # (typer's Typer.__call__ looks it up there)
    if hasattr(typer.testing, "_get_command"):   # (its CliRunner imported it by that name)
        typer.testing._get_command = get_command


_click_command_once_per_app()


ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "urdf"
SAMPLES = ROOT / "sample_trajectories"
ROBOTS = ["planar_2r", "iiwa14", "gripper_arm"]
METHODS = ["body-fixed", "spatial", "closed-form"]  # every method must pass every correctness test


@pytest.fixture(params=METHODS)
def method(request):
    """Name of each inverse-dynamics method."""
    return request.param


@pytest.fixture(params=ROBOTS)
def robot(request):
    """(name, urdf path, model) for every bundled robot."""
    path = URDF / f"{request.param}.urdf"
    return request.param, path, load_model(path)


def scaled_urdf(source: Path, folder: Path, length: float, mass: float = 1.0) -> Path:
    """The URDF ``source`` with every length times ``length`` (origins, boxes, prismatic
    joints' limits) and every mass times ``mass`` (inertias times mass length^2): the same
    robot in other units, whose motion in angles is the same (tests/test_*_scale.py), written
    to ``folder``."""
    import re

    def times(factor: float):
        return lambda m: " ".join(repr(float(v) * factor) for v in m.group(0).split())

    urdf = source.read_text()
    urdf = re.sub(r'(?<=<origin xyz=")[^"]+', times(length), urdf)
    urdf = re.sub(r'(?<=<box size=")[^"]+', times(length), urdf)
    urdf = re.sub(r'(?<=<mass value=")[^"]+', times(mass), urdf)
    urdf = re.sub(r'(?<=i[xyz][xyz]=")[^"]+', times(mass * length ** 2), urdf)
    urdf = re.sub(r'<joint [^>]*type="prismatic".*?</joint>', lambda j: re.sub(
        r'(?<=lower=")[^"]+|(?<=upper=")[^"]+', times(length), j.group(0)), urdf, flags=re.S)
    out = folder / f"{source.stem}_{length:g}_{mass:g}.urdf"
    out.write_text(urdf)
    return out


#: benchmarks/bench_optimal_rates.py's waypoints of its 7-joint arms' point-to-point paths
#: (``TURNS[:3]``): shares of each joint's position range about its middle
BENCH_TURNS = [[-0.3, 0.2, -0.2, 0.25, -0.2, 0.2, -0.1],
               [0.25, -0.15, 0.3, -0.2, 0.25, -0.2, 0.2],
               [-0.1, 0.25, -0.25, 0.1, -0.3, 0.1, -0.25]]


def bench_p2p(robot: str, seconds: float, limits_file: str):
    """bench_optimal_rates' point-to-point path of the bundled ``robot`` (through
    :data:`BENCH_TURNS`, legs of ``seconds`` at 100 Hz, q to q^(4)), its limits from
    ``limits_file`` and its law by reachability: (model, limits, output, Optimal)."""
    import hodyn_cli
    from hodyn_cli.algorithms.planning.generate import generate

    model = hodyn_cli.load_robot(str(URDF / f"{robot}.urdf"))
    low, high = model.limits[:, 0], model.limits[:, 1]
    middle, half = (low + high) / 2, np.minimum((high - low) / 2, np.pi)
    traj = generate(model, "point-to-point", waypoints=middle + half * np.array(BENCH_TURNS),
                    derivatives=4, segment_duration=seconds, rate=100.0)
    limits = hodyn_cli.joint_limits(model, URDF / limits_file)
    out, opt = hodyn_cli.retime_optimal(model, traj, limits=limits, solver="reachability")
    assert opt.used == "reachability"
    return model, limits, out, opt


@pytest.fixture(scope="module")
def iiwa_played():
    """The rounds' played law on the iiwa's Fourier path with its limits file (0.5 s, 200
    grid points; torque accelerations among them) and its limits at the grid points: (the
    grid, the law x, the limits) of tests/test_sequential*.py's programmes."""
    from test_rates import _iiwa_law

    from hodyn_cli.algorithms.limits import rates

    arc, law, at, rows, reach = _iiwa_law(seconds=0.5, points=200)
    kept = rates.kept(arc, law, at, rows, reach, lift=False)
    assert kept is not None and kept[0].played is not None
    x = kept[0].played
    return arc.sigma, x, at(0, len(x))


def imported_by(argv: list[str]) -> set[str]:
    """The modules ``hodyn ARGV`` imports in a fresh interpreter (numpy imported first:
    numpy 1.24 imports numpy.ma itself), asserting it exits 0: one run for every check of
    sys.modules that command is asked for."""
    import ast

    code = ("import sys, numpy\nEAGER = set(sys.modules)\n"
            "from hodyn_cli.cli.app import main\n"
            f"sys.argv = ['hodyn', *{argv!r}]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    print('EXIT', e.code)\n"
            "print('IMPORTED', sorted(set(sys.modules) - EAGER))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    last = run.stdout.strip().splitlines()[-2:]
    assert len(last) == 2 and last[0] == "EXIT 0" and last[1].startswith("IMPORTED "), \
        run.stdout[-300:] + run.stderr[-2000:]
    return set(ast.literal_eval(last[1].removeprefix("IMPORTED ")))


def assert_not_imported(argv: list[str], heavy: tuple[str, ...]) -> None:
    """``hodyn ARGV`` in a fresh interpreter exits 0 without importing any of ``heavy``: a
    check of sys.modules, not a timing."""
    imported = imported_by(argv)
    assert not [m for m in heavy if m in imported], [m for m in heavy if m in imported]


def random_cosine(model, t, orders: int, seed: int = 0) -> Trajectory:
    """A smooth motion with exact derivatives up to ``orders`` (amplitudes ~ joint type)."""
    rng = np.random.default_rng(seed)
    n = model.n
    scale = np.array([0.05 if ty == "prismatic" else 1.0 for ty in model.joint_types])
    return cosine(model.joint_names, t, amplitude=scale * rng.uniform(0.3, 1.0, n),
                  omega=rng.uniform(0.5, 2.5, n), phase=rng.uniform(0, 2 * np.pi, n),
                  offset=scale * rng.uniform(-0.5, 0.5, n), orders=orders)


def pinocchio_model(path: Path, model):
    """(pin module, pin model, data, order): ``order[k]`` = hodyn index of pin's joint k+1."""
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromUrdf(str(path))
    order = [model.joint_index(pm.names[j]) for j in range(1, pm.njoints)]
    return pin, pm, pm.createData(), order


def pin_configuration(pm, order, q_row: np.ndarray, first: int = 1) -> np.ndarray:
    """Pinocchio's q for hodyn joint values (continuous joints are (cos, sin) in pin);
    ``first``: pin's first joint that is a hodyn joint (2 after a free-flyer root)."""
    q = []
    for j, k in zip(range(first, pm.njoints), order, strict=True):
        q += [np.cos(q_row[k]), np.sin(q_row[k])] if pm.joints[j].nq == 2 else [q_row[k]]
    return np.array(q)


def pinocchio_reference(path: Path, model, traj: Trajectory, fext=None):
    """tau = pin.rnea and taud = dtau_dq qd + dtau_dv qdd + M qddd, in hodyn's joint order."""
    pin, pm, data, order = pinocchio_model(path, model)
    tau, taud = np.empty_like(traj.q), np.empty_like(traj.q)
    for s in range(traj.n_samples):
        q = pin_configuration(pm, order, traj.q[s])
        v, a, jerk = traj.qd[s, order], traj.qdd[s, order], traj.qddd[s, order]
        forces = None if fext is None else fext(pin, pm, data, q, s)
        tau[s, order] = (pin.rnea(pm, data, q, v, a) if forces is None
                         else pin.rnea(pm, data, q, v, a, forces))
        pin.computeRNEADerivatives(pm, data, q, v, a)
        M = np.triu(data.M) + np.triu(data.M, 1).T
        taud[s, order] = data.dtau_dq @ v + data.dtau_dv @ a + M @ jerk
    return tau, taud


def wrench_motion(t, orders):
    """A wrench with exact time derivatives: W_c(t) = w_c sin(nu_c t + phi_c)."""
    w = np.array([0.5, -1.0, 0.3, 4.0, -2.0, 7.0])
    nu = np.array([1.0, 1.5, 2.0, 0.7, 1.2, 0.9])
    phi = np.arange(6.0)
    k = np.arange(orders + 1)[:, None]
    return w * nu ** k * np.sin(nu * t[:, None, None] + phi + k * np.pi / 2)


#: 8th-order central differences on 9 points spaced h: first and second derivative (/h, /h^2)
STENCIL = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0.0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])
STENCIL2 = np.array([-1 / 560, 8 / 315, -1 / 5, 8 / 5, -205 / 72, 8 / 5, -1 / 5, 8 / 315, -1 / 560])


def stencil_derivative(f: np.ndarray, h: float) -> np.ndarray:
    """8th-order central difference at the middle of 9 samples spaced h (axis 0 of f)."""
    return np.tensordot(STENCIL, f, axes=(0, 0)) / h


def stencil_times(t0, h: float) -> np.ndarray:
    """The 9 stencil points around each of the times t0, flattened (len(t0) * 9,)."""
    return (np.asarray(t0, dtype=float)[:, None] + np.arange(-4, 5) * h).ravel()


def assert_rates(x: np.ndarray, h: float, rtol: float, label: str) -> None:
    """Each derivative order of x (len(t0) * 9, K+1, ...), sampled at :func:`stencil_times`,
    against the stencil of the order below, at every centre point."""
    x = x.reshape(-1, 9, *x.shape[1:])
    for k in range(1, x.shape[2]):
        numeric = np.tensordot(STENCIL, x[:, :, k - 1], axes=(0, 1)) / h
        scale = np.abs(x[:, 4, k]).max()
        assert scale > 1e-6, f"{label} order {k} not excited"
        err = np.abs(x[:, 4, k] - numeric).max()
        assert err <= rtol * scale, f"{label} order {k}: {err:.3g} vs scale {scale:.3g}"


TYPES = ["revolute", "continuous", "prismatic", "fixed"]


def _vec(rng, scale):
    return " ".join(f"{v:.6f}" for v in rng.uniform(-scale, scale, 3))


def random_inertial(rng) -> str:
    """An ``<inertial>`` of a box (principal moments obey the triangle inequality), with an
    offset COM and rotated axes."""
    m = rng.uniform(0.2, 3.0)
    L = rng.uniform(0.05, 0.3, 3)
    I = m / 12 * np.array([L[1]**2 + L[2]**2, L[0]**2 + L[2]**2, L[0]**2 + L[1]**2])
    return (f'<inertial><origin xyz="{_vec(rng, 0.1)}" rpy="{_vec(rng, 3.0)}"/><mass value="{m:.6f}"/>'
            f'<inertia ixx="{I[0]:.8f}" ixy="0" ixz="0" iyy="{I[1]:.8f}" iyz="0" '
            f'izz="{I[2]:.8f}"/></inertial>')


def random_urdf(seed: int, n_links: int = 14) -> str:
    """A random tree of every joint type, fixed joints in chains and at branches, tilted
    axes, offset inertias; the root link l0 has no mass."""
    rng = np.random.default_rng(seed)
    parts = ['<robot name="random">', '<link name="l0"/>']
    for k in range(1, n_links):
        parent = int(rng.integers(0, k))
        kind = TYPES[int(rng.integers(0, 4))] if k > 1 else "revolute"
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        limit = ('<limit lower="-0.3" upper="0.3" effort="1" velocity="1"/>' if kind == "prismatic"
                 else '<limit lower="-3" upper="3" effort="1" velocity="1"/>')
        parts.append(f'<link name="l{k}">{random_inertial(rng) if rng.uniform() < 0.9 else ""}</link>')
        parts.append(f'<joint name="j{k}" type="{kind}"><parent link="l{parent}"/>'
                     f'<child link="l{k}"/><origin xyz="{_vec(rng, 0.3)}" rpy="{_vec(rng, 3.0)}"/>'
                     f'<axis xyz="{" ".join(f"{a:.6f}" for a in axis)}"/>{limit}</joint>')
    parts.append("</robot>")
    return "\n".join(parts)


#: limbs of legged robots: (attachment on the parent, joint axes down the chain, sub-limbs)
_LEG = "xyy"  # hip abduction, hip flexion, knee
_HUMANOID_LEG, _ARM, _NECK = "zxyyyx", "yxzyzyx", "zy"
LEGGED = {
    "solo": [((sx * 0.2, sy * 0.1, 0.0), _LEG, []) for sx in (1, -1) for sy in (1, -1)],
    "talos": [((0.0, 0.08, -0.1), _HUMANOID_LEG, []), ((0.0, -0.08, -0.1), _HUMANOID_LEG, []),
              ((0.0, 0.0, 0.1), "zy", [((0.0, 0.2, 0.3), _ARM, []), ((0.0, -0.2, 0.3), _ARM, []),
                                       ((0.0, 0.0, 0.4), _NECK, [])])],
}


def legged_urdf(kind: str, seed: int = 0) -> str:
    """A Solo-like quadruped (4 legs of 3 joints) or Talos-like humanoid (legs of 6, a torso
    of 2 carrying two arms of 7 and a neck of 2): a massive root ``base_link`` with a welded
    IMU, limbs of revolute joints along tilted principal axes, random box inertias, a welded
    foot or hand (link ``<limb>_end``) at the end of each chain."""
    rng = np.random.default_rng(seed)
    axes = {"x": np.array([1.0, 0, 0]), "y": np.array([0, 1.0, 0]), "z": np.array([0, 0, 1.0])}
    parts = [f'<robot name="{kind}">', f'<link name="base_link">{random_inertial(rng)}</link>',
             f'<link name="imu">{random_inertial(rng)}</link>',
             '<joint name="imu_joint" type="fixed"><parent link="base_link"/><child link="imu"/>'
             f'<origin xyz="{_vec(rng, 0.05)}" rpy="{_vec(rng, 0.5)}"/></joint>']
    count = [0]

    def limb(parent: str, at, chain: str, subs) -> None:
        name = f"limb{count[0]}"
        count[0] += 1
        for k, a in enumerate(chain):
            link = f"{name}_{k}"
            xyz = at if k == 0 else (0.0, 0.0, -0.15)
            axis = axes[a] + rng.uniform(-0.1, 0.1, 3)
            axis /= np.linalg.norm(axis)
            parts.append(f'<link name="{link}">{random_inertial(rng)}</link>')
            parts.append(f'<joint name="{link}_joint" type="revolute"><parent link="{parent}"/>'
                         f'<child link="{link}"/><origin xyz="{" ".join(f"{v:.6f}" for v in xyz)}" '
                         f'rpy="{_vec(rng, 0.2)}"/><axis xyz="{" ".join(f"{v:.6f}" for v in axis)}"/>'
                         '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>')
            parent = link
        parts.append(f'<link name="{name}_end">{random_inertial(rng)}</link>')
        parts.append(f'<joint name="{name}_end_joint" type="fixed"><parent link="{parent}"/>'
                     f'<child link="{name}_end"/><origin xyz="0 0 -0.1" rpy="{_vec(rng, 0.3)}"/></joint>')
        for sub in subs:
            limb(parent, *sub)

    for spec in LEGGED[kind]:
        limb("base_link", *spec)
    parts.append("</robot>")
    return "\n".join(parts)


def with_virtual_base(text: str, root: str) -> str:
    """The URDF with its root link carried by a massless 6-joint chain from a new root
    ``fb_world``: prismatic x, y, z, then revolute z, y, x (joints ``fb_*``, first in joint
    order). Driving that chain moves the root like a floating base, in a fixed-base model."""
    links = ["fb_world", "fb_1", "fb_2", "fb_3", "fb_4", "fb_5", root]
    chain = []
    for k, (name, axis) in enumerate(zip(["fb_px", "fb_py", "fb_pz", "fb_rz", "fb_ry", "fb_rx"],
                                         ["1 0 0", "0 1 0", "0 0 1", "0 0 1", "0 1 0", "1 0 0"],
                                         strict=True)):
        chain.append(f'<link name="{links[k]}"/>')
        chain.append(f'<joint name="{name}" type="{"prismatic" if k < 3 else "continuous"}">'
                     f'<parent link="{links[k]}"/><child link="{links[k + 1]}"/>'
                     f'<axis xyz="{axis}"/><limit lower="-9" upper="9" effort="1" velocity="1"/></joint>')
    return text.replace("</robot>", "\n".join(chain) + "\n</robot>")


#: hodyn's (angular; linear) screw components in Pinocchio's (linear; angular) order
LINEAR_FIRST = [3, 4, 5, 0, 1, 2]


def pinocchio_free_flyer(path: Path, model):
    """(pin, pin model with a free-flyer root, data, order): ``order[k]`` = hodyn index of
    pin's joint k+2 (joint 1 is the free flyer)."""
    pin = pytest.importorskip("pinocchio")
    pm = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    order = [model.joint_index(pm.names[j]) for j in range(2, pm.njoints)]
    return pin, pm, pm.createData(), order


def free_flyer_q(pin, pm, order, R: np.ndarray, p: np.ndarray, q_row: np.ndarray) -> np.ndarray:
    """Pinocchio's q: root position, quaternion (x, y, z, w) of R, joint values."""
    return np.concatenate([p, pin.Quaternion(R).coeffs(), pin_configuration(pm, order, q_row, 2)])


def free_flyer_rate(order, Vb_row: np.ndarray, qd_row: np.ndarray) -> np.ndarray:
    """Pinocchio's v (or a, ...): the root's body twist (linear; angular), joint rates."""
    return np.concatenate([Vb_row[LINEAR_FIRST], qd_row[order]])


def floating_motion(text: str, model, t, base_orders: int, seed: int = 0):
    """An analytic floating-base motion of the robot (URDF ``text``, built as ``model``):
    cosines drive the joints of :func:`with_virtual_base`; returns ``(trajectory of the
    robot's joints with its base, that BaseMotion of its root with Vb to order
    base_orders - 1, the fixed-base model with the virtual chain, its trajectory)``. Joint
    derivatives to base_orders + 2."""
    from hodyn_cli.algorithms.motion.kinematics import link_kinematics
    from hodyn_cli.core.trajectory import BaseMotion
    from hodyn_cli.modeling.urdf import parse_model

    ext = parse_model(with_virtual_base(text, model.root_link).encode())
    assert ext.joint_names[6:] == model.joint_names
    ext_traj = random_cosine(ext, t, orders=base_orders + 2, seed=seed)
    lk = link_kinematics(ext, ext_traj, model.root_link, order=base_orders - 1)
    base = BaseMotion(lk.R, lk.p, lk.Vb)
    return Trajectory(model.joint_names, ext_traj.derivatives[:, :, 6:], ext_traj.t, base=base), \
        base, ext, ext_traj


MIMIC_CASES = {  # robot, dependent joint, leader, multiplier, offset
    "gripper fingers": ("gripper_arm", "finger_right_joint", "finger_left_joint", 1.0, 0.0),
    "iiwa 3 follows 1": ("iiwa14", "iiwa_joint_3", "iiwa_joint_1", -0.5, 0.2),
}


def mimic_urdf(tmp_path, robot, dependent, leader, gain, offset):
    text = (URDF / f"{robot}.urdf").read_text()
    tag = f'<joint name="{dependent}"'
    i = text.index(tag)
    j = text.index("</joint>", i)
    text = (text[:j] + f'<mimic joint="{leader}" multiplier="{gain}" offset="{offset}"/>'
            + text[j:])
    path = tmp_path / f"{robot}_mimic.urdf"
    path.write_text(text)
    return path


def massless_flange_urdf(tmp_path) -> Path:
    """The planar 2R arm (point masses at its links' ends) whose massless tool flange
    ``tool0`` turns on a revolute joint ``tool_joint`` of its own: that joint moves no
    inertia, M_jj = 0, M is singular at every state (as example-robot-data's Romeo's
    hands)."""
    path = tmp_path / "flange.urdf"
    path.write_text((URDF / "planar_2r.urdf").read_text().replace(
        '<joint name="tool_joint" type="fixed">',
        '<joint name="tool_joint" type="revolute"><axis xyz="1 0 0"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/>'))
    return path


#: runs hodyn and prints its own peak RSS at exit: VmHWM of the process's memory after exec
#: (``ru_maxrss`` of a child would include the pages of this big test process at fork)
PEAK = ("import atexit, sys\n"
        "def peak():\n"
        "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
        "    sys.stderr.write('PEAK ' + hwm.split()[1] + '\\n')\n"
        "atexit.register(peak)\n"
        "from hodyn_cli.cli.app import main\n"
        "sys.argv = ['hodyn'] + sys.argv[1:]\n"
        "main()\n")


def hodyn_here(*args, input: str | bytes | None = None, env: dict[str, str | None] | None = None
               ) -> subprocess.CompletedProcess:
    """``hodyn args`` run in this process as ``python -m hodyn_cli`` runs it (the exit
    status of :func:`hodyn_cli.cli.errors.run` on the app of that one command, stdout and
    stderr apart, ``input`` on stdin, ``env`` set meanwhile, None unsetting): a test of what a command
    prints, writes or exits with need not pay a Python start and the library's imports
    (~0.5 s of CPU a command). Tests of the process itself (signals, pipes, tracebacks of a
    real exit, imports at start) run ``sys.executable -m hodyn_cli``. An exception the
    command line does not map reaches the test, as an internal error would fail it."""
    from typer.testing import CliRunner

    # (app: every command registered, in --help's order, before ``only`` imports one's module
    # first: the order commands register in is the order their modules were imported in)
    from hodyn_cli.cli.app import app, only
    from hodyn_cli.cli.errors import run

    assert app.registered_commands

    argv = [str(a) for a in args]
    try:  # click < 8.2 (typer 0.15's): stderr apart only when asked, (stdout, stderr)
        runner = CliRunner(mix_stderr=False)
    except TypeError:  # click >= 8.2, typer's own copy: always apart, (stdout, stderr, both)
        runner = CliRunner()
    with runner.isolation(input=input, env=env) as (out, err, *_):
        code = run(only(argv[:1]), argv)
        sys.stdout.flush()
        sys.stderr.flush()
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode("utf-8", "replace")
    return subprocess.CompletedProcess(["hodyn", *argv], code, stdout, stderr)


def threads_started_since(before: set[threading.Thread]) -> list[threading.Thread]:
    """The threads alive now that were not in ``before`` (``set(threading.enumerate())``
    taken earlier): what a run left behind. Not ``threading.active_count()``: a thread of an
    earlier test in the same worker (a Timer's, a Dask client's) that ends meanwhile made
    the count differ with no thread of the run left."""
    return [t for t in threading.enumerate() if t not in before]


def peak_rss_mib(args, *, with_stderr: bool = False):
    """hodyn ``args`` in a child process: its peak RSS (MiB), and its stderr if asked."""
    proc = subprocess.run([sys.executable, "-c", PEAK, *args], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 0, proc.stderr
    rss = int(proc.stderr.split("PEAK ")[-1].split()[0]) / 1024
    return (rss, proc.stderr) if with_stderr else rss


def kernel_variants() -> list:
    """Every compiled kernel variant (lane width) this machine runs; none where the kernel
    is disabled (``HODYN_NO_KERNEL``) or not built."""
    import os

    from hodyn_cli.algorithms.backends import compiled

    return [] if os.environ.get("HODYN_NO_KERNEL") else compiled.variants()


#: backends other than numpy and compiled the parity tests run where they load, with the
#: options that make them run here (e.g. a GPU backend on the CPU) and the module they need
TEST_BACKENDS: list[tuple[str, dict, str]] = [("gpu", {"device": "cpu"}, "jax")]


def backend_params() -> list:
    """Every backend this machine runs besides the numpy reference: each compiled kernel
    variant (lane width), and the other registered backends whose module is installed (one
    that does not load all the same is skipped by :func:`backend`). Not loaded here: the
    GPU backend's load imports JAX and starts its CPU device (~1.3 s of CPU), in each
    worker of ``pytest -n`` as it collects, where only the one that runs its tests needs it."""
    import importlib.util
    import os

    params = [pytest.param(("compiled", {"variant": v}), id=f"compiled-{v}")
              for v in kernel_variants()]
    for name, options, module in [] if os.environ.get("HODYN_NO_KERNEL") else TEST_BACKENDS:
        if importlib.util.find_spec(module) is not None:
            params.append(pytest.param((name, options), id=name))
    return params


def pytest_generate_tests(metafunc):
    """The tests of :func:`backend`, once per backend of :func:`backend_params`: listed as
    the tests are collected, not when this file is imported, which the controller of a
    ``pytest -n`` run does too, where no test runs."""
    named = {name.strip() for mark in metafunc.definition.iter_markers("parametrize")
             for name in (mark.args[0].split(",") if isinstance(mark.args[0], str)
                          else mark.args[0])}
    if "backend" in metafunc.fixturenames and "backend" not in named:  # (not a test's own)
        metafunc.parametrize("backend", backend_params() or [
            pytest.param(None, marks=pytest.mark.skip(reason="no backend besides numpy"))],
            indirect=True)


@pytest.fixture
def backend(request):
    """Runs the test once per backend besides numpy's reference (current inside): its
    parameters are :func:`pytest_generate_tests`'s; one that does not load here is skipped,
    saying why."""
    from hodyn_cli.algorithms import backends

    name, options = request.param
    try:
        backends.load(name, **options)
    except (backends.Unavailable, ImportError) as e:
        pytest.skip(f"the {name} backend does not load here: {e}")
    with backends.use(name, **options) as b:
        yield b


@pytest.fixture(params=kernel_variants() or [
    pytest.param(None, marks=pytest.mark.skip(reason="no compiled kernel"))])
def kernel(request):
    """Runs the test once per compiled kernel variant (current inside), for the wide
    sweeps (the GPU backend's own tests sweep it: tests/test_gpu_backend.py)."""
    from hodyn_cli.algorithms import backends

    with backends.use("compiled", variant=request.param) as b:
        yield b


@pytest.fixture(params=kernel_variants() or [
    pytest.param(None, marks=pytest.mark.skip(reason="no compiled kernel"))])
def lanes(request):
    """Runs the test once per kernel variant (current inside); the value is its lane width."""
    from hodyn_cli.algorithms import backends

    with backends.use("compiled", variant=request.param) as b:
        yield b.details["lanes"]


def reference(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` computed by the numpy backend (the reference)."""
    from hodyn_cli.algorithms import backends

    with backends.use("numpy"):
        return fn(*args, **kwargs)


@pytest.fixture
def fresh_backends():
    """The backend chosen afresh from the environment inside the test, and again after it."""
    from hodyn_cli.algorithms import backends

    backends.reset()
    yield backends
    backends.reset()


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    """A test module whose text has no ``>>>`` is not searched for doctests (it has none):
    ``--doctest-modules`` searched every one of the ~215 here, in every worker of ``pytest
    -n`` (~0.9 s of CPU a worker). Those with doctests (tests/forked_hodyn.py,
    tests/test_documented_commands.py, ...) are, as before."""
    from _pytest.doctest import DoctestModule

    collected = yield
    if file_path.suffix == ".py" and ">>>" not in file_path.read_text(encoding="utf-8"):
        collected = [node for node in collected if not isinstance(node, DoctestModule)]
    return collected


def pytest_collection_modifyitems(items):
    """The long tests first (slow ones, the documented commands' scripts): on several workers
    (pytest -n) they then run beside the many short ones instead of after them, which would
    leave one worker busy alone at the end."""
    def short(item) -> tuple[bool, bool]:
        return (item.get_closest_marker("slow") is None,
                item.path.name != "test_documented_commands.py")

    items.sort(key=short)  # stable: otherwise as collected


def without_G_rates(monkeypatch) -> None:
    """Closed loops' G with its derivatives G', G'', ... dropped (a wrong projection the
    loops' tests must catch): the jets of P J along the motion, which G's and the
    projection's derivatives come from, with J', J'', ... dropped."""
    from hodyn_cli.algorithms.motion.loops import Closed

    rigid = Closed._along

    def frozen(self, full, K, **options):
        J = rigid(self, full, K, **options).copy()
        J[:, 1:] = 0.0
        return J

    monkeypatch.setattr(Closed, "_along", frozen)


@pytest.fixture(scope="module")
def iiwa_cosine(tmp_path_factory):
    """The iiwa's cosine motion, 1 s at 20 Hz, q .. q^(4) (HDF5): a cheap input of
    ``retime --optimal``."""
    from typer.testing import CliRunner

    from hodyn_cli.cli.app import app

    path = tmp_path_factory.mktemp("paths") / "cosine.h5"
    res = CliRunner().invoke(app, ["generate", str(URDF / "iiwa14.urdf"), "--kind", "cosine",
                                   "--duration", "1", "--rate", "20", "-o", str(path)])
    assert res.exit_code == 0, res.output
    return path


def made_once(tmp_path_factory, key: str, make: Callable[[Path], None]) -> Path:
    """A folder that ``make`` fills once per test run, whatever the number of pytest-xdist
    workers: the first worker to ask makes it under a lock, the others wait and share it
    (read it, never write to it). Each worker made its own: a set-up that several workers'
    tests need (the documented commands' Talos walk, 4.6 s of CPU) ran on each. Without
    ``fcntl`` (Windows), once per worker."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        fcntl = None
    root = tmp_path_factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    # (the run's folder, above each popen worker's own RUN/popen-gw0 ...; a remote worker's
    # base is a numbered folder of its own, whose parent outlives the run: a set-up an
    # earlier run made there would be taken as made)
    if fcntl is not None and worker and root.name == f"popen-{worker}":
        root = root.parent
    name = "once-" + hashlib.sha256(key.encode()).hexdigest()[:16]
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (root / f"{name}.made").exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left
            folder.mkdir()
            make(folder)
            (root / f"{name}.made").touch()
    return folder


def optimal_notice(res, traj) -> str:
    """The ``hodyn: notice: TRAJ: ... along its path ...`` line of a retime run that passed."""
    assert res.exit_code == 0, res.output
    return next(line for line in res.output.splitlines()
                if line.startswith(f"hodyn: notice: {traj}:") and "along its path" in line)


def toppra_torque(model, band: np.ndarray, discretization: str = "Interpolation", **dynamics):
    """toppra's ``JointTorqueConstraint`` within ``band`` (n, 2) on hodyn's inverse dynamics
    (``dynamics``: its gravity), no dry friction: toppra's own constraint, whose three sweeps
    of the dynamics over the grid (tau(q, 0, 0), tau(q, 0, q'), tau(q, q', q'')) are made
    batched before toppra asks for them one grid point at a time (3 calls a point: on the
    iiwa's 4000 points, 10 of a toppra run's 13 s of CPU). A call for another state (none
    where toppra is unchanged) is computed as asked."""
    import toppra.constraint as constraint

    import hodyn_cli

    def tau(q, qd, qdd):
        return hodyn_cli.inverse_dynamics(model, q, qd, qdd, order=0, **dynamics).tau

    class Batched(constraint.JointTorqueConstraint):
        def compute_constraint_params(self, path, gridpoints):
            p, ps, pss = path.eval(gridpoints), path.evald(gridpoints), path.evaldd(gridpoints)
            zero = np.zeros_like(p)
            known = {}
            for qd, qdd in ((zero, zero), (zero, ps), (ps, pss)):
                known |= {(a.tobytes(), b.tobytes(), c.tobytes()): row for a, b, c, row
                          in zip(p, qd, qdd, tau(p, qd, qdd), strict=True)}

            def lookup(q, qd, qdd):
                row = known.get((q.tobytes(), qd.tobytes(), qdd.tobytes()))
                return tau(q, qd, qdd) if row is None else row

            self.inv_dyn = lookup
            return super().compute_constraint_params(path, gridpoints)

    return Batched(tau, band, np.zeros(len(band)),
                   getattr(constraint.DiscretizationType, discretization))
