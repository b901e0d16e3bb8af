"""Write a tumbling flight of urdf/free_body.urdf (a robot with no joint: one rigid body) as a
trajectory: ``t`` and the root's motion ``base_p``, ``base_R``, ``base_Vb`` .. ``base_Vbdddd``
(docs/floating.md, "A robot with no joint"), exact derivatives, 2 s at 100 Hz.

The hull turns about a fixed tilted axis by ``theta(t) = 0.8 sin(2 t) + 0.5 t`` while its
frame's origin flies a slow arc that bobs; in closed form: the spatial twist ``(a theta';
p' - a theta' x p)`` and its derivatives by Leibniz, then the body twists
(``api.base_motion``). Run: ``python docs/examples/free_body_motion.py OUT.csv`` (or ``.h5``).
"""

import sys
from math import comb

import numpy as np

from hodyn_cli import api
from hodyn_cli.core import lie
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.io import write_trajectory

T = np.linspace(0.0, 2.0, 201)
K = 5  # twist derivative orders written: Vb .. Vbdddd (compute and validate at --order 2)
AXIS = np.array([1.0, 2.0, 2.0]) / 3.0


def angle(t: np.ndarray, k: int) -> np.ndarray:
    """The k-th derivative of ``theta(t) = 0.8 sin(2 t) + 0.5 t``."""
    out = 0.8 * 2.0**k * np.sin(2 * t + k * np.pi / 2)
    return out + (0.5 * t if k == 0 else 0.5 if k == 1 else 0.0)


def position(t: np.ndarray, k: int) -> np.ndarray:
    """The k-th derivative of the origin's path (N, 3): along x, a bob in z, a sway in y."""
    p = np.stack([0.4 * 1.5**k * np.sin(1.5 * t + k * np.pi / 2),
                  0.1 * 3.0**k * np.sin(3 * t + k * np.pi / 2),
                  0.05 * 4.0**k * np.cos(4 * t + k * np.pi / 2)], axis=-1)
    if k == 0:
        p[:, 2] += 1.0
    return p


def motion(t: np.ndarray) -> Trajectory:
    """The flight as a trajectory of no joint with its base motion."""
    R = lie.rotation_exp(AXIS, angle(t, 0))
    w = [AXIS * angle(t, k + 1)[:, None] for k in range(K)]       # omega^(k), world frame
    p = [position(t, k) for k in range(K + 1)]
    Vs = np.empty((t.size, K, 6))
    for k in range(K):                                             # v^s = p' - omega x p
        Vs[:, k, :3] = w[k]
        Vs[:, k, 3:] = p[k + 1] - sum(comb(k, j) * np.cross(w[j], p[k - j]) for j in range(k + 1))
    base = api.base_motion(R, p[0], Vs=Vs)
    return Trajectory((), np.zeros((t.size, 1, 0)), t, base=base)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "free_body.csv"
    write_trajectory(out, motion(T))
    print(f"wrote {out}")
