"""hodyn: joint torques of a prescribed motion and their time derivatives.

The package is layered; dependencies point one way (each subpackage's docstring says what it
may import; ``tests/test_layers.py`` checks it)::

    core  <-  modeling  <-  algorithms  <-  api  <-  pipeline  <-  cli
    core  <-  io  <-  pipeline

:mod:`~hodyn_cli.core` (SE(3), the model, trajectories), :mod:`~hodyn_cli.modeling` (URDF,
locks, mimic joints, drives), :mod:`~hodyn_cli.algorithms` (inverse dynamics of any order by
three methods, kinematics, IK, elastic joints, regressor, sensitivities, ...), :mod:`~hodyn_cli.api`
(the Python API), :mod:`~hodyn_cli.io` (files; knows no algorithm), :mod:`~hodyn_cli.pipeline`
(jobs per chunk, streaming, many files, Dask), :mod:`~hodyn_cli.cli` (the ``hodyn`` command).
Nothing but the command line imports typer or rich. The Python API (docs/python.md) is
available at the top: ``hodyn_cli.load_robot``, ``hodyn_cli.inverse_dynamics``,
``forward_kinematics``, ``matrices``, ``validate_motion``, ``elastic_dynamics``,
``drive_dynamics``, ``dynamic_regressor``, ``regressor_parameters``, ``regressor_basis``,
``torque_sensitivities``, ``inverse_kinematics``, ``forward_dynamics``, ``simulate``,
``joint_limits``, ``check_limits``, ``retime``, ``retime_optimal``, ``scaling_laws``
(imported on first use, so ``import hodyn_cli`` stays fast).
"""

__version__ = "0.1.0"

# the API's names at the top of the package, imported from hodyn_cli.api on first use
_API = ("Result", "load_robot", "inverse_dynamics", "forward_kinematics", "matrices",
        "validate_motion", "elastic_dynamics", "drive_dynamics", "dynamic_regressor",
        "regressor_parameters", "regressor_basis", "torque_sensitivities", "joint_trajectory",
        "inverse_kinematics", "forward_dynamics", "simulate", "joint_limits", "check_limits",
        "retime", "retime_optimal", "scaling_laws")
__all__ = ["__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        from hodyn_cli import api

        return getattr(api, name)
    raise AttributeError(f"module 'hodyn_cli' has no attribute '{name}'")
