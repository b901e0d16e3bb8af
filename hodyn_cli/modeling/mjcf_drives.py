"""MuJoCo's joint and actuator parameters as a drives file and a limits file (``hodyn info
MODEL.xml --drives-toml DRIVES.toml --limits-toml LIMITS.toml``; docs/mjcf.md, docs/drives.md).

MuJoCo's generalized force of a hinge or slide J driven by actuators with a joint
transmission of gear g is ``qfrc_J = g u`` (u: the actuator force, ``actuator_force``), and
``mj_inverse`` puts the joint's ``armature`` a and ``damping`` b on it::

    qfrc_inverse,J = tau_J + a qdd_J + b qd_J

hodyn's rigid drive of the reflected model (``--model reflected``, docs/drives.md) gives
``taum = (tau + f_J) / (r eta) + I r qdd`` with joint-side friction ``f_J = viscous qd``.
With ``gear_ratio = g``, ``rotor_inertia = a / g^2`` (so that ``I r^2 = a``) and ``viscous =
b``, ``taum_J = qfrc_inverse,J / g``: the actuator force MuJoCo needs. So ``forcerange``
bounds ``taum`` (the limits file's ``motor_torque``), as does a ``<motor>``'s ``ctrlrange``
(its force is its control), and the joint's ``actuatorfrcrange`` bounds ``g u``, the joint
torque (``torque``). A joint with armature or damping but no actuator gets ``gear_ratio = 1``.

Not exported (a note each): ``frictionloss`` (MuJoCo's dry friction is a constraint force, a
drives file's ``coulomb`` a smooth law), ``stiffness``/``springref`` (a passive joint spring;
a drives file's ``stiffness`` is a series-elastic drive), the armature and damping of a ball
joint (three dofs in MuJoCo; a drive is a 1-DOF joint's) and actuators on it, actuators on
tendons, sites or bodies, a ``<position>``'s ``ctrlrange`` (targets, not forces), the asymmetry of a range
(limits are magnitudes: the larger one is kept), the gears of a joint's second actuator.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hodyn_cli.core.model import Model
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.mjcf_xml import Body, Joint, parse_xml, read_document

__all__ = ["MujocoDrives", "mujoco_drives"]

#: actuator attributes that name what it drives, and the kind of thing they name
TRANSMISSIONS = {"joint": "joint", "jointinparent": "joint", "tendon": "tendon",
                 "site": "site", "body": "body", "cranksite": "slider-crank"}


@dataclass(frozen=True, eq=False, repr=False)
class MujocoDrives:
    """``drives``, ``limits``: joint name -> the table of a drives file / limits file (as
    :func:`hodyn_cli.modeling.drives.read_drives` and :func:`hodyn_cli.modeling.limits.
    read_limits` read them); ``notes``: what was not exported, one line each; ``unlimited``:
    where ``limits`` is empty, why (one line: the limits file would have no joint, which
    hodyn's commands refuse), else ""."""

    drives: dict[str, dict[str, float]]
    limits: dict[str, dict[str, float]]
    notes: tuple[str, ...]
    unlimited: str


def mujoco_drives(path: str | Path, model: Model) -> MujocoDrives:
    """The drives and limits of the MJCF file ``path`` (module docstring) for the joints of
    ``model`` (the model of that file)."""
    path = Path(path)
    source = str(path)
    doc = read_document(parse_xml(path.read_bytes(), source), path)
    autolimits = doc.compiler.autolimits
    joints = {j.name: j for j in _joints(doc.world)
              if j.name in model.joint_names and j.type in ("hinge", "slide")}
    notes = [f"joint '{j.name}' ({j.type}): its armature and damping are not exported (drives "
             "are for hinges and slides)" for j in _joints(doc.world) if j.name not in joints
             and any(_floats(j.attrs, k, j.name, source, "0")[0] > 0
                     for k in ("armature", "damping"))]
    acting: dict[str, list[tuple[dict[str, str], float]]] = {}
    elsewhere: list[str] = []  # the actuators on no hinge or slide: 'name' (tendon 'x')
    for a in doc.actuators:
        what = f"actuator '{a['name']}' (<{a['tag']}>)"
        target = next((k for k in TRANSMISSIONS if k in a), None)
        if target is None or TRANSMISSIONS[target] != "joint" or a[target] not in joints:
            driven = "nothing" if target is None else f"{TRANSMISSIONS[target]} '{a[target]}'"
            notes.append(f"{what} drives {driven}, not a hinge or slide of the model: not "
                         "exported")
            elsewhere.append(f"'{a['name']}' ({driven})")
            continue
        gear = _floats(a, "gear", what, source, "1 0 0 0 0 0")[0]
        if gear == 0:
            notes.append(f"{what} has gear 0: not exported")
            continue
        acting.setdefault(a[target], []).append((a, gear))
    drives: dict[str, dict[str, float]] = {}
    limits: dict[str, dict[str, float]] = {}
    for name, j in joints.items():
        what = f"joint '{name}'"
        armature, damping, friction, stiffness = (
            _floats(j.attrs, key, what, source, "0")[0]
            for key in ("armature", "damping", "frictionloss", "stiffness"))
        actuators = acting.get(name, [])
        if len(actuators) > 1:
            notes.append(f"{what} has {len(actuators)} actuators ("
                         + ", ".join(f"'{a['name']}'" for a, _ in actuators)
                         + f"): its drive has the first's gear {actuators[0][1]:g}")
        gear = actuators[0][1] if actuators else 1.0
        if actuators or armature > 0 or damping > 0:
            drives[name] = {"gear_ratio": gear}
            if armature > 0:
                drives[name]["rotor_inertia"] = armature / gear ** 2
            if damping > 0:
                drives[name]["viscous"] = damping
        if friction > 0:
            notes.append(f"{what}: frictionloss {friction:g} not exported (MuJoCo's dry friction "
                         "is a constraint force; a drives file's coulomb is a smooth law: add "
                         "coulomb and coulomb_velocity to match it)")
        if stiffness > 0:
            notes.append(f"{what}: stiffness {stiffness:g} (a passive spring to springref) not "
                         "exported: a drives file's stiffness is a series-elastic drive")
        bounds = _range(j.attrs, "actuatorfrc", what, source, autolimits, notes)
        if bounds is not None:
            limits.setdefault(name, {})["torque"] = bounds
        if actuators:
            a, _ = actuators[0]
            what = f"actuator '{a['name']}' (<{a['tag']}>)"
            force = [b for b in (_range(a, "force", what, source, autolimits, notes),
                                 _range(a, "ctrl", what, source, autolimits, notes)
                                 if a["tag"] == "motor" else None) if b is not None]
            if a["tag"] == "position" and _range(a, "ctrl", what, source, autolimits, []):
                notes.append(f"{what}: ctrlrange (position targets) not exported")
            if force:
                limits.setdefault(name, {})["motor_torque"] = min(force)
    return MujocoDrives(drives, limits, tuple(notes),
                        "" if limits else _unlimited(len(doc.actuators), elsewhere))


def _unlimited(actuators: int, elsewhere: list[str]) -> str:
    """Why a model gives no limit to export (no joint with an ``actuatorfrcrange``, no
    actuator of one with a force or control range): ``actuators`` its number of actuators,
    ``elsewhere`` those on no hinge or slide (tendons: dm_control's point_mass)."""
    if not actuators:
        return "the model has no <actuator> and no joint an actuatorfrcrange"
    why = []
    if elsewhere:
        why.append("its actuators " + ", ".join(elsewhere) + " drive no hinge or slide (hodyn "
                   "models no tendon, site or body transmission)")
    if len(elsewhere) < actuators:
        why.append("its joints' actuators have no forcerange (nor a <motor>'s ctrlrange)")
    return "; ".join(why) + ", and no joint has an actuatorfrcrange"


def _joints(body: Body) -> Iterator[Joint]:
    """The joints under ``body``, depth first in file order (MuJoCo's order)."""
    for child in body.children:
        yield from child.joints
        yield from _joints(child)


def _floats(attrs: dict[str, str], key: str, what: str, source: str, default: str) -> list[float]:
    text = attrs.get(key, default)
    try:
        return [float(v) for v in text.split()]
    except ValueError:
        raise ModelError(f"{what}: {key}='{text}' is not a list of numbers", source) from None


def _range(attrs: dict[str, str], prefix: str, what: str, source: str, autolimits: bool,
           notes: list[str]) -> float | None:
    """The magnitude bound of ``<prefix>range`` where ``<prefix>limited`` (or ``auto`` with a
    range and ``autolimits``, as MuJoCo's compiler decides), else None; an asymmetric range
    keeps its larger side, with a note."""
    lo, hi = (_floats(attrs, f"{prefix}range", what, source, "0 0") + [0.0, 0.0])[:2]
    limited = attrs.get(f"{prefix}limited", "auto")
    given = not (lo == 0 and hi == 0)
    if not (limited == "true" or (limited == "auto" and given and autolimits)):
        return None
    if -lo != hi:
        notes.append(f"{what}: {prefix}range {lo:g} {hi:g} is not symmetric: the limit is "
                     f"{max(abs(lo), abs(hi)):g} (limits files bound magnitudes)")
    return max(abs(lo), abs(hi))
