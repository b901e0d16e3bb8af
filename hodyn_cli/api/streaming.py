"""The building blocks the pipeline composes over a file's chunks, and the types they hand
out: derivative estimation as the chunks stream, the check of limits and the search of a
retiming fed chunk by chunk, the inverse kinematics' streaming solver, and the results of
validation and of the limits.

Unlike the API's functions, which import their algorithms when first called (``import
hodyn_cli`` stays fast), this module imports them when it is imported: what uses them (the
pipeline's jobs, ``hodyn check``, ``validate``, ``ik``) imports it where it needs them.
"""

from hodyn_cli.algorithms.dynamics.regressor import BaseParameters
from hodyn_cli.algorithms.limits.feasibility import (
    CONTACT_QUANTITIES,
    QUANTITIES,
    Binding,
    Check,
    Infeasible,
    Retiming,
    Row,
    ScaleSearch,
    torque_order,
)
from hodyn_cli.algorithms.limits.feasibility import requirements as scaling_requirements
from hodyn_cli.algorithms.limits.scaling import TOLERANCE, scaled
from hodyn_cli.algorithms.motion.estimate import DerivativeStream, EstimatingReader
from hodyn_cli.algorithms.motion.ik import MAX_CONDITION, POSTURE_GAIN, InverseKinematics
from hodyn_cli.algorithms.verification.validate import Check as ValidationCheck
from hodyn_cli.algorithms.verification.validate import Report, Tolerances

__all__ = [
    # derivative estimation, window by window (pipeline.inputs)
    "EstimatingReader", "DerivativeStream",
    # limits: the check and the uniform retiming, fed the scaling laws of each chunk
    "Check", "ScaleSearch", "Retiming", "Binding", "Infeasible", "Row", "QUANTITIES",
    "CONTACT_QUANTITIES", "TOLERANCE", "torque_order", "scaling_requirements", "scaled",
    # inverse kinematics, chunk after chunk from the last sample
    "InverseKinematics", "MAX_CONDITION", "POSTURE_GAIN",
    # validation
    "Report", "ValidationCheck", "Tolerances",
    # the regressor's base parameters
    "BaseParameters",
]
