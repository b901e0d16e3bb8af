"""Property-based tests (hypothesis): readers and URDF checks on random valid inputs
(round trips) and random corruptions (one-line errors, exit 2, nothing written)."""

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import URDF
from hodyn_cli.cli.app import app
from hodyn_cli.core.trajectory import Trajectory
from hodyn_cli.errors import HodynError, ModelError
from hodyn_cli.io import read_trajectory, write_trajectory
from hodyn_cli.modeling.urdf import load_model, parse_model

MODEL = load_model(URDF / "planar_2r.urdf")
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)


@SETTINGS
@given(N=st.integers(1, 30), D=st.integers(1, 6), ext=st.sampled_from(["csv", "h5"]),
       data=st.data())
def test_valid_trajectories_round_trip_exactly(tmp_path_factory, N, D, ext, data):
    values = np.array(data.draw(st.lists(finite, min_size=N * D * 2, max_size=N * D * 2)))
    t = np.cumsum(np.array(data.draw(st.lists(st.floats(1e-6, 10.0), min_size=N, max_size=N))))
    traj = Trajectory(MODEL.joint_names, values.reshape(N, D, 2), t)
    path = str(tmp_path_factory.mktemp("rt") / f"traj.{ext}")
    write_trajectory(path, traj)
    back = read_trajectory(path, MODEL, need=D)
    assert np.array_equal(back.derivatives, traj.derivatives) and np.array_equal(back.t, t)


GARBAGE = st.one_of(st.sampled_from(["", "abc", "1.2.3", "0x", "--", "1e", "∞", "nan(", "1,5"]),
                    st.text(alphabet="xyz!?#", min_size=1, max_size=5))


@SETTINGS
@given(row=st.integers(0, 9), col=st.integers(0, 6), junk=GARBAGE,
       kind=st.sampled_from(["cell", "drop field", "extra field"]))
def test_corrupt_csv_rows_are_one_line_errors(tmp_path_factory, row, col, junk, kind):
    work = tmp_path_factory.mktemp("bad")
    traj = Trajectory(MODEL.joint_names, np.random.default_rng(row).normal(size=(10, 3, 2)),
                      np.arange(10) * 0.1)
    src = work / "traj.csv"
    write_trajectory(str(src), traj)
    lines = src.read_text().splitlines()
    fields = lines[row + 1].split(",")
    if kind == "cell":
        fields[col] = junk
    elif kind == "drop field":
        del fields[col]
    else:
        fields.insert(col, "1.0")
    lines[row + 1] = ",".join(fields)
    src.write_text("\n".join(lines) + "\n")
    out = work / "tau.h5"
    result = CliRunner().invoke(app, ["compute", str(URDF / "planar_2r.urdf"), str(src),
                                      "--order", "0", "-o", str(out)])
    if kind == "cell" and junk.strip() in ("", "nan("):
        assert result.exit_code == 2  # an empty cell or junk: still an error, named
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"hodyn: error: {src}: line {row + 2}")
    assert not out.exists() and not list(work.glob(".tau*"))


positive = st.floats(min_value=1e-4, max_value=1e3)


def link_xml(mass, dims, xyz, rpy):
    L = np.array(dims)
    I = mass / 12 * np.array([L[1]**2 + L[2]**2, L[0]**2 + L[2]**2, L[0]**2 + L[1]**2])
    return (f'<link name="l1"><inertial><origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}" rpy="{rpy[0]} '
            f'{rpy[1]} {rpy[2]}"/><mass value="{mass}"/><inertia ixx="{I[0]}" ixy="0" ixz="0" '
            f'iyy="{I[1]}" iyz="0" izz="{I[2]}"/></inertial></link>')


def robot_text(link):
    return (f'<robot name="r"><link name="base"/><joint name="j1" type="revolute"><parent '
            f'link="base"/><child link="l1"/><axis xyz="0 0 1"/></joint>{link}</robot>')


@SETTINGS
@given(mass=positive, dims=st.tuples(positive, positive, positive),
       xyz=st.tuples(*[st.floats(-1e3, 1e3)] * 3),
       rpy=st.tuples(st.floats(-6.3, 6.3), st.floats(-6.3, 6.3), st.floats(-6.3, 6.3)))
def test_valid_links_parse_to_their_mass_and_com(mass, dims, xyz, rpy):
    model = parse_model(robot_text(link_xml(mass, dims, xyz, rpy)).encode())
    assert np.isclose(model.mass[0], mass) and np.allclose(model.com[0], xyz, atol=1e-9)
    assert np.linalg.eigvalsh(model.inertias[0]).min() >= -1e-9 * np.abs(model.inertias[0]).max()


@SETTINGS
@given(attr=st.sampled_from(["value", "ixx", "iyy", "izz", "ixy", "xyz", "rpy", "name"]),
       junk=GARBAGE)
def test_corrupt_urdf_attributes_are_model_errors_naming_the_link(attr, junk):
    import re

    assume(junk.strip())  # an empty prefix corrupts nothing
    text = robot_text(link_xml(1.0, (0.1, 0.2, 0.3), (0, 0, 0.1), (0, 0, 0)))
    key = ' name="l1' if attr == "name" else f' {attr}="'  # the link's name, not the robot's
    old = re.search(f' {attr}="([^"]*)"', text[text.index(key) - 1:]).group(1)
    corrupted = text.replace(key, key + junk if attr != "name" else f' name="{junk}l1', 1)
    new = junk + old
    if attr == "name":
        still_valid = False  # the link is renamed: the joint's child no longer exists
    else:
        try:
            still_valid = all(np.isfinite(float(v)) for v in new.split()) and \
                len(new.split()) == len(old.split())
        except ValueError:
            still_valid = False
    try:
        parse_model(corrupted.encode())
    except ModelError as e:
        assert "\n" not in str(e) and re.search(r"'(l1|j1|\w*l1\w*)'", str(e)), str(e)
        return
    except HodynError as e:  # pragma: no cover - the wrong kind of error
        raise AssertionError(f"not a ModelError: {e}") from None
    assert still_valid, f"{attr}={new!r} was accepted"
