"""Draw docs/figures/talos_walking_in_place.png: the humanoid Talos (example-robot-data's
talos_reduced.urdf, 32 joints) walking in place on its two soles, its contact wrenches, a knee
torque and its rate (docs/contacts.md).

The motion, analytic: the pelvis sways sideways, ``y = A sin(2 pi t / T)``, over the left foot
at T/4 and the right at 3T/4 (T = 2 s, A = 4.5 cm: the centre of pressure then near the
stance sole's middle), without turning; each foot stays where it stands except while the
pelvis is over the other foot, when it lifts 5 cm and comes down again, ``h = H sin^6(pi
tau / S)`` over its S = 0.5 s of swing (smooth to its 5th derivative at lift-off and
touch-down). The legs follow from ``hodyn``'s inverse kinematics of each sole relative to the
pelvis (q to its 4th derivative), the upper body holds Talos' half-sitting posture; the
contact flags say which sole is down. With ``OUT.csv`` the script writes that trajectory
(joints, the pelvis as ``base_`` columns, ``contact_left``, ``contact_right``) and with
``ROBOT.urdf`` a copy of the URDF, for the command line (docs/contacts.md).
Run: ``python docs/figures/talos_walking_in_place.py [OUT.png] [OUT.csv] [ROBOT.urdf]``.
"""

import importlib.metadata
import shutil
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from hodyn_cli import api  # noqa: E402
from hodyn_cli.core.trajectory import BaseMotion, Trajectory, derivative_name  # noqa: E402
from hodyn_cli.io import open_sink, trajectory_datasets  # noqa: E402
from hodyn_cli.io.results import base_datasets  # noqa: E402
from hodyn_cli.modeling.contacts import contacts_from_table  # noqa: E402

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_suffix(".png")
T, A, H, S = 2.0, 0.045, 0.05, 0.5        # gait period (s), sway (m), lift (m), swing (s)
DURATION, RATE = 4.0, 200                 # s, Hz
D = 4                                     # q to its 4th derivative: compute --order 2
#: Talos' half-sitting posture (the legs' knees bent: away from the straight-leg singularity)
HALF_SITTING = {"torso_2_joint": 0.006761, "arm_left_1_joint": 0.25847,
                "arm_left_2_joint": 0.173046, "arm_left_4_joint": -0.525366,
                "arm_left_7_joint": 0.1, "arm_right_1_joint": -0.25847,
                "arm_right_2_joint": -0.173046, "arm_right_4_joint": -0.525366,
                "arm_right_7_joint": 0.1,
                **{f"leg_{side}_{k}_joint": v for side in ("left", "right")
                   for k, v in zip(range(1, 7), (0.0, 0.0, -0.411354, 0.859395, -0.448041,
                                                 -0.001708), strict=True)}}
#: the soles: 21 x 13 cm, friction 0.8 (rubber on a floor)
FEET = {side: {"link": f"{side}_sole_link", "type": "surface", "sole": [0.21, 0.13],
               "friction": 0.8} for side in ("left", "right")}


def talos_urdf() -> Path:
    dist = importlib.metadata.distribution("example-robot-data")
    return Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots/talos_data/"
                                 "robots/talos_reduced.urdf"))


def sway(t: np.ndarray) -> np.ndarray:
    """The pelvis' position and its first D+1 derivatives, (N, D+2, 3)."""
    w = 2 * np.pi / T
    p = np.zeros((t.size, D + 2, 3))
    for k in range(D + 2):
        p[:, k, 1] = A * w**k * np.sin(w * t + k * np.pi / 2)
    return p


def lift(t: np.ndarray, centre: float) -> tuple[np.ndarray, np.ndarray]:
    """The lift of a foot swinging around ``centre`` (+ every period) and its derivatives
    (N, D+2), and where it is in the air. ``sin^6 x = (10 - 15 cos 2x + 6 cos 4x - cos 6x) /
    32`` with ``x = pi tau / S`` gives the derivatives."""
    tau = (t - centre + S / 2) % T
    air = tau < S
    x = np.pi / S
    h = np.zeros((t.size, D + 2))
    for k in range(D + 2):
        for c, m in ((-15, 2), (6, 4), (-1, 6)):
            h[:, k] += c * (m * x) ** k * np.cos(m * x * tau + k * np.pi / 2)
        h[:, k] += 10 if k == 0 else 0
    return np.where(air[:, None], H * h / 32, 0.0), air


def walking(model) -> Trajectory:
    """The joints (inverse kinematics of each sole relative to the pelvis), the pelvis'
    motion and the contact flags."""
    t = np.linspace(0, DURATION, int(DURATION * RATE) + 1)
    q0 = np.array([HALF_SITTING.get(j, 0.0) for j in model.joint_names])
    standing = Trajectory(model.joint_names, np.concatenate(
        [q0[None, None], np.zeros((1, D + 2, model.n))], axis=1))
    pelvis = sway(t)
    q = np.broadcast_to(standing.derivatives[:, : D + 1], (t.size, D + 1, model.n)).copy()
    flags = {}
    for side, centre in (("right", T / 4), ("left", 3 * T / 4)):
        link = f"{side}_sole_link"
        home = api.forward_kinematics(model, link, standing, order=0)
        h, air = lift(t, centre)
        rel = np.broadcast_to(home.p, (t.size, 3)) - pelvis[:, 0]   # the sole seen from the pelvis
        rel = rel + h[:, 0, None] * [0, 0, 1]
        rates = np.zeros((t.size, D, 6))                            # (0; p'): it only translates
        rates[..., 3:] = -pelvis[:, 1 : D + 1]
        rates[..., 5] += h[:, 1 : D + 1]
        motion = {"p": rel, "R": np.broadcast_to(home.R, (t.size, 3, 3)),
                  **{derivative_name("Vs", k): rates[:, k] for k in range(D)}}
        legs = api.inverse_kinematics(model, link, motion, t=t, q0=q0)
        joints = [model.joint_index(f"leg_{side}_{k}_joint") for k in range(1, 7)]
        for k in range(D + 1):
            q[:, k, joints] = legs[derivative_name("q", k)][:, joints]
        flags[f"contact_{side}"] = (~air).astype(float)
    base = np.zeros((t.size, D + 1, 6))
    base[..., 3:] = pelvis[:, 1:]                                    # (0; p'): no turning
    p = pelvis[:, 0] + [0.0, 0.0, 1.0]
    return Trajectory(model.joint_names, q, t, series=flags,
                      base=BaseMotion(np.broadcast_to(np.eye(3), (t.size, 3, 3)).copy(), p, base))


def main() -> None:
    urdf = talos_urdf()
    if len(sys.argv) > 3:
        shutil.copyfile(urdf, sys.argv[3])
    model = api.load_robot(urdf)
    traj = walking(model)
    if len(sys.argv) > 2:
        data, columns = trajectory_datasets(traj)
        more, cols = base_datasets(traj)
        with open_sink(sys.argv[2], columns | cols, {"joint_names": list(model.joint_names)}) as sink:
            sink.write(data | more)
    feet = contacts_from_table(model, FEET)
    r = api.contact_dynamics(model, feet, traj, order=1)
    t, knee = traj.t, model.joint_index("leg_left_4_joint")
    fig, ax = plt.subplots(3, 1, figsize=(7.5, 7), sharex=True)
    for side, style in (("left", "C0"), ("right", "C3")):
        ax[0].plot(t, r[f"Wc_{side}"][:, 5], style, label=f"$f_z$ {side} sole (N)")
        ax[1].plot(t, r[f"Wcd_{side}"][:, 5], style, label=rf"$\dot f_z$ {side} sole (N/s)")
    ax[2].plot(t, r.tau[:, knee], "k", label=r"$\tau$ left knee (N m)")
    ax[2].plot(t, r.taud[:, knee] / 10, "k--", label=r"$\dot\tau$ / 10 (N m/s)")
    for a in ax:
        for side, shade in (("left", "C0"), ("right", "C3")):
            air = traj.series[f"contact_{side}"] == 0
            a.fill_between(t, 0, 1, where=air, color=shade, alpha=0.08,
                           transform=a.get_xaxis_transform(), lw=0)
        a.legend(loc="upper right", fontsize=8)
        a.grid(alpha=0.3)
    ax[0].set_ylabel("vertical force")
    ax[1].set_ylabel("its rate")
    ax[2].set_ylabel("knee")
    ax[2].set_xlabel("t (s); shaded: a foot in the air")
    fig.suptitle("Talos walking in place: ground reactions, knee torque and its rate")
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)


if __name__ == "__main__":
    main()
