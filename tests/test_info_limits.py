"""``hodyn info MODEL.xml --limits-toml F`` on a model that gives no limit to export (its
actuators all on tendons, as dm_control's point_mass; none at all, as its swimmer.xml): the
file says why in a comment and info warns in one line, naming the actuators; the file is
still TOML, and check refuses it as before ("no limits"). Before, the file held its header
alone and info noticed "0 joint(s)"."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hodyn_cli.cli.app import app

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BODY = """<worldbody><body name="b"><joint name="x" type="slide" axis="1 0 0"/>
<joint name="y" type="slide" axis="0 1 0"/><geom type="sphere" size="0.05" mass="0.3"/>
</body></worldbody>"""
TENDONS = """<tendon><fixed name="t1"><joint joint="x" coef="1"/></fixed>
<fixed name="t2"><joint joint="y" coef="1"/></fixed></tendon>"""


def _info(tmp_path: Path, xml: str) -> tuple[list[str], str]:
    """(info's stderr lines about the limits file, the file's text)."""
    model = tmp_path / "m.xml"
    model.write_text(f'<mujoco model="m">{xml}</mujoco>')
    limits = tmp_path / "l.toml"
    result = CliRunner().invoke(app, ["info", str(model), "--limits-toml", str(limits), "-q"])
    assert result.exit_code == 0, result.output
    return [line for line in result.stderr.splitlines() if "l.toml" in line], \
        limits.read_text()


def test_actuators_on_tendons_are_named_in_the_file_and_in_one_warning(tmp_path):
    lines, text = _info(tmp_path, BODY + TENDONS + '<actuator><motor name="m1" tendon="t1" '
                        'ctrlrange="-1 1"/><motor name="m2" tendon="t2"/></actuator>')
    why = ("its actuators 'm1' (tendon 't1'), 'm2' (tendon 't2') drive no hinge or slide")
    assert len(lines) == 1 and "no limits" in lines[0] and why in lines[0], lines
    assert "0 joint(s)" not in lines[0]
    assert f"# none: {why}" in text and "no joint has an actuatorfrcrange" in text
    assert tomllib.loads(text) == {}  # (comments: the file as hodyn reads it, empty)
    check = CliRunner().invoke(app, ["check", str(tmp_path / "m.xml"), "-",
                                     "--limits", str(tmp_path / "l.toml")], input="t,x,y\n")
    assert check.exit_code == 2 and "no limits" in check.stderr, check.output


def test_no_actuator_and_actuators_without_ranges_say_so(tmp_path):
    lines, text = _info(tmp_path, BODY)
    assert len(lines) == 1 and "the model has no <actuator>" in lines[0], lines
    assert "# none: the model has no <actuator>" in text
    _, text = _info(tmp_path, BODY + TENDONS + '<actuator><motor name="m1" joint="x"/>'
                    '<motor name="m2" tendon="t2"/></actuator>')
    assert "'m2' (tendon 't2')" in text and "joints' actuators have no forcerange" in text


def test_a_limited_actuator_exports_as_before(tmp_path):
    lines, text = _info(tmp_path, BODY + '<actuator><motor name="m1" joint="x" '
                        'ctrlrange="-2 2"/></actuator>')
    assert lines == [] and "# none" not in text  # (-q: the count's notice is quiet)
    assert tomllib.loads(text) == {"joints": {"x": {"motor_torque": 2.0}}}


def test_dm_controls_point_mass(tmp_path):
    spec = importlib.util.find_spec("dm_control")  # (its files alone: importing it is ~1.5 s)
    if spec is None or spec.origin is None:
        pytest.skip("dm_control is not installed")
    model = Path(spec.origin).parent / "suite" / "point_mass.xml"
    result = CliRunner().invoke(app, ["info", str(model), "--limits-toml",
                                      str(tmp_path / "l.toml"), "-q"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "l.toml").read_text()
    assert "'t1' (tendon 't1'), 't2' (tendon 't2')" in text and "no limits" in result.stderr
