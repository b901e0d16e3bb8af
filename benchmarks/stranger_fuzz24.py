"""``hodyn retime --optimal`` on random variants of stranger_sweep22's rows: the waypoints
of every path class moved by a random share of each joint's half range, on a random limb at a
random input rate, with the URDF's limits or a torque that binds (issue 37's goals 1 and 2 on
paths nobody chose).

    python benchmarks/stranger_fuzz24.py [--seed N] [--count N] [--json rows.json]
                                         [--paths p2p,zig,...] [--modes vt,tbind]

Each row ``N`` is drawn from ``numpy.random.default_rng(N)``: the limb (:data:`LIMBS`), the
path class (stranger_sweep22's, :data:`PATHS` by default), the rate (20 Hz, 100 Hz twice as
likely, 1 kHz, 10 kHz; a path of many rest-to-rest pieces at 1 kHz for 10 kHz), the mode, and
the shift: each joint's waypoints moved by a uniform share in +-:data:`SHIFT` of its half range
(stranger_optimal.waypoints; ``fourier9`` is generate's and moves not). The row is run as
stranger_sweep22.one runs its own: the output through ``hodyn check`` and ``hodyn validate``,
pinocchio's recomputation of its velocities and torques, its stray off the input's path, and
toppra on the same path with the same limits. ``--seed`` is the first row's; a row is
rerun alone with ``--seed N --count 1``. Inputs and outputs stay in ``--keep`` (default
/tmp/fuzz24/in).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import stranger_optimal as so  # noqa: E402
import stranger_sweep17 as s17  # noqa: E402
import stranger_sweep22 as s22  # noqa: E402

#: label -> (URDF in example-robot-data, the joints that move or None: all, extra flags):
#: sweep22's arms and two of its legs, and three arms of the earlier sweeps
LIMBS = {
    **{label: s22.ROBOTS[label] for label in ("xarm7", "ur10-lim", "z1-g")},
    "ur5-lim": ("ur_description/urdf/ur5_joint_limited_robot.urdf", None, []),
    "panda": ("panda_description/urdf/panda.urdf", [f"panda_joint{k}" for k in range(1, 8)],
              []),
    "kinova": ("kinova_description/robots/kinova.urdf",
               [f"j2s6s200_joint_{k}" for k in range(1, 7)], []),
    **{label: s22.ROBOTS[label] for label in ("alex-rleg", "a1-leg")},
}
PATHS = ("p2p", "zig", "mid", "line5", "loop", "dwell", "lissa", "endmove", "bothmove",
         "fourier9", "long", "tiny")
#: the input rates drawn from (100 Hz twice as likely)
RATES = (20.0, 100.0, 100.0, 1e3, 1e4)
#: paths of several rest-to-rest pieces, at 10 kHz 10^4-10^5 samples: drawn at 1 kHz instead
#: (``long`` has 3 x 10^4 at any rate)
LONG_AT_10K = ("zig", "p2p", "dwell", "loop", "line5")
#: the largest share of a joint's half range its waypoints are moved by
SHIFT = 0.25


def drawn(seed: int, paths: list[str], modes: list[str]) -> tuple[str, str, float, str,
                                                                     np.ndarray]:
    """Row ``seed``'s (limb, path, rate, mode, shift), drawn in that order but the mode last
    (and only where there is a choice)."""
    rng = np.random.default_rng(seed)
    label, path = str(rng.choice(list(LIMBS))), str(rng.choice(paths))
    rate = float(rng.choice(RATES))
    if rate == 1e4 and path in LONG_AT_10K:
        rate = 1e3
    shift = rng.uniform(-SHIFT, SHIFT, 8)
    return label, path, rate, str(rng.choice(modes)) if len(modes) > 1 else modes[0], shift


def main() -> None:
    parser = s17.arguments(__doc__.splitlines()[0], Path("/tmp/fuzz24/in"))
    parser.add_argument("--seed", type=int, default=2000)
    parser.add_argument("--count", type=int, default=80)
    parser.add_argument("--paths", default=",".join(PATHS))
    parser.add_argument("--modes", default="vt")
    args = parser.parse_args()
    if args.summary:
        s22.summary(json.loads(args.summary.read_text()))
        return
    args.keep.mkdir(parents=True, exist_ok=True)
    s22.ROBOTS.update(LIMBS)
    plain, shift = so.waypoints, [None]

    def moved(model, shares, extra=None):  # (every design's waypoints, moved by the row's)
        return plain(model, shares, shift[0] + (0 if extra is None else np.array(extra)))

    so.waypoints = s17.waypoints = moved
    rows = []
    for seed in range(args.seed, args.seed + args.count):
        label, path, rate, mode, shift[0] = drawn(seed, args.paths.split(","),
                                                  args.modes.split(","))
        s22.PEERS.clear()  # (toppra's durations are kept per path class: this row's own)
        started = time.perf_counter()
        row = s22.one(args.keep, label, path, rate, mode, not args.no_peer)
        row.update(seed=seed, shift=shift[0].tolist(), elapsed=time.perf_counter() - started)
        rows.append(row)
        s22.show(row)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1, default=str))
    s22.summary(rows)


if __name__ == "__main__":
    main()
