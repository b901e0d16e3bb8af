"""Draw docs/figures/quadruped_base_wrench.png: the wrench a trotting quadruped needs from the
ground, and its rate (docs/floating.md).

The bundled Solo-like urdf/quadruped.urdf trots at 2 Hz: every joint a cosine, diagonal legs
in phase; the trunk moves forward at 0.3 m/s, bobs 1 cm at 4 Hz and pitches 3 degrees at
2 Hz (an analytic base motion: its spatial twist and derivatives in closed form). The base
wrench W is what the trunk exerts on its supports, i.e. minus the total ground reaction
moved to the trunk frame: top its vertical force (the weight of 2.98 kg, 29.2 N, plus the
bobbing) and pitch moment, bottom their rates. With ``OUT.csv`` the script also writes the trajectory for
``hodyn compute urdf/quadruped.urdf OUT.csv --floating-base --base-wrench`` (any order up to 2).
Run: ``python docs/figures/quadruped_base_wrench.py [OUT.png] [OUT.csv]``.
"""

import sys
from math import comb
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from hodyn_cli.algorithms.dynamics.floating import base_from_spatial, inverse_dynamics  # noqa: E402
from hodyn_cli.core import lie  # noqa: E402
from hodyn_cli.core.trajectory import cosine  # noqa: E402
from hodyn_cli.io import open_sink, trajectory_datasets  # noqa: E402
from hodyn_cli.io.columns import motion_suffixes  # noqa: E402
from hodyn_cli.modeling.urdf import load_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_suffix(".png")
F, ORDER = 2.0, 1  # gait frequency (Hz), highest derivative plotted
#: the written trajectory's order: enough for every command's default (--order 2)
FILE_ORDER = 2


def trot(model, t):
    """Joint cosines: hip flexion and knee swing, diagonal pairs FL/HR and FR/HL in antiphase."""
    w = 2 * np.pi * F
    phase = {"FL": 0.0, "HR": 0.0, "FR": np.pi, "HL": np.pi}
    amp = {"HAA": 0.05, "HFE": 0.3, "KFE": 0.4}
    offset = {"HAA": 0.0, "HFE": 0.8, "KFE": -1.6}
    extra = {"HAA": 0.0, "HFE": 0.0, "KFE": np.pi / 2}
    legs = [name.split("_") for name in model.joint_names]
    return cosine(model.joint_names, t, amplitude=[amp[j] for _, j in legs], omega=w,
                  phase=[phase[leg] + extra[j] for leg, j in legs],
                  offset=[offset[j] for _, j in legs], orders=FILE_ORDER + 2)


def trunk(t, K):
    """Pose and spatial twist derivatives (N, K+1, 6) of the trunk: forward, bobbing, pitching."""
    w = 2 * np.pi * F
    k = np.arange(K + 2)[:, None]
    theta = 0.05 * w**k * np.sin(w * t + k * np.pi / 2)                 # pitch and its rates
    p = np.zeros((K + 2, t.size, 3))
    p[:, :, 2] = 0.01 * (2 * w) ** k * np.sin(2 * w * t + k * np.pi / 2)
    p[0, :, 0], p[1, :, 0] = 0.3 * t, 0.3
    p[0, :, 2] += 0.3
    omega = np.zeros((K + 2, t.size, 3))
    omega[:, :, 1] = np.concatenate([theta[1:], [np.zeros_like(t)]])  # omega^(k) = theta^(k+1)
    Vs = np.empty((t.size, K + 1, 6))
    for n in range(K + 1):  # v^s = p' - omega x p, by Leibniz
        Vs[:, n, :3] = omega[n]
        Vs[:, n, 3:] = p[n + 1] - sum(comb(n, j) * np.cross(omega[j], p[n - j]) for j in range(n + 1))
    R = lie.rotation_exp(np.array([0.0, 1.0, 0.0]), theta[0])
    return R, p[0], Vs


def main() -> None:
    model = load_model(ROOT / "urdf" / "quadruped.urdf")
    t = np.linspace(0, 1.0, 401)
    R, p, Vs = trunk(t, FILE_ORDER + 1)
    base = base_from_spatial(R, p, Vs)
    traj = trot(model, t)
    traj = type(traj)(traj.joint_names, traj.derivatives, t, base=base)
    _, W = inverse_dynamics(model, traj, order=ORDER)
    if len(sys.argv) > 2:
        data, columns = trajectory_datasets(traj)
        for k in range(FILE_ORDER + 2):
            key = "base_V" + "b" + "d" * k
            data[key], columns[key] = base.Vb[:, k], [f"{key}_{s}" for s in motion_suffixes(key)]
        for key, value in (("base_p", p), ("base_R", R)):
            data[key], columns[key] = value, [f"{key}_{s}" for s in motion_suffixes(key)]
        with open_sink(sys.argv[2], columns, {}) as sink:
            sink.write(data)
    fig, ax = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
    ax[0].plot(t, W[:, 0, 5], label="$W_{f_z}$ (N)")
    ax[0].plot(t, W[:, 0, 4], label="$W_{m_y}$ (N m)")
    ax[0].set_ylabel("base wrench")
    ax[1].plot(t, W[:, 1, 5], label=r"$\dot W_{f_z}$ (N/s)")
    ax[1].plot(t, W[:, 1, 4], label=r"$\dot W_{m_y}$ (N m/s)")
    ax[1].set_ylabel("its rate")
    ax[1].set_xlabel("t (s)")
    for a in ax:
        a.legend(loc="upper right", fontsize=8)
        a.grid(alpha=0.3)
    fig.suptitle("Trotting quadruped: what the trunk exerts on its supports (trunk frame)")
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)


if __name__ == "__main__":
    main()
