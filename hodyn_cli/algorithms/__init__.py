"""The algorithms: pure functions of (model, trajectory). Inverse dynamics of any order by
three methods (:mod:`~hodyn_cli.algorithms.methods`), link kinematics, inverse kinematics,
elastic joints, regressor and sensitivities, derivative estimation, designed motions,
validation.

Imports: :mod:`hodyn_cli.core`, :mod:`hodyn_cli.modeling`, :mod:`hodyn_cli.errors` (never io,
the pipeline, the API or the command line).
"""
