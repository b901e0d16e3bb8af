"""Write a simulated identification log (docs/identification.md): the torques of a robot whose
inertial parameters differ from its URDF's (unknown to ``hodyn identify``), along a motion
file, with Gaussian noise.

Run: ``python docs/examples/identification_log.py ROBOT MOTION -o LOG.csv [--seed S]
[--noise 0.01]``. Every moving body's mass is scaled by a factor in [0.8, 1.2], its centre of
mass moved by up to ~2 cm and its second moment of mass about the centre of mass ``S``
replaced by ``A S A^T`` (``A`` = identity + 20 % noise; a congruence keeps S positive
semidefinite, so the body stays physically consistent). The torques are hodyn's inverse
dynamics of that robot (the tests simulate with Pinocchio instead); the noise's standard
deviation is ``noise`` times each joint's peak torque. The log has the motion's columns and
``tau_<joint>``, as ``hodyn identify`` reads them.
"""

import argparse

import numpy as np

from hodyn_cli import api
from hodyn_cli.core import lie
from hodyn_cli.io import open_sink, read_trajectory, trajectory_datasets


def perturbed(robot: api.Model, rng: np.random.Generator) -> api.Model:
    """The robot with every moving body's inertia perturbed (module docstring)."""
    from dataclasses import replace

    inertias = []
    for M in robot.inertias:
        m, h = M[3, 3], np.array([M[2, 4], M[0, 5], M[1, 3]])
        c = h / m
        Ic = M[:3, :3] - m * (c @ c * np.eye(3) - np.outer(c, c))
        S = 0.5 * np.trace(Ic) * np.eye(3) - Ic
        A = np.eye(3) + 0.2 * rng.normal(size=(3, 3))
        S = A @ S @ A.T
        inertias.append(lie.body_inertia(m * rng.uniform(0.8, 1.2), c + 0.02 * rng.normal(size=3),
                                         np.trace(S) * np.eye(3) - S))
    return replace(robot, inertias=np.array(inertias))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("robot")
    parser.add_argument("motion")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--noise", type=float, default=0.01)
    args = parser.parse_args()
    robot = api.load_robot(args.robot)
    motion = read_trajectory(args.motion, robot, need=3)
    truth = perturbed(robot, np.random.default_rng(1))  # the same robot for every log
    tau = api.inverse_dynamics(truth, motion, order=0).tau
    rng = np.random.default_rng(args.seed)
    tau = tau + rng.normal(size=tau.shape) * args.noise * np.abs(tau).max(axis=0)
    data, columns = trajectory_datasets(motion)
    columns = {**columns, "tau": [f"tau_{j}" for j in robot.coordinate_names]}
    with open_sink(args.output, columns, {"joint_names": list(robot.coordinate_names)}) as sink:
        sink.write(data | {"tau": tau})


if __name__ == "__main__":
    main()
