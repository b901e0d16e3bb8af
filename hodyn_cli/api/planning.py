"""Designed motions (``hodyn generate``): excitation and point-to-point motions with exact
derivatives, inside the robot's limits, played slower (or along the fastest time law) where
their torques, rates, ... would exceed them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hodyn_cli.api.drives import read_drives
from hodyn_cli.api.limits import joint_limits, refuse_elastic_optimal
from hodyn_cli.api.results import capable
from hodyn_cli.core.gravity import GRAVITY
from hodyn_cli.core.model import Model
from hodyn_cli.core.trajectory import Trajectory

if TYPE_CHECKING:
    from hodyn_cli.algorithms.limits.feasibility import Binding
    from hodyn_cli.algorithms.limits.optimal import Optimal

__all__ = ["Design", "design_motion"]


@dataclass
class Design:
    """A designed motion: ``chunks`` (Trajectory pieces in order, over the independent
    joints), the ``robot`` it was designed in (its URDF limits overridden by the limits
    given), and how it was fitted to them: played ``slow`` times slower (``binding``: the
    limit that set it, None if it was not slowed), or along the time law of ``optimal``;
    ``options``: the options it was made with, every default filled in (``seed``, ...)."""

    robot: Model
    chunks: Iterator[Trajectory]
    slow: float = 1.0
    binding: Binding | None = None
    optimal: Optimal | None = None
    source: str | None = None
    options: dict = field(default_factory=dict)

    def check(self, piece: Trajectory) -> None:
        """The one-line error for the first sample of ``piece`` outside a position or
        velocity limit of any joint, mimic ones too (naming :attr:`source`, where the limits
        come from)."""
        from hodyn_cli.algorithms.planning import generate

        generate.check_limits(self.robot, self.robot.coupling.expand(piece), self.source)


def design_motion(robot: Model, kind: str, *, limits: Any = None, drives: Any = None,
                  optimal: bool = False, gravity: Any = GRAVITY, chunk: int = 1 << 14,
                  **options: Any) -> Design:
    """A motion of ``kind`` (cosine, fourier, filtered-step, point-to-point:
    :mod:`hodyn_cli.algorithms.planning.generate` says what each is; excitation: the
    fourier series that excites the base parameters best within the limits,
    :mod:`hodyn_cli.algorithms.planning.excitation`) with q and its first ``derivatives``
    derivatives, exact, in pieces of ``chunk`` samples (memory bounded by a piece).

    ``options``: ``rate``, ``duration``, ``derivatives``, ``seed``; fourier:
    ``base_frequency``, ``harmonics``, ``coefficients``; filtered-step: ``filter_order``,
    ``step``; point-to-point: ``waypoints``, ``segment_duration``, ``vanishing``
    (:func:`hodyn_cli.algorithms.planning.generate.generate`; one that is None, or not
    given: its default, :data:`~hodyn_cli.algorithms.planning.generate.DEFAULTS`, as the
    command's options not given); ``source``: the file the
    limits come from, named in errors about them. With ``limits`` (as
    :func:`~hodyn_cli.api.limits.joint_limits` takes them: the design stays inside their
    positions and velocities) the motion is played uniformly slower until every limited
    quantity (torques and their rates too; with elastic ``drives`` the motor limits) is
    within them, or with ``optimal`` along its path with the fastest time law within them.

    >>> from hodyn_cli.api import load_robot
    >>> design = design_motion(load_robot("urdf/planar_2r.urdf"), "point-to-point")
    >>> piece = next(design.chunks)
    >>> piece.derivatives.shape[1:], design.slow
    ((5, 2), 1.0)
    """
    from hodyn_cli.algorithms.planning import generate
    from hodyn_cli.modeling.limits import with_limits

    capable("generate", robot)
    # (None: the default, as an option the command was not given; rate=None was a TypeError)
    source = options.get("source")
    options = generate.DEFAULTS | {key: value for key, value in options.items()
                                   if value is not None}
    made = dict(options)  # (what the Design tells: the excitation's coefficients not among it)
    if kind == "excitation":  # the fourier series of the optimized coefficients
        from hodyn_cli.algorithms.planning.excitation import excitation
        from hodyn_cli.modeling.limits import with_limits

        lim = joint_limits(robot, limits)
        options["coefficients"] = excitation(
            with_limits(robot, lim), lim, harmonics=options["harmonics"],
            base_frequency=options["base_frequency"], seed=options["seed"], gravity=gravity)
        kind = "fourier"
    if limits is None and not optimal:
        return Design(robot, generate.chunks(robot, kind, chunk, **options), source=source,
                      options=made)
    lim = joint_limits(robot, limits)
    robot = with_limits(robot, lim)
    d = None if drives is None else read_drives(robot, drives)
    if optimal:
        refuse_elastic_optimal(d)
        plan, pieces = generate.optimal(robot, kind, lim, gravity=gravity, drives=d, size=chunk,
                                        **options)
        return Design(robot, pieces, optimal=plan, source=source, options=made)
    slow, binding = generate.within_limits(robot, kind, lim, gravity=gravity, drives=d,
                                           **options)
    return Design(robot, generate.chunks(robot, kind, chunk, slow=slow, **options), slow,
                  binding, source=source, options=made)
