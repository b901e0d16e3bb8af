"""Every MJCF model of dm_control's wheel through hodyn's reader (slow): the masses and
inertias of every body (those with a mesh too) equal MuJoCo's compiled ones to 1e-12, and
where hodyn builds the model tau equals
mj_inverse to 1e-9 of the torque scale and (fixed bases) taud, taudd the
time differences of MuJoCo's tau; the others are refused in one line for a reason
docs/mjcf.md names. ``python tests/test_mjcf_corpus.py`` prints the table of docs/mjcf.md."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import mjcf_reference as mjr  # noqa: E402  (skips the module where mujoco is missing)

from hodyn_cli.errors import ModelError  # noqa: E402
from hodyn_cli.modeling.urdf import load_model  # noqa: E402

dm_control = pytest.importorskip("dm_control")
PACKAGE = Path(dm_control.__file__).parent

#: the refusals hodyn may give a model MuJoCo compiles (docs/mjcf.md says why)
REFUSALS = ("several free bodies", "equality constraints", "hangs from the world")


def is_model(path: Path) -> bool:
    """A file MuJoCo compiles to a model with a body."""
    try:
        m = mjr.mujoco.MjModel.from_xml_path(str(path))
    except Exception:  # noqa: BLE001 - fragments, schemas, test files of bad models
        return False
    return m.nbody > 1


def corpus() -> list[Path]:
    """dm_control's models that MuJoCo compiles and that have a body."""
    return [path for path in sorted(PACKAGE.rglob("*.xml")) if is_model(path)]


def check(path: Path) -> dict:
    """One row of the table; asserts what must hold."""
    row = {"model": str(path.relative_to(PACKAGE)), "bodies": None, "inertia": None,
           "mesh": None, "joints": "", "tau": None, "taud": None, "taudd": None,
           "pinocchio": None, "refused": ""}
    try:
        row["bodies"] = len(mjr.inertia_errors(path))
        row["inertia"], row["mesh"] = mjr.assert_inertias(path)
        model = load_model(path)
    except ModelError as e:
        assert any(reason in e.message for reason in REFUSALS), e.message
        row["refused"] = e.message
        return row
    balls = model.joint_types.count("spherical")
    row["joints"] = f"{model.n}" + (f" ({balls} ball)" if balls else "") + (
        f" + free '{model.root_link}'" if model.root_link != "world" else "")
    if model.n:
        row["tau"] = mjr.torque_error(path, model)
        assert row["tau"] < 1e-9, path
        if model.root_link == "world":
            row["taud"], row["taudd"] = mjr.rate_errors(path, model)
            assert row["taud"] < 1e-8 and row["taudd"] < 1e-6, (path, row)
        row["pinocchio"] = mjr.pinocchio_error(path, model)
    return row


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.xml")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_corpus(path):
    """Each of dm_control's XML files that is a model (:func:`is_model`, asked here: asked of
    every file at collection, as the parameters, it cost every worker 4 s of every run's
    collection, the slow tests left out or not)."""
    if not is_model(path):
        pytest.skip("not a model MuJoCo compiles with a body")
    check(path)


def table() -> str:
    """The markdown table of docs/mjcf.md."""
    def num(v):
        return "-" if v is None else f"{v:.1e}"

    lines = ["| model | bodies | inertia (rel.) | joints | tau vs mj_inverse | taud, taudd vs "
             "differences | Pinocchio |", "| --- | ---: | ---: | --- | ---: | ---: | ---: |"]

    def inertia(r):  # bodies with a mesh apart
        return num(r["inertia"]) + (f" (meshes {r['mesh']:.0e})" if r["mesh"] else "")

    for path in corpus():
        r = check(path)
        if r["refused"]:
            why = r["refused"].split(", which")[0].split(" (hodyn's")[0].split(" (joint c")[0]
            lines.append(f"| {r['model']} | {r['bodies'] or '-'} | {inertia(r)} | "
                         f"refused: {why} | | | |")
            continue
        rates = "-" if r["taud"] is None else f"{r['taud']:.1e}, {r['taudd']:.1e}"
        pin = "not read" if r["pinocchio"] is None and r["tau"] is not None else num(
            r["pinocchio"])
        lines.append(f"| {r['model']} | {r['bodies']} | {inertia(r)} | {r['joints']} | "
                     f"{num(r['tau'])} | {rates} | {pin} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
