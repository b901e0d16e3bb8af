"""The algorithms: pure functions of (model, trajectory), in subpackages that import one way
(each may import those above it in this list, and :mod:`hodyn_cli.core`,
:mod:`hodyn_cli.modeling`, :mod:`hodyn_cli.errors`; never io, the pipeline, the API or the
command line; ``tests/test_layers.py`` checks it):

- :mod:`~hodyn_cli.algorithms.backends`: who computes the per-chunk operations (the numpy
  reference or the compiled kernel), chosen once;
- :mod:`~hodyn_cli.algorithms.dynamics`: inverse dynamics of any order by three methods, a
  floating root, the equations of motion and their derivatives, regressor, sensitivities,
  partials, forward dynamics;
- :mod:`~hodyn_cli.algorithms.motion`: link kinematics and Jacobians, momentum, inverse
  kinematics, derivative estimation;
- :mod:`~hodyn_cli.algorithms.contacts`: a floating base on its contacts: the contact
  wrenches, the torques with them, their margins;
- :mod:`~hodyn_cli.algorithms.actuation`: drives: elastic joints, rigid drives, friction;
- :mod:`~hodyn_cli.algorithms.limits`: how limited series scale with time, checks, retiming;
- :mod:`~hodyn_cli.algorithms.identification`: parameters from measured torques (weighted
  least squares, physically consistent estimates);
- :mod:`~hodyn_cli.algorithms.planning`: designed motions (excitation motions too);
- :mod:`~hodyn_cli.algorithms.verification`: validation of torques and data, simulation.
"""
