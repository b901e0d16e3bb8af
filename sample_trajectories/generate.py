"""Regenerate the bundled sample trajectories: ``python sample_trajectories/generate.py``.

Cosine motions (as in Mueller & Kumar, sec. 6.2) with exact derivatives, sampled at 100 Hz
for 5 s: ``<robot>_cosine.csv``/``.h5`` carry q..qdddddd (enough for torque order 4);
``<robot>_cosine_high.h5`` carries q and its first 16 derivatives in the compact HDF5 layout
(one dataset ``q_derivatives``, N x 17 x n), enough for ``hodyn elastic`` on the bundled drives.
``iiwa14_log/`` is a robot log as ROS 2 writes it (MCAP storage, written with rosbags): 10 s of
JointState messages at 200 Hz, positions with 1e-4 rad of encoder noise, efforts (the true
torques) with 0.5 N m of sensor noise; for ``hodyn import`` and docs/trajectories.md.
``fourbar_crank.csv``: the four-bar's crank (its actuated joint, docs/loops.md), 2 s at 100 Hz.
``mobile_2r_cosine.csv``: the mobile base's planar joint (pose ``drive_x, drive_y, drive_theta``,
rates ``qd_drive_vx``, ...) and its arm, q to its 6th derivative (:func:`mobile_motion`).
"""

import shutil
from pathlib import Path

import numpy as np

from hodyn_cli.core import jets, lie
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.io import write_trajectory
from hodyn_cli.modeling.urdf import load_model

HERE = Path(__file__).parent
T = np.linspace(0.0, 5.0, 501)
HIGH_ORDER = 16

MOTIONS = {
    "planar_2r": dict(amplitude=[0.8, 1.2], omega=[1.3, 2.1], phase=[0.0, 0.5]),
    "iiwa14": dict(amplitude=[1.0, 0.7, 0.9, 0.8, 1.1, 0.9, 1.5],
                   omega=[0.9, 1.3, 1.1, 1.6, 1.9, 2.2, 2.5],
                   phase=[0.0, 0.4, 0.8, 1.2, 1.6, 2.0, 2.4],
                   offset=[0.0, 0.3, 0.0, -0.6, 0.0, 0.5, 0.0]),
    "gripper_arm": dict(amplitude=[1.0, 0.6, 0.08, 2.0, 0.015, 0.015],
                        omega=[1.0, 1.5, 2.0, 3.0, 4.0, 4.0],
                        phase=[0.0, 0.3, 0.6, 0.9, 0.0, 0.0],
                        offset=[0.0, 0.2, 0.1, 0.0, 0.02, 0.02]),
}

def mobile_motion() -> Trajectory:
    """``mobile_2r``: its planar base drives x, y and turns (cosines), the arm swings; the
    base's velocity coordinates ``(R^T p'; theta')`` and their derivatives exact (Leibniz on
    the rotation's jet), to q's 6th derivative (docs/conventions.md, multi-DOF joints)."""
    model = load_model(HERE.parent / "urdf" / "mobile_2r.urdf")
    K = 6
    xyt = cosine(("x", "y", "theta"), T, amplitude=[0.5, 0.3, 0.8], omega=[0.6, 0.9, 0.7],
                 phase=[0.0, 1.0, 0.3], orders=K).derivatives             # (N, K+1, 3)
    z = np.array([0.0, 0.0, 1.0])
    R = jets.rotation(lie.rotation_exp(z, xyt[:, 0, 2]), xyt[:, 1:, 2:] * z, K - 1, body=True)
    pdot = np.concatenate([xyt[:, 1:, :2], np.zeros((T.size, K, 1))], axis=2)
    v = jets.product(jets.transpose(R), pdot[..., None])[..., 0]          # R^T p' and rates
    arm = cosine(("shoulder", "elbow"), T, amplitude=[0.7, 1.0], omega=[1.1, 1.7],
                 phase=[0.0, 0.5], offset=[0.3, -0.6], orders=K).derivatives
    qs = np.empty((T.size, K + 1, model.nv))
    qs[:, 0, :3] = xyt[:, 0]
    qs[:, 1:, :3] = np.concatenate([v[..., :2], xyt[:, 1:, 2:]], axis=2)
    qs[:, :, 3:] = arm
    return Trajectory(model.dof_names, qs, T)


def write_log(bag: Path) -> None:
    """A ROS 2 bag of JointState messages at 200 Hz with noisy positions and efforts."""
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore

    from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
    from hodyn_cli.algorithms.planning.generate import generate

    model = load_model(HERE.parent / "urdf" / "iiwa14.urdf")
    motion = generate(model, "fourier", rate=200.0, duration=10.0, seed=4, derivatives=2)
    tau = inverse_dynamics(model, motion, order=0)[:, 0]
    rng = np.random.default_rng(1)
    q = motion.q + rng.normal(scale=1e-4, size=motion.q.shape)
    effort = tau + rng.normal(scale=0.5, size=tau.shape)
    store = get_typestore(Stores.ROS2_HUMBLE)
    T = store.types
    JS, Header, Time = (T["sensor_msgs/msg/JointState"], T["std_msgs/msg/Header"],
                        T["builtin_interfaces/msg/Time"])
    typ = "sensor_msgs/msg/JointState"
    with Writer(bag, version=9, storage_plugin=StoragePlugin.MCAP) as w:
        conn = w.add_connection("/joint_states", typ, typestore=store)
        for s, t in enumerate(motion.t):
            ns = 1_700_000_000 * 10**9 + int(round(t * 1e9))
            msg = JS(header=Header(stamp=Time(sec=ns // 10**9, nanosec=ns % 10**9), frame_id=""),
                     name=list(model.joint_names), position=q[s], velocity=np.array([]),
                     effort=effort[s])
            w.write(conn, ns, store.serialize_cdr(msg, typ))


if __name__ == "__main__":
    for robot, motion in MOTIONS.items():
        model = load_model(HERE.parent / "urdf" / f"{robot}.urdf")
        traj = cosine(model.joint_names, T, orders=6, **motion)
        for ext in ("csv", "h5"):
            write_trajectory(str(HERE / f"{robot}_cosine.{ext}"), traj)
            print(f"wrote {robot}_cosine.{ext}")
        high = cosine(model.joint_names, T, orders=HIGH_ORDER, **motion)
        write_trajectory(str(HERE / f"{robot}_cosine_high.h5"), high, compact=True)
        print(f"wrote {robot}_cosine_high.h5")
    crank = cosine(("crank",), np.linspace(0.0, 2.0, 201), amplitude=[1.2], omega=[3.0],
                   offset=[0.3], orders=6)
    write_trajectory(str(HERE / "fourbar_crank.csv"), crank)
    print("wrote fourbar_crank.csv")
    write_trajectory(str(HERE / "mobile_2r_cosine.csv"), mobile_motion(),
                     model=load_model(HERE.parent / "urdf" / "mobile_2r.urdf"))
    print("wrote mobile_2r_cosine.csv")
    log = HERE / "iiwa14_log"
    shutil.rmtree(log, ignore_errors=True)
    write_log(log)
    print(f"wrote {log.name}/")
