"""Simulate an MJCF model with MuJoCo and save its states as MuJoCo users do: ``qpos``,
``qvel``, ``qacc``, ``time`` per step in a ``.npz`` (or, for ``.h5``, an HDF5 file), the input
of ``hodyn import LOG --urdf MODEL.xml`` (docs/mjcf.md).

The model starts at rest, 0.3 rad (m) off its ``qpos0``, and is driven for 1 s by the
generalized force ``0.5 sin(3 t + k)`` on its k-th degree of freedom (``qfrc_applied``,
saved too). Needs ``mujoco`` (``pip install mujoco``). Run: ``python
docs/examples/mujoco_log.py MODEL.xml OUT.npz``.
"""

import sys

import numpy as np


def main(model_path: str, out: str) -> None:
    import mujoco  # only to run it: the docs' doctests import this file

    m = mujoco.MjModel.from_xml_path(model_path)
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0 + 0.3
    log: dict[str, list] = {k: [] for k in ("qpos", "qvel", "qacc", "time", "qfrc_applied")}
    for step in range(round(1.0 / m.opt.timestep)):  # (steps, not time: see below)
        d.qfrc_applied[:] = 0.5 * np.sin(3 * d.time + np.arange(m.nv))
        mujoco.mj_forward(m, d)  # qacc of this state (mj_step would move on first)
        for key, values in log.items():
            values.append(np.array(getattr(d, key), copy=True))
        mujoco.mj_step(m, d)
        if d.time == 0.0:  # MuJoCo resets a diverged simulation (its time too)
            raise SystemExit(f"{model_path}: MuJoCo's simulation diverged at step {step}")
    arrays = {k: np.array(v) for k, v in log.items()}
    if out.endswith((".h5", ".hdf5")):
        import h5py

        with h5py.File(out, "w") as f:
            for k, v in arrays.items():
                f[k] = v
    else:
        np.savez(out, **arrays)
    print(f"{out}: {len(arrays['time'])} samples, nq = {m.nq}, nv = {m.nv}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
