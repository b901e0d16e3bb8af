"""A MuJoCo model's drives and limits written as hodyn's files (``hodyn info MODEL.xml
--drives-toml F --limits-toml F``): :func:`hodyn_cli.modeling.mjcf_drives.mujoco_drives`
says what maps to what."""

from __future__ import annotations

from pathlib import Path

from hodyn_cli.core.model import Diagnostic, Model
from hodyn_cli.errors import HodynError
from hodyn_cli.io.paths import write_text
from hodyn_cli.io.toml_text import to_toml
from hodyn_cli.pipeline.protocols import Notify, tell

__all__ = ["write_mjcf_drives"]


def write_mjcf_drives(robot: str | Path, model: Model, *, drives: str | None = None,
                      limits: str | None = None, notify: Notify = None) -> None:
    """Write the drives file (``drives``) and the limits file (``limits``) of the MJCF model
    ``robot`` (``model``: its model), each atomically and none if one cannot be; ``notify``
    hears what is not exported."""
    from hodyn_cli.modeling.mjcf_drives import mujoco_drives
    from hodyn_cli.modeling.mjcf_root import is_mjcf

    if not is_mjcf(Path(robot).read_bytes()):
        raise HodynError("--drives-toml and --limits-toml export a MuJoCo model's (MJCF) "
                         "parameters; a URDF's drives file is written by hand (docs/drives.md)",
                         str(robot))
    found = mujoco_drives(robot, model)
    header = f"# {{}} of the MuJoCo model {Path(robot).name} as hodyn info exports them{{}}"
    # (an empty limits file says why in itself: check and retime refuse it, "no limits")
    empty = f"\n# none: {found.unlimited}.\n# hodyn check and retime refuse a file without " \
        "limits: add [joints.<name>] tables (torque, velocity, ...) by hand" \
        if found.unlimited else ""
    outputs = {path: to_toml({"joints": table}, header.format(kind, why)) for path, table, kind, why
               in ((drives, found.drives, "drives", " (docs/mjcf.md): compute with --model "
                    "reflected for MuJoCo's armature"), (limits, found.limits, "limits", empty))
               if path}
    for path in outputs:  # none written if one cannot be
        if not Path(path).parent.is_dir():
            raise HodynError(f"directory '{Path(path).parent}' does not exist", path)
    for path, text in outputs.items():
        write_text(path, text)
    tell(notify, [Diagnostic("notice", f"{robot}: {note}") for note in found.notes]
         + [Diagnostic("notice", f"{path}: {len(table)} joint(s)") for path, table in (
             (drives, found.drives), (limits, found.limits)) if path
            and not (table is found.limits and found.unlimited)]
         + ([Diagnostic("warning", f"{limits}: no limits (check and retime refuse it): "
                                   f"{found.unlimited}")] if limits and found.unlimited else []))
