"""The Python API: the command line's capabilities on plain arrays (see docs/python.md).

Every function takes the robot (:func:`load_robot`) and the motion, either as a
:class:`~hodyn_cli.core.trajectory.Trajectory` or as q, qd, qdd, ... arrays: (N, m) or (m,) in
the order of ``robot.coordinate_names`` (the independent joints: a ``<mimic>`` joint follows
its leader and has no values of its own), or dicts keyed by joint name. Results are
:class:`Result` objects whose fields (``tau``, ``taud``, ...) are (N, ...) arrays, or one
sample's when the input was one sample; joint-indexed axes are in ``robot.coordinate_names``
order (``result.joint_names``).

This layer calls the algorithms (:mod:`hodyn_cli.algorithms`) and does what every caller
needs around them (:mod:`.results`): checking and shaping the inputs, imposing the joints'
coupling (mimic joints: the recursions run on all joints; results are projected onto the
independent ones), refusing what does not combine (:mod:`hodyn_cli.capabilities`) and naming
the results. One module per topic: :mod:`.robots` (robots and trajectories),
:mod:`.backends`, :mod:`.dynamics`, :mod:`.regressor`, :mod:`.motion`, :mod:`.drives`,
:mod:`.contacts`, :mod:`.limits`, :mod:`.planning`, :mod:`.validation`, :mod:`.estimation`;
every function is also here, at the top. The pipeline (:mod:`hodyn_cli.pipeline`) is built on
it: it feeds a file's chunks to the streaming forms these functions hand out (a check or a
retiming's search fed chunk by chunk, :func:`ik_solver`, :func:`derivative_stream`, ...),
whose types it names for annotations only (imported from the topic's module under
``TYPE_CHECKING``); neither it nor the command line reaches the algorithms but through this
package. The algorithms do not ask the table of capabilities: what a request combines is
held against it here, in the API's words (the command line words them as its flags).

Imports: core, modeling, algorithms, errors, capabilities.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (what a type checker and a reader see; run, each is imported on first use)
    from hodyn_cli.api.backends import (
        backend,
        backend_data,
        backend_info,
        backend_runs,
        use_backend,
    )
    from hodyn_cli.api.contacts import (
        beyond_margins,
        contact_dynamics,
        contact_matrices,
        read_contacts,
    )
    from hodyn_cli.api.drives import (
        drive_dynamics,
        drive_requirements,
        elastic_dynamics,
        elastic_requirements,
        explain_elastic,
        read_drives,
    )
    from hodyn_cli.api.dynamics import (
        forward_dynamics,
        inverse_dynamics,
        matrices,
        required_orders,
        simulate,
        torque_sensitivities,
    )
    from hodyn_cli.api.estimation import derivative_stream, estimating_reader
    from hodyn_cli.api.identification import (
        Identification,
        external_wrench_torques,
        identify,
        predict_torques,
        unidentified_drive_torques,
    )
    from hodyn_cli.api.limits import (
        check_arc_grid,
        check_limits,
        joint_limits,
        limit_check,
        played,
        retime,
        retime_optimal,
        retiming_by,
        scale_search,
        scaling_laws,
        scaling_requirements,
        time_optimal,
        torque_order,
    )
    from hodyn_cli.api.loops import close_loops, loop_components, loop_summary
    from hodyn_cli.api.motion import (
        centre_of_mass,
        forward_kinematics,
        ik_solver,
        inverse_kinematics,
        jacobian_columns,
        link_jacobian,
    )
    from hodyn_cli.api.planning import Design, design_motion
    from hodyn_cli.api.regressor import (
        body_parameters,
        dynamic_regressor,
        regressor_basis,
        regressor_parameters,
        regressor_rows,
    )
    from hodyn_cli.api.results import Result
    from hodyn_cli.api.robots import (
        base_motion,
        check_number,
        derivative_name,
        joint_trajectory,
        load_joints,
        load_robot,
        lock_joints,
        lock_value,
    )
    from hodyn_cli.api.validation import path_check, validate_motion
    from hodyn_cli.core.gravity import GRAVITY
    from hodyn_cli.core.model import Model
    from hodyn_cli.core.trajectory import BaseMotion, Trajectory

#: module -> the names of this package it defines: each module is imported where one of its
#: names is first asked for (``api.joint_limits``, ``from hodyn_cli.api import ...``), so a
#: command imports the topics it calls: ``retime --optimal`` none of identification, planning,
#: regressor, motion, validation, loops and estimation (~8-15 ms of its start at load 5).
#: tests/test_start.py holds it to the imports above and to ``__all__``.
HOMES = {
    "hodyn_cli.api.backends": (
        "backend", "backend_data", "backend_info", "backend_runs", "use_backend"),
    "hodyn_cli.api.contacts": (
        "beyond_margins", "contact_dynamics", "contact_matrices", "read_contacts"),
    "hodyn_cli.api.drives": (
        "drive_dynamics", "drive_requirements", "elastic_dynamics", "elastic_requirements",
        "explain_elastic", "read_drives"),
    "hodyn_cli.api.dynamics": (
        "forward_dynamics", "inverse_dynamics", "matrices", "required_orders", "simulate",
        "torque_sensitivities"),
    "hodyn_cli.api.estimation": ("derivative_stream", "estimating_reader"),
    "hodyn_cli.api.identification": (
        "Identification", "external_wrench_torques", "identify", "predict_torques",
        "unidentified_drive_torques"),
    "hodyn_cli.api.limits": (
        "check_arc_grid", "check_limits", "joint_limits", "limit_check", "played", "retime",
        "retime_optimal", "retiming_by", "scale_search", "scaling_laws", "scaling_requirements",
        "time_optimal", "torque_order"),
    "hodyn_cli.api.loops": ("close_loops", "loop_components", "loop_summary"),
    "hodyn_cli.api.motion": (
        "centre_of_mass", "forward_kinematics", "ik_solver", "inverse_kinematics",
        "jacobian_columns", "link_jacobian"),
    "hodyn_cli.api.planning": ("Design", "design_motion"),
    "hodyn_cli.api.regressor": (
        "body_parameters", "dynamic_regressor", "regressor_basis", "regressor_parameters",
        "regressor_rows"),
    "hodyn_cli.api.results": ("Result",),
    "hodyn_cli.api.robots": (
        "base_motion", "check_number", "derivative_name", "joint_trajectory", "load_joints",
        "load_robot", "lock_joints", "lock_value"),
    "hodyn_cli.api.validation": ("path_check", "validate_motion"),
    "hodyn_cli.core.gravity": ("GRAVITY",),
    "hodyn_cli.core.model": ("Model",),
    "hodyn_cli.core.trajectory": ("BaseMotion", "Trajectory"),
}
_HOME = {name: module for module, names in HOMES.items() for name in names}


def __getattr__(name: str) -> object:
    """A name of the API, imported from its module on first use (then a global here)."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


__all__ = [
    # the types it takes and hands out, the default gravity
    "Model", "Trajectory", "BaseMotion", "Result", "GRAVITY",
    # robots and trajectories
    "load_robot", "load_joints", "lock_joints", "lock_value", "joint_trajectory", "base_motion",
    "derivative_name", "check_number",
    # who computes
    "use_backend", "backend", "backend_info", "backend_data", "backend_runs",
    # dynamics
    "inverse_dynamics", "matrices", "forward_dynamics", "simulate", "torque_sensitivities",
    "required_orders",
    # closed kinematic loops
    "close_loops", "loop_summary", "loop_components",
    # identification
    "dynamic_regressor", "regressor_parameters", "regressor_basis", "regressor_rows",
    "body_parameters", "identify", "Identification", "predict_torques",
    "unidentified_drive_torques",
    "external_wrench_torques",
    # a link's motion
    "forward_kinematics", "centre_of_mass", "inverse_kinematics", "ik_solver", "link_jacobian",
    "jacobian_columns",
    # drives
    "read_drives", "elastic_dynamics", "drive_dynamics", "elastic_requirements",
    "drive_requirements", "explain_elastic",
    # contacts
    "read_contacts", "contact_dynamics", "contact_matrices", "beyond_margins",
    # limits and time scaling
    "joint_limits", "scaling_laws", "check_limits", "retime", "time_optimal", "retime_optimal",
    "check_arc_grid",
    # ... chunk by chunk
    "torque_order", "scaling_requirements", "limit_check", "scale_search", "retiming_by",
    "played",
    # derivatives estimated as the chunks stream
    "derivative_stream", "estimating_reader",
    # designed motions
    "Design", "design_motion",
    # validation
    "validate_motion", "path_check",
]
