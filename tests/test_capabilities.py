"""The table of what combines (hodyn_cli/capabilities.py) walked on the command line: every
cell it says a command takes runs on a small robot, every refusal and requirement it
declares is the one line it declares (exit 2, nothing written), its options are the
commands' options, and docs/capabilities.md is the table."""

from __future__ import annotations

import csv
import shutil
from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import ROOT, SAMPLES, URDF, mimic_urdf
from hodyn_cli import api, capabilities
from hodyn_cli.capabilities import COMMANDS, FEATURES, RULES, Excludes, Requires
from hodyn_cli.cli.app import app
from hodyn_cli.cli.flags import FLAGS
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import BaseMotion, Trajectory, Wrenches
from hodyn_cli.io import open_sink, read_trajectory, trajectory_datasets, write_trajectory
from hodyn_cli.io.results import base_datasets, derivative_columns
from hodyn_cli.modeling.urdf import load_model

#: feature -> the command-line option that turns it on (robot properties have none)
OPTION = {"floating_base": "--floating-base", "contacts": "--contacts", "drives": "--drives",
          "wrench": "--wrench", "joint_wrenches": "--joint-wrenches",
          "base_wrench": "--base-wrench", "method": "--method", "many": "--output-dir",
          "estimate": "--estimate-derivatives", "validate": "--validate",
          "state_derivatives": "--state-derivatives",
          "parameter_derivatives": "--parameter-derivatives", "slotine_li": "--slotine-li",
          "friction": "--friction", "simulate": "--simulate", "torques": "--torques",
          "sim_rtol": "--sim-rtol", "torque_rtol": "--torque-rtol", "optimal": "--optimal",
          "to_limits": "--to-limits", "factor": "--factor", "segments": "--segments",
          "respect_limits": "--respect-limits", "cutoff": "--cutoff",
          "base_motion": "--base-motion", "jacobian": "--jacobian", "link": "--link",
          "gpu": "--backend", "loops": "--loops", "drives_output": "--drives-output"}
EE = "iiwa_link_ee"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_the_docs_page_is_the_table():
    assert (ROOT / "docs" / "capabilities.md").read_text() == capabilities.markdown(FLAGS)


def test_a_python_caller_hears_the_apis_words_the_command_line_its_options():
    """The same refusal: in the API's words from a Python call (no command-line flag in it),
    in the options' words on the command line."""
    motion = read_trajectory(str(SAMPLES / "iiwa14_cosine.csv"), load_model(URDF / "iiwa14.urdf"),
                             need=4)
    N = motion.n_samples
    free = replace(motion, base=BaseMotion(np.broadcast_to(np.eye(3), (N, 3, 3)), np.zeros((N, 3)),
                                           np.zeros((N, 4, 6))))
    with pytest.raises(capabilities.Unsupported) as refused:
        api.matrices(api.load_robot(URDF / "iiwa14.urdf"), free, state_derivatives=True)
    assert str(refused.value) == ("a floating base (a motion with a base) does not go with "
                                  "state derivatives yet")
    result = run("compute", URDF / "iiwa14.urdf", SAMPLES / "iiwa14_cosine.csv", "--drives",
                 URDF / "iiwa14_motors.toml", "--method", "spatial")
    assert result.exit_code == 2
    assert result.stderr == ("hodyn: error: --drives does not go with --method "
                             "spatial|closed-form yet (the rotors' reactions are terms of the "
                             "body-fixed recursion)\n")


@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_tables_options_are_the_commands(command):
    """A feature with an option is in the table's row of a command iff the command has it
    (elastic's --drives and ik's --link are required)."""
    import typer

    group = typer.main.get_command(app)
    flags = {opt for param in group.commands[command].params for opt in param.opts}
    for feature, option in OPTION.items():
        if feature == "elastic" or (command, feature) in (("elastic", "drives"), ("ik", "link")):
            continue  # (required options, not features to turn on)
        assert (option in flags) == (feature in COMMANDS[command]), (command, feature)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Small inputs for every feature: the iiwa (20 samples, q to its 6th derivative, the
    Slotine-Li references, torques for forward), a mimic arm, the quadruped on its feet
    (base columns, and the base motion in a file of its own), drives, limits, a wrench."""
    d = tmp_path_factory.mktemp("capabilities")
    iiwa = load_model(URDF / "iiwa14.urdf")
    traj = read_trajectory(str(SAMPLES / "iiwa14_cosine.h5"), iiwa, need=7)
    short = Trajectory(traj.joint_names, traj.derivatives[:20], traj.t[:20])
    high = read_trajectory(str(SAMPLES / "iiwa14_cosine_high.h5"), iiwa, need=12)
    write_trajectory(str(d / "high.h5"), Trajectory(high.joint_names, high.derivatives[:20],
                                                     high.t[:20]), compact=True)
    data, columns = trajectory_datasets(short)
    N = short.n_samples
    refs = {"qr_d": short.qd, "qr_dd": short.qdd}
    tau = api.inverse_dynamics(iiwa, short, order=1)
    with open_sink(str(d / "iiwa.h5"), {}, {"joint_names": list(iiwa.joint_names)},
                   rows=N) as sink:
        sink.write(data | refs)
    with open_sink(str(d / "iiwa2.h5"), {}, {"joint_names": list(iiwa.joint_names)},
                   rows=N) as sink:
        sink.write(data)
    with open_sink(str(d / "tau.h5"), {}, {"joint_names": list(iiwa.joint_names)},
                   rows=N) as sink:
        sink.write({"t": short.t, "q": short.q, "qd": short.qd, "tau": tau.tau,
                    "taud": tau.taud})
    with open(d / "w.csv", "w", newline="") as f:
        names = [f"W{'d' * k}_{EE}_{c}" for k in range(11)
                 for c in ("mx", "my", "mz", "fx", "fy", "fz")]
        writer = csv.writer(f)
        writer.writerow(["t", *names])
        for t in short.t:
            writer.writerow([t, *np.r_[0.0, 0.0, 0.1, 0.0, 0.0, 2.0, np.zeros(60)]])
    kin = api.forward_kinematics(iiwa, EE, short, order=3)
    with open_sink(str(d / "ee.h5"), {}, {}, rows=N) as sink:
        sink.write({"t": short.t} | dict(kin))
    mimic = mimic_urdf(d, "gripper_arm", "finger_right_joint", "finger_left_joint", 1, 0)
    (d / "iiwa_floating.urdf").write_text((URDF / "iiwa14.urdf").read_text().replace(
        '<joint name="iiwa_joint_7" type="revolute">', '<joint name="iiwa_joint_7" type="floating">'))
    (d / "mimic_floating.urdf").write_text(mimic.read_text().replace(   # a free wrist, a mimic
        '<joint name="wrist_roll" type="continuous">', '<joint name="wrist_roll" type="floating">'))
    floating = load_model(d / "iiwa_floating.urdf")   # its last joint free: 6 + 6 DOF
    write_trajectory(str(d / "iiwa_floating.csv"), Trajectory(
        floating.dof_names, 0.3 * np.random.default_rng(1).normal(size=(20, 5, floating.nv)),
        np.arange(20) * 0.01), model=floating)
    # forward's input: that motion's columns and its torques (tau_<dof>)
    motion = read_trajectory(str(d / "iiwa_floating.csv"), floating, need=3)
    tau = api.inverse_dynamics(floating, motion, order=0).tau
    rows = (d / "iiwa_floating.csv").read_text().splitlines()
    (d / "iiwa_floating_tau.csv").write_text("\n".join(
        [rows[0] + "".join(f",tau_{c}" for c in floating.dof_names)]
        + [row + "".join(f",{float(x)!r}" for x in t)
           for row, t in zip(rows[1:], tau, strict=True)])
        + "\n")
    arm = load_model(mimic)
    t = np.linspace(0, 0.2, 21)
    qs = np.zeros((t.size, 7, len(arm.coordinate_names)))
    qs[:, 0] = 0.01
    qs[:, 0, 0] += 0.1 * np.sin(3 * t)
    motion = Trajectory(arm.coordinate_names, qs, t)
    data, columns = trajectory_datasets(motion)
    with open_sink(str(d / "mimic.h5"), {}, {"joint_names": list(arm.coordinate_names)},
                   rows=t.size) as sink:
        sink.write(data)
    tau = api.inverse_dynamics(arm, motion, order=1)
    with open_sink(str(d / "mimic_tau.h5"), {}, {"joint_names": list(arm.coordinate_names)},
                   rows=t.size) as sink:
        sink.write({"t": t, "q": qs[:, 0], "qd": qs[:, 1], "tau": tau.tau, "taud": tau.taud})
    motors = api.read_drives(iiwa, URDF / "iiwa14_motors.toml")
    for name, robot in (("ident", iiwa), ("ident_mimic", arm), ("ident_drives", iiwa)):
        design = next(api.design_motion(robot, "fourier", duration=2.0, rate=100,
                                        derivatives=2).chunks)
        data, columns = trajectory_datasets(design)
        # identify's logs: the joint torques, or the motors' referred to the joints (--drives:
        # a log its friction columns fit, which the consistent solver settles in a few steps)
        tau = api.inverse_dynamics(robot, design, order=0).tau if name != "ident_drives" else \
            motors.gear_ratio * motors.gear_efficiency * api.drive_dynamics(
                robot, motors, design, order=0).taum
        with open_sink(str(d / f"{name}.h5"), {}, {"joint_names": list(design.joint_names)},
                       rows=design.n_samples) as sink:
            sink.write(data | {"tau": tau})
    design = next(api.design_motion(iiwa, "fourier", duration=2.0, rate=100,   # with taud
                                    derivatives=3).chunks)
    data, columns = trajectory_datasets(design)
    rates = api.inverse_dynamics(iiwa, design, order=1)
    with open_sink(str(d / "ident_rates.h5"), {}, {"joint_names": list(design.joint_names)},
                   rows=design.n_samples) as sink:
        sink.write(data | {"tau": rates.tau, "taud": rates.taud})
    # ... and measured at the tool a constant wrench, its share in the torques (and rates)
    pushed = replace(design, wrenches=Wrenches({EE: np.tile([0.0, 0.0, 0.1, 0.0, 0.0, 2.0],
                                                            (design.n_samples, 1, 1))}))
    data, columns = trajectory_datasets(pushed)
    share = api.external_wrench_torques(iiwa, pushed)
    for name, more in (("ident_wrench", {"tau": rates.tau + share}),
                       ("ident_rates_wrench", {"tau": rates.tau + share, "taud": rates.taud})):
        with open_sink(str(d / f"{name}.h5"), {}, {"joint_names": list(design.joint_names)},
                       rows=design.n_samples) as sink:
            sink.write(data | more)
    quad = load_model(URDF / "quadruped.urdf")
    n = 21
    t = np.linspace(0, 0.2, n)
    q = np.zeros((n, 7, quad.n))
    q[:, 0] = np.tile([0.0, 0.8, -1.6], 4)
    Vb = np.zeros((n, 6, 6))
    p = np.tile([0.0, 0.0, 0.3], (n, 1))
    walk = Trajectory(quad.joint_names, q, t,
                      base=BaseMotion(np.broadcast_to(np.eye(3), (n, 3, 3)).copy(), p, Vb))
    data, columns = trajectory_datasets(walk)
    more, cols = base_datasets(walk)
    with open_sink(str(d / "walk.csv"), columns | cols, {}) as sink:
        sink.write(data | more)
    with open_sink(str(d / "joints.csv"), columns, {}) as sink:
        sink.write(data)
    # forward's floating input: the stance's joint torques with it (and without the base)
    stance = {"tau": api.inverse_dynamics(quad, walk, order=0).tau}
    torque_columns = derivative_columns("tau", 0, quad.joint_names)
    with open_sink(str(d / "walk_tau.csv"), columns | cols | torque_columns, {}) as sink:
        sink.write(data | more | stance)
    with open_sink(str(d / "joints_tau.csv"), columns | torque_columns, {}) as sink:
        sink.write(data | stance)
    base = dict(api.forward_kinematics(quad, quad.root_link, walk, order=4))
    with open_sink(str(d / "base.h5"), {}, {}, rows=n) as sink:
        sink.write({"t": t, "p": p, "R": walk.base.R} | {k: v for k, v in base.items()
                                                         if k.startswith("Vb")})
    (d / "quad_drives.toml").write_text("[joints.FL_HAA]\ngear_ratio = 50\n"
                                        "rotor_inertia = 1e-5\n")
    # a robot with no joint: a single rigid body at rest on a table, its sole the contact
    write_trajectory(str(d / "free.csv"), Trajectory((), np.zeros((n, 1, 0)), t, base=walk.base))
    (d / "box.toml").write_text('[contacts.bottom]\nlink = "hull"\ntype = "surface"\n'
                                'position = [0.0, 0.0, -0.05]\nsole = [0.2, 0.2]\n'
                                'friction = 0.8\n')
    shutil.copy(ROOT / "docs" / "examples" / "quadruped_feet.toml", d / "feet.toml")
    # identify's floating log: the quadruped at random states, its torques and base wrench
    rng = np.random.default_rng(0)
    m = 120
    R = np.stack([lie.rotation_exp(a / np.linalg.norm(a), np.linalg.norm(a))
                  for a in rng.normal(size=(m, 3))])
    states = Trajectory(quad.joint_names, rng.normal(size=(m, 3, quad.n)),
                        np.arange(m) * 0.01, base=BaseMotion(R, rng.normal(size=(m, 3)),
                                                             rng.normal(size=(m, 2, 6))))
    res = api.inverse_dynamics(quad, states, order=0, base_wrench=True)
    logged = replace(states, wrenches=Wrenches({quad.root_link: res.W[:, None]}))
    data, columns = trajectory_datasets(logged)
    more, cols = base_datasets(logged)
    with open_sink(str(d / "ident_floating.h5"), {}, {"joint_names": list(quad.joint_names)},
                   rows=m) as sink:
        sink.write(data | more | {"tau": res.tau})
    return d


def invocation(files, command: str, on: set[str]) -> list:
    """The command line of ``command`` with the features ``on``."""
    d = files
    robot, traj = URDF / "iiwa14.urdf", d / "iiwa.h5"
    if command == "elastic" or "elastic" in on:
        traj = d / "high.h5"   # the elastic model's derivatives
    if on & {"floating_base", "contacts"}:
        robot, traj = URDF / "quadruped.urdf", d / "walk.csv"
    if "base_motion" in on:
        robot, traj = URDF / "quadruped.urdf", d / "joints.csv"
    if "mimic" in on:
        robot, traj = d / "gripper_arm_mimic.urdf", d / "mimic.h5"
    if "no_joints" in on:
        robot, traj = URDF / "free_body.urdf", d / "free.csv"
    if "joint_models" in on:
        robot, traj = d / "iiwa_floating.urdf", d / "iiwa_floating.csv"
        if "mimic" in on:   # (refused before the trajectory is read)
            robot = d / "mimic_floating.urdf"
    if "torque_rates" in on:  # (the iiwa's log with taud; refused with a floating base first)
        robot = URDF / "iiwa14.urdf"
    if on <= {"loops", "method", "estimate", "cutoff", "validate"} and "loops" in on:
        robot, traj = URDF / "fourbar.urdf", SAMPLES / "fourbar_crank.csv"
    out = d / f"out_{command}_{'_'.join(sorted(on))}.h5"
    out.unlink(missing_ok=True)
    args = {
        "compute": [robot, traj, "-o", out],
        "matrices": [robot, traj, "-o", out, "--order", "0"],
        "regressor": [robot, traj, "-o", out, "--order", "0"],
        "sensitivities": [robot, traj, "-o", out, "--order", "0"],
        "elastic": [robot, traj, "-o", out],
        "forward": [robot, d / ("mimic_tau.h5" if "mimic" in on else "free.csv"
                                if "no_joints" in on else "iiwa_floating_tau.csv"
                                if "joint_models" in on else "joints_tau.csv"
                                if "base_motion" in on else "walk_tau.csv"
                                if "floating_base" in on else "tau.h5"), "-o", out],
        "kinematics": [robot, traj, "-o", out, "--order", "1"] + (
            [] if "link" in on else ["--com"]),
        "ik": [robot, d / "ee.h5", "--link", EE, "-o", out, "--on-singular", "warn"],
        "validate": [robot, traj, "--samples", "3"],
        "check": [robot, traj],
        "retime": [robot, traj, "-o", out.with_suffix(".csv") if "joint_models" in on else out] + (
            [] if on & {"optimal", "to_limits", "factor"}   # drives limit: --factor refuses them
            else ["--to-limits"] if on & {"drives", "elastic"} else ["--factor", "2"]),
        # (--optimal: a cosine; on the 0.2 s Fourier motion the linear programmes take ~5 s,
        # a cost that belongs to tests/test_optimal.py, not to this walk of combinations)
        "identify": [robot, d / ("ident_mimic.h5" if "mimic" in on else "ident_rates_wrench.h5"
                                 if {"torque_rates", "log_wrenches"} <= on else "ident_rates.h5"
                                 if "torque_rates" in on else "ident_wrench.h5"
                                 if "log_wrenches" in on else "ident_drives.h5"
                                 if on - {"drives_output"} == {"drives", "friction"}
                                 else "ident_floating.h5"
                                 if "floating_base" in on else "ident.h5"), "-o",
                     out.with_suffix(".urdf")] if "no_joints" not in on else [robot, traj, "-o",
                                                                             out],
        "generate": [robot, "--kind", *(("cosine", "--duration", "0.2") if "optimal" in on
                                         else ("fourier", "--duration", "0.2")), "-o",
                     out.with_suffix(".csv") if "joint_models" in on else out],  # (CSV poses)
    }[command]
    args = [command, *args, "--quiet"]
    drives = {URDF / "quadruped.urdf": d / "quad_drives.toml",
              d / "gripper_arm_mimic.urdf": URDF / "gripper_arm_drives.toml"}.get(
        robot, URDF / "iiwa14_motors.toml")
    extra = {
        "floating_base": ["--floating-base"],
        "contacts": ["--contacts", d / ("box.toml" if "no_joints" in on else "feet.toml")],
        "base_motion": ["--base-motion", d / "base.h5"],
        "drives": ["--drives", drives], "elastic": ["--drives", URDF / "iiwa14_drives.toml"],
        "wrench": ["--wrench", d / "w.csv"], "joint_wrenches": ["--joint-wrenches"],
        "base_wrench": ["--base-wrench"], "method": ["--method", "spatial"],
        "many": ["--output-dir", d / f"many_{'_'.join(sorted(on))}", d / "iiwa2.h5"],
        "estimate": ["--estimate-derivatives"], "validate": ["--validate"],
        "state_derivatives": ["--state-derivatives"],
        "parameter_derivatives": ["--parameter-derivatives"], "slotine_li": ["--slotine-li"],
        "friction": ["--friction"], "simulate": ["--simulate"],
        "torques": ["--torques", d / "tau.h5"], "sim_rtol": ["--sim-rtol", "1e-6"],
        "torque_rtol": ["--torque-rtol", "1e-6"], "optimal": ["--optimal"],
        "to_limits": ["--to-limits"], "factor": ["--factor", "2"],
        "segments": ["--segments", "0.05"],
        "respect_limits": ["--respect-limits", URDF / "iiwa14_limits.toml"],
        "cutoff": ["--cutoff", "20"], "jacobian": ["--jacobian"], "link": ["--link", EE],
        "gpu": ["--backend", "gpu"], "loops": ["--loops", URDF / "fourbar_loops.toml"],
        "drives_output": ["--drives-output", out.with_suffix(".toml")],
        "partials": ["--derivatives"]}
    if "many" in on:
        args = [a for a in args if a not in ("-o", out)]
    if command == "elastic" and not on & {"drives", "elastic"}:
        args += extra["elastic"]
    for feature in sorted(on - {"mimic", "no_joints", "joint_models", "torque_rates",
                                "log_wrenches"}):
        if not (feature == "drives" and "elastic" in on):
            args += extra[feature]
    return args


def cells() -> list:
    out = []
    for command, features in COMMANDS.items():
        for feature in sorted(features):
            # elastic's --drives is required; series-elastic drives are drives
            drives = {"drives"} if command == "elastic" or feature == "elastic" else set()
            on = capabilities._with_needs(command, {feature} | drives)
            if feature == "gpu" or not capabilities.allowed(command, on):
                continue
            out.append(pytest.param(command, frozenset(on), id=f"{command}-{feature}"))
    return out


@pytest.mark.parametrize("command, on", cells())
def test_every_feature_a_command_takes_runs(files, command, on):
    result = run(*invocation(files, command, set(on)))
    ok = (0, 1) if command in ("check", "validate") else (0,)
    assert result.exit_code in ok, result.output


def refusals() -> list:
    out = []
    for rule in RULES:
        for command in rule.commands:
            if isinstance(rule, Excludes):   # (a robot's property with what it needs)
                on = set(rule.features)
                if capabilities.ROBOT & on:
                    on = capabilities._with_needs(command, on)
            else:   # with what the feature needs by other rules
                on = capabilities._with_needs(command, {rule.feature}) - {rule.needs}
            if not on <= COMMANDS[command] | {"mimic"} or "floating_base" in on and \
                    "floating_base" not in COMMANDS[command]:
                continue   # refused where no option reaches it: the API's (tested there)
            # a refusal of the robot names its file (the invocation's robot)
            robot = "<robot>: " if capabilities.ROBOT & on else ""
            out.append(pytest.param(command, frozenset(on), robot + rule.message(FLAGS),
                                    id=f"{command}-{'-'.join(sorted(on))}"))
    return out


@pytest.mark.parametrize("command, on, message", refusals())
def test_every_refusal_is_its_one_line(files, command, on, message):
    args = invocation(files, command, set(on))
    result = run(*args)
    assert result.exit_code == 2, result.output
    message = message.replace("<robot>", str(args[1]))
    assert result.stderr == f"hodyn: error: {message}\n", result.stderr


def test_the_gpu_backend_where_there_is_none_is_one_line(files):
    result = run(*invocation(files, "compute", {"gpu"}))
    if result.exit_code == 0:
        pytest.skip("this machine has a GPU JAX sees")
    assert result.exit_code == 2 and result.stderr.startswith("hodyn: error: --backend gpu: ")
    assert result.stderr.count("\n") == 1


def test_a_rule_needs_its_features_and_names_them():
    with pytest.raises(ValueError, match="unknown features"):
        capabilities.check("compute", {"teleport"})
    for rule in RULES:
        names = rule.features if isinstance(rule, Excludes) else (rule.feature, rule.needs)
        assert set(names) <= set(FEATURES) and set(rule.commands) <= set(COMMANDS)
        assert isinstance(rule, Excludes | Requires)


def test_a_property_a_command_has_no_row_for_is_refused_not_dropped():
    """What the robot or its data has (closed loops, measured torque rates) on a command that
    does not take it: one line, not the command run without it; an option it has no row
    for passes (it is not one of its options)."""
    for command in COMMANDS:
        for feature in capabilities.PROPERTIES - COMMANDS[command]:
            with pytest.raises(capabilities.Unsupported, match="is not supported|are not"):
                capabilities.check(command, {feature})
    assert "loops" not in COMMANDS["retime"] and "torque_rates" not in COMMANDS["check"]
    capabilities.check("ik", {"floating_base"})   # (ik has no such option: nothing to refuse)

