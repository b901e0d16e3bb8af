"""What combines with what: the one table of the features each operation takes together, and
the one place a combination is refused (a one-line :class:`Unsupported`, exit 2 on the
command line).

Features are what a caller turns on (an option, or a property of the robot such as mimic
joints, or no joint at all); :data:`RULES` says which combinations an operation refuses
(:class:`Excludes`: these features together are not supported, with why) and which features
need another (:class:`Requires`). The Python API and the command line both ask
:func:`check` with the features a call has on. A refusal is worded for a Python caller
(:data:`FEATURES`: what turns a feature on in the API); the command line says it in its
own words, its options (:data:`hodyn_cli.cli.flags.FLAGS`, :meth:`Unsupported.worded`). A
refusal that a property of the robot in :data:`ROBOT` makes names the robot's file.
``docs/capabilities.md`` is :func:`markdown` of this table in the command line's words (a
test holds the two equal, another runs every cell on a small robot).

>>> check("compute", {"floating_base", "base_wrench"})     # fine: nothing is returned
>>> allowed("matrices", {"floating_base", "state_derivatives"})
False
>>> Excludes(("drives", "method"), ("compute",)).message()
"drives do not go with method='spatial'|'closed-form' yet"
>>> Excludes(("drives", "method"), ("compute",)).message({"drives": "--drives",
...                                                       "method": "--method spatial"})
'--drives does not go with --method spatial yet'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from hodyn_cli.errors import HodynError

__all__ = ["FEATURES", "COMMANDS", "ROBOT", "PROPERTIES", "Excludes", "Requires", "RULES", "Unsupported",
           "check", "allowed", "markdown"]

#: feature -> what turns it on in the Python API (the words of a refusal to a Python caller;
#: a plural subject is said with "do")
FEATURES = {
    "floating_base": "a floating base (a motion with a base)",
    "contacts": "contacts",
    "loops": "closed loops",
    "drives": "drives",
    "elastic": "series-elastic drives",
    "mimic": "mimic joints",
    "no_joints": "a robot with no joint",
    "joint_models": "a helical, ball, planar or free joint",
    "wrench": "external wrenches",
    "joint_wrenches": "joint_wrenches=True",
    "base_wrench": "base_wrench=True",
    "method": "method='spatial'|'closed-form'",
    "many": "several trajectories at once",
    "estimate": "estimated derivatives",
    "validate": "validation of the results",
    "state_derivatives": "state derivatives",
    "parameter_derivatives": "parameter derivatives",
    "slotine_li": "the Slotine-Li regressor (qr_d, qr_dd)",
    "friction": "friction=True / armature=True",
    "simulate": "simulation",
    "torques": "measured torques",
    "sim_rtol": "a simulation tolerance",
    "torque_rtol": "a torque tolerance",
    "optimal": "the time-optimal law",
    "to_limits": "retiming to the limits",
    "factor": "a time factor",
    "segments": "segments",
    "respect_limits": "limits to respect",
    "cutoff": "a cutoff frequency",
    "base_motion": "a base motion of its own",
    "jacobian": "the Jacobian",
    "link": "a link",
    "gpu": "the GPU backend",
    "torque_rates": "measured torque rates",
    "log_wrenches": "measured external wrenches",
    "drives_output": "drives_output (the identified drives file)",
    "partials": "partials=True",
}
#: the features said in the plural ("... do not go with ...")
PLURAL = {"contacts", "loops", "drives", "elastic", "mimic", "wrench", "estimate",
          "state_derivatives", "parameter_derivatives", "torques", "segments", "torque_rates",
          "log_wrenches"}

#: properties of the robot whose refusals name its file (the robot, not an option, is refused)
ROBOT = {"no_joints", "joint_models"}
#: what the robot or its data has, not an option a user turns on: a command without it in its
#: row is refused, not left to drop it (it would compute another robot: loops opened, ...)
PROPERTIES = {"mimic", "no_joints", "joint_models", "loops", "torque_rates", "log_wrenches"}

#: command -> the features it has at all (an option it takes, or a robot property it meets)
_STREAMING = {"wrench", "estimate", "cutoff", "gpu", "mimic", "no_joints", "joint_models"}
COMMANDS = {
    "compute": _STREAMING | {"floating_base", "base_motion", "contacts", "drives",
                             "joint_wrenches", "base_wrench", "method", "many", "validate",
                             "loops"},
    "matrices": _STREAMING | {"floating_base", "base_motion", "contacts", "state_derivatives",
                              "parameter_derivatives", "loops"},
    "regressor": _STREAMING | {"floating_base", "base_motion", "drives", "friction",
                               "slotine_li", "loops"},
    "sensitivities": _STREAMING | {"floating_base", "base_motion"},
    "elastic": _STREAMING | {"elastic", "drives"},
    "forward": {"wrench", "gpu", "mimic", "no_joints", "joint_models", "partials",
                "floating_base", "base_motion"},
    "kinematics": {"estimate", "cutoff", "gpu", "mimic", "no_joints", "joint_models", "floating_base",
                   "base_motion", "jacobian", "link"},
    "ik": {"gpu", "mimic", "no_joints", "joint_models"},
    "validate": _STREAMING | {"floating_base", "base_motion", "contacts", "drives", "method",
                              "simulate", "torques", "sim_rtol", "torque_rtol", "loops"},
    "check": _STREAMING | {"floating_base", "base_motion", "contacts", "drives", "elastic",
                           "loops"},
    "retime": _STREAMING | {"floating_base", "base_motion", "contacts", "drives", "elastic",
                            "optimal", "to_limits", "factor", "segments"},
    "generate": {"gpu", "mimic", "no_joints", "joint_models", "drives", "elastic", "optimal",
                 "respect_limits"},
    "identify": {"estimate", "cutoff", "mimic", "no_joints", "joint_models", "floating_base",
                 "drives", "friction", "torque_rates", "log_wrenches", "drives_output"},
}

EVERY = tuple(COMMANDS)
#: the commands that run a robot with a helical, ball, planar or free joint (the others refuse
#: it: docs/conventions.md, "Multi-DOF and helical joints")
JOINT_MODELS_RUN = ("compute", "matrices", "regressor", "kinematics", "forward", "check",
                    "sensitivities", "generate", "retime", "validate")


@dataclass(frozen=True, eq=False, repr=False)
class Excludes:
    """``features`` together are refused by ``commands``; ``why`` is said after the refusal
    (``yet`` rules are what has not been built, the others what does not make sense)."""

    features: tuple[str, ...]
    commands: tuple[str, ...]
    why: str = ""
    yet: bool = True

    def message(self, words: Mapping[str, str] = FEATURES) -> str:
        """The refusal in ``words`` (feature -> what turns it on: :data:`FEATURES`, or the
        command line's options)."""
        first, *rest = (words[f] for f in self.features)
        plural = words is FEATURES and self.features[0] in PLURAL
        text = (f"{first} {'do' if plural else 'does'} not go with {' and '.join(rest)}"
                if rest else f"{first} {'are' if plural else 'is'} not supported")
        return text + (" yet" if self.yet else "") + (f" ({self.why})" if self.why else "")


@dataclass(frozen=True, eq=False, repr=False)
class Requires:
    """``feature`` needs ``needs`` on ``commands``."""

    feature: str
    needs: str
    commands: tuple[str, ...]
    why: str = ""

    def message(self, words: Mapping[str, str] = FEATURES) -> str:
        """The rule in ``words`` (as :meth:`Excludes.message`)."""
        plural = words is FEATURES and self.feature in PLURAL
        return (f"{words[self.feature]} {'go' if plural else 'goes'} with {words[self.needs]}"
                + (f" ({self.why})" if self.why else ""))


class Unsupported(HodynError):
    """A combination :data:`RULES` refuses: its ``rule``, in :data:`FEATURES`' words
    (:meth:`worded`: in others, the command line's)."""

    def __init__(self, rule: Excludes | Requires, source: str | None = None,
                 words: Mapping[str, str] = FEATURES):
        super().__init__(rule.message(words), source)
        self.rule = rule

    def worded(self, words: Mapping[str, str]) -> Unsupported:
        """The same refusal in ``words``."""
        return Unsupported(self.rule, self.source, words)


#: every combination a command refuses, and what an option needs
RULES: tuple[Excludes | Requires, ...] = (
    Excludes(("floating_base", "many"), ("compute",)),
    Excludes(("floating_base", "drives"), ("compute", "regressor", "validate", "check", "retime",
                                           "identify"), "the drives' model has a fixed root"),
    Excludes(("floating_base", "state_derivatives"), ("matrices",)),
    Excludes(("floating_base", "parameter_derivatives"), ("matrices",)),
    Excludes(("floating_base", "slotine_li"), ("regressor",)),
    Excludes(("floating_base", "partials"), ("forward",),
             "d qdd / d q is taken on a fixed root's joints"),
    Excludes(("floating_base", "simulate"), ("validate",)),
    Excludes(("floating_base", "torques"), ("validate",)),
    Excludes(("drives", "torques"), ("validate",)),
    Excludes(("contacts", "validate"), ("compute",),
             "hodyn validate --contacts checks the contacts"),
    Excludes(("drives", "joint_wrenches"), ("compute",)),
    Excludes(("drives", "base_wrench"), ("compute",)),
    Excludes(("drives", "method"), ("compute",),
             "the rotors' reactions are terms of the body-fixed recursion"),
    Excludes(("drives", "mimic"), ("compute", "regressor", "elastic", "validate", "check",
                                   "retime", "generate", "identify")),
    *(Excludes(("loops", other), ("compute",)) for other in (
        "floating_base", "contacts", "drives", "mimic", "wrench", "joint_wrenches",
        "base_wrench", "many")),
    *(Excludes(("loops", other), ("matrices",)) for other in (
        "floating_base", "contacts", "mimic", "wrench", "state_derivatives",
        "parameter_derivatives")),
    *(Excludes(("loops", other), ("regressor",)) for other in (
        "floating_base", "drives", "friction", "mimic")),
    Excludes(("loops", "slotine_li"), ("regressor",),
             "Y_r of the reduced system needs G' in its reference terms"),
    *(Excludes(("loops", other), ("check",)) for other in (
        "floating_base", "contacts", "drives", "mimic", "wrench")),
    *(Excludes(("loops", other), ("validate",)) for other in (
        "floating_base", "contacts", "drives", "mimic", "wrench", "simulate", "torques")),
    Excludes(("torque_rates", "drives"), ("identify",),
             "the drives' terms are subtracted at order 0 only"),
    Excludes(("torque_rates", "log_wrenches"), ("identify",),
             "their share's rates need the wrenches' rates"),
    Excludes(("floating_base", "estimate"), ("identify",),
             "a floating base's twists are not estimated: its log gives base_Vb and base_Vbd"),
    Excludes(("slotine_li", "friction"), ("regressor",)),
    Excludes(("many", "wrench"), ("compute",), "one wrench file goes with one trajectory",
             yet=False),
    Excludes(("many", "validate"), ("compute",), "it checks one trajectory", yet=False),
    Excludes(("many", "estimate"), ("compute",), "each file is estimated on its own: run "
             "them one at a time", yet=False),
    Excludes(("optimal", "elastic"), ("retime", "generate"),
             "their motor angles need more derivatives of the time law"),
    Excludes(("optimal", "wrench"), ("retime",)),
    Excludes(("optimal", "floating_base"), ("retime",),
             "the base and contact columns, cones and soles are not limits of its time law"),
    Excludes(("optimal", "to_limits"), ("retime",), "it finds its own time law", yet=False),
    Excludes(("optimal", "factor"), ("retime",), "it finds its own time law", yet=False),
    Excludes(("optimal", "segments"), ("retime",), "it finds its own time law", yet=False),
    Excludes(("mimic",), ("ik",)),
    Excludes(("joint_models",), tuple(c for c in COMMANDS if c not in JOINT_MODELS_RUN),
             "only " + ", ".join(JOINT_MODELS_RUN) + " run it, by numpy's passes (and "
             "the compiled kernel's body-fixed inverse dynamics)"),
    *(Excludes(("joint_models", other), ("compute",)) for other in (
        "contacts", "drives", "loops", "mimic", "many")),
    *(Excludes(("joint_models", other), ("matrices",)) for other in (
        "contacts", "loops", "mimic", "state_derivatives", "parameter_derivatives")),
    *(Excludes(("joint_models", other), ("regressor",)) for other in (
        "drives", "slotine_li", "loops", "mimic")),  # (friction needs drives)
    Excludes(("joint_models", "mimic"), ("kinematics",)),
    *(Excludes(("joint_models", other), ("forward",)) for other in ("mimic", "partials")),
    Excludes(("joint_models", "mimic"), ("sensitivities",)),
    *(Excludes(("joint_models", other), ("validate",)) for other in (
        "contacts", "drives", "loops", "mimic", "simulate", "torques")),
    *(Excludes(("joint_models", other), ("check",)) for other in (
        "contacts", "drives", "loops", "mimic")),  # (elastic ones are drives)
    *(Excludes(("joint_models", other), ("retime",)) for other in (
        "contacts", "drives", "mimic")),
    *(Excludes(("joint_models", other), ("retime",),
               "the limits' search reads 1-DOF joints only; a time factor plays any joint") for
      other in ("to_limits", "optimal")),
    Excludes(("joint_models", "respect_limits"), ("generate",),
             "the limits' search reads 1-DOF joints only"),
    Excludes(("no_joints",), ("sensitivities",), "a single rigid body has no joint torques to "
             "differentiate", yet=False),
    Excludes(("no_joints",), ("elastic",), "a single rigid body has no joint to drive",
             yet=False),
    Excludes(("no_joints",), ("ik",), "a single rigid body has no joint motion to find",
             yet=False),
    Excludes(("no_joints",), ("generate",), "a single rigid body has no joint motion to design",
             yet=False),
    Excludes(("no_joints",), ("identify",), "a single rigid body has no joint torques to "
             "identify it from", yet=False),
    Excludes(("no_joints", "estimate"), ("compute", "matrices", "regressor", "kinematics",
                                         "validate", "check", "retime"),
             "it estimates joint derivatives; the root's come from its base_ columns",
             yet=False),
    Requires("no_joints", "floating_base", ("compute", "matrices", "regressor", "kinematics",
                                            "forward", "validate", "check", "retime"),
             "a single rigid body has no joint torques: it moves only as a free body"),
    Requires("no_joints", "contacts", ("check",),
             "a single rigid body has no joint limits: its contacts' cones and soles are what "
             "there is to check"),
    Requires("contacts", "floating_base", ("compute", "matrices", "validate", "check", "retime"),
             "the contacts carry a floating base's wrench"),
    Requires("base_motion", "floating_base", tuple(c for c in COMMANDS
                                                   if "base_motion" in COMMANDS[c])),
    Requires("cutoff", "estimate", tuple(c for c in COMMANDS if "cutoff" in COMMANDS[c]),
             "it filters the data the derivatives are estimated from"),
    Requires("sim_rtol", "simulate", ("validate",), "the tolerance of its checks"),
    Requires("torque_rtol", "torques", ("validate",), "the tolerance of its checks"),
    Requires("drives_output", "friction", ("identify",),
             "the identified friction and armature are what it writes"),
    Requires("friction", "drives", ("regressor", "identify"),
             "the drives file gives their parameters"),
    Requires("drives", "friction", ("regressor",), "the columns it adds"),
    Requires("segments", "to_limits", ("retime",), "each segment to its limits"),
    Requires("drives", "respect_limits", ("generate",), "the motor limits it respects"),
    Requires("optimal", "respect_limits", ("generate",), "the limits it plays to"),
    Requires("jacobian", "link", ("kinematics",), "whose Jacobian"),
)


def check(command: str, on: Iterable[str], robot: str | None = None) -> None:
    """Nothing if ``command`` takes the features ``on`` together; else the one-line refusal
    of the first rule they meet, naming ``robot`` (its file) where a property of the robot
    (:data:`ROBOT`) is refused. Options the command has no row for are not its options and
    pass; a property of the robot or its data (:data:`PROPERTIES`) it has none for is
    refused (it would compute another robot: closed loops opened).

    >>> check("compute", {"no_joints"}, "quadrotor.urdf")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    hodyn_cli.capabilities.Unsupported: quadrotor.urdf: a robot with no joint goes with a floating base (...)
    """
    on = set(on)
    unknown = on - set(FEATURES)
    if unknown:
        raise ValueError(f"unknown features {sorted(unknown)}")
    absent = sorted(on & PROPERTIES - COMMANDS[command])
    if absent:
        raise Unsupported(Excludes((absent[0],), (command,)),
                          robot if absent[0] in ROBOT else None)
    on &= COMMANDS[command]
    for rule in RULES:
        if command not in rule.commands:
            continue
        named = rule.features if isinstance(rule, Excludes) else (rule.feature,)
        source = robot if ROBOT & set(named) else None
        if isinstance(rule, Excludes) and set(rule.features) <= on:
            raise Unsupported(rule, source)
        if isinstance(rule, Requires) and rule.feature in on and rule.needs not in on:
            raise Unsupported(rule, source)


def allowed(command: str, on: Iterable[str]) -> bool:
    """True when :func:`check` would let ``on`` through on ``command``."""
    try:
        check(command, on)
    except Unsupported:
        return False
    return True


def markdown(words: Mapping[str, str] = FEATURES) -> str:
    """The table as docs/capabilities.md shows it in ``words`` (the command line's there):
    per feature and command, ``yes`` (taken, alone and with every feature not named in a
    rule), ``-`` (not an option of the command), and the refused combinations and
    requirements below it."""
    lines = ["# What combines with what", "",
             "Generated from `hodyn_cli/capabilities.py` (the one place a combination is "
             "refused: `python -m hodyn_cli.cli.flags > docs/capabilities.md`). A feature "
             "is an option (or a property of the robot: mimic joints, no joint at all); `yes`: "
             "the command takes it, `-`: it has no such option. Any two features a command "
             "takes combine, except as the rules below the table say; a refused combination is "
             "one line on stderr and exit status 2 (naming the robot's file where the robot "
             "having no joint is what is refused).", ""]
    lines.append("| feature | " + " | ".join(f"`{c}`" for c in COMMANDS) + " |")
    lines.append("| --- |" + " --- |" * len(COMMANDS))
    for key, text in words.items():
        cells = []
        for c in COMMANDS:
            if key not in COMMANDS[c]:
                cells.append("-")
            else:
                cells.append("yes" if allowed(c, _with_needs(c, {key})) else "no")
        lines.append(f"| {text.replace('|', '/')} | " + " | ".join(cells) + " |")
    lines += ["", "## Combinations refused", "", "| commands | refusal |", "| --- | --- |"]
    for rule in RULES:
        if isinstance(rule, Excludes):
            lines.append(f"| {', '.join(rule.commands)} | "
                         f"{rule.message(words).replace('|', '/')} |")
    lines += ["", "## Options that need another", "", "| commands | rule |", "| --- | --- |"]
    for rule in RULES:
        if isinstance(rule, Requires):
            lines.append(f"| {', '.join(rule.commands)} | "
                         f"{rule.message(words).replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def _with_needs(command: str, on: set[str]) -> set[str]:
    """``on`` with what its features require on ``command`` (a feature is taken when it is,
    with what it needs)."""
    out = set(on)
    for rule in RULES:
        if isinstance(rule, Requires) and command in rule.commands and rule.feature in out:
            out.add(rule.needs)
    return out

