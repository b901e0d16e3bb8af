"""Motions built in the library are the ones a file gives: a generated motion C-ordered as a
reader's, joint names a tuple whatever sequence names them."""

import numpy as np

import hodyn_cli
from conftest import URDF, mimic_urdf
from hodyn_cli.algorithms.planning.generate import generate
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import read_trajectory, write_trajectory


def test_a_generated_motion_is_retimed_as_its_file_is(tmp_path):
    """mend12: ``generate`` returned its derivatives as a transposed view, a file's reader
    C-ordered; the other layout rounded the algorithms' sums otherwise, and the optimal
    retiming's rounds with them (the 75 s iiwa path: first-fit K 1.0486 by the API, 1.0031
    by the CLI, durations 0.18 % apart). Now the same to the bit. (1 s of path: derivatives
    laid out in Fortran order still give another duration, 1.1700926943631 against
    1.1700926943777 s, at 0.7 s of CPU; the 3 s path took 3.0 s.)"""
    model = hodyn_cli.load_robot(URDF / "planar_2r.urdf")
    generated = generate(model, "fourier", duration=1.0, rate=100.0)
    assert generated.derivatives.flags.c_contiguous
    write_trajectory(str(tmp_path / "in.h5"), generated)
    read = read_trajectory(str(tmp_path / "in.h5"), model, need=generated.orders)
    limits = {"joint1": {"velocity": 2.0, "torque": 30.0, "jerk": 200.0},
              "joint2": {"velocity": 2.0, "torque": 10.0}}
    (a, first), (b, second) = (hodyn_cli.retime_optimal(model, tr, limits=limits)
                               for tr in (generated, read))
    assert first.duration == second.duration
    assert np.array_equal(a.derivatives, b.derivatives)


def test_a_trajectory_names_its_joints_by_a_tuple_whatever_it_was_given(tmp_path):
    """mend12: joint names given as a list failed on a mimic robot ("the trajectory's joints
    ['arm', 'rotor'] are not the coordinates ('arm', 'rotor')": a list compared with the
    model's tuple)."""
    model = hodyn_cli.load_robot(mimic_urdf(tmp_path, "gripper_arm", "finger_right_joint",
                                            "finger_left_joint", 1.0, 0.0))
    names = list(model.coupling.coordinate_names)
    t = np.linspace(0.0, 1.0, 5)
    q = 0.1 * np.sin(t)[:, None] * np.ones(len(names))
    derivatives = np.stack([q, np.cos(t)[:, None] * q, -q], axis=1)
    listed = Trajectory(names, derivatives, t)
    assert listed.joint_names == tuple(names)
    tau = hodyn_cli.inverse_dynamics(model, listed, order=0).tau
    assert np.array_equal(tau, hodyn_cli.inverse_dynamics(
        model, Trajectory(tuple(names), derivatives, t), order=0).tau)
