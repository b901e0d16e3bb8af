"""hodyn's TOML writer: what it writes, the standard library reads back unchanged."""

import math
import sys

import pytest

from hodyn_cli.errors import HodynError
from hodyn_cli.io.toml_text import to_toml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_what_it_writes_reads_back_unchanged():
    table = {"version": 1, "joints": {
        "j1": {"gear_ratio": 100.0, "viscous": 0.5, "coulomb": 0, "elastic": False,
               "torque": [-87.0, 87.0], "note": 'a "quoted" name'},
        "joint with space": {"rotor_inertia": 1e-300, "jerk": math.inf}}}
    back = tomllib.loads(to_toml(table, "# written by a test"))
    assert back == table


def test_what_toml_cannot_hold_is_one_line():
    with pytest.raises(HodynError, match="^cannot write NoneType to TOML$"):
        to_toml({"a": None})
