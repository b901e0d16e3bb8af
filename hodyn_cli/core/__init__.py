"""The core: SE(3) operators (:mod:`~hodyn_cli.core.lie`), the read-only multibody
:class:`~hodyn_cli.core.model.Model`, joint :class:`~hodyn_cli.core.trajectory.Trajectory` and
link :class:`~hodyn_cli.core.motion.LinkMotion` data.

Imports: numpy and :mod:`hodyn_cli.errors` only; everything else builds on it.
"""
