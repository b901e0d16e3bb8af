"""Building models: URDF (and xacro) -> :class:`~hodyn_cli.core.model.Model`
(:mod:`~hodyn_cli.modeling.urdf`), locked joints, ``<mimic>`` joints, drives files, limit
checks.

Imports: :mod:`hodyn_cli.core` and :mod:`hodyn_cli.errors` (never algorithms, io, the
pipeline or the command line).
"""
