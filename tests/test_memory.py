"""Memory is bounded by a chunk, not by the file, on the commands that once read files whole:
generate writes 2M samples and validate reads them (0.6 GB of HDF5), each under 300 MB of
peak RSS (measured in the child process: VmHWM). compute's own bound is in test_streaming."""

import h5py
import pytest

from conftest import URDF, peak_rss_mib

IIWA = URDF / "iiwa14.urdf"


@pytest.mark.slow
def test_generate_and_validate_stay_bounded(tmp_path):
    big = tmp_path / "big.h5"
    rss = peak_rss_mib(["generate", str(IIWA), "--kind", "fourier", "--rate", "1000",
                        "--duration", "2000", "-o", str(big)])
    assert rss < 300, f"generate: {rss:.0f} MiB"
    with h5py.File(big) as f:
        assert f["q"].shape == (2_000_001, 7) and big.stat().st_size > 500e6
    rss = peak_rss_mib(["validate", str(IIWA), str(big), "--samples", "200"])
    assert rss < 300, f"validate: {rss:.0f} MiB"
