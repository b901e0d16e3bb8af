"""``hodyn generate`` and the Python API give the same motion for the same arguments: the
options' defaults are in one place (:data:`hodyn_cli.algorithms.planning.generate.DEFAULTS`),
the command passes only the options given, and its ``--help`` names those defaults."""

import re

import h5py
import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import URDF
from hodyn_cli import api
from hodyn_cli.algorithms.planning.generate import DEFAULTS, generate
from hodyn_cli.cli.app import app
from hodyn_cli.errors import HodynError
from hodyn_cli.io import read_trajectory

IIWA = URDF / "iiwa14.urdf"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def written(tmp_path, *args):
    out = tmp_path / "out.h5"
    res = run("generate", IIWA, *args, "-o", out)
    assert res.exit_code == 0, res.output
    with h5py.File(out) as f:
        seed = f.attrs["seed"]
    return read_trajectory(str(out), api.load_robot(str(IIWA))), seed


def designed(kind, **options):
    pieces = list(api.design_motion(api.load_robot(str(IIWA)), kind, **options).chunks)
    return (np.concatenate([p.derivatives for p in pieces]),
            np.concatenate([p.t for p in pieces]))


@pytest.mark.parametrize("duration", [
    100, pytest.param(500, marks=pytest.mark.slow)])  # (500 s: 3.6 s of the test's time)
def test_a_long_fourier_path_is_the_same_from_the_command_and_the_api(tmp_path, duration):
    """100 s and 500 s at 200 Hz (2 x 10^4 and 10^5 samples, written in chunks of 2^14):
    the same bits as the API's generate with the same arguments."""
    out, seed = written(tmp_path, "--kind", "fourier", "--duration", duration, "--rate", 200)
    whole = generate(api.load_robot(str(IIWA)), "fourier", duration=duration, rate=200)
    assert out.n_samples == 200 * duration + 1 and seed == DEFAULTS["seed"]
    assert np.array_equal(out.derivatives, whole.derivatives)
    assert np.array_equal(out.t, whole.t)


@pytest.mark.parametrize("kind", ["cosine", "fourier", "filtered-step", "point-to-point"])
def test_every_kind_with_its_defaults_is_the_same_from_the_command_and_the_api(tmp_path,
                                                                                kind):
    out, seed = written(tmp_path, "--kind", kind)
    derivatives, t = designed(kind)
    assert out.derivatives.shape[1] == DEFAULTS["derivatives"] + 1
    assert np.array_equal(out.derivatives, derivatives) and np.array_equal(out.t, t)
    assert np.allclose(np.diff(out.t), 1 / DEFAULTS["rate"])


def test_the_seed_given_is_recorded_and_varies_the_motion(tmp_path):
    out, seed = written(tmp_path, "--kind", "cosine", "--seed", 3, "--duration", 1)
    assert seed == 3 and np.array_equal(out.derivatives, designed(
        "cosine", seed=3, duration=1)[0])
    assert not np.array_equal(out.derivatives, designed("cosine", duration=1)[0])


def test_the_help_names_the_librarys_defaults():
    text = " ".join(run("generate", "--help").output.split())
    for option, key in (("--rate", "rate"), ("--derivatives", "derivatives"),
                        ("--seed", "seed"), ("--base-frequency", "base_frequency"),
                        ("--harmonics", "harmonics"), ("--filter-order", "filter_order")):
        after = text[text.index(option + " "):]
        shown = re.search(r"default: ([0-9.]+)", after)
        assert shown and float(shown.group(1)) == DEFAULTS[key], (option, after[:200])


@pytest.mark.parametrize("kind", ["cosine", "excitation", "point-to-point"])
def test_a_negative_seed_is_refused_in_one_line(tmp_path, kind):
    """``--seed -1`` (numpy's generator takes whole numbers >= 0 alone) was an internal
    error, exit 3; the API's design refuses it likewise."""
    out = tmp_path / "out.csv"
    res = run("generate", URDF / "planar_2r.urdf", "--kind", kind, "--seed", -1, "-o", out)
    assert res.exit_code == 2, res.output
    assert res.output.strip() == "hodyn: error: --seed must be a whole number >= 0, got -1"
    assert not out.exists()
    with pytest.raises(HodynError, match="--seed must be a whole number >= 0, got 2.5"):
        next(api.design_motion(api.load_robot(str(URDF / "planar_2r.urdf")), kind,
                               seed=2.5).chunks)


@pytest.mark.parametrize("kind", ["cosine", "filtered-step"])
def test_an_option_of_none_is_its_default_in_the_api_as_in_the_command(kind):
    """``design_motion(..., rate=None, ...)``: the defaults, as the command's options not
    given (``rate=None`` was a TypeError, ``seed=None`` refused)."""
    nothing = dict.fromkeys(DEFAULTS) | {"duration": None, "coefficients": None}
    derivatives, t = designed(kind, **nothing)
    assert np.array_equal(derivatives, designed(kind)[0]) and np.array_equal(t, designed(kind)[1])
