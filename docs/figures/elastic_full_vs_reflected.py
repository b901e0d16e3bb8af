"""Draw docs/figures/elastic_full_vs_reflected.png (like Hoepler & Thuemmel's Figs. 4 and 5).

The bundled iiwa with the LBR-like drives of urdf/iiwa14_drives.toml moves every joint by
2 rad along a step through a 16th-order critically damped filter (2.5 s). Top: the motor
torques of the full model (rotor gyroscopic coupling), referred to the link side (times the
gear ratio). Middle: full minus reflected model, also link side: what the gyroscopic terms
add. Bottom: the largest difference, relative to the largest motor torque, as the same step
is made faster (duration ~ 1/omega): the gyroscopic terms grow with the speed.
Run: ``python docs/figures/elastic_full_vs_reflected.py [OUT.png]``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from hodyn_cli.algorithms.actuation import elastic  # noqa: E402
from hodyn_cli.core.trajectory import filtered_step  # noqa: E402
from hodyn_cli.modeling.drives import read_drives  # noqa: E402
from hodyn_cli.modeling.urdf import load_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_suffix(".png")


def main() -> None:
    model = load_model(ROOT / "urdf" / "iiwa14.urdf")
    drives = read_drives(ROOT / "urdf" / "iiwa14_drives.toml", model)
    need = elastic.requirements(model, drives, 0).q_order
    t = np.linspace(0.0, 2.5, 1001)
    traj = filtered_step(model.joint_names, t, step=2.0, omega=14.5, filter_order=16,
                         orders=need)
    full = elastic.inverse_dynamics(model, traj, drives, order=0)
    reflected = elastic.inverse_dynamics(model, traj, drives, order=0, kind="reflected")
    link_side = drives.gear_ratio  # tau_m * r: the motor torque as seen at the joint
    fig = plt.figure(figsize=(8, 9))
    top, bottom, sweep = (fig.add_subplot(3, 1, k) for k in (1, 2, 3))
    bottom.sharex(top)
    for j in range(3):
        name = model.joint_names[j]
        top.plot(t, full.taum[:, 0, j] * link_side[j], label=f"{name}")
        bottom.plot(t, (full.taum[:, 0, j] - reflected.taum[:, 0, j]) * link_side[j],
                    label=name)
    inset = top.inset_axes([0.64, 0.62, 0.33, 0.3])
    inset.plot(t, traj.q[:, 0], color="k")
    inset.set_title("q_j(t), every joint", fontsize=8)
    inset.tick_params(labelsize=7)
    top.set_ylabel("r tau_m (N m)")
    top.set_title("Motor torques of the full elastic model (iiwa, LBR-like drives)")
    top.legend(loc="upper left", fontsize=8)
    bottom.set_ylabel("r (tau_m full - reflected) (N m)")
    bottom.set_xlabel("t (s)")
    bottom.set_title("What the rotors' gyroscopic coupling adds")
    bottom.legend(loc="upper left", fontsize=8)
    omegas = np.array([5.0, 7.0, 10.0, 14.5, 20.0, 28.0, 40.0])
    rel = []
    for w in omegas:
        tw = np.linspace(0.0, 40.0 / w, 801)
        tr = filtered_step(model.joint_names, tw, step=2.0, omega=w, filter_order=16, orders=need)
        f = elastic.inverse_dynamics(model, tr, drives, order=0).taum[:, 0]
        r = elastic.inverse_dynamics(model, tr, drives, order=0, kind="reflected").taum[:, 0]
        rel.append(np.abs(f - r).max(axis=0) / np.abs(f).max(axis=0))
    rel = np.array(rel)
    for j in range(3):
        sweep.loglog(16.0 / omegas, rel[:, j], "o-", label=model.joint_names[j])
    sweep.set_xlabel("mean step time 16/omega (s)")
    sweep.set_ylabel("max |full - reflected| / max |tau_m|")
    sweep.set_title("Faster motions: the gyroscopic terms matter more")
    sweep.legend(fontsize=8)
    for ax in (top, bottom, sweep):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    worst = np.abs(full.taum[:, 0] - reflected.taum[:, 0]).max(axis=0) * np.abs(link_side)
    print(f"wrote {OUT}; max |full - reflected| (link side, N m): "
          + ", ".join(f"{v:.3g}" for v in worst))
    print("relative difference, joints 1-3, per omega " + ", ".join(map(str, omegas)) + ": "
          + "; ".join(", ".join(f"{v:.2g}" for v in row[:3]) for row in rel))


if __name__ == "__main__":
    main()
