"""Identify the iiwa's base parameters from noisy torques (docs/identification.md), and with
its drives the rotor inertias and friction from noisy motor torques (docs/drives.md).

Run: ``python docs/examples/identify_iiwa.py``. Simulated measurements: the URDF's
parameters drive an exciting motion (four harmonics per joint); 1 % noise is added to the
torques; least squares on the base-parameter regressor recovers the parameters, checked by
predicting the torques of a new motion. With the drives of ``urdf/iiwa14_motors.toml``
(friction on the joint side for joints 1-4, on the motor side for 5-7, gear efficiencies),
the measurements are motor torques referred to the joint, ``r eta tau_m`` (what ``r eta k_t``
times a measured current gives), and the regressor gains the columns of the rotor inertias
and of each drive's viscous, Coulomb and offset friction.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hodyn_cli import api
from hodyn_cli.algorithms.dynamics import regressor as R
from hodyn_cli.algorithms.dynamics.methods import inverse_dynamics
from hodyn_cli.core.trajectory import Trajectory, cosine
from hodyn_cli.modeling.drives import read_drives
from hodyn_cli.modeling.urdf import load_model

ROOT = Path(__file__).resolve().parents[2]


def motion(model, t, seed, harmonics, scale=1.0):
    """A sum of cosines per joint with exact derivatives (random amplitudes, frequencies)."""
    rng = np.random.default_rng(seed)
    parts = [cosine(model.joint_names, t, amplitude=scale * rng.uniform(0.3, 1.0, model.n),
                    omega=rng.uniform(0.5, 2.5, model.n), phase=rng.uniform(0, 6.3, model.n),
                    orders=3) for _ in range(harmonics)]
    return Trajectory(model.joint_names, sum(p.derivatives for p in parts) / harmonics**0.5, t)


def identify(harmonics: int = 4, noise: float = 0.01, seed: int = 5):
    """(base parameters, estimate, truth, relative prediction error on a new motion)."""
    model = load_model(ROOT / "urdf" / "iiwa14.urdf")
    base = R.base_parameters(model)
    excite = motion(model, np.linspace(0, 20, 2000), seed, harmonics)
    Yb = R.regressor(model, excite, order=0)[:, 0][..., base.independent]
    tau = inverse_dynamics(model, excite, order=0)[:, 0]
    rng = np.random.default_rng(seed)
    measured = tau + rng.normal(scale=noise * np.abs(tau).max(), size=tau.shape)
    A = Yb.reshape(-1, len(base.independent))
    estimate = np.linalg.lstsq(A, measured.ravel(), rcond=None)[0]
    truth = base.base_map @ R.parameters(model)
    check = motion(model, np.linspace(0, 5, 300), seed + 100, 3)
    Yc = R.regressor(model, check, order=0)[:, 0][..., base.independent]
    error = np.abs(Yc @ estimate - Yc @ truth).max() / np.abs(Yc @ truth).max()
    condition = np.linalg.cond(A / np.abs(A).max(axis=0))
    return base, estimate, truth, error, condition


@dataclass
class DriveIdentification:
    """What :func:`identify_drives` found: the parameter names, the base parameters'
    estimate and truth, each friction parameter's relative error, and the relative error of
    the motor torques predicted for a new motion (of their peak)."""

    names: list[str]
    estimate: np.ndarray
    truth: np.ndarray
    friction_error: np.ndarray
    prediction_error: float


def identify_drives(noise: float = 0.005, seed: int = 5, samples: int = 20000,
                    scale: float = 2.0) -> DriveIdentification:
    """Link, rotor and friction parameters from motor torques with ``noise`` (of each joint's
    peak) on an exciting motion of ``samples`` samples over 200 s, of twice the amplitude of
    :func:`identify`'s (joint 2's offset competes with its gravity torque, a function of
    cos q2 and sin q2: a wider swing tells them apart)."""
    model = load_model(ROOT / "urdf" / "iiwa14.urdf")
    drives = read_drives(ROOT / "urdf" / "iiwa14_motors.toml", model)
    options = {"drives": drives, "friction": True, "armature": True}
    base = api.regressor_basis(model, **options)
    truth = base.base_map @ api.regressor_parameters(model, **options)[1]
    reta = drives.gear_ratio * drives.gear_efficiency

    def measure(traj):  # r eta tau_m (N, n) and the base regressor (N, n, p)
        taum = api.drive_dynamics(model, drives, traj, order=0).taum
        return reta * taum, api.dynamic_regressor(model, traj, base=base, **options).Y_base

    tau, Yb = measure(motion(model, np.linspace(0, 200, samples), seed, 4, scale))
    rng = np.random.default_rng(seed)
    measured = tau + rng.normal(size=tau.shape) * noise * np.abs(tau).max(axis=0)
    estimate = np.linalg.lstsq(Yb.reshape(-1, len(truth)), measured.ravel(), rcond=None)[0]
    friction = [i for i, name in enumerate(base.names)
                if name.split("_")[0] in ("viscous", "coulomb", "offset")]
    error = np.abs(estimate[friction] - truth[friction]) / np.abs(truth[friction])
    ref, Yc = measure(motion(model, np.linspace(0, 5, 300), seed + 100, 3))
    prediction = np.abs(Yc @ estimate - ref).max() / np.abs(ref).max()
    return DriveIdentification(base.names, estimate, truth, error, prediction)


if __name__ == "__main__":
    for h in (4, 1):
        base, estimate, truth, error, condition = identify(harmonics=h)
        print(f"{h} harmonic(s) per joint: {len(base.independent)} base parameters, condition "
              f"number {condition:.3g}, torque prediction error {100 * error:.2f} % of peak")
    found = identify_drives()
    print(f"with the drives: {len(found.truth)} base parameters, friction within "
          f"{100 * found.friction_error.max():.2f} %, motor torque prediction error "
          f"{100 * found.prediction_error:.2f} % of peak")
