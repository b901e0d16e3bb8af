"""Memory is bounded by a chunk, not by the file, on every command: generate writes 1.2M
samples and validate reads them (0.36 GB of HDF5); the others read a million samples of the
2R or 600 000 of the iiwa (below); each under 300 MB of peak RSS (measured in the child
process: VmHWM). compute's own bound (HDF5 and CSV) is in test_streaming,
--estimate-derivatives' in test_estimate_error."""

import h5py
import numpy as np
import pytest

from conftest import URDF, peak_rss_mib
from hodyn_cli.core.trajectory import cosine
from hodyn_cli.modeling.urdf import load_model

IIWA = URDF / "iiwa14.urdf"


@pytest.mark.slow
def test_generate_and_validate_stay_bounded(tmp_path):
    big = tmp_path / "big.h5"
    rss = peak_rss_mib(["generate", str(IIWA), "--kind", "fourier", "--rate", "1000",
                        "--duration", "1200", "-o", str(big)])
    assert rss < 300, f"generate: {rss:.0f} MiB"
    with h5py.File(big) as f:
        assert f["q"].shape == (1_200_001, 7) and big.stat().st_size > 300e6
    rss = peak_rss_mib(["validate", str(IIWA), str(big), "--samples", "200"])
    assert rss < 300, f"validate: {rss:.0f} MiB"



#: a million samples, q..qdddd (the 2R's: 80 MB of HDF5; the iiwa's, 600 000: 168 MB): every
#: command's peak RSS must stay under the bound whatever it keeps per sample; each output
#: below is larger than the bound's margin (the 2R's matrices, sensitivities, regressor with
#: its base columns: 336-420 MB), so holding it would fail
MILLION = 1_000_000


def _million(path, robot: str, offset=0.0, samples: int = MILLION):
    model = load_model(URDF / robot)
    t = np.arange(samples) * 1e-3
    with h5py.File(path, "w") as f:  # written in pieces: this test process stays small too
        f.attrs["joint_names"] = list(model.joint_names)
        f.create_dataset("t", data=t)
        sets = [f.create_dataset("q" + "d" * k, shape=(samples, model.n), dtype="f8")
                for k in range(5)]
        for s in range(0, samples, 200_000):
            piece = cosine(model.joint_names, t[s : s + 200_000], amplitude=0.5, omega=1.3,
                           phase=np.arange(model.n), offset=offset, orders=4)
            for k, ds in enumerate(sets):
                ds[s : s + 200_000] = piece.derivatives[:, k]
    return path


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    # away from the iiwa's singular poses (joint 2, 4 or 6 at 0), so that ik can follow it;
    # 600 000 samples (168 MB) are enough here: what these commands would hold (input and
    # output, the flange's motion: 290 MB) exceeds the bound already
    return _million(tmp_path_factory.mktemp("million") / "iiwa.h5", "iiwa14.urdf",
                    offset=[0, 0.8, 0, -1.2, 0, 1.0, 0], samples=600_000)


@pytest.fixture(scope="module")
def million_2r(tmp_path_factory):
    return _million(tmp_path_factory.mktemp("million") / "2r.h5", "planar_2r.urdf")


@pytest.mark.slow
@pytest.mark.parametrize("command, args", [
    ("matrices", ["--order", "2"]),
    ("sensitivities", ["--order", "2"]),
    ("regressor", ["--order", "1", "--base"]),
])
def test_big_outputs_of_a_million_samples_stay_bounded(million_2r, tmp_path, command, args):
    out = tmp_path / "out.h5"
    rss = peak_rss_mib([command, str(URDF / "planar_2r.urdf"), str(million_2r), *args, "-o",
                        str(out), "-q"])
    assert rss < 300, f"{command}: {rss:.0f} MiB"
    assert out.stat().st_size > 300e6


@pytest.mark.slow
@pytest.mark.parametrize("command, args", [
    ("compute", ["--drives", str(URDF / "iiwa14_motors.toml")]),
    ("check", ["--limits", str(URDF / "iiwa14_limits.toml")]),
    ("retime", ["--to-limits", "--limits", str(URDF / "iiwa14_limits.toml")]),
], ids=["compute-drives", "check", "retime"])
def test_every_command_on_a_million_samples_stays_bounded(million, tmp_path, command, args):
    out = [] if command == "check" else ["-o", str(tmp_path / "out.h5")]
    rss = peak_rss_mib([command, str(IIWA), str(million), *args, *out, "-q"])
    assert rss < 300, f"{command}: {rss:.0f} MiB"


@pytest.mark.slow
def test_kinematics_and_ik_on_a_million_samples_stay_bounded(million, tmp_path):
    """The flange's motion of 600 000 samples and back (6 joints: one locked)."""
    ee, joints = tmp_path / "ee.h5", tmp_path / "joints.h5"
    lock = ["--lock", "iiwa_joint_3=0"]
    rss = peak_rss_mib(["kinematics", str(IIWA), str(million), "--link", "iiwa_link_ee",
                        "--order", "2", *lock, "-o", str(ee), "-q"])
    assert rss < 300, f"kinematics: {rss:.0f} MiB"
    rss = peak_rss_mib(["ik", str(IIWA), str(ee), "--link", "iiwa_link_ee", *lock,
                        "-o", str(joints), "-q"])
    assert rss < 300, f"ik: {rss:.0f} MiB"
    with h5py.File(joints) as f:
        assert f["q"].shape == (600_000, 6) and ee.stat().st_size > 250e6


@pytest.mark.slow
def test_identify_streams_a_long_log(million, tmp_path):
    """hodyn identify of 600 000 samples (q, qd, qdd and the torques compute gives them): the
    log streams through the fit chunk by chunk, its peak RSS under the bound (it held the log
    whole before, ~0.28 kB a sample: ~300 MiB here)."""
    import shutil

    tau, log = tmp_path / "tau.h5", tmp_path / "log.h5"
    peak_rss_mib(["compute", str(IIWA), str(million), "--order", "0", "-o", str(tau), "-q"])
    shutil.copy(million, log)
    with h5py.File(tau) as src, h5py.File(log, "a") as dst:
        dst.create_dataset("tau", data=src["tau"][:])
    rss = peak_rss_mib(["identify", str(IIWA), str(log), "-o", str(tmp_path / "id.urdf"), "-q"])
    assert rss < 220, f"identify: {rss:.0f} MiB"
    assert (tmp_path / "id.urdf").stat().st_size > 1000
