"""The command line's words for the capability table's features (:mod:`hodyn_cli.capabilities`
words them for Python callers): its options, or the property of the robot. Every refusal that
reaches the command line is said in these words (:func:`hodyn_cli.cli.errors.mapped_errors`),
and docs/capabilities.md is the table in them::

    python -m hodyn_cli.cli.flags > docs/capabilities.md

>>> from hodyn_cli.capabilities import FEATURES
>>> list(FLAGS) == list(FEATURES)
True
"""

from __future__ import annotations

from hodyn_cli import capabilities

__all__ = ["FLAGS"]

#: feature -> how a user of the command line turns it on
FLAGS = {
    "floating_base": "--floating-base",
    "contacts": "--contacts",
    "loops": "--loops (or an MJCF <equality connect|weld>)",
    "drives": "--drives",
    "elastic": "series-elastic --drives",
    "mimic": "<mimic> joints",
    "no_joints": "a robot with no joint",
    "joint_models": "a helical, ball, planar or free joint",
    "wrench": "--wrench",
    "joint_wrenches": "--joint-wrenches",
    "base_wrench": "--base-wrench",
    "method": "--method spatial|closed-form",
    "many": "--output-dir (several files)",
    "estimate": "--estimate-derivatives",
    "validate": "--validate",
    "state_derivatives": "--state-derivatives",
    "parameter_derivatives": "--parameter-derivatives",
    "slotine_li": "--slotine-li",
    "friction": "--friction / --armature",
    "simulate": "--simulate",
    "torques": "--torques",
    "sim_rtol": "--sim-rtol",
    "torque_rtol": "--torque-rtol",
    "optimal": "--optimal",
    "to_limits": "--to-limits",
    "factor": "--factor",
    "segments": "--segments",
    "respect_limits": "--respect-limits",
    "cutoff": "--cutoff",
    "base_motion": "--base-motion",
    "jacobian": "--jacobian",
    "link": "--link",
    "gpu": "--backend gpu",
    "torque_rates": "torque rates (taud_<joint> columns)",
    "log_wrenches": "wrench columns (W_<link>_*)",
    "drives_output": "--drives-output",
    "partials": "--derivatives",
}

if __name__ == "__main__":  # pragma: no cover - the docs page
    print(capabilities.markdown(FLAGS), end="")
